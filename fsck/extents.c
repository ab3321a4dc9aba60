// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extent trees in pass 1 (e2fsck's scan_extent_node): every node of an
 * extent-mapped inode is checked through the library's walker (walk.c)
 * and its blocks claimed; a bad entry is
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

#include <string.h>

#include "error.h"
#include "extent.h"
#include "fs.h"
#include "ondisk.h"
#include "walk.h"

#include "fsck.h"
#include "problem.h"

struct ext_scan {
	struct fsck_ctx *ctx;
	uint32_t ino;
	struct extkit_inode *inode;
	struct fsck_blk_result *res;
	int is_dir;
	int moved;	/* a directory extent moved down: index starts follow */
	int prev_moved;	/* ... the extent just before */
	uint64_t prev_end;	/* where that one ended before the move */
	uint64_t meta_node;	/* a tree block in group metadata being
				 * walked (its level: meta_level), or 0 */
	int meta_level;
	uint64_t last_lblk;	/* the previous extent's last block */
	uint64_t last_pblk;	/* ... where it lies; 0: none yet */
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

/*
 * bigalloc: a block sits at its logical block's offset in its cluster,
 * and a logical cluster maps one physical cluster: a block in the same
 * logical cluster as the block before it lies in that block's physical
 * cluster (e2fsck's has_unaligned_cluster_map). An extent's blocks run
 * on together, so its first block tells.
 */
static int breaks_cluster_rule(const struct ext_scan *s,
			       const struct extkit_walk_ent *e)
{
	uint32_t bits = s->ctx->fs->g.cluster_bits;
	uint64_t mask = ((uint64_t)1 << bits) - 1;

	if ((e->pblk ^ e->lblk) & mask)
		return 1;
	return s->last_pblk && (e->lblk & mask) &&
	       e->lblk >> bits == s->last_lblk >> bits &&
	       e->pblk >> bits != s->last_pblk >> bits;
}

static void claim_extent(struct ext_scan *s, const struct extkit_walk_ent *e)
{
	int64_t last = (int64_t)(e->lblk + e->len - 1);

	fsck_claim_blocks(s->ctx, s->res, e->pblk, e->len);
	fsck_note_order(s->res, e->pblk, e->len);
	/* bigalloc: a block sits at its logical block's offset in its
	 * cluster (e2fsck's PR_1_MISALIGNED_CLUSTER); pass 1E moves the
	 * logical clusters that do not */
	if (!s->res->misaligned && breaks_cluster_rule(s, e))
		s->res->misaligned = report(s, PR_1_MISALIGNED_CLUSTER,
					    e->pblk, e->lblk, 0, NULL) ? 1 : -1;
	s->last_lblk = e->lblk + e->len - 1;
	s->last_pblk = e->pblk + e->len - 1;
	if (last > s->res->last_lblk)
		s->res->last_lblk = last;
	if (!(e->flags & EXTKIT_WALK_UNWRITTEN) && last > s->res->last_init_lblk)
		s->res->last_init_lblk = last;
}

/*
 * Where a directory extent should start: right after the last block
 * mapped before it (e2fsck's PR_1_COLLAPSE_DBLOCK). A directory has no
 * sparse blocks, and the kernel's and e2fsck's walks stop at a hole, so
 * the gap is closed by moving the logical start down: every entry is
 * kept, and no block is added. With bigalloc the new start keeps the
 * block's place in its cluster (a cluster maps whole).
 */
static uint64_t dir_extent_start(const struct ext_scan *s,
				 const struct extkit_walk_ent *e)
{
	uint64_t want = (uint64_t)(s->res->last_lblk + 1);
	uint64_t mask = ((uint64_t)1 << s->ctx->fs->g.cluster_bits) - 1;

	if (mask)
		want = ((want + mask) & ~mask) | (e->pblk & mask);
	return want < e->lblk ? want : e->lblk;
}

/*
 * A sound extent of a directory: moved down over a hole before it, and
 * an unwritten one made written (its blocks are read as directory blocks;
 * pass 2 salvages what they hold), as e2fsck does. Both edits go into the
 * node (the walker would store the unwritten bit back with CHANGED).
 * One question a hole: the extents right behind a moved one follow it
 * without asking (e2fsck asks for each of them).
 */
static int check_dir_extent(struct ext_scan *s, struct extkit_walk_ent *e)
{
	uint64_t start = dir_extent_start(s, e), end = e->lblk + e->len;
	int follows = s->prev_moved && e->lblk == s->prev_end;
	struct extkit_extent ex;
	int rc = 0;

	s->prev_moved = 0;
	s->prev_end = end;
	if (start != e->lblk &&
	    (follows || report(s, PR_1_COLLAPSE_DBLOCK, e->pblk, e->lblk,
			       start, NULL))) {
		e->lblk = start;
		s->moved = s->prev_moved = 1;
		rc = EXTKIT_WALK_EDITED;
	}
	if ((e->flags & EXTKIT_WALK_UNWRITTEN) &&
	    report(s, PR_1_UNINIT_DBLOCK, e->pblk, e->lblk, e->len, NULL)) {
		e->flags &= ~EXTKIT_WALK_UNWRITTEN;
		rc = EXTKIT_WALK_EDITED;
	}
	if (!rc)
		return 0;
	extkit_extent_get(e->node, e->index, &ex);
	ex.lblk = e->lblk;
	ex.unwritten = 0;
	extkit_extent_put(e->node, e->index, &ex);
	e->skip = 0;
	return rc;
}

/*
 * A directory extent reaching past the 2 GiB a directory holds without
 * large_dir (i_size_high 0): removed, as e2fsck's PR_1_TOOBIG_DIR for
 * extents (checked before the extent's range against its index: a
 * garbage logical block would otherwise be kept and make a directory of
 * terabytes). Returns 1 when removed.
 */
static int dir_extent_too_far(struct ext_scan *s,
			      const struct extkit_walk_ent *e)
{
	const struct extkit_fs *fs = s->ctx->fs;
	struct problem_context pctx;

	if (!s->is_dir || (s->inode->size >> 32) ||
	    extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_LARGEDIR) ||
	    (uint64_t)e->lblk + e->len <=
		    (1ull << (21 - fs->sb.log_block_size)))
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.inode = s->inode;
	pctx.blk = e->pblk;
	pctx.blkcount = (int64_t)e->lblk;
	if (fix_problem(s->ctx, PR_1_TOOBIG_DIR, &pctx))
		return 1;
	s->res->failed = 1;
	return 0;
}

/* A leaf extent: claimed when sound, else reported and removed (one
 * reaching past its index range shortened, then claimed). */
static int scan_extent(struct ext_scan *s, struct extkit_walk_ent *e)
{
	static const uint32_t codes[] = {
		[EXTKIT_WALK_BAD_LEN] = PR_1_EXTENT_ZERO_LEN,
		[EXTKIT_WALK_BAD_PBLK] = PR_1_EXTENT_BAD_PBLK,
		[EXTKIT_WALK_BAD_ORDER] = PR_1_EXTENT_ORDER,
		[EXTKIT_WALK_BAD_PAST] = PR_1_EXTENT_PAST_INDEX,
	};
	int late = e->bad == EXTKIT_WALK_BAD_ORDER ||
		   e->bad == EXTKIT_WALK_BAD_PAST;

	if ((!e->bad || e->bad == EXTKIT_WALK_BAD_PAST) &&
	    dir_extent_too_far(s, e))
		return EXTKIT_WALK_DROP;
	if (!e->bad) {
		int rc = s->is_dir ? check_dir_extent(s, e) : 0;

		claim_extent(s, e);
		return rc;
	}
	if (!report(s, e->flags & EXTKIT_WALK_OVERRUN ? PR_1_EXTENT_OVERRUN :
		    codes[e->bad], e->pblk, e->lblk, e->len, NULL)) {
		s->res->failed = 1;
		if (late)
			claim_extent(s, e);	/* still its blocks */
		return 0;
	}
	if (e->bad != EXTKIT_WALK_BAD_PAST)
		return EXTKIT_WALK_DROP;
	e->len = (uint32_t)(e->end - e->lblk);
	claim_extent(s, e);
	return EXTKIT_WALK_CHANGED;
}

/* ---- tree blocks ---- */

/* A child that is no tree block (or not readable). */
static int bad_node(struct ext_scan *s, const struct extkit_walk_ent *e)
{
	const char *why = "block number out of range";

	if (e->bad == EXTKIT_WALK_BAD_READ && e->err != -EFSCORRUPTED) {
		/* Unreadable: reported, left as it is. */
		report(s, PR_1_EXTENT_BAD, e->pblk, e->lblk, 0,
		       extkit_strerror(e->err));
		s->ctx->flags |= FSCK_FL_UNCORRECTED;
		s->res->failed = 1;
		fsck_claim_blocks(s->ctx, s->res, e->pblk, 1);
		return 0;
	}
	if (e->bad == EXTKIT_WALK_BAD_READ)
		why = extkit_strerror(e->err);
	else if (e->bad == EXTKIT_WALK_BAD_MAGIC)
		why = "bad magic number";
	else if (e->bad == EXTKIT_WALK_BAD_HEADER)
		why = "bad entry count or capacity";
	if (report(s, PR_1_EXTENT_NODE_BAD, e->pblk, e->lblk, 0, why))
		return EXTKIT_WALK_DROP;
	s->res->failed = 1;
	return 0;
}

/*
 * A tree block whose header is valid but whose eh_depth does not fit its
 * place: its entries are read as that place wants (the kernel checks
 * eh_depth the same way), the walker correcting eh_depth.
 */
static int bad_depth(struct ext_scan *s, const struct extkit_walk_ent *e)
{
	if (report(s, PR_1_EXTENT_NODE_DEPTH, e->pblk,
		   extkit_extent_depth(e->block), e->level - 1, NULL))
		return EXTKIT_WALK_CHANGED;
	s->res->failed = 1;
	fsck_claim_blocks(s->ctx, s->res, e->pblk, 1);
	return 0;
}

static uint64_t first_lblk(const uint8_t *node)
{
	struct extkit_extent_idx ix;

	/* ee_block and ei_block are both the first field of an entry. */
	extkit_extent_idx_get(node, 0, &ix);
	return ix.lblk;
}

/* A tree block after its entries: dropped when empty, its index entry's
 * start corrected when it differs from the block's first entry. */
static int leave_node(struct ext_scan *s, struct extkit_walk_ent *e)
{
	int rc = 0;

	if (!e->entries) {
		if (report(s, PR_1_EXTENT_EMPTY_NODE, e->pblk, e->lblk, 0,
			   NULL))
			return EXTKIT_WALK_DROP;
		s->res->failed = 1;
	} else if (first_lblk(e->block) != e->lblk &&
		   (s->moved ||
		    report(s, PR_1_EXTENT_INDEX_START, e->pblk,
			   first_lblk(e->block), e->lblk, NULL))) {
		/* after a move the index follows silently (e2fsck's
		 * ext2fs_extent_fix_parents) */
		e->lblk = first_lblk(e->block);
		rc = EXTKIT_WALK_CHANGED;
	}
	fsck_claim_blocks(s->ctx, s->res, e->pblk, 1);
	return rc;
}

/*
 * A sound tree block on the way down: a checksum that does not match is
 * rewritten (the walker writes an edited block back, checksum set, when
 * it leaves it), as e2fsck's "extent block passes checks, but checksum
 * does not match", unless the block is shared (below).
 */
static int check_node_csum(struct ext_scan *s, const struct extkit_walk_ent *e)
{
	if (!e->block || extkit_extent_block_csum_ok(s->ctx->fs, s->ino,
						     s->inode->generation,
						     e->block))
		return 0;
	if (!report(s, PR_1_EXTENT_CSUM, e->pblk, e->lblk, 0, NULL))
		return 0;
	/* A block an earlier owner claimed is shared: pass 1B gives this
	 * inode a copy, or lets it keep the block, and sets the checksum of
	 * whichever owner ends with it. Rewritten now, the checksum would
	 * be this inode's on a block the earlier owner may keep. */
	if (fsck_block_test(s->ctx, e->pblk) &&
	    !extkit_has_ro_compat(&s->ctx->fs->sb,
				  EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS))
		return 0;
	return EXTKIT_WALK_EDITED;
}

/*
 * A tree block that is group metadata (an inode table block, say): read
 * as the file's tree, its blocks claimed, but nothing below it checked
 * or written (e2fsck's "conflicts with critical metadata, skipping block
 * checks"); i_size and i_blocks wait too. Claimed by the metadata first,
 * it is shared: pass 1B gives the file a copy of it, and the check
 * restarts to check the copy, as e2fsck does. Returns 1 when it is.
 */
static int tree_in_meta(struct ext_scan *s, const struct extkit_walk_ent *e)
{
	if (!fsck_block_is_group_meta(s->ctx, e->pblk))
		return 0;
	report(s, PR_1_TREE_IN_GROUP_META, e->pblk, e->lblk, 0, NULL);
	if (fsck_fixing(s->ctx))
		s->ctx->flags |= FSCK_FL_RESTART;
	s->res->failed = 1;
	s->meta_node = e->pblk;
	s->meta_level = e->level;
	return 1;
}

/* Under a tree block in group metadata: the sound entries claimed,
 * nothing reported, nothing written. */
static int scan_quiet(struct ext_scan *s, const struct extkit_walk_ent *e)
{
	int late = e->bad == EXTKIT_WALK_BAD_ORDER ||
		   e->bad == EXTKIT_WALK_BAD_PAST;

	if (!(e->flags & EXTKIT_WALK_META)) {
		if (!e->bad || late)
			claim_extent(s, e);
		return 0;
	}
	if (!(e->flags & EXTKIT_WALK_LEAVE))
		return e->bad ? EXTKIT_WALK_SKIP : EXTKIT_WALK_NOWRITE;
	fsck_claim_blocks(s->ctx, s->res, e->pblk, 1);
	if (e->pblk == s->meta_node && e->level == s->meta_level)
		s->meta_node = 0;
	return 0;
}

/* The walker's callback: every entry of the tree, checked. */
static int scan_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		   void *arg)
{
	struct ext_scan *s = arg;

	if (s->meta_node)
		return scan_quiet(s, e);
	if (!(e->flags & EXTKIT_WALK_META))
		return scan_extent(s, e);
	if (e->flags & EXTKIT_WALK_LEAVE)
		return leave_node(s, e);
	if (e->bad == EXTKIT_WALK_BAD_ORDER) {
		if (report(s, PR_1_EXTENT_NODE_BAD, e->pblk, e->lblk, 0,
			   "index entry out of order"))
			return EXTKIT_WALK_DROP;
		s->res->failed = 1;
		return 0;
	}
	if (e->bad == EXTKIT_WALK_BAD_DEPTH)
		return bad_depth(s, e);
	if (e->bad)
		return bad_node(s, e);
	if (tree_in_meta(s, e))
		return EXTKIT_WALK_NOWRITE;
	return check_node_csum(s, e);
}

/* ---- the root ---- */

/*
 * The root header: 0 when valid or salvaged (*dirty set), 1 when the
 * inode is to be cleared, -1 when it is left as it is.
 */
static int check_root(struct ext_scan *s, uint8_t *root, int *dirty)
{
	int magic = extkit_extent_has_magic(root);
	uint16_t entries = extkit_extent_entries(root);
	uint16_t max = extkit_extent_max(root);
	uint16_t depth = extkit_extent_depth(root);
	const char *what = NULL;

	/* e2fsck's ext2fs_extent_header_verify takes a capacity up to two
	 * below the room there is (the kernel any not above it) */
	if (magic && max <= EXTKIT_EXTENT_ROOT_MAX &&
	    max + 2 >= EXTKIT_EXTENT_ROOT_MAX && entries <= max &&
	    depth <= EXT4_EXT_MAX_DEPTH)
		return 0;
	if (entries <= EXTKIT_EXTENT_ROOT_MAX && depth <= EXT4_EXT_MAX_DEPTH) {
		if (!magic && max == EXTKIT_EXTENT_ROOT_MAX)
			what = "magic number";
		else if (magic)
			what = "capacity (eh_max)";
	}
	if (what) {
		if (!report(s, PR_1_EXTENT_ROOT_FIX, 0, 0, 0, what))
			return -1;
		extkit_extent_set_max(root, EXTKIT_EXTENT_ROOT_MAX);
		*dirty = 1;
		return 0;
	}
	if (!magic)
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
			      .res = res, .is_dir = S_ISDIR(inode->mode) };
	struct extkit_walk wk = { .ino = ino, .fn = scan_fn, .arg = &s };
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct extkit_inode work = *inode;
	int dirty = 0, rc;

	extkit_extent_root_get(inode, root);
	switch (check_root(&s, root, &dirty)) {
	case 1:
		res->cleared = 1;
		return 0;
	case -1:
		res->failed = 1;
		return 0;
	}
	/* An empty file's root (a leaf of no extent, found sound): the
	 * walk would visit nothing. */
	if (!dirty && !extkit_extent_depth(root) &&
	    !extkit_extent_entries(root))
		return 0;
	if (!fsck_fixing(ctx))
		wk.flags |= EXTKIT_WALK_DRY;
	extkit_extent_root_put(&work, root);
	rc = extkit_walk(ctx->fs, &work, &wk);
	/* Tree blocks pointing at each other: what was met is claimed. */
	if (rc == -EXTKIT_ELOOP) {
		res->failed = 1;
		rc = 0;
	}
	if (!rc && (dirty || wk.inode_changed)) {
		memcpy(inode->block, work.block, sizeof(inode->block));
		res->inode_dirty = 1;
	}
	return rc < 0 ? rc : 0;
}
