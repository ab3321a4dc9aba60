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
 * uninitialised likewise when one of its inodes is taken.
 */
#ifndef EXTKIT_FSBUILD_H
#define EXTKIT_FSBUILD_H

#include <stdint.h>

#include "alloc.h"
#include "bitmap.h"
#include "fs.h"

struct extkit_fsbuild {
	struct extkit_fs *fs;
	struct extkit_bitmap blocks;	/* bit b: first_data_block + b */
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
 * are marked in use. -ENOSPC when the filesystem is full.
 */
int extkit_fsbuild_blocks(struct extkit_fsbuild *fb, uint64_t goal,
			  uint64_t want, uint64_t *start, uint64_t *got);

/* Gives back blocks [start, start + count) taken and not used. */
int extkit_fsbuild_release(struct extkit_fsbuild *fb, uint64_t start,
			   uint64_t count);

/* Writes the bitmaps of every group that changed. */
int extkit_fsbuild_flush(struct extkit_fsbuild *fb);

/* fb as an allocator (alloc.h): the backing of the whole filesystem in
 * memory. */
void extkit_fsbuild_allocator(struct extkit_fsbuild *fb,
			      struct extkit_allocator *a);

#endif /* EXTKIT_FSBUILD_H */
