// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filling a filesystem in bulk (see fsbuild.h). Bitmaps are whole-fs
 * extkit_bitmaps: searching for a free run is a word-at-a-time scan.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc_stats.h"
#include "error.h"
#include "fsbuild.h"
#include "group.h"
#include "ondisk.h"

#define DIRTY_BLOCKS	1
#define DIRTY_INODES	2

static uint64_t nblocks(const struct extkit_fs *fs)
{
	return fs->sb.blocks_count - fs->sb.first_data_block;
}

static int load_group(struct extkit_fsbuild *fb, uint32_t g, uint8_t *raw)
{
	struct extkit_fs *fs = fb->fs;
	uint64_t first = extkit_group_first_block(&fs->sb, g) -
			 fs->sb.first_data_block;
	int rc = extkit_alloc_map_load(fs, g, EXTKIT_MAP_BLOCKS, &fb->blocks,
				       first, raw);

	if (!rc)
		rc = extkit_alloc_map_load(fs, g, EXTKIT_MAP_INODES,
					   &fb->inodes,
					   (uint64_t)g * fs->sb.inodes_per_group,
					   raw);
	return rc;
}

int extkit_fsbuild_open(struct extkit_fs *fs, struct extkit_fsbuild *fb)
{
	uint32_t ng = fs->g.group_count;
	uint8_t *raw;
	int rc;

	memset(fb, 0, sizeof(*fb));
	fb->fs = fs;
	if (extkit_has_ro_compat(&fs->sb, EXT4_FEATURE_RO_COMPAT_BIGALLOC))
		return -EXTKIT_EUNSUPP;
	raw = malloc(fs->g.block_size);
	fb->dirty = calloc(ng, 1);
	rc = raw && fb->dirty ? 0 : -ENOMEM;
	if (!rc)
		rc = extkit_bitmap_init(&fb->blocks, nblocks(fs));
	if (!rc)
		rc = extkit_bitmap_init(&fb->inodes, fs->sb.inodes_count);
	for (uint32_t g = 0; !rc && g < ng; g++)
		rc = load_group(fb, g, raw);
	free(raw);
	if (rc)
		extkit_fsbuild_close(fb);
	return rc;
}

void extkit_fsbuild_close(struct extkit_fsbuild *fb)
{
	extkit_bitmap_free(&fb->blocks);
	extkit_bitmap_free(&fb->inodes);
	free(fb->dirty);
	fb->dirty = NULL;
}

int extkit_fsbuild_take_inode(struct extkit_fsbuild *fb, uint32_t ino,
			      int is_dir)
{
	struct extkit_fs *fs = fb->fs;

	if (ino == 0 || ino > fs->sb.inodes_count)
		return -EINVAL;
	if (extkit_bitmap_test(&fb->inodes, ino - 1))
		return -EEXIST;
	extkit_bitmap_set(&fb->inodes, ino - 1);
	extkit_alloc_stats_inode(fs, ino, 1, is_dir);
	fb->dirty[extkit_group_of_inode(&fs->sb, ino)] |= DIRTY_INODES;
	return 0;
}

int extkit_fsbuild_inode(struct extkit_fsbuild *fb, uint32_t goal,
			 int is_dir, uint32_t *ino)
{
	uint64_t n = fb->fs->sb.inodes_count, from, found;
	int rc;

	from = goal >= 1 && goal <= n ? goal - 1 : 0;
	rc = extkit_bitmap_find_first_zero(&fb->inodes, from, n - from,
					   &found);
	if (rc == -ENOENT && from)
		rc = extkit_bitmap_find_first_zero(&fb->inodes, 0, from,
						   &found);
	if (rc)
		return rc == -ENOENT ? -ENOSPC : rc;
	*ino = (uint32_t)found + 1;
	return extkit_fsbuild_take_inode(fb, *ino, is_dir);
}

/* Marks [b, b + count) (bitmap bits) in use (take) or free and counts
 * them per group. */
static void count_blocks(struct extkit_fsbuild *fb, uint64_t b,
			 uint64_t count, int take)
{
	struct extkit_fs *fs = fb->fs;
	uint32_t bpg = fs->sb.blocks_per_group;

	if (take)
		extkit_bitmap_set_range(&fb->blocks, b, count);
	else
		extkit_bitmap_clear_range(&fb->blocks, b, count);
	while (count) {
		uint64_t blk = b + fs->sb.first_data_block;
		uint32_t g = extkit_group_of_block(&fs->sb, blk);
		uint64_t in = bpg - extkit_group_block_index(&fs->sb, blk);

		if (in > count)
			in = count;
		extkit_alloc_stats_blocks(fs, g, in, take);
		fb->dirty[g] |= DIRTY_BLOCKS;
		b += in;
		count -= in;
	}
}

int extkit_fsbuild_blocks(struct extkit_fsbuild *fb, uint64_t goal,
			  uint64_t want, uint64_t *start, uint64_t *got)
{
	struct extkit_fs *fs = fb->fs;
	uint64_t n = nblocks(fs), from = 0, found, end;
	int rc;

	if (goal >= fs->sb.first_data_block && goal < fs->sb.blocks_count)
		from = goal - fs->sb.first_data_block;
	rc = extkit_bitmap_find_first_zero(&fb->blocks, from, n - from,
					   &found);
	if (rc == -ENOENT && from)
		rc = extkit_bitmap_find_first_zero(&fb->blocks, 0, from,
						   &found);
	if (rc)
		return rc == -ENOENT ? -ENOSPC : rc;
	if (want > n - found)
		want = n - found;
	rc = extkit_bitmap_find_first_set(&fb->blocks, found, want, &end);
	if (rc == -ENOENT)
		end = found + want;
	else if (rc)
		return rc;
	count_blocks(fb, found, end - found, 1);
	*start = found + fs->sb.first_data_block;
	*got = end - found;
	return 0;
}

int extkit_fsbuild_release(struct extkit_fsbuild *fb, uint64_t start,
			   uint64_t count)
{
	struct extkit_fs *fs = fb->fs;
	uint64_t b = start - fs->sb.first_data_block;

	if (!count)
		return 0;
	if (start < fs->sb.first_data_block ||
	    start + count > fs->sb.blocks_count ||
	    extkit_bitmap_count_range(&fb->blocks, b, count) != count)
		return -EFSCORRUPTED;
	count_blocks(fb, b, count, 0);
	return 0;
}

static int flush_group(struct extkit_fsbuild *fb, uint32_t g, uint8_t *raw)
{
	struct extkit_fs *fs = fb->fs;
	uint64_t first = extkit_group_first_block(&fs->sb, g) -
			 fs->sb.first_data_block;
	int rc = 0;

	if (fb->dirty[g] & DIRTY_BLOCKS)
		rc = extkit_alloc_map_store(fs, g, EXTKIT_MAP_BLOCKS,
					    &fb->blocks, first, raw);
	if (!rc && (fb->dirty[g] & DIRTY_INODES))
		rc = extkit_alloc_map_store(fs, g, EXTKIT_MAP_INODES,
			&fb->inodes, (uint64_t)g * fs->sb.inodes_per_group,
			raw);
	return rc;
}

int extkit_fsbuild_flush(struct extkit_fsbuild *fb)
{
	uint8_t *raw = malloc(fb->fs->g.block_size);
	int rc = raw ? 0 : -ENOMEM;

	for (uint32_t g = 0; !rc && g < fb->fs->g.group_count; g++) {
		rc = flush_group(fb, g, raw);
		if (!rc)
			fb->dirty[g] = 0;
	}
	free(raw);
	return rc;
}

static int fb_take_blocks(void *arg, uint64_t goal, uint64_t want,
			  uint64_t *start, uint64_t *got)
{
	return extkit_fsbuild_blocks(arg, goal, want, start, got);
}

static int fb_take_inode(void *arg, uint32_t goal, int is_dir,
			 uint32_t *ino)
{
	return extkit_fsbuild_inode(arg, goal, is_dir, ino);
}

static int fb_release(void *arg, uint64_t start, uint64_t count)
{
	return extkit_fsbuild_release(arg, start, count);
}

void extkit_fsbuild_allocator(struct extkit_fsbuild *fb,
			      struct extkit_allocator *a)
{
	a->take_blocks = fb_take_blocks;
	a->take_inode = fb_take_inode;
	a->release = fb_release;
	a->arg = fb;
}
