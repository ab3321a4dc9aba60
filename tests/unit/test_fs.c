// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for fs.c, the filesystem handle: opening (an image too small
 * for a superblock, a bad magic, a backup superblock), block access that
 * refuses numbers outside the filesystem, writing the superblock and
 * descriptors to every backup group (s_block_group_nr per copy, the
 * primary written last), the superblock alone (extkit_fs_write_supers,
 * descriptors untouched), a write refused whole when a backup lies past
 * the end of the target, and the descriptor blocks of a classic layout.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "io.h"
#include "ondisk.h"
#include "suites.h"

#define BS	1024u
#define BPG	2048u
#define GROUPS	4u

struct tfs {
	struct extkit_io *io;
	struct extkit_fs *fs;
};

/* Four groups of 2048 1 KiB blocks, no sparse_super: a superblock and
 * descriptor copy in every group. */
static void tfs_open(struct tfs *t)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.blocks = GROUPS * BPG;
	o.blocks_per_group = BPG;
	o.inodes_per_group = 128;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	ck_assert_uint_eq(t->fs->g.group_count, GROUPS);
}

static void tfs_close(struct tfs *t)
{
	if (t->fs)
		extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

static const uint8_t *img(struct tfs *t)
{
	return extkit_io_mem_buffer(t->io);
}

/* The superblock copy of group g (1 KiB blocks: block g * BPG + 1). */
static const struct ext2_super_block *sb_copy(struct tfs *t, uint32_t g)
{
	return (const void *)(img(t) + ((size_t)g * BPG + 1) * BS);
}

START_TEST(test_write_super_backups)
{
	struct tfs t;

	tfs_open(&t);
	t.fs->sb.mnt_count = 17;
	ck_assert_int_eq(extkit_fs_write_super(t.fs), 0);
	for (uint32_t g = 0; g < GROUPS; g++) {
		const struct ext2_super_block *s = sb_copy(&t, g);

		ck_assert_uint_eq(le16(s->s_magic), EXT2_SUPER_MAGIC);
		ck_assert_uint_eq(le16(s->s_mnt_count), 17);
		ck_assert_uint_eq(le16(s->s_block_group_nr), g);
		/* the descriptor block after it is the primary's */
		ck_assert_mem_eq(img(&t) + ((size_t)g * BPG + 2) * BS,
				 img(&t) + 2 * BS, BS);
	}
	tfs_close(&t);
}
END_TEST

START_TEST(test_write_supers_keeps_descriptors)
{
	uint8_t before[BS];
	struct tfs t;

	tfs_open(&t);
	memcpy(before, img(&t) + (BPG + 2) * BS, BS);
	t.fs->groups[0].free_inodes--;	/* in memory only */
	t.fs->sb.mnt_count = 5;
	ck_assert_int_eq(extkit_fs_write_supers(t.fs), 0);
	ck_assert_uint_eq(le16(sb_copy(&t, 3)->s_mnt_count), 5);
	ck_assert_mem_eq(img(&t) + (BPG + 2) * BS, before, BS);
	tfs_close(&t);
}
END_TEST

/* The primary superblock alone: no backup, no descriptor written. */
START_TEST(test_write_primary_only)
{
	uint8_t *before;
	struct tfs t;

	tfs_open(&t);
	before = malloc(t.io->size);
	ck_assert_ptr_nonnull(before);
	memcpy(before, img(&t), t.io->size);
	t.fs->sb.mnt_count = 9;
	t.fs->groups[0].free_inodes--;	/* in memory only */
	ck_assert_int_eq(extkit_fs_write_primary_super(t.fs), 0);
	ck_assert_uint_eq(le16(sb_copy(&t, 0)->s_mnt_count), 9);
	/* all but the primary's 1 KiB as it was */
	ck_assert_mem_eq(img(&t), before, 1024);
	ck_assert_mem_eq(img(&t) + 2048, before + 2048, t.io->size - 2048);
	free(before);
	tfs_close(&t);
}
END_TEST

/* s_kbytes_written: what the io wrote since the last call plus the
 * superblock about to be written, when somebody counts (not 0). */
START_TEST(test_kbytes_written)
{
	uint8_t buf[BS] = { 0 };
	struct tfs t;

	tfs_open(&t);
	extkit_fs_set_kbytes_written(t.fs, 0);
	ck_assert_int_eq(extkit_fs_write_block(t.fs, 3000, buf), 0);
	extkit_fs_add_kbytes_written(t.fs);
	ck_assert_uint_eq(le64(t.fs->raw_sb.s_kbytes_written), 0);
	extkit_fs_set_kbytes_written(t.fs, 1);
	ck_assert_uint_eq(le64(t.fs->raw_sb.s_kbytes_written), 1);
	extkit_fs_add_kbytes_written(t.fs);	/* taken by the call above */
	ck_assert_uint_eq(le64(t.fs->raw_sb.s_kbytes_written), 1);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(extkit_fs_write_block(t.fs, 3000 + i, buf),
				 0);
	extkit_fs_add_kbytes_written(t.fs);
	ck_assert_uint_eq(le64(t.fs->raw_sb.s_kbytes_written), 1 + 4 + 1);
	ck_assert_int_eq(extkit_fs_write_super(t.fs), 0);
	ck_assert_uint_eq(le64(sb_copy(&t, 0)->s_kbytes_written), 6);
	tfs_close(&t);
}
END_TEST

START_TEST(test_write_refused_past_end)
{
	uint8_t before[3 * BS], desc1[BS];
	struct tfs t;

	tfs_open(&t);
	memcpy(before, img(&t), sizeof(before));
	memcpy(desc1, img(&t) + (BPG + 2) * BS, BS);
	/* the target ends inside the last group: its backup cannot go */
	t.io->size = (uint64_t)(3 * BPG) * BS;
	t.fs->sb.mnt_count = 9;
	t.fs->groups[0].free_inodes--;
	ck_assert_int_eq(extkit_fs_write_super(t.fs), -EXTKIT_ETRUNC);
	/* nothing was written: not the primary, not group 1's copies */
	ck_assert_mem_eq(img(&t), before, sizeof(before));
	ck_assert_mem_eq(img(&t) + (BPG + 2) * BS, desc1, BS);
	ck_assert_uint_ne(le16(sb_copy(&t, 1)->s_mnt_count), 9);
	t.io->size = (uint64_t)GROUPS * BPG * BS;
	tfs_close(&t);
}
END_TEST

START_TEST(test_block_bounds)
{
	uint8_t buf[BS];
	struct tfs t;

	tfs_open(&t);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, GROUPS * BPG - 1, buf), 0);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, GROUPS * BPG, buf),
			 -EFSCORRUPTED);
	ck_assert_int_eq(extkit_fs_write_block(t.fs, GROUPS * BPG, buf),
			 -EFSCORRUPTED);
	ck_assert(extkit_fs_valid_block(t.fs, 1));
	ck_assert(!extkit_fs_valid_block(t.fs, 0));	/* 1 KiB: block 0 */
	ck_assert(!extkit_fs_valid_block(t.fs, GROUPS * BPG));
	ck_assert_uint_eq(extkit_fs_desc_block(t.fs, 0), 2);
	tfs_close(&t);
}
END_TEST

START_TEST(test_open_refusals)
{
	struct extkit_fs *fs = NULL;
	struct extkit_io *io;
	const char *why = NULL;
	uint8_t *small = calloc(1, 1536);
	struct tfs t;

	ck_assert_ptr_nonnull(small);
	ck_assert_int_eq(extkit_io_open_mem(small, 1536, 0, &io), 0);
	ck_assert_int_eq(extkit_fs_open_io(io, 0, 0, 0, &fs, &why),
			 -EXTKIT_ENOTEXT);
	ck_assert_ptr_null(fs);
	ck_assert_ptr_nonnull(why);
	extkit_io_close(io);
	free(small);

	tfs_open(&t);
	extkit_fs_close(t.fs);
	t.fs = NULL;
	/* a backup superblock opens the filesystem */
	((uint8_t *)extkit_io_mem_buffer(t.io))[1024 + 56] ^= 0xff;
	why = NULL;
	ck_assert_int_lt(extkit_fs_open_io(t.io, 0, 0, 0, &fs, &why), 0);
	ck_assert_ptr_null(fs);
	ck_assert_int_eq(extkit_fs_open_io(t.io, 0, BPG + 1, BS, &fs, &why),
			 0);
	ck_assert_uint_eq(fs->sb.blocks_count, GROUPS * BPG);
	extkit_fs_close(fs);
	tfs_close(&t);
}
END_TEST

Suite *fs_suite(void)
{
	Suite *s = suite_create("fs");
	TCase *tc = tcase_create("fs");

	tcase_add_test(tc, test_write_super_backups);
	tcase_add_test(tc, test_write_supers_keeps_descriptors);
	tcase_add_test(tc, test_write_refused_past_end);
	tcase_add_test(tc, test_write_primary_only);
	tcase_add_test(tc, test_kbytes_written);
	tcase_add_test(tc, test_block_bounds);
	tcase_add_test(tc, test_open_refusals);
	suite_add_tcase(s, tc);
	return s;
}
