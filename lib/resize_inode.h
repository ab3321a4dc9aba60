/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The resize inode (inode 7, resize_inode feature) as mke2fs lays it out
 * (e2fsprogs lib/ext2fs/res_gdt.c), the one builder mkfs and fsck share:
 * only its double indirect block is set. Entry (descriptor blocks + r)
 * mod addr_per_block of that block names primary reserved GDT block r
 * (they follow the primary descriptors), and that block, read as an
 * indirect block, lists the same reserved block in every group holding a
 * superblock backup, in ascending group order (e2fsck's
 * check_resize_inode checks exactly this). The backups' reserved blocks
 * themselves stay as they are.
 */
#ifndef EXTKIT_RESIZE_INODE_H
#define EXTKIT_RESIZE_INODE_H

#include <stdint.h>

#include "fs.h"

/* The first primary reserved GDT block. */
uint64_t extkit_resize_first_reserved(const struct extkit_fs *fs);

/* Its i_size: every block a double indirect map of that block size
 * reaches. */
uint64_t extkit_resize_inode_size(uint32_t block_size);

/* The blocks it maps (the double indirect block, each reserved block and
 * its copies), in filesystem blocks: bigalloc counts each as a cluster,
 * as e2fsprogs does. */
uint64_t extkit_resize_inode_blocks(const struct extkit_fs *fs);

/* Its highest logical block (the last copy of the reserved block of the
 * highest double indirect slot), or -1 when it maps none. */
int64_t extkit_resize_inode_last_lblk(const struct extkit_fs *fs);

/* The double indirect block's contents, into buf (a block). */
void extkit_resize_dind_build(const struct extkit_fs *fs, uint8_t *buf);
/* Reserved GDT block r's list of its copies, into buf (a block). */
void extkit_resize_list_build(const struct extkit_fs *fs, uint32_t r,
			      uint8_t *buf);

/* Whether every group's backup fits in a reserved block's list (a block
 * of addr_per_block entries; always with sparse_super). */
int extkit_resize_fits(const struct extkit_fs *fs);

/* Writes the double indirect block at dind and every reserved block's
 * list (of the first addr_per_block backups: a writer making a new
 * filesystem refuses more). */
int extkit_resize_write(struct extkit_fs *fs, uint64_t dind);

#endif /* EXTKIT_RESIZE_INODE_H */
