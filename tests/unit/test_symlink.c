// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for symlink.c: a fast symlink's target read from i_block
 * (its bytes as the inode holds them, golden), a slow one's from its
 * block, and the refusals: a size of 0 or past a block, a NUL inside
 * the target, an unmapped block, a buffer too small.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "io.h"
#include "suites.h"
#include "symlink.h"

#define BS	1024u

static void fast_link(struct extkit_inode *in, const char *target)
{
	uint8_t ib[EXTKIT_FAST_SYMLINK_MAX] = { 0 };

	memset(in, 0, sizeof(*in));
	in->mode = S_IFLNK | 0777;
	in->size = strlen(target);
	memcpy(ib, target, in->size);
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		in->block[i] = get_le32(ib + 4 * i);
}

START_TEST(test_iblock_bytes)
{
	struct extkit_inode in;
	uint8_t out[EXTKIT_FAST_SYMLINK_MAX];

	memset(&in, 0, sizeof(in));
	in.block[0] = 0x64636261;	/* "abcd" little-endian */
	in.block[14] = 0x7a000000;
	extkit_symlink_iblock_bytes(&in, out);
	ck_assert_mem_eq(out, "abcd", 4);
	ck_assert_uint_eq(out[4], 0);
	ck_assert_uint_eq(out[59], 'z');
}
END_TEST

START_TEST(test_fast_and_slow)
{
	struct test_image_opts o;
	struct extkit_inode in;
	struct extkit_io *io;
	struct extkit_fs *fs;
	char out[128], blk[BS] = { 0 }, slow[71];
	size_t len = 0;

	test_image_defaults(&o);
	io = test_image_make(&o);
	fs = test_image_open(io);
	fast_link(&in, "../some/where");
	ck_assert_int_eq(extkit_symlink_read(fs, 12, &in, out, sizeof(out),
					     &len), 0);
	ck_assert_uint_eq(len, 13);
	ck_assert_str_eq(out, "../some/where");
	ck_assert_int_eq(extkit_symlink_read(fs, 12, &in, out, 13, &len),
			 -ENAMETOOLONG);
	/* a slow one: 70 bytes in block 6000 */
	memset(slow, 'x', 70);
	slow[70] = 0;
	memcpy(blk, slow, 70);
	ck_assert_int_eq(extkit_io_write_blocks(io, 6000, 1, blk), 0);
	memset(&in, 0, sizeof(in));
	in.mode = S_IFLNK | 0777;
	in.size = 70;
	in.blocks = BS / 512;
	in.block[0] = 6000;
	ck_assert_int_eq(extkit_symlink_read(fs, 12, &in, out, sizeof(out),
					     &len), 0);
	ck_assert_uint_eq(len, 70);
	ck_assert_str_eq(out, slow);
	/* a NUL inside: the target is not that */
	blk[10] = 0;
	ck_assert_int_eq(extkit_io_write_blocks(io, 6000, 1, blk), 0);
	ck_assert_int_eq(extkit_symlink_read(fs, 12, &in, out, sizeof(out),
					     &len), -EFSCORRUPTED);
	in.block[0] = 0;		/* unmapped */
	ck_assert_int_eq(extkit_symlink_read(fs, 12, &in, out, sizeof(out),
					     &len), -EFSCORRUPTED);
	in.size = 0;
	ck_assert_int_eq(extkit_symlink_read(fs, 12, &in, out, sizeof(out),
					     &len), -EFSCORRUPTED);
	in.size = BS + 1;
	ck_assert_int_eq(extkit_symlink_read(fs, 12, &in, out, sizeof(out),
					     &len), -EFSCORRUPTED);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

/* An encrypted target's length: fscrypt_symlink_data's __le16 len, the
 * first two bytes (i_size is it plus 2). */
START_TEST(test_enc_len)
{
	uint8_t t[8] = { 0x34, 0x12, 'x', 'y' };

	ck_assert_uint_eq(extkit_symlink_enc_len(t), 0x1234);
	t[0] = 16;
	t[1] = 0;
	ck_assert_uint_eq(extkit_symlink_enc_len(t), 16);
}
END_TEST

Suite *symlink_suite(void)
{
	Suite *s = suite_create("symlink");
	TCase *tc = tcase_create("symlink");

	tcase_add_test(tc, test_iblock_bytes);
	tcase_add_test(tc, test_fast_and_slow);
	tcase_add_test(tc, test_enc_len);
	suite_add_tcase(s, tc);
	return s;
}
