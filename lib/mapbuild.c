// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A block map built anew (see mapbuild.h).
 *
 * Extent trees (ifork.rst): contiguous physical blocks become one extent
 * of at most 32768 blocks; up to four extents sit in the root in i_block;
 * more go into leaf blocks of (block size - 12) / 12 entries, filled in
 * order, with index levels above them until the root's four slots hold
 * the top level. Tree blocks are numbered leaves first, then each index
 * level upwards.
 *
 * Indirect maps (blockmap.rst): i_block[0..11] map blocks 0..11 directly,
 * i_block[12] an indirect block of block-size/4 pointers, [13] a double
 * and [14] a triple indirect block. Tree blocks are numbered in the order
 * a walk meets them (a parent before its children).
 */
#include "config.h"

#include <string.h>

#include "endian.h"
#include "error.h"
#include "extent.h"
#include "mapbuild.h"
#include "ondisk.h"

#define NDIR		12u
#define EXT_HDR		12u
#define EXT_ENTRY	12u
#define EXT_INIT_MAX	32768u	/* longest initialised extent (ee_len) */

/* ---- extent trees ---- */

/* Length of the run of contiguous blocks starting at logical block i. */
static uint32_t run_len(const struct extkit_mapbuild *mb, uint64_t i)
{
	uint32_t len = 1;

	while (i + len < mb->nblocks && len < EXT_INIT_MAX &&
	       mb->pblks[i + len] == mb->pblks[i] + len)
		len++;
	return len;
}

/* A walk over the extents of the map: the next logical block; with
 * runs, the run it is in and how far into it. */
struct ext_walk {
	uint64_t lblk;
	size_t run;
	uint64_t into;
};

/* The next extent of the walk; 0 at the end. */
static int next_extent(const struct extkit_mapbuild *mb, struct ext_walk *w,
		       struct extkit_extent *ex)
{
	if (mb->runs) {
		const struct extkit_blk_run *r;

		while (w->run < mb->nruns && w->into == mb->runs[w->run].len) {
			w->run++;
			w->into = 0;
		}
		if (w->run == mb->nruns)
			return 0;
		r = &mb->runs[w->run];
		ex->len = r->len - w->into < EXT_INIT_MAX ?
			  (uint32_t)(r->len - w->into) : EXT_INIT_MAX;
		ex->pblk = r->start + w->into;
		w->into += ex->len;
	} else {
		while (w->lblk < mb->nblocks && !mb->pblks[w->lblk])
			w->lblk++;
		if (w->lblk == mb->nblocks)
			return 0;
		ex->len = run_len(mb, w->lblk);
		ex->pblk = mb->pblks[w->lblk];
	}
	ex->lblk = w->lblk;
	w->lblk += ex->len;
	return 1;
}

static uint64_t count_runs(const struct extkit_mapbuild *mb)
{
	struct ext_walk w = { 0 };
	struct extkit_extent ex = { 0 };
	uint64_t runs = 0;

	if (mb->list)
		return mb->nlist;
	while (next_extent(mb, &w, &ex))
		runs++;
	return runs;
}

/* Whether logical blocks [first, first + count) are all holes. */
static int all_holes(const struct extkit_mapbuild *mb, uint64_t first,
		     uint64_t count)
{
	for (uint64_t i = first; i < first + count; i++)
		if (mb->pblks[i])
			return 0;
	return 1;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/*
 * Nodes per level of the tree over runs extents: level[0] leaves,
 * level[1] the index nodes above them, ...; returns the depth (0: the
 * root holds the extents) or -EFBIG.
 */
static int ext_levels(uint64_t runs, uint32_t cap, uint64_t *level)
{
	uint64_t n = runs;
	int depth = 0;

	while (n > EXTKIT_EXTENT_ROOT_MAX) {
		if (depth == EXT4_EXT_MAX_DEPTH)
			return -EFBIG;
		n = div_up(n, cap);
		level[depth++] = n;
	}
	return depth;
}

/* An empty node of size bytes. */
static void ext_header(uint8_t *node, uint32_t size, uint16_t max,
		       uint16_t depth)
{
	extkit_extent_node_init(node, size, max, depth);
}

static void ext_add(uint8_t *node, const struct extkit_extent *ex)
{
	uint16_t n = extkit_extent_entries(node);

	extkit_extent_put(node, n, ex);
	extkit_extent_set_entries(node, (uint16_t)(n + 1));
}

static void idx_add(uint8_t *node, uint64_t lblk, uint64_t child)
{
	struct extkit_extent_idx ix = { .lblk = lblk, .child = child };
	uint16_t n = extkit_extent_entries(node);

	extkit_extent_idx_put(node, n, &ix);
	extkit_extent_set_entries(node, (uint16_t)(n + 1));
}

/* The first logical block a node (leaf or index) maps. */
static uint64_t node_first(const uint8_t *node)
{
	return get_le32(node + EXT_HDR);
}

static void fill_extents(const struct extkit_fs *fs,
			 const struct extkit_mapbuild *mb,
			 struct extkit_inode *inode)
{
	uint32_t bs = fs->g.block_size;
	uint16_t cap = extkit_extent_capacity(bs);
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE], *leaf = root;
	uint64_t level[EXT4_EXT_MAX_DEPTH], k = 0, base = 0, n, i;
	int depth = ext_levels(count_runs(mb), cap, level), d;
	struct extkit_extent ex = { 0 };
	struct ext_walk w = { 0 };

	ext_header(root, sizeof(root), EXTKIT_EXTENT_ROOT_MAX,
		   (uint16_t)depth);
	for (n = 0; depth > 0 && n < level[0]; n++)
		ext_header(mb->bufs + n * bs, bs, cap, 0);
	while (!mb->list && next_extent(mb, &w, &ex)) {
		if (depth > 0)
			leaf = mb->bufs + (k++ / cap) * bs;
		ext_add(leaf, &ex);
	}
	for (i = 0; mb->list && i < mb->nlist; i++) {
		if (depth > 0)
			leaf = mb->bufs + (k++ / cap) * bs;
		ext_add(leaf, &mb->list[i]);
	}
	/* Each index level over the one below it; the root over the top. */
	for (d = 0; d < depth; d++) {
		uint64_t parents = d + 1 < depth ? level[d + 1] : 0;
		uint64_t up = base + level[d];

		for (n = 0; n < parents; n++)
			ext_header(mb->bufs + (up + n) * bs, bs, cap,
				   (uint16_t)(d + 1));
		for (n = 0; n < level[d]; n++)
			idx_add(parents ? mb->bufs + (up + n / cap) * bs : root,
				node_first(mb->bufs + (base + n) * bs),
				mb->meta[base + n]);
		base = up;
	}
	extkit_extent_root_put(inode, root);
	inode->flags |= EXT4_EXTENTS_FL;
}

/* ---- indirect maps ---- */

/* Blocks one pointer of an indirect block of level (1..3) spans. */
static uint64_t span_of(const struct extkit_fs *fs, unsigned int level)
{
	uint64_t s = 1;

	while (level-- > 1)
		s *= fs->g.addr_per_block;
	return s;
}

/* Tree blocks an indirect block of level mapping count blocks from
 * first needs, itself included (none over holes alone). */
static uint64_t ind_meta(const struct extkit_fs *fs,
			 const struct extkit_mapbuild *mb, unsigned int level,
			 uint64_t first, uint64_t count)
{
	uint64_t span = span_of(fs, level), n = 1, c;

	if (all_holes(mb, first, count))
		return 0;
	for (c = 0; level > 1 && c < count; c += span)
		n += ind_meta(fs, mb, level - 1, first + c,
			      count - c < span ? count - c : span);
	return n;
}

/* Fills the indirect block of level mapping count blocks from first;
 * returns its physical block. *k: the next tree block to use. */
static uint32_t ind_fill(const struct extkit_fs *fs,
			 const struct extkit_mapbuild *mb, unsigned int level,
			 uint64_t first, uint64_t count, uint64_t *k)
{
	uint64_t span = span_of(fs, level), me = (*k)++, c, j = 0;
	uint8_t *b = mb->bufs + me * fs->g.block_size;
	uint32_t ptr;

	memset(b, 0, fs->g.block_size);
	for (c = 0; c < count; c += span, j++) {
		if (level == 1)
			ptr = (uint32_t)mb->pblks[first + c];
		else if (all_holes(mb, first + c,
				   count - c < span ? count - c : span))
			ptr = 0;
		else
			ptr = ind_fill(fs, mb, level - 1, first + c,
				       count - c < span ? count - c : span, k);
		put_le32(b + 4 * j, ptr);
	}
	return (uint32_t)mb->meta[me];
}

/* The share of nblocks the indirect block of level (1..3) in i_block
 * maps, from logical block *first. */
static uint64_t ind_share(const struct extkit_fs *fs, uint64_t nblocks,
			  unsigned int level, uint64_t *first)
{
	uint64_t start = NDIR, cover = 0, l;

	for (l = 1; l < level; l++)
		start += span_of(fs, (unsigned int)l) * fs->g.addr_per_block;
	cover = span_of(fs, level) * fs->g.addr_per_block;
	*first = start;
	if (nblocks <= start)
		return 0;
	return nblocks - start < cover ? nblocks - start : cover;
}

static void fill_indirect(const struct extkit_fs *fs,
			  const struct extkit_mapbuild *mb,
			  struct extkit_inode *inode)
{
	uint64_t i, k = 0, first, count;
	unsigned int level;

	memset(inode->block, 0, sizeof(inode->block));
	for (i = 0; i < NDIR && i < mb->nblocks; i++)
		inode->block[i] = (uint32_t)mb->pblks[i];
	for (level = 1; level <= 3; level++) {
		count = ind_share(fs, mb->nblocks, level, &first);
		if (count && !all_holes(mb, first, count))
			inode->block[NDIR + level - 1] =
				ind_fill(fs, mb, level, first, count, &k);
	}
	inode->flags &= ~EXT4_EXTENTS_FL;
}

/* ---- the entry points ---- */

int extkit_mapbuild_plan(const struct extkit_fs *fs,
			 struct extkit_mapbuild *mb)
{
	uint64_t level[EXT4_EXT_MAX_DEPTH], first, count, i, sum = 0;
	unsigned int l;
	int depth;

	if (mb->runs) {
		for (i = 0; i < mb->nruns; i++)
			sum += mb->runs[i].len;
		if (!mb->extents || sum != mb->nblocks)
			return -EINVAL;
		sum = 0;
	}
	if (mb->extents) {
		depth = ext_levels(count_runs(mb),
				   extkit_extent_capacity(fs->g.block_size),
				   level);
		if (depth < 0 || mb->nblocks > UINT32_MAX)
			return -EFBIG;
		if (mb->list && mb->nlist &&
		    mb->list[mb->nlist - 1].lblk +
		    mb->list[mb->nlist - 1].len > (1ull << 32))
			return -EFBIG;
		while (depth-- > 0)
			sum += level[depth];
		mb->nmeta = sum;
		return 0;
	}
	for (i = 0; i < mb->nblocks; i++)
		if (mb->pblks[i] > UINT32_MAX)
			return -EFBIG;
	for (l = 1; l <= 3; l++) {
		count = ind_share(fs, mb->nblocks, l, &first);
		if (count)
			sum += ind_meta(fs, mb, l, first, count);
	}
	if (ind_share(fs, mb->nblocks, 3, &first) + first < mb->nblocks)
		return -EFBIG;
	mb->nmeta = sum;
	return 0;
}

void extkit_mapbuild_fill(const struct extkit_fs *fs,
			  const struct extkit_mapbuild *mb,
			  struct extkit_inode *inode)
{
	if (mb->extents)
		fill_extents(fs, mb, inode);
	else
		fill_indirect(fs, mb, inode);
}

int extkit_mapbuild_write(struct extkit_fs *fs, uint32_t ino, uint32_t gen,
			  const struct extkit_mapbuild *mb)
{
	uint8_t *b;
	uint64_t k;
	int rc = 0;

	for (k = 0; !rc && k < mb->nmeta; k++) {
		b = mb->bufs + k * fs->g.block_size;
		if (mb->extents)
			rc = extkit_extent_write_block(fs, ino, gen,
						       mb->meta[k], b);
		else
			rc = extkit_fs_write_block(fs, mb->meta[k], b);
	}
	return rc;
}
