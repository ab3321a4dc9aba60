// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extent trees (ext4): header checks, node access and the checksummed
 * write of a tree block. The root lives in i_block (60 bytes: a header
 * and four entries), interior and leaf nodes in whole blocks; walk.c
 * walks and edits them. Entries are read with memcpy, never through
 * casts into the buffer.
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

/* ---- node access ---- */

static uint8_t *entry_at(uint8_t *node, uint16_t i)
{
	return node + EXT_HDR_SIZE + (size_t)i * EXT_ENTRY_SIZE;
}

int extkit_extent_has_magic(const uint8_t *node)
{
	return get_le16(node + offsetof(struct ext4_extent_header,
					eh_magic)) == EXT4_EXT_MAGIC;
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

uint16_t extkit_extent_max(const uint8_t *node)
{
	return get_le16(node + offsetof(struct ext4_extent_header, eh_max));
}

void extkit_extent_set_entries(uint8_t *node, uint16_t n)
{
	put_le16(node + offsetof(struct ext4_extent_header, eh_entries), n);
}

void extkit_extent_set_depth(uint8_t *node, uint16_t depth)
{
	put_le16(node + offsetof(struct ext4_extent_header, eh_depth), depth);
}

/* Whole words through cpu_to_le32 / le32: on a little-endian host one
 * 60-byte copy (byte by byte, a hot spot of pass 1 on ext4). */
void extkit_extent_root_get(const struct extkit_inode *inode, uint8_t *root)
{
	__le32 w[EXT2_N_BLOCKS];

	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		w[i] = cpu_to_le32(inode->block[i]);
	memcpy(root, w, sizeof(w));
}

void extkit_extent_root_put(struct extkit_inode *inode, const uint8_t *root)
{
	__le32 w[EXT2_N_BLOCKS];

	memcpy(w, root, sizeof(w));
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		inode->block[i] = le32(w[i]);
}

void extkit_extent_get(const uint8_t *node, uint16_t i,
		       struct extkit_extent *ex)
{
	extkit_extent_decode(node + EXT_HDR_SIZE + (size_t)i * EXT_ENTRY_SIZE,
			     ex);
}

void extkit_extent_node_init(uint8_t *node, uint32_t size, uint16_t max,
			     uint16_t depth)
{
	memset(node, 0, size);
	extkit_extent_set_max(node, max);
	extkit_extent_set_depth(node, depth);
}

void extkit_extent_set_max(uint8_t *node, uint16_t max)
{
	struct ext4_extent_header h;

	memcpy(&h, node, sizeof(h));
	h.eh_magic = cpu_to_le16(EXT4_EXT_MAGIC);
	h.eh_max = cpu_to_le16(max);
	memcpy(node, &h, sizeof(h));
}

void extkit_extent_decode(const void *raw, struct extkit_extent *ex)
{
	struct ext4_extent e;

	memcpy(&e, raw, sizeof(e));
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

/* Where the tail of a tree block sits (after eh_max entries); 0 when
 * there is none to keep (no metadata_csum, or no room for it). */
static size_t csum_tail(const struct extkit_fs *fs, const uint8_t *buf)
{
	size_t tail = sizeof(struct ext4_extent_header) +
		      sizeof(struct ext4_extent) *
		      (size_t)get_le16(buf + offsetof(struct ext4_extent_header,
						      eh_max));

	if (!extkit_has_metadata_csum(&fs->sb) ||
	    tail + sizeof(struct ext4_extent_tail) > fs->g.block_size)
		return 0;
	return tail;
}

int extkit_extent_write_block(struct extkit_fs *fs, uint32_t ino,
			      uint32_t gen, uint64_t blk, uint8_t *buf)
{
	size_t tail = csum_tail(fs, buf);

	if (tail)
		put_le32(buf + tail,
			 extkit_crc32c(extkit_inode_csum_seed(fs, ino, gen),
				       buf, tail));
	return extkit_fs_write_block(fs, blk, buf);
}

int extkit_extent_block_csum_ok(const struct extkit_fs *fs, uint32_t ino,
				uint32_t gen, const uint8_t *buf)
{
	size_t tail = csum_tail(fs, buf);

	return !tail || get_le32(buf + tail) ==
		extkit_crc32c(extkit_inode_csum_seed(fs, ino, gen), buf, tail);
}
