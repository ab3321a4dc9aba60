/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compacting a directory in place: the live entries are rewritten densely
 * into the directory's own blocks (in their logical order; a block or two
 * more when an index needs them), its block map is built anew over them
 * (extent tree of any depth, or indirect blocks; holes go away), the
 * blocks left over are freed (as ranges), i_size and i_blocks follow.
 * All or nothing: everything that can fail is decided before the first
 * write, so on an error other than I/O the directory is as it was. Without dir_index, or when the
 * entries fit one block, the result is linear and keeps the entries'
 * order; with dir_index and more than one block, the leaves are sorted by
 * hash and an htree index is built (root in block 0, leaves from block 1,
 * index nodes after the leaves). The packing is the one dirspace.c counts
 * blocks_needed with, so a compacted directory has no reclaimable block.
 */
#ifndef EXTKIT_DIRCOMPACT_H
#define EXTKIT_DIRCOMPACT_H

#include <stdint.h>

#include "dirspace.h"
#include "fs.h"

struct extkit_compact_result {
	uint64_t blocks_before;
	uint64_t blocks_after;
	uint64_t entries;	/* live entries moved ('.' and '..' too) */
	int indexed;		/* an htree was built */
	int written;		/* writing began: on an error, the directory
				 * may be half rewritten (only I/O fails so) */
};

/*
 * Compacts directory ino. -EFSCORRUPTED when the iterator finds a corrupt
 * record, no '.' or '..', or a block the bitmaps do not show in use (fsck
 * repairs first); -EXTKIT_EUNSUPP for inline directories, encrypted
 * and casefolded ones, casefolded ones under an unknown encoding,
 * unwritten extents, or bigalloc; -ENOSPC when the new layout needs blocks the filesystem does not have. With those, nothing
 * was written (res->written is 0). With metadata_csum every leaf gets its
 * checksum tail, every index block its dx_tail, every extent block its
 * tail.
 */
int extkit_dir_compact(struct extkit_fs *fs, uint32_t ino,
		       struct extkit_compact_result *res);

/* The plan alone: what extkit_dir_compact would do (res) or the reason
 * it would refuse (the same error), reading only. */
int extkit_dir_compact_check(struct extkit_fs *fs, uint32_t ino,
			     struct extkit_compact_result *res);

/*
 * Whether a directory is worth compacting: it has reclaimable blocks and
 * at least threshold percent of its leaf bytes are free (threshold 0:
 * any reclaimable block).
 */
int extkit_dir_compact_wanted(const struct extkit_dirspace_stats *st,
			      unsigned int threshold);

#endif /* EXTKIT_DIRCOMPACT_H */
