// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for clock.c: SOURCE_DATE_EPOCH first, then EXTKIT_FAKE_TIME,
 * then the system clock; a set variable that is not a decimal number of
 * seconds below 2^32 is refused and named.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "error.h"
#include "suites.h"

static char *saved[2];

static void save_env(void)
{
	const char *a = getenv("SOURCE_DATE_EPOCH");
	const char *b = getenv("EXTKIT_FAKE_TIME");

	saved[0] = a ? strdup(a) : NULL;
	saved[1] = b ? strdup(b) : NULL;
	unsetenv("SOURCE_DATE_EPOCH");
	unsetenv("EXTKIT_FAKE_TIME");
}

static void restore_env(void)
{
	static const char *const names[2] = { "SOURCE_DATE_EPOCH",
					      "EXTKIT_FAKE_TIME" };

	for (int i = 0; i < 2; i++) {
		if (saved[i])
			setenv(names[i], saved[i], 1);
		else
			unsetenv(names[i]);
		free(saved[i]);
		saved[i] = NULL;
	}
}

START_TEST(test_order)
{
	const char *bad = NULL;
	uint32_t now = 0;
	int fixed = -1;

	save_env();
	ck_assert_int_eq(extkit_clock_now(&now, &fixed, &bad), 0);
	ck_assert_int_eq(fixed, 0);
	ck_assert_uint_ge(now, 1700000000u);
	setenv("EXTKIT_FAKE_TIME", "1234", 1);
	ck_assert_int_eq(extkit_clock_now(&now, &fixed, &bad), 0);
	ck_assert_uint_eq(now, 1234);
	ck_assert_int_eq(fixed, 1);
	setenv("SOURCE_DATE_EPOCH", "4294967295", 1);
	ck_assert_int_eq(extkit_clock_now(&now, NULL, NULL), 0);
	ck_assert_uint_eq(now, 4294967295u);
	setenv("SOURCE_DATE_EPOCH", "", 1);	/* empty: not set */
	ck_assert_int_eq(extkit_clock_now(&now, NULL, NULL), 0);
	ck_assert_uint_eq(now, 1234);
	restore_env();
}
END_TEST

START_TEST(test_refusals)
{
	static const char *const bad_values[] = { "4294967296", "-1", "12x",
						  " 5", "0x10" };
	const char *bad = NULL;
	uint32_t now;

	save_env();
	for (unsigned int i = 0; i < 5; i++) {
		setenv("SOURCE_DATE_EPOCH", bad_values[i], 1);
		bad = NULL;
		ck_assert_int_eq(extkit_clock_now(&now, NULL, &bad), -EINVAL);
		ck_assert_str_eq(bad, "SOURCE_DATE_EPOCH");
	}
	unsetenv("SOURCE_DATE_EPOCH");
	setenv("EXTKIT_FAKE_TIME", "soon", 1);
	ck_assert_int_eq(extkit_clock_now(&now, NULL, &bad), -EINVAL);
	ck_assert_str_eq(bad, "EXTKIT_FAKE_TIME");
	restore_env();
}
END_TEST

Suite *clock_suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("clock");

	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	return s;
}
