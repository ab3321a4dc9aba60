/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extended attribute blocks (the block i_file_acl names): the entry hash
 * and one validator that says why a block is not a valid EA block, after
 * the kernel's ext4_xattr_check_block and e2fsck's check_ext_attr. fsck
 * maps the reason to a problem; nobody re-implements the walk.
 */
#ifndef EXTKIT_XATTR_H
#define EXTKIT_XATTR_H

#include <stdint.h>

#include "endian.h"
#include "fs.h"
#include "ondisk.h"

/* Why a block is not a valid EA block. */
enum extkit_xattr_problem {
	EXTKIT_XATTR_OK = 0,
	EXTKIT_XATTR_BAD_MAGIC,		/* h_magic is not 0xEA020000 */
	EXTKIT_XATTR_BAD_BLOCKS,	/* h_blocks is not 1 */
	EXTKIT_XATTR_ENTRY_PAST_END,	/* an entry (or the end mark) does
					 * not fit in the block */
	EXTKIT_XATTR_BAD_NAME_INDEX,	/* e_name_index 0 */
	EXTKIT_XATTR_VALUE_PAST_END,	/* value runs past the block end */
	EXTKIT_XATTR_OVERLAP,		/* value overlaps the header, the
					 * entry table or another value */
	EXTKIT_XATTR_VALUE_INUM,	/* e_value_inum set without ea_inode */
	EXTKIT_XATTR_BAD_VALUE_INUM,	/* e_value_inum out of range */
	EXTKIT_XATTR_BAD_HASH,		/* e_hash does not match */
};

const char *extkit_xattr_problem_str(enum extkit_xattr_problem p);

/* What the validator needs to know of the filesystem, decided once. */
struct extkit_xattr_format {
	uint32_t block_size;
	uint32_t first_ino;
	uint32_t inodes_count;
	int ea_inode;		/* the ea_inode feature */
};

void extkit_xattr_format_init(const struct extkit_fs *fs,
			      struct extkit_xattr_format *fmt);

/*
 * The kernel's ext4_xattr_hash_entry over a name and a value of
 * value_size bytes (read as (value_size + 3) / 4 little-endian words, so
 * the padding must be readable). signed_chars: the name bytes taken as
 * signed chars (hashes some older kernels wrote; both are accepted).
 */
uint32_t extkit_xattr_hash_entry(const uint8_t *name, uint32_t name_len,
				 const uint8_t *value, uint32_t value_size,
				 int signed_chars);

/*
 * Checks block buf (fmt->block_size bytes) as an EA block: header, each
 * entry within the block, values within the block and not overlapping
 * the header, the entries or one another, e_value_inum, entry hashes.
 * The block hash h_hash is not checked (it only steers sharing; e2fsck
 * does not check it either). Cost O(block size); safe on any bytes.
 */
enum extkit_xattr_problem
extkit_xattr_block_check(const struct extkit_xattr_format *fmt,
			 const uint8_t *buf);

static inline uint32_t extkit_xattr_refcount(const uint8_t *buf)
{
	const struct ext2_ext_attr_header *h = (const void *)buf;

	return le32(h->h_refcount);
}

static inline void extkit_xattr_set_refcount(uint8_t *buf, uint32_t refs)
{
	struct ext2_ext_attr_header *h = (void *)buf;

	h->h_refcount = cpu_to_le32(refs);
}

#endif /* EXTKIT_XATTR_H */
