// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: directory connectivity.
 *
 * Checks: the root exists and is a directory (else a new, empty root is
 * made); /lost+found exists (else it is created; an encrypted one is
 * unlinked and made anew, lost_found.c); every directory reaches
 * the root through the parents pass 2 found, without a loop (else the
 * topmost directory of its chain is connected to /lost+found); every
 * directory's '..' names its parent.
 *
 * Relies on: ctx->dirs with parent and dotdot from pass 2, istate and
 * link_counted. Keeps link_counted right for every entry it adds or
 * changes. Each directory is walked once (a stamp per walk marks a loop,
 * FSCK_DIR_DONE marks directories known to reach the root), so the pass
 * is O(directories * log(directories)).
 */
#include "config.h"

#include <stdlib.h>

#include "bitmap.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

#define ROOT_MODE	040755

/* Claims inode ino itself (for a new root). */
static int claim_inode(struct fsck_ctx *ctx, uint32_t ino)
{
	if (extkit_bitmap_test(&ctx->inode_used, ino - 1) == 1)
		return 0;
	return fsck_take_inode(ctx, ino, 1);
}

static int check_root(struct fsck_ctx *ctx)
{
	struct problem_context pctx;
	struct fsck_dir *root;
	int rc;

	if (fsck_inode_used(ctx, EXT2_ROOT_INO) &&
	    fsck_ftype(ctx, EXT2_ROOT_INO) == EXT2_FT_DIR) {
		root = fsck_dir_find(ctx, EXT2_ROOT_INO);
		if (root) {
			root->parent = EXT2_ROOT_INO;
			root->flags |= FSCK_DIR_DONE;
		}
		return 0;
	}
	clear_problem_context(&pctx);
	if (!fix_problem(ctx, PR_3_NO_ROOT, &pctx)) {
		ctx->flags |= FSCK_FL_ABORT;
		return 0;
	}
	rc = claim_inode(ctx, EXT2_ROOT_INO);
	if (!rc)
		rc = fsck_make_dir(ctx, EXT2_ROOT_INO, EXT2_ROOT_INO,
				   ROOT_MODE);
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_3_ROOT_CREATE_FAILED, &pctx);
	}
	return 0;
}

/* Points dir's '..' at parent, keeping the counts right. */
static void fix_dotdot(struct fsck_ctx *ctx, uint32_t ino, uint32_t parent)
{
	struct fsck_dir *d = fsck_dir_find(ctx, ino);

	if (!d || fsck_set_dotdot(ctx, ino, parent))
		return;
	if (d->flags & FSCK_DIR_DOTDOT_COUNTED)
		fsck_uncount_link(ctx, d->dotdot);
	fsck_count_link(ctx, parent);
	d->dotdot = parent;
	d->flags |= FSCK_DIR_DOTDOT_COUNTED;
}

/* Connects directory ino (unreachable) to /lost+found. */
static int connect_dir(struct fsck_ctx *ctx, uint32_t ino)
{
	struct problem_context pctx;
	struct fsck_dir *d = fsck_dir_find(ctx, ino);
	int rc;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.ino2 = d->dotdot;
	if (!fix_problem(ctx, PR_3_UNCONNECTED_DIR, &pctx))
		return -ECANCELED;
	/* In a loop: the name its parent gives it goes, or the directory
	 * would have two. */
	if (d->parent)
		fsck_unlink_entry(ctx, d->parent, ino, NULL);
	rc = fsck_reconnect(ctx, ino);
	if (rc)
		return rc;
	d = fsck_dir_find(ctx, ino);
	d->parent = ctx->lost_found;
	fix_dotdot(ctx, ino, ctx->lost_found);
	/* The new '..' is one more link to lost+found, on disk too. */
	return fsck_adjust_links(ctx, ctx->lost_found, 1);
}

/*
 * Follows the parents of ctx->dirs[i] up to a directory known to reach
 * the root. Returns the inode to connect (unreachable or in a loop), or 0.
 */
static uint32_t walk_up(struct fsck_ctx *ctx, uint32_t i, uint32_t stamp)
{
	struct fsck_dir *cur = &ctx->dirs[i];

	for (;;) {
		if (cur->flags & FSCK_DIR_DONE)
			return 0;
		if (cur->mark == stamp || !cur->parent)
			return cur->ino;
		cur->mark = stamp;
		cur = fsck_dir_find(ctx, cur->parent);
		if (!cur)
			return ctx->dirs[i].ino;
	}
}

static void mark_done(struct fsck_ctx *ctx, uint32_t ino)
{
	struct fsck_dir *cur = fsck_dir_find(ctx, ino);

	while (cur && !(cur->flags & FSCK_DIR_DONE)) {
		cur->flags |= FSCK_DIR_DONE;
		cur = cur->parent ? fsck_dir_find(ctx, cur->parent) : NULL;
	}
}

static void check_connectivity(struct fsck_ctx *ctx)
{
	for (uint32_t i = 0; i < ctx->dir_count; i++) {
		uint32_t ino = ctx->dirs[i].ino, top;

		if (!fsck_inode_used(ctx, ino))
			continue;
		if ((i & 1023) == 0)
			fsck_progress(ctx, i, ctx->dir_count);
		top = walk_up(ctx, i, i + 1);
		if (top) {
			/* A failed connect is reported once: the chain is
			 * marked done all the same. */
			connect_dir(ctx, top);
			/* A new lost+found may have moved the array. */
			i = (uint32_t)(fsck_dir_find(ctx, ino) - ctx->dirs);
		}
		mark_done(ctx, ino);
		if (ctx->flags & FSCK_FL_ABORT)
			return;
	}
}

static void check_dotdots(struct fsck_ctx *ctx)
{
	struct problem_context pctx;

	for (uint32_t i = 0; i < ctx->dir_count; i++) {
		struct fsck_dir *d = &ctx->dirs[i];

		if (!fsck_inode_used(ctx, d->ino) || !d->parent ||
		    d->dotdot == d->parent)
			continue;
		clear_problem_context(&pctx);
		pctx.ino = d->ino;
		pctx.ino2 = d->dotdot;
		pctx.dir = d->parent;
		if (fix_problem(ctx, PR_3_BAD_DOT_DOT, &pctx))
			fix_dotdot(ctx, d->ino, d->parent);
	}
}

int fsck_pass3(struct fsck_ctx *ctx)
{
	int rc;

	rc = check_root(ctx);
	if (rc || (ctx->flags & FSCK_FL_ABORT))
		return rc;
	/* -n: /lost+found is not asked for unless a file must go there
	 * (e2fsck makes it only when it may write) */
	if (ctx->readonly)
		fsck_find_lost_found(ctx);
	rc = ctx->readonly ? 0 : fsck_get_lost_found(ctx, 1);
	if (rc && rc != -ENOENT && rc != -ENOTDIR && rc != -EROFS &&
	    rc != ctx->lost_found_err) {
		struct problem_context pctx;

		clear_problem_context(&pctx);
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_3_CONNECT_FAILED, &pctx);
	}
	if (ctx->lost_found)
		mark_done(ctx, ctx->lost_found);
	check_connectivity(ctx);
	check_dotdots(ctx);
	return 0;
}
