// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Group metadata out of place, when no backup descriptor is usable.
 *
 * A group descriptor names three places (bg_block_bitmap, bg_inode_bitmap,
 * bg_inode_table). Pass 0 falls back to the backup descriptors when one of
 * them is wrong; when no backup is usable (a one-group filesystem has
 * none), this file takes over, one place at a time:
 *
 *   - it predicts where mkfs put the place: from another group's layout
 *     (without flex_bg every group has its bitmaps and table at the same
 *     offset past its superblock copy; with flex_bg the neighbour's place
 *     plus one), or, with no usable group to learn from, mke2fs' own
 *     layout of a new filesystem (block bitmap, inode bitmap, inode
 *     table right after the superblock copy; with flex_bg, the flex
 *     group's runs of each). A predicted inode table is taken only if most
 *     of its blocks read as inodes. Using the prediction keeps every inode
 *     the table holds, which relocating cannot (e2fsck relocates);
 *   - otherwise the place is relocated: pass 0 marks it invalid (0) so
 *     that pass 1 neither claims it nor reads inodes from it, and the end
 *     of pass 1 gives it free blocks of its group, zeroed. Pass 5 then
 *     rewrites the bitmaps; a zeroed table frees that group's inodes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"
#include "owners.h"

#include "fsck.h"
#include "problem.h"

enum meta_kind { META_BB, META_IB, META_IT, META_KINDS };

static const char *const meta_name[META_KINDS] = {
	"block bitmap", "inode bitmap", "inode table",
};

static uint64_t *meta_field(struct extkit_group *gd, int k)
{
	return k == META_BB ? &gd->block_bitmap :
	       k == META_IB ? &gd->inode_bitmap : &gd->inode_table;
}

static uint64_t meta_len(const struct extkit_fs *fs, int k)
{
	return k == META_IT ? fs->g.itable_blocks : 1;
}

static int flex_bg(const struct extkit_fs *fs)
{
	return extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_FLEX_BG);
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* Blocks group g's metadata may use: the group, or with flex_bg the fs. */
static void meta_range(const struct extkit_fs *fs, uint32_t g, uint64_t *lo,
		       uint64_t *hi)
{
	*lo = fs->sb.first_data_block;
	*hi = fs->sb.blocks_count;
	if (!flex_bg(fs)) {
		*lo = extkit_group_first_block(&fs->sb, g);
		*hi = *lo + extkit_group_block_count(&fs->sb, g);
	}
}

/*
 * The first block past the superblock copy and descriptor blocks of a
 * group that blk..+len overlaps, or blk when it overlaps none. Any
 * group's: with flex_bg a run of tables crosses groups, and meta_bg
 * puts descriptor blocks in the first, second and last group of each
 * meta group (mke2fs allocates a table past them).
 */
static uint64_t past_sb_copy(const struct extkit_fs *fs, uint64_t blk,
			     uint64_t len)
{
	uint64_t fdb = fs->sb.first_data_block, bpg = fs->sb.blocks_per_group;
	uint64_t g, last;

	if (blk < fdb || !len || !bpg)
		return blk;
	last = extkit_group_of_block(&fs->sb, blk + len - 1);
	for (g = extkit_group_of_block(&fs->sb, blk);
	     g <= last && g < fs->g.group_count; g++) {
		uint64_t first = extkit_group_first_block(&fs->sb, (uint32_t)g);
		uint64_t meta = extkit_group_sb_overhead(&fs->sb, &fs->g,
							 (uint32_t)g);

		if (meta && overlaps(blk, len, first, meta))
			return first + meta;
	}
	return blk;
}

/* Where mke2fs' allocator puts a run of len blocks it looks for from
 * blk on: past any superblock copy or descriptor block in the way. */
static uint64_t skip_sb_copies(const struct extkit_fs *fs, uint64_t blk,
			       uint64_t len)
{
	uint64_t next;

	while (blk && blk < fs->sb.blocks_count &&
	       (next = past_sb_copy(fs, blk, len)) != blk)
		blk = next;
	return blk;
}

/*
 * Whether place blk of kind k fits group g: inside its range, clear of
 * every superblock copy and descriptor block, and clear of the group's
 * other kinds that are not in bad_mask (the block bitmap's predicted
 * place may hold the inode bitmap of an older layout, say).
 */
static int place_fits(const struct extkit_fs *fs, uint32_t g, int k,
		      uint64_t blk, uint8_t bad_mask)
{
	const struct extkit_group *gd = &fs->groups[g];
	uint64_t len = meta_len(fs, k), lo, hi;

	meta_range(fs, g, &lo, &hi);
	if (blk < lo || blk + len > hi || blk + len < blk)
		return 0;
	if (past_sb_copy(fs, blk, len) != blk)
		return 0;
	for (int j = 0; j < META_KINDS; j++) {
		uint64_t other = *meta_field((struct extkit_group *)gd, j);

		if (j != k && !(bad_mask & (1u << j)) && other &&
		    overlaps(blk, len, other, meta_len(fs, j)))
			return 0;
	}
	return 1;
}

/* Whether blk..+len is clear of every other group's good places. */
static int clear_of_others(const struct extkit_fs *fs, uint32_t g,
			   uint64_t blk, uint64_t len, const uint8_t *bad)
{
	for (uint32_t o = 0; o < fs->g.group_count; o++) {
		if (o == g)
			continue;
		for (int j = 0; j < META_KINDS; j++) {
			uint64_t p = *meta_field(&fs->groups[o], j);

			if (!(bad[o] & (1u << j)) && p &&
			    overlaps(blk, len, p, meta_len(fs, j)))
				return 0;
		}
	}
	return 1;
}

/* A group whose places are all good, other than g, or -1. */
static int64_t model_group(const struct extkit_fs *fs, uint32_t g,
			   const uint8_t *bad)
{
	for (uint32_t o = 0; o < fs->g.group_count; o++)
		if (o != g && !bad[o])
			return o;
	return -1;
}

/*
 * With flex_bg and no neighbour to learn from (a one-group filesystem,
 * say): where mke2fs puts place k of group g on a new filesystem. The
 * first group of the flex group holds, after its superblock copy and
 * descriptors, the flex group's block bitmaps one after another, then
 * its inode bitmaps, then its inode tables; the runs start a flex group
 * size apart (s_log_groups_per_flex), or, in the last flex group, the
 * number of its groups (a whole flex group's size when that is one).
 */
static uint64_t flex_fresh_place(const struct extkit_fs *fs, uint32_t g, int k)
{
	uint32_t flex, first, last, step;
	uint64_t base;

	if (fs->sb.log_groups_per_flex > 31)
		return 0;
	flex = 1u << fs->sb.log_groups_per_flex;
	first = g & ~(flex - 1);
	last = g | (flex - 1);
	step = flex;
	base = extkit_group_first_block(&fs->sb, first) +
	       extkit_group_sb_overhead(&fs->sb, &fs->g, first);
	if (last >= fs->g.group_count - 1) {
		last = fs->g.group_count - 1;
		step = (last & (flex - 1)) ? (last & (flex - 1)) + 1 : flex;
	}
	if (k == META_BB)
		return base + (g - first);
	if (k == META_IB)
		return base + step + (g - first);
	return base + 2ull * step + (uint64_t)(g - first) * meta_len(fs, k);
}

/* Where mkfs would have put place k of group g; 0 when unknown. */
static uint64_t predict(const struct extkit_fs *fs, uint32_t g, int k,
			const uint8_t *bad)
{
	uint64_t base = extkit_group_first_block(&fs->sb, g) +
			extkit_group_sb_overhead(&fs->sb, &fs->g, g);
	int64_t m = model_group(fs, g, bad);

	if (flex_bg(fs)) {
		uint32_t flex = fs->sb.log_groups_per_flex > 31 ? 0 :
				1u << fs->sb.log_groups_per_flex;
		uint64_t len = meta_len(fs, k), guess;

		/* mke2fs packs each kind of a flex group in a run (the
		 * first group of a flex group starts a new one), past
		 * the superblock copies and descriptors in its way. */
		if (g > 0 && !(bad[g - 1] & (1u << k)) && (g & (flex - 1)))
			guess = *meta_field(&fs->groups[g - 1], k) + len;
		else if (g + 1 < fs->g.group_count &&
			 !(bad[g + 1] & (1u << k)) && ((g + 1) & (flex - 1)))
			guess = *meta_field(&fs->groups[g + 1], k) - len;
		else
			guess = flex_fresh_place(fs, g, k);
		return skip_sb_copies(fs, guess, len);
	}
	if (m >= 0) {
		uint32_t o = (uint32_t)m;
		uint64_t obase = extkit_group_first_block(&fs->sb, o) +
				 extkit_group_sb_overhead(&fs->sb, &fs->g, o);

		return base + (*meta_field(&fs->groups[o], k) - obase);
	}
	return base + (k == META_BB ? 0 : k == META_IB ? 1 : 2);
}

/* A plausible inode: unused, or a mode of a known file type. */
static int inode_plausible(const uint8_t *raw)
{
	struct extkit_inode_stored st;
	uint16_t mode, links;

	/* the core's fields only: any inode size */
	extkit_inode_stored_get(raw, EXT2_INODE_CORE_SIZE, &st);
	mode = st.mode;
	links = st.links_count;
	switch (mode & S_IFMT) {
	case S_IFREG: case S_IFDIR: case S_IFLNK: case S_IFCHR:
	case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		return 1;
	case 0:
		return mode == 0 && links == 0;
	}
	return 0;
}

/*
 * Whether the table at blk reads as inodes: at least half of its blocks
 * hold only plausible inodes. A first block that is garbage (the root's
 * block overwritten, say) does not condemn the table: pass 1 clears what
 * is bad and keeps the rest, where relocating would zero it all.
 */
int fsck_looks_like_itable(struct fsck_ctx *ctx, uint64_t blk)
{
	const struct extkit_fs *fs = ctx->fs;
	uint32_t isz = fs->g.inode_size, nblk = fs->g.itable_blocks;
	uint8_t *buf = malloc(fs->g.block_size);
	uint32_t good = 0;

	for (uint32_t b = 0; buf && b < nblk; b++) {
		int ok = !extkit_fs_read_block(ctx->fs, blk + b, buf);

		for (uint32_t i = 0; ok && i < fs->g.inodes_per_block; i++)
			ok = inode_plausible(buf + (size_t)i * isz);
		good += ok;
	}
	free(buf);
	return nblk && good * 2 >= nblk;
}

/* Whether blk..+len is clear of the metadata reserved inodes and the
 * superblock name (journal, resize inode, MMP, orphan and quota files). */
static int clear_of_inode_claims(const struct extkit_owners *o, uint64_t blk,
				 uint64_t len)
{
	struct extkit_claim with[8];
	size_t n = extkit_owners_find(o, blk, len, NULL, with, 8);

	for (size_t i = 0; i < n && i < 8; i++)
		if (with[i].kind >= EXTKIT_OWN_RESIZE)
			return 0;
	return n <= 8;
}

/* Whether group g's table at blk..+len overlaps no claim but superblock
 * copies, descriptor and reserved GDT blocks (no other group's place, no
 * journal: inodes read there would be another's). */
static int only_fixed_claims(const struct extkit_owners *o, uint32_t g,
			     uint64_t blk, uint64_t len)
{
	struct extkit_claim self = { .start = blk, .len = len, .group = g,
				     .kind = EXTKIT_OWN_INODE_TABLE };
	struct extkit_claim with[8];
	size_t n = extkit_owners_find(o, blk, len, &self, with, 8);

	for (size_t i = 0; i < n && i < 8; i++)
		if (with[i].kind > EXTKIT_OWN_RESERVED_GDT)
			return 0;
	return n <= 8;
}

/* Whether the inode table of group g, to be relocated, is read where it
 * is and moved with its contents: inside the filesystem, over nothing
 * but the superblock's own blocks, and reading as inodes (a superblock
 * whose s_reserved_gdt_blocks grew over it, say). */
static int keeps_table(struct fsck_ctx *ctx, const struct extkit_owners *o,
		       uint32_t g, int k)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t at = fs->groups[g].inode_table, len = fs->g.itable_blocks;

	return k == META_IT && at > fs->sb.first_data_block &&
	       at + len <= fs->sb.blocks_count && at + len > at &&
	       only_fixed_claims(o, g, at, len) &&
	       fsck_looks_like_itable(ctx, at);
}

static int holds_root_dir(struct fsck_ctx *ctx, uint64_t blk);

/* Whether predicted table guess is group g's table at (k) shifted: the
 * two overlap and only at holds the root directory (group 0). */
static int shifted(struct fsck_ctx *ctx, uint32_t g, int k, uint64_t guess)
{
	uint64_t at = *meta_field(&ctx->fs->groups[g], k);
	uint64_t len = meta_len(ctx->fs, k);

	return g == 0 && guess && overlaps(guess, len, at, len) &&
	       holds_root_dir(ctx, at) && !holds_root_dir(ctx, guess);
}

/* Decides place k of group g, which does not fit. */
static void fix_place(struct fsck_ctx *ctx, uint32_t g, int k, uint8_t *bad,
		      const struct extkit_owners *o)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t *field = meta_field(&fs->groups[g], k);
	uint64_t guess = predict(fs, g, k, bad);
	struct problem_context pctx;
	int keep = keeps_table(ctx, o, g, k);
	/* a bitmap the descriptor names no block for: e2fsck places it
	 * unasked (a new bitmap is built in pass 5; a table is not), when
	 * block 0 passes its range check (the group's first block, the
	 * filesystem's with flex_bg, is 0); else it asks to relocate */
	int bitmap_missing = *field == 0 && k != META_IT &&
			     fs->sb.first_data_block == 0 &&
			     (flex_bg(fs) || g == 0);

	clear_problem_context(&pctx);
	pctx.group = g;
	pctx.blk = *field;
	pctx.str = meta_name[k];
	/* a predicted table overlapping a table that reads as inodes is
	 * that table shifted, its inodes renumbered: moved whole instead */
	if (keep && shifted(ctx, g, k, guess))
		guess = 0;
	if (guess && place_fits(fs, g, k, guess, bad[g]) &&
	    clear_of_others(fs, g, guess, meta_len(fs, k), bad) &&
	    clear_of_inode_claims(o, guess, meta_len(fs, k)) &&
	    (k != META_IT || fsck_looks_like_itable(ctx, guess))) {
		pctx.num = guess;
		if (fix_problem(ctx, bitmap_missing ? PR_0_BITMAP_PREDICTED :
				PR_0_META_PREDICTED, &pctx)) {
			*field = guess;
			bad[g] &= (uint8_t)~(1u << k);
			ctx->flags |= FSCK_FL_SB_DIRTY;
			return;
		}
		/* -n: the check reads the place the layout predicts (as it
		 * reads a backup's descriptors), writing nothing */
		if (ctx->readonly) {
			*field = guess;
			bad[g] &= (uint8_t)~(1u << k);
			return;
		}
	} else if (fix_problem(ctx, bitmap_missing ? PR_0_BITMAP_RELOCATE :
			       PR_0_META_RELOCATE, &pctx) ||
		   (keep && ctx->readonly)) {
		if (keep)
			bad[g] |= FSCK_RELOC_KEEP_IT;
		else
			*field = 0;
		return;
	}
	/* Declined: a read-only check goes on without the place; a
	 * repair cannot write descriptors that name nothing. */
	*field = 0;
	if (!ctx->readonly)
		fix_problem(ctx, PR_0_GDT_UNFIXABLE, &pctx);
}

/*
 * Marks group g's places that do not fit. Each is first checked alone;
 * of two that overlap, the one away from its predicted place is blamed
 * (the later one when neither or both are there).
 */
static void find_bad_places(const struct extkit_fs *fs, uint32_t g,
			    uint8_t *bad)
{
	const uint8_t all = (1u << META_KINDS) - 1;
	uint64_t at[META_KINDS];

	for (int k = 0; k < META_KINDS; k++) {
		at[k] = *meta_field(&fs->groups[g], k);
		if (!place_fits(fs, g, k, at[k], all))
			bad[g] |= (uint8_t)(1u << k);
	}
	for (int k = 1; k < META_KINDS; k++)
		for (int j = 0; j < k; j++) {
			int kj = 1 << j, kk = 1 << k;

			if ((bad[g] & (kj | kk)) ||
			    !overlaps(at[j], meta_len(fs, j), at[k],
				      meta_len(fs, k)))
				continue;
			if (at[k] == predict(fs, g, k, bad) &&
			    at[j] != predict(fs, g, j, bad))
				bad[g] |= (uint8_t)kj;
			else
				bad[g] |= (uint8_t)kk;
		}
}

/*
 * Whether place k of group g is where mkfs put it: predict()'s place, or
 * with flex_bg the place next to either neighbour's or mke2fs' own for a
 * new filesystem (a neighbour that is itself wrong misleads predict()).
 */
static int at_mkfs_place(const struct extkit_fs *fs, uint32_t g, int k,
			 const uint8_t *bad)
{
	uint64_t at = fsck_place_at(fs, g, k), len = meta_len(fs, k);

	if (at == predict(fs, g, k, bad))
		return 1;
	if (!flex_bg(fs))
		return 0;
	if (g > 0 && at == *meta_field(&fs->groups[g - 1], k) + len)
		return 1;
	if (g + 1 < fs->g.group_count &&
	    at + len == *meta_field(&fs->groups[g + 1], k))
		return 1;
	return at == skip_sb_copies(fs, flex_fresh_place(fs, g, k), len);
}

/*
 * Whether place k of group g is to blame for overlapping claim w of the
 * ownership map: a superblock copy, descriptor or reserved GDT block
 * always wins; of two groups' places, the one away from where mkfs put
 * it is blamed (the later group when neither or both are); the metadata
 * of a reserved inode (the journal, say) wins over a place away from
 * mkfs' place, and loses to one there (pass 1 judges the inode then).
 */
static int blamed(const struct extkit_fs *fs, uint32_t g, int k,
		  const struct extkit_claim *w, const uint8_t *bad)
{
	int mine = at_mkfs_place(fs, g, k, bad);
	int wk = w->kind - EXTKIT_OWN_BLOCK_BITMAP;

	if (w->kind < EXTKIT_OWN_BLOCK_BITMAP)
		return 1;
	if (w->kind >= EXTKIT_OWN_RESIZE)
		return !mine;
	if (w->group == g || (bad[w->group] & (1u << wk)))
		return 0;	/* judged in the group, or moving anyway */
	if (mine != at_mkfs_place(fs, w->group, wk, bad))
		return !mine;
	return g > w->group;
}

/* Marks group g's places that overlap another group's or what the
 * superblock and reserved inodes name (find_bad_places judged the rest). */
static void find_shared_places(const struct extkit_fs *fs, uint32_t g,
			       uint8_t *bad, const struct extkit_owners *o)
{
	struct extkit_claim with[8];

	for (int k = 0; k < META_KINDS; k++) {
		size_t n;

		if (bad[g] & (1u << k))
			continue;
		n = fsck_place_conflicts(o, fs, g, k, with, 8);
		for (size_t i = 0; i < n && i < 8; i++)
			if (blamed(fs, g, k, &with[i], bad)) {
				bad[g] |= (uint8_t)(1u << k);
				break;
			}
	}
}

/*
 * Group g's inode table fits but is garbage: it is away from mkfs'
 * place, does not read as inodes, and mkfs' place, clear of every other
 * claim, does (a table field pointed at file data: pass 1 would clear
 * every "inode" there, over the file). Only such tables are read.
 */
static int table_garbled(struct fsck_ctx *ctx, uint32_t g, const uint8_t *bad,
			 const struct extkit_owners *o)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t at = fs->groups[g].inode_table, len = meta_len(fs, META_IT);
	uint64_t guess;

	if ((bad[g] & (1u << META_IT)) || at_mkfs_place(fs, g, META_IT, bad))
		return 0;
	guess = predict(fs, g, META_IT, bad);
	if (!guess || guess == at ||
	    !place_fits(fs, g, META_IT, guess, bad[g]) ||
	    !clear_of_others(fs, g, guess, len, bad) ||
	    !clear_of_inode_claims(o, guess, len))
		return 0;
	return !fsck_looks_like_itable(ctx, at) &&
	       fsck_looks_like_itable(ctx, guess);
}

int fsck_tables_garbled(struct fsck_ctx *ctx, const char **why)
{
	static char buf[160];
	struct extkit_fs *fs = ctx->fs;
	uint8_t *bad = calloc(fs->g.group_count, 1);
	struct extkit_owners o;
	int yes = 0;

	if (!bad || fsck_owners_build(fs, &o)) {
		free(bad);
		return 0;
	}
	for (uint32_t g = 0; g < fs->g.group_count && !yes; g++) {
		if (!table_garbled(ctx, g, bad, &o))
			continue;
		snprintf(buf, sizeof(buf), "group %" PRIu32 "'s inode table "
			 "(block %" PRIu64 ") holds no inodes; mkfs' place for "
			 "it does", g, fs->groups[g].inode_table);
		*why = buf;
		yes = 1;
	}
	extkit_owners_free(&o);
	free(bad);
	return yes;
}

/* Whether the inode table at blk holds a root directory (inode 2). */
static int holds_root_dir(struct fsck_ctx *ctx, uint64_t blk)
{
	const struct extkit_fs *fs = ctx->fs;
	uint64_t off = (uint64_t)(EXT2_ROOT_INO - 1) * fs->g.inode_size;
	uint8_t *buf = malloc(fs->g.block_size);
	int yes = 0;

	if (buf && !extkit_fs_read_block(ctx->fs, blk + off / fs->g.block_size,
					 buf)) {
		struct extkit_inode_stored st;

		extkit_inode_stored_get(buf + off % fs->g.block_size,
					EXT2_INODE_CORE_SIZE, &st);
		yes = (st.mode & S_IFMT) == S_IFDIR && st.links_count >= 2;
	}
	free(buf);
	return yes;
}

/* Where mkfs put group 0's inode table when it is not where group 0's
 * descriptor says and holds a root directory there, while the named
 * table holds none; else 0. */
static uint64_t better_first_table(struct fsck_ctx *ctx, const uint8_t *bad)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t at = fs->groups[0].inode_table;
	uint64_t guess;

	if ((bad[0] & (1u << META_IT)) || !at)
		return 0;
	guess = predict(fs, 0, META_IT, bad);
	if (!guess || guess == at ||
	    !place_fits(fs, 0, META_IT, guess, bad[0]) ||
	    holds_root_dir(ctx, at) || !holds_root_dir(ctx, guess))
		return 0;
	return guess;
}

/*
 * Group 0's descriptor is garbled when one of its places is bad, or when
 * its inode table holds no root directory and the one at mkfs' place
 * does (a descriptor block overwritten with, say, an indirect block
 * names places that all fit). Its inode table field is blamed then (the
 * prediction keeps every inode; reading the wrong table would clear them
 * all), and when nothing else was bad, its bitmap fields away from mkfs'
 * places too: pass 5 would write bitmaps over whatever they name.
 */
static void check_first_table(struct fsck_ctx *ctx, uint8_t *bad)
{
	struct extkit_fs *fs = ctx->fs;
	struct problem_context pctx;
	uint8_t was = bad[0];
	uint64_t guess = better_first_table(ctx, bad);

	if (!guess)
		return;
	bad[0] |= (uint8_t)(1u << META_IT);
	if (was)
		return;
	clear_problem_context(&pctx);
	pctx.blk = fs->groups[0].inode_table;
	pctx.num = guess;
	fix_problem(ctx, PR_0_GDT_GARBLED, &pctx);
	for (int k = META_BB; k < META_IT; k++)
		if (*meta_field(&fs->groups[0], k) != predict(fs, 0, k, bad))
			bad[0] |= (uint8_t)(1u << k);
}

int fsck_first_table_garbled(struct fsck_ctx *ctx)
{
	uint8_t *bad = calloc(ctx->fs->g.group_count, 1);
	int yes = bad && better_first_table(ctx, bad) != 0;

	free(bad);
	return yes;
}

/* Whether the block at blk reads as group g's block bitmap for the
 * places at[]: a block bitmap marks its group's own bitmaps and inode
 * table in use, so each of their blocks inside the group is set. */
static int looks_like_block_bitmap(struct fsck_ctx *ctx, uint32_t g,
				   uint64_t blk, const uint64_t at[META_KINDS])
{
	const struct extkit_fs *fs = ctx->fs;
	uint64_t first = extkit_group_first_block(&fs->sb, g);
	uint64_t n = extkit_group_block_count(&fs->sb, g);
	uint8_t *buf = malloc(fs->g.block_size);
	int yes = buf && !extkit_fs_read_block(ctx->fs, blk, buf);

	for (int k = 0; yes && k < META_KINDS; k++)
		for (uint64_t b = at[k]; yes && b < at[k] + meta_len(fs, k);
		     b++)
			if (b >= first && b - first < n)
				yes = buf[(b - first) >> 3] >>
				      ((b - first) & 7) & 1;
	free(buf);
	return yes;
}

/*
 * A descriptor with another place bad is garbled: its block bitmap,
 * though it fits, is blamed too when it is not where mkfs put it, the
 * block it names does not read as the group's block bitmap and mkfs'
 * place does (pass 5 would write the bitmap over whatever it names: a
 * file's indirect block in campaign ea seed 367).
 */
static void check_garbled_bitmap(struct fsck_ctx *ctx, uint32_t g,
				 uint8_t *bad)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t at[META_KINDS], cur, guess;

	if (!bad[g] || (bad[g] & (1u << META_BB)) || fs->g.cluster_bits)
		return;
	for (int k = 0; k < META_KINDS; k++)
		at[k] = bad[g] & (1u << k) ? predict(fs, g, k, bad) :
			*meta_field(&fs->groups[g], k);
	cur = at[META_BB];
	guess = predict(fs, g, META_BB, bad);
	if (!guess || guess == cur ||
	    !place_fits(fs, g, META_BB, guess, bad[g]) ||
	    !clear_of_others(fs, g, guess, 1, bad))
		return;
	at[META_BB] = guess;
	if (!looks_like_block_bitmap(ctx, g, guess, at))
		return;
	at[META_BB] = cur;
	if (!looks_like_block_bitmap(ctx, g, cur, at))
		bad[g] |= (uint8_t)(1u << META_BB);
}

/*
 * A group whose inode table is bad: when mkfs' place for it reads as
 * inodes, a bitmap the descriptor names inside that place is garbled too
 * (it fits on its own, but keeping it would push the table elsewhere,
 * zeroed, and every inode with it: campaign kernel seed 127, an inode
 * bitmap field pointing into the table of a one-group filesystem).
 */
static void check_bitmaps_in_table(struct fsck_ctx *ctx, uint32_t g,
				   uint8_t *bad)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t guess, len = meta_len(fs, META_IT);
	uint8_t inside = 0;

	if (!(bad[g] & (1u << META_IT)))
		return;
	guess = predict(fs, g, META_IT, bad);
	if (!guess || !place_fits(fs, g, META_IT, guess,
				    (1u << META_BB) | (1u << META_IB)) ||
	    !clear_of_others(fs, g, guess, len, bad))
		return;
	for (int k = META_BB; k < META_IT; k++) {
		uint64_t at = *meta_field(&fs->groups[g], k);

		if (!(bad[g] & (1u << k)) && at &&
		    overlaps(at, 1, guess, len))
			inside |= (uint8_t)(1u << k);
	}
	if (inside && fsck_looks_like_itable(ctx, guess))
		bad[g] |= inside;
}

int fsck_check_group_places(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t ng = fs->g.group_count;

	struct extkit_owners o;

	ctx->relocate = calloc(ng, 1);
	if (!ctx->relocate || fsck_owners_build(fs, &o))
		return -ENOMEM;
	for (uint32_t g = 0; g < ng; g++)
		find_bad_places(fs, g, ctx->relocate);
	for (uint32_t g = 0; g < ng; g++)
		find_shared_places(fs, g, ctx->relocate, &o);
	for (uint32_t g = 0; g < ng; g++)
		if (table_garbled(ctx, g, ctx->relocate, &o))
			ctx->relocate[g] |= (uint8_t)(1u << META_IT);
	check_first_table(ctx, ctx->relocate);
	for (uint32_t g = 0; g < ng; g++) {
		check_bitmaps_in_table(ctx, g, ctx->relocate);
		check_garbled_bitmap(ctx, g, ctx->relocate);
	}
	for (uint32_t g = 0; g < ng && !(ctx->flags & FSCK_FL_ABORT); g++)
		for (int k = 0; k < META_KINDS; k++)
			if (ctx->relocate[g] & (1u << k))
				fix_place(ctx, g, k, ctx->relocate, &o);
	extkit_owners_free(&o);
	return ctx->flags & FSCK_FL_ABORT ? -EFSCORRUPTED : 0;
}

/* Whether group g's inode table moves with its contents. */
static int keeps(const struct fsck_ctx *ctx, uint32_t g, int k)
{
	return k == META_IT && (ctx->relocate[g] & FSCK_RELOC_KEEP_IT);
}

/* The run of free blocks place k of group g moves to, taken in the
 * maps; 0 when its group has none. A table moving with its contents
 * goes to blocks clear of its old place (which pass 1 did not claim). */
static uint64_t take_place(struct fsck_ctx *ctx, uint32_t g, int k)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t len = meta_len(fs, k), lo, hi, blk, from, end;
	uint64_t at = *meta_field(&fs->groups[g], k);

	meta_range(fs, g, &lo, &hi);
	for (from = lo; from + len <= hi; from = end) {
		if (extkit_bitmap_find_zero_run(&ctx->block_found,
						from - fs->sb.first_data_block,
						hi - from, len, &blk))
			return 0;
		blk += fs->sb.first_data_block;
		end = at + len;
		if (!keeps(ctx, g, k) || !overlaps(blk, len, at, len)) {
			fsck_block_mark(ctx, blk, (uint32_t)len);
			return blk;
		}
	}
	return 0;
}

/* Fills the new blocks of place k of group g (zeroes, or the old place's
 * contents) and points it there. */
static int move_place(struct fsck_ctx *ctx, uint32_t g, int k, uint64_t blk,
		      uint8_t *buf)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t at = *meta_field(&fs->groups[g], k);
	struct problem_context pctx;
	int rc;

	memset(buf, 0, fs->g.block_size);
	for (uint64_t i = 0; i < meta_len(fs, k); i++) {
		rc = keeps(ctx, g, k) ?
		     extkit_fs_read_block(fs, at + i, buf) : 0;
		if (!rc)
			rc = extkit_fs_write_block(fs, blk + i, buf);
		if (rc)
			return rc;
	}
	*meta_field(&fs->groups[g], k) = blk;
	ctx->flags |= FSCK_FL_SB_DIRTY;
	fsck_mark_changed(ctx);
	clear_problem_context(&pctx);
	pctx.group = g;
	pctx.str = meta_name[k];
	pctx.blk = blk;
	fix_problem(ctx, PR_1_META_RELOCATED, &pctx);
	return 0;
}

static int needs_place(const struct fsck_ctx *ctx, uint32_t g, int k)
{
	return (ctx->relocate[g] & (1u << k)) &&
	       (!*meta_field(&ctx->fs->groups[g], k) || keeps(ctx, g, k));
}

/*
 * All or nothing: every place to move gets its run first (taken in the
 * maps, so two places never share one); when a group has no room for
 * one, the runs are given back and nothing has been written. Then each
 * run is zeroed (or gets the old table's contents) and its place pointed
 * there.
 */
int fsck_relocate_group_places(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t ng = fs->g.group_count;
	struct problem_context pctx;
	uint64_t *to;
	uint8_t *buf;
	int rc = 0;

	if (!ctx->relocate || ctx->readonly)
		return 0;
	buf = malloc(fs->g.block_size);
	to = calloc((size_t)ng * META_KINDS, sizeof(*to));
	if (!buf || !to) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t g = 0; g < ng && !rc; g++)
		for (int k = 0; k < META_KINDS && !rc; k++) {
			if (!needs_place(ctx, g, k))
				continue;
			to[g * META_KINDS + k] = take_place(ctx, g, k);
			if (to[g * META_KINDS + k])
				continue;
			clear_problem_context(&pctx);
			pctx.group = g;
			pctx.str = meta_name[k];
			fix_problem(ctx, PR_1_META_NO_SPACE, &pctx);
			rc = -ENOSPC;
		}
	for (uint32_t i = 0; rc && i < ng * META_KINDS; i++)
		if (to[i])
			fsck_block_unmark(ctx, to[i], (uint32_t)meta_len(fs,
					  (int)(i % META_KINDS)));
	for (uint32_t i = 0; !rc && i < ng * META_KINDS; i++)
		if (to[i])
			rc = move_place(ctx, i / META_KINDS,
					(int)(i % META_KINDS), to[i], buf);
out:
	free(buf);
	free(to);
	return rc;
}
