// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for io_window.c: an io bounded to a byte range of another
 * (--offset, a partition): reads and writes land at start + offset, the
 * size is the window's, nothing before or after the window is read or
 * written, and a window that does not fit its base is refused.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "../../lib/image.h"	/* not the tests' image.h */
#include "io.h"
#include "suites.h"

#define BASE	65536u
#define START	4096u
#define LEN	16384u

static struct extkit_io *base_io(uint8_t **mem)
{
	struct extkit_io *io;

	*mem = malloc(BASE);
	ck_assert_ptr_nonnull(*mem);
	for (uint32_t i = 0; i < BASE; i++)
		(*mem)[i] = (uint8_t)(i * 31 + 7);
	ck_assert_int_eq(extkit_io_open_mem(*mem, BASE, EXTKIT_IO_WRITE, &io),
			 0);
	return io;
}

START_TEST(test_window_bounds)
{
	struct extkit_io *win;
	uint8_t *mem, before[BASE], buf[1024];
	struct extkit_io *base = base_io(&mem);

	memcpy(before, mem, BASE);
	ck_assert_int_eq(extkit_io_open_window(base, START, LEN, &win), 0);
	ck_assert_uint_eq(win->size, LEN);
	ck_assert_int_eq(extkit_io_read_bytes(win, 0, buf, sizeof(buf)), 0);
	ck_assert_mem_eq(buf, mem + START, sizeof(buf));
	ck_assert_int_lt(extkit_io_read_bytes(win, LEN - 100, buf, 200), 0);
	memset(buf, 0xee, sizeof(buf));
	ck_assert_int_eq(extkit_io_write_bytes(win, LEN - 1024, buf, 1024), 0);
	ck_assert_mem_eq(mem + START + LEN - 1024, buf, 1024);
	ck_assert_int_lt(extkit_io_write_bytes(win, LEN - 512, buf, 1024), 0);
	/* nothing outside the window changed */
	ck_assert_mem_eq(mem, before, START);
	ck_assert_mem_eq(mem + START + LEN, before + START + LEN,
			 BASE - START - LEN);
	win->block_size = 1024;
	ck_assert_int_eq(extkit_io_read_blocks(win, 15, 1, buf), 0);
	ck_assert_int_lt(extkit_io_read_blocks(win, 16, 1, buf), 0);
	extkit_io_close(win);		/* closes base too */
	free(mem);
}
END_TEST

START_TEST(test_window_refused)
{
	struct extkit_io *win = NULL;
	uint8_t *mem;
	struct extkit_io *base = base_io(&mem);

	ck_assert_int_eq(extkit_io_open_window(base, BASE - 100, 200, &win),
			 -EINVAL);
	ck_assert_ptr_null(win);
	ck_assert_int_eq(extkit_io_open_window(base, BASE + 1, 0, &win),
			 -EINVAL);
	extkit_io_close(base);
	free(mem);
}
END_TEST

Suite *window_suite(void)
{
	Suite *s = suite_create("io_window");
	TCase *tc = tcase_create("window");

	tcase_add_test(tc, test_window_bounds);
	tcase_add_test(tc, test_window_refused);
	suite_add_tcase(s, tc);
	return s;
}
