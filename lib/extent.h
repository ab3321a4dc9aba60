/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Extent trees (ext4): header checks and the walk used by bmap.c. */
#ifndef EXTKIT_EXTENT_H
#define EXTKIT_EXTENT_H

#include <stdint.h>

#include "bmap.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"

/*
 * Checks an extent header found in a buffer of len bytes: magic, eh_max
 * fitting the buffer, eh_entries <= eh_max, depth <= EXT4_EXT_MAX_DEPTH.
 */
int extkit_extent_header_check(const struct ext4_extent_header *eh,
			       uint32_t len);

/* Walks the extent tree rooted in inode->block (see extkit_block_walk). */
int extkit_extent_walk(struct extkit_fs *fs, const struct extkit_inode *inode,
		       extkit_block_fn fn, void *arg);

#endif /* EXTKIT_EXTENT_H */
