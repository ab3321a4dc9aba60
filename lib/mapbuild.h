/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A whole block map built anew: logical blocks 0 .. n-1 of an inode
 * mapped to the physical blocks a caller chose, as an extent tree (as
 * shallow as the runs allow) or as direct and indirect blocks. Planning
 * and building are apart so that a writer can decide everything first:
 * extkit_mapbuild_plan() says how many tree blocks the map needs (no
 * I/O), extkit_mapbuild_fill() lays the map out in memory over the tree
 * blocks the caller picked (still no I/O), and extkit_mapbuild_write()
 * writes those tree blocks, extent blocks with their checksum tail.
 */
#ifndef EXTKIT_MAPBUILD_H
#define EXTKIT_MAPBUILD_H

#include <stdint.h>

#include "alloc.h"
#include "fs.h"
#include "inode.h"

struct extkit_extent;

struct extkit_mapbuild {
	int extents;		/* an extent tree, else indirect blocks */
	uint64_t nblocks;	/* logical blocks 0 .. nblocks-1 */
	const uint64_t *pblks;	/* physical block of each; 0: a hole */
	/* Or, for an extent tree without holes, instead of pblks (NULL):
	 * nruns runs of physical blocks mapping logical blocks 0 ..
	 * nblocks-1 in order, no two consecutive runs contiguous (as
	 * extkit_alloc_find_runs gives them). */
	const struct extkit_blk_run *runs;
	size_t nruns;
	/* Or, for an extent tree, the extents themselves (sorted, apart,
	 * each at most 32768 blocks, or 32767 unwritten): pblks unused */
	const struct extkit_extent *list;
	uint64_t nlist;
	uint64_t nmeta;		/* tree blocks the map needs (plan) */
	const uint64_t *meta;	/* where they go (chosen by the caller) */
	uint8_t *bufs;		/* nmeta blocks: their contents (fill) */
};

/*
 * Sets mb->nmeta for mb->extents, nblocks and pblks (or runs). -EFBIG
 * when an indirect map cannot reach that far or a block lies past 2^32;
 * -EINVAL for runs without extents or not adding up to nblocks.
 */
int extkit_mapbuild_plan(const struct extkit_fs *fs,
			 struct extkit_mapbuild *mb);

/*
 * Builds the map: i_block of inode (the in-inode extent root or the 15
 * block pointers, EXT4_EXTENTS_FL as mb->extents says) and the nmeta
 * tree blocks in mb->bufs, tree block k to be written at mb->meta[k].
 * i_blocks and i_size are the caller's.
 */
void extkit_mapbuild_fill(const struct extkit_fs *fs,
			  const struct extkit_mapbuild *mb,
			  struct extkit_inode *inode);

/* Writes the tree blocks of inode ino (i_generation gen). */
int extkit_mapbuild_write(struct extkit_fs *fs, uint32_t ino, uint32_t gen,
			  const struct extkit_mapbuild *mb);

#endif /* EXTKIT_MAPBUILD_H */
