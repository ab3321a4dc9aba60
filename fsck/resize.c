// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The resize inode (inode 7, resize_inode feature): its double indirect
 * block lists the primary reserved GDT blocks, and each of those lists
 * the same block's copies in the groups that hold a superblock backup
 * (the layout e2fsck's check_resize_inode verifies). When the layout is
 * wrong and the double indirect block number is usable, the map is
 * rewritten in place: those blocks are group metadata, nobody's data.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

/* The list of reserved GDT block pblk's backups, in ind. */
static void make_list(const struct extkit_fs *fs, uint64_t pblk,
		      uint8_t *ind)
{
	uint32_t ind_off = 0;

	memset(ind, 0, fs->g.block_size);
	for (uint32_t g = 1; g < fs->g.group_count; g++)
		if (extkit_super_group_has_backup(&fs->sb, g))
			put_le32(ind + 4 * ind_off++, (uint32_t)(pblk +
				 (uint64_t)g * fs->sb.blocks_per_group));
}

/* Fills the expected double indirect block (want) and returns 0 when the
 * on-disk map matches, 1 when it differs, or a negative error. */
static int check_layout(struct fsck_ctx *ctx, uint64_t dind_blk,
			uint8_t *want, uint8_t *have, uint8_t *ind)
{
	uint8_t *list = ind + ctx->fs->g.block_size;
	struct extkit_fs *fs = ctx->fs;
	uint32_t bs = fs->g.block_size, apb = fs->g.addr_per_block;
	uint64_t pblk = fs->sb.first_data_block + 1 + fs->g.gdt_blocks;
	uint32_t gdt_off = fs->g.gdt_blocks;
	int differs = 0;
	int rc;

	memset(want, 0, bs);
	rc = extkit_fs_read_block(fs, dind_blk, have);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < fs->sb.reserved_gdt_blocks;
	     i++, gdt_off++, pblk++) {
		gdt_off %= apb;
		put_le32(want + 4 * gdt_off, (uint32_t)pblk);
		rc = extkit_fs_read_block(fs, pblk, ind);
		if (rc)
			return rc;
		make_list(fs, pblk, list);
		if (memcmp(ind, list, bs))
			differs = 1;
	}
	if (memcmp(want, have, bs))
		differs = 1;
	return differs;
}

/* Writes the reserved GDT blocks' lists of their backups. */
static int write_lists(struct fsck_ctx *ctx, uint8_t *ind)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t pblk = fs->sb.first_data_block + 1 + fs->g.gdt_blocks;
	int rc;

	for (uint32_t i = 0; i < fs->sb.reserved_gdt_blocks; i++, pblk++) {
		make_list(fs, pblk, ind);
		rc = extkit_fs_write_block(fs, pblk, ind);
		if (rc)
			return rc;
	}
	return 0;
}

int fsck_check_resize_inode(struct fsck_ctx *ctx,
			    const struct extkit_inode *inode)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t dind = inode->block[EXT2_DIND_BLOCK];
	struct problem_context pctx;
	uint8_t *buf;
	int rc;

	if (!extkit_has_compat(&fs->sb, EXT2_FEATURE_COMPAT_RESIZE_INODE) ||
	    !dind || !extkit_fs_valid_block(fs, dind) ||
	    fs->g.gdt_blocks + fs->sb.reserved_gdt_blocks >
	    fs->g.addr_per_block)
		return 0;
	buf = malloc(4 * (size_t)fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	rc = check_layout(ctx, dind, buf, buf + fs->g.block_size,
			  buf + 2 * fs->g.block_size);
	if (rc > 0) {
		clear_problem_context(&pctx);
		pctx.ino = EXT2_RESIZE_INO;
		pctx.blk = dind;
		rc = 0;
		if (fix_problem(ctx, PR_1_RESIZE_INODE, &pctx)) {
			rc = extkit_fs_write_block(fs, dind, buf);
			if (!rc)
				rc = write_lists(ctx, buf +
						 2 * fs->g.block_size);
		}
	}
	free(buf);
	return rc < 0 && rc != -ENOMEM ? 0 : rc;
}
