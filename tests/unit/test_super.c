// SPDX-License-Identifier: GPL-2.0-or-later
/* Superblock codec, validation reasons, backups, features, checksums. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "feature.h"
#include "fs.h"
#include "group.h"
#include "image.h"
#include "super.h"
#include "suites.h"

static struct extkit_super good_super(void)
{
	struct extkit_super sb;

	memset(&sb, 0, sizeof(sb));
	sb.magic = EXT2_SUPER_MAGIC;
	sb.rev_level = 1;
	sb.blocks_count = 8192;
	sb.first_data_block = 1;
	sb.blocks_per_group = 8192;
	sb.clusters_per_group = 8192;
	sb.inodes_per_group = 2048;
	sb.inodes_count = 2048;
	sb.first_ino = 11;
	sb.inode_size = 256;
	return sb;
}

START_TEST(test_codec_golden)
{
	struct ext2_super_block d;
	struct extkit_super m;
	uint8_t *raw = (uint8_t *)&d;

	memset(&d, 0, sizeof(d));
	put_le32(raw + 0x4, 0x89abcdef);	/* s_blocks_count_lo */
	put_le32(raw + 0x150, 0x1);		/* s_blocks_count_hi */
	put_le16(raw + 0x38, 0xEF53);
	put_le32(raw + 0x4C, 1);
	put_le32(raw + 0x60, EXT4_FEATURE_INCOMPAT_64BIT);
	memcpy(raw + 0x78, "0123456789abcdef", 16);	/* no NUL */
	extkit_super_decode(&d, &m);
	ck_assert_uint_eq(m.blocks_count, 0x189abcdefull);
	ck_assert_str_eq(m.volume_name, "0123456789abcdef");
	/* without 64bit the hi half is ignored */
	put_le32(raw + 0x60, 0);
	extkit_super_decode(&d, &m);
	ck_assert_uint_eq(m.blocks_count, 0x89abcdefull);
	m.free_inodes_count = 77;
	extkit_super_encode(&m, &d);
	ck_assert_uint_eq(get_le32(raw + 0x10), 77);
	ck_assert_uint_eq(get_le32(raw + 0x150), 1);	/* kept */
}
END_TEST

START_TEST(test_rev0)
{
	struct ext2_super_block d;
	struct extkit_super m;

	memset(&d, 0xff, sizeof(d));
	d.s_rev_level = 0;
	extkit_super_decode(&d, &m);
	ck_assert_uint_eq(m.first_ino, 11);
	ck_assert_uint_eq(m.inode_size, 128);
	/* feature words are read as stored (fsck reports them on rev 0) */
	ck_assert_uint_eq(m.feature_incompat, 0xffffffffu);
}
END_TEST

START_TEST(test_validate_reasons)
{
	struct extkit_super sb = good_super();
	struct extkit_geom g;
	const char *why;

	ck_assert_int_eq(extkit_super_validate(&sb, 8192 * 1024, &g, &why), 0);
	ck_assert_uint_eq(g.block_size, 1024);
	ck_assert_uint_eq(g.group_count, 1);
	ck_assert_uint_eq(g.itable_blocks, 512);
	sb.log_block_size = 20;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(why, "s_log_block_size"));
	sb = good_super();
	sb.magic = 0;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EXTKIT_ENOTEXT);
	sb = good_super();
	sb.blocks_per_group = 8;	/* 1024 groups but inodes say 1 */
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
	sb = good_super();
	sb.inode_size = 96;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
	sb = good_super();
	ck_assert_int_eq(extkit_super_validate(&sb, 4096, &g, &why),
			 -EXTKIT_ETRUNC);
}
END_TEST

/* bigalloc: cluster geometry, and the shapes refused with a reason. */
START_TEST(test_validate_bigalloc)
{
	struct extkit_super sb = good_super();
	struct extkit_geom g;
	const char *why;

	sb.feature_ro_compat = EXT4_FEATURE_RO_COMPAT_BIGALLOC;
	sb.first_data_block = 0;
	sb.log_cluster_size = 2;		/* 4 KiB clusters, 1 KiB blocks */
	sb.blocks_per_group = 32768;
	sb.clusters_per_group = 8192;
	sb.blocks_count = 32768;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why), 0);
	ck_assert_uint_eq(g.cluster_bits, 2);
	ck_assert_uint_eq(g.cluster_ratio, 4);
	ck_assert_uint_eq(g.group_count, 1);
	/* group 0 starts at block 0, the superblock in block 1 */
	ck_assert_uint_eq(extkit_group_boot_block(&sb, &g, 0), 1);
	ck_assert_uint_eq(extkit_group_boot_block(&sb, &g, 1), 0);
	sb.clusters_per_group = 4096;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(why, "clusters per group"));
	sb.clusters_per_group = 8192;
	sb.first_data_block = 1;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
	sb.first_data_block = 0;
	sb.log_cluster_size = 20;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
	/* without the feature the cluster is the block */
	sb = good_super();
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why), 0);
	ck_assert_uint_eq(g.cluster_ratio, 1);
	sb.log_cluster_size = 2;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
}
END_TEST

START_TEST(test_group_count_overflow)
{
	struct extkit_super sb = good_super();
	struct extkit_geom g;
	const char *why;

	sb.feature_incompat = EXT4_FEATURE_INCOMPAT_64BIT;
	sb.desc_size = 64;
	sb.blocks_count = UINT64_MAX;
	sb.blocks_per_group = 8;
	ck_assert_int_eq(extkit_super_validate(&sb, 0, &g, &why),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(why);
}
END_TEST

START_TEST(test_backups)
{
	struct extkit_super sb = good_super();
	uint32_t expect[] = { 0, 1, 3, 5, 7, 9, 25, 27, 49, 81, 125, 243, 343 };
	uint32_t n = 0;

	sb.feature_ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER;
	for (uint32_t grp = 0; grp < 400; grp++)
		if (extkit_super_group_has_backup(&sb, grp))
			ck_assert_uint_eq(grp, expect[n++]);
	ck_assert_uint_eq(n, sizeof(expect) / sizeof(expect[0]));
	sb.feature_ro_compat = 0;
	ck_assert(extkit_super_group_has_backup(&sb, 2));
	sb.feature_compat = EXT4_FEATURE_COMPAT_SPARSE_SUPER2;
	sb.backup_bgs[0] = 1;
	sb.backup_bgs[1] = 42;
	ck_assert(extkit_super_group_has_backup(&sb, 42));
	ck_assert(!extkit_super_group_has_backup(&sb, 3));
}
END_TEST

/* The next group with a backup after g, by each layout, and the count
 * when there is none. */
START_TEST(test_next_backup)
{
	struct extkit_super sb = good_super();
	uint32_t g = 0, n = 400;

	sb.feature_ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER;
	for (uint32_t i = 0; i < 400; i++) {	/* agrees with has_backup */
		uint32_t want = i + 1;

		while (want < n && !extkit_super_group_has_backup(&sb, want))
			want++;
		ck_assert_uint_eq(extkit_super_next_backup(&sb, i, n), want);
	}
	ck_assert_uint_eq(extkit_super_next_backup(&sb, 343, 400), 400);
	ck_assert_uint_eq(extkit_super_next_backup(&sb, 243, 300), 300);
	sb.feature_ro_compat = 0;
	ck_assert_uint_eq(extkit_super_next_backup(&sb, 5, 400), 6);
	sb.feature_compat = EXT4_FEATURE_COMPAT_SPARSE_SUPER2;
	sb.backup_bgs[0] = 1;
	sb.backup_bgs[1] = 42;
	ck_assert_uint_eq(extkit_super_next_backup(&sb, g, n), 1);
	ck_assert_uint_eq(extkit_super_next_backup(&sb, 1, n), 42);
	ck_assert_uint_eq(extkit_super_next_backup(&sb, 42, n), n);
	ck_assert_uint_eq(extkit_super_next_backup(&sb, 1, 40), 40);
}
END_TEST

/* Quota inodes and the orphan file, by their features. */
START_TEST(test_internal_inode)
{
	struct extkit_super sb = good_super();

	sb.quota_inum[0] = 3;
	sb.quota_inum[2] = 13;
	sb.orphan_file_inum = 12;
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 13), 0);
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 12), 0);
	sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_QUOTA;
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 13), 1);
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 3), 1);
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 12), 0);
	sb.feature_compat |= EXT4_FEATURE_COMPAT_ORPHAN_FILE;
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 12), 1);
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 14), 0);
	ck_assert_int_eq(extkit_super_internal_inode(&sb, 0), 0);
}
END_TEST

/* s_hash_seed from its stored bytes, and s_overhead_clusters, both
 * landing where the kernel reads them. */
START_TEST(test_seed_and_overhead)
{
	static const uint8_t seed[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
	};
	struct extkit_super sb = good_super(), back;
	struct ext2_super_block d;

	memset(&d, 0, sizeof(d));
	extkit_super_set_hash_seed(&sb, seed);
	ck_assert_uint_eq(sb.hash_seed[0], 0x04030201);
	ck_assert_uint_eq(sb.hash_seed[3], 0x100f0e0d);
	extkit_super_encode(&sb, &d);
	ck_assert_mem_eq(d.s_hash_seed, seed, 16);
	extkit_super_set_overhead(&d, 0x01020304);
	ck_assert_uint_eq(get_le32((const uint8_t *)&d + 0x248), 0x01020304);
	extkit_super_encode(&sb, &d);	/* the encoder keeps it */
	ck_assert_uint_eq(le32(d.s_overhead_clusters), 0x01020304);
	extkit_super_decode(&d, &back);
	ck_assert_mem_eq(back.hash_seed, sb.hash_seed, sizeof(sb.hash_seed));
}
END_TEST

START_TEST(test_features)
{
	enum extkit_feature_kind k;
	uint32_t bit;

	ck_assert_str_eq(extkit_feature_name(EXTKIT_COMPAT,
			 EXT2_FEATURE_COMPAT_DIR_INDEX), "dir_index");
	ck_assert_int_eq(extkit_feature_lookup("extents", &k, &bit), 0);
	ck_assert_int_eq(k, EXTKIT_INCOMPAT);
	ck_assert_uint_eq(bit, EXT4_FEATURE_INCOMPAT_EXTENTS);
	ck_assert_int_eq(extkit_feature_lookup("nope", &k, &bit), -ENOENT);
}
END_TEST

START_TEST(test_crc)
{
	/* crc32c("123456789") with the usual ~0 pre/post inversion */
	ck_assert_uint_eq(~extkit_crc32c(~0u, "123456789", 9), 0xE3069283u);
	/* CRC-16/ARC ("123456789") = 0xBB3D */
	ck_assert_uint_eq(extkit_crc16(0, "123456789", 9), 0xBB3D);
}
END_TEST

START_TEST(test_open_and_write_back)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;

	test_image_defaults(&o);
	o.blocks = 20000;
	o.blocks_per_group = 8192;
	io = test_image_make(&o);
	fs = test_image_open(io);
	ck_assert_uint_eq(fs->g.group_count, 3);
	ck_assert_uint_eq(extkit_group_block_count(&fs->sb, 2),
			  20000 - 1 - 2 * 8192);
	strcpy(fs->sb.volume_name, "label");
	ck_assert_int_eq(extkit_fs_write_super(fs), 0);
	extkit_fs_close(fs);
	/* every group carries a backup here: open group 2's copy */
	ck_assert_int_eq(extkit_fs_open_io(io, 0, 1 + 2 * 8192, 1024, &fs,
					   NULL), 0);
	ck_assert_str_eq(fs->sb.volume_name, "label");
	ck_assert_uint_eq(fs->sb.block_group_nr, 2);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_open_garbage)
{
	unsigned char buf[8192];
	struct extkit_io *io;
	struct extkit_fs *fs;
	const char *why;

	memset(buf, 0x5a, sizeof(buf));
	ck_assert_int_eq(extkit_io_open_mem(buf, sizeof(buf), 0, &io), 0);
	ck_assert_int_eq(extkit_fs_open_io(io, 0, 0, 0, &fs, &why),
			 -EXTKIT_ENOTEXT);
	extkit_io_close(io);
	ck_assert_int_eq(extkit_io_open_mem(buf, 1024, 0, &io), 0);
	ck_assert_int_eq(extkit_fs_open_io(io, 0, 0, 0, &fs, &why),
			 -EXTKIT_ENOTEXT);
	ck_assert_ptr_nonnull(why);
	extkit_io_close(io);
}
END_TEST

Suite *super_suite(void)
{
	Suite *s = suite_create("super");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_codec_golden);
	tcase_add_test(tc, test_rev0);
	tcase_add_test(tc, test_validate_reasons);
	tcase_add_test(tc, test_validate_bigalloc);
	tcase_add_test(tc, test_group_count_overflow);
	tcase_add_test(tc, test_backups);
	tcase_add_test(tc, test_next_backup);
	tcase_add_test(tc, test_internal_inode);
	tcase_add_test(tc, test_seed_and_overhead);
	tcase_add_test(tc, test_features);
	tcase_add_test(tc, test_crc);
	tcase_add_test(tc, test_open_and_write_back);
	tcase_add_test(tc, test_open_garbage);
	suite_add_tcase(s, tc);
	return s;
}
