// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ownership map (lib/owners.c): overlap queries over runs, the
 * exclusion of the place asked about, and the map of a real image, where
 * no place overlaps another until a descriptor names a block another
 * group or a superblock copy owns.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "fs.h"
#include "group.h"
#include "image.h"
#include "owners.h"
#include "suites.h"

START_TEST(test_runs)
{
	struct extkit_owners o;
	struct extkit_claim out[4];
	struct extkit_claim self = { .start = 100, .len = 50, .group = 1,
				     .kind = EXTKIT_OWN_INODE_TABLE };

	extkit_owners_init(&o);
	ck_assert_int_eq(extkit_owners_claim(&o, EXTKIT_OWN_INODE_TABLE, 1,
					     100, 50), 0);
	ck_assert_int_eq(extkit_owners_claim(&o, EXTKIT_OWN_BLOCK_BITMAP, 0,
					     10, 1), 0);
	ck_assert_int_eq(extkit_owners_claim(&o, EXTKIT_OWN_SUPER, 0, 1, 2),
			 0);
	ck_assert_int_eq(extkit_owners_claim(&o, EXTKIT_OWN_BLOCK_BITMAP, 2,
					     120, 1), 0);
	/* an inode's consecutive runs become one claim */
	ck_assert_int_eq(extkit_owners_claim(&o, EXTKIT_OWN_JOURNAL, 0, 300,
					     4), 0);
	ck_assert_int_eq(extkit_owners_claim(&o, EXTKIT_OWN_JOURNAL, 0, 304,
					     4), 0);
	ck_assert_uint_eq(o.n, 5);
	/* unsorted: nothing answers */
	ck_assert_uint_eq(extkit_owners_find(&o, 0, 1000, NULL, out, 4), 0);
	ck_assert_int_eq(extkit_owners_sort(&o), 0);
	ck_assert_uint_eq(extkit_owners_find(&o, 0, 1000, NULL, out, 4), 5);
	/* the table overlaps the bitmap inside it, not itself */
	ck_assert_uint_eq(extkit_owners_find(&o, 100, 50, &self, out, 4), 1);
	ck_assert_uint_eq(out[0].group, 2);
	ck_assert_uint_eq(out[0].kind, EXTKIT_OWN_BLOCK_BITMAP);
	/* the long table reaches a run that starts after the bitmap */
	ck_assert_uint_eq(extkit_owners_find(&o, 149, 1, NULL, out, 4), 1);
	ck_assert_uint_eq(out[0].kind, EXTKIT_OWN_INODE_TABLE);
	ck_assert_uint_eq(extkit_owners_find(&o, 150, 150, NULL, out, 4), 0);
	ck_assert_uint_eq(extkit_owners_find(&o, 307, 10, NULL, out, 4), 1);
	ck_assert_uint_eq(out[0].len, 8);
	ck_assert_uint_eq(extkit_owners_find(&o, 2, 1, NULL, out, 4), 1);
	ck_assert_uint_eq(out[0].kind, EXTKIT_OWN_SUPER);
	/* a run that wraps still overlaps */
	ck_assert_uint_eq(extkit_owners_find(&o, 305, UINT64_MAX, NULL, out,
					     0), 1);
	extkit_owners_free(&o);
}
END_TEST

static size_t conflicts(struct extkit_fs *fs, uint32_t g, int kind,
			struct extkit_claim *with)
{
	struct extkit_owners o;
	const struct extkit_group *gd = &fs->groups[g];
	struct extkit_claim self = { .group = g, .kind = (uint8_t)kind };
	size_t n;

	self.start = kind == EXTKIT_OWN_BLOCK_BITMAP ? gd->block_bitmap :
		     kind == EXTKIT_OWN_INODE_BITMAP ? gd->inode_bitmap :
		     gd->inode_table;
	self.len = kind == EXTKIT_OWN_INODE_TABLE ? fs->g.itable_blocks : 1;
	extkit_owners_init(&o);
	ck_assert_int_eq(extkit_owners_add_fixed(&o, fs), 0);
	ck_assert_int_eq(extkit_owners_add_groups(&o, fs), 0);
	ck_assert_int_eq(extkit_owners_add_inodes(&o, fs), 0);
	ck_assert_int_eq(extkit_owners_sort(&o), 0);
	n = extkit_owners_find(&o, self.start, self.len, &self, with, 1);
	extkit_owners_free(&o);
	return n;
}

START_TEST(test_image_places)
{
	struct test_image_opts opts;
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_claim with;
	uint64_t sb1;
	int owns;

	test_image_defaults(&opts);
	opts.blocks = 4 * 8192;
	io = test_image_make(&opts);
	fs = test_image_open(io);
	ck_assert_uint_ge(fs->g.group_count, 3);
	for (uint32_t g = 0; g < fs->g.group_count; g++)
		for (int k = EXTKIT_OWN_BLOCK_BITMAP;
		     k <= EXTKIT_OWN_INODE_TABLE; k++)
			ck_assert_uint_eq(conflicts(fs, g, k, &with), 0);
	/* two groups name one bitmap block: each sees the other */
	fs->groups[2].block_bitmap = fs->groups[1].block_bitmap;
	ck_assert_uint_eq(conflicts(fs, 2, EXTKIT_OWN_BLOCK_BITMAP, &with), 1);
	ck_assert_uint_eq(with.group, 1);
	ck_assert_uint_eq(with.kind, EXTKIT_OWN_BLOCK_BITMAP);
	ck_assert_uint_eq(conflicts(fs, 1, EXTKIT_OWN_BLOCK_BITMAP, &with), 1);
	ck_assert_uint_eq(with.group, 2);
	/* an inode bitmap on group 1's superblock copy */
	sb1 = extkit_group_first_block(&fs->sb, 1);
	fs->groups[3].inode_bitmap = sb1;
	ck_assert_uint_eq(conflicts(fs, 3, EXTKIT_OWN_INODE_BITMAP, &with), 1);
	ck_assert_uint_eq(with.kind, EXTKIT_OWN_SUPER);
	ck_assert_uint_eq(with.group, 1);
	/* on its descriptor block */
	fs->groups[3].inode_bitmap = sb1 + 1;
	ck_assert_uint_eq(conflicts(fs, 3, EXTKIT_OWN_INODE_BITMAP, &with), 1);
	ck_assert_uint_eq(with.kind, EXTKIT_OWN_DESC);
	/* a table that runs into another group's table */
	fs->groups[0].inode_table = fs->groups[1].inode_table - 1;
	ck_assert_uint_ge(conflicts(fs, 0, EXTKIT_OWN_INODE_TABLE, &with), 1);
	ck_assert_uint_eq(with.group, 1);
	ck_assert_uint_eq(with.kind, EXTKIT_OWN_INODE_TABLE);
	ck_assert_str_eq(extkit_owner_name(EXTKIT_OWN_RESERVED_GDT),
			 "reserved GDT blocks");
	owns = fs->owns_io;
	extkit_fs_close(fs);
	if (!owns)
		extkit_io_close(io);
}
END_TEST

Suite *owners_suite(void)
{
	Suite *s = suite_create("owners");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_runs);
	tcase_add_test(tc, test_image_places);
	suite_add_tcase(s, tc);
	return s;
}
