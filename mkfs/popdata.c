// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: blocks taken near the last ones, regular file data gathered
 * into runs of contiguous blocks (blocks of zeros stay holes), and the
 * block map of a file or directory (extents or indirect blocks). On
 * bigalloc everything takes whole clusters: a file's logical cluster
 * gets a physical one, its blocks at the same offsets in both; a tree
 * block or an attribute block takes a cluster of its own; i_blocks
 * counts the clusters whole (as e2fsck and the kernel count them).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "mapbuild.h"

#include "populate.h"

int pop_take_blocks(struct pop *p, uint64_t goal, uint64_t want,
		    uint64_t *start, uint64_t *got)
{
	int rc = extkit_fsbuild_blocks(&p->fb, goal, want, start, got);

	if (!rc)
		p->blk_goal = *start + *got;
	return rc;
}

int pop_take_clusters(struct pop *p, uint64_t goal, uint64_t want,
		      uint64_t *start, uint64_t *got)
{
	int rc = extkit_fsbuild_clusters(&p->fb, goal, want, start, got);

	if (!rc)
		p->blk_goal = *start + (*got << p->fs->g.cluster_bits);
	return rc;
}

int pop_take_map(struct pop *p, uint64_t goal, uint64_t n, uint64_t *pblks,
		 int spread)
{
	uint32_t bits = p->fs->g.cluster_bits, ratio = 1u << bits;
	uint64_t i = 0, start, got, want;
	int rc = 0;

	while (!rc && i < n) {
		/* the clusters (blocks without bigalloc) still wanted */
		want = spread ? n - i : ((n - i) + ratio - 1) >> bits;
		rc = pop_take_clusters(p, i ? p->blk_goal : goal, want, &start,
				       &got);
		for (uint64_t k = 0; !rc && k < (got << bits) && i < n; i++) {
			pblks[i] = start + k;
			k += spread ? ratio : 1;
		}
	}
	return rc;
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
	if (pop_direct_now(p)) {	/* the writer thread takes the buffer */
		rc = pop_writer_queue(p->wr, p->buf, 0, p->out_n * bs,
				      p->out_first * bs);
		p->buf = pop_writer_buf(p->wr);
		p->out_n = 0;
		return rc;
	}
	rc = extkit_io_write_bytes(p->fs->io, p->out_first * bs, p->buf,
				   p->out_n * bs);
	p->cached += p->out_n * bs;
	/* file data is not written again: out to the disk from now on,
	 * rather than all of it in the fsync at the end */
	if (!rc)
		extkit_io_start_writeback(p->fs->io, p->out_first * bs,
					  p->out_n * bs);
	p->out_n = 0;
	return rc;
}

/*
 * bigalloc: logical block lb in the physical cluster of its logical
 * cluster (the same offset in both, as the kernel and e2fsck want it),
 * a new one from the run of clusters taken last when the file has none
 * there yet (data comes in increasing offsets: a logical cluster left
 * is never met again).
 */
static int map_block_cl(struct pop *p, struct pop_file *f, uint64_t lb)
{
	uint32_t bits = p->fs->g.cluster_bits;
	uint64_t mask = (1ull << bits) - 1, lc = lb >> bits;
	int rc;

	if (!f->cl_pb || f->cl_lc != lc) {
		if (!f->run_left) {
			rc = pop_take_clusters(p, p->blk_goal,
					       ((f->nblocks + mask) >> bits) -
					       lc, &f->run_next, &f->run_left);
			if (rc)
				return rc;
		}
		f->cl_lc = lc;
		f->cl_pb = f->run_next;
		f->run_next += mask + 1;
		f->run_left--;
	}
	f->pblks[lb] = f->cl_pb + (lb & mask);
	return 0;
}

/* Maps logical block lb to a new block, from the run taken last. */
static int map_block(struct pop *p, struct pop_file *f, uint64_t lb)
{
	int rc;

	if (p->fs->g.cluster_bits)
		return map_block_cl(p, f, lb);
	if (!f->run_left) {
		rc = pop_take_blocks(p, p->blk_goal, f->nblocks - lb,
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
		uint8_t *dst;
		int inside;

		if (!in && n == bs && !f->pblks[lb] && !f->no_holes &&
		    all_zero(src, bs)) {
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
			p->out_n++;
		} else if (!inside) {
			rc = pop_data_flush(p);
			if (rc)
				return rc;
			p->out_first = pb;
			p->out_n = 1;
		}
		dst = p->buf + (pb - p->out_first) * bs;
		if (!inside) {	/* a new block: zeros around the data */
			memset(dst, 0, in);
			memset(dst + in + n, 0, bs - in - n);
		}
		memcpy(dst + in, src, n);
		src += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* The blocks the data of a map takes: those mapped, or on bigalloc the
 * whole clusters holding them (one physical cluster a logical one). */
static uint64_t data_blocks(const struct extkit_fs *fs, uint64_t nblocks,
			    const uint64_t *pblks)
{
	uint32_t bits = fs->g.cluster_bits;
	uint64_t n = 0, last = UINT64_MAX;

	for (uint64_t i = 0; i < nblocks; i++) {
		if (!pblks[i] || (bits && i >> bits == last))
			continue;
		last = i >> bits;
		n++;
	}
	return n << bits;
}

/* The map of the blocks written (extents or indirect blocks). */
int pop_build_map(struct pop *p, uint32_t ino, uint64_t nblocks,
		  const uint64_t *pblks, struct extkit_inode *in,
		  uint64_t *total)
{
	struct extkit_mapbuild mb = {
		.extents = p->extents, .nblocks = nblocks, .pblks = pblks,
	};
	uint64_t *meta = NULL;
	int rc = extkit_mapbuild_plan(p->fs, &mb);

	if (rc)
		return rc;
	/* most files need no map block: nothing to allocate then (not a
	 * zeroed 4 KiB block a file) */
	if (mb.nmeta) {
		meta = calloc(mb.nmeta, sizeof(*meta));
		mb.bufs = calloc(mb.nmeta, p->fs->g.block_size);
		rc = meta && mb.bufs ? 0 : -ENOMEM;
	}
	/* a tree block a cluster on bigalloc */
	if (!rc && mb.nmeta)
		rc = pop_take_map(p, p->blk_goal, mb.nmeta, meta, 1);
	if (!rc) {
		mb.meta = meta;
		extkit_mapbuild_fill(p->fs, &mb, in);
		rc = extkit_mapbuild_write(p->fs, ino, in->generation, &mb);
	}
	*total = data_blocks(p->fs, nblocks, pblks) +
		 (mb.nmeta << p->fs->g.cluster_bits);
	free(meta);
	free(mb.bufs);
	return rc;
}

static int give_back(struct pop *p, struct pop_file *f)
{
	uint32_t bits = p->fs->g.cluster_bits;
	int rc = 0;

	/* the run counts clusters on bigalloc */
	if (f->run_left)
		rc = extkit_fsbuild_release_clusters(&p->fb, f->run_next,
						     f->run_left);
	if (!rc && f->run_next + (f->run_left << bits) == p->blk_goal)
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
		rc = pop_build_map(p, ino, f->nblocks, f->pblks, in, &total);
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
