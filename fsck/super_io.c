// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The superblock's writes for the passes (with the descriptors and
 * backups, or the primary alone), and the primary's raw read and write
 * before the filesystem is open (the feature check, the rebuild of a
 * primary that does not validate).
 */
#include "config.h"

#include "csum.h"
#include "fs.h"
#include "io.h"
#include "ondisk.h"
#include "super.h"
#include "cli/msg.h"

#include "fsck.h"

int fsck_write_super(struct fsck_ctx *ctx, int all)
{
	int rc = all ? extkit_fs_write_super(ctx->fs) :
		       extkit_fs_write_primary_super(ctx->fs);

	if (!rc)
		rc = extkit_io_flush(ctx->io);
	if (rc)
		cli_error_rc("writing the superblock", rc);
	return rc;
}

int fsck_read_raw_primary(struct fsck_ctx *ctx, struct ext2_super_block *raw,
			  struct extkit_super *sb)
{
	int rc = extkit_io_read_bytes(ctx->io, EXT2_SUPERBLOCK_OFFSET, raw,
				      sizeof(*raw));

	if (!rc)
		extkit_super_decode(raw, sb);
	return rc;
}

int fsck_write_raw_primary(struct fsck_ctx *ctx, const struct extkit_super *sb,
			   struct ext2_super_block *raw)
{
	int rc;

	extkit_super_encode(sb, raw);
	if (sb->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		extkit_super_csum_store(raw);
	rc = extkit_io_write_bytes(ctx->io, EXT2_SUPERBLOCK_OFFSET, raw,
				   sizeof(*raw));
	if (!rc)
		fsck_mark_changed(ctx);
	return rc;
}
