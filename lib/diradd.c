// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Entry insertion and removal over the free-entry map (see diradd.h).
 */
#include "config.h"

#include <string.h>

#include "alloc.h"
#include "diradd.h"
#include "dirblock.h"
#include "dirext.h"
#include "dxadd.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"

/*
 * With metadata_csum an htree directory is refused: dropping its index
 * would leave the root and node blocks as leaves without a checksum tail.
 */
static int dir_writable(const struct extkit_dirspace *ds)
{
	const struct extkit_super *sb = &ds->fs->sb;

	if (ds->st.indexed &&
	    extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return -EXTKIT_EUNSUPP;
	if (ds->st.corrupt)
		return -EFSCORRUPTED;
	return 0;
}

/* Clears EXT2_INDEX_FL and re-walks: the index becomes free space. */
static int drop_index(struct extkit_dirspace *ds)
{
	struct extkit_inode inode;
	int rc = extkit_inode_read(ds->fs, ds->ino, &inode);

	if (rc)
		return rc;
	inode.flags &= ~EXT2_INDEX_FL;
	rc = extkit_inode_write(ds->fs, ds->ino, &inode);
	if (rc)
		return rc;
	ds->stale = 1;
	return extkit_dirspace_refresh(ds);
}

/* Appends an empty block: one free record over its usable bytes. */
static int grow(struct extkit_dirspace *ds, uint64_t *lblk)
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

/* Places the record in the first record of buf with room (the kernel's
 * ext2_add_link): a free record is reused, a live one split. Returns its
 * offset, or -ENOSPC. */
static int place(const struct extkit_dir_format *fmt, uint8_t *buf,
		 const char *name, uint32_t len, uint32_t ino, uint8_t ftype)
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

int extkit_dx_place(const struct extkit_dir_format *fmt, uint8_t *buf,
		    const char *name, uint32_t len, uint32_t ino,
		    uint8_t ftype)
{
	return place(fmt, buf, name, len, ino, ftype);
}

int extkit_dx_grow(struct extkit_dirspace *ds, uint64_t *lblk)
{
	return grow(ds, lblk);
}

/* Writes buf back as block lblk and records its room. */
static int block_done(struct extkit_dirspace *ds, uint64_t lblk)
{
	uint32_t room;
	int rc = extkit_dirspace_block_room(&ds->fmt, ds->buf, &room);

	if (!rc)
		rc = extkit_dirblock_write(ds->fs, ds->ino, ds->gen,
					   ds->pblks[lblk], ds->buf);
	if (!rc)
		rc = extkit_dirspace_set_room(ds, lblk, ds->pblks[lblk], room);
	return rc;
}

int extkit_dir_add(struct extkit_dirspace *ds, const char *name,
		   uint32_t len, uint32_t ino, uint8_t ftype,
		   struct extkit_dir_hole *where)
{
	uint64_t lblk;
	int rc, off;

	if (!len || len > EXT2_NAME_LEN || memchr(name, '/', len) ||
	    memchr(name, 0, len) || !ino || ino > ds->fs->sb.inodes_count)
		return -EINVAL;
	if (ds->st.corrupt)
		return -EFSCORRUPTED;
	if (ds->st.indexed) {	/* the index kept when the shape allows */
		rc = extkit_dx_add(ds, name, len, ino, ftype, &lblk, &off);
		if (!rc)
			goto placed;
		if (rc != -EAGAIN)
			return rc;
	}
	rc = dir_writable(ds);
	if (!rc && ds->st.indexed)
		rc = drop_index(ds);
	if (rc)
		return rc;
	rc = extkit_dirspace_find(ds, extkit_dirent_min_len(len), &lblk);
	if (rc == -ENOSPC)
		rc = grow(ds, &lblk);
	if (rc)
		return rc;
	rc = extkit_fs_read_block(ds->fs, ds->pblks[lblk], ds->buf);
	if (rc)
		return rc;
	ds->visits++;
	off = place(&ds->fmt, ds->buf, name, len, ino, ftype);
	if (off < 0)
		return off == -ENOSPC ? -EFSCORRUPTED : off;
placed:
	if (where) {
		where->lblk = lblk;
		where->offset = (uint32_t)off;
		where->size = extkit_dirent_min_len(len);
	}
	return block_done(ds, lblk);
}

/* Merges the record at offset into the previous one of buf. */
static int unlink_rec(const struct extkit_dir_format *fmt, uint8_t *buf,
		      uint32_t offset)
{
	struct extkit_dir_cursor c;
	uint32_t prev_len;
	int rc;

	extkit_dir_cursor_init(&c, fmt, buf, 0, extkit_dirspace_usable(fmt));
	while ((rc = extkit_dir_cursor_next(&c)) > 0 && c.off != offset)
		;
	if (rc < 0)
		return -EFSCORRUPTED;
	if (!rc || !get_le32(buf + offset))
		return -ENOENT;
	if (c.prev != EXTKIT_DIR_NO_OFFSET) {
		prev_len = extkit_dirent_rec_len(fmt, buf + c.prev);
		extkit_dirent_set_rec_len(fmt, buf + c.prev,
					  prev_len + c.rec_len);
	}
	put_le32(buf + offset, 0);
	return 0;
}

int extkit_dir_remove_at(struct extkit_dirspace *ds, uint64_t lblk,
			 uint32_t offset)
{
	int rc = dir_writable(ds);

	if (!rc && ds->st.indexed)
		rc = drop_index(ds);
	if (rc)
		return rc;
	if (lblk >= ds->nblocks || !ds->pblks[lblk])
		return -ENOENT;
	rc = extkit_fs_read_block(ds->fs, ds->pblks[lblk], ds->buf);
	if (rc)
		return rc;
	ds->visits++;
	rc = unlink_rec(&ds->fmt, ds->buf, offset);
	if (rc)
		return rc;
	return block_done(ds, lblk);
}

int extkit_dir_remove(struct extkit_dirspace *ds, const char *name,
		      uint32_t len, uint32_t *ino)
{
	struct extkit_dir_iter it;
	struct extkit_dirent ent;
	uint64_t lblk = 0;
	uint32_t off = 0, found = 0;
	int rc;

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;
	rc = extkit_dir_iter_init(&it, ds->fs, ds->ino, 0);
	if (rc)
		return rc;
	while ((rc = extkit_dir_iter_next(&it, &ent)) > 0) {
		if (ent.kind == EXTKIT_DE_LIVE && ent.name_len == len &&
		    !memcmp(ent.name, name, len)) {
			lblk = ent.lblk;
			off = ent.offset;
			found = ent.inode;
			break;
		}
	}
	extkit_dir_iter_end(&it);
	if (rc < 0)
		return rc;
	if (!found)
		return -ENOENT;
	if (ino)
		*ino = found;
	return extkit_dir_remove_at(ds, lblk, off);
}
