// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 0 checks of single superblock fields that e2fsck makes and the
 * library's validation lets through (the filesystem opens, but e2fsck
 * would complain): a revision 0 superblock with feature bits, times in
 * the future. And, after pass 2, the large_file feature, which e2fsck
 * sets when a regular file of 2 GiB or more exists. Features that other
 * features need or contradict (64bit without extents, csum_seed without
 * metadata_csum), s_clusters_per_group without bigalloc,
 * s_min/want_extra_isize, s_first_meta_bg, the quota
 * inode numbers, and the extents feature an inode in extent format shows
 * was lost.
 *
 * Times: like e2fsck (accept_time_fudge, on by default), a time less
 * than a day ahead is reported as probably a wrong clock, and a clock
 * that reads before 2010 is not trusted at all (no check). A time ahead
 * is set to fsck's clock.
 */
#include "config.h"

#include <sys/stat.h>
#include <time.h>

#include "extent.h"
#include "ondisk.h"
#include "quota.h"
#include "super.h"

#include "fsck.h"
#include "problem.h"

#define TIME_FUDGE	86400u		/* one day */
#define SANE_CLOCK	1262304000u	/* 2010-01-01 */
#define EXTRA_ISIZE_NOW	32u		/* i_extra_isize .. i_projid */

/* Revision 0 with feature bits: made a dynamic revision superblock with
 * the fields revision 0 implies (as e2fsck's update_dynamic_rev). */
static void check_rev_level(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	if (sb->rev_level != EXT2_GOOD_OLD_REV ||
	    !(sb->feature_compat | sb->feature_incompat |
	      sb->feature_ro_compat))
		return;
	clear_problem_context(&pctx);
	if (!fix_problem(ctx, PR_0_FS_REV_LEVEL, &pctx))
		return;
	fsck_update_dynamic_rev(ctx);
}

void fsck_update_dynamic_rev(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;

	if (sb->rev_level != EXT2_GOOD_OLD_REV)
		return;
	sb->rev_level = EXT2_DYNAMIC_REV;
	sb->first_ino = EXT2_GOOD_OLD_FIRST_INO;
	sb->inode_size = EXT2_GOOD_OLD_INODE_SIZE;
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

/*
 * The later of fsck's clock and the system's: a clock set back on
 * purpose (EXTKIT_FAKE_TIME, SOURCE_DATE_EPOCH: reproducible output)
 * must not make the times a kernel just wrote look like the future.
 */
static uint32_t latest_clock(const struct fsck_ctx *ctx)
{
	time_t t = time(NULL);

	return t > 0 && (uint64_t)t > ctx->now && (uint64_t)t <= UINT32_MAX ?
	       (uint32_t)t : ctx->now;
}

static void check_time(struct fsck_ctx *ctx, uint32_t *t, uint32_t code,
		       uint32_t fudged)
{
	struct problem_context pctx;
	uint32_t now = latest_clock(ctx);

	if (*t <= now)
		return;
	clear_problem_context(&pctx);
	pctx.num = *t;
	pctx.num2 = now;
	if (fix_problem(ctx, *t - now <= TIME_FUDGE ? fudged : code,
			&pctx)) {
		*t = ctx->now;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

/* A feature the superblock's other features need, or contradict:
 * want is set, or clear cleared, after code is asked. */
static void check_feature(struct fsck_ctx *ctx, uint32_t code,
			  uint32_t *word, uint32_t want, uint32_t clear)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	if (!fix_problem(ctx, code, &pctx))
		return;
	*word = (*word | want) & ~clear;
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

static void check_features(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;

	/* 64bit block numbers are reachable through extents only */
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_64BIT) &&
	    !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_EXTENTS))
		check_feature(ctx, PR_0_64BIT_NO_EXTENTS,
			      &sb->feature_incompat,
			      EXT4_FEATURE_INCOMPAT_EXTENTS, 0);
	/* the Hurd keeps no file type in directory entries (e2fsck
	 * clears the feature: the entries' type bytes are 0 there) */
	if (sb->creator_os == EXT2_OS_HURD &&
	    extkit_has_incompat(sb, EXT2_FEATURE_INCOMPAT_FILETYPE))
		check_feature(ctx, PR_0_HURD_CLEAR_FILETYPE,
			      &sb->feature_incompat, 0,
			      EXT2_FEATURE_INCOMPAT_FILETYPE);
	/* the seed means nothing without the checksums it seeds */
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	    !extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		check_feature(ctx, PR_0_CSUM_SEED_NO_CSUM,
			      &sb->feature_incompat, 0,
			      EXT4_FEATURE_INCOMPAT_CSUM_SEED);
}

/* s_min_extra_isize and s_want_extra_isize: 0, or 4..(inode size - 128)
 * in steps of 4; a bad one becomes the size of today's extra fields. */
static void check_extra_isize(struct fsck_ctx *ctx, uint16_t *v,
			      uint32_t code)
{
	uint32_t room = ctx->fs->g.inode_size - EXT2_GOOD_OLD_INODE_SIZE;
	struct problem_context pctx;

	if (ctx->fs->g.inode_size <= EXT2_GOOD_OLD_INODE_SIZE || !*v ||
	    (*v >= 4 && *v <= room && !(*v & 3)))
		return;
	clear_problem_context(&pctx);
	pctx.num = *v;
	pctx.num2 = room < EXTRA_ISIZE_NOW ? room : EXTRA_ISIZE_NOW;
	if (fix_problem(ctx, code, &pctx)) {
		*v = (uint16_t)pctx.num2;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

int fsck_extent_feature(struct fsck_ctx *ctx, uint32_t ino,
			const struct extkit_inode *inode)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct problem_context pctx;

	extkit_extent_root_get(inode, root);
	if (extkit_extent_header_check((const struct ext4_extent_header *)root,
				       sizeof(root)))
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	if (!fix_problem(ctx, PR_1_EXTENT_FEATURE, &pctx))
		return 0;
	ctx->fs->sb.feature_incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS;
	ctx->flags |= FSCK_FL_SB_DIRTY;
	return 1;
}

/*
 * meta_bg with s_first_meta_bg past the descriptor blocks: every
 * descriptor block then sits in the classic place, which is what the
 * superblock says once meta_bg is cleared (e2fsck clears both).
 */
static void check_first_meta_bg(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	if (!extkit_has_incompat(sb, EXT2_FEATURE_INCOMPAT_META_BG) ||
	    sb->first_meta_bg <= ctx->fs->g.gdt_blocks)
		return;
	clear_problem_context(&pctx);
	pctx.num = sb->first_meta_bg;
	pctx.num2 = ctx->fs->g.gdt_blocks;
	if (!fix_problem(ctx, PR_0_FIRST_META_BG_TOO_BIG, &pctx))
		return;
	sb->feature_incompat &= ~EXT2_FEATURE_INCOMPAT_META_BG;
	sb->first_meta_bg = 0;
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

/* A quota inode number naming another reserved inode (the bad blocks,
 * root, boot loader, undelete, resize, journal, exclude, replica inodes)
 * or past the inode count is cleared, as e2fsck does. */
static void check_quota_inums(struct fsck_ctx *ctx)
{
	static const uint32_t taken[] = {
		EXT2_BAD_INO, EXT2_ROOT_INO, EXT2_BOOT_LOADER_INO,
		EXT2_UNDEL_DIR_INO, EXT2_RESIZE_INO, EXT2_JOURNAL_INO,
		EXT2_EXCLUDE_INO, EXT4_REPLICA_INO,
	};
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	for (int t = 0; t < 3; t++) {
		uint32_t ino = sb->quota_inum[t];
		int bad = ino > sb->inodes_count;

		for (size_t i = 0; ino && i < sizeof(taken) / sizeof(*taken);
		     i++)
			bad |= ino == taken[i];
		if (!bad)
			continue;
		clear_problem_context(&pctx);
		pctx.ino = ino;
		pctx.str = extkit_quota_type_name(t);
		if (fix_problem(ctx, PR_0_INVALID_QUOTA_INO, &pctx)) {
			sb->quota_inum[t] = 0;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		}
	}
}

/*
 * An s_*_quota_inum or s_orphan_file_inum left set while its feature
 * (quota, orphan_file) is off names an inode nothing uses as such: the
 * field is the liar, not the inode. e2fsck believes the number (pass 1
 * clears a project quota or orphan file inode that "contains data",
 * pass 2 drops every entry naming any of them), which loses the file or
 * directory the number happens to name; extkit clears the number and
 * keeps the inode to the passes. The conventional user and group quota
 * inodes (3 and 4) are reserved anyway: e2fsck's pass 1 rules for them
 * stay (they are not reported here).
 */
static void clear_stale_inum(struct fsck_ctx *ctx, uint32_t *field,
			     const char *what)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = *field;
	pctx.str = what;
	if (!fix_problem(ctx, PR_0_STALE_INTERNAL_INO, &pctx))
		return;
	*field = 0;
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

/* Whether inode ino holds a quota file (a regular file in use with
 * blocks) that no other quota type of the superblock names. */
static int holds_quota_file(struct fsck_ctx *ctx, int type, uint32_t ino)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	struct extkit_inode inode;

	for (int t = 0; t < 3; t++)
		if (t != type && sb->quota_inum[t] == ino)
			return 0;
	return !extkit_inode_read(ctx->fs, ino, &inode) &&
	       S_ISREG(inode.mode) && inode.links_count && inode.blocks &&
	       !inode.dtime;
}

/*
 * With the quota feature, the user and group quota files are inodes 3
 * and 4 (mke2fs, tune2fs). A number naming another inode (a file, a
 * directory, the project quota inode) while 3 or 4 holds the quota file
 * is the liar: e2fsck believes it, clears the real quota file, and
 * treats the inode named as a quota file (a directory's entries
 * dropped; two types sharing one inode rewrite it for ever). The
 * number is set back.
 */
static void check_usual_quota_inums(struct fsck_ctx *ctx)
{
	static const char *const names[] = {
		"user quota inode", "group quota inode",
	};
	static const uint32_t usual[] = {
		EXT4_USR_QUOTA_INO, EXT4_GRP_QUOTA_INO,
	};
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	if (!extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_QUOTA))
		return;
	for (int t = 0; t < 2; t++) {
		if (!sb->quota_inum[t] || sb->quota_inum[t] == usual[t] ||
		    !holds_quota_file(ctx, t, usual[t]))
			continue;
		clear_problem_context(&pctx);
		pctx.ino = sb->quota_inum[t];
		pctx.num = usual[t];
		pctx.str = names[t];
		if (!fix_problem(ctx, PR_0_QUOTA_INO_NOT_USUAL, &pctx))
			continue;
		sb->quota_inum[t] = usual[t];
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

static void check_stale_inums(struct fsck_ctx *ctx)
{
	static const char *const names[] = {
		"user quota inode", "group quota inode", "project quota inode",
	};
	static const uint32_t usual[] = {
		EXT4_USR_QUOTA_INO, EXT4_GRP_QUOTA_INO, 0,
	};
	struct extkit_super *sb = &ctx->fs->sb;

	if (!extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_QUOTA))
		for (int t = 0; t < 3; t++)
			if (sb->quota_inum[t] && sb->quota_inum[t] != usual[t])
				clear_stale_inum(ctx, &sb->quota_inum[t],
						 names[t]);
	if (!extkit_has_compat(sb, EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    sb->orphan_file_inum)
		clear_stale_inum(ctx, &sb->orphan_file_inum, "orphan file");
}

/*
 * Without bigalloc a cluster is a block: s_clusters_per_group must equal
 * s_blocks_per_group. The library (like the kernel) does not read it
 * then, but e2fsprogs' ext2fs_open refuses a superblock where it does
 * not, so e2fsck cannot open the filesystem at all.
 */
static void check_clusters_per_group(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	if ((sb->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC) ||
	    sb->clusters_per_group == sb->blocks_per_group)
		return;
	clear_problem_context(&pctx);
	pctx.num = sb->clusters_per_group;
	pctx.num2 = sb->blocks_per_group;
	if (!fix_problem(ctx, PR_0_CLUSTERS_PER_GROUP, &pctx))
		return;
	sb->clusters_per_group = sb->blocks_per_group;
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

void fsck_check_super_more(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;

	check_rev_level(ctx);
	check_clusters_per_group(ctx);
	check_features(ctx);
	check_first_meta_bg(ctx);
	check_quota_inums(ctx);
	check_stale_inums(ctx);
	check_usual_quota_inums(ctx);
	check_extra_isize(ctx, &sb->min_extra_isize, PR_0_BAD_MIN_EXTRA_ISIZE);
	check_extra_isize(ctx, &sb->want_extra_isize,
			  PR_0_BAD_WANT_EXTRA_ISIZE);
	if (latest_clock(ctx) < SANE_CLOCK)
		return;
	check_time(ctx, &sb->mtime, PR_0_FUTURE_MTIME,
		   PR_0_FUTURE_MTIME_FUDGED);
	check_time(ctx, &sb->wtime, PR_0_FUTURE_WTIME,
		   PR_0_FUTURE_WTIME_FUDGED);
}

void fsck_check_large_file(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	if (!ctx->stats.large_files ||
	    extkit_has_ro_compat(sb, EXT2_FEATURE_RO_COMPAT_LARGE_FILE))
		return;
	clear_problem_context(&pctx);
	pctx.num = ctx->stats.large_files;
	if (!fix_problem(ctx, PR_2_FEATURE_LARGE_FILES, &pctx))
		return;
	fsck_update_dynamic_rev(ctx);
	sb->feature_ro_compat |= EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	ctx->flags |= FSCK_FL_SB_DIRTY;
}
