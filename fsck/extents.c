// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extent trees in pass 1 (e2fsck's scan_extent_node): every node of an
 * extent-mapped inode is checked and its blocks claimed; a bad entry is
 * removed from its node (or, for an extent reaching past its index
 * range, shortened), the rest is kept.
 *
 * Root (i_block): eh_magic, eh_max 4, eh_entries <= eh_max, eh_depth <=
 * 5. A root whose magic or eh_max alone is wrong is salvaged (the entries
 * are then checked one by one); a garbage root clears the inode, as
 * e2fsck does. Tree blocks: a valid block number, readable, a header with
 * eh_max <= (bs - 12) / 12; bad ones lose their index entry. One whose
 * eh_depth is not one less than its parent's is read as the level it
 * sits at and its eh_depth corrected (e2fsck does not look at it, the
 * kernel refuses such a tree). Leaf extents: length > 0 (unwritten ones
 * have ee_len > 32768), physical run inside [s_first_data_block,
 * blocks_count) and not 0, logical ranges increasing, not overlapping,
 * inside the range the index entry gives. A node left empty is dropped;
 * an index entry whose logical start differs from its child's first
 * entry is corrected. Changed tree blocks are written back, the root
 * through the inode (the caller writes it). Tree blocks count in
 * res->nblocks, hence in i_blocks.
 *
 * A tree block that cannot be read is reported and left as it is (the
 * inode's sizes are then not checked).
 * Reference: Documentation/filesystems/ext4/ifork.rst.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

/* Logical block numbers are 32-bit. */
#define LBLK_LIMIT	(UINT64_C(1) << 32)

struct ext_scan {
	struct fsck_ctx *ctx;
	uint32_t ino;
	struct extkit_inode *inode;
	struct fsck_blk_result *res;
	uint8_t *bufs[EXT4_EXT_MAX_DEPTH];	/* per child depth */
	uint64_t next_lblk;	/* no extent may start below this */
};

static int report(struct ext_scan *s, uint32_t code, uint64_t blk,
		  uint64_t lblk, uint64_t num2, const char *str)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.inode = s->inode;
	pctx.blk = blk;
	pctx.num = lblk;
	pctx.num2 = num2;
	pctx.str = str;
	return fix_problem(s->ctx, code, &pctx);
}

/* ---- leaves ---- */

/* What is wrong with extent ex of a leaf covering [lo, hi), or 0. */
static uint32_t extent_problem(const struct ext_scan *s,
			       const struct extkit_extent *ex, uint64_t lo,
			       uint64_t hi)
{
	const struct extkit_fs *fs = s->ctx->fs;

	if (!ex->len)
		return PR_1_EXTENT_ZERO_LEN;
	if (!ex->pblk || !extkit_fs_valid_block(fs, ex->pblk) ||
	    !extkit_fs_valid_block(fs, ex->pblk + ex->len - 1))
		return PR_1_EXTENT_BAD_PBLK;
	if (ex->lblk < lo || ex->lblk < s->next_lblk || ex->lblk >= hi)
		return PR_1_EXTENT_ORDER;
	if (ex->lblk + ex->len > hi)
		return PR_1_EXTENT_PAST_INDEX;
	return 0;
}

static void claim_extent(struct ext_scan *s, const struct extkit_extent *ex)
{
	int64_t last = (int64_t)(ex->lblk + ex->len - 1);

	fsck_claim_blocks(s->ctx, s->res, ex->pblk, ex->len);
	if (last > s->res->last_lblk)
		s->res->last_lblk = last;
	if (!ex->unwritten && last > s->res->last_init_lblk)
		s->res->last_init_lblk = last;
	s->next_lblk = ex->lblk + ex->len;
}

/* Checks a leaf's extents; returns 1 when the node was changed. */
static int scan_leaf(struct ext_scan *s, uint8_t *node, uint64_t lo,
		     uint64_t hi)
{
	struct extkit_extent ex;
	int dirty = 0;
	uint32_t code;

	for (uint16_t i = 0; i < extkit_extent_entries(node);) {
		extkit_extent_get(node, i, &ex);
		code = extent_problem(s, &ex, lo, hi);
		if (!code) {
			claim_extent(s, &ex);
			i++;
			continue;
		}
		if (!report(s, code, ex.pblk, ex.lblk, ex.len, NULL)) {
			s->res->failed = 1;
			if (code == PR_1_EXTENT_ORDER ||
			    code == PR_1_EXTENT_PAST_INDEX)
				claim_extent(s, &ex);	/* still its blocks */
			i++;
			continue;
		}
		dirty = 1;
		if (code == PR_1_EXTENT_PAST_INDEX) {
			ex.len = (uint32_t)(hi - ex.lblk);
			extkit_extent_put(node, i, &ex);
		} else {
			extkit_extent_remove(node, i);
		}
	}
	return dirty;
}

/* ---- index nodes ---- */

static int scan_node(struct ext_scan *s, uint8_t *node, uint64_t lo,
		     uint64_t hi);

/* Why the block of an index entry is no node of the given depth. */
static const char *node_problem(struct ext_scan *s, uint64_t blk,
				uint16_t depth, uint8_t *buf, int *rc)
{
	uint32_t bs = s->ctx->fs->g.block_size;
	struct ext4_extent_header eh;

	*rc = 0;
	if (!blk || !extkit_fs_valid_block(s->ctx->fs, blk))
		return "block number out of range";
	*rc = extkit_fs_read_block(s->ctx->fs, blk, buf);
	if (*rc)
		return extkit_strerror(*rc);
	memcpy(&eh, buf, sizeof(eh));
	if (le16(eh.eh_magic) != EXT4_EXT_MAGIC)
		return "bad magic number";
	if (extkit_extent_header_check(&eh, bs))
		return "bad entry count or capacity";
	return NULL;
}

/*
 * A tree block whose header is valid but whose eh_depth does not fit its
 * place: its entries are read as that place wants (the kernel checks
 * eh_depth the same way). 0 when it is (now) right.
 */
static int check_depth(struct ext_scan *s, uint64_t blk, uint8_t *buf,
		       uint16_t depth, int *cdirty)
{
	uint16_t have = extkit_extent_depth(buf);

	if (have == depth)
		return 0;
	if (!report(s, PR_1_EXTENT_NODE_DEPTH, blk, have, depth, NULL))
		return -1;
	extkit_extent_set_depth(buf, depth);
	*cdirty = 1;
	return 0;
}

static uint64_t first_lblk(const uint8_t *node)
{
	struct extkit_extent_idx ix;

	/* ee_block and ei_block are both the first field of an entry. */
	extkit_extent_idx_get(node, 0, &ix);
	return ix.lblk;
}

/*
 * Entry i of an index node at depth (>= 1), covering [lo, hi): its child
 * is checked, scanned and written back when changed. Returns 1 when the
 * entry was removed, 2 when it was changed, 0 otherwise.
 */
static int scan_child(struct ext_scan *s, uint8_t *node, uint16_t i,
		      uint64_t hi)
{
	uint16_t depth = extkit_extent_depth(node) - 1;
	struct extkit_extent_idx ix;
	uint8_t *buf = s->bufs[depth];
	const char *why;
	int changed = 0, cdirty, rc;

	extkit_extent_idx_get(node, i, &ix);
	why = node_problem(s, ix.child, depth, buf, &rc);
	if (rc && rc != -EFSCORRUPTED) {
		/* Unreadable: reported, left as it is. */
		report(s, PR_1_EXTENT_BAD, ix.child, ix.lblk, 0, why);
		s->ctx->flags |= FSCK_FL_UNCORRECTED;
		s->res->failed = 1;
		fsck_claim_blocks(s->ctx, s->res, ix.child, 1);
		return 0;
	}
	if (why) {
		if (report(s, PR_1_EXTENT_NODE_BAD, ix.child, ix.lblk, 0, why))
			return 1;
		s->res->failed = 1;
		return 0;
	}
	cdirty = 0;
	if (check_depth(s, ix.child, buf, depth, &cdirty)) {
		s->res->failed = 1;
		fsck_claim_blocks(s->ctx, s->res, ix.child, 1);
		return 0;
	}
	cdirty |= scan_node(s, buf, ix.lblk, hi);
	if (!extkit_extent_entries(buf)) {
		if (report(s, PR_1_EXTENT_EMPTY_NODE, ix.child, ix.lblk, 0,
			   NULL))
			return 1;
		s->res->failed = 1;
	} else if (first_lblk(buf) != ix.lblk &&
		   report(s, PR_1_EXTENT_INDEX_START, ix.child,
			  first_lblk(buf), ix.lblk, NULL)) {
		ix.lblk = first_lblk(buf);
		extkit_extent_idx_put(node, i, &ix);
		changed = 2;
	}
	if (cdirty && fsck_fixing(s->ctx))
		extkit_extent_write_block(s->ctx->fs, s->ino,
					  s->inode->generation, ix.child, buf);
	fsck_claim_blocks(s->ctx, s->res, ix.child, 1);
	return changed;
}

/* Checks an index node's entries; returns 1 when it was changed. */
static int scan_index(struct ext_scan *s, uint8_t *node, uint64_t lo,
		      uint64_t hi)
{
	struct extkit_extent_idx ix, nx;
	uint64_t end;
	int dirty = 0, rc;

	for (uint16_t i = 0; i < extkit_extent_entries(node);) {
		extkit_extent_idx_get(node, i, &ix);
		if (ix.lblk < lo || ix.lblk < s->next_lblk || ix.lblk >= hi) {
			if (report(s, PR_1_EXTENT_NODE_BAD, ix.child, ix.lblk,
				   0, "index entry out of order")) {
				extkit_extent_remove(node, i);
				dirty = 1;
				continue;
			}
			s->res->failed = 1;
		}
		end = hi;
		if (i + 1 < extkit_extent_entries(node)) {
			extkit_extent_idx_get(node, i + 1, &nx);
			if (nx.lblk > ix.lblk && nx.lblk < hi)
				end = nx.lblk;
		}
		rc = scan_child(s, node, i, end);
		if (rc == 1) {
			extkit_extent_remove(node, i);
			dirty = 1;
			continue;
		}
		if (rc)
			dirty = 1;
		i++;
	}
	return dirty;
}

static int scan_node(struct ext_scan *s, uint8_t *node, uint64_t lo,
		     uint64_t hi)
{
	if (!extkit_extent_depth(node))
		return scan_leaf(s, node, lo, hi);
	return scan_index(s, node, lo, hi);
}

/* ---- the root ---- */

/*
 * The root header: 0 when valid or salvaged (*dirty set), 1 when the
 * inode is to be cleared, -1 when it is left as it is.
 */
static int check_root(struct ext_scan *s, uint8_t *root, int *dirty)
{
	struct ext4_extent_header eh;
	uint16_t magic, entries, max, depth;
	const char *what = NULL;

	memcpy(&eh, root, sizeof(eh));
	magic = le16(eh.eh_magic);
	entries = le16(eh.eh_entries);
	max = le16(eh.eh_max);
	depth = le16(eh.eh_depth);
	if (magic == EXT4_EXT_MAGIC && max == EXTKIT_EXTENT_ROOT_MAX &&
	    entries <= max && depth <= EXT4_EXT_MAX_DEPTH)
		return 0;
	if (entries <= EXTKIT_EXTENT_ROOT_MAX && depth <= EXT4_EXT_MAX_DEPTH) {
		if (magic != EXT4_EXT_MAGIC && max == EXTKIT_EXTENT_ROOT_MAX)
			what = "magic number";
		else if (magic == EXT4_EXT_MAGIC)
			what = "capacity (eh_max)";
	}
	if (what) {
		if (!report(s, PR_1_EXTENT_ROOT_FIX, 0, 0, 0, what))
			return -1;
		put_le16(root, EXT4_EXT_MAGIC);
		put_le16(root + 4, EXTKIT_EXTENT_ROOT_MAX);
		*dirty = 1;
		return 0;
	}
	if (magic != EXT4_EXT_MAGIC)
		what = "bad magic number";
	else if (depth > EXT4_EXT_MAX_DEPTH)
		what = "depth too large";
	else
		what = "bad entry count or capacity";
	return report(s, PR_1_EXTENT_ROOT_BAD, 0, 0, 0, what) ? 1 : -1;
}

int fsck_scan_extent_tree(struct fsck_ctx *ctx, uint32_t ino,
			  struct extkit_inode *inode,
			  struct fsck_blk_result *res)
{
	struct ext_scan s = { .ctx = ctx, .ino = ino, .inode = inode,
			      .res = res };
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	int dirty = 0, rc = 0;

	extkit_extent_root_get(inode, root);
	switch (check_root(&s, root, &dirty)) {
	case 1:
		res->cleared = 1;
		return 0;
	case -1:
		res->failed = 1;
		return 0;
	}
	for (int i = 0; i < EXT4_EXT_MAX_DEPTH; i++) {
		s.bufs[i] = malloc(ctx->fs->g.block_size);
		if (!s.bufs[i])
			rc = -ENOMEM;
	}
	if (!rc && scan_node(&s, root, 0, LBLK_LIMIT))
		dirty = 1;
	/* An index root left with no child is an empty leaf again. */
	if (!rc && dirty && !extkit_extent_entries(root))
		extkit_extent_set_depth(root, 0);
	if (!rc && dirty) {
		extkit_extent_root_put(inode, root);
		res->inode_dirty = 1;
	}
	for (int i = 0; i < EXT4_EXT_MAX_DEPTH; i++)
		free(s.bufs[i]);
	return rc;
}
