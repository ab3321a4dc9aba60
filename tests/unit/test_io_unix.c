// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for io_unix.c on image files: a missing file refused unless
 * created, the size, reads and writes that land where asked (the file
 * read back with plain read()), a read past the end refused, a read-only
 * open that refuses writes, zeroing, growing a file (sparse), and the
 * mounted check of a file nobody mounted.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "io.h"
#include "suites.h"

static void tmp_path(char *buf, size_t len)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, len, "%s/extkit-io-unix-%ld.img", dir ? dir : "/tmp",
		 (long)getpid());
	unlink(buf);
}

static void file_bytes(const char *path, off_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, buf, len, off), (ssize_t)len);
	close(fd);
}

START_TEST(test_create_read_write)
{
	struct extkit_io *io = NULL;
	uint8_t buf[4096], back[4096];
	char path[256], where[64];
	struct stat st;

	tmp_path(path, sizeof(path));
	ck_assert_int_eq(extkit_io_open_unix(path, EXTKIT_IO_WRITE, &io),
			 -ENOENT);
	ck_assert_int_eq(extkit_io_open_unix(path, EXTKIT_IO_WRITE |
					     EXTKIT_IO_CREATE, &io), 0);
	ck_assert_uint_eq(io->size, 0);
	ck_assert_int_eq(extkit_io_set_size(io, 1 << 20), 0);
	ck_assert_uint_eq(io->size, 1 << 20);
	for (unsigned int i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 13 + 5);
	ck_assert_int_eq(extkit_io_write_bytes(io, 123456, buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(extkit_io_read_bytes(io, 123456, back, sizeof(back)),
			 0);
	ck_assert_mem_eq(back, buf, sizeof(buf));
	io->block_size = 4096;
	ck_assert_int_eq(extkit_io_write_blocks(io, 3, 1, buf), 0);
	ck_assert_int_eq(extkit_io_flush(io), 0);
	file_bytes(path, 3 * 4096, back, sizeof(back));
	ck_assert_mem_eq(back, buf, sizeof(buf));
	file_bytes(path, 123456, back, sizeof(back));
	ck_assert_mem_eq(back, buf, sizeof(buf));
	/* past the end */
	ck_assert_int_eq(extkit_io_read_bytes(io, (1 << 20) - 10, back, 20),
			 -EXTKIT_ETRUNC);
	ck_assert_int_eq(extkit_io_read_blocks(io, 256, 1, back),
			 -EXTKIT_ETRUNC);
	/* zeroing */
	ck_assert_int_eq(extkit_io_zero_bytes(io, 123456, 100), 0);
	ck_assert_int_eq(extkit_io_read_bytes(io, 123456, back, 200), 0);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(back[i], 0);
	ck_assert_mem_eq(back + 100, buf + 100, 100);
	ck_assert_int_eq(extkit_io_check_mounted(path, where, sizeof(where)),
			 0);
	extkit_io_close(io);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 1 << 20);
	ck_assert_int_lt(st.st_blocks * 512, 1 << 20);	/* sparse */
	/* read-only: reads, no writes */
	ck_assert_int_eq(extkit_io_open_unix(path, 0, &io), 0);
	ck_assert_int_eq(extkit_io_read_bytes(io, 3 * 4096, back, 10), 0);
	ck_assert_mem_eq(back, buf, 10);
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, buf, 10), -EROFS);
	ck_assert_uint_eq(extkit_io_writes(io), 0);
	extkit_io_close(io);
	unlink(path);
}
END_TEST

Suite *io_unix_suite(void)
{
	Suite *s = suite_create("io_unix");
	TCase *tc = tcase_create("file");

	tcase_add_test(tc, test_create_read_write);
	suite_add_tcase(s, tc);
	return s;
}
