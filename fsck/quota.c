// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Quota usage (the quota feature), after the passes and -D: the usage of
 * every id is counted anew from the inodes in use (bytes of i_blocks,
 * which pass 1 made right, and one inode plus its EA inodes, as e2fsck
 * charges them), each quota file is read and checked (lib/quota.c), and
 * a file that is not valid or disagrees is reported, id by id, and
 * rewritten with -y: limits and grace times kept from the old file where
 * it could be read, the layout e2fsprogs writes.
 *
 * Relies on: inode_used as the passes left it; the on-disk bitmaps and
 * counts right (pass 5), as writing allocates through them.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"
#include "quota.h"
#include "xattr.h"

#include "fsck.h"
#include "problem.h"

#define QUOTA_REPORT_MAX	16	/* ids listed per type, then a count */

struct quota_scan {
	struct fsck_ctx *ctx;
	struct extkit_quota_set set[EXTKIT_QUOTA_TYPES];
	int want[EXTKIT_QUOTA_TYPES];
	uint8_t *blk;		/* an EA block */
};

static int charge(struct quota_scan *qs, uint32_t ino, const uint8_t *raw)
{
	struct extkit_fs *fs = qs->ctx->fs;
	struct extkit_inode in;
	uint64_t space, inodes;

	extkit_inode_decode(raw, fs->g.inode_size, &in);
	if (!extkit_quota_charged(fs, ino, &in))
		return 0;
	space = extkit_inode_blocks_bytes(fs, &in);
	inodes = 1 + extkit_quota_ea_inodes(fs, raw, &in, qs->blk);
	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++) {
		struct extkit_dquot *d;

		if (!qs->want[t])
			continue;
		d = extkit_quota_set_get(&qs->set[t],
					 extkit_quota_id(&in, t));
		if (!d)
			return -ENOMEM;
		d->curspace += space;
		d->curinodes += inodes;
	}
	return 0;
}

/* Reads group g's inode table where inodes are in use, a chunk at a
 * time, and charges each inode in use. */
static int scan_group(struct quota_scan *qs, uint32_t g, uint8_t *chunk,
		      uint32_t chunk_blocks)
{
	struct fsck_ctx *ctx = qs->ctx;
	struct extkit_fs *fs = ctx->fs;
	uint32_t isz = fs->g.inode_size, ipb = fs->g.inodes_per_block;
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t first = (uint64_t)g * ipg;	/* bit of the first inode */
	uint32_t nblk = (ipg + ipb - 1) / ipb;
	int rc;

	if (!fs->groups[g].inode_table)
		return 0;
	for (uint32_t b = 0; b < nblk; b += chunk_blocks) {
		uint32_t cnt = nblk - b < chunk_blocks ? nblk - b :
							 chunk_blocks;
		uint64_t lo = first + (uint64_t)b * ipb;
		uint64_t n = (uint64_t)cnt * ipb;

		if (lo + n > first + ipg)
			n = first + ipg - lo;
		if (!extkit_bitmap_count_range(&ctx->inode_used, lo, n))
			continue;
		rc = extkit_io_read_blocks(ctx->io,
					   fs->groups[g].inode_table + b, cnt,
					   chunk);
		if (rc)
			return rc;
		for (uint64_t i = 0; i < n; i++) {
			if (!extkit_bitmap_test(&ctx->inode_used, lo + i))
				continue;
			rc = charge(qs, (uint32_t)(lo + i + 1),
				    chunk + i * isz);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int count_usage(struct quota_scan *qs)
{
	struct extkit_fs *fs = qs->ctx->fs;
	uint32_t bs = fs->g.block_size;
	uint32_t chunk_blocks = (1u << 20) / bs ? (1u << 20) / bs : 1;
	uint8_t *chunk;
	int rc = 0;

	if (chunk_blocks > fs->g.itable_blocks)
		chunk_blocks = fs->g.itable_blocks;
	chunk = malloc((size_t)chunk_blocks * bs);
	qs->blk = malloc(bs);
	if (!chunk || !qs->blk)
		rc = -ENOMEM;
	for (uint32_t g = 0; !rc && g < fs->g.group_count; g++)
		rc = scan_group(qs, g, chunk, chunk_blocks);
	free(chunk);
	free(qs->blk);
	qs->blk = NULL;
	return rc;
}

static void report_id(struct fsck_ctx *ctx, int type,
		      const struct extkit_dquot *have,
		      const struct extkit_dquot *disk)
{
	struct problem_context pctx;
	char text[200];

	snprintf(text, sizeof(text), "%" PRIu64 " bytes and %" PRIu64
		 " inodes in use, the file says %" PRIu64 " bytes and %"
		 PRIu64 " inodes",
		 have ? have->curspace : 0, have ? have->curinodes : 0,
		 disk ? disk->curspace : 0, disk ? disk->curinodes : 0);
	clear_problem_context(&pctx);
	pctx.num = (uint64_t)type;
	pctx.num2 = have ? have->id : disk->id;
	pctx.str = text;
	fix_problem(ctx, PR_5_QUOTA_USAGE, &pctx);
}

static int same_usage(const struct extkit_dquot *a,
		      const struct extkit_dquot *b)
{
	uint64_t as = a ? a->curspace : 0, ai = a ? a->curinodes : 0;
	uint64_t bs = b ? b->curspace : 0, bi = b ? b->curinodes : 0;

	return as == bs && ai == bi;
}

/* Lists the ids whose usage differs; returns how many differ. */
static size_t compare(struct fsck_ctx *ctx, int type,
		      const struct extkit_quota_set *have,
		      const struct extkit_quota_set *disk)
{
	size_t bad = 0;

	for (size_t i = 0; i < have->cap; i++) {
		const struct extkit_dquot *h = &have->v[i], *d;

		if (!have->used[i])
			continue;
		d = extkit_quota_set_find(disk, h->id);
		/* e2fsck: an id in use with no entry is "missing" */
		if (d && same_usage(h, d))
			continue;
		if (bad++ < QUOTA_REPORT_MAX)
			report_id(ctx, type, h, d);
	}
	for (size_t i = 0; i < disk->cap; i++) {
		const struct extkit_dquot *d = &disk->v[i];

		if (!disk->used[i] || extkit_quota_set_find(have, d->id) ||
		    same_usage(NULL, d))
			continue;
		if (bad++ < QUOTA_REPORT_MAX)
			report_id(ctx, type, NULL, d);
	}
	return bad;
}

/* Limits and grace times of the old file go into the new one. */
static int keep_limits(struct extkit_quota_set *have,
		       const struct extkit_quota_set *disk)
{
	for (size_t i = 0; i < disk->cap; i++) {
		const struct extkit_dquot *d = &disk->v[i];
		struct extkit_dquot *h;

		if (!disk->used[i])
			continue;
		h = extkit_quota_set_get(have, d->id);
		if (!h)
			return -ENOMEM;
		h->bhardlimit = d->bhardlimit;
		h->bsoftlimit = d->bsoftlimit;
		h->ihardlimit = d->ihardlimit;
		h->isoftlimit = d->isoftlimit;
		h->btime = d->btime;
		h->itime = d->itime;
	}
	return 0;
}

static int rewrite(struct fsck_ctx *ctx, int type, uint32_t ino,
		   struct extkit_quota_set *have,
		   const struct extkit_quota_file *old, int old_ok)
{
	struct extkit_dquot **v = NULL;
	uint8_t *buf = NULL;
	size_t len;
	int rc = old_ok ? keep_limits(have, &old->dq) : 0;

	if (!rc)
		rc = extkit_quota_set_sorted(have, &v);
	if (!rc)
		rc = extkit_quota_build(type,
					old_ok ? old->bgrace :
						 EXT4_QUOTA_DEF_GRACE,
					old_ok ? old->igrace :
						 EXT4_QUOTA_DEF_GRACE,
					old_ok ? old->flags : 0, v, have->n,
					ctx->now, &buf, &len);
	if (!rc)
		rc = extkit_quota_write_inode(ctx->fs, ino, buf, len,
					      ctx->now);
	free(v);
	free(buf);
	return rc;
}

static void check_type(struct fsck_ctx *ctx, int type,
		       struct extkit_quota_set *have)
{
	uint32_t ino = extkit_quota_inum(&ctx->fs->sb, type);
	struct problem_context pctx;
	struct extkit_quota_file qf;
	const char *why = NULL;
	int rc, old_ok;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.num = (uint64_t)type;
	pctx.str = extkit_quota_type_name(type);
	rc = extkit_quota_read(ctx->fs, ino, type, &qf, &why);
	old_ok = !rc;
	if (rc) {
		pctx.str = why ? why : extkit_strerror(rc);
		fix_problem(ctx, PR_5_QUOTA_BAD_FILE, &pctx);
		pctx.str = extkit_quota_type_name(type);
	} else if (!compare(ctx, type, have, &qf.dq)) {
		goto out;
	}
	if (!fix_problem(ctx, PR_5_QUOTA_UPDATE, &pctx))
		goto out;
	rc = rewrite(ctx, type, ino, have, &qf, old_ok);
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_5_QUOTA_WRITE, &pctx);
		ctx->flags |= FSCK_FL_UNCORRECTED;
	}
out:
	extkit_quota_set_free(&qf.dq);
}

void fsck_quota(struct fsck_ctx *ctx)
{
	struct quota_scan qs = { .ctx = ctx };
	int any = 0, rc;

	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++) {
		uint32_t ino = extkit_quota_inum(&ctx->fs->sb, t);

		qs.want[t] = ino && ino <= ctx->fs->sb.inodes_count;
		any |= qs.want[t];
	}
	if (!any)
		return;
	rc = count_usage(&qs);
	if (rc) {
		struct problem_context pctx;

		clear_problem_context(&pctx);
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_5_QUOTA_SCAN, &pctx);
		ctx->flags |= FSCK_FL_UNCORRECTED;
	}
	for (int t = 0; !rc && t < EXTKIT_QUOTA_TYPES; t++)
		if (qs.want[t])
			check_type(ctx, t, &qs.set[t]);
	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++)
		extkit_quota_set_free(&qs.set[t]);
}
