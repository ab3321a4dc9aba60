// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for csum_rewrite_ea.c and ea_inode_build.c on the
 * checksum-rewrite fixture (csfs.c), whose EA inode holds a 2000-byte
 * value named by an in-inode entry of another inode.
 *
 * ea_inode_build: a new EA inode is a regular file of mode 0600 with one
 * link and EXT4_EA_INODE_FL (its other flags kept), the value hash
 * crc32c(seed, value) in i_atime and returned, reference count 1, times
 * now. csum_rewrite_ea: the value hashes by inode number are found by
 * binary search; an EA inode's stored hash is checked under the old
 * UUID (-EFSBADCRC when wrong, nothing recorded) and replaced by the
 * new; an in-inode or EA block entry naming an EA inode gets the hash of
 * its name and the new value hash (-EFSCORRUPTED for an unknown EA
 * inode), the block its h_hash over the entry hashes (the kernel's
 * ext4_xattr_rehash); with no EA inode known nothing changes.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csfs.h"
#include "csum.h"
#include "csum_rewrite_ea.h"
#include "ea_inode_build.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"
#include "suites.h"
#include "xattr.h"
#include "xattrbuild.h"

#define BS	CSFS_BS
#define HHASH	offsetof(struct ext2_ext_attr_header, h_hash)

static const uint8_t new_uuid[16] = {
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
};

static uint8_t value[2000];

static void fill_value(void)
{
	for (uint32_t i = 0; i < sizeof(value); i++)
		value[i] = (uint8_t)(i * 13 + 5);	/* csfs.c's */
}

START_TEST(test_ea_inode_init)
{
	struct extkit_fs fs;
	struct extkit_inode in;
	uint32_t h, seed;

	fill_value();
	memset(&fs, 0, sizeof(fs));
	fs.sb.feature_ro_compat = EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	memcpy(fs.sb.uuid, new_uuid, 16);
	memset(&in, 0, sizeof(in));
	in.flags = EXT4_EXTENTS_FL;
	in.mode = S_IFDIR | 0777;
	in.uid = in.gid = 1000;
	in.size = sizeof(value);
	h = extkit_ea_inode_init(&fs, &in, value, sizeof(value), 1234);
	seed = extkit_csum_seed(&fs.sb);
	ck_assert_uint_eq(h, extkit_crc32c(seed, value, sizeof(value)));
	ck_assert_uint_eq(in.atime, h);
	ck_assert_uint_eq(in.mode, S_IFREG | 0600);
	ck_assert_uint_eq(in.uid, 0);
	ck_assert_uint_eq(in.gid, 0);
	ck_assert_uint_eq(in.links_count, 1);
	ck_assert_uint_eq(in.flags, EXT4_EXTENTS_FL | EXT4_EA_INODE_FL);
	ck_assert_uint_eq(extkit_ea_inode_refcount(&in), 1);
	ck_assert_uint_eq(in.ctime, 0);
	ck_assert_uint_eq(in.version, 1);
	ck_assert_uint_eq(in.mtime, 1234);
	ck_assert_uint_eq(in.crtime, 1234);
	ck_assert_uint_eq(in.size, sizeof(value));	/* the caller's */
	/* the hash follows the seed */
	fs.sb.uuid[0] ^= 1;
	ck_assert_uint_ne(extkit_ea_inode_init(&fs, &in, value, sizeof(value),
					       1234), h);
}
END_TEST

START_TEST(test_hash_lookup)
{
	struct extkit_ea_hashes h = { 0 };
	uint32_t ino[5] = { 3, 7, 12, 40, 41 }, got;

	ck_assert_int_eq(extkit_ea_hash_lookup(&h, 3, &got), 0);
	h.ino = ino;
	h.hash = malloc(sizeof(ino));
	ck_assert_ptr_nonnull(h.hash);
	for (size_t n = 1; n <= 5; n++) {
		h.n = n;
		for (size_t i = 0; i < 5; i++) {
			h.hash[i] = ino[i] * 1000 + 1;
			got = 0;
			ck_assert_int_eq(extkit_ea_hash_lookup(&h, ino[i], &got),
					 i < n);
			ck_assert_uint_eq(got, i < n ? ino[i] * 1000 + 1 : 0);
		}
		ck_assert_int_eq(extkit_ea_hash_lookup(&h, 0, &got), 0);
		ck_assert_int_eq(extkit_ea_hash_lookup(&h, 8, &got), 0);
		ck_assert_int_eq(extkit_ea_hash_lookup(&h, 99, &got), 0);
	}
	free(h.hash);
}
END_TEST

static uint32_t hash_under(struct extkit_fs *fs, const uint8_t *uuid)
{
	uint8_t keep[16];
	uint32_t h;

	memcpy(keep, fs->sb.uuid, 16);
	memcpy(fs->sb.uuid, uuid, 16);
	h = extkit_ea_inode_value_hash(fs, value, sizeof(value));
	memcpy(fs->sb.uuid, keep, 16);
	return h;
}

/* The EA inode's hash re-seeded and recorded; a wrong one refused. */
START_TEST(test_ea_inode_rehash)
{
	struct extkit_ea_hashes h = { 0 };
	uint8_t raw[256], orig[256], old_uuid[16];
	struct extkit_inode in;
	struct csfs c;
	uint32_t got;

	fill_value();
	csfs_make(&c, 0);
	memcpy(old_uuid, c.fs->sb.uuid, 16);
	ck_assert_int_eq(extkit_inode_read_raw(c.fs, CSFS_EA_INODE, orig), 0);
	memcpy(raw, orig, sizeof(raw));
	ck_assert_int_eq(extkit_ea_inode_rehash(c.fs, CSFS_EA_INODE, raw,
						old_uuid, new_uuid, &h), 0);
	ck_assert_mem_eq(c.fs->sb.uuid, new_uuid, 16);
	extkit_inode_decode(raw, sizeof(raw), &in);
	ck_assert_uint_eq(in.atime, hash_under(c.fs, new_uuid));
	ck_assert_uint_ne(in.atime, hash_under(c.fs, old_uuid));
	/* only i_atime moved */
	ck_assert_mem_eq(raw, orig, offsetof(struct ext2_inode, i_atime));
	ck_assert_mem_eq(raw + 12, orig + 12, sizeof(raw) - 12);
	ck_assert_uint_eq(h.n, 1);
	ck_assert_int_eq(extkit_ea_hash_lookup(&h, CSFS_EA_INODE, &got), 1);
	ck_assert_uint_eq(got, in.atime);

	/* the stored hash is not the old seed's: refused, nothing added */
	memcpy(raw, orig, sizeof(raw));
	raw[offsetof(struct ext2_inode, i_atime)] ^= 1;
	ck_assert_int_eq(extkit_ea_inode_rehash(c.fs, CSFS_EA_INODE, raw,
						old_uuid, new_uuid, &h),
			 -EFSBADCRC);
	ck_assert_uint_eq(h.n, 1);
	/* an EA inode that is not one: its value cannot be read */
	ck_assert_int_eq(extkit_inode_read_raw(c.fs, CSFS_FILE, raw), 0);
	ck_assert_int_lt(extkit_ea_inode_rehash(c.fs, CSFS_FILE, raw,
						old_uuid, new_uuid, &h), 0);
	ck_assert_uint_eq(h.n, 1);
	extkit_ea_hashes_free(&h);
	ck_assert_uint_eq(h.n, 0);
	ck_assert_ptr_null(h.ino);
	csfs_close(&c);
}
END_TEST

/* The in-inode entry's e_hash from the recorded value hash. */
START_TEST(test_ibody_rehash)
{
	struct extkit_ea_hashes h = { 0 };
	uint32_t ino[1] = { CSFS_EA_INODE }, hash[1] = { 0x1234abcd };
	struct extkit_xattr_region r;
	struct extkit_xattr x;
	uint8_t raw[256], orig[256];
	struct csfs c;
	size_t at;

	csfs_make(&c, 0);
	ck_assert_int_eq(extkit_inode_read_raw(c.fs, CSFS_EA_OWNER, orig), 0);
	memcpy(raw, orig, sizeof(raw));
	/* nothing known: nothing to do */
	ck_assert_int_eq(extkit_ea_ibody_rehash(c.fs, raw, &h), 0);
	ck_assert_mem_eq(raw, orig, sizeof(raw));
	h.ino = ino;
	h.hash = hash;
	h.n = 1;
	ck_assert_int_eq(extkit_ea_ibody_rehash(c.fs, raw, &h), 0);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, sizeof(raw), &r), 1);
	ck_assert_int_eq(extkit_xattr_find(&r, EXTKIT_XATTR_INDEX_USER, "big",
					   &x), 1);
	ck_assert_uint_eq(x.value_inum, CSFS_EA_INODE);
	ck_assert_uint_eq(x.hash, extkit_xattr_hash_ea_inode(
					(const uint8_t *)"big", 3, hash[0], 0));
	/* only that entry's e_hash moved */
	at = (size_t)(r.buf - raw) + x.offset +
	     offsetof(struct ext2_ext_attr_entry, e_hash);
	for (size_t i = 0; i < sizeof(raw); i++)
		if (i < at || i >= at + 4)
			ck_assert_uint_eq(raw[i], orig[i]);
	/* an entry naming an inode the table does not hold */
	ino[0] = CSFS_EA_INODE + 1;
	memcpy(raw, orig, sizeof(raw));
	ck_assert_int_eq(extkit_ea_ibody_rehash(c.fs, raw, &h),
			 -EFSCORRUPTED);
	/* an inode without in-inode attributes */
	ck_assert_int_eq(extkit_inode_read_raw(c.fs, CSFS_DIR, raw), 0);
	memcpy(orig, raw, sizeof(raw));
	ck_assert_int_eq(extkit_ea_ibody_rehash(c.fs, raw, &h), 0);
	ck_assert_mem_eq(raw, orig, sizeof(raw));
	csfs_close(&c);
}
END_TEST

/* The kernel's h_hash: each entry hash folded in, 0 once one is 0. */
static uint32_t block_hash(const struct extkit_fs *fs, const uint8_t *blk)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	struct extkit_xattr x;
	uint32_t off, hash = 0;

	extkit_xattr_format_init(fs, &fmt);
	extkit_xattr_block_region(&fmt, blk, &r);
	off = r.first;
	while (extkit_xattr_next(&r, &off, &x) == 1) {
		if (!x.hash)
			return 0;
		hash = (hash << 16 | hash >> 16) ^ x.hash;
	}
	return hash;
}

/* An EA block holding an entry naming the EA inode and a plain one:
 * the first's hash and the block's h_hash redone, the rest kept. */
START_TEST(test_block_rehash)
{
	static const char small[] = "a small value";
	struct extkit_xattr_item it[2] = {
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 3,
		  .name = "big", .value = value, .size = sizeof(value),
		  .where = EXTKIT_XATTR_AT_BLOCK, .ea_inode = 1,
		  .value_inum = CSFS_EA_INODE, .value_hash = 77 },
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 5,
		  .name = "small", .value = small, .size = sizeof(small),
		  .where = EXTKIT_XATTR_AT_BLOCK },
	};
	uint32_t ino[1] = { CSFS_EA_INODE }, hash[1] = { 0x0badf00d };
	struct extkit_ea_hashes h = { .ino = ino, .hash = hash, .n = 1 };
	struct extkit_ea_hashes none = { 0 };
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	struct extkit_xattr x;
	uint8_t raw[256], blk[BS], orig[BS], plain;
	struct csfs c;
	int use = 0;

	fill_value();
	csfs_make(&c, 0);
	memset(raw, 0, sizeof(raw));
	put_le16(raw + EXT2_INODE_CORE_SIZE, 32);
	extkit_xattr_lay_out(c.fs, it, 2, raw, blk, &use);
	ck_assert_int_eq(use, 1);
	memcpy(orig, blk, BS);
	ck_assert_int_eq(extkit_ea_block_rehash(c.fs, blk, &none), 0);
	ck_assert_mem_eq(blk, orig, BS);
	ck_assert_int_eq(extkit_ea_block_rehash(c.fs, blk, &h), 0);
	extkit_xattr_format_init(c.fs, &fmt);
	extkit_xattr_block_region(&fmt, blk, &r);
	ck_assert_int_eq(extkit_xattr_find(&r, EXTKIT_XATTR_INDEX_USER, "big",
					   &x), 1);
	ck_assert_uint_eq(x.hash, extkit_xattr_hash_ea_inode(
					(const uint8_t *)"big", 3, hash[0], 0));
	ck_assert_int_eq(extkit_xattr_find(&r, EXTKIT_XATTR_INDEX_USER,
					   "small", &x), 1);
	plain = x.hash != 0;
	ck_assert(plain);
	ck_assert_uint_ne(get_le32(blk + HHASH), get_le32(orig + HHASH));
	ck_assert_uint_eq(get_le32(blk + HHASH), block_hash(c.fs, blk));
	/* run again: the hashes are right already, nothing moves */
	memcpy(orig, blk, BS);
	ck_assert_int_eq(extkit_ea_block_rehash(c.fs, blk, &h), 0);
	ck_assert_mem_eq(blk, orig, BS);
	/* an entry naming an unknown EA inode */
	ino[0] = CSFS_EA_INODE + 1;
	ck_assert_int_eq(extkit_ea_block_rehash(c.fs, blk, &h), -EFSCORRUPTED);
	csfs_close(&c);
}
END_TEST

Suite *csum_rewrite_ea_suite(void)
{
	Suite *s = suite_create("csum_rewrite_ea");
	TCase *tc = tcase_create("ea");

	tcase_add_test(tc, test_ea_inode_init);
	tcase_add_test(tc, test_hash_lookup);
	tcase_add_test(tc, test_ea_inode_rehash);
	tcase_add_test(tc, test_ibody_rehash);
	tcase_add_test(tc, test_block_rehash);
	suite_add_tcase(s, tc);
	return s;
}
