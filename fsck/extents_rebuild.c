// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1E: block-mapped files made extent files.
 *
 * On a bigalloc filesystem every file must be an extent file: a block map
 * cannot say which blocks of a cluster a file holds (e2fsck's
 * PR_1_NO_BIGALLOC_BLOCKMAP_FILES, which rebuilds the extents). Pass 1
 * queues such inodes (fsck_queue_to_extents, bigalloc_queue.c); this
 * pass runs after pass 1B and the indirect fixes, when each queued
 * file's blocks are its own, and for each one:
 *
 *   - walks its block map (read only): the data blocks become a list of
 *     extents in logical order (contiguous blocks merged, at most 32768
 *     a piece), the indirect blocks a list to release;
 *   - plans the extent tree (lib/mapbuild.c): the root in i_block holds 4
 *     extents, more take tree blocks, each given a whole free cluster
 *     (fsck_new_run) so that it shares none with another owner;
 *   - writes the tree blocks, then the inode (EXT4_EXTENTS_FL set,
 *     i_blocks the clusters its data and tree blocks cover), and only
 *     then releases the indirect blocks in fsck's maps (pass 5 writes the
 *     bitmaps).
 *
 * Extent files whose extents break the cluster rule (pass 1's
 * PR_1_MISALIGNED_CLUSTER) are queued too: their tree is rebuilt the
 * same way, the old tree blocks released. On bigalloc every logical
 * cluster that breaks the rule is first copied into a whole free
 * cluster (realign).
 *
 * A file whose tree cannot be planned or placed keeps its map and is
 * reported; so does an extent file with unwritten extents. Relies on: ctx->to_extents (pass 1); frees it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "extent.h"
#include "fs.h"
#include "inode.h"
#include "mapbuild.h"
#include "ondisk.h"
#include "walk.h"

#include "fsck.h"
#include "problem.h"

#define EXT_MAX_LEN	32768u	/* an initialized extent's longest */

struct to_ext {
	struct extkit_extent *ext;	/* data, in logical order */
	uint64_t n, cap;
	uint64_t *ind;			/* the indirect blocks */
	uint64_t nind, capind;
	uint64_t *old;			/* data blocks copied elsewhere */
	uint64_t nold, capold;
	uint64_t *taken;		/* the copies' runs: first, count */
	uint64_t ntaken, captaken;
};

static int grow(void **v, uint64_t *cap, uint64_t n, size_t size)
{
	void *p;
	uint64_t c = *cap ? *cap * 2 : 16;

	if (n < *cap)
		return 0;
	p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

/* Adds data block pblk at logical lblk, merged with the last extent
 * when both run on. */
static int add_data(struct to_ext *t, uint64_t lblk, uint64_t pblk)
{
	struct extkit_extent *last = t->n ? &t->ext[t->n - 1] : NULL;

	if (last && last->lblk + last->len == lblk &&
	    last->pblk + last->len == pblk && last->len < EXT_MAX_LEN) {
		last->len++;
		return 0;
	}
	if (grow((void **)&t->ext, &t->cap, t->n, sizeof(*t->ext)))
		return -ENOMEM;
	t->ext[t->n++] = (struct extkit_extent){ .lblk = lblk, .pblk = pblk,
						  .len = 1 };
	return 0;
}

static int collect_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		      void *arg)
{
	struct to_ext *t = arg;

	(void)fs;
	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad)
		return -EFSCORRUPTED;	/* pass 1 left it: not converted */
	if (!e->level && (e->flags & EXTKIT_WALK_UNWRITTEN))
		return -EXTKIT_EUNSUPP;	/* a rebuilt extent is written */
	/* an extent (a misaligned file's) maps a run of blocks */
	for (uint32_t k = 0; !e->level && k < e->len; k++) {
		int rc = add_data(t, e->lblk + k, e->pblk + k);

		if (rc)
			return rc;
	}
	if (!e->level)
		return 0;
	if (grow((void **)&t->ind, &t->capind, t->nind, sizeof(*t->ind)))
		return -ENOMEM;
	t->ind[t->nind++] = e->pblk;
	return 0;
}

/* ---- bigalloc's cluster rule ---- */

/* One logical cluster of the file being converted: its blocks (at most
 * cluster_ratio, up to 2^16). */
struct lcluster {
	uint64_t *lblk, *pblk;
	uint32_t n;
};

static int push(uint64_t **v, uint64_t *n, uint64_t *cap, uint64_t x)
{
	if (grow((void **)v, cap, *n, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

/*
 * Whether the blocks of one logical cluster keep bigalloc's rule as they
 * lie: all in one physical cluster, each at its logical offset, and no
 * other block of that cluster in use (by another owner, or by another
 * logical cluster of this file). A block map obeys none of this, so
 * e2fsck finds such a file "violates cluster allocation rules".
 */
static int lcluster_fits(struct fsck_ctx *ctx, const struct lcluster *c)
{
	uint32_t ratio = ctx->fs->g.cluster_ratio;
	uint64_t first = ctx->fs->sb.first_data_block;
	uint64_t pc = (c->pblk[0] - first) & ~(uint64_t)(ratio - 1);

	for (uint32_t i = 0; i < c->n; i++)
		if (((c->pblk[i] - first) & ~(uint64_t)(ratio - 1)) != pc ||
		    ((c->pblk[i] - first) & (ratio - 1)) !=
		    (c->lblk[i] & (ratio - 1)))
			return 0;
	return extkit_bitmap_count_range(&ctx->block_found, pc, ratio) ==
	       c->n;
}

/* Copies the blocks of a logical cluster that breaks the rule into a
 * whole free cluster, each at its logical offset; the old blocks are
 * released once the inode is written. */
static int lcluster_move(struct fsck_ctx *ctx, uint32_t ino,
			 const struct extkit_inode *inode, struct to_ext *t,
			 struct lcluster *c)
{
	uint32_t mask = ctx->fs->g.cluster_ratio - 1;
	uint64_t lo = c->lblk[0] & mask, hi = c->lblk[c->n - 1] & mask, base;
	int rc = fsck_new_run(ctx, ctx->fs->sb.first_data_block + lo,
			      (uint32_t)(hi - lo + 1), &base);

	if (rc)
		return rc;
	if (push(&t->taken, &t->ntaken, &t->captaken, base) ||
	    push(&t->taken, &t->ntaken, &t->captaken, hi - lo + 1))
		return -ENOMEM;
	for (uint32_t i = 0; i < c->n; i++) {
		uint64_t to = base + (c->lblk[i] & mask) - lo;

		rc = fsck_copy_block(ctx, c->pblk[i], to, ino, inode, 1);
		if (rc)
			return rc;
		if (push(&t->old, &t->nold, &t->capold, c->pblk[i]))
			return -ENOMEM;
		c->pblk[i] = to;
	}
	return 0;
}

/* Ends a logical cluster: moved when it breaks the rule, then added to
 * the new extent list. */
static int lcluster_flush(struct fsck_ctx *ctx, uint32_t ino,
			  const struct extkit_inode *inode, struct to_ext *t,
			  struct to_ext *out, struct lcluster *c)
{
	int rc = 0;

	if (!c->n)
		return 0;
	if (!lcluster_fits(ctx, c))
		rc = lcluster_move(ctx, ino, inode, t, c);
	for (uint32_t i = 0; !rc && i < c->n; i++)
		rc = add_data(out, c->lblk[i], c->pblk[i]);
	c->n = 0;
	return rc;
}

/* bigalloc: the data blocks laid out by the cluster rule, copying the
 * logical clusters that break it (t->ext replaced). */
static int realign(struct fsck_ctx *ctx, uint32_t ino,
		   const struct extkit_inode *inode, struct to_ext *t)
{
	uint32_t bits = ctx->fs->g.cluster_bits;
	uint32_t ratio = ctx->fs->g.cluster_ratio;
	struct to_ext out = { 0 };
	struct lcluster cl = { .lblk = malloc(ratio * sizeof(uint64_t)),
			       .pblk = malloc(ratio * sizeof(uint64_t)) };
	struct lcluster *c = &cl;
	int rc = cl.lblk && cl.pblk ? 0 : -ENOMEM;

	for (uint64_t i = 0; !rc && i < t->n; i++)
		for (uint32_t k = 0; !rc && k < t->ext[i].len; k++) {
			uint64_t l = t->ext[i].lblk + k;

			if (c->n && (c->lblk[0] >> bits) != (l >> bits))
				rc = lcluster_flush(ctx, ino, inode, t, &out,
						    c);
			if (rc)
				break;
			c->lblk[c->n] = l;
			c->pblk[c->n++] = t->ext[i].pblk + k;
		}
	if (!rc)
		rc = lcluster_flush(ctx, ino, inode, t, &out, c);
	free(cl.lblk);
	free(cl.pblk);
	free(t->ext);
	t->ext = out.ext;
	t->n = out.n;
	t->cap = out.cap;
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The blocks i_blocks counts: the clusters the data, the tree blocks and
 * the EA block (acl, 0: none) cover, whole (each cluster once). */
static int cluster_blocks(const struct extkit_fs *fs, const struct to_ext *t,
			  const uint64_t *meta, uint64_t nmeta, uint64_t acl,
			  uint64_t *out)
{
	uint32_t bits = fs->g.cluster_bits;
	uint64_t n = nmeta + 1, k = 0, distinct = 0, *c;

	for (uint64_t i = 0; i < t->n; i++)
		n += ((t->ext[i].pblk + t->ext[i].len - 1) >> bits) -
		     (t->ext[i].pblk >> bits) + 1;
	c = malloc((n + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (uint64_t i = 0; i < t->n; i++)
		for (uint64_t x = t->ext[i].pblk >> bits;
		     x <= (t->ext[i].pblk + t->ext[i].len - 1) >> bits; x++)
			c[k++] = x;
	for (uint64_t i = 0; i < nmeta; i++)
		c[k++] = meta[i] >> bits;
	if (acl)
		c[k++] = acl >> bits;
	qsort(c, k, sizeof(*c), cmp_u64);
	for (uint64_t i = 0; i < k; i++)
		distinct += !i || c[i] != c[i - 1];
	free(c);
	*out = distinct << bits;
	return 0;
}

/* Gives back the tree blocks taken when the conversion fails before its
 * first write. */
static void give_back(struct fsck_ctx *ctx, const uint64_t *meta, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		if (meta[k])
			fsck_block_unmark(ctx, meta[k], 1);
}

/*
 * The blocks the file gave up: its indirect blocks and the old places
 * of the data moved. A block pass 1 found shared is the file's alone
 * now that pass 1B gave every other owner a copy (or this file one, and
 * then the file no longer maps it); only when a clone was refused or
 * failed may another owner still map it.
 */
static void release_old(struct fsck_ctx *ctx, const struct to_ext *t)
{
	int resolved = !(ctx->flags & FSCK_FL_UNCORRECTED);

	for (uint64_t k = 0; k < t->nind; k++)
		if (resolved)
			fsck_block_unmark_owned(ctx, t->ind[k]);
		else
			fsck_block_unmark(ctx, t->ind[k], 1);
	for (uint64_t k = 0; k < t->nold; k++)
		if (resolved)
			fsck_block_unmark_owned(ctx, t->old[k]);
		else
			fsck_block_unmark(ctx, t->old[k], 1);
}

/* Plans, places and writes the new tree of ino; 0 when converted. */
static int convert(struct fsck_ctx *ctx, uint32_t ino,
		   struct extkit_inode *inode, struct to_ext *t)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_mapbuild mb = { .extents = 1 };
	uint64_t *meta = NULL, nblocks = 0;
	int rc;

	mb.list = t->ext;
	mb.nlist = t->n;
	rc = extkit_mapbuild_plan(fs, &mb);
	if (rc)
		return rc;
	meta = calloc(mb.nmeta + 1, sizeof(*meta));
	mb.bufs = calloc(mb.nmeta + 1, fs->g.block_size);
	if (!meta || !mb.bufs)
		rc = -ENOMEM;
	for (uint64_t k = 0; !rc && k < mb.nmeta; k++)
		rc = fsck_new_run(ctx, t->n ? t->ext[0].pblk : 0, 1, &meta[k]);
	if (!rc)
		rc = cluster_blocks(fs, t, meta, mb.nmeta, inode->file_acl,
				    &nblocks);
	if (rc) {
		give_back(ctx, meta, mb.nmeta);
		goto out;
	}
	mb.meta = meta;
	memset(inode->block, 0, sizeof(inode->block));
	extkit_mapbuild_fill(fs, &mb, inode);
	rc = extkit_mapbuild_write(fs, ino, inode->generation, &mb);
	if (rc)
		goto out;
	extkit_inode_set_fs_blocks(fs, inode, nblocks);
	inode->flags &= ~EXT4_HUGE_FILE_FL;
	rc = fsck_write_inode(ctx, ino, inode);
	if (rc)
		goto out;
	release_old(ctx, t);
	t->ntaken = 0;	/* the copies are the file's now */
	fsck_mark_changed(ctx);
out:
	free(meta);
	free(mb.bufs);
	return rc;
}

static void to_extents(struct fsck_ctx *ctx, uint32_t ino)
{
	struct to_ext t = { 0 };
	struct extkit_inode inode;
	struct extkit_walk wk = { .ino = ino, .flags = EXTKIT_WALK_DRY,
				  .fn = collect_fn, .arg = &t };
	struct problem_context pctx;
	int rc;

	rc = extkit_inode_read(ctx->fs, ino, &inode);
	if (!rc && (!fsck_inode_used(ctx, ino) ||
		    (inode.flags & EXT4_INLINE_DATA_FL)))
		goto out;	/* cleared or changed since pass 1 */
	if (!rc)
		rc = extkit_walk(ctx->fs, &inode, &wk);
	if (rc > 0)
		rc = -EFSCORRUPTED;
	if (!rc && ctx->fs->g.cluster_ratio > 1)
		rc = realign(ctx, ino, &inode, &t);
	if (!rc)
		rc = convert(ctx, ino, &inode, &t);
	/* a failed conversion leaves the file as it was: its copies go */
	for (uint64_t k = 0; k + 1 < t.ntaken; k += 2)
		fsck_block_unmark(ctx, t.taken[k], (uint32_t)t.taken[k + 1]);
	if (rc) {
		clear_problem_context(&pctx);
		pctx.ino = ino;
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_1E_TO_EXTENTS_FAILED, &pctx);
	}
out:
	free(t.ext);
	free(t.ind);
	free(t.old);
	free(t.taken);
}

int fsck_pass1e(struct fsck_ctx *ctx)
{
	struct fsck_alloc_list *l = &ctx->to_extents;

	for (size_t i = 0; i < l->n && !ctx->readonly; i++)
		to_extents(ctx, (uint32_t)l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
	return 0;
}
