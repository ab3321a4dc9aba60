// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-fsck -v: the statistics block e2fsck prints at the end of a
 * check, and the non-contiguous share of the one-line summary. Pass 1
 * notes what only it can see (map shapes, fragmentation); the rest is
 * counted at the end from the per-inode state and the names pass 2 found.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "extent.h"
#include "fsck.h"
#include "ondisk.h"

static void note_depth(struct fsck_stats *st, const struct extkit_inode *inode)
{
	/* eh_depth: bytes 6-7 of the little-endian node in i_block, i.e.
	 * the high half of i_block[1] (kept in host order) */
	uint16_t depth = (uint16_t)(inode->block[1] >> 16);

	st->extent_depth[depth < FSCK_STATS_DEPTHS ? depth :
			 FSCK_STATS_DEPTHS - 1]++;
	st->extent_files++;
}

static void note_large(struct fsck_stats *st, const struct extkit_inode *inode)
{
	if (S_ISREG(inode->mode) && inode->size >= 0x80000000ULL)
		st->large_files++;
}

/* Whether a map found fragmented counts as non-contiguous: as e2fsck,
 * only under a group's worth of clusters (a larger file has to span
 * groups). */
static int counts_fragmented(const struct fsck_ctx *ctx,
			     const struct fsck_blk_result *res)
{
	return res->fragmented && (res->nblocks >> ctx->fs->g.cluster_bits) <
				  ctx->fs->sb.blocks_per_group;
}

/*
 * Pass 1: a reserved inode. As e2fsck, its size counts among the large
 * files (the resize inode's is 4 GiB with 4 KiB blocks); the journal's
 * map counts when fragmented and, as an extent tree, in the depth
 * histogram; the indirect-level counts are for ordinary inodes only.
 */
void fsck_stats_reserved(struct fsck_ctx *ctx, uint32_t ino,
			 const struct extkit_inode *inode,
			 const struct fsck_blk_result *res)
{
	if (ino == EXT2_BAD_INO)
		return;
	note_large(&ctx->stats, inode);
	if (ino == EXT2_RESIZE_INO)
		return;
	if (counts_fragmented(ctx, res))
		ctx->stats.frag_files++;
	if ((inode->flags & EXT4_EXTENTS_FL) &&
	    extkit_inode_has_block_map(inode))
		note_depth(&ctx->stats, inode);
}

/* Pass 1: one inode kept, with what the scan of its map found. */
void fsck_stats_inode(struct fsck_ctx *ctx, const struct extkit_inode *inode,
		      const struct fsck_blk_result *res)
{
	struct fsck_stats *st = &ctx->stats;

	if (counts_fragmented(ctx, res)) {
		if (S_ISDIR(inode->mode))
			st->frag_dirs++;
		else
			st->frag_files++;
	}
	if (S_ISLNK(inode->mode) && !extkit_inode_has_block_map(inode))
		st->fast_symlinks++;
	note_large(st, inode);
	if (!extkit_inode_has_block_map(inode))
		return;
	if (inode->flags & EXT4_EXTENTS_FL) {
		note_depth(st, inode);
		return;
	}
	st->ind += inode->block[EXT2_IND_BLOCK] != 0;
	st->dind += inode->block[EXT2_DIND_BLOCK] != 0;
	st->tind += inode->block[EXT2_TIND_BLOCK] != 0;
}

/* Tenths of a percent, rounded: e2fsck's "%0d.%d%%". */
static unsigned int permille(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned int)((part * 10000 / whole + 5) / 10) : 0;
}

unsigned int fsck_stats_noncontig_permille(const struct fsck_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;

	return permille(ctx->stats.frag_files + ctx->stats.frag_dirs,
			sb->inodes_count - sb->free_inodes_count);
}

struct type_counts {
	uint32_t n[8];		/* by EXT2_FT_* */
	uint32_t links;		/* names beyond the first of non-directories */
};

static void count_types(const struct fsck_ctx *ctx, struct type_counts *tc)
{
	uint32_t first = ctx->fs->g.first_ino;

	for (uint64_t next = fsck_istate_next_used(&ctx->istate, 1);
	     next <= ctx->fs->sb.inodes_count;
	     next = fsck_istate_next_used(&ctx->istate, next + 1)) {
		uint32_t ino = (uint32_t)next;
		uint8_t ft = fsck_ftype(ctx, ino);
		uint32_t names;

		if (ino < first && ino != EXT2_ROOT_INO)
			continue;
		tc->n[ft]++;
		if (ft == EXT2_FT_DIR)
			continue;
		names = fsck_count_get(&ctx->link_counted, ino);
		if (names > 1)
			tc->links += names - 1;
	}
}

static void print_share(const char *what, uint32_t n, uint64_t used)
{
	unsigned int pm = permille(n, used);

	printf("%12" PRIu32 " %s (%u.%u%%)\n", n, what, pm / 10, pm % 10);
}

static void print_depths(const struct fsck_stats *st)
{
	int last = FSCK_STATS_DEPTHS - 1;

	if (!st->extent_files)
		return;
	while (last > 0 && !st->extent_depth[last])
		last--;
	printf("             Extent depth histogram: ");
	for (int d = 0; d <= last; d++)
		printf("%s%" PRIu32, d ? "/" : "", st->extent_depth[d]);
	putchar('\n');
}

/* The -v block, in e2fsck's layout; it replaces the one-line summary. */
void fsck_stats_print(const struct fsck_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	const struct fsck_stats *st = &ctx->stats;
	uint64_t iused = sb->inodes_count - sb->free_inodes_count;
	uint64_t bused = sb->blocks_count - sb->free_blocks_count;
	struct type_counts tc = { { 0 }, 0 };
	uint32_t files;

	count_types(ctx, &tc);
	files = tc.n[EXT2_FT_REG_FILE] + tc.n[EXT2_FT_DIR] +
		tc.n[EXT2_FT_CHRDEV] + tc.n[EXT2_FT_BLKDEV] +
		tc.n[EXT2_FT_FIFO] + tc.n[EXT2_FT_SYMLINK] +
		tc.n[EXT2_FT_SOCK] + tc.links;
	printf("\n%12" PRIu64 " inode%s used (%.2f%%, out of %" PRIu32 ")\n",
	       iused, iused == 1 ? "" : "s",
	       sb->inodes_count ? 100.0 * (double)iused / sb->inodes_count : 0,
	       sb->inodes_count);
	print_share("non-contiguous files", st->frag_files, iused);
	print_share("non-contiguous directories", st->frag_dirs, iused);
	printf("             # of inodes with ind/dind/tind blocks: %" PRIu32
	       "/%" PRIu32 "/%" PRIu32 "\n", st->ind, st->dind, st->tind);
	print_depths(st);
	printf("%12" PRIu64 " block%s used (%.2f%%, out of %" PRIu64 ")\n",
	       bused, bused == 1 ? "" : "s",
	       sb->blocks_count ? 100.0 * (double)bused / sb->blocks_count : 0,
	       sb->blocks_count);
	printf("%12" PRIu64 " bad block%s\n", st->bad_blocks,
	       st->bad_blocks == 1 ? "" : "s");
	printf("%12" PRIu32 " large file%s\n\n", st->large_files,
	       st->large_files == 1 ? "" : "s");
	printf("%12" PRIu32 " regular file%s\n", tc.n[EXT2_FT_REG_FILE],
	       tc.n[EXT2_FT_REG_FILE] == 1 ? "" : "s");
	printf("%12" PRIu32 " director%s\n", tc.n[EXT2_FT_DIR],
	       tc.n[EXT2_FT_DIR] == 1 ? "y" : "ies");
	printf("%12" PRIu32 " character device file%s\n", tc.n[EXT2_FT_CHRDEV],
	       tc.n[EXT2_FT_CHRDEV] == 1 ? "" : "s");
	printf("%12" PRIu32 " block device file%s\n", tc.n[EXT2_FT_BLKDEV],
	       tc.n[EXT2_FT_BLKDEV] == 1 ? "" : "s");
	printf("%12" PRIu32 " fifo%s\n", tc.n[EXT2_FT_FIFO],
	       tc.n[EXT2_FT_FIFO] == 1 ? "" : "s");
	printf("%12" PRIu32 " link%s\n", tc.links, tc.links == 1 ? "" : "s");
	printf("%12" PRIu32 " symbolic link%s (%" PRIu32
	       " fast symbolic link%s)\n", tc.n[EXT2_FT_SYMLINK],
	       tc.n[EXT2_FT_SYMLINK] == 1 ? "" : "s", st->fast_symlinks,
	       st->fast_symlinks == 1 ? "" : "s");
	printf("%12" PRIu32 " socket%s\n", tc.n[EXT2_FT_SOCK],
	       tc.n[EXT2_FT_SOCK] == 1 ? "" : "s");
	printf("------------\n%12" PRIu32 " file%s\n", files,
	       files == 1 ? "" : "s");
}
