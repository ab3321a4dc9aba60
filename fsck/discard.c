// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -E discard: the free blocks are discarded once the check is done, as
 * e2fsck discards them in pass 5: holes punched in an image file, the
 * range zeroed (BLKZEROOUT) on a device (io_unix.c's zero_bytes).
 *
 * Safety: only after a run that left no error and was not cancelled,
 * and from the block bitmaps as they are on disk at the end (after the
 * quota files and a new journal took their blocks): a block a bitmap
 * marks free is free for the kernel too. Groups whose bitmap was never
 * initialised (BLOCK_UNINIT) are left alone. With -n nothing is done
 * (main turns the option off).
 */
#include "config.h"

#include <stdlib.h>

#include "bitmap.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "io.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "fsck.h"

/* The free runs of group g, as its bitmap on disk says. */
static int discard_group(struct fsck_ctx *ctx, uint32_t g,
			 struct extkit_bitmap *bm, uint8_t *raw)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t shift = fs->g.cluster_bits, bs = fs->g.block_size;
	uint64_t first = extkit_group_first_block(&fs->sb, g);
	uint64_t nbits = (extkit_group_block_count(&fs->sb, g) +
			  (1u << shift) - 1) >> shift;
	uint64_t from = 0, z, set;
	int rc;

	rc = extkit_fs_read_block(fs, fs->groups[g].block_bitmap, raw);
	if (!rc)
		rc = extkit_bitmap_from_disk(bm, 0, nbits, raw);
	while (!rc && from < nbits &&
	       !extkit_bitmap_find_first_zero(bm, from, nbits - from, &z)) {
		if (extkit_bitmap_find_first_set(bm, z, nbits - z, &set))
			set = nbits;
		rc = extkit_io_zero_bytes(ctx->io,
					  (first + (z << shift)) * bs,
					  ((set - z) << shift) * bs);
		from = set;
	}
	return rc;
}

void fsck_discard_free(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_bitmap bm;
	uint8_t *raw;
	int rc = 0;

	if (ctx->readonly || !ctx->opts->discard ||
	    (ctx->flags & (FSCK_FL_UNCORRECTED | FSCK_FL_ABORT)))
		return;
	raw = malloc(fs->g.block_size);
	if (!raw || extkit_bitmap_init(&bm, 8ull * fs->g.block_size)) {
		free(raw);
		return;
	}
	for (uint32_t g = 0; g < fs->g.group_count && !rc; g++) {
		if (extkit_has_ro_compat(&fs->sb,
					 EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
					 EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
		    (fs->groups[g].flags & EXT4_BG_BLOCK_UNINIT))
			continue;
		rc = discard_group(ctx, g, &bm, raw);
	}
	if (!rc)
		rc = extkit_io_flush(ctx->io);
	if (rc)	/* discarding is advice: the check stands */
		cli_error("%s: discarding free blocks: %s", ctx->opts->target,
			  extkit_strerror(rc));
	extkit_bitmap_free(&bm);
	free(raw);
}
