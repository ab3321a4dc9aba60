// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening the filesystem for fsck: the superblock and group descriptors.
 *
 * The primary superblock must validate (library super.c) and every group
 * descriptor place its bitmaps and inode table inside the filesystem
 * (and inside its own group without flex_bg) without overlapping the
 * superblock and descriptor copies or each other (owners.c).
 *
 * Fallback: when the primary superblock is unusable, or its descriptors
 * are, the backups in groups 1, 3, 5, 7, 9 (for every block size) are
 * tried, and the first usable one replaces the primary at the end of the
 * run (e2fsck gives up in this case unless given -b). Descriptors with no
 * usable backup have their wrong places predicted from the layout or
 * relocated (relocate.c) instead of ending the check; a primary with no
 * usable backup may be rebuilt (super_rebuild.c). MMP is taken once a
 * superblock is chosen (mmp.c).
 *
 * Called by pass 0 (fsck_open) and again after a journal replay
 * (fsck_reopen). Produces ctx->fs.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "csum.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "io.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "fsck.h"
#include "problem.h"

static const uint32_t backup_groups[] = { 1, 3, 5, 7, 9 };

static int fs_flags(const struct fsck_ctx *ctx)
{
	/* MMP: taken by open_primary itself, to name who has it */
	int flags = EXTKIT_FS_NO_GDT_CHECK | EXTKIT_FS_NO_MMP;

	if (!ctx->readonly)
		flags |= EXTKIT_FS_WRITE;
	return flags;
}

/*
 * First bad descriptor; returns its group or -1 when all are good. Each
 * place is judged against the ownership map (owners.c): inside what its
 * group may use, and overlapping no other claim of any group.
 */
static int64_t check_descs(struct extkit_fs *fs, const char **why)
{
	static char buf[160];
	int64_t bad = fsck_descs_bad(fs, buf, sizeof(buf));

	*why = buf;
	return bad;
}

/* Opens the superblock at sb_block (trying every block size when bs is
 * 0) with usable descriptors. */
static int try_open(struct fsck_ctx *ctx, uint64_t sb_block, uint32_t bs,
		    struct extkit_fs **out, const char **why)
{
	uint32_t sizes[] = { 1024, 2048, 4096, 8192, 16384, 32768, 65536 };
	const char *gwhy;
	int rc = -EXTKIT_ENOTEXT;

	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (bs && sizes[i] != bs)
			continue;
		if ((uint64_t)sb_block * sizes[i] + 1024 > ctx->io->size)
			continue;
		rc = extkit_fs_open_io(ctx->io, fs_flags(ctx), sb_block,
				       sizes[i], out, why);
		if (rc)
			continue;
		if ((*out)->g.block_size == sizes[i] &&
		    check_descs(*out, &gwhy) < 0)
			return 0;
		extkit_fs_close(*out);
		*out = NULL;
		rc = -EFSCORRUPTED;
	}
	return rc;
}

/*
 * The geometry of a primary superblock that is unusable (a bad field
 * elsewhere: s_desc_size, say) but still has its magic, block size and
 * s_blocks_per_group in range: where the backups of a filesystem made
 * with -g lie (e2fsck's get_backup_sb reads them from the primary it
 * loaded despite errors).
 */
static int primary_geometry(struct fsck_ctx *ctx, uint32_t *bs,
			    uint64_t *bpg, uint64_t *fdb)
{
	struct ext2_super_block disk;
	struct extkit_super sb;

	if (fsck_read_raw_primary(ctx, &disk, &sb))
		return 0;
	if (sb.magic != EXT2_SUPER_MAGIC || sb.log_block_size > 6)
		return 0;
	*bs = EXT2_MIN_BLOCK_SIZE << sb.log_block_size;
	*bpg = sb.blocks_per_group;
	/* s_first_data_block may be the garbage that made the primary
	 * unusable: the one its block size gives (bigalloc's 1 KiB
	 * blocks, which start at 0, are tried too) */
	*fdb = *bs == 1024;
	return *bpg >= 8 && *bpg % 8 == 0 && *bpg <= 8ull * *bs;
}

/* The backups in groups 1, 3, 5, 7 and 9 of the geometry of an unusable
 * primary that says its groups are not the usual size. */
static int find_backup_by_primary(struct fsck_ctx *ctx,
				  struct extkit_fs **out, uint64_t *where)
{
	uint64_t bpg, fdb;
	const char *why;
	uint32_t bs;

	if (!primary_geometry(ctx, &bs, &bpg, &fdb) || bpg == 8ull * bs)
		return -EXTKIT_ENOTEXT;
	for (unsigned int k = 0; k < sizeof(backup_groups) /
					 sizeof(backup_groups[0]); k++) {
		uint64_t blk = fdb + backup_groups[k] * bpg;

		if (try_open(ctx, blk, bs, out, &why) == 0 ||
		    (fdb && try_open(ctx, --blk, bs, out, &why) == 0)) {
			*where = blk;
			return 0;
		}
	}
	return -EXTKIT_ENOTEXT;
}

static int find_backup_sizes(struct fsck_ctx *ctx, struct extkit_fs **out,
			     uint64_t *where);

/* Looks for a usable backup superblock; 0 and *out, or an error. The
 * io's block size, which each candidate opened sets, is kept when none
 * is usable (the primary's handle reads through it). */
static int find_backup(struct fsck_ctx *ctx, struct extkit_fs **out,
		       uint64_t *where)
{
	uint32_t bs = ctx->io->block_size;
	int rc = find_backup_sizes(ctx, out, where);

	if (rc)
		ctx->io->block_size = bs;
	return rc;
}

static int find_backup_sizes(struct fsck_ctx *ctx, struct extkit_fs **out,
			     uint64_t *where)
{
	uint32_t sizes[] = { 1024, 2048, 4096, 8192, 16384, 32768, 65536 };
	const char *why;

	/* A readable primary (its descriptors are what is bad) gives the
	 * geometry: the backups of a filesystem made with -g lie where it
	 * says, not at 8 blocks per byte of block (e2fsck's get_backup_sb
	 * also asks the primary first, for its first backup). */
	if (ctx->fs) {
		const struct extkit_super *sb = &ctx->fs->sb;
		uint32_t n = ctx->fs->g.group_count;
		uint32_t g = extkit_super_next_backup(sb, 0, n);
		uint64_t blk = sb->first_data_block +
			       (uint64_t)g * sb->blocks_per_group;

		if (g < n && try_open(ctx, blk, ctx->fs->g.block_size, out,
				      &why) == 0) {
			*where = blk;
			return 0;
		}
	} else if (find_backup_by_primary(ctx, out, where) == 0) {
		return 0;
	}
	for (unsigned int k = 0; k < sizeof(backup_groups) /
					 sizeof(backup_groups[0]); k++) {
		for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]);
		     i++) {
			uint64_t bpg = 8ull * sizes[i];
			uint64_t blk = backup_groups[k] * bpg +
				       (sizes[i] == 1024);

			if (try_open(ctx, blk, sizes[i], out, &why) == 0) {
				*where = blk;
				return 0;
			}
		}
	}
	return -EXTKIT_ENOTEXT;
}

static int open_primary(struct fsck_ctx *ctx);

/*
 * No superblock at all (PR_0_NO_SUPER): on stderr, what was tried and
 * what -b would do, as e2fsck explains it.
 */
static void report_no_super(struct fsck_ctx *ctx, const char *why)
{
	char what[160];

	/* libblkid names what is there instead (swap, another filesystem,
	 * a partition table): no backup superblock will help then */
	if (extkit_image_describe(ctx->opts->image, &ctx->opts->loc, what,
				  sizeof(what))) {
		cli_error("%s: %s, not ext2/ext3/ext4", ctx->opts->target,
			  what);
		ctx->flags |= FSCK_FL_ABORT;
		return;
	}
	cli_error("%s: no usable superblock: the primary (at byte 1024) is "
		  "unusable (%s), and no backup was found in groups 1, 3, 5, "
		  "7 or 9 for any block size from 1 KiB to 64 KiB",
		  ctx->opts->target, why);
	cli_error("%s: if it holds an ext2/ext3/ext4 filesystem, check it "
		  "from a backup superblock with -b BLOCK -B BLOCKSIZE (for "
		  "group 1: -b 8193 -B 1024, -b 32768 -B 4096; "
		  "'mke2fs -n' with the options it was made with lists them "
		  "all)", ctx->opts->target);
	ctx->flags |= FSCK_FL_ABORT;
}

/*
 * -p never takes a backup superblock (nor rebuilds the primary): as
 * e2fsck, whose preen does not open one that fails its checks or its
 * checksum, the run ends with an operational error (exit 8) and a person
 * runs the check without -p.
 */
static int preen_refuse_primary(struct fsck_ctx *ctx, const char *why)
{
	cli_error("%s: the primary superblock is unusable (%s); -p does "
		  "not use a backup superblock: run extkit-fsck without -p "
		  "or -a", ctx->opts->target, why);
	ctx->flags |= FSCK_FL_ABORT;
	return -EFSCORRUPTED;
}

/* Checks from the backup fs found at blk from now on (the primary is
 * replaced at the end of the run); -EFSCORRUPTED when declined. */
static int adopt_backup(struct fsck_ctx *ctx, uint32_t code, const char *why,
			struct extkit_fs *fs, uint64_t blk)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.str = why;
	pctx.blk = blk;
	if (!fix_problem(ctx, code, &pctx) && !ctx->readonly) {
		extkit_fs_close(fs);
		return -EFSCORRUPTED;
	}
	if (ctx->fs)
		extkit_fs_close(ctx->fs);
	ctx->fs = fs;
	ctx->flags |= FSCK_FL_BACKUP_SB | FSCK_FL_SB_DIRTY;
	/* The backups' descriptors are copies from mkfs time: the free
	 * counts are stale and pass 5 recounts them; their lazy-init
	 * marks are too (groups used since), so they are dropped, as
	 * libext2fs does when it opens a backup. */
	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		fs->groups[g].flags &= (uint16_t)~(EXT4_BG_BLOCK_UNINIT |
						   EXT4_BG_INODE_UNINIT);
		fs->groups[g].itable_unused = 0;
	}
	return 0;
}

/* Whether backup descriptors name every place the primary's do. */
/*
 * Whether the backup's superblock lays the groups out as the primary's:
 * the fields and features that say where group metadata may lie (not
 * the bits the kernel sets in the primary only). When they differ,
 * the same places that are wrong under the primary's fields are right
 * under the backup's: the primary's superblock is what is bad.
 */
static int same_layout(const struct extkit_super *a,
		       const struct extkit_super *b)
{
	return a->reserved_gdt_blocks == b->reserved_gdt_blocks &&
	       a->first_data_block == b->first_data_block &&
	       a->blocks_per_group == b->blocks_per_group &&
	       a->inodes_per_group == b->inodes_per_group &&
	       a->inode_size == b->inode_size &&
	       a->desc_size == b->desc_size &&
	       a->log_groups_per_flex == b->log_groups_per_flex &&
	       a->first_meta_bg == b->first_meta_bg &&
	       !((a->feature_compat ^ b->feature_compat) &
		 (EXT2_FEATURE_COMPAT_RESIZE_INODE |
		  EXT4_FEATURE_COMPAT_SPARSE_SUPER2)) &&
	       !((a->feature_incompat ^ b->feature_incompat) &
		 (EXT2_FEATURE_INCOMPAT_META_BG | EXT4_FEATURE_INCOMPAT_64BIT |
		  EXT4_FEATURE_INCOMPAT_FLEX_BG)) &&
	       !((a->feature_ro_compat ^ b->feature_ro_compat) &
		 EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER);
}

static int same_places(const struct extkit_fs *fs,
		       const struct extkit_fs *bfs)
{
	if (bfs->g.group_count != fs->g.group_count ||
	    !same_layout(&fs->sb, &bfs->sb))
		return 0;
	for (uint32_t g = 0; g < fs->g.group_count; g++)
		for (int k = 0; k < FSCK_PLACES; k++)
			if (fsck_place_at(fs, g, k) != fsck_place_at(bfs, g, k))
				return 0;
	return 1;
}

/*
 * A primary superblock whose layout fields e2fsck's superblock checks
 * refuse outright (more reserved GDT blocks than the resize inode can
 * map): the places its descriptors name are not wrong, the layout it
 * predicts is. Without a backup nothing is relocated by it (that lost
 * every file); the check stops as e2fsck does, writing nothing.
 */
static int primary_refused(struct fsck_ctx *ctx)
{
	static char buf[160];
	const struct extkit_fs *fs = ctx->fs;

	if (fs->sb.reserved_gdt_blocks <= fs->g.addr_per_block)
		return 0;
	snprintf(buf, sizeof(buf), "s_reserved_gdt_blocks %u is more than "
		 "the %" PRIu32 " a resize inode can map",
		 (unsigned int)fs->sb.reserved_gdt_blocks,
		 fs->g.addr_per_block);
	report_no_super(ctx, buf);
	return 1;
}

static int use_backup(struct fsck_ctx *ctx, uint32_t code, const char *why,
		      int64_t group)
{
	struct extkit_fs *fs = NULL;
	uint64_t blk = 0;

	if (code == PR_0_USE_BACKUP_SB &&
	    ctx->opts->mode == FSCK_MODE_PREEN)
		return preen_refuse_primary(ctx, why);
	if (group >= 0 && !find_backup(ctx, &fs, &blk) &&
	    same_places(ctx->fs, fs)) {
		/* a backup naming the very places found wrong (meta_bg
		 * writes each descriptor block to its backups too) */
		extkit_fs_close(fs);
		fs = NULL;
		ctx->io->block_size = ctx->fs->g.block_size;
		return fsck_check_group_places(ctx);
	}
	if (!fs && find_backup(ctx, &fs, &blk)) {
		/* Descriptors without a backup: predict or relocate the
		 * places they got wrong (relocate.c), unless the primary
		 * superblock is what is wrong (no layout to predict). */
		if (group >= 0 && primary_refused(ctx))
			return -EFSCORRUPTED;
		if (group >= 0)
			return fsck_check_group_places(ctx);
		/* No backup, but the fields left may do: inode counts
		 * from the inode bitmap, the block count from the image,
		 * the rest of a one-group superblock from its layout;
		 * written once, then opened again. */
		if (fsck_rebuild_super(ctx, why) == 0)
			return open_primary(ctx);
		report_no_super(ctx, why);
		return -EFSCORRUPTED;
	}
	return adopt_backup(ctx, code, why, fs, blk);
}

/*
 * A primary that opens but fails its checksum is not believed when a
 * backup is usable (as e2fsck, whose ext2fs_open refuses it and which
 * then tries the backups): 1 when a backup was taken, 0 to go on with
 * the primary (no backup: its checksum is fixed later), or an error.
 */
static int backup_for_bad_csum(struct fsck_ctx *ctx)
{
	const char *why = "the superblock checksum does not match the "
			  "superblock";
	struct extkit_fs *fs = NULL;
	uint64_t blk = 0;
	int rc;

	if (extkit_fs_super_csum_ok(ctx->fs))
		return 0;
	if (ctx->opts->mode == FSCK_MODE_PREEN) {
		extkit_fs_close(ctx->fs);
		ctx->fs = NULL;
		return preen_refuse_primary(ctx, why);
	}
	if (find_backup(ctx, &fs, &blk))
		return 0;
	rc = adopt_backup(ctx, PR_0_USE_BACKUP_SB, why, fs, blk);
	return rc ? rc : 1;
}

/*
 * A primary refused as unsupported (-EXTKIT_EUNSUPP) that is corrupt
 * rather than newer: its checksum does not match (metadata_csum), or its
 * revision level is one no ext2/ext3/ext4 has. Such a superblock is
 * unusable like any other, and the backups are tried; *why says why.
 */
static int primary_corrupt(struct fsck_ctx *ctx, const char **why)
{
	struct ext2_super_block raw;
	struct extkit_super sb;

	if (fsck_read_raw_primary(ctx, &raw, &sb))
		return 0;
	if ((sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    sb.checksum != extkit_super_csum(&raw)) {
		*why = "the superblock checksum does not match the superblock";
		return 1;
	}
	if (sb.rev_level > EXT2_DYNAMIC_REV) {
		*why = "its revision level is not 0 or 1";
		return 1;
	}
	return 0;
}

static int open_explicit(struct fsck_ctx *ctx)
{
	const char *why = NULL;
	struct extkit_fs *fs = NULL;
	int rc;

	rc = try_open(ctx, ctx->opts->sb_block, ctx->opts->block_size, &fs,
		      &why);
	if (rc) {
		cli_error("%s: no usable superblock at block %" PRIu64 "%s%s",
			  ctx->opts->target, ctx->opts->sb_block,
			  why ? ": " : "", why ? why : "");
		return rc;
	}
	ctx->fs = fs;
	ctx->flags |= FSCK_FL_BACKUP_SB | FSCK_FL_SB_DIRTY;
	return 0;
}

/*
 * As e2fsck: once a superblock is read, messages name the filesystem by
 * its label if it has one (a copy: the superblock may be read again).
 */
void fsck_name_by_label(struct fsck_ctx *ctx)
{
	if (!ctx->fs || !ctx->fs->sb.volume_name[0])
		return;
	snprintf(ctx->label, sizeof(ctx->label), "%s",
		 ctx->fs->sb.volume_name);
	ctx->device = ctx->label;
}

/*
 * Descriptors whose places all fit can still be garbage: a group's inode
 * table field pointed at file data, say, where pass 1 would clear every
 * "inode" it reads there and write them over the file. When the backup
 * descriptors name another place for a group's table, and that place
 * reads as inodes while the primary's does not, the primary is garbled
 * (only tables that differ from the backup's are read). With no backup,
 * mkfs' places stand in for the backup's (relocate.c). *why says which.
 */
static int tables_garbled(struct fsck_ctx *ctx, const char **why)
{
	static char buf[160];
	struct extkit_fs *fs = ctx->fs, *bfs = NULL;
	uint64_t blk = 0;
	int yes = 0;

	if (fs->g.group_count < 2 || find_backup(ctx, &bfs, &blk))
		return fsck_tables_garbled(ctx, why);
	if (same_places(fs, bfs)) {
		/* a backup that is a copy of the primary (meta_bg) */
		extkit_fs_close(bfs);
		ctx->io->block_size = fs->g.block_size;
		return fsck_tables_garbled(ctx, why);
	}
	/* the backup's block size is the primary's (the geometry the
	 * primary gives is tried first), but the io keeps the primary's */
	ctx->io->block_size = fs->g.block_size;
	for (uint32_t g = 0; g < fs->g.group_count && !yes &&
			     bfs->g.block_size == fs->g.block_size; g++) {
		uint64_t at = fs->groups[g].inode_table;
		uint64_t bat = g < bfs->g.group_count ?
			       bfs->groups[g].inode_table : at;

		if (at == bat || fsck_looks_like_itable(ctx, at) ||
		    !fsck_looks_like_itable(ctx, bat))
			continue;
		snprintf(buf, sizeof(buf), "group %" PRIu32 "'s inode table "
			 "(block %" PRIu64 ") holds no inodes; the backup "
			 "descriptors' place for it (block %" PRIu64 ") does",
			 g, at, bat);
		*why = buf;
		yes = 1;
	}
	extkit_fs_close(bfs);
	return yes;
}

/* Opens the primary superblock, falling back to a backup. */
static int open_primary(struct fsck_ctx *ctx)
{
	const char *why = NULL;
	int64_t bad;
	int rc;

	rc = extkit_fs_open_io(ctx->io, fs_flags(ctx), 0, 0, &ctx->fs, &why);
	if (!rc)
		fsck_name_by_label(ctx);
	if (!rc) {
		rc = backup_for_bad_csum(ctx);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	if (rc == -EXTKIT_EUNSUPP && primary_corrupt(ctx, &why))
		rc = -EFSCORRUPTED;
	if (!rc && fsck_refuse_unknown_features(ctx, &ctx->fs->sb, 0))
		return -EXTKIT_EUNSUPP;	/* before the MMP block is written */
	if (!rc && extkit_has_incompat(&ctx->fs->sb,
				       EXT4_FEATURE_INCOMPAT_MMP)) {
		rc = fsck_start_mmp(ctx);
		if (rc)
			return rc;
	}
	if (rc == -EXTKIT_EUNSUPP) {
		cli_error("%s: %s", ctx->opts->target,
			  why ? why : extkit_strerror(rc));
		return rc;
	}
	if (rc) {
		ctx->fs = NULL;
		return use_backup(ctx, PR_0_USE_BACKUP_SB,
				  why ? why : extkit_strerror(rc), -1);
	}
	bad = check_descs(ctx->fs, &why);
	if (bad == -2) {
		cli_error("%s: %s", ctx->opts->target, why);
		return -ENOMEM;
	}
	if (bad < 0 && fsck_first_table_garbled(ctx)) {
		why = "group 0's inode table holds no root directory, "
		      "mkfs' place for it does";
		bad = 0;
	}
	if (bad < 0 && tables_garbled(ctx, &why))
		bad = 0;
	return bad >= 0 ? use_backup(ctx, PR_0_USE_BACKUP_GDT, why, bad) : 0;
}

int fsck_reopen(struct fsck_ctx *ctx)
{
	unsigned int keep = ctx->flags & FSCK_FL_BACKUP_SB;

	extkit_fs_close(ctx->fs);
	ctx->fs = NULL;
	ctx->flags &= ~(unsigned int)FSCK_FL_BACKUP_SB;
	if (keep && ctx->opts->sb_block)
		return open_explicit(ctx);
	return open_primary(ctx);
}

int fsck_open_super(struct fsck_ctx *ctx)
{
	return ctx->opts->sb_block ? open_explicit(ctx) : open_primary(ctx);
}
