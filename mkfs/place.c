// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where each group's block bitmap, inode bitmap and inode table go, and
 * then root, lost+found and the resize inode's block: the places
 * e2fsprogs' ext2fs_allocate_group_table() and the first allocations of
 * mke2fs give them, so that the same options give the same layout.
 *
 * Without flex_bg a group's tables are the first free blocks of the
 * group. With flex_bg (s_log_groups_per_flex) the first group of each
 * flex group holds the tables of all of its groups, packed: the block
 * bitmaps one after another, then (at a distance of the flex group size,
 * or of the number of groups in a short last flex group) the inode
 * bitmaps, then the inode tables; each search starts right after the
 * previous group's table of the same kind and skips obstacles (superblock
 * backups) by looking for the next free run.
 *
 * Used blocks are kept as ranges filed under every group they touch,
 * superblock and descriptor copies included, so a free-run search jumps
 * over whole obstacles and never walks a bitmap. A table that continues
 * a range of its group extends it: a flex group's packed tables are one
 * range, so the lists stay a few entries long and a 64 TiB filesystem is
 * placed in tens of milliseconds.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "group.h"
#include "super.h"

#include "mkfs.h"

struct place_range {
	uint64_t start;
	uint32_t len;
	uint32_t next;		/* next range of the same group, 1-based */
};

struct mkfs_place {
	const struct extkit_fs *fs;
	uint64_t blocks;
	struct place_range *r;
	uint32_t nr, cap;
	uint32_t *head;		/* per group: first range, 1-based */
	uint32_t stride;	/* -E stride= */
	uint32_t cbits;		/* bigalloc: searches in whole clusters */
	uint8_t *flex_used;	/* per group: took a flex_bg table block */
};

static uint32_t group_of(const struct mkfs_place *p, uint64_t blk)
{
	return extkit_group_of_block(&p->fs->sb, blk);
}

static uint64_t group_last(const struct mkfs_place *p, uint32_t g)
{
	return extkit_group_first_block(&p->fs->sb, g) +
	       extkit_group_block_count(&p->fs->sb, g) - 1;
}

/* Files range i under group g (in front). */
static int file_range(struct mkfs_place *p, uint32_t g, uint64_t start,
		      uint32_t len)
{
	struct place_range *r;

	if (p->nr == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 1024;

		r = realloc(p->r, (size_t)cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		p->r = r;
		p->cap = cap;
	}
	r = &p->r[p->nr++];
	r->start = start;
	r->len = len;
	r->next = p->head[g];
	p->head[g] = p->nr;
	return 0;
}

/* A range of group g, lying wholly in it, that ends where start is. */
static struct place_range *range_ending_at(struct mkfs_place *p, uint32_t g,
					   uint64_t start)
{
	for (uint32_t i = p->head[g]; i; i = p->r[i - 1].next) {
		struct place_range *r = &p->r[i - 1];

		if (r->start + r->len == start && group_of(p, r->start) == g)
			return r;
	}
	return NULL;
}

/* Marks [start, start + len) used. A range inside one group that
 * continues one of the group's ranges extends it. */
static int use(struct mkfs_place *p, uint64_t start, uint32_t len, int flex)
{
	uint32_t g = group_of(p, start), last = group_of(p, start + len - 1);
	struct place_range *prev = g == last ? range_ending_at(p, g, start) :
				   NULL;
	int rc = 0;

	if (prev && prev->len + len > prev->len) {
		prev->len += len;
		if (flex)
			p->flex_used[g] = 1;
		return 0;
	}
	for (; !rc && g <= last; g++) {
		rc = file_range(p, g, start, len);
		if (flex)
			p->flex_used[g] = 1;
	}
	return rc;
}

/* The superblock and descriptor copies (and the 1 KiB boot block) at the
 * start of each group: the first range of the groups that have them. */
static int use_overhead(struct mkfs_place *p)
{
	int rc = 0;

	for (uint32_t g = 0; !rc && g < p->fs->g.group_count; g++) {
		uint32_t meta = extkit_group_sb_overhead(&p->fs->sb, &p->fs->g,
							 g);

		if (meta)
			rc = file_range(p, g, extkit_group_first_block(
						&p->fs->sb, g), meta);
	}
	return rc;
}

/*
 * 0 when [b, b + num) is free, else the end of something in its way (no
 * free run can start before it).
 */
static uint64_t obstacle_end(const struct mkfs_place *p, uint64_t b,
			     uint64_t num)
{
	uint32_t g = group_of(p, b), last = group_of(p, b + num - 1);
	uint64_t end = 0;

	for (; g <= last; g++) {
		for (uint32_t i = p->head[g]; i; i = p->r[i - 1].next) {
			const struct place_range *r = &p->r[i - 1];

			if (r->start < b + num && r->start + r->len > b &&
			    r->start + r->len > end)
				end = r->start + r->len;
		}
	}
	return end;
}

/*
 * The first free run of num blocks starting in [start, finish), wrapping
 * to the first data block when finish <= start (ext2fs_get_free_blocks2).
 */
static int find_free(const struct mkfs_place *p, uint64_t start,
		     uint64_t finish, uint64_t num, uint64_t *out)
{
	uint64_t first = p->fs->sb.first_data_block, b, e;
	uint64_t mask = (1ULL << p->cbits) - 1;
	int wrap = finish <= start, wrapped = 0;

	/* on clusters (ext2fs_get_free_blocks2 on a cluster bitmap): from
	 * the start of a cluster, each found run ends on a cluster's end */
	b = (start ? start : first) & ~mask;
	num = (num + mask) & ~mask;
	for (;;) {
		if (b + num > p->blocks) {
			if (!wrap || wrapped)
				return -ENOSPC;
			b = first;
			wrapped = 1;
		}
		if ((wrapped || !wrap) && b >= finish)
			return -ENOSPC;
		e = obstacle_end(p, b, num);
		if (!e) {
			*out = b;
			return 0;
		}
		b = (e + mask) & ~mask;
	}
}

/* ext2fs's flexbg_offset(): where to look for a flex group's next table. */
static uint64_t flexbg_offset(const struct mkfs_place *p, uint32_t g,
			      uint64_t prev, uint32_t rem, uint32_t elem)
{
	uint32_t flex = 1u << p->fs->sb.log_groups_per_flex;
	uint32_t last_grp = g | (flex - 1);
	uint64_t size = (uint64_t)rem * elem, start, last, found;

	if (size > p->fs->sb.blocks_per_group / 4)
		size = p->fs->sb.blocks_per_group / 4;
	if (prev && prev < p->blocks &&
	    !find_free(p, prev, prev + size, elem, &found))
		return found;
	start = extkit_group_first_block(&p->fs->sb, g & ~(flex - 1));
	if (last_grp > p->fs->g.group_count - 1)
		last_grp = p->fs->g.group_count - 1;
	last = group_last(p, last_grp);
	if (!find_free(p, start, last, size, &found) ||
	    !find_free(p, start, last, elem, &found) ||
	    !find_free(p, 0, last, elem, &found))
		return found;
	return 0;
}

/* One table (num blocks) from start, else from the group's start. */
static int take(struct mkfs_place *p, uint64_t start, uint64_t group_blk,
		uint64_t last, uint32_t num, int flex, uint64_t *out)
{
	int rc = find_free(p, start, last, num, out);

	if (rc && num == 1)
		rc = find_free(p, group_blk, last, num, out);
	return rc ? rc : use(p, *out, num, flex);
}

static int place_group(struct mkfs_place *p, struct extkit_group *groups,
		       uint32_t g)
{
	const struct extkit_super *sb = &p->fs->sb;
	uint32_t itb = p->fs->g.itable_blocks, n = p->fs->g.group_count;
	uint32_t flex = 0, last_grp = g, rem = 0, offset = 0;
	uint64_t group_blk = extkit_group_first_block(sb, g);
	uint64_t last = group_last(p, g), start = group_blk, prev;
	struct extkit_group *gd = &groups[g];
	int rc;

	if (p->stride && !((sb->feature_incompat &
			    EXT4_FEATURE_INCOMPAT_FLEX_BG) &&
			   sb->log_groups_per_flex)) {
		/* -E stride= without flex_bg: the bitmaps go after where the
		 * inode table will be, shifted by stride * group */
		rc = find_free(p, group_blk, last, 1, &start);
		if (rc)
			return rc;
		start += itb;
		start += (uint64_t)p->stride * g % (last - start + 1);
		if (start >= last)
			start = group_blk;
	} else if ((sb->feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) &&
		   sb->log_groups_per_flex) {
		flex = 1u << sb->log_groups_per_flex;
		last_grp = g | (flex - 1);
		if (last_grp > n - 1)
			last_grp = n - 1;
		rem = last_grp - g + 1;
		offset = flex;
		if (!(g % flex) && last_grp == n - 1) {
			/* the last flex group: keep its tables together */
			offset = last_grp & (flex - 1);
			offset = offset ? offset + 1 : flex;
		}
		prev = g % flex ? groups[g - 1].block_bitmap + 1 : 0;
		start = flexbg_offset(p, g, prev, rem, 1);
		last = group_last(p, last_grp);
	}
	rc = take(p, start, group_blk, last, 1, !!flex, &gd->block_bitmap);
	if (!rc && flex) {
		prev = g % flex ? groups[g - 1].inode_bitmap + 1 :
		       gd->block_bitmap + offset;
		start = flexbg_offset(p, g, prev, rem, 1);
	}
	if (!rc)
		rc = take(p, start, group_blk, last, 1, !!flex,
			  &gd->inode_bitmap);
	if (!rc && flex) {
		prev = g % flex ? groups[g - 1].inode_table + itb :
		       gd->inode_bitmap + offset;
		group_blk = flexbg_offset(p, g, prev, rem, itb);
	}
	if (!rc)
		rc = take(p, group_blk, group_blk, last, itb, !!flex,
			  &gd->inode_table);
	return rc;
}

/* The first free block at or after *goal, wrapping (ext2fs_new_block2),
 * taken for a table. */
static int take_next(struct mkfs_place *p, uint64_t *goal)
{
	int rc = find_free(p, *goal, *goal, 1, goal);

	return rc ? rc : use(p, *goal, 1, 1);
}

/*
 * -E packed_meta_blocks with flex_bg, as mke2fs's packed_allocate_tables:
 * every block bitmap from the start of the filesystem on, then every
 * inode bitmap, then every inode table, each at the first free place
 * after the previous one.
 */
static int place_packed(struct mkfs_place *p, struct extkit_group *groups)
{
	uint32_t n = p->fs->g.group_count, itb = p->fs->g.itable_blocks;
	uint64_t goal = 0;
	int rc = 0;

	for (uint32_t g = 0; !rc && g < n; g++) {
		rc = take_next(p, &goal);
		groups[g].block_bitmap = goal;
	}
	for (uint32_t g = 0; !rc && g < n; g++) {
		rc = take_next(p, &goal);
		groups[g].inode_bitmap = goal;
	}
	for (uint32_t g = 0; !rc && g < n; g++) {
		rc = find_free(p, goal, p->blocks - 1, itb, &goal);
		if (!rc)
			rc = use(p, goal, itb, 1);
		groups[g].inode_table = goal;
	}
	return rc;
}

/* -l: the bad blocks, before the tables (mke2fs marks them first); one
 * in a superblock backup's area is used already, not counted twice. */
static int use_bad(struct mkfs_place *p, const struct mkfs_layout *l)
{
	int rc = 0;

	for (uint32_t i = 0; !rc && i < l->nbad; i++)
		if (!obstacle_end(p, l->bad[i], 1))
			rc = use(p, l->bad[i], 1, 0);
	return rc;
}

/* Root, lost+found and the resize inode's block, in mke2fs's order. */
static int place_data(struct mkfs_place *p, struct mkfs_layout *l)
{
	const struct extkit_super *sb = &p->fs->sb;
	uint64_t goal = sb->first_data_block, blk;
	int rc;

	/* mke2fs converts its bitmap to clusters after the tables: from
	 * here on, every allocation takes whole clusters */
	p->cbits = p->fs->g.cluster_bits;
	rc = find_free(p, goal, goal, 1, &l->root_block);
	if (!rc)
		rc = use(p, l->root_block, 1, 0);
	if (!rc)
		rc = find_free(p, l->root_block, l->root_block,
			       l->lpf_blocks, &l->lpf_block);
	if (!rc)
		rc = use(p, l->lpf_block, l->lpf_blocks, 0);
	/* inode 1's indirect block: the first free block (mke2fs) */
	if (!rc && l->nbad > EXT2_NDIR_BLOCKS)
		rc = find_free(p, goal, goal, 1, &l->bad_ind);
	if (!rc && l->nbad > EXT2_NDIR_BLOCKS)
		rc = use(p, l->bad_ind, 1, 0);
	if (rc || !(sb->feature_compat & EXT2_FEATURE_COMPAT_RESIZE_INODE))
		return rc;
	/* e2fsprogs res_gdt.c: goal just past group 0's classic tables */
	goal = sb->first_data_block + p->fs->g.gdt_blocks +
	       sb->reserved_gdt_blocks + 2 + p->fs->g.itable_blocks;
	if (p->fs->g.block_size == 1024 && !sb->first_data_block)
		goal++;
	rc = find_free(p, goal, goal, 1, &blk);
	if (!rc)
		rc = use(p, blk, 1, 0);
	l->dind_block = rc ? 0 : blk;
	p->cbits = 0;
	return rc;
}

/* Range i (1-based) of group g clipped to it, relative to its start. */
static void clipped(const struct mkfs_place *p, uint32_t g, uint32_t i,
		    uint64_t *s, uint64_t *e)
{
	const struct place_range *r = &p->r[i - 1];
	uint64_t first = extkit_group_first_block(&p->fs->sb, g);
	uint64_t end = first + extkit_group_block_count(&p->fs->sb, g);

	*s = (r->start > first ? r->start : first) - first;
	*e = (r->start + r->len < end ? r->start + r->len : end) - first;
}

/* Free blocks of group g: its blocks less what was used. */
static uint32_t group_free(const struct mkfs_place *p, uint32_t g)
{
	uint32_t free = extkit_group_block_count(&p->fs->sb, g);

	for (uint32_t i = p->head[g]; i; i = p->r[i - 1].next) {
		uint64_t s, e;

		clipped(p, g, i, &s, &e);
		free -= (uint32_t)(e - s);
	}
	return free;
}

/* bigalloc: group g's used blocks as clusters in bm (a cluster holding
 * one used block is used), and the number of free clusters. */
static uint32_t group_clusters(const struct mkfs_place *p, uint32_t g,
			       struct extkit_bitmap *bm)
{
	uint32_t bits = p->fs->g.cluster_bits;
	uint64_t count = extkit_group_block_count(&p->fs->sb, g);
	uint64_t n = (count + (1ULL << bits) - 1) >> bits, used = 0;

	extkit_bitmap_clear_all(bm);
	for (uint32_t i = p->head[g]; i; i = p->r[i - 1].next) {
		uint64_t s, e;

		clipped(p, g, i, &s, &e);
		s >>= bits;
		e = (e + (1ULL << bits) - 1) >> bits;
		extkit_bitmap_set_range(bm, s, e - s);
	}
	for (uint64_t c = 0; c < n; c++)
		used += (uint64_t)extkit_bitmap_test(bm, c);
	extkit_bitmap_set_range(bm, n, bm->nbits - n);
	return (uint32_t)(n - used);
}

/* Free counts of every group: blocks, or clusters on bigalloc. */
static int count_free(const struct mkfs_place *p)
{
	struct extkit_bitmap bm;
	uint32_t n = p->fs->g.group_count;
	int rc;

	if (!p->fs->g.cluster_bits) {
		for (uint32_t g = 0; g < n; g++)
			p->fs->groups[g].free_blocks = group_free(p, g);
		return 0;
	}
	rc = extkit_bitmap_init(&bm, 8ULL * p->fs->g.block_size);
	for (uint32_t g = 0; !rc && g < n; g++)
		p->fs->groups[g].free_blocks = group_clusters(p, g, &bm);
	if (!rc)
		extkit_bitmap_free(&bm);
	return rc;
}

/* bigalloc: the clusters in use after the tables (mke2fs's
 * s_overhead_clusters, counted once its bitmap is in clusters). */
static int count_overhead(const struct mkfs_place *p, struct mkfs_layout *l)
{
	uint64_t n = 0;
	int rc = count_free(p);

	for (uint32_t g = 0; !rc && g < p->fs->g.group_count; g++)
		n += ((extkit_group_block_count(&p->fs->sb, g) +
		       p->fs->g.cluster_ratio - 1) >> p->fs->g.cluster_bits) -
		     p->fs->groups[g].free_blocks;
	l->overhead_clusters = n;
	return rc;
}

uint32_t mkfs_backup_count(const struct extkit_fs *fs)
{
	uint32_t n = 0;

	for (uint32_t g = 1; g < fs->g.group_count; g++)
		n += (uint32_t)extkit_super_group_has_backup(&fs->sb, g);
	return n;
}

void mkfs_place_free(struct mkfs_place *p)
{
	if (!p)
		return;
	free(p->r);
	free(p->head);
	free(p->flex_used);
	free(p);
}

int mkfs_place(struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint32_t n = fs->g.group_count;
	struct mkfs_place *p = calloc(1, sizeof(*p));
	int rc = p ? 0 : -ENOMEM;

	if (p) {
		p->fs = fs;
		p->blocks = fs->sb.blocks_count;
		p->stride = l->stride;
		p->head = calloc(n, sizeof(*p->head));
		p->flex_used = calloc(n, 1);
		if (!p->head || !p->flex_used)
			rc = -ENOMEM;
	}
	if (!rc)
		rc = use_overhead(p);
	if (!rc)
		rc = use_bad(p, l);
	if (!rc && l->packed)
		rc = place_packed(p, fs->groups);
	for (uint32_t g = 0; !rc && !l->packed && g < n; g++)
		rc = place_group(p, fs->groups, g);
	if (!rc && fs->g.cluster_bits)
		rc = count_overhead(p, l);
	if (!rc)
		rc = place_data(p, l);
	if (!rc)
		rc = count_free(p);
	if (rc) {
		mkfs_place_free(p);
		return rc;
	}
	l->place = p;
	return 0;
}

int mkfs_place_flex_used(const struct mkfs_place *p, uint32_t g)
{
	return p->flex_used[g];
}

int mkfs_place_group_empty(const struct mkfs_place *p, uint32_t g)
{
	return !p->head[g] &&
	       extkit_group_block_count(&p->fs->sb, g) ==
	       (8ULL * p->fs->g.block_size << p->fs->g.cluster_bits);
}

int mkfs_place_bitmap_same(const struct mkfs_place *p, uint32_t g,
			   uint32_t h)
{
	uint32_t i = p->head[g], j = p->head[h];

	if (extkit_group_block_count(&p->fs->sb, g) !=
	    extkit_group_block_count(&p->fs->sb, h))
		return 0;
	for (; i && j; i = p->r[i - 1].next, j = p->r[j - 1].next) {
		uint64_t si, ei, sj, ej;

		clipped(p, g, i, &si, &ei);
		clipped(p, h, j, &sj, &ej);
		if (si != sj || ei != ej)
			return 0;
	}
	return !i && !j;
}

void mkfs_place_group_bitmap(const struct mkfs_place *p, uint32_t g,
			     struct extkit_bitmap *bm)
{
	uint32_t count = extkit_group_block_count(&p->fs->sb, g);

	if (p->fs->g.cluster_bits) {
		group_clusters(p, g, bm);
		return;
	}
	extkit_bitmap_clear_all(bm);
	for (uint32_t i = p->head[g]; i; i = p->r[i - 1].next) {
		uint64_t s, e;

		clipped(p, g, i, &s, &e);
		extkit_bitmap_set_range(bm, s, e - s);
	}
	/* Padding: past the group's last block up to the bitmap's end. */
	extkit_bitmap_set_range(bm, count, bm->nbits - count);
}
