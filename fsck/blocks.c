// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pass 1 scan of one inode's block map (the claims: blockmap.c;
 * extended attribute blocks: xattr.c), pass 1's fixes of indirect
 * blocks, and the walks that release or remap a block-mapped file.
 *
 * Indirect maps are scanned through the library's walker (walk.c), which
 * reports each bad block number and lets the scan clear it in place;
 * extent trees likewise in extents.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"
#include "walk.h"

#include "fsck.h"
#include "problem.h"

#define IND_LEVELS	3

/* ---- the pass 1 scan of an indirect map ---- */

struct scan {
	struct fsck_ctx *ctx;
	uint32_t ino;
	struct extkit_inode *inode;
	struct fsck_blk_result *res;
	uint64_t run_start;	/* pending run of blocks to claim */
	uint32_t run_len;
	int dropped;		/* an entry is to go (fixes in memory) */
	int declined;		/* a fix was refused */
};

static void run_flush(struct scan *s)
{
	uint64_t first = 0, dups;

	if (!s->run_len)
		return;
	dups = fsck_block_claim(s->ctx, s->run_start, s->run_len, &first);
	if (dups && !s->res->dups)
		s->res->first_dup = first;
	s->res->dups += dups;
	s->run_len = 0;
}

static void run_add(struct scan *s, uint64_t blk)
{
	fsck_note_order(s->res, blk, 1);
	s->res->nblocks++;
	if (s->run_len && blk == s->run_start + s->run_len &&
	    s->run_len < UINT32_MAX) {
		s->run_len++;
		return;
	}
	run_flush(s);
	s->run_start = blk;
	s->run_len = 1;
}

/* Reports an illegal block number; 1 when it is to be cleared. */
static int illegal(struct scan *s, uint64_t blk, int64_t blkcount)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.blk = blk;
	pctx.blkcount = blkcount;
	pctx.inode = s->inode;
	if (!fix_problem(s->ctx, PR_1_ILLEGAL_BLOCK, &pctx)) {
		s->declined = 1;
		return 0;
	}
	s->dropped = 1;
	return 1;
}

/*
 * How many illegal numbers an indirect block holds when they are enough
 * to call it garbage, else 0: more than 8, and either a quarter of the
 * block or more than its legal numbers. A block of another kind read as
 * a map (a directory block: an inode number, then rec_len and name_len
 * and the name's bytes as three or more huge numbers) is mostly zeros
 * past its few records, but what numbers it has are mostly illegal; a
 * real map's numbers are legal but for a few a bit flip made.
 */
static uint32_t garbage_count(const struct extkit_fs *fs, const uint8_t *buf)
{
	uint32_t apb = fs->g.addr_per_block, bad = 0, legal = 0;

	for (uint32_t i = 0; i < apb; i++) {
		uint32_t b = extkit_bmap_ind_get(buf, i);

		if (b && !extkit_fs_valid_block(fs, b))
			bad++;
		else if (b)
			legal++;
	}
	return bad > 8 && (bad * 4 >= apb || bad > legal) ? bad : 0;
}

/* An indirect block most of whose numbers are illegal holds no map. */
static int garbage(struct scan *s, const uint8_t *buf, uint64_t blk,
		   int level)
{
	uint32_t bad = garbage_count(s->ctx->fs, buf);
	struct problem_context pctx;

	if (!bad)
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.blk = blk;
	pctx.blkcount = -level;
	pctx.num = bad;
	if (!fix_problem(s->ctx, PR_1_GARBAGE_IND, &pctx)) {
		s->res->failed = 1;
		s->declined = 1;
	} else {
		s->dropped = 1;
	}
	return 1;
}

static void report_read(struct scan *s, const struct extkit_walk_ent *e)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.blk = e->pblk;
	pctx.blkcount = -e->level;
	pctx.str = extkit_strerror(e->err);
	fix_problem(s->ctx, PR_1_BLOCK_READ, &pctx);
	s->res->failed = 1;
	run_add(s, e->pblk);
}

/*
 * An indirect number naming group metadata (an inode table block, say):
 * no map of the file can be there, so the number is garbage; it is
 * dropped rather than read as a map. Read, the metadata would make the
 * file claim whatever block numbers it holds (the i_block words of other
 * inodes), and pass 1B clone those (e2fsck clones the metadata and
 * restarts). Returns 1 when dropped.
 */
static int meta_as_map(struct scan *s, const uint8_t *buf, uint64_t blk,
		       int level)
{
	struct problem_context pctx;

	if (!fsck_ind_is_group_meta(s->ctx, blk, buf))
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.blk = blk;
	pctx.blkcount = -level;
	if (!fix_problem(s->ctx, PR_1_IND_IN_GROUP_META, &pctx)) {
		s->declined = 1;
		return 0;
	}
	s->dropped = 1;
	return 1;
}

/*
 * An indirect block, read: garbage is dropped. Its fixes stay in memory:
 * the block may be another inode's, met later in pass 1 (a garbage
 * indirect number naming a file's data block), whose data a fix here
 * would change. They are written once pass 1 knows every owner
 * (fsck_apply_ind_fixes).
 */
static int scan_ind(struct scan *s, const struct extkit_walk_ent *e)
{
	if (meta_as_map(s, e->block, e->pblk, e->level))
		return EXTKIT_WALK_DROP;
	if (garbage(s, e->block, e->pblk, e->level))
		return s->res->failed ? EXTKIT_WALK_SKIP : EXTKIT_WALK_DROP;
	run_add(s, e->pblk);
	return EXTKIT_WALK_NOWRITE;
}

/*
 * Whether logical block lblk lies past what a directory may hold: 2 GiB
 * (i_size_high 0) without large_dir, as e2fsck bounds it (a block
 * number past 2^(21 - s_log_block_size)). A map whose garbage reaches
 * such a block would otherwise make a directory of terabytes. Nor can
 * a directory reach past s_blocks_count blocks whatever its size: its
 * holes are filled in pass 2, and no filesystem has the blocks for them.
 */
static int dir_block_too_far(const struct extkit_fs *fs,
			     const struct extkit_inode *inode, uint64_t lblk)
{
	if (!S_ISDIR(inode->mode))
		return 0;
	if (lblk >= fs->sb.blocks_count)
		return 1;
	return !(inode->size >> 32) &&
	       !extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_LARGEDIR) &&
	       lblk > (1ull << (21 - fs->sb.log_block_size));
}

/* Reports a directory block past the largest size; 1 when it goes. */
static int too_far(struct scan *s, const struct extkit_walk_ent *e)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = s->ino;
	pctx.blk = e->pblk;
	pctx.blkcount = (int64_t)e->lblk;
	pctx.inode = s->inode;
	if (!fix_problem(s->ctx, PR_1_TOOBIG_DIR, &pctx)) {
		s->declined = 1;
		return 0;
	}
	s->dropped = 1;
	return 1;
}

/* The walker's callback: each block number of the map, checked. */
static int scan_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		   void *arg)
{
	struct scan *s = arg;

	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad == EXTKIT_WALK_BAD_PBLK)
		return illegal(s, e->pblk, e->level ? -e->level :
			       (int64_t)e->lblk) ? EXTKIT_WALK_DROP : 0;
	if (e->bad == EXTKIT_WALK_BAD_READ) {
		report_read(s, e);
		return 0;
	}
	if (e->level)
		return scan_ind(s, e);
	/* kept or not, such a block is not the directory's (e2fsck
	 * ignores it when told not to clear it) */
	if (dir_block_too_far(s->ctx->fs, s->inode, e->lblk))
		return too_far(s, e) ? EXTKIT_WALK_DROP : 0;
	run_add(s, e->pblk);
	if ((int64_t)e->lblk > s->res->last_lblk)
		s->res->last_lblk = (int64_t)e->lblk;
	s->res->last_init_lblk = s->res->last_lblk;
	return 0;
}

/* No block number at all in i_block: most files of a full filesystem
 * are empty, and the walk of their 15 holes would find nothing. */
static int map_empty(const struct extkit_inode *inode)
{
	/* The 60 bytes read as 7 + 1/2 words: a dozen instructions where
	 * the loop over 15 slots took 60 (it runs for every inode). */
	uint64_t w[EXT2_N_BLOCKS / 2];
	uint32_t last = inode->block[EXT2_N_BLOCKS - 1];

	memcpy(w, inode->block, sizeof(w));
	return !(w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | last);
}

static int scan_indirect(struct scan *s)
{
	struct extkit_walk wk = { .ino = s->ino, .fn = scan_fn, .arg = s };
	int rc;

	if (map_empty(s->inode))
		return 0;
	if (!fsck_fixing(s->ctx))
		wk.flags |= EXTKIT_WALK_DRY;
	rc = extkit_walk(s->ctx->fs, s->inode, &wk);
	if (wk.inode_changed)
		s->res->inode_dirty = 1;
	run_flush(s);
	if (s->dropped && !s->declined && fsck_fixing(s->ctx) &&
	    fsck_alloc_push(&s->ctx->ind_fix, s->ino))
		return -ENOMEM;
	/* Indirect blocks pointing at each other: more references than
	 * the filesystem has blocks. What was met is claimed. */
	if (rc == -EXTKIT_ELOOP) {
		s->res->failed = 1;
		rc = 0;
	}
	return rc < 0 ? rc : 0;
}

/* The resize inode: its reserved GDT blocks are group metadata. */
static int scan_resize(struct scan *s)
{
	uint32_t *slot = &s->inode->block[EXT2_DIND_BLOCK];

	if (!*slot)
		return 0;
	if (!extkit_fs_valid_block(s->ctx->fs, *slot)) {
		if (illegal(s, *slot, -2)) {
			*slot = 0;
			s->res->inode_dirty = 1;
		}
		return 0;
	}
	run_add(s, *slot);
	run_flush(s);
	return 0;
}

/*
 * Only directories, regular files and symlinks have blocks (e2fsck's
 * ext2fs_inode_has_valid_blocks2): the i_block of a device, FIFO or
 * socket, or of a reserved inode with mode 0, is never a block map.
 */
static int owns_blocks(const struct extkit_inode *inode)
{
	if (!S_ISDIR(inode->mode) && !S_ISREG(inode->mode) &&
	    !S_ISLNK(inode->mode))
		return 0;
	return extkit_inode_has_block_map(inode);
}

int fsck_scan_blocks(struct fsck_ctx *ctx, uint32_t ino,
		     struct extkit_inode *inode, struct fsck_blk_result *res)
{
	struct scan s = { .ctx = ctx, .ino = ino, .inode = inode, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	res->last_lblk = -1;
	res->last_init_lblk = -1;
	if (ino == EXT2_RESIZE_INO &&
	    extkit_has_compat(&ctx->fs->sb, EXT2_FEATURE_COMPAT_RESIZE_INODE))
		rc = scan_resize(&s);
	else if (!owns_blocks(inode))
		rc = 0;
	else if (inode->flags & EXT4_EXTENTS_FL)
		rc = fsck_scan_extent_tree(ctx, ino, inode, res);
	else
		rc = scan_indirect(&s);
	return rc;
}

/* ---- the indirect blocks' fixes, written ---- */

struct ind_fix {
	struct fsck_ctx *ctx;
	const struct extkit_inode *inode;
	int skip_shared;
	int skipped;
};

/* The drops pass 1 decided (and was told yes to), made again on disk;
 * a block still shared keeps them in memory. */
static int ind_fix_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		      void *arg)
{
	struct ind_fix *f = arg;

	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad == EXTKIT_WALK_BAD_PBLK)
		return EXTKIT_WALK_DROP;
	if (!e->bad && !e->level &&
	    dir_block_too_far(fs, f->inode, e->lblk))
		return EXTKIT_WALK_DROP;
	if (e->bad || !e->level)
		return 0;
	if (garbage_count(fs, e->block) ||
	    fsck_ind_is_group_meta(f->ctx, e->pblk, e->block))
		return EXTKIT_WALK_DROP;
	if (f->skip_shared &&
	    extkit_bitmap_test(&f->ctx->block_dup,
			       e->pblk - fs->sb.first_data_block) == 1) {
		f->skipped = 1;
		return EXTKIT_WALK_NOWRITE;
	}
	return 0;
}

void fsck_apply_ind_fixes(struct fsck_ctx *ctx, int skip_shared)
{
	struct fsck_alloc_list *l = &ctx->ind_fix;
	struct extkit_inode inode;
	size_t kept = 0;

	for (size_t i = 0; i < l->n; i++) {
		uint32_t ino = (uint32_t)l->v[i];
		struct ind_fix f = { ctx, &inode, skip_shared, 0 };
		struct extkit_walk wk = { .ino = ino, .fn = ind_fix_fn,
					  .arg = &f };

		if (extkit_inode_read(ctx->fs, ino, &inode) ||
		    (inode.flags & EXT4_EXTENTS_FL))
			continue;
		if (extkit_walk(ctx->fs, &inode, &wk) >= 0 && wk.inode_changed)
			fsck_write_inode(ctx, ino, &inode);
		if (f.skipped)
			l->v[kept++] = ino;
	}
	l->n = kept;
}

int fsck_pass1_ind_fixes(struct fsck_ctx *ctx)
{
	/* after pass 1B: the shared blocks have their copies, unless a
	 * clone was refused or failed */
	if (!(ctx->flags & FSCK_FL_UNCORRECTED))
		fsck_apply_ind_fixes(ctx, 0);
	ctx->ind_fix.n = 0;
	return 0;
}

/* ---- releasing a deleted inode's blocks ---- */

static int release_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		      uint32_t count, int flags, void *arg)
{
	fsck_block_unmark(arg, pblk, count);
	return 0;
}

int fsck_release_blocks(struct fsck_ctx *ctx,
			const struct extkit_inode *inode)
{
	int rc;

	if (inode->file_acl && extkit_fs_valid_block(ctx->fs, inode->file_acl))
		fsck_ea_release(ctx, inode);
	rc = extkit_block_walk(ctx->fs, inode, release_fn, ctx);
	return rc < 0 && rc != -ENOMEM ? 0 : rc;
}

/* ---- remapping an indirect map (pass 1B clones) ---- */

struct remap {
	struct fsck_ctx *ctx;
	fsck_remap_fn fn;
	void *arg;
	int err;
	int moved[IND_LEVELS + 1];	/* the block entered at a level is a
					 * private copy made by this remap */
};

/*
 * A block this remap met in a private copy it made: the illegal numbers
 * pass 1 reported there (not written: the block was shared) are dropped,
 * and so is an indirect block pass 1 found full of garbage.
 */
static int in_copy(const struct remap *r, const struct extkit_walk_ent *e)
{
	return e->node && e->level < IND_LEVELS && r->moved[e->level + 1];
}

/* Remaps one block; an indirect block is read again after fn (fn may
 * have copied it, or fixed it in place). */
static int remap_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		    void *arg)
{
	struct remap *r = arg;
	uint64_t nb;

	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->bad == EXTKIT_WALK_BAD_PBLK)
		return in_copy(r, e) ? EXTKIT_WALK_DROP : 0;
	if (r->err)
		return EXTKIT_WALK_SKIP;
	/* Garbage or group metadata pass 1 dropped: gone from a copy; in
	 * a block not copied the drop is written after pass 1B
	 * (fsck_pass1_ind_fixes), and nothing under it is cloned
	 * meanwhile. */
	if (e->level && !e->bad &&
	    (garbage_count(fs, e->block) ||
	     fsck_ind_is_group_meta(r->ctx, e->pblk, e->block)))
		return in_copy(r, e) ? EXTKIT_WALK_DROP : EXTKIT_WALK_SKIP;
	nb = r->fn(r->ctx, e->pblk, e->level, r->arg);
	if (!nb) {
		r->err = -ENOSPC;
		return EXTKIT_WALK_SKIP;
	}
	if (e->level) {
		r->moved[e->level] = nb != e->pblk;
		if (e->bad || extkit_fs_read_block(fs, nb, e->block))
			r->err = -EIO;
	}
	if (nb == e->pblk)
		return r->err ? EXTKIT_WALK_SKIP : 0;
	e->pblk = nb;
	return EXTKIT_WALK_CHANGED | (r->err ? EXTKIT_WALK_SKIP : 0);
}

int fsck_remap_blocks(struct fsck_ctx *ctx, struct extkit_inode *inode,
		      fsck_remap_fn fn, void *arg)
{
	struct remap r = { .ctx = ctx, .fn = fn, .arg = arg };
	struct extkit_walk wk = { .fn = remap_fn, .arg = &r };
	int rc;

	if (!extkit_inode_has_block_map(inode))
		return 0;
	if (inode->flags & EXT4_EXTENTS_FL)
		return -EXTKIT_EUNSUPP;	/* fsck_clone_extents() */
	rc = extkit_walk(ctx->fs, inode, &wk);
	return r.err ? r.err : rc < 0 ? rc : 0;
}
