// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The directory list (ctx->dirs, struct fsck_dir): every directory pass 1
 * found, sorted by inode number, with the parent pass 2 finds and what
 * its '..' says; looked up by binary search.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsck.h"

struct fsck_dir *fsck_dir_find(struct fsck_ctx *ctx, uint32_t ino)
{
	uint32_t lo = 0, hi = ctx->dir_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ctx->dirs[mid].ino == ino)
			return &ctx->dirs[mid];
		if (ctx->dirs[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Adds a directory; pass 1 adds in inode order, later callers insert. */
int fsck_dir_add(struct fsck_ctx *ctx, uint32_t ino)
{
	struct fsck_dir *d;
	uint32_t i;

	if (ctx->dir_count == ctx->dir_cap) {
		uint32_t cap = ctx->dir_cap ? ctx->dir_cap * 2 : 256;

		d = realloc(ctx->dirs, (size_t)cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		ctx->dirs = d;
		ctx->dir_cap = cap;
	}
	i = ctx->dir_count;
	while (i > 0 && ctx->dirs[i - 1].ino > ino) {
		ctx->dirs[i] = ctx->dirs[i - 1];
		i--;
	}
	memset(&ctx->dirs[i], 0, sizeof(ctx->dirs[i]));
	ctx->dirs[i].ino = ino;
	ctx->dir_count++;
	return 0;
}
