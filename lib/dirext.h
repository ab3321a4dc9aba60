/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growing and shrinking a directory's block map: append one block at the
 * end (allocating indirect blocks as needed, or extending the in-inode
 * extent list), and truncate to N blocks, freeing the data and index
 * blocks past it as ranges. Both edit the in-memory inode (i_blocks, and
 * i_size on truncation); the caller writes it.
 */
#ifndef EXTKIT_DIREXT_H
#define EXTKIT_DIREXT_H

#include <stdint.h>

#include "fs.h"
#include "inode.h"

/*
 * Maps a newly allocated block (near goal) at logical block lblk, which
 * must be the first past the end. *pblk gets it; its contents are the
 * caller's to write. -EXTKIT_EUNSUPP for extent trees deeper than the
 * inode or a full in-inode extent list; -EFBIG past double indirect.
 */
int extkit_dir_append_block(struct extkit_fs *fs, struct extkit_inode *inode,
			    uint64_t lblk, uint64_t goal, uint64_t *pblk);

/* Frees every block mapped at or past logical block nblocks, and the
 * index blocks left without a child; sets i_size to nblocks blocks. */
int extkit_dir_truncate(struct extkit_fs *fs, struct extkit_inode *inode,
			uint64_t nblocks);

#endif /* EXTKIT_DIREXT_H */
