// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1B for extent-mapped inodes (e2fsck's clone_file on an extent
 * tree), through the library's walker: every block the inode shares gets
 * a private copy.
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

#include "error.h"
#include "extent.h"
#include "fs.h"
#include "ondisk.h"
#include "walk.h"

#include "fsck.h"

#define MAX_PIECES	16

struct ext_clone {
	struct fsck_ctx *ctx;
	uint32_t ino;			/* the owner of the copies */
	const struct extkit_inode *inode;
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

static int copy_blocks(struct ext_clone *c, uint64_t from, uint64_t to,
		       uint32_t count, int data)
{
	int rc = 0;

	for (uint32_t i = 0; i < count && !rc; i++)
		rc = fsck_copy_block(c->ctx, from + i, to + i, c->ino,
				     c->inode, data);
	return rc;
}

/* A fresh run of count blocks holding a copy of from..; 0 on failure. */
static uint64_t clone_run(struct ext_clone *c, uint64_t from, uint32_t count,
			  int data)
{
	uint64_t nb;
	int rc;

	rc = fsck_new_run(c->ctx, from, count, &nb);
	if (!rc)
		rc = copy_blocks(c, from, nb, count, data);
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
	uint64_t nb = clone_run(c, ex->pblk, ex->len, 1);

	if (!nb)
		return 0;
	fsck_block_unmark(c->ctx, ex->pblk, ex->len);
	ex->pblk = nb;
	extkit_extent_put(node, i, ex);
	return EXTKIT_WALK_EDITED;
}

/*
 * Clones the shared blocks of the leaf entry e: the pieces take its place
 * in its node, the walk passing over the ones after it.
 */
static int clone_extent(struct ext_clone *c, struct extkit_walk_ent *e)
{
	struct piece p[MAX_PIECES];
	struct extkit_extent ex;
	uint16_t i = e->index;
	int n;

	extkit_extent_get(e->node, i, &ex);
	n = cut_pieces(c->ctx, &ex, p, MAX_PIECES);
	if (n == 1 && !p[0].shared)
		return 0;
	if (!n || n == 1 ||
	    extkit_extent_open_slots(e->node, i + 1, (uint16_t)(n - 1),
				     e->cap))
		return move_extent(c, e->node, i, &ex);
	for (int k = 0; k < n; k++) {
		struct extkit_extent piece = {
			.lblk = p[k].lblk, .pblk = p[k].pblk, .len = p[k].len,
			.unwritten = ex.unwritten,
		};

		if (p[k].shared) {
			uint64_t nb = clone_run(c, p[k].pblk, p[k].len, 1);

			if (nb)
				piece.pblk = nb;
		}
		extkit_extent_put(e->node, (uint16_t)(i + k), &piece);
	}
	e->skip = (uint16_t)(n - 1);
	return EXTKIT_WALK_EDITED;
}

/*
 * The walker's callback. A shared tree block is copied when entered and
 * its parent entry pointed at the copy, which the walk writes (its
 * checksum seeded with its new owner) after cloning inside it.
 */
static int clone_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		    void *arg)
{
	struct ext_clone *c = arg;
	uint64_t nb;

	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad == EXTKIT_WALK_BAD_READ || e->bad == EXTKIT_WALK_BAD_DEPTH) {
		if (!c->err)
			c->err = -EFSCORRUPTED;
		return 0;
	}
	if (e->bad && e->bad != EXTKIT_WALK_BAD_ORDER &&
	    e->bad != EXTKIT_WALK_BAD_PAST)
		return 0;
	if (!(e->flags & EXTKIT_WALK_META))
		return clone_extent(c, e);
	if (e->bad || !is_dup(c->ctx, e->pblk))
		return 0;
	nb = clone_run(c, e->pblk, 1, 0);
	if (!nb)
		return EXTKIT_WALK_SKIP;
	e->pblk = nb;
	return EXTKIT_WALK_CHANGED;
}

int fsck_clone_extents(struct fsck_ctx *ctx, uint32_t ino,
		       struct extkit_inode *inode)
{
	struct ext_clone c = { .ctx = ctx, .ino = ino, .inode = inode };
	struct extkit_walk wk = { .ino = ino, .fn = clone_fn, .arg = &c };
	int rc = extkit_walk(ctx->fs, inode, &wk);

	if (!c.err && rc < 0 && rc != -EFSCORRUPTED)
		c.err = rc;
	return c.err;
}
