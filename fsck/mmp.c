// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Multiple mount protection when fsck opens the filesystem: with -n,
 * whether another node has it; otherwise the fsck sequence goes in the
 * MMP block (lib/mmp.c). A damaged MMP block is rewritten when asked, as
 * e2fsck does; another node's, or a block that is none, is refused.
 */
#include "config.h"

#include "error.h"
#include "fs.h"
#include "mmp.h"
#include "cli/msg.h"

#include "fsck.h"
#include "problem.h"

/* Another node has the filesystem, or the MMP block is not one: named,
 * and nothing is done (e2fsck refuses both too). */
static int mmp_refused(struct fsck_ctx *ctx, const char *why, int rc)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.blk = ctx->fs->sb.mmp_block;
	pctx.str = why;
	fix_problem(ctx, PR_0_MMP_IN_USE, &pctx);
	extkit_fs_close(ctx->fs);
	ctx->fs = NULL;
	return rc;
}

/*
 * An MMP block with a bad magic or checksum is rewritten as a new one,
 * as e2fsck does (nothing can tell whether a node holds the filesystem:
 * its owner is asked). With -n the check goes on without MMP.
 * Returns 1 when the MMP check is to be skipped.
 */
static int fix_mmp(struct fsck_ctx *ctx)
{
	struct problem_context pctx;
	const char *why;
	int rc;

	rc = extkit_mmp_damaged(ctx->fs, &why);
	if (rc <= 0)
		return rc;
	clear_problem_context(&pctx);
	pctx.blk = ctx->fs->sb.mmp_block;
	pctx.str = why;
	if (!fix_problem(ctx, PR_0_MMP_DAMAGED, &pctx))
		return ctx->readonly ? 1 : -EBUSY;
	rc = extkit_mmp_reset(ctx->fs, ctx->opts->target);
	if (rc)
		cli_error("%s: writing the MMP block: %s", ctx->opts->target,
			  extkit_strerror(rc));
	return rc;
}

/*
 * MMP: with -n, whether another node has the filesystem; otherwise the
 * fsck sequence goes in the MMP block too. On failure the filesystem is
 * closed: -EBUSY or -EFSCORRUPTED (refused), or an I/O error.
 */
int fsck_start_mmp(struct fsck_ctx *ctx)
{
	const char *why = NULL;
	int rc = fix_mmp(ctx);

	if (rc == 1)
		return 0;
	if (rc == -EBUSY) {
		why = "the MMP block is damaged and was not rewritten";
		return mmp_refused(ctx, why, rc);
	}
	if (!rc)
		rc = ctx->readonly ? extkit_mmp_check(ctx->fs, &why) :
				     extkit_mmp_start(ctx->fs, &why);
	if (rc == -EBUSY || rc == -EFSCORRUPTED)
		return mmp_refused(ctx, why, rc);
	if (rc) {
		cli_error("%s: reading the MMP block: %s", ctx->opts->target,
			  extkit_strerror(rc));
		extkit_fs_close(ctx->fs);
		ctx->fs = NULL;
		return rc;
	}
	ctx->fs->mmp_started = !ctx->readonly;
	return 0;
}
