// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block group descriptors. 32-byte descriptors hold the _lo halves only;
 * with the 64bit feature s_desc_size (>= 64) bytes hold the _hi halves too.
 */
#include "config.h"

#include <string.h>

#include "endian.h"
#include "group.h"

void extkit_group_decode(const void *raw, uint32_t desc_size,
			 struct extkit_group *m)
{
	struct ext4_group_desc d;
	int wide = desc_size >= EXT4_MIN_DESC_SIZE_64BIT;

	memset(&d, 0, sizeof(d));
	memcpy(&d, raw, wide ? sizeof(d) : EXT2_MIN_DESC_SIZE);
	m->block_bitmap = le32(d.bg_block_bitmap_lo) |
			  (uint64_t)le32(d.bg_block_bitmap_hi) << 32;
	m->inode_bitmap = le32(d.bg_inode_bitmap_lo) |
			  (uint64_t)le32(d.bg_inode_bitmap_hi) << 32;
	m->inode_table = le32(d.bg_inode_table_lo) |
			 (uint64_t)le32(d.bg_inode_table_hi) << 32;
	m->free_blocks = le16(d.bg_free_blocks_count_lo) |
			 (uint32_t)le16(d.bg_free_blocks_count_hi) << 16;
	m->free_inodes = le16(d.bg_free_inodes_count_lo) |
			 (uint32_t)le16(d.bg_free_inodes_count_hi) << 16;
	m->used_dirs = le16(d.bg_used_dirs_count_lo) |
		       (uint32_t)le16(d.bg_used_dirs_count_hi) << 16;
	m->itable_unused = le16(d.bg_itable_unused_lo) |
			   (uint32_t)le16(d.bg_itable_unused_hi) << 16;
	m->flags = le16(d.bg_flags);
	m->checksum = le16(d.bg_checksum);
	m->block_bitmap_csum = le16(d.bg_block_bitmap_csum_lo) |
			       (uint32_t)le16(d.bg_block_bitmap_csum_hi) << 16;
	m->inode_bitmap_csum = le16(d.bg_inode_bitmap_csum_lo) |
			       (uint32_t)le16(d.bg_inode_bitmap_csum_hi) << 16;
}

static void encode_hi(const struct extkit_group *m, struct ext4_group_desc *d)
{
	d->bg_block_bitmap_hi = cpu_to_le32(m->block_bitmap >> 32);
	d->bg_inode_bitmap_hi = cpu_to_le32(m->inode_bitmap >> 32);
	d->bg_inode_table_hi = cpu_to_le32(m->inode_table >> 32);
	d->bg_free_blocks_count_hi = cpu_to_le16(m->free_blocks >> 16);
	d->bg_free_inodes_count_hi = cpu_to_le16(m->free_inodes >> 16);
	d->bg_used_dirs_count_hi = cpu_to_le16(m->used_dirs >> 16);
	d->bg_itable_unused_hi = cpu_to_le16(m->itable_unused >> 16);
	d->bg_block_bitmap_csum_hi = cpu_to_le16(m->block_bitmap_csum >> 16);
	d->bg_inode_bitmap_csum_hi = cpu_to_le16(m->inode_bitmap_csum >> 16);
}

void extkit_group_encode(const struct extkit_group *m, uint32_t desc_size,
			 void *raw)
{
	struct ext4_group_desc d;
	int wide = desc_size >= EXT4_MIN_DESC_SIZE_64BIT;
	size_t len = wide ? sizeof(d) : EXT2_MIN_DESC_SIZE;

	memcpy(&d, raw, len);
	d.bg_block_bitmap_lo = cpu_to_le32((uint32_t)m->block_bitmap);
	d.bg_inode_bitmap_lo = cpu_to_le32((uint32_t)m->inode_bitmap);
	d.bg_inode_table_lo = cpu_to_le32((uint32_t)m->inode_table);
	d.bg_free_blocks_count_lo = cpu_to_le16((uint16_t)m->free_blocks);
	d.bg_free_inodes_count_lo = cpu_to_le16((uint16_t)m->free_inodes);
	d.bg_used_dirs_count_lo = cpu_to_le16((uint16_t)m->used_dirs);
	d.bg_itable_unused_lo = cpu_to_le16((uint16_t)m->itable_unused);
	d.bg_flags = cpu_to_le16(m->flags);
	d.bg_checksum = cpu_to_le16(m->checksum);
	d.bg_block_bitmap_csum_lo =
		cpu_to_le16((uint16_t)m->block_bitmap_csum);
	d.bg_inode_bitmap_csum_lo =
		cpu_to_le16((uint16_t)m->inode_bitmap_csum);
	if (wide)
		encode_hi(m, &d);
	memcpy(raw, &d, len);
}

uint64_t extkit_group_first_block(const struct extkit_super *sb, uint32_t g)
{
	return sb->first_data_block + (uint64_t)g * sb->blocks_per_group;
}

uint32_t extkit_group_block_count(const struct extkit_super *sb, uint32_t g)
{
	uint64_t first = extkit_group_first_block(sb, g);
	uint64_t left = sb->blocks_count - first;

	return left < sb->blocks_per_group ? (uint32_t)left :
					     sb->blocks_per_group;
}

uint32_t extkit_group_of_block(const struct extkit_super *sb, uint64_t blk)
{
	return (uint32_t)((blk - sb->first_data_block) / sb->blocks_per_group);
}

uint32_t extkit_group_block_index(const struct extkit_super *sb,
				  uint64_t blk)
{
	return (uint32_t)((blk - sb->first_data_block) % sb->blocks_per_group);
}

uint32_t extkit_group_of_inode(const struct extkit_super *sb, uint32_t ino)
{
	return (ino - 1) / sb->inodes_per_group;
}

uint32_t extkit_group_inode_index(const struct extkit_super *sb,
				  uint32_t ino)
{
	return (ino - 1) % sb->inodes_per_group;
}

/*
 * With meta_bg, descriptors past s_first_meta_bg blocks live in the first,
 * second and last group of each meta group (descs_per_block groups).
 */
static uint32_t meta_bg_desc_blocks(const struct extkit_super *sb,
				    const struct extkit_geom *geom, uint32_t g)
{
	uint32_t dpb = geom->descs_per_block;
	uint32_t in_meta = g % dpb;

	if (g / dpb < sb->first_meta_bg)
		return 0;
	return in_meta == 0 || in_meta == 1 || in_meta == dpb - 1;
}

uint32_t extkit_group_sb_overhead(const struct extkit_super *sb,
				  const struct extkit_geom *geom, uint32_t g)
{
	uint32_t n = 0;
	int has_super = extkit_super_group_has_backup(sb, g);

	/* meta_bg reserves no GDT blocks (resize_inode goes with it): as
	 * e2fsprogs lays the groups out, a stray s_reserved_gdt_blocks is
	 * not counted (e2fsck zeroes it) */
	if (sb->feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG) {
		/* the s_first_meta_bg blocks of old-style descriptors
		 * follow a superblock copy only in the meta groups before
		 * s_first_meta_bg (the kernel's ext4_bg_num_gdb and
		 * libext2fs lay them out so) */
		if (has_super) {
			uint32_t old = sb->first_meta_bg < geom->gdt_blocks ?
				       sb->first_meta_bg : geom->gdt_blocks;

			n += 1;
			if (g / geom->descs_per_block < sb->first_meta_bg)
				n += old;
		}
		return n + meta_bg_desc_blocks(sb, geom, g) +
		       extkit_group_boot_block(sb, geom, g);
	}
	if (has_super)
		n = 1 + geom->gdt_blocks + sb->reserved_gdt_blocks;
	return n + extkit_group_boot_block(sb, geom, g);
}

uint32_t extkit_group_boot_block(const struct extkit_super *sb,
				 const struct extkit_geom *geom, uint32_t g)
{
	return g == 0 && sb->first_data_block == 0 && geom->block_size == 1024;
}
