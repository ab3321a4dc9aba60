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

static int cmp_item(const void *a, const void *b)
{
	const struct extkit_xattr_item *x = a, *y = b;

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

static uint32_t value_size(const struct extkit_xattr_item *it)
{
	return (it->size + 3) & ~3u;
}

/* An area being filled: entries up from ent, values down from end. */
struct area {
	uint8_t *base;		/* value offsets count from here */
	uint32_t ent;		/* next entry offset */
	uint32_t end;		/* values start here */
	uint32_t hash;
	int count;
};

static int fits(const struct area *a, const struct extkit_xattr_item *it)
{
	return a->ent + entry_size(it) + 4 + value_size(it) <= a->end;
}

static void put(struct area *a, const struct extkit_xattr_item *it)
{
	struct ext2_ext_attr_entry *e = (void *)(a->base + a->ent);
	uint32_t h;

	a->end -= value_size(it);
	memset(a->base + a->end, 0, value_size(it));
	memcpy(a->base + a->end, it->value, it->size);
	memset(e, 0, entry_size(it));
	e->e_name_len = it->name_len;
	e->e_name_index = it->index;
	e->e_value_offs = cpu_to_le16(it->size ? (uint16_t)a->end : 0);
	e->e_value_size = cpu_to_le32(it->size);
	memcpy(e->e_name, it->name, it->name_len);
	h = extkit_xattr_hash_entry((const uint8_t *)it->name, it->name_len,
				    a->base + a->end, it->size, 0);
	e->e_hash = cpu_to_le32(h);
	a->hash = (a->hash << BLOCK_HASH_SHIFT) ^
		  (a->hash >> (32 - BLOCK_HASH_SHIFT)) ^ h;
	a->ent += entry_size(it);
	a->count++;
}

int extkit_xattr_build(const struct extkit_fs *fs,
		       struct extkit_xattr_item *items, size_t n,
		       uint8_t *raw_inode, uint8_t *block, int *use_block)
{
	uint32_t isize = fs->g.inode_size, bs = fs->g.block_size;
	struct ext2_inode *ri = (void *)raw_inode;
	uint32_t ibody = EXT2_INODE_CORE_SIZE;
	struct area in = { 0 }, blk = { 0 };
	struct ext2_ext_attr_header *h = (void *)block;

	*use_block = 0;
	qsort(items, n, sizeof(*items), cmp_item);
	if (isize > EXT2_INODE_CORE_SIZE)
		ibody += le16(ri->i_extra_isize);
	if (isize >= ibody + 4 + 4) {
		in.base = raw_inode + ibody + 4;
		in.end = isize - ibody - 4;
	}
	memset(block, 0, bs);
	blk.base = block;
	blk.ent = sizeof(*h);
	blk.end = bs;
	for (size_t i = 0; i < n; i++) {
		if (in.base && fits(&in, &items[i]))
			put(&in, &items[i]);
		else if (fits(&blk, &items[i]))
			put(&blk, &items[i]);
		else
			return -ENOSPC;
	}
	if (in.count)
		put_le32(raw_inode + ibody, EXT2_EXT_ATTR_MAGIC);
	if (!blk.count)
		return 0;
	h->h_magic = cpu_to_le32(EXT2_EXT_ATTR_MAGIC);
	h->h_refcount = cpu_to_le32(1);
	h->h_blocks = cpu_to_le32(1);
	h->h_hash = cpu_to_le32(blk.hash);
	*use_block = 1;
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
