/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory records (direntry.c): the rec_len codec, the record validator,
 * the one record setter, the checksum tail record and the in-block
 * cursor. The iterator over a whole directory is dir.h's.
 */
#ifndef EXTKIT_DIRENTRY_H
#define EXTKIT_DIRENTRY_H

#include <stdint.h>

#include "fs.h"
#include "ondisk.h"


/*
 * rec_len codec. Below 64 KiB blocks the stored value is the length. With
 * 64 KiB blocks (and larger) a stored 65535 or 0 means the whole block, and
 * bits 0-1 carry bits 16-17 of the length.
 */
uint32_t extkit_rec_len_from_disk(__le16 dlen, uint32_t block_size);
/* Returns -EINVAL for a length unaligned, zero or beyond the block. */
int extkit_rec_len_to_disk(uint32_t len, uint32_t block_size, __le16 *out);

/* Minimal record size for a name of name_len bytes. */
static inline uint32_t extkit_dirent_min_len(uint32_t name_len)
{
	return (EXT2_DIR_ENTRY_HEADER_LEN + name_len + 3) & ~3u;
}

/* Why a record is invalid (after the kernel's ext2_check_page). */
enum extkit_dirent_problem {
	EXTKIT_DIRENT_OK = 0,
	EXTKIT_DIRENT_TOO_SHORT,	/* rec_len < 12 (or past the header) */
	EXTKIT_DIRENT_UNALIGNED,	/* rec_len not a multiple of 4 */
	EXTKIT_DIRENT_NAME_TOO_LONG,	/* name_len does not fit rec_len */
	EXTKIT_DIRENT_CROSSES_BLOCK,	/* record runs past the block end */
	EXTKIT_DIRENT_BAD_INODE,	/* inode number out of range */
	EXTKIT_DIRENT_CHAIN_SHORT,	/* no room left for a record header */
};

const char *extkit_dirent_problem_str(enum extkit_dirent_problem p);

/*
 * Per-filesystem facts the validator needs, decided once: block size,
 * rec_len encoding, whether byte 7 is a file type, inode count, and the
 * space reserved for the checksum tail.
 */
struct extkit_dir_format {
	uint32_t block_size;
	uint32_t inodes_count;
	uint32_t tail_len;	/* 12 with metadata_csum, else 0 */
	int has_filetype;
};

void extkit_dir_format_init(const struct extkit_fs *fs,
			    struct extkit_dir_format *fmt);

/*
 * Checks the record at offset off of block buf whose usable part ends at
 * limit (block size less the checksum tail). Stores the decoded rec_len.
 */
enum extkit_dirent_problem
extkit_dirent_check(const struct extkit_dir_format *fmt, const uint8_t *buf,
		    uint32_t off, uint32_t limit, uint32_t *rec_len);

/* Name length and type of a raw record under this format. */
uint32_t extkit_dirent_name_len(const struct extkit_dir_format *fmt,
				const struct ext2_dir_entry_2 *de);
uint8_t extkit_dirent_file_type(const struct extkit_dir_format *fmt,
				const struct ext2_dir_entry_2 *de);

/*
 * One record, read and written only here. p points at the record inside
 * a directory block.
 */
/* The decoded rec_len of the record at p (no validation). */
uint32_t extkit_dirent_rec_len(const struct extkit_dir_format *fmt,
			       const uint8_t *p);
/* The inode number of the record at p (inode, bytes 0-3; 0: an empty
 * record) and its setter (the other bytes kept). */
uint32_t extkit_dirent_inode(const uint8_t *p);
void extkit_dirent_set_inode(uint8_t *p, uint32_t ino);
/* No name: name_len and the type byte (bytes 6-7) zeroed, the inode and
 * rec_len kept (an empty record's). */
void extkit_dirent_clear_name(uint8_t *p);
/* Stores rec_len; -EINVAL (record unchanged) for a length the codec
 * cannot hold. */
int extkit_dirent_set_rec_len(const struct extkit_dir_format *fmt,
			      uint8_t *p, uint32_t rec_len);
/*
 * Writes a whole record: inode, rec_len, name_len, the type byte, the name
 * and zero padding up to the minimal record size. The format decides the
 * type byte: ftype with the filetype feature; without it byte 7 is the
 * high byte of name_len, so 0 (names are at most 255 bytes). name may lie
 * in the record itself. -EINVAL (nothing written) for a name over 255
 * bytes or a rec_len the codec rejects.
 */
int extkit_dirent_set(const struct extkit_dir_format *fmt, uint8_t *p,
		      uint32_t ino, uint32_t rec_len, const char *name,
		      uint32_t name_len, uint8_t ftype);

/* Whether the 12 bytes at p are a metadata_csum tail record (inode 0,
 * rec_len 12, name_len 0, type 0xDE). */
int extkit_dirent_is_tail(const uint8_t *p);
/*
 * Where the records of leaf block buf end: the start of its checksum tail
 * when the format reserves one and the block holds it, else the block
 * size.
 */
uint32_t extkit_dir_block_end(const struct extkit_dir_format *fmt,
			      const uint8_t *buf);

/*
 * A cursor over the records of one block from start to end (usually
 * extkit_dir_block_end): each step validates the next record with
 * extkit_dirent_check.
 */
#define EXTKIT_DIR_NO_OFFSET	UINT32_MAX

struct extkit_dir_cursor {
	const struct extkit_dir_format *fmt;
	const uint8_t *buf;
	uint32_t end;
	uint32_t off;		/* the current record */
	uint32_t prev;		/* the one before it, or EXTKIT_DIR_NO_OFFSET */
	uint32_t rec_len;	/* of the current record, decoded */
	enum extkit_dirent_problem problem;	/* of the current record */
	int started;
};

void extkit_dir_cursor_init(struct extkit_dir_cursor *c,
			    const struct extkit_dir_format *fmt,
			    const uint8_t *buf, uint32_t start, uint32_t end);
/*
 * Steps to the next record. 1: a valid record at c->off; 0: the records
 * ended exactly at end; -EFSCORRUPTED: the record at c->off is invalid,
 * c->problem says why. After EXTKIT_DIRENT_BAD_INODE (its length is
 * sound) the next step goes on past it; after any other reason the cursor
 * stays where it is.
 */
int extkit_dir_cursor_next(struct extkit_dir_cursor *c);

#endif /* EXTKIT_DIRENTRY_H */
