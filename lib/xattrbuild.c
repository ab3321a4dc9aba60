// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extended attributes of a new inode and ACL values (see xattrbuild.h).
 * In-inode layout (inodes.rst, "Extended Attributes"): after the first
 * 128 + i_extra_isize bytes, a 4-byte magic 0xEA020000, then the entries,
 * ended by four zero bytes; value offsets count from the first entry and
 * the values sit at the end of the inode. Block layout: a 32-byte
 * header, entries from 32, values from the block end down.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "ondisk.h"
#include "xattr.h"
#include "xattrbuild.h"

#define BLOCK_HASH_SHIFT	16
#define ACL_EXT4_VERSION	1
#define ACL_XATTR_VERSION	2

static const struct {
	const char *prefix;
	uint8_t index;
	int whole;		/* the full name is the prefix */
} prefixes[] = {
	{ "user.", EXTKIT_XATTR_INDEX_USER, 0 },
	{ "system.posix_acl_access", EXTKIT_XATTR_INDEX_ACL_ACCESS, 1 },
	{ "system.posix_acl_default", EXTKIT_XATTR_INDEX_ACL_DEFAULT, 1 },
	{ "trusted.", EXTKIT_XATTR_INDEX_TRUSTED, 0 },
	{ "security.", EXTKIT_XATTR_INDEX_SECURITY, 0 },
};

int extkit_xattr_name_split(const char *full, uint8_t *index,
			    const char **suffix)
{
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t len = strlen(prefixes[i].prefix);

		if (strncmp(full, prefixes[i].prefix, len))
			continue;
		if (prefixes[i].whole && full[len])
			continue;
		*index = prefixes[i].index;
		*suffix = full + len;
		return strlen(*suffix) > 255 ? -ERANGE : 0;
	}
	return -EOPNOTSUPP;
}

/* system.data first (it goes in the inode before anything else), then
 * by index, name length and name: the order of an EA block. */
static int cmp_item(const void *a, const void *b)
{
	const struct extkit_xattr_item *x = a, *y = b;
	int dx = extkit_xattr_item_is_data(x), dy = extkit_xattr_item_is_data(y);

	if (dx != dy)
		return dx ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return memcmp(x->name, y->name, x->name_len);
}

static uint32_t entry_size(const struct extkit_xattr_item *it)
{
	return (sizeof(struct ext2_ext_attr_entry) + it->name_len + 3) & ~3u;
}

/* Bytes of the value in the area (none when it is in an EA inode). */
static uint32_t value_size(const struct extkit_xattr_item *it)
{
	return it->ea_inode ? 0 : (it->size + 3) & ~3u;
}

/* An area being filled: entries up from ent, values down from end. */
struct area {
	uint8_t *base;		/* value offsets count from here */
	uint32_t ent;		/* next entry offset */
	uint32_t end;		/* values start here */
	uint32_t hash;
	int count;
	int ibody;		/* in the inode: entry hashes 0 */
};

static int fits(const struct area *a, const struct extkit_xattr_item *it)
{
	return (uint64_t)a->ent + entry_size(it) + 4 + value_size(it) <=
	       a->end;
}

/* Takes the room of item it in area a (counting only, no bytes). */
static void take(struct area *a, const struct extkit_xattr_item *it)
{
	a->end -= value_size(it);
	a->ent += entry_size(it);
	a->count++;
}

static void put(struct area *a, const struct extkit_xattr_item *it)
{
	struct ext2_ext_attr_entry *e = (void *)(a->base + a->ent);
	uint32_t h, vs = value_size(it);

	a->end -= vs;
	memset(e, 0, entry_size(it));
	e->e_name_len = it->name_len;
	e->e_name_index = it->index;
	e->e_value_size = cpu_to_le32(it->size);
	memcpy(e->e_name, it->name, it->name_len);
	if (it->ea_inode) {
		e->e_value_inum = cpu_to_le32(it->value_inum);
		h = extkit_xattr_hash_ea_inode((const uint8_t *)it->name,
					       it->name_len, it->value_hash, 0);
	} else {
		memset(a->base + a->end, 0, vs);
		memcpy(a->base + a->end, it->value, it->size);
		e->e_value_offs = cpu_to_le16(it->size ? (uint16_t)a->end : 0);
		/* in the inode, as the kernel (ext4_xattr_set_entry) and
		 * e2fsprogs write it: no hash (the kernel edits inline
		 * data in place without one) */
		h = a->ibody ? 0 :
		    extkit_xattr_hash_entry((const uint8_t *)it->name,
					    it->name_len, a->base + a->end,
					    it->size, 0);
	}
	e->e_hash = cpu_to_le32(h);
	a->hash = (a->hash << BLOCK_HASH_SHIFT) ^
		  (a->hash >> (32 - BLOCK_HASH_SHIFT)) ^ h;
	a->ent += entry_size(it);
	a->count++;
}

void extkit_xattr_ibody_empty(const struct extkit_fs *fs, uint8_t *raw_inode)
{
	const struct ext2_inode *ri = (const void *)raw_inode;
	uint32_t isize = fs->g.inode_size, at;

	if (isize <= EXT2_INODE_CORE_SIZE)
		return;
	at = EXT2_INODE_CORE_SIZE + le16(ri->i_extra_isize);
	if (at > EXT2_INODE_CORE_SIZE && at + 4 <= isize)
		put_le32(raw_inode + at, EXT2_EXT_ATTR_MAGIC);
}

/* The in-inode area of raw (base NULL when the inode has none) and the
 * block's, empty. ibody: where the magic goes. */
static void areas(const struct extkit_fs *fs, const uint8_t *raw_inode,
		  struct area *in, struct area *blk, uint32_t *ibody)
{
	uint32_t isize = fs->g.inode_size;
	const struct ext2_inode *ri = (const void *)raw_inode;

	memset(in, 0, sizeof(*in));
	memset(blk, 0, sizeof(*blk));
	*ibody = EXT2_INODE_CORE_SIZE;
	if (isize > EXT2_INODE_CORE_SIZE)
		*ibody += le16(ri->i_extra_isize);
	if (isize >= *ibody + 4 + 4) {
		in->base = (uint8_t *)raw_inode + *ibody + 4;
		in->end = isize - *ibody - 4;
		in->ibody = 1;
	}
	blk->ent = sizeof(struct ext2_ext_attr_header);
	blk->end = fs->g.block_size;
}

/* Places one item (not system.data); see extkit_xattr_place. */
static int place_one(struct area *in, struct area *blk, uint32_t bs,
		     struct extkit_xattr_item *it, int use_ea_inode)
{
	it->ea_inode = use_ea_inode && it->size > extkit_xattr_large_value(bs);
	for (;;) {
		if (in->base && fits(in, it)) {
			it->where = EXTKIT_XATTR_AT_INODE;
			take(in, it);
			return 0;
		}
		if (fits(blk, it)) {
			it->where = EXTKIT_XATTR_AT_BLOCK;
			take(blk, it);
			return 0;
		}
		if (!use_ea_inode || it->ea_inode)
			return -ENOSPC;
		it->ea_inode = 1;	/* the kernel's retry */
	}
}

int extkit_xattr_place(const struct extkit_fs *fs,
		       struct extkit_xattr_item *items, size_t n,
		       const uint8_t *raw_inode, int use_ea_inode)
{
	struct area in, blk;
	uint32_t ibody;
	int rc;

	qsort(items, n, sizeof(*items), cmp_item);
	areas(fs, raw_inode, &in, &blk, &ibody);
	for (size_t i = 0; i < n; i++) {
		struct extkit_xattr_item *it = &items[i];

		it->value_inum = 0;
		it->value_hash = 0;
		if (extkit_xattr_item_is_data(it)) {
			it->ea_inode = 0;
			if (!in.base || !fits(&in, it))
				return -ENOSPC;
			it->where = EXTKIT_XATTR_AT_INODE;
			take(&in, it);
			continue;
		}
		rc = place_one(&in, &blk, fs->g.block_size, it, use_ea_inode);
		if (rc)
			return rc;
		if (it->ea_inode && it->size > EXTKIT_XATTR_MAX_VALUE)
			return -E2BIG;
	}
	return 0;
}

void extkit_xattr_lay_out(const struct extkit_fs *fs,
			  const struct extkit_xattr_item *items, size_t n,
			  uint8_t *raw_inode, uint8_t *block, int *use_block)
{
	struct ext2_ext_attr_header *h = (void *)block;
	struct area in, blk;
	uint32_t ibody;

	*use_block = 0;
	areas(fs, raw_inode, &in, &blk, &ibody);
	memset(block, 0, fs->g.block_size);
	blk.base = block;
	for (size_t i = 0; i < n; i++)
		put(items[i].where == EXTKIT_XATTR_AT_INODE ? &in : &blk,
		    &items[i]);
	if (in.count)
		put_le32(raw_inode + ibody, EXT2_EXT_ATTR_MAGIC);
	if (!blk.count)
		return;
	h->h_magic = cpu_to_le32(EXT2_EXT_ATTR_MAGIC);
	h->h_refcount = cpu_to_le32(1);
	h->h_blocks = cpu_to_le32(1);
	h->h_hash = cpu_to_le32(blk.hash);
	*use_block = 1;
}

int extkit_xattr_build(const struct extkit_fs *fs,
		       struct extkit_xattr_item *items, size_t n,
		       uint8_t *raw_inode, uint8_t *block, int *use_block)
{
	int rc = extkit_xattr_place(fs, items, n, raw_inode, 0);

	*use_block = 0;
	if (rc)
		return rc;
	extkit_xattr_lay_out(fs, items, n, raw_inode, block, use_block);
	return 0;
}

static int cmp_acl(const void *a, const void *b)
{
	const struct extkit_acl_entry *x = a, *y = b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int extkit_acl_encode(struct extkit_acl_entry *e, size_t n, uint8_t *out,
		      size_t *size)
{
	size_t off = 4;

	qsort(e, n, sizeof(*e), cmp_acl);
	put_le32(out, ACL_EXT4_VERSION);
	for (size_t i = 0; i < n; i++) {
		put_le16(out + off, e[i].tag);
		put_le16(out + off + 2, e[i].perm);
		switch (e[i].tag) {
		case EXTKIT_ACL_USER:
		case EXTKIT_ACL_GROUP:
			put_le32(out + off + 4, e[i].id);
			off += 8;
			break;
		case EXTKIT_ACL_USER_OBJ:
		case EXTKIT_ACL_GROUP_OBJ:
		case EXTKIT_ACL_MASK:
		case EXTKIT_ACL_OTHER:
			off += 4;
			break;
		default:
			return -EINVAL;
		}
	}
	*size = off;
	return 0;
}

int extkit_acl_from_xattr(const void *in, size_t in_size, uint8_t *out,
			  size_t *size)
{
	const uint8_t *p = in;
	struct extkit_acl_entry *e;
	size_t n, i;
	int rc;

	if (in_size < 4 || (in_size - 4) % 8 ||
	    get_le32(p) != ACL_XATTR_VERSION)
		return -EINVAL;
	n = (in_size - 4) / 8;
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		e[i].tag = get_le16(p + 4 + 8 * i);
		e[i].perm = get_le16(p + 6 + 8 * i);
		e[i].id = get_le32(p + 8 + 8 * i);
	}
	rc = extkit_acl_encode(e, n, out, size);
	free(e);
	return rc;
}
