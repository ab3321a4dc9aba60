// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block ownership for fsck: the found and duplicate maps pass 1 fills
 * (ctx->block_found, ctx->block_dup), a claim of a run of blocks (those
 * already claimed become duplicates, unless shared_blocks), a release,
 * and what a scan's claims add to its result (struct fsck_blk_result:
 * i_blocks' count, bigalloc's clusters, the order of the blocks).
 */
#include "config.h"

#include "bitmap.h"
#include "fs.h"
#include "ondisk.h"

#include "fsck.h"

static uint64_t bit_of(const struct fsck_ctx *ctx, uint64_t blk)
{
	return blk - ctx->fs->sb.first_data_block;
}

int fsck_block_test(struct fsck_ctx *ctx, uint64_t blk)
{
	return extkit_bitmap_test(&ctx->block_found, bit_of(ctx, blk)) == 1;
}

/* Claims count blocks from blk; returns how many were already claimed. */
uint64_t fsck_block_claim(struct fsck_ctx *ctx, uint64_t blk,
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

	dups = fsck_block_claim(ctx, blk, count, &first);
	if (dups && !res->dups)
		res->first_dup = first;
	res->dups += dups;
	res->nblocks += claimed_blocks(ctx, res, blk, count);
}

void fsck_block_mark(struct fsck_ctx *ctx, uint64_t blk, uint32_t count)
{
	fsck_block_claim(ctx, blk, count, NULL);
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

/* Notes whether blocks arrive in one physical run (pass 1's count of
 * non-contiguous files, as e2fsck counts them: map blocks included). */
void fsck_note_order(struct fsck_blk_result *res, uint64_t blk,
		     uint32_t count)
{
	if (res->next_pblk && blk != res->next_pblk)
		res->fragmented = 1;
	res->next_pblk = blk + count;
}
