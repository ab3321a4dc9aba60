// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A new EA inode's own fields (see ea_inode_build.h).
 */
#include "config.h"

#include <sys/stat.h>

#include "ea_inode_build.h"
#include "ondisk.h"
#include "xattr.h"

#define EA_INODE_MODE	(S_IFREG | 0600)

uint32_t extkit_ea_inode_init(const struct extkit_fs *fs,
			      struct extkit_inode *in, const uint8_t *value,
			      uint32_t size, uint32_t now)
{
	uint32_t hash = extkit_ea_inode_value_hash(fs, value, size);

	in->mode = EA_INODE_MODE;
	in->uid = 0;
	in->gid = 0;
	in->links_count = 1;
	in->flags |= EXT4_EA_INODE_FL;
	in->mtime = now;
	in->crtime = now;
	in->atime = hash;
	extkit_ea_inode_set_refcount(in, 1);
	return hash;
}
