// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1B: blocks claimed by more than one owner.
 *
 * Pass 1 claims the group metadata first and then every inode's blocks in
 * inode order; an inode that met an already claimed block has the dup
 * state (istate.h) and the block is in block_dup. Every such inode gets a
 * private copy of each shared block it maps (e2fsck's pass 1B-1D clone),
 * so that every file keeps its data; one owner keeps the block itself. To
 * know which, the inodes' references to shared blocks are counted first (a
 * walk of every inode in use, only when pass 1 found shared blocks): a
 * reference is cloned while others remain, so the last one keeps the
 * block, whether it is the first owner's or a second reference of the
 * same file. Blocks of the group metadata or of a reserved inode (the bad
 * blocks list) are never given away. A shared indirect block is copied
 * first and its entries are then cloned in the copy.
 * An EA block is one reference however many inodes name it (sharing it
 * is no duplication): when data or metadata claimed it too and another
 * owner keeps it, the first inode to clone it gets a copy, and every
 * inode naming it follows (e2fsck's clone_file moves them all).
 * Extent trees are cloned in extclone.c (tree blocks, and leaf extents
 * split around their shared blocks).
 * Relies on block_found/block_dup from pass 1; allocates from
 * block_found (alloc.c), so pass 5 counts the copies. The table of
 * shared blocks is dups.c's.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "bmap.h"
#include "csum.h"
#include "dirblock.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"

#include "ondisk.h"
#include "walk.h"

#include "dupreport.h"
#include "dups.h"
#include "fsck.h"
#include "pass1.h"
#include "problem.h"

struct clone_arg {
	uint64_t shared;	/* counting walk: blocks to copy */
	int failed;
	struct fsck_dups *d;
};

static int count_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		    uint32_t count, int flags, void *arg)
{
	struct fsck_ctx *ctx = ((void **)arg)[0];
	struct clone_arg *ca = ((void **)arg)[1];

	for (uint32_t i = 0; i < count; i++)
		ca->shared += fsck_dup_must_copy(ctx, ca->d, pblk + i);
	return 0;
}

struct owner_arg {
	struct fsck_ctx *ctx;
	struct fsck_dups *dups;
	int reserved;		/* the inode walked is a reserved one */
	uint64_t count;		/* its references to shared blocks */
	struct dup_report *rep;	/* pass 1B's list of them */
	uint32_t ino;
	int err;
};

/* bigalloc: whether a block of blk's cluster is claimed twice (e2fsck
 * lists every block of such a cluster). */
static int dup_cluster(struct fsck_ctx *ctx, uint64_t blk)
{
	uint32_t ratio = ctx->fs->g.cluster_ratio;
	uint64_t fdb = ctx->fs->sb.first_data_block, c0, n;

	if (ratio == 1)
		return fsck_dup_is_shared(ctx, blk);
	c0 = blk - ((blk - fdb) & (ratio - 1));
	n = ctx->fs->sb.blocks_count - c0 < ratio ?
	    ctx->fs->sb.blocks_count - c0 : ratio;
	return extkit_bitmap_count_range(&ctx->block_dup, c0 - fdb, n) > 0;
}

static int owner_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		    uint32_t count, int flags, void *arg)
{
	struct owner_arg *oa = arg;

	(void)fs;
	(void)lblk;
	(void)flags;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t *r;

		if (!oa->err && pblk + i < oa->ctx->fs->sb.blocks_count &&
		    pblk + i >= oa->ctx->fs->sb.first_data_block &&
		    dup_cluster(oa->ctx, pblk + i))
			oa->err = dupreport_add(oa->rep, oa->ino, pblk + i);
		if (!fsck_dup_is_shared(oa->ctx, pblk + i))
			continue;
		r = fsck_dup_slot(oa->dups, pblk + i);
		*r = oa->reserved ? *r | DUP_KEEP : *r + 1;
		if (oa->ino == EXT2_BAD_INO)
			*r |= DUP_BAD;
		oa->count++;
	}
	return 0;
}

struct ext_refs {
	extkit_block_fn fn;
	void *arg;
};

static int ext_refs_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		       void *arg)
{
	struct ext_refs *r = arg;

	if ((e->flags & EXTKIT_WALK_LEAVE) ||
	    (e->bad && e->bad != EXTKIT_WALK_BAD_ORDER &&
	     e->bad != EXTKIT_WALK_BAD_PAST))
		return 0;
	if (e->flags & EXTKIT_WALK_META)
		return r->fn(fs, e->lblk, e->pblk, 1, EXTKIT_BLOCK_META, r->arg);
	return r->fn(fs, e->lblk, e->pblk, e->len, 0, r->arg);
}

/*
 * Every block of an extent-mapped inode to fn, as the clone walks them
 * (extclone.c): past the bad entries pass 1 left in a tree block it did
 * not write (group metadata read as the file's tree), where the library's
 * block walk would stop.
 */
static int ext_refs(struct fsck_ctx *ctx, const struct extkit_inode *inode,
		    extkit_block_fn fn, void *arg)
{
	struct ext_refs r = { fn, arg };
	struct extkit_inode work = *inode;
	struct extkit_walk wk = { .flags = EXTKIT_WALK_DRY, .fn = ext_refs_fn,
				  .arg = &r };
	int rc = extkit_walk(ctx->fs, &work, &wk);

	return rc == -EFSCORRUPTED ? 0 : rc;
}

/* Counting remap: fsck_remap_blocks passes over the illegal numbers
 * pass 1 left in a shared indirect block (the library walk stops). */
static uint64_t owner_remap_fn(struct fsck_ctx *ctx, uint64_t blk,
			       int level, void *arg)
{
	(void)ctx;
	(void)level;
	owner_fn(NULL, 0, blk, 1, 0, arg);
	return blk;
}

static uint64_t count_remap_fn(struct fsck_ctx *ctx, uint64_t blk,
			       int level, void *arg)
{
	struct clone_arg *ca = arg;

	(void)level;
	ca->shared += fsck_dup_must_copy(ctx, ca->d, blk);
	return blk;
}

/* The illegal numbers pass 1 reported in an indirect block it did not
 * write (the block was claimed twice) go when the block is kept. */
static void drop_illegal(struct fsck_ctx *ctx, uint64_t blk)
{
	struct extkit_fs *fs = ctx->fs;
	int dirty = 0;

	if (extkit_fs_read_block(fs, blk, ctx->blkbuf))
		return;
	for (uint32_t i = 0; i < fs->g.addr_per_block; i++) {
		uint32_t b = extkit_bmap_ind_get(ctx->blkbuf, i);

		if (b && !extkit_fs_valid_block(fs, b)) {
			extkit_bmap_ind_set(ctx->blkbuf, i, 0);
			dirty = 1;
		}
	}
	if (dirty)
		extkit_fs_write_block(fs, blk, ctx->blkbuf);
}

/* The inodes naming a shared EA block are one reference to it. */
static void ea_owner_fn(struct fsck_ctx *ctx, uint64_t blk, void *arg)
{
	struct fsck_dups *d = arg;

	if (fsck_dup_is_shared(ctx, blk))
		(*fsck_dup_slot(d, blk))++;
}

static int add_sharer(struct fsck_dups *d, uint32_t ino, uint64_t refs)
{
	if (d->nsharers == d->sharer_cap) {
		size_t cap = d->sharer_cap ? 2 * d->sharer_cap : 64;
		uint32_t *s = realloc(d->sharer, cap * sizeof(*s));
		uint64_t *r;

		if (!s)
			return -ENOMEM;
		d->sharer = s;
		r = realloc(d->sharer_refs, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		d->sharer_refs = r;
		d->sharer_cap = cap;
	}
	d->sharer[d->nsharers] = ino;
	d->sharer_refs[d->nsharers++] = refs;
	return 0;
}

/*
 * Counts every inode's references to shared blocks, and lists them
 * (pass 1B's report): an extended attribute block claimed twice counts
 * for each inode naming it there, after its map's blocks.
 */
static int count_owners(struct fsck_ctx *ctx, struct fsck_dups *d,
			struct dup_report *rep)
{
	struct owner_arg oa = { .ctx = ctx, .dups = d, .rep = rep };

	rep->shift = ctx->fs->g.cluster_bits;
	struct extkit_inode inode;
	uint64_t n = extkit_bitmap_count_range(&ctx->block_dup, 0,
			ctx->fs->sb.blocks_count - ctx->fs->sb.first_data_block);
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	d->blk = calloc(cap, sizeof(*d->blk));
	d->refs = calloc(cap, sizeof(*d->refs));
	d->mask = cap - 1;
	if (!d->blk || !d->refs)
		return -ENOMEM;
	for (uint32_t ino = 1; ino <= ctx->fs->sb.inodes_count; ino++) {
		if (!fsck_inode_used(ctx, ino) ||
		    extkit_inode_read(ctx->fs, ino, &inode))
			continue;
		oa.ino = ino;
		oa.reserved = ino < ctx->fs->g.first_ino &&
			      ino != EXT2_ROOT_INO;
		oa.count = 0;
		if (extkit_inode_has_block_map(&inode) &&
		    fsck_remap_blocks(ctx, &inode, owner_remap_fn, &oa) ==
		    -EXTKIT_EUNSUPP)
			ext_refs(ctx, &inode, owner_fn, &oa);
		if (inode.file_acl &&
		    extkit_fs_valid_block(ctx->fs, inode.file_acl) &&
		    fsck_dup_is_shared(ctx, inode.file_acl)) {
			oa.count++;
			if (!oa.err)
				oa.err = dupreport_add(rep, ino,
						       inode.file_acl);
		}
		if (!oa.err)
			oa.err = dupreport_inode(ctx, rep, ino, &inode);
		if (oa.err)
			return oa.err;
		if (oa.count && !oa.reserved &&
		    add_sharer(d, ino, oa.count))
			return -ENOMEM;
	}
	fsck_ea_shared(ctx, ea_owner_fn, d);
	return 0;
}

/* What clone_fn works for: the shared blocks, the inode cloning. */
struct clone_owner {
	struct fsck_dups *d;
	uint32_t ino;
	const struct extkit_inode *inode;
	/* a reserved inode's own shared blocks it keeps one reference of */
	uint64_t *kept;
	size_t nkept, cap;
};

/* After the clones: a block one owner is left with is no longer shared
 * (a later release of that owner, pass 4 deleting it, frees it). */
static void unmark_resolved(struct fsck_ctx *ctx, const struct fsck_dups *d)
{
	for (size_t i = 0; d->blk && i <= d->mask; i++) {
		uint64_t b = d->blk[i];

		if (b && !(d->refs[i] & DUP_KEEP) && d->refs[i] <= 1 &&
		    fsck_dup_is_shared(ctx, b) &&
		    !fsck_dup_group_meta(ctx->fs, b))
			extkit_bitmap_clear(&ctx->block_dup,
					    b - ctx->fs->sb.first_data_block);
	}
}

/*
 * A reserved inode (the journal's, say) mapping one block twice: its
 * blocks are kept from files (DUP_KEEP), so every reference of its own
 * would be copied and the block itself left to nobody. Its first
 * reference keeps the block unless the group metadata or the bad blocks
 * list owns it.
 */
static int reserved_keeps(struct fsck_ctx *ctx, struct clone_owner *co,
			  uint64_t blk)
{
	uint32_t r;

	if (co->ino >= ctx->fs->g.first_ino || co->ino == EXT2_ROOT_INO ||
	    !fsck_dup_is_shared(ctx, blk) || fsck_dup_group_meta(ctx->fs, blk))
		return 0;
	r = *fsck_dup_slot(co->d, blk);
	if (!(r & DUP_KEEP) || (r & DUP_BAD))
		return 0;
	for (size_t i = 0; i < co->nkept; i++)
		if (co->kept[i] == blk)
			return 0;
	if (co->nkept == co->cap) {
		size_t cap = co->cap ? 2 * co->cap : 16;
		uint64_t *k = realloc(co->kept, cap * sizeof(*k));

		if (!k)
			return 0;
		co->kept = k;
		co->cap = cap;
	}
	co->kept[co->nkept++] = blk;
	return 1;
}

/* A private copy of blk when it is shared and another owner keeps it;
 * blk itself otherwise. */
static uint64_t clone_fn(struct fsck_ctx *ctx, uint64_t blk, int level,
			 void *arg)
{
	struct clone_owner *co = arg;
	uint64_t nb;

	if (!fsck_dup_must_copy(ctx, co->d, blk) ||
	    reserved_keeps(ctx, co, blk)) {
		/* the last reference keeps it, fixed */
		if (level && fsck_dup_is_shared(ctx, blk))
			drop_illegal(ctx, blk);
		return blk;
	}
	fsck_dup_copied(ctx, co->d, blk);
	if (fsck_new_block(ctx, blk, &nb) ||
	    fsck_copy_block(ctx, blk, nb, co->ino, co->inode, !level))
		return 0;
	return nb;
}

/*
 * The EA block of inode: one copied already for another inode naming it
 * is followed (1: the inode changed); one shared that another owner
 * keeps gets a copy now (2), which the other inodes naming it follow
 * (ea_follow_moves). 0: kept.
 */
static int clone_ea_block(struct fsck_ctx *ctx, struct fsck_dups *d,
			  struct extkit_inode *inode, int copy)
{
	uint64_t blk = inode->file_acl, nb;

	if (!blk || !extkit_fs_valid_block(ctx->fs, blk))
		return 0;
	nb = fsck_ea_moved_to(ctx, blk);
	if (nb) {
		inode->file_acl = nb;
		return 1;
	}
	if (!fsck_dup_must_copy(ctx, d, blk))
		return 0;
	if (!copy)
		return 2;
	if (fsck_new_block(ctx, blk, &nb) || fsck_ea_copy(ctx, blk, nb))
		return -ENOSPC;
	fsck_dup_copied(ctx, d, blk);
	inode->file_acl = nb;
	return 2;
}

/* After the clones: every inode still naming a copied EA block names
 * the copy (one walk of the inodes, only when a block was copied). */
static void ea_follow_moves(struct fsck_ctx *ctx)
{
	struct extkit_inode inode;
	uint64_t nb;

	for (uint32_t ino = 1; ino <= ctx->fs->sb.inodes_count; ino++) {
		if (!fsck_inode_used(ctx, ino) ||
		    extkit_inode_read(ctx->fs, ino, &inode) ||
		    !inode.file_acl)
			continue;
		nb = fsck_ea_moved_to(ctx, inode.file_acl);
		if (!nb)
			continue;
		inode.file_acl = nb;
		fsck_write_inode(ctx, ino, &inode);
	}
}

static int delete_sharer(struct fsck_ctx *ctx, struct fsck_dups *d,
			 uint32_t ino, uint64_t refs, int ask);

/*
 * Pass 1D for one file (e2fsck's order: every file naming shared blocks,
 * in inode order): its report, then, unless every block it shares is
 * kept by it now (the others got their copies), the clone question; a
 * no or a failed clone asks whether to delete it. 1 when it copied its
 * EA block.
 */
static int clone_inode(struct fsck_ctx *ctx, const struct dup_report *rep,
		       const struct dup_file *f, struct fsck_dups *dups)
{
	uint32_t ino = f->ino;
	struct problem_context pctx;
	struct clone_arg ca = { .d = dups };
	void *walk_arg[2] = { ctx, &ca };
	struct extkit_inode inode;
	struct clone_owner co = { .d = dups, .ino = ino, .inode = &inode };
	int rc, ea = 0;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	rc = extkit_inode_read(ctx->fs, ino, &inode);
	if (rc)
		return 0;
	dupreport_file(ctx, rep, f);
	if (extkit_inode_has_block_map(&inode)) {
		rc = fsck_remap_blocks(ctx, &inode, count_remap_fn, &ca);
		if (rc == -EXTKIT_EUNSUPP)
			rc = ext_refs(ctx, &inode, count_fn, walk_arg);
	}
	if (rc >= 0)
		ea = clone_ea_block(ctx, dups, &inode, 0);
	if (ea == 1)
		fsck_write_inode(ctx, ino, &inode);
	ca.shared += ea == 2;
	if (rc < 0)
		return 0;	/* its map cannot be walked: left as it is */
	if (!ca.shared) {
		/* it keeps its blocks: the walk copies nothing, but the
		 * fixes pass 1 held back for them land now (the last owner
		 * keeps the block) */
		fix_problem(ctx, PR_1D_DUP_BLOCKS_DEALT, &pctx);
		if (ctx->readonly)
			return 0;
	} else if (!fix_problem(ctx, PR_1D_CLONE_QUESTION, &pctx)) {
		delete_sharer(ctx, dups, ino, f->nblocks, 1);
		return 0;
	}
	if (!extkit_inode_has_block_map(&inode))
		rc = 0;		/* its EA block alone */
	else if (inode.flags & EXT4_EXTENTS_FL)
		rc = fsck_clone_extents(ctx, dups, ino, &inode);
	else
		rc = fsck_remap_blocks(ctx, &inode, clone_fn, &co);
	free(co.kept);
	if (!rc && ea == 2)
		rc = clone_ea_block(ctx, dups, &inode, 1);
	if (rc >= 0)
		rc = fsck_write_inode(ctx, ino, &inode);
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_1B_NO_SPACE, &pctx);
		ctx->flags |= FSCK_FL_UNCORRECTED;
		/* What was cloned is written: keep the inode's map. */
		fsck_write_inode(ctx, ino, &inode);
	}
	return ea == 2;	/* its EA block was copied (or tried) */
}

/* ---- no room for the copies ---- */

/* The copies a shared block needs: its references but the one that keeps
 * it (all of them when metadata or a reserved inode does). */
static uint32_t block_copies(uint32_t refs)
{
	uint32_t r = refs & ~DUP_FLAGS;

	return (refs & DUP_KEEP) ? r : r - (r > 0);
}

/*
 * The copies cloning would make, in allocation units. On bigalloc a copy
 * takes a whole free cluster per sharer (free_cluster_run), so a shared
 * cluster counts once, at its first shared block, for the most copies any
 * of its blocks needs.
 */
static uint64_t copies_needed(struct fsck_ctx *ctx, struct fsck_dups *d)
{
	uint64_t first = ctx->fs->sb.first_data_block, need = 0;
	uint32_t ratio = ctx->fs->g.cluster_ratio;

	for (size_t i = 0; i <= d->mask; i++) {
		uint64_t b = d->blk[i], c0, most = 0;

		if (!b)
			continue;
		if (ratio == 1) {
			need += block_copies(d->refs[i]);
			continue;
		}
		c0 = b - ((b - first) & (ratio - 1));
		for (uint64_t x = c0; x < c0 + ratio; x++) {
			if (x < b && fsck_dup_is_shared(ctx, x))
				break;	/* counted at the cluster's first */
			if (x >= b && block_copies(fsck_dup_refs(d, x)) > most)
				most = block_copies(fsck_dup_refs(d, x));
		}
		need += most;
	}
	return need;
}

/* Free allocation units: blocks, or on bigalloc wholly free clusters. */
static uint64_t free_units(const struct fsck_ctx *ctx)
{
	uint64_t n = ctx->fs->sb.blocks_count - ctx->fs->sb.first_data_block;
	uint32_t ratio = ctx->fs->g.cluster_ratio;
	uint64_t free = 0;

	if (ratio == 1)
		return n - extkit_bitmap_count_range(&ctx->block_found, 0, n);
	for (uint64_t c = 0; c + ratio <= n; c += ratio)
		free += !extkit_bitmap_count_range(&ctx->block_found, c, ratio);
	return free;
}

/* One reference of a deleted inode to blk: a shared block loses an owner
 * (one left: no longer shared), any other is freed. */
static void drop_reference(struct fsck_ctx *ctx, struct fsck_dups *d,
			   uint64_t blk)
{
	uint32_t *r;

	if (!fsck_dup_is_shared(ctx, blk)) {
		fsck_block_unmark(ctx, blk, 1);
		return;
	}
	r = fsck_dup_slot(d, blk);
	if ((*r & ~DUP_FLAGS) > 0)
		(*r)--;
	if (!(*r & DUP_KEEP) && *r <= 1)
		extkit_bitmap_clear(&ctx->block_dup,
				    blk - ctx->fs->sb.first_data_block);
}

static int drop_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		   uint32_t count, int flags, void *arg)
{
	void **a = arg;

	(void)fs;
	(void)lblk;
	(void)flags;
	for (uint32_t i = 0; i < count; i++)
		drop_reference(a[0], a[1], pblk + i);
	return 0;
}

/* Deletes inode ino, which names shared blocks, as e2fsck deletes a file
 * it cannot clone; its directory entries go in pass 2. -1 when the user
 * says no. ask: pass 1D's question after a clone was declined (a no
 * leaves the blocks shared: an error left; a directory deleted there
 * leaves its files to pass 3, as e2fsck's), else the one of make_room,
 * which keeps directories (it runs under -y). */
static int delete_sharer(struct fsck_ctx *ctx, struct fsck_dups *d,
			 uint32_t ino, uint64_t refs, int ask)
{
	struct extkit_inode inode;
	struct problem_context pctx;
	void *arg[2] = { ctx, d };

	if (extkit_inode_read(ctx->fs, ino, &inode) ||
	    (S_ISDIR(inode.mode) && !ask)) {
		if (ask)
			ctx->flags |= FSCK_FL_UNCORRECTED;
		return 0;
	}
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.num = refs;
	if (!fix_problem(ctx, ask ? PR_1D_DELETE_QUESTION :
			 PR_1B_NO_ROOM_DELETE, &pctx))
		return -1;
	if (inode.file_acl && extkit_fs_valid_block(ctx->fs, inode.file_acl)) {
		if (fsck_dup_is_shared(ctx, inode.file_acl))
			drop_reference(ctx, d, inode.file_acl);
		else
			fsck_ea_release(ctx, &inode);
	}
	extkit_block_walk(ctx->fs, &inode, drop_fn, arg);
	fsck_clear_inode(ctx, ino, &inode);
	extkit_bitmap_clear(&ctx->inode_used, ino - 1);
	return 1;
}

/*
 * When the copies cannot all fit in the free blocks, the inode naming the
 * most shared blocks is offered for deletion first (a garbage extent over
 * half the disk, say), until they fit. e2fsck clones in inode order and
 * deletes the file whose clone fails, which may be any of the sharers.
 */
static void make_room(struct fsck_ctx *ctx, struct fsck_dups *d)
{
	while (copies_needed(ctx, d) > free_units(ctx)) {
		size_t best = d->nsharers;
		uint64_t refs;

		for (size_t i = 0; i < d->nsharers; i++)
			if (d->sharer_refs[i] &&
			    (best == d->nsharers ||
			     d->sharer_refs[i] > d->sharer_refs[best]))
				best = i;
		if (best == d->nsharers)
			return;
		refs = d->sharer_refs[best];
		d->sharer_refs[best] = 0;
		if (delete_sharer(ctx, d, d->sharer[best], refs, 0) < 0)
			return;
	}
}

/*
 * Shared blocks the quota inodes gave up (fsck_quota_drop_shared) that no
 * inode or EA block claims now, and that are not group metadata or the
 * MMP block: the quota inodes shared them only among themselves. They are
 * free again (pass 5 then clears them in the bitmap).
 */
static void release_unowned(struct fsck_ctx *ctx, struct fsck_dups *d,
			    const struct fsck_alloc_list *given_up)
{
	const struct extkit_fs *fs = ctx->fs;

	for (size_t i = 0; i < given_up->n; i++) {
		uint64_t blk = given_up->v[i];
		uint64_t bit = blk - fs->sb.first_data_block;

		if (fsck_dup_refs(d, blk) || fsck_dup_group_meta(fs, blk) ||
		    (extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_MMP) &&
		     blk == fs->sb.mmp_block) || !fsck_dup_is_shared(ctx, blk))
			continue;
		extkit_bitmap_clear(&ctx->block_dup, bit);
		extkit_bitmap_clear(&ctx->block_found, bit);
	}
}

int fsck_pass1b(struct fsck_ctx *ctx)
{
	struct fsck_dups dups = { 0 };
	struct fsck_alloc_list given_up = { 0 };
	struct dup_report rep = { 0 };
	int rc, ea_copied = 0;

	if (!(ctx->flags & FSCK_FL_DUPS))
		return 0;
	dupreport_start(ctx);
	rc = fsck_quota_drop_shared(ctx, &given_up);
	if (!rc)
		rc = count_owners(ctx, &dups, &rep);
	if (!rc)
		release_unowned(ctx, &dups, &given_up);
	free(given_up.v);
	if (!rc)
		rc = dupreport_resolve(ctx, &rep);
	if (!rc)
		make_room(ctx, &dups);
	for (size_t i = 0; i < rep.nfiles && !rc; i++) {
		const struct dup_file *f = &rep.files[i];

		/* deleted to make room; the bad blocks and resize inodes
		 * (e2fsck's rule); a reserved inode that claimed first
		 * keeps its blocks (the later claims copy) */
		if (!fsck_inode_used(ctx, f->ino) ||
		    f->ino == EXT2_BAD_INO || f->ino == EXT2_RESIZE_INO ||
		    (!dupreport_is_file(ctx, f->ino) &&
		     !fsck_istate_dup(&ctx->istate, f->ino)))
			continue;
		ea_copied |= clone_inode(ctx, &rep, f, &dups);
		if (ctx->flags & FSCK_FL_ABORT)
			break;
	}
	dupreport_free(&rep);
	if (!rc)
		unmark_resolved(ctx, &dups);
	if (ea_copied)
		ea_follow_moves(ctx);
	free(dups.blk);
	free(dups.refs);
	free(dups.sharer);
	free(dups.sharer_refs);
	return rc;
}
