// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: the inode tables. New inodes come in increasing numbers, so
 * they are put in a window of up to 1 MiB of one group's table, kept in
 * memory and written in one go when the window moves on; an inode outside
 * the window (a directory finished after its children, a link count)
 * goes through one cached block. A table block holds zeros until populate
 * writes it, except the blocks of the inodes mkfs itself made (up to
 * ino_before): only those, and blocks written already (p->itab_done), are
 * read back.
 */
#include "config.h"

#include <string.h>

#include "csum.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"

#include "populate.h"

static int itab_where(struct pop *p, uint32_t ino, uint32_t *g, uint32_t *idx,
		      uint32_t *off)
{
	const struct extkit_fs *fs = p->fs;
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t byte;

	if (ino == 0 || ino > fs->sb.inodes_count)
		return -EINVAL;
	*g = (ino - 1) / ipg;
	byte = (uint64_t)((ino - 1) % ipg) * fs->g.inode_size;
	*idx = (uint32_t)(byte / fs->g.block_size);
	*off = (uint32_t)(byte % fs->g.block_size);
	return 0;
}

/* Whether table block idx of group g holds something to read back. */
static int itab_kept(const struct pop *p, uint32_t g, uint32_t idx)
{
	uint64_t bit = (uint64_t)g * p->fs->g.itable_blocks + idx;

	if ((uint64_t)g * p->fs->sb.inodes_per_group +
	    (uint64_t)idx * p->fs->g.inodes_per_block < p->ino_before)
		return 1;
	return extkit_bitmap_test(&p->itab_done, bit) == 1;
}

/* Fills buf with n table blocks of group g from idx: zeros, or what
 * they hold when kept. */
static int itab_load(struct pop *p, uint32_t g, uint32_t idx, uint32_t n,
		     uint8_t *buf)
{
	uint32_t bs = p->fs->g.block_size, i, any = 0;
	int rc = 0;

	for (i = 0; i < n; i++)
		any |= itab_kept(p, g, idx + i);
	if (any && p->wr)	/* a buffered read sees no queued write */
		rc = pop_writer_wait(p->wr);
	if (any && !rc)
		rc = extkit_io_read_blocks(p->fs->io,
					   p->fs->groups[g].inode_table + idx,
					   n, buf);
	for (i = 0; !rc && i < n; i++)
		if (!any || !itab_kept(p, g, idx + i))
			memset(buf + (uint64_t)i * bs, 0, bs);
	return rc;
}

static int itab_store(struct pop *p, uint32_t g, uint32_t idx, uint32_t n,
		      const uint8_t *buf)
{
	uint64_t bit = (uint64_t)g * p->fs->g.itable_blocks + idx;
	int rc;

	if (!n)
		return 0;
	rc = extkit_io_write_blocks(p->fs->io,
				    p->fs->groups[g].inode_table + idx, n,
				    buf);
	return rc ? rc : extkit_bitmap_set_range(&p->itab_done, bit, n);
}

static int side_flush(struct pop *p)
{
	int rc = 0;

	if (p->itb_dirty)
		rc = itab_store(p, p->itb_g, p->itb_idx, 1, p->itb);
	p->itb_dirty = 0;
	return rc;
}

/*
 * Writes the blocks of the window that changed. With the writer they go
 * out with O_DIRECT in the window's buffer, and the window starts empty
 * in a new one (it is only flushed to move on, or at the end).
 */
static int window_flush(struct pop *p)
{
	uint32_t bs = p->fs->g.block_size, lo = p->itw_lo;
	uint32_t n = p->itw_hi - lo, idx = p->itw_idx + lo;
	uint64_t at = p->fs->groups[p->itw_g].inode_table + idx;
	int rc;

	p->itw_lo = p->itw_hi = 0;
	if (!pop_direct_now(p) || !n) {
		p->cached += (uint64_t)n * bs;
		return itab_store(p, p->itw_g, idx, n,
				  p->itw + (uint64_t)lo * bs);
	}
	rc = pop_writer_queue(p->wr, p->itw, (size_t)lo * bs, (size_t)n * bs,
			      at * bs);
	p->itw = pop_writer_buf(p->wr);
	p->itw_n = 0;
	return rc ? rc : extkit_bitmap_set_range(&p->itab_done,
		(uint64_t)p->itw_g * p->fs->g.itable_blocks + idx, n);
}

static int in_window(const struct pop *p, uint32_t g, uint32_t idx)
{
	return p->itw_n && g == p->itw_g && idx >= p->itw_idx &&
	       idx < p->itw_idx + p->itw_n;
}

/* Moves the window onto table block idx of group g. */
static int window_move(struct pop *p, uint32_t g, uint32_t idx)
{
	uint32_t itb = p->fs->g.itable_blocks, w = p->itw_max;
	int rc = window_flush(p);

	p->itw_n = 0;
	if (!rc && p->itb_g == g && p->itb_idx / w == idx / w && p->itb_ok) {
		rc = side_flush(p);	/* the window takes the block over */
		p->itb_ok = 0;
	}
	if (rc)
		return rc;
	p->itw_g = g;
	p->itw_idx = idx - idx % w;
	p->itw_n = itb - p->itw_idx < w ? itb - p->itw_idx : w;
	rc = itab_load(p, g, p->itw_idx, p->itw_n, p->itw);
	if (rc)
		p->itw_n = 0;
	return rc;
}

/* Whether table block idx of group g lies past the window. */
static int past_window(const struct pop *p, uint32_t g, uint32_t idx)
{
	return !p->itw_n || g > p->itw_g ||
	       (g == p->itw_g && idx >= p->itw_idx + p->itw_n);
}

/*
 * Where inode ino is in memory. A new inode past the window moves the
 * window there; any other goes through the block beside it, so the
 * window only moves forward and no order of inodes makes it go back and
 * forth (each of its moves reads nothing but the blocks written before).
 */
static int itab_slot(struct pop *p, uint32_t ino, int fresh, int dirty,
		     uint8_t **slot)
{
	uint32_t g, idx, off, bs = p->fs->g.block_size;
	int rc = itab_where(p, ino, &g, &idx, &off);

	if (!rc && fresh && past_window(p, g, idx))
		rc = window_move(p, g, idx);
	if (rc)
		return rc;
	if (in_window(p, g, idx)) {
		idx -= p->itw_idx;
		if (dirty && p->itw_lo == p->itw_hi)
			p->itw_lo = idx, p->itw_hi = idx + 1;
		else if (dirty && idx < p->itw_lo)
			p->itw_lo = idx;
		else if (dirty && idx >= p->itw_hi)
			p->itw_hi = idx + 1;
		*slot = p->itw + (uint64_t)idx * bs + off;
		return 0;
	}
	if (!p->itb_ok || p->itb_g != g || p->itb_idx != idx) {
		rc = side_flush(p);
		if (!rc)
			rc = itab_load(p, g, idx, 1, p->itb);
		p->itb_ok = !rc;
		p->itb_g = g;
		p->itb_idx = idx;
		if (rc)
			return rc;
	}
	p->itb_dirty |= dirty;
	*slot = p->itb + off;
	return 0;
}

int pop_inode_get(struct pop *p, uint32_t ino, uint8_t *raw)
{
	uint8_t *slot;
	int rc = itab_slot(p, ino, 0, 0, &slot);

	if (!rc)
		memcpy(raw, slot, p->fs->g.inode_size);
	return rc;
}

int pop_inode_put(struct pop *p, uint32_t ino, uint8_t *raw, int fresh)
{
	uint8_t *slot;
	int rc = itab_slot(p, ino, fresh, 1, &slot);

	if (rc)
		return rc;
	extkit_inode_csum_set(p->fs, ino, raw);
	memcpy(slot, raw, p->fs->g.inode_size);
	return 0;
}

int pop_inode_flush(struct pop *p)
{
	int rc = window_flush(p);

	return rc ? rc : side_flush(p);
}
