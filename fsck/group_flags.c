// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lazy-init marks of the group descriptors (uninit_bg/gdt_csum or
 * metadata_csum): bg_flags INODE_UNINIT and BLOCK_UNINIT say a group's
 * inode table or block bitmap was never written, and bg_itable_unused
 * counts the inodes at the end of a group's table never used. Pass 1
 * reads no inode there; a mark that lies hides inodes in use.
 *
 * Pass 0, as e2fsck's check_super_block: the marks without a checksum
 * feature mean nothing and are cleared; the last group's block bitmap
 * cannot be uninitialized (the group may be short, its padding bits
 * must be written); itable_unused cannot exceed the group's free inodes.
 * And s_reserved_gdt_blocks is zero without the resize_inode feature,
 * which meta_bg excludes. Any of these, or free or directory counts past
 * what the group holds, makes the filesystem not valid: checked even
 * without -f (FSCK_FL_NOT_VALID, fsck.c's check_due).
 *
 * Pass 2: an entry naming an inode hidden by a mark clears the mark, and
 * the check starts again from pass 1 after pass 2 (FSCK_FL_RESTART), as
 * e2fsck does; until then no entry is cleared for naming an unused
 * inode, since pass 1 may not have seen it.
 */
#include "config.h"

#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

static int have_csum_feature(const struct extkit_super *sb)
{
	return extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
				    EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
}

/* Returns found (one of the checks below); when set, the filesystem
 * is checked even without -f, fixed or not (e2fsck's
 * ext2fs_unmark_valid). */
static int not_valid(struct fsck_ctx *ctx, int found)
{
	if (found)
		ctx->flags |= FSCK_FL_NOT_VALID;
	return found;
}

static void check_group(struct fsck_ctx *ctx, uint32_t g, int csum)
{
	struct extkit_group *gd = &ctx->fs->groups[g];
	const struct extkit_super *sb = &ctx->fs->sb;
	const uint16_t uninit = EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT;
	struct problem_context pctx;

	/* counts past what the group holds: pass 5 recounts them */
	not_valid(ctx, gd->free_blocks > sb->clusters_per_group ||
		       gd->free_inodes > sb->inodes_per_group ||
		       gd->used_dirs > sb->inodes_per_group);
	clear_problem_context(&pctx);
	pctx.group = g;
	if (not_valid(ctx, !csum && ((gd->flags & uninit) ||
				     gd->itable_unused)) &&
	    fix_problem(ctx, PR_0_GDT_UNINIT, &pctx)) {
		gd->flags &= (uint16_t)~uninit;
		gd->itable_unused = 0;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
	if (not_valid(ctx, g == ctx->fs->g.group_count - 1 &&
			   (gd->flags & EXT4_BG_BLOCK_UNINIT)) &&
	    fix_problem(ctx, PR_0_BB_UNINIT_LAST, &pctx)) {
		gd->flags &= (uint16_t)~EXT4_BG_BLOCK_UNINIT;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
	pctx.num = gd->itable_unused;
	if (not_valid(ctx, csum && (gd->itable_unused > gd->free_inodes ||
				    gd->itable_unused > sb->inodes_per_group)) &&
	    fix_problem(ctx, PR_0_GDT_ITABLE_UNUSED, &pctx)) {
		gd->itable_unused = 0;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

void fsck_check_group_flags(struct fsck_ctx *ctx)
{
	int csum = have_csum_feature(&ctx->fs->sb);

	for (uint32_t g = 0; g < ctx->fs->g.group_count; g++)
		check_group(ctx, g, csum);
}

void fsck_check_resize_features(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	clear_problem_context(&pctx);
	/* meta_bg places descriptors where resize_inode would grow them:
	 * the two exclude each other (mke2fs drops resize_inode) */
	if (extkit_has_compat(sb, EXT2_FEATURE_COMPAT_RESIZE_INODE) &&
	    extkit_has_incompat(sb, EXT2_FEATURE_INCOMPAT_META_BG) &&
	    fix_problem(ctx, PR_0_RESIZE_INODE_META_BG, &pctx)) {
		sb->feature_compat &= ~EXT2_FEATURE_COMPAT_RESIZE_INODE;
		sb->reserved_gdt_blocks = 0;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
	pctx.num = sb->reserved_gdt_blocks;
	if (!extkit_has_compat(sb, EXT2_FEATURE_COMPAT_RESIZE_INODE) &&
	    sb->reserved_gdt_blocks &&
	    fix_problem(ctx, PR_0_NONZERO_RESERVED_GDT, &pctx)) {
		sb->reserved_gdt_blocks = 0;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

int fsck_uninit_ref(struct fsck_ctx *ctx, uint32_t ino,
		    struct problem_context *pctx)
{
	uint32_t ipg = ctx->fs->sb.inodes_per_group;
	uint32_t g = (ino - 1) / ipg, idx = (ino - 1) % ipg;
	struct extkit_group *gd = &ctx->fs->groups[g];
	uint32_t code;

	if (!have_csum_feature(&ctx->fs->sb))
		return !!(ctx->flags & FSCK_FL_RESTART);
	if (gd->flags & EXT4_BG_INODE_UNINIT)
		code = PR_2_INOREF_BG_INO_UNINIT;
	else if (idx >= ipg - (gd->itable_unused < ipg ? gd->itable_unused :
						     ipg))
		code = PR_2_INOREF_IN_UNUSED;
	else
		return !!(ctx->flags & FSCK_FL_RESTART);
	pctx->group = g;
	if (!fix_problem(ctx, code, pctx))
		return !!(ctx->flags & FSCK_FL_RESTART);
	if (code == PR_2_INOREF_BG_INO_UNINIT)
		gd->flags &= (uint16_t)~EXT4_BG_INODE_UNINIT;
	else
		gd->itable_unused = 0;
	ctx->flags |= FSCK_FL_SB_DIRTY | FSCK_FL_RESTART;
	return 1;
}
