// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 5: bitmaps and summary counts against what passes 1-4 computed.
 *
 * Checks: each group's block and inode bitmap against block_found and
 * inode_used (compared a byte range at a time; the differences are
 * listed as +N for a block in use but marked free and -N for a block
 * marked in use but free), the padding bits past the group's end, free
 * block, free inode and directory counts per group, and the free counts
 * in the superblock.
 *
 * Blocks and inodes fsck allocated itself (pass 3) count as already on
 * disk: their bits are written here without a report. Groups whose
 * bitmaps were never initialised (uninit_bg) are not compared yet.
 * Relies on every earlier pass; frees nothing.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_stats.h"
#include "bitmap.h"
#include "csum.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

#define DIFF_TEXT_MAX	3000

#define GRP_DIFFERS	0x1	/* computed differs from disk */
#define GRP_ALLOCATED	0x2	/* fsck allocated in this group */
#define GRP_CSUM_BAD	0x4	/* metadata_csum: descriptor csum wrong */
#define GRP_WRITTEN	0x8	/* bitmap rewritten (csum with it) */

/* One kind of bitmap: blocks or inodes. */
struct bm_kind {
	const char *name;
	struct extkit_bitmap *map;
	struct fsck_alloc_list *alloc;
	uint64_t base;		/* number of bit 0 */
	uint32_t shift;		/* bigalloc: a bit is 2^shift blocks */
	uint32_t per_group;
	uint32_t diff_code;
	uint32_t pad_code;
	uint32_t csum_code;
	uint16_t uninit_flag;
	/*
	 * Per group, when the bitmap on disk is kept although it differs
	 * (the fix was declined): its free count, and for inodes the
	 * directories among the inodes it marks in use, which the counts
	 * are checked against (as e2fsck: a "no" leaves the bitmap and the
	 * counts that follow from it); KEPT_NONE when the computed bitmap
	 * stands.
	 */
	uint32_t *kept_free;
	uint32_t *kept_dirs;
};

#define KEPT_NONE	UINT32_MAX

/* The "+(a--b) -c" list of differences. */
struct diff_text {
	char *buf;
	size_t len;
	int truncated;
	uint64_t start;
	uint64_t count;
	int sign;
};

static void diff_flush(struct diff_text *d)
{
	char tmp[64];
	int n;

	if (!d->count)
		return;
	if (d->count == 1)
		n = snprintf(tmp, sizeof(tmp), " %c%" PRIu64, d->sign,
			     d->start);
	else
		n = snprintf(tmp, sizeof(tmp), " %c(%" PRIu64 "--%" PRIu64 ")",
			     d->sign, d->start, d->start + d->count - 1);
	d->count = 0;
	if (n <= 0)
		return;
	if (d->len + (size_t)n + 5 > DIFF_TEXT_MAX) {
		if (!d->truncated)
			memcpy(d->buf + d->len, " ...", 5);
		d->len += d->truncated ? 0 : 4;
		d->truncated = 1;
		return;
	}
	memcpy(d->buf + d->len, tmp, (size_t)n + 1);
	d->len += (size_t)n;
}

static void diff_add(struct diff_text *d, uint64_t nr, int sign)
{
	if (d->count && d->sign == sign && nr == d->start + d->count) {
		d->count++;
		return;
	}
	diff_flush(d);
	d->start = nr;
	d->count = 1;
	d->sign = sign;
}

static int group_uninit(struct fsck_ctx *ctx, uint32_t g, uint16_t flag)
{
	const struct extkit_super *sb = &ctx->fs->sb;

	return extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
				    EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	       (ctx->fs->groups[g].flags & flag);
}

static uint64_t bitmap_block(struct fsck_ctx *ctx, const struct bm_kind *k,
			     uint32_t g)
{
	return k->uninit_flag == EXT4_BG_BLOCK_UNINIT ?
	       ctx->fs->groups[g].block_bitmap :
	       ctx->fs->groups[g].inode_bitmap;
}

static int is_block_kind(const struct bm_kind *k)
{
	return k->uninit_flag == EXT4_BG_BLOCK_UNINIT;
}

/* Applies fsck's own allocations in group g to the disk bitmap copy. */
static int apply_allocs(const struct bm_kind *k, uint32_t g, uint32_t nbits,
			uint8_t *disk)
{
	uint64_t lo = k->base + (uint64_t)g * k->per_group;
	int any = 0;

	for (size_t i = 0; i < k->alloc->n; i++) {
		uint64_t v = k->alloc->v[i] >> k->shift;

		if (v >= lo && v < lo + nbits) {
			disk[(v - lo) / 8] |= (uint8_t)(1u << ((v - lo) % 8));
			any = 1;
		}
	}
	return any;
}

/* Lists the bits where disk and comp differ (nbits bits). */
static void list_diffs(const struct bm_kind *k, uint32_t g,
		       const uint8_t *disk, const uint8_t *comp,
		       uint32_t nbits, struct diff_text *d)
{
	uint64_t lo = k->base + (uint64_t)g * k->per_group;

	for (uint32_t byte = 0; byte < (nbits + 7) / 8; byte++) {
		uint8_t x = disk[byte] ^ comp[byte];

		for (int b = 0; x && b < 8; b++) {
			uint32_t bit = byte * 8 + (uint32_t)b;

			if (!(x & (1u << b)) || bit >= nbits)
				continue;
			diff_add(d, (lo + bit) << k->shift,
				 (comp[byte] >> b) & 1 ? '+' : '-');
		}
	}
}

/* Bits set among the first nbits of buf. */
static uint32_t count_set(const uint8_t *buf, uint32_t nbits)
{
	uint32_t n = 0;

	for (uint32_t byte = 0; byte < nbits / 8; byte++)
		n += (uint32_t)__builtin_popcount(buf[byte]);
	if (nbits % 8)
		n += (uint32_t)__builtin_popcount(buf[nbits / 8] &
						  ((1u << (nbits % 8)) - 1));
	return n;
}

/*
 * What the counts of group g are checked against should its bitmap on
 * disk be kept: free bits, and (inodes) the directories pass 1 found
 * whose bit it leaves clear taken off those found in the group.
 */
static void note_kept(struct fsck_ctx *ctx, const struct bm_kind *k,
		      uint32_t g, const uint8_t *disk, const uint8_t *comp,
		      uint32_t nbits)
{
	uint32_t dirs = 0;

	k->kept_free[g] = nbits - count_set(disk, nbits);
	if (is_block_kind(k))
		return;
	for (uint32_t bit = 0; bit < nbits; bit++) {
		uint32_t ino = g * k->per_group + bit + 1;

		if ((comp[bit / 8] & ~disk[bit / 8]) & (1u << (bit % 8)) &&
		    fsck_istate_code(&ctx->istate, ino) ==
		    (IST_TYPED | EXT2_FT_DIR))
			dirs++;
	}
	k->kept_dirs[g] = dirs;	/* subtracted from the group's */
}

static int bytes_differ(const uint8_t *a, const uint8_t *b, uint32_t nbits)
{
	uint32_t full = nbits / 8;
	uint8_t mask = (uint8_t)((1u << (nbits % 8)) - 1);

	if (memcmp(a, b, full))
		return 1;
	return (nbits % 8) && ((a[full] ^ b[full]) & mask);
}

/* Whether every bit from nbits to the block end is set. */
static int padding_ok(const uint8_t *disk, uint32_t nbits, uint32_t bs)
{
	uint32_t byte = nbits / 8;

	if (nbits % 8) {
		uint8_t want = (uint8_t)(0xff << (nbits % 8));

		if ((disk[byte] & want) != want)
			return 0;
		byte++;
	}
	for (; byte < bs; byte++)
		if (disk[byte] != 0xff)
			return 0;
	return 1;
}

static uint32_t group_bits(struct fsck_ctx *ctx, const struct bm_kind *k,
			   uint32_t g)
{
	uint32_t ratio = ctx->fs->g.cluster_ratio;

	if (k->uninit_flag == EXT4_BG_BLOCK_UNINIT)
		return (extkit_group_block_count(&ctx->fs->sb, g) + ratio - 1) /
		       ratio;
	return k->per_group;
}

/* Whether the descriptor's bitmap checksum matches the bitmap read. */
static int csum_ok(struct fsck_ctx *ctx, const struct bm_kind *k,
		   uint32_t g, const uint8_t *disk)
{
	if (is_block_kind(k))
		return extkit_group_block_bitmap_csum_ok(ctx->fs, g, disk);
	return extkit_group_inode_bitmap_csum_ok(ctx->fs, g, disk);
}

/* Sets the descriptor's bitmap checksum from buf (written at the end). */
static void set_csum(struct fsck_ctx *ctx, const struct bm_kind *k,
		     uint32_t g, const uint8_t *buf)
{
	if (!extkit_has_metadata_csum(&ctx->fs->sb))
		return;
	if (is_block_kind(k))
		extkit_group_block_bitmap_csum_set(ctx->fs, g, buf);
	else
		extkit_group_inode_bitmap_csum_set(ctx->fs, g, buf);
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

/*
 * bg_flags BLOCK_UNINIT says group g's blocks are free but for its
 * superblock backup, descriptors and own tables. Whether fsck found any
 * other block of it in use (a file a garbage extent ran over and that
 * kept the blocks, say), e2fsck's "block(s) in use but group is marked
 * BLOCK_UNINIT". Visits only the blocks found in use.
 */
static int block_uninit_in_use(struct fsck_ctx *ctx, uint32_t g)
{
	const struct extkit_fs *fs = ctx->fs;
	uint64_t fdb = fs->sb.first_data_block;
	uint64_t from = extkit_group_first_block(&fs->sb, g);
	uint64_t end = from + extkit_group_block_count(&fs->sb, g), bit;

	from += extkit_group_boot_block(&fs->sb, &fs->g, g) +
		extkit_group_sb_overhead(&fs->sb, &fs->g, g);
	while (from < end &&
	       !extkit_bitmap_find_first_set(&ctx->block_found, from - fdb,
					     end - from, &bit)) {
		if (!fsck_group_meta_has(fs, g, bit + fdb))
			return 1;
		from = bit + fdb + 1;
	}
	return 0;
}

/* Compares group g; sets *state. */
static int compare_group(struct fsck_ctx *ctx, const struct bm_kind *k,
			 uint32_t g, uint8_t *disk, uint8_t *comp,
			 struct diff_text *d, uint8_t *state, int *pad_bad)
{
	uint32_t nbits = group_bits(ctx, k, g);
	uint64_t blk = bitmap_block(ctx, k, g);
	struct problem_context pctx;
	int rc;

	if (group_uninit(ctx, g, k->uninit_flag)) {
		if (!is_block_kind(k) || !block_uninit_in_use(ctx, g))
			return 0;
		clear_problem_context(&pctx);
		pctx.group = g;
		if (!fix_problem(ctx, PR_5_BLOCK_UNINIT, &pctx))
			return 0;
		/* compared and written as any other group from now on */
		ctx->fs->groups[g].flags &= (uint16_t)~EXT4_BG_BLOCK_UNINIT;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
	/* No place (out of place, check only): reads as all zeroes. */
	rc = blk ? extkit_fs_read_block(ctx->fs, blk, disk) : 0;
	if (!blk) {
		memset(disk, 0, ctx->fs->g.block_size);
	} else if (rc) {
		clear_problem_context(&pctx);
		pctx.group = g;
		pctx.blk = blk;
		pctx.str = k->name;
		fix_problem(ctx, PR_5_BITMAP_READ, &pctx);
		memset(disk, 0, ctx->fs->g.block_size);
		*state |= GRP_DIFFERS;
	}
	if (blk && !rc && !csum_ok(ctx, k, g, disk))
		*state |= GRP_CSUM_BAD;
	if (apply_allocs(k, g, nbits, disk))
		*state |= GRP_ALLOCATED;
	extkit_bitmap_to_disk(k->map, (uint64_t)g * k->per_group, nbits, comp);
	if (bytes_differ(disk, comp, nbits)) {
		list_diffs(k, g, disk, comp, nbits, d);
		note_kept(ctx, k, g, disk, comp, nbits);
		*state |= GRP_DIFFERS;
	}
	if (!padding_ok(disk, nbits, ctx->fs->g.block_size))
		*pad_bad = 1;
	return 0;
}

/* Writes the computed bitmap of group g, padding set, its checksum in
 * the descriptor (lib/alloc_stats.c). */
static int write_group(struct fsck_ctx *ctx, const struct bm_kind *k,
		       uint32_t g, uint8_t *buf)
{
	if (!bitmap_block(ctx, k, g))
		return 0;
	if (extkit_has_metadata_csum(&ctx->fs->sb))
		ctx->flags |= FSCK_FL_SB_DIRTY;
	return extkit_alloc_map_store(ctx->fs, g, is_block_kind(k) ?
				      EXTKIT_MAP_BLOCKS : EXTKIT_MAP_INODES,
				      k->map, (uint64_t)g * k->per_group, buf);
}

/*
 * Groups whose bitmap is right (or left as it is) but whose descriptor
 * checksum is not: the checksum is set from the bitmap on disk.
 */
static int check_csums(struct fsck_ctx *ctx, const struct bm_kind *k,
		       const uint8_t *state, uint8_t *buf)
{
	struct problem_context pctx;
	int rc;

	for (uint32_t g = 0; g < ctx->fs->g.group_count; g++) {
		if ((state[g] & (GRP_CSUM_BAD | GRP_WRITTEN)) != GRP_CSUM_BAD)
			continue;
		clear_problem_context(&pctx);
		pctx.group = g;
		if (!fix_problem(ctx, k->csum_code, &pctx) || ctx->readonly)
			continue;
		rc = extkit_fs_read_block(ctx->fs, bitmap_block(ctx, k, g),
					  buf);
		if (rc)
			return rc;
		set_csum(ctx, k, g, buf);
	}
	return 0;
}

/*
 * A group whose differences were declined keeps its bitmap, but gets
 * the blocks or inodes fsck itself took there (pass 3's lost+found, say),
 * as e2fsck's allocations go in the bitmap it keeps. *written: whether
 * the bitmap was written.
 */
static int write_kept(struct fsck_ctx *ctx, const struct bm_kind *k,
		      uint32_t g, uint8_t *buf, int pad, int *written)
{
	uint64_t blk = bitmap_block(ctx, k, g);
	uint32_t nbits = group_bits(ctx, k, g), bs = ctx->fs->g.block_size;
	int rc;

	*written = 0;
	if (!blk || extkit_fs_read_block(ctx->fs, blk, buf))
		return 0;	/* unreadable or nowhere: left alone */
	if (!apply_allocs(k, g, nbits, buf) &&
	    (!pad || padding_ok(buf, nbits, bs)))
		return 0;
	if (pad) {
		if (nbits % 8)
			buf[nbits / 8] |= (uint8_t)(0xff << (nbits % 8));
		memset(buf + (nbits + 7) / 8, 0xff, bs - (nbits + 7) / 8);
	}
	set_csum(ctx, k, g, buf);
	rc = extkit_fs_write_block(ctx->fs, blk, buf);
	*written = !rc;
	return rc;
}

/*
 * Writes what the answers asked for: the computed bitmap of each group
 * that differs when fix (the differences were taken), the padding when
 * pad, and the bits of fsck's own allocations in any case.
 */
static int write_groups(struct fsck_ctx *ctx, const struct bm_kind *k,
			uint8_t *state, int fix, int pad, uint8_t *buf)
{
	int rc = 0, kept_written;

	for (uint32_t g = 0; g < ctx->fs->g.group_count && !ctx->readonly;
	     g++) {
		if (!(state[g] & (GRP_DIFFERS | GRP_ALLOCATED)) && !pad)
			continue;
		if (group_uninit(ctx, g, k->uninit_flag))
			continue;
		if ((state[g] & GRP_DIFFERS) && !fix) {
			rc = write_kept(ctx, k, g, buf, pad, &kept_written);
			if (rc)
				break;
			/* its checksum was set with it */
			if (kept_written)
				state[g] &= (uint8_t)~GRP_CSUM_BAD;
			continue;
		}
		rc = write_group(ctx, k, g, buf);
		if (rc)
			break;
		state[g] |= GRP_WRITTEN;
	}
	return rc;
}

static int check_bitmaps(struct fsck_ctx *ctx, const struct bm_kind *k)
{
	uint32_t ng = ctx->fs->g.group_count, bs = ctx->fs->g.block_size;
	struct diff_text d = { 0 };
	struct problem_context pctx;
	uint8_t *disk, *comp, *state;
	int pad_bad = 0, fix = 0, pad = 0, rc = -ENOMEM;

	disk = malloc(bs);
	comp = malloc(bs);
	state = calloc(ng, 1);
	d.buf = malloc(DIFF_TEXT_MAX);
	if (!disk || !comp || !state || !d.buf)
		goto out;
	d.buf[0] = '\0';
	for (uint32_t g = 0; g < ng; g++)
		compare_group(ctx, k, g, disk, comp, &d, &state[g], &pad_bad);
	diff_flush(&d);
	clear_problem_context(&pctx);
	if (d.len) {
		pctx.str = d.buf + 1;
		fix = fix_problem(ctx, k->diff_code, &pctx);
	}
	if (pad_bad && fix_problem(ctx, k->pad_code, &pctx))
		pad = 1;
	rc = write_groups(ctx, k, state, fix, pad, disk);
	for (uint32_t g = 0; g < ng; g++)
		if ((state[g] & (GRP_DIFFERS | GRP_WRITTEN)) != GRP_DIFFERS) {
			k->kept_free[g] = KEPT_NONE;
			k->kept_dirs[g] = 0;
		}
	if (!rc)
		rc = check_csums(ctx, k, state, disk);
out:
	free(disk);
	free(comp);
	free(state);
	free(d.buf);
	return rc;
}

static void check_count(struct fsck_ctx *ctx, uint32_t code, uint32_t g,
			uint32_t *have, uint32_t counted)
{
	struct problem_context pctx;

	if (*have == counted)
		return;
	clear_problem_context(&pctx);
	pctx.group = g;
	pctx.num = counted;
	pctx.num2 = *have;
	if (fix_problem(ctx, code, &pctx)) {
		*have = counted;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

static uint32_t dirs_in_group(struct fsck_ctx *ctx, uint32_t g)
{
	uint32_t ipg = ctx->fs->sb.inodes_per_group;

	return fsck_istate_count_code(&ctx->istate, g * ipg + 1, ipg,
				      IST_TYPED | EXT2_FT_DIR);
}

/* Free blocks (clusters with bigalloc) per group, as the descriptor
 * counts them, from the bitmaps as they are left (computed, or kept on
 * disk when their fix was declined); the superblock counts blocks. */
static void check_group_counts(struct fsck_ctx *ctx,
			       const struct bm_kind *blocks,
			       const struct bm_kind *inodes,
			       uint64_t *free_blocks, uint64_t *free_inodes)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t ipg = fs->sb.inodes_per_group;

	*free_blocks = *free_inodes = 0;
	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		struct extkit_group *gd = &fs->groups[g];
		uint32_t nb = group_bits(ctx, blocks, g);
		uint64_t first = (uint64_t)g * blocks->per_group;
		uint32_t fb = nb - (uint32_t)extkit_bitmap_count_range(
			blocks->map, first, nb);
		uint32_t fi = ipg - (uint32_t)extkit_bitmap_count_range(
			&ctx->inode_used, (uint64_t)g * ipg, ipg);

		if (blocks->kept_free[g] != KEPT_NONE)
			fb = blocks->kept_free[g];
		if (inodes->kept_free[g] != KEPT_NONE)
			fi = inodes->kept_free[g];
		fsck_progress(ctx, g, fs->g.group_count);
		check_count(ctx, PR_5_FREE_BLOCKS_GROUP, g, &gd->free_blocks,
			    fb);
		check_count(ctx, PR_5_FREE_INODES_GROUP, g, &gd->free_inodes,
			    fi);
		check_count(ctx, PR_5_DIRS_GROUP, g, &gd->used_dirs,
			    dirs_in_group(ctx, g) - inodes->kept_dirs[g]);
		*free_blocks += (uint64_t)fb << blocks->shift;
		*free_inodes += fi;
	}
}

/*
 * bigalloc: the clusters in use, from the blocks found (a cluster is in
 * use when any of its blocks is); the bitmaps on disk hold clusters.
 */
static int cluster_map(struct fsck_ctx *ctx, struct extkit_bitmap *cmap)
{
	uint32_t bits = ctx->fs->g.cluster_bits;
	uint64_t nblocks = ctx->fs->sb.blocks_count;
	uint64_t nc = (nblocks + (1u << bits) - 1) >> bits;
	int rc = extkit_bitmap_init(cmap, nc);

	for (uint64_t c = 0; !rc && c < nc; c++) {
		uint64_t b = c << bits;
		uint64_t n = nblocks - b < (1u << bits) ? nblocks - b :
							  (1u << bits);

		if (extkit_bitmap_count_range(&ctx->block_found, b, n))
			rc = extkit_bitmap_set(cmap, c);
	}
	if (rc)
		extkit_bitmap_free(cmap);
	return rc;
}

static void check_super_counts(struct fsck_ctx *ctx, uint64_t free_blocks,
			       uint64_t free_inodes)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	clear_problem_context(&pctx);
	if (sb->free_blocks_count != free_blocks) {
		pctx.num = free_blocks;
		pctx.num2 = sb->free_blocks_count;
		if (fix_problem(ctx, PR_5_FREE_BLOCKS, &pctx)) {
			sb->free_blocks_count = free_blocks;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		}
	}
	if (sb->free_inodes_count != free_inodes) {
		pctx.num = free_inodes;
		pctx.num2 = sb->free_inodes_count;
		if (fix_problem(ctx, PR_5_FREE_INODES, &pctx)) {
			sb->free_inodes_count = (uint32_t)free_inodes;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		}
	}
}

int fsck_pass5(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	struct bm_kind blocks = {
		.name = "block", .map = &ctx->block_found,
		.alloc = &ctx->alloc_blocks, .base = fs->sb.first_data_block,
		.per_group = fs->sb.blocks_per_group,
		.diff_code = PR_5_BLOCK_BITMAP, .pad_code = PR_5_BLOCK_PADDING,
		.csum_code = PR_5_BLOCK_BITMAP_CSUM,
		.uninit_flag = EXT4_BG_BLOCK_UNINIT,
	};
	struct bm_kind inodes = {
		.name = "inode", .map = &ctx->inode_used,
		.alloc = &ctx->alloc_inodes, .base = 1,
		.per_group = fs->sb.inodes_per_group,
		.diff_code = PR_5_INODE_BITMAP, .pad_code = PR_5_INODE_PADDING,
		.csum_code = PR_5_INODE_BITMAP_CSUM,
		.uninit_flag = EXT4_BG_INODE_UNINIT,
	};
	struct extkit_bitmap cmap = { 0 };
	uint64_t free_blocks, free_inodes;
	uint32_t ng = fs->g.group_count;
	int rc = -ENOMEM;

	blocks.kept_free = malloc(ng * sizeof(uint32_t));
	blocks.kept_dirs = calloc(ng, sizeof(uint32_t));
	inodes.kept_free = malloc(ng * sizeof(uint32_t));
	inodes.kept_dirs = calloc(ng, sizeof(uint32_t));
	if (!blocks.kept_free || !blocks.kept_dirs || !inodes.kept_free ||
	    !inodes.kept_dirs)
		goto out;
	for (uint32_t g = 0; g < ng; g++)
		blocks.kept_free[g] = inodes.kept_free[g] = KEPT_NONE;
	if (fs->g.cluster_bits) {
		rc = cluster_map(ctx, &cmap);
		if (rc)
			goto out;
		blocks.map = &cmap;
		blocks.shift = fs->g.cluster_bits;
		blocks.per_group = fs->sb.blocks_per_group >> blocks.shift;
	}
	rc = check_bitmaps(ctx, &blocks);
	if (!rc)
		rc = check_bitmaps(ctx, &inodes);
	if (!rc) {
		check_group_counts(ctx, &blocks, &inodes, &free_blocks,
				   &free_inodes);
		check_super_counts(ctx, free_blocks, free_inodes);
	}
	if (fs->g.cluster_bits)
		extkit_bitmap_free(&cmap);
out:
	free(blocks.kept_free);
	free(blocks.kept_dirs);
	free(inodes.kept_free);
	free(inodes.kept_dirs);
	return rc;
}
