/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo log: an io that wraps another and, before the first write to any
 * block, appends that block's old contents to an undo file in e2fsprogs'
 * format, so that e2undo(8) restores the target byte for byte.
 */
#ifndef EXTKIT_UNDO_H
#define EXTKIT_UNDO_H

#include "io.h"

/*
 * Opens (creating it if missing) the undo file at path for writing.
 * Refuses with -EEXIST a file that is not empty: it may be somebody's data
 * or an older undo file, and neither is ours to overwrite.
 */
int extkit_undo_create_file(const char *path, struct extkit_io **out);

/*
 * Wraps target. Writes and zeroing through *out save the old contents of
 * the blocks they touch to file first (write-ahead: the undo file is
 * flushed before the target is written). The undo block size is
 * (*out)->block_size at the first write, set by extkit_fs_open_io. Closing
 * *out finishes the undo file and closes target and file; resizing is
 * refused. On failure nothing is taken over: the caller still owns both.
 */
int extkit_undo_open(struct extkit_io *target, struct extkit_io *file,
		     struct extkit_io **out);

/*
 * Completes the undo file: last key block, header marked finished, and the
 * copy of the target's superblock as it is now (e2undo compares it with
 * the filesystem before replaying, so call this after the last write).
 * Further writes through io are refused. -EINVAL if io is not an undo io.
 */
int extkit_undo_finish(struct extkit_io *io);

/* Blocks saved so far (keys may cover several). */
uint64_t extkit_undo_saved_blocks(const struct extkit_io *io);

#endif /* EXTKIT_UNDO_H */
