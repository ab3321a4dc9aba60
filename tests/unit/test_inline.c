// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for inline.c (inline_data): the contents of an inline file
 * read from i_block and, past its 60 bytes, from the system.data value;
 * where they lie (extkit_inline_locate: the value's length, the
 * capacity); a rewrite of either part, and one outside its part
 * refused; an inode without system.data.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "dir.h"
#include "dirblock.h"
#include "direntry.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inline.h"
#include "inode.h"
#include "ondisk.h"
#include "suites.h"
#include "xattrbuild.h"

#define INO	12u
#define ISIZE	256u

static struct extkit_fs *open_fs(struct extkit_io **io)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.inode_size = ISIZE;
	*io = test_image_make(&o);
	return test_image_open(*io);
}

/* Inode INO: an inline file of len bytes of text, the part past 60 in
 * system.data (which exists, empty or not, unless with_ea is 0). */
static void put_inline(struct extkit_fs *fs, const char *text, uint32_t len,
		       int with_ea)
{
	struct extkit_xattr_item it = { EXTKIT_XATTR_INDEX_SYSTEM, 4, "data",
					text + 60, len > 60 ? len - 60 : 0 };
	struct extkit_inode in;
	uint8_t raw[ISIZE] = { 0 }, ib[60] = { 0 }, block[1024];
	int use_block = 0;

	memset(&in, 0, sizeof(in));
	in.mode = S_IFREG | 0644;
	in.links_count = 1;
	in.size = len;
	in.flags = EXT4_INLINE_DATA_FL;
	in.extra_isize = 32;
	memcpy(ib, text, len < 60 ? len : 60);
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		in.block[i] = get_le32(ib + 4 * i);
	extkit_inode_encode(&in, ISIZE, raw);
	if (with_ea)
		ck_assert_int_eq(extkit_xattr_build(fs, &it, 1, raw, block,
						    &use_block), 0);
	ck_assert_int_eq(use_block, 0);
	ck_assert_int_eq(extkit_inode_write_raw(fs, INO, raw), 0);
}

static const char text[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
	"and the rest";

START_TEST(test_read_both_parts)
{
	struct extkit_inline loc;
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io);
	uint8_t raw[ISIZE], buf[128];
	uint32_t len = 0;

	put_inline(fs, text, 72, 1);
	ck_assert_int_eq(extkit_inode_read_raw(fs, INO, raw), 0);
	ck_assert_int_eq(extkit_inline_locate(fs, raw, &loc), 0);
	ck_assert_uint_eq(loc.ea_len, 12);
	ck_assert_uint_eq(extkit_inline_capacity(&loc), 72);
	ck_assert_mem_eq(loc.ea, "and the rest", 12);
	ck_assert_int_eq(extkit_inline_read(fs, INO, buf, sizeof(buf), &len),
			 0);
	ck_assert_uint_eq(len, 72);
	ck_assert_mem_eq(buf, text, 72);
	/* a small buffer takes what fits */
	ck_assert_int_eq(extkit_inline_read(fs, INO, buf, 10, &len), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert_mem_eq(buf, text, 10);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_write_parts)
{
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io);
	uint8_t buf[128];
	uint32_t len = 0;

	put_inline(fs, text, 72, 1);
	ck_assert_int_eq(extkit_inline_write(fs, INO, 0, 58, (const uint8_t *)
					     "!!", 2), 0);
	ck_assert_int_eq(extkit_inline_write(fs, INO, 1, 4, (const uint8_t *)
					     "THE", 3), 0);
	ck_assert_int_eq(extkit_inline_read(fs, INO, buf, sizeof(buf), &len),
			 0);
	ck_assert_uint_eq(len, 72);
	ck_assert_mem_eq(buf + 58, "!!and THE rest", 14);
	/* outside its part */
	ck_assert_int_eq(extkit_inline_write(fs, INO, 0, 59, (const uint8_t *)
					     "ab", 2), -EINVAL);
	ck_assert_int_eq(extkit_inline_write(fs, INO, 1, 11, (const uint8_t *)
					     "ab", 2), -EINVAL);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_no_system_data)
{
	struct extkit_inline loc;
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io);
	uint8_t raw[ISIZE];

	put_inline(fs, text, 20, 0);
	ck_assert_int_eq(extkit_inode_read_raw(fs, INO, raw), 0);
	ck_assert_int_eq(extkit_inline_locate(fs, raw, &loc), -ENODATA);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

/* An inline directory walked: '.' and '..' first (made from i_block's
 * parent), then the records in i_block past it; each part's bytes. */
START_TEST(test_inline_dir_walk)
{
	struct extkit_xattr_item it = { .index = EXTKIT_XATTR_INDEX_SYSTEM,
					.name_len = 4, .name = "data",
					.value = "", .size = 0 };
	struct extkit_dir_format fmt;
	struct extkit_dir_iter di;
	struct extkit_dirent e;
	struct extkit_inode in;
	uint8_t raw[ISIZE] = { 0 }, ib[60], block[1024];
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io);
	int use_block = 0;

	extkit_dir_format_init(fs, &fmt);
	extkit_dirblock_new_inline(fs, ib, EXT2_ROOT_INO);
	ck_assert_int_eq(extkit_dirent_set(&fmt, ib + 4, 13, 56, "f", 1,
					   EXT2_FT_REG_FILE), 0);
	memset(&in, 0, sizeof(in));
	in.mode = S_IFDIR | 0755;
	in.links_count = 2;
	in.size = 60;
	in.flags = EXT4_INLINE_DATA_FL;
	in.extra_isize = 32;
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		in.block[i] = get_le32(ib + 4 * i);
	extkit_inode_encode(&in, ISIZE, raw);
	ck_assert_int_eq(extkit_xattr_build(fs, &it, 1, raw, block,
					    &use_block), 0);
	ck_assert_int_eq(extkit_inode_write_raw(fs, INO, raw), 0);

	ck_assert_int_eq(extkit_dir_iter_init(&di, fs, INO, 0), 0);
	ck_assert_int_eq(extkit_dir_iter_next(&di, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_is_inline(&di), 1);
	ck_assert_uint_eq(e.inode, INO);		/* '.' */
	ck_assert_uint_eq(extkit_dir_iter_area(&di), 24);
	ck_assert_uint_eq(extkit_dir_iter_limit(&di), 24);
	ck_assert_int_eq(extkit_dir_iter_next(&di, &e), 1);
	ck_assert_uint_eq(e.inode, EXT2_ROOT_INO);	/* '..' */
	ck_assert_int_eq(extkit_dir_iter_next(&di, &e), 1);
	ck_assert_uint_eq(e.inode, 13);
	ck_assert_uint_eq(e.name_len, 1);
	ck_assert_uint_eq(extkit_dir_iter_area(&di), 56);
	ck_assert_uint_eq(extkit_dir_iter_limit(&di), 56);
	ck_assert_int_eq(extkit_dir_iter_next(&di, &e), 0);
	ck_assert_int_eq(extkit_dir_iter_end(&di), 0);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

Suite *inline_suite(void)
{
	Suite *s = suite_create("inline");
	TCase *tc = tcase_create("inline");

	tcase_add_test(tc, test_read_both_parts);
	tcase_add_test(tc, test_write_parts);
	tcase_add_test(tc, test_no_system_data);
	tcase_add_test(tc, test_inline_dir_walk);
	suite_add_tcase(s, tc);
	return s;
}
