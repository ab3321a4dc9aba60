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

#include <stdlib.h>
#include <string.h>

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
