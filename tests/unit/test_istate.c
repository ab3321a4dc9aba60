// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for fsck's per-inode state (fsck/istate.c, istate.h): the
 * four-bit codes (in use, file type, empty regular file) of neighbouring
 * inodes kept apart, and the rare states (zero links, shared blocks)
 * beside them, against a plain array of what was set.
 */
#include "config.h"

#include <string.h>

#include "../../fsck/istate.h"
#include "suites.h"

#define N 1001u		/* inode numbers 0..N, N odd: a last half byte */

struct want {
	int used, empty, zero_link, dup;
	uint8_t ft;
};

static struct want want[N + 1];

static void check_all(const struct fsck_istate *s)
{
	for (uint32_t ino = 0; ino <= N; ino++) {
		const struct want *w = &want[ino];

		ck_assert_msg(fsck_istate_used(s, ino) == w->used,
			      "inode %u used", ino);
		ck_assert_msg(fsck_istate_ftype(s, ino) == w->ft,
			      "inode %u type %u, not %u", ino,
			      fsck_istate_ftype(s, ino), w->ft);
		ck_assert_msg(fsck_istate_empty_reg(s, ino) == w->empty,
			      "inode %u empty", ino);
		ck_assert_msg(fsck_istate_zero_link(s, ino) == w->zero_link,
			      "inode %u zero link", ino);
		ck_assert_msg(fsck_istate_dup(s, ino) == w->dup,
			      "inode %u dup", ino);
	}
}

static void set(struct fsck_istate *s, uint32_t ino, uint8_t ft, int empty)
{
	fsck_istate_set(s, ino, ft, empty);
	want[ino].used = 1;
	want[ino].ft = ft;
	want[ino].empty = empty && ft == EXT2_FT_REG_FILE;
}

START_TEST(test_codes)
{
	struct fsck_istate s;

	memset(want, 0, sizeof(want));
	ck_assert_int_eq(fsck_istate_init(&s, N), 0);
	check_all(&s);
	/* every type, empty or not, in both halves of a byte */
	for (uint8_t ft = 0; ft < 8; ft++)
		for (int empty = 0; empty < 2; empty++) {
			set(&s, 10, ft, empty);
			set(&s, 11, (uint8_t)(7 - ft), !empty);
			check_all(&s);
		}
	set(&s, N, EXT2_FT_DIR, 0);
	set(&s, N - 1, EXT2_FT_REG_FILE, 1);
	check_all(&s);
	/* in use without a type; a type kept when marked again */
	fsck_istate_mark_used(&s, 20);
	want[20].used = 1;
	fsck_istate_mark_used(&s, N);
	check_all(&s);
	fsck_istate_clear(&s, 11);
	memset(&want[11], 0, sizeof(want[11]));
	check_all(&s);
	fsck_istate_free(&s);
}
END_TEST

START_TEST(test_rare_states)
{
	struct fsck_istate s;

	memset(want, 0, sizeof(want));
	ck_assert_int_eq(fsck_istate_init(&s, N), 0);
	set(&s, 30, EXT2_FT_REG_FILE, 1);
	fsck_istate_set_zero_link(&s, 30, 1);
	want[30].zero_link = 1;
	fsck_istate_set_dup(&s, 31, 1);		/* before it is recorded */
	want[31].dup = 1;
	set(&s, 31, EXT2_FT_SYMLINK, 0);
	fsck_istate_set_dup(&s, N, 1);
	want[N].dup = 1;
	check_all(&s);
	fsck_istate_set_zero_link(&s, 30, 0);
	want[30].zero_link = 0;
	fsck_istate_set_dup(&s, 32, 0);		/* never set: stays clear */
	check_all(&s);
	/* clearing an inode drops its rare states too */
	fsck_istate_set_zero_link(&s, 31, 1);
	fsck_istate_clear(&s, 31);
	memset(&want[31], 0, sizeof(want[31]));
	check_all(&s);
	/* inode 0 has no rare states */
	fsck_istate_set_dup(&s, 0, 1);
	fsck_istate_set_zero_link(&s, 0, 1);
	check_all(&s);
	fsck_istate_free(&s);
}
END_TEST

/* The inodes in use, in order, across pages never written and pages
 * whose inodes were all cleared again. */
START_TEST(test_next_used)
{
	struct fsck_istate s;
	const uint32_t n = 5u << IST_PAGE_SHIFT;	/* five pages and one */
	const uint32_t used[] = { 1, 2, 8191, 8192, 3 * 8192 + 5, n };

	ck_assert_int_eq(fsck_istate_init(&s, n), 0);
	ck_assert_uint_eq(fsck_istate_next_used(&s, 1), (uint64_t)n + 1);
	for (unsigned int i = 0; i < 6; i++)
		fsck_istate_set(&s, used[i], EXT2_FT_REG_FILE, i & 1);
	fsck_istate_set(&s, 2 * 8192 + 7, EXT2_FT_DIR, 0);
	fsck_istate_mark_used(&s, 2 * 8192 + 9);
	fsck_istate_clear(&s, 2 * 8192 + 7);
	fsck_istate_clear(&s, 2 * 8192 + 9);	/* that page is empty again */
	fsck_istate_clear(&s, 2 * 8192 + 9);	/* a clear of a free one */
	ck_assert_uint_eq(s.page_written[1], 1);
	ck_assert_uint_eq(s.page_written[4], 0);	/* never written */
	for (unsigned int i = 0; i < 6; i++) {
		uint64_t from = i ? (uint64_t)used[i - 1] + 1 : 1;

		ck_assert_uint_eq(fsck_istate_next_used(&s, from), used[i]);
	}
	ck_assert_uint_eq(fsck_istate_next_used(&s, (uint64_t)n + 1),
			  (uint64_t)n + 1);
	/* codes counted over ranges across pages, the last one cut short */
	fsck_istate_set(&s, 8190, EXT2_FT_DIR, 0);
	fsck_istate_set(&s, 4 * 8192 + 1, EXT2_FT_DIR, 1);
	ck_assert_uint_eq(fsck_istate_count_code(&s, 1, n,
			  IST_TYPED | EXT2_FT_DIR), 2);
	ck_assert_uint_eq(fsck_istate_count_code(&s, 8191, n,
			  IST_TYPED | EXT2_FT_DIR), 1);
	ck_assert_uint_eq(fsck_istate_count_code(&s, 1, 8190,
			  IST_TYPED | EXT2_FT_DIR), 1);
	ck_assert_uint_eq(fsck_istate_count_code(&s, 1, 8189,
			  IST_TYPED | EXT2_FT_DIR), 0);
	ck_assert_uint_eq(fsck_istate_count_code(&s, 1, n,
			  IST_EMPTY_REG), 3);	/* 2, 8192, n */
	fsck_istate_free(&s);
}
END_TEST

Suite *istate_suite(void)
{
	Suite *s = suite_create("istate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_codes);
	tcase_add_test(tc, test_rare_states);
	tcase_add_test(tc, test_next_used);
	suite_add_tcase(s, tc);
	return s;
}
