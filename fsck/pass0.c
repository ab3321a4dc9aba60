// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 0: the opening sequence and the superblock's sanity, before
 * anything else.
 *
 * fsck_open(): the image (or the part --offset, --partition or @N names),
 * through an undo log with -z (undo.c); the superblock, the primary or a
 * backup (open.c, which also checks the descriptors' places and takes
 * MMP); the journal replayed (journal.c); unknown features refused at
 * each step (features.c). Then the superblock's fields the passes rely
 * on: the checksums of the superblock and the descriptors, reserved
 * blocks, the flex group size, hash signedness (more in super_check.c,
 * the lazy-init marks in group_flags.c); the orphan inode list and the
 * orphan file the kernel left are released (orphan.c, orphan_file.c),
 * before the clean check, which asks fsck_free_counts_possible() first.
 *
 * Produces: ctx->fs and ctx->io open (read-write unless -n). Frees
 * nothing; fsck.c closes both.
 */
#include "config.h"

#include "error.h"
#include "fs.h"
#include "io.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "fsck.h"
#include "problem.h"

/*
 * A free count larger than its total cannot be right: the fix takes the
 * sum of the group descriptors' counts, as the kernel does at mount.
 * Returns whether the count was too large.
 */
static int check_free_count(struct fsck_ctx *ctx, const char *what,
			    uint64_t *count, uint64_t total, uint64_t groups)
{
	struct problem_context pctx;

	if (*count <= total)
		return 0;
	clear_problem_context(&pctx);
	pctx.str = what;
	pctx.num = *count;
	pctx.num2 = total;
	if (fix_problem(ctx, PR_0_FREE_COUNTS_BIG, &pctx)) {
		*count = groups < total ? groups : total;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
	return 1;
}

/*
 * Asked before a filesystem marked clean is skipped: a free count larger
 * than its total means it is not (e2fsck forces the check then). A full
 * check needs no such report: pass 5 recounts both.
 */
int fsck_free_counts_possible(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_super *sb = &fs->sb;
	uint64_t blocks = 0, inodes = 0, free_inodes = sb->free_inodes_count;
	int bad;

	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		blocks += (uint64_t)fs->groups[g].free_blocks <<
			  fs->g.cluster_bits;
		inodes += fs->groups[g].free_inodes;
	}
	bad = check_free_count(ctx, "blocks", &sb->free_blocks_count,
			       sb->blocks_count, blocks);
	bad |= check_free_count(ctx, "inodes", &free_inodes, sb->inodes_count,
				inodes);
	sb->free_inodes_count = (uint32_t)free_inodes;
	return !bad;
}

/*
 * The checksums of the superblock and the descriptors as read; a fix is
 * the rewrite of both (extkit_fs_write_super sets every checksum).
 */
static void check_csums(struct fsck_ctx *ctx)
{
	struct problem_context pctx;
	uint16_t want;

	clear_problem_context(&pctx);
	if (!extkit_fs_super_csum_ok(ctx->fs) &&
	    fix_problem(ctx, PR_0_SB_CSUM, &pctx))
		ctx->flags |= FSCK_FL_SB_DIRTY;
	for (uint32_t g = 0; g < ctx->fs->g.group_count; g++) {
		if (extkit_fs_group_csum_ok(ctx->fs, g, &want))
			continue;
		pctx.group = g;
		pctx.num = ctx->fs->groups[g].checksum;
		pctx.num2 = want;
		if (!fix_problem(ctx, PR_0_GD_CSUM, &pctx))
			continue;
		/* as e2fsck: a descriptor that fails its checksum is not
		 * trusted to say what was never initialized (its lazy-init
		 * marks could hide inodes and blocks in use) */
		ctx->fs->groups[g].flags &= (uint16_t)~(EXT4_BG_BLOCK_UNINIT |
							EXT4_BG_INODE_UNINIT);
		ctx->fs->groups[g].itable_unused = 0;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

/* Superblock fields the passes rely on. */
static void check_super_fields(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	clear_problem_context(&pctx);
	check_csums(ctx);
	fsck_check_super_more(ctx);
	fsck_check_group_flags(ctx);
	if (sb->r_blocks_count > sb->blocks_count) {
		pctx.num = sb->r_blocks_count;
		pctx.num2 = sb->blocks_count;
		if (fix_problem(ctx, PR_0_R_BLOCKS, &pctx)) {
			sb->r_blocks_count = sb->blocks_count / 20;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		}
	}
	fsck_release_orphans(ctx);
	fsck_orphan_file_release(ctx);
	/* e2fsprogs refuses to open a filesystem with a flex group size
	 * past 2^31; it only steers allocation, so mke2fs' 16 will do. */
	if (sb->log_groups_per_flex > 31) {
		pctx.num = sb->log_groups_per_flex;
		if (fix_problem(ctx, PR_0_FLEX_SIZE, &pctx)) {
			sb->log_groups_per_flex =
				extkit_has_incompat(sb,
					EXT4_FEATURE_INCOMPAT_FLEX_BG) ? 4 : 0;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		}
	}
	/* A missing hash signedness flag is set (as e2fsck and the kernel
	 * do) to this machine's char; with -n it is not even reported. */
	if (extkit_has_compat(sb, EXT2_FEATURE_COMPAT_DIR_INDEX) &&
	    !(sb->flags & (EXT2_FLAGS_SIGNED_HASH |
			   EXT2_FLAGS_UNSIGNED_HASH)) && !ctx->readonly &&
	    fix_problem(ctx, PR_0_HASH_FLAGS, &pctx)) {
		sb->flags |= ((char)-1 < 0) ? EXT2_FLAGS_SIGNED_HASH :
					      EXT2_FLAGS_UNSIGNED_HASH;
		/* a hint added, no error fixed: e2fsck exits 0 */
		ctx->flags |= FSCK_FL_SB_DIRTY | FSCK_FL_RECOVERED;
	}
	fsck_journal_backup(ctx);
}

int fsck_open(struct fsck_ctx *ctx)
{
	char why[256];
	int rc;

	/* the whole image, or the part --offset, --partition or @N names */
	rc = extkit_io_open_image(ctx->opts->image, ctx->readonly ? 0 :
				  EXTKIT_IO_WRITE, &ctx->opts->loc, &ctx->io,
				  why, sizeof(why));
	if (rc && why[0])
		cli_error("%s: %s", ctx->opts->target, why);
	else if (rc)
		cli_error_rc(ctx->opts->target, rc);
	if (rc)
		return rc;
	if (ctx->opts->undo_file) {
		rc = fsck_open_undo(ctx);
		if (rc)
			return rc;
	}
	/* Inode tables and directories come in large reads; without the
	 * window (no memory) the reads are only smaller. */
	extkit_io_set_readahead(ctx->io, FSCK_READAHEAD_BYTES);
	if (!ctx->opts->sb_block && fsck_refuse_unknown_raw(ctx))
		return -EXTKIT_EUNSUPP;
	rc = fsck_open_super(ctx);
	if (rc)
		return rc;
	/* a backup's, or the one -b names */
	if (fsck_refuse_unknown_features(ctx, &ctx->fs->sb, 0))
		return -EXTKIT_EUNSUPP;
	fsck_name_by_label(ctx);	/* a backup's */
	rc = fsck_journal(ctx);
	if (rc)
		return rc;
	/* the replayed superblock's, whichever the bits */
	if (fsck_refuse_unknown_features(ctx, &ctx->fs->sb, 1))
		return -EXTKIT_EUNSUPP;
	fsck_name_by_label(ctx);	/* the replayed one's */
	check_super_fields(ctx);
	return ctx->flags & FSCK_FL_ABORT ? -EFSCORRUPTED : 0;
}
