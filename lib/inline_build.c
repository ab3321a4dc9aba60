// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inline data of a new inode (see inline_build.h).
 */
#include "config.h"

#include <string.h>

#include "endian.h"
#include "error.h"
#include "inline.h"
#include "inline_build.h"
#include "ondisk.h"
#include "xattr.h"

/* The in-inode area of raw as the kernel sees it for system.data: the
 * entry's offset, the end mark's, and the lowest value offset (all in
 * the region). */
struct ibody {
	struct extkit_xattr_region r;
	uint32_t data_off;
	uint32_t data_size;
	uint32_t end_off;
	uint32_t min_value;
};

static int scan(const struct extkit_fs *fs, const uint8_t *raw,
		struct ibody *b)
{
	struct extkit_xattr x;
	uint32_t off;
	int found = 0, rc;

	if (!extkit_xattr_ibody_region(raw, fs->g.inode_size, &b->r))
		return -ENODATA;
	off = b->r.first;
	b->min_value = b->r.size;
	while ((rc = extkit_xattr_next(&b->r, &off, &x)) == 1) {
		if (x.name_index == EXTKIT_INLINE_EA_INDEX &&
		    x.name_len == 4 && !memcmp(x.name, "data", 4)) {
			found = 1;
			b->data_off = x.offset;
			b->data_size = x.value_size;
		}
		if (!x.value_inum && x.value_size &&
		    b->r.vbase + x.value_offs < b->min_value)
			b->min_value = b->r.vbase + x.value_offs;
	}
	if (rc < 0)
		return rc;
	b->end_off = off;
	if (b->end_off + 4 > b->min_value)
		return -EFSCORRUPTED;
	return found ? 0 : -ENODATA;
}

/* scan() of an inode whose system.data is still empty (-EINVAL when it
 * is not), and the bytes a value may take: from the end mark to the
 * lowest value, rounded down to 4. */
static int scan_empty(const struct extkit_fs *fs, const uint8_t *raw,
		      struct ibody *b, uint32_t *room)
{
	int rc = scan(fs, raw, b);

	if (rc)
		return rc;
	if (b->data_size)
		return -EINVAL;
	*room = (b->min_value - b->end_off - 4) & ~3u;
	return 0;
}

int extkit_inline_room(const struct extkit_fs *fs, const uint8_t *raw,
		       uint32_t *room)
{
	struct ibody b;

	return scan_empty(fs, raw, &b, room);
}

int extkit_inline_fill(const struct extkit_fs *fs, uint8_t *raw,
		       const uint8_t *value, uint32_t size)
{
	uint32_t room, at, pad = (size + 3) & ~3u;
	struct ext2_ext_attr_entry *e;
	uint8_t *buf;
	struct ibody b;
	int rc = scan_empty(fs, raw, &b, &room);

	if (rc)
		return rc;
	if (pad > room)
		return -ENOSPC;
	buf = (uint8_t *)b.r.buf;
	at = b.min_value - pad;
	memset(buf + at, 0, pad);
	if (size)
		memcpy(buf + at, value, size);
	e = (void *)(buf + b.data_off);
	e->e_value_offs = cpu_to_le16(size ? (uint16_t)(at - b.r.vbase) : 0);
	e->e_value_size = cpu_to_le32(size);
	e->e_hash = 0;	/* in the inode: none, as the kernel writes it */
	return 0;
}

int extkit_inline_drop(const struct extkit_fs *fs, uint8_t *raw)
{
	const struct ext2_ext_attr_entry *e;
	uint32_t len, room;
	uint8_t *buf;
	struct ibody b;
	int rc = scan_empty(fs, raw, &b, &room);

	if (rc)
		return rc;
	buf = (uint8_t *)b.r.buf;
	e = (const void *)(buf + b.data_off);
	len = (sizeof(*e) + e->e_name_len + 3) & ~3u;
	/* the entries after it (and the end mark) move up */
	memmove(buf + b.data_off, buf + b.data_off + len,
		b.end_off + 4 - b.data_off - len);
	memset(buf + b.end_off + 4 - len, 0, len);
	if (get_le32(buf + b.r.first) == 0)
		put_le32(buf, 0);	/* nothing left: no magic */
	return 0;
}

/* ---- directories ---- */

#define DIR_IBLOCK	(EXTKIT_INLINE_IBLOCK - EXTKIT_INLINE_DOTDOT)

/* How many of the first entries fit in i_block (next-fit). */
static uint64_t in_iblock(const struct extkit_dirbuild *db)
{
	uint32_t used = 0;
	uint64_t i;

	for (i = 0; i < db->n; i++) {
		uint32_t len = extkit_dirent_min_len(db->e[i].len);

		if (used + len > DIR_IBLOCK)
			break;
		used += len;
	}
	return i;
}

uint32_t extkit_inline_dir_need(const struct extkit_dirbuild *db)
{
	uint64_t need = 0;

	for (uint64_t i = in_iblock(db); i < db->n; i++)
		need += extkit_dirent_min_len(db->e[i].len);
	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}

/* Entries [from, to) into buf (size bytes), the last one reaching the
 * end; an empty record covers buf when there is none. */
static void put_entries(const struct extkit_dirbuild *db, uint64_t from,
			uint64_t to, uint8_t *buf, uint32_t size)
{
	uint32_t off = 0, last = 0, len;

	memset(buf, 0, size);
	if (from == to) {
		extkit_dirent_set(&db->fmt, buf, 0, size, "", 0, 0);
		return;
	}
	for (uint64_t i = from; i < to; i++) {
		const struct extkit_dirbuild_entry *e = &db->e[i];

		len = extkit_dirent_min_len(e->len);
		last = off;
		extkit_dirent_set(&db->fmt, buf + off, e->ino, len,
				  db->names + e->name_off, e->len, e->ftype);
		off += len;
	}
	extkit_dirent_set_rec_len(&db->fmt, buf + last, size - last);
}

void extkit_inline_dir_lay_out(const struct extkit_dirbuild *db,
			       uint32_t parent, uint8_t *iblock,
			       uint8_t *value, uint32_t vsize)
{
	uint64_t k = in_iblock(db);

	put_le32(iblock, parent);
	put_entries(db, 0, k, iblock + EXTKIT_INLINE_DOTDOT, DIR_IBLOCK);
	if (vsize)
		put_entries(db, k, db->n, value, vsize);
}
