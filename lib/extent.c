// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extent trees (ext4): header checks and the read-only walk behind
 * extkit_block_walk(). The root lives in i_block (60 bytes: a header and
 * four entries), interior and leaf nodes in whole blocks. Each child's
 * depth must be one less than its parent's, so the walk is at most
 * EXT4_EXT_MAX_DEPTH levels deep even when a node points at itself.
 * Entries are read with memcpy, never through casts into the buffer.
 * Reference: Documentation/filesystems/ext4/ifork.rst.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "extent.h"

#define EXT_HDR_SIZE	sizeof(struct ext4_extent_header)
#define EXT_ENTRY_SIZE	sizeof(struct ext4_extent)
#define EXT_ROOT_SIZE	(EXT2_N_BLOCKS * 4)
/* Logical block numbers are 32-bit. */
#define EXT_LBLK_LIMIT	(UINT64_C(1) << 32)

struct ext_walk {
	struct extkit_fs *fs;
	extkit_block_fn fn;
	void *arg;
	uint8_t *bufs[EXT4_EXT_MAX_DEPTH];	/* one per child depth 0..4 */
	uint64_t next_lblk;	/* no extent may start below this */
	uint64_t budget;	/* block references still allowed */
};

int extkit_extent_header_check(const struct ext4_extent_header *eh,
			       uint32_t len)
{
	uint16_t max;

	if (len < EXT_HDR_SIZE)
		return -EFSCORRUPTED;
	if (le16(eh->eh_magic) != EXT4_EXT_MAGIC)
		return -EFSCORRUPTED;
	max = le16(eh->eh_max);
	if (max > (len - EXT_HDR_SIZE) / EXT_ENTRY_SIZE)
		return -EFSCORRUPTED;
	if (le16(eh->eh_entries) > max)
		return -EFSCORRUPTED;
	if (le16(eh->eh_depth) > EXT4_EXT_MAX_DEPTH)
		return -EFSCORRUPTED;
	return 0;
}

static int charge(struct ext_walk *w, uint64_t count)
{
	if (count > w->budget)
		return -EXTKIT_ELOOP;
	w->budget -= count;
	return 0;
}

/* Leaf: extents in increasing logical order, each below hi. */
static int walk_leaf(struct ext_walk *w, const uint8_t *node, uint16_t n,
		     uint64_t hi)
{
	struct ext4_extent ex;
	uint64_t lblk, pblk;
	uint32_t len;
	uint16_t i;
	int flags;
	int rc;

	for (i = 0; i < n; i++) {
		memcpy(&ex, node + EXT_HDR_SIZE + i * EXT_ENTRY_SIZE,
		       sizeof(ex));
		lblk = le32(ex.ee_block);
		len = le16(ex.ee_len);
		flags = 0;
		if (len > EXT4_EXT_INIT_MAX_LEN) {
			len -= EXT4_EXT_INIT_MAX_LEN;
			flags = EXTKIT_BLOCK_UNWRITTEN;
		}
		pblk = (uint64_t)le16(ex.ee_start_hi) << 32 |
		       le32(ex.ee_start_lo);
		if (!len || lblk < w->next_lblk || lblk + len > hi)
			return -EFSCORRUPTED;
		if (!extkit_fs_valid_block(w->fs, pblk) ||
		    !extkit_fs_valid_block(w->fs, pblk + len - 1))
			return -EFSCORRUPTED;
		rc = charge(w, len);
		if (rc)
			return rc;
		w->next_lblk = lblk + len;
		rc = w->fn(w->fs, lblk, pblk, len, flags, w->arg);
		if (rc)
			return rc;
	}
	return 0;
}

static int walk_node(struct ext_walk *w, const uint8_t *node,
		     const struct ext4_extent_header *eh, uint64_t hi);

/*
 * Reads the child node blk, which must be a valid node of the given
 * depth, and reports it as a META block mapping from lblk on.
 */
static int enter_child(struct ext_walk *w, uint64_t blk, uint16_t depth,
		       uint64_t lblk, struct ext4_extent_header *eh)
{
	uint32_t bs = w->fs->g.block_size;
	uint8_t *buf = w->bufs[depth];
	int rc;

	if (!extkit_fs_valid_block(w->fs, blk))
		return -EFSCORRUPTED;
	if (!buf) {
		buf = malloc(bs);
		if (!buf)
			return -ENOMEM;
		w->bufs[depth] = buf;
	}
	rc = extkit_fs_read_block(w->fs, blk, buf);
	if (rc)
		return rc;
	memcpy(eh, buf, sizeof(*eh));
	rc = extkit_extent_header_check(eh, bs);
	if (rc)
		return rc;
	/* A child not one level down: e.g. an index naming its own block. */
	if (le16(eh->eh_depth) != depth)
		return -EXTKIT_ELOOP;
	rc = charge(w, 1);
	if (rc)
		return rc;
	return w->fn(w->fs, lblk, blk, 1, EXTKIT_BLOCK_META, w->arg);
}

/* Index node of the given depth (>= 1): children in increasing order. */
static int walk_index(struct ext_walk *w, const uint8_t *node, uint16_t n,
		      uint16_t depth, uint64_t hi)
{
	struct ext4_extent_header ceh;
	struct ext4_extent_idx idx;
	uint64_t lblk, next, child;
	uint16_t i;
	int rc;

	for (i = 0; i < n; i++) {
		memcpy(&idx, node + EXT_HDR_SIZE + i * EXT_ENTRY_SIZE,
		       sizeof(idx));
		lblk = le32(idx.ei_block);
		child = (uint64_t)le16(idx.ei_leaf_hi) << 32 |
			le32(idx.ei_leaf_lo);
		next = hi;
		if (i + 1 < n)
			next = get_le32(node + EXT_HDR_SIZE +
					(i + 1) * EXT_ENTRY_SIZE);
		if (lblk >= next || next > hi)
			return -EFSCORRUPTED;
		rc = enter_child(w, child, depth - 1, lblk, &ceh);
		if (rc)
			return rc;
		rc = walk_node(w, w->bufs[depth - 1], &ceh, next);
		if (rc)
			return rc;
	}
	return 0;
}

/* node holds a checked header eh; its extents must end at or below hi. */
static int walk_node(struct ext_walk *w, const uint8_t *node,
		     const struct ext4_extent_header *eh, uint64_t hi)
{
	uint16_t depth = le16(eh->eh_depth);
	uint16_t n = le16(eh->eh_entries);

	if (!depth)
		return walk_leaf(w, node, n, hi);
	return walk_index(w, node, n, depth, hi);
}

int extkit_extent_walk(struct extkit_fs *fs, const struct extkit_inode *inode,
		       extkit_block_fn fn, void *arg)
{
	struct ext_walk w = {
		.fs = fs, .fn = fn, .arg = arg,
		.budget = fs->sb.blocks_count,
	};
	struct ext4_extent_header eh;
	uint8_t root[EXT_ROOT_SIZE];
	int rc;
	int i;

	for (i = 0; i < EXT2_N_BLOCKS; i++)
		put_le32(root + 4 * i, inode->block[i]);
	memcpy(&eh, root, sizeof(eh));
	rc = extkit_extent_header_check(&eh, sizeof(root));
	if (rc)
		return rc;
	rc = walk_node(&w, root, &eh, EXT_LBLK_LIMIT);
	for (i = 0; i < EXT4_EXT_MAX_DEPTH; i++)
		free(w.bufs[i]);
	return rc;
}

/* ---- node access ---- */

static uint8_t *entry_at(uint8_t *node, uint16_t i)
{
	return node + EXT_HDR_SIZE + (size_t)i * EXT_ENTRY_SIZE;
}

uint16_t extkit_extent_entries(const uint8_t *node)
{
	return get_le16(node + offsetof(struct ext4_extent_header,
					eh_entries));
}

uint16_t extkit_extent_depth(const uint8_t *node)
{
	return get_le16(node + offsetof(struct ext4_extent_header, eh_depth));
}

void extkit_extent_set_entries(uint8_t *node, uint16_t n)
{
	put_le16(node + offsetof(struct ext4_extent_header, eh_entries), n);
}

void extkit_extent_set_depth(uint8_t *node, uint16_t depth)
{
	put_le16(node + offsetof(struct ext4_extent_header, eh_depth), depth);
}

void extkit_extent_root_get(const struct extkit_inode *inode, uint8_t *root)
{
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		put_le32(root + 4 * i, inode->block[i]);
}

void extkit_extent_root_put(struct extkit_inode *inode, const uint8_t *root)
{
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		inode->block[i] = get_le32(root + 4 * i);
}

void extkit_extent_get(const uint8_t *node, uint16_t i,
		       struct extkit_extent *ex)
{
	struct ext4_extent e;

	memcpy(&e, node + EXT_HDR_SIZE + (size_t)i * EXT_ENTRY_SIZE,
	       sizeof(e));
	ex->lblk = le32(e.ee_block);
	ex->len = le16(e.ee_len);
	ex->unwritten = ex->len > EXT4_EXT_INIT_MAX_LEN;
	if (ex->unwritten)
		ex->len -= EXT4_EXT_INIT_MAX_LEN;
	ex->pblk = (uint64_t)le16(e.ee_start_hi) << 32 | le32(e.ee_start_lo);
}

void extkit_extent_put(uint8_t *node, uint16_t i,
		       const struct extkit_extent *ex)
{
	uint8_t *p = entry_at(node, i);
	uint32_t len = ex->len + (ex->unwritten ? EXT4_EXT_INIT_MAX_LEN : 0);

	put_le32(p + offsetof(struct ext4_extent, ee_block),
		 (uint32_t)ex->lblk);
	put_le16(p + offsetof(struct ext4_extent, ee_len), (uint16_t)len);
	put_le16(p + offsetof(struct ext4_extent, ee_start_hi),
		 (uint16_t)(ex->pblk >> 32));
	put_le32(p + offsetof(struct ext4_extent, ee_start_lo),
		 (uint32_t)ex->pblk);
}

void extkit_extent_idx_get(const uint8_t *node, uint16_t i,
			   struct extkit_extent_idx *ix)
{
	struct ext4_extent_idx e;

	memcpy(&e, node + EXT_HDR_SIZE + (size_t)i * EXT_ENTRY_SIZE,
	       sizeof(e));
	ix->lblk = le32(e.ei_block);
	ix->child = (uint64_t)le16(e.ei_leaf_hi) << 32 | le32(e.ei_leaf_lo);
}

void extkit_extent_idx_put(uint8_t *node, uint16_t i,
			   const struct extkit_extent_idx *ix)
{
	uint8_t *p = entry_at(node, i);

	put_le32(p + offsetof(struct ext4_extent_idx, ei_block),
		 (uint32_t)ix->lblk);
	put_le32(p + offsetof(struct ext4_extent_idx, ei_leaf_lo),
		 (uint32_t)ix->child);
	put_le16(p + offsetof(struct ext4_extent_idx, ei_leaf_hi),
		 (uint16_t)(ix->child >> 32));
	put_le16(p + offsetof(struct ext4_extent_idx, ei_unused), 0);
}

void extkit_extent_remove(uint8_t *node, uint16_t i)
{
	uint16_t n = extkit_extent_entries(node);

	if (i >= n)
		return;
	memmove(entry_at(node, i), entry_at(node, i + 1),
		(size_t)(n - i - 1) * EXT_ENTRY_SIZE);
	memset(entry_at(node, n - 1), 0, EXT_ENTRY_SIZE);
	extkit_extent_set_entries(node, n - 1);
}

int extkit_extent_open_slots(uint8_t *node, uint16_t i, uint16_t count,
			     uint16_t cap)
{
	uint16_t n = extkit_extent_entries(node);

	if (i > n || count > cap || n > cap - count)
		return -ENOSPC;
	memmove(entry_at(node, i + count), entry_at(node, i),
		(size_t)(n - i) * EXT_ENTRY_SIZE);
	memset(entry_at(node, i), 0, (size_t)count * EXT_ENTRY_SIZE);
	extkit_extent_set_entries(node, n + count);
	return 0;
}

/* ---- truncation ---- */

struct ext_trunc {
	struct ext_walk w;	/* fs, fn, arg, bufs, budget */
	uint64_t keep;
	int dry;
	uint32_t ino, gen;	/* the owner: seed of the block checksums */
};

/* Passes a released run to the caller; checks it lies in the fs. */
static int trunc_release(struct ext_trunc *t, uint64_t lblk, uint64_t pblk,
			 uint32_t count, int flags)
{
	if (!count || !extkit_fs_valid_block(t->w.fs, pblk) ||
	    !extkit_fs_valid_block(t->w.fs, pblk + count - 1))
		return -EFSCORRUPTED;
	return t->w.fn(t->w.fs, lblk, pblk, count, flags, t->w.arg);
}

/* Leaf: drops or shortens the extents past keep; sets *changed. */
static int trunc_leaf(struct ext_trunc *t, uint8_t *node, int *changed)
{
	struct extkit_extent ex;
	uint64_t cut;
	int rc;

	for (uint16_t i = extkit_extent_entries(node); i-- > 0;) {
		extkit_extent_get(node, i, &ex);
		if (ex.lblk + ex.len <= t->keep)
			continue;
		rc = charge(&t->w, ex.len);
		if (rc)
			return rc;
		if (ex.lblk >= t->keep) {
			rc = trunc_release(t, ex.lblk, ex.pblk, ex.len,
				ex.unwritten ? EXTKIT_BLOCK_UNWRITTEN : 0);
			if (rc)
				return rc;
			extkit_extent_remove(node, i);
		} else {
			cut = ex.lblk + ex.len - t->keep;
			rc = trunc_release(t, t->keep, ex.pblk + ex.len - cut,
				(uint32_t)cut,
				ex.unwritten ? EXTKIT_BLOCK_UNWRITTEN : 0);
			if (rc)
				return rc;
			ex.len -= (uint32_t)cut;
			extkit_extent_put(node, i, &ex);
		}
		*changed = 1;
	}
	return 0;
}

static int trunc_node(struct ext_trunc *t, uint8_t *node, uint64_t hi,
		      int *changed);

/* Index entry i of node (depth >= 1), its subtree reaching below hi. */
static int trunc_child(struct ext_trunc *t, uint8_t *node, uint16_t i,
		       uint64_t hi, int *changed)
{
	uint16_t depth = extkit_extent_depth(node) - 1;
	struct extkit_extent_idx ix;
	struct ext4_extent_header eh;
	uint32_t bs = t->w.fs->g.block_size;
	int cchanged = 0, rc;
	uint8_t *buf;

	extkit_extent_idx_get(node, i, &ix);
	if (hi <= t->keep)
		return 0;
	rc = charge(&t->w, 1);
	if (rc)
		return rc;
	if (!extkit_fs_valid_block(t->w.fs, ix.child))
		return -EFSCORRUPTED;
	buf = t->w.bufs[depth];
	if (!buf) {
		buf = malloc(bs);
		if (!buf)
			return -ENOMEM;
		t->w.bufs[depth] = buf;
	}
	rc = extkit_fs_read_block(t->w.fs, ix.child, buf);
	if (rc)
		return rc;
	memcpy(&eh, buf, sizeof(eh));
	rc = extkit_extent_header_check(&eh, bs);
	if (rc)
		return rc;
	if (le16(eh.eh_depth) != depth)
		return -EXTKIT_ELOOP;
	rc = trunc_node(t, buf, hi, &cchanged);
	if (rc)
		return rc;
	if (!extkit_extent_entries(buf)) {
		rc = trunc_release(t, ix.lblk, ix.child, 1, EXTKIT_BLOCK_META);
		if (rc)
			return rc;
		extkit_extent_remove(node, i);
		*changed = 1;
	} else if (cchanged && !t->dry) {
		rc = extkit_extent_write_block(t->w.fs, t->ino, t->gen,
					       ix.child, buf);
	}
	return rc;
}

/* Cuts the subtree of node (header checked) covering logical blocks
 * below hi; last entry first, so removals keep earlier indexes valid. */
static int trunc_node(struct ext_trunc *t, uint8_t *node, uint64_t hi,
		      int *changed)
{
	uint16_t n = extkit_extent_entries(node);
	uint64_t next = hi;
	int rc;

	if (!extkit_extent_depth(node))
		return trunc_leaf(t, node, changed);
	for (uint16_t i = n; i-- > 0;) {
		struct extkit_extent_idx ix;

		extkit_extent_idx_get(node, i, &ix);
		rc = trunc_child(t, node, i, next, changed);
		if (rc)
			return rc;
		next = ix.lblk;
	}
	return 0;
}

int extkit_extent_truncate(struct extkit_fs *fs, uint32_t ino,
			   struct extkit_inode *inode, uint64_t keep, int dry,
			   extkit_block_fn fn, void *arg)
{
	struct ext_trunc t = {
		.ino = ino, .gen = inode->generation,
		.w = { .fs = fs, .fn = fn, .arg = arg,
		       .budget = fs->sb.blocks_count },
		.keep = keep, .dry = dry,
	};
	struct ext4_extent_header eh;
	uint8_t root[EXT_ROOT_SIZE];
	int changed = 0, rc;

	extkit_extent_root_get(inode, root);
	memcpy(&eh, root, sizeof(eh));
	rc = extkit_extent_header_check(&eh, sizeof(root));
	if (!rc)
		rc = trunc_node(&t, root, EXT_LBLK_LIMIT, &changed);
	/* An index root left with no child is an empty leaf again. */
	if (!rc && !extkit_extent_entries(root))
		extkit_extent_set_depth(root, 0);
	if (!rc || rc > 0)
		extkit_extent_root_put(inode, root);
	for (int i = 0; i < EXT4_EXT_MAX_DEPTH; i++)
		free(t.w.bufs[i]);
	return rc;
}

int extkit_extent_write_block(struct extkit_fs *fs, uint32_t ino,
			      uint32_t gen, uint64_t blk, uint8_t *buf)
{
	size_t tail = sizeof(struct ext4_extent_header) +
		      sizeof(struct ext4_extent) *
		      (size_t)get_le16(buf + offsetof(struct ext4_extent_header,
						      eh_max));

	if (extkit_has_metadata_csum(&fs->sb) &&
	    tail + sizeof(struct ext4_extent_tail) <= fs->g.block_size)
		put_le32(buf + tail,
			 extkit_crc32c(extkit_inode_csum_seed(fs, ino, gen),
				       buf, tail));
	return extkit_fs_write_block(fs, blk, buf);
}
