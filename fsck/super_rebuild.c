// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Past e2fsck: a primary superblock that fails to validate on a
 * filesystem of one group, which has no backup (e2fsck gives up there).
 *
 * The fields a damaged superblock most often loses are rebuilt from the
 * ones that survive: the magic number, and the first data block (which
 * the block size decides). The result must then stand on its own: it
 * validates (library super.c), describes exactly one group, and group
 * 0's descriptor places both bitmaps and an inode table of the size the
 * superblock implies inside the filesystem, apart from each other, and
 * the table's inode 2 is a directory. Only then is the user asked; the
 * fix writes the rebuilt superblock in place (with its checksum) and the
 * check starts again from it. With -n nothing is written and the check
 * stops as before.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "endian.h"
#include "error.h"
#include "group.h"
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
	return S_ISDIR(le16(root.i_mode)) && le16(root.i_links_count) >= 2;
}

int fsck_rebuild_super(struct fsck_ctx *ctx, const char *why)
{
	struct ext2_super_block raw;
	struct extkit_super sb;
	struct extkit_geom g;
	struct problem_context pctx;
	const char *vwhy;
	int rc;

	rc = fsck_read_raw_primary(ctx, &raw, &sb);
	if (rc)
		return rc;
	patch_fields(&sb);
	if (extkit_super_validate(&sb, ctx->io->size, &g, &vwhy) ||
	    g.group_count != 1 || !layout_agrees(ctx, &sb, &g))
		return -EFSCORRUPTED;
	clear_problem_context(&pctx);
	pctx.str = why;
	if (!fix_problem(ctx, PR_0_SB_REBUILD, &pctx) || ctx->readonly)
		return -EFSCORRUPTED;
	return fsck_write_raw_primary(ctx, &sb, &raw);
}
