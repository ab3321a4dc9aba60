/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place where taking or releasing blocks and inodes becomes disk
 * state (e2fsprogs' alloc_stats.c idea). Every allocator (alloc.c over
 * the on-disk bitmaps, fsbuild.c's whole-filesystem maps, fsck's pass-1
 * maps) decides what to take; this file then keeps:
 *   - the group and superblock free counts (a group counts its bitmap's
 *     units, clusters with bigalloc; the superblock counts blocks), the
 *     group's used directories;
 *   - the BLOCK_UNINIT and INODE_UNINIT flags and bg_itable_unused (with
 *     group checksums a take moves the unused mark past the inode);
 *   - a group's bitmap in its on-disk layout: the group's bits, the
 *     padding past them set, the checksum in the descriptor (metadata_csum);
 *     a bitmap never initialised read as the kernel reads it.
 * Counts and flags change in memory (fs->groups, fs->sb): the caller
 * writes the descriptors and the superblock (extkit_fs_write_super) once
 * per batch. Bitmap blocks are written here.
 */
#ifndef EXTKIT_ALLOC_STATS_H
#define EXTKIT_ALLOC_STATS_H

#include <stdint.h>

#include "bitmap.h"
#include "fs.h"

/*
 * units (blocks, or clusters with bigalloc) of group g taken (take 1) or
 * released (take 0): the group's free count (never below 0), the
 * superblock's (in blocks), and on a take BLOCK_UNINIT cleared.
 */
void extkit_alloc_stats_blocks(struct extkit_fs *fs, uint32_t g,
			       uint64_t units, int take);

/*
 * Inode ino taken (take 1) or released (take 0): the group's and the
 * superblock's free counts (never below 0), used directories for a
 * directory (is_dir); a take also marks it in use as below.
 */
void extkit_alloc_stats_inode(struct extkit_fs *fs, uint32_t ino, int take,
			      int is_dir);

/*
 * Inode ino in use, its count taken already: INODE_UNINIT cleared and,
 * with group checksums, bg_itable_unused moved past it. 1 when the
 * descriptor changed, else 0.
 */
int extkit_alloc_stats_inode_in_use(struct extkit_fs *fs, uint32_t ino);

enum extkit_map_kind {
	EXTKIT_MAP_BLOCKS,	/* the block bitmap: a bit per cluster */
	EXTKIT_MAP_INODES,
};

/* Bits of group g's bitmap of that kind: its units (clusters, or blocks)
 * or s_inodes_per_group. */
uint32_t extkit_alloc_map_bits(const struct extkit_fs *fs, uint32_t g,
			       enum extkit_map_kind kind);

/*
 * Loads group g's bitmap of that kind into bits [first, first + bits)
 * of bm (raw: a scratch block). A bitmap never initialised (its UNINIT
 * flag, with group checksums) is not read: an inode bitmap reads as all
 * free, a block bitmap as its group's metadata in use (the superblock
 * backup and descriptors, and any group's bitmaps and inode table lying
 * in it), as the kernel takes them.
 */
int extkit_alloc_map_load(struct extkit_fs *fs, uint32_t g,
			  enum extkit_map_kind kind, struct extkit_bitmap *bm,
			  uint64_t first, uint8_t *raw);

/*
 * Writes bits [first, first + bits) of bm as group g's bitmap of that
 * kind: the group's bits, every bit past them in the block set (the
 * padding), the bitmap checksum set in the descriptor (in memory), the
 * block written. raw: a scratch block.
 */
int extkit_alloc_map_store(struct extkit_fs *fs, uint32_t g,
			   enum extkit_map_kind kind,
			   const struct extkit_bitmap *bm, uint64_t first,
			   uint8_t *raw);

/* One group's bitmap, loaded on its own (bit 0: the group's first unit
 * or inode). */
struct extkit_group_map {
	uint32_t g;
	enum extkit_map_kind kind;
	uint32_t bits;
	struct extkit_bitmap bm;
	uint8_t *raw;		/* a scratch block */
};

int extkit_group_map_load(struct extkit_fs *fs, uint32_t g,
			  enum extkit_map_kind kind,
			  struct extkit_group_map *m);
int extkit_group_map_store(struct extkit_fs *fs, struct extkit_group_map *m);
void extkit_group_map_free(struct extkit_group_map *m);

#endif /* EXTKIT_ALLOC_STATS_H */
