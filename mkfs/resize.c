// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The resize inode (inode 7) of a new filesystem: its blocks, as
 * lib/resize_inode.c builds them (mke2fs's res_gdt.c layout).
 */
#include "config.h"

#include "error.h"
#include "resize_inode.h"

#include "mkfs.h"

int mkfs_resize_write(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	if (mkfs_backup_count(fs) > fs->g.addr_per_block)
		return -EFBIG;	/* not reachable with sparse_super */
	return extkit_resize_write(fs, l->dind_block);
}
