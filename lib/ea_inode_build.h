/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A new EA inode (ea_inode): the inode that holds one large extended
 * attribute value as its data, named by the e_value_inum of the entry.
 * As the kernel's ext4_xattr_inode_create and e2fsprogs' mke2fs make it:
 * a regular file, mode 0600, one link, EXT4_EA_INODE_FL, i_size the
 * value's length, its data blocks mapped like any file's (no holes); the
 * value hash (crc32c of the value, seeded by the checksum seed) in
 * i_atime, the reference count in i_ctime (high half) and i_version (low
 * half). The entry's e_hash hashes the name and this value hash
 * (extkit_xattr_hash_ea_inode).
 */
#ifndef EXTKIT_EA_INODE_BUILD_H
#define EXTKIT_EA_INODE_BUILD_H

#include <stdint.h>

#include "fs.h"
#include "inode.h"

/*
 * Sets the EA inode fields of in, whose map, i_size and i_blocks the
 * caller has already set for the value's size bytes: mode, links, flag,
 * hash, reference count 1, modification time now. Returns the value
 * hash (for the entry).
 */
uint32_t extkit_ea_inode_init(const struct extkit_fs *fs,
			      struct extkit_inode *in, const uint8_t *value,
			      uint32_t size, uint32_t now);

#endif /* EXTKIT_EA_INODE_BUILD_H */
