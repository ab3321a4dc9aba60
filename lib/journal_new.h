/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A new, empty internal jbd2 journal (inode 8), as mke2fs and tune2fs -j
 * make one: its size, its place, its block map, its superblock. Reading
 * and replaying a journal is journal.c's business, not this file's.
 */
#ifndef EXTKIT_JOURNAL_NEW_H
#define EXTKIT_JOURNAL_NEW_H

#include <stdint.h>

#include "fs.h"

/*
 * mke2fs's default journal size in filesystem blocks for a filesystem
 * of fs_blocks blocks (e2fsprogs 1.47 ext2fs_default_journal_size: the
 * steps are in blocks, whatever their size), or 0 when the filesystem is
 * too small for a journal (under 2048 blocks).
 */
uint32_t extkit_journal_default_blocks(uint64_t fs_blocks,
				       unsigned block_size);

struct extkit_journal_params {
	uint32_t blocks;	/* journal length, at least 1024 */
	uint32_t fc_blocks;	/* of which the fast-commit area at its end
				 * (s_num_fc_blks; 0: none) */
	uint64_t goal;		/* 0: where mke2fs puts it */
	int from_start;		/* 1: from the first data block on (mke2fs
				 * -E packed_meta_blocks); goal unused */
	int zero_log;		/* 1: write zeroes over the log
				 * (lazy_journal_init=0); 0: leave it */
	int write_zeroes;	/* with zero_log: plain writes of zero
				 * blocks (allocated even in a sparse file),
				 * not the cheapest zeroing (holes) */
	int csum;		/* 1: jbd2 csum v3 (crc32c) with
				 * metadata_csum and 64bit journal blocks with
				 * 64bit, as the kernel sets them at mount;
				 * 0: no journal features, as mke2fs 1.47 */
	uint32_t now;		/* inode times; 0: extkit_clock_now() */
	int defer_super;	/* 1: the caller writes the superblock and
				 * descriptors (they are changed in memory) */
};

/*
 * Creates the journal in inode 8, which must be unused (-EEXIST if it
 * holds blocks): one run of free blocks from the goal on (mke2fs's
 * midpoint group with extents, the start of the filesystem for a block
 * map), inode 8 mapping them (extent tree with the extent feature, else
 * direct and indirect blocks), the jbd2 v2 superblock in its first
 * block, s_journal_inum, has_journal and the s_jnl_blocks backup,
 * bitmaps and free counts. Everything that can fail (size, space, inode
 * 8) is decided before the first write. -EINVAL for fewer than 1024
 * blocks, -ENOSPC when the blocks are not free.
 */
int extkit_journal_create(struct extkit_fs *fs,
			  const struct extkit_journal_params *p);

#endif /* EXTKIT_JOURNAL_NEW_H */
