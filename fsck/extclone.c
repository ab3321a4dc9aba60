// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1B for extent-mapped inodes (e2fsck's clone_file on an extent
 * tree), through the library's walker: every block the inode shares and
 * another owner keeps (fsck_dup_must_copy: the last owner keeps it) gets
 * a private copy.
 *
 * A shared tree block is copied and its parent entry pointed at the copy
 * before its own entries are looked at. A leaf extent with blocks to copy
 * is cut into pieces, each run of blocks to copy and each run of the
 * others; every run to copy gets a fresh contiguous run of blocks holding
 * a copy of the data, and the pieces replace the extent in its node.
 * When the node has no room for the extra entries, the extent is left
 * for a second step that grows the tree: every leaf extent is read into
 * a list, the waiting ones are cut and copied there, and a new tree is
 * built over the list (lib/mapbuild.c: as many leaves and index levels
 * as it needs) in fresh blocks, the old tree blocks being released. The
 * inode, written last by the caller, switches from the old tree to the
 * new one, so an interrupted repair leaves the old tree whole.
 *
 * Relies on block_dup from pass 1 and allocates from block_found
 * (fsck_new_run), as the block-map clone does.
 */
#include "config.h"

#include <stdlib.h>

#include "csum.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "inode.h"
#include "mapbuild.h"
#include "ondisk.h"
#include "walk.h"

#include "dups.h"
#include "fsck.h"

#define MAX_PIECES	16

/* A growing array of extents (the second step's list). */
struct ext_list {
	struct extkit_extent *e;
	uint64_t n, cap;
};

struct ext_clone {
	struct fsck_ctx *ctx;
	struct fsck_dups *dups;
	uint32_t ino;			/* the owner of the copies */
	const struct extkit_inode *inode;
	int err;		/* first failure; the walk goes on */
	int grow;		/* an extent waits for a bigger tree */
	int copied;		/* data blocks were copied */
	struct ext_list list;	/* second step: the leaf extents */
	struct ext_list meta;	/* second step: the old tree blocks (lblk
				 * unused, pblk each) */
	struct ext_list kept;	/* a reserved inode's shared blocks it
				 * keeps, with the logical block keeping
				 * each (a later reference copies) */
};

struct piece {
	uint64_t lblk;
	uint64_t pblk;
	uint32_t len;
	int shared;
};

static int list_add(struct ext_list *l, const struct extkit_extent *ex);

/*
 * Whether the clone copies blk, the inode's logical block lblk (a tree
 * block: the first it maps): shared and kept by another owner. A
 * reserved inode keeps what no group metadata owns, by its first
 * reference only: a journal mapping one block twice copies it for the
 * second (the block-map clone's reserved_keeps).
 */
static int must_copy(struct ext_clone *c, uint64_t blk, uint64_t lblk)
{
	struct extkit_extent ex = { .lblk = lblk, .pblk = blk };

	if (!fsck_dup_must_copy(c->ctx, c->dups, blk))
		return 0;
	if (!fsck_dup_reserved_keeps(c->ctx, c->dups, c->ino, blk))
		return 1;
	for (uint64_t i = 0; i < c->kept.n; i++)
		if (c->kept.e[i].pblk == blk)
			return c->kept.e[i].lblk != lblk;
	return list_add(&c->kept, &ex) ? 1 : 0;
}

static int list_add(struct ext_list *l, const struct extkit_extent *ex)
{
	if (l->n == l->cap) {
		uint64_t cap = l->cap ? 2 * l->cap : 64;
		struct extkit_extent *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		l->e = e;
		l->cap = cap;
	}
	l->e[l->n++] = *ex;
	return 0;
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

/* A fresh run of count blocks holding a copy of from.., each block given
 * up by this owner; 0 on failure. */
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
	for (uint32_t i = 0; i < count; i++)
		fsck_dup_copied(c->ctx, c->dups, from + i);
	return nb;
}

/* Cuts ex into runs of blocks to copy (shared) and the others; the
 * number of pieces, or 0 when there would be more than max. */
static int cut_pieces(struct ext_clone *c, const struct extkit_extent *ex,
		      struct piece *p, int max)
{
	int n = 0;

	for (uint32_t i = 0; i < ex->len; i++) {
		int shared = must_copy(c, ex->pblk + i, ex->lblk + i);

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

/* The pieces of ex with the shared ones copied, each through put. */
static int clone_pieces(struct ext_clone *c, const struct extkit_extent *ex,
			const struct piece *p, int n,
			int (*put)(void *, int, const struct extkit_extent *),
			void *arg)
{
	int rc = 0;

	for (int k = 0; k < n && !rc; k++) {
		struct extkit_extent piece = {
			.lblk = p[k].lblk, .pblk = p[k].pblk, .len = p[k].len,
			.unwritten = ex->unwritten,
		};

		if (p[k].shared) {
			uint64_t nb = clone_run(c, p[k].pblk, p[k].len, 1);

			if (nb) {
				piece.pblk = nb;
				c->copied = 1;
			}
		}
		rc = put(arg, k, &piece);
	}
	return rc;
}

struct node_put {
	uint8_t *node;
	uint16_t at;
};

static int put_in_node(void *arg, int k, const struct extkit_extent *ex)
{
	struct node_put *np = arg;

	extkit_extent_put(np->node, (uint16_t)(np->at + k), ex);
	return 0;
}

static int put_in_list(void *arg, int k, const struct extkit_extent *ex)
{
	(void)k;
	return list_add(arg, ex);
}

/*
 * Clones the shared blocks of the leaf entry e: the pieces take its place
 * in its node, the walk passing over the ones after it. Without room in
 * the node the extent waits for the second step.
 */
static int clone_extent(struct ext_clone *c, struct extkit_walk_ent *e)
{
	struct piece p[MAX_PIECES];
	struct extkit_extent ex;
	struct node_put np = { e->node, e->index };
	int n;

	extkit_extent_get(e->node, e->index, &ex);
	n = cut_pieces(c, &ex, p, MAX_PIECES);
	if (n == 1 && !p[0].shared)
		return 0;
	if (!n || extkit_extent_open_slots(e->node, (uint16_t)(e->index + 1),
					   (uint16_t)(n - 1), e->cap)) {
		c->grow = 1;
		return 0;
	}
	clone_pieces(c, &ex, p, n, put_in_node, &np);
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
	if (e->bad)
		return 0;
	if (!must_copy(c, e->pblk, e->lblk)) {
		/* kept, shared or not: it gets this owner's checksum */
		if (extkit_has_metadata_csum(&fs->sb) &&
		    extkit_bitmap_test(&c->ctx->block_dup, e->pblk -
				       fs->sb.first_data_block) == 1)
			return EXTKIT_WALK_EDITED;
		return 0;
	}
	nb = clone_run(c, e->pblk, 1, 0);
	if (!nb)
		return EXTKIT_WALK_SKIP;
	e->pblk = nb;
	return EXTKIT_WALK_CHANGED;
}

/* Second step, the walk: every leaf extent into c->list (the waiting
 * ones cut and copied), every tree block into c->meta. */
static int collect_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		      void *arg)
{
	struct ext_clone *c = arg;
	struct piece *p;
	struct extkit_extent ex = { .pblk = e->pblk };
	int n, rc;

	(void)fs;
	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad && e->bad != EXTKIT_WALK_BAD_ORDER &&
	    e->bad != EXTKIT_WALK_BAD_PAST)
		return -EFSCORRUPTED;
	if (e->flags & EXTKIT_WALK_META)
		return list_add(&c->meta, &ex);
	extkit_extent_get(e->node, e->index, &ex);
	p = malloc(ex.len * sizeof(*p));
	if (!p)
		return -ENOMEM;
	n = cut_pieces(c, &ex, p, (int)ex.len);
	rc = clone_pieces(c, &ex, p, n, put_in_list, &c->list);
	free(p);
	return rc;
}

/* Second step, the new tree over c->list in fresh blocks; the old tree
 * blocks are released and i_blocks follows. */
static int grow_tree(struct ext_clone *c, struct extkit_inode *inode)
{
	struct extkit_fs *fs = c->ctx->fs;
	struct extkit_walk wk = { .ino = c->ino, .flags = EXTKIT_WALK_DRY,
				  .fn = collect_fn, .arg = c };
	struct extkit_mapbuild mb = { .extents = 1 };
	uint64_t *meta = NULL, nblocks;
	int rc = extkit_walk(fs, inode, &wk);

	if (rc)
		return rc < 0 ? rc : -EFSCORRUPTED;
	mb.list = c->list.e;
	mb.nlist = c->list.n;
	rc = extkit_mapbuild_plan(fs, &mb);
	if (!rc) {
		meta = calloc(mb.nmeta + 1, sizeof(*meta));
		mb.bufs = calloc(mb.nmeta + 1, fs->g.block_size);
		if (!meta || !mb.bufs)
			rc = -ENOMEM;
	}
	for (uint64_t k = 0; !rc && k < mb.nmeta; k++)
		rc = fsck_new_block(c->ctx, k ? meta[k - 1] : c->list.e[0].pblk,
				    &meta[k]);
	if (!rc) {
		mb.meta = meta;
		extkit_mapbuild_fill(fs, &mb, inode);
		rc = extkit_mapbuild_write(fs, c->ino, inode->generation, &mb);
	}
	if (!rc) {
		nblocks = extkit_inode_blocks_bytes(fs, inode) /
			  fs->g.block_size;
		for (uint64_t k = 0; k < c->meta.n; k++)
			fsck_block_unmark(c->ctx, c->meta.e[k].pblk, 1);
		extkit_inode_set_fs_blocks(fs, inode,
					   nblocks + mb.nmeta - c->meta.n);
	}
	free(meta);
	free(mb.bufs);
	return rc;
}

struct rule_walk {
	uint32_t bits;
	uint64_t last_lblk, last_pblk;	/* last_pblk 0: none yet */
	int broken;
};

/* A leaf extent whose first block shares a logical cluster with the
 * block before it, in another physical cluster. */
static int rule_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		   void *arg)
{
	struct rule_walk *r = arg;
	uint64_t mask = ((uint64_t)1 << r->bits) - 1;

	(void)fs;
	if ((e->flags & (EXTKIT_WALK_META | EXTKIT_WALK_LEAVE)) || e->bad)
		return 0;
	if (r->last_pblk && (e->lblk & mask) &&
	    e->lblk >> r->bits == r->last_lblk >> r->bits &&
	    e->pblk >> r->bits != r->last_pblk >> r->bits)
		r->broken = 1;
	r->last_lblk = e->lblk + e->len - 1;
	r->last_pblk = e->pblk + e->len - 1;
	return 0;
}

/*
 * bigalloc: a copy of some blocks of a logical cluster lies in another
 * physical cluster than the blocks the file keeps, which breaks the
 * cluster rule (e2fsck's "violates cluster allocation rules" on the next
 * run); pass 1E then moves the logical cluster whole (extents_rebuild.c).
 */
static int queue_realign(struct fsck_ctx *ctx, uint32_t ino,
			 const struct extkit_inode *inode)
{
	const struct fsck_alloc_list *l = &ctx->to_extents;
	struct rule_walk r = { .bits = ctx->fs->g.cluster_bits };
	struct extkit_inode work = *inode;
	struct extkit_walk wk = { .flags = EXTKIT_WALK_DRY, .fn = rule_fn,
				  .arg = &r };

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == ino)
			return 0;
	if (extkit_walk(ctx->fs, &work, &wk) < 0 || !r.broken)
		return 0;
	return fsck_alloc_push(&ctx->to_extents, ino);
}

int fsck_clone_extents(struct fsck_ctx *ctx, struct fsck_dups *dups,
		       uint32_t ino, struct extkit_inode *inode)
{
	struct ext_clone c = { .ctx = ctx, .dups = dups, .ino = ino,
			       .inode = inode };
	struct extkit_walk wk = { .ino = ino, .fn = clone_fn, .arg = &c };
	int rc = extkit_walk(ctx->fs, inode, &wk);

	if (!c.err && rc < 0 && rc != -EFSCORRUPTED)
		c.err = rc;
	if (!c.err && c.grow)
		c.err = grow_tree(&c, inode);
	if (!c.err && c.copied && ctx->fs->g.cluster_ratio > 1)
		c.err = queue_realign(ctx, ino, inode);
	free(c.list.e);
	free(c.meta.e);
	free(c.kept.e);
	return c.err;
}
