// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d with inline_data (lib/inline_build.h). As mke2fs -d: every
 * regular file whose data fits in i_block and the in-inode attribute
 * space goes inline (an empty one too), its data placed before its
 * other attributes; the root and lost+found never do. A symbolic link
 * too long for i_block goes inline the same way (popinode.c says when).
 * A directory gets an empty system.data when its inode is written; once
 * its entries are known it stays inline when they fit in i_block
 * (i_size 60) or, as the kernel grows one, in i_block and the whole
 * in-inode space left; else the attribute goes and the directory is
 * laid out in blocks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "inline.h"
#include "inline_build.h"
#include "ondisk.h"

#include "populate.h"

/* system.data for size bytes of data (those past i_block). */
static struct extkit_xattr_item data_item(const uint8_t *data, uint64_t size)
{
	struct extkit_xattr_item it = pop_inline_item;

	if (size > EXTKIT_INLINE_IBLOCK) {
		it.value = data ? data + EXTKIT_INLINE_IBLOCK : NULL;
		it.size = (uint32_t)(size - EXTKIT_INLINE_IBLOCK);
	}
	return it;
}

int pop_inline_fits(struct pop *p, const struct pop_meta *m, int inode_only)
{
	struct extkit_xattr_item it;

	/* no inode holds 64 KiB: the size is checked before the 32 bits */
	if (m->size > p->fs->g.inode_size + EXTKIT_INLINE_IBLOCK)
		return 0;
	it = data_item(NULL, m->size);
	return pop_xattrs_fit(p, m, &it, inode_only);
}

int pop_inline_file(struct pop *p, uint32_t ino, const struct pop_meta *m,
		    const uint8_t *data)
{
	struct extkit_xattr_item it = data_item(data, m->size);
	struct extkit_inode in = { 0 };

	extkit_inode_set_iblock_bytes(&in, data,
				      m->size < EXTKIT_INLINE_IBLOCK ?
				      (size_t)m->size : EXTKIT_INLINE_IBLOCK);
	in.flags = EXT4_INLINE_DATA_FL;
	in.size = m->size;
	return pop_write_inode_x(p, ino, m, &in, 1, &it);
}

int pop_inline_dir(struct pop *p, uint32_t ino, struct extkit_dirbuild *db,
		   uint16_t links)
{
	uint8_t iblock[EXTKIT_INLINE_IBLOCK], *value = NULL;
	struct extkit_inode in;
	uint32_t room, need, vsize;
	int rc = pop_inode_get(p, ino, p->raw);

	if (rc)
		return rc;
	rc = extkit_inline_room(p->fs, p->raw, &room);
	if (rc == -ENODATA)	/* written without it: blocks */
		return 0;
	if (rc)
		return rc;
	need = extkit_inline_dir_need(db);
	if (need > room) {
		rc = extkit_inline_drop(p->fs, p->raw);
		return rc ? rc : pop_inode_put(p, ino, p->raw, 0);
	}
	vsize = need ? room : 0;
	if (vsize && !(value = malloc(vsize)))
		return -ENOMEM;
	extkit_inline_dir_lay_out(db, db->dotdot, iblock, value, vsize);
	rc = extkit_inline_fill(p->fs, p->raw, value, vsize);
	free(value);
	if (rc)
		return rc;
	extkit_inode_decode(p->raw, p->fs->g.inode_size, &in);
	extkit_inode_set_iblock_bytes(&in, iblock, EXTKIT_INLINE_IBLOCK);
	in.flags |= EXT4_INLINE_DATA_FL;
	in.size = EXTKIT_INLINE_IBLOCK + vsize;
	in.links_count = links;
	extkit_inode_encode(&in, p->fs->g.inode_size, p->raw);
	rc = pop_inode_put(p, ino, p->raw, 0);
	return rc ? rc : 1;
}
