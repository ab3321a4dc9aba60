// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whether a block is group metadata (a superblock copy, descriptors, a
 * bitmap, an inode table) of its own group or, with flex_bg, of the
 * groups its flex group packs; and whether an indirect block there is
 * that metadata read as a map, or a descriptor pointing a bitmap at a
 * file's map.
 */
#include "config.h"

#include "bmap.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"
#include "super.h"

#include "fsck.h"

/* Whether blk is one of group g's superblock copy, descriptors,
 * bitmaps or inode table. Reserved GDT blocks are not: the resize
 * inode's indirect blocks are there. */
int fsck_group_meta_has(const struct extkit_fs *fs, uint32_t g, uint64_t blk)
{
	const struct extkit_group *gd = &fs->groups[g];
	uint64_t first = extkit_group_first_block(&fs->sb, g), sb_end = first;

	if (extkit_super_group_has_backup(&fs->sb, g))
		sb_end += 1 + (extkit_has_incompat(&fs->sb,
				EXT2_FEATURE_INCOMPAT_META_BG) ? 0 :
			       fs->g.gdt_blocks);
	return (blk >= first && blk < sb_end) ||
	       blk == gd->block_bitmap || blk == gd->inode_bitmap ||
	       (gd->inode_table && blk >= gd->inode_table &&
		blk < gd->inode_table + fs->g.itable_blocks);
}

/* The groups whose metadata may lie at blk: [*g, *last]. */
static int meta_groups(const struct extkit_fs *fs, uint64_t blk, uint64_t *g,
		       uint64_t *last)
{
	if (blk < fs->sb.first_data_block || blk >= fs->sb.blocks_count)
		return 0;
	*g = extkit_group_of_block(&fs->sb, blk);
	*last = *g;
	if (extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_FLEX_BG) &&
	    fs->sb.log_groups_per_flex < 32)
		*last = *g + (1ull << fs->sb.log_groups_per_flex) - 1;
	if (*last >= fs->g.group_count)
		*last = fs->g.group_count - 1;
	return 1;
}

/*
 * Whether blk is group metadata: of its own group, or with flex_bg of
 * the groups whose metadata mkfs packs in its group (the flex group it
 * starts). Metadata moved elsewhere is not seen (pass 1B clones it then).
 */
int fsck_block_is_group_meta(const struct fsck_ctx *ctx, uint64_t blk)
{
	const struct extkit_fs *fs = ctx->fs;
	uint64_t g, last;

	if (!meta_groups(fs, blk, &g, &last))
		return 0;
	for (uint64_t o = g; o <= last; o++)
		if (fsck_group_meta_has(fs, (uint32_t)o, blk))
			return 1;
	return 0;
}

/* Whether blk is only a bitmap (no superblock copy, descriptor or inode
 * table block of any group its flex group packs). */
static int only_bitmap(const struct extkit_fs *fs, uint64_t blk)
{
	uint64_t g, last;
	int bitmap = 0;

	if (!meta_groups(fs, blk, &g, &last))
		return 0;
	for (uint64_t o = g; o <= last; o++) {
		const struct extkit_group *gd = &fs->groups[o];

		if (blk == gd->block_bitmap || blk == gd->inode_bitmap)
			bitmap = 1;
		else if (fsck_group_meta_has(fs, (uint32_t)o, blk))
			return 0;
	}
	return bitmap;
}

/* Every number of buf a valid block or 0, one at least not 0. */
static int whole_map(const struct extkit_fs *fs, const uint8_t *buf)
{
	uint32_t used = 0;

	for (uint32_t i = 0; i < fs->g.addr_per_block; i++) {
		uint32_t b = extkit_bmap_ind_get(buf, i);

		if (b && !extkit_fs_valid_block(fs, b))
			return 0;
		used += b != 0;
	}
	return used != 0;
}

/*
 * Whether the indirect block blk holding buf is group metadata read as a
 * map (dropped in pass 1, skipped by the clone). A bitmap place holding
 * a valid map through and through (no bitmap of a used group reads so)
 * is a descriptor pointing its bitmap at a file's indirect block: the
 * descriptor is the liar. The map is kept; the block is claimed twice,
 * and pass 1B gives the file a copy of it before pass 5 writes the
 * bitmap there (e2fsck: "conflicts with critical metadata", cloned in
 * pass 1D).
 */
int fsck_ind_is_group_meta(const struct fsck_ctx *ctx, uint64_t blk,
			   const uint8_t *buf)
{
	if (!fsck_block_is_group_meta(ctx, blk))
		return 0;
	return !(only_bitmap(ctx->fs, blk) && whole_map(ctx->fs, buf));
}
