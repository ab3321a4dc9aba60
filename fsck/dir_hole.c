// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2's holes in a directory, filled: a block mapped in place (direct
 * or single indirect map) through the library's append (the block and
 * any indirect block it needs from fsck's allocator), or with bigalloc
 * the extents around a hole grown over blocks of clusters the directory
 * owns already. Each new block is an empty directory block.
 */
#include "config.h"

#include <stdint.h>

#include "alloc.h"
#include "dirext.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "walk.h"

#include "fsck.h"

/*
 * Maps a new empty block into the hole at logical block lblk of dir,
 * through the library (extkit_dir_append_block, which takes the block and
 * any indirect block it needs from fsck's maps before its first write);
 * then the block and the inode are written. Extent maps are refused: the
 * library appends extents only at the end of a map.
 */
int fsck_dir_fill_hole(struct fsck_ctx *ctx, uint32_t dir, uint64_t lblk)
{
	struct extkit_allocator ba;
	struct extkit_inode inode;
	uint32_t bs = ctx->fs->g.block_size;
	uint64_t blk;
	int rc;

	fsck_allocator(ctx, &ba);
	fsck_drop_add_space(ctx, dir);
	rc = extkit_inode_read(ctx->fs, dir, &inode);
	if (rc)
		return rc;
	if (inode.flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL))
		return -EXTKIT_EUNSUPP;
	rc = extkit_dir_append_block(ctx->fs, &inode, lblk, inode.block[0],
				     &blk, &ba);
	/* Block 0 gets '.' and '..' (the root's number until pass 3 writes
	 * the parent's), as e2fsck's new directory block. */
	if (!rc)
		rc = fsck_dir_block_write(ctx, blk, dir, inode.generation,
					  lblk ? 0 : EXT2_ROOT_INO);
	if (rc)
		return rc;
	if (inode.size < (lblk + 1) * bs)
		inode.size = (lblk + 1) * bs;
	return fsck_write_inode(ctx, dir, &inode);
}

/*
 * bigalloc: a hole of an extent directory inside clusters the directory
 * already owns. A cluster is allocated whole, so the blocks of the
 * cluster of the extent before the hole, after that extent's end, and
 * those of the cluster of the extent after it, before its start, are the
 * directory's already: the two extents grow over them (pass 1 leaves
 * such holes when it moves an extent down, as e2fsck, keeping a block's
 * place in its cluster). A side whose blocks some extent maps already
 * (two logical clusters in one physical cluster) is not filled.
 */
struct cluster_gap {
	uint64_t start, end;	/* the hole [start, end) */
	uint64_t mask;		/* blocks per cluster - 1 */
	int apply;		/* 0: plan and check, 1: grow the extents */
	uint64_t fwd_end;	/* filled forward up to here */
	uint64_t fwd_pblk;	/* the block at start */
	uint64_t back_start;	/* filled backward down to here */
	uint64_t back_pblk;	/* the block at back_start */
};

/* Plans the growth of the extent ending at the hole (forward) and of the
 * one starting right after it (backward), each within its own cluster. */
static void gap_plan(struct cluster_gap *g, const struct extkit_walk_ent *e)
{
	uint64_t to;

	if (e->lblk + e->len == g->start && g->start) {
		to = ((g->start - 1) | g->mask) + 1;
		g->fwd_end = to < g->end ? to : g->end;
		g->fwd_pblk = e->pblk + e->len;
	} else if (e->lblk == g->end &&
		   !(e->flags & EXTKIT_WALK_UNWRITTEN)) {
		to = g->end & ~g->mask;
		g->back_start = to < g->fwd_end ? g->fwd_end : to;
		g->back_pblk = e->pblk - (g->end - g->back_start);
	}
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* A side whose blocks extent e maps is given up. */
static void gap_check(struct cluster_gap *g, const struct extkit_walk_ent *e)
{
	if (overlaps(e->pblk, e->len, g->fwd_pblk, g->fwd_end - g->start))
		g->fwd_end = g->start;
	if (overlaps(e->pblk, e->len, g->back_pblk, g->end - g->back_start))
		g->back_start = g->end;
}

static int gap_grow(struct cluster_gap *g, struct extkit_walk_ent *e)
{
	if (e->lblk + e->len == g->start && g->fwd_end > g->start) {
		e->len += (uint32_t)(g->fwd_end - g->start);
		return EXTKIT_WALK_CHANGED;
	}
	if (e->lblk == g->end && g->back_start < g->end) {
		e->len += (uint32_t)(g->end - g->back_start);
		e->lblk = g->back_start;
		e->pblk = g->back_pblk;
		return EXTKIT_WALK_CHANGED;
	}
	return 0;
}

static int gap_fn(struct extkit_fs *fs, struct extkit_walk_ent *e, void *arg)
{
	struct cluster_gap *g = arg;
	struct extkit_extent first;

	(void)fs;
	if (e->bad)
		return 0;
	if (!(e->flags & EXTKIT_WALK_META)) {
		if (g->apply > 0)
			return gap_grow(g, e);
		if (g->apply < 0)
			gap_check(g, e);
		else
			gap_plan(g, e);
		return 0;
	}
	/* a tree block whose first extent moved down: its index entry
	 * starts there too */
	if (g->apply <= 0 || !(e->flags & EXTKIT_WALK_LEAVE) || !e->entries)
		return 0;
	extkit_extent_get(e->block, 0, &first);
	if (first.lblk >= e->lblk)
		return 0;
	e->lblk = first.lblk;
	return EXTKIT_WALK_CHANGED;
}

/* Writes empty directory blocks over lblk [from, to) at pblk on. */
static int gap_write(struct fsck_ctx *ctx, uint32_t dir, uint32_t gen,
		     uint64_t from, uint64_t to, uint64_t pblk)
{
	int rc = 0;

	for (uint64_t l = from; !rc && l < to; l++, pblk++)
		rc = fsck_dir_block_write(ctx, pblk, dir, gen,
					  l ? 0 : EXT2_ROOT_INO);
	return rc;
}

/* Walks dir's extents once in the given phase (0 plan, -1 check: dry). */
static int gap_walk(struct fsck_ctx *ctx, struct extkit_inode *inode,
		    uint32_t dir, struct cluster_gap *g, int phase)
{
	struct extkit_walk wk = { .ino = dir, .fn = gap_fn, .arg = g,
				  .flags = phase > 0 ? 0 : EXTKIT_WALK_DRY };
	int rc;

	g->apply = phase;
	rc = extkit_walk(ctx->fs, inode, &wk);
	if (rc >= 0 && wk.inode_changed)
		rc = fsck_write_inode(ctx, dir, inode);
	return rc < 0 ? rc : 0;
}

int fsck_dir_fill_cluster_gap(struct fsck_ctx *ctx, uint32_t dir,
			      uint64_t start, uint64_t end)
{
	struct cluster_gap g = { .start = start, .end = end,
				 .mask = ctx->fs->g.cluster_ratio - 1,
				 .fwd_end = start, .back_start = end };
	struct extkit_inode inode;
	int rc;

	fsck_drop_add_space(ctx, dir);
	rc = extkit_inode_read(ctx->fs, dir, &inode);
	if (rc)
		return rc;
	if (!g.mask || !(inode.flags & EXT4_EXTENTS_FL))
		return -EXTKIT_EUNSUPP;
	rc = gap_walk(ctx, &inode, dir, &g, 0);
	if (!rc)
		rc = gap_walk(ctx, &inode, dir, &g, -1);
	if (!rc && (g.fwd_end > start || g.back_start < end))
		rc = gap_write(ctx, dir, inode.generation, start, g.fwd_end,
			       g.fwd_pblk);
	if (!rc)
		rc = gap_write(ctx, dir, inode.generation, g.back_start, end,
			       g.back_pblk);
	if (!rc)
		rc = gap_walk(ctx, &inode, dir, &g, 1);
	if (rc)
		return rc;
	return g.fwd_end < g.back_start ? -EXTKIT_EUNSUPP : 0;
}
