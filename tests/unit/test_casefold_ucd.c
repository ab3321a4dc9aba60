// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for casefold_ucd.c, the tables casefold_gen.py generates
 * from the Unicode Character Database: each sorted, its ranges disjoint
 * and merged, within U+10FFFF.
 * - assigned: every code point of age 12.1 or older but the surrogates:
 *   275,528 of them (12.1's 137,929 graphic and format characters, 65
 *   controls, 137,468 private-use code points, 66 noncharacters), the
 *   additions of 12.0 and 12.1 in, those of 13.0 out;
 * - ignorable: 12.1's Default_Ignorable_Code_Point, reserved ones
 *   included (U+2065, U+E0000), U+180F (an ignorable since 14.0) not.
 */
#include "config.h"

#include "casefold.h"
#include "suites.h"

static void well_formed(const struct extkit_cp_range *r, unsigned int n)
{
	ck_assert_uint_gt(n, 0);
	for (unsigned int i = 0; i < n; i++) {
		ck_assert_uint_le(r[i].first, r[i].last);
		ck_assert_uint_le(r[i].last, 0x10ffff);
		if (i)	/* sorted, disjoint, not touching (merged) */
			ck_assert_uint_gt(r[i].first, r[i - 1].last + 1);
	}
}

static int in(const struct extkit_cp_range *r, unsigned int n, uint32_t cp)
{
	for (unsigned int i = 0; i < n; i++)
		if (r[i].first <= cp && cp <= r[i].last)
			return 1;
	return 0;
}

static int assigned(uint32_t cp)
{
	return in(extkit_utf8_12_1_assigned, extkit_utf8_12_1_assigned_count,
		  cp);
}

static int ignorable(uint32_t cp)
{
	return in(extkit_utf8_12_1_ignorable,
		  extkit_utf8_12_1_ignorable_count, cp);
}

START_TEST(test_tables_well_formed)
{
	well_formed(extkit_utf8_12_1_assigned,
		    extkit_utf8_12_1_assigned_count);
	well_formed(extkit_utf8_12_1_ignorable,
		    extkit_utf8_12_1_ignorable_count);
}
END_TEST

START_TEST(test_assigned)
{
	static const uint32_t yes[] = {
		0x0000, 0x001f, 0x0041,		/* controls, a letter */
		0xe000, 0xf8ff,			/* private use */
		0xfdd0, 0xffff, 0x10ffff,		/* noncharacters */
		0xe0001,				/* a tag */
		0x1f6d5, 0x1fa73, 0xa7c2, 0xa7c6,	/* 12.0 */
		0x32ff,					/* 12.1: Reiwa */
	};
	static const uint32_t no[] = {
		0x0378, 0xd800, 0xdbff, 0xdfff,		/* surrogates */
		0x2065, 0xe0000, 0x180f,
		0x1f6d6, 0x1fa74, 0xa7c7, 0x08be, 0x0d04,	/* 13.0 */
		0x110000,
	};
	uint64_t total = 0;

	for (unsigned int i = 0; i < extkit_utf8_12_1_assigned_count; i++)
		total += extkit_utf8_12_1_assigned[i].last -
			 extkit_utf8_12_1_assigned[i].first + 1;
	ck_assert_uint_eq(total, 137929u + 65u + 137468u + 66u);
	for (unsigned int i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_msg(assigned(yes[i]), "U+%04X", yes[i]);
	for (unsigned int i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_msg(!assigned(no[i]), "U+%04X", no[i]);
	/* the lookup casefold.c uses says the same */
	for (uint32_t cp = 0; cp < 0x20000; cp += 7)
		ck_assert_int_eq(!!extkit_utf8_12_1_is_assigned(cp),
				 assigned(cp));
}
END_TEST

START_TEST(test_ignorable)
{
	static const struct extkit_cp_range want[] = {
		{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x061c, 0x061c },
		{ 0x115f, 0x1160 }, { 0x17b4, 0x17b5 }, { 0x180b, 0x180e },
		{ 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x206f },
		{ 0x3164, 0x3164 }, { 0xfe00, 0xfe0f }, { 0xfeff, 0xfeff },
		{ 0xffa0, 0xffa0 }, { 0xfff0, 0xfff8 }, { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
	};
	const unsigned int n = sizeof(want) / sizeof(want[0]);

	ck_assert_uint_eq(extkit_utf8_12_1_ignorable_count, n);
	for (unsigned int i = 0; i < n; i++) {
		ck_assert_uint_eq(extkit_utf8_12_1_ignorable[i].first,
				  want[i].first);
		ck_assert_uint_eq(extkit_utf8_12_1_ignorable[i].last,
				  want[i].last);
	}
	ck_assert(ignorable(0x2065) && !assigned(0x2065));	/* reserved */
	ck_assert(!ignorable(0x180f));
	ck_assert(!ignorable(0x0041));
}
END_TEST

Suite *casefold_ucd_suite(void)
{
	Suite *s = suite_create("casefold_ucd");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, test_tables_well_formed);
	tcase_add_test(tc, test_assigned);
	tcase_add_test(tc, test_ignorable);
	suite_add_tcase(s, tc);
	return s;
}
