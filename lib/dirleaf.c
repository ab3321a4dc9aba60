// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The two leaf-block steps of adding a name (see dirleaf.h), shared by
 * the linear path (diradd.c) and the htree path (dxadd.c).
 */
#include "config.h"

#include <string.h>

#include "alloc.h"
#include "dirblock.h"
#include "dirext.h"
#include "dirleaf.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"

int extkit_dir_leaf_append(struct extkit_dirspace *ds, uint64_t *lblk)
{
	uint32_t bs = ds->fmt.block_size, usable;
	struct extkit_inode inode;
	uint64_t n = ds->nblocks, goal = 0, pblk;
	int rc;

	rc = extkit_inode_read(ds->fs, ds->ino, &inode);
	if (rc)
		return rc;
	if (n && ds->pblks[n - 1])
		goal = ds->pblks[n - 1] + 1;
	rc = extkit_dir_append_block(ds->fs, &inode, n, goal, &pblk,
				     &ds->alloc);
	if (rc)
		return rc;
	usable = extkit_dirspace_usable(&ds->fmt);
	memset(ds->buf, 0, bs);
	extkit_dirent_set(&ds->fmt, ds->buf, 0, usable, "", 0, 0);
	if (ds->fmt.tail_len)
		extkit_dirblock_init_tail(ds->fs, ds->buf);
	rc = extkit_dirblock_write(ds->fs, ds->ino, inode.generation, pblk,
				   ds->buf);
	inode.size = (n + 1) * bs;
	if (!rc)
		rc = extkit_inode_write(ds->fs, ds->ino, &inode);
	if (!rc && !ds->alloc.take_blocks)	/* else the allocator's to write */
		rc = extkit_alloc_commit(ds->fs);
	if (!rc)
		rc = extkit_dirspace_set_room(ds, n, pblk, usable);
	*lblk = n;
	return rc;
}

int extkit_dir_leaf_place(const struct extkit_dir_format *fmt, uint8_t *buf,
			  const char *name, uint32_t len, uint32_t ino,
			  uint8_t ftype)
{
	uint32_t need = extkit_dirent_min_len(len), min, off;
	struct extkit_dir_cursor c;
	int rc;

	extkit_dir_cursor_init(&c, fmt, buf, 0, extkit_dirspace_usable(fmt));
	while ((rc = extkit_dir_cursor_next(&c)) > 0) {
		min = 0;
		if (get_le32(buf + c.off))
			min = extkit_dirent_min_len(extkit_dirent_name_len(fmt,
				(const struct ext2_dir_entry_2 *)(buf + c.off)));
		if (c.rec_len - min < need)
			continue;
		if (min)
			extkit_dirent_set_rec_len(fmt, buf + c.off, min);
		off = c.off + min;
		extkit_dirent_set(fmt, buf + off, ino, c.rec_len - min, name,
				  len, ftype);
		return (int)off;
	}
	return rc < 0 ? -EFSCORRUPTED : -ENOSPC;
}
