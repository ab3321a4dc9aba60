// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The quota inodes during the passes (their contents are recounted and
 * rewritten after them, quota.c): before pass 1B a quota inode whose map
 * shares blocks gives them up, emptied; after pass 4 a quota inode past
 * the reserved ones that the passes cleared is counted in use again, for
 * quota.c to write anew.
 */
#include "config.h"

#include <string.h>

#include "bitmap.h"
#include "bmap.h"
#include "extent.h"
#include "inode.h"
#include "ondisk.h"
#include "quota.h"

#include "fsck.h"
#include "problem.h"

/* A quota inode's blocks that pass 1 found shared. */
struct quota_shared {
	struct fsck_ctx *ctx;
	uint64_t n;
	struct fsck_alloc_list *given_up;	/* the shared blocks found */
	int err;
};

/* Counts the blocks of a map that pass 1 found shared. */
static int shared_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		     uint32_t count, int flags, void *arg)
{
	struct quota_shared *q = arg;

	(void)lblk;
	(void)flags;
	if (pblk < fs->sb.first_data_block ||
	    pblk + count > fs->sb.blocks_count)
		return 0;
	q->n += extkit_bitmap_count_range(&q->ctx->block_dup, pblk -
					  fs->sb.first_data_block, count);
	for (uint32_t i = 0; i < count && !q->err; i++)
		if (extkit_bitmap_test(&q->ctx->block_dup, pblk + i -
				       fs->sb.first_data_block) == 1)
			q->err = fsck_alloc_push(q->given_up, pblk + i);
	return q->err;
}

/* Empties quota inode ino: its blocks released (a shared one stays
 * claimed by its other owner), an empty map, no size. */
static int empty_quota_inode(struct fsck_ctx *ctx, uint32_t ino,
			     struct extkit_inode *inode)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	int rc = fsck_release_blocks(ctx, inode);

	if (rc)
		return rc;
	memset(root, 0, sizeof(root));
	if (inode->flags & EXT4_EXTENTS_FL) {
		/* an empty extent root: magic, 0 entries, eh_max 4 */
		extkit_extent_node_init(root, sizeof(root),
					EXTKIT_EXTENT_ROOT_MAX, 0);
	}
	extkit_extent_root_put(inode, root);
	inode->size = 0;
	extkit_inode_set_fs_blocks(ctx->fs, inode, 0);
	fsck_istate_set_dup(&ctx->istate, ino, 0);
	return fsck_write_inode(ctx, ino, inode);
}

/*
 * Before pass 1B: a quota inode whose map shares blocks with other files
 * or metadata (garbage extents over the journal, say) gives them up. Its
 * contents are recounted and rewritten after the passes anyway, where
 * pass 1B would copy every shared block for it or for the other owner
 * (thousands for a journal, more than the filesystem may have free).
 * The shared blocks it gave up are added to given_up: pass 1B releases
 * those no one else claims (quota inodes that shared only among
 * themselves).
 */
int fsck_quota_drop_shared(struct fsck_ctx *ctx,
			   struct fsck_alloc_list *given_up)
{
	struct extkit_fs *fs = ctx->fs;
	struct problem_context pctx;
	struct extkit_inode inode;
	int rc = 0;

	if (!extkit_has_ro_compat(&fs->sb, EXT4_FEATURE_RO_COMPAT_QUOTA))
		return 0;
	for (int t = 0; t < EXTKIT_QUOTA_TYPES && !rc; t++) {
		uint32_t ino = extkit_quota_inum(&fs->sb, t);
		struct quota_shared q = { .ctx = ctx, .given_up = given_up };
		size_t had = given_up->n;	/* dropped again if declined */

		if (!ino || ino > fs->sb.inodes_count ||
		    !fsck_inode_used(ctx, ino) ||
		    extkit_inode_read(fs, ino, &inode) ||
		    !extkit_inode_has_block_map(&inode))
			continue;
		if (extkit_block_walk(fs, &inode, shared_fn, &q) < 0) {
			if (q.err)
				return q.err;
			q.n = 0;	/* a map that does not walk: left */
		}
		clear_problem_context(&pctx);
		pctx.ino = ino;
		pctx.num = q.n;
		if (!q.n || !fix_problem(ctx, PR_1_QUOTA_INODE_SHARED, &pctx)) {
			given_up->n = had;
			continue;
		}
		rc = empty_quota_inode(ctx, ino, &inode);
	}
	return rc;
}

/*
 * After pass 4: a quota inode past the reserved ones (the project quota
 * inode tune2fs allocates) that the passes cleared, garbage over it, is
 * written anew by fsck_quota after pass 5; it is counted in use now, so
 * that pass 5 marks it in the bitmap and the free counts (as e2fsck's
 * quota writer allocates it again).
 */
void fsck_quota_keep_inodes(struct fsck_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;

	if (ctx->readonly ||
	    !extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_QUOTA))
		return;
	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++) {
		uint32_t ino = extkit_quota_inum(sb, t);

		if (ino < ctx->fs->g.first_ino || ino > sb->inodes_count ||
		    fsck_inode_used(ctx, ino))
			continue;
		fsck_istate_mark_used(&ctx->istate, ino);
		extkit_bitmap_set(&ctx->inode_used, ino - 1);
	}
}
