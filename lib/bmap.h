/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logical to physical block mapping: direct, indirect, double and triple
 * indirect blocks, and extent trees, read and cut through the one walker
 * (walk.c). Every block number read is checked to lie inside the
 * filesystem; depth is bounded, so a map that points at itself ends in an
 * error, never a hang.
 */
#ifndef EXTKIT_BMAP_H
#define EXTKIT_BMAP_H

#include <stddef.h>
#include <stdint.h>

#include "endian.h"
#include "fs.h"
#include "inode.h"

/* Entry i of an indirect block (a block number, 0: a hole; the block is
 * an array of addr_per_block __le32) and its setter. */
static inline uint32_t extkit_bmap_ind_get(const uint8_t *blk, uint32_t i)
{
	return get_le32(blk + 4 * (size_t)i);
}

static inline void extkit_bmap_ind_set(uint8_t *blk, uint32_t i,
				       uint32_t pblk)
{
	put_le32(blk + 4 * (size_t)i, pblk);
}

/* Flags passed to the walk callback. */
#define EXTKIT_BLOCK_META	0x1	/* indirect or extent tree block */
#define EXTKIT_BLOCK_UNWRITTEN	0x2	/* extent marked unwritten */

/*
 * Called for each run of mapped blocks: logical start lblk (for META
 * blocks, the first logical block the block maps), physical start pblk,
 * count blocks.
 * Returning non-zero stops the walk; a positive value is returned
 * unchanged from extkit_block_walk, a negative one as an error.
 */
typedef int (*extkit_block_fn)(struct extkit_fs *fs, uint64_t lblk,
			       uint64_t pblk, uint32_t count, int flags,
			       void *arg);

/*
 * Visits every mapped block of inode in logical order (META blocks before
 * the data they map). Holes are skipped. Returns 0, the callback's positive
 * stop value, or a negative error: EFSCORRUPTED for a block number out of
 * range or a bad extent header; EXTKIT_ELOOP for an extent tree that does
 * not descend, or a map with more references than the filesystem has
 * blocks (indirect blocks pointing at each other).
 */
int extkit_block_walk(struct extkit_fs *fs, const struct extkit_inode *inode,
		      extkit_block_fn fn, void *arg);

/*
 * Cuts the block map of inode ino down to its first keep logical blocks
 * (a truncate): every pointer to a later block is cleared in
 * inode->block or in its indirect block, and an indirect block left with
 * no pointer at all is released too. An extent tree likewise: extents
 * past keep are dropped, the one across keep shortened, a tree block left
 * with no entry released (a root left empty becomes an empty leaf), last
 * entry first; tree blocks are written with their checksum (owner ino).
 * Each released run is passed to fn (EXTKIT_BLOCK_META for a map block);
 * a non-zero return stops the cut, possibly half done. Changed map
 * blocks are written unless dry is set (inode->block is edited in memory
 * either way: pass a copy for a dry run); the caller writes the inode and
 * fixes i_blocks. Returns 0, the callback's stop value, EFSCORRUPTED or
 * EXTKIT_ELOOP as extkit_block_walk() does.
 */
int extkit_bmap_truncate(struct extkit_fs *fs, uint32_t ino,
			 struct extkit_inode *inode, uint64_t keep, int dry,
			 extkit_block_fn fn, void *arg);

/* Physical block of logical block lblk; *pblk = 0 for a hole (unwritten
 * extents read as holes, as FIBMAP reports them). */
int extkit_bmap(struct extkit_fs *fs, const struct extkit_inode *inode,
		uint64_t lblk, uint64_t *pblk);

/*
 * Collects the physical blocks for logical blocks 0 .. nblocks-1 into
 * pblks (0 for holes). One walk, for directory scans.
 */
int extkit_bmap_all(struct extkit_fs *fs, const struct extkit_inode *inode,
		    uint64_t nblocks, uint64_t *pblks);
/* The same with unwritten extents' blocks mapped too (what they hold,
 * for a checker that will make them written). */
int extkit_bmap_all_raw(struct extkit_fs *fs,
			const struct extkit_inode *inode, uint64_t nblocks,
			uint64_t *pblks);

/*
 * The logical block after the last data block mapped (unwritten extents
 * count): 0 for an empty map. One walk; a corrupt map fails as
 * extkit_block_walk() does.
 */
int extkit_bmap_end(struct extkit_fs *fs, const struct extkit_inode *inode,
		    uint64_t *end);

#endif /* EXTKIT_BMAP_H */
