// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A primary superblock whose inode counts disagree: s_inodes_count is not
 * the group count times s_inodes_per_group, and no backup superblock is
 * usable (a one-group filesystem has none; e2fsck gives up there).
 *
 * One of the two fields lies, and group 0's inode bitmap tells which:
 * mkfs, the kernel and e2fsck keep its bits from s_inodes_per_group to the
 * end of the block set. Of the two candidates (the per-group value as it
 * is, and the count divided by the groups), the smaller one whose padding
 * bits are all set is taken: a larger wrong value would pass as well, a
 * smaller wrong one only if the group's last inodes were all in use.
 * When only one of the two is possible at all (a multiple of 8, at most
 * the bits of a block), it is taken without the bitmap, which may be
 * damaged as well; when the bitmap backs neither, the per-group value
 * stands (e2fsck always keeps it and sets the count).
 *
 * This file only decides the counts; super_rebuild.c asks and writes
 * them with the other fields a lone superblock may need.
 */
#include "config.h"

#include <string.h>

#include "error.h"
#include "group.h"
#include "io.h"
#include "ondisk.h"
#include "super.h"

#include "fsck.h"
#include "problem.h"

/* Whether bits [from, nbits) of bitmap are all set. */
static int padding_set(const uint8_t *bitmap, uint32_t from, uint32_t nbits)
{
	for (uint32_t bit = from; bit < nbits; bit++)
		if (!(bitmap[bit / 8] & (1u << (bit % 8))))
			return 0;
	return 1;
}

/* Reads group 0's inode bitmap into buf (bs bytes). */
static int read_inode_bitmap0(struct fsck_ctx *ctx,
			      const struct extkit_super *sb, uint32_t bs,
			      uint8_t *buf)
{
	uint64_t gdt = (uint64_t)(sb->first_data_block + 1) * bs;
	uint8_t raw[EXT4_MIN_DESC_SIZE_64BIT];
	uint32_t size = (sb->feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT) &&
			sb->desc_size >= EXT4_MIN_DESC_SIZE_64BIT ?
			EXT4_MIN_DESC_SIZE_64BIT : EXT2_MIN_DESC_SIZE;
	struct extkit_group gd;
	uint64_t blk;
	int rc;

	rc = extkit_io_read_bytes(ctx->io, gdt, raw, size);
	if (rc)
		return rc;
	extkit_group_decode(raw, size, &gd);
	blk = gd.inode_bitmap;
	if (blk <= sb->first_data_block || blk >= sb->blocks_count)
		return -EFSCORRUPTED;
	return extkit_io_read_bytes(ctx->io, blk * bs, buf, bs);
}

/* Whether c could be s_inodes_per_group of `groups` groups. */
static int per_group_possible(uint32_t c, uint64_t groups, uint32_t bs)
{
	return c && c % 8 == 0 && c <= 8 * bs &&
	       (uint64_t)c * groups <= UINT32_MAX;
}

/* The inodes per group the bitmap backs, or 0. When only one candidate
 * is possible at all, it is the answer whatever the bitmap holds (the
 * bitmap may be damaged too: campaign ea seed 56; e2fsck then sets the
 * count from the per-group value as well); when the bitmap backs
 * neither, s_inodes_per_group stands, as in e2fsck. */
static uint32_t pick_per_group(const struct extkit_super *sb, uint64_t groups,
			       uint32_t bs, const uint8_t *bitmap,
			       const char **which)
{
	uint32_t cand[2] = { sb->inodes_per_group, 0 }, best = 0;
	int possible[2];

	if (sb->inodes_count % groups == 0)
		cand[1] = (uint32_t)(sb->inodes_count / groups);
	for (int i = 0; i < 2; i++)
		possible[i] = per_group_possible(cand[i], groups, bs);
	if (possible[0] != possible[1]) {
		*which = possible[0] ? "only the inodes per group is possible" :
				       "only the inode count is possible";
		return possible[0] ? cand[0] : cand[1];
	}
	for (int i = 0; i < 2; i++) {
		uint32_t c = cand[i];

		if (!possible[i] || !bitmap || !padding_set(bitmap, c, 8 * bs))
			continue;
		if (!best || c < best)
			best = c;
	}
	if (!best && possible[0]) {
		/* the bitmap backs neither: e2fsck's rule, the per-group
		 * value stands (campaign 64k seed 56) */
		*which = "group 0's inode bitmap backs neither; the inodes "
			 "per group is kept";
		return cand[0];
	}
	*which = best == sb->inodes_per_group ?
		 "group 0's inode bitmap backs the inodes per group" :
		 "group 0's inode bitmap backs the inode count";
	return best;
}

int fsck_pick_inode_counts(struct fsck_ctx *ctx, struct extkit_super *sb,
			   const char **which)
{
	uint8_t bitmap[EXT2_MAX_BLOCK_SIZE];
	uint64_t groups;
	uint32_t bs, ipg;
	int rc;

	if (sb->magic != EXT2_SUPER_MAGIC || sb->log_block_size > 6 ||
	    !sb->blocks_per_group || sb->first_data_block >= sb->blocks_count)
		return -EFSCORRUPTED;
	bs = EXT2_MIN_BLOCK_SIZE << sb->log_block_size;
	groups = (sb->blocks_count - sb->first_data_block +
		  sb->blocks_per_group - 1) / sb->blocks_per_group;
	if (groups * sb->inodes_per_group == sb->inodes_count)
		return 0;	/* not this problem */
	rc = read_inode_bitmap0(ctx, sb, bs, bitmap);
	ipg = pick_per_group(sb, groups, bs, rc ? NULL : bitmap, which);
	if (!ipg)
		return -EFSCORRUPTED;
	sb->inodes_per_group = ipg;
	sb->inodes_count = (uint32_t)(ipg * groups);
	if (sb->free_inodes_count > sb->inodes_count)
		sb->free_inodes_count = sb->inodes_count;
	return 1;
}
