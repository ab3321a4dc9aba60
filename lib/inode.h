/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Inodes: read/write for any inode size, size and i_blocks helpers. */
#ifndef EXTKIT_INODE_H
#define EXTKIT_INODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "endian.h"
#include "fs.h"
#include "ondisk.h"

/* Host-endian inode; lo/hi halves combined. */
struct extkit_inode {
	uint16_t mode;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint32_t atime;
	uint32_t ctime;
	uint32_t mtime;
	uint32_t dtime;
	uint16_t links_count;
	uint64_t blocks;	/* raw i_blocks (512-byte units unless huge) */
	uint32_t flags;
	uint32_t version;
	uint32_t block[EXT2_N_BLOCKS];	/* host order; extent root if EXTENTS */
	uint32_t generation;
	uint64_t file_acl;
	uint16_t extra_isize;	/* 0 for 128-byte inodes */
	uint32_t crtime;
	uint32_t projid;
	uint32_t checksum;
};

/*
 * One time stamp of an inode: seconds since the epoch and, where the
 * inode has the field's _extra word, nanoseconds and the two epoch bits
 * that extend the signed 32-bit seconds to 34 bits (inodes.rst).
 */
enum extkit_inode_time_field {
	EXTKIT_TIME_ATIME, EXTKIT_TIME_CTIME, EXTKIT_TIME_MTIME,
	EXTKIT_TIME_CRTIME, EXTKIT_TIME_DTIME,
};

struct extkit_inode_time {
	int64_t sec;
	uint32_t nsec;
	int has_extra;		/* nsec and the epoch bits were read */
};

/*
 * Reads one time stamp from a raw inode of raw_size bytes. dtime has no
 * extra word and is unsigned (it links the orphan list too). Returns 0,
 * or -ENOENT when the inode has no such field (crtime in a small inode).
 */
int extkit_inode_time_get(const void *raw, uint32_t raw_size,
			  enum extkit_inode_time_field which,
			  struct extkit_inode_time *t);
/*
 * Writes one time stamp into a raw inode: the low 32 bits of t->sec, and
 * where the inode has the field's _extra word, t->nsec and the epoch bits
 * (t->has_extra is not read). dtime gets its seconds only. 0, or -ENOENT
 * when the inode has no such field.
 */
int extkit_inode_time_set(void *raw, uint32_t raw_size,
			  enum extkit_inode_time_field which,
			  const struct extkit_inode_time *t);
/* Sets i_links_count of a raw inode, for a caller editing a copy of an
 * inode table block in place (the other bytes are kept). */
void extkit_inode_set_links_raw(void *raw, uint16_t links);

/*
 * Fields of an on-disk inode as they are stored, which struct extkit_inode
 * combines or leaves out (a check must see them apart): i_mode and
 * i_links_count (a look without a decode), i_dtime (an orphan list link
 * too), the obsolete i_obso_faddr, l_i_blocks_high, l_i_file_acl_high
 * and i_extra_isize (0 in a 128-byte inode, which has none).
 */
struct extkit_inode_stored {
	uint16_t mode;
	uint16_t links_count;
	uint32_t dtime;
	uint32_t faddr;
	uint16_t blocks_hi;
	uint16_t file_acl_hi;
	uint16_t extra_isize;
};

/* Inline: pass 1 reads them for every inode of the tables. */
static inline void extkit_inode_stored_get(const void *raw,
					   uint32_t raw_size,
					   struct extkit_inode_stored *st)
{
	const uint8_t *p = raw;

	st->mode = get_le16(p + offsetof(struct ext2_inode, i_mode));
	st->links_count = get_le16(p + offsetof(struct ext2_inode,
						i_links_count));
	st->dtime = get_le32(p + offsetof(struct ext2_inode, i_dtime));
	st->faddr = get_le32(p + offsetof(struct ext2_inode, i_obso_faddr));
	st->blocks_hi = get_le16(p + offsetof(struct ext2_inode,
					      l_i_blocks_high));
	st->file_acl_hi = get_le16(p + offsetof(struct ext2_inode,
						l_i_file_acl_high));
	st->extra_isize = raw_size > EXT2_INODE_CORE_SIZE ?
			  get_le16(p + offsetof(struct ext2_inode,
						i_extra_isize)) : 0;
}

/* Stores them back into raw (i_extra_isize only past the 128-byte core);
 * the other bytes are kept. */
static inline void extkit_inode_stored_put(
	const struct extkit_inode_stored *st, uint32_t raw_size, void *raw)
{
	uint8_t *p = raw;

	put_le16(p + offsetof(struct ext2_inode, i_mode), st->mode);
	put_le16(p + offsetof(struct ext2_inode, i_links_count),
		 st->links_count);
	put_le32(p + offsetof(struct ext2_inode, i_dtime), st->dtime);
	put_le32(p + offsetof(struct ext2_inode, i_obso_faddr), st->faddr);
	put_le16(p + offsetof(struct ext2_inode, l_i_blocks_high),
		 st->blocks_hi);
	put_le16(p + offsetof(struct ext2_inode, l_i_file_acl_high),
		 st->file_acl_hi);
	if (raw_size > EXT2_INODE_CORE_SIZE)
		put_le16(p + offsetof(struct ext2_inode, i_extra_isize),
			 st->extra_isize);
}

/* raw_size is the on-disk inode size (128 .. block size). */
void extkit_inode_decode(const void *raw, uint32_t raw_size,
			 struct extkit_inode *mem);
/* Writes the fields of mem into raw; bytes it does not know are kept. */
void extkit_inode_encode(const struct extkit_inode *mem, uint32_t raw_size,
			 void *raw);

/* Byte offset of inode ino in the image, or a negative error. */
int extkit_inode_locate(struct extkit_fs *fs, uint32_t ino, uint64_t *blk,
			uint32_t *off_in_block);
int extkit_inode_read_raw(struct extkit_fs *fs, uint32_t ino, void *raw);
/* Writes raw inode ino, first storing its metadata_csum checksum in raw. */
int extkit_inode_write_raw(struct extkit_fs *fs, uint32_t ino, void *raw);
int extkit_inode_read(struct extkit_fs *fs, uint32_t ino,
		      struct extkit_inode *inode);
int extkit_inode_write(struct extkit_fs *fs, uint32_t ino,
		       const struct extkit_inode *inode);

/* Bytes of storage i_blocks accounts for (HUGE_FILE_FL aware). */
uint64_t extkit_inode_blocks_bytes(const struct extkit_fs *fs,
				   const struct extkit_inode *inode);
/* Sets i_blocks from a number of fs blocks. */
void extkit_inode_set_fs_blocks(const struct extkit_fs *fs,
				struct extkit_inode *inode, uint64_t nblocks);

/* Sets i_block to len bytes (at most 60) as the inode holds them on disk,
 * the rest zero: a fast symlink's target, inline data's first bytes. */
void extkit_inode_set_iblock_bytes(struct extkit_inode *inode,
				   const void *bytes, size_t len);

/* Whether i_block holds block numbers (not a fast symlink, device number
 * or inline data). */
int extkit_inode_has_block_map(const struct extkit_inode *inode);

/*
 * The device number of a character or block device inode: the old
 * 16-bit form in i_block[0] when it is not 0, else the new form in
 * i_block[1] (12-bit major, 20-bit minor, as the kernel encodes it).
 */
static inline void extkit_inode_rdev(const struct extkit_inode *inode,
				     uint32_t *major, uint32_t *minor)
{
	uint32_t d = inode->block[0];

	if (d) {
		*major = (d >> 8) & 0xff;
		*minor = d & 0xff;
		return;
	}
	d = inode->block[1];
	*major = (d & 0xfff00) >> 8;
	*minor = (d & 0xff) | ((d >> 12) & 0xfff00);
}

/* Stores a device number the way extkit_inode_rdev reads it: the old
 * form in i_block[0] when both fit a byte (as the kernel and mke2fs -d
 * write it), else the new form in i_block[1]. */
static inline void extkit_inode_set_rdev(struct extkit_inode *inode,
					 uint32_t major, uint32_t minor)
{
	if (major < 256 && minor < 256)
		inode->block[0] = (major << 8) | minor;
	else
		inode->block[1] = (minor & 0xff) | (major << 8) |
				  ((minor & ~0xffu) << 12);
}

/* EXT2_FT_* for a mode, EXT2_FT_UNKNOWN for an invalid one. */
uint8_t extkit_mode_to_ftype(uint16_t mode);
/* One letter name for a file type, as ls -l shows it. */
char extkit_ftype_char(uint8_t ftype);

static inline int extkit_inode_is_dir(const struct extkit_inode *inode)
{
	return S_ISDIR(inode->mode);
}

#endif /* EXTKIT_INODE_H */
