// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inline_data for pass 1 (e2fsck's inline data tests in its pass 1
 * loop): an inode with the inline data flag needs the feature and a
 * system.data attribute in the inode. Without the feature the feature is
 * turned on when the inode holds inline data, else the inode is cleared;
 * without the attribute the inode is truncated to nothing inline.
 * check_sizes (pass1.c) holds an inline directory's i_size to what the
 * inode holds; a file's i_size is not bounded (as e2fsck).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "inline.h"
#include "inode.h"
#include "ondisk.h"

#include "fsck.h"
#include "pass1.h"
#include "problem.h"

/* 0 and *in set when raw inode ino has a valid system.data. */
static int locate(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw,
		  struct extkit_inline *in)
{
	int rc = extkit_inode_read_raw(ctx->fs, ino, raw);

	return rc ? rc : extkit_inline_locate(ctx->fs, raw, in);
}

uint64_t fsck_inline_dir_size(struct fsck_ctx *ctx, uint32_t ino)
{
	uint8_t *raw = malloc(ctx->fs->g.inode_size);
	struct extkit_inline in;
	uint64_t size = 0;

	if (raw && !locate(ctx, ino, raw, &in))
		size = extkit_inline_capacity(&in);
	free(raw);
	return size;
}

/*
 * Both the inline data and the extents flags (e2fsck's
 * fix_inline_data_extents_file): an extent header in i_block keeps the
 * extents, a size that fits in the inode keeps the inline data, anything
 * else is cleared. 1 when the inode was cleared. Reserved inodes too
 * (check_reserved), as e2fsck checks every inode for it.
 */
int fsck_inline_both_flags(struct fsck_ctx *ctx, uint32_t ino,
			   struct extkit_inode *inode, int *dirty)
{
	uint32_t room = ctx->fs->g.inode_size - EXT2_INODE_CORE_SIZE -
			inode->extra_isize;

	if (ctx->fs->g.inode_size <= EXT2_INODE_CORE_SIZE)
		room = 0;
	if (!pass1_report(ctx, PR_1_INLINE_EXTENTS, ino, inode, 0))
		return 0;
	if ((inode->block[0] & 0xffff) == EXT4_EXT_MAGIC)
		inode->flags &= ~EXT4_INLINE_DATA_FL;
	else if (inode->size < EXTKIT_INLINE_IBLOCK + room)
		inode->flags &= ~EXT4_EXTENTS_FL;
	else {
		fsck_clear_inode(ctx, ino, inode);
		return 1;
	}
	*dirty = 1;
	return 0;
}

int fsck_inline_check(struct fsck_ctx *ctx, uint32_t ino,
		      struct extkit_inode *inode, int *dirty)
{
	struct extkit_super *sb = &ctx->fs->sb;
	const uint32_t feature = EXT4_FEATURE_INCOMPAT_INLINE_DATA;
	struct extkit_inline in;
	uint8_t *raw;
	int has;

	if (!(inode->flags & EXT4_INLINE_DATA_FL) || ino < ctx->fs->g.first_ino)
		return 0;
	if ((inode->flags & EXT4_EXTENTS_FL) &&
	    fsck_inline_both_flags(ctx, ino, inode, dirty))
		return 1;
	if (!(inode->flags & EXT4_INLINE_DATA_FL))
		return 0;
	raw = malloc(ctx->fs->g.inode_size);
	if (!raw)
		return 0;
	has = !locate(ctx, ino, raw, &in);
	free(raw);
	if (!extkit_has_incompat(sb, feature)) {
		if (has && pass1_report(ctx, PR_1_INLINE_NO_FEATURE, ino, inode,
					0)) {
			sb->feature_incompat |= feature;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		} else if (pass1_report(ctx, PR_1_INLINE_SET, ino, inode, 0)) {
			fsck_clear_inode(ctx, ino, inode);
			return 1;
		}
		return 0;
	}
	if (!has && pass1_report(ctx, PR_1_INLINE_NO_ATTR, ino, inode, 0)) {
		inode->size = 0;
		inode->flags &= ~EXT4_INLINE_DATA_FL;
		memset(inode->block, 0, sizeof(inode->block));
		*dirty = 1;
	}
	return 0;
}
