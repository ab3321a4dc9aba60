// SPDX-License-Identifier: GPL-2.0-or-later
/* The orphan file's blocks (see orphan_file.h). */
#include "config.h"

#include <string.h>

#include "csum.h"
#include "endian.h"
#include "orphan_file.h"

uint32_t extkit_orphan_block_csum(const struct extkit_fs *fs, uint32_t ino,
				  uint32_t gen, uint64_t pblk,
				  const uint8_t *buf)
{
	__le64 blk = cpu_to_le64(pblk);
	uint32_t crc = extkit_inode_csum_seed(fs, ino, gen);

	crc = extkit_crc32c(crc, &blk, sizeof(blk));
	return extkit_crc32c(crc, buf, (size_t)extkit_orphan_slots(fs) * 4);
}

static uint32_t tail_word(const struct extkit_fs *fs, const uint8_t *buf,
			  uint32_t k)
{
	__le32 v;

	memcpy(&v, buf + fs->g.block_size - 8 + 4 * k, 4);
	return le32(v);
}

enum extkit_orphan_block_state
extkit_orphan_block_check(const struct extkit_fs *fs, uint32_t ino,
			  uint32_t gen, uint64_t pblk, const uint8_t *buf)
{
	if (tail_word(fs, buf, 0) != EXT4_ORPHAN_BLOCK_MAGIC)
		return EXTKIT_ORPHAN_BLOCK_BAD_MAGIC;
	if (extkit_has_metadata_csum(&fs->sb) &&
	    tail_word(fs, buf, 1) !=
	    extkit_orphan_block_csum(fs, ino, gen, pblk, buf))
		return EXTKIT_ORPHAN_BLOCK_BAD_CSUM;
	return EXTKIT_ORPHAN_BLOCK_OK;
}

uint32_t extkit_orphan_slot(const uint8_t *buf, uint32_t i)
{
	__le32 v;

	memcpy(&v, buf + 4 * (size_t)i, 4);
	return le32(v);
}

void extkit_orphan_block_init(const struct extkit_fs *fs, uint32_t ino,
			      uint32_t gen, uint64_t pblk, uint8_t *buf)
{
	__le32 magic = cpu_to_le32(EXT4_ORPHAN_BLOCK_MAGIC), csum = 0;

	memset(buf, 0, fs->g.block_size);
	memcpy(buf + fs->g.block_size - 8, &magic, 4);
	if (extkit_has_metadata_csum(&fs->sb))
		csum = cpu_to_le32(extkit_orphan_block_csum(fs, ino, gen,
							    pblk, buf));
	memcpy(buf + fs->g.block_size - 4, &csum, 4);
}
