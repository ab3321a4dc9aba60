// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crc32c (Castagnoli, reflected 0x82F63B78) and crc16 (reflected 0xA001),
 * table driven (crc32c by the CPU's instruction where it has one:
 * crc32c_hw.c), plus the superblock and group descriptor checksums
 * (Documentation/filesystems/ext4/checksums.rst).
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "crc32c_hw.h"
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

uint32_t extkit_crc32c_sw(uint32_t crc, const void *buf, size_t len)
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

/* The CPU's instruction where it has one, else the tables. */
uint32_t extkit_crc32c(uint32_t crc, const void *buf, size_t len)
{
	static int hw = -1;	/* unknown yet; then whether the CPU has it */

	if (hw < 0)
		hw = extkit_crc32c_hw_available() != 0;
	if (hw)
		return extkit_crc32c_hw(crc, buf, len);
	return extkit_crc32c_sw(crc, buf, len);
}

void extkit_crc32c_prepare(void)
{
	/* long enough for the instruction's three-lane tables */
	static const uint8_t zeros[1024];

	if (!tables_ready)
		build_tables();
	(void)extkit_crc32c(0, zeros, sizeof(zeros));
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

int extkit_super_csum_ok(const struct ext2_super_block *raw)
{
	return le32(raw->s_checksum) == extkit_super_csum(raw);
}

void extkit_super_csum_store(struct ext2_super_block *raw)
{
	raw->s_checksum = cpu_to_le32(extkit_super_csum(raw));
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

int extkit_has_metadata_csum(const struct extkit_super *sb)
{
	return (sb->feature_ro_compat &
		EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) != 0;
}

uint32_t extkit_inode_csum_seed(const struct extkit_fs *fs, uint32_t ino,
				uint32_t gen)
{
	__le32 le_ino = cpu_to_le32(ino), le_gen = cpu_to_le32(gen);
	uint32_t c = extkit_csum_seed(&fs->sb);

	c = extkit_crc32c(c, &le_ino, sizeof(le_ino));
	return extkit_crc32c(c, &le_gen, sizeof(le_gen));
}

/*
 * Whether i_checksum_hi lies inside i_extra_isize of this raw inode. An
 * i_extra_isize past the inode's end still counts (e2fsprogs'
 * ext2fs_inode_csum tests only the lower bound), so a checksum written
 * here over such an inode is one e2fsck accepts.
 */
static int inode_has_csum_hi(const struct extkit_fs *fs, const uint8_t *raw)
{
	size_t hi = offsetof(struct ext2_inode, i_checksum_hi);
	uint32_t extra;

	if (fs->g.inode_size <= EXT2_GOOD_OLD_INODE_SIZE)
		return 0;
	extra = get_le16(raw + offsetof(struct ext2_inode, i_extra_isize));
	return EXT2_GOOD_OLD_INODE_SIZE + extra >= hi + 2;
}

/*
 * crc32c(inode seed, the whole on-disk inode) with l_i_checksum_lo and,
 * when i_extra_isize covers it, i_checksum_hi taken as zero (the
 * kernel's ext4_inode_csum). The seed uses i_generation of the inode.
 */
static uint32_t inode_csum(const struct extkit_fs *fs, uint32_t ino,
			   const uint8_t *raw)
{
	size_t lo = offsetof(struct ext2_inode, l_i_checksum_lo);
	size_t hi = offsetof(struct ext2_inode, i_checksum_hi);
	uint32_t gen = get_le32(raw + offsetof(struct ext2_inode,
					       i_generation));
	uint32_t size = fs->g.inode_size, c;
	int has_hi = inode_has_csum_hi(fs, raw);
	static const uint8_t zero[2];
	uint8_t copy[1024];

	c = extkit_inode_csum_seed(fs, ino, gen);
	if (size <= sizeof(copy)) {
		/* One pass over a copy with the fields zeroed: the same
		 * crc as the pieces below, in one call (pass 1 does this
		 * for every inode in use). */
		memcpy(copy, raw, size);
		memset(copy + lo, 0, 2);
		if (has_hi)
			memset(copy + hi, 0, 2);
		return extkit_crc32c(c, copy, size);
	}
	c = extkit_crc32c(c, raw, lo);
	c = extkit_crc32c(c, zero, 2);
	if (!has_hi)
		return extkit_crc32c(c, raw + lo + 2, size - lo - 2);
	c = extkit_crc32c(c, raw + lo + 2, hi - lo - 2);
	c = extkit_crc32c(c, zero, 2);
	return extkit_crc32c(c, raw + hi + 2, size - hi - 2);
}

void extkit_inode_csum_set(const struct extkit_fs *fs, uint32_t ino,
			   void *raw)
{
	uint8_t *p = raw;
	uint32_t c;

	if (!extkit_has_metadata_csum(&fs->sb))
		return;
	c = inode_csum(fs, ino, p);
	put_le16(p + offsetof(struct ext2_inode, l_i_checksum_lo),
		 (uint16_t)c);
	if (inode_has_csum_hi(fs, p))
		put_le16(p + offsetof(struct ext2_inode, i_checksum_hi),
			 (uint16_t)(c >> 16));
}

int extkit_inode_csum_verify(const struct extkit_fs *fs, uint32_t ino,
			     const void *raw)
{
	const uint8_t *p = raw;
	uint32_t c, have;

	if (!extkit_has_metadata_csum(&fs->sb))
		return 1;
	c = inode_csum(fs, ino, p);
	have = get_le16(p + offsetof(struct ext2_inode, l_i_checksum_lo));
	if (inode_has_csum_hi(fs, p))
		have |= (uint32_t)get_le16(p + offsetof(struct ext2_inode,
						i_checksum_hi)) << 16;
	else
		c &= 0xffff;
	if (c == have)
		return 1;
	/* An inode never written (all zeroes) passes, as in e2fsprogs. */
	for (uint32_t i = 0; i < fs->g.inode_size; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The bytes of a block bitmap the checksum covers: one bit per cluster
 * of a group (clusters are blocks without bigalloc). */
static uint32_t bitmap_bytes(const struct extkit_fs *fs)
{
	return (fs->sb.blocks_per_group >> fs->g.cluster_bits) / 8;
}

uint32_t extkit_bitmap_csum(const struct extkit_fs *fs, const void *raw,
			    uint32_t nbytes)
{
	return extkit_crc32c(extkit_csum_seed(&fs->sb), raw, nbytes);
}

uint32_t extkit_ea_block_csum(const struct extkit_fs *fs, uint64_t blk,
			      const void *raw)
{
	size_t off = offsetof(struct ext2_ext_attr_header, h_checksum);
	const uint8_t *p = raw;
	__le64 le_blk = cpu_to_le64(blk);
	static const uint8_t zero[4];
	uint32_t c = extkit_csum_seed(&fs->sb);

	c = extkit_crc32c(c, &le_blk, sizeof(le_blk));
	c = extkit_crc32c(c, p, off);
	c = extkit_crc32c(c, zero, sizeof(zero));
	return extkit_crc32c(c, p + off + 4, fs->g.block_size - off - 4);
}

int extkit_ea_block_csum_ok(const struct extkit_fs *fs, uint64_t blk,
			    const void *raw)
{
	return get_le32((const uint8_t *)raw +
			offsetof(struct ext2_ext_attr_header, h_checksum)) ==
	       extkit_ea_block_csum(fs, blk, raw);
}

void extkit_ea_block_csum_set(const struct extkit_fs *fs, uint64_t blk,
			      void *raw)
{
	if (extkit_has_metadata_csum(&fs->sb))
		put_le32((uint8_t *)raw + offsetof(struct ext2_ext_attr_header,
						   h_checksum),
			 extkit_ea_block_csum(fs, blk, raw));
}

void extkit_group_block_bitmap_csum_set(struct extkit_fs *fs, uint32_t g,
					const void *raw)
{
	if (extkit_has_metadata_csum(&fs->sb))
		fs->groups[g].block_bitmap_csum = extkit_bitmap_csum(fs, raw,
					bitmap_bytes(fs));
}

void extkit_group_inode_bitmap_csum_set(struct extkit_fs *fs, uint32_t g,
					const void *raw)
{
	if (extkit_has_metadata_csum(&fs->sb))
		fs->groups[g].inode_bitmap_csum = extkit_bitmap_csum(fs, raw,
					fs->sb.inodes_per_group / 8);
}

/* Compares the low 16 bits only with 32-byte descriptors (no _hi). */
static int bitmap_csum_match(const struct extkit_fs *fs, uint32_t have,
			     uint32_t want)
{
	if (fs->g.desc_size < EXT4_MIN_DESC_SIZE_64BIT)
		return (have & 0xffff) == (want & 0xffff);
	return have == want;
}

int extkit_group_block_bitmap_csum_ok(const struct extkit_fs *fs,
				      uint32_t g, const void *raw)
{
	return !extkit_has_metadata_csum(&fs->sb) ||
	       bitmap_csum_match(fs, fs->groups[g].block_bitmap_csum,
				 extkit_bitmap_csum(fs, raw,
					bitmap_bytes(fs)));
}

int extkit_group_inode_bitmap_csum_ok(const struct extkit_fs *fs,
				      uint32_t g, const void *raw)
{
	return !extkit_has_metadata_csum(&fs->sb) ||
	       bitmap_csum_match(fs, fs->groups[g].inode_bitmap_csum,
				 extkit_bitmap_csum(fs, raw,
					fs->sb.inodes_per_group / 8));
}
