// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io_overlay: writes through an overlay over a memory image stay in
 * memory (the image is untouched), reads see them (partial units merged
 * with the target's bytes), and the plan comes out sorted by block, each
 * block whole; thousands of blocks make the table grow.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_overlay.h"
#include "suites.h"

#define UNIT	1024u
#define NBLK	4096u

static uint8_t *pattern(void)
{
	uint8_t *img = malloc(UNIT * NBLK);

	ck_assert_ptr_nonnull(img);
	for (size_t i = 0; i < UNIT * NBLK; i++)
		img[i] = (uint8_t)(i * 7 + (i >> 10));
	return img;
}

START_TEST(test_overlay_reads_writes)
{
	uint8_t *img = pattern(), *copy = pattern(), buf[3 * UNIT];
	struct extkit_io *mem, *ovl;
	struct extkit_plan_block *p;
	uint64_t n;

	ck_assert_int_eq(extkit_io_open_mem(img, UNIT * NBLK, EXTKIT_IO_WRITE,
					    &mem), 0);
	ck_assert_int_eq(extkit_overlay_open(mem, UNIT, &ovl), 0);
	/* across three units: a tail, a whole one, a head */
	memset(buf, 0xAB, sizeof(buf));
	ck_assert_uint_eq(extkit_overlay_count(ovl), 0);
	ck_assert_int_eq(extkit_io_write_bytes(ovl, 5 * UNIT + 500, buf,
					       2 * UNIT), 0);
	ck_assert_uint_eq(extkit_overlay_count(ovl), 3);
	ck_assert_mem_eq(img, copy, UNIT * NBLK);	/* target untouched */
	ck_assert_int_eq(extkit_io_read_bytes(ovl, 5 * UNIT, buf, 3 * UNIT),
			 0);
	ck_assert_mem_eq(buf, copy + 5 * UNIT, 500);
	for (unsigned int i = 500; i < 500 + 2 * UNIT; i++)
		ck_assert_uint_eq(buf[i], 0xAB);
	ck_assert_mem_eq(buf + 500 + 2 * UNIT, copy + 7 * UNIT + 500,
			 UNIT - 500);
	ck_assert_int_eq(extkit_overlay_blocks(ovl, &p, &n), 0);
	ck_assert_uint_eq(n, 3);
	for (uint64_t i = 0; i < n; i++)
		ck_assert_uint_eq(p[i].blk, 5 + i);
	ck_assert_mem_eq(p[0].data, copy + 5 * UNIT, 500);
	ck_assert_mem_eq(p[2].data + 500, copy + 7 * UNIT + 500, UNIT - 500);
	extkit_plan_free(p, n);
	/* zeroing is refused: it would escape the plan */
	ck_assert_int_ne(extkit_io_zero_bytes(ovl, 0, UNIT), 0);
	extkit_io_close(ovl);
	extkit_io_close(mem);
	free(img);
	free(copy);
}
END_TEST

START_TEST(test_overlay_many_sorted)
{
	uint8_t *img = pattern(), *copy = pattern(), b[UNIT];
	struct extkit_io *mem, *ovl;
	struct extkit_plan_block *p;
	uint64_t n;

	ck_assert_int_eq(extkit_io_open_mem(img, UNIT * NBLK, EXTKIT_IO_WRITE,
					    &mem), 0);
	ck_assert_int_eq(extkit_overlay_open(mem, UNIT, &ovl), 0);
	/* every block in a scattered order, each written twice */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < NBLK; i++) {
			uint32_t blk = (i * 2654435761u) % NBLK;

			memset(b, (int)(blk + pass), UNIT);
			ck_assert_int_eq(extkit_io_write_bytes(ovl,
				(uint64_t)blk * UNIT, b, UNIT), 0);
		}
	ck_assert_mem_eq(img, copy, UNIT * NBLK);
	ck_assert_uint_eq(extkit_overlay_count(ovl), NBLK);
	ck_assert_int_eq(extkit_overlay_blocks(ovl, &p, &n), 0);
	ck_assert_uint_eq(extkit_overlay_count(ovl), 0);	/* taken out */
	ck_assert_uint_eq(n, NBLK);
	for (uint64_t i = 0; i < n; i++) {
		ck_assert_uint_eq(p[i].blk, i);
		ck_assert_uint_eq(p[i].data[UNIT - 1], (uint8_t)(i + 1));
	}
	extkit_plan_free(p, n);
	/* taken out: the overlay reads the target again */
	ck_assert_int_eq(extkit_io_read_bytes(ovl, 0, b, UNIT), 0);
	ck_assert_mem_eq(b, copy, UNIT);
	extkit_io_close(ovl);
	extkit_io_close(mem);
	free(img);
	free(copy);
}
END_TEST

Suite *overlay_suite(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_overlay_reads_writes);
	tcase_add_test(tc, test_overlay_many_sorted);
	suite_add_tcase(s, tc);
	return s;
}
