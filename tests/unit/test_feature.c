// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for feature.c: feature names as e2fsprogs prints them (the
 * first name of a bit; FEATURE_<C|I|R><n> for a bit without one),
 * lookups by name and alias, case-insensitive, and unknown names.
 */
#include "config.h"

#include "error.h"
#include "feature.h"
#include "ondisk.h"
#include "suites.h"

START_TEST(test_names)
{
	char buf[EXTKIT_FEATURE_SPELL_MAX];

	ck_assert_str_eq(extkit_feature_name(EXTKIT_COMPAT,
			 EXT2_FEATURE_COMPAT_DIR_INDEX), "dir_index");
	ck_assert_str_eq(extkit_feature_name(EXTKIT_INCOMPAT,
			 EXT4_FEATURE_INCOMPAT_EXTENTS), "extent");
	ck_assert_str_eq(extkit_feature_name(EXTKIT_RO_COMPAT,
			 EXT4_FEATURE_RO_COMPAT_GDT_CSUM), "uninit_bg");
	ck_assert_ptr_null(extkit_feature_name(EXTKIT_COMPAT, 1u << 31));
	ck_assert_str_eq(extkit_feature_spell(EXTKIT_COMPAT, 1u << 31, buf),
			 "FEATURE_C31");
	ck_assert_str_eq(extkit_feature_spell(EXTKIT_INCOMPAT, 1u << 30, buf),
			 "FEATURE_I30");
	ck_assert_str_eq(extkit_feature_spell(EXTKIT_RO_COMPAT,
			 EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, buf),
			 "metadata_csum");
}
END_TEST

START_TEST(test_lookup)
{
	enum extkit_feature_kind kind;
	uint32_t bit;

	ck_assert_int_eq(extkit_feature_lookup("extents", &kind, &bit), 0);
	ck_assert_int_eq(kind, EXTKIT_INCOMPAT);
	ck_assert_uint_eq(bit, EXT4_FEATURE_INCOMPAT_EXTENTS);
	ck_assert_int_eq(extkit_feature_lookup("Has_Journal", &kind, &bit), 0);
	ck_assert_int_eq(kind, EXTKIT_COMPAT);
	ck_assert_uint_eq(bit, EXT3_FEATURE_COMPAT_HAS_JOURNAL);
	ck_assert_int_eq(extkit_feature_lookup("uninit_groups", &kind, &bit),
			 0);
	ck_assert_uint_eq(bit, EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
	ck_assert_int_eq(extkit_feature_lookup("no_such", &kind, &bit),
			 -ENOENT);
	ck_assert_int_eq(extkit_feature_lookup("", &kind, &bit), -ENOENT);
	/* every named bit looks up to itself */
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 32; i++) {
			const char *n = extkit_feature_name(k, 1u << i);

			if (!n)
				continue;
			ck_assert_int_eq(extkit_feature_lookup(n, &kind, &bit),
					 0);
			ck_assert_int_eq(kind, k);
			ck_assert_uint_eq(bit, 1u << i);
		}
}
END_TEST

Suite *feature_suite(void)
{
	Suite *s = suite_create("feature");
	TCase *tc = tcase_create("feature");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_lookup);
	suite_add_tcase(s, tc);
	return s;
}
