// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block allocation over the on-disk block bitmaps (see alloc.h). Each call
 * loads one group's bitmap into an extkit_bitmap and works on it by ranges.
 */
#include "config.h"

#include <stdlib.h>

#include "alloc.h"
#include "bitmap.h"
#include "csum.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"
#include "super.h"

/* A group's block bitmap, loaded. */
struct group_map {
	uint32_t g;
	uint64_t first;		/* first block of the group */
	uint32_t count;		/* blocks in the group */
	struct extkit_bitmap bm;
	uint8_t *raw;
};

static int writable(const struct extkit_fs *fs)
{
	if (extkit_has_ro_compat(&fs->sb, EXT4_FEATURE_RO_COMPAT_BIGALLOC))
		return -EXTKIT_EUNSUPP;
	return 0;
}

static int gmap_load(struct extkit_fs *fs, uint32_t g, struct group_map *m)
{
	int rc;

	m->g = g;
	m->first = extkit_group_first_block(&fs->sb, g);
	m->count = extkit_group_block_count(&fs->sb, g);
	m->raw = malloc(fs->g.block_size);
	if (!m->raw)
		return -ENOMEM;
	rc = extkit_bitmap_init(&m->bm, m->count);
	if (rc)
		goto fail;
	rc = extkit_fs_read_block(fs, fs->groups[g].block_bitmap, m->raw);
	if (!rc)
		rc = extkit_bitmap_from_disk(&m->bm, 0, m->count, m->raw);
	if (!rc)
		return 0;
	extkit_bitmap_free(&m->bm);
fail:
	free(m->raw);
	return rc;
}

/* Writes the group's bits back over the on-disk bitmap (its tail past the
 * group's blocks is left as it was). */
static int gmap_store(struct extkit_fs *fs, struct group_map *m)
{
	int rc = extkit_bitmap_to_disk(&m->bm, 0, m->count & ~7u, m->raw);
	uint32_t i;

	for (i = m->count & ~7u; !rc && i < m->count; i++) {
		uint8_t bit = (uint8_t)(1u << (i % 8));

		if (extkit_bitmap_test(&m->bm, i) == 1)
			m->raw[i / 8] |= bit;
		else
			m->raw[i / 8] &= (uint8_t)~bit;
	}
	if (rc)
		return rc;
	extkit_group_block_bitmap_csum_set(fs, m->g, m->raw);
	return extkit_fs_write_block(fs, fs->groups[m->g].block_bitmap,
				     m->raw);
}

static void gmap_free(struct group_map *m)
{
	extkit_bitmap_free(&m->bm);
	free(m->raw);
}

static int alloc_in_group(struct extkit_fs *fs, uint32_t g, uint64_t goal,
			  uint64_t *blk)
{
	struct group_map m;
	uint64_t found, from = 0;
	int rc;

	if (!fs->groups[g].free_blocks ||
	    (fs->groups[g].flags & EXT4_BG_BLOCK_UNINIT))
		return -ENOSPC;
	rc = gmap_load(fs, g, &m);
	if (rc)
		return rc;
	if (goal >= m.first && goal < m.first + m.count)
		from = goal - m.first;
	rc = extkit_bitmap_find_first_zero(&m.bm, from, m.count - from,
					   &found);
	if (rc == -ENOENT && from)
		rc = extkit_bitmap_find_first_zero(&m.bm, 0, from, &found);
	if (rc == -ENOENT)
		rc = -ENOSPC;
	if (!rc)
		rc = extkit_bitmap_set(&m.bm, found);
	if (!rc)
		rc = gmap_store(fs, &m);
	if (!rc) {
		*blk = m.first + found;
		fs->groups[g].free_blocks--;
		fs->sb.free_blocks_count--;
	}
	gmap_free(&m);
	return rc;
}

int extkit_alloc_block(struct extkit_fs *fs, uint64_t goal, uint64_t *blk)
{
	uint32_t g0, g, i, n = fs->g.group_count;
	int rc = writable(fs);

	if (rc)
		return rc;
	if (!extkit_fs_valid_block(fs, goal))
		goal = fs->sb.first_data_block;
	g0 = (uint32_t)((goal - fs->sb.first_data_block) /
			fs->sb.blocks_per_group);
	for (i = 0; i < n; i++) {
		g = (g0 + i) % n;
		rc = alloc_in_group(fs, g, goal, blk);
		if (rc != -ENOSPC)
			return rc;
	}
	return -ENOSPC;
}

/* Frees [start, start + count) of group g; dry: only checks that every
 * one of them is in use. */
static int free_in_group(struct extkit_fs *fs, uint32_t g, uint64_t start,
			 uint32_t count, int dry)
{
	struct group_map m;
	int rc = gmap_load(fs, g, &m);

	if (rc)
		return rc;
	if (extkit_bitmap_count_range(&m.bm, start - m.first, count) != count)
		rc = -EFSCORRUPTED;
	if (dry) {
		gmap_free(&m);
		return rc;
	}
	if (!rc)
		rc = extkit_bitmap_clear_range(&m.bm, start - m.first, count);
	if (!rc)
		rc = gmap_store(fs, &m);
	if (!rc) {
		fs->groups[g].free_blocks += count;
		fs->sb.free_blocks_count += count;
	}
	gmap_free(&m);
	return rc;
}

/* Frees (or, dry, checks) [start, end) group by group. */
static int free_range(struct extkit_fs *fs, uint64_t start, uint64_t end,
		      int dry)
{
	uint64_t first, gend;
	uint32_t g;
	int rc;

	while (start < end) {
		g = (uint32_t)((start - fs->sb.first_data_block) /
			       fs->sb.blocks_per_group);
		first = extkit_group_first_block(&fs->sb, g);
		gend = first + extkit_group_block_count(&fs->sb, g);
		if (gend > end)
			gend = end;
		rc = free_in_group(fs, g, start, (uint32_t)(gend - start), dry);
		if (rc)
			return rc;
		start = gend;
	}
	return 0;
}

/* All or nothing: a range across groups is checked in every group (all
 * in use) before the first bitmap is written. */
int extkit_free_blocks(struct extkit_fs *fs, uint64_t start, uint64_t count)
{
	int rc = writable(fs);

	if (rc)
		return rc;
	if (count && (!extkit_fs_valid_block(fs, start) ||
		      !extkit_fs_valid_block(fs, start + count - 1)))
		return -EFSCORRUPTED;
	rc = free_range(fs, start, start + count, 1);
	return rc ? rc : free_range(fs, start, start + count, 0);
}

int extkit_alloc_commit(struct extkit_fs *fs)
{
	return extkit_fs_write_super(fs);
}
