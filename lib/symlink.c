// SPDX-License-Identifier: GPL-2.0-or-later
/* A symlink's target, wherever the inode keeps it (symlink.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "endian.h"
#include "error.h"
#include "inline.h"
#include "symlink.h"

static int read_slow(struct extkit_fs *fs, const struct extkit_inode *inode,
		     char *out, size_t n)
{
	uint64_t pblk;
	uint8_t *blk;
	int rc;

	rc = extkit_bmap(fs, inode, 0, &pblk);
	if (rc)
		return rc;
	if (!pblk)
		return -EFSCORRUPTED;
	blk = malloc(fs->g.block_size);
	if (!blk)
		return -ENOMEM;
	rc = extkit_fs_read_block(fs, pblk, blk);
	if (!rc)
		memcpy(out, blk, n);
	free(blk);
	return rc;
}

void extkit_symlink_iblock_bytes(const struct extkit_inode *inode,
				 uint8_t out[EXTKIT_FAST_SYMLINK_MAX])
{
	for (uint32_t i = 0; i < EXT2_N_BLOCKS; i++)
		put_le32(out + 4 * i, inode->block[i]);
}

uint32_t extkit_symlink_enc_len(const uint8_t *target)
{
	return get_le16(target);
}

int extkit_symlink_read(struct extkit_fs *fs, uint32_t ino,
			const struct extkit_inode *inode, char *out,
			size_t cap, size_t *len)
{
	uint64_t size = inode->size;
	uint32_t got;
	int rc = 0;

	if (size == 0 || size > fs->g.block_size)
		return -EFSCORRUPTED;
	if (size >= cap)
		return -ENAMETOOLONG;
	if (inode->flags & EXT4_INLINE_DATA_FL) {
		rc = extkit_inline_read(fs, ino, (uint8_t *)out,
					(uint32_t)size, &got);
		if (!rc && got != size)
			rc = -EFSCORRUPTED;
	} else if (!extkit_inode_has_block_map(inode)) {
		uint8_t ib[EXTKIT_FAST_SYMLINK_MAX];

		if (size > sizeof(ib))
			return -EFSCORRUPTED;
		extkit_symlink_iblock_bytes(inode, ib);
		memcpy(out, ib, (size_t)size);
	} else {
		rc = read_slow(fs, inode, out, (size_t)size);
	}
	if (rc)
		return rc;
	out[size] = '\0';
	if (strlen(out) != size)
		return -EFSCORRUPTED;
	*len = (size_t)size;
	return 0;
}
