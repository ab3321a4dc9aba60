/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Allocation on the on-disk bitmaps (one of the allocator's backings, see
 * struct extkit_allocator): take one free block near a goal, free a
 * range of blocks, take or release an inode; alloc_stats.c turns each
 * into disk state. Group and superblock free counts are
 * updated in memory; extkit_alloc_commit() writes the descriptors and the
 * superblock (once per batch of edits, not per block).
 */
#ifndef EXTKIT_ALLOC_H
#define EXTKIT_ALLOC_H

#include <stdint.h>

#include "fs.h"

/*
 * The allocator: who hands out blocks and inodes, one interface over
 * three backings: the on-disk bitmaps (extkit_alloc_disk, this file),
 * the whole filesystem in memory (extkit_fsbuild_allocator, mkfs -d) and
 * fsck's pass-1 maps (fsck/alloc.c). Each backing turns a take or a
 * release into disk state through alloc_stats.c.
 *   take_blocks: a run of free blocks, the first at or after goal
 *     (wrapping around) and up to want in all following it, taken;
 *     *got >= 1. -ENOSPC when none is free.
 *   take_inode: a free inode at or after goal, taken (counted as a
 *     directory when is_dir).
 *   release: gives back blocks [start, start + count) taken and not
 *     used (an error path).
 * A writer takes an allocator, or NULL for the on-disk bitmaps of its
 * fs, whose counts it then writes with extkit_alloc_commit().
 */
struct extkit_allocator {
	int (*take_blocks)(void *arg, uint64_t goal, uint64_t want,
			   uint64_t *start, uint64_t *got);
	int (*take_inode)(void *arg, uint32_t goal, int is_dir,
			  uint32_t *ino);
	int (*release)(void *arg, uint64_t start, uint64_t count);
	void *arg;
};

/* The on-disk bitmaps of fs as an allocator. */
void extkit_alloc_disk(struct extkit_fs *fs, struct extkit_allocator *a);

/* One block near goal from a (NULL, or no take_blocks: fs's on-disk
 * bitmaps); giving back blocks it took (a release may be NULL). */
int extkit_take_block(struct extkit_fs *fs, const struct extkit_allocator *a,
		      uint64_t goal, uint64_t *blk);
int extkit_give_back(struct extkit_fs *fs, const struct extkit_allocator *a,
		     uint64_t start, uint64_t count);

/*
 * The first free block at or after goal (wrapping around the groups;
 * groups whose bitmap is uninitialised are skipped). -ENOSPC when none.
 * With metadata_csum the group's bitmap checksum is updated in memory:
 * extkit_alloc_commit writes the descriptors.
 */
int extkit_alloc_block(struct extkit_fs *fs, uint64_t goal, uint64_t *blk);

/* Frees blocks [start, start + count), group by group, a range at a time.
 * -EFSCORRUPTED if one of them was not in use: every group is checked
 * before the first bitmap is written, so nothing is then freed. */
int extkit_free_blocks(struct extkit_fs *fs, uint64_t start, uint64_t count);

/*
 * Planning without writing: fills blks with count free blocks, the first
 * free ones at or after goal, then wrapping around the groups; nothing
 * is marked. -ENOSPC when there are fewer. extkit_alloc_mark() then
 * takes them.
 */
int extkit_alloc_find(struct extkit_fs *fs, uint64_t goal, uint64_t count,
		      uint64_t *blks);

/* A run of blocks [start, start + len). */
struct extkit_blk_run {
	uint64_t start;
	uint64_t len;
};

/*
 * extkit_alloc_find() passing over the blocks of skip (nskip runs sorted
 * by start, not overlapping): blocks a caller has planned but not marked
 * yet.
 */
int extkit_alloc_find_skip(struct extkit_fs *fs, uint64_t goal,
			   const struct extkit_blk_run *skip, size_t nskip,
			   uint64_t count, uint64_t *blks);

/*
 * extkit_alloc_find_skip() giving the blocks as runs in the order found
 * (one run per stretch of consecutive blocks; *nruns of them in *runs,
 * allocated, the caller frees it; NULL on error): no array of a block
 * number per block for a big plan (a journal of 2^18 blocks).
 */
int extkit_alloc_find_runs(struct extkit_fs *fs, uint64_t goal,
			   const struct extkit_blk_run *skip, size_t nskip,
			   uint64_t count, struct extkit_blk_run **runs,
			   size_t *nruns);

/* Marks blocks [start, start + count) in use, counts updated in memory.
 * -EFSCORRUPTED if one of them was in use already (nothing is marked). */
int extkit_alloc_mark(struct extkit_fs *fs, uint64_t start, uint64_t count);

/*
 * The same in clusters, the bitmaps' unit on bigalloc (cluster c is the
 * blocks [c << cluster_bits, (c + 1) << cluster_bits); without bigalloc
 * a cluster is a block), for a writer that lays out whole clusters itself
 * (an extent file whose blocks keep their logical offset in the cluster).
 * goal is a block. The group counts are in clusters, the superblock's
 * in blocks. The block functions above refuse bigalloc (-EXTKIT_EUNSUPP):
 * a block is not what its bitmaps count, unless fs->alloc_whole_clusters
 * is set by a writer whose files take whole clusters (mkfs's journal and
 * orphan file, blocks 0 .. n of a file in clusters from the first): then
 * a search finds whole free clusters and gives their blocks in order
 * (the last cluster's blocks past count unused), skip runs pass over the
 * clusters they touch, and marking or freeing blocks marks or frees the
 * clusters holding them.
 */
int extkit_alloc_find_clusters(struct extkit_fs *fs, uint64_t goal,
			       uint64_t count, uint64_t *clusters);
int extkit_alloc_mark_clusters(struct extkit_fs *fs, uint64_t start,
			       uint64_t count);
int extkit_free_clusters(struct extkit_fs *fs, uint64_t start,
			 uint64_t count);

/* 1 when every block of [start, start + count) is marked in use, 0 when
 * one is not, or a negative error. Reads only. */
int extkit_blocks_all_used(struct extkit_fs *fs, uint64_t start,
			   uint64_t count);

/*
 * Sets blocks [start, start + count) in use (used) or free where they
 * are not already, counting only those that change (*changed, may be
 * NULL): a writer settling the maps it edited (fast commit replay, the
 * orphan list). Groups whose bitmap was never initialised are left
 * alone. -EFSCORRUPTED for a range outside the filesystem;
 * -EXTKIT_EUNSUPP with bigalloc.
 */
int extkit_alloc_settle(struct extkit_fs *fs, uint64_t start, uint64_t count,
			int used, uint64_t *changed);

/*
 * Inodes on the on-disk inode bitmaps. extkit_inode_in_use: 1 when
 * inode ino's bit is set, 0 when not (a group never initialised holds
 * none), or a negative error. extkit_alloc_inode_set takes (take 1) or
 * releases it, counted as a directory when is_dir (alloc_stats.c);
 * -EFSCORRUPTED when it is in that state already (nothing changes).
 * extkit_alloc_inode takes the first free inode at or after goal
 * (wrapping around the groups, never a reserved one). Counts in memory:
 * extkit_alloc_commit writes them.
 */
int extkit_inode_in_use(struct extkit_fs *fs, uint32_t ino);
int extkit_alloc_inode_set(struct extkit_fs *fs, uint32_t ino, int take,
			   int is_dir);
int extkit_alloc_inode(struct extkit_fs *fs, uint32_t goal, int is_dir,
		       uint32_t *ino);

/*
 * A growing list of block numbers, for writers that collect what they
 * give back and free it at the end, as sorted ranges.
 */
struct extkit_blk_list {
	uint64_t *blk;
	uint64_t n;
	uint64_t cap;
};

int extkit_blk_list_push(struct extkit_blk_list *l, uint64_t blk);
void extkit_blk_list_sort(struct extkit_blk_list *l);
/*
 * Calls fn(fs, start, count) on each run of consecutive blocks of the
 * sorted list until one call returns other than ok; returns that, or ok.
 */
int extkit_blk_list_runs(struct extkit_fs *fs,
			 const struct extkit_blk_list *l,
			 int (*fn)(struct extkit_fs *, uint64_t, uint64_t),
			 int ok);
/* Sorts the list and frees its blocks a run at a time. */
int extkit_blk_list_release(struct extkit_fs *fs, struct extkit_blk_list *l);
void extkit_blk_list_free(struct extkit_blk_list *l);

/* Writes the group descriptors and superblock after allocations. */
int extkit_alloc_commit(struct extkit_fs *fs);

#endif /* EXTKIT_ALLOC_H */
