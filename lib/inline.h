/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inline_data (kernel Documentation/filesystems/ext4/inlinedata.rst): a
 * file or directory of EXT4_INLINE_DATA_FL keeps its bytes in the 60
 * bytes of i_block and, past them, in the value of the in-inode
 * attribute "system.data" (which must exist, empty or not). An inline
 * directory starts with the parent's inode number (4 bytes) instead of
 * '.' and '..'; its entries fill the rest of i_block and the value.
 */
#ifndef EXTKIT_INLINE_H
#define EXTKIT_INLINE_H

#include <stdint.h>

#include "fs.h"
#include "xattr.h"

#define EXTKIT_INLINE_IBLOCK	60u	/* bytes of i_block */
#define EXTKIT_INLINE_DOTDOT	4u	/* the parent inode of a directory */
#define EXTKIT_INLINE_EA_NAME	"data"	/* under index 7, "system." */
#define EXTKIT_INLINE_EA_INDEX	7

/* Where the inline data of one raw inode lies. */
struct extkit_inline {
	const uint8_t *iblock;	/* the 60 bytes of i_block */
	const uint8_t *ea;	/* the system.data value (NULL if empty) */
	uint32_t ea_len;	/* its size */
	uint32_t entry_off;	/* of its entry in the in-inode area */
};

/*
 * Finds the inline data of raw inode raw: 0; -ENODATA when there is no
 * system.data attribute; -EFSCORRUPTED when the in-inode attribute area
 * is not valid.
 */
int extkit_inline_locate(const struct extkit_fs *fs, const uint8_t *raw,
			 struct extkit_inline *in);
/* Bytes the inode can hold inline: 60 plus the system.data value. */
static inline uint64_t extkit_inline_capacity(const struct extkit_inline *in)
{
	return EXTKIT_INLINE_IBLOCK + in->ea_len;
}

/*
 * Reads the inline contents of inode ino (at most cap bytes; the file's
 * i_size bounded by what the inode holds) into buf; *len the bytes read.
 */
int extkit_inline_read(struct extkit_fs *fs, uint32_t ino, uint8_t *buf,
		       uint32_t cap, uint32_t *len);
/*
 * Rewrites len bytes of the inline part of inode ino: part 0 is i_block
 * from byte off, part 1 the system.data value from byte off (its entry
 * hash recomputed, unless 0 as the kernel leaves it). The inode is written once, with its checksum.
 * -EINVAL for a range outside the part.
 */
int extkit_inline_write(struct extkit_fs *fs, uint32_t ino, int part,
			uint32_t off, const uint8_t *data, uint32_t len);

#endif /* EXTKIT_INLINE_H */
