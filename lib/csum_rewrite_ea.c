// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ea_inode under a new checksum seed (csum_rewrite.h): an EA inode keeps
 * crc32c(seed, value) in i_atime, and every entry naming it hashes that
 * value hash into its e_hash (and an EA block's h_hash hashes the entry
 * hashes), so all three change with the seed, as tune2fs -U rewrites
 * them (update_ea_inode_hash and its callers). The new value hashes are
 * computed first, in inode order, then looked up by the entries.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "csum_rewrite_ea.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"
#include "xattr.h"

void extkit_ea_hashes_free(struct extkit_ea_hashes *h)
{
	free(h->ino);
	free(h->hash);
	memset(h, 0, sizeof(*h));
}

static int add(struct extkit_ea_hashes *h, uint32_t ino, uint32_t hash)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		uint32_t *a = realloc(h->ino, cap * sizeof(*a));
		uint32_t *b = a ? realloc(h->hash, cap * sizeof(*b)) : NULL;

		if (a)
			h->ino = a;
		if (!b)
			return -ENOMEM;
		h->hash = b;
		h->cap = cap;
	}
	h->ino[h->n] = ino;
	h->hash[h->n++] = hash;
	return 0;
}

int extkit_ea_hash_lookup(const struct extkit_ea_hashes *h, uint32_t ino,
			  uint32_t *hash)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->ino[mid] == ino) {
			*hash = h->hash[mid];
			return 1;
		}
		if (h->ino[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int extkit_ea_inode_rehash(struct extkit_fs *fs, uint32_t ino, uint8_t *raw,
			   const uint8_t old_uuid[16],
			   const uint8_t new_uuid[16],
			   struct extkit_ea_hashes *h)
{
	struct extkit_inode in;
	uint8_t *val;
	uint32_t old, new;
	__le32 le;
	int rc;

	extkit_inode_decode(raw, fs->g.inode_size, &in);
	if (in.size > EXTKIT_XATTR_MAX_VALUE)
		return -EFSCORRUPTED;
	val = malloc(in.size ? in.size : 1);
	if (!val)
		return -ENOMEM;
	rc = extkit_ea_inode_read(fs, ino, (uint32_t)in.size, val);
	memcpy(fs->sb.uuid, old_uuid, 16);
	old = extkit_ea_inode_value_hash(fs, val, (uint32_t)in.size);
	memcpy(fs->sb.uuid, new_uuid, 16);
	new = extkit_ea_inode_value_hash(fs, val, (uint32_t)in.size);
	free(val);
	if (rc)
		return rc;
	if (old != in.atime)
		return -EFSBADCRC;
	le = cpu_to_le32(new);
	memcpy(raw + offsetof(struct ext2_inode, i_atime), &le, 4);
	return add(h, ino, new);
}

/* The e_hash of each ea_inode entry of region r (whose bytes are
 * writable) from the new value hashes; *changed set when one moved. */
static int rehash_region(const struct extkit_xattr_region *r,
			 const struct extkit_ea_hashes *h, int *changed)
{
	uint32_t off = r->first, vh, want;
	struct extkit_xattr x;
	int rc;

	while ((rc = extkit_xattr_next(r, &off, &x)) == 1) {
		if (!x.value_inum)
			continue;
		if (!extkit_ea_hash_lookup(h, x.value_inum, &vh))
			return -EFSCORRUPTED;
		want = extkit_xattr_hash_ea_inode((const uint8_t *)x.name,
						  x.name_len, vh, 0);
		if (x.hash != want) {
			__le32 le = cpu_to_le32(want);

			memcpy((uint8_t *)r->buf + x.offset +
			       offsetof(struct ext2_ext_attr_entry, e_hash),
			       &le, 4);
			*changed = 1;
		}
	}
	return rc;
}

int extkit_ea_ibody_rehash(const struct extkit_fs *fs, uint8_t *raw,
			   const struct extkit_ea_hashes *h)
{
	struct extkit_xattr_region r;
	int changed = 0;

	if (!h->n || !extkit_xattr_ibody_region(raw, fs->g.inode_size, &r))
		return 0;
	return rehash_region(&r, h, &changed);
}

/* The kernel's ext4_xattr_rehash: h_hash from the entry hashes. */
static void block_rehash(const struct extkit_xattr_region *r, uint8_t *buf)
{
	struct ext2_ext_attr_header *hd = (void *)buf;
	uint32_t off = r->first, hash = 0;
	struct extkit_xattr x;

	while (extkit_xattr_next(r, &off, &x) == 1) {
		if (!x.hash) {
			hash = 0;
			break;
		}
		hash = (hash << 16) ^ (hash >> 16) ^ x.hash;
	}
	hd->h_hash = cpu_to_le32(hash);
}

int extkit_ea_block_rehash(const struct extkit_fs *fs, uint8_t *buf,
			   const struct extkit_ea_hashes *h)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	int changed = 0, rc;

	if (!h->n)
		return 0;
	extkit_xattr_format_init(fs, &fmt);
	extkit_xattr_block_region(&fmt, buf, &r);
	rc = rehash_region(&r, h, &changed);
	if (!rc && changed)
		block_rehash(&r, buf);
	return rc;
}
