// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Past e2fsck: a primary superblock that fails to validate on a
 * filesystem without a usable backup (a filesystem of one group has
 * none; e2fsck gives up there).
 *
 * Inode counts that disagree are set from group 0's inode bitmap
 * (inode_counts.c). A block count past the end of the image that names
 * more groups than the descriptors describe is garbage: it becomes the
 * image's size (a truncated image keeps its count and is refused).
 *
 * The fields a damaged superblock most often loses are rebuilt from the
 * ones that survive: the magic number, and the first data block (which
 * the block size decides). The result must then stand on its own: it
 * validates (library super.c), describes exactly one group, and group
 * 0's descriptor places both bitmaps and an inode table of the size the
 * superblock implies inside the filesystem, apart from each other, and
 * the table's inode 2 is a directory; a block count taken from the image
 * is held to the same test. Everything is decided first, then each
 * change is asked, then the superblock is written once in place (with
 * its checksum) and the check starts again from it: nothing is written
 * unless all of it can be. With -n nothing is written and the check
 * stops as before.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "group.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"
#include "super.h"

#include "fsck.h"
#include "problem.h"

/* The fields mkfs decides, set back from the surviving ones. */
static void patch_fields(struct extkit_super *sb)
{
	sb->magic = EXT2_SUPER_MAGIC;
	if (sb->log_block_size <= 6)
		sb->first_data_block = sb->log_block_size == 0;
}

static int inside(uint64_t blk, uint64_t len, const struct extkit_super *sb)
{
	return blk > sb->first_data_block && blk + len <= sb->blocks_count &&
	       blk + len > blk;
}

static int overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* Whether group 0's descriptor and the inode table agree with sb. */
static int layout_agrees(struct fsck_ctx *ctx, const struct extkit_super *sb,
			 const struct extkit_geom *g)
{
	uint8_t raw[EXT4_MAX_DESC_SIZE];
	struct extkit_inode_stored st;
	struct ext2_inode root;
	struct extkit_group gd;
	uint64_t gdt = (uint64_t)(sb->first_data_block + 1) * g->block_size;
	uint64_t itb = g->itable_blocks;

	if (g->desc_size > sizeof(raw) ||
	    extkit_io_read_bytes(ctx->io, gdt, raw, g->desc_size))
		return 0;
	extkit_group_decode(raw, g->desc_size, &gd);
	if (!inside(gd.block_bitmap, 1, sb) || !inside(gd.inode_bitmap, 1, sb) ||
	    !inside(gd.inode_table, itb, sb) ||
	    gd.block_bitmap == gd.inode_bitmap ||
	    overlap(gd.block_bitmap, 1, gd.inode_table, itb) ||
	    overlap(gd.inode_bitmap, 1, gd.inode_table, itb))
		return 0;
	/* inode 2, the root directory, at its place in the table */
	if (extkit_io_read_bytes(ctx->io, gd.inode_table * g->block_size +
				 g->inode_size, &root, sizeof(root)))
		return 0;
	extkit_inode_stored_get(&root, EXT2_INODE_CORE_SIZE, &st);
	return S_ISDIR(st.mode) && st.links_count >= 2;
}

/* Descriptor g as the primary's table holds it (no meta_bg); 0 or an
 * error. */
static int read_desc(struct fsck_ctx *ctx, const struct extkit_super *sb,
		     uint32_t bs, uint64_t g, struct extkit_group *gd)
{
	uint8_t raw[EXT4_MAX_DESC_SIZE];
	uint32_t dsz = EXT2_MIN_DESC_SIZE;
	int rc;

	if ((sb->feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT) &&
	    sb->desc_size >= EXT4_MIN_DESC_SIZE_64BIT &&
	    sb->desc_size <= EXT4_MAX_DESC_SIZE)
		dsz = sb->desc_size;
	rc = extkit_io_read_bytes(ctx->io, (uint64_t)(sb->first_data_block +
				  1) * bs + g * dsz, raw, dsz);
	if (!rc)
		extkit_group_decode(raw, dsz, gd);
	return rc;
}

/* Whether descriptor g places its bitmaps and table inside group g of
 * a filesystem of `blocks` blocks (anywhere in it with flex_bg). */
static int desc_fits(struct fsck_ctx *ctx, const struct extkit_super *sb,
		     uint32_t bs, uint64_t g, uint64_t blocks)
{
	uint64_t itb = ((uint64_t)sb->inodes_per_group * sb->inode_size +
			bs - 1) / bs;
	uint64_t lo = sb->first_data_block, hi = blocks;
	struct extkit_group gd;

	if (!(sb->feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG)) {
		lo += g * sb->blocks_per_group;
		if (lo + sb->blocks_per_group < hi)
			hi = lo + sb->blocks_per_group;
	}
	if (read_desc(ctx, sb, bs, g, &gd))
		return 0;
	return gd.block_bitmap >= lo && gd.block_bitmap < hi &&
	       gd.inode_bitmap >= lo && gd.inode_bitmap < hi &&
	       gd.inode_table >= lo && gd.inode_table + itb <= hi &&
	       gd.inode_table + itb > gd.inode_table;
}

/*
 * s_blocks_count past the end of the image, naming more groups than the
 * image holds, while the descriptors describe exactly the groups the
 * image holds (the first one past it does not fit its group): the count
 * is garbage, not a truncated image, and becomes the image's size in
 * blocks. Returns 1 when sb was changed.
 */
static int fix_blocks_count(struct fsck_ctx *ctx, struct extkit_super *sb)
{
	uint64_t bpg = sb->blocks_per_group, fdb = sb->first_data_block;
	uint64_t dev, have, claim;
	uint32_t bs;

	if (sb->log_block_size > 6)
		return 0;
	bs = EXT2_MIN_BLOCK_SIZE << sb->log_block_size;
	dev = ctx->io->size / bs;
	if (bpg < 8 || bpg > 8ull * bs ||
	    sb->blocks_count <= dev || dev <= fdb + 1 || !sb->inode_size ||
	    (sb->feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG))
		return 0;
	have = (dev - fdb + bpg - 1) / bpg;
	claim = (sb->blocks_count - fdb + bpg - 1) / bpg;
	if (claim <= have || have > 8ull * bs)
		return 0;
	for (uint64_t g = 0; g < have; g++)
		if (!desc_fits(ctx, sb, bs, g, dev))
			return 0;
	if (desc_fits(ctx, sb, bs, have, sb->blocks_count))
		return 0;
	sb->blocks_count = dev;
	if (sb->free_blocks_count > dev)
		sb->free_blocks_count = 0;	/* pass 5 recounts it */
	if (sb->r_blocks_count > dev)
		sb->r_blocks_count = dev / 20;
	return 1;
}

/* What the repair changes, decided before anything is asked. */
struct sb_plan {
	uint64_t old_blocks;
	uint32_t old_inodes, old_ipg;
	const char *ipg_which;
	int blocks, inodes, rebuilt;
};

/* Asks each change of the plan; whether all were accepted. */
static int ask_plan(struct fsck_ctx *ctx, const struct sb_plan *p,
		    const struct extkit_super *sb, const char *why)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	if (p->blocks) {
		pctx.num = p->old_blocks;
		pctx.num2 = sb->blocks_count;
		if (!fix_problem(ctx, PR_0_BLOCKS_COUNT_IMAGE, &pctx))
			return 0;
	}
	if (p->inodes) {
		clear_problem_context(&pctx);
		pctx.num = p->old_inodes;
		pctx.num2 = p->old_ipg;
		pctx.str = p->ipg_which;
		if (!fix_problem(ctx, PR_0_INODE_COUNTS, &pctx))
			return 0;
	}
	if (p->rebuilt) {
		clear_problem_context(&pctx);
		pctx.str = why;
		if (!fix_problem(ctx, PR_0_SB_REBUILD, &pctx))
			return 0;
	}
	return 1;
}

int fsck_rebuild_super(struct fsck_ctx *ctx, const char *why)
{
	struct ext2_super_block raw;
	struct extkit_super sb, orig;
	struct extkit_geom g;
	struct sb_plan plan = { 0 };
	const char *vwhy;
	int rc;

	rc = fsck_read_raw_primary(ctx, &raw, &sb);
	if (rc)
		return rc;
	orig = sb;
	patch_fields(&sb);
	plan.rebuilt = sb.magic != orig.magic ||
		       sb.first_data_block != orig.first_data_block;
	plan.old_blocks = sb.blocks_count;
	plan.blocks = fix_blocks_count(ctx, &sb);
	plan.old_inodes = sb.inodes_count;
	plan.old_ipg = sb.inodes_per_group;
	rc = fsck_pick_inode_counts(ctx, &sb, &plan.ipg_which);
	if (rc < 0 && !plan.rebuilt && !plan.blocks)
		return rc;
	plan.inodes = rc > 0;
	if (!plan.rebuilt && !plan.blocks && !plan.inodes)
		return -EFSCORRUPTED;
	/* The result must stand on its own; a superblock rebuilt from
	 * its layout, or resized from the image, only for one group
	 * whose descriptor and root agree with it. */
	if (extkit_super_validate(&sb, ctx->io->size, &g, &vwhy))
		return -EFSCORRUPTED;
	if ((plan.rebuilt || plan.blocks) &&
	    (g.group_count != 1 || !layout_agrees(ctx, &sb, &g)))
		return -EFSCORRUPTED;
	if (!ask_plan(ctx, &plan, &sb, why) || ctx->readonly)
		return -EFSCORRUPTED;
	return fsck_write_raw_primary(ctx, &sb, &raw);
}
