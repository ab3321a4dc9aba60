// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A take or a release as disk state (see alloc_stats.h): counts, flags,
 * bg_itable_unused, and bitmaps in their on-disk layout.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc_stats.h"
#include "csum.h"
#include "error.h"
#include "group.h"
#include "ondisk.h"

void extkit_alloc_stats_blocks(struct extkit_fs *fs, uint32_t g,
			       uint64_t units, int take)
{
	struct extkit_group *gd = &fs->groups[g];
	uint64_t blocks = units << fs->g.cluster_bits;

	if (!take) {
		gd->free_blocks += (uint32_t)units;
		fs->sb.free_blocks_count += blocks;
		return;
	}
	gd->free_blocks = gd->free_blocks > units ?
			  gd->free_blocks - (uint32_t)units : 0;
	fs->sb.free_blocks_count = fs->sb.free_blocks_count > blocks ?
				   fs->sb.free_blocks_count - blocks : 0;
	gd->flags &= (uint16_t)~EXT4_BG_BLOCK_UNINIT;
}

int extkit_alloc_stats_inode_in_use(struct extkit_fs *fs, uint32_t ino)
{
	uint32_t g = extkit_group_of_inode(&fs->sb, ino);
	uint32_t after = fs->sb.inodes_per_group - 1 -
			 extkit_group_inode_index(&fs->sb, ino);
	struct extkit_group *gd = &fs->groups[g];
	int changed = !!(gd->flags & EXT4_BG_INODE_UNINIT);

	gd->flags &= (uint16_t)~EXT4_BG_INODE_UNINIT;
	if (extkit_has_group_csum(&fs->sb) && gd->itable_unused > after) {
		gd->itable_unused = after;
		changed = 1;
	}
	return changed;
}

void extkit_alloc_stats_inode(struct extkit_fs *fs, uint32_t ino, int take,
			      int is_dir)
{
	struct extkit_group *gd =
		&fs->groups[extkit_group_of_inode(&fs->sb, ino)];

	if (!take) {
		gd->free_inodes++;
		fs->sb.free_inodes_count++;
		if (is_dir && gd->used_dirs)
			gd->used_dirs--;
		return;
	}
	if (gd->free_inodes)
		gd->free_inodes--;
	if (fs->sb.free_inodes_count)
		fs->sb.free_inodes_count--;
	if (is_dir)
		gd->used_dirs++;
	extkit_alloc_stats_inode_in_use(fs, ino);
}

uint32_t extkit_alloc_map_bits(const struct extkit_fs *fs, uint32_t g,
			       enum extkit_map_kind kind)
{
	uint32_t blocks, mask = fs->g.cluster_ratio - 1;

	if (kind == EXTKIT_MAP_INODES)
		return fs->sb.inodes_per_group;
	blocks = extkit_group_block_count(&fs->sb, g);
	return (blocks + mask) >> fs->g.cluster_bits;
}

static int never_written(const struct extkit_fs *fs, uint32_t g,
			 enum extkit_map_kind kind)
{
	uint16_t fl = kind == EXTKIT_MAP_INODES ? EXT4_BG_INODE_UNINIT :
						  EXT4_BG_BLOCK_UNINIT;

	return extkit_has_group_csum(&fs->sb) && (fs->groups[g].flags & fl);
}

/* Sets the units of blocks [a, b) that lie in [lo, hi) (bits from
 * first: group g's first unit). */
static int set_blocks_in(const struct extkit_fs *fs, struct extkit_bitmap *bm,
			 uint64_t first, uint64_t lo, uint64_t hi,
			 uint64_t a, uint64_t b)
{
	uint32_t bits = fs->g.cluster_bits;

	if (b <= lo || a >= hi)
		return 0;
	a = a < lo ? lo : a;
	b = b > hi ? hi : b;
	return extkit_bitmap_set_range(bm, first + ((a - lo) >> bits),
				       ((b - lo - 1) >> bits) -
				       ((a - lo) >> bits) + 1);
}

/* A block bitmap never written: the group's own metadata in use. */
static int uninit_block_bits(const struct extkit_fs *fs, uint32_t g,
			     struct extkit_bitmap *bm, uint64_t first)
{
	uint64_t lo = extkit_group_first_block(&fs->sb, g);
	uint64_t hi = lo + extkit_group_block_count(&fs->sb, g);
	uint32_t it = fs->g.itable_blocks;
	int rc = set_blocks_in(fs, bm, first, lo, hi, lo,
			       lo + extkit_group_sb_overhead(&fs->sb, &fs->g,
							     g));

	for (uint32_t h = 0; !rc && h < fs->g.group_count; h++) {
		const struct extkit_group *d = &fs->groups[h];

		rc = set_blocks_in(fs, bm, first, lo, hi, d->block_bitmap,
				   d->block_bitmap + 1);
		if (!rc)
			rc = set_blocks_in(fs, bm, first, lo, hi,
					   d->inode_bitmap,
					   d->inode_bitmap + 1);
		if (!rc)
			rc = set_blocks_in(fs, bm, first, lo, hi,
					   d->inode_table,
					   d->inode_table + it);
	}
	return rc;
}

static uint64_t map_block(const struct extkit_fs *fs, uint32_t g,
			  enum extkit_map_kind kind)
{
	return kind == EXTKIT_MAP_INODES ? fs->groups[g].inode_bitmap :
					   fs->groups[g].block_bitmap;
}

int extkit_alloc_map_load(struct extkit_fs *fs, uint32_t g,
			  enum extkit_map_kind kind, struct extkit_bitmap *bm,
			  uint64_t first, uint8_t *raw)
{
	uint32_t bits = extkit_alloc_map_bits(fs, g, kind);
	int rc;

	if (never_written(fs, g, kind)) {
		rc = extkit_bitmap_clear_range(bm, first, bits);
		if (!rc && kind == EXTKIT_MAP_BLOCKS)
			rc = uninit_block_bits(fs, g, bm, first);
		return rc;
	}
	rc = extkit_fs_read_block(fs, map_block(fs, g, kind), raw);
	return rc ? rc : extkit_bitmap_from_disk(bm, first, bits, raw);
}

int extkit_alloc_map_store(struct extkit_fs *fs, uint32_t g,
			   enum extkit_map_kind kind,
			   const struct extkit_bitmap *bm, uint64_t first,
			   uint8_t *raw)
{
	uint32_t bits = extkit_alloc_map_bits(fs, g, kind);
	uint32_t all = 8 * fs->g.block_size;
	int rc;

	if (bits > all)
		return -EFSCORRUPTED;
	memset(raw, 0, fs->g.block_size);
	rc = extkit_bitmap_to_disk(bm, first, bits, raw);
	if (rc)
		return rc;
	/* the padding past the group's last unit reads as in use */
	for (uint32_t i = bits; i < all && i % 8; i++)
		raw[i / 8] |= (uint8_t)(1u << (i % 8));
	if ((bits + 7) / 8 < fs->g.block_size)
		memset(raw + (bits + 7) / 8, 0xff,
		       fs->g.block_size - (bits + 7) / 8);
	if (kind == EXTKIT_MAP_INODES)
		extkit_group_inode_bitmap_csum_set(fs, g, raw);
	else
		extkit_group_block_bitmap_csum_set(fs, g, raw);
	return extkit_fs_write_block(fs, map_block(fs, g, kind), raw);
}

int extkit_group_map_load(struct extkit_fs *fs, uint32_t g,
			  enum extkit_map_kind kind,
			  struct extkit_group_map *m)
{
	int rc;

	m->g = g;
	m->kind = kind;
	m->bits = extkit_alloc_map_bits(fs, g, kind);
	m->raw = malloc(fs->g.block_size);
	if (!m->raw)
		return -ENOMEM;
	rc = extkit_bitmap_init(&m->bm, m->bits);
	if (!rc)
		rc = extkit_alloc_map_load(fs, g, kind, &m->bm, 0, m->raw);
	if (rc)
		extkit_group_map_free(m);
	return rc;
}

int extkit_group_map_store(struct extkit_fs *fs, struct extkit_group_map *m)
{
	return extkit_alloc_map_store(fs, m->g, m->kind, &m->bm, 0, m->raw);
}

void extkit_group_map_free(struct extkit_group_map *m)
{
	extkit_bitmap_free(&m->bm);
	free(m->raw);
	m->raw = NULL;
}
