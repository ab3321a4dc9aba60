// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for htree.c: the hashes against values printed by e2fsprogs
 * 1.47 (debugfs "dx_hash -h ALG -s SEED NAME"), signed and unsigned name
 * bytes, the EOF hash remap, and the index geometry.
 */
#include "config.h"

#include <string.h>

#include "error.h"
#include "htree.h"
#include "image.h"
#include "suites.h"

struct golden {
	unsigned int version;
	int seeded;
	const char *name;
	uint32_t hash;
	uint32_t minor;
};

static const struct golden goldens[] = {
	{ DX_HASH_LEGACY, 0, "hello", 0x32252546, 0 },
	{ DX_HASH_LEGACY, 0, "\xc3\xa9\xc2\xa1\xc3\xbc", 0x0638ed90, 0 },
	{ DX_HASH_HALF_MD4, 0, "hello", 0x1746da32, 0x420013b5 },
	{ DX_HASH_HALF_MD4, 0, "a", 0xd5fa7d7a, 0xacb48187 },
	{ DX_HASH_HALF_MD4, 0,
	  "longer_name_for_testing_the_hash_of_more_than_32_bytes_xx",
	  0x18a8e1a8, 0x63cbe098 },
	{ DX_HASH_HALF_MD4, 0, "\xc3\xa9\xc2\xa1\xc3\xbc", 0xd8db0744,
	  0xa52adb07 },
	{ DX_HASH_TEA, 0, "hello", 0x6f5bb1a8, 0x231917c2 },
	{ DX_HASH_TEA, 0,
	  "longer_name_for_testing_the_hash_of_more_than_32_bytes_xx",
	  0x3d59f58a, 0x2715b083 },
	{ DX_HASH_TEA, 0, "\xc3\xa9\xc2\xa1\xc3\xbc", 0x14c931ba,
	  0x77896193 },
	{ DX_HASH_HALF_MD4, 1, "hello", 0xfbc47f58, 0x67b5471f },
	{ DX_HASH_HALF_MD4, 1, "x23456789012345678901234567890123",
	  0x98609fb0, 0x482e640d },
	{ DX_HASH_HALF_MD4, 1, "\xc3\xa9\xc2\xa1\xc3\xbc", 0x52cb8502,
	  0x96009ce5 },
	{ DX_HASH_TEA, 1, "hello", 0x9bef8b3a, 0xc65907c8 },
	{ DX_HASH_TEA, 1, "x23456789012345678901234567890123", 0xc16d8120,
	  0xd920a2d8 },
	{ DX_HASH_LEGACY, 1, "a", 0xe74b53e2, 0 },
};

START_TEST(test_golden)
{
	/* debugfs -s 9f3a0c55-1b2d-4e6f-8a9b-c0d1e2f3a4b5: the UUID bytes
	 * as little-endian words, as s_hash_seed holds them */
	static const uint32_t s[4] = {
		0x550c3a9f, 0x6f4e2d1b, 0xd1c09b8a, 0xb5a4f3e2
	};
	const struct golden *g = &goldens[_i];
	uint32_t h, m;

	ck_assert_int_eq(extkit_dx_hash(g->version, g->seeded ? s : NULL,
					g->name, (uint32_t)strlen(g->name),
					&h, &m), 0);
	ck_assert_msg(h == g->hash, "%s: %08x != %08x", g->name, h, g->hash);
	if (g->version != DX_HASH_LEGACY)
		ck_assert_uint_eq(m, g->minor);
}
END_TEST

/* Unsigned variants differ only for bytes >= 0x80. */
START_TEST(test_unsigned)
{
	uint32_t a, b, v;

	for (v = 0; v < 3; v++) {
		extkit_dx_hash(v, NULL, "plain", 5, &a, NULL);
		extkit_dx_hash(v + 3, NULL, "plain", 5, &b, NULL);
		ck_assert_uint_eq(a, b);
		extkit_dx_hash(v, NULL, "\xe9t\xe9", 3, &a, NULL);
		extkit_dx_hash(v + 3, NULL, "\xe9t\xe9", 3, &b, NULL);
		ck_assert_uint_ne(a, b);
		ck_assert_uint_eq(a & 1, 0);
	}
	ck_assert_int_eq(extkit_dx_hash(DX_HASH_SIPHASH, NULL, "x", 1, &a,
					NULL), -EINVAL);
}
END_TEST

START_TEST(test_geometry)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t nodes;
	uint32_t levels;

	test_image_defaults(&o);
	io = test_image_make(&o);
	fs = test_image_open(io);
	ck_assert_uint_eq(extkit_htree_root_limit(fs), 124);
	ck_assert_uint_eq(extkit_htree_node_limit(fs), 127);
	ck_assert_int_eq(extkit_htree_index_blocks(fs, 124, &nodes, &levels),
			 0);
	ck_assert_uint_eq(nodes, 0);
	ck_assert_uint_eq(levels, 0);
	ck_assert_int_eq(extkit_htree_index_blocks(fs, 125, &nodes, &levels),
			 0);
	ck_assert_uint_eq(nodes, 1);
	ck_assert_uint_eq(levels, 1);
	ck_assert_int_eq(extkit_htree_index_blocks(fs, 124 * 127, &nodes,
						   &levels), 0);
	ck_assert_uint_eq(nodes, 124);
	ck_assert_int_eq(extkit_htree_index_blocks(fs, 124 * 127 + 1, &nodes,
						   &levels), -EFBIG);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

/* The root's version made unsigned when s_flags says so; siphash and
 * versions past it as they are. */
START_TEST(test_version)
{
	struct extkit_fs fs;

	memset(&fs, 0, sizeof(fs));
	for (unsigned int v = 0; v <= DX_HASH_TEA; v++)
		ck_assert_uint_eq(extkit_htree_version(&fs, v), v);
	fs.sb.flags = EXT2_FLAGS_UNSIGNED_HASH;
	for (unsigned int v = 0; v <= DX_HASH_TEA; v++)
		ck_assert_uint_eq(extkit_htree_version(&fs, v), v + 3);
	ck_assert_uint_eq(extkit_htree_version(&fs, DX_HASH_SIPHASH),
			  DX_HASH_SIPHASH);
	fs.sb.flags = EXT2_FLAGS_SIGNED_HASH;
	ck_assert_uint_eq(extkit_htree_version(&fs, DX_HASH_TEA), DX_HASH_TEA);
}
END_TEST

Suite *htree_suite(void)
{
	Suite *s = suite_create("htree");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_golden, 0,
			    (int)(sizeof(goldens) / sizeof(goldens[0])));
	tcase_add_test(tc, test_unsigned);
	tcase_add_test(tc, test_geometry);
	tcase_add_test(tc, test_version);
	suite_add_tcase(s, tc);
	return s;
}
