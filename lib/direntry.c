// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory records: the rec_len codec, the record validator (after the
 * kernel's ext2_check_page), the one record setter, the checksum tail
 * record and the in-block cursor. Everything that reads or writes the
 * bytes of one record goes through here; the iterator over a whole
 * directory is dir.c.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "direntry.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"
#include "super.h"

#define EXT4_MAX_REC_LEN	((1u << 16) - 1)
#define BIG_BLOCK_SIZE		65536u
#define DIRENT_MIN_REC_LEN	12u
#define DIR_TAIL_LEN		12u

uint32_t extkit_rec_len_from_disk(__le16 dlen, uint32_t block_size)
{
	uint32_t len = le16(dlen);

	if (block_size < BIG_BLOCK_SIZE)
		return len;
	if (len == EXT4_MAX_REC_LEN || len == 0)
		return block_size;
	return (len & 65532u) | ((len & 3u) << 16);
}

int extkit_rec_len_to_disk(uint32_t len, uint32_t block_size, __le16 *out)
{
	uint32_t d;

	if (len == 0 || (len & 3u) || len > block_size)
		return -EINVAL;
	if (block_size < BIG_BLOCK_SIZE)
		d = len;
	else if (len == BIG_BLOCK_SIZE)
		d = EXT4_MAX_REC_LEN;
	else
		d = (len & 65532u) | ((len >> 16) & 3u);
	*out = cpu_to_le16((uint16_t)d);
	return 0;
}

const char *extkit_dirent_problem_str(enum extkit_dirent_problem p)
{
	switch (p) {
	case EXTKIT_DIRENT_OK:
		return "ok";
	case EXTKIT_DIRENT_TOO_SHORT:
		return "rec_len is smaller than minimal";
	case EXTKIT_DIRENT_UNALIGNED:
		return "rec_len is not a multiple of 4";
	case EXTKIT_DIRENT_NAME_TOO_LONG:
		return "name_len is too large for rec_len";
	case EXTKIT_DIRENT_CROSSES_BLOCK:
		return "directory entry crosses the block end";
	case EXTKIT_DIRENT_BAD_INODE:
		return "inode number out of bounds";
	case EXTKIT_DIRENT_CHAIN_SHORT:
		return "no room for a directory entry header";
	}
	return "unknown directory entry problem";
}

void extkit_dir_format_init(const struct extkit_fs *fs,
			    struct extkit_dir_format *fmt)
{
	fmt->block_size = fs->g.block_size;
	fmt->inodes_count = fs->sb.inodes_count;
	fmt->tail_len = 0;
	if (extkit_has_ro_compat(&fs->sb, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		fmt->tail_len = DIR_TAIL_LEN;
	fmt->has_filetype = extkit_has_incompat(&fs->sb,
						EXT2_FEATURE_INCOMPAT_FILETYPE);
}

/* name_len of the raw record at p: byte 6 alone, with or without the
 * filetype feature (names are at most 255 bytes). Byte 7 is the file
 * type; without the feature it must be 0, a check of its own (the
 * kernel and e2fsprogs read name_len so: a Hurd filesystem whose
 * filetype feature was dropped keeps its entries' names). */
static uint32_t raw_name_len(const struct extkit_dir_format *fmt,
			     const uint8_t *p)
{
	(void)fmt;
	return p[6];
}

uint32_t extkit_dirent_name_len(const struct extkit_dir_format *fmt,
				const struct ext2_dir_entry_2 *de)
{
	return raw_name_len(fmt, (const uint8_t *)de);
}

uint8_t extkit_dirent_file_type(const struct extkit_dir_format *fmt,
				const struct ext2_dir_entry_2 *de)
{
	/* byte access: a record of a corrupt block may lie anywhere */
	return fmt->has_filetype ?
	       ((const uint8_t *)de)[offsetof(struct ext2_dir_entry_2,
					      file_type)] : 0;
}

enum extkit_dirent_problem
extkit_dirent_check(const struct extkit_dir_format *fmt, const uint8_t *buf,
		    uint32_t off, uint32_t limit, uint32_t *rec_len)
{
	const uint8_t *p = buf + off;
	uint32_t len;
	__le16 dlen;

	*rec_len = 0;
	if ((uint64_t)off + EXT2_DIR_ENTRY_HEADER_LEN > limit)
		return EXTKIT_DIRENT_CHAIN_SHORT;
	memcpy(&dlen, p + 4, sizeof(dlen));
	len = extkit_rec_len_from_disk(dlen, fmt->block_size);
	*rec_len = len;
	if (len < DIRENT_MIN_REC_LEN)
		return EXTKIT_DIRENT_TOO_SHORT;
	if (len & 3u)
		return EXTKIT_DIRENT_UNALIGNED;
	if (len < extkit_dirent_min_len(raw_name_len(fmt, p)))
		return EXTKIT_DIRENT_NAME_TOO_LONG;
	if ((uint64_t)off + len > limit)
		return EXTKIT_DIRENT_CROSSES_BLOCK;
	if (get_le32(p) > fmt->inodes_count)
		return EXTKIT_DIRENT_BAD_INODE;
	return EXTKIT_DIRENT_OK;
}

/* ---- one record ---- */

uint32_t extkit_dirent_rec_len(const struct extkit_dir_format *fmt,
			       const uint8_t *p)
{
	__le16 d;

	memcpy(&d, p + 4, sizeof(d));
	return extkit_rec_len_from_disk(d, fmt->block_size);
}

/* Byte access: a record of a corrupt block may lie at any offset. */
uint32_t extkit_dirent_inode(const uint8_t *p)
{
	return get_le32(p + offsetof(struct ext2_dir_entry_2, inode));
}

void extkit_dirent_set_inode(uint8_t *p, uint32_t ino)
{
	put_le32(p + offsetof(struct ext2_dir_entry_2, inode), ino);
}

void extkit_dirent_clear_name(uint8_t *p)
{
	p[offsetof(struct ext2_dir_entry_2, name_len)] = 0;
	p[offsetof(struct ext2_dir_entry_2, file_type)] = 0;
}

int extkit_dirent_set_rec_len(const struct extkit_dir_format *fmt,
			      uint8_t *p, uint32_t rec_len)
{
	__le16 d;
	int rc = extkit_rec_len_to_disk(rec_len, fmt->block_size, &d);

	if (!rc)
		memcpy(p + 4, &d, sizeof(d));
	return rc;
}

int extkit_dirent_set(const struct extkit_dir_format *fmt, uint8_t *p,
		      uint32_t ino, uint32_t rec_len, const char *name,
		      uint32_t name_len, uint8_t ftype)
{
	uint32_t pad;
	int rc;

	if (name_len > EXT2_NAME_LEN)
		return -EINVAL;
	pad = extkit_dirent_min_len(name_len) - EXT2_DIR_ENTRY_HEADER_LEN -
	      name_len;
	rc = extkit_dirent_set_rec_len(fmt, p, rec_len);
	if (rc)
		return rc;
	put_le32(p, ino);
	p[6] = (uint8_t)name_len;
	/* without filetype byte 7 is name_len's high byte */
	p[7] = fmt->has_filetype ? ftype : (uint8_t)(name_len >> 8);
	if (name_len)
		memmove(p + EXT2_DIR_ENTRY_HEADER_LEN, name, name_len);
	memset(p + EXT2_DIR_ENTRY_HEADER_LEN + name_len, 0, pad);
	return 0;
}

int extkit_dirent_is_tail(const uint8_t *p)
{
	return get_le32(p) == 0 && get_le16(p + 4) == DIR_TAIL_LEN &&
	       p[6] == 0 && p[7] == EXT4_DIR_TAIL_FT;
}

uint32_t extkit_dir_block_end(const struct extkit_dir_format *fmt,
			      const uint8_t *buf)
{
	uint32_t bs = fmt->block_size;

	if (fmt->tail_len && extkit_dirent_is_tail(buf + bs - DIR_TAIL_LEN))
		return bs - DIR_TAIL_LEN;
	return bs;
}

void extkit_dir_cursor_init(struct extkit_dir_cursor *c,
			    const struct extkit_dir_format *fmt,
			    const uint8_t *buf, uint32_t start, uint32_t end)
{
	c->fmt = fmt;
	c->buf = buf;
	c->end = end;
	c->off = start;
	c->prev = EXTKIT_DIR_NO_OFFSET;
	c->rec_len = 0;
	c->problem = EXTKIT_DIRENT_OK;
	c->started = 0;
}

int extkit_dir_cursor_next(struct extkit_dir_cursor *c)
{
	if (c->started) {
		if (c->problem != EXTKIT_DIRENT_OK &&
		    c->problem != EXTKIT_DIRENT_BAD_INODE)
			return -EFSCORRUPTED;
		c->prev = c->off;
		c->off += c->rec_len;
	}
	c->started = 1;
	if (c->off >= c->end) {
		c->rec_len = 0;
		c->problem = EXTKIT_DIRENT_OK;
		c->started = 0;
		return 0;
	}
	c->problem = extkit_dirent_check(c->fmt, c->buf, c->off, c->end,
					 &c->rec_len);
	return c->problem == EXTKIT_DIRENT_OK ? 1 : -EFSCORRUPTED;
}
