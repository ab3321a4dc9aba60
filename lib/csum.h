/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checksums: crc32c (metadata_csum) and crc16 (gdt_csum / uninit_bg).
 * Both are the raw reflected forms, no inversion inside: callers pass the
 * seed the format asks for (~0 for the superblock), as the kernel does.
 */
#ifndef EXTKIT_CSUM_H
#define EXTKIT_CSUM_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

uint32_t extkit_crc32c(uint32_t crc, const void *buf, size_t len);
/* Makes the tables extkit_crc32c builds on first use: after it, crc32c
 * may run on two threads at once. */
void extkit_crc32c_prepare(void);
/* The portable table version extkit_crc32c falls back to (and tests). */
uint32_t extkit_crc32c_sw(uint32_t crc, const void *buf, size_t len);
uint16_t extkit_crc16(uint16_t crc, const void *buf, size_t len);

/* s_checksum_seed with metadata_csum_seed, else crc32c(~0, s_uuid). */
uint32_t extkit_csum_seed(const struct extkit_super *sb);
/* s_checksum: crc32c(~0) over the superblock up to the field. */
uint32_t extkit_super_csum(const struct ext2_super_block *raw);
/* Whether raw's stored s_checksum is that; and the store of it (the
 * caller decides whether metadata_csum wants one). */
int extkit_super_csum_ok(const struct ext2_super_block *raw);
void extkit_super_csum_store(struct ext2_super_block *raw);
/* bg_checksum of descriptor g in raw form (crc16 or crc32c & 0xffff). */
uint16_t extkit_group_csum(const struct extkit_fs *fs, uint32_t g,
			   const void *raw_desc);
/* Whether descriptors carry a checksum (gdt_csum or metadata_csum). */
int extkit_has_group_csum(const struct extkit_super *sb);
/* Whether metadata_csum (ro_compat 0x400) is set. */
int extkit_has_metadata_csum(const struct extkit_super *sb);

/* Per-inode seed: crc32c(fs seed, le32 ino, le32 i_generation). Also
 * the seed of the inode's directory blocks and extent blocks. */
uint32_t extkit_inode_csum_seed(const struct extkit_fs *fs, uint32_t ino,
				uint32_t gen);
/* Stores l_i_checksum_lo (and i_checksum_hi when i_extra_isize holds it)
 * of raw inode ino; nothing without metadata_csum. */
void extkit_inode_csum_set(const struct extkit_fs *fs, uint32_t ino,
			   void *raw);
/* 1 when the stored checksum matches (or no metadata_csum, or the inode
 * is all zeroes), else 0. */
int extkit_inode_csum_verify(const struct extkit_fs *fs, uint32_t ino,
			     const void *raw);
/* bg_*_bitmap_csum: crc32c(fs seed) over nbytes of the bitmap
 * (blocks_per_group / 8 or inodes_per_group / 8). */
uint32_t extkit_bitmap_csum(const struct extkit_fs *fs, const void *raw,
			    uint32_t nbytes);
/* Sets bg_block_bitmap_csum / bg_inode_bitmap_csum of group g in memory
 * from the bitmap block raw (with metadata_csum only); the descriptors
 * reach the disk with extkit_fs_write_super. */
void extkit_group_block_bitmap_csum_set(struct extkit_fs *fs, uint32_t g,
					const void *raw);
void extkit_group_inode_bitmap_csum_set(struct extkit_fs *fs, uint32_t g,
					const void *raw);
/* 1 when group g's descriptor holds the checksum of raw (or no
 * metadata_csum); only the low 16 bits with 32-byte descriptors. */
int extkit_group_block_bitmap_csum_ok(const struct extkit_fs *fs,
				      uint32_t g, const void *raw);
int extkit_group_inode_bitmap_csum_ok(const struct extkit_fs *fs,
				      uint32_t g, const void *raw);
/* h_checksum of the EA block at blk: crc32c(fs seed, le64 blk, block with
 * h_checksum zero). _set stores it (with metadata_csum only). */
uint32_t extkit_ea_block_csum(const struct extkit_fs *fs, uint64_t blk,
			      const void *raw);
void extkit_ea_block_csum_set(const struct extkit_fs *fs, uint64_t blk,
			      void *raw);
/* Whether the block's stored h_checksum is extkit_ea_block_csum's. */
int extkit_ea_block_csum_ok(const struct extkit_fs *fs, uint64_t blk,
			    const void *raw);

#endif /* EXTKIT_CSUM_H */
