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
	__le16 rl;
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
	extkit_rec_len_to_disk(usable, bs, &rl);
	memcpy(ds->buf + 4, &rl, sizeof(rl));
	if (ds->fmt.tail_len)
		extkit_dirblock_init_tail(ds->fs, ds->buf);
	rc = extkit_dirblock_write(ds->fs, ds->ino, inode.generation, pblk,
				   ds->buf);
	inode.size = (n + 1) * bs;
	if (!rc)
		rc = extkit_inode_write(ds->fs, ds->ino, &inode);
	if (!rc && !ds->alloc.alloc)	/* else the allocator's to write */
		rc = extkit_alloc_commit(ds->fs);
	if (!rc)
		rc = extkit_dirspace_set_room(ds, n, pblk, usable);
	*lblk = n;
	return rc;
}

static void put_name(uint8_t *p, uint32_t ino, const char *name,
		     uint32_t len, uint8_t ftype, int has_ft)
{
	put_le32(p, ino);
	p[6] = (uint8_t)len;
	p[7] = has_ft ? ftype : 0;
	memcpy(p + EXT2_DIR_ENTRY_HEADER_LEN, name, len);
}

/* Places the record in the first record of buf with room (the kernel's
 * ext2_add_link). Returns its offset, or -ENOSPC. */
static int place(const struct extkit_dir_format *fmt, uint8_t *buf,
		 const char *name, uint32_t len, uint32_t ino, uint8_t ftype)
{
	uint32_t limit = extkit_dirspace_usable(fmt), need, off = 0, rl, min;
	__le16 d;

	need = extkit_dirent_min_len(len);
	while (off < limit) {
		if (extkit_dirent_check(fmt, buf, off, limit, &rl))
			return -EFSCORRUPTED;
		min = 0;
		if (get_le32(buf + off))
			min = extkit_dirent_min_len(extkit_dirent_name_len(fmt,
				(const struct ext2_dir_entry_2 *)(buf + off)));
		if (rl - min >= need) {
			if (min) {
				extkit_rec_len_to_disk(min, fmt->block_size,
						       &d);
				memcpy(buf + off + 4, &d, sizeof(d));
				off += min;
				extkit_rec_len_to_disk(rl - min,
						       fmt->block_size, &d);
				memcpy(buf + off + 4, &d, sizeof(d));
			}
			put_name(buf + off, ino, name, len, ftype,
				 fmt->has_filetype);
			return (int)off;
		}
		off += rl;
	}
	return -ENOSPC;
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
	uint32_t limit = extkit_dirspace_usable(fmt), off = 0, rl, prl = 0;
	uint32_t prev = UINT32_MAX;
	__le16 d;

	while (off < limit) {
		if (extkit_dirent_check(fmt, buf, off, limit, &rl))
			return -EFSCORRUPTED;
		if (off == offset)
			break;
		prev = off;
		prl = rl;
		off += rl;
	}
	if (off != offset || !get_le32(buf + off))
		return -ENOENT;
	if (prev != UINT32_MAX) {
		extkit_rec_len_to_disk(prl + rl, fmt->block_size, &d);
		memcpy(buf + prev + 4, &d, sizeof(d));
	}
	put_le32(buf + off, 0);
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
