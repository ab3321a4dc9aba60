/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Adding and removing directory entries through the free-entry map.
 * Insertion follows the kernel's ext2_add_link: the first record (from
 * block 0) with room takes the name, a free record by reuse, a live one by
 * splitting its rec_len; the map's hints find that block without reading
 * the blocks before it, and when no block has room a fresh block is
 * appended (taken through ds->alloc: the on-disk bitmaps unless the
 * caller set an allocator). Removal follows ext2_delete_entry: the record
 * merges into the previous one of its block (the first record of a block
 * becomes free).
 * Adding N entries visits O(N) blocks in total.
 *
 * Adding to an htree directory keeps its index (dxadd.c: the leaf the
 * name's hash leads to, split when full, as the kernel does). Where that
 * is not handled (an index full at the deepest level the filesystem
 * allows, encrypted names) the
 * index is dropped (EXT2_INDEX_FL cleared, the index blocks become free
 * space), as e2fsprogs' ext2fs_link does; fsck -D rebuilds it. With
 * metadata_csum every block written gets its checksum, and dropping an
 * index is refused (-EXTKIT_EUNSUPP): the dropped index blocks would
 * need tails of their own.
 */
#ifndef EXTKIT_DIRADD_H
#define EXTKIT_DIRADD_H

#include <stdint.h>

#include "dirspace.h"

/*
 * Adds name (len bytes, no '/' or NUL) for inode ino, file type ftype
 * (ignored without the filetype feature). The caller makes sure the name
 * is not already there. *where (if non-NULL) gets the block and offset.
 */
int extkit_dir_add(struct extkit_dirspace *ds, const char *name,
		   uint32_t len, uint32_t ino, uint8_t ftype,
		   struct extkit_dir_hole *where);

/* Removes the live record at offset of logical block lblk. */
int extkit_dir_remove_at(struct extkit_dirspace *ds, uint64_t lblk,
			 uint32_t offset);

/* Finds name (one walk) and removes it; *ino (if non-NULL) gets its
 * inode. -ENOENT if absent; '.' and '..' are refused (-EINVAL). */
int extkit_dir_remove(struct extkit_dirspace *ds, const char *name,
		      uint32_t len, uint32_t *ino);

#endif /* EXTKIT_DIRADD_H */
