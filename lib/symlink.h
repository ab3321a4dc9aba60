/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A symlink's target: inside i_block (a fast symlink, as
 * extkit_inode_has_block_map decides), in the inline data, or in the
 * first block of its map (a slow symlink).
 */
#ifndef EXTKIT_SYMLINK_H
#define EXTKIT_SYMLINK_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"
#include "inode.h"

/* The bytes of i_block, where a fast symlink keeps its target. */
#define EXTKIT_FAST_SYMLINK_MAX	(4 * EXT2_N_BLOCKS)

/* i_block of inode (decoded) as the bytes the inode holds on disk: a
 * fast symlink's target, as stored (not NUL-terminated). */
void extkit_symlink_iblock_bytes(const struct extkit_inode *inode,
				 uint8_t out[EXTKIT_FAST_SYMLINK_MAX]);

/* The ciphertext length an encrypted target (EXT4_ENCRYPT_FL) starts
 * with: struct fscrypt_symlink_data's __le16 len, the ciphertext after
 * it (i_size is that length plus 2). */
uint32_t extkit_symlink_enc_len(const uint8_t *target);

/*
 * Reads the target of symlink inode ino (decoded in inode) into out
 * (cap bytes, NUL-terminated); *len gets its length. -EFSCORRUPTED for a
 * size of 0 or past one block, an unmapped block, or a target holding a
 * NUL byte; -ENAMETOOLONG when it does not fit cap.
 */
int extkit_symlink_read(struct extkit_fs *fs, uint32_t ino,
			const struct extkit_inode *inode, char *out,
			size_t cap, size_t *len);

#endif /* EXTKIT_SYMLINK_H */
