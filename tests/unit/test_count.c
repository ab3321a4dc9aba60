// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for fsck's per-inode counters (fsck/count.c, count.h): the
 * inline get and set of a value kept in place (0, 1, 2 in two bits), the
 * overflow table for the others, and the way between them, against a
 * plain array of the expected values.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../fsck/count.h"
#include "suites.h"

#define N 5000u		/* inode numbers 0..N */

static uint32_t want[N + 1];

static void check_all(const struct fsck_count *c)
{
	for (uint32_t ino = 0; ino <= N; ino++)
		ck_assert_msg(fsck_count_get(c, ino) == want[ino],
			      "inode %u: %u, not %u", ino,
			      fsck_count_get(c, ino), want[ino]);
}

static void set(struct fsck_count *c, uint32_t ino, uint32_t v)
{
	ck_assert_int_eq(fsck_count_set(c, ino, v), 0);
	want[ino] = v > 65535 ? 65535 : v;
}

START_TEST(test_in_place_and_neighbours)
{
	struct fsck_count c;

	memset(want, 0, sizeof(want));
	ck_assert_int_eq(fsck_count_init(&c, N), 0);
	check_all(&c);
	/* the four inodes of one byte, each value in turn */
	for (uint32_t v = 0; v < 3; v++)
		for (uint32_t ino = 8; ino < 12; ino++) {
			set(&c, ino, v);
			check_all(&c);
		}
	set(&c, 9, 1);
	set(&c, 10, 2);
	set(&c, N, 2);
	check_all(&c);
	ck_assert_uint_eq(c.big_n, 0);	/* nothing went to the table */
	fsck_count_free(&c);
}
END_TEST

START_TEST(test_overflow_and_back)
{
	struct fsck_count c;

	memset(want, 0, sizeof(want));
	ck_assert_int_eq(fsck_count_init(&c, N), 0);
	set(&c, 4, 1);
	set(&c, 5, 3);		/* to the table, beside in-place values */
	set(&c, 6, 2);
	set(&c, 7, 70000);	/* saturates at the largest i_links_count */
	check_all(&c);
	set(&c, 5, 1);		/* a small value again: read back as set */
	set(&c, 7, 0);
	check_all(&c);
	set(&c, 5, 4);
	check_all(&c);
	/* counted up one by one, as pass 2 counts names */
	for (uint32_t k = 0; k < 10; k++)
		set(&c, 100, fsck_count_get(&c, 100) + 1);
	ck_assert_uint_eq(fsck_count_get(&c, 100), 10);
	/* many in the table: it grows and keeps them all */
	for (uint32_t ino = 1000; ino < 3000; ino += 3)
		set(&c, ino, 3 + ino);
	check_all(&c);
	fsck_count_free(&c);
}
END_TEST

START_TEST(test_past_the_end)
{
	struct fsck_count c;

	ck_assert_int_eq(fsck_count_init(&c, N), 0);
	ck_assert_int_eq(fsck_count_set(&c, N + 1, 1), -EINVAL);
	ck_assert_int_eq(fsck_count_set(&c, N + 1, 5), -EINVAL);
	ck_assert_int_eq(fsck_count_set(&c, UINT32_MAX, 1), -EINVAL);
	ck_assert_uint_eq(fsck_count_get(&c, N + 1), 0);
	ck_assert_uint_eq(fsck_count_get(&c, UINT32_MAX), 0);
	fsck_count_free(&c);
}
END_TEST

Suite *count_suite(void)
{
	Suite *s = suite_create("count");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_in_place_and_neighbours);
	tcase_add_test(tc, test_overflow_and_back);
	tcase_add_test(tc, test_past_the_end);
	suite_add_tcase(s, tc);
	return s;
}
