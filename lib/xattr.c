// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extended attribute blocks: the entry hash and the block validator.
 * Layout (kernel Documentation/filesystems/ext4/attributes.rst): a
 * 32-byte header (h_magic, h_refcount, h_blocks, h_hash, h_checksum),
 * then entries from offset 32, each 16 bytes plus the name, padded to 4,
 * ended by four zero bytes; values elsewhere in the block, each padded
 * to 4, at e_value_offs from the block start.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "bmap.h"
#include "csum.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"
#include "xattr.h"

#define HDR_LEN		sizeof(struct ext2_ext_attr_header)
#define ENTRY_LEN	sizeof(struct ext2_ext_attr_entry)
#define MAP_WORDS	(EXT2_MAX_BLOCK_SIZE / 64)

static const char *const problem_str[] = {
	[EXTKIT_XATTR_OK] = "valid",
	[EXTKIT_XATTR_BAD_MAGIC] = "bad magic number",
	[EXTKIT_XATTR_BAD_BLOCKS] = "h_blocks is not 1",
	[EXTKIT_XATTR_ENTRY_PAST_END] = "an entry runs past the block end",
	[EXTKIT_XATTR_BAD_NAME_INDEX] = "an entry has name index 0",
	[EXTKIT_XATTR_VALUE_PAST_END] = "a value runs past the block end",
	[EXTKIT_XATTR_OVERLAP] =
		"a value overlaps the entries or another value",
	[EXTKIT_XATTR_VALUE_INUM] =
		"an entry names a value inode without the ea_inode feature",
	[EXTKIT_XATTR_BAD_VALUE_INUM] =
		"an entry names a value inode out of range",
	[EXTKIT_XATTR_BAD_HASH] = "an entry hash is wrong",
	[EXTKIT_XATTR_NAME_PAST_END] = "a name runs past the end",
	[EXTKIT_XATTR_INUM_VALUE] =
		"an entry naming a value inode has a value offset or size "
		"out of range",
	[EXTKIT_XATTR_NAME_NUL] = "a name holds a NUL byte",
};

const char *extkit_xattr_problem_str(enum extkit_xattr_problem p)
{
	if ((size_t)p >= sizeof(problem_str) / sizeof(problem_str[0]))
		return "unknown problem";
	return problem_str[p];
}

void extkit_xattr_format_init(const struct extkit_fs *fs,
			      struct extkit_xattr_format *fmt)
{
	fmt->block_size = fs->g.block_size;
	fmt->first_ino = fs->g.first_ino;
	fmt->inodes_count = fs->sb.inodes_count;
	fmt->ea_inode = extkit_has_incompat(&fs->sb,
					    EXT4_FEATURE_INCOMPAT_EA_INODE);
}

uint32_t extkit_xattr_hash_entry(const uint8_t *name, uint32_t name_len,
				 const uint8_t *value, uint32_t value_size,
				 int signed_chars)
{
	uint32_t hash = 0;

	for (uint32_t i = 0; i < name_len; i++) {
		uint32_t c = signed_chars ? (uint32_t)(int32_t)(int8_t)name[i]
					  : name[i];

		hash = (hash << EXT2_EXT_ATTR_NAME_HASH_SHIFT) ^
		       (hash >> (32 - EXT2_EXT_ATTR_NAME_HASH_SHIFT)) ^ c;
	}
	for (uint64_t i = 0; i < ((uint64_t)value_size + 3) / 4; i++)
		hash = (hash << EXT2_EXT_ATTR_VALUE_HASH_SHIFT) ^
		       (hash >> (32 - EXT2_EXT_ATTR_VALUE_HASH_SHIFT)) ^
		       get_le32(value + 4 * i);
	return hash;
}

/*
 * Byte ranges of the block already taken (header, entries, values); a
 * second claim on a byte is an overlap. Marking stops at the first
 * overlap, so the whole check costs O(block size).
 */
struct region {
	uint64_t map[MAP_WORDS];
	uint32_t size;
};

/* 0 if [off, off + len) was free and is now taken; -1 otherwise. */
static int region_take(struct region *r, uint64_t off, uint64_t len)
{
	if (off > r->size || len > r->size - off)
		return -1;
	for (uint64_t i = off; i < off + len; i++) {
		uint64_t bit = 1ull << (i % 64);

		if (r->map[i / 64] & bit)
			return -1;
		r->map[i / 64] |= bit;
	}
	return 0;
}

/* The value of an entry kept in the region: bounds, overlap, hash. */
static enum extkit_xattr_problem
check_value(const struct extkit_xattr_region *reg,
	    const struct ext2_ext_attr_entry *e, struct region *r)
{
	uint64_t offs = (uint64_t)reg->vbase + le16(e->e_value_offs);
	uint32_t size = le32(e->e_value_size);
	uint64_t padded = ((uint64_t)size + EXT2_EXT_ATTR_PAD - 1) &
			  ~(uint64_t)(EXT2_EXT_ATTR_PAD - 1);
	struct extkit_xattr x;

	/* e2fsck checks offs + size even for an empty value. */
	if (offs + size > reg->size || offs + padded > reg->size)
		return EXTKIT_XATTR_VALUE_PAST_END;
	if (size && region_take(r, offs, padded))
		return EXTKIT_XATTR_OVERLAP;
	x.name = e->e_name;
	x.name_len = e->e_name_len;
	x.value = reg->buf + offs;
	x.value_size = size;
	x.hash = le32(e->e_hash);
	if (reg->ibody && !x.hash)
		return EXTKIT_XATTR_OK;		/* older kernels wrote 0 */
	return extkit_xattr_hash_ok(&x) ? EXTKIT_XATTR_OK :
					  EXTKIT_XATTR_BAD_HASH;
}

/* One entry at offset off (its 16-byte head is inside the region). */
static enum extkit_xattr_problem
check_entry(const struct extkit_xattr_format *fmt,
	    const struct extkit_xattr_region *reg, uint32_t off, uint32_t len,
	    struct region *r)
{
	const struct ext2_ext_attr_entry *e = (const void *)(reg->buf + off);
	uint32_t inum = le32(e->e_value_inum);

	if (region_take(r, off, len))
		return off + len > reg->size ?
		       (reg->ibody ? EXTKIT_XATTR_NAME_PAST_END :
				     EXTKIT_XATTR_ENTRY_PAST_END) :
		       EXTKIT_XATTR_OVERLAP;
	if (e->e_name_index == 0 && !reg->ibody)
		return EXTKIT_XATTR_BAD_NAME_INDEX;
	/* The kernel's check_xattrs refuses the whole region ("bad e_name
	 * length") when a name is shorter than e_name_len; e2fsck 1.47.0
	 * does not look. */
	if (memchr(e->e_name, 0, e->e_name_len))
		return EXTKIT_XATTR_NAME_NUL;
	if (!inum)
		return check_value(reg, e, r);
	if (!fmt->ea_inode)
		return EXTKIT_XATTR_VALUE_INUM;
	/* The value lives in inode inum; its hash needs that inode. */
	if (inum < fmt->first_ino || inum > fmt->inodes_count)
		return EXTKIT_XATTR_BAD_VALUE_INUM;
	/* as e2fsprogs reads them: no offset, at most 64 KiB */
	if (le16(e->e_value_offs) ||
	    le32(e->e_value_size) > EXTKIT_XATTR_MAX_VALUE)
		return EXTKIT_XATTR_INUM_VALUE;
	return EXTKIT_XATTR_OK;
}

static uint32_t entry_len(const struct ext2_ext_attr_entry *e)
{
	return (ENTRY_LEN + e->e_name_len + EXT2_EXT_ATTR_PAD - 1) &
	       ~(uint32_t)(EXT2_EXT_ATTR_PAD - 1);
}

enum extkit_xattr_problem
extkit_xattr_region_check(const struct extkit_xattr_format *fmt,
			  const struct extkit_xattr_region *reg)
{
	uint32_t size = reg->size, off = reg->first;
	enum extkit_xattr_problem p;
	struct region r;

	if (size < off + 4 || size > EXT2_MAX_BLOCK_SIZE)
		return EXTKIT_XATTR_ENTRY_PAST_END;
	memset(r.map, 0, (size + 63) / 64 * sizeof(r.map[0]));
	r.size = size;
	region_take(&r, 0, off);
	/* Each entry takes at least 16 bytes: at most size / 16 rounds. */
	for (;;) {
		const struct ext2_ext_attr_entry *e;

		if (off + 4 > size)
			return EXTKIT_XATTR_ENTRY_PAST_END;
		if (get_le32(reg->buf + off) == 0)
			break;
		/* In an inode, no room for another entry ends the list;
		 * its four bytes still may not hold a value (e2fsck). */
		if (off + ENTRY_LEN > size)
			return !reg->ibody ? EXTKIT_XATTR_ENTRY_PAST_END :
			       region_take(&r, off, 4) ? EXTKIT_XATTR_OVERLAP :
			       EXTKIT_XATTR_OK;
		e = (const void *)(reg->buf + off);
		p = check_entry(fmt, reg, off, entry_len(e), &r);
		if (p)
			return p;
		off += entry_len(e);
	}
	/* The four zero bytes ending the list may not hold a value. */
	if (region_take(&r, off, 4))
		return EXTKIT_XATTR_OVERLAP;
	return EXTKIT_XATTR_OK;
}

void extkit_xattr_block_region(const struct extkit_xattr_format *fmt,
			       const uint8_t *block,
			       struct extkit_xattr_region *r)
{
	r->buf = block;
	r->size = fmt->block_size;
	r->first = HDR_LEN;
	r->vbase = 0;
	r->ibody = 0;
}

int extkit_xattr_ibody_region(const uint8_t *raw, uint32_t inode_size,
			      struct extkit_xattr_region *r)
{
	const struct ext2_inode *d = (const void *)raw;
	uint32_t extra;

	if (inode_size <= EXT2_INODE_CORE_SIZE)
		return 0;
	extra = le16(d->i_extra_isize);
	if (extra & 3 || EXT2_INODE_CORE_SIZE + extra + 4 + 4 > inode_size)
		return 0;
	r->buf = raw + EXT2_INODE_CORE_SIZE + extra;
	r->size = inode_size - EXT2_INODE_CORE_SIZE - extra;
	if (get_le32(r->buf) != EXT2_EXT_ATTR_MAGIC)
		return 0;
	r->first = 4;
	r->vbase = 4;
	r->ibody = 1;
	return 1;
}

void extkit_xattr_ibody_drop(uint8_t *raw, uint32_t inode_size)
{
	struct extkit_xattr_region r;

	if (extkit_xattr_ibody_region(raw, inode_size, &r))
		put_le32(raw + (r.buf - raw), 0);
}

int extkit_xattr_block_has_header(const uint8_t *buf)
{
	const struct ext2_ext_attr_header *h = (const void *)buf;

	return le32(h->h_magic) == EXT2_EXT_ATTR_MAGIC &&
	       le32(h->h_blocks) == 1;
}

enum extkit_xattr_problem
extkit_xattr_block_check(const struct extkit_xattr_format *fmt,
			 const uint8_t *buf)
{
	const struct ext2_ext_attr_header *h = (const void *)buf;
	struct extkit_xattr_region r;

	if (le32(h->h_magic) != EXT2_EXT_ATTR_MAGIC)
		return EXTKIT_XATTR_BAD_MAGIC;
	if (le32(h->h_blocks) != 1)
		return EXTKIT_XATTR_BAD_BLOCKS;
	extkit_xattr_block_region(fmt, buf, &r);
	return extkit_xattr_region_check(fmt, &r);
}

int extkit_xattr_next(const struct extkit_xattr_region *r, uint32_t *off,
		      struct extkit_xattr *x)
{
	const struct ext2_ext_attr_entry *e;
	uint64_t voff;

	if (*off < r->first || *off + 4 > r->size)
		return -EFSCORRUPTED;
	if (get_le32(r->buf + *off) == 0)
		return 0;
	if (*off + ENTRY_LEN > r->size)
		return -EFSCORRUPTED;
	e = (const void *)(r->buf + *off);
	if (*off + entry_len(e) > r->size)
		return -EFSCORRUPTED;
	memset(x, 0, sizeof(*x));
	x->name_index = e->e_name_index;
	x->name_len = e->e_name_len;
	x->name = e->e_name;
	x->value_size = le32(e->e_value_size);
	x->value_inum = le32(e->e_value_inum);
	x->hash = le32(e->e_hash);
	x->offset = *off;
	x->value_offs = le16(e->e_value_offs);
	if (!x->value_inum) {
		voff = (uint64_t)r->vbase + x->value_offs;
		if (voff + x->value_size > r->size)
			return -EFSCORRUPTED;
		x->value = r->buf + voff;
	}
	*off += entry_len(e);
	return 1;
}

int extkit_xattr_find(const struct extkit_xattr_region *r,
		      uint8_t name_index, const char *name,
		      struct extkit_xattr *x)
{
	size_t len = strlen(name);
	uint32_t off = r->first;
	int rc;

	while ((rc = extkit_xattr_next(r, &off, x)) == 1)
		if (x->name_index == name_index && x->name_len == len &&
		    !memcmp(x->name, name, len))
			return 1;
	return 0;
}

const char *extkit_xattr_prefix(uint8_t name_index)
{
	switch (name_index) {
	case 1: return "user.";
	case 2: return "system.posix_acl_access";
	case 3: return "system.posix_acl_default";
	case 4: return "trusted.";
	case 6: return "security.";
	case 7: return "system.";
	case 8: return "system.richacl";
	default: return NULL;
	}
}

uint32_t extkit_xattr_hash_ea_inode(const uint8_t *name, uint32_t name_len,
				    uint32_t value_hash, int signed_chars)
{
	uint8_t word[4];

	put_le32(word, value_hash);
	return extkit_xattr_hash_entry(name, name_len, word, 4, signed_chars);
}

int extkit_xattr_hash_ok(const struct extkit_xattr *x)
{
	const uint8_t *name = (const uint8_t *)x->name;

	return extkit_xattr_hash_entry(name, x->name_len, x->value,
				       x->value_size, 0) == x->hash ||
	       extkit_xattr_hash_entry(name, x->name_len, x->value,
				       x->value_size, 1) == x->hash;
}

uint32_t extkit_ea_inode_value_hash(const struct extkit_fs *fs,
				    const uint8_t *value, uint32_t size)
{
	return extkit_crc32c(extkit_csum_seed(&fs->sb), value, size);
}

int extkit_ea_inode_read(struct extkit_fs *fs, uint32_t inum, uint32_t size,
			 uint8_t *buf)
{
	uint32_t bs = fs->g.block_size;
	struct extkit_inode in;
	uint8_t *blk;
	int rc;

	if (size > EXTKIT_XATTR_MAX_VALUE || inum < fs->g.first_ino ||
	    inum > fs->sb.inodes_count)
		return -EFSCORRUPTED;
	rc = extkit_inode_read(fs, inum, &in);
	if (rc)
		return rc;
	if (!(in.flags & EXT4_EA_INODE_FL) || in.size != size ||
	    !S_ISREG(in.mode))
		return -EFSCORRUPTED;
	blk = malloc(bs);
	if (!blk)
		return -ENOMEM;
	for (uint32_t done = 0, l = 0; done < size && !rc; l++) {
		uint32_t n = size - done < bs ? size - done : bs;
		uint64_t pblk = 0;

		rc = extkit_bmap(fs, &in, l, &pblk);
		if (!rc && !pblk)
			memset(blk, 0, bs);
		else if (!rc)
			rc = extkit_fs_read_block(fs, pblk, blk);
		if (!rc)
			memcpy(buf + done, blk, n);
		done += n;
	}
	free(blk);
	return rc;
}
