// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump freefrag: the free-space report of e2freefrag (and of
 * debugfs' freefrag) from the block bitmaps: free extents (runs of free
 * blocks, across group boundaries), their smallest, largest and average
 * size, and a histogram by power-of-two size. The free block count and
 * the percentages are the superblock's, as e2freefrag's offline scan
 * has them. The bitmaps are read through groups.c (an uninitialised
 * bitmap is free but for the group's own metadata).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "fs.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"

#define FF_HIST	32	/* bins: log2(size) + 1, the last one open */

struct freefrag {
	uint64_t min, max, sum, n;	/* free extents, in blocks */
	uint64_t run;			/* the free run being counted */
	uint64_t ext[FF_HIST], blocks[FF_HIST];
};

static unsigned int log2_floor(uint64_t v)
{
	unsigned int n = 0;

	while (v >>= 1)
		n++;
	return n;
}

static void end_run(struct freefrag *ff)
{
	unsigned int bin;

	if (!ff->run)
		return;
	bin = log2_floor(ff->run) + 1;
	if (bin >= FF_HIST)
		bin = FF_HIST - 1;
	ff->ext[bin]++;
	ff->blocks[bin] += ff->run;
	if (ff->run > ff->max)
		ff->max = ff->run;
	if (!ff->n || ff->run < ff->min)
		ff->min = ff->run;
	ff->sum += ff->run;
	ff->n++;
	ff->run = 0;
}

/* Every block of group g, free or used, in order. */
static int scan_group(struct dump_ctx *ctx, uint32_t g, struct freefrag *ff)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	uint32_t count = extkit_group_block_count(sb, g), ratio;
	uint64_t nbits;
	uint8_t *map = dump_group_block_map(ctx, g, &nbits, &ratio);

	if (!map)
		return -EIO;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t bit = i / ratio;
		int used = bit >= nbits || (map[bit / 8] >> (bit % 8) & 1);

		if (used)
			end_run(ff);
		else
			ff->run++;
	}
	free(map);
	return 0;
}

static void report_text(struct dump_ctx *ctx, const struct freefrag *ff)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	uint32_t bs = ctx->fs->g.block_size, scale = bs >> 10;
	unsigned int bits = log2_floor(bs), units = 10;
	const char *unit = "KMGTPEZY";
	uint64_t start = 0, free_blks = sb->free_blocks_count;

	printf("Device: %s\nBlocksize: %" PRIu32 " bytes\n", ctx->o->target,
	       bs);
	printf("Total blocks: %" PRIu64 "\nFree blocks: %" PRIu64
	       " (%0.1f%%)\n", sb->blocks_count, free_blks,
	       (double)free_blks * 100 / (double)sb->blocks_count);
	printf("\nMin. free extent: %" PRIu64 " KB \nMax. free extent: %"
	       PRIu64 " KB\nAvg. free extent: %" PRIu64 " KB\n",
	       ff->n ? ff->min * scale : 0, ff->max * scale,
	       ff->n ? ff->sum / ff->n * scale : 0);
	printf("Num. free extent: %" PRIu64 "\n", ff->n);
	printf("\nHISTOGRAM OF FREE EXTENT SIZES:\n");
	printf("%s :  %12s  %12s  %7s\n", "Extent Size Range",
	       "Free extents", "Free Blocks", "Percent");
	for (unsigned int i = 0; i < FF_HIST; i++) {
		uint64_t end = 1ull << (i + bits - units);
		char end_str[32];

		if (ff->ext[i]) {
			snprintf(end_str, sizeof(end_str), "%5" PRIu64 "%c-",
				 end, *unit);
			if (i == FF_HIST - 1)
				snprintf(end_str, sizeof(end_str), "max ");
			printf("%5" PRIu64 "%c...%7s  :  %12" PRIu64 "  %12"
			       PRIu64 "  %6.2f%%\n", start, *unit, end_str,
			       ff->ext[i], ff->blocks[i],
			       (double)ff->blocks[i] * 100 /
			       (double)free_blks);
		}
		start = end;
		if (start == 1u << 10 && unit[1]) {
			start = 1;
			units += 10;
			unit++;
		}
	}
}

static void report_json(struct dump_ctx *ctx, const struct freefrag *ff)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	struct json_writer *w = &ctx->jw;

	json_begin_object(w, NULL);
	json_u64(w, "block_size", ctx->fs->g.block_size);
	json_u64(w, "total_blocks", sb->blocks_count);
	json_u64(w, "free_blocks", sb->free_blocks_count);
	json_u64(w, "free_extents", ff->n);
	json_u64(w, "min_free_extent_blocks", ff->n ? ff->min : 0);
	json_u64(w, "max_free_extent_blocks", ff->max);
	json_u64(w, "free_blocks_in_extents", ff->sum);
	json_begin_array(w, "histogram");
	for (unsigned int i = 1; i < FF_HIST; i++) {
		if (!ff->ext[i])
			continue;
		json_begin_object(w, NULL);
		json_begin_object(w, "size_blocks");
		json_u64(w, "first", 1ull << (i - 1));
		/* the last bin is open: up to the filesystem's size */
		json_u64(w, "last", i == FF_HIST - 1 ? sb->blocks_count :
			 (1ull << i) - 1);
		json_end_object(w);
		json_u64(w, "extents", ff->ext[i]);
		json_u64(w, "blocks", ff->blocks[i]);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

int dump_freefrag(struct dump_ctx *ctx)
{
	struct freefrag ff = { 0 };
	int rc;

	for (uint32_t g = 0; g < ctx->fs->g.group_count; g++) {
		rc = scan_group(ctx, g, &ff);
		if (rc) {
			cli_error("%s: group %" PRIu32 "'s block bitmap: %s",
				  ctx->o->target, g, extkit_strerror(rc));
			return rc;
		}
	}
	end_run(&ff);
	if (ctx->o->json)
		report_json(ctx, &ff);
	else
		report_text(ctx, &ff);
	return 0;
}
