/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Extent trees (ext4): header checks, node access, tree block writes
 * (walk.c walks them). */
#ifndef EXTKIT_EXTENT_H
#define EXTKIT_EXTENT_H

#include <stdint.h>

#include "bmap.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"

/*
 * Checks an extent header found in a buffer of len bytes: magic, eh_max
 * fitting the buffer, eh_entries <= eh_max, depth <= EXT4_EXT_MAX_DEPTH.
 */
int extkit_extent_header_check(const struct ext4_extent_header *eh,
			       uint32_t len);

/* Entries a node of len bytes holds: 4 in i_block, (bs - 12) / 12 in a
 * block (ifork.rst). */
static inline uint16_t extkit_extent_capacity(uint32_t len)
{
	return (uint16_t)((len - sizeof(struct ext4_extent_header)) /
			  sizeof(struct ext4_extent));
}

/* The root node: i_block as 60 raw bytes, and back. */
#define EXTKIT_EXTENT_ROOT_SIZE	(EXT2_N_BLOCKS * 4)
#define EXTKIT_EXTENT_ROOT_MAX	4	/* eh_max of the root */
void extkit_extent_root_get(const struct extkit_inode *inode, uint8_t *root);
void extkit_extent_root_put(struct extkit_inode *inode, const uint8_t *root);

/*
 * Writes extent tree block blk of inode ino (i_generation gen) from buf,
 * first storing its checksum when metadata_csum is on: struct
 * ext4_extent_tail right after eh_max entries, crc32c of the bytes before
 * it seeded with the inode's seed.
 */
int extkit_extent_write_block(struct extkit_fs *fs, uint32_t ino,
			      uint32_t gen, uint64_t blk, uint8_t *buf);
/* Whether tree block buf (header already checked) carries the checksum
 * extkit_extent_write_block would give it (1 without metadata_csum). */
int extkit_extent_block_csum_ok(const struct extkit_fs *fs, uint32_t ino,
				uint32_t gen, const uint8_t *buf);

/* A leaf entry (struct ext4_extent) in host order. */
struct extkit_extent {
	uint64_t lblk;		/* ee_block */
	uint64_t pblk;		/* ee_start_hi << 32 | ee_start_lo */
	uint32_t len;		/* blocks: ee_len less 32768 when unwritten */
	int unwritten;		/* ee_len > EXT4_EXT_INIT_MAX_LEN */
};

/* An index entry (struct ext4_extent_idx) in host order. */
struct extkit_extent_idx {
	uint64_t lblk;		/* ei_block */
	uint64_t child;		/* ei_leaf_hi << 32 | ei_leaf_lo */
};

/*
 * Node access on raw bytes (a header, then 12-byte entries); i must be
 * below the node's capacity. The header fields are read and written with
 * the _entries / _depth helpers.
 */
/* Whether node starts with the extent header's magic (eh_magic). */
int extkit_extent_has_magic(const uint8_t *node);
uint16_t extkit_extent_entries(const uint8_t *node);
uint16_t extkit_extent_depth(const uint8_t *node);
/* eh_max: the entries the node has room for, as stored. */
uint16_t extkit_extent_max(const uint8_t *node);
void extkit_extent_set_entries(uint8_t *node, uint16_t n);
void extkit_extent_set_depth(uint8_t *node, uint16_t depth);
void extkit_extent_get(const uint8_t *node, uint16_t i,
		       struct extkit_extent *ex);
void extkit_extent_put(uint8_t *node, uint16_t i,
		       const struct extkit_extent *ex);
void extkit_extent_idx_get(const uint8_t *node, uint16_t i,
			   struct extkit_extent_idx *ix);
void extkit_extent_idx_put(uint8_t *node, uint16_t i,
			   const struct extkit_extent_idx *ix);
/* An empty node: size bytes zeroed, then the header (magic, eh_max max,
 * no entries, depth). */
void extkit_extent_node_init(uint8_t *node, uint32_t size, uint16_t max,
			     uint16_t depth);
/* The header's magic and eh_max set in place (its entries kept). */
void extkit_extent_set_max(uint8_t *node, uint16_t max);
/* One struct ext4_extent (12 raw bytes, wherever they lie: a tree node,
 * a fast-commit tag) in host order. */
void extkit_extent_decode(const void *raw, struct extkit_extent *ex);
/* Removes entry i, moving the later ones down. */
void extkit_extent_remove(uint8_t *node, uint16_t i);
/* Opens count free slots at i, moving entries i.. up; the caller fills
 * them. -ENOSPC when the node (of capacity cap) has no room. */
int extkit_extent_open_slots(uint8_t *node, uint16_t i, uint16_t count,
			     uint16_t cap);

#endif /* EXTKIT_EXTENT_H */
