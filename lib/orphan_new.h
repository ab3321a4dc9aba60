/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A new, empty orphan file (orphan_file feature), as mke2fs makes it
 * (e2fsprogs lib/ext2fs/orphan.c): its size rule and the file itself.
 * Reading and checking its blocks is orphan_file.c's business.
 */
#ifndef EXTKIT_ORPHAN_NEW_H
#define EXTKIT_ORPHAN_NEW_H

#include <stdint.h>

#include "fs.h"

/* The largest orphan file mke2fs makes, in blocks (and the kernel's
 * limit with 4 KiB blocks and smaller). */
#define EXTKIT_ORPHAN_MAX_BLOCKS	512

/*
 * mke2fs's default size in blocks for a filesystem of fs_blocks blocks:
 * 32 under 128 Ki blocks, 1/4096 of the filesystem up to 2 Mi blocks,
 * then 512.
 */
uint32_t extkit_orphan_default_blocks(uint64_t fs_blocks);

/*
 * Makes inode ino (marked in use in the inode bitmap by the caller, and
 * otherwise unused) the orphan file of nblocks blocks (at most
 * EXTKIT_ORPHAN_MAX_BLOCKS): the first free blocks from the start of the
 * filesystem (as libext2fs appends them: a block map's indirect blocks
 * before the blocks they map), each an empty orphan block (magic and
 * checksum tail), a regular file 0600 with one link and generation 0;
 * s_orphan_file_inum and the feature are set in memory. Everything is
 * found before the first write; -ENOSPC when the blocks are not free.
 * Bitmaps and group counts are updated as extkit_alloc_mark does; the
 * caller writes the superblock and descriptors.
 */
int extkit_orphan_file_create(struct extkit_fs *fs, uint32_t ino,
			      uint32_t nblocks, uint32_t now);

#endif /* EXTKIT_ORPHAN_NEW_H */
