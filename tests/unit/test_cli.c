// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the tools' command-line layer (lib/cli): the number rule
 * (decimal, 0x hex, 0 octal, no sign, whole text, range), sizes with
 * every suffix mke2fs takes, UUID words, the label limit, and taking
 * positional arguments.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <popt.h>

#include "cli/image.h"
#include "cli/msg.h"
#include "cli/parse.h"
#include "suites.h"

const char cli_prog[] = "check-all";

START_TEST(test_u64_accepts)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "0", 0 }, { "7", 7 }, { "1024", 1024 }, { "0x400", 1024 },
		{ "0X1f", 31 }, { "010", 8 },
		{ "18446744073709551615", UINT64_MAX },
		{ "0xffffffffffffffff", UINT64_MAX },
	};
	uint64_t v;

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 12345;
		ck_assert_int_eq(cli_parse_u64(ok[i].s, &v), 0);
		ck_assert_uint_eq(v, ok[i].v);
	}
}
END_TEST

START_TEST(test_u64_refuses)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "x1", "1x", "08", "0x", "1K",
		"1.5",
	};
	uint64_t v = 99;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cli_parse_u64(bad[i], &v) == -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(cli_parse_u64("18446744073709551616", &v), -ERANGE);
	ck_assert_int_eq(cli_parse_u64("0x10000000000000000", &v), -ERANGE);
	ck_assert_uint_eq(v, 99);
}
END_TEST

START_TEST(test_size_suffixes)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "8", 8 * 1024 }, { "8K", 8 << 10 }, { "8k", 8 << 10 },
		{ "3M", 3ULL << 20 }, { "2g", 2ULL << 30 },
		{ "5T", 5ULL << 40 }, { "1P", 1ULL << 50 },
		{ "1e", 1ULL << 60 }, { "15E", 15ULL << 60 },
		{ "16s", 16 * 512 }, { "0x10M", 16ULL << 20 },
		{ "0x1E", 30 * 1024 }, { "0", 0 },
	};
	uint64_t v;

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(cli_parse_size(ok[i].s, 1024, &v) == 0,
			      "'%s' refused", ok[i].s);
		ck_assert_uint_eq(v, ok[i].v);
	}
	ck_assert_int_eq(cli_parse_size("4096", 1, &v), 0);
	ck_assert_uint_eq(v, 4096);
}
END_TEST

START_TEST(test_size_refuses)
{
	static const char *const bad[] = {
		"", "M", "-8M", "8Q", "8MB", "8 M", "8S", "K8", "1.5G",
	};
	uint64_t v;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cli_parse_size(bad[i], 1024, &v) == -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(cli_parse_size("16E", 1, &v), -ERANGE);
	ck_assert_int_eq(cli_parse_size("18446744073709551615", 2, &v),
			 -ERANGE);
}
END_TEST

START_TEST(test_uuid_words)
{
	static const uint8_t zero[16];
	static const uint8_t golden[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};
	uint8_t a[16], b[16];

	ck_assert_int_eq(cli_parse_uuid(
		"01234567-89ab-cdef-0123-456789ABCDEF", a), 0);
	ck_assert_mem_eq(a, golden, 16);
	ck_assert_int_eq(cli_parse_uuid("clear", a), 0);
	ck_assert_mem_eq(a, zero, 16);
	memset(a, 1, sizeof(a));
	ck_assert_int_eq(cli_parse_uuid("null", a), 0);
	ck_assert_mem_eq(a, zero, 16);
	memset(a, 1, sizeof(a));
	ck_assert_int_eq(cli_parse_uuid("CLEAR", a), 0);	/* as mke2fs */
	ck_assert_mem_eq(a, zero, 16);
	ck_assert_int_eq(cli_parse_uuid("random", a), 0);
	ck_assert_int_eq(cli_parse_uuid("random", b), 0);
	ck_assert_int_ne(memcmp(a, b, 16), 0);
	ck_assert_int_eq(cli_parse_uuid("time", a), 0);
	ck_assert_int_ne(memcmp(a, zero, 16), 0);
	ck_assert_int_eq(cli_parse_uuid("not-a-uuid", a), -EINVAL);
	ck_assert_int_eq(cli_parse_uuid("", a), -EINVAL);
	ck_assert_int_eq(cli_parse_uuid("01234567-89ab-cdef-0123-456789abcde",
					a), -EINVAL);
}
END_TEST

START_TEST(test_label_limit)
{
	ck_assert(cli_label_fits(""));
	ck_assert(cli_label_fits("0123456789abcdef"));
	ck_assert(!cli_label_fits("0123456789abcdefg"));
	{
		char fits[] = "0123456789abcdef", longer[] = "0123456789abcdefg";

		cli_fit_label(fits);
		cli_fit_label(longer);
		ck_assert_str_eq(fits, "0123456789abcdef");
		ck_assert_str_eq(longer, "0123456789abcdef");
	}
}
END_TEST

/* Runs cli_take_args over "prog" and words (NULL-terminated). */
static int take(const char *const *words, char **out, int n, int rest)
{
	const char *argv[8] = { "prog" };
	struct poptOption table[] = { POPT_TABLEEND };
	poptContext pc;
	int argc = 1, rc;

	while (words[argc - 1])
		argv[argc] = words[argc - 1], argc++;
	pc = poptGetContext("prog", argc, argv, table, 0);
	while (poptGetNextOpt(pc) > 0)
		;
	rc = cli_take_args(pc, out, n, rest);
	poptFreeContext(pc);
	return rc;
}

START_TEST(test_take_args)
{
	static const char *const none[] = { NULL };
	static const char *const one[] = { "img", NULL };
	static const char *const three[] = { "img", "8M", "junk", NULL };
	char *out[2];

	ck_assert_int_eq(take(none, out, 2, 0), -EINVAL);
	ck_assert_ptr_null(out[0]);
	ck_assert_int_eq(take(one, out, 2, 0), 0);
	ck_assert_str_eq(out[0], "img");
	ck_assert_ptr_null(out[1]);
	free(out[0]);
	ck_assert_int_eq(take(three, out, 2, 0), -EINVAL);
	ck_assert_ptr_null(out[0]);
	ck_assert_ptr_null(out[1]);
	ck_assert_int_eq(take(three, out, 1, 1), 0);
	ck_assert_str_eq(out[0], "img");
	free(out[0]);
}
END_TEST

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fclose(f);
}

/* TARGET, TARGET@N, --partition and --offset into a path and a place;
 * two places, or a bad number, refused. (Its complaints go to stderr.) */
START_TEST(test_image_resolve)
{
	const char *dir = getenv("TMPDIR");
	struct extkit_image_loc loc;
	struct cli_image img = { 0 };
	char base[256], t[300], *path = NULL;

	snprintf(base, sizeof(base), "%s/extkit-cli-%ld.img",
		 dir ? dir : "/tmp", (long)getpid());
	touch(base);
	snprintf(t, sizeof(t), "%s@12", base);
	ck_assert_int_eq(cli_image_resolve(&img, t, &path, &loc), 0);
	ck_assert_str_eq(path, base);
	ck_assert_uint_eq(loc.partition, 12);
	ck_assert_uint_eq(loc.offset, 0);
	free(path);
	/* a file named so itself is that file */
	touch(t);
	ck_assert_int_eq(cli_image_resolve(&img, t, &path, &loc), 0);
	ck_assert_str_eq(path, t);
	ck_assert_uint_eq(loc.partition, 0);
	free(path);
	unlink(t);
	/* @0, or IMAGE missing: a path as it stands */
	snprintf(t, sizeof(t), "%s@0", base);
	ck_assert_int_eq(cli_image_resolve(&img, t, &path, &loc), 0);
	ck_assert_str_eq(path, t);
	ck_assert_uint_eq(loc.partition, 0);
	free(path);
	ck_assert_int_eq(cli_image_resolve(&img, "/nonexistent/x@2", &path,
					   &loc), 0);
	ck_assert_str_eq(path, "/nonexistent/x@2");
	ck_assert_uint_eq(loc.partition, 0);
	free(path);
	/* the options */
	img.partition = strdup("3");
	ck_assert_int_eq(cli_image_resolve(&img, base, &path, &loc), 0);
	ck_assert_uint_eq(loc.partition, 3);
	free(path);
	snprintf(t, sizeof(t), "%s@2", base);
	ck_assert_int_eq(cli_image_resolve(&img, t, &path, &loc), 1);
	img.offset = strdup("1M");
	ck_assert_int_eq(cli_image_resolve(&img, base, &path, &loc), 1);
	cli_image_free(&img);
	ck_assert_ptr_null(img.offset);
	ck_assert_ptr_null(img.partition);
	img.offset = strdup("2s");
	ck_assert_int_eq(cli_image_resolve(&img, base, &path, &loc), 0);
	ck_assert_uint_eq(loc.offset, 1024);
	ck_assert_uint_eq(loc.partition, 0);
	free(path);
	ck_assert_int_eq(cli_image_resolve(&img, t, &path, &loc), 1);
	cli_image_free(&img);
	img.partition = strdup("0");
	ck_assert_int_eq(cli_image_resolve(&img, base, &path, &loc), 1);
	cli_image_free(&img);
	img.offset = strdup("lots");
	ck_assert_int_eq(cli_image_resolve(&img, base, &path, &loc), 1);
	cli_image_free(&img);
	unlink(base);
}
END_TEST

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_u64_accepts);
	tcase_add_test(tc, test_u64_refuses);
	tcase_add_test(tc, test_size_suffixes);
	tcase_add_test(tc, test_size_refuses);
	tcase_add_test(tc, test_uuid_words);
	tcase_add_test(tc, test_label_limit);
	tcase_add_test(tc, test_take_args);
	tcase_add_test(tc, test_image_resolve);
	suite_add_tcase(s, tc);
	return s;
}
