// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for dxblock.c: a root's info and entries (a count past the
 * block is cut at it, the dx_tail found by the limit), a node's, and a
 * leaf record's hash: computed from the name, or read from the record
 * in an encrypted casefolded directory (and not read when the record
 * has no room for it).
 */
#include "config.h"

#include <string.h>

#include "dir.h"
#include "dxblock.h"
#include "endian.h"
#include "htree.h"
#include "image.h"
#include "ondisk.h"
#include "suites.h"

static struct extkit_fs *open_fs(struct extkit_io **io, uint32_t incompat,
				 uint32_t ro_compat)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.incompat |= incompat;
	o.ro_compat |= ro_compat;
	*io = test_image_make(&o);
	return test_image_open(*io);
}

START_TEST(test_root)
{
	struct extkit_dx_root_info ri;
	struct extkit_dx_index ix;
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io, 0,
				       EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	uint8_t b[1024] = { 0 };

	b[24 + 4] = DX_HASH_TEA;
	b[24 + 5] = 8;
	b[24 + 6] = 1;
	put_le16(b + 32, 123);		/* limit: a dx_tail after it */
	put_le16(b + 34, 2);
	put_le32(b + 36, 1);		/* entry 0's block */
	put_le32(b + 40, 0x1235);	/* entry 1: hash, block */
	put_le32(b + 44, 2);
	put_le32(b + 32 + 123 * 8 + 4, 0xdeadbeef);
	ck_assert_int_eq(extkit_dx_root_decode(fs, b, &ri, &ix), 0);
	ck_assert_uint_eq(ri.hash_version, DX_HASH_TEA);
	ck_assert_uint_eq(ri.indirect_levels, 1);
	ck_assert_uint_eq(ix.count, 2);
	ck_assert_uint_eq(ix.n, 2);
	ck_assert_int_eq(ix.has_tail, 1);
	ck_assert_uint_eq(ix.tail_csum, 0xdeadbeef);
	ck_assert_uint_eq(extkit_dx_entry_hash(&ix, 0), 0);
	ck_assert_uint_eq(extkit_dx_entry_block(&ix, 0), 1);
	ck_assert_uint_eq(extkit_dx_entry_hash(&ix, 1), 0x1235);
	ck_assert_uint_eq(extkit_dx_entry_block(&ix, 1), 2);
	/* a count past the block: only what the block holds is read */
	put_le16(b + 34, 65535);
	put_le16(b + 32, 65535);
	ck_assert_int_eq(extkit_dx_root_decode(fs, b, &ri, &ix), 0);
	ck_assert_uint_eq(ix.n, (1024 - 32) / 8);
	ck_assert_int_eq(ix.has_tail, 0);
	/* a long info moves the entries */
	b[24 + 5] = 250;
	put_le16(b + 274 + 2, 5);
	ck_assert_int_eq(extkit_dx_root_decode(fs, b, &ri, &ix), 0);
	ck_assert_uint_eq(ix.base, 24 + 250);
	ck_assert_uint_eq(ix.count, 5);
	ck_assert_uint_eq(ix.n, 5);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_node)
{
	struct extkit_dx_index ix;
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io, 0, 0);
	uint8_t b[1024] = { 0 };

	put_le16(b + 4, 1024);
	put_le16(b + 8, 127);
	put_le16(b + 10, 3);
	put_le32(b + 12, 7);
	put_le32(b + 24, 0x8001);	/* entry 2: a collision mark */
	extkit_dx_node_decode(fs, b, &ix);
	ck_assert_uint_eq(ix.base, 8);
	ck_assert_uint_eq(ix.n, 3);
	ck_assert_int_eq(ix.has_tail, 0);	/* no metadata_csum */
	ck_assert_uint_eq(extkit_dx_entry_block(&ix, 0), 7);
	ck_assert_uint_eq(extkit_dx_entry_hash(&ix, 2), 0x8001);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

/* A leaf record "abc" of inode 12 at offset 0, rec_len rl, with a hash
 * pair after the name. */
static void leaf(uint8_t *b, uint32_t rl)
{
	memset(b, 0, 1024);
	put_le32(b, 12);
	put_le16(b + 4, (uint16_t)rl);
	b[6] = 3;
	b[7] = EXT2_FT_REG_FILE;
	memcpy(b + 8, "abc", 3);
	put_le32(b + 12, 0x11223344);
	put_le32(b + 16, 0x55667788);
}

START_TEST(test_leaf_hash)
{
	struct extkit_dx_leaf_rec r;
	struct extkit_dir_format fmt;
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io, EXT4_FEATURE_INCOMPAT_CASEFOLD, 0);
	uint32_t enc_cf = EXT4_ENCRYPT_FL | EXT4_CASEFOLD_FL | EXT2_INDEX_FL;
	uint32_t h, m;
	uint8_t b[1024];

	extkit_dir_format_init(fs, &fmt);
	/* encrypted and casefolded: the hash is the record's */
	leaf(b, 20);
	ck_assert_int_eq(extkit_dx_hash_in_dirent(fs, enc_cf), 1);
	ck_assert_int_eq(extkit_dx_leaf_record(fs, &fmt, enc_cf,
					       DX_HASH_SIPHASH, b, 0, 20, &r),
			 0);
	ck_assert_uint_eq(r.inode, 12);
	ck_assert_uint_eq(r.name_len, 3);
	ck_assert_int_eq(r.hashed, 1);
	ck_assert_uint_eq(r.hash, 0x11223344);
	ck_assert_uint_eq(r.minor, 0x55667788);
	/* no room for the pair: no hash (siphash cannot be computed) */
	leaf(b, 12);
	ck_assert_int_eq(extkit_dx_leaf_record(fs, &fmt, enc_cf,
					       DX_HASH_SIPHASH, b, 0, 12, &r),
			 0);
	ck_assert_int_eq(r.hashed, 0);
	/* encrypted only: the stored bytes are hashed as they are */
	leaf(b, 20);
	ck_assert_int_eq(extkit_dx_hash_in_dirent(fs, EXT4_ENCRYPT_FL), 0);
	ck_assert_int_eq(extkit_dx_leaf_record(fs, &fmt, EXT4_ENCRYPT_FL,
					       DX_HASH_HALF_MD4, b, 0, 20, &r),
			 0);
	ck_assert_int_eq(extkit_htree_hash(fs, EXT4_ENCRYPT_FL,
					   DX_HASH_HALF_MD4, "abc", 3, &h, &m),
			 0);
	ck_assert_int_eq(r.hashed, 1);
	ck_assert_uint_eq(r.hash, h);
	ck_assert_uint_eq(r.minor, m);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

Suite *dxblock_suite(void)
{
	Suite *s = suite_create("dxblock");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_root);
	tcase_add_test(tc, test_node);
	tcase_add_test(tc, test_leaf_hash);
	suite_add_tcase(s, tc);
	return s;
}
