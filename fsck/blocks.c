// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block ownership for fsck: the found/duplicate maps and the pass 1 scan
 * of one inode's block map (extended attribute blocks: xattr.c).
 *
 * Indirect maps are scanned through the library's walker (walk.c), which
 * reports each bad block number and lets the scan clear it in place;
 * extent trees likewise in extents.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"
#include "walk.h"

#include "fsck.h"
#include "problem.h"

#define IND_LEVELS	3

/* ---- found / duplicate maps ---- */

static uint64_t bit_of(const struct fsck_ctx *ctx, uint64_t blk)
{
	return blk - ctx->fs->sb.first_data_block;
}

int fsck_block_test(struct fsck_ctx *ctx, uint64_t blk)
{
	return extkit_bitmap_test(&ctx->block_found, bit_of(ctx, blk)) == 1;
}

/* Claims count blocks from blk; returns how many were already claimed. */
static uint64_t block_claim(struct fsck_ctx *ctx, uint64_t blk,
			    uint32_t count, uint64_t *first_dup)
{
	uint64_t bit = bit_of(ctx, blk), dups = 0;

	/* shared_blocks (e2fsprogs' deduplicated images): a block may
	 * have several owners, none of them a duplicate (as e2fsck). */
	if (!extkit_bitmap_count_range(&ctx->block_found, bit, count) ||
	    extkit_has_ro_compat(&ctx->fs->sb,
				 EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS)) {
		extkit_bitmap_set_range(&ctx->block_found, bit, count);
		return 0;
	}
	for (uint32_t i = 0; i < count; i++) {
		if (extkit_bitmap_test(&ctx->block_found, bit + i) == 1) {
			if (!dups && first_dup)
				*first_dup = blk + i;
			dups++;
			extkit_bitmap_set(&ctx->block_dup, bit + i);
		} else {
			extkit_bitmap_set(&ctx->block_found, bit + i);
		}
	}
	ctx->dup_blocks += dups;
	return dups;
}

/*
 * What a run of count blocks from blk adds to i_blocks, in blocks. With
 * bigalloc a file holds whole clusters: the run counts its clusters, less
 * the first when the file's previous run ended in it (a partial cluster
 * shared by neighbouring extents, as at the end of one and the start of
 * the next).
 */
static uint64_t claimed_blocks(const struct fsck_ctx *ctx,
			       struct fsck_blk_result *res, uint64_t blk,
			       uint32_t count)
{
	uint32_t bits = ctx->fs->g.cluster_bits;
	uint64_t c0, c1, n;

	if (!bits || !count)
		return count;
	c0 = blk >> bits;
	c1 = (blk + count - 1) >> bits;
	n = c1 - c0 + 1;
	if (res->last_cluster == c0 + 1)
		n--;
	res->last_cluster = c1 + 1;
	return n << bits;
}

void fsck_claim_blocks(struct fsck_ctx *ctx, struct fsck_blk_result *res,
		       uint64_t blk, uint32_t count)
{
	uint64_t first = 0, dups;

	dups = block_claim(ctx, blk, count, &first);
	if (dups && !res->dups)
		res->first_dup = first;
	res->dups += dups;
	res->nblocks += claimed_blocks(ctx, res, blk, count);
}

void fsck_block_mark(struct fsck_ctx *ctx, uint64_t blk, uint32_t count)
{
	block_claim(ctx, blk, count, NULL);
}

void fsck_block_unmark(struct fsck_ctx *ctx, uint64_t blk, uint32_t count)
{
	uint64_t bit = bit_of(ctx, blk);

	/* A block claimed twice stays claimed by the other owner. */
	if (!extkit_bitmap_count_range(&ctx->block_dup, bit, count)) {
		extkit_bitmap_clear_range(&ctx->block_found, bit, count);
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		if (extkit_bitmap_test(&ctx->block_dup, bit + i) != 1)
			extkit_bitmap_clear(&ctx->block_found, bit + i);
}

void fsck_block_unmark_owned(struct fsck_ctx *ctx, uint64_t blk)
{
	extkit_bitmap_clear(&ctx->block_dup, bit_of(ctx, blk));
	extkit_bitmap_clear(&ctx->block_found, bit_of(ctx, blk));
}

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
	dups = block_claim(s->ctx, s->run_start, s->run_len, &first);
	if (dups && !s->res->dups)
		s->res->first_dup = first;
	s->res->dups += dups;
	s->run_len = 0;
}

/* Notes whether blocks arrive in one physical run (pass 1's count of
 * non-contiguous files, as e2fsck counts them: map blocks included). */
void fsck_note_order(struct fsck_blk_result *res, uint64_t blk,
		     uint32_t count)
{
	if (res->next_pblk && blk != res->next_pblk)
		res->fragmented = 1;
	res->next_pblk = blk + count;
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
		uint32_t b = get_le32(buf + 4 * i);

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

/* Whether blk is one of group g's superblock copy, descriptors,
 * bitmaps or inode table. Reserved GDT blocks are not: the resize
 * inode's indirect blocks are there. */
int fsck_group_meta_has(const struct extkit_fs *fs, uint32_t g, uint64_t blk)
{
	const struct extkit_group *gd = &fs->groups[g];
	uint64_t first = extkit_group_first_block(&fs->sb, g), sb_end = first;

	if (extkit_super_group_has_backup(&fs->sb, g))
		sb_end += 1 + (extkit_has_incompat(&fs->sb,
				EXT2_FEATURE_INCOMPAT_META_BG) ? 0 :
			       fs->g.gdt_blocks);
	return (blk >= first && blk < sb_end) ||
	       blk == gd->block_bitmap || blk == gd->inode_bitmap ||
	       (gd->inode_table && blk >= gd->inode_table &&
		blk < gd->inode_table + fs->g.itable_blocks);
}

/*
 * Whether blk is group metadata: of its own group, or with flex_bg of
 * the groups whose metadata mkfs packs in its group (the flex group it
 * starts). Metadata moved elsewhere is not seen (pass 1B clones it then).
 */
/* The groups whose metadata may lie at blk: [*g, *last]. */
static int meta_groups(const struct extkit_fs *fs, uint64_t blk, uint64_t *g,
		       uint64_t *last)
{
	if (blk < fs->sb.first_data_block || blk >= fs->sb.blocks_count)
		return 0;
	*g = extkit_group_of_block(&fs->sb, blk);
	*last = *g;
	if (extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_FLEX_BG) &&
	    fs->sb.log_groups_per_flex < 32)
		*last = *g + (1ull << fs->sb.log_groups_per_flex) - 1;
	if (*last >= fs->g.group_count)
		*last = fs->g.group_count - 1;
	return 1;
}

int fsck_block_is_group_meta(const struct fsck_ctx *ctx, uint64_t blk)
{
	const struct extkit_fs *fs = ctx->fs;
	uint64_t g, last;

	if (!meta_groups(fs, blk, &g, &last))
		return 0;
	for (uint64_t o = g; o <= last; o++)
		if (fsck_group_meta_has(fs, (uint32_t)o, blk))
			return 1;
	return 0;
}

/* Whether blk is only a bitmap (no superblock copy, descriptor or inode
 * table block of any group its flex group packs). */
static int only_bitmap(const struct extkit_fs *fs, uint64_t blk)
{
	uint64_t g, last;
	int bitmap = 0;

	if (!meta_groups(fs, blk, &g, &last))
		return 0;
	for (uint64_t o = g; o <= last; o++) {
		const struct extkit_group *gd = &fs->groups[o];

		if (blk == gd->block_bitmap || blk == gd->inode_bitmap)
			bitmap = 1;
		else if (fsck_group_meta_has(fs, (uint32_t)o, blk))
			return 0;
	}
	return bitmap;
}

/* Every number of buf a valid block or 0, one at least not 0. */
static int whole_map(const struct extkit_fs *fs, const uint8_t *buf)
{
	uint32_t used = 0;

	for (uint32_t i = 0; i < fs->g.addr_per_block; i++) {
		uint32_t b = get_le32(buf + 4 * i);

		if (b && !extkit_fs_valid_block(fs, b))
			return 0;
		used += b != 0;
	}
	return used != 0;
}

/*
 * Whether the indirect block blk holding buf is group metadata read as a
 * map (dropped in pass 1, skipped by the clone). A bitmap place holding
 * a valid map through and through (no bitmap of a used group reads so)
 * is a descriptor pointing its bitmap at a file's indirect block: the
 * descriptor is the liar. The map is kept; the block is claimed twice,
 * and pass 1B gives the file a copy of it before pass 5 writes the
 * bitmap there (e2fsck: "conflicts with critical metadata", cloned in
 * pass 1D).
 */
int fsck_ind_is_group_meta(const struct fsck_ctx *ctx, uint64_t blk,
			   const uint8_t *buf)
{
	if (!fsck_block_is_group_meta(ctx, blk))
		return 0;
	return !(only_bitmap(ctx->fs, blk) && whole_map(ctx->fs, buf));
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
