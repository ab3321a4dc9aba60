// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 0: the lazy-initialisation fields of each group descriptor.
 * bg_flags' INODE_UNINIT and BLOCK_UNINIT and bg_itable_unused mean
 * something only when the descriptors carry a checksum (gdt_csum or
 * metadata_csum); pass 1 trusts INODE_UNINIT to skip a group's inodes,
 * so a flag left in garbage would hide every file of the group. As
 * e2fsck does, a group whose descriptor fails its checksum loses the
 * flags too (after PR_0_GD_CSUM), so its inodes are all read.
 */
#include "config.h"

#include "csum.h"
#include "group.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

#define UNINIT_FLAGS (EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT)

/* Without descriptor checksums: no uninit flag, no itable_unused. */
static int check_no_csum(struct fsck_ctx *ctx, struct extkit_group *gd,
			 struct problem_context *pctx)
{
	if (!(gd->flags & UNINIT_FLAGS) && !gd->itable_unused)
		return 0;
	if (!fix_problem(ctx, PR_0_GDT_UNINIT, pctx))
		return 0;
	gd->flags &= (uint16_t)~UNINIT_FLAGS;
	gd->itable_unused = 0;
	return 1;
}

/* The last group's bitmap always holds the end-of-filesystem padding
 * bits, so it is never left uninitialised (s_blocks_count). */
static int check_last(struct fsck_ctx *ctx, struct extkit_group *gd,
		      struct problem_context *pctx)
{
	if (pctx->group != ctx->fs->g.group_count - 1 ||
	    !(gd->flags & EXT4_BG_BLOCK_UNINIT))
		return 0;
	if (!fix_problem(ctx, PR_0_BB_UNINIT_LAST, pctx))
		return 0;
	gd->flags &= (uint16_t)~EXT4_BG_BLOCK_UNINIT;
	return 1;
}

/* bg_itable_unused counts never-used inodes at the table's end: no more
 * than the group's free inodes. */
static int check_itable_unused(struct fsck_ctx *ctx, struct extkit_group *gd,
			       struct problem_context *pctx)
{
	if (gd->itable_unused <= gd->free_inodes &&
	    gd->itable_unused <= ctx->fs->sb.inodes_per_group)
		return 0;
	pctx->num = gd->itable_unused;
	if (!fix_problem(ctx, PR_0_GDT_ITABLE_UNUSED, pctx))
		return 0;
	gd->itable_unused = 0;
	return 1;
}

void fsck_check_group_flags(struct fsck_ctx *ctx)
{
	int csum = extkit_has_group_csum(&ctx->fs->sb);
	struct problem_context pctx;

	clear_problem_context(&pctx);
	for (uint32_t g = 0; g < ctx->fs->g.group_count; g++) {
		struct extkit_group *gd = &ctx->fs->groups[g];
		int fixed;

		pctx.group = g;
		fixed = csum ? 0 : check_no_csum(ctx, gd, &pctx);
		fixed |= check_last(ctx, gd, &pctx);
		if (csum)
			fixed |= check_itable_unused(ctx, gd, &pctx);
		if (fixed)
			ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

void fsck_group_csum_fixed(struct fsck_ctx *ctx, uint32_t g)
{
	struct extkit_group *gd = &ctx->fs->groups[g];

	gd->flags &= (uint16_t)~UNINIT_FLAGS;
	gd->itable_unused = 0;
}
