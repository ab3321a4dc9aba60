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

#include "alloc.h"
#include "fs.h"
#include "inode.h"

/*
 * Maps a newly allocated block (near goal, from ba: an allocator, or
 * NULL for the on-disk bitmaps whose counts the caller then writes with
 * extkit_alloc_commit) at logical block
 * lblk, which must be the first past the end, or for a block map any
 * hole; indirect blocks come from
 * ba too. *pblk gets it; its contents are the caller's to write.
 * -EXTKIT_EUNSUPP for extent trees deeper than the inode, a full
 * in-inode extent list or an lblk before the last extent's end; -EFBIG
 * past double indirect.
 */
int extkit_dir_append_block(struct extkit_fs *fs, struct extkit_inode *inode,
			    uint64_t lblk, uint64_t goal, uint64_t *pblk,
			    const struct extkit_allocator *ba);

/* Frees every block mapped at or past logical block nblocks, and the
 * index blocks left without a child (extkit_bmap_truncate); sets i_size
 * to nblocks blocks. -EXTKIT_EUNSUPP for an extent tree deeper than the
 * inode. */
int extkit_dir_truncate(struct extkit_fs *fs, struct extkit_inode *inode,
			uint64_t nblocks);

#endif /* EXTKIT_DIREXT_H */
