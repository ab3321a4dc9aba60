// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 4: reference counts.
 *
 * Checks every inode in use against the names passes 2 and 3 counted:
 * an inode nobody names is connected to /lost+found (a regular file
 * with no data is cleared instead, as e2fsck does); an inode pass 1 kept
 * although its i_links_count was 0 is deleted when nobody names it and
 * gets its count back otherwise; any other difference sets i_links_count
 * to the names found. A file a directory still names is never deleted.
 *
 * Relies on: istate, link_count, link_counted. A directory with more
 * than 65,000 links keeps a count of 1 (with dir_nlink, set if missing).
 */
#include "config.h"

#include "bitmap.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

#define LINK_MAX_DIR	65000

/* Deletes inode ino: dtime set, blocks and inode released. */
static void release_inode(struct fsck_ctx *ctx, uint32_t ino, int set_dtime)
{
	struct extkit_inode inode;

	if (extkit_inode_read(ctx->fs, ino, &inode))
		return;
	fsck_release_blocks(ctx, &inode);
	inode.links_count = 0;
	if (set_dtime || !inode.dtime)
		inode.dtime = ctx->now;
	fsck_write_inode(ctx, ino, &inode);
	fsck_istate_clear(&ctx->istate, ino);
	fsck_count_set(&ctx->link_count, ino, 0);
	extkit_bitmap_clear(&ctx->inode_used, ino - 1);
}

static int report(struct fsck_ctx *ctx, uint32_t code, uint32_t ino,
		  uint64_t num)
{
	struct problem_context pctx;
	struct extkit_inode inode;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.num = num;
	if (!extkit_inode_read(ctx->fs, ino, &inode))
		pctx.inode = &inode;
	return fix_problem(ctx, code, &pctx);
}

/*
 * An EA inode (EXT4_EA_INODE_FL) that no attribute names any more is
 * reconnected like any file, but the kernel refuses to look up an EA
 * inode through a directory (ext4_lookup: "unexpected EA_INODE flag"):
 * the flag goes first, leaving the value readable as a plain file.
 * e2fsck 1.47.0 reconnects it with the flag set.
 */
static void unflag_ea_inode(struct fsck_ctx *ctx, uint32_t ino,
			    uint32_t code)
{
	struct extkit_inode inode;

	if (extkit_inode_read(ctx->fs, ino, &inode) ||
	    !(inode.flags & EXT4_EA_INODE_FL))
		return;
	if (!report(ctx, code, ino, 0))
		return;
	inode.flags &= ~EXT4_EA_INODE_FL;
	fsck_write_inode(ctx, ino, &inode);
}

/*
 * Inodes with EXT4_EA_INODE_FL that directories name and no attribute
 * does (a damaged flags word on a file): the kernel will not look them
 * up, e2fsck 1.47.0 leaves them; the flag goes. Those reconnected above
 * lost it already.
 */
static void named_ea_inodes(struct fsck_ctx *ctx)
{
	for (size_t i = 0; i < ctx->ea_flagged.n; i++) {
		uint32_t ino = (uint32_t)ctx->ea_flagged.v[i];

		if (fsck_inode_used(ctx, ino) &&
		    fsck_count_get(&ctx->link_counted, ino) &&
		    !fsck_count_get(&ctx->ea_inode_refs, ino))
			unflag_ea_inode(ctx, ino, PR_4_EA_INODE_NAMED);
	}
}

/* An inode in use that no directory names. */
static void unattached(struct fsck_ctx *ctx, uint32_t ino)
{
	if (fsck_istate_zero_link(&ctx->istate, ino)) {
		if (report(ctx, PR_4_ZERO_DTIME, ino, 0))
			release_inode(ctx, ino, 1);
		return;
	}
	if (fsck_ftype(ctx, ino) == EXT2_FT_DIR)
		return;		/* pass 3 has dealt with it */
	if (fsck_istate_empty_reg(&ctx->istate, ino)) {
		if (report(ctx, PR_4_ZERO_LEN, ino, 0))
			release_inode(ctx, ino, 1);
		return;
	}
	if (report(ctx, PR_4_UNATTACHED, ino, 0)) {
		unflag_ea_inode(ctx, ino, PR_4_EA_INODE_UNNAMED);
		fsck_reconnect(ctx, ino);
	}
}

/*
 * A directory with more links than i_links_count may hold (more than
 * 65,000 subdirectories) keeps a count of 1, which the kernel reads as
 * "many" only with dir_nlink: the feature is set if it is missing (e2fsck
 * does the same). Returns the count the inode should hold.
 */
static uint32_t dir_nlink(struct fsck_ctx *ctx, uint32_t ino,
			  uint32_t counted)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	if (counted <= LINK_MAX_DIR)
		return counted;
	if (!extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_DIR_NLINK)) {
		clear_problem_context(&pctx);
		pctx.ino = ino;
		pctx.num = counted;
		if (fix_problem(ctx, PR_4_DIR_NLINK_FEATURE, &pctx)) {
			sb->feature_ro_compat |=
				EXT4_FEATURE_RO_COMPAT_DIR_NLINK;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		}
	}
	return 1;
}

/*
 * An indexed directory whose count of 1 says "many" (it once had more
 * than 65,000 subdirectories) and now has fewer: the exact count is set.
 * Not an error (the kernel reads 1 as many); -n says nothing, as e2fsck.
 */
static int dir_overflowed(struct fsck_ctx *ctx, uint32_t ino, uint32_t link,
			  uint32_t counted)
{
	struct extkit_inode inode;

	return link == 1 && counted > 1 &&
	       !extkit_inode_read(ctx->fs, ino, &inode) &&
	       (inode.flags & EXT2_INDEX_FL);
}

/* The common case, which check_count() would leave as it is: the names
 * found are i_links_count, and few enough for a directory's count. */
static int counts_agree(const struct fsck_ctx *ctx, uint32_t ino)
{
	uint32_t counted = fsck_count_get(&ctx->link_counted, ino);

	return counted <= LINK_MAX_DIR &&
	       counted == fsck_count_get(&ctx->link_count, ino);
}

static void check_count(struct fsck_ctx *ctx, uint32_t ino)
{
	uint32_t counted = fsck_count_get(&ctx->link_counted, ino);
	uint32_t link = fsck_count_get(&ctx->link_count, ino);
	uint32_t code = PR_4_BAD_REF_COUNT;
	struct extkit_inode inode;

	if (fsck_ftype(ctx, ino) == EXT2_FT_DIR) {
		counted = dir_nlink(ctx, ino, counted);
		if (counted != link && dir_overflowed(ctx, ino, link, counted)) {
			if (ctx->readonly)
				return;
			code = PR_4_DIR_OVERFLOW_REF_COUNT;
		}
	}
	if (counted == link)
		return;
	if (!report(ctx, code, ino, counted))
		return;
	if (extkit_inode_read(ctx->fs, ino, &inode))
		return;
	inode.links_count = (uint16_t)counted;
	if (counted && inode.dtime)
		inode.dtime = 0;
	if (!fsck_write_inode(ctx, ino, &inode))
		fsck_count_set(&ctx->link_count, ino, counted);
}

int fsck_pass4(struct fsck_ctx *ctx)
{
	uint32_t n = ctx->fs->sb.inodes_count;
	uint32_t first = ctx->fs->g.first_ino;

	/* every inode in use (istate.h: pages without one are not read) */
	for (uint64_t next = fsck_istate_next_used(&ctx->istate, 1); next <= n;
	     next = fsck_istate_next_used(&ctx->istate, next + 1)) {
		uint32_t ino = (uint32_t)next;

		if (ino < first && ino != EXT2_ROOT_INO)
			continue;
		if (extkit_super_internal_inode(&ctx->fs->sb, ino))
			continue;
		if ((ino & 0xffff) == 0)
			fsck_progress(ctx, ino, n);
		/* An EA inode is named by attributes, not directories. */
		if (!fsck_count_get(&ctx->link_counted, ino) &&
		    fsck_ea_inode_attached(ctx, ino))
			fsck_count_set(&ctx->link_counted, ino, 1);
		if (!fsck_count_get(&ctx->link_counted, ino)) {
			unattached(ctx, ino);
			if (!fsck_inode_used(ctx, ino) ||
			    !fsck_count_get(&ctx->link_counted, ino))
				continue;
		}
		if (!counts_agree(ctx, ino))
			check_count(ctx, ino);
		if (ctx->flags & FSCK_FL_ABORT)
			break;
	}
	if (ctx->ea_inode_refs.v && !(ctx->flags & FSCK_FL_ABORT))
		named_ea_inodes(ctx);
	fsck_quota_keep_inodes(ctx);
	return 0;
}
