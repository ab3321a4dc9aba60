// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for pass 2's set of name hashes (fsck/nameset.c): each hash
 * added is found, before and after the table doubles in place, and none
 * that was not added is; entries whose high 32 bits are equal (one probe
 * chain) and tables that grow many times over.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../../fsck/nameset.h"
#include "suites.h"

/* A 40-bit hash, never 0 in bits 8..39, from a counter (splitmix64). */
static uint64_t hash_of(uint64_t k)
{
	uint64_t z = k + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z = (z ^ (z >> 31)) & 0xffffffffffull;
	return z >> 8 ? z : z | 0x100;
}

/* (Each ck_assert costs a message to the runner: the loops count what
 * went wrong and assert once.) */
START_TEST(test_grows_and_keeps_all)
{
	struct nameset set = { 0 };
	const uint32_t n = 300000;	/* doubles eleven times from 256 */
	uint32_t bad = 0;

	for (uint32_t k = 0; k < n; k++) {
		bad += nameset_insert(&set, hash_of(k)) != 0;
		/* the earliest ones stay found across each doubling */
		if ((k & (k - 1)) == 0)
			for (uint32_t j = 0; j <= k; j += 1 + k / 64)
				bad += !nameset_has(&set, hash_of(j));
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(set.n, n);
	ck_assert_uint_eq(set.cap, 524288);
	for (uint32_t k = 0; k < n; k++) {
		bad += !nameset_has(&set, hash_of(k));
		bad += nameset_insert(&set, hash_of(k)) != 1;
		bad += nameset_has(&set, hash_of(k + n));
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(set.n, n);
	nameset_free(&set);
}
END_TEST

START_TEST(test_same_high_bits)
{
	struct nameset set = { 0 };
	uint32_t bad = 0;

	/* 256 entries in one chain: equal high bits, every low byte; then
	 * others around them, growing the table under the chain */
	for (uint32_t low = 0; low < 256; low++)
		bad += nameset_add(&set, 0x1234567800ull | low) != 0;
	for (uint32_t k = 0; k < 5000; k++)
		bad += nameset_insert(&set, hash_of(k)) != 0;
	for (uint32_t low = 0; low < 256; low++)
		bad += !nameset_has(&set, 0x1234567800ull | low);
	bad += nameset_has(&set, 0x1234567900ull);
	for (uint32_t k = 0; k < 5000; k++)
		bad += !nameset_has(&set, hash_of(k));
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(set.n, 5256);
	nameset_free(&set);
}
END_TEST

START_TEST(test_reset)
{
	struct nameset set = { 0 };
	uint32_t bad = 0;

	for (uint32_t k = 0; k < 100; k++)
		bad += nameset_add(&set, hash_of(k)) != 0;
	nameset_reset(&set);
	ck_assert_uint_eq(set.n, 0);
	for (uint32_t k = 0; k < 100; k++)
		bad += nameset_has(&set, hash_of(k));
	/* after a big table, a small directory: the big one is dropped */
	for (uint32_t k = 0; k < 20000; k++)
		bad += nameset_add(&set, hash_of(k)) != 0;
	ck_assert_uint_eq(bad, 0);
	nameset_reset(&set);
	ck_assert_int_eq(nameset_insert(&set, hash_of(7)), 0);
	ck_assert_int_eq(nameset_insert(&set, hash_of(7)), 1);
	ck_assert(!nameset_has(&set, hash_of(8)));
	nameset_free(&set);
}
END_TEST

Suite *nameset_suite(void)
{
	Suite *s = suite_create("nameset");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_grows_and_keeps_all);
	tcase_add_test(tc, test_same_high_bits);
	tcase_add_test(tc, test_reset);
	suite_add_tcase(s, tc);
	return s;
}
