// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The resize inode (inode 7) as mke2fs builds it (lib/ext2fs/res_gdt.c):
 * only its double-indirect block is set. Entry (desc_blocks + r) mod
 * addr_per_block of that block points at reserved GDT block r of group 0,
 * and that block, read as an indirect block, lists the same reserved block
 * in every group holding a backup, in ascending group order. e2fsck
 * (check_resize_inode) checks exactly this. The backups' reserved blocks
 * themselves stay zero.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "group.h"
#include "io.h"

#include "mkfs.h"

/* The i_size mke2fs gives it: every block a double-indirect map reaches. */
uint64_t mkfs_resize_inode_size(const struct mkfs_layout *l)
{
	uint64_t apb = l->block_size / 4;

	return (apb * apb + apb + EXT2_NDIR_BLOCKS) * l->block_size;
}

uint64_t mkfs_resize_inode_blocks(const struct mkfs_layout *l,
				  const struct extkit_fs *fs)
{
	return 1 + (uint64_t)l->rsv_gdt * (1 + mkfs_backup_count(fs));
}

/* Fills primary reserved block r: its copy in each backup group. */
static void fill_reserved(const struct mkfs_layout *l,
			  const struct extkit_fs *fs, uint64_t blk,
			  uint8_t *buf)
{
	uint32_t n = 0;

	for (uint32_t g = 1; g < fs->g.group_count; g++) {
		if (!extkit_super_group_has_backup(&fs->sb, g))
			continue;
		put_le32(buf + 4 * n++,
			 (uint32_t)(blk + (uint64_t)g * l->blocks_per_group));
	}
}

int mkfs_resize_write(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint32_t bs = l->block_size, apb = bs / 4;
	uint64_t first = l->first_data_block + 1 + l->desc_blocks;
	uint8_t *dind, *rsv;
	int rc = -ENOMEM;

	if (mkfs_backup_count(fs) > apb)
		return -EFBIG;	/* not reachable with sparse_super */
	dind = calloc(1, bs);
	rsv = calloc(l->rsv_gdt ? l->rsv_gdt : 1, bs);
	if (!dind || !rsv)
		goto out;
	for (uint32_t r = 0; r < l->rsv_gdt; r++) {
		put_le32(dind + 4 * ((l->desc_blocks + r) % apb),
			 (uint32_t)(first + r));
		fill_reserved(l, fs, first + r, rsv + (size_t)r * bs);
	}
	rc = extkit_io_write_blocks(fs->io, l->dind_block, 1, dind);
	if (!rc && l->rsv_gdt)
		rc = extkit_io_write_blocks(fs->io, first, l->rsv_gdt, rsv);
out:
	free(dind);
	free(rsv);
	return rc;
}
