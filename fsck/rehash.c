// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-fsck -D ("Pass 3A: Optimizing directories"). Runs after pass 5,
 * when the block and inode maps agree with the disk: the library's
 * compaction (dircompact.c) keeps the bitmaps, the group and superblock
 * counts and the inodes consistent as it frees blocks, so nothing the
 * passes computed needs to change afterwards.
 *
 * Relies on: ctx->dirs (pass 1), ctx->lost_found (pass 3).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dircompact.h"
#include "dirspace.h"
#include "error.h"
#include "super.h"

#include "fsck.h"
#include "problem.h"
#include "rehash.h"

#define OPT_THRESHOLD	"compact_threshold="

int fsck_rehash_parse_extended(const char *ext, unsigned int *threshold)
{
	size_t n = strlen(OPT_THRESHOLD);
	unsigned long v;
	char *end;

	if (threshold)
		*threshold = 0;
	if (!ext || !*ext)
		return 0;
	if (strncmp(ext, OPT_THRESHOLD, n) || !ext[n])
		return -EINVAL;
	v = strtoul(ext + n, &end, 10);
	if (*end || v > 100 || ext[n] == '-' || ext[n] == '+')
		return -EINVAL;
	if (threshold)
		*threshold = (unsigned int)v;
	return 0;
}

/* Whether directory ino is to be rewritten. */
static int rehash_wanted(struct fsck_ctx *ctx, uint32_t ino,
			 unsigned int threshold, int given)
{
	struct extkit_dirspace_stats st;
	int dx = extkit_has_compat(&ctx->fs->sb,
				   EXT2_FEATURE_COMPAT_DIR_INDEX);

	if (ino == ctx->lost_found || extkit_dirspace_scan(ctx->fs, ino, &st))
		return 0;
	if (extkit_dir_compact_wanted(&st, threshold))
		return 1;
	return !given && dx && !st.indexed && st.blocks > 1 && !st.corrupt;
}

/* Compacts directory ino and reports what happened; 1 when written. */
static int rehash_one(struct fsck_ctx *ctx, uint32_t ino)
{
	struct extkit_compact_result res;
	struct problem_context pctx;
	int rc = extkit_dir_compact(ctx->fs, ino, &res);

	clear_problem_context(&pctx);
	pctx.dir = ino;
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, res.written ? PR_3A_OPTIMIZE_FAILED :
			    PR_3A_OPTIMIZE_SKIPPED, &pctx);
		/* A half-written directory is damage this run leaves. */
		if (res.written)
			ctx->flags |= FSCK_FL_UNCORRECTED;
		return res.written;
	}
	if (ctx->opts->verbose) {
		pctx.num = res.blocks_before;
		pctx.num2 = res.blocks_after;
		pctx.str = res.indexed ? ", indexed" : "";
		fix_problem(ctx, PR_3A_OPTIMIZE_DIR, &pctx);
	}
	return 1;
}

int fsck_rehash(struct fsck_ctx *ctx)
{
	struct problem_context pctx;
	unsigned int threshold;
	uint32_t i, ino, written = 0;
	int given = ctx->opts->extended && *ctx->opts->extended;

	if (ctx->readonly || (ctx->flags & FSCK_FL_UNCORRECTED))
		return 0;
	if (fsck_rehash_parse_extended(ctx->opts->extended, &threshold))
		return -EINVAL;
	clear_problem_context(&pctx);
	if (ctx->opts->mode != FSCK_MODE_PREEN)
		fix_problem(ctx, PR_3A_PASS_HEADER, &pctx);
	for (i = 0; i < ctx->dir_count; i++) {
		ino = ctx->dirs[i].ino;
		/* Earlier passes may have cleared this directory. */
		if (fsck_inode_used(ctx, ino) &&
		    rehash_wanted(ctx, ino, threshold, given))
			written += (uint32_t)rehash_one(ctx, ino);
	}
	/* What was written, not what was meant: a refused directory
	 * changes nothing. */
	if (written)
		fsck_mark_changed(ctx);
	return 0;
}

int fsck_rehash_listed(struct fsck_ctx *ctx)
{
	struct problem_context pctx;
	uint32_t written = 0;

	if (ctx->readonly || !ctx->rehash_dirs.n)
		return 0;
	clear_problem_context(&pctx);
	if (ctx->opts->mode != FSCK_MODE_PREEN)
		fix_problem(ctx, PR_3A_PASS_HEADER, &pctx);
	for (size_t i = 0; i < ctx->rehash_dirs.n; i++) {
		uint32_t ino = (uint32_t)ctx->rehash_dirs.v[i];

		if (fsck_inode_used(ctx, ino))
			written += (uint32_t)rehash_one(ctx, ino);
	}
	if (written)
		fsck_mark_changed(ctx);
	return 0;
}
