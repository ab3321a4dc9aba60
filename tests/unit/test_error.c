// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for error.c: the library's own codes get their own words
 * (not the errno texts they reuse), either sign reads the same, and any
 * other code is strerror's.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "error.h"
#include "suites.h"

START_TEST(test_messages)
{
	ck_assert_str_eq(extkit_strerror(0), "success");
	ck_assert_str_eq(extkit_strerror(-EFSCORRUPTED),
			 "filesystem metadata is corrupted");
	ck_assert_str_eq(extkit_strerror(EFSCORRUPTED),
			 extkit_strerror(-EFSCORRUPTED));
	ck_assert_str_eq(extkit_strerror(-EFSBADCRC),
			 "metadata checksum does not match");
	ck_assert_ptr_nonnull(strstr(extkit_strerror(-EXTKIT_ENOTEXT),
				     "not an ext2/ext3/ext4"));
	ck_assert_ptr_nonnull(strstr(extkit_strerror(-EXTKIT_ETRUNC),
				     "truncated"));
	ck_assert_ptr_nonnull(strstr(extkit_strerror(-EXTKIT_EUNSUPP),
				     "feature"));
	ck_assert_str_eq(extkit_strerror(-ENOENT), strerror(ENOENT));
	ck_assert_str_eq(extkit_strerror(-ENOSPC), strerror(ENOSPC));
}
END_TEST

Suite *error_suite(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("error");

	tcase_add_test(tc, test_messages);
	suite_add_tcase(s, tc);
	return s;
}
