// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for orphan_file.c: an empty orphan block as mke2fs and the
 * kernel leave it (zero slots, the magic in the tail, its checksum under
 * metadata_csum), the checksum tied to the orphan file's inode,
 * generation and the block's physical number, slots read back, and a
 * bad magic or checksum reported as such.
 */
#include "config.h"

#include <string.h>

#include "endian.h"
#include "fs.h"
#include "image.h"
#include "ondisk.h"
#include "orphan_file.h"
#include "suites.h"

#define BS	1024u

static struct extkit_fs *open_fs(struct extkit_io **io, int csum)
{
	struct test_image_opts o;
	struct extkit_fs *fs;

	test_image_defaults(&o);
	*io = test_image_make(&o);
	fs = test_image_open(*io);
	if (csum)
		fs->sb.feature_ro_compat |=
			EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	return fs;
}

START_TEST(test_empty_block)
{
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io, 1);
	uint8_t buf[BS];

	ck_assert_uint_eq(extkit_orphan_slots(fs), (BS - 8) / 4);
	memset(buf, 0xff, BS);
	extkit_orphan_block_init(fs, 12, 3, 4000, buf);
	for (uint32_t i = 0; i < extkit_orphan_slots(fs); i++)
		ck_assert_uint_eq(extkit_orphan_slot(buf, i), 0);
	ck_assert_uint_eq(get_le32(buf + BS - 8), EXT4_ORPHAN_BLOCK_MAGIC);
	ck_assert_uint_eq(get_le32(buf + BS - 4),
			  extkit_orphan_block_csum(fs, 12, 3, 4000, buf));
	ck_assert_int_eq(extkit_orphan_block_check(fs, 12, 3, 4000, buf),
			 EXTKIT_ORPHAN_BLOCK_OK);
	/* another block number, inode or generation */
	ck_assert_int_eq(extkit_orphan_block_check(fs, 12, 3, 4001, buf),
			 EXTKIT_ORPHAN_BLOCK_BAD_CSUM);
	ck_assert_int_eq(extkit_orphan_block_check(fs, 13, 3, 4000, buf),
			 EXTKIT_ORPHAN_BLOCK_BAD_CSUM);
	ck_assert_int_eq(extkit_orphan_block_check(fs, 12, 4, 4000, buf),
			 EXTKIT_ORPHAN_BLOCK_BAD_CSUM);
	/* a slot in use changes the sum */
	put_le32(buf + 4 * 7, 99);
	ck_assert_uint_eq(extkit_orphan_slot(buf, 7), 99);
	ck_assert_int_eq(extkit_orphan_block_check(fs, 12, 3, 4000, buf),
			 EXTKIT_ORPHAN_BLOCK_BAD_CSUM);
	buf[BS - 8] ^= 1;
	ck_assert_int_eq(extkit_orphan_block_check(fs, 12, 3, 4000, buf),
			 EXTKIT_ORPHAN_BLOCK_BAD_MAGIC);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_no_csum)
{
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io, 0);
	uint8_t buf[BS];

	extkit_orphan_block_init(fs, 12, 3, 4000, buf);
	ck_assert_uint_eq(get_le32(buf + BS - 4), 0);
	put_le32(buf, 50);
	ck_assert_int_eq(extkit_orphan_block_check(fs, 12, 3, 4000, buf),
			 EXTKIT_ORPHAN_BLOCK_OK);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

Suite *orphan_file_suite(void)
{
	Suite *s = suite_create("orphan_file");
	TCase *tc = tcase_create("orphan_file");

	tcase_add_test(tc, test_empty_block);
	tcase_add_test(tc, test_no_csum);
	suite_add_tcase(s, tc);
	return s;
}
