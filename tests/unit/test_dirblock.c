// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for dirblock.c, directory block checksums: the tail record
 * (golden bytes), what reads as an htree root or node (and what does
 * not: a wrong info length, count over limit, a limit that leaves no
 * room for the dx_tail), a leaf's checksum and an index block's, each
 * tied to the directory's inode and generation, the leaf-only check of a
 * directory without an index, a block with no place for a checksum, and
 * the write that stores the checksum first.
 */
#include "config.h"

#include <string.h>

#include "dirblock.h"
#include "direntry.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "io.h"
#include "ondisk.h"
#include "suites.h"

#define BS	1024u
#define INO	12u
#define GEN	34u

struct tdb {
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_dir_format fmt;
};

static void tdb_open(struct tdb *t)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	t->fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	extkit_dir_format_init(t->fs, &t->fmt);
}

static void tdb_close(struct tdb *t)
{
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

/* A leaf: one record up to the tail, and the tail. */
static void leaf(struct tdb *t, uint8_t *buf)
{
	memset(buf, 0, BS);
	ck_assert_int_eq(extkit_dirent_set(&t->fmt, buf, 20, BS - 12, "file",
					   4, EXT2_FT_REG_FILE), 0);
	extkit_dirblock_init_tail(t->fs, buf);
}

/* An htree root: '.', '..' over the rest, dx_root_info, one entry. */
static void dx_root(struct tdb *t, uint8_t *buf)
{
	memset(buf, 0, BS);
	ck_assert_int_eq(extkit_dirent_set(&t->fmt, buf, INO, 12, ".", 1,
					   EXT2_FT_DIR), 0);
	ck_assert_int_eq(extkit_dirent_set(&t->fmt, buf + 12, 2, BS - 12,
					   "..", 2, EXT2_FT_DIR), 0);
	buf[24 + 5] = 8;			/* info_length */
	put_le16(buf + 32, (BS - 32 - 8) / 8);	/* limit, room for the tail */
	put_le16(buf + 34, 1);			/* count */
	put_le32(buf + 36, 1);			/* block */
}

START_TEST(test_tail_golden)
{
	static const uint8_t want[12] = { 0, 0, 0, 0, 12, 0, 0, 0xde,
					  0, 0, 0, 0 };
	uint8_t buf[BS];
	struct tdb t;

	tdb_open(&t);
	memset(buf, 0xaa, BS);
	ck_assert(!extkit_dirblock_has_tail(t.fs, buf));
	extkit_dirblock_init_tail(t.fs, buf);
	ck_assert_mem_eq(buf + BS - 12, want, 12);
	ck_assert(extkit_dirblock_has_tail(t.fs, buf));
	ck_assert_uint_eq(buf[BS - 13], 0xaa);	/* nothing before it */
	tdb_close(&t);
}
END_TEST

START_TEST(test_dx_shapes)
{
	uint8_t buf[BS];
	struct tdb t;

	tdb_open(&t);
	dx_root(&t, buf);
	ck_assert(extkit_dirblock_is_dx_root(t.fs, buf));
	ck_assert(extkit_dirblock_is_dx(t.fs, buf));
	buf[29] = 7;				/* info_length */
	ck_assert(!extkit_dirblock_is_dx(t.fs, buf));
	dx_root(&t, buf);
	put_le16(buf + 34, (BS - 40) / 8 + 1);	/* count over limit */
	ck_assert(!extkit_dirblock_is_dx(t.fs, buf));
	dx_root(&t, buf);
	put_le16(buf + 32, (BS - 32) / 8);	/* no room for the dx_tail */
	ck_assert(!extkit_dirblock_is_dx(t.fs, buf));
	/* a node: one empty record over the block, count/limit at 8 */
	memset(buf, 0, BS);
	ck_assert_int_eq(extkit_dirent_set_rec_len(&t.fmt, buf, BS), 0);
	put_le16(buf + 8, (BS - 8 - 8) / 8);
	put_le16(buf + 10, 1);
	ck_assert(extkit_dirblock_is_dx(t.fs, buf));
	ck_assert(!extkit_dirblock_is_dx_root(t.fs, buf));
	leaf(&t, buf);
	ck_assert(!extkit_dirblock_is_dx(t.fs, buf));
	tdb_close(&t);
}
END_TEST

START_TEST(test_leaf_csum)
{
	uint32_t stored, want;
	uint8_t buf[BS];
	struct tdb t;

	tdb_open(&t);
	leaf(&t, buf);
	ck_assert_int_eq(extkit_dirblock_csum_set(t.fs, INO, GEN, buf), 0);
	ck_assert_uint_ne(get_le32(buf + BS - 4), 0);
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN, buf), 1);
	ck_assert_int_eq(extkit_dirblock_leaf_csum_verify(t.fs, INO, GEN,
							  buf), 1);
	/* another directory, another generation, a changed byte */
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO + 1, GEN, buf),
			 0);
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN + 1, buf),
			 0);
	buf[20] ^= 1;
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN, buf), 0);
	/* stored and wanted: the same once the byte is back, apart when
	 * it changes */
	buf[20] ^= 1;
	ck_assert_int_eq(extkit_dirblock_csum_get(t.fs, INO, GEN, buf, &stored,
						  &want), 0);
	ck_assert_uint_eq(stored, get_le32(buf + BS - 4));
	ck_assert_uint_eq(want, stored);
	buf[20] ^= 1;
	ck_assert_int_eq(extkit_dirblock_csum_get(t.fs, INO, GEN, buf, &stored,
						  &want), 0);
	ck_assert_uint_ne(want, stored);
	/* no tail: no place for a checksum */
	memset(buf, 0, BS);
	ck_assert_int_eq(extkit_dirent_set(&t.fmt, buf, 20, BS, "f", 1, 1), 0);
	ck_assert_int_eq(extkit_dirblock_csum_get(t.fs, INO, GEN, buf, &stored,
						  &want), -ENOSPC);
	memset(buf, 0, BS);
	ck_assert_int_eq(extkit_dirent_set(&t.fmt, buf, 20, BS, "f", 1, 1), 0);
	ck_assert_int_eq(extkit_dirblock_csum_set(t.fs, INO, GEN, buf),
			 -ENOSPC);
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN, buf),
			 -ENOSPC);
	tdb_close(&t);
}
END_TEST

START_TEST(test_dx_csum)
{
	uint32_t stored, want;
	uint8_t buf[BS];
	uint32_t tail = 32 + ((BS - 40) / 8) * 8;
	struct tdb t;

	tdb_open(&t);
	dx_root(&t, buf);
	ck_assert_int_eq(extkit_dirblock_csum_set(t.fs, INO, GEN, buf), 0);
	/* dx_tail after the limit's entries: dt_reserved, dt_checksum */
	ck_assert_uint_ne(get_le32(buf + tail + 4), 0);
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN, buf), 1);
	ck_assert_int_eq(extkit_dirblock_csum_get(t.fs, INO, GEN, buf, &stored,
						  &want), 0);
	ck_assert_uint_eq(stored, get_le32(buf + tail + 4));
	ck_assert_uint_eq(want, stored);
	/* bytes past the count's entries are not summed */
	buf[48] ^= 1;
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN, buf), 1);
	buf[36] ^= 1;				/* the used entry is */
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN, buf), 0);
	buf[36] ^= 1;
	/* a directory without an index reads the root as a leaf: it has
	 * no tail record there */
	ck_assert_int_eq(extkit_dirblock_leaf_csum_verify(t.fs, INO, GEN,
							  buf), -ENOSPC);
	tdb_close(&t);
}
END_TEST

START_TEST(test_write_sets_csum)
{
	uint8_t buf[BS], back[BS];
	struct tdb t;

	tdb_open(&t);
	leaf(&t, buf);
	ck_assert_int_eq(extkit_dirblock_write(t.fs, INO, GEN, 5000, buf), 0);
	ck_assert_int_eq(extkit_io_read_blocks(t.io, 5000, 1, back), 0);
	ck_assert_int_eq(extkit_dirblock_csum_verify(t.fs, INO, GEN, back), 1);
	/* without metadata_csum the block goes as it is */
	t.fs->sb.feature_ro_compat &= ~EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	leaf(&t, buf);
	ck_assert_int_eq(extkit_dirblock_write(t.fs, INO, GEN, 5001, buf), 0);
	ck_assert_int_eq(extkit_io_read_blocks(t.io, 5001, 1, back), 0);
	ck_assert_uint_eq(get_le32(back + BS - 4), 0);
	tdb_close(&t);
}
END_TEST

Suite *dirblock_suite(void)
{
	Suite *s = suite_create("dirblock");
	TCase *tc = tcase_create("dirblock");

	tcase_add_test(tc, test_tail_golden);
	tcase_add_test(tc, test_dx_shapes);
	tcase_add_test(tc, test_leaf_csum);
	tcase_add_test(tc, test_dx_csum);
	tcase_add_test(tc, test_write_sets_csum);
	suite_add_tcase(s, tc);
	return s;
}
