// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the radix sort (lib/keysort.c) and the two orders
 * dirbuild.c sorts with it: by key, stable, against qsort on random keys
 * and on keys sharing most of their bytes; names by bytes then length,
 * with long shared prefixes and names that are prefixes of others; and a
 * laid-out index's entries by (hash, minor hash, name). And dirbuild.c's
 * count (the blocks the layout then gives) and reset.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dirbuild.h"
#include "htree.h"
#include "image.h"
#include "keysort.h"
#include "ondisk.h"
#include "suites.h"

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp_key_then_i(const void *a, const void *b)
{
	const struct extkit_sort_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* keysort against qsort by (key, i): sorted and stable. mask picks the
 * bytes that vary. */
static uint32_t check_keys(uint64_t n, uint64_t mask, uint64_t seed)
{
	struct extkit_sort_key *k = malloc(n * sizeof(*k));
	struct extkit_sort_key *ref = malloc(n * sizeof(*ref));
	uint32_t bad = 0;

	ck_assert(k && ref);
	for (uint64_t i = 0; i < n; i++) {
		k[i].key = (next_rand(&seed) & mask) | 0x0102030400000000ull;
		k[i].i = i;
	}
	memcpy(ref, k, n * sizeof(*k));
	qsort(ref, n, sizeof(*ref), cmp_key_then_i);
	ck_assert_int_eq(extkit_keysort(k, n), 0);
	for (uint64_t i = 0; i < n; i++)
		bad += k[i].key != ref[i].key || k[i].i != ref[i].i;
	free(k);
	free(ref);
	return bad;
}

START_TEST(test_keys_sorted_and_stable)
{
	ck_assert_uint_eq(check_keys(100000, ~0ull, 1), 0);
	/* many equal keys: the order among them kept */
	ck_assert_uint_eq(check_keys(50000, 0xff00, 2), 0);
	ck_assert_uint_eq(check_keys(50000, 0x0f000000000f, 3), 0);
	ck_assert_uint_eq(check_keys(1, ~0ull, 4), 0);
	ck_assert_uint_eq(check_keys(2, 0, 5), 0);
	ck_assert_int_eq(extkit_keysort(NULL, 0), 0);
}
END_TEST

static int cmp_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	return strcmp(x, y);	/* bytes, then the shorter first */
}

/* A name of 1..255 bytes: a shared prefix of plen bytes, then a few
 * bytes from a small alphabet (many names prefixes of others). */
static void make_name(char *out, uint32_t plen, uint64_t *s)
{
	uint32_t len = plen + 1 + (uint32_t)(next_rand(s) % 4);

	if (len > EXT2_NAME_LEN)
		len = EXT2_NAME_LEN;
	memset(out, 'p', plen);
	for (uint32_t j = plen; j < len; j++)
		out[j] = "ab\xc3\xff"[next_rand(s) % 4];
	out[len] = 0;
}

START_TEST(test_names_in_byte_order)
{
	static const uint32_t prefixes[] = { 0, 3, 7, 8, 9, 16, 40, 250 };
	struct extkit_dirbuild db;
	uint64_t s = 99;
	uint32_t bad = 0;

	for (size_t p = 0; p < sizeof(prefixes) / sizeof(*prefixes); p++) {
		const uint32_t n = 3000;
		char (*names)[EXT2_NAME_LEN + 1] = calloc(n, sizeof(*names));
		char **ref = calloc(n, sizeof(*ref));
		uint32_t m = 0;

		ck_assert(names && ref);
		memset(&db, 0, sizeof(db));
		for (uint32_t i = 0; i < n; i++) {
			make_name(names[m], prefixes[p] + i % 3, &s);
			/* a directory holds each name once */
			int dup = 0;
			for (uint32_t j = 0; j < m && !dup; j++)
				dup = !strcmp(names[j], names[m]);
			if (dup)
				continue;
			ck_assert_int_eq(extkit_dirbuild_add(&db, names[m],
				(uint32_t)strlen(names[m]), m + 1, 1), 0);
			ref[m] = names[m];
			m++;
		}
		qsort(ref, m, sizeof(*ref), cmp_names);
		ck_assert_int_eq(extkit_dirbuild_sort_names(&db), 0);
		ck_assert_uint_eq(db.n, m);
		for (uint32_t i = 0; i < m; i++)
			bad += db.e[i].len != strlen(ref[i]) ||
			       memcmp(db.e[i].name, ref[i], db.e[i].len) ||
			       names[db.e[i].ino - 1] != ref[i];
		extkit_dirbuild_free(&db);
		free(names);
		free(ref);
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* An indexed directory's entries, once laid out: by hash, minor hash,
 * then name. */
START_TEST(test_index_in_hash_order)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_dirbuild db;
	char name[32];
	uint32_t bad = 0;

	test_image_defaults(&o);
	o.compat |= EXT2_FEATURE_COMPAT_DIR_INDEX;
	io = test_image_make(&o);
	fs = test_image_open(io);
	extkit_dirbuild_init(&db, fs);
	for (uint32_t i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "entry-%u", i * 7919u);
		ck_assert_int_eq(extkit_dirbuild_add(&db, name,
			(uint32_t)strlen(name), 12 + i, 1), 0);
	}
	db.dot = db.dotdot = EXT2_ROOT_INO;
	ck_assert_int_eq(extkit_dirbuild_layout(&db), 0);
	ck_assert(db.indexed);
	for (uint64_t i = 1; i < db.n; i++) {
		const struct extkit_dirbuild_entry *a = &db.e[i - 1],
						   *b = &db.e[i];
		uint32_t h, mi;

		bad += a->hash > b->hash ||
		       (a->hash == b->hash && a->minor > b->minor);
		ck_assert_int_eq(extkit_htree_hash(fs, 0,
			fs->sb.def_hash_version, b->name, b->len, &h, &mi), 0);
		bad += h != b->hash || mi != b->minor;
	}
	ck_assert_uint_eq(bad, 0);
	extkit_dirbuild_free(&db);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

/* dirbuild.c: the blocks counted before the layout are the blocks laid
 * out (linear and indexed, inode numbers still 0); a reset forgets the
 * entries and the result and the builder serves again. */
START_TEST(test_dirbuild_count_reset)
{
	static const uint32_t sizes[] = { 3, 40, 3000 };
	struct test_image_opts o;
	struct extkit_dirbuild db;
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t blocks;
	char name[48];

	test_image_defaults(&o);
	o.compat |= EXT2_FEATURE_COMPAT_DIR_INDEX;
	io = test_image_make(&o);
	fs = test_image_open(io);
	extkit_dirbuild_init(&db, fs);
	for (unsigned int k = 0; k < 3; k++) {
		for (uint32_t i = 0; i < sizes[k]; i++) {
			snprintf(name, sizeof(name), "a-longer-name-%u-%u", k,
				 i * 7919u);
			ck_assert_int_eq(extkit_dirbuild_add(&db, name,
				(uint32_t)strlen(name), 0, 1), 0);
		}
		ck_assert_uint_eq(db.n, sizes[k]);
		ck_assert_int_eq(extkit_dirbuild_count(&db, &blocks), 0);
		db.dot = db.dotdot = EXT2_ROOT_INO;
		for (uint64_t i = 0; i < db.n; i++)
			db.e[i].ino = 12 + (uint32_t)i;
		ck_assert_int_eq(extkit_dirbuild_layout(&db), 0);
		ck_assert_uint_eq(blocks, db.nout);
		ck_assert_int_eq(db.indexed, k > 0);
		if (k == 0)
			ck_assert_uint_eq(db.nout, 1);
		extkit_dirbuild_reset(&db);
		ck_assert_uint_eq(db.n, 0);
		ck_assert_uint_eq(db.nout, 0);
		ck_assert_int_eq(db.indexed, 0);
	}
	extkit_dirbuild_free(&db);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

Suite *keysort_suite(void)
{
	Suite *s = suite_create("keysort");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_keys_sorted_and_stable);
	tcase_add_test(tc, test_names_in_byte_order);
	tcase_add_test(tc, test_index_in_hash_order);
	tcase_add_test(tc, test_dirbuild_count_reset);
	suite_add_tcase(s, tc);
	return s;
}
