/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory leaf blocks, the two steps every way of adding a name takes
 * (diradd.c's linear one and dxadd.c's htree one): put a record into a
 * block, and append an empty block to the directory.
 */
#ifndef EXTKIT_DIRLEAF_H
#define EXTKIT_DIRLEAF_H

#include <stdint.h>

#include "direntry.h"
#include "dirspace.h"

/*
 * Places a record in the first record of leaf buf with room (the
 * kernel's ext2_add_link): a free record is reused, a live one split.
 * Returns its offset, -ENOSPC when no record has room, -EFSCORRUPTED for
 * a broken chain.
 */
int extkit_dir_leaf_place(const struct extkit_dir_format *fmt, uint8_t *buf,
			  const char *name, uint32_t len, uint32_t ino,
			  uint8_t ftype);

/*
 * Appends an empty block to ds's directory (one free record over its
 * usable bytes, a tail with metadata_csum), taken through ds->alloc near
 * the last block, written with the inode's new size; its room is noted
 * in ds. *lblk gets its logical block. ds->buf is overwritten.
 */
int extkit_dir_leaf_append(struct extkit_dirspace *ds, uint64_t *lblk);

#endif /* EXTKIT_DIRLEAF_H */
