/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing extended attributes of a new inode: names split into the
 * on-disk name index and suffix, the entries sorted (index, name length,
 * name) and laid out in the inode's extra space first, the rest in one
 * EA block. POSIX ACLs are stored in ext4's own format (a version 1
 * header, 4-byte entries for the owner, group, mask and other, 8-byte
 * ones for named users and groups), not the version 2 format of the
 * xattr system calls: extkit_acl_from_xattr() converts.
 */
#ifndef EXTKIT_XATTRBUILD_H
#define EXTKIT_XATTRBUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fs.h"

#define EXTKIT_XATTR_INDEX_USER		1
#define EXTKIT_XATTR_INDEX_ACL_ACCESS	2
#define EXTKIT_XATTR_INDEX_ACL_DEFAULT	3
#define EXTKIT_XATTR_INDEX_TRUSTED	4
#define EXTKIT_XATTR_INDEX_SECURITY	6
#define EXTKIT_XATTR_INDEX_SYSTEM	7

struct extkit_xattr_item {
	uint8_t index;
	uint8_t name_len;
	const char *name;	/* the suffix after the index's prefix */
	const void *value;
	uint32_t size;
	/* set by extkit_xattr_place: */
	uint8_t where;		/* EXTKIT_XATTR_AT_*: the area of the entry */
	uint8_t ea_inode;	/* 1: the value goes in an EA inode */
	/* an EA inode's value: set by the caller before the layout */
	uint32_t value_inum;
	uint32_t value_hash;	/* extkit_ea_inode_value_hash of the value */
};

#define EXTKIT_XATTR_AT_INODE	1
#define EXTKIT_XATTR_AT_BLOCK	2

/* "system.data", the inline data attribute: in the inode or nowhere. */
static inline int extkit_xattr_item_is_data(const struct extkit_xattr_item *it)
{
	return it->index == EXTKIT_XATTR_INDEX_SYSTEM && it->name_len == 4 &&
	       !memcmp(it->name, "data", 4);
}

/*
 * The smallest value the kernel (ext4_xattr_set_handle) and e2fsprogs
 * put straight into an EA inode when the filesystem has ea_inode: what
 * is left of a block after its header, one 3-byte-name entry and the
 * end mark.
 */
static inline uint32_t extkit_xattr_large_value(uint32_t block_size)
{
	return block_size - 20 - 32 - 4;
}

/*
 * Splits a full name ("user.foo", "system.posix_acl_access") into index
 * and suffix. -EOPNOTSUPP for a namespace ext4 cannot store, -ERANGE for
 * a suffix over 255 bytes.
 */
int extkit_xattr_name_split(const char *full, uint8_t *index,
			    const char **suffix);

/*
 * Decides where each item goes, as the kernel's ext4_xattr_set_handle
 * would setting them one by one (the items are sorted first; system.data
 * comes first and only ever goes in the inode): in the extra space of
 * raw inode (i_extra_isize already set in it) when entry and value fit,
 * else in the EA block; with ea_inode (use_ea_inode), a value over
 * extkit_xattr_large_value, or one that fits neither, goes in an EA
 * inode of its own and only its entry in the inode or the block.
 * -ENOSPC when they do not fit (or system.data does not fit the inode),
 * -E2BIG for a value over 64 KiB in an EA inode.
 */
int extkit_xattr_place(const struct extkit_fs *fs,
		       struct extkit_xattr_item *items, size_t n,
		       const uint8_t *raw_inode, int use_ea_inode);
/*
 * Writes the placed items (extkit_xattr_place; an EA inode item with its
 * value_inum and value_hash set) into raw inode and block (block size
 * bytes, zeroed here; h_refcount 1, its checksum set by the caller when
 * it knows where the block goes). *use_block: 1 when block holds any.
 * Entry hashes: in the block the value's, for an EA inode the name's
 * and the EA inode's hash, in the inode 0 (as the kernel and e2fsprogs
 * write them: the kernel edits inline data in place, hash unchanged).
 */
void extkit_xattr_lay_out(const struct extkit_fs *fs,
			  const struct extkit_xattr_item *items, size_t n,
			  uint8_t *raw_inode, uint8_t *block, int *use_block);

/*
 * Writes the magic of an in-inode attribute area holding no entry into
 * raw inode (i_extra_isize already set in it), as mke2fs leaves
 * lost+found's with inline_data; nothing when the inode has no extra
 * space or no room for the magic.
 */
void extkit_xattr_ibody_empty(const struct extkit_fs *fs, uint8_t *raw_inode);

/*
 * Place and lay out in one go, without EA inodes: those that fit go in the extra
 * space of raw inode (inode_size bytes, i_extra_isize already set in it),
 * the others in block (block size bytes, h_refcount 1; its checksum is
 * set by the caller when it knows where the block goes). *use_block: 1
 * when block holds any. -ENOSPC when they do not fit both.
 */
int extkit_xattr_build(const struct extkit_fs *fs,
		       struct extkit_xattr_item *items, size_t n,
		       uint8_t *raw_inode, uint8_t *block, int *use_block);

/* ACL entry tags (the same numbers in both formats). */
#define EXTKIT_ACL_USER_OBJ	0x01
#define EXTKIT_ACL_USER		0x02
#define EXTKIT_ACL_GROUP_OBJ	0x04
#define EXTKIT_ACL_GROUP	0x08
#define EXTKIT_ACL_MASK		0x10
#define EXTKIT_ACL_OTHER	0x20

struct extkit_acl_entry {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};

/* Bytes the ext4 form of n entries takes at most. */
static inline size_t extkit_acl_max_size(size_t n)
{
	return 4 + 8 * n;
}

/* The ext4 form of entries (sorted in place by tag, then id) into out
 * (extkit_acl_max_size bytes); *size gets its length. -EINVAL for an
 * unknown tag. */
int extkit_acl_encode(struct extkit_acl_entry *e, size_t n, uint8_t *out,
		      size_t *size);
/* The xattr-call form (version 2) in in to the ext4 form in out
 * (extkit_acl_max_size of its entries). -EINVAL when malformed. */
int extkit_acl_from_xattr(const void *in, size_t in_size, uint8_t *out,
			  size_t *size);

#endif /* EXTKIT_XATTRBUILD_H */
