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

#define IND_LEVELS	3	/* single, double, triple indirect */

struct ind_walk {
	struct extkit_fs *fs;
	extkit_block_fn fn;
	void *arg;
	void *bufs[IND_LEVELS];	/* one block buffer per level */
	uint64_t budget;	/* block references still allowed */
	uint64_t run_lblk;	/* pending run of contiguous data blocks */
	uint64_t run_pblk;
	uint32_t run_len;
};

static int run_flush(struct ind_walk *w)
{
	uint32_t len = w->run_len;

	if (!len)
		return 0;
	w->run_len = 0;
	return w->fn(w->fs, w->run_lblk, w->run_pblk, len, 0, w->arg);
}

/* Checks blk and charges it to the budget; flushes the run on failure so
 * that every good block before the bad one has been reported. */
static int charge_block(struct ind_walk *w, uint64_t blk)
{
	int err = 0;
	int rc;

	if (!extkit_fs_valid_block(w->fs, blk))
		err = -EFSCORRUPTED;
	else if (!w->budget)
		err = -EXTKIT_ELOOP;
	if (!err) {
		w->budget--;
		return 0;
	}
	rc = run_flush(w);
	return rc ? rc : err;
}

static int run_add(struct ind_walk *w, uint64_t lblk, uint64_t pblk)
{
	int rc;

	rc = charge_block(w, pblk);
	if (rc)
		return rc;
	if (w->run_len && w->run_len < UINT32_MAX &&
	    lblk == w->run_lblk + w->run_len &&
	    pblk == w->run_pblk + w->run_len) {
		w->run_len++;
		return 0;
	}
	rc = run_flush(w);
	if (rc)
		return rc;
	w->run_lblk = lblk;
	w->run_pblk = pblk;
	w->run_len = 1;
	return 0;
}

/* Reports indirect block blk (mapping from lblk on) and reads it. */
static int ind_enter(struct ind_walk *w, uint64_t blk, int level,
		     uint64_t lblk, void **bufp)
{
	void *buf = w->bufs[level - 1];
	int rc;

	rc = charge_block(w, blk);
	if (!rc)
		rc = run_flush(w);
	if (!rc)
		rc = w->fn(w->fs, lblk, blk, 1, EXTKIT_BLOCK_META, w->arg);
	if (rc)
		return rc;
	if (!buf) {
		buf = malloc(w->fs->g.block_size);
		if (!buf)
			return -ENOMEM;
		w->bufs[level - 1] = buf;
	}
	*bufp = buf;
	return extkit_fs_read_block(w->fs, blk, buf);
}

/*
 * Walks indirect block blk of the given level (1 single .. 3 triple) whose
 * first entry maps logical block lblk. Recursion depth is at most 3.
 */
static int walk_ind(struct ind_walk *w, uint64_t blk, int level,
		    uint64_t lblk)
{
	uint32_t apb = w->fs->g.addr_per_block;
	uint64_t span = 1;
	uint32_t i;
	void *buf;
	int rc;
	int l;

	rc = ind_enter(w, blk, level, lblk, &buf);
	if (rc)
		return rc;
	for (l = 1; l < level; l++)
		span *= apb;
	for (i = 0; i < apb; i++) {
		uint32_t b = get_le32((const uint8_t *)buf + 4 * i);

		if (!b)
			continue;
		if (level == 1)
			rc = run_add(w, lblk + i, b);
		else
			rc = walk_ind(w, b, level - 1, lblk + i * span);
		if (rc)
			return rc;
	}
	return 0;
}

static int walk_indirect(struct extkit_fs *fs,
			 const struct extkit_inode *inode,
			 extkit_block_fn fn, void *arg)
{
	uint64_t apb = fs->g.addr_per_block;
	uint64_t base = EXT2_NDIR_BLOCKS;
	uint64_t span = apb;
	struct ind_walk w = {
		.fs = fs, .fn = fn, .arg = arg,
		.budget = fs->sb.blocks_count,
	};
	unsigned int i;
	int level;
	int rc = 0;

	for (i = 0; i < EXT2_NDIR_BLOCKS; i++) {
		if (inode->block[i]) {
			rc = run_add(&w, i, inode->block[i]);
			if (rc)
				goto out;
		}
	}
	for (level = 1; level <= IND_LEVELS; level++) {
		uint32_t b = inode->block[EXT2_IND_BLOCK + level - 1];

		if (b) {
			rc = walk_ind(&w, b, level, base);
			if (rc)
				goto out;
		}
		base += span;
		span *= apb;
	}
	rc = run_flush(&w);
out:
	for (i = 0; i < IND_LEVELS; i++)
		free(w.bufs[i]);
	return rc;
}

int extkit_block_walk(struct extkit_fs *fs, const struct extkit_inode *inode,
		      extkit_block_fn fn, void *arg)
{
	if (!extkit_inode_has_block_map(inode))
		return 0;
	if (inode->flags & EXT4_EXTENTS_FL)
		return extkit_extent_walk(fs, inode, fn, arg);
	return walk_indirect(fs, inode, fn, arg);
}

/* ---- truncation ---- */

struct trunc {
	struct ind_walk w;	/* reports whole subtrees that go */
	extkit_block_fn fn;	/* the caller's callback */
	void *arg;
	int stop;		/* its positive stop value */
	uint64_t keep;		/* logical blocks kept */
	int dry;
};

/* The walk's callback: a positive stop value of the caller's becomes an
 * error inside the cut (positive values mean "slot cleared" there). */
static int trunc_report(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
			uint32_t count, int flags, void *arg)
{
	struct trunc *t = arg;
	int rc = t->fn(fs, lblk, pblk, count, flags, t->arg);

	if (rc > 0) {
		t->stop = rc;
		return -ECANCELED;
	}
	return rc;
}

static int trunc_slot(struct trunc *t, uint32_t *slot, int level,
		      uint64_t lblk, uint64_t span);

/*
 * Cuts indirect block *slot (level 1..3, mapping span blocks from lblk,
 * with lblk < keep < lblk + span): its entries past keep are cleared, and
 * the block itself goes when no entry is left. 1 when *slot was cleared.
 */
static int trunc_ind(struct trunc *t, uint32_t *slot, int level,
		     uint64_t lblk, uint64_t span)
{
	uint32_t apb = t->w.fs->g.addr_per_block;
	uint64_t child = span / apb;
	int changed = 0, empty = 1, rc;
	uint8_t *buf = t->w.bufs[level - 1];

	rc = charge_block(&t->w, *slot);
	if (rc)
		return rc;
	if (!buf) {
		buf = malloc(t->w.fs->g.block_size);
		if (!buf)
			return -ENOMEM;
		t->w.bufs[level - 1] = buf;
	}
	rc = extkit_fs_read_block(t->w.fs, *slot, buf);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < apb; i++) {
		uint32_t b = get_le32(buf + 4 * i);

		rc = trunc_slot(t, &b, level - 1, lblk + i * child, child);
		if (rc < 0)
			return rc;
		if (rc) {
			put_le32(buf + 4 * i, b);
			changed = 1;
		}
		if (b)
			empty = 0;
	}
	if (empty) {
		rc = run_flush(&t->w);
		if (!rc)
			rc = trunc_report(t->w.fs, lblk, *slot, 1,
					  EXTKIT_BLOCK_META, t);
		if (rc)
			return rc;
		*slot = 0;
		return 1;
	}
	if (changed && !t->dry)
		rc = extkit_fs_write_block(t->w.fs, *slot, buf);
	return rc;
}

/* Cuts the map under *slot (level 0: a data block); 1 if *slot went. */
static int trunc_slot(struct trunc *t, uint32_t *slot, int level,
		      uint64_t lblk, uint64_t span)
{
	int rc;

	if (!*slot)
		return 0;
	if (lblk >= t->keep) {
		rc = level ? walk_ind(&t->w, *slot, level, lblk) :
			     run_add(&t->w, lblk, *slot);
		if (rc)
			return rc;
		*slot = 0;
		return 1;
	}
	if (!level || lblk + span <= t->keep)
		return 0;
	return trunc_ind(t, slot, level, lblk, span);
}

int extkit_bmap_truncate(struct extkit_fs *fs, uint32_t ino,
			 struct extkit_inode *inode, uint64_t keep, int dry,
			 extkit_block_fn fn, void *arg)
{
	struct trunc t = {
		.w = { .fs = fs, .fn = trunc_report,
		       .budget = fs->sb.blocks_count },
		.fn = fn, .arg = arg, .keep = keep, .dry = dry,
	};
	uint64_t span = fs->g.addr_per_block, lblk = EXT2_NDIR_BLOCKS;
	int rc = 0;

	t.w.arg = &t;
	if (!extkit_inode_has_block_map(inode))
		return 0;
	if (inode->flags & EXT4_EXTENTS_FL)
		return extkit_extent_truncate(fs, ino, inode, keep, dry, fn,
					      arg);
	for (unsigned int i = 0; i < EXT2_NDIR_BLOCKS && rc >= 0; i++)
		rc = trunc_slot(&t, &inode->block[i], 0, i, 1);
	for (int level = 1; level <= IND_LEVELS && rc >= 0; level++) {
		rc = trunc_slot(&t, &inode->block[EXT2_IND_BLOCK + level - 1],
				level, lblk, span);
		lblk += span;
		span *= fs->g.addr_per_block;
	}
	if (rc >= 0)
		rc = run_flush(&t.w);
	for (int i = 0; i < IND_LEVELS; i++)
		free(t.w.bufs[i]);
	if (t.stop)
		return t.stop;
	return rc < 0 ? rc : 0;
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
	rc = extkit_extent_walk(fs, inode, lookup_fn, &la);
	if (rc < 0) {
		*pblk = 0;
		return rc;
	}
	return 0;
}

struct fill_arg {
	uint64_t nblocks;
	uint64_t *pblks;
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
	if (flags & EXTKIT_BLOCK_UNWRITTEN)
		return 0;
	for (i = 0; i < count && lblk + i < fa->nblocks; i++)
		fa->pblks[lblk + i] = pblk + i;
	return 0;
}

int extkit_bmap_all(struct extkit_fs *fs, const struct extkit_inode *inode,
		    uint64_t nblocks, uint64_t *pblks)
{
	struct fill_arg fa = { .nblocks = nblocks, .pblks = pblks };
	uint64_t i;
	int rc;

	for (i = 0; i < nblocks; i++)
		pblks[i] = 0;
	if (!nblocks)
		return 0;
	rc = extkit_block_walk(fs, inode, fill_fn, &fa);
	return rc < 0 ? rc : 0;
}
