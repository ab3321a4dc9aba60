// SPDX-License-Identifier: GPL-2.0-or-later
/* The resize inode's layout, built and written (see resize_inode.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "group.h"
#include "resize_inode.h"
#include "super.h"

uint64_t extkit_resize_first_reserved(const struct extkit_fs *fs)
{
	return fs->sb.first_data_block + 1 + fs->g.gdt_blocks +
	       extkit_group_boot_block(&fs->sb, &fs->g, 0);
}

uint64_t extkit_resize_inode_size(uint32_t block_size)
{
	uint64_t apb = block_size / 4;

	return (apb * apb + apb + EXT2_NDIR_BLOCKS) * block_size;
}

static uint32_t backup_count(const struct extkit_fs *fs)
{
	uint32_t n = 0;

	for (uint32_t g = 1; g < fs->g.group_count; g++)
		n += extkit_super_group_has_backup(&fs->sb, g) != 0;
	return n;
}

uint64_t extkit_resize_inode_blocks(const struct extkit_fs *fs)
{
	uint64_t rsv = fs->sb.reserved_gdt_blocks;

	return (1 + rsv * (1 + backup_count(fs))) << fs->g.cluster_bits;
}

int64_t extkit_resize_inode_last_lblk(const struct extkit_fs *fs)
{
	uint32_t apb = fs->g.addr_per_block, copies = 0, top = 0;

	for (uint32_t g = 1; g < fs->g.group_count && copies < apb; g++)
		copies += extkit_super_group_has_backup(&fs->sb, g) != 0;
	if (!copies || !fs->sb.reserved_gdt_blocks || !apb)
		return -1;
	/* reserved GDT block r at double indirect entry (descriptor blocks
	 * + r) mod apb, its copies first in it: the highest slot in use */
	for (uint32_t r = 0; r < fs->sb.reserved_gdt_blocks && r < apb; r++)
		if ((fs->g.gdt_blocks + r) % apb > top)
			top = (fs->g.gdt_blocks + r) % apb;
	return EXT2_NDIR_BLOCKS + (int64_t)apb + (int64_t)top * apb +
	       copies - 1;
}

void extkit_resize_dind_build(const struct extkit_fs *fs, uint8_t *buf)
{
	uint32_t apb = fs->g.addr_per_block;
	uint64_t first = extkit_resize_first_reserved(fs);

	memset(buf, 0, fs->g.block_size);
	for (uint32_t r = 0; r < fs->sb.reserved_gdt_blocks; r++)
		put_le32(buf + 4 * ((fs->g.gdt_blocks + r) % apb),
			 (uint32_t)(first + r));
}

void extkit_resize_list_build(const struct extkit_fs *fs, uint32_t r,
			      uint8_t *buf)
{
	uint64_t blk = extkit_resize_first_reserved(fs) + r;
	uint32_t n = 0;

	memset(buf, 0, fs->g.block_size);
	for (uint32_t g = 1; g < fs->g.group_count &&
	     n < fs->g.addr_per_block; g++)
		if (extkit_super_group_has_backup(&fs->sb, g))
			put_le32(buf + 4 * n++, (uint32_t)(blk +
				 (uint64_t)g * fs->sb.blocks_per_group));
}

int extkit_resize_fits(const struct extkit_fs *fs)
{
	return backup_count(fs) <= fs->g.addr_per_block;
}

int extkit_resize_write(struct extkit_fs *fs, uint64_t dind)
{
	uint64_t first = extkit_resize_first_reserved(fs);
	uint8_t *buf;
	int rc;

	buf = malloc(fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	extkit_resize_dind_build(fs, buf);
	rc = extkit_fs_write_block(fs, dind, buf);
	for (uint32_t r = 0; !rc && r < fs->sb.reserved_gdt_blocks; r++) {
		extkit_resize_list_build(fs, r, buf);
		rc = extkit_fs_write_block(fs, first + r, buf);
	}
	free(buf);
	return rc;
}
