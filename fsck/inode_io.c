// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An inode's reads and writes for the passes: the write that -n skips
 * (and names the inode on a failure), and the raw read that takes pass
 * 1's copy of the inode table chunk while it is current.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "error.h"
#include "inode.h"
#include "io.h"
#include "cli/msg.h"

#include "fsck.h"

int fsck_write_inode(struct fsck_ctx *ctx, uint32_t ino,
		     const struct extkit_inode *inode)
{
	int rc;

	if (ctx->readonly)
		return 0;
	rc = extkit_inode_write(ctx->fs, ino, inode);
	if (rc)
		cli_error("writing inode %" PRIu32 ": %s", ino,
			  extkit_strerror(rc));
	return rc;
}

const uint8_t *fsck_inode_raw_cached(const struct fsck_ctx *ctx,
				     uint32_t ino)
{
	if (ctx->p1.raw && ctx->p1.ino == ino &&
	    extkit_io_writes(ctx->io) == ctx->p1.raw_writes)
		return ctx->p1.raw;
	return NULL;
}

int fsck_inode_read_raw(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw)
{
	const uint8_t *cached = fsck_inode_raw_cached(ctx, ino);

	if (cached) {
		memcpy(raw, cached, ctx->fs->g.inode_size);
		return 0;
	}
	return extkit_inode_read_raw(ctx->fs, ino, raw);
}
