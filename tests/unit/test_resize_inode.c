// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for resize_inode.c, the resize inode's one builder (mkfs,
 * fsck): on an in-memory image of 8 groups with sparse_super and 3
 * reserved GDT blocks, the double indirect block's entries, each
 * reserved block's list of its copies (groups 1, 3, 5, 7), i_size,
 * i_blocks (in clusters with bigalloc), the last logical block, and the
 * blocks as written.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "fs.h"
#include "image.h"
#include "ondisk.h"
#include "resize_inode.h"
#include "suites.h"

START_TEST(test_resize_layout)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint8_t *buf, *back;
	uint64_t first, dind;
	const uint32_t backups[] = { 1, 3, 5, 7 };

	test_image_defaults(&o);
	o.blocks_per_group = 1024;
	o.ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER;
	io = test_image_make(&o);
	fs = test_image_open(io);
	fs->sb.reserved_gdt_blocks = 3;
	buf = malloc(1024);
	back = malloc(1024);
	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(back);
	ck_assert_uint_eq(fs->g.group_count, 8);
	ck_assert_uint_eq(fs->g.gdt_blocks, 1);
	/* superblock in block 1, one descriptor block, then the reserved */
	first = extkit_resize_first_reserved(fs);
	ck_assert_uint_eq(first, 3);
	extkit_resize_dind_build(fs, buf);
	for (uint32_t s = 0; s < 256; s++)
		ck_assert_uint_eq(get_le32(buf + 4 * s),
				  s >= 1 && s <= 3 ? first + s - 1 : 0);
	extkit_resize_list_build(fs, 2, buf);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(get_le32(buf + 4 * i),
				  first + 2 + backups[i] * 1024);
	ck_assert_uint_eq(get_le32(buf + 16), 0);
	ck_assert_uint_eq(extkit_resize_inode_size(1024),
			  (256ull * 256 + 256 + 12) * 1024);
	ck_assert_uint_eq(extkit_resize_inode_blocks(fs), 1 + 3 * (1 + 4));
	/* slot 3 is the highest: its list's last copy */
	ck_assert_int_eq(extkit_resize_inode_last_lblk(fs),
			 12 + 256 + 3 * 256 + 4 - 1);
	fs->g.cluster_bits = 4;
	ck_assert_uint_eq(extkit_resize_inode_blocks(fs), 16 * 16);
	fs->g.cluster_bits = 0;
	/* written: the double indirect block and the three lists */
	dind = test_image_first_free_block(fs);
	ck_assert_int_eq(extkit_resize_write(fs, dind), 0);
	ck_assert_int_eq(extkit_fs_read_block(fs, dind, back), 0);
	extkit_resize_dind_build(fs, buf);
	ck_assert_int_eq(memcmp(buf, back, 1024), 0);
	for (uint32_t r = 0; r < 3; r++) {
		ck_assert_int_eq(extkit_fs_read_block(fs, first + r, back), 0);
		extkit_resize_list_build(fs, r, buf);
		ck_assert_int_eq(memcmp(buf, back, 1024), 0);
		ck_assert_uint_eq(get_le32(back), first + r + 1024);
	}
	/* none reserved: no map */
	fs->sb.reserved_gdt_blocks = 0;
	ck_assert_int_eq(extkit_resize_inode_last_lblk(fs), -1);
	free(buf);
	free(back);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

/* A reserved block's list holds addr_per_block backups: without
 * sparse_super, every group but the first has one. */
START_TEST(test_resize_fits)
{
	struct extkit_fs fs;

	memset(&fs, 0, sizeof(fs));
	fs.g.addr_per_block = 256;	/* 1 KiB blocks */
	fs.g.group_count = 257;		/* 256 backups */
	ck_assert_int_eq(extkit_resize_fits(&fs), 1);
	fs.g.group_count = 258;
	ck_assert_int_eq(extkit_resize_fits(&fs), 0);
	fs.sb.feature_ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER;
	fs.g.group_count = 1u << 20;
	ck_assert_int_eq(extkit_resize_fits(&fs), 1);
}
END_TEST

Suite *resize_inode_suite(void)
{
	Suite *s = suite_create("resize_inode");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_resize_layout);
	tcase_add_test(tc, test_resize_fits);
	suite_add_tcase(s, tc);
	return s;
}
