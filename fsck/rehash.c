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

#include "bmap.h"
#include "csum.h"
#include "dir.h"
#include "dirblock.h"
#include "dircompact.h"
#include "dirspace.h"
#include "error.h"
#include "inode.h"
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

/*
 * Turns index block buf (logical block lblk) of a directory into a leaf
 * with a checksum tail, in place: the root's '..' (a record running to
 * the block end over the dx_root_info and entries) gives up its last 12
 * bytes, an interior node (one empty record over the whole block, the
 * dx entries in it) becomes an empty record and the tail. 1 when buf
 * changed, 0 for any other block (a leaf keeps its records).
 */
static int index_block_to_leaf(struct fsck_ctx *ctx, uint64_t lblk,
			       uint8_t *buf)
{
	struct extkit_dir_format fmt;
	uint32_t bs, start;

	extkit_dir_format_init(ctx->fs, &fmt);
	bs = fmt.block_size;
	if (extkit_dirblock_has_tail(ctx->fs, buf))
		return 0;
	if (lblk == 0 && extkit_dirent_rec_len(&fmt, buf) == 12 &&
	    extkit_dirent_rec_len(&fmt, buf + 12) == bs - 12) {
		start = 24;	/* '..' keeps its 12 bytes */
		if (extkit_dirent_set_rec_len(&fmt, buf + 12, bs - 24))
			return 0;
	} else if (lblk > 0 && !extkit_dirent_inode(buf) &&
		   extkit_dirent_rec_len(&fmt, buf) == bs) {
		start = 8;
		if (extkit_dirent_set_rec_len(&fmt, buf, bs - 12))
			return 0;
		extkit_dirent_clear_name(buf);
	} else {
		return 0;
	}
	memset(buf + start, 0, bs - 12 - start);
	extkit_dirblock_init_tail(ctx->fs, buf);
	return 1;
}

/*
 * A directory whose index pass 2 gave up (metadata_csum: the flag stays
 * for the rebuild) but which extkit cannot rebuild (say bigalloc, where
 * it allocates nothing): its index blocks become empty leaves, then the
 * flag goes. Nothing is allocated or freed; the directory is a valid
 * linear one, every name kept. Blocks first: a run stopped before the
 * inode finds the same bad index and ends the work.
 */
static int drop_index(struct fsck_ctx *ctx, struct extkit_inode *inode,
		      uint32_t ino, int *wrote)
{
	uint64_t end, lblk, pblk;
	uint8_t *buf = ctx->blkbuf;
	int rc;

	rc = extkit_bmap_end(ctx->fs, inode, &end);
	for (lblk = 0; !rc && lblk < end; lblk++) {
		rc = extkit_bmap(ctx->fs, inode, lblk, &pblk);
		if (rc || !pblk)
			continue;
		rc = extkit_fs_read_block(ctx->fs, pblk, buf);
		if (rc || !index_block_to_leaf(ctx, lblk, buf))
			continue;
		*wrote = 1;
		rc = extkit_dirblock_write(ctx->fs, ino, inode->generation,
					   pblk, buf);
	}
	if (rc)
		return rc;
	inode->flags &= ~EXT2_INDEX_FL;
	*wrote = 1;
	return fsck_write_inode(ctx, ino, inode);
}

/* Whether every block of linear directory inode has its checksum
 * tail: 1, 0 when one has none, or an error. */
static int all_tails(struct fsck_ctx *ctx, const struct extkit_inode *inode)
{
	uint64_t end, lblk, pblk;
	int rc = extkit_bmap_end(ctx->fs, inode, &end);

	for (lblk = 0; !rc && lblk < end; lblk++) {
		rc = extkit_bmap(ctx->fs, inode, lblk, &pblk);
		if (rc || !pblk)
			continue;
		rc = extkit_fs_read_block(ctx->fs, pblk, ctx->blkbuf);
		if (!rc && !extkit_dirblock_has_tail(ctx->fs, ctx->blkbuf))
			return 0;
	}
	return rc ? rc : 1;
}

/*
 * A directory pass 2 listed for a rebuild that extkit refuses (rc):
 * an index it gave up is dropped (drop_index); a linear directory was
 * listed for a block with no room for its checksum tail, which the
 * rest of pass 2 may have made (a bad last record cleared): then
 * nothing is left to do. Else rc stays: the damage is left. *wrote:
 * something was written.
 */
static int refused_fallback(struct fsck_ctx *ctx, uint32_t ino, int rc,
			    struct problem_context *pctx, int *wrote)
{
	struct extkit_inode inode;
	int tails;

	*wrote = 0;
	if (!extkit_has_metadata_csum(&ctx->fs->sb) ||
	    extkit_inode_read(ctx->fs, ino, &inode))
		return rc;
	if (inode.flags & EXT2_INDEX_FL) {
		pctx->str = extkit_strerror(rc);
		fix_problem(ctx, PR_3_INDEX_DROPPED, pctx);
		return drop_index(ctx, &inode, ino, wrote);
	}
	tails = all_tails(ctx, &inode);
	return tails == 1 ? 0 : tails < 0 ? tails : rc;
}

/* Compacts directory ino and reports what happened; 1 when written.
 * listed: pass 2 gave up its index (drop_index when refused). */
static int rehash_one(struct fsck_ctx *ctx, uint32_t ino, int listed)
{
	struct extkit_compact_result res;
	struct problem_context pctx;
	int rc = extkit_dir_compact(ctx->fs, ino, &res);

	clear_problem_context(&pctx);
	pctx.dir = ino;
	if (rc == -EXTKIT_EUNSUPP && !res.written && listed) {
		int wrote;

		rc = refused_fallback(ctx, ino, rc, &pctx, &wrote);
		if (!rc)
			return wrote;
		res.written = wrote;	/* maybe part-way */
	}
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, res.written ? PR_3A_OPTIMIZE_FAILED :
			    PR_3A_OPTIMIZE_SKIPPED, &pctx);
		/* A half-written directory, or one pass 2 listed (its
		 * damage stays), is damage this run leaves. */
		if (res.written || listed)
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
			written += (uint32_t)rehash_one(ctx, ino, 0);
	}
	/* What was written, not what was meant: a refused directory
	 * changes nothing. Optimizing is no fix: written, but e2fsck
	 * exits 0 when that is all a run did. */
	if (written)
		ctx->flags |= FSCK_FL_RECOVERED | FSCK_FL_SB_DIRTY;
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
			written += (uint32_t)rehash_one(ctx, ino, 1);
	}
	if (written)
		fsck_mark_changed(ctx);
	return 0;
}
