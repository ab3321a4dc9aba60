// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for casefold.c: folding as the kernel's utf8-12.1 does it
 * (case, full folding of ß, canonical decomposition, Default_Ignorable
 * code points dropped), the names that do not fold (ill-formed bytes, a
 * surrogate, a continuation byte first, a fold longer than the buffer),
 * the stray continuation byte after ASCII passed through, the position of
 * the first ill-formed sequence, and the assigned code points of 12.1.
 */
#include "config.h"

#include <string.h>

#include "casefold.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"
#include "suites.h"

static int fold(const char *in, char *out, size_t outsz)
{
	return extkit_casefold(in, (uint32_t)strlen(in), out, outsz);
}

static void fold_is(const char *in, const char *want)
{
	char out[64];
	int n = fold(in, out, sizeof(out));

	ck_assert_int_eq(n, (int)strlen(want));
	ck_assert_mem_eq(out, want, (size_t)n);
}

START_TEST(test_folds)
{
	fold_is("ABC", "abc");
	fold_is("already", "already");
	fold_is("Stra\xc3\x9f" "e", "strasse");		/* ß: full folding */
	fold_is("\xe1\xba\x9e", "ss");			/* capital sharp s */
	fold_is("\xc3\x89", "e\xcc\x81");		/* É: NFD */
	fold_is("a\xc2\xad" "b", "ab");			/* soft hyphen */
	fold_is("a\x80", "a\x80");			/* stray byte kept */
}
END_TEST

START_TEST(test_refusals)
{
	char out[64];

	ck_assert_int_eq(fold("\xff", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(fold("\xed\xa0\x80", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(fold("\x80" "a", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(fold("abc\xc3", out, sizeof(out)), -EINVAL);
	/* "strasse" needs 7 bytes */
	ck_assert_int_eq(fold("Stra\xc3\x9f" "e", out, 6), -EINVAL);
}
END_TEST

START_TEST(test_invalid_at)
{
	ck_assert_int_eq(extkit_utf8_invalid_at("abc", 3), -1);
	ck_assert_int_eq(extkit_utf8_invalid_at("ab\xff" "c", 4), 2);
	ck_assert_int_eq(extkit_utf8_invalid_at("\xc3\xa9\xed\xa0\x80", 5),
			 2);
	ck_assert_int_eq(extkit_utf8_invalid_at("\xc3", 1), 0);
}
END_TEST

START_TEST(test_assigned)
{
	ck_assert(extkit_utf8_12_1_is_assigned(0x41));
	ck_assert(extkit_utf8_12_1_is_assigned(0x1e9e));
	ck_assert(!extkit_utf8_12_1_is_assigned(0x378));	/* never */
	ck_assert(!extkit_utf8_12_1_is_assigned(0xd800));	/* surrogate */
	ck_assert(!extkit_utf8_12_1_is_assigned(0x1f6d6));	/* 13.0 */
	ck_assert(extkit_utf8_12_1_is_assigned(0x1f6d5));	/* 12.0 */
}
END_TEST

/* Folded names: the feature, the flag, the one encoding, and not an
 * encrypted directory. */
START_TEST(test_dir_is_casefolded)
{
	struct extkit_fs fs;

	memset(&fs, 0, sizeof(fs));
	fs.sb.feature_incompat = EXT4_FEATURE_INCOMPAT_CASEFOLD;
	fs.sb.encoding = EXTKIT_ENC_UTF8_12_1;
	ck_assert_int_eq(extkit_dir_is_casefolded(&fs, EXT4_CASEFOLD_FL), 1);
	ck_assert_int_eq(extkit_dir_is_casefolded(&fs, 0), 0);
	ck_assert_int_eq(extkit_dir_is_casefolded(&fs, EXT4_CASEFOLD_FL |
						  EXT4_ENCRYPT_FL), 0);
	fs.sb.encoding = 2;
	ck_assert_int_eq(extkit_dir_is_casefolded(&fs, EXT4_CASEFOLD_FL), 0);
	fs.sb.encoding = EXTKIT_ENC_UTF8_12_1;
	fs.sb.feature_incompat = 0;
	ck_assert_int_eq(extkit_dir_is_casefolded(&fs, EXT4_CASEFOLD_FL), 0);
}
END_TEST

static int eq(const char *a, const char *b)
{
	return extkit_casefold_name_eq(a, (uint32_t)strlen(a), b,
				       (uint32_t)strlen(b));
}

/* The same name when the folds are equal; bytes when either does not
 * fold (ext4_ci_compare). */
START_TEST(test_name_eq)
{
	ck_assert_int_eq(eq("README", "readme"), 1);
	ck_assert_int_eq(eq("Stra\xc3\x9f" "e", "STRASSE"), 1);
	ck_assert_int_eq(eq("\xc3\xa9t\xc3\xa9", "e\xcc\x81t\xc3\x89"), 1);
	ck_assert_int_eq(eq("a\xc2\xad" "b", "ab"), 1);	/* soft hyphen */
	ck_assert_int_eq(eq("abc", "abd"), 0);
	ck_assert_int_eq(eq("abc", "abcd"), 0);
	ck_assert_int_eq(eq("x\xff", "x\xff"), 1);	/* no fold: bytes */
	ck_assert_int_eq(eq("X\xff", "x\xff"), 0);
	ck_assert_int_eq(eq("x\xff", "x"), 0);
}
END_TEST

static int unhashable(const struct extkit_fs *fs, uint32_t flags,
		      const char *name)
{
	return extkit_casefold_name_unhashable(fs, flags, name,
					       (uint32_t)strlen(name));
}

/* No hash both agree on: an ill-formed sequence in a casefolded
 * directory, but for a stray continuation byte after ASCII and a name
 * starting with one (both hashed as bytes). */
START_TEST(test_name_unhashable)
{
	const uint32_t cf = EXT4_CASEFOLD_FL;
	struct extkit_fs fs;

	memset(&fs, 0, sizeof(fs));
	fs.sb.feature_incompat = EXT4_FEATURE_INCOMPAT_CASEFOLD;
	fs.sb.encoding = EXTKIT_ENC_UTF8_12_1;
	ck_assert_int_eq(unhashable(&fs, cf, "plain"), 0);
	ck_assert_int_eq(unhashable(&fs, cf, "\xc3\xa9t\xc3\xa9"), 0);
	ck_assert_int_eq(unhashable(&fs, cf, "a\xff" "b"), 1);
	ck_assert_int_eq(unhashable(&fs, cf, "ab\xed\xa0\x80"), 1);
	ck_assert_int_eq(unhashable(&fs, cf, "a\x80"), 0);	/* stray */
	ck_assert_int_eq(unhashable(&fs, cf, "\x80" "abc\xff"), 0);
	ck_assert_int_eq(unhashable(&fs, 0, "a\xff" "b"), 0);
	ck_assert_int_eq(unhashable(&fs, cf, ""), 0);
}
END_TEST

Suite *casefold_suite(void)
{
	Suite *s = suite_create("casefold");
	TCase *tc = tcase_create("casefold");

	tcase_add_test(tc, test_folds);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_invalid_at);
	tcase_add_test(tc, test_assigned);
	tcase_add_test(tc, test_dir_is_casefolded);
	tcase_add_test(tc, test_name_eq);
	tcase_add_test(tc, test_name_unhashable);
	suite_add_tcase(s, tc);
	return s;
}
