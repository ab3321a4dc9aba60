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
#include "rehash.h"

#define PROG		"extkit-fsck"
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

int fsck_rehash(struct fsck_ctx *ctx)
{
	struct extkit_compact_result res;
	unsigned int threshold;
	uint32_t i, ino, done = 0;
	int given = ctx->opts->extended && *ctx->opts->extended;
	int rc;

	if (ctx->readonly || (ctx->flags & FSCK_FL_UNCORRECTED))
		return 0;
	if (fsck_rehash_parse_extended(ctx->opts->extended, &threshold))
		return -EINVAL;
	if (ctx->opts->mode != FSCK_MODE_PREEN)
		printf("Pass 3A: Optimizing directories\n");
	for (i = 0; i < ctx->dir_count; i++) {
		ino = ctx->dirs[i].ino;
		/* Earlier passes may have cleared this directory. */
		if (!fsck_inode_used(ctx, ino) ||
		    !rehash_wanted(ctx, ino, threshold, given))
			continue;
		rc = extkit_dir_compact(ctx->fs, ino, &res);
		if (rc) {
			fprintf(stderr, PROG ": directory inode %" PRIu32
				": not optimized: %s\n", ino,
				extkit_strerror(rc));
			continue;
		}
		done++;
		if (ctx->opts->verbose)
			printf("Directory inode %" PRIu32 ": %" PRIu64
			       " -> %" PRIu64 " blocks%s\n", ino,
			       res.blocks_before, res.blocks_after,
			       res.indexed ? ", indexed" : "");
	}
	if (done)
		fsck_mark_changed(ctx);
	return 0;
}
