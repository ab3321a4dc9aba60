/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 1 internals shared by pass1.c, pass1_types.c and badblocks.c. */
#ifndef EXTKIT_FSCK_PASS1_H
#define EXTKIT_FSCK_PASS1_H

#include <stdint.h>

#include "inode.h"

#include "fsck.h"

/*
 * The checks that depend on the file type (pass1_types.c): device, FIFO
 * and socket inodes (no blocks, no size, no immutable flag) and symlinks
 * (the target against i_size). Returns 1 when the inode was cleared;
 * sets *dirty when a field was fixed in *inode.
 */
int pass1_check_type(struct fsck_ctx *ctx, uint32_t ino,
		     struct extkit_inode *inode, int *dirty);
/* "character device", "block device", "FIFO", "socket" or "symlink" for
 * such a mode, NULL for any other. */
const char *pass1_special_name(uint16_t mode);

/* A device, FIFO or socket whose first block holds '.' and '..' is made
 * a directory again (really_dir.c); sets *dirty when it is. */
void pass1_check_really_dir(struct fsck_ctx *ctx, uint32_t ino,
			    struct extkit_inode *inode, int *dirty);

/*
 * The bad blocks inode (badblocks.c): checks its fields and claims the
 * blocks it lists, before any other inode claims its own; illegal
 * entries are reported and, when fixed, removed from its map.
 */
int pass1_check_bad_inode(struct fsck_ctx *ctx, struct extkit_inode *inode,
			  int csum_bad);

#endif /* EXTKIT_FSCK_PASS1_H */
