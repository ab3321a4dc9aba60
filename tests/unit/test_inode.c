// SPDX-License-Identifier: GPL-2.0-or-later
/* Inodes: codec for 128..block-size inodes, location, helpers. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "image.h"
#include "inode.h"
#include "suites.h"

START_TEST(test_codec_golden)
{
	uint8_t raw[256];
	struct extkit_inode m;

	memset(raw, 0, sizeof(raw));
	put_le16(raw + 0x0, S_IFREG | 0644);
	put_le32(raw + 0x4, 0x1000);		/* i_size_lo */
	put_le32(raw + 0x6C, 0x2);		/* i_size_high */
	put_le16(raw + 0x78, 0x7);		/* l_i_uid_high */
	put_le16(raw + 0x2, 0x8);		/* i_uid */
	put_le32(raw + 0x28, 1234);		/* i_block[0] */
	put_le16(raw + 0x80, 32);		/* i_extra_isize */
	put_le32(raw + 0x90, 0xcafe);		/* i_crtime */
	extkit_inode_decode(raw, 256, &m);
	ck_assert_uint_eq(m.size, 0x200001000ull);
	ck_assert_uint_eq(m.uid, 0x70008);
	ck_assert_uint_eq(m.block[0], 1234);
	ck_assert_uint_eq(m.crtime, 0xcafe);
	/* a 128-byte inode has no extra fields even if bytes follow */
	extkit_inode_decode(raw, 128, &m);
	ck_assert_uint_eq(m.crtime, 0);
	ck_assert_uint_eq(m.extra_isize, 0);
	/* i_extra_isize too small to hold crtime */
	put_le16(raw + 0x80, 4);
	extkit_inode_decode(raw, 256, &m);
	ck_assert_uint_eq(m.crtime, 0);
	/* encode keeps unknown bytes */
	raw[200] = 0x42;
	m.links_count = 3;
	extkit_inode_encode(&m, 256, raw);
	ck_assert_uint_eq(get_le16(raw + 0x1A), 3);
	ck_assert_uint_eq(raw[200], 0x42);
}
END_TEST

static void roundtrip_size(uint32_t block_size, uint32_t inode_size)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_inode in, out;

	test_image_defaults(&o);
	o.block_size = block_size;
	o.inode_size = inode_size;
	o.blocks = block_size >= 16384 ? 64 : 2048;
	o.inodes_per_group = 64;
	io = test_image_make(&o);
	fs = test_image_open(io);
	memset(&in, 0, sizeof(in));
	in.mode = S_IFREG | 0600;
	in.size = 5;
	in.links_count = 1;
	in.extra_isize = inode_size > 128 ? 32 : 0;
	in.crtime = 77;
	for (uint32_t ino = 12; ino <= 64; ino += 13) {
		in.generation = ino;
		ck_assert_int_eq(extkit_inode_write(fs, ino, &in), 0);
	}
	for (uint32_t ino = 12; ino <= 64; ino += 13) {
		ck_assert_int_eq(extkit_inode_read(fs, ino, &out), 0);
		ck_assert_uint_eq(out.generation, ino);
		ck_assert_uint_eq(out.crtime, inode_size > 128 ? 77 : 0);
	}
	ck_assert_int_eq(extkit_inode_read(fs, 0, &out), -EINVAL);
	ck_assert_int_eq(extkit_inode_read(fs, 65, &out), -EINVAL);
	ck_assert_int_eq(extkit_inode_read(fs, EXT2_ROOT_INO, &out), 0);
	ck_assert(extkit_inode_is_dir(&out));
	extkit_fs_close(fs);
	extkit_io_close(io);
}

START_TEST(test_sizes)
{
	roundtrip_size(1024, 128);
	roundtrip_size(1024, 256);
	roundtrip_size(1024, 1024);
	roundtrip_size(4096, 512);
	roundtrip_size(65536, 256);
	roundtrip_size(65536, 32768);	/* s_inode_size is 16 bits */
}
END_TEST

START_TEST(test_helpers)
{
	struct extkit_inode in;

	memset(&in, 0, sizeof(in));
	in.mode = S_IFLNK | 0777;
	in.size = 10;
	ck_assert(!extkit_inode_has_block_map(&in));
	in.size = 100;
	ck_assert(extkit_inode_has_block_map(&in));
	in.mode = S_IFCHR;
	ck_assert(!extkit_inode_has_block_map(&in));
	ck_assert_uint_eq(extkit_mode_to_ftype(S_IFSOCK), EXT2_FT_SOCK);
	ck_assert_uint_eq(extkit_mode_to_ftype(0170000), EXT2_FT_UNKNOWN);
	ck_assert_int_eq(extkit_ftype_char(EXT2_FT_DIR), 'd');
}
END_TEST

/* Times: signed seconds, the epoch bits and nanoseconds of _extra, no
 * crtime in a small inode, dtime unsigned. Offsets from inodes.rst. */
START_TEST(test_times)
{
	struct extkit_inode_time t;
	uint8_t raw[256];

	memset(raw, 0, sizeof(raw));
	put_le32(raw + 0x10, 0x80000000);	/* i_mtime: negative alone */
	put_le32(raw + 0x14, 0xfffffff0);	/* i_dtime */
	put_le16(raw + 0x80, 32);		/* i_extra_isize */
	put_le32(raw + 0x88, (123456789u << 2) | 1);	/* i_mtime_extra */
	put_le32(raw + 0x90, 1700000000);	/* i_crtime */
	put_le32(raw + 0x94, 5u << 2);		/* i_crtime_extra */
	ck_assert_int_eq(extkit_inode_time_get(raw, 256, EXTKIT_TIME_MTIME,
					       &t), 0);
	ck_assert_int_eq(t.sec, -0x80000000ll + 0x100000000ll);
	ck_assert_uint_eq(t.nsec, 123456789);
	ck_assert_int_eq(t.has_extra, 1);
	ck_assert_int_eq(extkit_inode_time_get(raw, 256, EXTKIT_TIME_CRTIME,
					       &t), 0);
	ck_assert_int_eq(t.sec, 1700000000);
	ck_assert_uint_eq(t.nsec, 5);
	ck_assert_int_eq(extkit_inode_time_get(raw, 256, EXTKIT_TIME_DTIME,
					       &t), 0);
	ck_assert_int_eq(t.sec, 0xfffffff0ll);
	ck_assert_int_eq(t.has_extra, 0);
	/* a 128-byte inode: no extra word, no crtime */
	ck_assert_int_eq(extkit_inode_time_get(raw, 128, EXTKIT_TIME_MTIME,
					       &t), 0);
	ck_assert_int_eq(t.sec, -0x80000000ll);
	ck_assert_int_eq(t.has_extra, 0);
	ck_assert_int_eq(extkit_inode_time_get(raw, 128, EXTKIT_TIME_CRTIME,
					       &t), -ENOENT);
	/* i_extra_isize 4: the extra words are not there */
	put_le16(raw + 0x80, 4);
	ck_assert_int_eq(extkit_inode_time_get(raw, 256, EXTKIT_TIME_MTIME,
					       &t), 0);
	ck_assert_int_eq(t.has_extra, 0);
	ck_assert_int_eq(extkit_inode_time_get(raw, 256, EXTKIT_TIME_CRTIME,
					       &t), -ENOENT);
}
END_TEST

/* Times written back read the same: 34-bit seconds and nanoseconds
 * where the extra word is, seconds alone where not, -ENOENT where the
 * field is not there. */
START_TEST(test_time_set)
{
	static const int64_t secs[] = { 0, 1700000000, -1, -0x80000000ll,
					 0x17fffffffll, 0x37fffffffll };
	static const enum extkit_inode_time_field fields[] = {
		EXTKIT_TIME_ATIME, EXTKIT_TIME_CTIME, EXTKIT_TIME_MTIME,
		EXTKIT_TIME_CRTIME,
	};
	struct extkit_inode_time t, got;
	uint8_t raw[256], before[256];

	memset(raw, 0, sizeof(raw));
	put_le16(raw + 0x80, 32);		/* i_extra_isize */
	for (unsigned int f = 0; f < 4; f++)
		for (unsigned int i = 0; i < 6; i++) {
			t.sec = secs[i];
			t.nsec = 999999999u - i;
			t.has_extra = 0;
			ck_assert_int_eq(extkit_inode_time_set(raw, 256,
						fields[f], &t), 0);
			ck_assert_int_eq(extkit_inode_time_get(raw, 256,
						fields[f], &got), 0);
			ck_assert_int_eq(got.sec, t.sec);
			ck_assert_uint_eq(got.nsec, t.nsec);
			ck_assert_int_eq(got.has_extra, 1);
		}
	/* the low 32 bits where there is no extra word */
	t.sec = 0x1234567890ll;
	t.nsec = 5;
	ck_assert_int_eq(extkit_inode_time_set(raw, 128, EXTKIT_TIME_MTIME,
					       &t), 0);
	ck_assert_uint_eq(get_le32(raw + 0x10), 0x34567890u);
	ck_assert_int_eq(extkit_inode_time_set(raw, 128, EXTKIT_TIME_CRTIME,
					       &t), -ENOENT);
	/* dtime: its seconds only, nothing else moves */
	memcpy(before, raw, sizeof(raw));
	t.sec = 0xfffffff0ll;
	ck_assert_int_eq(extkit_inode_time_set(raw, 256, EXTKIT_TIME_DTIME,
					       &t), 0);
	ck_assert_uint_eq(get_le32(raw + 0x14), 0xfffffff0u);
	memcpy(before + 0x14, raw + 0x14, 4);
	ck_assert_mem_eq(raw, before, sizeof(raw));
}
END_TEST

START_TEST(test_set_links_raw)
{
	uint8_t raw[256], before[256];

	for (unsigned int i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(i * 3 + 1);
	memcpy(before, raw, sizeof(raw));
	extkit_inode_set_links_raw(raw, 0x1234);
	ck_assert_uint_eq(get_le16(raw + 26), 0x1234);	/* i_links_count */
	ck_assert_mem_eq(raw, before, 26);
	ck_assert_mem_eq(raw + 28, before + 28, sizeof(raw) - 28);
}
END_TEST

/* The stored fields at their ext4 offsets (inodes.rst): i_mode 0x0,
 * i_dtime 0x14, i_links_count 0x1A, i_obso_faddr 0x70, l_i_blocks_high
 * 0x74, l_i_file_acl_high 0x76, i_extra_isize 0x80 (past the core). */
static void stored_by_hand(uint8_t *raw, const struct extkit_inode_stored *st)
{
	put_le16(raw + 0x00, st->mode);
	put_le32(raw + 0x14, st->dtime);
	put_le16(raw + 0x1A, st->links_count);
	put_le32(raw + 0x70, st->faddr);
	put_le16(raw + 0x74, st->blocks_hi);
	put_le16(raw + 0x76, st->file_acl_hi);
	put_le16(raw + 0x80, st->extra_isize);
}

/* extkit_inode_stored_get/put against those offsets. */
START_TEST(test_stored_fields)
{
	/* static: zeroed padding, compared whole below */
	static const struct extkit_inode_stored a = {
		.mode = 040755, .links_count = 3, .dtime = 0x11223344,
		.faddr = 0x55667788, .blocks_hi = 0x99aa,
		.file_acl_hi = 0xbbcc, .extra_isize = 32,
	}, b = {
		.mode = 0100644, .links_count = 1, .dtime = 5,
		.file_acl_hi = 7, .extra_isize = 28,
	};
	uint8_t raw[256], want[256];
	struct extkit_inode_stored st;

	for (int i = 0; i < 256; i++)
		raw[i] = (uint8_t)(i * 7 + 1);
	memcpy(want, raw, sizeof(raw));
	stored_by_hand(raw, &a);
	memset(&st, 0, sizeof(st));
	extkit_inode_stored_get(raw, 256, &st);
	ck_assert_mem_eq(&st, &a, sizeof(st));
	/* a 128-byte inode has no i_extra_isize */
	extkit_inode_stored_get(raw, 128, &st);
	ck_assert_uint_eq(st.extra_isize, 0);
	/* put writes the seven fields and nothing else */
	memcpy(raw, want, sizeof(raw));
	extkit_inode_stored_put(&b, 256, raw);
	stored_by_hand(want, &b);
	ck_assert_mem_eq(raw, want, sizeof(raw));
	/* 128 bytes: the bytes past the core are not touched */
	extkit_inode_stored_put(&a, 128, raw);
	ck_assert_uint_eq(get_le16(raw + 0x80), 28);
	ck_assert_uint_eq(get_le16(raw + 0x74), 0x99aa);
}
END_TEST

Suite *inode_suite(void)
{
	Suite *s = suite_create("inode");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_codec_golden);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_helpers);
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_time_set);
	tcase_add_test(tc, test_set_links_raw);
	tcase_add_test(tc, test_stored_fields);
	suite_add_tcase(s, tc);
	return s;
}
