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
#include "inode.h"
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
	EXTKIT_XATTR_NAME_PAST_END,	/* in-inode: a name runs past the end */
	EXTKIT_XATTR_INUM_VALUE,	/* a value inode entry with a value
					 * offset, or over 64 KiB */
	EXTKIT_XATTR_NAME_NUL,		/* a NUL inside e_name_len bytes */
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

/*
 * A run of entries with its values: an EA block (entries from offset 32,
 * value offsets from the block start) or the in-inode area after
 * i_extra_isize (a 4-byte magic, entries from offset 4, value offsets
 * from offset 4). Values of ea_inode entries live in their own inode.
 */
struct extkit_xattr_region {
	const uint8_t *buf;
	uint32_t size;		/* bytes of buf */
	uint32_t first;		/* offset of the first entry */
	uint32_t vbase;		/* value offsets count from here */
	int ibody;		/* in an inode: an e_hash of 0 is accepted */
};

/* One attribute, pointing into the region's buffer. */
struct extkit_xattr {
	uint8_t name_index;	/* 1 user., 2/3 POSIX ACLs, 4 trusted., ... */
	uint8_t name_len;
	const char *name;	/* not NUL-terminated */
	uint32_t value_size;
	uint32_t value_inum;	/* ea_inode: the inode holding the value */
	const uint8_t *value;	/* NULL for an ea_inode value */
	uint32_t hash;		/* e_hash as stored */
	uint32_t offset;	/* of the entry in the region */
	uint32_t value_offs;	/* e_value_offs as stored */
};

void extkit_xattr_block_region(const struct extkit_xattr_format *fmt,
			       const uint8_t *block,
			       struct extkit_xattr_region *r);
/*
 * The in-inode area of raw inode raw (inode_size bytes): 1 and *r set
 * when the area holds the EA magic, 0 when there is none (128-byte
 * inodes, i_extra_isize leaving no room, no magic).
 */
int extkit_xattr_ibody_region(const uint8_t *raw, uint32_t inode_size,
			      struct extkit_xattr_region *r);
/* Every attribute in the inode goes: the magic of its in-inode area
 * (h_magic of the ibody header after i_extra_isize) cleared; nothing
 * when the area holds none. */
void extkit_xattr_ibody_drop(uint8_t *raw, uint32_t inode_size);
/* Whether buf starts with an attribute block's header: h_magic, and
 * h_blocks 1 (the entries are extkit_xattr_block_check's). */
int extkit_xattr_block_has_header(const uint8_t *buf);
/*
 * Checks a region as the block validator does (entries, values within
 * the region and not overlapping, e_value_inum, hashes of the values
 * kept in it; an in-inode e_hash may be 0). Cost O(region size).
 */
enum extkit_xattr_problem
extkit_xattr_region_check(const struct extkit_xattr_format *fmt,
			  const struct extkit_xattr_region *r);
/*
 * The entry at *off (start with *off = r->first): 1 and *x filled, *off
 * moved on; 0 at the end mark; -EFSCORRUPTED when the entry or its value
 * does not fit in the region. Safe on any bytes.
 */
int extkit_xattr_next(const struct extkit_xattr_region *r, uint32_t *off,
		      struct extkit_xattr *x);
/* Finds name (without its prefix) under name_index: 1 found, 0 not. */
int extkit_xattr_find(const struct extkit_xattr_region *r,
		      uint8_t name_index, const char *name,
		      struct extkit_xattr *x);
/* The prefix name_index stands for ("user.", "system.data" is 7 +
 * "data"), or NULL for an unknown index. */
const char *extkit_xattr_prefix(uint8_t name_index);
/*
 * The entry hash an ea_inode entry must carry: the name hash, then the
 * EA inode's value hash (its i_atime) as the one value word.
 */
uint32_t extkit_xattr_hash_ea_inode(const uint8_t *name, uint32_t name_len,
				    uint32_t value_hash, int signed_chars);
/* Whether hash matches x (a value kept in the region) either way. */
int extkit_xattr_hash_ok(const struct extkit_xattr *x);

/* EA inodes (ea_inode): the value hash (crc32c of the value, seeded by
 * the filesystem's checksum seed) sits in i_atime, the reference count
 * in i_ctime (high half) and i_version (low half). */
uint32_t extkit_ea_inode_value_hash(const struct extkit_fs *fs,
				    const uint8_t *value, uint32_t size);
static inline uint64_t extkit_ea_inode_refcount(const struct extkit_inode *in)
{
	return (uint64_t)in->ctime << 32 | in->version;
}

static inline void extkit_ea_inode_set_refcount(struct extkit_inode *in,
						uint64_t refs)
{
	in->ctime = (uint32_t)(refs >> 32);
	in->version = (uint32_t)refs;
}

/*
 * Reads the value of EA inode inum (size bytes, at most 64 KiB as the
 * kernel allows) into buf. -EFSCORRUPTED when the inode is not an EA
 * inode holding size bytes.
 */
int extkit_ea_inode_read(struct extkit_fs *fs, uint32_t inum, uint32_t size,
			 uint8_t *buf);
#define EXTKIT_XATTR_MAX_VALUE	65536u

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
