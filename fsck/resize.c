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
#include <sys/stat.h>

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
 * on-disk map matches, 1 when only the reserved GDT blocks' lists of
 * backups differ, 2 when the double indirect block does, or a negative
 * error. */
static int check_layout(struct fsck_ctx *ctx, uint64_t dind_blk,
			uint8_t *want, uint8_t *have, uint8_t *ind)
{
	uint8_t *list = ind + ctx->fs->g.block_size;
	struct extkit_fs *fs = ctx->fs;
	uint32_t bs = fs->g.block_size, apb = fs->g.addr_per_block;
	uint64_t pblk = fs->sb.first_data_block + 1 + fs->g.gdt_blocks +
			extkit_group_boot_block(&fs->sb, &fs->g, 0);
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
		differs = 2;
	return differs;
}

/* Writes the reserved GDT blocks' lists of their backups. */
static int write_lists(struct fsck_ctx *ctx, uint8_t *ind)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t pblk = fs->sb.first_data_block + 1 + fs->g.gdt_blocks +
			extkit_group_boot_block(&fs->sb, &fs->g, 0);
	int rc;

	for (uint32_t i = 0; i < fs->sb.reserved_gdt_blocks; i++, pblk++) {
		make_list(fs, pblk, ind);
		rc = extkit_fs_write_block(fs, pblk, ind);
		if (rc)
			return rc;
	}
	return 0;
}

/* Why inode 7 is not a resize inode at all (e2fsck's rules), or NULL. */
static const char *resize_inode_problem(const struct extkit_fs *fs,
					const struct extkit_inode *inode)
{
	uint64_t dind = inode->block[EXT2_DIND_BLOCK];

	/* e2fsck reads an extent flag's i_block as an extent root, finds
	 * the block map's words a corrupt header and clears the inode */
	if (inode->flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL))
		return "an extent or inline-data flag over its block map";
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		if (i != EXT2_DIND_BLOCK && inode->block[i])
			return "block numbers besides its double indirect "
			       "block";
	if (!dind || !extkit_fs_valid_block(fs, dind))
		return "no usable double indirect block";
	if (!S_ISREG(inode->mode) || !inode->links_count)
		return "not a regular file in use";
	return NULL;
}

/* Whether inode 7 holds anything: a mode, a block word, a size or
 * blocks. */
static int resize_inode_nonzero(const struct extkit_inode *inode)
{
	if (inode->mode || inode->size || inode->blocks)
		return 1;
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		if (inode->block[i])
			return 1;
	return 0;
}

/* Clears inode 7 on disk and in *inode. */
static void clear_resize_inode(struct fsck_ctx *ctx,
			       struct extkit_inode *inode)
{
	memset(inode, 0, sizeof(*inode));
	fsck_write_inode(ctx, EXT2_RESIZE_INO, inode);
}

int fsck_resize_inode_countable(const struct fsck_ctx *ctx,
				const struct extkit_inode *inode)
{
	const struct extkit_fs *fs = ctx->fs;

	return extkit_has_compat(&fs->sb, EXT2_FEATURE_COMPAT_RESIZE_INODE) &&
	       !(ctx->flags & FSCK_FL_RESIZE_REBUILD) && inode->mode &&
	       inode->block[EXT2_DIND_BLOCK] && fs->sb.reserved_gdt_blocks &&
	       fs->g.gdt_blocks + fs->sb.reserved_gdt_blocks <=
	       fs->g.addr_per_block && !resize_inode_problem(fs, inode);
}

int fsck_check_resize_inode(struct fsck_ctx *ctx, struct extkit_inode *inode)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t dind = inode->block[EXT2_DIND_BLOCK];
	struct problem_context pctx;
	uint8_t *buf;
	int rc;

	clear_problem_context(&pctx);
	pctx.ino = EXT2_RESIZE_INO;
	if (!extkit_has_compat(&fs->sb, EXT2_FEATURE_COMPAT_RESIZE_INODE)) {
		/* No feature: inode 7 must be empty (e2fsck tests its
		 * i_block words here, and its size and i_blocks in pass 1). */
		if (resize_inode_nonzero(inode) &&
		    fix_problem(ctx, PR_1_RESIZE_NO_FEATURE, &pctx))
			clear_resize_inode(ctx, inode);
		return 0;
	}
	/* The shape first, whatever s_reserved_gdt_blocks says (as
	 * e2fsck: mke2fs makes the inode even with none reserved). */
	pctx.str = resize_inode_problem(fs, inode);
	/* A double indirect block in the group metadata (claimed before any
	 * inode) or in an earlier inode's blocks is not rewritten in place:
	 * the inode is made anew, with a block of its own. */
	if (!pctx.str && fsck_block_test(ctx, dind))
		pctx.str = "its double indirect block is in use";
	if (pctx.str) {
		if (fix_problem(ctx, PR_1_RESIZE_INVALID, &pctx)) {
			clear_resize_inode(ctx, inode);
			ctx->flags |= FSCK_FL_RESIZE_REBUILD;
		}
		return 0;
	}
	if (fs->g.gdt_blocks + fs->sb.reserved_gdt_blocks >
	    fs->g.addr_per_block || !fs->sb.reserved_gdt_blocks)
		return 0;
	buf = malloc(4 * (size_t)fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	rc = check_layout(ctx, dind, buf, buf + fs->g.block_size,
			  buf + 2 * fs->g.block_size);
	if (rc == 2) {
		/* As e2fsck: the inode is made anew, in a block of its own.
		 * The one it names may be a later file's data (a garbage
		 * number), which a rewrite in place would destroy. */
		rc = 0;
		pctx.str = "its double indirect block does not list the "
			   "reserved GDT blocks";
		if (fix_problem(ctx, PR_1_RESIZE_INVALID, &pctx)) {
			clear_resize_inode(ctx, inode);
			ctx->flags |= FSCK_FL_RESIZE_REBUILD;
		}
	} else if (rc == 1) {
		/* the lists live in the reserved GDT blocks themselves */
		pctx.blk = dind;
		rc = 0;
		if (fix_problem(ctx, PR_1_RESIZE_INODE, &pctx))
			rc = write_lists(ctx, buf + 2 * fs->g.block_size);
	}
	free(buf);
	return rc < 0 && rc != -ENOMEM ? 0 : rc;
}

/* Backup groups: groups past 0 holding a superblock copy. */
static uint64_t backup_count(const struct extkit_fs *fs)
{
	uint64_t n = 0;

	for (uint32_t g = 1; g < fs->g.group_count; g++)
		n += extkit_super_group_has_backup(&fs->sb, g) != 0;
	return n;
}

/*
 * Builds inode 7 anew, as mke2fs does (end of pass 1, when the maps tell
 * which block is free): a new double indirect block listing the primary
 * reserved GDT blocks, their lists of backups, i_size covering what a
 * double indirect map reaches, i_blocks counting the reserved blocks.
 */
int fsck_rebuild_resize_inode(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t bs = fs->g.block_size, apb = fs->g.addr_per_block;
	uint64_t pblk = fs->sb.first_data_block + 1 + fs->g.gdt_blocks +
			extkit_group_boot_block(&fs->sb, &fs->g, 0);
	struct extkit_inode inode;
	struct problem_context pctx;
	uint64_t dind;
	uint8_t *buf;
	int rc;

	if (!(ctx->flags & FSCK_FL_RESIZE_REBUILD) || ctx->readonly)
		return 0;
	ctx->flags &= ~FSCK_FL_RESIZE_REBUILD;
	/* bigalloc: a cluster of its own (fsck_new_run), counted whole */
	rc = fsck_new_run(ctx, pblk + fs->sb.reserved_gdt_blocks, 1, &dind);
	if (rc)
		return rc;
	buf = calloc(1, bs);
	if (!buf)
		return -ENOMEM;
	for (uint32_t r = 0; r < fs->sb.reserved_gdt_blocks; r++)
		put_le32(buf + 4 * ((fs->g.gdt_blocks + r) % apb),
			 (uint32_t)(pblk + r));
	rc = extkit_fs_write_block(fs, dind, buf);
	if (!rc)
		rc = write_lists(ctx, buf);
	free(buf);
	if (rc)
		return rc;
	memset(&inode, 0, sizeof(inode));
	inode.mode = S_IFREG | 0600;
	inode.links_count = 1;
	inode.atime = inode.ctime = inode.mtime = ctx->now;
	inode.size = ((uint64_t)apb * apb + apb + EXT2_NDIR_BLOCKS) * bs;
	inode.block[EXT2_DIND_BLOCK] = (uint32_t)dind;
	extkit_inode_set_fs_blocks(fs, &inode, fs->g.cluster_ratio +
				   fs->sb.reserved_gdt_blocks *
				   (1 + backup_count(fs)));
	rc = fsck_write_inode(ctx, EXT2_RESIZE_INO, &inode);
	clear_problem_context(&pctx);
	pctx.ino = EXT2_RESIZE_INO;
	pctx.blk = dind;
	fix_problem(ctx, PR_1_RESIZE_REBUILT, &pctx);
	return rc;
}
