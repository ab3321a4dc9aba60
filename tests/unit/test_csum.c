// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for csum.c and crc32c_hw.c: crc32c and crc16 against known
 * check values, and the CPU instruction against the portable tables on
 * random buffers (every length 0..300 at every alignment 0..7, then
 * long ones, chained in pieces); the superblock, group descriptor
 * (crc32c and crc16) and inode checksums of bytes mke2fs wrote, against
 * the values e2fsprogs gives them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crc32c_hw.h"
#include "csum.h"
#include "endian.h"
#include "fs.h"
#include "ondisk.h"
#include "super.h"
#include "suites.h"

START_TEST(test_check_values)
{
	static const char s[] = "123456789";

	/* The CRC catalogue's check values (init ~0, final xor ~0). */
	ck_assert_uint_eq(~extkit_crc32c(~0u, s, 9), 0xE3069283u);
	ck_assert_uint_eq(~extkit_crc32c_sw(~0u, s, 9), 0xE3069283u);
	/* CRC-16/ARC: init 0, no final xor. */
	ck_assert_uint_eq(extkit_crc16(0, s, 9), 0xBB3Du);
	ck_assert_uint_eq(extkit_crc32c(1234, s, 0), 1234);
}
END_TEST

START_TEST(test_hw_matches_tables)
{
	unsigned char *buf = malloc(70000);
	unsigned int seed = 16;

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < 70000; i++)
		buf[i] = (unsigned char)rand_r(&seed);
	for (size_t len = 0; len <= 300; len++) {
		for (size_t al = 0; al < 8; al++) {
			uint32_t crc = (uint32_t)rand_r(&seed);
			uint32_t sw = extkit_crc32c_sw(crc, buf + al, len);

			ck_assert_uint_eq(extkit_crc32c(crc, buf + al, len),
					  sw);
			if (extkit_crc32c_hw_available())
				ck_assert_uint_eq(extkit_crc32c_hw(crc, buf + al,
								   len), sw);
		}
	}
	for (int k = 0; k < 20; k++) {
		size_t off = (size_t)rand_r(&seed) % 1000;
		size_t len = (size_t)rand_r(&seed) % 65536;
		size_t cut = len ? (size_t)rand_r(&seed) % len : 0;
		uint32_t sw = extkit_crc32c_sw(~0u, buf + off, len);
		uint32_t c = extkit_crc32c(~0u, buf + off, cut);

		c = extkit_crc32c(c, buf + off + cut, len - cut);
		ck_assert_uint_eq(c, sw);
	}
	free(buf);
}
END_TEST

/* ---- golden values from e2fsprogs 1.47.0: mke2fs -t ext4 -b 1024
 * -U 01234567-89ab-cdef-0123-456789abcdef -N 64, 4 MiB, metadata_csum
 * and 64bit (dumpe2fs: superblock 0x71a2b954, group 0 0x74c0; debugfs:
 * root inode 0xb0ed89ab), and the same with uninit_bg instead of
 * metadata_csum, 32-byte descriptors (group 0 0x3c69) ---- */

struct piece {
	uint16_t off, len;
	const uint8_t *b;
};

/* The superblock's bytes that are not zero. */
static const struct piece golden_sb[] = {
	{ 0x000, 21, (const uint8_t []){
		0x40, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0xcc, 0x00,
		0x00, 0x00, 0xbe, 0x0b, 0x00, 0x00, 0x35, 0x00, 0x00, 0x00,
		0x01,
	} },
	{ 0x021, 8, (const uint8_t []){
		0x20, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40,
	} },
	{ 0x031, 19, (const uint8_t []){
		0xf1, 0x53, 0x65, 0x00, 0x00, 0xff, 0xff, 0x53, 0xef, 0x01,
		0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xf1, 0x53, 0x65,
	} },
	{ 0x04c, 44, (const uint8_t []){
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00,
		0xc2, 0x02, 0x00, 0x00, 0x6b, 0x04, 0x00, 0x00, 0x01, 0x23,
		0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67,
		0x89, 0xab, 0xcd, 0xef,
	} },
	{ 0x0ce, 1, (const uint8_t []){
		0x1f,
	} },
	{ 0x0e0, 1, (const uint8_t []){
		0x08,
	} },
	{ 0x0ec, 21, (const uint8_t []){
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0xfe, 0xdc,
		0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x01, 0x01, 0x40, 0x00,
		0x0c,
	} },
	{ 0x109, 8, (const uint8_t []){
		0xf1, 0x53, 0x65, 0x0a, 0xf3, 0x03, 0x00, 0x04,
	} },
	{ 0x11c, 29, (const uint8_t []){
		0x02, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x02, 0x00,
		0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x34, 0x00, 0x00, 0x00,
		0x10, 0x00, 0x00, 0x00, 0xf0, 0x03, 0x00, 0x00, 0x52,
	} },
	{ 0x14e, 1, (const uint8_t []){
		0x10,
	} },
	{ 0x15c, 5, (const uint8_t []){
		0x20, 0x00, 0x20, 0x00, 0x01,
	} },
	{ 0x174, 5, (const uint8_t []){
		0x04, 0x01, 0x00, 0x00, 0x34,
	} },
	{ 0x248, 2, (const uint8_t []){
		0x34, 0x04,
	} },
	{ 0x3fc, 4, (const uint8_t []){
		0x54, 0xb9, 0xa2, 0x71,
	} },
};

/* Root inode (256 bytes): its bytes that are not zero. */
static const struct piece golden_root[] = {
	{ 0x000, 20, (const uint8_t []){
		0xed, 0x41, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xf1,
		0x53, 0x65, 0x00, 0xf1, 0x53, 0x65, 0x00, 0xf1, 0x53, 0x65,
	} },
	{ 0x01a, 3, (const uint8_t []){
		0x03, 0x00, 0x02,
	} },
	{ 0x022, 1, (const uint8_t []){
		0x08,
	} },
	{ 0x028, 5, (const uint8_t []){
		0x0a, 0xf3, 0x01, 0x00, 0x04,
	} },
	{ 0x038, 5, (const uint8_t []){
		0x01, 0x00, 0x00, 0x00, 0x23,
	} },
	{ 0x07c, 8, (const uint8_t []){
		0xab, 0x89, 0x00, 0x00, 0x20, 0x00, 0xed, 0xb0,
	} },
	{ 0x091, 3, (const uint8_t []){
		0xf1, 0x53, 0x65,
	} },
};

static const uint8_t golden_gd64[64] = {
	0x22, 0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x42, 0x00,
	0x00, 0x00, 0xbe, 0x0b, 0x35, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xc1, 0x16, 0x22, 0x3b, 0x35, 0x00,
	0xc0, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf7, 0xe3, 0x38, 0xe0,
	0x00, 0x00, 0x00, 0x00,
};

static const uint8_t golden_gd32[32] = {
	0x12, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x32, 0x00,
	0x00, 0x00, 0xce, 0x0b, 0x35, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x35, 0x00,
	0x69, 0x3c,
};

/* The same with 64bit and uninit_bg: a 64-byte descriptor under crc16
 * (group 0 0x2e61); its upper half is zero. */
static const uint8_t golden_gd64_crc16[64] = {
	0x22, 0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x42, 0x00,
	0x00, 0x00, 0xbe, 0x0b, 0x35, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x35, 0x00,
	0x61, 0x2e,
};

static void unpack(const struct piece *p, size_t n, uint8_t *out, size_t size)
{
	memset(out, 0, size);
	for (size_t i = 0; i < n; i++)
		memcpy(out + p[i].off, p[i].b, p[i].len);
}

static void golden_fs(struct extkit_fs *fs, uint32_t ro_compat,
		      uint32_t desc_size)
{
	static const uint8_t uuid[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};

	memset(fs, 0, sizeof(*fs));
	memcpy(fs->sb.uuid, uuid, 16);
	fs->sb.feature_ro_compat = ro_compat;
	fs->g.desc_size = desc_size;
	fs->g.inode_size = 256;
}

START_TEST(test_golden_super)
{
	struct ext2_super_block raw;
	struct extkit_super sb;

	unpack(golden_sb, sizeof(golden_sb) / sizeof(golden_sb[0]),
	       (uint8_t *)&raw, sizeof(raw));
	ck_assert_uint_eq(extkit_super_csum(&raw), 0x71a2b954u);
	extkit_super_decode(&raw, &sb);
	ck_assert_int_eq(extkit_has_metadata_csum(&sb), 1);
	ck_assert_int_eq(extkit_has_group_csum(&sb), 1);
	/* no metadata_csum_seed: the seed is the UUID's crc32c */
	ck_assert_uint_eq(extkit_csum_seed(&sb),
			  extkit_crc32c(~0u, raw.s_uuid, 16));
	raw.s_feature_ro_compat = cpu_to_le32(EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
	extkit_super_decode(&raw, &sb);
	ck_assert_int_eq(extkit_has_metadata_csum(&sb), 0);
	ck_assert_int_eq(extkit_has_group_csum(&sb), 1);
	raw.s_feature_ro_compat = 0;
	extkit_super_decode(&raw, &sb);
	ck_assert_int_eq(extkit_has_group_csum(&sb), 0);
}
END_TEST

START_TEST(test_golden_group)
{
	struct extkit_fs fs;

	golden_fs(&fs, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, 64);
	ck_assert_uint_eq(extkit_group_csum(&fs, 0, golden_gd64), 0x74c0);
	ck_assert_uint_ne(extkit_group_csum(&fs, 1, golden_gd64), 0x74c0);
	golden_fs(&fs, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, 32);
	ck_assert_uint_eq(extkit_group_csum(&fs, 0, golden_gd32), 0x3c69);
	golden_fs(&fs, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, 64);
	ck_assert_uint_eq(extkit_group_csum(&fs, 0, golden_gd64_crc16),
			  0x2e61);
}
END_TEST

START_TEST(test_golden_inode)
{
	uint8_t raw[256];
	struct extkit_fs fs;

	golden_fs(&fs, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, 64);
	unpack(golden_root, sizeof(golden_root) / sizeof(golden_root[0]), raw,
	       sizeof(raw));
	ck_assert_int_eq(extkit_inode_csum_verify(&fs, 2, raw), 1);
	ck_assert_int_eq(extkit_inode_csum_verify(&fs, 3, raw), 0);
	put_le16(raw + 0x7c, 0);		/* l_i_checksum_lo */
	put_le16(raw + 0x82, 0);		/* i_checksum_hi */
	extkit_inode_csum_set(&fs, 2, raw);
	ck_assert_uint_eq(get_le16(raw + 0x7c), 0x89ab);
	ck_assert_uint_eq(get_le16(raw + 0x82), 0xb0ed);
	/* the inode's seed: the fs seed, then le32 ino and generation */
	ck_assert_uint_eq(extkit_inode_csum_seed(&fs, 2, 0),
			  extkit_crc32c(extkit_csum_seed(&fs.sb),
					"\2\0\0\0\0\0\0\0", 8));
	/* without metadata_csum nothing is stored */
	golden_fs(&fs, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, 32);
	put_le16(raw + 0x7c, 0);
	extkit_inode_csum_set(&fs, 2, raw);
	ck_assert_uint_eq(get_le16(raw + 0x7c), 0);
	extkit_crc32c_prepare();	/* the tables stay as they were */
	ck_assert_uint_eq(~extkit_crc32c(~0u, "123456789", 9), 0xE3069283u);
}
END_TEST

/* s_checksum (offset 0x3FC) stored and verified; an EA block's
 * h_checksum (offset 16) verified against extkit_ea_block_csum. */
START_TEST(test_super_and_ea_csum_ok)
{
	struct ext2_super_block *raw = calloc(1, sizeof(*raw));
	struct extkit_fs *fs = calloc(1, sizeof(*fs));
	uint8_t *p = (uint8_t *)raw, b[1024];

	ck_assert_ptr_nonnull(raw);
	ck_assert_ptr_nonnull(fs);
	for (size_t i = 0; i < sizeof(*raw); i++)
		p[i] = (uint8_t)(i * 13 + 5);
	ck_assert_int_eq(extkit_super_csum_ok(raw), 0);
	extkit_super_csum_store(raw);
	ck_assert_uint_eq(get_le32(p + 0x3FC), extkit_super_csum(raw));
	ck_assert_int_eq(extkit_super_csum_ok(raw), 1);
	p[0x20] ^= 1;
	ck_assert_int_eq(extkit_super_csum_ok(raw), 0);

	fs->g.block_size = sizeof(b);
	fs->sb.feature_ro_compat = EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 7);
	extkit_ea_block_csum_set(fs, 77, b);
	ck_assert_uint_eq(get_le32(b + 16), extkit_ea_block_csum(fs, 77, b));
	ck_assert_int_eq(extkit_ea_block_csum_ok(fs, 77, b), 1);
	ck_assert_int_eq(extkit_ea_block_csum_ok(fs, 78, b), 0);
	b[100] ^= 1;
	ck_assert_int_eq(extkit_ea_block_csum_ok(fs, 77, b), 0);
	free(raw);
	free(fs);
}
END_TEST

Suite *csum_suite(void)
{
	Suite *s = suite_create("csum");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_check_values);
	tcase_add_test(tc, test_hw_matches_tables);
	tcase_add_test(tc, test_golden_super);
	tcase_add_test(tc, test_golden_group);
	tcase_add_test(tc, test_golden_inode);
	tcase_add_test(tc, test_super_and_ea_csum_ok);
	suite_add_tcase(s, tc);
	return s;
}
