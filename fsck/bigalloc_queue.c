// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1 on bigalloc: a block-mapped file (a block map cannot say which
 * blocks of a cluster a file holds: e2fsck's
 * PR_1_NO_BIGALLOC_BLOCKMAP_FILES) is reported and, when the fix is
 * taken, queued in ctx->to_extents for pass 1E (extents_rebuild.c),
 * which makes it an extent file once pass 1B has run.
 */
#include "config.h"

#include <sys/stat.h>

#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "super.h"

#include "fsck.h"
#include "problem.h"

/* i_blocks less the attribute block's cluster, in bytes (e2fsprogs'
 * ext2fs_inode_data_blocks2): an empty file (mke2fs -d's are extent
 * files, extkit-mkfs's and older tools' may be not) has nothing to map. */
static uint64_t data_bytes(const struct extkit_fs *fs,
			   const struct extkit_inode *inode)
{
	uint64_t b = extkit_inode_blocks_bytes(fs, inode);
	uint64_t ea = inode->file_acl ?
		      (uint64_t)fs->g.block_size << fs->g.cluster_bits : 0;

	return b > ea ? b - ea : 0;
}

int fsck_queue_to_extents(struct fsck_ctx *ctx, uint32_t ino,
			  const struct extkit_inode *inode)
{
	struct problem_context pctx;
	int rc;

	if (!extkit_has_ro_compat(&ctx->fs->sb,
				  EXT4_FEATURE_RO_COMPAT_BIGALLOC) ||
	    (inode->flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) ||
	    !extkit_inode_has_block_map(inode) ||
	    (!S_ISREG(inode->mode) && !S_ISDIR(inode->mode) &&
	     !S_ISLNK(inode->mode)) ||
	    (ino != EXT2_ROOT_INO && ino < ctx->fs->g.first_ino) ||
	    !data_bytes(ctx->fs, inode))
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	if (!fix_problem(ctx, PR_1_BIGALLOC_BLOCKMAP, &pctx) || ctx->readonly)
		return 0;
	rc = fsck_alloc_push(&ctx->to_extents, ino);
	return rc ? rc : 1;
}
