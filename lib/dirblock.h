/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory block checksums (metadata_csum): the 12-byte tail record that
 * ends a leaf block (struct ext4_dir_entry_tail) and the dx_tail after the
 * last dx_entry slot of an htree root or interior node. Both are seeded
 * with the directory's inode number and generation
 * (Documentation/filesystems/ext4/checksums.rst, the kernel's
 * ext4_dirblock_csum and ext4_dx_csum). Every writer of a directory block
 * goes through extkit_dirblock_write.
 */
#ifndef EXTKIT_DIRBLOCK_H
#define EXTKIT_DIRBLOCK_H

#include <stdint.h>

#include "fs.h"

/* Whether the last 12 bytes of buf are a checksum tail record. */
int extkit_dirblock_has_tail(const struct extkit_fs *fs, const uint8_t *buf);
/* Whether buf reads as an htree root: '.', '..' to the block end, a
 * dx_root_info of length 8 and a sound count and limit. */
int extkit_dirblock_is_dx_root(const struct extkit_fs *fs, const uint8_t *buf);
/* Whether buf reads as an htree root or node (its checksum, if any, is
 * the dx_tail's). */
int extkit_dirblock_is_dx(const struct extkit_fs *fs, const uint8_t *buf);
/* Writes an empty tail record (checksum 0) over the last 12 bytes. */
void extkit_dirblock_init_tail(const struct extkit_fs *fs, uint8_t *buf);

/*
 * Stores the checksum of a leaf block with a tail, or of an htree root or
 * node. -ENOSPC when the block is neither (no place for a checksum).
 */
int extkit_dirblock_csum_set(const struct extkit_fs *fs, uint32_t ino,
			     uint32_t gen, uint8_t *buf);
/* 1 when the stored checksum matches, 0 when not, -ENOSPC as above. */
int extkit_dirblock_csum_verify(const struct extkit_fs *fs, uint32_t ino,
				uint32_t gen, const uint8_t *buf);
/*
 * The checksum of buf as stored (*stored) and as it should be (*want):
 * a leaf's tail, or an htree root's or node's dx_tail. -ENOSPC when the
 * block has no place for one.
 */
int extkit_dirblock_csum_get(const struct extkit_fs *fs, uint32_t ino,
			     uint32_t gen, const uint8_t *buf,
			     uint32_t *stored, uint32_t *want);
/*
 * The same for a block of a directory without an htree index, which can
 * only be a leaf: a block that reads as an index root (say one left
 * behind when the index flag was cleared) is checked for a leaf's tail.
 */
int extkit_dirblock_leaf_csum_verify(const struct extkit_fs *fs, uint32_t ino,
				     uint32_t gen, const uint8_t *buf);

/* How extkit_dirblock_new lays out '..'. */
enum extkit_newdir_flags {
	/* '..' of 12 bytes; the caller puts the records from offset 24 on,
	 * the last ending where the block's usable part ends */
	EXTKIT_NEWDIR_OPEN = 1,
	/* the head of an htree root: '..' to the block's very end, no
	 * checksum tail (the dx_root_info follows at 24, the dx_tail at
	 * the end of the entries) */
	EXTKIT_NEWDIR_DX_ROOT = 2,
};

/*
 * The one builder of a new directory block: buf (a block) zeroed, then
 * '.' (dir) and '..' (parent), '..' taking the rest of the block unless
 * flags say otherwise, and with metadata_csum the checksum tail (its
 * checksum set when the block is written: extkit_dirblock_write).
 * parent 0 (a block after a directory's first): one empty record over
 * the block instead. The entries' file types follow the filesystem's
 * directory format.
 */
void extkit_dirblock_new(const struct extkit_fs *fs, uint8_t *buf,
			 uint32_t dir, uint32_t parent, unsigned int flags);

/* The same for an inline directory's i_block (EXTKIT_INLINE_IBLOCK
 * bytes): the parent's inode number, then one empty record over the
 * rest, as the kernel makes one. */
void extkit_dirblock_new_inline(const struct extkit_fs *fs, uint8_t *iblock,
				uint32_t parent);

/*
 * Writes directory block buf (of directory ino, i_generation gen) at blk,
 * its checksum set first with metadata_csum. A block with no place for a
 * checksum is written as it is.
 */
int extkit_dirblock_write(struct extkit_fs *fs, uint32_t ino, uint32_t gen,
			  uint64_t blk, uint8_t *buf);

#endif /* EXTKIT_DIRBLOCK_H */
