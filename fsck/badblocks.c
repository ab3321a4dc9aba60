// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bad blocks inode (inode 1), checked as e2fsck's pass 1 does
 * (PR_1_INVALID_BAD_INODE, process_bad_block).
 *
 * Its block map (i_block, indirect blocks as for a file) lists the blocks
 * of the device that must never be used; its data blocks are those bad
 * blocks. It has no mode, owner, links, EA block or inline data: one
 * that has any of them is not a bad blocks list, and is zeroed.
 *
 * Inode 1 is the first inode pass 1 checks, so when its map is walked
 * only the group metadata is claimed. Each entry:
 *   - out of range: reported, removed from the map;
 *   - an indirect block already claimed (metadata, or met twice): removed,
 *     so that the map is never written over metadata;
 *   - a data block in the primary superblock, group descriptors or
 *     reserved GDT blocks, a bitmap or an inode table: reported, removed.
 *     e2fsck moves a bitmap off a bad block and takes the inodes in a bad
 *     inode table block as lost; this fsck moves no metadata and loses
 *     no inode, so the block leaves the list instead;
 *   - a data block in a backup superblock or descriptor copy: kept, as
 *     e2fsck keeps it (it warns); the block is metadata and bad at once;
 *   - a data block listed twice: the second entry is removed;
 *   - any other block: claimed. A file that maps it later shares it with
 *     inode 1, and pass 1B gives that file its own copy: inode 1 never
 *     gets IST_DUP, so its list is never cloned.
 * i_blocks of inode 1 is not checked (e2fsck does not check it either).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "ondisk.h"

#include "fsck.h"
#include "pass1.h"
#include "problem.h"

#define BB_LEVELS	3
#define WHY_MAX		96

struct bb_walk {
	struct fsck_ctx *ctx;
	uint8_t *bufs[BB_LEVELS];
};

static int bb_report(struct fsck_ctx *ctx, uint32_t code, uint64_t blk,
		     int64_t blkcount, const char *why)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = EXT2_BAD_INO;
	pctx.blk = blk;
	pctx.blkcount = blkcount;
	pctx.str = why;
	return fix_problem(ctx, code, &pctx);
}

/* Why inode 1 is not a bad blocks list, or NULL. */
static const char *invalid_why(const struct extkit_inode *inode)
{
	if (inode->mode)
		return "it has a mode";
	if (inode->uid || inode->gid)
		return "it has an owner";
	if (inode->links_count)
		return "it has links";
	if (inode->flags & EXT4_INLINE_DATA_FL)
		return "it has the inline data flag";
	if (inode->file_acl)
		return "it has an extended attribute block";
	return NULL;
}

/* Zeroes the fields of the 128-byte inode; the extra fields stay. */
static void zero_inode(struct extkit_inode *inode)
{
	struct extkit_inode keep = *inode;

	memset(inode, 0, sizeof(*inode));
	inode->extra_isize = keep.extra_isize;
	inode->crtime = keep.crtime;
	inode->projid = keep.projid;
}

/*
 * What metadata blk (already claimed) is, in why; returns 1 when a bad
 * block there is to be removed from the list, 0 when it is kept (a
 * backup copy), -1 when blk is no metadata.
 */
static int meta_block(struct fsck_ctx *ctx, uint64_t blk, char *why)
{
	struct extkit_fs *fs = ctx->fs;

	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		const struct extkit_group *gd = &fs->groups[g];
		uint64_t first = extkit_group_first_block(&fs->sb, g);
		uint32_t meta = extkit_group_sb_overhead(&fs->sb, &fs->g, g);

		if (blk >= first && blk < first + meta) {
			if (g)
				return 0;
			snprintf(why, WHY_MAX, "%s", blk == first ?
				 "the primary superblock" :
				 "in the primary group descriptors");
			return 1;
		}
		if (blk == gd->block_bitmap || blk == gd->inode_bitmap) {
			snprintf(why, WHY_MAX, "the %s bitmap of group %" PRIu32,
				 blk == gd->block_bitmap ? "block" : "inode", g);
			return 1;
		}
		if (blk >= gd->inode_table &&
		    blk < gd->inode_table + fs->g.itable_blocks) {
			snprintf(why, WHY_MAX, "in the inode table of group "
				 "%" PRIu32, g);
			return 1;
		}
	}
	return -1;
}

static int bb_slot(struct bb_walk *w, uint32_t *slot, int level,
		   uint64_t lblk);

/* Walks the indirect block blk of the given level mapping lblk on. */
static void bb_ind(struct bb_walk *w, uint64_t blk, int level,
		   uint64_t lblk)
{
	struct fsck_ctx *ctx = w->ctx;
	uint32_t apb = ctx->fs->g.addr_per_block;
	uint8_t *buf = w->bufs[level - 1];
	uint64_t span = 1;
	int dirty = 0, rc;

	rc = extkit_fs_read_block(ctx->fs, blk, buf);
	if (rc) {
		struct problem_context pctx;

		clear_problem_context(&pctx);
		pctx.ino = EXT2_BAD_INO;
		pctx.blk = blk;
		pctx.blkcount = -level;
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_1_BLOCK_READ, &pctx);
		return;
	}
	for (int l = 1; l < level; l++)
		span *= apb;
	for (uint32_t i = 0; i < apb; i++) {
		uint32_t b = get_le32(buf + 4 * i);

		if (b && bb_slot(w, &b, level - 1, lblk + i * span)) {
			put_le32(buf + 4 * i, b);
			dirty = 1;
		}
	}
	if (dirty && fsck_fixing(ctx))
		extkit_fs_write_block(ctx->fs, blk, buf);
}

/* A bad block (data, level 0) that is already claimed; 1 if removed. */
static int claimed_data(struct bb_walk *w, uint32_t *slot, uint64_t lblk)
{
	char why[WHY_MAX];
	int kind = meta_block(w->ctx, *slot, why);

	if (!kind)
		return 0;
	if (kind < 0)
		snprintf(why, sizeof(why), "already on the list");
	if (!bb_report(w->ctx, PR_1_BB_META_BLOCK, *slot, (int64_t)lblk, why))
		return 0;
	*slot = 0;
	return 1;
}

/* Checks the entry at *slot (data when level 0); 1 if *slot changed. */
static int bb_slot(struct bb_walk *w, uint32_t *slot, int level,
		   uint64_t lblk)
{
	struct fsck_ctx *ctx = w->ctx;
	int64_t blkcount = level ? -level : (int64_t)lblk;
	char why[WHY_MAX];

	if (!*slot)
		return 0;
	if (!extkit_fs_valid_block(ctx->fs, *slot)) {
		if (!bb_report(ctx, PR_1_BB_ILLEGAL_BLOCK, *slot, blkcount,
			       NULL))
			return 0;
		*slot = 0;
		return 1;
	}
	if (fsck_block_test(ctx, *slot)) {
		if (!level)
			return claimed_data(w, slot, lblk);
		/* The map must not be read from (or written to) metadata. */
		if (meta_block(ctx, *slot, why) < 0)
			snprintf(why, sizeof(why), "already in use");
		else
			snprintf(why, sizeof(why), "filesystem metadata");
		if (!bb_report(ctx, PR_1_BB_META_BLOCK, *slot, blkcount, why))
			return 0;
		*slot = 0;
		return 1;
	}
	fsck_block_mark(ctx, *slot, 1);
	if (level)
		bb_ind(w, *slot, level, lblk);
	return 0;
}

static int walk_map(struct fsck_ctx *ctx, struct extkit_inode *inode)
{
	struct bb_walk w = { .ctx = ctx };
	uint64_t apb = ctx->fs->g.addr_per_block;
	uint64_t base = EXT2_NDIR_BLOCKS, span = apb;
	int changed = 0, rc = 0;

	for (int i = 0; i < BB_LEVELS; i++) {
		w.bufs[i] = malloc(ctx->fs->g.block_size);
		if (!w.bufs[i])
			rc = -ENOMEM;
	}
	for (int i = 0; i < EXT2_NDIR_BLOCKS && !rc; i++)
		changed |= bb_slot(&w, &inode->block[i], 0, (uint64_t)i);
	for (int level = 1; level <= BB_LEVELS && !rc; level++) {
		uint32_t *slot = &inode->block[EXT2_IND_BLOCK + level - 1];

		changed |= bb_slot(&w, slot, level, base);
		base += span;
		span *= apb;
	}
	for (int i = 0; i < BB_LEVELS; i++)
		free(w.bufs[i]);
	if (changed)
		fsck_write_inode(ctx, EXT2_BAD_INO, inode);
	return rc;
}

int pass1_check_bad_inode(struct fsck_ctx *ctx, struct extkit_inode *inode)
{
	const char *why = invalid_why(inode);

	if (why && bb_report(ctx, PR_1_BB_INVALID, 0, 0, why)) {
		zero_inode(inode);
		fsck_write_inode(ctx, EXT2_BAD_INO, inode);
	}
	/* An extent-mapped bad blocks list does not exist: nothing to walk. */
	if (inode->flags & EXT4_EXTENTS_FL)
		return 0;
	return walk_map(ctx, inode);
}
