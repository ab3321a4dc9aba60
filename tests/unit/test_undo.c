// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * undo: writes through the undo io over a memory image, then a replay that
 * checks what e2undo checks (header crc, superblock copy and its crc, key
 * block magic and crc, every key's data crc and extent limit) and puts the
 * saved bytes back: the image must be the original again.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "io.h"
#include "ondisk.h"
#include "undo.h"
#include "suites.h"

#define IMG_SIZE	((1u << 20) + 100)	/* a partial last block */

static uint8_t *random_image(void)
{
	uint8_t *img = malloc(IMG_SIZE);
	uint32_t x = 12345;

	ck_assert_ptr_nonnull(img);
	for (size_t i = 0; i < IMG_SIZE; i++) {
		x = x * 1103515245u + 12345u;
		img[i] = (uint8_t)(x >> 16);
	}
	return img;
}

/* Checks one key block and applies its keys; returns the next block. */
static uint64_t replay_key_block(const uint8_t *u, size_t ulen, uint32_t bs,
				 uint64_t lblk, uint64_t nkeys, uint8_t *img)
{
	uint8_t *kb = malloc(bs);
	uint32_t crc;

	ck_assert_uint_le((lblk + 1) * bs, ulen);
	memcpy(kb, u + lblk * bs, bs);
	ck_assert_uint_eq(get_le32(kb), E2UNDO_KEYBLOCK_MAGIC);
	crc = get_le32(kb + 4);
	memset(kb + 4, 0, 4);
	ck_assert_uint_eq(crc, extkit_crc32c(~0u, kb, bs));
	lblk++;
	for (uint64_t j = 0; j < nkeys; j++) {
		const uint8_t *k = kb + 16 + j * 16;
		uint64_t fsblk = get_le32(k) | ((uint64_t)get_le32(k + 4) << 32);
		uint32_t size = get_le32(k + 12);

		ck_assert_uint_le(size, E2UNDO_MAX_EXTENT_BLOCKS * bs);
		ck_assert_uint_le(lblk * bs + size, ulen);
		ck_assert_uint_eq(get_le32(k + 8),
				  extkit_crc32c(~0u, u + lblk * bs, size));
		ck_assert_uint_le(fsblk * bs + size, IMG_SIZE);
		memcpy(img + fsblk * bs, u + lblk * bs, size);
		lblk += (size + bs - 1) / bs;
	}
	free(kb);
	return lblk;
}

/* What e2undo does, on buffers; returns the number of keys. */
static uint64_t replay(const uint8_t *u, size_t ulen, uint8_t *img)
{
	uint8_t sb[1024];
	uint32_t bs, kpb;
	uint64_t nkeys, lblk;

	ck_assert_uint_ge(ulen, 2048);
	ck_assert_int_eq(memcmp(u, E2UNDO_MAGIC, 8), 0);
	ck_assert_uint_eq(get_le32(u + 508), extkit_crc32c(~0u, u, 508));
	bs = get_le32(u + 32);
	ck_assert_uint_eq(get_le32(u + 36), bs);
	ck_assert_uint_eq(get_le32(u + 44), E2UNDO_STATE_FINISHED);
	ck_assert_uint_eq(get_le32(u + 52) | get_le32(u + 56), 0);
	/* The superblock copy is the image's superblock, magic inverted. */
	memcpy(sb, u + get_le32(u + 16) * bs, sizeof(sb));
	sb[0x38] ^= 0xff;
	sb[0x39] ^= 0xff;
	ck_assert_int_eq(memcmp(sb, img + 1024, sizeof(sb)), 0);
	ck_assert_uint_eq(get_le32(u + 40), extkit_crc32c(~0u, sb, 1024));

	nkeys = get_le32(u + 8);
	kpb = bs / 16 - 1;
	lblk = get_le32(u + 24);
	for (uint64_t i = 0; i < nkeys; i += kpb)
		lblk = replay_key_block(u, ulen, bs, lblk,
					nkeys - i < kpb ? nkeys - i : kpb, img);
	return nkeys;
}

static void open_undo(uint8_t *img, uint32_t bs, struct extkit_io **file,
		      struct extkit_io **io)
{
	struct extkit_io *target;

	ck_assert_int_eq(extkit_io_open_mem(img, IMG_SIZE, EXTKIT_IO_WRITE,
					    &target), 0);
	ck_assert_int_eq(extkit_io_open_mem_owned(0, file), 0);
	ck_assert_int_eq(extkit_undo_open(target, *file, io), 0);
	(*io)->block_size = bs;
}

/* Finishes, replays onto img and compares with orig; returns keys. */
static uint64_t finish_and_replay(struct extkit_io *io,
				  struct extkit_io *file, uint8_t *img,
				  const uint8_t *orig)
{
	uint64_t keys;

	ck_assert_int_eq(extkit_undo_finish(io), 0);
	keys = replay(extkit_io_mem_buffer(file), file->size, img);
	ck_assert_int_eq(memcmp(img, orig, IMG_SIZE), 0);
	extkit_io_close(io);
	return keys;
}

static void scribble(struct extkit_io *io, uint64_t off, size_t len)
{
	uint8_t *b = malloc(len);

	memset(b, 0x5a, len);
	ck_assert_int_eq(extkit_io_write_bytes(io, off, b, len), 0);
	free(b);
}

START_TEST(test_undo_replays)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };
	uint32_t bs = sizes[_i];
	uint8_t *img = random_image(), *orig = malloc(IMG_SIZE);
	struct extkit_io *io, *file;

	memcpy(orig, img, IMG_SIZE);
	open_undo(img, bs, &file, &io);
	scribble(io, 1024, 1024);		/* the superblock */
	scribble(io, 3 * bs - 7, 20);		/* across a block boundary */
	for (uint32_t i = 0; i < 200; i++)	/* scattered: many keys */
		scribble(io, (uint64_t)(7 + i * 3) * 1024 % (IMG_SIZE - 64), 64);
	scribble(io, 3 * bs, 2 * bs);		/* saved twice: once only */
	scribble(io, IMG_SIZE - 50, 50);	/* the partial last block */
	ck_assert_int_eq(extkit_io_zero_bytes(io, 40000, 70000), 0);
	ck_assert_int_ne(memcmp(img, orig, IMG_SIZE), 0);
	ck_assert_uint_gt(finish_and_replay(io, file, img, orig), 0);
	free(img);
	free(orig);
}
END_TEST

/* A long run: one key per E2UNDO_MAX_EXTENT_BLOCKS - 1 blocks at most. */
START_TEST(test_undo_long_run)
{
	uint8_t *img = random_image(), *orig = malloc(IMG_SIZE);
	struct extkit_io *io, *file;

	memcpy(orig, img, IMG_SIZE);
	open_undo(img, 1024, &file, &io);
	scribble(io, 0, IMG_SIZE);
	ck_assert_uint_eq(extkit_undo_saved_blocks(io), 1025);
	/* 1025 blocks: 511 + 511 + 3 (the last one partial). */
	ck_assert_uint_eq(finish_and_replay(io, file, img, orig), 3);
	free(img);
	free(orig);
}
END_TEST

START_TEST(test_undo_nothing_written)
{
	uint8_t *img = random_image(), *orig = malloc(IMG_SIZE);
	struct extkit_io *io, *file;

	memcpy(orig, img, IMG_SIZE);
	open_undo(img, 4096, &file, &io);
	ck_assert_uint_eq(finish_and_replay(io, file, img, orig), 0);
	free(img);
	free(orig);
}
END_TEST

START_TEST(test_undo_refusals)
{
	uint8_t *img = random_image(), b[8] = { 0 };
	struct extkit_io *io, *file, *ro;

	ck_assert_int_eq(extkit_io_open_mem(img, IMG_SIZE, 0, &ro), 0);
	ck_assert_int_eq(extkit_io_open_mem_owned(0, &file), 0);
	ck_assert_int_eq(extkit_undo_open(ro, file, &io), -EROFS);
	ck_assert_int_eq(extkit_undo_finish(ro), -EINVAL);
	extkit_io_close(ro);
	extkit_io_close(file);

	open_undo(img, 1024, &file, &io);
	ck_assert_int_eq(extkit_io_set_size(io, 4096), -EOPNOTSUPP);
	ck_assert_int_eq(extkit_undo_finish(io), 0);
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, b, sizeof(b)), -EROFS);
	extkit_io_close(io);
	free(img);
}
END_TEST

/* The undo file: created private (0600) when missing, an empty one
 * taken, one holding anything (or no regular file) refused. */
START_TEST(test_undo_create_file)
{
	const char *dir = getenv("TMPDIR");
	struct extkit_io *io = NULL;
	char path[256];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/extkit-undo-%ld.e2undo",
		 dir ? dir : "/tmp", (long)getpid());
	unlink(path);
	ck_assert_int_eq(extkit_undo_create_file(path, &io), 0);
	ck_assert_uint_eq(io->size, 0);
	ck_assert(io->flags & EXTKIT_IO_WRITE);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(extkit_io_set_size(io, 512), 0);	/* in use */
	ck_assert_int_eq(extkit_io_write_bytes(io, 0, "x", 1), 0);
	extkit_io_close(io);
	io = NULL;
	ck_assert_int_eq(extkit_undo_create_file(path, &io), -EEXIST);
	ck_assert_ptr_null(io);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(extkit_undo_create_file(path, &io), 0);	/* empty */
	extkit_io_close(io);
	unlink(path);
	ck_assert_int_eq(extkit_undo_create_file(dir ? dir : "/tmp", &io),
			 -EEXIST);
	ck_assert_int_lt(extkit_undo_create_file("/nonexistent/dir/u", &io),
			 0);
}
END_TEST

Suite *undo_suite(void)
{
	Suite *s = suite_create("undo");
	TCase *tc = tcase_create("mem");

	tcase_add_loop_test(tc, test_undo_replays, 0, 3);
	tcase_add_test(tc, test_undo_long_run);
	tcase_add_test(tc, test_undo_nothing_written);
	tcase_add_test(tc, test_undo_refusals);
	tcase_add_test(tc, test_undo_create_file);
	suite_add_tcase(s, tc);
	return s;
}
