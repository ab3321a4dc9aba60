/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The orphan file (orphan_file feature; the kernel's fs/ext4/orphan.c):
 * inode s_orphan_file_inum, a regular file of whole blocks without
 * holes. Each block is an array of __le32 inode numbers (0: a free
 * slot) and an 8-byte tail: the magic, then (metadata_csum) a crc32c
 * seeded by the orphan file's inode number and generation over the
 * block's physical number (__le64) and the array. The ro_compat feature
 * orphan_present says that some slot may be in use.
 */
#ifndef EXTKIT_ORPHAN_FILE_H
#define EXTKIT_ORPHAN_FILE_H

#include <stdint.h>

#include "fs.h"

#define EXT4_ORPHAN_BLOCK_MAGIC	0x0b10ca04

enum extkit_orphan_block_state {
	EXTKIT_ORPHAN_BLOCK_OK = 0,
	EXTKIT_ORPHAN_BLOCK_BAD_MAGIC,
	EXTKIT_ORPHAN_BLOCK_BAD_CSUM,
};

/* Slots in a block: (block size - 8) / 4. */
static inline uint32_t extkit_orphan_slots(const struct extkit_fs *fs)
{
	return (fs->g.block_size - 8) / 4;
}

/* The checksum block buf at physical block pblk must carry. */
uint32_t extkit_orphan_block_csum(const struct extkit_fs *fs, uint32_t ino,
				  uint32_t gen, uint64_t pblk,
				  const uint8_t *buf);
/* Magic and (metadata_csum) checksum of block buf. */
enum extkit_orphan_block_state
extkit_orphan_block_check(const struct extkit_fs *fs, uint32_t ino,
			  uint32_t gen, uint64_t pblk, const uint8_t *buf);
/* Inode number in slot i of buf. */
uint32_t extkit_orphan_slot(const uint8_t *buf, uint32_t i);
/* An empty block as mke2fs and the kernel leave it: no slot in use, the
 * magic, the checksum. */
void extkit_orphan_block_init(const struct extkit_fs *fs, uint32_t ino,
			      uint32_t gen, uint64_t pblk, uint8_t *buf);

#endif /* EXTKIT_ORPHAN_FILE_H */
