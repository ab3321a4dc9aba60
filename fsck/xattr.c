// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extended attribute blocks for fsck (e2fsck's check_ext_attr and the
 * refcount adjustment at the end of its pass 1).
 *
 * Pass 1 hands every inode's i_file_acl here. The number must be in range
 * and the filesystem must have ext_attr; the block is then read and
 * validated once (lib/xattr.c), the verdict kept in a hash set with the
 * block's h_refcount, so a block shared by many inodes costs one read. A
 * bad block is reported for each inode naming it and cleared from the
 * inode (the block itself is not touched: other data may live there). A
 * valid block is claimed in block_found once, however many inodes share
 * it (sharing is not duplication), and counts in each inode's i_blocks.
 *
 * At the end of pass 1 every block's h_refcount is compared with the
 * inodes that still name it and rewritten when it differs. An inode
 * deleted later (pass 4) drops its reference: h_refcount on disk goes
 * down by one, and the block is released when nobody names it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "csum.h"
#include "inode.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"
#include "xattr.h"

#include "fsck.h"
#include "pass1.h"
#include "problem.h"

/* rec->problem for a block that could not be read, or naming a value
 * inode that is not valid. */
#define EA_UNREADABLE	0xFF
#define EA_BAD_VALUE_INODE	0xFE

/* ---- the set of blocks seen ---- */

static size_t ea_slot(const struct fsck_ea_set *set, uint64_t blk)
{
	size_t i = (size_t)(blk * 0x9E3779B97F4A7C15ull) & (set->cap - 1);

	while (set->v[i].blk && set->v[i].blk != blk)
		i = (i + 1) & (set->cap - 1);
	return i;
}

static int ea_grow(struct fsck_ea_set *set)
{
	size_t cap = set->cap ? set->cap * 2 : 64;
	struct fsck_ea_rec *v = calloc(cap, sizeof(*v));
	struct fsck_ea_set n = *set;

	if (!v)
		return -ENOMEM;
	n.v = v;
	n.cap = cap;
	for (size_t i = 0; i < set->cap; i++)
		if (set->v[i].blk)
			v[ea_slot(&n, set->v[i].blk)] = set->v[i];
	free(set->v);
	*set = n;
	return 0;
}

static struct fsck_ea_rec *ea_find(struct fsck_ea_set *set, uint64_t blk)
{
	struct fsck_ea_rec *r;

	if (!set->cap)
		return NULL;
	r = &set->v[ea_slot(set, blk)];
	return r->blk ? r : NULL;
}

/* ---- EA inodes ---- */

/* Blocks a value of size bytes takes (e2fsck's size_to_quota_blocks):
 * whole clusters on bigalloc. */
static uint64_t value_blocks(const struct extkit_fs *fs, uint32_t size)
{
	uint64_t cs = (uint64_t)fs->g.block_size << fs->g.cluster_bits;

	return (((uint64_t)size + cs - 1) / cs) << fs->g.cluster_bits;
}

/*
 * The value inode of entry x of inode owner (e2fsck's
 * check_large_ea_inode): its entry hash (from the EA inode's value hash,
 * either char signedness) and its EA_INODE flag, fixed when the hash
 * says the reference is right. NULL when usable (*blocks its blocks),
 * else why not.
 */
static const char *ea_inode_check(struct fsck_ctx *ctx, uint32_t owner,
				  uint32_t owner_gen,
				  const struct extkit_xattr *x,
				  uint64_t *blocks)
{
	const uint8_t *name = (const uint8_t *)x->name;
	struct problem_context pctx;
	struct extkit_inode in;

	*blocks = 0;
	if (extkit_inode_read(ctx->fs, x->value_inum, &in))
		return "it cannot be read";
	if (!in.links_count || in.dtime || !S_ISREG(in.mode))
		return "it is not in use";
	/* the kernel refuses a value inode of another size */
	if (in.size != x->value_size)
		return "its size is wrong";
	if (extkit_xattr_hash_ea_inode(name, x->name_len, in.atime, 0) ==
	    x->hash ||
	    extkit_xattr_hash_ea_inode(name, x->name_len, in.atime, 1) ==
	    x->hash) {
		*blocks = value_blocks(ctx->fs, x->value_size);
	} else if (in.mtime != owner || in.generation != owner_gen) {
		/* Not an old Lustre-style reference (its parent in mtime). */
		return in.flags & EXT4_EA_INODE_FL ? "its hash is wrong" :
		       "it is no EA inode";
	}
	if (in.flags & EXT4_EA_INODE_FL)
		return NULL;
	clear_problem_context(&pctx);
	pctx.ino = owner;
	pctx.num = x->value_inum;
	if (!fix_problem(ctx, PR_1_EA_INODE_FLAG, &pctx))
		return "it has no EA_INODE flag";
	in.flags |= EXT4_EA_INODE_FL;
	fsck_write_inode(ctx, x->value_inum, &in);
	return NULL;
}

/* One more entry names EA inode inum. */
static void ea_inode_ref(struct fsck_ctx *ctx, uint32_t inum)
{
	struct fsck_count *c = &ctx->ea_inode_refs;

	if (c->v)
		fsck_count_set(c, inum, fsck_count_get(c, inum) + 1);
}

/*
 * The EA inodes a valid region names: checked, their blocks summed in
 * *blocks. NULL, or why one is not usable (*bad its inode).
 */
static const char *ea_region_values(struct fsck_ctx *ctx, uint32_t owner,
				    uint32_t owner_gen,
				    const struct extkit_xattr_region *reg,
				    uint64_t *blocks, uint32_t *bad)
{
	uint32_t off = reg->first;
	struct extkit_xattr x;
	const char *why;
	uint64_t n;

	*blocks = 0;
	while (extkit_xattr_next(reg, &off, &x) == 1) {
		if (!x.value_inum)
			continue;
		why = ea_inode_check(ctx, owner, owner_gen, &x, &n);
		if (why) {
			*bad = x.value_inum;
			return why;
		}
		*blocks += n;
	}
	return NULL;
}

static void ea_region_refs(struct fsck_ctx *ctx,
			   const struct extkit_xattr_region *reg)
{
	uint32_t off = reg->first;
	struct extkit_xattr x;

	while (extkit_xattr_next(reg, &off, &x) == 1)
		if (x.value_inum)
			ea_inode_ref(ctx, x.value_inum);
}

/*
 * The entries of an accepted region (the ibody of owner, or EA block
 * blk first named by owner) naming an inode pass 1 has not reached yet
 * (a higher number): noted for fsck_ea_recheck_ahead. Best effort: out
 * of memory, a reference is not looked at again.
 */
static void ea_note_ahead(struct fsck_ctx *ctx, uint32_t owner,
			  uint64_t blk, const struct extkit_xattr_region *reg,
			  uint64_t blocks)
{
	struct fsck_ea_set *set = &ctx->ea;
	uint32_t off = reg->first;
	struct extkit_xattr x;

	while (extkit_xattr_next(reg, &off, &x) == 1) {
		if (x.value_inum <= owner)
			continue;
		if (set->n_ahead == set->cap_ahead) {
			size_t cap = set->cap_ahead ? set->cap_ahead * 2 : 16;
			void *v = realloc(set->ahead, cap * sizeof(*set->ahead));

			if (!v)
				return;
			set->ahead = v;
			set->cap_ahead = cap;
		}
		set->ahead[set->n_ahead++] = (struct fsck_ea_ahead){
			.blk = blk, .owner = owner,
			.value_inum = x.value_inum,
			.value_size = x.value_size,
			.blocks = (uint32_t)blocks };
	}
}

/* The EA inodes of a valid block (in ctx->blkbuf), first seen by ino. */
static void ea_block_values(struct fsck_ctx *ctx, uint32_t ino,
			    struct fsck_ea_rec *r)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region reg;
	struct extkit_inode owner;
	uint64_t blocks = 0;
	uint32_t bad = 0;

	if (!extkit_has_incompat(&ctx->fs->sb, EXT4_FEATURE_INCOMPAT_EA_INODE))
		return;
	extkit_xattr_format_init(ctx->fs, &fmt);
	extkit_xattr_block_region(&fmt, ctx->blkbuf, &reg);
	if (extkit_inode_read(ctx->fs, ino, &owner))
		owner.generation = 0;
	if (ea_region_values(ctx, ino, owner.generation, &reg, &blocks, &bad)) {
		r->problem = EA_BAD_VALUE_INODE;
		return;
	}
	r->quota = (uint32_t)blocks;
	ea_region_refs(ctx, &reg);
	ea_note_ahead(ctx, ino, r->blk, &reg, 0);
}

/* metadata_csum: a block valid but for its checksum gets a new one. */
static void ea_block_csum(struct fsck_ctx *ctx, uint32_t ino,
			  struct fsck_ea_rec *r)
{
	struct problem_context pctx;

	if (!extkit_has_ro_compat(&ctx->fs->sb,
				  EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) ||
	    extkit_ea_block_csum_ok(ctx->fs, r->blk, ctx->blkbuf))
		return;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.blk = r->blk;
	if (!fix_problem(ctx, PR_1_EA_BLOCK_CSUM, &pctx))
		return;
	extkit_ea_block_csum_set(ctx->fs, r->blk, ctx->blkbuf);
	if (extkit_fs_write_block(ctx->fs, r->blk, ctx->blkbuf)) {
		ctx->flags |= FSCK_FL_UNCORRECTED;
		return;
	}
	ctx->flags |= FSCK_FL_CHANGED;
}

/* ---- in-inode attributes ---- */

static int check_ibody(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw,
		       uint64_t *ea_blocks)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region reg;
	struct problem_context pctx;
	struct extkit_inode in;
	uint32_t bad = 0;
	const char *why;
	enum extkit_xattr_problem p;

	*ea_blocks = 0;
	if (!extkit_xattr_ibody_region(raw, ctx->fs->g.inode_size, &reg))
		return 0;
	extkit_xattr_format_init(ctx->fs, &fmt);
	extkit_inode_decode(raw, ctx->fs->g.inode_size, &in);
	clear_problem_context(&pctx);
	pctx.ino = ino;
	p = extkit_xattr_region_check(&fmt, &reg);
	if (p) {
		pctx.str = extkit_xattr_problem_str(p);
		if (!fix_problem(ctx, p == EXTKIT_XATTR_OVERLAP ?
				 PR_1_IBODY_EA_COLLISION : PR_1_IBODY_EA_BAD,
				 &pctx))
			return 0;
	} else {
		why = ea_region_values(ctx, ino, in.generation, &reg,
				       ea_blocks, &bad);
		if (!why) {
			ea_region_refs(ctx, &reg);
			ea_note_ahead(ctx, ino, 0, &reg, *ea_blocks);
			return 0;
		}
		pctx.num = bad;
		pctx.str = why;
		if (!fix_problem(ctx, PR_1_EA_INODE_BAD, &pctx)) {
			ea_region_refs(ctx, &reg);
			return 0;
		}
		*ea_blocks = 0;
	}
	/* As e2fsck: every attribute of the inode goes. */
	extkit_xattr_ibody_drop(raw, ctx->fs->g.inode_size);
	if (!fsck_fixing(ctx) || extkit_inode_write_raw(ctx->fs, ino, raw))
		return 0;
	ctx->flags |= FSCK_FL_CHANGED;
	return 1;
}

int fsck_ea_check_ibody(struct fsck_ctx *ctx, uint32_t ino,
			uint64_t *ea_blocks)
{
	uint8_t small[1024], *raw = small;	/* most inodes: 256 bytes */
	const uint8_t *cached = fsck_inode_raw_cached(ctx, ino);
	struct extkit_xattr_region reg;
	int rc;

	*ea_blocks = 0;
	if (ctx->fs->g.inode_size <= EXT2_INODE_CORE_SIZE)
		return 0;
	/* Most inodes hold no attribute: nothing to copy (check_ibody
	 * would find no region either). */
	if (cached && !extkit_xattr_ibody_region(cached,
						 ctx->fs->g.inode_size, &reg))
		return 0;
	if (ctx->fs->g.inode_size > sizeof(small)) {
		raw = malloc(ctx->fs->g.inode_size);
		if (!raw)
			return -ENOMEM;
	}
	rc = fsck_inode_read_raw(ctx, ino, raw);
	if (!rc)
		rc = check_ibody(ctx, ino, raw, ea_blocks);
	if (raw != small)
		free(raw);
	return rc;
}

int fsck_ea_inode_attached(struct fsck_ctx *ctx, uint32_t ino)
{
	struct problem_context pctx;
	struct extkit_inode in;
	uint32_t refs;

	if (!ctx->ea_inode_refs.v)
		return 0;
	refs = fsck_count_get(&ctx->ea_inode_refs, ino);
	if (!refs || extkit_inode_read(ctx->fs, ino, &in) ||
	    !(in.flags & EXT4_EA_INODE_FL))
		return 0;
	/* Old Lustre EA inodes keep no count (ctime equals atime). */
	if (extkit_ea_inode_refcount(&in) == refs || in.ctime == in.atime)
		return 1;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.num = refs;
	pctx.num2 = extkit_ea_inode_refcount(&in);
	if (fix_problem(ctx, PR_4_EA_INODE_REFS, &pctx)) {
		extkit_ea_inode_set_refcount(&in, refs);
		fsck_write_inode(ctx, ino, &in);
	}
	return 1;
}

/* Reads and validates blk, the first time an inode names it. */
static int ea_add(struct fsck_ctx *ctx, uint32_t ino, uint64_t blk,
		  struct fsck_ea_rec **out)
{
	struct fsck_ea_set *set = &ctx->ea;
	struct extkit_xattr_format fmt;
	struct fsck_ea_rec *r;
	int rc;

	if ((set->n + 1) * 2 > set->cap) {
		rc = ea_grow(set);
		if (rc)
			return rc;
	}
	r = &set->v[ea_slot(set, blk)];
	memset(r, 0, sizeof(*r));
	r->blk = blk;
	set->n++;
	*out = r;
	if (extkit_fs_read_block(ctx->fs, blk, ctx->blkbuf)) {
		r->problem = EA_UNREADABLE;
		return 0;
	}
	extkit_xattr_format_init(ctx->fs, &fmt);
	r->problem = (uint8_t)extkit_xattr_block_check(&fmt, ctx->blkbuf);
	r->disk_refs = extkit_xattr_refcount(ctx->blkbuf);
	if (!r->problem)
		ea_block_values(ctx, ino, r);
	if (!r->problem)
		ea_block_csum(ctx, ino, r);
	return 0;
}

/* Whether inode's reference to its EA block is left out of h_refcount
 * (fsck.h: an inline-data symlink's, as e2fsck counts). */
static int ea_uncounted(const struct extkit_inode *inode)
{
	return S_ISLNK(inode->mode) && (inode->flags & EXT4_INLINE_DATA_FL);
}

/* One more inode names r's block; the first one claims the block: 1
 * when something else (data, group metadata) had claimed it before. */
static int ea_ref(struct fsck_ctx *ctx, struct fsck_ea_rec *r,
		  int uncounted)
{
	int first = !r->refs && !r->uncounted, claimed;

	if (uncounted)
		r->uncounted++;
	else
		r->refs++;
	if (!first)
		return 0;
	claimed = fsck_block_test(ctx, r->blk);
	fsck_block_mark(ctx, r->blk, 1);
	return claimed;
}

void fsck_ea_free(struct fsck_ea_set *set)
{
	free(set->v);
	free(set->ahead);
	memset(set, 0, sizeof(*set));
}

/* ---- pass 1: one inode ---- */

static int ea_report(struct fsck_ctx *ctx, uint32_t code, uint32_t ino,
		     uint64_t blk, const char *why)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.blk = blk;
	pctx.str = why;
	return fix_problem(ctx, code, &pctx);
}

static const char *ea_why(const struct fsck_ea_rec *r)
{
	if (r->problem == EA_UNREADABLE)
		return "it cannot be read";
	if (r->problem == EA_BAD_VALUE_INODE)
		return "a value inode is not valid";
	return extkit_xattr_problem_str(r->problem);
}

int fsck_ea_check_inode(struct fsck_ctx *ctx, uint32_t ino,
			struct extkit_inode *inode, int *dirty,
			uint64_t *ea_blocks, uint64_t *ea_dup)
{
	uint64_t blk = inode->file_acl;
	uint32_t code = 0;
	struct fsck_ea_rec *r;
	int rc;

	*ea_blocks = 0;
	*ea_dup = 0;
	if (!blk)
		return 0;
	if (!extkit_fs_valid_block(ctx->fs, blk))
		code = PR_1_BAD_EA_BLOCK;
	else if (!extkit_has_compat(&ctx->fs->sb,
				    EXT2_FEATURE_COMPAT_EXT_ATTR))
		code = PR_1_EA_NO_FEATURE;
	if (code) {
		/* Not an EA block at all: never claimed nor counted. */
		if (ea_report(ctx, code, ino, blk, NULL)) {
			inode->file_acl = 0;
			*dirty = 1;
		}
		return 0;
	}
	r = ea_find(&ctx->ea, blk);
	if (!r) {
		rc = ea_add(ctx, ino, blk, &r);
		if (rc)
			return rc;
	}
	if (r->problem &&
	    ea_report(ctx, PR_1_EA_NOT_VALID, ino, blk, ea_why(r))) {
		inode->file_acl = 0;
		*dirty = 1;
		return 0;
	}
	/* Valid, or bad but kept (answer no): in use, counted. */
	if (ea_ref(ctx, r, ea_uncounted(inode)))
		*ea_dup = blk;
	/* The EA block counts as a whole cluster with bigalloc. */
	*ea_blocks = ctx->fs->g.cluster_ratio + (uint64_t)r->quota;
	return 0;
}

/* ---- end of pass 1: references made before their EA inode was checked ---- */

/* Why the value inode of a is no longer usable (pass 1 cleared it or
 * fixed its i_size after the owner's check), or NULL. */
static const char *ahead_why(struct fsck_ctx *ctx,
			     const struct fsck_ea_ahead *a)
{
	struct extkit_inode in;

	if (!fsck_istate_used(&ctx->istate, a->value_inum))
		return "it is not in use";
	if (extkit_inode_read(ctx->fs, a->value_inum, &in))
		return "it cannot be read";
	if (in.size != a->value_size)
		return "its size is wrong";
	return NULL;
}

/* Whether region reg still names inum (nothing rewrote it since). */
static int region_names(const struct extkit_xattr_region *reg,
			uint32_t inum)
{
	uint32_t off = reg->first;
	struct extkit_xattr x;

	while (extkit_xattr_next(reg, &off, &x) == 1)
		if (x.value_inum == inum)
			return 1;
	return 0;
}

/* The entries of reg no longer name their EA inodes. */
static void ea_region_unref(struct fsck_ctx *ctx,
			    const struct extkit_xattr_region *reg)
{
	struct fsck_count *c = &ctx->ea_inode_refs;
	uint32_t off = reg->first, n;
	struct extkit_xattr x;

	while (c->v && extkit_xattr_next(reg, &off, &x) == 1) {
		if (!x.value_inum)
			continue;
		n = fsck_count_get(c, x.value_inum);
		if (n)
			fsck_count_set(c, x.value_inum, n - 1);
	}
}

/*
 * Inode ino is cleared in pass 1 after its in-inode attributes were
 * accepted (a map found bad later): they no longer name their EA inodes,
 * which pass 4 then finds unattached in this run. A region check_ibody
 * refused was cleared on disk when fixing; without fixing it cannot be
 * told from an accepted one, and nothing is counted back.
 */
void fsck_ea_forget_ibody(struct fsck_ctx *ctx, uint32_t ino)
{
	uint32_t isz = ctx->fs->g.inode_size;
	struct extkit_xattr_region reg;
	uint8_t *raw;

	if (!ctx->ea_inode_refs.v || !fsck_fixing(ctx))
		return;
	raw = malloc(isz);
	if (!raw)
		return;
	if (!extkit_inode_read_raw(ctx->fs, ino, raw) &&
	    extkit_xattr_ibody_region(raw, isz, &reg))
		ea_region_unref(ctx, &reg);
	free(raw);
}

/* Inode ino counts nblk blocks fewer now (attributes it lost): its
 * i_blocks, checked by pass 1 with them, follows. */
static void owner_drop_blocks(struct fsck_ctx *ctx, uint32_t ino,
			      uint64_t nblk)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_inode in;
	uint64_t have;

	if (extkit_inode_read(fs, ino, &in))
		return;
	have = extkit_inode_blocks_bytes(fs, &in) / fs->g.block_size;
	if (nblk && have >= nblk &&
	    pass1_report(ctx, PR_1_BAD_I_BLOCKS, ino, &in,
			 (have - nblk) * fs->g.sb_sectors_per_block)) {
		extkit_inode_set_fs_blocks(fs, &in, have - nblk);
		in.flags &= ~EXT4_HUGE_FILE_FL;
		fsck_write_inode(ctx, ino, &in);
		have -= nblk;
	}
	/* as record_inode decides it (pass 4 clears such an orphan) */
	if (!have && !in.size && !in.file_acl)
		fsck_istate_set(&ctx->istate, ino,
				fsck_istate_ftype(&ctx->istate, ino), 1);
}

/* Inode ino lost its in-inode attributes: with inline data, the
 * system.data attribute went too (fsck_inline_check says what then).
 * 1 when the inode was cleared. */
static int owner_inline_lost(struct fsck_ctx *ctx, uint32_t ino)
{
	struct extkit_inode in;
	int dirty = 0;

	if (extkit_inode_read(ctx->fs, ino, &in) ||
	    !(in.flags & EXT4_INLINE_DATA_FL))
		return 0;
	if (fsck_inline_check(ctx, ino, &in, &dirty))
		return 1;
	if (dirty)
		fsck_write_inode(ctx, ino, &in);
	return 0;
}

/* The owner's in-inode attributes name a value inode gone bad: they
 * all go, as check_ibody clears them. */
static int ahead_ibody(struct fsck_ctx *ctx, const struct fsck_ea_ahead *a,
		       const char *why)
{
	uint32_t isz = ctx->fs->g.inode_size;
	struct extkit_xattr_region reg;
	struct problem_context pctx;
	uint8_t *raw = malloc(isz);

	if (!raw)
		return -ENOMEM;
	if (extkit_inode_read_raw(ctx->fs, a->owner, raw) ||
	    !extkit_xattr_ibody_region(raw, isz, &reg) ||
	    !region_names(&reg, a->value_inum))
		goto out;
	clear_problem_context(&pctx);
	pctx.ino = a->owner;
	pctx.num = a->value_inum;
	pctx.str = why;
	if (!fix_problem(ctx, PR_1_EA_INODE_BAD, &pctx) || !fsck_fixing(ctx))
		goto out;
	ea_region_unref(ctx, &reg);
	extkit_xattr_ibody_drop(raw, ctx->fs->g.inode_size);
	if (extkit_inode_write_raw(ctx->fs, a->owner, raw)) {
		ctx->flags |= FSCK_FL_UNCORRECTED;
		goto out;
	}
	ctx->flags |= FSCK_FL_CHANGED;
	/* as in pass 1: clearing them takes an inline inode's system.data */
	if (owner_inline_lost(ctx, a->owner))
		goto out;
	owner_drop_blocks(ctx, a->owner, a->blocks);
out:
	free(raw);
	return 0;
}

/* EA block r names a value inode gone bad: the block is bad, and every
 * inode naming it (found by a scan: this is rare) loses it, as pass 1
 * would have decided had the value inode been checked first. */
static void ahead_block(struct fsck_ctx *ctx, struct fsck_ea_rec *r)
{
	uint64_t nblk = ctx->fs->g.cluster_ratio + (uint64_t)r->quota;
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region reg;
	struct extkit_inode in;

	r->problem = EA_BAD_VALUE_INODE;
	for (uint32_t ino = 1; ino <= ctx->fs->sb.inodes_count && r->refs;
	     ino++) {
		if (!fsck_istate_used(&ctx->istate, ino) ||
		    extkit_inode_read(ctx->fs, ino, &in) ||
		    in.file_acl != r->blk ||
		    !ea_report(ctx, PR_1_EA_NOT_VALID, ino, r->blk, ea_why(r)))
			continue;
		in.file_acl = 0;
		if (fsck_write_inode(ctx, ino, &in))
			continue;
		ctx->flags |= FSCK_FL_CHANGED;
		owner_drop_blocks(ctx, ino, nblk);
		if (--r->refs)
			continue;
		/* nobody names it: its entries count no more, pass 5 frees
		 * it */
		fsck_block_unmark(ctx, r->blk, 1);
		if (extkit_fs_read_block(ctx->fs, r->blk, ctx->blkbuf))
			continue;
		extkit_xattr_format_init(ctx->fs, &fmt);
		extkit_xattr_block_region(&fmt, ctx->blkbuf, &reg);
		ea_region_unref(ctx, &reg);
	}
}

int fsck_ea_recheck_ahead(struct fsck_ctx *ctx)
{
	struct fsck_ea_set *set = &ctx->ea;
	struct fsck_ea_rec *r;
	const char *why;
	int rc = 0;

	for (size_t i = 0; i < set->n_ahead && !rc; i++) {
		const struct fsck_ea_ahead *a = &set->ahead[i];

		why = ahead_why(ctx, a);
		if (!why)
			continue;
		if (!a->blk) {
			rc = ahead_ibody(ctx, a, why);
			continue;
		}
		r = ea_find(set, a->blk);
		/* already bad, or copied away by now */
		if (r && !r->problem && r->refs && !r->moved_to)
			ahead_block(ctx, r);
	}
	set->n_ahead = 0;
	return rc;
}

/* ---- end of pass 1: reference counts ---- */

static int cmp_blk(const void *a, const void *b)
{
	uint64_t x = (*(struct fsck_ea_rec *const *)a)->blk;
	uint64_t y = (*(struct fsck_ea_rec *const *)b)->blk;

	return x < y ? -1 : x > y;
}

/* Rewrites h_refcount of blk (a valid EA block) as refs. */
static int ea_write_refcount(struct fsck_ctx *ctx, uint64_t blk,
			     uint32_t refs)
{
	int rc = extkit_fs_read_block(ctx->fs, blk, ctx->blkbuf);

	if (!rc) {
		extkit_xattr_set_refcount(ctx->blkbuf, refs);
		extkit_ea_block_csum_set(ctx->fs, blk, ctx->blkbuf);
		rc = extkit_fs_write_block(ctx->fs, blk, ctx->blkbuf);
	}
	if (rc) {
		ea_report(ctx, PR_1_EA_WRITE, 0, blk, extkit_strerror(rc));
		ctx->flags |= FSCK_FL_UNCORRECTED;
	}
	return rc;
}

static void ea_fix_refcount(struct fsck_ctx *ctx, struct fsck_ea_rec *r)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.blk = r->blk;
	pctx.num = r->refs;
	pctx.num2 = r->disk_refs;
	if (fix_problem(ctx, PR_1_EA_REFCOUNT, &pctx) &&
	    !ea_write_refcount(ctx, r->blk, r->refs))
		r->disk_refs = r->refs;
}

int fsck_ea_refcounts(struct fsck_ctx *ctx)
{
	struct fsck_ea_set *set = &ctx->ea;
	struct fsck_ea_rec **wrong;
	size_t n = 0;

	set->refs_checked = 1;
	for (size_t i = 0; i < set->cap; i++) {
		struct fsck_ea_rec *r = &set->v[i];

		/* Bad blocks are not rewritten; unnamed ones get freed. */
		if (r->blk && !r->problem && r->refs && r->refs != r->disk_refs)
			n++;
	}
	if (!n)
		return 0;
	wrong = malloc(n * sizeof(*wrong));
	if (!wrong)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < set->cap; i++) {
		struct fsck_ea_rec *r = &set->v[i];

		if (r->blk && !r->problem && r->refs && r->refs != r->disk_refs)
			wrong[n++] = r;
	}
	qsort(wrong, n, sizeof(*wrong), cmp_blk);
	for (size_t i = 0; i < n; i++)
		ea_fix_refcount(ctx, wrong[i]);
	free(wrong);
	return 0;
}

/* ---- a deleted inode's reference ---- */

void fsck_ea_release(struct fsck_ctx *ctx,
		     const struct extkit_inode *inode)
{
	uint64_t blk = inode->file_acl;
	struct fsck_ea_rec *r = ea_find(&ctx->ea, blk);
	int uncounted = ea_uncounted(inode);

	if (!r || !(uncounted ? r->uncounted : r->refs))
		return;
	if (uncounted)
		r->uncounted--;
	else
		r->refs--;
	if (!r->refs && !r->uncounted)
		fsck_block_unmark(ctx, blk, 1);
	if (uncounted)
		return;
	/*
	 * In pass 1 the count is settled at its end; later, the block
	 * loses one reference on disk as well (as e2fsck's
	 * deallocate_inode does). A block nobody names is freed by pass 5
	 * whatever its count says.
	 */
	if (!ctx->ea.refs_checked || r->problem || !r->refs ||
	    !r->disk_refs || !fsck_fixing(ctx))
		return;
	if (!ea_write_refcount(ctx, blk, r->disk_refs - 1))
		r->disk_refs--;
}

/* ---- pass 1B: a block claimed as EA block and as something else ---- */

void fsck_ea_shared(struct fsck_ctx *ctx,
		    void (*fn)(struct fsck_ctx *ctx, uint64_t blk, void *arg),
		    void *arg)
{
	struct fsck_ea_set *set = &ctx->ea;

	for (size_t i = 0; i < set->cap; i++) {
		const struct fsck_ea_rec *r = &set->v[i];

		if (r->blk && r->refs && !r->moved_to)
			fn(ctx, r->blk, arg);
	}
}

uint64_t fsck_ea_moved_to(struct fsck_ctx *ctx, uint64_t blk)
{
	struct fsck_ea_rec *r = ea_find(&ctx->ea, blk);

	return r ? r->moved_to : 0;
}

int fsck_ea_copy(struct fsck_ctx *ctx, uint64_t from, uint64_t to)
{
	struct fsck_ea_set *set = &ctx->ea;
	struct fsck_ea_rec *r, moved;
	int rc;

	r = ea_find(set, from);
	if (!r)
		return -EINVAL;
	rc = extkit_fs_read_block(ctx->fs, from, ctx->blkbuf);
	if (rc)
		return rc;
	/* the checksum of an EA block is seeded by its block number */
	if (!r->problem)
		extkit_ea_block_csum_set(ctx->fs, to, ctx->blkbuf);
	rc = extkit_fs_write_block(ctx->fs, to, ctx->blkbuf);
	if (rc)
		return rc;
	/* The names follow: the old record stays as a forwarding note
	 * (open addressing keeps its slot), the new one takes the count. */
	moved = *r;
	moved.blk = to;
	r->moved_to = to;
	r->refs = 0;
	if ((set->n + 1) * 2 > set->cap) {
		rc = ea_grow(set);
		if (rc)
			return rc;
	}
	set->v[ea_slot(set, to)] = moved;
	set->n++;
	return 0;
}
