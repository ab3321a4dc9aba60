// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2, metadata_csum: the checksum of each directory block, checked
 * when the block is loaded, before its records.
 *
 * A leaf block whose records are valid but whose tail checksum is wrong,
 * or an htree root or node whose dx_tail checksum is wrong, is marked to
 * be written back (the iterator sets the checksum on the way out), as
 * e2fsck's "passes checks but fails checksum". A block with corrupt
 * records is left to the salvage, which rewrites it anyway. A leaf block
 * with no tail gets one when its last record has 12 spare bytes, or
 * when its records end 12 bytes before the block's end (a destroyed
 * tail).
 */
#include "config.h"

#include <string.h>

#include "csum.h"
#include "dir.h"
#include "dirblock.h"
#include "ondisk.h"

#include "fsck.h"
#include "pass2.h"
#include "problem.h"

#define TAIL_LEN	12u

/* Whether valid records run from 0 to limit; *last gets the last one. */
static int chain_valid(const struct dir_state *ds, const uint8_t *buf,
		       uint32_t limit, uint32_t *last)
{
	struct extkit_dir_cursor c;
	int rc;

	extkit_dir_cursor_init(&c, &ds->fmt, buf, 0, limit);
	while ((rc = extkit_dir_cursor_next(&c)) > 0)
		*last = c.off;
	return rc == 0;
}

/* Takes the tail's 12 bytes from the last record; 0 if it has no room. */
static int make_tail(struct dir_state *ds, uint8_t *buf, uint32_t last)
{
	uint32_t bs = ds->fmt.block_size, len = bs - last, min = 0;
	const struct ext2_dir_entry_2 *de = (const void *)(buf + last);

	/* an empty 12-byte record where the tail belongs: a tail whose
	 * file type byte was lost */
	if (last == bs - TAIL_LEN && !extkit_dirent_inode(buf + last) &&
	    extkit_dirent_rec_len(&ds->fmt, buf + last) == TAIL_LEN) {
		extkit_dirblock_init_tail(ds->ctx->fs, buf);
		return 1;
	}
	if (extkit_dirent_inode(buf + last))
		min = extkit_dirent_min_len(extkit_dirent_name_len(&ds->fmt,
								   de));
	else if (last)
		min = EXT2_DIR_ENTRY_HEADER_LEN;
	if (len < min + TAIL_LEN || len - TAIL_LEN < EXT2_DIR_ENTRY_HEADER_LEN)
		return 0;
	if (extkit_dirent_set_rec_len(&ds->fmt, buf + last, len - TAIL_LEN))
		return 0;
	extkit_dirblock_init_tail(ds->ctx->fs, buf);
	return 1;
}

void pass2_rehash_later(struct dir_state *ds)
{
	struct fsck_alloc_list *l = &ds->ctx->rehash_dirs;

	/* a directory's blocks and its index are checked one after the
	 * other: once in the list is enough */
	if (!l->n || l->v[l->n - 1] != ds->ino)
		fsck_alloc_push(l, ds->ino);
}

/* Whether the directory's blocks may hold an htree index (the flag, and
 * dir_index, as the kernel reads them). */
static int dir_is_indexed(const struct dir_state *ds)
{
	return (ds->dir_flags & EXT2_INDEX_FL) &&
	       extkit_has_compat(&ds->ctx->fs->sb,
				 EXT2_FEATURE_COMPAT_DIR_INDEX);
}

/* Whether the index is found broken however its checksums stand. */
static int index_doomed(struct dir_state *ds,
			const struct extkit_dir_iter *it)
{
	uint32_t code;
	uint64_t num;

	return pass2_index_problem(ds, extkit_dir_iter_indexed(it), &code,
				   &num) != NULL;
}

void pass2_check_block_csum(struct dir_state *ds,
			    const struct extkit_dir_iter *it, uint8_t *buf)
{
	struct extkit_fs *fs = ds->ctx->fs;
	uint32_t bs = ds->fmt.block_size, last = 0, gen;
	int rc, index_block = 0;

	/* inline directory parts are covered by the inode's checksum */
	if (!buf || !extkit_has_metadata_csum(&fs->sb) ||
	    extkit_dir_iter_is_inline(it))
		return;
	gen = extkit_dir_iter_inode(it)->generation;
	/* only block 0 can be an htree root: a copy of the root further
	 * on (its dx_tail checksum valid, as the same directory's) is a
	 * leaf whose '..' covers its tail */
	if (dir_is_indexed(ds) &&
	    !(ds->lblk && extkit_dirblock_is_dx_root(fs, buf))) {
		rc = extkit_dirblock_csum_verify(fs, ds->ino, gen, buf);
		index_block = extkit_dirblock_is_dx(fs, buf);
	} else {
		rc = extkit_dirblock_leaf_csum_verify(fs, ds->ino, gen, buf);
	}
	if (rc == 1)
		return;
	if (rc == 0) {
		/* an index about to be cleared is rebuilt, its blocks with
		 * it: e2fsck reports that alone */
		if (index_block && index_doomed(ds, it))
			return;
		/* an index block's dx_tail may read as a leaf's tail (the
		 * kernel keeps the tail of the leaf it turned into a root):
		 * its records run to the block end all the same */
		if (!index_block && extkit_dirblock_has_tail(fs, buf) &&
		    !chain_valid(ds, buf, bs - TAIL_LEN, &last))
			return;
		if (pass2_problem(ds, PR_2_DIR_CSUM, buf, 0))
			ds->dirty = 1;
		return;
	}
	/* no tail and no index: a leaf written without metadata_csum, or
	 * one whose tail was destroyed (the records end where it starts) */
	if (!chain_valid(ds, buf, bs, &last)) {
		if (!chain_valid(ds, buf, bs - TAIL_LEN, &last)) {
			ds->tail_pending = 1;
			return;
		}
		if (pass2_problem(ds, PR_2_DIR_NO_CSUM, buf, 0)) {
			extkit_dirblock_init_tail(fs, buf);
			ds->dirty = 1;
		}
		return;
	}
	if (!pass2_problem(ds, PR_2_DIR_NO_CSUM, buf, 0))
		return;
	if (make_tail(ds, buf, last))
		ds->dirty = 1;
	else	/* no room for a tail: the rebuild after the passes makes it */
		pass2_rehash_later(ds);
}
