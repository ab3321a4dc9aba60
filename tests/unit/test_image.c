// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/image.c on image files the test writes: a 4 MiB
 * disk image with a DOS partition table (partition 1: 1 MiB from 1 MiB,
 * holding an ext2 filesystem; partition 2: 2 MiB from 2 MiB; partition
 * 3: past the end of the file), and a swap area.
 *
 * extkit_image_partition gives a partition's byte range, or -ENOENT
 * saying what is missing (no table; no such entry, and how many there
 * are). extkit_io_open_image opens the whole file, what follows an
 * offset, or a partition, as an io bounded to it (its size; reads land
 * there; writes stay inside); an offset past the end is -EINVAL and a
 * partition past it -EXTKIT_ETRUNC, each with a reason.
 * extkit_image_describe names what libblkid finds (a swap area, a
 * partition table), and nothing for an ext2 filesystem or zeros.
 * extkit_fs_open_image opens the filesystem at a place, and when there
 * is none says what is there instead.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"		/* the tests' forged images */
#include "../../lib/image.h"
#include "io.h"
#include "suites.h"

#define MIB	(1024u * 1024u)
#define DISK	(4 * MIB)

static char disk[256], swap[256], zeros[256];

static void tmp_path(char *buf, size_t len, const char *what)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, len, "%s/extkit-image-%s-%ld.img", dir ? dir : "/tmp",
		 what, (long)getpid());
}

static void put_file(const char *path, uint64_t size, uint64_t off,
		     const void *buf, size_t len)
{
	int fd = open(path, O_RDWR | O_CREAT, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	if (len)
		ck_assert_int_eq(pwrite(fd, buf, len, (off_t)off),
				 (ssize_t)len);
	close(fd);
}

static void get_file(const char *path, uint64_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

static void mbr_entry(uint8_t *mbr, int i, uint32_t start, uint32_t count)
{
	uint8_t *e = mbr + 446 + 16 * i;

	e[4] = 0x83;			/* Linux */
	put_le32(e + 8, start);		/* in 512-byte sectors */
	put_le32(e + 12, count);
}

/* The disk: its table, an ext2 filesystem of 1 MiB in partition 1, a
 * pattern at the start of partition 2. */
static void make_disk(void)
{
	struct test_image_opts o;
	struct extkit_io *io;
	uint8_t mbr[512] = { 0 }, pat[4096];

	tmp_path(disk, sizeof(disk), "disk");
	unlink(disk);
	mbr_entry(mbr, 0, 2048, 2048);
	mbr_entry(mbr, 1, 4096, 4096);
	mbr_entry(mbr, 2, 8192, 2048);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	put_file(disk, DISK, 0, mbr, sizeof(mbr));
	test_image_defaults(&o);
	o.blocks = 1024;
	o.inodes_per_group = 64;
	io = test_image_make(&o);
	put_file(disk, DISK, MIB, extkit_io_mem_buffer(io), MIB);
	extkit_io_close(io);
	for (unsigned int i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 7 + 3);
	put_file(disk, DISK, 2 * MIB, pat, sizeof(pat));
}

/* A swap area of 1 MiB (libblkid: version 1, the magic before 4 KiB). */
static void make_swap(void)
{
	uint8_t hdr[8];

	tmp_path(swap, sizeof(swap), "swap");
	unlink(swap);
	put_le32(hdr, 1);
	put_le32(hdr + 4, MIB / 4096 - 1);
	put_file(swap, MIB, 1024, hdr, sizeof(hdr));
	put_file(swap, MIB, 4096 - 10, "SWAPSPACE2", 10);
	tmp_path(zeros, sizeof(zeros), "zeros");
	unlink(zeros);
	put_file(zeros, MIB, 0, NULL, 0);
}

static void setup(void)
{
	make_disk();
	make_swap();
}

static void teardown(void)
{
	unlink(disk);
	unlink(swap);
	unlink(zeros);
}

START_TEST(test_partition)
{
	uint64_t start = 0, len = 0;
	char why[160] = "";

	ck_assert_int_eq(extkit_image_partition(disk, 1, &start, &len, why,
						sizeof(why)), 0);
	ck_assert_uint_eq(start, MIB);
	ck_assert_uint_eq(len, MIB);
	ck_assert_int_eq(extkit_image_partition(disk, 2, &start, &len, why,
						sizeof(why)), 0);
	ck_assert_uint_eq(start, 2 * MIB);
	ck_assert_uint_eq(len, 2 * MIB);
	ck_assert_int_eq(extkit_image_partition(disk, 4, &start, &len, why,
						sizeof(why)), -ENOENT);
	ck_assert_str_eq(why, "the dos table has no partition 4 (it has 3)");
	why[0] = '\0';
	ck_assert_int_eq(extkit_image_partition(swap, 1, &start, &len, why,
						sizeof(why)), -ENOENT);
	ck_assert_str_eq(why, "no partition table found");
	ck_assert_int_lt(extkit_image_partition("/nonexistent/extkit.img", 1,
						&start, &len, why,
						sizeof(why)), 0);
}
END_TEST

/* An io on loc: its size, and its first bytes those of the file at
 * file_off. */
static void check_io(const struct extkit_image_loc *loc, uint64_t size,
		     uint64_t file_off)
{
	struct extkit_io *io = NULL;
	uint8_t a[4096], b[4096];
	char why[160];

	ck_assert_int_eq(extkit_io_open_image(disk, 0, loc, &io, why,
					      sizeof(why)), 0);
	ck_assert_uint_eq(io->size, size);
	ck_assert_int_eq(extkit_io_read_bytes(io, 0, a, sizeof(a)), 0);
	get_file(disk, file_off, b, sizeof(b));
	ck_assert_mem_eq(a, b, sizeof(a));
	ck_assert_int_lt(extkit_io_read_bytes(io, size - 10, a, 20), 0);
	extkit_io_close(io);
}

START_TEST(test_open_places)
{
	struct extkit_image_loc whole = { 0 }, off = { .offset = 12345 },
				p2 = { .partition = 2 };

	check_io(NULL, DISK, 0);
	check_io(&whole, DISK, 0);
	check_io(&off, DISK - 12345, 12345);
	check_io(&p2, 2 * MIB, 2 * MIB);
}
END_TEST

/* Writes through a partition land in it and nowhere else. */
START_TEST(test_write_stays_inside)
{
	struct extkit_image_loc p2 = { .partition = 2 };
	uint8_t *before = malloc(DISK), *after = malloc(DISK), buf[512];
	struct extkit_io *io = NULL;
	char why[160];

	ck_assert(before && after);
	get_file(disk, 0, before, DISK);
	ck_assert_int_eq(extkit_io_open_image(disk, EXTKIT_IO_WRITE, &p2, &io,
					      why, sizeof(why)), 0);
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, buf, sizeof(buf)), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 2 * MIB - 512, buf,
					       sizeof(buf)), 0);
	ck_assert_int_lt(extkit_io_write_bytes(io, 2 * MIB - 256, buf,
					       sizeof(buf)), 0);
	ck_assert_int_eq(extkit_io_flush(io), 0);
	extkit_io_close(io);
	get_file(disk, 0, after, DISK);
	ck_assert_mem_eq(after + 2 * MIB, buf, 512);
	ck_assert_mem_eq(after + 4 * MIB - 512, buf, 512);
	ck_assert_mem_eq(after, before, 2 * MIB);
	ck_assert_mem_eq(after + 2 * MIB + 512, before + 2 * MIB + 512,
			 2 * MIB - 1024);
	free(before);
	free(after);
}
END_TEST

START_TEST(test_open_refusals)
{
	struct extkit_image_loc past = { .offset = DISK },
				p3 = { .partition = 3 },
				p9 = { .partition = 9 };
	struct extkit_io *io = NULL;
	char why[160];

	ck_assert_int_eq(extkit_io_open_image(disk, 0, &past, &io, why,
					      sizeof(why)), -EINVAL);
	ck_assert_str_eq(why, "offset 4194304 is past the end of the image "
			 "(4194304 bytes)");
	ck_assert_int_eq(extkit_io_open_image(disk, 0, &p3, &io, why,
					      sizeof(why)), -EXTKIT_ETRUNC);
	ck_assert_str_eq(why, "partition 3 (bytes 4194304-5242879) passes the "
			 "end of the image (4194304 bytes)");
	ck_assert_int_eq(extkit_io_open_image(disk, 0, &p9, &io, why,
					      sizeof(why)), -ENOENT);
	ck_assert_str_eq(why, "the dos table has no partition 9 (it has 3)");
	ck_assert_int_eq(extkit_io_open_image("/nonexistent/extkit.img", 0,
					      NULL, &io, why, sizeof(why)),
			 -ENOENT);
	ck_assert_ptr_null(io);
}
END_TEST

START_TEST(test_describe)
{
	struct extkit_image_loc p1 = { .partition = 1 },
				p2 = { .partition = 2 };
	char buf[160] = "";

	ck_assert_int_eq(extkit_image_describe(swap, NULL, buf, sizeof(buf)),
			 1);
	ck_assert_str_eq(buf, "contains a swap file system");
	ck_assert_int_eq(extkit_image_describe(disk, NULL, buf, sizeof(buf)),
			 1);
	ck_assert_str_eq(buf, "contains a dos partition table (pick a "
			 "partition: IMAGE@N or --partition N)");
	buf[0] = '\0';
	/* an ext2 filesystem is not something else; nor are zeros */
	ck_assert_int_eq(extkit_image_describe(disk, &p1, buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(extkit_image_describe(disk, &p2, buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(extkit_image_describe(zeros, NULL, buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(extkit_image_describe("/nonexistent/extkit.img",
					       NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_fs_open)
{
	struct extkit_image_loc p1 = { .partition = 1 },
				off = { .offset = MIB };
	struct extkit_fs *fs = NULL;
	char why[160];

	ck_assert_int_eq(extkit_fs_open_image(disk, &p1, 0, &fs, why,
					      sizeof(why)), 0);
	ck_assert_uint_eq(fs->sb.blocks_count, 1024);
	ck_assert_uint_eq(fs->io->size, MIB);
	ck_assert_str_eq(fs->device_name, disk);
	extkit_fs_close(fs);
	fs = NULL;
	ck_assert_int_eq(extkit_fs_open_image(disk, &off, EXTKIT_FS_WRITE, &fs,
					      why, sizeof(why)), 0);
	ck_assert_uint_eq(fs->io->size, DISK - MIB);
	ck_assert_int_eq(extkit_fs_write_super(fs), 0);
	extkit_fs_close(fs);
	/* no ext2/3/4 there: what is */
	ck_assert_int_eq(extkit_fs_open_image(disk, NULL, 0, &fs, why,
					      sizeof(why)), -EXTKIT_ENOTEXT);
	ck_assert_str_eq(why, "contains a dos partition table (pick a "
			 "partition: IMAGE@N or --partition N)");
	ck_assert_int_eq(extkit_fs_open_image(swap, NULL, 0, &fs, why,
					      sizeof(why)), -EXTKIT_ENOTEXT);
	ck_assert_str_eq(why, "contains a swap file system");
	/* nothing libblkid knows either: the superblock's own reason */
	ck_assert_int_eq(extkit_fs_open_image(zeros, NULL, 0, &fs, why,
					      sizeof(why)), -EXTKIT_ENOTEXT);
	ck_assert(why[0] && !strstr(why, "contains"));
}
END_TEST

Suite *image_suite(void)
{
	Suite *s = suite_create("image");
	TCase *tc = tcase_create("image");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_partition);
	tcase_add_test(tc, test_open_places);
	tcase_add_test(tc, test_write_stays_inside);
	tcase_add_test(tc, test_open_refusals);
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_fs_open);
	suite_add_tcase(s, tc);
	return s;
}
