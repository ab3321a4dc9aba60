// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Progress for -C: the line "pass current max device" on the descriptor
 * -C FD names (e2fsck's passes 1 to 5 only), or with -C 0 on a terminal
 * one bar for the whole check, wiped before a message is printed. Each
 * call is a safe point for Ctrl-C (interact.c).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "fsck.h"
#include "interact.h"

/*
 * The whole check's share done when pass p begins, in permille: e2fsck
 * weighs the passes 70, 20, 2, 5 and 3 percent.
 */
static const unsigned int pass_start[] = { 0, 0, 700, 900, 920, 950, 1000 };

static unsigned int overall_permille(int pass, uint64_t cur, uint64_t max)
{
	unsigned int lo, hi;

	if (pass < 1 || pass > 5)
		return pass > 5 ? 1000 : 0;
	lo = pass_start[pass];
	hi = pass_start[pass + 1];
	if (!max || cur >= max)
		return hi;
	return lo + (unsigned int)((hi - lo) * cur / max);
}

/* -C 0 on a terminal: one bar for the whole check, redrawn in place
 * when it moves. */
static void progress_bar(struct fsck_ctx *ctx, uint64_t cur, uint64_t max)
{
	static const char bar[] = "========================================";
	int width = (int)sizeof(bar) - 1;
	unsigned int pm = overall_permille(ctx->pass, cur, max);
	int done = (int)(pm * (unsigned int)width / 1000);

	if (ctx->bar_drawn && pm == ctx->bar_permille)
		return;
	printf("\r%s: |%.*s%*s| %3u.%u%%", ctx->device, done, bar,
	       width - done, "", pm / 10, pm % 10);
	fflush(stdout);
	ctx->bar_drawn = 1;
	ctx->bar_permille = pm;
}

void fsck_progress_clear(struct fsck_ctx *ctx)
{
	if (!ctx->bar_drawn)
		return;
	printf("\r%*s\r", 72, "");
	ctx->bar_drawn = 0;
}

void fsck_progress(struct fsck_ctx *ctx, uint64_t cur, uint64_t max)
{
	char line[128];
	int n;

	fsck_poll_cancel(ctx);	/* progress points are safe points */
	if (ctx->opts->progress_fd == 0) {
		if (isatty(1))
			progress_bar(ctx, cur, max);
		return;
	}
	if (ctx->opts->progress_fd < 0 || ctx->pass < 1 || ctx->pass > 5)
		return;	/* e2fsck's passes 1 to 5 only */
	n = snprintf(line, sizeof(line), "%d %" PRIu64 " %" PRIu64 " %s\n",
		     ctx->pass, cur, max, ctx->device);
	if (n > 0 && write(ctx->opts->progress_fd, line, (size_t)n) < 0)
		ctx->opts->progress_fd = -1;
}
