/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ea_inode value hashes under a new seed (csum_rewrite.c's helper): the
 * EA inodes' i_atime, the e_hash of the entries naming them, the EA
 * blocks' h_hash.
 */
#ifndef EXTKIT_CSUM_REWRITE_EA_H
#define EXTKIT_CSUM_REWRITE_EA_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

/* New value hashes by EA inode number, added in increasing order. */
struct extkit_ea_hashes {
	uint32_t *ino;
	uint32_t *hash;
	size_t n, cap;
};

void extkit_ea_hashes_free(struct extkit_ea_hashes *h);
int extkit_ea_hash_lookup(const struct extkit_ea_hashes *h, uint32_t ino,
			  uint32_t *hash);
/*
 * EA inode ino (raw, read): its value read, its stored hash checked
 * under the old UUID (-EFSBADCRC when wrong), the new one stored in raw
 * and recorded in h. fs->sb.uuid is left at new_uuid.
 */
int extkit_ea_inode_rehash(struct extkit_fs *fs, uint32_t ino, uint8_t *raw,
			   const uint8_t old_uuid[16],
			   const uint8_t new_uuid[16],
			   struct extkit_ea_hashes *h);
/* The entries naming EA inodes in raw inode raw's body, and in EA block
 * buf (then its h_hash), rehashed; -EFSCORRUPTED for an entry naming
 * an inode that is not a known EA inode. */
int extkit_ea_ibody_rehash(const struct extkit_fs *fs, uint8_t *raw,
			   const struct extkit_ea_hashes *h);
int extkit_ea_block_rehash(const struct extkit_fs *fs, uint8_t *buf,
			   const struct extkit_ea_hashes *h);

#endif /* EXTKIT_CSUM_REWRITE_EA_H */
