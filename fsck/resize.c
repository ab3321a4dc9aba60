// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The resize inode (inode 7, resize_inode feature): its double indirect
 * block lists the primary reserved GDT blocks, and each of those lists
 * the same block's copies in the groups that hold a superblock backup
 * (the layout e2fsck's check_resize_inode verifies; lib/resize_inode.c
 * builds it, for mkfs too). When the layout is
 * wrong and the double indirect block number is usable, the map is
 * rewritten in place: those blocks are group metadata, nobody's data.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bmap.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "ondisk.h"
#include "resize_inode.h"

#include "fsck.h"
#include "problem.h"

/* The first entry of the resize inode's map that differs from the layout
 * mke2fs gives it, and how many do. */
struct layout_diff {
	uint64_t blk;		/* the block holding it */
	uint32_t slot;		/* its entry in that block */
	uint32_t have, want;
	uint32_t count;		/* entries that differ, in all blocks */
	int dind_used;		/* a used slot of the double indirect block */
	int dind, lists;	/* where the differences are */
};

static void note_diff(struct layout_diff *d, uint64_t blk,
		      const uint8_t *have, const uint8_t *want, uint32_t apb)
{
	for (uint32_t s = 0; s < apb; s++) {
		uint32_t h = extkit_bmap_ind_get(have, s);
		uint32_t w = extkit_bmap_ind_get(want, s);

		if (h == w)
			continue;
		if (!d->count++) {
			d->blk = blk;
			d->slot = s;
			d->have = h;
			d->want = w;
		}
	}
}

/*
 * Compares the whole map with the layout: the double indirect block
 * (every entry, the unused ones must be zero) and each primary reserved
 * GDT block (its list of copies, then zeroes). The copies themselves are
 * the map's data: their contents are not the map's. Returns 0 or a
 * negative error; d says what differs.
 */
static int check_layout(struct fsck_ctx *ctx, uint64_t dind_blk,
			uint8_t *buf, struct layout_diff *d)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t bs = fs->g.block_size, apb = fs->g.addr_per_block;
	uint8_t *want = buf, *have = buf + bs;
	uint64_t pblk = extkit_resize_first_reserved(fs);
	uint32_t before;
	int rc;

	memset(d, 0, sizeof(*d));
	extkit_resize_dind_build(fs, want);
	rc = extkit_fs_read_block(fs, dind_blk, have);
	if (rc)
		return rc;
	note_diff(d, dind_blk, have, want, apb);
	d->dind = d->count != 0;
	for (uint32_t s = 0; s < apb; s++)
		if (extkit_bmap_ind_get(want, s) &&
		    extkit_bmap_ind_get(want, s) !=
		    extkit_bmap_ind_get(have, s))
			d->dind_used = 1;
	before = d->count;
	for (uint32_t r = 0; r < fs->sb.reserved_gdt_blocks; r++) {
		rc = extkit_fs_read_block(fs, pblk + r, have);
		if (rc)
			return rc;
		extkit_resize_list_build(fs, r, want);
		note_diff(d, pblk + r, have, want, apb);
	}
	d->lists = d->count != before;
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

/* Whether inode 7 maps anything: its i_block words, as e2fsck's
 * check_resize_inode looks (mode, size and an EA block are pass 1's, as
 * for any reserved inode: clearing for i_blocks an EA block gave, a
 * second run undid the first's fix). */
static int resize_inode_nonzero(const struct extkit_inode *inode)
{
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
	       fs->sb.reserved_gdt_blocks <= fs->g.addr_per_block &&
	       !resize_inode_problem(fs, inode);
}

/* Reports the first entry of the map that is not the layout's. */
static int report_entry(struct fsck_ctx *ctx, const struct layout_diff *d,
			uint64_t dind)
{
	struct problem_context pctx;
	char where[160];

	clear_problem_context(&pctx);
	pctx.ino = EXT2_RESIZE_INO;
	pctx.blk = d->blk;
	pctx.num = d->have;
	pctx.num2 = d->want;
	snprintf(where, sizeof(where), "entry %" PRIu32 " of %s %" PRIu64
		 "; %" PRIu32 " entr%s of the map differ%s from the layout",
		 d->slot, d->blk == dind ? "its double indirect block" :
		 "reserved GDT block", d->blk, d->count,
		 d->count == 1 ? "y" : "ies", d->count == 1 ? "s" : "");
	pctx.str = where;
	/* a number where the layout has none is an illegal block of inode
	 * 7 (e2fsck's pass 1 finds it so); a wrong or missing one breaks
	 * the layout */
	return fix_problem(ctx, d->want ? PR_1_RESIZE_ENTRY_WRONG :
			   PR_1_RESIZE_ILLEGAL_BLOCK, &pctx);
}

/*
 * What the comparison found, mended. A used entry of the double indirect
 * block that is wrong or missing means the block may be no resize map
 * at all (a garbage number naming a later file's data): the inode is
 * made anew in a block of its own, as e2fsck does. Otherwise the blocks
 * are the map's own (the double indirect block lists every reserved GDT
 * block where it should): stray entries are cleared and the lists of
 * copies written again, in place.
 */
static int mend_layout(struct fsck_ctx *ctx, struct extkit_inode *inode,
		       uint64_t dind, const struct layout_diff *d,
		       uint8_t *buf)
{
	struct extkit_fs *fs = ctx->fs;
	struct problem_context pctx;
	int rc = 0;

	if (!d->count)
		return 0;
	if (d->dind_used) {
		clear_problem_context(&pctx);
		pctx.ino = EXT2_RESIZE_INO;
		pctx.str = "its double indirect block does not list the "
			   "reserved GDT blocks";
		if (fix_problem(ctx, PR_1_RESIZE_INVALID, &pctx)) {
			clear_resize_inode(ctx, inode);
			ctx->flags |= FSCK_FL_RESIZE_REBUILD;
		}
		return 0;
	}
	if (!report_entry(ctx, d, dind))
		return 0;
	if (d->dind) {
		extkit_resize_dind_build(fs, buf);
		rc = extkit_fs_write_block(fs, dind, buf);
	}
	for (uint32_t r = 0; !rc && d->lists &&
	     r < fs->sb.reserved_gdt_blocks; r++) {
		extkit_resize_list_build(fs, r, buf);
		rc = extkit_fs_write_block(fs,
			extkit_resize_first_reserved(fs) + r, buf);
	}
	return rc;
}

int fsck_check_resize_inode(struct fsck_ctx *ctx, struct extkit_inode *inode)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t dind = inode->block[EXT2_DIND_BLOCK];
	struct problem_context pctx;
	struct layout_diff d;
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
	/* e2fsck refuses more reserved GDT blocks than a block has
	 * entries (check_super_block): then there is no layout to check */
	if (fs->sb.reserved_gdt_blocks > fs->g.addr_per_block ||
	    !fs->sb.reserved_gdt_blocks)
		return 0;
	buf = malloc(2 * (size_t)fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	rc = check_layout(ctx, dind, buf, &d);
	if (!rc)
		rc = mend_layout(ctx, inode, dind, &d, buf);
	free(buf);
	return rc < 0 && rc != -ENOMEM ? 0 : rc;
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
	uint64_t pblk = extkit_resize_first_reserved(fs);
	struct extkit_inode inode;
	struct problem_context pctx;
	uint64_t dind;
	int rc;

	if (!(ctx->flags & FSCK_FL_RESIZE_REBUILD) || ctx->readonly)
		return 0;
	ctx->flags &= ~FSCK_FL_RESIZE_REBUILD;
	/* bigalloc: a cluster of its own (fsck_new_run), counted whole */
	rc = fsck_new_run(ctx, pblk + fs->sb.reserved_gdt_blocks, 1, &dind);
	if (rc)
		return rc;
	rc = extkit_resize_write(fs, dind);
	if (rc)
		return rc;
	memset(&inode, 0, sizeof(inode));
	inode.mode = S_IFREG | 0600;
	inode.links_count = 1;
	inode.atime = inode.ctime = inode.mtime = ctx->now;
	inode.size = extkit_resize_inode_size(fs->g.block_size);
	inode.block[EXT2_DIND_BLOCK] = (uint32_t)dind;
	extkit_inode_set_fs_blocks(fs, &inode, extkit_resize_inode_blocks(fs));
	rc = fsck_write_inode(ctx, EXT2_RESIZE_INO, &inode);
	clear_problem_context(&pctx);
	pctx.ino = EXT2_RESIZE_INO;
	pctx.blk = dind;
	fix_problem(ctx, PR_1_RESIZE_REBUILT, &pctx);
	return rc;
}
