// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d without SIZE: what the source needs, as fitdir.c and fitarc.c
 * measure it (fit.h): for every block size, the blocks a regular file's
 * data takes without its holes (blocks of zeros, as the copy leaves
 * them), with its extent or indirect blocks, and on bigalloc the
 * clusters its data touches; the attribute blocks each inode size
 * leaves (the placement of lib/xattrbuild.c, with ea_inode and without);
 * the labels of --file-contexts; directory blocks and slow symbolic
 * links. fit.c's search weighs them against each trial's layout.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ondisk.h"
#include "xattrbuild.h"

#include "fit.h"
#include "mkfs.h"
#include "selabel.h"

#define FIT_EXT_MAX	32768u		/* blocks of one initialized extent */

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* ---- regular files ---- */

/*
 * Indirect blocks of a block-mapped file: for each level, the blocks
 * covering its data blocks, counted once (runs come in increasing
 * order). last[k]: the last block counted of kind k, + 1.
 */
static uint64_t ind_range(uint64_t *last, int kind, uint64_t lo, uint64_t hi)
{
	uint64_t from = lo + 1 > last[kind] ? lo + 1 : last[kind];

	if (hi + 1 < from)
		return 0;
	last[kind] = hi + 2;
	return hi + 1 - from + 1;
}

static uint64_t ind_blocks(uint64_t *last, uint64_t b0, uint64_t b1,
			   uint64_t bs)
{
	uint64_t p = bs / 4, n = 0, d = EXT2_NDIR_BLOCKS;

	if (b1 <= d)
		return 0;
	b0 = b0 > d ? b0 - d : 0;
	b1 -= d;
	if (b0 < p)				/* single */
		n += ind_range(last, 0, 0, 0);
	if (b1 > p) {				/* double */
		uint64_t lo = b0 > p ? b0 - p : 0;
		uint64_t hi = b1 - p < p * p ? b1 - p : p * p;

		if (lo < hi)
			n += ind_range(last, 1, 0, 0) +
			     ind_range(last, 2, lo / p, (hi - 1) / p);
	}
	if (b1 > p + p * p) {			/* triple */
		uint64_t lo = b0 > p + p * p ? b0 - p - p * p : 0;
		uint64_t hi = b1 - p - p * p;

		n += ind_range(last, 3, 0, 0) +
		     ind_range(last, 4, lo / (p * p), (hi - 1) / (p * p)) +
		     ind_range(last, 5, lo / p, (hi - 1) / p);
	}
	return n;
}

/* Extent tree blocks for n extents (the inode holds four). */
static uint64_t ext_blocks(uint64_t n, uint64_t bs)
{
	uint64_t per = (bs - 12) / 12, leaves;

	if (n <= 4)
		return 0;
	leaves = div_up(n, per);
	return leaves + (leaves > 4 ? div_up(leaves, per) : 0);
}

void fit_file_begin(struct fit_file *f)
{
	memset(f, 0, sizeof(*f));
}

static void run_close(struct fit_run *r, uint64_t bs)
{
	uint64_t n = r->end - r->start;

	if (!r->open)
		return;
	r->nb += n;
	r->ni += ind_blocks(r->last, r->start, r->end, bs);
	/* a run breaks at its longest, and a long one where it crosses
	 * groups; a short one crosses at most one group boundary, counted
	 * for the whole filesystem (holds) */
	r->ne += div_up(n, FIT_EXT_MAX) +
		 (n >= 8 * bs ? n / (8 * bs) + 1 : 0);
	r->open = 0;
}

/* bigalloc: the clusters of every size that KiBs [k0, k1) touch (a
 * cluster holds data where any of its blocks does). */
static void count_clusters(struct fit_file *f, uint64_t k0, uint64_t k1)
{
	for (int m = 0; m < FIT_NCS; m++) {
		uint64_t c0 = k0 >> m, c1 = div_up(k1, 1ull << m);

		if (c0 < f->cl_end[m])
			c0 = f->cl_end[m];
		if (c1 > c0) {
			f->cl[m] += c1 - c0;
			f->cl_end[m] = c1;
		}
	}
}

void fit_file_blocks(struct fit_file *f, int i, uint64_t b0, uint64_t b1)
{
	struct fit_run *r = &f->r[i];

	if (i == 0 && b0 < b1)
		count_clusters(f, b0, b1);

	if (b0 < r->end)
		b0 = r->end;		/* counted with the run before */
	if (b0 >= b1)
		return;
	if (!r->open || r->end != b0) {
		run_close(r, 1024u << i);
		r->start = b0;
		r->open = 1;
	}
	r->end = b1;
}

void fit_file_bytes(struct fit_file *f, uint64_t data, uint64_t hole)
{
	for (int i = 0; i < FIT_NBS; i++) {
		uint64_t bs = 1024u << i;

		fit_file_blocks(f, i, data / bs, div_up(hole, bs));
	}
}

void fit_file_window(struct fit_file *f, uint64_t ws, uint64_t we,
		     const uint8_t *nz)
{
	uint64_t base = ws / FIT_CHUNK;

	for (int i = 0; we > ws && i < FIT_NBS; i++) {
		uint64_t bs = 1024u << i, per = bs / FIT_CHUNK;
		uint64_t b = ws / bs, last = (we - 1) / bs, run = b;

		for (; b <= last; b++) {
			int hole = b * bs >= ws && (b + 1) * bs <= we;

			for (uint64_t k = 0; hole && k < per; k++)
				hole = !nz[b * per + k - base];
			if (!hole)
				continue;
			fit_file_blocks(f, i, run, b);
			run = b + 1;
		}
		fit_file_blocks(f, i, run, last + 1);
	}
}

static int all_zero(const uint8_t *b, size_t len)
{
	return !len || (!b[0] && !memcmp(b, b + 1, len - 1));
}

void fit_scan(uint8_t *nz, uint64_t base, uint64_t off, const uint8_t *buf,
	      size_t len)
{
	while (len) {
		uint64_t ch = off / FIT_CHUNK;
		size_t n = FIT_CHUNK - off % FIT_CHUNK;

		n = n < len ? n : len;
		if (!nz[ch - base] && !all_zero(buf, n))
			nz[ch - base] = 1;
		off += n;
		buf += n;
		len -= n;
	}
}

void fit_file_end(struct fit_need *nd, struct fit_file *f, uint64_t size)
{
	for (int i = 0; i < FIT_NBS; i++) {
		struct fit_run *r = &f->r[i];
		uint64_t bs = 1024u << i;

		run_close(r, bs);
		nd->ext[i] += r->nb + ext_blocks(r->ne, bs);
		nd->ext_meta[i] += ext_blocks(r->ne, bs);
		nd->ind[i] += r->nb + r->ni;
	}
	for (int m = 0; m < FIT_NCS; m++)
		nd->data_cl[m] += f->cl[m];
	if (size > nd->max_size)
		nd->max_size = size;
}

/* ---- attributes (the placement of lib/xattrbuild.c) ---- */

static int cmp_attr(const void *a, const void *b)
{
	const struct fit_attr *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return memcmp(x->name, y->name, x->name_len);
}

static uint64_t attr_bytes(const struct fit_attr *a)
{
	return ((16u + a->name_len + 3) & ~3u) + ((a->size + 3ull) & ~3ull);
}

/*
 * For inodes of 128 << c bytes and blocks of 1024 << i: the in-inode
 * area is filled first, in the sorted order, each attribute that still
 * fits; the others go to one block, which holds a 32-byte header and a
 * 4-byte end. With ea_inode, a value larger than the block less 56 bytes,
 * or one that fits neither place, goes to an EA inode of its own (the
 * rule of lib/xattrbuild.c), its entry staying without the value.
 */
static void place_attrs(struct fit_need *nd, const struct fit_attr *a,
			size_t n, int c, int i, int eai)
{
	uint64_t isize = 128u << c, body = 128 + FIT_EXTRA_ISIZE;
	uint64_t in_end = c ? isize - body - 4 : 0, in_use = 0;
	uint64_t bs = 1024u << i, blk = 32 + 4;
	int any = 0;

	for (size_t k = 0; k < n; k++) {
		uint64_t b = attr_bytes(&a[k]);
		int own = eai && a[k].size > bs - 56;

		if (!own && c && in_use + b + 4 <= in_end) {
			in_use += b;
			continue;
		}
		if (!own && eai && blk + b > bs)
			own = 1;
		if (own) {	/* the entry stays, without its value */
			nd->eai[c][i] += div_up(a[k].size, bs);
			nd->eai_inodes[c][i]++;
			b = (16u + a[k].name_len + 3) & ~3u;
			if (c && in_use + b + 4 <= in_end) {
				in_use += b;
				continue;
			}
		}
		blk += b;
		any = 1;
	}
	if (!any)
		return;
	nd->ea[eai][c][i]++;
	if (blk > bs)
		nd->ea_bad[eai][c][i] = 1;
}

void fit_add_attrs(struct fit_need *nd, struct fit_attr *a, size_t n)
{
	if (!n)
		return;
	qsort(a, n, sizeof(*a), cmp_attr);
	for (int c = 0; c < FIT_NIS; c++)
		for (int i = 0; i < FIT_NBS; i++) {
			place_attrs(nd, a, n, c, i, 0);
			place_attrs(nd, a, n, c, i, 1);
		}
}

int fit_label(struct fit_need *nd, uint32_t mode, struct fit_attr *a,
	      size_t *n, char **ctx)
{
	const struct mkfs_opts *o = nd->o;
	const char *root = o->selinux_root ? o->selinux_root : "", *suffix;
	const char *r = nd->path;
	size_t rl = strlen(root);
	char buf[8192 + 256];
	uint8_t index;
	int rc;

	*ctx = NULL;
	if (!o->selabel ||
	    extkit_xattr_name_split("security.selinux", &index, &suffix))
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (a[i].index == index && a[i].name_len == 7 &&
		    !memcmp(a[i].name, suffix, 7)) {
			if (!o->relabel)
				return 0;	/* the source's, kept */
			a[i] = a[--*n];
			break;
		}
	while (*r == '/')
		r++;
	while (rl && root[rl - 1] == '/')
		rl--;
	if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)rl, root, r) >=
	    sizeof(buf))
		return -ENAMETOOLONG;
	rc = mkfs_selabel_lookup(o->selabel, buf, mode, ctx);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	a[*n] = (struct fit_attr){ .index = index, .name_len = 7,
				   .name = suffix,
				   .size = (uint32_t)strlen(*ctx) + 1 };
	(*n)++;
	return 0;
}

void fit_label_free(struct fit_need *nd, char *ctx)
{
	if (ctx)
		mkfs_selabel_free(nd->o->selabel, ctx);
}

/* ---- directories and links ---- */

uint64_t fit_name_bytes(size_t len)
{
	return 8 + ((len + 3) & ~(size_t)3);
}

void fit_add_dir(struct fit_need *nd, uint64_t bytes)
{
	nd->ndirs++;
	for (int i = 0; i < FIT_NBS; i++) {
		uint64_t bs = 1024u << i, use = bs - 12, leaves;

		if (bytes <= use) {
			nd->dir[i]++;
			continue;
		}
		/* htree: leaves split by hash are 3/4 full at worst */
		leaves = div_up(bytes * 4, use * 3) + 1;
		nd->dir[i] += 1 + leaves +
			      (leaves > (bs - 32) / 8 ?
			       div_up(leaves, (bs - 16) / 8) : 0);
	}
}

void fit_add_symlink(struct fit_need *nd, uint64_t len)
{
	if (len > nd->max_link)
		nd->max_link = len;
	if (len < 60)		/* fast: in i_block */
		return;
	nd->nslow++;
	for (int i = 0; i < FIT_NBS; i++)
		nd->ext[i]++, nd->ind[i]++;
}
