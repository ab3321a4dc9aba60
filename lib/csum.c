// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crc32c (Castagnoli, reflected 0x82F63B78) and crc16 (reflected 0xA001),
 * table driven, plus the superblock and group descriptor checksums
 * (Documentation/filesystems/ext4/checksums.rst).
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "csum.h"
#include "endian.h"

static uint32_t crc32c_table[8][256];
static uint16_t crc16_table[256];
static int tables_ready;

/* Tables are pure functions of constants; building them twice is harmless. */
static void build_tables(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		uint16_t s = (uint16_t)i;

		for (int k = 0; k < 8; k++) {
			c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0);
			s = (uint16_t)((s >> 1) ^ ((s & 1) ? 0xA001u : 0));
		}
		crc32c_table[0][i] = c;
		crc16_table[i] = s;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc32c_table[t][i] = (crc32c_table[t - 1][i] >> 8) ^
				crc32c_table[0][crc32c_table[t - 1][i] & 0xff];
	tables_ready = 1;
}

uint32_t extkit_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!tables_ready)
		build_tables();
	while (len >= 8) {
		uint32_t lo = crc ^ get_le32(p);
		uint32_t hi = get_le32(p + 4);

		crc = crc32c_table[7][lo & 0xff] ^
		      crc32c_table[6][(lo >> 8) & 0xff] ^
		      crc32c_table[5][(lo >> 16) & 0xff] ^
		      crc32c_table[4][lo >> 24] ^
		      crc32c_table[3][hi & 0xff] ^
		      crc32c_table[2][(hi >> 8) & 0xff] ^
		      crc32c_table[1][(hi >> 16) & 0xff] ^
		      crc32c_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

uint16_t extkit_crc16(uint16_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!tables_ready)
		build_tables();
	while (len--)
		crc = (uint16_t)((crc >> 8) ^ crc16_table[(crc ^ *p++) & 0xff]);
	return crc;
}

uint32_t extkit_csum_seed(const struct extkit_super *sb)
{
	if (sb->feature_incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED)
		return sb->checksum_seed;
	return extkit_crc32c(~0u, sb->uuid, sizeof(sb->uuid));
}

uint32_t extkit_super_csum(const struct ext2_super_block *raw)
{
	return extkit_crc32c(~0u, raw,
			     offsetof(struct ext2_super_block, s_checksum));
}

int extkit_has_group_csum(const struct extkit_super *sb)
{
	return (sb->feature_ro_compat & (EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
				EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) != 0;
}

uint16_t extkit_group_csum(const struct extkit_fs *fs, uint32_t g,
			   const void *raw_desc)
{
	const size_t off = offsetof(struct ext4_group_desc, bg_checksum);
	uint32_t size = fs->g.desc_size;
	__le32 le_group = cpu_to_le32(g);
	uint8_t desc[EXT4_MAX_DESC_SIZE];
	uint16_t crc;

	memcpy(desc, raw_desc, size);
	if (fs->sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) {
		uint32_t c = extkit_csum_seed(&fs->sb);

		memset(desc + off, 0, 2);
		c = extkit_crc32c(c, &le_group, sizeof(le_group));
		c = extkit_crc32c(c, desc, size);
		return (uint16_t)(c & 0xffff);
	}
	crc = extkit_crc16(0xffff, fs->sb.uuid, sizeof(fs->sb.uuid));
	crc = extkit_crc16(crc, &le_group, sizeof(le_group));
	crc = extkit_crc16(crc, desc, off);
	if (off + 2 < size)
		crc = extkit_crc16(crc, desc + off + 2, size - off - 2);
	return crc;
}
