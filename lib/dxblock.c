// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * htree blocks as stored (see dxblock.h).
 */
#include "config.h"

#include <errno.h>

#include "csum.h"
#include "dxblock.h"
#include "error.h"
#include "endian.h"
#include "htree.h"
#include "ondisk.h"
#include "super.h"

#define DX_ENTRY	8u
#define DX_TAIL		8u
#define ROOT_INFO_AT	24u	/* after '.' and '..' (12 bytes each) */
#define NODE_COUNT_AT	8u
#define HASH_PAIR	8u	/* le32 hash, le32 minor hash */

/* Fills ix from the count/limit pair at base; fixed is the header a
 * block of this kind has before its entries when the info is 8 bytes
 * (debugfs measures the tail room from it). */
static void decode_index(const struct extkit_fs *fs, const uint8_t *buf,
			 uint32_t base, uint32_t fixed,
			 struct extkit_dx_index *ix)
{
	uint32_t bs = fs->g.block_size, room;
	uint64_t used;

	ix->buf = buf;
	ix->base = base;
	ix->limit = get_le16(buf + base);
	ix->count = get_le16(buf + base + 2);
	room = (bs - base) / DX_ENTRY;
	ix->n = ix->count < room ? ix->count : room;
	used = (uint64_t)ix->limit * DX_ENTRY + fixed;
	ix->has_tail = extkit_has_metadata_csum(&fs->sb) &&
		       used + DX_TAIL == bs &&
		       base + (uint64_t)ix->limit * DX_ENTRY + DX_TAIL <= bs;
	ix->tail_csum = ix->has_tail ?
		get_le32(buf + base + ix->limit * DX_ENTRY + 4) : 0;
}

int extkit_dx_root_decode(const struct extkit_fs *fs, const uint8_t *buf,
			  struct extkit_dx_root_info *info,
			  struct extkit_dx_index *ix)
{
	const uint8_t *p = buf + ROOT_INFO_AT;
	uint32_t base;

	info->reserved_zero = get_le32(p);
	info->hash_version = p[4];
	info->info_length = p[5];
	info->indirect_levels = p[6];
	info->flags = p[7];
	base = ROOT_INFO_AT + info->info_length;
	if (base + 4 > fs->g.block_size)
		return -EFSCORRUPTED;
	decode_index(fs, buf, base, ROOT_INFO_AT + 8, ix);
	return 0;
}

void extkit_dx_node_decode(const struct extkit_fs *fs, const uint8_t *buf,
			   struct extkit_dx_index *ix)
{
	decode_index(fs, buf, NODE_COUNT_AT, NODE_COUNT_AT, ix);
}

uint32_t extkit_dx_entry_hash(const struct extkit_dx_index *ix, uint32_t i)
{
	return i ? get_le32(ix->buf + ix->base + i * DX_ENTRY) : 0;
}

uint32_t extkit_dx_entry_block(const struct extkit_dx_index *ix, uint32_t i)
{
	return get_le32(ix->buf + ix->base + i * DX_ENTRY + 4);
}

int extkit_dx_hash_in_dirent(const struct extkit_fs *fs, uint32_t dir_flags)
{
	return (dir_flags & EXT4_ENCRYPT_FL) &&
	       (dir_flags & EXT4_CASEFOLD_FL) &&
	       extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_CASEFOLD);
}

int extkit_dx_leaf_record(const struct extkit_fs *fs,
			  const struct extkit_dir_format *fmt,
			  uint32_t dir_flags, unsigned int root_version,
			  const uint8_t *buf, uint32_t off, uint32_t rec_len,
			  struct extkit_dx_leaf_rec *r)
{
	const struct ext2_dir_entry_2 *de =
		(const struct ext2_dir_entry_2 *)(buf + off);
	uint32_t at;
	int rc;

	r->inode = get_le32(buf + off);
	r->rec_len = rec_len;
	r->name_len = extkit_dirent_name_len(fmt, de);
	r->name = (const char *)buf + off + EXT2_DIR_ENTRY_HEADER_LEN;
	r->hashed = 0;
	r->hash = r->minor = 0;
	if (extkit_dx_hash_in_dirent(fs, dir_flags) && r->name_len) {
		/* the pair follows the name, rounded up to 4 bytes */
		at = extkit_dirent_min_len(r->name_len);
		if (at + HASH_PAIR > rec_len)
			return 0;
		r->hash = get_le32(buf + off + at);
		r->minor = get_le32(buf + off + at + 4);
		r->hashed = 1;
		return 0;
	}
	rc = extkit_htree_hash(fs, dir_flags, root_version, r->name,
			       r->name_len, &r->hash, &r->minor);
	if (rc == -ENOMEM)
		return rc;
	r->hashed = rc == 0;
	return 0;
}
