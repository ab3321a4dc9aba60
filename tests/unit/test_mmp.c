// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for mmp.c (multiple mount protection) and its use by fs.c:
 * a reset MMP block (magic, clean sequence, time, device name cut to 32
 * bytes, an interval of at least 5 s, its checksum under metadata_csum);
 * what extkit_mmp_damaged says of a bad magic, a bad checksum and a block
 * outside the filesystem; the sequence a writer keeps (start: fsck's,
 * which makes a second start refuse; stop: clean again); an invalid
 * sequence refused; and a writer's open and close taking and releasing
 * the block, a reader's leaving it alone.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "io.h"
#include "mmp.h"
#include "ondisk.h"
#include "suites.h"

#define BS	1024u
#define MMP_BLK	5000u

struct tm_fs {
	struct extkit_io *io;
	struct extkit_fs *fs;
};

static void open_mmp(struct tm_fs *t, int csum)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.blocks = 8192;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	t->fs->sb.feature_incompat |= EXT4_FEATURE_INCOMPAT_MMP;
	t->fs->sb.mmp_block = MMP_BLK;
	t->fs->sb.mmp_interval = 2;
	if (csum)
		t->fs->sb.feature_ro_compat |=
			EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	/* the encoder keeps these raw fields: for a reopen, set them too */
	t->fs->raw_sb.s_feature_incompat =
		cpu_to_le32(t->fs->sb.feature_incompat);
	t->fs->raw_sb.s_mmp_block = cpu_to_le64(MMP_BLK);
	t->fs->raw_sb.s_mmp_interval = cpu_to_le16(2);
}

static void close_mmp(struct tm_fs *t)
{
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

static uint8_t *raw_mmp(struct tm_fs *t)
{
	return (uint8_t *)extkit_io_mem_buffer(t->io) + (size_t)MMP_BLK * BS;
}

START_TEST(test_reset_fields)
{
	static const char dev[] = "a-device-name-longer-than-32-bytes-here";
	struct extkit_mmp m;
	struct tm_fs t;
	const char *why;

	open_mmp(&t, 0);
	/* nothing there yet: no magic */
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), -EFSCORRUPTED);
	ck_assert_int_eq(extkit_mmp_damaged(t.fs, &why), 1);
	ck_assert_str_eq(why, "bad magic");
	ck_assert_int_eq(extkit_mmp_reset_at(t.fs, dev, 1700000000), 0);
	ck_assert_uint_eq(get_le32(raw_mmp(&t)), EXT4_MMP_MAGIC);
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), 0);
	ck_assert_uint_eq(m.magic, EXT4_MMP_MAGIC);
	ck_assert_uint_eq(m.seq, EXT4_MMP_SEQ_CLEAN);
	ck_assert_uint_eq(m.time, 1700000000);
	ck_assert_uint_eq(m.check_interval, EXT4_MMP_MIN_CHECK_INTERVAL);
	ck_assert_uint_eq(strlen(m.bdevname), 32);
	ck_assert_mem_eq(m.bdevname, dev, 32);
	ck_assert_int_ne(m.csum_ok, 0);
	ck_assert_int_eq(extkit_mmp_damaged(t.fs, &why), 0);
	ck_assert_ptr_null(why);
	/* the rest of the block is zero */
	for (uint32_t i = sizeof(struct mmp_struct); i < BS; i++)
		ck_assert_uint_eq(raw_mmp(&t)[i], 0);
	close_mmp(&t);
}
END_TEST

START_TEST(test_checksum)
{
	struct extkit_mmp m;
	struct tm_fs t;
	const char *why;

	open_mmp(&t, 1);
	ck_assert_int_eq(extkit_mmp_reset(t.fs, "dev"), 0);
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), 0);
	ck_assert_int_ne(m.csum_ok, 0);
	ck_assert_uint_eq(m.time, 0);
	raw_mmp(&t)[offsetof(struct mmp_struct, mmp_nodename)] ^= 1;
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), 0);
	ck_assert_int_eq(m.csum_ok, 0);
	ck_assert_int_eq(extkit_mmp_damaged(t.fs, &why), 1);
	ck_assert_str_eq(why, "bad checksum");
	/* start writes a sequence with a good checksum again */
	ck_assert_int_eq(extkit_mmp_start(t.fs, &why), 0);
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), 0);
	ck_assert_int_ne(m.csum_ok, 0);
	close_mmp(&t);
}
END_TEST

START_TEST(test_outside)
{
	struct extkit_mmp m;
	struct tm_fs t;
	const char *why = "x";

	open_mmp(&t, 0);
	t.fs->sb.mmp_block = t.fs->sb.blocks_count;
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), -EFSCORRUPTED);
	ck_assert_int_eq(extkit_mmp_damaged(t.fs, &why), 0);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(extkit_mmp_reset(t.fs, "dev"), -EFSCORRUPTED);
	ck_assert_int_eq(extkit_mmp_check(t.fs, &why), -EFSCORRUPTED);
	t.fs->sb.mmp_block = t.fs->sb.first_data_block;
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), -EFSCORRUPTED);
	close_mmp(&t);
}
END_TEST

START_TEST(test_start_stop)
{
	struct extkit_mmp m;
	struct tm_fs t;
	const char *why = NULL;

	open_mmp(&t, 0);
	ck_assert_int_eq(extkit_mmp_reset(t.fs, "dev"), 0);
	ck_assert_int_eq(extkit_mmp_check(t.fs, &why), 0);
	ck_assert_int_eq(extkit_mmp_start(t.fs, &why), 0);
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), 0);
	ck_assert_uint_eq(m.seq, EXT4_MMP_SEQ_FSCK);
	ck_assert_uint_ne(m.nodename[0], 0);
	/* a second writer is refused */
	ck_assert_int_eq(extkit_mmp_start(t.fs, &why), -EBUSY);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(extkit_mmp_stop(t.fs), 0);
	ck_assert_int_eq(extkit_mmp_read(t.fs, &m), 0);
	ck_assert_uint_eq(m.seq, EXT4_MMP_SEQ_CLEAN);
	ck_assert_int_eq(extkit_mmp_check(t.fs, &why), 0);
	/* a sequence past the largest live one is no sequence */
	put_le32(raw_mmp(&t) + offsetof(struct mmp_struct, mmp_seq),
		 EXT4_MMP_SEQ_MAX + 2);	/* + 1 is fsck's */
	ck_assert_int_eq(extkit_mmp_check(t.fs, &why), -EFSCORRUPTED);
	close_mmp(&t);
}
END_TEST

static uint32_t seq_now(struct extkit_io *io)
{
	return get_le32((uint8_t *)extkit_io_mem_buffer(io) +
			(size_t)MMP_BLK * BS +
			offsetof(struct mmp_struct, mmp_seq));
}

/* fs.c: a writer's open takes the block, its close releases it; a
 * reader, or a writer with EXTKIT_FS_NO_MMP, does neither. */
START_TEST(test_fs_open_takes_block)
{
	struct extkit_fs *fs;
	const char *why = NULL;
	struct tm_fs t;

	open_mmp(&t, 0);
	ck_assert_int_eq(extkit_mmp_reset(t.fs, "dev"), 0);
	ck_assert_int_eq(extkit_fs_write_super(t.fs), 0);
	extkit_fs_close(t.fs);
	t.fs = NULL;
	ck_assert_msg(extkit_fs_open_io(t.io, EXTKIT_FS_WRITE, 0, 0, &fs,
					&why) == 0, "open: %s", why ? why : "");
	ck_assert_uint_eq(seq_now(t.io), EXT4_MMP_SEQ_FSCK);
	/* meanwhile another writer is refused */
	{
		struct extkit_fs *other = NULL;

		ck_assert_int_eq(extkit_fs_open_io(t.io, EXTKIT_FS_WRITE, 0, 0,
						   &other, &why), -EBUSY);
		ck_assert_ptr_null(other);
	}
	extkit_fs_close(fs);
	ck_assert_uint_eq(seq_now(t.io), EXT4_MMP_SEQ_CLEAN);
	ck_assert_int_eq(extkit_fs_open_io(t.io, 0, 0, 0, &fs, &why), 0);
	ck_assert_uint_eq(seq_now(t.io), EXT4_MMP_SEQ_CLEAN);
	extkit_fs_close(fs);
	ck_assert_int_eq(extkit_fs_open_io(t.io, EXTKIT_FS_WRITE |
					   EXTKIT_FS_NO_MMP, 0, 0, &fs, &why),
			 0);
	ck_assert_uint_eq(seq_now(t.io), EXT4_MMP_SEQ_CLEAN);
	extkit_fs_close(fs);
	extkit_io_close(t.io);
}
END_TEST

Suite *mmp_suite(void)
{
	Suite *s = suite_create("mmp");
	TCase *tc = tcase_create("mmp");

	tcase_add_test(tc, test_reset_fields);
	tcase_add_test(tc, test_checksum);
	tcase_add_test(tc, test_outside);
	tcase_add_test(tc, test_start_stop);
	tcase_add_test(tc, test_fs_open_takes_block);
	suite_add_tcase(s, tc);
	return s;
}
