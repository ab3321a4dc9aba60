// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block ownership for fsck: the found/duplicate maps and the pass 1 scan
 * of one inode's block map (extended attribute blocks: xattr.c).
 *
 * The library's walker (bmap.c) stops at the first bad block number; fsck
 * must go on, report each bad number and clear it in place, so indirect
 * maps are scanned here with write-back; extent trees likewise in
 * extents.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

#define IND_LEVELS	3

/* ---- found / duplicate maps ---- */

static uint64_t bit_of(const struct fsck_ctx *ctx, uint64_t blk)
{
	return blk - ctx->fs->sb.first_data_block;
}

int fsck_block_test(struct fsck_ctx *ctx, uint64_t blk)
{
	return extkit_bitmap_test(&ctx->block_found, bit_of(ctx, blk)) == 1;
}

/* Claims count blocks from blk; returns how many were already claimed. */
static uint64_t block_claim(struct fsck_ctx *ctx, uint64_t blk,
			    uint32_t count, uint64_t *first_dup)
{
	uint64_t bit = bit_of(ctx, blk), dups = 0;

	if (!extkit_bitmap_count_range(&ctx->block_found, bit, count)) {
		extkit_bitmap_set_range(&ctx->block_found, bit, count);
		return 0;
	}
	for (uint32_t i = 0; i < count; i++) {
		if (extkit_bitmap_test(&ctx->block_found, bit + i) == 1) {
			if (!dups && first_dup)
				*first_dup = blk + i;
			dups++;
			extkit_bitmap_set(&ctx->block_dup, bit + i);
		} else {
			extkit_bitmap_set(&ctx->block_found, bit + i);
		}
	}
	ctx->dup_blocks += dups;
	return dups;
}

void fsck_claim_blocks(struct fsck_ctx *ctx, struct fsck_blk_result *res,
		       uint64_t blk, uint32_t count)
{
	uint64_t first = 0, dups;

	dups = block_claim(ctx, blk, count, &first);
	if (dups && !res->dups)
		res->first_dup = first;
	res->dups += dups;
	res->nblocks += count;
}

void fsck_block_mark(struct fsck_ctx *ctx, uint64_t blk, uint32_t count)
{
	block_claim(ctx, blk, count, NULL);
}

void fsck_block_unmark(struct fsck_ctx *ctx, uint64_t blk, uint32_t count)
{
	uint64_t bit = bit_of(ctx, blk);

	/* A block claimed twice stays claimed by the other owner. */
	if (!extkit_bitmap_count_range(&ctx->block_dup, bit, count)) {
		extkit_bitmap_clear_range(&ctx->block_found, bit, count);
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		if (extkit_bitmap_test(&ctx->block_dup, bit + i) != 1)
			extkit_bitmap_clear(&ctx->block_found, bit + i);
}

/* ---- the pass 1 scan of an indirect map ---- */

struct scan {
	struct fsck_ctx *ctx;
	uint32_t ino;
	struct extkit_inode *inode;
	struct fsck_blk_result *res;
	uint8_t *bufs[IND_LEVELS];
	uint64_t run_start;	/* pending run of blocks to claim */
	uint32_t run_len;
};

static void run_flush(struct scan *s)
{
	uint64_t first = 0, dups;

	if (!s->run_len)
		return;
	dups = block_claim(s->ctx, s->run_start, s->run_len, &first);
	if (dups && !s->res->dups)
		s->res->first_dup = first;
	s->res->dups += dups;
	s->run_len = 0;
}

static void run_add(struct scan *s, uint64_t blk)
{
	s->res->nblocks++;
	if (s->run_len && blk == s->run_start + s->run_len &&
	    s->run_len < UINT32_MAX) {
		s->run_len++;
		return;
	}
	run_flush(s);
	s->run_start = blk;
	s->run_len = 1;
}

/* Reports an illegal block number; 1 when it is to be cleared. */
static int illegal(struct scan *s, uint64_t blk, int64_t blkcount)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.blk = blk;
	pctx.blkcount = blkcount;
	pctx.inode = s->inode;
	return fix_problem(s->ctx, PR_1_ILLEGAL_BLOCK, &pctx);
}

/* How many illegal numbers an indirect block holds when they are enough
 * to call it garbage (more than 8 and a quarter of it); else 0. */
static uint32_t garbage_count(const struct extkit_fs *fs, const uint8_t *buf)
{
	uint32_t apb = fs->g.addr_per_block, bad = 0;

	for (uint32_t i = 0; i < apb; i++) {
		uint32_t b = get_le32(buf + 4 * i);

		if (b && !extkit_fs_valid_block(fs, b))
			bad++;
	}
	return bad <= 8 || bad * 4 < apb ? 0 : bad;
}

/* An indirect block most of whose numbers are illegal holds no map. */
static int garbage(struct scan *s, const uint8_t *buf, uint64_t blk,
		   int level)
{
	uint32_t bad = garbage_count(s->ctx->fs, buf);
	struct problem_context pctx;

	if (!bad)
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.blk = blk;
	pctx.blkcount = -level;
	pctx.num = bad;
	if (!fix_problem(s->ctx, PR_1_GARBAGE_IND, &pctx))
		s->res->failed = 1;
	return 1;
}

static int scan_ind(struct scan *s, uint32_t *slot, int level,
		    uint64_t lblk);

/* Checks one block number at *slot (data when level 0); returns 1 when
 * *slot was changed. */
static int scan_entry(struct scan *s, uint32_t *slot, int level,
		      uint64_t lblk)
{
	uint32_t b = *slot;

	if (!b)
		return 0;
	if (!extkit_fs_valid_block(s->ctx->fs, b)) {
		if (illegal(s, b, level ? -level : (int64_t)lblk)) {
			*slot = 0;
			return 1;
		}
		return 0;
	}
	if (!level) {
		run_add(s, b);
		if ((int64_t)lblk > s->res->last_lblk)
			s->res->last_lblk = (int64_t)lblk;
		s->res->last_init_lblk = s->res->last_lblk;
		return 0;
	}
	return scan_ind(s, slot, level, lblk);
}

/* Scans the indirect block at *slot of the given level mapping lblk on.
 * Returns 1 when *slot was cleared. Recursion depth is at most 3. */
static int scan_ind(struct scan *s, uint32_t *slot, int level,
		    uint64_t lblk)
{
	struct extkit_fs *fs = s->ctx->fs;
	uint32_t apb = fs->g.addr_per_block;
	uint64_t span = 1;
	uint8_t *buf = s->bufs[level - 1];
	int dirty = 0, shared, rc;

	rc = extkit_fs_read_block(fs, *slot, buf);
	if (rc) {
		struct problem_context pctx;

		clear_problem_context(&pctx);
		pctx.ino = s->ino;
		pctx.blk = *slot;
		pctx.blkcount = -level;
		pctx.str = extkit_strerror(rc);
		fix_problem(s->ctx, PR_1_BLOCK_READ, &pctx);
		s->res->failed = 1;
		run_add(s, *slot);
		return 0;
	}
	if (garbage(s, buf, *slot, level)) {
		if (s->res->failed)
			return 0;
		*slot = 0;
		return 1;
	}
	/* Claimed already (metadata, another inode): its fixes stay in
	 * memory, as e2fsck's; pass 1B clears them in the private copy. */
	shared = fsck_block_test(s->ctx, *slot);
	run_add(s, *slot);
	for (int l = 1; l < level; l++)
		span *= apb;
	for (uint32_t i = 0; i < apb; i++) {
		uint32_t b = get_le32(buf + 4 * i);

		if (!b)
			continue;
		if (scan_entry(s, &b, level - 1, lblk + i * span)) {
			put_le32(buf + 4 * i, b);
			dirty = 1;
		}
	}
	if (dirty && !shared && fsck_fixing(s->ctx))
		extkit_fs_write_block(fs, *slot, buf);
	return 0;
}

static int scan_indirect(struct scan *s)
{
	uint64_t apb = s->ctx->fs->g.addr_per_block;
	uint64_t base = EXT2_NDIR_BLOCKS, span = apb;

	for (int i = 0; i < IND_LEVELS; i++) {
		s->bufs[i] = malloc(s->ctx->fs->g.block_size);
		if (!s->bufs[i])
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < EXT2_NDIR_BLOCKS; i++)
		if (scan_entry(s, &s->inode->block[i], 0, i))
			s->res->inode_dirty = 1;
	for (int level = 1; level <= IND_LEVELS; level++) {
		uint32_t *slot = &s->inode->block[EXT2_IND_BLOCK + level - 1];

		if (scan_entry(s, slot, level, base))
			s->res->inode_dirty = 1;
		base += span;
		span *= apb;
	}
	run_flush(s);
	return 0;
}

/* The resize inode: its reserved GDT blocks are group metadata. */
static int scan_resize(struct scan *s)
{
	uint32_t *slot = &s->inode->block[EXT2_DIND_BLOCK];

	if (!*slot)
		return 0;
	if (!extkit_fs_valid_block(s->ctx->fs, *slot)) {
		if (illegal(s, *slot, -2)) {
			*slot = 0;
			s->res->inode_dirty = 1;
		}
		return 0;
	}
	run_add(s, *slot);
	run_flush(s);
	return 0;
}

/*
 * Only directories, regular files and symlinks have blocks (e2fsck's
 * ext2fs_inode_has_valid_blocks2): the i_block of a device, FIFO or
 * socket, or of a reserved inode with mode 0, is never a block map.
 */
static int owns_blocks(const struct extkit_inode *inode)
{
	if (!S_ISDIR(inode->mode) && !S_ISREG(inode->mode) &&
	    !S_ISLNK(inode->mode))
		return 0;
	return extkit_inode_has_block_map(inode);
}

int fsck_scan_blocks(struct fsck_ctx *ctx, uint32_t ino,
		     struct extkit_inode *inode, struct fsck_blk_result *res)
{
	struct scan s = { .ctx = ctx, .ino = ino, .inode = inode, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	res->last_lblk = -1;
	res->last_init_lblk = -1;
	if (ino == EXT2_RESIZE_INO &&
	    extkit_has_compat(&ctx->fs->sb, EXT2_FEATURE_COMPAT_RESIZE_INODE))
		rc = scan_resize(&s);
	else if (!owns_blocks(inode))
		rc = 0;
	else if (inode->flags & EXT4_EXTENTS_FL)
		rc = fsck_scan_extent_tree(ctx, ino, inode, res);
	else
		rc = scan_indirect(&s);
	for (int i = 0; i < IND_LEVELS; i++)
		free(s.bufs[i]);
	return rc;
}

/* ---- releasing a deleted inode's blocks ---- */

static int release_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		      uint32_t count, int flags, void *arg)
{
	fsck_block_unmark(arg, pblk, count);
	return 0;
}

int fsck_release_blocks(struct fsck_ctx *ctx,
			const struct extkit_inode *inode)
{
	int rc;

	if (inode->file_acl && extkit_fs_valid_block(ctx->fs, inode->file_acl))
		fsck_ea_release(ctx, inode->file_acl);
	rc = extkit_block_walk(ctx->fs, inode, release_fn, ctx);
	return rc < 0 && rc != -ENOMEM ? 0 : rc;
}

/* ---- remapping an indirect map (pass 1B clones) ---- */

struct remap {
	struct fsck_ctx *ctx;
	fsck_remap_fn fn;
	void *arg;
	int err;
};

/* Under a private copy: an indirect block pass 1 found full of garbage
 * (its fix stayed in memory, the parent being shared) is dropped. */
static int garbage_child(struct remap *r, uint32_t blk, int level)
{
	struct extkit_fs *fs = r->ctx->fs;
	uint8_t *buf;
	int bad;

	if (!level)
		return 0;
	buf = malloc(fs->g.block_size);
	if (!buf)
		return 0;
	bad = !extkit_fs_read_block(fs, blk, buf) && garbage_count(fs, buf);
	free(buf);
	return bad;
}

/* Remaps *slot (a block at level: 0 data, 1..3 indirect); 1 if changed.
 * in_copy: *slot is an entry of a private copy made by this remap. */
static int remap_slot(struct remap *r, uint32_t *slot, int level,
		      int in_copy)
{
	struct extkit_fs *fs = r->ctx->fs;
	uint32_t apb = fs->g.addr_per_block;
	uint64_t nb;
	uint8_t *buf;
	int changed = 0, dirty = 0;

	if (!*slot || !extkit_fs_valid_block(fs, *slot) || r->err)
		return 0;
	if (in_copy && garbage_child(r, *slot, level)) {
		*slot = 0;
		return 1;
	}
	nb = r->fn(r->ctx, *slot, level, r->arg);
	if (!nb) {
		r->err = -ENOSPC;
		return 0;
	}
	if (nb != *slot) {
		*slot = (uint32_t)nb;
		changed = 1;
	}
	if (!level)
		return changed;
	buf = malloc(fs->g.block_size);
	if (!buf || extkit_fs_read_block(fs, *slot, buf)) {
		free(buf);
		r->err = buf ? -EIO : -ENOMEM;
		return changed;
	}
	for (uint32_t i = 0; i < apb; i++) {
		uint32_t b = get_le32(buf + 4 * i);

		/* A private copy drops the illegal numbers pass 1 reported
		 * (not written there: the block was shared). */
		if (changed && b && !extkit_fs_valid_block(fs, b)) {
			put_le32(buf + 4 * i, 0);
			dirty = 1;
			continue;
		}
		if (remap_slot(r, &b, level - 1, changed)) {
			put_le32(buf + 4 * i, b);
			dirty = 1;
		}
	}
	if (dirty && extkit_fs_write_block(fs, *slot, buf))
		r->err = -EIO;
	free(buf);
	return changed;
}

int fsck_remap_blocks(struct fsck_ctx *ctx, struct extkit_inode *inode,
		      fsck_remap_fn fn, void *arg)
{
	struct remap r = { .ctx = ctx, .fn = fn, .arg = arg };

	if (!extkit_inode_has_block_map(inode))
		return 0;
	if (inode->flags & EXT4_EXTENTS_FL)
		return -EXTKIT_EUNSUPP;	/* fsck_clone_extents() */
	for (int i = 0; i < EXT2_N_BLOCKS; i++) {
		int level = i < EXT2_NDIR_BLOCKS ? 0 : i - EXT2_NDIR_BLOCKS + 1;

		remap_slot(&r, &inode->block[i], level, 0);
	}
	return r.err;
}
