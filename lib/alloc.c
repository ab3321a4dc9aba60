// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block allocation over the on-disk block bitmaps (see alloc.h). Each call
 * loads one group's bitmap into an extkit_bitmap and works on it by ranges.
 * The searches and markings work in the bitmaps' unit, "shift" bits of
 * block number wide: 0 (a block) for the block interface, cluster_bits
 * for the cluster one.
 */
#include "config.h"

#include <stdlib.h>

#include "alloc.h"
#include "alloc_stats.h"
#include "bitmap.h"
#include "csum.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"
#include "super.h"

/* A group's block bitmap, loaded (its units: clusters, or blocks). */
struct group_map {
	struct extkit_group_map m;
	uint64_t first;		/* the group's first unit */
	uint32_t count;		/* units in the group */
};

static int writable(const struct extkit_fs *fs)
{
	if (extkit_has_ro_compat(&fs->sb, EXT4_FEATURE_RO_COMPAT_BIGALLOC) &&
	    !fs->alloc_whole_clusters)
		return -EXTKIT_EUNSUPP;
	return 0;
}

/* Loads group g's block bitmap; shift is the unit's (the bitmaps':
 * fs->g.cluster_bits). */
static int gmap_load(struct extkit_fs *fs, uint32_t g, uint32_t shift,
		     struct group_map *m)
{
	int rc;

	if (shift != fs->g.cluster_bits)
		return -EXTKIT_EUNSUPP;
	rc = extkit_group_map_load(fs, g, EXTKIT_MAP_BLOCKS, &m->m);
	if (rc)
		return rc;
	m->first = extkit_group_first_block(&fs->sb, g) >> shift;
	m->count = m->m.bits;
	return 0;
}

/* Writes the group's bits back (alloc_stats.c: padding, checksum). */
static int gmap_store(struct extkit_fs *fs, struct group_map *m)
{
	return extkit_group_map_store(fs, &m->m);
}

static void gmap_free(struct group_map *m)
{
	extkit_group_map_free(&m->m);
}

static int alloc_in_group(struct extkit_fs *fs, uint32_t g, uint64_t goal,
			  uint64_t *blk)
{
	struct group_map m;
	uint64_t found, from = 0;
	int rc;

	if (!fs->groups[g].free_blocks ||
	    (fs->groups[g].flags & EXT4_BG_BLOCK_UNINIT))
		return -ENOSPC;
	rc = gmap_load(fs, g, 0, &m);
	if (rc)
		return rc;
	if (goal >= m.first && goal < m.first + m.count)
		from = goal - m.first;
	rc = extkit_bitmap_find_first_zero(&m.m.bm, from, m.count - from,
					   &found);
	if (rc == -ENOENT && from)
		rc = extkit_bitmap_find_first_zero(&m.m.bm, 0, from, &found);
	if (rc == -ENOENT)
		rc = -ENOSPC;
	if (!rc)
		rc = extkit_bitmap_set(&m.m.bm, found);
	if (!rc)
		rc = gmap_store(fs, &m);
	if (!rc) {
		*blk = m.first + found;
		extkit_alloc_stats_blocks(fs, g, 1, 1);
	}
	gmap_free(&m);
	return rc;
}

int extkit_alloc_block(struct extkit_fs *fs, uint64_t goal, uint64_t *blk)
{
	uint32_t g0, g, i, n = fs->g.group_count;
	int rc = fs->g.cluster_bits ? -EXTKIT_EUNSUPP : writable(fs);

	if (rc)
		return rc;
	if (!extkit_fs_valid_block(fs, goal))
		goal = fs->sb.first_data_block;
	g0 = extkit_group_of_block(&fs->sb, goal);
	for (i = 0; i < n; i++) {
		g = (g0 + i) % n;
		rc = alloc_in_group(fs, g, goal, blk);
		if (rc != -ENOSPC)
			return rc;
	}
	return -ENOSPC;
}

/* The group of unit u. */
static uint32_t unit_group(const struct extkit_fs *fs, uint32_t shift,
			   uint64_t u)
{
	return extkit_group_of_block(&fs->sb, u << shift);
}

/* Group of unit u and the part of [u, end) inside it. */
static uint32_t group_part(const struct extkit_fs *fs, uint32_t shift,
			   uint64_t u, uint64_t end, uint32_t *count)
{
	uint32_t g = unit_group(fs, shift, u);
	uint64_t gend = (extkit_group_first_block(&fs->sb, g) >> shift) +
			((extkit_group_block_count(&fs->sb, g) +
			  (1u << shift) - 1) >> shift);

	*count = (uint32_t)((gend < end ? gend : end) - u);
	return g;
}

static int check_range(const struct extkit_fs *fs, uint32_t shift,
		       uint64_t start, uint64_t count)
{
	if (!count)
		return 0;
	if (start + count < start ||
	    start + count - 1 > (UINT64_MAX >> shift) ||
	    !extkit_fs_valid_block(fs, start << shift) ||
	    !extkit_fs_valid_block(fs, (start + count - 1) << shift))
		return -EFSCORRUPTED;
	return 0;
}

/* *used: how many units of [start, start + count) are marked in use. */
static int count_used(struct extkit_fs *fs, uint32_t shift, uint64_t start,
		      uint64_t count, uint64_t *used)
{
	uint64_t end = start + count;
	struct group_map m;
	uint32_t g, n;
	int rc = check_range(fs, shift, start, count);

	*used = 0;
	while (!rc && start < end) {
		g = group_part(fs, shift, start, end, &n);
		rc = gmap_load(fs, g, shift, &m);
		if (rc)
			break;
		*used += extkit_bitmap_count_range(&m.m.bm, start - m.first, n);
		gmap_free(&m);
		start += n;
	}
	return rc;
}

int extkit_blocks_all_used(struct extkit_fs *fs, uint64_t start,
			   uint64_t count)
{
	uint32_t bits = fs->g.cluster_bits;
	uint64_t used, s = start >> bits, n;
	int rc;

	if (!count)
		return 1;
	n = ((start + count - 1) >> bits) - s + 1;	/* clusters touched */
	rc = count_used(fs, bits, s, n, &used);
	return rc ? rc : used == n;
}

/* Where a search for free blocks appends what it finds: block by block
 * into blks, or (blks NULL) as runs into a growing runs array. */
struct find_out {
	uint32_t shift;		/* the unit searched for and put out */
	const struct extkit_blk_run *skip;
	size_t nskip;
	uint64_t want;
	uint64_t found;
	uint64_t *blks;
	struct extkit_blk_run *runs;
	size_t nruns, cap;
};

/* Appends the free blocks [b, b + n). */
static int put_found(struct find_out *o, uint64_t b, uint64_t n)
{
	struct extkit_blk_run *r;

	o->found += n;
	if (o->blks) {
		for (uint64_t i = 0; i < n; i++)
			o->blks[o->found - n + i] = b + i;
		return 0;
	}
	if (o->nruns && o->runs[o->nruns - 1].start +
			o->runs[o->nruns - 1].len == b) {
		o->runs[o->nruns - 1].len += n;
		return 0;
	}
	if (o->nruns == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;

		r = realloc(o->runs, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		o->runs = r;
		o->cap = cap;
	}
	o->runs[o->nruns].start = b;
	o->runs[o->nruns++].len = n;
	return 0;
}

/* The first skip run ending after blk (nskip when none). */
static size_t skip_after(const struct find_out *o, uint64_t blk)
{
	size_t lo = 0, hi = o->nskip;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->skip[mid].start + o->skip[mid].len <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Appends the free blocks [b, e), less the skip runs, up to want. */
static int take_free_run(struct find_out *o, uint64_t b, uint64_t e)
{
	size_t k = skip_after(o, b);
	int rc = 0;

	while (!rc && b < e && o->found < o->want) {
		uint64_t stop = e, n;

		if (k < o->nskip && o->skip[k].start <= b) {
			b = o->skip[k].start + o->skip[k].len;
			k++;
			continue;
		}
		if (k < o->nskip && o->skip[k].start < stop)
			stop = o->skip[k].start;
		n = stop - b < o->want - o->found ? stop - b :
		    o->want - o->found;
		rc = put_found(o, b, n);
		b += n;
	}
	return rc;
}

/* Appends the free blocks of group g in [from, end), a run at a time. */
static int find_in_group(struct extkit_fs *fs, uint32_t g, uint64_t from,
			 uint64_t end, struct find_out *o)
{
	struct group_map m;
	uint64_t z, set, stop;
	int rc;

	if (!fs->groups[g].free_blocks ||
	    (fs->groups[g].flags & EXT4_BG_BLOCK_UNINIT))
		return 0;
	rc = gmap_load(fs, g, o->shift, &m);
	if (rc)
		return rc;
	from = from > m.first ? from - m.first : 0;
	stop = end > m.first ? end - m.first : 0;
	if (stop > m.count)
		stop = m.count;
	while (!rc && o->found < o->want && from < stop &&
	       !extkit_bitmap_find_first_zero(&m.m.bm, from, stop - from, &z)) {
		if (extkit_bitmap_find_first_set(&m.m.bm, z, stop - z, &set))
			set = stop;
		rc = take_free_run(o, m.first + z, m.first + set);
		from = set;
	}
	gmap_free(&m);
	return rc;
}

static int find(struct extkit_fs *fs, uint64_t goal, struct find_out *o);

/* Skip runs of blocks as sorted, merged runs of the clusters they touch
 * (*n of them; NULL and 0 when there are none or on ENOMEM: *err). */
static struct extkit_blk_run *skip_clusters(const struct extkit_fs *fs,
					    const struct find_out *o,
					    size_t *n, int *err)
{
	uint32_t bits = fs->g.cluster_bits;
	uint64_t mask = (1ULL << bits) - 1;
	struct extkit_blk_run *r;
	size_t k = 0;

	*n = 0;
	*err = 0;
	if (!o->nskip)
		return NULL;
	r = malloc(o->nskip * sizeof(*r));
	if (!r) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < o->nskip; i++) {
		uint64_t s = o->skip[i].start >> bits;
		uint64_t e = (o->skip[i].start + o->skip[i].len + mask) >> bits;

		if (k && r[k - 1].start + r[k - 1].len >= s) {
			if (e > r[k - 1].start + r[k - 1].len)
				r[k - 1].len = e - r[k - 1].start;
			continue;
		}
		r[k].start = s;
		r[k++].len = e - s;
	}
	*n = k;
	return r;
}

/* fs->alloc_whole_clusters: whole free clusters, put out as blocks. */
static int find_whole(struct extkit_fs *fs, uint64_t goal, struct find_out *o)
{
	uint32_t bits = fs->g.cluster_bits;
	struct find_out c = { .shift = bits,
			      .want = (o->want + (1ULL << bits) - 1) >> bits };
	int rc;

	c.skip = skip_clusters(fs, o, &c.nskip, &rc);
	if (!rc)
		rc = find(fs, goal, &c);
	for (size_t i = 0; !rc && i < c.nruns && o->found < o->want; i++) {
		uint64_t n = c.runs[i].len << bits;

		if (n > o->want - o->found)
			n = o->want - o->found;
		rc = put_found(o, c.runs[i].start << bits, n);
	}
	free((void *)c.skip);
	free(c.runs);
	return rc;
}

/* Whether the block functions work in whole clusters. */
static int whole_clusters(const struct extkit_fs *fs)
{
	return fs->alloc_whole_clusters && fs->g.cluster_bits;
}

/* The search of extkit_alloc_find_skip, into o (goal: a block). */
static int find(struct extkit_fs *fs, uint64_t goal, struct find_out *o)
{
	uint32_t g0, i, n = fs->g.group_count;
	uint64_t count = o->want;
	int rc = o->shift ? 0 : writable(fs);

	if (!rc && !o->shift && whole_clusters(fs))
		return find_whole(fs, goal, o);
	if (rc || !count)
		return rc;
	if (count > fs->sb.free_blocks_count >> o->shift)
		return -ENOSPC;
	if (!extkit_fs_valid_block(fs, goal))
		goal = fs->sb.first_data_block;
	goal >>= o->shift;
	g0 = unit_group(fs, o->shift, goal);
	/* From the goal to the end, then the whole of each group after. */
	rc = find_in_group(fs, g0, goal, UINT64_MAX, o);
	for (i = 1; !rc && o->found < count && i < n; i++)
		rc = find_in_group(fs, (g0 + i) % n, 0, UINT64_MAX, o);
	if (!rc && o->found < count)	/* group g0 before the goal */
		rc = find_in_group(fs, g0, 0, goal, o);
	if (!rc && o->found < count)
		rc = -ENOSPC;
	return rc;
}

int extkit_alloc_find_skip(struct extkit_fs *fs, uint64_t goal,
			   const struct extkit_blk_run *skip, size_t nskip,
			   uint64_t count, uint64_t *blks)
{
	struct find_out o = { .skip = skip, .nskip = nskip, .want = count,
			      .blks = blks };

	return find(fs, goal, &o);
}

int extkit_alloc_find_runs(struct extkit_fs *fs, uint64_t goal,
			   const struct extkit_blk_run *skip, size_t nskip,
			   uint64_t count, struct extkit_blk_run **runs,
			   size_t *nruns)
{
	struct find_out o = { .skip = skip, .nskip = nskip, .want = count };
	int rc = find(fs, goal, &o);

	if (rc) {
		free(o.runs);
		o.runs = NULL;
		o.nruns = 0;
	}
	*runs = o.runs;
	*nruns = o.nruns;
	return rc;
}

int extkit_alloc_find(struct extkit_fs *fs, uint64_t goal, uint64_t count,
		      uint64_t *blks)
{
	return extkit_alloc_find_skip(fs, goal, NULL, 0, count, blks);
}

/* Marks [start, start + count) of group g in use (used) or free, counted
 * by alloc_stats.c. */
static int set_in_group(struct extkit_fs *fs, uint32_t shift, uint32_t g,
			uint64_t start, uint32_t count, int used)
{
	struct group_map m;
	int rc = gmap_load(fs, g, shift, &m);

	if (rc)
		return rc;
	if (used)
		rc = extkit_bitmap_set_range(&m.m.bm, start - m.first, count);
	else
		rc = extkit_bitmap_clear_range(&m.m.bm, start - m.first, count);
	if (!rc)
		extkit_alloc_stats_blocks(fs, g, count, used);
	if (!rc)
		rc = gmap_store(fs, &m);
	gmap_free(&m);
	return rc;
}

/*
 * Marks [start, start + count) in use (used) or free, group by group.
 * All or nothing: every block must be in the other state, which is
 * checked in every group before the first bitmap is written.
 */
static int set_range(struct extkit_fs *fs, uint32_t shift, uint64_t start,
		     uint64_t count, int used)
{
	uint64_t end = start + count, now;
	uint32_t g, n;
	int rc = shift ? 0 : writable(fs);

	if (!rc)
		rc = count_used(fs, shift, start, count, &now);
	if (!rc && now != (used ? 0 : count))
		rc = -EFSCORRUPTED;
	while (!rc && start < end) {
		g = group_part(fs, shift, start, end, &n);
		rc = set_in_group(fs, shift, g, start, n, used);
		start += n;
	}
	return rc;
}

/* Blocks [start, start + count): their clusters in whole-cluster mode. */
static int set_blocks(struct extkit_fs *fs, uint64_t start, uint64_t count,
		      int used)
{
	uint32_t bits = fs->g.cluster_bits;
	uint64_t s, e;

	if (!whole_clusters(fs) || !count)
		return set_range(fs, 0, start, count, used);
	s = start >> bits;
	e = (start + count + (1ULL << bits) - 1) >> bits;
	return set_range(fs, bits, s, e - s, used);
}

int extkit_free_blocks(struct extkit_fs *fs, uint64_t start, uint64_t count)
{
	return set_blocks(fs, start, count, 0);
}

int extkit_alloc_mark(struct extkit_fs *fs, uint64_t start, uint64_t count)
{
	return set_blocks(fs, start, count, 1);
}

int extkit_alloc_find_clusters(struct extkit_fs *fs, uint64_t goal,
			       uint64_t count, uint64_t *clusters)
{
	struct find_out o = { .shift = fs->g.cluster_bits, .want = count,
			      .blks = clusters };

	return find(fs, goal, &o);
}

int extkit_alloc_mark_clusters(struct extkit_fs *fs, uint64_t start,
			       uint64_t count)
{
	return set_range(fs, fs->g.cluster_bits, start, count, 1);
}

int extkit_free_clusters(struct extkit_fs *fs, uint64_t start, uint64_t count)
{
	return set_range(fs, fs->g.cluster_bits, start, count, 0);
}

/* Group g's part [u, u + n) (units) set in use (used) or free where it
 * is not, counted; *changed adds the units that changed. */
static int settle_in_group(struct extkit_fs *fs, uint32_t g, uint64_t u,
			   uint32_t n, int used, uint64_t *changed)
{
	struct group_map m;
	uint64_t set, diff;
	int rc;

	if (extkit_has_group_csum(&fs->sb) &&
	    (fs->groups[g].flags & EXT4_BG_BLOCK_UNINIT))
		return 0;	/* never initialised: left alone */
	rc = gmap_load(fs, g, fs->g.cluster_bits, &m);
	if (rc)
		return rc;
	set = extkit_bitmap_count_range(&m.m.bm, u - m.first, n);
	diff = used ? n - set : set;
	if (diff && used)
		rc = extkit_bitmap_set_range(&m.m.bm, u - m.first, n);
	else if (diff)
		rc = extkit_bitmap_clear_range(&m.m.bm, u - m.first, n);
	if (diff && !rc) {
		extkit_alloc_stats_blocks(fs, g, diff, used);
		rc = gmap_store(fs, &m);
		*changed += diff;
	}
	gmap_free(&m);
	return rc;
}

int extkit_alloc_settle(struct extkit_fs *fs, uint64_t start, uint64_t count,
			int used, uint64_t *changed)
{
	uint64_t end = start + count, n_changed = 0;
	uint32_t g, n;
	int rc = writable(fs);

	if (!rc && whole_clusters(fs))
		rc = -EXTKIT_EUNSUPP;
	if (!rc)
		rc = check_range(fs, 0, start, count);
	while (!rc && start < end) {
		g = group_part(fs, 0, start, end, &n);
		rc = settle_in_group(fs, g, start, n, used, &n_changed);
		start += n;
	}
	if (changed)
		*changed = n_changed;
	return rc;
}

static int inode_ok(const struct extkit_fs *fs, uint32_t ino)
{
	return ino >= 1 && ino <= fs->sb.inodes_count;
}

/* The inode bitmap of ino's group. */
static int inode_map_load(struct extkit_fs *fs, uint32_t ino,
			  struct extkit_group_map *m)
{
	if (!inode_ok(fs, ino))
		return -EINVAL;
	return extkit_group_map_load(fs, extkit_group_of_inode(&fs->sb, ino),
				     EXTKIT_MAP_INODES, m);
}

int extkit_inode_in_use(struct extkit_fs *fs, uint32_t ino)
{
	struct extkit_group_map m;
	int rc = inode_map_load(fs, ino, &m);

	if (rc)
		return rc;
	rc = extkit_bitmap_test(&m.bm,
				extkit_group_inode_index(&fs->sb, ino));
	extkit_group_map_free(&m);
	return rc;
}

int extkit_alloc_inode_set(struct extkit_fs *fs, uint32_t ino, int take,
			   int is_dir)
{
	uint32_t idx = extkit_group_inode_index(&fs->sb, ino);
	struct extkit_group_map m;
	int rc = inode_map_load(fs, ino, &m);

	if (rc)
		return rc;
	if (extkit_bitmap_test(&m.bm, idx) == !!take)
		rc = -EFSCORRUPTED;	/* in that state already */
	else if (take)
		rc = extkit_bitmap_set(&m.bm, idx);
	else
		rc = extkit_bitmap_clear(&m.bm, idx);
	if (!rc) {
		extkit_alloc_stats_inode(fs, ino, take, is_dir);
		rc = extkit_group_map_store(fs, &m);
	}
	extkit_group_map_free(&m);
	return rc;
}

/* The first free inode of group g at or after index from (-ENOENT). */
static int free_inode_in(struct extkit_fs *fs, uint32_t g, uint32_t from,
			 uint32_t *ino)
{
	struct extkit_group_map m;
	uint64_t found;
	int rc;

	if (!fs->groups[g].free_inodes)
		return -ENOENT;
	rc = extkit_group_map_load(fs, g, EXTKIT_MAP_INODES, &m);
	if (rc)
		return rc;
	rc = extkit_bitmap_find_first_zero(&m.bm, from, m.bits - from,
					   &found);
	if (!rc)
		*ino = g * fs->sb.inodes_per_group + (uint32_t)found + 1;
	extkit_group_map_free(&m);
	return rc;
}

int extkit_alloc_inode(struct extkit_fs *fs, uint32_t goal, int is_dir,
		       uint32_t *ino)
{
	uint32_t n = fs->g.group_count, g0, from;
	int rc = -ENOENT;

	if (goal < fs->g.first_ino || !inode_ok(fs, goal))
		goal = fs->g.first_ino;
	g0 = extkit_group_of_inode(&fs->sb, goal);
	from = extkit_group_inode_index(&fs->sb, goal);
	for (uint32_t i = 0; rc == -ENOENT && i <= n; i++) {
		uint32_t g = (g0 + i) % n;

		rc = free_inode_in(fs, g, i ? 0 : from, ino);
		if (!rc && *ino < fs->g.first_ino)
			rc = free_inode_in(fs, g, fs->g.first_ino - 1 -
					   g * fs->sb.inodes_per_group, ino);
	}
	if (rc)
		return rc == -ENOENT ? -ENOSPC : rc;
	return extkit_alloc_inode_set(fs, *ino, 1, is_dir);
}

static int disk_take_blocks(void *arg, uint64_t goal, uint64_t want,
			    uint64_t *start, uint64_t *got)
{
	(void)want;
	*got = 1;
	return extkit_alloc_block(arg, goal, start);
}

static int disk_take_inode(void *arg, uint32_t goal, int is_dir,
			   uint32_t *ino)
{
	return extkit_alloc_inode(arg, goal, is_dir, ino);
}

static int disk_release(void *arg, uint64_t start, uint64_t count)
{
	return extkit_free_blocks(arg, start, count);
}

void extkit_alloc_disk(struct extkit_fs *fs, struct extkit_allocator *a)
{
	a->take_blocks = disk_take_blocks;
	a->take_inode = disk_take_inode;
	a->release = disk_release;
	a->arg = fs;
}

int extkit_take_block(struct extkit_fs *fs, const struct extkit_allocator *a,
		      uint64_t goal, uint64_t *blk)
{
	uint64_t got;

	if (!a || !a->take_blocks)
		return extkit_alloc_block(fs, goal, blk);
	return a->take_blocks(a->arg, goal, 1, blk, &got);
}

int extkit_give_back(struct extkit_fs *fs, const struct extkit_allocator *a,
		     uint64_t start, uint64_t count)
{
	if (!a || !a->take_blocks)
		return extkit_free_blocks(fs, start, count);
	return a->release ? a->release(a->arg, start, count) : 0;
}

int extkit_blk_list_push(struct extkit_blk_list *l, uint64_t blk)
{
	uint64_t *nb, cap;

	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 64;
		nb = realloc(l->blk, cap * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		l->blk = nb;
		l->cap = cap;
	}
	l->blk[l->n++] = blk;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void extkit_blk_list_sort(struct extkit_blk_list *l)
{
	if (l->n > 1)
		qsort(l->blk, l->n, sizeof(*l->blk), cmp_u64);
}

int extkit_blk_list_runs(struct extkit_fs *fs,
			 const struct extkit_blk_list *l,
			 int (*fn)(struct extkit_fs *, uint64_t, uint64_t),
			 int ok)
{
	uint64_t i = 0, j;
	int rc = ok;

	while (rc == ok && i < l->n) {
		for (j = i + 1; j < l->n && l->blk[j] == l->blk[j - 1] + 1; j++)
			;
		rc = fn(fs, l->blk[i], j - i);
		i = j;
	}
	return rc;
}

int extkit_blk_list_release(struct extkit_fs *fs, struct extkit_blk_list *l)
{
	extkit_blk_list_sort(l);
	return extkit_blk_list_runs(fs, l, extkit_free_blocks, 0);
}

void extkit_blk_list_free(struct extkit_blk_list *l)
{
	free(l->blk);
	l->blk = NULL;
	l->n = l->cap = 0;
}

int extkit_alloc_commit(struct extkit_fs *fs)
{
	return extkit_fs_write_super(fs);
}
