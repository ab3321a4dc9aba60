// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filling a filesystem in bulk (see fsbuild.h). Bitmaps are whole-fs
 * extkit_bitmaps: searching for a free run is a word-at-a-time scan.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "csum.h"
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

/* A group whose block bitmap was never written: in use are its backup
 * superblock and descriptors, and whatever group metadata (bitmaps and
 * inode tables, anywhere with flex_bg) lies in it. */
static int uninit_bits(struct extkit_fsbuild *fb, uint32_t g, uint64_t first,
		       uint32_t count)
{
	struct extkit_fs *fs = fb->fs;
	uint64_t lo = first + fs->sb.first_data_block, hi = lo + count;
	uint32_t it = fs->g.itable_blocks;
	int rc = extkit_bitmap_set_range(&fb->blocks, first,
			extkit_group_sb_overhead(&fs->sb, &fs->g, g));

	for (uint32_t h = 0; !rc && h < fs->g.group_count; h++) {
		const struct extkit_group *d = &fs->groups[h];
		uint64_t at[3] = { d->block_bitmap, d->inode_bitmap,
				   d->inode_table };
		uint32_t len[3] = { 1, 1, it };

		for (int k = 0; !rc && k < 3; k++) {
			uint64_t a = at[k], b = at[k] + len[k];

			if (b <= lo || a >= hi)
				continue;
			a = a < lo ? lo : a;
			b = b > hi ? hi : b;
			rc = extkit_bitmap_set_range(&fb->blocks,
				a - fs->sb.first_data_block, b - a);
		}
	}
	return rc;
}

static int load_group(struct extkit_fsbuild *fb, uint32_t g, uint8_t *raw)
{
	struct extkit_fs *fs = fb->fs;
	const struct extkit_group *gd = &fs->groups[g];
	uint64_t first = extkit_group_first_block(&fs->sb, g) -
			 fs->sb.first_data_block;
	uint32_t count = extkit_group_block_count(&fs->sb, g);
	uint32_t ipg = fs->sb.inodes_per_group;
	int rc = 0;

	if (gd->flags & EXT4_BG_BLOCK_UNINIT) {
		rc = uninit_bits(fb, g, first, count);
	} else {
		rc = extkit_fs_read_block(fs, gd->block_bitmap, raw);
		if (!rc)
			rc = extkit_bitmap_from_disk(&fb->blocks, first, count,
						     raw);
	}
	if (rc || (gd->flags & EXT4_BG_INODE_UNINIT))
		return rc;
	rc = extkit_fs_read_block(fs, gd->inode_bitmap, raw);
	if (!rc)
		rc = extkit_bitmap_from_disk(&fb->inodes, (uint64_t)g * ipg,
					     ipg, raw);
	fb->ino_high[g] = ipg - gd->itable_unused;
	if (!extkit_has_group_csum(&fs->sb))
		fb->ino_high[g] = ipg;
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
	fb->ino_high = calloc(ng, sizeof(*fb->ino_high));
	rc = raw && fb->dirty && fb->ino_high ? 0 : -ENOMEM;
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
	free(fb->ino_high);
	fb->dirty = NULL;
	fb->ino_high = NULL;
}

int extkit_fsbuild_take_inode(struct extkit_fsbuild *fb, uint32_t ino,
			      int is_dir)
{
	struct extkit_fs *fs = fb->fs;
	uint32_t g = (ino - 1) / fs->sb.inodes_per_group;
	uint32_t idx = (ino - 1) % fs->sb.inodes_per_group;
	struct extkit_group *gd = &fs->groups[g];

	if (ino == 0 || ino > fs->sb.inodes_count)
		return -EINVAL;
	if (extkit_bitmap_test(&fb->inodes, ino - 1))
		return -EEXIST;
	extkit_bitmap_set(&fb->inodes, ino - 1);
	gd->free_inodes--;
	fs->sb.free_inodes_count--;
	if (is_dir)
		gd->used_dirs++;
	gd->flags &= (uint16_t)~EXT4_BG_INODE_UNINIT;
	if (idx + 1 > fb->ino_high[g])
		fb->ino_high[g] = idx + 1;
	fb->dirty[g] |= DIRTY_INODES;
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

	if (take) {
		extkit_bitmap_set_range(&fb->blocks, b, count);
		fs->sb.free_blocks_count -= count;
	} else {
		extkit_bitmap_clear_range(&fb->blocks, b, count);
		fs->sb.free_blocks_count += count;
	}
	while (count) {
		uint64_t blk = b + fs->sb.first_data_block;
		uint32_t g = extkit_group_of_block(&fs->sb, blk);
		uint64_t in = bpg - extkit_group_block_index(&fs->sb, blk);

		if (in > count)
			in = count;
		if (take) {
			fs->groups[g].free_blocks -= (uint32_t)in;
			fs->groups[g].flags &=
				(uint16_t)~EXT4_BG_BLOCK_UNINIT;
		}
		else
			fs->groups[g].free_blocks += (uint32_t)in;
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

/* Copies the group's bits over the on-disk bitmap, keeping its padding. */
static int store(struct extkit_fs *fs, uint64_t blk,
		 const struct extkit_bitmap *bm, uint64_t first,
		 uint32_t count, uint8_t *raw)
{
	int rc = extkit_fs_read_block(fs, blk, raw);
	uint32_t whole = count & ~7u;

	if (!rc)
		rc = extkit_bitmap_to_disk(bm, first, whole, raw);
	/* the padding past the group's last block reads as in use */
	for (uint32_t i = count; !rc && i < 8 * fs->g.block_size; i++)
		raw[i / 8] |= (uint8_t)(1u << (i % 8));
	for (uint32_t i = whole; !rc && i < count; i++) {
		uint8_t bit = (uint8_t)(1u << (i % 8));

		if (extkit_bitmap_test(bm, first + i) == 1)
			raw[i / 8] |= bit;
		else
			raw[i / 8] &= (uint8_t)~bit;
	}
	return rc;
}

/* An inode bitmap never written (INODE_UNINIT): zero, then its padding. */
static void fresh_inode_bitmap(const struct extkit_fs *fs, uint8_t *raw)
{
	uint32_t ipg = fs->sb.inodes_per_group, bits = 8 * fs->g.block_size;

	memset(raw, 0, fs->g.block_size);
	for (uint32_t i = ipg; i < bits; i++)
		raw[i / 8] |= (uint8_t)(1u << (i % 8));
}

static int flush_group(struct extkit_fsbuild *fb, uint32_t g, uint8_t *raw)
{
	struct extkit_fs *fs = fb->fs;
	struct extkit_group *gd = &fs->groups[g];
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t first = extkit_group_first_block(&fs->sb, g) -
			 fs->sb.first_data_block;
	int rc = 0;

	if (fb->dirty[g] & DIRTY_BLOCKS) {
		rc = store(fs, gd->block_bitmap, &fb->blocks, first,
			   extkit_group_block_count(&fs->sb, g), raw);
		if (!rc) {
			extkit_group_block_bitmap_csum_set(fs, g, raw);
			rc = extkit_fs_write_block(fs, gd->block_bitmap, raw);
		}
	}
	if (rc || !(fb->dirty[g] & DIRTY_INODES))
		return rc;
	fresh_inode_bitmap(fs, raw);
	rc = extkit_bitmap_to_disk(&fb->inodes, (uint64_t)g * ipg, ipg & ~7u,
				   raw);
	for (uint32_t i = ipg & ~7u; !rc && i < ipg; i++)
		if (extkit_bitmap_test(&fb->inodes, (uint64_t)g * ipg + i) == 1)
			raw[i / 8] |= (uint8_t)(1u << (i % 8));
	if (rc)
		return rc;
	if (extkit_has_group_csum(&fs->sb))
		gd->itable_unused = ipg - fb->ino_high[g];
	extkit_group_inode_bitmap_csum_set(fs, g, raw);
	return extkit_fs_write_block(fs, gd->inode_bitmap, raw);
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
