// SPDX-License-Identifier: GPL-2.0-or-later
/* Group descriptors: 32/64-byte codecs, geometry, metadata overhead. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "endian.h"
#include "group.h"
#include "suites.h"

START_TEST(test_codec_32)
{
	uint8_t raw[64];
	struct extkit_group g;

	memset(raw, 0xee, sizeof(raw));
	put_le32(raw + 0, 0x11223344);
	put_le32(raw + 8, 0x55);
	put_le16(raw + 0xC, 1234);
	put_le16(raw + 0x12, EXT4_BG_INODE_ZEROED);
	extkit_group_decode(raw, 32, &g);
	ck_assert_uint_eq(g.block_bitmap, 0x11223344);	/* hi ignored */
	ck_assert_uint_eq(g.inode_table, 0x55);
	ck_assert_uint_eq(g.free_blocks, 1234);
	ck_assert_uint_eq(g.flags, EXT4_BG_INODE_ZEROED);
	g.free_inodes = 99;
	extkit_group_encode(&g, 32, raw);
	ck_assert_uint_eq(get_le16(raw + 0xE), 99);
	ck_assert_uint_eq(raw[32], 0xee);	/* past 32 bytes untouched */
}
END_TEST

START_TEST(test_codec_64)
{
	uint8_t raw[64];
	struct extkit_group g;

	memset(raw, 0, sizeof(raw));
	put_le32(raw + 0, 0x10);
	put_le32(raw + 0x20, 0x2);
	put_le16(raw + 0xC, 0x1);
	put_le16(raw + 0x2C, 0x1);
	extkit_group_decode(raw, 64, &g);
	ck_assert_uint_eq(g.block_bitmap, 0x200000010ull);
	ck_assert_uint_eq(g.free_blocks, 0x10001);
	g.inode_table = 0x300000020ull;
	extkit_group_encode(&g, 64, raw);
	ck_assert_uint_eq(get_le32(raw + 0x8), 0x20);
	ck_assert_uint_eq(get_le32(raw + 0x28), 0x3);
}
END_TEST

START_TEST(test_geometry)
{
	struct extkit_super sb;
	struct extkit_geom geom;

	memset(&sb, 0, sizeof(sb));
	memset(&geom, 0, sizeof(geom));
	sb.first_data_block = 1;
	sb.blocks_per_group = 8192;
	sb.blocks_count = 20000;
	sb.reserved_gdt_blocks = 3;
	sb.feature_ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER;
	geom.gdt_blocks = 1;
	geom.descs_per_block = 32;
	ck_assert_uint_eq(extkit_group_first_block(&sb, 2), 16385);
	ck_assert_uint_eq(extkit_group_block_count(&sb, 2), 3615);
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 0), 5);
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 2), 0);
	sb.feature_incompat = EXT2_FEATURE_INCOMPAT_META_BG;
	sb.first_meta_bg = 0;
	sb.reserved_gdt_blocks = 0;
	/* meta_bg: group 1 has a backup and a descriptor copy */
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 1), 2);
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 31), 1);
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 2), 0);
	/* s_first_meta_bg 1: classic descriptor copies follow the
	 * superblock copies of meta group 0 only (ext4_bg_num_gdb) */
	sb.first_meta_bg = 1;
	geom.descs_per_block = 8;
	geom.gdt_blocks = 4;
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 3), 2);
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 9), 2);
	ck_assert_uint_eq(extkit_group_sb_overhead(&sb, &geom, 27), 1);
}
END_TEST

/* Block and inode numbers to groups, at both first_data_block values. */
START_TEST(test_of_block)
{
	struct extkit_super sb;

	memset(&sb, 0, sizeof(sb));
	sb.first_data_block = 1;
	sb.blocks_per_group = 8192;
	sb.inodes_per_group = 2048;
	ck_assert_uint_eq(extkit_group_of_block(&sb, 1), 0);
	ck_assert_uint_eq(extkit_group_block_index(&sb, 1), 0);
	ck_assert_uint_eq(extkit_group_of_block(&sb, 8192), 0);
	ck_assert_uint_eq(extkit_group_block_index(&sb, 8192), 8191);
	ck_assert_uint_eq(extkit_group_of_block(&sb, 8193), 1);
	ck_assert_uint_eq(extkit_group_block_index(&sb, 8193), 0);
	ck_assert_uint_eq(extkit_group_of_block(&sb, 16385 + 7), 2);
	ck_assert_uint_eq(extkit_group_block_index(&sb, 16385 + 7), 7);
	sb.first_data_block = 0;
	sb.blocks_per_group = 32768;
	ck_assert_uint_eq(extkit_group_of_block(&sb, 32767), 0);
	ck_assert_uint_eq(extkit_group_of_block(&sb, 32768), 1);
	/* past 2^32 blocks */
	ck_assert_uint_eq(extkit_group_of_block(&sb, (1ULL << 32) + 5),
			  (1ULL << 32) / 32768);
	ck_assert_uint_eq(extkit_group_block_index(&sb, (1ULL << 32) + 5), 5);
	ck_assert_uint_eq(extkit_group_of_inode(&sb, 1), 0);
	ck_assert_uint_eq(extkit_group_inode_index(&sb, 2048), 2047);
	ck_assert_uint_eq(extkit_group_of_inode(&sb, 2049), 1);
	ck_assert_uint_eq(extkit_group_inode_index(&sb, 2049), 0);
}
END_TEST

Suite *group_suite(void)
{
	Suite *s = suite_create("group");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_codec_32);
	tcase_add_test(tc, test_codec_64);
	tcase_add_test(tc, test_geometry);
	tcase_add_test(tc, test_of_block);
	suite_add_tcase(s, tc);
	return s;
}
