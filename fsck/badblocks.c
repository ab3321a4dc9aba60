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
 *   - a data block in the primary superblock or group descriptors, or
 *     a bitmap: reported, removed. e2fsck moves
 *     a bitmap off a bad block; this fsck moves no metadata, so the
 *     block leaves the list instead;
 *   - a data block in an inode table: e2fsck keeps it silently, and
 *     its inode scan then skips the block, taking its inodes as used or
 *     lost. So it is kept only past the inodes the group ever used
 *     (bg_itable_unused), where that scan never reads; else it is
 *     reported and removed, and no inode is lost;
 *   - a data block in a backup superblock or descriptor copy, or in a
 *     reserved GDT block: kept, as e2fsck keeps it (it warns); the
 *     block is metadata and bad at once;
 *   - a data block listed twice: the second entry is removed;
 *   - any other block: claimed. A file that maps it later shares it with
 *     inode 1, and pass 1B gives that file its own copy: inode 1 never
 *     gets the dup state, so its list is never cloned.
 * i_blocks of inode 1 is not checked (e2fsck does not check it either).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "ondisk.h"
#include "walk.h"

#include "fsck.h"
#include "pass1.h"
#include "problem.h"

#define WHY_MAX		96

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

/* Why inode 1 is not a bad blocks list, or NULL (e2fsck's rules: a
 * checksum that does not match is enough). */
static const char *invalid_why(const struct extkit_fs *fs,
			       const struct extkit_inode *inode, int csum_bad)
{
	if (csum_bad)
		return "its checksum does not match";
	if ((inode->flags & EXT4_EXTENTS_FL) &&
	    !extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return "the extents flag, without the extents feature";
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
 * Whether inode table block blk of group g lies past the inodes the
 * group has ever used (bg_itable_unused, with group descriptor
 * checksums): e2fsck's inode scan never reads there, so a bad block
 * there costs nothing. Elsewhere the scan skips the block and takes its
 * inodes as used or lost.
 */
static int itable_block_unused(const struct extkit_fs *fs, uint32_t g,
			       uint64_t blk)
{
	const struct extkit_group *gd = &fs->groups[g];
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t first = (blk - gd->inode_table) * fs->g.inodes_per_block;

	if (!extkit_has_ro_compat(&fs->sb,
				  EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
				  EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return 0;
	if (gd->flags & EXT4_BG_INODE_UNINIT)
		return 1;
	return gd->itable_unused <= ipg && first >= ipg - gd->itable_unused;
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
			/* a copy, or a reserved GDT block: kept (e2fsck
			 * keeps both; the reserved ones wait for a resize) */
			if (g || blk > first + fs->g.gdt_blocks)
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
			if (itable_block_unused(fs, g, blk))
				return 0;
			snprintf(why, WHY_MAX, "in the inode table of group "
				 "%" PRIu32, g);
			return 1;
		}
	}
	return -1;
}

/* A bad block (data) that is already claimed: dropped or kept. */
static int claimed_data(struct fsck_ctx *ctx, const struct extkit_walk_ent *e)
{
	char why[WHY_MAX];
	int kind = meta_block(ctx, e->pblk, why);

	if (!kind)
		return 0;
	if (kind < 0)
		snprintf(why, sizeof(why), "already on the list");
	if (!bb_report(ctx, PR_1_BB_META_BLOCK, e->pblk, (int64_t)e->lblk, why))
		return 0;
	return EXTKIT_WALK_DROP;
}

/* An indirect block already claimed: the map must not be read from (or
 * written to) metadata. */
static int claimed_map(struct fsck_ctx *ctx, const struct extkit_walk_ent *e)
{
	char why[WHY_MAX];

	if (meta_block(ctx, e->pblk, why) < 0)
		snprintf(why, sizeof(why), "already in use");
	else
		snprintf(why, sizeof(why), "filesystem metadata");
	if (!bb_report(ctx, PR_1_BB_META_BLOCK, e->pblk, -e->level, why))
		return EXTKIT_WALK_SKIP;
	return EXTKIT_WALK_DROP;
}

static void report_read(struct fsck_ctx *ctx, const struct extkit_walk_ent *e)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = EXT2_BAD_INO;
	pctx.blk = e->pblk;
	pctx.blkcount = -e->level;
	pctx.str = extkit_strerror(e->err);
	fix_problem(ctx, PR_1_BLOCK_READ, &pctx);
}

/* The walker's callback: checks one entry of the list's map. */
static int bb_fn(struct extkit_fs *fs, struct extkit_walk_ent *e, void *arg)
{
	struct fsck_ctx *ctx = arg;
	int64_t blkcount = e->level ? -e->level : (int64_t)e->lblk;

	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad == EXTKIT_WALK_BAD_PBLK)
		return bb_report(ctx, PR_1_BB_ILLEGAL_BLOCK, e->pblk, blkcount,
				 NULL) ? EXTKIT_WALK_DROP : 0;
	if (fsck_block_test(ctx, e->pblk))
		return e->level ? claimed_map(ctx, e) : claimed_data(ctx, e);
	fsck_block_mark(ctx, e->pblk, 1);
	if (!e->level)
		ctx->stats.bad_blocks++;
	if (e->bad == EXTKIT_WALK_BAD_READ)
		report_read(ctx, e);
	return 0;
}

/* What the probe found under each indirect slot of i_block. */
struct probe {
	struct fsck_ctx *ctx;
	const char *why[EXT2_N_BLOCKS];
};

/* The i_block slot whose tree maps logical block lblk. */
static int slot_of(const struct extkit_fs *fs, uint64_t lblk)
{
	uint64_t apb = fs->g.addr_per_block;

	if (lblk < EXT2_NDIR_BLOCKS)
		return -1;
	lblk -= EXT2_NDIR_BLOCKS;
	if (lblk < apb)
		return EXT2_IND_BLOCK;
	lblk -= apb;
	return lblk < apb * apb ? EXT2_DIND_BLOCK : EXT2_TIND_BLOCK;
}

static int probe_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		    void *arg)
{
	struct probe *p = arg;
	int slot = slot_of(fs, e->lblk);
	const char *why = NULL;

	if ((e->flags & EXTKIT_WALK_LEAVE) || !e->node || slot < 0)
		return e->level && e->pblk && fsck_block_test(p->ctx, e->pblk) ?
		       EXTKIT_WALK_SKIP : 0;
	if (e->bad == EXTKIT_WALK_BAD_PBLK)
		why = "it holds block numbers outside the filesystem";
	else if (e->bad == EXTKIT_WALK_BAD_READ)
		why = "a block it names cannot be read";
	else if (e->level && fsck_block_test(p->ctx, e->pblk))
		why = "it names filesystem metadata as an indirect block";
	if (why && !p->why[slot])
		p->why[slot] = why;
	return why && e->level ? EXTKIT_WALK_SKIP : 0;
}

/*
 * An indirect tree holding what no bad blocks list holds (a number
 * outside the filesystem, metadata as a map block) is garbage: its
 * block is no list block but some other block (a file's data, the
 * journal's), which dropping the bad entries one by one would write
 * over. The tree is dropped whole from i_block instead, and nothing
 * under it is claimed or written.
 */
static void drop_garbage_trees(struct fsck_ctx *ctx,
			       struct extkit_inode *inode)
{
	struct extkit_inode copy = *inode;
	struct probe p = { .ctx = ctx };
	struct extkit_walk wk = { .ino = EXT2_BAD_INO, .fn = probe_fn,
				  .arg = &p, .flags = EXTKIT_WALK_DRY };
	struct problem_context pctx;
	int changed = 0;

	if (extkit_walk(ctx->fs, &copy, &wk) < 0)
		return;
	for (int slot = EXT2_IND_BLOCK; slot <= EXT2_TIND_BLOCK; slot++) {
		if (!p.why[slot])
			continue;
		clear_problem_context(&pctx);
		pctx.ino = EXT2_BAD_INO;
		pctx.blk = inode->block[slot];
		pctx.blkcount = -(slot - EXT2_IND_BLOCK + 1);
		pctx.str = p.why[slot];
		if (!fix_problem(ctx, PR_1_BB_GARBAGE_TREE, &pctx))
			continue;
		inode->block[slot] = 0;
		changed = 1;
	}
	if (changed)
		fsck_write_inode(ctx, EXT2_BAD_INO, inode);
}

static int walk_map(struct fsck_ctx *ctx, struct extkit_inode *inode)
{
	struct extkit_walk wk = { .ino = EXT2_BAD_INO, .fn = bb_fn,
				  .arg = ctx };
	int rc;

	drop_garbage_trees(ctx, inode);
	if (!fsck_fixing(ctx))
		wk.flags |= EXTKIT_WALK_DRY;
	rc = extkit_walk(ctx->fs, inode, &wk);
	if (wk.inode_changed)
		fsck_write_inode(ctx, EXT2_BAD_INO, inode);
	return rc < 0 ? rc : 0;
}

int pass1_check_bad_inode(struct fsck_ctx *ctx, struct extkit_inode *inode,
			  int csum_bad)
{
	const char *why = invalid_why(ctx->fs, inode, csum_bad);

	if (why && bb_report(ctx, PR_1_BB_INVALID, 0, 0, why)) {
		zero_inode(inode);
		fsck_write_inode(ctx, EXT2_BAD_INO, inode);
	}
	/* An extent-mapped bad blocks list does not exist: nothing to walk. */
	if (inode->flags & EXT4_EXTENTS_FL)
		return 0;
	return walk_map(ctx, inode);
}
