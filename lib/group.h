/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Block group descriptors: 32- and 64-byte layouts, per-group counters. */
#ifndef EXTKIT_GROUP_H
#define EXTKIT_GROUP_H

#include <stdint.h>

#include "ondisk.h"
#include "super.h"

struct extkit_group {
	uint64_t block_bitmap;
	uint64_t inode_bitmap;
	uint64_t inode_table;
	uint32_t free_blocks;
	uint32_t free_inodes;
	uint32_t used_dirs;
	uint32_t itable_unused;
	uint16_t flags;
	uint16_t checksum;
	uint32_t block_bitmap_csum;
	uint32_t inode_bitmap_csum;
};

/* desc_size is 32, or >= 64 when the hi halves are present. */
void extkit_group_decode(const void *raw, uint32_t desc_size,
			 struct extkit_group *mem);
void extkit_group_encode(const struct extkit_group *mem, uint32_t desc_size,
			 void *raw);

/* First block of group g and the number of blocks it spans. */
uint64_t extkit_group_first_block(const struct extkit_super *sb, uint32_t g);
uint32_t extkit_group_block_count(const struct extkit_super *sb, uint32_t g);

/*
 * The group holding block blk, and blk's place in it (in blocks). blk
 * must be at or past s_first_data_block (callers check the range).
 */
uint32_t extkit_group_of_block(const struct extkit_super *sb, uint64_t blk);
uint32_t extkit_group_block_index(const struct extkit_super *sb,
				  uint64_t blk);

/* The group holding inode ino (1-based) and its index in that group. */
uint32_t extkit_group_of_inode(const struct extkit_super *sb, uint32_t ino);
uint32_t extkit_group_inode_index(const struct extkit_super *sb,
				  uint32_t ino);

/* Blocks at the start of group g taken by a superblock backup, the group
 * descriptors and the reserved GDT blocks (0 when g has no backup). */
/*
 * 1 for group 0 of a 1 KiB-block bigalloc filesystem, whose group starts
 * at block 0 although the superblock is in block 1: the blocks before
 * the superblock (its place, descriptors after it); else 0.
 */
uint32_t extkit_group_boot_block(const struct extkit_super *sb,
				 const struct extkit_geom *geom, uint32_t g);
uint32_t extkit_group_sb_overhead(const struct extkit_super *sb,
				  const struct extkit_geom *geom, uint32_t g);

#endif /* EXTKIT_GROUP_H */
