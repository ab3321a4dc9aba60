/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directories: the editable iterator over every record of every block
 * (dir.c); lookup and path resolution (dirpath.c). One record's codec,
 * validator, setter and cursor are direntry.h's, included here.
 */
#ifndef EXTKIT_DIR_H
#define EXTKIT_DIR_H

#include <stdint.h>

#include "direntry.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"

/* What a record handed out by the iterator is. */
enum extkit_dirent_kind {
	EXTKIT_DE_LIVE,		/* inode != 0 */
	EXTKIT_DE_EMPTY,	/* inode 0: free space (or block placeholder) */
	EXTKIT_DE_TAIL,		/* metadata_csum tail: overhead */
	EXTKIT_DE_DX_NODE,	/* htree interior block: overhead */
	EXTKIT_DE_CORRUPT,	/* invalid record (see the flags below) */
	EXTKIT_DE_HOLE,		/* an unmapped logical block */
};

struct extkit_dirent {
	uint64_t lblk;		/* logical block in the directory */
	uint64_t pblk;		/* physical block (0 for a hole) */
	uint32_t offset;	/* byte offset within the block */
	uint32_t inode;
	/* decoded; for CORRUPT: the bytes skipped, or with
	 * EXTKIT_DIR_ITER_PAST_CORRUPT and a sound length, that length */
	uint32_t rec_len;
	uint32_t name_len;
	uint8_t file_type;	/* EXT2_FT_*; 0 without the filetype feature */
	enum extkit_dirent_kind kind;
	enum extkit_dirent_problem problem;	/* for CORRUPT */
	/*
	 * Free bytes of the record. LIVE: rec_len past the minimal record.
	 * EMPTY: the whole rec_len (the record holds nothing). For the '..'
	 * record of an htree root block the index behind it is overhead:
	 * dx_overhead is rec_len - 12 and slack is 0. DX_NODE: rec_len and
	 * dx_overhead are the block size, slack 0. TAIL, CORRUPT, HOLE:
	 * slack and dx_overhead are 0.
	 */
	uint32_t slack;
	uint32_t dx_overhead;
	/* Points into the iterator's block buffer (valid until the next
	 * call), not NUL-terminated; NULL for a HOLE. */
	const char *name;
};

/* Flags of extkit_dir_iter_open / _init. */
#define EXTKIT_DIR_ITER_HOLES	0x1	/* also hand out unmapped blocks */
/*
 * Go on past a corrupt record where its length is sound (an inode number
 * out of range); without it, or when the length cannot be trusted, the
 * rest of the block is skipped unless the caller repairs the record or
 * seeks past it.
 */
#define EXTKIT_DIR_ITER_PAST_CORRUPT	0x2
/* Edits are walked but never written back (a read-only check). */
#define EXTKIT_DIR_ITER_NOWRITE	0x4
/* Block 0 of a directory whose index flag was cleared (by fsck, before
 * the rebuild) is read as the htree root it may still be: its '..' runs
 * to the block end, past where a checksum tail would start. */
#define EXTKIT_DIR_ITER_OLD_ROOT	0x8
/* Walk to the last mapped block whatever i_size says, and read the blocks
 * of unwritten extents (fsck, whose pass 1 sets a directory's i_size to
 * the end of its map and makes its unwritten extents written). */
#define EXTKIT_DIR_ITER_MAP_END	0x10

/*
 * The cursor iterator over every record of every block. Its fields are
 * the library's own: a tool sees an incomplete type, opens one with
 * extkit_dir_iter_open and asks the accessors below.
 */
struct extkit_dir_iter;

#ifdef EXTKIT_LIBRARY
struct extkit_dir_iter {
	struct extkit_fs *fs;
	uint32_t ino;
	struct extkit_inode inode;
	struct extkit_dir_format fmt;
	uint64_t nblocks;	/* logical blocks covered by i_size, up
				 * to the last one mapped */
	uint64_t *pblks;	/* physical block of each logical block */
	uint64_t *dx_nodes;	/* sorted logical blocks of htree nodes */
	uint32_t dx_node_count;
	int indexed;		/* EXT2_INDEX_FL set and dx_root parsed */
	uint64_t lblk;		/* block in buf */
	uint32_t off;		/* next record offset in buf */
	uint32_t cur;		/* offset of the entry handed out last */
	enum extkit_dirent_kind cur_kind;
	int loaded;
	int dirty;		/* buf is to be written back */
	int reread;		/* the current record was changed */
	int seeked;		/* the caller set the next offset */
	int frozen;		/* edits of this block are not written */
	int flags;
	uint8_t *buf;
	uint32_t area;		/* bytes of records in buf: the block size,
				 * or the part of an inline directory */
	/*
	 * An inline directory is walked as three parts: 0 the '.' and
	 * '..' records made up from the inode number and the 4-byte parent
	 * (an edit of '..' goes back to those 4 bytes), 1 the rest of
	 * i_block, 2 the system.data value (absent when empty).
	 */
	int inline_dir;
	uint8_t *inline_raw;	/* the raw inode, read once */
	uint32_t inline_ea_len;
};

/* In place, for the library and its tests; extkit_dir_iter_end frees
 * what init allocated. */
int extkit_dir_iter_init(struct extkit_dir_iter *it, struct extkit_fs *fs,
			 uint32_t ino, int flags);
int extkit_dir_iter_end(struct extkit_dir_iter *it);
#endif

/* A new iterator over directory ino (flags: EXTKIT_DIR_ITER_*). */
int extkit_dir_iter_open(struct extkit_fs *fs, uint32_t ino, int flags,
			 struct extkit_dir_iter **out);
/* Writes back a changed block (unless frozen) and frees the iterator;
 * returns the write's error. NULL is a no-op. */
int extkit_dir_iter_close(struct extkit_dir_iter *it);

/*
 * 1: *ent filled; 0: end; negative: error (I/O). After a read or
 * write-back error the iterator has moved past that block, so a caller
 * may go on. No allocation and one block read per block.
 */
int extkit_dir_iter_next(struct extkit_dir_iter *it,
			 struct extkit_dirent *ent);

/*
 * Editing under the walk (e2fsprogs' DIRENT_CHANGED contract). The
 * caller may change, split, merge or clear the record handed out last,
 * or the records after it in the same block, through
 * extkit_dir_iter_block() and the record setters above, and then says so
 * with extkit_dir_iter_mark_dirty: the walk re-reads that record and goes
 * on from its (new) end, so records split off it are handed out next (a
 * record that no longer parses is handed out again as CORRUPT); the block
 * is written back, with its checksum, before the walk leaves it.
 */
void extkit_dir_iter_mark_dirty(struct extkit_dir_iter *it);
/* Sets the inode of the record handed out last (0 clears it) and marks
 * the block dirty. -EINVAL when that was no record. */
int extkit_dir_iter_set_inode(struct extkit_dir_iter *it, uint32_t ino);
/*
 * The next entry is the record at offset of the current block (to hand
 * out a repaired record again, or to resume past corrupt bytes). It
 * takes precedence over the re-read of mark_dirty. -EINVAL when no block
 * is loaded or offset is unaligned or past the block.
 */
int extkit_dir_iter_seek(struct extkit_dir_iter *it, uint32_t offset);
/*
 * The current block is written back now as it stands (when dirty); edits
 * after this are walked but not written (a repair the user declined).
 * Returns the write's error.
 */
int extkit_dir_iter_freeze(struct extkit_dir_iter *it);

/* The block of the entry handed out last, or NULL between blocks (for an
 * inline directory, the part being walked: extkit_dir_iter_area bytes). */
uint8_t *extkit_dir_iter_block(struct extkit_dir_iter *it);
/* What the walk knows of the directory. */
const struct extkit_inode *extkit_dir_iter_inode(
	const struct extkit_dir_iter *it);
const struct extkit_dir_format *extkit_dir_iter_format(
	const struct extkit_dir_iter *it);
/* Logical blocks covered by i_size (up to the last mapped one), and where
 * each one lies (0: a hole or past the end). */
uint64_t extkit_dir_iter_nblocks(const struct extkit_dir_iter *it);
uint64_t extkit_dir_iter_pblk(const struct extkit_dir_iter *it,
			      uint64_t lblk);
/* Bytes of the block (or inline part) handed out last. */
uint32_t extkit_dir_iter_area(const struct extkit_dir_iter *it);
/* Where the records of the block handed out last end: its area, less a
 * leaf's checksum tail (an htree root has none). */
uint32_t extkit_dir_iter_limit(const struct extkit_dir_iter *it);
/* Whether the directory is inline (its parts have no physical block). */
int extkit_dir_iter_is_inline(const struct extkit_dir_iter *it);
/* Whether the htree index is in use (EXT2_INDEX_FL and a usable root). */
int extkit_dir_iter_indexed(const struct extkit_dir_iter *it);

/* Looks name up in directory dir: -ENOENT if absent, -EFSCORRUPTED if
 * absent but corrupt records were skipped, -ENOTDIR. In a casefolded
 * directory names match as the kernel matches them there (casefold.h):
 * "README" finds "readme". */
int extkit_dir_lookup(struct extkit_fs *fs, uint32_t dir, const char *name,
		      uint32_t name_len, uint32_t *ino);

/*
 * Resolves an absolute (or root-relative) path; "<N>" names inode N as
 * debugfs does (as the first component of a path not starting with '/';
 * "/<N>" is an ordinary name). Symlinks in the middle are followed, at
 * most 40 (-ELOOP), relative to the directory holding the link; the last
 * component is not. Paths over 4096 bytes: -ENAMETOOLONG; "": -ENOENT.
 */
int extkit_path_resolve(struct extkit_fs *fs, const char *path,
			uint32_t *ino);

/* The path of directory dir from the root ("/" for the root), by its
 * '..' and its name in each ancestor; -ENOENT when a parent does not name
 * it, -ENAMETOOLONG past 4096 bytes (or a '..' loop). */
int extkit_dir_path_of(struct extkit_fs *fs, uint32_t dir, char *buf,
		       size_t size);

#endif /* EXTKIT_DIR_H */
