/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Making inline data (inline_data) in a new inode, as the kernel lays it
 * out (fs/ext4/inline.c): the first 60 bytes in i_block, the rest as the
 * value of the in-inode attribute "system.data" (never in an EA block).
 * A directory starts with its parent's inode number (4 bytes, no '.' or
 * '..'); its entries fill the 56 bytes left of i_block, the last one
 * reaching the end, and, when they do not fit there, a value as large as
 * the inode can hold (the kernel's ext4_update_inline_dir: the whole
 * free in-inode space), entries packed from its start.
 *
 * The attribute is placed with the others (extkit_xattr_place puts it
 * first, in the inode); a directory's is placed empty when its inode is
 * written and filled or dropped once its entries are known.
 */
#ifndef EXTKIT_INLINE_BUILD_H
#define EXTKIT_INLINE_BUILD_H

#include <stdint.h>

#include "dirbuild.h"
#include "fs.h"

/*
 * Bytes the empty system.data value of raw inode can grow to in the
 * in-inode area (the kernel's get_max_inline_xattr_value_size): 0 and
 * *room; -ENODATA without the attribute; -EFSCORRUPTED when the area is
 * not valid; -EINVAL when the value is not empty.
 */
int extkit_inline_room(const struct extkit_fs *fs, const uint8_t *raw,
		       uint32_t *room);
/* Gives the empty system.data of raw its value (size bytes, at most
 * the room): below the other values; its entry hash 0, as the kernel
 * writes in-inode entries. */
int extkit_inline_fill(const struct extkit_fs *fs, uint8_t *raw,
		       const uint8_t *value, uint32_t size);
/* Removes the empty system.data entry of raw (and the in-inode area's
 * magic when nothing is left in it). */
int extkit_inline_drop(const struct extkit_fs *fs, uint8_t *raw);

/*
 * The value bytes an inline directory of db's entries (names, inodes,
 * types; '.' and '..' left out) needs past i_block: 0 when they all fit
 * in i_block. Next-fit: the first entry that does not fit in i_block and
 * all after it go in the value.
 */
uint32_t extkit_inline_dir_need(const struct extkit_dirbuild *db);
/*
 * Lays the directory out: iblock (60 bytes: parent, then entries) and
 * value (vsize bytes, at least extkit_inline_dir_need; 0: no value).
 */
void extkit_inline_dir_lay_out(const struct extkit_dirbuild *db,
			       uint32_t parent, uint8_t *iblock,
			       uint8_t *value, uint32_t vsize);

#endif /* EXTKIT_INLINE_BUILD_H */
