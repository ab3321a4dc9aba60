// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for bitmap.c: single bits, ranges inside one word, across
 * words and to the end, counts, first zero/set searches, the on-disk byte
 * layout (golden bytes, unaligned starts), runs counted and cleared in
 * the on-disk layout, and a randomised run against a
 * bit-per-byte model.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "suites.h"

START_TEST(test_init_free)
{
	struct extkit_bitmap bm;

	ck_assert_int_eq(extkit_bitmap_init(&bm, 0), 0);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 0), -ERANGE);
	ck_assert_int_eq(extkit_bitmap_set_range(&bm, 0, 0), 0);
	extkit_bitmap_free(&bm);
	ck_assert_ptr_null(bm.words);
	ck_assert_int_eq(extkit_bitmap_init(&bm, 200), 0);
	ck_assert_uint_eq(bm.nbits, 200);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 0, 200), 0);
	extkit_bitmap_free(&bm);
}
END_TEST

START_TEST(test_single_bits)
{
	struct extkit_bitmap bm;

	ck_assert_int_eq(extkit_bitmap_init(&bm, 130), 0);
	ck_assert_int_eq(extkit_bitmap_set(&bm, 0), 0);
	ck_assert_int_eq(extkit_bitmap_set(&bm, 63), 0);
	ck_assert_int_eq(extkit_bitmap_set(&bm, 64), 0);
	ck_assert_int_eq(extkit_bitmap_set(&bm, 129), 0);
	ck_assert_int_eq(extkit_bitmap_set(&bm, 130), -ERANGE);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 0), 1);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 1), 0);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 63), 1);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 64), 1);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 129), 1);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 130), -ERANGE);
	ck_assert_int_eq(extkit_bitmap_clear(&bm, 63), 0);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 63), 0);
	ck_assert_int_eq(extkit_bitmap_clear(&bm, 200), -ERANGE);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 0, 130), 3);
	extkit_bitmap_free(&bm);
}
END_TEST

START_TEST(test_ranges)
{
	struct extkit_bitmap bm;

	ck_assert_int_eq(extkit_bitmap_init(&bm, 1000), 0);
	/* inside one word */
	ck_assert_int_eq(extkit_bitmap_set_range(&bm, 3, 5), 0);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 0, 64), 5);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 2), 0);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 8), 0);
	/* across several words, to the very end */
	ck_assert_int_eq(extkit_bitmap_set_range(&bm, 60, 940), 0);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 0, 1000), 945);
	ck_assert_int_eq(extkit_bitmap_clear_range(&bm, 100, 300), 0);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 0, 1000), 645);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 99), 1);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 100), 0);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 399), 0);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 400), 1);
	/* out of range: nothing changes */
	ck_assert_int_eq(extkit_bitmap_set_range(&bm, 990, 11), -ERANGE);
	ck_assert_int_eq(extkit_bitmap_clear_range(&bm, 1001, 0), -ERANGE);
	ck_assert_int_eq(extkit_bitmap_set_range(&bm, 1, UINT64_MAX),
			 -ERANGE);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 0, 1000), 645);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 999, 2), 0);
	/* an empty range at the end is fine */
	ck_assert_int_eq(extkit_bitmap_set_range(&bm, 1000, 0), 0);
	extkit_bitmap_clear_all(&bm);
	ck_assert_uint_eq(extkit_bitmap_count_range(&bm, 0, 1000), 0);
	extkit_bitmap_free(&bm);
}
END_TEST

START_TEST(test_find)
{
	struct extkit_bitmap bm;
	uint64_t at = 0;

	ck_assert_int_eq(extkit_bitmap_init(&bm, 300), 0);
	ck_assert_int_eq(extkit_bitmap_find_first_set(&bm, 0, 300, &at),
			 -ENOENT);
	ck_assert_int_eq(extkit_bitmap_find_first_zero(&bm, 5, 10, &at), 0);
	ck_assert_uint_eq(at, 5);
	ck_assert_int_eq(extkit_bitmap_set_range(&bm, 0, 200), 0);
	ck_assert_int_eq(extkit_bitmap_find_first_zero(&bm, 0, 300, &at), 0);
	ck_assert_uint_eq(at, 200);
	ck_assert_int_eq(extkit_bitmap_find_first_zero(&bm, 0, 200, &at),
			 -ENOENT);
	ck_assert_int_eq(extkit_bitmap_find_first_set(&bm, 150, 150, &at), 0);
	ck_assert_uint_eq(at, 150);
	ck_assert_int_eq(extkit_bitmap_find_first_set(&bm, 200, 100, &at),
			 -ENOENT);
	ck_assert_int_eq(extkit_bitmap_set(&bm, 299), 0);
	ck_assert_int_eq(extkit_bitmap_find_first_set(&bm, 201, 99, &at), 0);
	ck_assert_uint_eq(at, 299);
	ck_assert_int_eq(extkit_bitmap_find_first_zero(&bm, 299, 1, &at),
			 -ENOENT);
	/* Runs: set bits 0..199 and 299; bits 200..298 are clear. */
	ck_assert_int_eq(extkit_bitmap_find_zero_run(&bm, 0, 300, 99, &at),
			 0);
	ck_assert_uint_eq(at, 200);
	ck_assert_int_eq(extkit_bitmap_find_zero_run(&bm, 0, 300, 100, &at),
			 -ENOENT);
	ck_assert_int_eq(extkit_bitmap_clear(&bm, 150), 0);
	ck_assert_int_eq(extkit_bitmap_find_zero_run(&bm, 140, 160, 2, &at),
			 0);
	ck_assert_uint_eq(at, 200);
	ck_assert_int_eq(extkit_bitmap_find_zero_run(&bm, 210, 20, 20, &at),
			 0);
	ck_assert_uint_eq(at, 210);
	ck_assert_int_eq(extkit_bitmap_find_zero_run(&bm, 210, 20, 21, &at),
			 -ENOENT);
	ck_assert_int_eq(extkit_bitmap_find_first_zero(&bm, 0, 0, &at),
			 -ENOENT);
	ck_assert_int_eq(extkit_bitmap_find_first_zero(&bm, 250, 51, &at),
			 -ERANGE);
	extkit_bitmap_free(&bm);
}
END_TEST

START_TEST(test_disk_golden)
{
	static const uint8_t want[10] = {
		0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x03,
	};
	struct extkit_bitmap bm, back;
	uint8_t out[10], part[3];

	ck_assert_int_eq(extkit_bitmap_init(&bm, 80), 0);
	extkit_bitmap_set(&bm, 0);
	extkit_bitmap_set(&bm, 9);
	extkit_bitmap_set(&bm, 63);
	extkit_bitmap_set(&bm, 64);
	extkit_bitmap_set_range(&bm, 72, 2);
	memset(out, 0xee, sizeof(out));
	ck_assert_int_eq(extkit_bitmap_to_disk(&bm, 0, 80, out), 0);
	ck_assert_mem_eq(out, want, sizeof(want));
	/* unaligned start (bit 9) and a partial last byte (20 bits) */
	memset(part, 0xee, sizeof(part));
	ck_assert_int_eq(extkit_bitmap_to_disk(&bm, 9, 20, part), 0);
	ck_assert_uint_eq(part[0], 0x01);
	ck_assert_uint_eq(part[1], 0x00);
	ck_assert_uint_eq(part[2], 0x00);
	ck_assert_int_eq(extkit_bitmap_to_disk(&bm, 70, 11, part), -ERANGE);
	/* and back, at an unaligned position */
	ck_assert_int_eq(extkit_bitmap_init(&back, 100), 0);
	extkit_bitmap_set_range(&back, 0, 100);
	ck_assert_int_eq(extkit_bitmap_from_disk(&back, 7, 80, want), 0);
	for (uint64_t i = 0; i < 80; i++)
		ck_assert_int_eq(extkit_bitmap_test(&back, 7 + i),
				 extkit_bitmap_test(&bm, i));
	ck_assert_uint_eq(extkit_bitmap_count_range(&back, 0, 7), 7);
	ck_assert_uint_eq(extkit_bitmap_count_range(&back, 87, 13), 13);
	extkit_bitmap_free(&back);
	extkit_bitmap_free(&bm);
}
END_TEST

/* Deterministic pseudo-random numbers (xorshift64). */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void model_check(const struct extkit_bitmap *bm, const uint8_t *m,
			uint64_t n, uint64_t *seed)
{
	uint64_t a = next_rand(seed) % (n + 1);
	uint64_t c = next_rand(seed) % (n - a + 1);
	uint64_t want = 0, found = 0;
	int64_t first0 = -1, first1 = -1;

	for (uint64_t i = a; i < a + c; i++) {
		want += m[i];
		if (m[i] && first1 < 0)
			first1 = (int64_t)i;
		if (!m[i] && first0 < 0)
			first0 = (int64_t)i;
	}
	ck_assert_uint_eq(extkit_bitmap_count_range(bm, a, c), want);
	ck_assert_int_eq(extkit_bitmap_find_first_set(bm, a, c, &found),
			 first1 < 0 ? -ENOENT : 0);
	if (first1 >= 0)
		ck_assert_uint_eq(found, (uint64_t)first1);
	ck_assert_int_eq(extkit_bitmap_find_first_zero(bm, a, c, &found),
			 first0 < 0 ? -ENOENT : 0);
	if (first0 >= 0)
		ck_assert_uint_eq(found, (uint64_t)first0);
}

START_TEST(test_random_model)
{
	const uint64_t n = 1000 + (uint64_t)_i * 37;
	uint8_t *m = calloc(n, 1), *disk = calloc((n + 7) / 8, 1);
	struct extkit_bitmap bm;
	uint64_t seed = 0x9e3779b97f4a7c15ULL + (uint64_t)_i;

	ck_assert_int_eq(extkit_bitmap_init(&bm, n), 0);
	for (int op = 0; op < 400; op++) {
		uint64_t a = next_rand(&seed) % n;
		uint64_t c = next_rand(&seed) % (n - a + 1);
		int set = (int)(next_rand(&seed) & 1);

		ck_assert_int_eq(set ? extkit_bitmap_set_range(&bm, a, c) :
				 extkit_bitmap_clear_range(&bm, a, c), 0);
		memset(m + a, set, c);
		model_check(&bm, m, n, &seed);
	}
	ck_assert_int_eq(extkit_bitmap_to_disk(&bm, 0, n, disk), 0);
	for (uint64_t i = 0; i < n; i++)
		ck_assert_int_eq((disk[i / 8] >> (i % 8)) & 1, m[i]);
	extkit_bitmap_free(&bm);
	free(disk);
	free(m);
}
END_TEST

/* Counting and clearing runs of an on-disk bitmap, against bit tests. */
START_TEST(test_disk_ranges)
{
	uint8_t disk[16];
	static const struct { uint64_t start, count; } runs[] = {
		{ 0, 0 }, { 3, 1 }, { 5, 3 }, { 5, 12 }, { 8, 16 },
		{ 1, 100 }, { 0, 128 }, { 127, 1 },
	};

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		uint64_t start = runs[r].start, count = runs[r].count;
		uint64_t want = 0;

		for (int i = 0; i < 16; i++)
			disk[i] = (uint8_t)(0x5A ^ (i * 37));
		for (uint64_t b = start; b < start + count; b++)
			want += (disk[b / 8] >> (b % 8)) & 1;
		ck_assert_uint_eq(extkit_bitmap_disk_count(disk, start, count),
				  want);
		ck_assert_uint_eq(extkit_bitmap_disk_clear(disk, start, count),
				  want);
		ck_assert_uint_eq(extkit_bitmap_disk_count(disk, start, count),
				  0);
		for (uint64_t b = 0; b < 128; b++) {
			uint8_t orig = (uint8_t)(0x5A ^ ((b / 8) * 37));
			int inside = b >= start && b < start + count;

			ck_assert_int_eq((disk[b / 8] >> (b % 8)) & 1,
					 inside ? 0 : (orig >> (b % 8)) & 1);
		}
	}
}
END_TEST

Suite *bitmap_suite(void)
{
	Suite *s = suite_create("bitmap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_init_free);
	tcase_add_test(tc, test_single_bits);
	tcase_add_test(tc, test_ranges);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_disk_golden);
	tcase_add_test(tc, test_disk_ranges);
	tcase_add_loop_test(tc, test_random_model, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}
