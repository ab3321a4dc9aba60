// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for orphan_new.c: mke2fs's default sizes, and a new orphan
 * file on an in-memory image: the inode (a regular file 0600, one link,
 * its size, the superblock pointing at it, the feature set), its blocks
 * (the first free ones from the start, each an empty orphan block that
 * checks out), the free count, and the refusals that write nothing.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "bmap.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"
#include "orphan_file.h"
#include "orphan_new.h"
#include "suites.h"

#define BS	1024u
#define INO	12u

START_TEST(test_default_sizes)
{
	ck_assert_uint_eq(extkit_orphan_default_blocks(1000), 32);
	ck_assert_uint_eq(extkit_orphan_default_blocks(131071), 32);
	ck_assert_uint_eq(extkit_orphan_default_blocks(131072 * 4), 128);
	ck_assert_uint_eq(extkit_orphan_default_blocks(2u << 20), 512);
	ck_assert_uint_eq(extkit_orphan_default_blocks(1ULL << 40), 512);
}
END_TEST

START_TEST(test_create)
{
	struct test_image_opts o;
	struct extkit_inode in;
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t free0, first = 0, prev = 0, pblk;
	uint8_t buf[BS];

	test_image_defaults(&o);
	o.blocks = 8192;
	io = test_image_make(&o);
	fs = test_image_open(io);
	free0 = fs->sb.free_blocks_count;
	first = test_image_first_free_block(fs);
	ck_assert_int_eq(extkit_orphan_file_create(fs, INO, 0, 1), -EINVAL);
	ck_assert_int_eq(extkit_orphan_file_create(fs, INO,
			 EXTKIT_ORPHAN_MAX_BLOCKS + 1, 1), -EINVAL);
	ck_assert_uint_eq(fs->sb.free_blocks_count, free0);
	ck_assert_int_eq(extkit_orphan_file_create(fs, INO, 8, 1700000000),
			 0);
	ck_assert_uint_eq(fs->sb.orphan_file_inum, INO);
	ck_assert(fs->sb.feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE);
	ck_assert_uint_eq(free0 - fs->sb.free_blocks_count, 8);
	ck_assert_int_eq(extkit_inode_read(fs, INO, &in), 0);
	ck_assert_uint_eq(in.mode, S_IFREG | 0600);
	ck_assert_uint_eq(in.links_count, 1);
	ck_assert_uint_eq(in.size, 8 * BS);
	ck_assert_uint_eq(in.generation, 0);
	ck_assert_uint_eq(extkit_inode_blocks_bytes(fs, &in), 8 * BS);
	for (uint64_t l = 0; l < 8; l++) {
		ck_assert_int_eq(extkit_bmap(fs, &in, l, &pblk), 0);
		if (l == 0)
			ck_assert_uint_eq(pblk, first);
		else
			ck_assert_uint_eq(pblk, prev + 1);
		prev = pblk;
		ck_assert_int_eq(extkit_io_read_blocks(io, pblk, 1, buf), 0);
		ck_assert_int_eq(extkit_orphan_block_check(fs, INO, 0, pblk,
							   buf),
				 EXTKIT_ORPHAN_BLOCK_OK);
	}
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_no_room)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t free0;

	test_image_defaults(&o);
	o.blocks = 8192;
	io = test_image_make(&o);
	fs = test_image_open(io);
	fs->sb.free_blocks_count = 3;	/* as if the rest were taken */
	free0 = fs->groups[0].free_blocks;
	ck_assert_int_lt(extkit_orphan_file_create(fs, INO, 32, 1), 0);
	ck_assert_uint_eq(fs->sb.orphan_file_inum, 0);
	ck_assert_uint_eq(fs->groups[0].free_blocks, free0);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

Suite *orphan_new_suite(void)
{
	Suite *s = suite_create("orphan_new");
	TCase *tc = tcase_create("orphan_new");

	tcase_add_test(tc, test_default_sizes);
	tcase_add_test(tc, test_create);
	tcase_add_test(tc, test_no_room);
	suite_add_tcase(s, tc);
	return s;
}
