// SPDX-License-Identifier: GPL-2.0-or-later
/* xattrbuild.c: ACL conversion (golden bytes), name prefixes, the layout
 * of attributes in the inode and in a block (checked by the validator). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <check.h>

#include "acl.h"
#include "endian.h"
#include "error.h"
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
		{ EXTKIT_XATTR_INDEX_USER, 3, "big", big, sizeof(big) },
		{ EXTKIT_XATTR_INDEX_USER, 1, "a", "tiny", 4 },
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

Suite *xattrbuild_suite(void)
{
	Suite *s = suite_create("xattrbuild");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, acl_from_xattr_golden);
	tcase_add_test(tc, acl_to_xattr_golden);
	tcase_add_test(tc, name_split);
	tcase_add_test(tc, build_inode_then_block);
	suite_add_tcase(s, tc);
	return s;
}
