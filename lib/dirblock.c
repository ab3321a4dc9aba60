// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory block checksums (see dirblock.h).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "csum.h"
#include "dirblock.h"
#include "direntry.h"
#include "endian.h"
#include "inline.h"
#include "ondisk.h"

#define TAIL_LEN	12u	/* struct ext4_dir_entry_tail */
#define DX_TAIL		8u	/* struct dx_tail */
#define DX_ENTRY	8u
#define DX_ROOT_COUNT	32u	/* count/limit of a dx_root */
#define DX_NODE_COUNT	8u	/* count/limit of a dx_node */

int extkit_dirblock_has_tail(const struct extkit_fs *fs, const uint8_t *buf)
{
	return extkit_dirent_is_tail(buf + fs->g.block_size - TAIL_LEN);
}

void extkit_dirblock_init_tail(const struct extkit_fs *fs, uint8_t *buf)
{
	uint8_t *t = buf + fs->g.block_size - TAIL_LEN;

	memset(t, 0, TAIL_LEN);
	put_le16(t + 4, TAIL_LEN);
	t[7] = EXT4_DIR_TAIL_FT;
}

/*
 * Offset of the count/limit pair when buf is an htree root ('.' of 12
 * bytes, '..' over the rest, an 8-byte dx_root_info) or node (one empty
 * record over the whole block) whose limit leaves room for the dx_tail;
 * 0 otherwise (e2fsprogs' __get_dx_countlimit applies the same tests).
 */
static uint32_t dx_count_offset(const struct extkit_fs *fs,
				const uint8_t *buf)
{
	uint32_t bs = fs->g.block_size, off = 0, limit, count, rl;
	struct extkit_dir_format fmt;

	extkit_dir_format_init(fs, &fmt);
	rl = extkit_dirent_rec_len(&fmt, buf);
	if (rl == bs && get_le32(buf) == 0 && buf[6] == 0)
		off = DX_NODE_COUNT;
	else if (rl == 12 && buf[6] == 1 &&
		 extkit_dirent_rec_len(&fmt, buf + 12) == bs - 12 &&
		 buf[18] == 2 &&
		 buf[24 + offsetof(struct dx_root_info, info_length)] == 8)
		off = DX_ROOT_COUNT;
	if (!off)
		return 0;
	limit = get_le16(buf + off);
	count = get_le16(buf + off + 2);
	if (count > limit || off + limit * DX_ENTRY + DX_TAIL > bs)
		return 0;
	return off;
}

int extkit_dirblock_is_dx_root(const struct extkit_fs *fs, const uint8_t *buf)
{
	return dx_count_offset(fs, buf) == DX_ROOT_COUNT;
}

int extkit_dirblock_is_dx(const struct extkit_fs *fs, const uint8_t *buf)
{
	return dx_count_offset(fs, buf) != 0;
}

/* The kernel's ext4_dx_csum: the header and the count used entries, then
 * dt_reserved and a zero in place of dt_checksum. */
static uint32_t dx_csum(uint32_t seed, const uint8_t *buf, uint32_t off)
{
	uint32_t count = get_le16(buf + off + 2);
	uint32_t tail = off + get_le16(buf + off) * DX_ENTRY;
	static const uint8_t zero[4];
	uint32_t c;

	c = extkit_crc32c(seed, buf, off + count * DX_ENTRY);
	c = extkit_crc32c(c, buf + tail, 4);
	return extkit_crc32c(c, zero, sizeof(zero));
}

/* Where the checksum of leaf block buf lives (0: no tail) and its value:
 * the tail's, over the block before the tail. */
static uint32_t leaf_csum_place(const struct extkit_fs *fs, uint32_t seed,
				const uint8_t *buf, uint32_t *csum)
{
	uint32_t bs = fs->g.block_size;

	if (!extkit_dirblock_has_tail(fs, buf))
		return 0;
	*csum = extkit_crc32c(seed, buf, bs - TAIL_LEN);
	return bs - 4;
}

/* Where the checksum of buf lives (0: none) and its value. */
static uint32_t csum_place(const struct extkit_fs *fs, uint32_t ino,
			   uint32_t gen, const uint8_t *buf, uint32_t *csum)
{
	uint32_t seed, off;

	seed = extkit_inode_csum_seed(fs, ino, gen);
	/* An htree root or node first: the kernel leaves a leaf's tail
	 * record in place when it turns the block into an index root, so
	 * dt_reserved and dt_checksum may read as a tail. A leaf cannot
	 * look like an index (its first records would cover its tail). */
	off = dx_count_offset(fs, buf);
	if (off) {
		*csum = dx_csum(seed, buf, off);
		return off + get_le16(buf + off) * DX_ENTRY + 4;
	}
	return leaf_csum_place(fs, seed, buf, csum);
}

int extkit_dirblock_csum_set(const struct extkit_fs *fs, uint32_t ino,
			     uint32_t gen, uint8_t *buf)
{
	uint32_t csum = 0, at = csum_place(fs, ino, gen, buf, &csum);

	if (!at)
		return -ENOSPC;
	put_le32(buf + at, csum);
	return 0;
}

int extkit_dirblock_csum_verify(const struct extkit_fs *fs, uint32_t ino,
				uint32_t gen, const uint8_t *buf)
{
	uint32_t csum = 0, at = csum_place(fs, ino, gen, buf, &csum);

	if (!at)
		return -ENOSPC;
	return get_le32(buf + at) == csum;
}

int extkit_dirblock_csum_get(const struct extkit_fs *fs, uint32_t ino,
			     uint32_t gen, const uint8_t *buf,
			     uint32_t *stored, uint32_t *want)
{
	uint32_t at = csum_place(fs, ino, gen, buf, want);

	if (!at)
		return -ENOSPC;
	*stored = get_le32(buf + at);
	return 0;
}

int extkit_dirblock_leaf_csum_verify(const struct extkit_fs *fs, uint32_t ino,
				     uint32_t gen, const uint8_t *buf)
{
	uint32_t csum = 0, at;

	at = leaf_csum_place(fs, extkit_inode_csum_seed(fs, ino, gen), buf,
			     &csum);
	if (!at)
		return -ENOSPC;
	return get_le32(buf + at) == csum;
}

int extkit_dirblock_write(struct extkit_fs *fs, uint32_t ino, uint32_t gen,
			  uint64_t blk, uint8_t *buf)
{
	if (extkit_has_metadata_csum(&fs->sb))
		extkit_dirblock_csum_set(fs, ino, gen, buf);
	return extkit_fs_write_block(fs, blk, buf);
}

void extkit_dirblock_new(const struct extkit_fs *fs, uint8_t *buf,
			 uint32_t dir, uint32_t parent, unsigned int flags)
{
	struct extkit_dir_format fmt;
	uint32_t bs = fs->g.block_size, end = bs;

	extkit_dir_format_init(fs, &fmt);
	memset(buf, 0, bs);
	if (fmt.tail_len && !(flags & EXTKIT_NEWDIR_DX_ROOT)) {
		end = bs - fmt.tail_len;
		extkit_dirblock_init_tail(fs, buf);
	}
	if (!parent) {
		extkit_dirent_set(&fmt, buf, 0, end, "", 0, 0);
		return;
	}
	extkit_dirent_set(&fmt, buf, dir, 12, ".", 1, EXT2_FT_DIR);
	extkit_dirent_set(&fmt, buf + 12, parent,
			  (flags & EXTKIT_NEWDIR_OPEN) ? 12 : end - 12, "..", 2,
			  EXT2_FT_DIR);
}

void extkit_dirblock_new_inline(const struct extkit_fs *fs, uint8_t *iblock,
				uint32_t parent)
{
	struct extkit_dir_format fmt;

	extkit_dir_format_init(fs, &fmt);
	memset(iblock, 0, EXTKIT_INLINE_IBLOCK);
	put_le32(iblock, parent);
	extkit_dirent_set(&fmt, iblock + EXTKIT_INLINE_DOTDOT, 0,
			  EXTKIT_INLINE_IBLOCK - EXTKIT_INLINE_DOTDOT, "", 0, 0);
}
