// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for super_fields.c, the superblock field table the dumps
 * print: every field lies inside the 1024-byte superblock with a size
 * its kind allows and a unique name; numbers are read little-endian,
 * the hi half of a split field only with 64bit; array elements.
 */
#include "config.h"

#include <string.h>

#include "endian.h"
#include "ondisk.h"
#include "suites.h"
#include "super.h"

START_TEST(test_table_sound)
{
	ck_assert_uint_gt(extkit_super_field_count, 50);
	for (unsigned int i = 0; i < extkit_super_field_count; i++) {
		const struct extkit_super_field *f = &extkit_super_fields[i];
		uint32_t n = f->kind == EXTKIT_FIELD_NUM ||
			     f->kind == EXTKIT_FIELD_NUM_HI ? 1 : f->count;

		ck_assert_msg(f->size == 1 || f->size == 2 || f->size == 4 ||
			      f->size == 8 || f->kind == EXTKIT_FIELD_UUID,
			      "%s", f->name);
		ck_assert_msg(f->offset + (uint32_t)f->size * n <= 1024,
			      "%s", f->name);
		if (f->kind == EXTKIT_FIELD_NUM_HI)
			ck_assert_msg(f->hi_offset + f->size <= 1024, "%s",
				      f->name);
		for (unsigned int j = 0; j < i; j++)
			ck_assert_msg(strcmp(f->name,
					     extkit_super_fields[j].name),
				      "%s twice", f->name);
	}
}
END_TEST

static const struct extkit_super_field *field(const char *name)
{
	for (unsigned int i = 0; i < extkit_super_field_count; i++)
		if (!strcmp(extkit_super_fields[i].name, name))
			return &extkit_super_fields[i];
	ck_abort_msg("no field %s", name);
	return NULL;
}

START_TEST(test_values)
{
	struct ext2_super_block sb;

	memset(&sb, 0, sizeof(sb));
	sb.s_blocks_count_lo = cpu_to_le32(0x89abcdef);
	sb.s_blocks_count_hi = cpu_to_le32(0x12);
	sb.s_magic = cpu_to_le16(EXT2_SUPER_MAGIC);
	sb.s_hash_seed[2] = cpu_to_le32(0xdeadbeef);
	ck_assert_uint_eq(extkit_super_field_value(&sb, field("blocks_count"),
						   0), 0x89abcdef);
	ck_assert_uint_eq(extkit_super_field_value(&sb, field("blocks_count"),
						   1), 0x1289abcdefULL);
	ck_assert_uint_eq(extkit_super_field_value(&sb, field("magic"), 1),
			  EXT2_SUPER_MAGIC);
	ck_assert_uint_eq(extkit_super_field_element(&sb, field("hash_seed"),
						     2), 0xdeadbeef);
	ck_assert_uint_eq(extkit_super_field_element(&sb, field("hash_seed"),
						     1), 0);
	sb.s_encrypt_algos[3] = 9;
	ck_assert_uint_eq(extkit_super_field_element(&sb,
			  field("encrypt_algos"), 3), 9);
}
END_TEST

Suite *super_fields_suite(void)
{
	Suite *s = suite_create("super_fields");
	TCase *tc = tcase_create("super_fields");

	tcase_add_test(tc, test_table_sound);
	tcase_add_test(tc, test_values);
	suite_add_tcase(s, tc);
	return s;
}
