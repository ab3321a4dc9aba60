// SPDX-License-Identifier: GPL-2.0-or-later
/* io: bounds, block mapping, read-only refusal, growth of owned buffers,
 * the read window. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "io.h"
#include "suites.h"

START_TEST(test_mem_bounds)
{
	unsigned char buf[4096], out[16];
	struct extkit_io *io;

	memset(buf, 0xab, sizeof(buf));
	ck_assert_int_eq(extkit_io_open_mem(buf, sizeof(buf), 0, &io), 0);
	ck_assert_int_eq(extkit_io_read_bytes(io, 4080, out, 16), 0);
	ck_assert_int_eq(out[15], 0xab);
	ck_assert_int_eq(extkit_io_read_bytes(io, 4081, out, 16),
			 -EXTKIT_ETRUNC);
	ck_assert_int_eq(extkit_io_read_bytes(io, UINT64_MAX - 4, out, 16),
			 -EXTKIT_ETRUNC);
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, out, 16), -EROFS);
	io->block_size = 1024;
	ck_assert_int_eq(extkit_io_read_blocks(io, 3, 1, buf), 0);
	ck_assert_int_eq(extkit_io_read_blocks(io, 4, 1, buf),
			 -EXTKIT_ETRUNC);
	ck_assert_int_eq(extkit_io_read_blocks(io, UINT64_MAX / 2, 1, buf),
			 -EXTKIT_ETRUNC);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_mem_owned_grow)
{
	struct extkit_io *io;
	unsigned char b[8] = "abcdefg";

	ck_assert_int_eq(extkit_io_open_mem_owned(16, &io), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 8, b, 8), 0);
	ck_assert_int_eq(extkit_io_set_size(io, 64), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 56, b, 8), 0);
	ck_assert_int_eq(extkit_io_zero_bytes(io, 8, 4), 0);
	ck_assert_int_eq(((unsigned char *)extkit_io_mem_buffer(io))[12], 'e');
	ck_assert_int_eq(((unsigned char *)extkit_io_mem_buffer(io))[8], 0);
	extkit_io_close(io);
}
END_TEST

/* The write count: every write, zeroing and resize that reached the
 * backend; refused calls (read-only, out of range) are not counted. */
START_TEST(test_write_count)
{
	unsigned char buf[4096], b[8] = "abcdefg";
	struct extkit_io *io;

	ck_assert_int_eq(extkit_io_open_mem(buf, sizeof(buf), 0, &io), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, b, 8), -EROFS);
	ck_assert_uint_eq(extkit_io_writes(io), 0);
	extkit_io_close(io);

	ck_assert_int_eq(extkit_io_open_mem_owned(16, &io), 0);
	ck_assert_uint_eq(extkit_io_writes(io), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 12, b, 8), -EXTKIT_ETRUNC);
	ck_assert_uint_eq(extkit_io_writes(io), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 8, b, 8), 0);
	ck_assert_int_eq(extkit_io_zero_bytes(io, 0, 4), 0);
	ck_assert_int_eq(extkit_io_set_size(io, 64), 0);
	ck_assert_uint_eq(extkit_io_writes(io), 3);
	io->block_size = 16;
	ck_assert_int_eq(extkit_io_write_blocks(io, 1, 2, buf), 0);
	ck_assert_uint_eq(extkit_io_writes(io), 4);
	extkit_io_close(io);
	ck_assert_uint_eq(extkit_io_writes(NULL), 0);
}
END_TEST

/* Bytes written: counted by data writes (not zeroing), and by writers
 * around the io; taken once. No direct descriptor and no writeback for
 * memory: advisory, nothing happens. */
START_TEST(test_written_bytes)
{
	unsigned char b[100] = { 0 };
	struct extkit_io *io;

	ck_assert_int_eq(extkit_io_open_mem_owned(4096, &io), 0);
	ck_assert_uint_eq(extkit_io_take_written(io), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, b, 100), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 200, b, 50), 0);
	ck_assert_int_eq(extkit_io_zero_bytes(io, 1000, 500), 0);
	extkit_io_add_written(io, 7);
	ck_assert_uint_eq(extkit_io_take_written(io), 157);
	ck_assert_uint_eq(extkit_io_take_written(io), 0);
	ck_assert_int_eq(extkit_io_direct_fd(io), -EOPNOTSUPP);
	extkit_io_start_writeback(io, 0, 4096);
	ck_assert_uint_eq(extkit_io_writes(io), 3);
	extkit_io_close(io);
}
END_TEST

/*
 * The read windows: random reads (sequential runs, repeats, parts of the
 * last read, reads past the end, reads after a prefetch) through them
 * return what direct reads return, also right after writes and a
 * resize; with the read-ahead thread too (its reads are taken or
 * dropped, never stale).
 */
static void readahead_model(int thread)
{
	enum { SIZE = 1 << 17 };
	uint8_t *model = malloc(SIZE), *got = malloc(70000);
	unsigned int seed = 16;
	struct extkit_io *io;
	uint64_t off = 0;

	ck_assert_ptr_nonnull(model);
	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(extkit_io_open_mem_owned(SIZE, &io), 0);
	for (size_t i = 0; i < SIZE; i++)
		model[i] = (uint8_t)rand_r(&seed);
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, model, SIZE), 0);
	ck_assert_int_eq(extkit_io_set_readahead(io, 65536), 0);
	ck_assert_int_eq(extkit_io_readahead_thread(io, thread), 0);
	/* A sequential run (the window grows; the thread reads ahead of
	 * it), a write just ahead of where it is, then the run goes on. */
	for (off = 0; off < SIZE / 2; off += 4096) {
		if (off == 7 * 4096) {
			for (size_t i = 0; i < 512; i++)
				model[off + 100 + i] = (uint8_t)rand_r(&seed);
			ck_assert_int_eq(extkit_io_write_bytes(io, off + 100,
					model + off + 100, 512), 0);
		}
		ck_assert_int_eq(extkit_io_read_bytes(io, off, got, 4096), 0);
		ck_assert_mem_eq(got, model + off, 4096);
	}
	for (int k = 0; k < 600; k++) {
		int what = rand_r(&seed) % 10;
		size_t len = 1 + (size_t)rand_r(&seed) % (what ? 4096 : 70000);

		if (what == 0 || what == 1)
			off = (uint64_t)rand_r(&seed) % SIZE;
		else if (what == 2 && off >= 100)
			off -= 100;	/* inside the last read */
		if (what == 3) {
			/* a write, maybe inside the window */
			len = len > 512 ? 512 : len;
			if (off + len > SIZE)
				off = SIZE - len;
			for (size_t i = 0; i < len; i++)
				model[off + i] = (uint8_t)rand_r(&seed);
			ck_assert_int_eq(extkit_io_write_bytes(io, off,
					model + off, len), 0);
			continue;
		}
		if (what == 4) {
			/* a prefetch around off, then reads inside it */
			uint64_t at = off > 300 ? off - 300 : 0;

			extkit_io_prefetch(io, at, 1 + (size_t)rand_r(&seed) %
					   65536);
		}
		if (off + len > SIZE) {
			ck_assert_int_eq(extkit_io_read_bytes(io, off, got,
							       len),
					 -EXTKIT_ETRUNC);
			off = 0;
			continue;
		}
		ck_assert_int_eq(extkit_io_read_bytes(io, off, got, len), 0);
		ck_assert_mem_eq(got, model + off, len);
		off += what >= 5 ? len : 0;	/* sequential */
	}
	/* shrinking drops the window: the end is gone */
	ck_assert_int_eq(extkit_io_read_bytes(io, SIZE - 4096, got, 4096), 0);
	ck_assert_int_eq(extkit_io_set_size(io, SIZE / 2), 0);
	ck_assert_int_eq(extkit_io_read_bytes(io, SIZE - 4096, got, 4096),
			 -EXTKIT_ETRUNC);
	extkit_io_close(io);
	free(model);
	free(got);
}

START_TEST(test_readahead_model)
{
	readahead_model(0);
}
END_TEST

START_TEST(test_readahead_thread_model)
{
	readahead_model(1);
}
END_TEST

START_TEST(test_strerror)
{
	ck_assert_str_eq(extkit_strerror(-EXTKIT_ENOTEXT),
			 "not an ext2/ext3/ext4 filesystem (bad magic number)");
	ck_assert_str_eq(extkit_strerror(-EFSCORRUPTED),
			 "filesystem metadata is corrupted");
}
END_TEST

Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("mem");

	tcase_add_test(tc, test_mem_bounds);
	tcase_add_test(tc, test_mem_owned_grow);
	tcase_add_test(tc, test_write_count);
	tcase_add_test(tc, test_written_bytes);
	tcase_add_test(tc, test_strerror);
	tcase_add_test(tc, test_readahead_model);
	tcase_add_test(tc, test_readahead_thread_model);
	suite_add_tcase(s, tc);
	return s;
}
