// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1B for extent-mapped inodes (e2fsck's clone_file on an extent
 * tree): every block the inode shares gets a private copy.
 *
 * A shared tree block is copied and its parent entry pointed at the copy
 * before its own entries are looked at. A leaf extent with shared blocks
 * is cut into pieces, each run of shared blocks and each run of private
 * ones; every shared run gets a fresh contiguous run of blocks holding a
 * copy of the data, and the pieces replace the extent in its node. When
 * the node has no room for the extra entries (or the extent would need
 * more than MAX_PIECES of them), the whole extent is copied to one fresh
 * contiguous run instead, so that it stays one entry, and its old private
 * blocks are released (pass 5 frees them on disk). The tree never grows:
 * no new leaf, no new level.
 *
 * Relies on block_dup from pass 1 and allocates from block_found
 * (fsck_new_run), as the block-map clone does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "extent.h"
#include "fs.h"
#include "ondisk.h"

#include "fsck.h"

#define MAX_PIECES	16

struct ext_clone {
	struct fsck_ctx *ctx;
	uint32_t ino, gen;	/* the owner: seed of the block checksums */
	uint8_t *bufs[EXT4_EXT_MAX_DEPTH];	/* per child depth */
	int err;		/* first failure; the walk goes on */
};

struct piece {
	uint64_t lblk;
	uint64_t pblk;
	uint32_t len;
	int shared;
};

static int is_dup(struct fsck_ctx *ctx, uint64_t blk)
{
	return extkit_bitmap_test(&ctx->block_dup,
				  blk - ctx->fs->sb.first_data_block) == 1;
}

static int copy_blocks(struct fsck_ctx *ctx, uint64_t from, uint64_t to,
		       uint32_t count)
{
	int rc = 0;

	for (uint32_t i = 0; i < count && !rc; i++) {
		rc = extkit_fs_read_block(ctx->fs, from + i, ctx->blkbuf);
		if (!rc)
			rc = extkit_fs_write_block(ctx->fs, to + i,
						   ctx->blkbuf);
	}
	return rc;
}

/* A fresh run of count blocks holding a copy of from..; 0 on failure. */
static uint64_t clone_run(struct ext_clone *c, uint64_t from, uint32_t count)
{
	uint64_t nb;
	int rc;

	rc = fsck_new_run(c->ctx, from, count, &nb);
	if (!rc)
		rc = copy_blocks(c->ctx, from, nb, count);
	if (rc) {
		if (!c->err)
			c->err = rc;
		return 0;
	}
	return nb;
}

/* Cuts ex into runs of shared and private blocks; the number of pieces,
 * or 0 when there would be more than max. */
static int cut_pieces(struct fsck_ctx *ctx, const struct extkit_extent *ex,
		      struct piece *p, int max)
{
	int n = 0;

	for (uint32_t i = 0; i < ex->len; i++) {
		int shared = is_dup(ctx, ex->pblk + i);

		if (n && p[n - 1].shared == shared) {
			p[n - 1].len++;
			continue;
		}
		if (n == max)
			return 0;
		p[n].lblk = ex->lblk + i;
		p[n].pblk = ex->pblk + i;
		p[n].len = 1;
		p[n].shared = shared;
		n++;
	}
	return n;
}

/* The whole extent i to a fresh run; its old private blocks released. */
static int move_extent(struct ext_clone *c, uint8_t *node, uint16_t i,
		       struct extkit_extent *ex)
{
	uint64_t nb = clone_run(c, ex->pblk, ex->len);

	if (!nb)
		return 0;
	fsck_block_unmark(c->ctx, ex->pblk, ex->len);
	ex->pblk = nb;
	extkit_extent_put(node, i, ex);
	return 1;
}

/*
 * Clones the shared blocks of leaf entry i (node capacity cap). Returns
 * how many entries it now takes (>= 1); *dirty when the node changed.
 */
static uint16_t clone_extent(struct ext_clone *c, uint8_t *node, uint16_t i,
			     uint16_t cap, int *dirty)
{
	struct piece p[MAX_PIECES];
	struct extkit_extent ex;
	int n;

	extkit_extent_get(node, i, &ex);
	if (!ex.len || !extkit_fs_valid_block(c->ctx->fs, ex.pblk) ||
	    !extkit_fs_valid_block(c->ctx->fs, ex.pblk + ex.len - 1))
		return 1;
	n = cut_pieces(c->ctx, &ex, p, MAX_PIECES);
	if (n == 1 && !p[0].shared)
		return 1;
	if (!n || n == 1 ||
	    extkit_extent_open_slots(node, i + 1, (uint16_t)(n - 1), cap)) {
		*dirty |= move_extent(c, node, i, &ex);
		return 1;
	}
	*dirty = 1;
	for (int k = 0; k < n; k++) {
		struct extkit_extent piece = {
			.lblk = p[k].lblk, .pblk = p[k].pblk, .len = p[k].len,
			.unwritten = ex.unwritten,
		};

		if (p[k].shared) {
			uint64_t nb = clone_run(c, p[k].pblk, p[k].len);

			if (nb)
				piece.pblk = nb;
		}
		extkit_extent_put(node, (uint16_t)(i + k), &piece);
	}
	return (uint16_t)n;
}

static int clone_node(struct ext_clone *c, uint8_t *node, uint16_t cap);

/* Index entry i: a shared child is copied first, then cloned inside. */
static int clone_child(struct ext_clone *c, uint8_t *node, uint16_t i)
{
	struct extkit_fs *fs = c->ctx->fs;
	uint16_t depth = extkit_extent_depth(node) - 1;
	struct extkit_extent_idx ix;
	uint8_t *buf = c->bufs[depth];
	int dirty = 0;
	uint64_t nb;

	extkit_extent_idx_get(node, i, &ix);
	if (!extkit_fs_valid_block(fs, ix.child))
		return 0;
	if (is_dup(c->ctx, ix.child)) {
		nb = clone_run(c, ix.child, 1);
		if (!nb)
			return 0;
		ix.child = nb;
		extkit_extent_idx_put(node, i, &ix);
		dirty = 1;
	}
	if (extkit_fs_read_block(fs, ix.child, buf) ||
	    extkit_extent_depth(buf) != depth) {
		if (!c->err)
			c->err = -EFSCORRUPTED;
		return dirty;
	}
	/* A copied tree block is rewritten as well: its checksum is
	 * seeded with its new owner. */
	if ((clone_node(c, buf, extkit_extent_capacity(fs->g.block_size)) ||
	     dirty) &&
	    extkit_extent_write_block(fs, c->ino, c->gen, ix.child, buf) &&
	    !c->err)
		c->err = -EIO;
	return dirty;
}

/* Returns 1 when node changed. */
static int clone_node(struct ext_clone *c, uint8_t *node, uint16_t cap)
{
	int dirty = 0;

	if (extkit_extent_entries(node) > cap)
		return 0;
	if (!extkit_extent_depth(node)) {
		for (uint16_t i = 0; i < extkit_extent_entries(node);)
			i += clone_extent(c, node, i, cap, &dirty);
		return dirty;
	}
	for (uint16_t i = 0; i < extkit_extent_entries(node); i++)
		dirty |= clone_child(c, node, i);
	return dirty;
}

int fsck_clone_extents(struct fsck_ctx *ctx, uint32_t ino,
		       struct extkit_inode *inode)
{
	struct ext_clone c = { .ctx = ctx, .ino = ino,
			       .gen = inode->generation };
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];

	for (int i = 0; i < EXT4_EXT_MAX_DEPTH; i++) {
		c.bufs[i] = malloc(ctx->fs->g.block_size);
		if (!c.bufs[i])
			c.err = -ENOMEM;
	}
	extkit_extent_root_get(inode, root);
	if (!c.err && extkit_extent_depth(root) <= EXT4_EXT_MAX_DEPTH &&
	    clone_node(&c, root, EXTKIT_EXTENT_ROOT_MAX))
		extkit_extent_root_put(inode, root);
	for (int i = 0; i < EXT4_EXT_MAX_DEPTH; i++)
		free(c.bufs[i]);
	return c.err;
}
