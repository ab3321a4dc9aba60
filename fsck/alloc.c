// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsck's allocator: the backing of the allocation interface (lib/alloc.h)
 * over the maps pass 1 built (ctx->block_found, ctx->inode_used). What
 * it takes is remembered (ctx->alloc_blocks, ctx->alloc_inodes) for pass
 * 5, which then takes the allocation as already on disk, so a repair
 * does not show up later as bitmap differences (e2fsck does the same).
 * The counts, the UNINIT flags and bg_itable_unused change at once,
 * through lib/alloc_stats.c, when the on-disk bit is clear: the block or
 * inode may be marked in use on disk already, by what fsck has just
 * released. The library's writers (add-entry, a hole's block) take from
 * here through fsck_allocator().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "alloc_stats.h"
#include "bitmap.h"
#include "error.h"
#include "fs.h"
#include "group.h"

#include "fsck.h"

/* Whether the on-disk bitmaps hold blk's cluster (ino) free: only then
 * does a take or a release change the counts. A read error counts as
 * free. */
static int disk_block_free(struct fsck_ctx *ctx, uint64_t blk)
{
	return extkit_blocks_all_used(ctx->fs, blk, 1) != 1;
}

static int disk_inode_free(struct fsck_ctx *ctx, uint32_t ino)
{
	return extkit_inode_in_use(ctx->fs, ino) != 1;
}

int fsck_new_block(struct fsck_ctx *ctx, uint64_t goal, uint64_t *blk)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t first = fs->sb.first_data_block;
	uint64_t n = fs->sb.blocks_count - first, bit;
	uint32_t ratio = fs->g.cluster_ratio;
	int rc, fresh;

	if (goal < first || goal >= fs->sb.blocks_count)
		goal = first;
	rc = extkit_bitmap_find_first_zero(&ctx->block_found, goal - first,
					   n - (goal - first), &bit);
	if (rc == -ENOENT)
		rc = extkit_bitmap_find_first_zero(&ctx->block_found, 0, n,
						   &bit);
	if (rc)
		return rc == -ENOENT ? -ENOSPC : rc;
	*blk = bit + first;
	/* bigalloc: the free counts and the on-disk bits are clusters',
	 * taken with their first block */
	fresh = !extkit_bitmap_count_range(&ctx->block_found,
					   bit & ~(uint64_t)(ratio - 1), ratio);
	extkit_bitmap_set(&ctx->block_found, bit);
	rc = fsck_alloc_push(&ctx->alloc_blocks, *blk);
	if (rc || !fresh || !disk_block_free(ctx, *blk))
		return rc;
	extkit_alloc_stats_blocks(fs, extkit_group_of_block(&fs->sb, *blk),
				  1, 1);
	ctx->flags |= FSCK_FL_SB_DIRTY;
	return 0;
}

/*
 * bigalloc: the first run of whole clusters wholly free, from goal's
 * cluster on (then from the start), holding count blocks from goal's
 * offset in its cluster: a copy keeps each block's place in its cluster
 * (a file's logical and physical clusters line up) and shares no
 * cluster with another owner. Its first block number - first in *bit.
 */
static int free_cluster_run(struct fsck_ctx *ctx, uint64_t goal,
			    uint32_t count, uint64_t *bit)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t first = fs->sb.first_data_block;
	uint64_t n = fs->sb.blocks_count - first;
	uint32_t ratio = fs->g.cluster_ratio;
	uint64_t off = (goal - first) % ratio;
	uint64_t span = (off + count + ratio - 1) / ratio * ratio;
	uint64_t from = (goal - first) - off, c;

	for (int pass = 0; pass < 2; pass++, from = 0)
		for (c = from; c + span <= n; c += ratio)
			if (!extkit_bitmap_count_range(&ctx->block_found, c,
						       span)) {
				*bit = c + off;
				return 0;
			}
	return -ENOENT;
}

int fsck_new_run(struct fsck_ctx *ctx, uint64_t goal, uint32_t count,
		 uint64_t *blk)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t first = fs->sb.first_data_block;
	uint64_t n = fs->sb.blocks_count - first, bit, got;
	int rc;

	if (goal < first || goal >= fs->sb.blocks_count)
		goal = first;
	if (fs->g.cluster_ratio > 1)
		rc = free_cluster_run(ctx, goal, count, &bit);
	else
		rc = extkit_bitmap_find_zero_run(&ctx->block_found,
						 goal - first,
						 n - (goal - first), count,
						 &bit);
	if (rc == -ENOENT && fs->g.cluster_ratio == 1)
		rc = extkit_bitmap_find_zero_run(&ctx->block_found, 0, n,
						 count, &bit);
	if (rc)
		return rc == -ENOENT ? -ENOSPC : rc;
	/* Each is the first free block from its goal on: taken in order. */
	for (uint32_t i = 0; i < count; i++) {
		rc = fsck_new_block(ctx, bit + first + i, &got);
		if (rc)
			return rc;
		if (got != bit + first + i)
			return -EIO;
	}
	*blk = bit + first;
	return 0;
}

void fsck_release_new_block(struct fsck_ctx *ctx, uint64_t blk)
{
	struct extkit_fs *fs = ctx->fs;
	struct fsck_alloc_list *l = &ctx->alloc_blocks;
	size_t i;

	extkit_bitmap_clear(&ctx->block_found, blk - fs->sb.first_data_block);
	for (i = l->n; i-- > 0;) {
		if (l->v[i] == blk) {
			memmove(l->v + i, l->v + i + 1,
				(l->n - i - 1) * sizeof(*l->v));
			l->n--;
			break;
		}
	}
	if (disk_block_free(ctx, blk))
		extkit_alloc_stats_blocks(fs,
			extkit_group_of_block(&fs->sb, blk), 1, 0);
}

int fsck_take_inode(struct fsck_ctx *ctx, uint32_t ino, int is_dir)
{
	int rc;

	extkit_bitmap_set(&ctx->inode_used, ino - 1);
	rc = fsck_alloc_push(&ctx->alloc_inodes, ino);
	/* with group checksums a new inode moves the unused mark past it
	 * (as ext2fs's inode allocation does), or the next check finds it
	 * in the unused part */
	if (extkit_alloc_stats_inode_in_use(ctx->fs, ino))
		ctx->flags |= FSCK_FL_SB_DIRTY;
	if (rc || !disk_inode_free(ctx, ino))
		return rc;
	extkit_alloc_stats_inode(ctx->fs, ino, 1, is_dir);
	ctx->flags |= FSCK_FL_SB_DIRTY;
	return 0;
}

int fsck_new_inode(struct fsck_ctx *ctx, uint32_t dir, int is_dir,
		   uint32_t *ino)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t start = fs->g.first_ino - 1, bit;
	int rc;

	if (dir > fs->g.first_ino)
		start = (uint64_t)((dir - 1) / ipg) * ipg;
	if (start < fs->g.first_ino - 1)
		start = fs->g.first_ino - 1;
	rc = extkit_bitmap_find_first_zero(&ctx->inode_used, start,
					   fs->sb.inodes_count - start, &bit);
	if (rc == -ENOENT)
		rc = extkit_bitmap_find_first_zero(&ctx->inode_used,
			fs->g.first_ino - 1,
			fs->sb.inodes_count - (fs->g.first_ino - 1), &bit);
	if (rc)
		return rc == -ENOENT ? -ENOSPC : rc;
	*ino = (uint32_t)bit + 1;
	return fsck_take_inode(ctx, *ino, is_dir);
}

void fsck_release_new_inode(struct fsck_ctx *ctx, uint32_t ino, int is_dir)
{
	struct fsck_alloc_list *l = &ctx->alloc_inodes;

	extkit_bitmap_clear(&ctx->inode_used, ino - 1);
	if (l->n && l->v[l->n - 1] == ino)
		l->n--;
	if (disk_inode_free(ctx, ino))
		extkit_alloc_stats_inode(ctx->fs, ino, 0, is_dir);
}

/* ---- the allocation interface ---- */

static int fa_take_blocks(void *arg, uint64_t goal, uint64_t want,
			  uint64_t *start, uint64_t *got)
{
	(void)want;
	*got = 1;
	return fsck_new_block(arg, goal, start);
}

static int fa_take_inode(void *arg, uint32_t goal, int is_dir,
			 uint32_t *ino)
{
	return fsck_new_inode(arg, goal, is_dir, ino);
}

static int fa_release(void *arg, uint64_t start, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++)
		fsck_release_new_block(arg, start + i);
	return 0;
}

void fsck_allocator(struct fsck_ctx *ctx, struct extkit_allocator *a)
{
	a->take_blocks = fa_take_blocks;
	a->take_inode = fa_take_inode;
	a->release = fa_release;
	a->arg = ctx;
}
