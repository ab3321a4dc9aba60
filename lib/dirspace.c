// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The free-entry map of a directory (see dirspace.h). One walk of the
 * directory iterator feeds an accumulator that merges adjacent free runs
 * of a block into holes, buckets them, and packs the live records densely
 * to count the blocks they need; the map mode keeps, per block, the
 * largest record an insertion could place there, in a max-tree.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "dirspace.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "htree.h"

static const uint32_t bucket_min[EXTKIT_HOLE_BUCKETS] = {
	0, 16, 24, 32, 64, 128, 256, 512, 1024, 0
};

static const char *const bucket_label[EXTKIT_HOLE_BUCKETS] = {
	"12-15", "16-23", "24-31", "32-63", "64-127", "128-255", "256-511",
	"512-1023", "1024+", "empty_blocks"
};

uint32_t extkit_hole_bucket_min(unsigned int i)
{
	return i < EXTKIT_HOLE_BUCKETS ? bucket_min[i] : 0;
}

const char *extkit_hole_bucket_label(unsigned int i)
{
	return i < EXTKIT_HOLE_BUCKETS ? bucket_label[i] : "?";
}

unsigned int extkit_hole_bucket(uint32_t size)
{
	unsigned int i = EXTKIT_HOLE_BUCKET_EMPTY - 1;

	while (i > 0 && size < bucket_min[i])
		i--;
	return i;
}

double extkit_dirspace_small_hole_share(const struct extkit_dirspace_stats *st)
{
	if (!st->free_bytes)
		return 0.0;
	return (double)st->small_hole_bytes / (double)st->free_bytes;
}

double extkit_dirspace_free_share(const struct extkit_dirspace_stats *st)
{
	uint64_t all = st->live_bytes + st->free_bytes + st->overhead_bytes;

	return all ? (double)st->free_bytes / (double)all : 0.0;
}

/* ---- max-tree ---- */

static int maxtree_grow(struct extkit_maxtree *mt, uint64_t leaves)
{
	uint64_t size = mt->size ? mt->size : 16, i;
	uint32_t *t;

	if (leaves <= mt->size)
		return 0;
	while (size < leaves)
		size *= 2;
	t = calloc(2 * size, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < mt->size; i++)
		t[size + i] = mt->t[mt->size + i];
	for (i = size - 1; i >= 1; i--)
		t[i] = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
	free(mt->t);
	mt->t = t;
	mt->size = size;
	return 0;
}

static void maxtree_set(struct extkit_maxtree *mt, uint64_t i, uint32_t v)
{
	uint64_t n = mt->size + i;

	mt->t[n] = v;
	for (n /= 2; n >= 1; n /= 2)
		mt->t[n] = mt->t[2 * n] > mt->t[2 * n + 1] ? mt->t[2 * n] :
							    mt->t[2 * n + 1];
}

/* Leftmost leaf holding at least v: 0 and *i, or -ENOSPC. */
static int maxtree_first(const struct extkit_maxtree *mt, uint32_t v,
			 uint64_t *i)
{
	uint64_t n = 1;

	if (!mt->size || mt->t[1] < v)
		return -ENOSPC;
	while (n < mt->size)
		n = mt->t[2 * n] >= v ? 2 * n : 2 * n + 1;
	*i = n - mt->size;
	return 0;
}

/* ---- the accumulator ---- */

struct ds_walk {
	struct extkit_dirspace_stats *st;
	struct extkit_dirspace *ds;	/* NULL for figures only */
	const struct extkit_dir_format *fmt;
	struct extkit_fs *fs;
	struct extkit_dir_packer pack;
	struct extkit_dir_hole cur;	/* open hole (size 0: none) */
	uint64_t lblk;			/* block being walked */
	int in_block;
	uint32_t room;			/* of the block being walked */
	int block_bad;
};

static int ds_add_hole(struct extkit_dirspace *ds,
		       const struct extkit_dir_hole *h)
{
	struct extkit_dir_hole *nh;
	uint64_t cap;

	if (ds->nholes == ds->holes_cap) {
		cap = ds->holes_cap ? ds->holes_cap * 2 : 64;
		nh = realloc(ds->holes, cap * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		ds->holes = nh;
		ds->holes_cap = cap;
	}
	ds->holes[ds->nholes++] = *h;
	return 0;
}

static int ds_close_hole(struct ds_walk *w)
{
	struct extkit_dirspace_stats *st = w->st;
	uint32_t size = w->cur.size;
	unsigned int b;

	if (!size)
		return 0;
	w->cur.size = 0;
	st->holes++;
	if (size > st->largest_hole)
		st->largest_hole = size;
	if (size < EXTKIT_FRAG_SMALL_HOLE)
		st->small_hole_bytes += size;
	b = extkit_hole_bucket(size);
	if (w->cur.offset == 0 && size >= extkit_dirspace_usable(w->fmt))
		b = EXTKIT_HOLE_BUCKET_EMPTY;
	st->hist[b]++;
	if (w->ds && (w->ds->flags & EXTKIT_DIRSPACE_HOLES)) {
		struct extkit_dir_hole h = w->cur;

		h.size = size;
		return ds_add_hole(w->ds, &h);
	}
	return 0;
}

/* A free run at offset of size bytes: extends the open hole or opens one. */
static int ds_free_run(struct ds_walk *w, uint32_t offset, uint32_t size)
{
	int rc;

	w->st->free_bytes += size;
	if (w->cur.size && w->cur.offset + w->cur.size == offset) {
		w->cur.size += size;
		return 0;
	}
	rc = ds_close_hole(w);
	if (rc)
		return rc;
	w->cur.lblk = w->lblk;
	w->cur.offset = offset;
	w->cur.size = size;
	return 0;
}

/* The block just walked is done: its hole closes, its room is known. */
static int ds_end_block(struct ds_walk *w)
{
	int rc = ds_close_hole(w);

	if (rc || !w->in_block)
		return rc;
	w->in_block = 0;
	if (w->ds && !w->block_bad)
		maxtree_set(&w->ds->room, w->lblk, w->room);
	return 0;
}

static void ds_live(struct ds_walk *w, const struct extkit_dirent *e)
{
	uint32_t min = extkit_dirent_min_len(e->name_len);

	w->st->entries++;
	w->st->live_bytes += min;
	w->st->overhead_bytes += e->dx_overhead;
	/* in an htree root '.' and '..' stay in block 0 with the index */
	if (!(w->st->indexed && e->lblk == 0))
		extkit_packer_add(&w->pack, min);
	if (e->slack > w->room)
		w->room = e->slack;
}

static int ds_entry(struct ds_walk *w, const struct extkit_dirent *e)
{
	if (!w->in_block || e->lblk != w->lblk) {
		int rc = ds_end_block(w);

		if (rc)
			return rc;
		w->lblk = e->lblk;
		w->in_block = 1;
		w->room = 0;
		w->block_bad = 0;
		w->st->blocks++;
	}
	switch (e->kind) {
	case EXTKIT_DE_LIVE:
		ds_live(w, e);
		if (e->slack)
			return ds_free_run(w, e->offset + e->rec_len - e->slack,
					   e->slack);
		return ds_close_hole(w);
	case EXTKIT_DE_EMPTY:
		if (e->rec_len > w->room)
			w->room = e->rec_len;
		return ds_free_run(w, e->offset, e->rec_len);
	case EXTKIT_DE_TAIL:
	case EXTKIT_DE_DX_NODE:
		w->st->overhead_bytes += e->rec_len;
		return ds_close_hole(w);
	case EXTKIT_DE_CORRUPT:
		w->st->corrupt++;
		w->block_bad = 1;
		return ds_close_hole(w);
	case EXTKIT_DE_HOLE:
		break;
	}
	return 0;
}

/* blocks_needed from the packing (htree: root and index blocks too). */
static void ds_finish(struct ds_walk *w)
{
	struct extkit_dirspace_stats *st = w->st;
	uint64_t need = w->pack.blocks, nodes;
	uint32_t levels;

	if (st->indexed) {
		if (extkit_htree_index_blocks(w->fs, need, &nodes, &levels))
			nodes = 0;
		need += 1 + nodes;
	}
	if (!need && st->blocks)
		need = 1;
	st->blocks_needed = need;
	st->reclaimable_blocks = st->blocks > need ? st->blocks - need : 0;
}

static int ds_walk_run(struct ds_walk *w, struct extkit_dir_iter *it)
{
	struct extkit_dirent ent;
	int rc;

	w->fmt = &it->fmt;
	w->st->indexed = it->indexed;
	extkit_packer_init(&w->pack, extkit_dirspace_usable(&it->fmt));
	while ((rc = extkit_dir_iter_next(it, &ent)) > 0) {
		rc = ds_entry(w, &ent);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	rc = ds_end_block(w);
	if (rc)
		return rc;
	ds_finish(w);
	if (it->inline_dir) {
		/* held in the inode: no blocks to need or reclaim */
		w->st->blocks = 0;
		w->st->blocks_needed = 0;
		w->st->reclaimable_blocks = 0;
	}
	return 0;
}

int extkit_dirspace_scan(struct extkit_fs *fs, uint32_t ino,
			 struct extkit_dirspace_stats *st)
{
	struct ds_walk w = { .st = st, .fs = fs };
	struct extkit_dir_iter it;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = extkit_dir_iter_init(&it, fs, ino, 0);
	if (rc)
		return rc;
	rc = ds_walk_run(&w, &it);
	extkit_dir_iter_end(&it);
	return rc;
}

/* ---- the map ---- */

static int ds_reserve(struct extkit_dirspace *ds, uint64_t blocks)
{
	uint64_t cap = ds->blk_cap ? ds->blk_cap : 16, *np;
	int rc;

	if (blocks <= ds->blk_cap)
		return 0;
	while (cap < blocks)
		cap *= 2;
	np = realloc(ds->pblks, cap * sizeof(*np));
	if (!np)
		return -ENOMEM;
	memset(np + ds->blk_cap, 0, (cap - ds->blk_cap) * sizeof(*np));
	ds->pblks = np;
	ds->blk_cap = cap;
	rc = maxtree_grow(&ds->room, cap);
	return rc;
}

static void ds_reset(struct extkit_dirspace *ds)
{
	free(ds->pblks);
	free(ds->room.t);
	free(ds->holes);
	ds->pblks = NULL;
	ds->room.t = NULL;
	ds->room.size = 0;
	ds->holes = NULL;
	ds->nholes = ds->holes_cap = 0;
	ds->blk_cap = ds->nblocks = 0;
}

static int ds_load(struct extkit_dirspace *ds)
{
	struct ds_walk w = { .st = &ds->st, .ds = ds, .fs = ds->fs };
	struct extkit_dir_iter it;
	int rc;

	ds_reset(ds);
	memset(&ds->st, 0, sizeof(ds->st));
	rc = extkit_dir_iter_init(&it, ds->fs, ds->ino, 0);
	if (rc)
		return rc;
	ds->fmt = it.fmt;
	ds->gen = it.inode.generation;
	/* no insertion into an inline directory (yet) */
	rc = it.inline_dir ? -EXTKIT_EUNSUPP : ds_reserve(ds, it.nblocks);
	if (rc)
		goto out;
	ds->nblocks = it.nblocks;
	if (it.nblocks)
		memcpy(ds->pblks, it.pblks, it.nblocks * sizeof(*ds->pblks));
	rc = ds_walk_run(&w, &it);
	ds->stale = 0;
out:
	extkit_dir_iter_end(&it);
	return rc;
}

int extkit_dirspace_build(struct extkit_dirspace *ds, struct extkit_fs *fs,
			  uint32_t ino, int flags)
{
	int rc;

	memset(ds, 0, sizeof(*ds));
	ds->fs = fs;
	ds->ino = ino;
	ds->flags = flags;
	ds->buf = malloc(fs->g.block_size);
	if (!ds->buf)
		return -ENOMEM;
	rc = ds_load(ds);
	if (rc)
		extkit_dirspace_free(ds);
	return rc;
}

void extkit_dirspace_free(struct extkit_dirspace *ds)
{
	ds_reset(ds);
	free(ds->buf);
	ds->buf = NULL;
}

int extkit_dirspace_refresh(struct extkit_dirspace *ds)
{
	return ds->stale ? ds_load(ds) : 0;
}

uint32_t extkit_dirspace_room(const struct extkit_dirspace *ds,
			      uint64_t lblk)
{
	if (lblk >= ds->nblocks)
		return 0;
	return ds->room.t[ds->room.size + lblk];
}

int extkit_dirspace_set_room(struct extkit_dirspace *ds, uint64_t lblk,
			     uint64_t pblk, uint32_t room)
{
	int rc = ds_reserve(ds, lblk + 1);

	if (rc)
		return rc;
	if (lblk >= ds->nblocks)
		ds->nblocks = lblk + 1;
	ds->pblks[lblk] = pblk;
	maxtree_set(&ds->room, lblk, room);
	ds->stale = 1;
	return 0;
}

int extkit_dirspace_block_room(const struct extkit_dir_format *fmt,
			       const uint8_t *buf, uint32_t *room)
{
	struct extkit_dir_cursor c;
	uint32_t r = 0, have;
	int rc;

	extkit_dir_cursor_init(&c, fmt, buf, 0, extkit_dirspace_usable(fmt));
	while ((rc = extkit_dir_cursor_next(&c)) > 0) {
		have = c.rec_len;
		if (get_le32(buf + c.off))
			have -= extkit_dirent_min_len(extkit_dirent_name_len(fmt,
				(const struct ext2_dir_entry_2 *)(buf + c.off)));
		if (have > r)
			r = have;
	}
	if (rc < 0)
		return rc;
	*room = r;
	return 0;
}

/* First-fit walk from block 0, reading every block (the switch). */
static int ds_find_walk(struct extkit_dirspace *ds, uint32_t need,
			uint64_t *lblk)
{
	uint32_t room;
	uint64_t i;
	int rc;

	for (i = 0; i < ds->nblocks; i++) {
		if (!ds->pblks[i])
			continue;
		rc = extkit_fs_read_block(ds->fs, ds->pblks[i], ds->buf);
		if (rc)
			return rc;
		ds->visits++;
		if (extkit_dirspace_block_room(&ds->fmt, ds->buf, &room))
			continue;
		if (room >= need) {
			*lblk = i;
			return 0;
		}
	}
	return -ENOSPC;
}

int extkit_dirspace_find(struct extkit_dirspace *ds, uint32_t need,
			 uint64_t *lblk)
{
	if (ds->flags & EXTKIT_DIRSPACE_WALK)
		return ds_find_walk(ds, need, lblk);
	return maxtree_first(&ds->room, need, lblk);
}
