// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1B's table of shared blocks (struct fsck_dups, dups.h): for each
 * block claimed more than once, the references to it from inodes other
 * than reserved ones, or that metadata, a reserved inode or the bad
 * blocks list keeps it; and from it, whether a reference must be copied
 * (another reference or the metadata keeps the block: e2fsck's rule, the
 * last owner keeps it). Shared by pass1b.c and the extent clone
 * (extclone.c).
 */
#include "config.h"

#include "bitmap.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"
#include "super.h"

#include "dups.h"
#include "fsck.h"

/* blk's slot in the table, or the empty one where it would go. */
static size_t dup_index(const struct fsck_dups *d, uint64_t blk)
{
	size_t i = (size_t)(blk * 0x9E3779B97F4A7C15ull) & d->mask;

	while (d->blk[i] && d->blk[i] != blk)
		i = (i + 1) & d->mask;
	return i;
}

uint32_t *fsck_dup_slot(struct fsck_dups *d, uint64_t blk)
{
	size_t i = dup_index(d, blk);

	d->blk[i] = blk;
	return &d->refs[i];
}

/* blk's count, without adding it: 0 when it has no slot. */
uint32_t fsck_dup_refs(const struct fsck_dups *d, uint64_t blk)
{
	size_t i = dup_index(d, blk);

	return d->blk[i] ? d->refs[i] : 0;
}

int fsck_dup_is_shared(struct fsck_ctx *ctx, uint64_t blk)
{
	return extkit_bitmap_test(&ctx->block_dup,
				  blk - ctx->fs->sb.first_data_block) == 1;
}

/* Whether a block of group metadata (superblock copy, descriptors,
 * bitmaps, inode table) is blk. */
int fsck_dup_group_meta(const struct extkit_fs *fs, uint64_t blk)
{
	uint32_t g = extkit_group_of_block(&fs->sb, blk);
	uint64_t first = extkit_group_first_block(&fs->sb, g);
	uint32_t lo = g, hi = g + 1;

	if (blk < first + extkit_group_sb_overhead(&fs->sb, &fs->g, g))
		return 1;
	/* Without flex_bg a group's places lie inside it (pass 0). */
	if (extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_FLEX_BG)) {
		lo = 0;
		hi = fs->g.group_count;
	}
	for (uint32_t o = lo; o < hi; o++) {
		const struct extkit_group *gd = &fs->groups[o];

		if (blk == gd->block_bitmap || blk == gd->inode_bitmap ||
		    (blk >= gd->inode_table &&
		     blk < gd->inode_table + fs->g.itable_blocks))
			return 1;
	}
	return 0;
}

int fsck_dup_must_copy(struct fsck_ctx *ctx, struct fsck_dups *d,
		       uint64_t blk)
{
	uint32_t r;

	if (!fsck_dup_is_shared(ctx, blk))
		return 0;
	r = *fsck_dup_slot(d, blk);
	return (r & DUP_KEEP) || r > 1 || fsck_dup_group_meta(ctx->fs, blk);
}

void fsck_dup_copied(struct fsck_ctx *ctx, struct fsck_dups *d,
		     uint64_t blk)
{
	uint32_t *r;

	if (!fsck_dup_is_shared(ctx, blk))
		return;
	r = fsck_dup_slot(d, blk);
	if (!(*r & DUP_KEEP) && *r > 1)
		(*r)--;
}

int fsck_dup_reserved_keeps(struct fsck_ctx *ctx, struct fsck_dups *d,
			    uint32_t ino, uint64_t blk)
{
	uint32_t r;

	if (ino >= ctx->fs->g.first_ino || ino == EXT2_ROOT_INO ||
	    ino == EXT2_BAD_INO || !fsck_dup_is_shared(ctx, blk) ||
	    fsck_dup_group_meta(ctx->fs, blk))
		return 0;
	r = *fsck_dup_slot(d, blk);
	return (r & DUP_KEEP) && !(r & DUP_BAD);
}
