/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filling a filesystem in bulk (mkfs -d), the allocator whose backing is
 * the whole filesystem in memory: every block and inode bitmap is
 * loaded into memory once, inodes and runs of blocks are taken from them
 * near a goal without any I/O, and extkit_fsbuild_flush() writes the
 * bitmaps of the groups that changed (with their checksums). Group and
 * superblock counts are kept in fs as allocation goes; the caller writes
 * them with extkit_fs_write_super() when it is done. A group whose block
 * bitmap is uninitialised is taken as its metadata alone (superblock
 * backup, descriptors, and any group's bitmaps and inode table in it) and
 * initialised when a block of it is taken; one whose inode bitmap is
 * uninitialised likewise when one of its inodes is taken. On bigalloc
 * the bitmap in memory holds a bit per cluster, as the disk's.
 */
#ifndef EXTKIT_FSBUILD_H
#define EXTKIT_FSBUILD_H

#include <stdint.h>

#include "alloc.h"
#include "bitmap.h"
#include "fs.h"

struct extkit_fsbuild {
	struct extkit_fs *fs;
	struct extkit_bitmap blocks;	/* bit b: cluster b (bigalloc), else
					 * block first_data_block + b */
	struct extkit_bitmap inodes;	/* bit i: inode i + 1 */
	uint8_t *dirty;		/* per group: 1 blocks, 2 inodes */
};

int extkit_fsbuild_open(struct extkit_fs *fs, struct extkit_fsbuild *fb);
void extkit_fsbuild_close(struct extkit_fsbuild *fb);

/* The first free inode at or after goal (wrapping around); is_dir counts
 * it in its group's used directories. -ENOSPC when none is left. */
int extkit_fsbuild_inode(struct extkit_fsbuild *fb, uint32_t goal,
			 int is_dir, uint32_t *ino);
/* Takes free inode ino when it is free (else -EEXIST). */
int extkit_fsbuild_take_inode(struct extkit_fsbuild *fb, uint32_t ino,
			      int is_dir);

/*
 * A run of free blocks: the first free block at or after goal (wrapping
 * around) and up to want blocks following it while they are free. They
 * are marked in use. -ENOSPC when the filesystem is full. On bigalloc
 * a block is not what the bitmaps count: -EXTKIT_EUNSUPP (take clusters).
 */
int extkit_fsbuild_blocks(struct extkit_fsbuild *fb, uint64_t goal,
			  uint64_t want, uint64_t *start, uint64_t *got);

/* Gives back blocks [start, start + count) taken and not used
 * (-EXTKIT_EUNSUPP on bigalloc). */
int extkit_fsbuild_release(struct extkit_fsbuild *fb, uint64_t start,
			   uint64_t count);

/*
 * The same in whole clusters, the bitmaps' unit on bigalloc (without
 * it a cluster is a block): the first free cluster at or after the one
 * holding block goal (wrapping around) and up to want - 1 free clusters
 * following it, taken; *start is the first block of the first, *got
 * counts clusters. The group counts go down by *got, the superblock's
 * by its blocks. A writer on bigalloc lays its blocks into the clusters
 * itself (a file's logical block L at offset L % ratio of its cluster).
 */
int extkit_fsbuild_clusters(struct extkit_fsbuild *fb, uint64_t goal,
			    uint64_t want, uint64_t *start, uint64_t *got);

/* Gives back count clusters from block start (a cluster's first block,
 * else -EINVAL), all taken (else -EFSCORRUPTED, nothing freed). */
int extkit_fsbuild_release_clusters(struct extkit_fsbuild *fb,
				    uint64_t start, uint64_t count);

/* Writes the bitmaps of every group that changed. */
int extkit_fsbuild_flush(struct extkit_fsbuild *fb);

/* fb as an allocator (alloc.h): the backing of the whole filesystem in
 * memory. */
void extkit_fsbuild_allocator(struct extkit_fsbuild *fb,
			      struct extkit_allocator *a);

#endif /* EXTKIT_FSBUILD_H */
