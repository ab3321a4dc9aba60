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
#include <string.h>

#include "endian.h"
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

/* The value of an entry kept in the block: bounds, overlap, hash. */
static enum extkit_xattr_problem
check_value(const struct extkit_xattr_format *fmt, const uint8_t *buf,
	    const struct ext2_ext_attr_entry *e, struct region *r)
{
	uint32_t offs = le16(e->e_value_offs);
	uint32_t size = le32(e->e_value_size);
	uint64_t padded = ((uint64_t)size + EXT2_EXT_ATTR_PAD - 1) &
			  ~(uint64_t)(EXT2_EXT_ATTR_PAD - 1);
	const uint8_t *name = (const uint8_t *)e->e_name;
	uint32_t hash = le32(e->e_hash);

	/* e2fsck checks offs + size even for an empty value. */
	if ((uint64_t)offs + size > fmt->block_size ||
	    (uint64_t)offs + padded > fmt->block_size)
		return EXTKIT_XATTR_VALUE_PAST_END;
	if (size && region_take(r, offs, padded))
		return EXTKIT_XATTR_OVERLAP;
	if (extkit_xattr_hash_entry(name, e->e_name_len, buf + offs, size,
				    0) != hash &&
	    extkit_xattr_hash_entry(name, e->e_name_len, buf + offs, size,
				    1) != hash)
		return EXTKIT_XATTR_BAD_HASH;
	return EXTKIT_XATTR_OK;
}

/* One entry at offset off (its 16-byte head is inside the block). */
static enum extkit_xattr_problem
check_entry(const struct extkit_xattr_format *fmt, const uint8_t *buf,
	    uint32_t off, uint32_t len, struct region *r)
{
	const struct ext2_ext_attr_entry *e = (const void *)(buf + off);
	uint32_t inum = le32(e->e_value_inum);

	if (region_take(r, off, len))
		return off + len > fmt->block_size ?
		       EXTKIT_XATTR_ENTRY_PAST_END : EXTKIT_XATTR_OVERLAP;
	if (e->e_name_index == 0)
		return EXTKIT_XATTR_BAD_NAME_INDEX;
	if (!inum)
		return check_value(fmt, buf, e, r);
	if (!fmt->ea_inode)
		return EXTKIT_XATTR_VALUE_INUM;
	/* The value lives in inode inum; its hash needs that inode. */
	if (inum < fmt->first_ino || inum > fmt->inodes_count)
		return EXTKIT_XATTR_BAD_VALUE_INUM;
	return EXTKIT_XATTR_OK;
}

enum extkit_xattr_problem
extkit_xattr_block_check(const struct extkit_xattr_format *fmt,
			 const uint8_t *buf)
{
	const struct ext2_ext_attr_header *h = (const void *)buf;
	uint32_t bs = fmt->block_size, off = HDR_LEN;
	enum extkit_xattr_problem p;
	struct region r;

	if (le32(h->h_magic) != EXT2_EXT_ATTR_MAGIC)
		return EXTKIT_XATTR_BAD_MAGIC;
	if (le32(h->h_blocks) != 1)
		return EXTKIT_XATTR_BAD_BLOCKS;
	if (bs < HDR_LEN + 4 || bs > EXT2_MAX_BLOCK_SIZE)
		return EXTKIT_XATTR_ENTRY_PAST_END;
	memset(r.map, 0, (bs + 63) / 64 * sizeof(r.map[0]));
	r.size = bs;
	region_take(&r, 0, HDR_LEN);
	/* Each entry takes at least 16 bytes: at most bs / 16 rounds. */
	for (;;) {
		const struct ext2_ext_attr_entry *e;
		uint32_t len;

		if (off + 4 > bs)
			return EXTKIT_XATTR_ENTRY_PAST_END;
		if (get_le32(buf + off) == 0)
			break;
		if (off + ENTRY_LEN > bs)
			return EXTKIT_XATTR_ENTRY_PAST_END;
		e = (const void *)(buf + off);
		len = (ENTRY_LEN + e->e_name_len + EXT2_EXT_ATTR_PAD - 1) &
		      ~(uint32_t)(EXT2_EXT_ATTR_PAD - 1);
		p = check_entry(fmt, buf, off, len, &r);
		if (p)
			return p;
		off += len;
	}
	/* The four zero bytes ending the list may not hold a value. */
	if (region_take(&r, off, 4))
		return EXTKIT_XATTR_OVERLAP;
	return EXTKIT_XATTR_OK;
}
