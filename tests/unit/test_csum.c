// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for csum.c and crc32c_hw.c: crc32c and crc16 against known
 * check values, and the CPU instruction against the portable tables on
 * random buffers (every length 0..300 at every alignment 0..7, then
 * long ones, chained in pieces).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crc32c_hw.h"
#include "csum.h"
#include "endian.h"
#include "fs.h"
#include "ondisk.h"
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
	tcase_add_test(tc, test_super_and_ea_csum_ok);
	suite_add_tcase(s, tc);
	return s;
}
