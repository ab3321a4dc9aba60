// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a check does about one inode: a pass 1 problem reported with the
 * inode in its context, and the inode cleared (as e2fsck_clear_inode).
 * Used by pass 1 and its checks (encrypt.c, inline.c, xattr.c,
 * pass1_types.c) and by pass 1B.
 */
#include "config.h"

#include <string.h>

#include "inode.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

void fsck_clear_inode(struct fsck_ctx *ctx, uint32_t ino,
		      struct extkit_inode *inode)
{
	/* A reserved inode other than the root holds nothing once cleared:
	 * zeroed whole (its size too, which the next run would find). */
	if (ino < ctx->fs->g.first_ino && ino != EXT2_ROOT_INO)
		memset(inode, 0, sizeof(*inode));
	inode->links_count = 0;
	inode->dtime = ctx->now;
	/* As e2fsck_clear_inode: no flags left to make the inode look
	 * alive (an extent flag over garbage, say: e2fsck calls a table
	 * block of such inodes garbage); a reserved inode, whose links
	 * nobody checks, loses its block map too. */
	inode->flags = 0;
	if (ino < ctx->fs->g.first_ino)
		memset(inode->block, 0, sizeof(inode->block));
	fsck_write_inode(ctx, ino, inode);
	fsck_istate_clear(&ctx->istate, ino);
	fsck_count_set(&ctx->link_count, ino, 0);
}

int pass1_report(struct fsck_ctx *ctx, uint32_t code, uint32_t ino,
		 struct extkit_inode *inode, uint64_t num)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.inode = inode;
	pctx.num = num;
	pctx.blk = inode->file_acl;
	return fix_problem(ctx, code, &pctx);
}
