// SPDX-License-Identifier: GPL-2.0-or-later
/* xattrbuild.c: ACL conversion (golden bytes), name prefixes, the layout
 * of attributes in the inode and in a block (checked by the validator),
 * EA inode placement (ea_inode) and system.data first; inline_build.c:
 * the room of system.data, filling and dropping it, inline directories. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "acl.h"
#include "endian.h"
#include "error.h"
#include "inline_build.h"
#include "ondisk.h"
#include "xattr.h"
#include "xattrbuild.h"

#include "suites.h"

START_TEST(acl_from_xattr_golden)
{
	/* version 2, 8-byte entries, deliberately out of order */
	static const uint8_t in[] = {
		0x02, 0, 0, 0,
		0x20, 0, 0x04, 0, 0xff, 0xff, 0xff, 0xff,	/* other r */
		0x01, 0, 0x06, 0, 0xff, 0xff, 0xff, 0xff,	/* owner rw */
		0x02, 0, 0x06, 0, 0xd2, 0x04, 0, 0,		/* user 1234 */
		0x04, 0, 0x04, 0, 0xff, 0xff, 0xff, 0xff,	/* group r */
		0x10, 0, 0x06, 0, 0xff, 0xff, 0xff, 0xff,	/* mask rw */
	};
	static const uint8_t want[] = {
		0x01, 0, 0, 0,
		0x01, 0, 0x06, 0,
		0x02, 0, 0x06, 0, 0xd2, 0x04, 0, 0,
		0x04, 0, 0x04, 0,
		0x10, 0, 0x06, 0,
		0x20, 0, 0x04, 0,
	};
	uint8_t out[64];
	size_t size;

	ck_assert_int_eq(extkit_acl_from_xattr(in, sizeof(in), out, &size), 0);
	ck_assert_uint_eq(size, sizeof(want));
	ck_assert_mem_eq(out, want, sizeof(want));
	ck_assert_int_eq(extkit_acl_from_xattr(in, 6, out, &size), -EINVAL);
	ck_assert_int_eq(extkit_acl_from_xattr(want, sizeof(want), out,
					       &size), -EINVAL);
}
END_TEST

/* acl.c: the ext4 form back to the xattr form (sorted, short entries
 * with the undefined id), and what it refuses. */
START_TEST(acl_to_xattr_golden)
{
	static const uint8_t in[] = {
		0x01, 0, 0, 0,
		0x01, 0, 0x06, 0,
		0x02, 0, 0x06, 0, 0xd2, 0x04, 0, 0,
		0x04, 0, 0x04, 0,
		0x10, 0, 0x06, 0,
		0x20, 0, 0x04, 0,
	};
	static const uint8_t want[] = {
		0x02, 0, 0, 0,
		0x01, 0, 0x06, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 0x06, 0, 0xd2, 0x04, 0, 0,
		0x04, 0, 0x04, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 0x06, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 0x04, 0, 0xff, 0xff, 0xff, 0xff,
	};
	uint8_t out[80], back[80];
	size_t size, bsize;

	ck_assert_uint_ge(sizeof(out), extkit_acl_xattr_max_size(sizeof(in)));
	ck_assert_int_eq(extkit_acl_to_xattr(in, sizeof(in), out, &size), 0);
	ck_assert_uint_eq(size, sizeof(want));
	ck_assert_mem_eq(out, want, sizeof(want));
	/* and back again */
	ck_assert_int_eq(extkit_acl_from_xattr(out, size, back, &bsize), 0);
	ck_assert_uint_eq(bsize, sizeof(in));
	ck_assert_mem_eq(back, in, sizeof(in));
	/* a user entry cut short, a bad version, an unknown tag */
	ck_assert_int_eq(extkit_acl_to_xattr(in, 12, out, &size),
			 -EFSCORRUPTED);
	ck_assert_int_eq(extkit_acl_to_xattr(want, sizeof(want), out, &size),
			 -EFSCORRUPTED);
	{
		uint8_t bad[8] = { 0x01, 0, 0, 0, 0x40, 0, 0x04, 0 };

		ck_assert_int_eq(extkit_acl_to_xattr(bad, sizeof(bad), out,
						     &size), -EFSCORRUPTED);
	}
	/* the header alone: an empty ACL */
	ck_assert_int_eq(extkit_acl_to_xattr(in, 4, out, &size), 0);
	ck_assert_uint_eq(size, 4);
}
END_TEST

START_TEST(name_split)
{
	const char *suffix;
	uint8_t idx;

	ck_assert_int_eq(extkit_xattr_name_split("user.foo", &idx, &suffix),
			 0);
	ck_assert_uint_eq(idx, EXTKIT_XATTR_INDEX_USER);
	ck_assert_str_eq(suffix, "foo");
	ck_assert_int_eq(extkit_xattr_name_split("system.posix_acl_default",
						 &idx, &suffix), 0);
	ck_assert_uint_eq(idx, EXTKIT_XATTR_INDEX_ACL_DEFAULT);
	ck_assert_str_eq(suffix, "");
	ck_assert_int_eq(extkit_xattr_name_split("security.selinux", &idx,
						 &suffix), 0);
	ck_assert_uint_eq(idx, EXTKIT_XATTR_INDEX_SECURITY);
	ck_assert_int_eq(extkit_xattr_name_split("trusted.t", &idx, &suffix),
			 0);
	ck_assert_uint_eq(idx, EXTKIT_XATTR_INDEX_TRUSTED);
	ck_assert_int_eq(extkit_xattr_name_split("system.posix_acl_accessX",
						 &idx, &suffix), -EOPNOTSUPP);
	ck_assert_int_eq(extkit_xattr_name_split("os2.x", &idx, &suffix),
			 -EOPNOTSUPP);
}
END_TEST

START_TEST(build_inode_then_block)
{
	struct extkit_fs fs;
	struct extkit_xattr_format fmt = {
		.block_size = 1024, .first_ino = 11, .inodes_count = 64,
	};
	uint8_t raw[256] = { 0 }, block[1024], big[300];
	struct extkit_xattr_item items[2] = {
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 3, .name = "big",
		  .value = big, .size = sizeof(big) },
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 1, .name = "a",
		  .value = "tiny", .size = 4 },
	};
	int use;

	memset(&fs, 0, sizeof(fs));
	fs.g.inode_size = 256;
	fs.g.block_size = 1024;
	memset(big, 'b', sizeof(big));
	put_le16(raw + EXT2_INODE_CORE_SIZE, 32);	/* i_extra_isize */
	ck_assert_int_eq(extkit_xattr_build(&fs, items, 2, raw, block, &use),
			 0);
	ck_assert_int_eq(use, 1);
	/* sorted: "a" (shorter) first, in the inode; "big" in the block */
	ck_assert_uint_eq(get_le32(raw + 160), EXT2_EXT_ATTR_MAGIC);
	ck_assert_uint_eq(raw[164], 1);			/* e_name_len */
	ck_assert_mem_eq(raw + 164 + 16, "a", 1);
	ck_assert_int_eq(extkit_xattr_block_check(&fmt, block),
			 EXTKIT_XATTR_OK);
	ck_assert_mem_eq(block + 32 + 16, "big", 3);
	/* a value larger than a block fits nowhere */
	items[0].size = 2000;
	ck_assert_int_eq(extkit_xattr_build(&fs, items, 2, raw, block, &use),
			 -ENOSPC);
}
END_TEST

/* A filesystem of 1 KiB blocks and 256-byte inodes, incompat features
 * feat; raw: an inode with i_extra_isize 32 (92 bytes of EA space). */
static void small_fs(struct extkit_fs *fs, uint32_t feat, uint8_t *raw)
{
	memset(fs, 0, sizeof(*fs));
	fs->g.inode_size = 256;
	fs->g.block_size = 1024;
	fs->g.first_ino = 11;
	fs->sb.inodes_count = 64;
	fs->sb.feature_incompat = feat;
	memset(raw, 0, 256);
	put_le16(raw + EXT2_INODE_CORE_SIZE, 32);
}

START_TEST(place_ea_inode)
{
	struct extkit_xattr_format fmt = {
		.block_size = 1024, .first_ino = 11, .inodes_count = 64,
		.ea_inode = 1,
	};
	static uint8_t v[70000];
	uint8_t raw[256], block[1024];
	struct extkit_xattr_item it[3] = {
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 3, .name = "big",
		  .value = v, .size = 2000 },
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 4, .name = "edge",
		  .value = v, .size = 968 },
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 5, .name = "over1",
		  .value = v, .size = 969 },
	};
	struct extkit_xattr_region r;
	struct extkit_fs fs;
	int use;

	small_fs(&fs, EXT4_FEATURE_INCOMPAT_EA_INODE, raw);
	ck_assert_int_eq(extkit_xattr_place(&fs, it, 3, raw, 0), -ENOSPC);
	ck_assert_int_eq(extkit_xattr_place(&fs, it, 3, raw, 1), 0);
	/* sorted by name length: big, edge, over1. Over 968 bytes (a
	 * block less its header, a 3-byte-name entry and the end mark):
	 * an EA inode, its entry in the inode; 968 bytes: the block */
	ck_assert_uint_eq(it[0].ea_inode, 1);
	ck_assert_uint_eq(it[0].where, EXTKIT_XATTR_AT_INODE);
	ck_assert_uint_eq(it[1].ea_inode, 0);
	ck_assert_uint_eq(it[1].where, EXTKIT_XATTR_AT_BLOCK);
	ck_assert_uint_eq(it[2].ea_inode, 1);
	it[0].value_inum = 12;
	it[0].value_hash = 0x12345678;
	it[2].value_inum = 13;
	it[2].value_hash = 7;
	extkit_xattr_lay_out(&fs, it, 3, raw, block, &use);
	ck_assert_int_eq(use, 1);
	ck_assert_int_eq(extkit_xattr_block_check(&fmt, block),
			 EXTKIT_XATTR_OK);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, 256, &r), 1);
	ck_assert_int_eq(extkit_xattr_region_check(&fmt, &r),
			 EXTKIT_XATTR_OK);
	/* the first in-inode entry: no value offset, the EA inode, the
	 * hash of the name and the EA inode's hash */
	ck_assert_uint_eq(get_le16(raw + 164 + 2), 0);
	ck_assert_uint_eq(get_le32(raw + 164 + 4), 12);
	ck_assert_uint_eq(get_le32(raw + 164 + 8), 2000);
	ck_assert_uint_eq(get_le32(raw + 164 + 12),
			  extkit_xattr_hash_ea_inode((const uint8_t *)"big",
						     3, 0x12345678, 0));
	/* more than 64 KiB: refused */
	it[0].size = 65537;
	ck_assert_int_eq(extkit_xattr_place(&fs, it, 3, raw, 1), -E2BIG);
}
END_TEST

START_TEST(place_data_first)
{
	uint8_t raw[256], block[1024], d[68];
	struct extkit_xattr_item it[2] = {
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 1, .name = "a",
		  .value = "tiny", .size = 4 },
		{ .index = EXTKIT_XATTR_INDEX_SYSTEM, .name_len = 4, .name = "data",
		  .value = d, .size = sizeof(d) },
	};
	struct extkit_fs fs;
	uint32_t room;
	int use;

	small_fs(&fs, 0, raw);
	memset(d, 'd', sizeof(d));
	/* system.data takes the whole in-inode space (20 + 68 + 4) */
	ck_assert_int_eq(extkit_xattr_place(&fs, it, 2, raw, 0), 0);
	ck_assert_uint_eq(it[0].index, EXTKIT_XATTR_INDEX_SYSTEM);
	ck_assert_uint_eq(it[0].where, EXTKIT_XATTR_AT_INODE);
	ck_assert_uint_eq(it[1].where, EXTKIT_XATTR_AT_BLOCK);
	extkit_xattr_lay_out(&fs, it, 2, raw, block, &use);
	ck_assert_int_eq(use, 1);
	ck_assert_int_eq(extkit_inline_room(&fs, raw, &room), -EINVAL);
	/* 4 bytes more do not fit the inode, and never go elsewhere */
	it[0].size = 72;
	ck_assert_int_eq(extkit_xattr_place(&fs, it, 2, raw, 1), -ENOSPC);
}
END_TEST

START_TEST(inline_room_fill_drop)
{
	struct extkit_xattr_format fmt = {
		.block_size = 1024, .first_ino = 11, .inodes_count = 64,
	};
	struct extkit_xattr_item it[2] = {
		{ .index = EXTKIT_XATTR_INDEX_SYSTEM, .name_len = 4, .name = "data",
		  .value = "", .size = 0 },
		{ .index = EXTKIT_XATTR_INDEX_USER, .name_len = 1, .name = "a",
		  .value = "12345678", .size = 8 },
	};
	uint8_t raw[256], block[1024], v[44];
	struct extkit_xattr_region r;
	struct extkit_xattr x;
	struct extkit_fs fs;
	uint32_t room;
	int use;

	small_fs(&fs, 0, raw);
	ck_assert_int_eq(extkit_inline_room(&fs, raw, &room), -ENODATA);
	ck_assert_int_eq(extkit_xattr_place(&fs, it, 2, raw, 0), 0);
	extkit_xattr_lay_out(&fs, it, 2, raw, block, &use);
	ck_assert_int_eq(use, 0);
	/* 92 - 4 (end) - 20 (data) - 20 (a) - 8 (its value) */
	ck_assert_int_eq(extkit_inline_room(&fs, raw, &room), 0);
	ck_assert_uint_eq(room, 40);
	memset(v, 'v', sizeof(v));
	ck_assert_int_eq(extkit_inline_fill(&fs, raw, v, 41), -ENOSPC);
	ck_assert_int_eq(extkit_inline_fill(&fs, raw, v, 38), 0);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, 256, &r), 1);
	ck_assert_int_eq(extkit_xattr_region_check(&fmt, &r),
			 EXTKIT_XATTR_OK);
	ck_assert_int_eq(extkit_xattr_find(&r, 7, "data", &x), 1);
	ck_assert_uint_eq(x.value_size, 38);
	ck_assert_mem_eq(x.value, v, 38);
	ck_assert_int_eq(extkit_xattr_find(&r, 1, "a", &x), 1);
	ck_assert_mem_eq(x.value, "12345678", 8);
	/* drop: a fresh one, emptied of system.data, keeps "a" */
	small_fs(&fs, 0, raw);
	it[0].size = 0;
	ck_assert_int_eq(extkit_xattr_place(&fs, it, 2, raw, 0), 0);
	extkit_xattr_lay_out(&fs, it, 2, raw, block, &use);
	ck_assert_int_eq(extkit_inline_drop(&fs, raw), 0);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, 256, &r), 1);
	ck_assert_int_eq(extkit_xattr_region_check(&fmt, &r),
			 EXTKIT_XATTR_OK);
	ck_assert_int_eq(extkit_xattr_find(&r, 7, "data", &x), 0);
	ck_assert_int_eq(extkit_xattr_find(&r, 1, "a", &x), 1);
	ck_assert_mem_eq(x.value, "12345678", 8);
}
END_TEST

START_TEST(inline_dir)
{
	struct extkit_dirbuild db;
	uint8_t raw[256], ib[60], val[68];
	struct extkit_fs fs;

	small_fs(&fs, EXT2_FEATURE_INCOMPAT_FILETYPE, raw);
	extkit_dirbuild_init(&db, &fs);
	/* 3 entries of 16 bytes fit i_block's 56 */
	for (int i = 0; i < 3; i++) {
		char n[8];

		snprintf(n, sizeof(n), "name%d", i);
		ck_assert_int_eq(extkit_dirbuild_add(&db, n, 5, 20 + i, 1), 0);
	}
	ck_assert_uint_eq(extkit_inline_dir_need(&db), 0);
	extkit_inline_dir_lay_out(&db, 2, ib, NULL, 0);
	ck_assert_uint_eq(get_le32(ib), 2);			/* parent */
	ck_assert_uint_eq(get_le32(ib + 4), 20);
	ck_assert_uint_eq(get_le16(ib + 4 + 4), 16);
	ck_assert_uint_eq(get_le16(ib + 36 + 4), 24);		/* to 60 */
	/* two more: the value part, the last entry to its end */
	ck_assert_int_eq(extkit_dirbuild_add(&db, "name3", 5, 23, 1), 0);
	ck_assert_int_eq(extkit_dirbuild_add(&db, "n4", 2, 24, 2), 0);
	ck_assert_uint_eq(extkit_inline_dir_need(&db), 12 + 16);
	extkit_inline_dir_lay_out(&db, 2, ib, val, sizeof(val));
	ck_assert_uint_eq(get_le32(val), 23);
	ck_assert_uint_eq(get_le16(val + 4), 16);
	ck_assert_uint_eq(get_le32(val + 16), 24);
	ck_assert_uint_eq(get_le16(val + 16 + 4), 68 - 16);
	ck_assert_uint_eq(val[16 + 7], 2);			/* type */
	extkit_dirbuild_free(&db);
}
END_TEST

/* The ext4 form from entries out of order: sorted by tag then id, the
 * short form for the entries without an id. */
START_TEST(acl_encode_golden)
{
	struct extkit_acl_entry e[6] = {
		{ EXTKIT_ACL_OTHER, 4, 0 },
		{ EXTKIT_ACL_GROUP, 6, 7 },
		{ EXTKIT_ACL_USER_OBJ, 6, 0 },
		{ EXTKIT_ACL_USER, 6, 1234 },
		{ EXTKIT_ACL_GROUP_OBJ, 4, 0 },
		{ EXTKIT_ACL_USER, 4, 99 },
	};
	static const uint8_t want[] = {
		0x01, 0, 0, 0,
		0x01, 0, 0x06, 0,
		0x02, 0, 0x04, 0, 99, 0, 0, 0,
		0x02, 0, 0x06, 0, 0xd2, 0x04, 0, 0,
		0x04, 0, 0x04, 0,
		0x08, 0, 0x06, 0, 7, 0, 0, 0,
		0x20, 0, 0x04, 0,
	};
	uint8_t out[64];
	size_t size = 0;

	ck_assert_uint_le(sizeof(want), extkit_acl_max_size(6));
	ck_assert_int_eq(extkit_acl_encode(e, 6, out, &size), 0);
	ck_assert_uint_eq(size, sizeof(want));
	ck_assert_mem_eq(out, want, sizeof(want));
	e[0].tag = 0x40;
	ck_assert_int_eq(extkit_acl_encode(e, 6, out, &size), -EINVAL);
}
END_TEST

Suite *xattrbuild_suite(void)
{
	Suite *s = suite_create("xattrbuild");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, acl_from_xattr_golden);
	tcase_add_test(tc, acl_to_xattr_golden);
	tcase_add_test(tc, name_split);
	tcase_add_test(tc, build_inode_then_block);
	tcase_add_test(tc, place_ea_inode);
	tcase_add_test(tc, place_data_first);
	tcase_add_test(tc, inline_room_fill_drop);
	tcase_add_test(tc, inline_dir);
	tcase_add_test(tc, acl_encode_golden);
	suite_add_tcase(s, tc);
	return s;
}
