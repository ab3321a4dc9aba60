// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A block copied to a new place for its owner (pass 1B's clones, pass
 * 1E's realignment): a directory's data block gets its checksum seeded
 * by the new owner with metadata_csum.
 */
#include "config.h"

#include <sys/stat.h>

#include "csum.h"
#include "dirblock.h"
#include "fs.h"
#include "inode.h"
#include "super.h"

#include "fsck.h"

int fsck_copy_block(struct fsck_ctx *ctx, uint64_t from, uint64_t to,
		    uint32_t ino, const struct extkit_inode *inode, int data)
{
	int rc = extkit_fs_read_block(ctx->fs, from, ctx->blkbuf);

	if (rc)
		return rc;
	/* a directory block's checksum is seeded by its owner: the new one
	 * (a block with no place for it is copied as it is) */
	if (data && S_ISDIR(inode->mode) &&
	    extkit_has_metadata_csum(&ctx->fs->sb))
		(void)extkit_dirblock_csum_set(ctx->fs, ino, inode->generation,
					       ctx->blkbuf);
	return extkit_fs_write_block(ctx->fs, to, ctx->blkbuf);
}
