// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The block-map walker (see walk.h): one recursion for indirect maps, one
 * for extent trees, the same visits and the same edits for both.
 *
 * Indirect maps: a slot holds a 32-bit block number, 0 for a hole (holes
 * are not visited). A dropped slot becomes 0.
 * Extent trees: the root is i_block (60 bytes, four entries), other nodes
 * whole blocks; a dropped entry is removed from its node, the later ones
 * moving down. Within a node, entries must be in increasing logical order
 * and inside the range [lo, hi) the parent's index gives (an index entry's
 * range ends where the next entry starts); across the tree, no extent may
 * start below the end of the last one kept. A child must sit one level
 * below its parent: a node naming itself is a depth error, not a loop.
 * Reference: Documentation/filesystems/ext4/blockmap.rst, ifork.rst.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "extent.h"
#include "walk.h"

#define IND_LEVELS	3
#define MAX_LEVEL	EXT4_EXT_MAX_DEPTH	/* tree blocks: depth 0..4 */
/* Logical block numbers are 32-bit. */
#define LBLK_LIMIT	(UINT64_C(1) << 32)

struct walk {
	struct extkit_fs *fs;
	struct extkit_walk *wk;
	uint32_t gen;
	uint64_t budget;	/* block references still allowed */
	uint64_t next;		/* forward: no extent starts below it;
				 * reverse: none ends above it */
	uint64_t eof;		/* i_size in blocks, rounded up */
	int aborted;
	uint8_t *bufs[MAX_LEVEL + 1];	/* one per level 1 .. MAX_LEVEL */
};

/* The callback: its bits, or a negative error (-ECANCELED on ABORT). */
static int visit(struct walk *w, struct extkit_walk_ent *e)
{
	int rc = w->wk->fn(w->fs, e, w->wk->arg);

	if (rc < 0)
		return rc;
	if (rc & EXTKIT_WALK_ABORT) {
		w->aborted = 1;
		return -ECANCELED;
	}
	return rc;
}

static int charge(struct walk *w, uint64_t count)
{
	if (count > w->budget)
		return -EXTKIT_ELOOP;
	w->budget -= count;
	return 0;
}

static int level_buf(struct walk *w, int level, uint8_t **buf)
{
	if (level < 1 || level > MAX_LEVEL)
		return -EFSCORRUPTED;
	if (!w->bufs[level]) {
		w->bufs[level] = malloc(w->fs->g.block_size);
		if (!w->bufs[level])
			return -ENOMEM;
	}
	*buf = w->bufs[level];
	return 0;
}

/* Whether an entry mapping up to end is passed over. */
static int before_from(const struct walk *w, uint64_t end)
{
	return w->wk->from && end <= w->wk->from;
}

static int may_write(const struct walk *w, int bits)
{
	return !(w->wk->flags & EXTKIT_WALK_DRY) &&
	       !(bits & EXTKIT_WALK_NOWRITE);
}

/* ---- indirect maps ---- */

/* Stores the callback's edit of slot; 1 when it changed. */
static int ind_apply(uint32_t *slot, const struct extkit_walk_ent *e,
		     int bits)
{
	if (bits & EXTKIT_WALK_DROP) {
		*slot = 0;
		return 1;
	}
	if ((bits & EXTKIT_WALK_CHANGED) && e->pblk != *slot) {
		*slot = (uint32_t)e->pblk;
		return 1;
	}
	return 0;
}

static int ind_slot(struct walk *w, uint32_t *slot,
		    struct extkit_walk_ent *e);

/* The entries of an indirect block at level (>= 1) mapping from lblk;
 * sets *dirty when one changed. */
static int ind_entries(struct walk *w, uint8_t *buf, int level,
		       uint64_t lblk, int *dirty)
{
	uint32_t apb = w->fs->g.addr_per_block;
	int reverse = w->wk->flags & EXTKIT_WALK_REVERSE;
	uint64_t span = 1;
	int rc;

	for (int l = 1; l < level; l++)
		span *= apb;
	for (uint32_t k = 0; k < apb; k++) {
		uint32_t i = reverse ? apb - 1 - k : k;
		uint32_t b = get_le32(buf + 4 * i);
		struct extkit_walk_ent e;

		if (!b)
			continue;	/* a hole: not visited (ind_slot) */
		e = (struct extkit_walk_ent){
			.lblk = lblk + i * span, .end = lblk + (i + 1) * span,
			.pblk = b, .len = 1, .level = level - 1,
			.flags = level > 1 ? EXTKIT_WALK_META : 0,
			.node = buf, .index = (uint16_t)i,
		};

		rc = ind_slot(w, &b, &e);
		if (rc < 0)
			return rc;
		if (rc) {
			put_le32(buf + 4 * i, b);
			*dirty = 1;
		}
	}
	return 0;
}

static uint32_t ind_count(const struct extkit_fs *fs, const uint8_t *buf)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < fs->g.addr_per_block; i++)
		n += get_le32(buf + 4 * i) != 0;
	return n;
}

/* Indirect block *slot (valid, charged): read, entered, walked, left. */
static int ind_block(struct walk *w, uint32_t *slot,
		     struct extkit_walk_ent *e)
{
	int dirty = 0, moved, bits, rc;
	uint8_t *buf;

	rc = level_buf(w, e->level, &buf);
	if (rc)
		return rc;
	rc = extkit_fs_read_block(w->fs, *slot, buf);
	if (rc) {
		e->bad = EXTKIT_WALK_BAD_READ;
		e->err = rc;
		bits = visit(w, e);
		return bits < 0 ? bits : ind_apply(slot, e, bits);
	}
	e->block = buf;
	bits = visit(w, e);
	if (bits < 0)
		return bits;
	if (bits & (EXTKIT_WALK_DROP | EXTKIT_WALK_SKIP))
		return ind_apply(slot, e, bits);
	moved = ind_apply(slot, e, bits);
	dirty = moved || (bits & EXTKIT_WALK_EDITED);
	rc = ind_entries(w, buf, e->level, e->lblk, &dirty);
	if (rc)
		return rc;
	e->flags |= EXTKIT_WALK_LEAVE;
	e->block = buf;
	e->entries = ind_count(w->fs, buf);
	rc = visit(w, e);
	if (rc < 0)
		return rc;
	if (rc & EXTKIT_WALK_DROP)
		return ind_apply(slot, e, rc);
	if (dirty && may_write(w, bits | rc)) {
		rc = extkit_fs_write_block(w->fs, *slot, buf);
		if (rc)
			return rc;
	}
	return moved;
}

/* One slot (a hole is passed over); 1 when *slot changed. */
static int ind_slot(struct walk *w, uint32_t *slot,
		    struct extkit_walk_ent *e)
{
	int bits, rc;

	if (!*slot || before_from(w, e->end))
		return 0;
	if (!extkit_fs_valid_block(w->fs, *slot)) {
		e->bad = EXTKIT_WALK_BAD_PBLK;
	} else {
		rc = charge(w, 1);
		if (rc)
			return rc;
		if (e->level)
			return ind_block(w, slot, e);
	}
	bits = visit(w, e);
	return bits < 0 ? bits : ind_apply(slot, e, bits);
}

/* The first logical block i_block[i] maps, and how many (*span): slot
 * 12 maps apb blocks from 12, 13 apb^2 from 12 + apb, 14 apb^3 from
 * 12 + apb + apb^2. */
static uint64_t slot_lblk(uint64_t apb, int i, uint64_t *span)
{
	uint64_t first = EXT2_NDIR_BLOCKS, s = apb;

	if (i < EXT2_NDIR_BLOCKS) {
		*span = 1;
		return (uint64_t)i;
	}
	for (int l = EXT2_NDIR_BLOCKS; l < i; l++) {
		first += s;
		s *= apb;
	}
	*span = s;
	return first;
}

static int walk_indirect(struct walk *w, struct extkit_inode *inode)
{
	uint64_t apb = w->fs->g.addr_per_block, span, first;
	int reverse = w->wk->flags & EXTKIT_WALK_REVERSE;
	int rc;

	for (int k = 0; k < EXT2_N_BLOCKS; k++) {
		int i = reverse ? EXT2_N_BLOCKS - 1 - k : k;
		int level = i < EXT2_NDIR_BLOCKS ? 0 : i - EXT2_NDIR_BLOCKS + 1;
		struct extkit_walk_ent e;

		/* A hole is not visited: most inodes map a block or two. */
		if (!inode->block[i])
			continue;
		first = slot_lblk(apb, i, &span);
		e = (struct extkit_walk_ent){
			.lblk = first, .end = first + span,
			.pblk = inode->block[i], .len = 1, .level = level,
			.flags = level ? EXTKIT_WALK_META : 0,
			.index = (uint16_t)i,
		};

		rc = ind_slot(w, &inode->block[i], &e);
		if (rc < 0)
			return rc;
		if (rc)
			w->wk->inode_changed = 1;
	}
	return 0;
}

/* ---- extent trees ---- */

static int out_of_order(const struct walk *w, uint64_t lblk, uint64_t len,
			uint64_t lo, uint64_t hi)
{
	if (lblk < lo || lblk >= hi)
		return 1;
	if (w->wk->flags & EXTKIT_WALK_REVERSE)
		return lblk + len > w->next;
	return lblk < w->next;
}

static int extent_bad(const struct walk *w, const struct extkit_extent *ex,
		      uint64_t lo, uint64_t hi)
{
	if (!ex->len)
		return EXTKIT_WALK_BAD_LEN;
	if (!ex->pblk || !extkit_fs_valid_block(w->fs, ex->pblk) ||
	    !extkit_fs_valid_block(w->fs, ex->pblk + ex->len - 1))
		return EXTKIT_WALK_BAD_PBLK;
	if (out_of_order(w, ex->lblk, ex->len, lo, hi))
		return EXTKIT_WALK_BAD_ORDER;
	if (ex->lblk + ex->len > hi)
		return EXTKIT_WALK_BAD_PAST;
	return 0;
}

/*
 * Whether extent i of leaf node, in order itself, runs over the start of
 * the next entry and past the end of the file while that entry starts
 * inside the file: then its length is what is wrong, not the next
 * entries' starts (e2fsck bounds a tree's extents by i_size and clears
 * this one too). Going forward only; unwritten extents may lie past
 * i_size.
 */
static int overruns_next(const struct walk *w, const uint8_t *node,
			 uint16_t i, const struct extkit_extent *ex)
{
	struct extkit_extent nx;
	uint64_t end = ex->lblk + ex->len;

	if ((w->wk->flags & EXTKIT_WALK_REVERSE) || ex->unwritten ||
	    i + 1 >= extkit_extent_entries(node))
		return 0;
	extkit_extent_get(node, i + 1, &nx);
	return nx.lblk > ex->lblk && nx.lblk < end && end > w->eof &&
	       nx.lblk < w->eof;
}

/* A kept extent with a usable run moves the order bound on. */
static void extent_kept(struct walk *w, const struct extkit_walk_ent *e)
{
	if (e->bad == EXTKIT_WALK_BAD_LEN || e->bad == EXTKIT_WALK_BAD_PBLK)
		return;
	if (w->wk->flags & EXTKIT_WALK_REVERSE)
		w->next = e->lblk;
	else
		w->next = e->lblk + e->len;
}

/* Leaf entry *i of node; moves *i to the next entry to visit. */
static int leaf_entry(struct walk *w, uint8_t *node, uint16_t cap,
		      uint16_t *i, uint64_t lo, uint64_t hi, int *dirty)
{
	int reverse = w->wk->flags & EXTKIT_WALK_REVERSE;
	struct extkit_walk_ent e = { .node = node, .index = *i, .cap = cap };
	struct extkit_extent ex;
	int bits, rc;

	extkit_extent_get(node, *i, &ex);
	e.lblk = ex.lblk;
	e.pblk = ex.pblk;
	e.len = ex.len;
	e.end = hi;
	e.flags = EXTKIT_WALK_EXTENT |
		  (ex.unwritten ? EXTKIT_WALK_UNWRITTEN : 0);
	if (before_from(w, ex.lblk + ex.len))
		goto next;
	e.bad = extent_bad(w, &ex, lo, hi);
	if (!e.bad && overruns_next(w, node, *i, &ex)) {
		e.bad = EXTKIT_WALK_BAD_ORDER;
		e.flags |= EXTKIT_WALK_OVERRUN;
	}
	if (e.bad != EXTKIT_WALK_BAD_LEN && e.bad != EXTKIT_WALK_BAD_PBLK) {
		rc = charge(w, ex.len);
		if (rc)
			return rc;
	}
	bits = visit(w, &e);
	if (bits < 0)
		return bits;
	if (bits & EXTKIT_WALK_DROP) {
		extkit_extent_remove(node, *i);
		*dirty = 1;
		if (reverse)
			(*i)--;
		return 0;
	}
	if (bits & EXTKIT_WALK_CHANGED) {
		ex.lblk = e.lblk;
		ex.pblk = e.pblk;
		ex.len = e.len;
		extkit_extent_put(node, *i, &ex);
		*dirty = 1;
	}
	if (bits & EXTKIT_WALK_EDITED) {
		*dirty = 1;
		if (!reverse)
			*i += e.skip;
	}
	extent_kept(w, &e);
next:
	if (reverse)
		(*i)--;
	else
		(*i)++;
	return 0;
}

static int walk_leaf(struct walk *w, uint8_t *node, uint16_t cap,
		     uint64_t lo, uint64_t hi, int *dirty)
{
	int reverse = w->wk->flags & EXTKIT_WALK_REVERSE;
	uint16_t i = reverse ? extkit_extent_entries(node) - 1 : 0;
	int rc;

	/* Reverse: i counts down and wraps below 0 to 0xFFFF. */
	while (i < extkit_extent_entries(node)) {
		rc = leaf_entry(w, node, cap, &i, lo, hi, dirty);
		if (rc)
			return rc;
	}
	return 0;
}

static int walk_ext_node(struct walk *w, uint8_t *node, uint16_t cap,
			 uint64_t lo, uint64_t hi, int *dirty);

/*
 * Reads child e->pblk and checks it is a tree block at e->level. *sound:
 * 1 when it is, 2 when the callback had its depth corrected, 0 when it
 * is not and was visited as bad; returns the callback's bits or an error.
 */
static int child_read(struct walk *w, struct extkit_walk_ent *e,
		      uint8_t *buf, int *sound)
{
	uint32_t bs = w->fs->g.block_size;
	struct ext4_extent_header eh;
	int rc;

	*sound = 0;
	if (!e->pblk || !extkit_fs_valid_block(w->fs, e->pblk)) {
		e->bad = EXTKIT_WALK_BAD_PBLK;
		return visit(w, e);
	}
	rc = charge(w, 1);
	if (rc)
		return rc;
	rc = extkit_fs_read_block(w->fs, e->pblk, buf);
	memcpy(&eh, buf, sizeof(eh));
	if (rc) {
		e->bad = EXTKIT_WALK_BAD_READ;
		e->err = rc;
	} else if (le16(eh.eh_magic) != EXT4_EXT_MAGIC) {
		e->bad = EXTKIT_WALK_BAD_MAGIC;
	} else if (extkit_extent_header_check(&eh, bs)) {
		e->bad = EXTKIT_WALK_BAD_HEADER;
	} else if (extkit_extent_depth(buf) != e->level - 1) {
		e->bad = EXTKIT_WALK_BAD_DEPTH;
		e->block = buf;
		rc = visit(w, e);
		if (rc < 0 || !(rc & EXTKIT_WALK_CHANGED) ||
		    (rc & EXTKIT_WALK_DROP))
			return rc;
		extkit_extent_set_depth(buf, (uint16_t)(e->level - 1));
		*sound = 2;
		return 0;
	} else {
		*sound = 1;
		return 0;
	}
	return visit(w, e);
}

/* Stores the callback's edit of index entry i; 1 when it changed. */
static int idx_apply(uint8_t *node, uint16_t i,
		     const struct extkit_walk_ent *e, int bits)
{
	struct extkit_extent_idx ix;

	if (bits & EXTKIT_WALK_DROP) {
		extkit_extent_remove(node, i);
		return 1;
	}
	if (!(bits & EXTKIT_WALK_CHANGED))
		return 0;
	extkit_extent_idx_get(node, i, &ix);
	if (ix.lblk == e->lblk && ix.child == e->pblk)
		return 0;
	ix.lblk = e->lblk;
	ix.child = e->pblk;
	extkit_extent_idx_put(node, i, &ix);
	return 1;
}

/* The child of index entry e (in e->node): read, entered, walked, left.
 * 1 when the entry changed (or went). */
static int ext_child(struct walk *w, struct extkit_walk_ent *e)
{
	uint32_t bs = w->fs->g.block_size;
	int cdirty, sound, bits, moved, rc;
	uint8_t *buf;

	rc = level_buf(w, e->level, &buf);
	if (rc)
		return rc;
	rc = child_read(w, e, buf, &sound);
	if (rc < 0)
		return rc;
	if (!sound)
		return idx_apply(e->node, e->index, e, rc);
	cdirty = sound == 2;
	e->bad = 0;
	e->block = buf;
	bits = visit(w, e);
	if (bits < 0)
		return bits;
	if (bits & (EXTKIT_WALK_DROP | EXTKIT_WALK_SKIP))
		return idx_apply(e->node, e->index, e, bits);
	moved = idx_apply(e->node, e->index, e, bits);
	cdirty |= moved || (bits & EXTKIT_WALK_EDITED);
	rc = walk_ext_node(w, buf, extkit_extent_capacity(bs), e->lblk,
			   e->end, &cdirty);
	if (rc)
		return rc;
	e->flags |= EXTKIT_WALK_LEAVE;
	e->block = buf;
	e->entries = extkit_extent_entries(buf);
	rc = visit(w, e);
	if (rc < 0)
		return rc;
	if (rc & EXTKIT_WALK_DROP)
		return idx_apply(e->node, e->index, e, rc);
	moved |= idx_apply(e->node, e->index, e, rc);
	if (cdirty && may_write(w, bits | rc)) {
		bits = extkit_extent_write_block(w->fs, w->wk->ino, w->gen,
						 e->pblk, buf);
		if (bits)
			return bits;
	}
	return moved;
}

/* Where index entry i's range ends: at the next entry's start when that
 * lies inside (lblk, hi); going backwards, at the last one visited. */
static uint64_t idx_end(const struct walk *w, const uint8_t *node,
			uint16_t i, uint64_t lblk, uint64_t hi,
			uint64_t prev)
{
	struct extkit_extent_idx nx;

	if (w->wk->flags & EXTKIT_WALK_REVERSE)
		return prev;
	if (i + 1 >= extkit_extent_entries(node))
		return hi;
	extkit_extent_idx_get(node, i + 1, &nx);
	return nx.lblk > lblk && nx.lblk < hi ? nx.lblk : hi;
}

static int walk_index(struct walk *w, uint8_t *node, uint16_t cap,
		      uint64_t lo, uint64_t hi, int *dirty)
{
	int reverse = w->wk->flags & EXTKIT_WALK_REVERSE;
	uint16_t n = extkit_extent_entries(node);
	uint16_t i = reverse ? n - 1 : 0;
	uint64_t prev = hi;
	int rc;

	while (i < extkit_extent_entries(node)) {
		struct extkit_extent_idx ix;
		struct extkit_walk_ent e = {
			.len = 1, .level = extkit_extent_depth(node),
			.flags = EXTKIT_WALK_META | EXTKIT_WALK_EXTENT,
			.node = node, .index = i, .cap = cap,
		};

		extkit_extent_idx_get(node, i, &ix);
		e.lblk = ix.lblk;
		e.pblk = ix.child;
		e.end = idx_end(w, node, i, ix.lblk, hi, prev);
		prev = ix.lblk;
		rc = 0;
		if (!before_from(w, e.end) &&
		    out_of_order(w, ix.lblk, 1, lo, hi)) {
			e.bad = EXTKIT_WALK_BAD_ORDER;
			rc = visit(w, &e);
			if (rc >= 0)
				rc = idx_apply(node, i, &e,
					       rc & EXTKIT_WALK_DROP);
			if (rc < 0)
				return rc;
			e.bad = 0;
		}
		if (!rc && !before_from(w, e.end))
			rc = ext_child(w, &e);
		if (rc < 0)
			return rc;
		*dirty |= rc;
		/* A removed entry: the next one moved into place i. */
		if (reverse)
			i--;
		else if (n == extkit_extent_entries(node))
			i++;
		n = extkit_extent_entries(node);
	}
	return 0;
}

static int walk_ext_node(struct walk *w, uint8_t *node, uint16_t cap,
			 uint64_t lo, uint64_t hi, int *dirty)
{
	if (!extkit_extent_depth(node))
		return walk_leaf(w, node, cap, lo, hi, dirty);
	return walk_index(w, node, cap, lo, hi, dirty);
}

static int walk_extents(struct walk *w, struct extkit_inode *inode)
{
	struct ext4_extent_header eh;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	int dirty = 0, rc;

	extkit_extent_root_get(inode, root);
	memcpy(&eh, root, sizeof(eh));
	rc = extkit_extent_header_check(&eh, sizeof(root));
	if (rc)
		return rc;
	w->next = w->wk->flags & EXTKIT_WALK_REVERSE ? LBLK_LIMIT : 0;
	rc = walk_ext_node(w, root, EXTKIT_EXTENT_ROOT_MAX, 0, LBLK_LIMIT,
			   &dirty);
	if (dirty && (!rc || w->aborted)) {
		/* An index root left with no child is an empty leaf again. */
		if (!extkit_extent_entries(root))
			extkit_extent_set_depth(root, 0);
		extkit_extent_root_put(inode, root);
		w->wk->inode_changed = 1;
	}
	return rc;
}

int extkit_walk(struct extkit_fs *fs, struct extkit_inode *inode,
		struct extkit_walk *wk)
{
	struct walk w = {
		.fs = fs, .wk = wk, .gen = inode->generation,
		.budget = fs->sb.blocks_count,
		.eof = (inode->size + fs->g.block_size - 1) / fs->g.block_size,
	};
	int rc;

	wk->inode_changed = 0;
	if (inode->flags & EXT4_EXTENTS_FL)
		rc = walk_extents(&w, inode);
	else
		rc = walk_indirect(&w, inode);
	for (int i = 0; i <= MAX_LEVEL; i++)
		if (w.bufs[i])
			free(w.bufs[i]);
	if (w.aborted)
		return 1;
	return rc;
}
