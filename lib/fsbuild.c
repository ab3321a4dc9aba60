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

/* Bits of fb->blocks: clusters (bigalloc; groups hold whole clusters, the
 * last one rounded up as its bitmap is) or blocks. */
static uint64_t nunits(const struct extkit_fs *fs)
{
	return (nblocks(fs) + fs->g.cluster_ratio - 1) >> fs->g.cluster_bits;
}

/* The bit of fb->blocks holding block blk. */
static uint64_t unit_of(const struct extkit_fs *fs, uint64_t blk)
{
	return (blk - fs->sb.first_data_block) >> fs->g.cluster_bits;
}

/* Group g's first bit in fb->blocks. */
static uint64_t group_unit(const struct extkit_fs *fs, uint32_t g)
{
	return unit_of(fs, extkit_group_first_block(&fs->sb, g));
}

static int bigalloc(const struct extkit_fs *fs)
{
	return fs->g.cluster_bits != 0;
}

static int load_group(struct extkit_fsbuild *fb, uint32_t g, uint8_t *raw)
{
	struct extkit_fs *fs = fb->fs;
	int rc = extkit_alloc_map_load(fs, g, EXTKIT_MAP_BLOCKS, &fb->blocks,
				       group_unit(fs, g), raw);

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
	raw = malloc(fs->g.block_size);
	fb->dirty = calloc(ng, 1);
	rc = raw && fb->dirty ? 0 : -ENOMEM;
	if (!rc)
		rc = extkit_bitmap_init(&fb->blocks, nunits(fs));
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

/* Marks units [u, u + count) (bits of fb->blocks: clusters, or blocks)
 * in use (take) or free and counts them per group. */
static void count_units(struct extkit_fsbuild *fb, uint64_t u,
			uint64_t count, int take)
{
	struct extkit_fs *fs = fb->fs;
	uint32_t upg = fs->sb.blocks_per_group >> fs->g.cluster_bits;

	if (take)
		extkit_bitmap_set_range(&fb->blocks, u, count);
	else
		extkit_bitmap_clear_range(&fb->blocks, u, count);
	while (count) {
		uint32_t g = (uint32_t)(u / upg);
		uint64_t in = upg - u % upg;

		if (in > count)
			in = count;
		extkit_alloc_stats_blocks(fs, g, in, take);
		fb->dirty[g] |= DIRTY_BLOCKS;
		u += in;
		count -= in;
	}
}

/* Takes the first free unit at or after unit from (wrapping around) and
 * up to want - 1 free ones following it. */
static int take_units(struct extkit_fsbuild *fb, uint64_t from,
		      uint64_t want, uint64_t *first, uint64_t *got)
{
	uint64_t n = nunits(fb->fs), found, end;
	int rc;

	if (from >= n)
		from = 0;
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
	count_units(fb, found, end - found, 1);
	*first = found;
	*got = end - found;
	return 0;
}

/* Gives back units [u, u + count), all in use. */
static int release_units(struct extkit_fsbuild *fb, uint64_t u,
			 uint64_t count)
{
	if (!count)
		return 0;
	if (u + count > nunits(fb->fs) || u + count < u ||
	    extkit_bitmap_count_range(&fb->blocks, u, count) != count)
		return -EFSCORRUPTED;
	count_units(fb, u, count, 0);
	return 0;
}

int extkit_fsbuild_blocks(struct extkit_fsbuild *fb, uint64_t goal,
			  uint64_t want, uint64_t *start, uint64_t *got)
{
	struct extkit_fs *fs = fb->fs;
	uint64_t from = 0, first;
	int rc;

	if (bigalloc(fs))
		return -EXTKIT_EUNSUPP;
	if (goal >= fs->sb.first_data_block && goal < fs->sb.blocks_count)
		from = unit_of(fs, goal);
	rc = take_units(fb, from, want, &first, got);
	if (!rc)
		*start = first + fs->sb.first_data_block;
	return rc;
}

int extkit_fsbuild_release(struct extkit_fsbuild *fb, uint64_t start,
			   uint64_t count)
{
	struct extkit_fs *fs = fb->fs;

	if (bigalloc(fs))
		return -EXTKIT_EUNSUPP;
	if (!count)
		return 0;
	if (start < fs->sb.first_data_block || start >= fs->sb.blocks_count)
		return -EFSCORRUPTED;
	return release_units(fb, unit_of(fs, start), count);
}

int extkit_fsbuild_clusters(struct extkit_fsbuild *fb, uint64_t goal,
			    uint64_t want, uint64_t *start, uint64_t *got)
{
	struct extkit_fs *fs = fb->fs;
	uint64_t from = 0, first;
	int rc;

	if (goal >= fs->sb.first_data_block && goal < fs->sb.blocks_count)
		from = unit_of(fs, goal);
	rc = take_units(fb, from, want, &first, got);
	if (!rc)
		*start = (first << fs->g.cluster_bits) +
			 fs->sb.first_data_block;
	return rc;
}

int extkit_fsbuild_release_clusters(struct extkit_fsbuild *fb,
				    uint64_t start, uint64_t count)
{
	struct extkit_fs *fs = fb->fs;

	if (!count)
		return 0;
	if (start < fs->sb.first_data_block || start >= fs->sb.blocks_count ||
	    ((start - fs->sb.first_data_block) & (fs->g.cluster_ratio - 1)))
		return -EINVAL;
	return release_units(fb, unit_of(fs, start), count);
}

static int flush_group(struct extkit_fsbuild *fb, uint32_t g, uint8_t *raw)
{
	struct extkit_fs *fs = fb->fs;
	int rc = 0;

	if (fb->dirty[g] & DIRTY_BLOCKS)
		rc = extkit_alloc_map_store(fs, g, EXTKIT_MAP_BLOCKS,
					    &fb->blocks, group_unit(fs, g),
					    raw);
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
