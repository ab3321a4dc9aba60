// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Logical to physical block mapping for block-mapped (ext2/ext3) inodes:
 * i_block[0..11] direct, [12] single, [13] double and [14] triple indirect.
 * Extent-mapped inodes are handed to extent.c. The indirect depth is fixed
 * at three levels, and every block number is range-checked before use; a
 * walk also stops once it has met more block references than the
 * filesystem has blocks, so a map whose blocks point at each other ends in
 * an error instead of a near-endless walk.
 * Reference: Documentation/filesystems/ext4/blockmap.rst.
 */
#include "config.h"

#include <stdlib.h>

#include "bmap.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "walk.h"

#define IND_LEVELS	3	/* single, double, triple indirect */

_Static_assert(EXTKIT_WALK_META == EXTKIT_BLOCK_META &&
	       EXTKIT_WALK_UNWRITTEN == EXTKIT_BLOCK_UNWRITTEN,
	       "the walker's flags are the block walk's");

/*
 * A run of contiguous data blocks not yet reported: the read-only walk
 * and the truncation pass indirect data blocks on in runs, as extents
 * come. stop keeps the caller's positive stop value.
 */
struct runs {
	extkit_block_fn fn;
	void *arg;
	int stop;
	uint64_t lblk;
	uint64_t pblk;
	uint32_t len;
};

/* Calls the caller's fn: a positive stop value aborts the walk. */
static int runs_call(struct extkit_fs *fs, struct runs *r, uint64_t lblk,
		     uint64_t pblk, uint32_t count, int flags)
{
	int rc = r->fn(fs, lblk, pblk, count, flags, r->arg);

	if (rc > 0) {
		r->stop = rc;
		return EXTKIT_WALK_ABORT;
	}
	return rc;
}

static int run_flush(struct extkit_fs *fs, struct runs *r)
{
	uint32_t len = r->len;

	if (!len)
		return 0;
	r->len = 0;
	return runs_call(fs, r, r->lblk, r->pblk, len, 0);
}

static int run_add(struct extkit_fs *fs, struct runs *r, uint64_t lblk,
		   uint64_t pblk)
{
	int rc;

	if (r->len && r->len < UINT32_MAX && lblk == r->lblk + r->len &&
	    pblk == r->pblk + r->len) {
		r->len++;
		return 0;
	}
	rc = run_flush(fs, r);
	if (rc)
		return rc;
	r->lblk = lblk;
	r->pblk = pblk;
	r->len = 1;
	return 0;
}

/* What a bad entry means to a walk that cannot go past it. */
static int bad_error(const struct extkit_walk_ent *e)
{
	if (e->bad == EXTKIT_WALK_BAD_READ)
		return e->err;
	if (e->bad == EXTKIT_WALK_BAD_DEPTH)
		return -EXTKIT_ELOOP;
	return -EFSCORRUPTED;
}

/* Ends a walk: the pending run goes out first, then the walk's result
 * (the caller's stop value when it stopped the walk). */
static int runs_end(struct extkit_fs *fs, struct runs *r, int rc)
{
	int frc = 0;

	if (rc <= 0 && !r->stop)
		frc = run_flush(fs, r);
	if (r->stop)
		return r->stop;
	if (frc < 0)
		return frc;
	return rc < 0 ? rc : 0;
}

/* The read-only walk: every block reported, the first bad one ends it
 * (the good ones before it reported). */
static int block_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		    void *arg)
{
	struct runs *r = arg;
	int rc;

	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad) {
		rc = run_flush(fs, r);
		/* An indirect block is reported before it is read. */
		if (!rc && e->bad == EXTKIT_WALK_BAD_READ &&
		    !(e->flags & EXTKIT_WALK_EXTENT))
			rc = runs_call(fs, r, e->lblk, e->pblk, 1,
				       EXTKIT_BLOCK_META);
		return rc ? rc : bad_error(e);
	}
	if (!(e->flags & (EXTKIT_WALK_META | EXTKIT_WALK_EXTENT)))
		return run_add(fs, r, e->lblk, e->pblk);
	rc = run_flush(fs, r);
	if (rc)
		return rc;
	return runs_call(fs, r, e->lblk, e->pblk, e->len,
			 e->flags & (EXTKIT_BLOCK_META |
				     EXTKIT_BLOCK_UNWRITTEN));
}

int extkit_block_walk(struct extkit_fs *fs, const struct extkit_inode *inode,
		      extkit_block_fn fn, void *arg)
{
	struct extkit_inode copy = *inode;
	struct runs r = { .fn = fn, .arg = arg };
	struct extkit_walk wk = { .flags = EXTKIT_WALK_DRY, .fn = block_fn,
				  .arg = &r };

	if (!extkit_inode_has_block_map(inode))
		return 0;
	return runs_end(fs, &r, extkit_walk(fs, &copy, &wk));
}

/* ---- truncation ---- */

struct trunc {
	struct runs r;
	uint64_t keep;		/* logical blocks kept */
};

/*
 * Indirect map: data past keep goes in runs; an indirect block wholly
 * past keep is reported when entered (before its data), one cut inside
 * when it is left empty.
 */
static int trunc_ind_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
			void *arg)
{
	struct trunc *t = arg;
	int rc;

	if (e->bad) {
		rc = run_flush(fs, &t->r);
		return rc ? rc : bad_error(e);
	}
	if (!(e->flags & EXTKIT_WALK_META)) {
		rc = run_add(fs, &t->r, e->lblk, e->pblk);
		return rc ? rc : EXTKIT_WALK_DROP;
	}
	if (e->flags & EXTKIT_WALK_LEAVE) {
		if (e->lblk >= t->keep)
			return EXTKIT_WALK_DROP;
		if (e->entries)
			return 0;
	} else if (e->lblk < t->keep) {
		return 0;
	}
	rc = run_flush(fs, &t->r);
	if (!rc)
		rc = runs_call(fs, &t->r, e->lblk, e->pblk, 1,
			       EXTKIT_BLOCK_META);
	if (rc)
		return rc;
	return e->flags & EXTKIT_WALK_LEAVE ? EXTKIT_WALK_DROP : 0;
}

/*
 * Extent tree, last entry first: extents past keep go, the one across
 * keep is shortened, a tree block left empty goes after its entries.
 * Order is not checked here (pass 1 does): only what is freed must lie
 * inside the filesystem.
 */
static int trunc_ext_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
			void *arg)
{
	struct trunc *t = arg;
	int unwritten = e->flags & EXTKIT_BLOCK_UNWRITTEN;
	uint64_t cut;
	int rc;

	if (e->bad && e->bad != EXTKIT_WALK_BAD_ORDER &&
	    e->bad != EXTKIT_WALK_BAD_PAST)
		return bad_error(e);
	if (e->flags & EXTKIT_WALK_META) {
		if (!(e->flags & EXTKIT_WALK_LEAVE) || e->entries)
			return 0;
		rc = runs_call(fs, &t->r, e->lblk, e->pblk, 1,
			       EXTKIT_BLOCK_META);
		return rc ? rc : EXTKIT_WALK_DROP;
	}
	if (e->lblk >= t->keep) {
		rc = runs_call(fs, &t->r, e->lblk, e->pblk, e->len, unwritten);
		return rc ? rc : EXTKIT_WALK_DROP;
	}
	cut = e->lblk + e->len - t->keep;
	rc = runs_call(fs, &t->r, t->keep, e->pblk + e->len - cut,
		       (uint32_t)cut, unwritten);
	e->len -= (uint32_t)cut;
	return rc ? rc : EXTKIT_WALK_CHANGED;
}

int extkit_bmap_truncate(struct extkit_fs *fs, uint32_t ino,
			 struct extkit_inode *inode, uint64_t keep, int dry,
			 extkit_block_fn fn, void *arg)
{
	struct trunc t = { .r = { .fn = fn, .arg = arg }, .keep = keep };
	struct extkit_walk wk = { .ino = ino, .from = keep, .arg = &t,
				  .fn = trunc_ind_fn };
	int ext = inode->flags & EXT4_EXTENTS_FL;

	if (!extkit_inode_has_block_map(inode))
		return 0;
	if (dry)
		wk.flags |= EXTKIT_WALK_DRY;
	if (ext) {
		wk.flags |= EXTKIT_WALK_REVERSE;
		wk.fn = trunc_ext_fn;
	}
	return runs_end(fs, &t.r, extkit_walk(fs, inode, &wk));
}

/*
 * Follows the path of lblk through the indirect blocks: at most three
 * reads into one buffer. Logical blocks past the triple indirect range
 * are holes.
 */
static int ind_lookup(struct extkit_fs *fs, const struct extkit_inode *inode,
		      uint64_t lblk, uint64_t *pblk)
{
	uint64_t apb = fs->g.addr_per_block;
	uint64_t span = apb;
	uint8_t *buf = NULL;
	uint64_t blk;
	int level = 1;
	int rc = 0;

	if (lblk < EXT2_NDIR_BLOCKS) {
		blk = inode->block[lblk];
		goto found;
	}
	lblk -= EXT2_NDIR_BLOCKS;
	while (lblk >= span) {
		lblk -= span;
		if (++level > IND_LEVELS)
			return 0;
		span *= apb;
	}
	blk = inode->block[EXT2_IND_BLOCK + level - 1];
	buf = malloc(fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	for (; level > 0 && blk; level--) {
		if (!extkit_fs_valid_block(fs, blk)) {
			rc = -EFSCORRUPTED;
			goto out;
		}
		rc = extkit_fs_read_block(fs, blk, buf);
		if (rc)
			goto out;
		span /= apb;
		blk = get_le32(buf + 4 * (lblk / span));
		lblk %= span;
	}
found:
	if (blk && !extkit_fs_valid_block(fs, blk))
		rc = -EFSCORRUPTED;
	else
		*pblk = blk;
out:
	free(buf);
	return rc;
}

struct lookup_arg {
	uint64_t lblk;
	uint64_t *pblk;
};

/* Extents come in logical order: stop at the first one past lblk. */
static int lookup_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		     uint32_t count, int flags, void *arg)
{
	struct lookup_arg *la = arg;

	if (flags & EXTKIT_BLOCK_META)
		return 0;
	if (lblk > la->lblk)
		return 1;
	if (la->lblk - lblk >= count)
		return 0;
	/* An unwritten block reads as zeros: a hole, as FIBMAP says. */
	if (!(flags & EXTKIT_BLOCK_UNWRITTEN))
		*la->pblk = pblk + (la->lblk - lblk);
	return 1;
}

int extkit_bmap(struct extkit_fs *fs, const struct extkit_inode *inode,
		uint64_t lblk, uint64_t *pblk)
{
	struct lookup_arg la = { .lblk = lblk, .pblk = pblk };
	int rc;

	*pblk = 0;
	if (!extkit_inode_has_block_map(inode))
		return 0;
	if (!(inode->flags & EXT4_EXTENTS_FL))
		return ind_lookup(fs, inode, lblk, pblk);
	rc = extkit_block_walk(fs, inode, lookup_fn, &la);
	if (rc < 0) {
		*pblk = 0;
		return rc;
	}
	return 0;
}

struct fill_arg {
	uint64_t nblocks;
	uint64_t *pblks;
	int unwritten;		/* unwritten extents are mapped too */
};

static int fill_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		   uint32_t count, int flags, void *arg)
{
	struct fill_arg *fa = arg;
	uint32_t i;

	/* Blocks past nblocks are ignored but the walk goes on: a corrupt
	 * map further on must fail, not turn into silent holes. */
	if ((flags & EXTKIT_BLOCK_META) || lblk >= fa->nblocks)
		return 0;
	if ((flags & EXTKIT_BLOCK_UNWRITTEN) && !fa->unwritten)
		return 0;
	for (i = 0; i < count && lblk + i < fa->nblocks; i++)
		fa->pblks[lblk + i] = pblk + i;
	return 0;
}

static int bmap_fill(struct extkit_fs *fs, const struct extkit_inode *inode,
		     uint64_t nblocks, uint64_t *pblks, int unwritten)
{
	struct fill_arg fa = { .nblocks = nblocks, .pblks = pblks,
			       .unwritten = unwritten };
	uint64_t i;
	int rc;

	for (i = 0; i < nblocks; i++)
		pblks[i] = 0;
	if (!nblocks)
		return 0;
	rc = extkit_block_walk(fs, inode, fill_fn, &fa);
	return rc < 0 ? rc : 0;
}

int extkit_bmap_all(struct extkit_fs *fs, const struct extkit_inode *inode,
		    uint64_t nblocks, uint64_t *pblks)
{
	return bmap_fill(fs, inode, nblocks, pblks, 0);
}

int extkit_bmap_all_raw(struct extkit_fs *fs,
			const struct extkit_inode *inode, uint64_t nblocks,
			uint64_t *pblks)
{
	return bmap_fill(fs, inode, nblocks, pblks, 1);
}

static int end_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		  uint32_t count, int flags, void *arg)
{
	uint64_t *end = arg;

	(void)fs;
	(void)pblk;
	if (!(flags & EXTKIT_BLOCK_META) && lblk + count > *end)
		*end = lblk + count;
	return 0;
}

int extkit_bmap_end(struct extkit_fs *fs, const struct extkit_inode *inode,
		    uint64_t *end)
{
	int rc;

	*end = 0;
	rc = extkit_block_walk(fs, inode, end_fn, end);
	return rc < 0 ? rc : 0;
}
