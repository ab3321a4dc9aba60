// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for xattr.c: the entry hash against values e2fsprogs wrote
 * (golden), the block validator on a valid block and on each kind of
 * damage, the signed-char hash variant, and random bytes (no crash, a
 * verdict whatever the input) at 1 KiB and 64 KiB.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "ondisk.h"
#include "xattr.h"
#include "suites.h"

#define BS	1024

/*
 * A block as debugfs 1.47 wrote it for user.x = "hello world" and
 * user.foo = "bar" (1 KiB blocks): entries at 32 and 52, values at 1012
 * and 1008.
 */
static void golden_block(uint8_t *b)
{
	static const uint8_t head[] = {
		0x00, 0x00, 0x02, 0xea, 0x01, 0x00, 0x00, 0x00,
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t entries[] = {
		0x01, 0x01, 0xf4, 0x03, 0x00, 0x00, 0x00, 0x00,
		0x0b, 0x00, 0x00, 0x00, 0x6d, 0x66, 0x1f, 0x4c,
		0x78, 0x00, 0x00, 0x00,
		0x03, 0x01, 0xf0, 0x03, 0x00, 0x00, 0x00, 0x00,
		0x03, 0x00, 0x00, 0x00, 0x63, 0x61, 0xfd, 0x95,
		0x66, 0x6f, 0x6f, 0x00,
	};

	memset(b, 0, BS);
	memcpy(b, head, sizeof(head));
	memcpy(b + 32, entries, sizeof(entries));
	memcpy(b + 1008, "bar", 3);
	memcpy(b + 1012, "hello world", 11);
}

static void fmt_init(struct extkit_xattr_format *fmt, uint32_t bs)
{
	fmt->block_size = bs;
	fmt->first_ino = 11;
	fmt->inodes_count = 2048;
	fmt->ea_inode = 0;
}

static enum extkit_xattr_problem check(const uint8_t *b)
{
	struct extkit_xattr_format fmt;

	fmt_init(&fmt, BS);
	return extkit_xattr_block_check(&fmt, b);
}

/* Recomputes the hash of the entry at off (after an edit). */
static void rehash(uint8_t *b, uint32_t off)
{
	uint32_t voff = get_le16(b + off + 2), size = get_le32(b + off + 8);

	put_le32(b + off + 12, extkit_xattr_hash_entry(b + off + 16, b[off],
						       b + voff, size, 0));
}

START_TEST(test_hash_golden)
{
	const uint8_t *v = (const uint8_t *)"hello world\0";

	ck_assert_uint_eq(extkit_xattr_hash_entry((const uint8_t *)"x", 1, v,
						  11, 0), 0x4c1f666du);
	ck_assert_uint_eq(extkit_xattr_hash_entry((const uint8_t *)"foo", 3,
						  (const uint8_t *)"bar", 3,
						  0), 0x95fd6163u);
	ck_assert_uint_eq(extkit_xattr_hash_entry(NULL, 0, NULL, 0, 0), 0);
}
END_TEST

START_TEST(test_valid)
{
	uint8_t b[BS];

	golden_block(b);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OK);
	ck_assert_uint_eq(extkit_xattr_refcount(b), 1);
	extkit_xattr_set_refcount(b, 7);
	ck_assert_uint_eq(get_le32(b + 4), 7);
	/* h_hash is not checked (e2fsck does not either). */
	put_le32(b + 12, 0xdeadbeef);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OK);
}
END_TEST

START_TEST(test_header)
{
	uint8_t b[BS];

	golden_block(b);
	b[3] = 0xeb;
	ck_assert_int_eq(check(b), EXTKIT_XATTR_BAD_MAGIC);
	golden_block(b);
	put_le32(b + 8, 2);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_BAD_BLOCKS);
}
END_TEST

START_TEST(test_value_bounds)
{
	uint8_t b[BS];

	golden_block(b);
	put_le16(b + 32 + 2, 1020);	/* 11 bytes from 1020 */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_VALUE_PAST_END);
	golden_block(b);
	put_le16(b + 52 + 2, 1022);	/* 3 bytes fit, padded 4 do not */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_VALUE_PAST_END);
	golden_block(b);
	put_le32(b + 32 + 8, 0xfffffff0u);	/* size wraps when padded */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_VALUE_PAST_END);
}
END_TEST

START_TEST(test_overlap)
{
	uint8_t b[BS];

	golden_block(b);
	put_le16(b + 52 + 2, 40);	/* inside the first entry */
	rehash(b, 52);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OVERLAP);
	golden_block(b);
	put_le16(b + 52 + 2, 1016);	/* inside "hello world" */
	rehash(b, 52);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OVERLAP);
	golden_block(b);
	put_le16(b + 52 + 2, 72);	/* the four zero bytes ending the list */
	memset(b + 72, 0, 4);
	rehash(b, 52);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OVERLAP);
	golden_block(b);
	put_le16(b + 52 + 2, 16);	/* inside the header */
	rehash(b, 52);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OVERLAP);
}
END_TEST

START_TEST(test_entries)
{
	uint8_t b[BS];

	golden_block(b);
	b[32 + 1] = 0;			/* name index 0 */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_BAD_NAME_INDEX);
	/* Entries with empty names and values (hash 0) up to the block
	 * end: no end mark. */
	golden_block(b);
	memset(b + 32, 0, BS - 32);
	for (uint32_t off = 32; off < BS; off += 16)
		b[off + 1] = 1;
	ck_assert_int_eq(check(b), EXTKIT_XATTR_ENTRY_PAST_END);
	b[BS - 16 + 1] = 0;		/* the last one becomes the end mark */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OK);
	b[BS - 32] = 16;		/* a name over the end mark: */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_NAME_NUL); /* zeros in it */
	memset(b + BS - 16, 'x', 16);	/* no end mark before the end */
	put_le32(b + BS - 32 + 12,
		 extkit_xattr_hash_entry(b + BS - 16, 16, NULL, 0, 0));
	ck_assert_int_eq(check(b), EXTKIT_XATTR_ENTRY_PAST_END);
	golden_block(b);
	memcpy(b + 200, "bar", 3);	/* "bar" moved to offset 200 */
	memset(b + 1008, 0, 4);
	put_le16(b + 52 + 2, 200);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OK);
	b[52] = 255;			/* a long name runs into it */
	memset(b + 68, 'n', 200 - 68);	/* (no NUL before the value) */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_NAME_NUL); /* "bar\0" */
	b[203] = 'r';			/* the value's padding, taken */
	ck_assert_int_eq(check(b), EXTKIT_XATTR_NAME_NUL); /* past it */
	memset(b + 204, 'n', 68 + 255 - 204);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OVERLAP);
}
END_TEST

START_TEST(test_value_inum)
{
	struct extkit_xattr_format fmt;
	uint8_t b[BS];

	golden_block(b);
	put_le32(b + 32 + 4, 12);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_VALUE_INUM);
	fmt_init(&fmt, BS);
	fmt.ea_inode = 1;
	/* a value inode entry keeps no value offset (e2fsprogs' rule) */
	ck_assert_int_eq(extkit_xattr_block_check(&fmt, b),
			 EXTKIT_XATTR_INUM_VALUE);
	put_le16(b + 32 + 2, 0);
	ck_assert_int_eq(extkit_xattr_block_check(&fmt, b), EXTKIT_XATTR_OK);
	put_le32(b + 32 + 8, 65537);
	ck_assert_int_eq(extkit_xattr_block_check(&fmt, b),
			 EXTKIT_XATTR_INUM_VALUE);
	put_le32(b + 32 + 8, 11);
	put_le32(b + 32 + 4, 5);
	ck_assert_int_eq(extkit_xattr_block_check(&fmt, b),
			 EXTKIT_XATTR_BAD_VALUE_INUM);
	put_le32(b + 32 + 4, 2049);
	ck_assert_int_eq(extkit_xattr_block_check(&fmt, b),
			 EXTKIT_XATTR_BAD_VALUE_INUM);
}
END_TEST

START_TEST(test_hash)
{
	uint8_t b[BS];
	uint32_t h;

	golden_block(b);
	put_le32(b + 32 + 12, 0x12345678);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_BAD_HASH);
	/* A name byte >= 0x80: both the unsigned and signed hash pass. */
	golden_block(b);
	b[32 + 16] = 0xe9;
	rehash(b, 32);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OK);
	h = extkit_xattr_hash_entry(b + 48, 1, b + 1012, 11, 1);
	ck_assert_uint_ne(h, get_le32(b + 32 + 12));
	put_le32(b + 32 + 12, h);
	ck_assert_int_eq(check(b), EXTKIT_XATTR_OK);
}
END_TEST

/* Random bytes behind a valid header: any verdict, never a crash. */
START_TEST(test_random)
{
	static const uint32_t sizes[] = { 1024, 65536 };
	struct extkit_xattr_format fmt;
	uint32_t bs = sizes[_i % 2];
	uint8_t *b = malloc(bs);
	unsigned int seed = 7u + (unsigned int)_i;

	ck_assert_ptr_nonnull(b);
	fmt_init(&fmt, bs);
	fmt.ea_inode = _i & 2;
	for (int round = 0; round < 200; round++) {
		for (uint32_t i = 0; i < bs; i++)
			b[i] = (uint8_t)(rand_r(&seed) >> 7);
		put_le32(b, EXT2_EXT_ATTR_MAGIC);
		put_le32(b + 8, 1);
		/* Mostly small names and sane offsets, to get deep. */
		for (uint32_t off = 32; off + 16 < bs && off < 400; off += 20) {
			b[off] = (uint8_t)(rand_r(&seed) % 5);
			put_le16(b + off + 2, (uint16_t)(rand_r(&seed) % bs));
			put_le32(b + off + 8, (uint32_t)rand_r(&seed) % 64);
		}
		ck_assert_int_ne(extkit_xattr_block_check(&fmt, b), -1);
		ck_assert_ptr_nonnull(extkit_xattr_problem_str(
			extkit_xattr_block_check(&fmt, b)));
	}
	free(b);
}
END_TEST

/* Entry hashes of EA inode values, as mke2fs 1.47 wrote them. */
START_TEST(test_hash_ea_inode_golden)
{
	ck_assert_uint_eq(extkit_xattr_hash_ea_inode((const uint8_t *)"huge2",
						     5, 0x48af750b, 0),
			  0x583d73b0);
	ck_assert_uint_eq(extkit_xattr_hash_ea_inode((const uint8_t *)"huge",
						     4, 0x6bfe727e, 0),
			  0xb37b724b);
}
END_TEST

/*
 * A 256-byte raw inode, i_extra_isize 32, holding user.a = "1" (hash h)
 * and system.data = "" in the area after it.
 */
static void ibody_inode(uint8_t *raw, uint32_t hash)
{
	uint8_t *a = raw + 128 + 32;

	memset(raw, 0, 256);
	put_le16(raw + 128, 32);
	put_le32(a, EXT2_EXT_ATTR_MAGIC);
	/* user.a: entry at +4, value at +4 + 92 - 4 = the area's end */
	a[4] = 1;
	a[5] = 1;
	put_le16(a + 6, 88);
	put_le32(a + 12, 1);
	put_le32(a + 16, hash);
	a[20] = 'a';
	/* system.data, empty: entry at +24 */
	a[24] = 4;
	a[25] = 7;
	put_le16(a + 26, 0);
	memcpy(a + 40, "data", 4);
	a[4 + 88] = '1';
}

START_TEST(test_ibody)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	struct extkit_xattr x;
	uint8_t raw[256];
	uint32_t h = extkit_xattr_hash_entry((const uint8_t *)"a", 1,
					     (const uint8_t *)"1\0\0\0", 1, 0);

	fmt_init(&fmt, BS);
	ibody_inode(raw, 0);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, 256, &r), 1);
	ck_assert_uint_eq(r.size, 96);
	/* a hash of 0 is accepted in an inode */
	ck_assert_int_eq(extkit_xattr_region_check(&fmt, &r), EXTKIT_XATTR_OK);
	ck_assert_int_eq(extkit_xattr_find(&r, 1, "a", &x), 1);
	ck_assert_uint_eq(x.value_size, 1);
	ck_assert_int_eq(x.value[0], '1');
	ck_assert_int_eq(extkit_xattr_find(&r, 7, "data", &x), 1);
	ck_assert_uint_eq(x.value_size, 0);
	ck_assert_int_eq(extkit_xattr_find(&r, 1, "b", &x), 0);
	ibody_inode(raw, h);
	ck_assert_int_eq(extkit_xattr_region_check(&fmt, &r), EXTKIT_XATTR_OK);
	ibody_inode(raw, h + 1);
	ck_assert_int_eq(extkit_xattr_region_check(&fmt, &r),
			 EXTKIT_XATTR_BAD_HASH);
	ibody_inode(raw, 0);
	put_le16(raw + 128 + 32 + 6, 92);
	ck_assert_int_eq(extkit_xattr_region_check(&fmt, &r),
			 EXTKIT_XATTR_VALUE_PAST_END);
	ibody_inode(raw, 0);
	raw[128 + 32 + 4] = 200;	/* name past the end */
	ck_assert_int_ne(extkit_xattr_region_check(&fmt, &r), EXTKIT_XATTR_OK);
	/* no magic, or no room: no area */
	ibody_inode(raw, 0);
	put_le32(raw + 128 + 32, 0);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, 256, &r), 0);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, 128, &r), 0);
	put_le16(raw + 128, 124);
	ck_assert_int_eq(extkit_xattr_ibody_region(raw, 256, &r), 0);
}
END_TEST

/* Random in-inode areas: a verdict, and next never leaves the area. */
START_TEST(test_ibody_random)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	struct extkit_xattr x;
	uint8_t raw[256];

	fmt_init(&fmt, BS);
	fmt.ea_inode = 1;
	srand(7);
	for (int i = 0; i < 2000; i++) {
		uint32_t off, n = 0;

		for (size_t j = 0; j < sizeof(raw); j++)
			raw[j] = (uint8_t)rand();
		put_le16(raw + 128, 32);
		put_le32(raw + 160, EXT2_EXT_ATTR_MAGIC);
		ck_assert_int_eq(extkit_xattr_ibody_region(raw, 256, &r), 1);
		(void)extkit_xattr_region_check(&fmt, &r);
		off = r.first;
		while (extkit_xattr_next(&r, &off, &x) == 1 && n++ < 100)
			if (x.value)
				ck_assert(x.value + x.value_size <=
					  r.buf + r.size);
	}
}
END_TEST

START_TEST(test_prefix)
{
	ck_assert_str_eq(extkit_xattr_prefix(1), "user.");
	ck_assert_str_eq(extkit_xattr_prefix(2), "system.posix_acl_access");
	ck_assert_str_eq(extkit_xattr_prefix(3), "system.posix_acl_default");
	ck_assert_str_eq(extkit_xattr_prefix(4), "trusted.");
	ck_assert_str_eq(extkit_xattr_prefix(6), "security.");
	ck_assert_str_eq(extkit_xattr_prefix(7), "system.");
	ck_assert_ptr_null(extkit_xattr_prefix(0));
	ck_assert_ptr_null(extkit_xattr_prefix(5));
	ck_assert_ptr_null(extkit_xattr_prefix(200));
}
END_TEST

/* The kernel's entry hash, written out here: name bytes (as unsigned or
 * signed chars) shifted in by 5, then the value's words by 16. */
static uint32_t ref_hash(const char *name, const uint8_t *v, uint32_t size,
			 int sign)
{
	uint32_t h = 0;

	for (const char *c = name; *c; c++)
		h = (h << 5) ^ (h >> 27) ^
		    (sign ? (uint32_t)(int32_t)(signed char)*c
			  : (uint32_t)(unsigned char)*c);
	for (uint32_t i = 0; i < (size + 3) / 4; i++)
		h = (h << 16) ^ (h >> 16) ^ get_le32(v + 4 * i);
	return h;
}

START_TEST(test_hash_ok)
{
	static const char *const names[] = { "plain", "\xe9t\xe9" };
	uint8_t val[12] = "some value";	/* padded with zeros */
	struct extkit_xattr x;

	for (int n = 0; n < 2; n++) {
		memset(&x, 0, sizeof(x));
		x.name = names[n];
		x.name_len = (uint8_t)strlen(names[n]);
		x.value = val;
		x.value_size = 10;
		for (int sign = 0; sign < 2; sign++) {
			x.hash = ref_hash(names[n], val, 10, sign);
			ck_assert_int_eq(extkit_xattr_hash_ok(&x), 1);
			ck_assert_uint_eq(extkit_xattr_hash_entry(
				(const uint8_t *)x.name, x.name_len, val, 10,
				sign), x.hash);
			x.hash ^= 0x100;
			ck_assert_int_eq(extkit_xattr_hash_ok(&x), 0);
		}
	}
	/* a high-bit name hashes two ways, ASCII one */
	ck_assert_uint_ne(ref_hash(names[1], val, 10, 0),
			  ref_hash(names[1], val, 10, 1));
	ck_assert_uint_eq(ref_hash(names[0], val, 10, 0),
			  ref_hash(names[0], val, 10, 1));
}
END_TEST

/* The in-inode area dropped (its h_magic, after i_extra_isize, zeroed;
 * nothing else changes, nothing without an area) and the block header
 * test (h_magic at 0, h_blocks at 8 must be 1; h_refcount at 4 free). */
START_TEST(test_drop_and_header)
{
	uint8_t raw[256], want[256], b[BS];

	ibody_inode(raw, 0);
	memcpy(want, raw, sizeof(raw));
	extkit_xattr_ibody_drop(raw, 256);
	put_le32(want + 128 + 32, 0);
	ck_assert_mem_eq(raw, want, sizeof(raw));
	extkit_xattr_ibody_drop(raw, 256);	/* no area left: no change */
	ck_assert_mem_eq(raw, want, sizeof(raw));
	ibody_inode(raw, 0);
	memcpy(want, raw, sizeof(raw));
	extkit_xattr_ibody_drop(raw, 128);	/* a small inode has none */
	ck_assert_mem_eq(raw, want, sizeof(raw));

	golden_block(b);
	ck_assert_int_eq(extkit_xattr_block_has_header(b), 1);
	put_le32(b + 4, 9);
	ck_assert_int_eq(extkit_xattr_block_has_header(b), 1);
	ck_assert_uint_eq(extkit_xattr_refcount(b), 9);
	put_le32(b + 8, 2);
	ck_assert_int_eq(extkit_xattr_block_has_header(b), 0);
	golden_block(b);
	b[3] = 0xeb;
	ck_assert_int_eq(extkit_xattr_block_has_header(b), 0);
}
END_TEST

Suite *xattr_suite(void)
{
	Suite *s = suite_create("xattr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_hash_golden);
	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_header);
	tcase_add_test(tc, test_value_bounds);
	tcase_add_test(tc, test_overlap);
	tcase_add_test(tc, test_entries);
	tcase_add_test(tc, test_value_inum);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_hash_ea_inode_golden);
	tcase_add_test(tc, test_ibody);
	tcase_add_test(tc, test_ibody_random);
	tcase_add_test(tc, test_prefix);
	tcase_add_test(tc, test_hash_ok);
	tcase_add_test(tc, test_drop_and_header);
	tcase_add_loop_test(tc, test_random, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
