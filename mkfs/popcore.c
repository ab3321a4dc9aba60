// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d, the shared engine (see populate.h): inodes are taken one after
 * the other and written whole (times with nanoseconds and extended
 * attributes when the inode is large enough); file data goes out in runs
 * of physically contiguous blocks; a directory is laid out in memory in
 * one go (lib/dirbuild.c: linear, or htree when it needs more than one
 * block and dir_index is on) and written once. Nothing walks a directory
 * already written: adding N names costs O(N).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csum.h"
#include "dirblock.h"
#include "endian.h"
#include "error.h"
#include "group.h"
#include "mapbuild.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "populate.h"

#define EXT2_LINK_MAX	65000	/* as the kernel's EXT4_LINK_MAX */

/* ---- a map from two keys to an inode number ---- */

static uint64_t slot_of(const struct pop_map *m, uint64_t k1, uint64_t k2)
{
	uint64_t h = (k1 * 0x9E3779B97F4A7C15ULL) ^
		     (k2 + 0x632BE59BD9B4E019ULL);

	h ^= h >> 29;
	return (h * 0xBF58476D1CE4E5B9ULL) & (m->cap - 1);
}

int pop_map_get(const struct pop_map *m, uint64_t k1, uint64_t k2,
		uint32_t *val)
{
	if (!m->cap)
		return 0;
	for (uint64_t s = slot_of(m, k1, k2); m->val[s];
	     s = (s + 1) & (m->cap - 1))
		if (m->k1[s] == k1 && m->k2[s] == k2) {
			*val = m->val[s];
			return 1;
		}
	return 0;
}

static int map_grow(struct pop_map *m)
{
	struct pop_map n = { .cap = m->cap ? m->cap * 2 : 1024 };
	int rc = 0;

	n.k1 = calloc(n.cap, sizeof(*n.k1));
	n.k2 = calloc(n.cap, sizeof(*n.k2));
	n.val = calloc(n.cap, sizeof(*n.val));
	if (!n.k1 || !n.k2 || !n.val) {
		pop_map_free(&n);
		return -ENOMEM;
	}
	for (uint64_t s = 0; !rc && s < m->cap; s++)
		if (m->val[s])
			rc = pop_map_put(&n, m->k1[s], m->k2[s], m->val[s]);
	pop_map_free(m);
	*m = n;
	return rc;
}

/* Sets (k1, k2) to val (never 0), replacing a value already there. */
int pop_map_put(struct pop_map *m, uint64_t k1, uint64_t k2, uint32_t val)
{
	uint64_t s;
	int rc;

	if ((m->n + 1) * 2 > m->cap) {
		rc = map_grow(m);
		if (rc)
			return rc;
	}
	for (s = slot_of(m, k1, k2); m->val[s]; s = (s + 1) & (m->cap - 1))
		if (m->k1[s] == k1 && m->k2[s] == k2)
			break;
	if (!m->val[s])
		m->n++;
	m->k1[s] = k1;
	m->k2[s] = k2;
	m->val[s] = val;
	return 0;
}

void pop_map_free(struct pop_map *m)
{
	free(m->k1);
	free(m->k2);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* ---- set up ---- */

/* The highest inode in use before populate (mkfs's own, a handful). */
static uint32_t last_used(const struct extkit_fsbuild *fb)
{
	uint64_t n = fb->fs->sb.inodes_count, from = 0, at, last = 0;

	while (from < n &&
	       !extkit_bitmap_find_first_set(&fb->inodes, from, n - from, &at))
		last = at + 1, from = at + 1;
	return (uint32_t)last;
}

int pop_init(struct pop *p, const struct mkfs_opts *o, struct extkit_fs *fs,
	     const struct mkfs_layout *l)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->o = o;
	p->fs = fs;
	p->extents = extkit_has_incompat(&fs->sb,
					 EXT4_FEATURE_INCOMPAT_EXTENTS);
	p->ino_goal = fs->g.first_ino + 1;
	/* for bench/populate.sh only: inodes in the order met, without a
	 * run kept for each directory's children */
	p->no_reserve = getenv("EXTKIT_MKFS_NO_DIR_RESERVE") != NULL;
	p->blk_goal = l->root_block;
	p->lpf_block = l->lpf_block;
	p->lpf_blocks = l->lpf_blocks;
	p->raw = malloc(fs->g.inode_size);
	p->ea = malloc(fs->g.block_size);
	p->itb = malloc(fs->g.block_size);
	p->itw_max = POP_BUF / fs->g.block_size;
	if (p->itw_max > fs->g.itable_blocks)
		p->itw_max = fs->g.itable_blocks;
	if (!p->itw_max)
		p->itw_max = 1;
	p->itw = malloc((size_t)p->itw_max * fs->g.block_size);
	p->buf = malloc(POP_BUF);
	p->rbuf = malloc(POP_BUF);
	p->path = malloc(PATH_MAX * 2);
	if (!p->raw || !p->ea || !p->itb || !p->itw || !p->buf || !p->rbuf ||
	    !p->path)
		return -ENOMEM;
	p->path[0] = 0;
	rc = extkit_bitmap_init(&p->itab_done, (uint64_t)fs->g.group_count *
				fs->g.itable_blocks);
	if (!rc)
		rc = extkit_fsbuild_open(fs, &p->fb);
	if (!rc)
		p->ino_before = last_used(&p->fb);
	return rc;
}

void pop_fini(struct pop *p)
{
	if (p->fb.dirty)
		extkit_fsbuild_close(&p->fb);
	pop_map_free(&p->links);
	pop_map_free(&p->srcino);
	free(p->raw);
	free(p->ea);
	free(p->itb);
	free(p->itw);
	extkit_bitmap_free(&p->itab_done);
	free(p->buf);
	free(p->rbuf);
	free(p->path);
}

/* ---- inodes ---- */

int pop_new_inode(struct pop *p, int is_dir, uint32_t *ino)
{
	int rc = extkit_fsbuild_inode(&p->fb, p->ino_goal, is_dir, ino);

	if (!rc)
		p->ino_goal = *ino + 1;
	return rc;
}

/* A run of n new inodes to come: it starts on an inode table block of
 * its own unless it fits in what is left of the current one. */
void pop_align_goal(struct pop *p, uint64_t n)
{
	uint32_t ipb = p->fs->g.inodes_per_block;
	uint32_t used = (p->ino_goal - 1) % ipb;

	if (!p->no_reserve && used && n > ipb - used &&
	    p->ino_goal <= p->fs->sb.inodes_count - (ipb - used))
		p->ino_goal += ipb - used;
}

/*
 * Inode tables. New inodes come in increasing numbers, so they are put in
 * a window of up to 1 MiB of one group's table, kept in memory and
 * written in one go when the window moves on; an inode outside the window
 * (a directory finished after its children, a link count) goes through
 * one cached block. A table block holds zeros until populate writes it,
 * except the blocks of the inodes mkfs itself made (up to ino_before):
 * only those, and blocks written already (p->itab_done), are read back.
 */
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
	if (any)
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

static int window_flush(struct pop *p)
{
	uint32_t bs = p->fs->g.block_size, lo = p->itw_lo;
	int rc = itab_store(p, p->itw_g, p->itw_idx + lo, p->itw_hi - lo,
			    p->itw + (uint64_t)lo * bs);

	p->itw_lo = p->itw_hi = 0;
	return rc;
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

/* Blocks near inode ino: its group's first block when the blocks taken
 * so far are in an earlier group, else right after them. */
static uint64_t goal_for(struct pop *p, uint32_t ino)
{
	const struct extkit_super *sb = &p->fs->sb;
	uint32_t g = (ino - 1) / sb->inodes_per_group;
	uint64_t first = extkit_group_first_block(sb, g);

	return p->blk_goal < first ? first : p->blk_goal;
}

static int take_blocks(struct pop *p, uint64_t goal, uint64_t want,
		       uint64_t *start, uint64_t *got)
{
	int rc = extkit_fsbuild_blocks(&p->fb, goal, want, start, got);

	if (!rc)
		p->blk_goal = *start + *got;
	return rc;
}

/* Seconds as i_*time (low 32 bits) and the epoch bits of *_extra. */
static uint32_t time_extra(const struct timespec *t)
{
	int64_t s = t->tv_sec;
	uint32_t epoch = (uint32_t)(((uint64_t)(s - (int32_t)s) >> 32) & 3);

	return ((uint32_t)t->tv_nsec << 2) | epoch;
}

/* With SOURCE_DATE_EPOCH, no time after it (reproducible images). */
static struct timespec clamp(const struct pop *p, struct timespec t)
{
	if (p->o->fixed_time && t.tv_sec >= (time_t)p->o->now) {
		t.tv_sec = p->o->now;
		t.tv_nsec = 0;
	}
	return t;
}

static void put_times(struct pop *p, const struct pop_meta *m,
		      struct extkit_inode *in)
{
	struct timespec a = clamp(p, m->atime), c = clamp(p, m->ctime);
	struct timespec mt = clamp(p, m->mtime);
	struct ext2_inode *ri = (void *)p->raw;
	uint32_t have = EXT2_INODE_CORE_SIZE + in->extra_isize;

	in->atime = (uint32_t)a.tv_sec;
	in->ctime = (uint32_t)c.tv_sec;
	in->mtime = (uint32_t)mt.tv_sec;
	in->crtime = p->o->now;
	extkit_inode_encode(in, p->fs->g.inode_size, p->raw);
	if (have >= offsetof(struct ext2_inode, i_crtime_extra) + 4) {
		ri->i_ctime_extra = cpu_to_le32(time_extra(&c));
		ri->i_mtime_extra = cpu_to_le32(time_extra(&mt));
		ri->i_atime_extra = cpu_to_le32(time_extra(&a));
	}
}

/* The extended attributes: in the inode, then one block. */
static int put_xattrs(struct pop *p, const struct pop_meta *m,
		      struct extkit_inode *in)
{
	uint64_t blk, got;
	int use, rc;

	if (!m->nx)
		return 0;
	rc = extkit_xattr_build(p->fs, m->x, m->nx, p->raw, p->ea, &use);
	if (rc || !use)
		return rc == -ENOSPC ? -E2BIG : rc;
	rc = take_blocks(p, p->blk_goal, 1, &blk, &got);
	if (rc)
		return rc;
	extkit_ea_block_csum_set(p->fs, blk, p->ea);
	rc = extkit_fs_write_block(p->fs, blk, p->ea);
	if (rc)
		return rc;
	in->file_acl = blk;
	extkit_inode_set_fs_blocks(p->fs, in, in->blocks /
				   p->fs->g.sb_sectors_per_block + 1);
	return 0;
}

int pop_write_inode(struct pop *p, uint32_t ino, const struct pop_meta *m,
		    struct extkit_inode *in, uint16_t links)
{
	uint32_t isize = p->fs->g.inode_size;
	int rc;

	in->mode = (uint16_t)m->mode;
	in->uid = m->uid;
	in->gid = m->gid;
	in->links_count = links;
	in->extra_isize = isize > EXT2_INODE_CORE_SIZE ?
			  p->fs->sb.want_extra_isize : 0;
	if (in->size > 0x7FFFFFFFULL && !S_ISDIR(m->mode))
		p->fs->sb.feature_ro_compat |=
			EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	memset(p->raw, 0, isize);
	put_times(p, m, in);
	rc = put_xattrs(p, m, in);
	if (rc)
		return rc;
	/* file_acl and i_blocks may have changed: encode again */
	extkit_inode_encode(in, isize, p->raw);
	return pop_inode_put(p, ino, p->raw, 1);
}

/* ---- regular file data ---- */

int pop_file_begin(struct pop *p, struct pop_file *f, uint64_t size)
{
	uint32_t bs = p->fs->g.block_size;

	memset(f, 0, sizeof(*f));
	f->size = size;
	f->nblocks = (size + bs - 1) / bs;
	f->pblks = calloc(f->nblocks ? f->nblocks : 1, sizeof(*f->pblks));
	return f->pblks ? 0 : -ENOMEM;
}

/* Writes the data blocks gathered (physically contiguous) in p->buf. */
int pop_data_flush(struct pop *p)
{
	uint32_t bs = p->fs->g.block_size;
	int rc;

	if (!p->out_n)
		return 0;
	rc = extkit_io_write_bytes(p->fs->io, p->out_first * bs, p->buf,
				   p->out_n * bs);
	p->out_n = 0;
	return rc;
}

/* Maps logical block lb to a new block, from the run taken last. */
static int map_block(struct pop *p, struct pop_file *f, uint64_t lb)
{
	int rc;

	if (!f->run_left) {
		rc = take_blocks(p, p->blk_goal, f->nblocks - lb,
				 &f->run_next, &f->run_left);
		if (rc)
			return rc;
	}
	f->pblks[lb] = f->run_next++;
	f->run_left--;
	return 0;
}

static int all_zero(const uint8_t *b, uint32_t len)
{
	return !b[0] && !memcmp(b, b + 1, len - 1);
}

int pop_file_write(struct pop *p, struct pop_file *f, uint64_t off,
		   const void *buf, size_t len)
{
	uint32_t bs = p->fs->g.block_size, max = POP_BUF / bs;
	const uint8_t *src = buf;
	int rc;

	if (off + len > f->size)
		return -EFBIG;	/* the file grew while being copied */
	while (len) {
		uint64_t lb = off / bs;
		uint32_t in = (uint32_t)(off % bs);
		size_t n = bs - in < len ? bs - in : len;
		uint64_t pb;
		int inside;

		if (!in && n == bs && !f->pblks[lb] && all_zero(src, bs)) {
			src += n;	/* a block of zeros stays a hole */
			off += n;
			len -= n;
			continue;
		}
		if (!f->pblks[lb]) {
			rc = map_block(p, f, lb);
			if (rc)
				return rc;
		}
		pb = f->pblks[lb];
		inside = p->out_n && pb >= p->out_first &&
			 pb < p->out_first + p->out_n;
		if (!inside && p->out_n && pb == p->out_first + p->out_n &&
		    p->out_n < max) {
			memset(p->buf + p->out_n * bs, 0, bs);
			p->out_n++;
		} else if (!inside) {
			rc = pop_data_flush(p);
			if (rc)
				return rc;
			p->out_first = pb;
			p->out_n = 1;
			memset(p->buf, 0, bs);
		}
		memcpy(p->buf + (pb - p->out_first) * bs + in, src, n);
		src += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* The map of the blocks written (extents or indirect blocks). */
static int build_map(struct pop *p, uint32_t ino, uint64_t nblocks,
		     const uint64_t *pblks, struct extkit_inode *in,
		     uint64_t *total)
{
	struct extkit_mapbuild mb = {
		.extents = p->extents, .nblocks = nblocks, .pblks = pblks,
	};
	uint64_t *meta = NULL, i, start, got, data = 0;
	int rc = extkit_mapbuild_plan(p->fs, &mb);

	if (rc)
		return rc;
	meta = calloc(mb.nmeta + 1, sizeof(*meta));
	mb.bufs = calloc(mb.nmeta + 1, p->fs->g.block_size);
	rc = meta && mb.bufs ? 0 : -ENOMEM;
	for (i = 0; !rc && i < mb.nmeta; i += got) {
		rc = take_blocks(p, p->blk_goal, mb.nmeta - i, &start, &got);
		for (uint64_t k = 0; !rc && k < got; k++)
			meta[i + k] = start + k;
	}
	if (!rc) {
		mb.meta = meta;
		extkit_mapbuild_fill(p->fs, &mb, in);
		rc = extkit_mapbuild_write(p->fs, ino, in->generation, &mb);
	}
	for (i = 0; i < nblocks; i++)
		data += pblks[i] != 0;
	*total = data + mb.nmeta;
	free(meta);
	free(mb.bufs);
	return rc;
}

static int give_back(struct pop *p, struct pop_file *f)
{
	int rc = 0;

	if (f->run_left)
		rc = extkit_fsbuild_release(&p->fb, f->run_next, f->run_left);
	if (!rc && f->run_next + f->run_left == p->blk_goal)
		p->blk_goal = f->run_next;
	f->run_left = 0;
	return rc;
}

int pop_file_end(struct pop *p, struct pop_file *f, uint32_t ino,
		 struct extkit_inode *in)
{
	uint64_t total;
	int rc = give_back(p, f);

	if (!rc)
		rc = build_map(p, ino, f->nblocks, f->pblks, in, &total);
	if (rc)
		return rc;
	in->size = f->size;
	extkit_inode_set_fs_blocks(p->fs, in, total);
	return 0;
}

void pop_file_free(struct pop_file *f)
{
	free(f->pblks);
	f->pblks = NULL;
}

/* ---- other kinds ---- */

int pop_symlink(struct pop *p, uint32_t ino, const struct pop_meta *m,
		const char *target, size_t len)
{
	struct extkit_inode in = { 0 };
	struct pop_file f;
	int rc;

	if (len < sizeof(in.block)) {
		/* fast: the bytes in i_block */
		memcpy(in.block, target, len);
		in.size = len;
		return pop_write_inode(p, ino, m, &in, 1);
	}
	if (len >= p->fs->g.block_size)
		return -ENAMETOOLONG;
	rc = pop_file_begin(p, &f, len);
	if (!rc)
		rc = pop_file_write(p, &f, 0, target, len);
	if (!rc)
		rc = pop_file_end(p, &f, ino, &in);
	pop_file_free(&f);
	return rc ? rc : pop_write_inode(p, ino, m, &in, 1);
}

int pop_special(struct pop *p, uint32_t ino, const struct pop_meta *m)
{
	struct extkit_inode in = { 0 };
	uint32_t ma = m->rdev_major, mi = m->rdev_minor;

	if (S_ISCHR(m->mode) || S_ISBLK(m->mode)) {
		if (ma < 256 && mi < 256)
			in.block[0] = (ma << 8) | mi;	/* old encoding */
		else
			in.block[1] = (mi & 0xff) | (ma << 8) |
				      ((mi & ~0xffu) << 12);
	}
	return pop_write_inode(p, ino, m, &in, 1);
}

/* ---- directories ---- */

static uint16_t dir_links(const struct extkit_dirbuild *db)
{
	uint64_t n = 2;

	for (uint64_t i = 0; i < db->n; i++)
		n += db->e[i].ftype == EXT2_FT_DIR;
	/* past the 16-bit count, dir_nlink's 1 means "many" */
	return n < EXT2_LINK_MAX ? (uint16_t)n : 1;
}

int pop_dir_finish(struct pop *p, uint32_t ino, struct extkit_dirbuild *db)
{
	struct extkit_inode in;
	uint64_t *pblks, i, start, got, total;
	int rc = extkit_dirbuild_layout(db);

	if (rc)
		return rc;
	pblks = calloc(db->nout, sizeof(*pblks));
	if (!pblks)
		return -ENOMEM;
	rc = pop_inode_get(p, ino, p->raw);
	if (!rc)
		extkit_inode_decode(p->raw, p->fs->g.inode_size, &in);
	for (i = 0; !rc && i < db->nout; i += got) {
		rc = take_blocks(p, i ? p->blk_goal : goal_for(p, ino),
				 db->nout - i, &start, &got);
		for (uint64_t k = 0; !rc && k < got; k++)
			pblks[i + k] = start + k;
	}
	for (i = 0; !rc && i < db->nout; i++)
		if (extkit_has_metadata_csum(&p->fs->sb))
			extkit_dirblock_csum_set(p->fs, ino, in.generation,
						 db->out + i * db->bs);
	for (i = 0; !rc && i < db->nout; i += got) {
		/* runs of contiguous blocks, one write each */
		for (got = 1; i + got < db->nout && got < 4096 &&
		     pblks[i + got] == pblks[i] + got; got++)
			;
		rc = extkit_io_write_blocks(p->fs->io, pblks[i], (uint32_t)got,
					    db->out + i * db->bs);
	}
	if (!rc)
		rc = build_map(p, ino, db->nout, pblks, &in, &total);
	free(pblks);
	if (rc)
		return rc;
	in.size = db->nout * db->bs;
	in.links_count = dir_links(db);
	if (db->indexed)
		in.flags |= EXT2_INDEX_FL;
	extkit_inode_set_fs_blocks(p->fs, &in, total + (in.file_acl ? 1 : 0));
	extkit_inode_encode(&in, p->fs->g.inode_size, p->raw);
	return pop_inode_put(p, ino, p->raw, 0);
}

int pop_claim_lpf(struct pop *p)
{
	int rc = extkit_fsbuild_release(&p->fb, p->lpf_block, p->lpf_blocks);

	p->lpf_blocks = 0;
	return rc;
}

/* ---- hard links ---- */

int pop_link_add(struct pop *p, uint32_t ino)
{
	uint32_t n = 1;

	pop_map_get(&p->links, ino, 0, &n);
	return pop_map_put(&p->links, ino, 0, n + 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* In inode order: most land in the inode table window or the block
 * beside it, none is read twice. */
int pop_links_write(struct pop *p)
{
	uint64_t *v = calloc(p->links.n + 1, sizeof(*v)), n = 0, i;
	int rc = v ? 0 : -ENOMEM;

	for (uint64_t s = 0; !rc && s < p->links.cap; s++) {
		if (!p->links.val[s])
			continue;
		if (p->links.val[s] >= EXT2_LINK_MAX)
			rc = -EMLINK;
		v[n++] = p->links.k1[s] << 32 | p->links.val[s];
	}
	if (!rc && n)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; !rc && i < n; i++) {
		uint32_t ino = (uint32_t)(v[i] >> 32);

		rc = pop_inode_get(p, ino, p->raw);
		if (rc)
			break;
		put_le16(p->raw + offsetof(struct ext2_inode, i_links_count),
			 (uint16_t)v[i]);
		rc = pop_inode_put(p, ino, p->raw, 0);
	}
	free(v);
	return rc;
}

/* ---- messages ---- */

void pop_progress_to(struct pop *p, uint64_t done)
{
	uint64_t before = p->done, pct;

	p->done = done;
	if (!p->bar || !p->total)
		return;
	pct = done * 100 / p->total;
	if (p->bar_shown && pct == before * 100 / p->total)
		return;
	fprintf(stderr, "\rCopying files: [%-50.*s] %3u%%",
		(int)(pct > 100 ? 50 : pct / 2),
		"##################################################",
		(unsigned int)(pct > 100 ? 100 : pct));
	p->bar_shown = 1;
}

void pop_progress(struct pop *p)
{
	pop_progress_to(p, p->done + 1);
}

int pop_path_push(struct pop *p, const char *name, size_t len)
{
	if (p->plen + 1 + len + 1 > PATH_MAX * 2)
		return -ENAMETOOLONG;
	if (p->plen && p->path[p->plen - 1] != '/')
		p->path[p->plen++] = '/';
	memcpy(p->path + p->plen, name, len);
	p->plen += len;
	p->path[p->plen] = 0;
	return 0;
}

const char *pop_reason(int rc)
{
	if (rc == -ENOSPC)
		return "no space left: the tree is bigger than the filesystem";
	return extkit_strerror(rc);
}

void pop_error(const struct pop *p, const char *why)
{
	if (p->bar_shown)
		fputc('\n', stderr);
	cli_error("%s: %s", p->path[0] ? p->path : "(source)", why);
}
