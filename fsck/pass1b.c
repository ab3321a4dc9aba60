// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1B: blocks claimed by more than one owner.
 *
 * Pass 1 claims the group metadata first and then every inode's blocks in
 * inode order; an inode that met an already claimed block has IST_DUP and
 * the block is in block_dup. The first owner keeps the block; every inode
 * with IST_DUP gets a private copy of each shared block it maps (e2fsck's
 * pass 1B-1D clone), so that every file keeps its data. A shared indirect
 * block is copied first and its entries are then cloned in the copy.
 * Extent trees are cloned in extclone.c (tree blocks, and leaf extents
 * split around their shared blocks).
 * Relies on block_found/block_dup from pass 1; allocates from
 * block_found (lost_found.c), so pass 5 counts the copies.
 */
#include "config.h"

#include <stdlib.h>

#include "bmap.h"
#include "error.h"
#include "fs.h"
#include "inode.h"

#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

struct clone_arg {
	uint64_t shared;	/* counting walk: shared references */
	int failed;
};

static int is_dup(struct fsck_ctx *ctx, uint64_t blk)
{
	return extkit_bitmap_test(&ctx->block_dup,
				  blk - ctx->fs->sb.first_data_block) == 1;
}

static int count_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		    uint32_t count, int flags, void *arg)
{
	struct fsck_ctx *ctx = ((void **)arg)[0];
	struct clone_arg *ca = ((void **)arg)[1];

	for (uint32_t i = 0; i < count; i++)
		ca->shared += is_dup(ctx, pblk + i);
	return 0;
}

/* A private copy of blk when it is shared; blk itself otherwise. */
static uint64_t clone_fn(struct fsck_ctx *ctx, uint64_t blk, int level,
			 void *arg)
{
	uint64_t nb;

	if (!is_dup(ctx, blk))
		return blk;
	if (fsck_new_block(ctx, blk, &nb) ||
	    extkit_fs_read_block(ctx->fs, blk, ctx->blkbuf) ||
	    extkit_fs_write_block(ctx->fs, nb, ctx->blkbuf))
		return 0;
	return nb;
}

static void clone_inode(struct fsck_ctx *ctx, uint32_t ino)
{
	struct problem_context pctx;
	struct clone_arg ca = { 0 };
	void *walk_arg[2] = { ctx, &ca };
	struct extkit_inode inode;
	int rc;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	rc = extkit_inode_read(ctx->fs, ino, &inode);
	if (!rc)
		rc = extkit_block_walk(ctx->fs, &inode, count_fn, walk_arg);
	if (rc < 0 || !ca.shared)
		return;
	pctx.num = ca.shared;
	if (!fix_problem(ctx, PR_1B_CLONE, &pctx))
		return;
	if (inode.flags & EXT4_EXTENTS_FL)
		rc = fsck_clone_extents(ctx, ino, &inode);
	else
		rc = fsck_remap_blocks(ctx, &inode, clone_fn, NULL);
	if (!rc)
		rc = fsck_write_inode(ctx, ino, &inode);
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_1B_NO_SPACE, &pctx);
		ctx->flags |= FSCK_FL_UNCORRECTED;
		/* What was cloned is written: keep the inode's map. */
		fsck_write_inode(ctx, ino, &inode);
	}
}

int fsck_pass1b(struct fsck_ctx *ctx)
{
	uint32_t n = ctx->fs->sb.inodes_count;

	if (!(ctx->flags & FSCK_FL_DUPS))
		return 0;
	for (uint32_t ino = 1; ino <= n; ino++) {
		if (!(ctx->istate[ino] & IST_DUP))
			continue;
		clone_inode(ctx, ino);
		if (ctx->flags & FSCK_FL_ABORT)
			break;
	}
	return 0;
}
