// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the directory-add paths (issue 32): dirleaf.c's two
 * leaf steps (a record placed by splitting a live record to its minimal
 * length or by reusing a free one, exact fits, a full block, a broken
 * chain; a new leaf block with its checksum tail under metadata_csum),
 * and dxadd.c through extkit_dir_add (diradd.c): names added to an
 * indexed directory keep its index sound (extkit_htree_verify), split
 * leaves, and every name is found again. Linear insertion and removal
 * are test_dirspace.c's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diradd.h"
#include "dirblock.h"
#include "dircompact.h"
#include "direntry.h"
#include "dirleaf.h"
#include "dirspace.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "htree.h"
#include "image.h"
#include "inode.h"
#include "suites.h"

#define BS	1024u
#define ROOT	EXT2_ROOT_INO

static const struct extkit_dir_format fmt1k = {
	.block_size = BS, .inodes_count = 1000, .tail_len = 0,
	.has_filetype = 1,
};

static uint32_t rec_len_at(const uint8_t *buf, uint32_t off)
{
	return extkit_dirent_rec_len(&fmt1k, buf + off);
}

static uint32_t name_len_at(const uint8_t *buf, uint32_t off)
{
	return extkit_dirent_name_len(&fmt1k,
		(const struct ext2_dir_entry_2 *)(buf + off));
}

/* A live record over the whole block: split to 12 bytes, the new record
 * takes the rest. */
START_TEST(test_place_split)
{
	uint8_t buf[BS] = { 0 };
	int off;

	ck_assert_int_eq(extkit_dirent_set(&fmt1k, buf, 5, BS, "a", 1,
					   EXT2_FT_REG_FILE), 0);
	off = extkit_dir_leaf_place(&fmt1k, buf, "bb", 2, 6, EXT2_FT_DIR);
	ck_assert_int_eq(off, 12);
	ck_assert_uint_eq(rec_len_at(buf, 0), 12);
	ck_assert_uint_eq(rec_len_at(buf, 12), BS - 12);
	ck_assert_uint_eq(get_le32(buf + 12), 6);
	ck_assert_uint_eq(name_len_at(buf, 12), 2);
	ck_assert_mem_eq(buf + 20, "bb", 2);
	ck_assert_uint_eq(extkit_dirent_file_type(&fmt1k,
		(const struct ext2_dir_entry_2 *)(buf + 12)), EXT2_FT_DIR);
	/* a 20-byte name (28-byte record) goes after bb's 12 bytes */
	off = extkit_dir_leaf_place(&fmt1k, buf, "cccccccccccccccccccc", 20,
				    7, EXT2_FT_REG_FILE);
	ck_assert_int_eq(off, 24);
	ck_assert_uint_eq(rec_len_at(buf, 12), 12);
	ck_assert_uint_eq(rec_len_at(buf, 24), BS - 24);
}
END_TEST

/* A free record (inode 0) is reused whole, from its start. */
START_TEST(test_place_reuse)
{
	uint8_t buf[BS] = { 0 };

	ck_assert_int_eq(extkit_dirent_set(&fmt1k, buf, 5, 12, "a", 1, 1), 0);
	ck_assert_int_eq(extkit_dirent_set(&fmt1k, buf + 12, 0, 40, "gone", 4,
					   1), 0);
	ck_assert_int_eq(extkit_dirent_set(&fmt1k, buf + 52, 9, BS - 52,
					   "z", 1, 1), 0);
	ck_assert_int_eq(extkit_dir_leaf_place(&fmt1k, buf, "new", 3, 8, 1),
			 12);
	ck_assert_uint_eq(rec_len_at(buf, 12), 40);	/* kept whole */
	ck_assert_uint_eq(get_le32(buf + 12), 8);
	ck_assert_uint_eq(rec_len_at(buf, 52), BS - 52);
}
END_TEST

/* A hole of exactly the record's size is taken; one byte short is not. */
START_TEST(test_place_exact_and_full)
{
	uint8_t buf[BS] = { 0 };
	uint32_t off = 0;

	/* 63 records of 16 bytes, then one of 16 + 16 = 32: room for one
	 * 16-byte record (an 8-byte name) exactly */
	for (int i = 0; i < 62; i++, off += 16)
		ck_assert_int_eq(extkit_dirent_set(&fmt1k, buf + off, 10 + i,
						   16, "abcdefgh", 8, 1), 0);
	ck_assert_int_eq(extkit_dirent_set(&fmt1k, buf + off, 99, BS - off,
					   "abcdefgh", 8, 1), 0);
	ck_assert_int_eq(extkit_dir_leaf_place(&fmt1k, buf, "123456789", 9,
					       5, 1), -ENOSPC);
	ck_assert_int_eq(extkit_dir_leaf_place(&fmt1k, buf, "12345678", 8, 5,
					       1), (int)off + 16);
	ck_assert_int_eq(extkit_dir_leaf_place(&fmt1k, buf, "x", 1, 5, 1),
			 -ENOSPC);
}
END_TEST

START_TEST(test_place_corrupt)
{
	uint8_t buf[BS] = { 0 };

	ck_assert_int_eq(extkit_dirent_set(&fmt1k, buf, 5, 12, "a", 1, 1), 0);
	/* the next record's rec_len is 0: the chain is broken */
	ck_assert_int_eq(extkit_dir_leaf_place(&fmt1k, buf, "b", 1, 6, 1),
			 -EFSCORRUPTED);
}
END_TEST

static struct extkit_fs *open_image(uint32_t compat, struct extkit_io **io)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.blocks = 8192;
	o.inodes_per_group = 2048;
	o.compat |= compat;
	*io = test_image_make(&o);
	return test_image_open(*io);
}

/* A new leaf under metadata_csum: one free record up to the tail, the
 * tail, a checksum that verifies; the inode grows by a block. */
START_TEST(test_append_with_tail)
{
	struct extkit_dirspace ds;
	struct extkit_inode in;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(0, &io);
	uint8_t buf[BS];
	uint64_t lblk = 99, free0;

	fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	free0 = fs->sb.free_blocks_count;
	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT, 0), 0);
	ck_assert_uint_eq(ds.fmt.tail_len, 12);
	ck_assert_int_eq(extkit_dir_leaf_append(&ds, &lblk), 0);
	ck_assert_uint_eq(lblk, 1);
	ck_assert_uint_eq(free0 - fs->sb.free_blocks_count, 1);
	ck_assert_uint_eq(extkit_dirspace_room(&ds, 1), BS - 12);
	ck_assert_int_eq(extkit_inode_read(fs, ROOT, &in), 0);
	ck_assert_uint_eq(in.size, 2 * BS);
	ck_assert_uint_ne(in.block[1], 0);
	ck_assert_int_eq(extkit_io_read_blocks(io, in.block[1], 1, buf), 0);
	ck_assert_uint_eq(get_le32(buf), 0);
	ck_assert_uint_eq(extkit_dirent_rec_len(&ds.fmt, buf), BS - 12);
	ck_assert(extkit_dirent_is_tail(buf + BS - 12));
	ck_assert_int_eq(extkit_dirblock_csum_verify(fs, ROOT, in.generation,
						     buf), 1);
	buf[100] ^= 1;
	ck_assert_int_eq(extkit_dirblock_csum_verify(fs, ROOT, in.generation,
						     buf), 0);
	extkit_dirspace_free(&ds);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

static void make_name(char *buf, unsigned int n)
{
	snprintf(buf, 64, "name_%05u_with_some_length_%u", n, n * 7919 % 1000);
}

static void add_names(struct extkit_fs *fs, unsigned int from,
		      unsigned int to)
{
	struct extkit_dirspace ds;
	char name[64];

	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT, 0), 0);
	for (unsigned int i = from; i < to; i++) {
		make_name(name, i);
		ck_assert_int_eq(extkit_dir_add(&ds, name,
						(uint32_t)strlen(name),
						20 + i % 1000,
						EXT2_FT_REG_FILE, NULL), 0);
	}
	extkit_dirspace_free(&ds);
}

static void check_index(struct extkit_fs *fs, uint64_t entries,
			struct extkit_htree_report *rep)
{
	struct extkit_inode in;

	ck_assert_int_eq(extkit_inode_read(fs, ROOT, &in), 0);
	ck_assert(in.flags & EXT2_INDEX_FL);
	memset(rep, 0, sizeof(*rep));
	ck_assert_int_eq(extkit_htree_verify(fs, ROOT, rep), 0);
	ck_assert_uint_eq(rep->bad_hash, 0);
	ck_assert_uint_eq(rep->bad_index, 0);
	ck_assert_uint_eq(rep->bad_node, 0);
	ck_assert_uint_eq(rep->entries, entries);
}

/* Names added to an indexed directory go through the index: it stays
 * sound, leaves split, and every name is found. */
START_TEST(test_dx_add_keeps_index)
{
	struct extkit_compact_result res;
	struct extkit_htree_report rep;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(EXT2_FEATURE_COMPAT_DIR_INDEX, &io);
	uint64_t leaves;
	char name[64];
	uint32_t ino;

	add_names(fs, 0, 200);
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(extkit_dir_compact(fs, ROOT, &res), 0);
	ck_assert_int_ne(res.indexed, 0);
	check_index(fs, 200, &rep);	/* . and .. are the root's */
	leaves = rep.leaves;
	add_names(fs, 200, 1200);
	check_index(fs, 1200, &rep);
	ck_assert_uint_gt(rep.leaves, leaves);
	for (unsigned int i = 0; i < 1200; i++) {
		make_name(name, i);
		ck_assert_int_eq(extkit_dir_lookup(fs, ROOT, name,
						   (uint32_t)strlen(name),
						   &ino), 0);
		ck_assert_uint_eq(ino, 20 + i % 1000);
	}
	ck_assert_int_eq(extkit_dir_lookup(fs, ROOT, "absent", 6, &ino),
			 -ENOENT);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

Suite *diradd_suite(void)
{
	Suite *s = suite_create("diradd");
	TCase *tc = tcase_create("leaf");
	TCase *dx = tcase_create("dx");

	tcase_add_test(tc, test_place_split);
	tcase_add_test(tc, test_place_reuse);
	tcase_add_test(tc, test_place_exact_and_full);
	tcase_add_test(tc, test_place_corrupt);
	tcase_add_test(tc, test_append_with_tail);
	suite_add_tcase(s, tc);
	tcase_add_test(dx, test_dx_add_keeps_index);
	suite_add_tcase(s, dx);
	return s;
}
