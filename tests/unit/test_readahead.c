// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for readahead.c, the read windows in front of an io: a
 * buffer-backed io whose bytes the test changes behind the io's back
 * shows what a window serves from memory. Reads of what was just read
 * come from the window; a write through the io drops what it overlaps;
 * sequential, random and large reads (with and without the read-ahead
 * thread) return what the image holds; a prefetch fills a window and a
 * prefetch larger than a window does nothing; a read past the end fails
 * as it does without a window.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "io.h"
#include "readahead.h"
#include "suites.h"

#define SIZE	(1u << 20)
#define WINDOW	(64u << 10)

struct ra {
	uint8_t *img;		/* the backend's bytes */
	struct extkit_io *io;
};

static void ra_open(struct ra *r, size_t window)
{
	r->img = malloc(SIZE);
	ck_assert_ptr_nonnull(r->img);
	for (uint32_t i = 0; i < SIZE; i++)
		r->img[i] = (uint8_t)(i * 2654435761u >> 24);
	ck_assert_int_eq(extkit_io_open_mem(r->img, SIZE, EXTKIT_IO_WRITE,
					    &r->io), 0);
	r->io->block_size = 1024;
	if (window)
		ck_assert_int_eq(extkit_io_set_readahead(r->io, window), 0);
}

static void ra_close(struct ra *r)
{
	extkit_io_close(r->io);
	free(r->img);
}

static uint8_t byte_at(struct ra *r, uint64_t off)
{
	uint8_t b;

	ck_assert_int_eq(extkit_io_read_bytes(r->io, off, &b, 1), 0);
	return b;
}

START_TEST(test_window_serves_and_write_drops)
{
	uint8_t buf[512], old, flipped, mine = 0x5a;
	struct ra r;

	ra_open(&r, WINDOW);
	ck_assert_int_eq(extkit_io_read_bytes(r.io, 4096, buf, sizeof(buf)),
			 0);
	ck_assert_mem_eq(buf, r.img + 4096, sizeof(buf));
	old = r.img[4100];
	flipped = (uint8_t)~old;
	r.img[4100] = flipped;		/* behind the io's back */
	ck_assert_uint_eq(byte_at(&r, 4100), old);	/* from the window */
	/* a write through the io drops the window it overlaps */
	if (mine == flipped)
		mine++;
	ck_assert_int_eq(extkit_io_write_bytes(r.io, 4100, &mine, 1), 0);
	ck_assert_uint_eq(byte_at(&r, 4100), mine);
	ck_assert_uint_eq(r.img[4100], mine);
	ra_close(&r);
}
END_TEST

/* Called directly: a read fills the window; a drop of a range apart
 * keeps it, one that overlaps (or of length 0) forgets it; freed, the
 * io reads through. */
START_TEST(test_direct_read_drop_free)
{
	uint8_t buf[256], b, old;
	struct ra r;

	ra_open(&r, WINDOW);
	ck_assert_int_eq(extkit_readahead_read(r.io, 8192, buf, sizeof(buf)),
			 0);
	ck_assert_mem_eq(buf, r.img + 8192, sizeof(buf));
	old = r.img[8200];
	r.img[8200] = (uint8_t)~old;		/* behind the io's back */
	ck_assert_int_eq(extkit_readahead_read(r.io, 8200, &b, 1), 0);
	ck_assert_uint_eq(b, old);			/* the window's */
	extkit_readahead_drop(r.io, 8192 + 2 * WINDOW, 100);	/* apart */
	ck_assert_int_eq(extkit_readahead_read(r.io, 8200, &b, 1), 0);
	ck_assert_uint_eq(b, old);
	extkit_readahead_drop(r.io, 8200, 1);		/* overlapping */
	ck_assert_int_eq(extkit_readahead_read(r.io, 8200, &b, 1), 0);
	ck_assert_uint_eq(b, (uint8_t)~old);
	r.img[8200] = old;
	ck_assert_int_eq(extkit_readahead_read(r.io, 8200, &b, 1), 0);
	ck_assert_uint_eq(b, (uint8_t)~old);		/* cached again */
	extkit_readahead_drop(r.io, 0, 0);		/* everything */
	ck_assert_int_eq(extkit_readahead_read(r.io, 8200, &b, 1), 0);
	ck_assert_uint_eq(b, old);
	extkit_readahead_free(r.io);
	ck_assert_ptr_null(r.io->ra);
	r.img[8200] = (uint8_t)~old;
	ck_assert_uint_eq(byte_at(&r, 8200), (uint8_t)~old);	/* through */
	extkit_readahead_free(r.io);			/* twice: nothing */
	ra_close(&r);
}
END_TEST

START_TEST(test_no_window_reads_through)
{
	struct ra r;

	ra_open(&r, 0);
	ck_assert_uint_eq(byte_at(&r, 10), r.img[10]);
	r.img[10] ^= 0xff;
	ck_assert_uint_eq(byte_at(&r, 10), r.img[10]);
	ra_close(&r);
}
END_TEST

/* Pieces of every size in turn, sequential then scattered: each read
 * returns the image's bytes, also after writes in between. */
static void check_reads(struct ra *r)
{
	static uint8_t buf[3 * WINDOW];
	uint64_t off = 0;
	unsigned int seed = 7, i = 0;
	static const size_t sizes[] = { 1, 128, 512, 4096, 1000,
					WINDOW / 4, WINDOW, 3 * WINDOW };

	while (off < SIZE) {
		size_t len = sizes[i++ % 5];

		if (off + len > SIZE)
			len = SIZE - off;
		ck_assert_int_eq(extkit_io_read_bytes(r->io, off, buf, len), 0);
		ck_assert_mem_eq(buf, r->img + off, len);
		off += len;
	}
	for (i = 0; i < 3000; i++) {
		size_t len = sizes[(unsigned int)rand_r(&seed) % 8];

		off = (uint64_t)rand_r(&seed) % (SIZE - len);
		if (i % 7 == 0) {
			uint8_t v = (uint8_t)rand_r(&seed);

			ck_assert_int_eq(extkit_io_write_bytes(r->io, off, &v,
							       1), 0);
		}
		ck_assert_int_eq(extkit_io_read_bytes(r->io, off, buf, len), 0);
		ck_assert_mem_eq(buf, r->img + off, len);
	}
}

START_TEST(test_reads_match_image)
{
	struct ra r;

	ra_open(&r, WINDOW);
	check_reads(&r);
	ra_close(&r);
}
END_TEST

START_TEST(test_reads_match_image_thread)
{
	struct ra r;

	ra_open(&r, WINDOW);
	ck_assert_int_eq(extkit_io_readahead_thread(r.io, 1), 0);
	check_reads(&r);
	ck_assert_int_eq(extkit_io_readahead_thread(r.io, 0), 0);
	ra_close(&r);
}
END_TEST

START_TEST(test_prefetch)
{
	uint8_t old;
	struct ra r;

	ra_open(&r, WINDOW);
	ck_assert_int_eq(extkit_io_prefetch(r.io, 65536, 8192), 0);
	old = r.img[70000];
	r.img[70000] = (uint8_t)~old;
	ck_assert_uint_eq(byte_at(&r, 70000), old);	/* prefetched */
	/* more than a window holds: nothing is read ahead */
	ck_assert_int_eq(extkit_io_prefetch(r.io, 300000, 2 * WINDOW), 0);
	r.img[300010] ^= 0xff;
	ck_assert_uint_eq(byte_at(&r, 300010), r.img[300010]);
	ra_close(&r);
}
END_TEST

START_TEST(test_past_end)
{
	uint8_t buf[256];
	struct ra plain, win;
	int want;

	ra_open(&plain, 0);
	ra_open(&win, WINDOW);
	want = extkit_io_read_bytes(plain.io, SIZE - 100, buf, sizeof(buf));
	ck_assert_int_lt(want, 0);
	ck_assert_int_eq(extkit_io_read_bytes(win.io, SIZE - 100, buf,
					      sizeof(buf)), want);
	/* the last bytes themselves still read */
	ck_assert_int_eq(extkit_io_read_bytes(win.io, SIZE - 100, buf, 100),
			 0);
	ck_assert_mem_eq(buf, win.img + SIZE - 100, 100);
	ra_close(&plain);
	ra_close(&win);
}
END_TEST

Suite *readahead_suite(void)
{
	Suite *s = suite_create("readahead");
	TCase *tc = tcase_create("window");

	tcase_add_test(tc, test_window_serves_and_write_drops);
	tcase_add_test(tc, test_direct_read_drop_free);
	tcase_add_test(tc, test_no_window_reads_through);
	tcase_add_test(tc, test_reads_match_image);
	tcase_add_test(tc, test_reads_match_image_thread);
	tcase_add_test(tc, test_prefetch);
	tcase_add_test(tc, test_past_end);
	suite_add_tcase(s, tc);
	return s;
}
