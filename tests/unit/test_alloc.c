// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the allocation interface and alloc_stats.c, on
 * in-memory images: after a take and a release of blocks or inodes, the
 * on-disk bitmap bit, the padding past the group's last unit, the group
 * and superblock free counts, used directories, the UNINIT flags,
 * bg_itable_unused and the bitmap checksums; a take that finds a unit in
 * use changes nothing; bigalloc takes whole clusters (the group counting
 * clusters, the superblock blocks); a bitmap never initialised loads as
 * its group's metadata; fsbuild's whole-filesystem backing writes the
 * same disk state, in whole clusters on bigalloc, and serves as the
 * allocation interface (blocks, inodes from a goal, one inode by number,
 * releases).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "alloc_stats.h"
#include "csum.h"
#include "error.h"
#include "fs.h"
#include "fsbuild.h"
#include "group.h"
#include "image.h"
#include "ondisk.h"
#include "suites.h"

struct fx {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint8_t *raw;
};

/* 1 KiB blocks, 8000 blocks (the last group partial: padding), 256
 * inodes per group; metadata_csum turned on in memory. */
static void fx_open(struct fx *f, int csum)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.blocks = 8000;
	o.blocks_per_group = 2048;
	f->io = test_image_make(&o);
	f->fs = test_image_open(f->io);
	if (csum)
		f->fs->sb.feature_ro_compat |=
			EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	f->raw = malloc(f->fs->g.block_size);
	ck_assert_ptr_nonnull(f->raw);
}

static void fx_close(struct fx *f)
{
	free(f->raw);
	extkit_fs_close(f->fs);
	extkit_io_close(f->io);
}

/* Bit i of group g's bitmap of that kind, as on disk. */
static int disk_bit(struct fx *f, uint32_t g, enum extkit_map_kind kind,
		    uint32_t i)
{
	uint64_t blk = kind == EXTKIT_MAP_INODES ?
		       f->fs->groups[g].inode_bitmap :
		       f->fs->groups[g].block_bitmap;

	ck_assert_int_eq(extkit_fs_read_block(f->fs, blk, f->raw), 0);
	return f->raw[i / 8] >> (i % 8) & 1;
}

/* The descriptor's block bitmap checksum is that of the block on disk. */
static void check_block_csum(struct fx *f, uint32_t g)
{
	uint32_t bytes = (f->fs->sb.blocks_per_group >>
			  f->fs->g.cluster_bits) / 8;

	ck_assert_int_eq(extkit_fs_read_block(f->fs,
			 f->fs->groups[g].block_bitmap, f->raw), 0);
	ck_assert_uint_eq(f->fs->groups[g].block_bitmap_csum,
			  extkit_bitmap_csum(f->fs, f->raw, bytes));
}

START_TEST(test_blocks_take_release)
{
	struct fx f;
	uint64_t goal, blk, sb_free;
	uint32_t g = 3, free0, idx;

	fx_open(&f, 1);
	/* padding lost on disk: a take writes it again */
	ck_assert_int_eq(extkit_fs_read_block(f.fs,
			 f.fs->groups[g].block_bitmap, f.raw), 0);
	memset(f.raw + 256, 0, f.fs->g.block_size - 256);
	ck_assert_int_eq(extkit_fs_write_block(f.fs,
			 f.fs->groups[g].block_bitmap, f.raw), 0);
	goal = extkit_group_first_block(&f.fs->sb, g) + 100;
	free0 = f.fs->groups[g].free_blocks;
	sb_free = f.fs->sb.free_blocks_count;
	ck_assert_int_eq(extkit_alloc_block(f.fs, goal, &blk), 0);
	ck_assert_uint_eq(blk, goal);
	idx = extkit_group_block_index(&f.fs->sb, blk);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, idx), 1);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 1);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sb_free - 1);
	check_block_csum(&f, g);
	/* the last group is partial: every bit past its blocks is set */
	for (uint32_t i = extkit_alloc_map_bits(f.fs, g, EXTKIT_MAP_BLOCKS);
	     i < 8 * f.fs->g.block_size; i += 97)
		ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, i), 1);
	/* marking it again is refused and changes nothing */
	ck_assert_int_eq(extkit_alloc_mark(f.fs, blk - 1, 2), -EFSCORRUPTED);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, idx - 1), 0);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 1);
	ck_assert_int_eq(extkit_free_blocks(f.fs, blk, 1), 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, idx), 0);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sb_free);
	check_block_csum(&f, g);
	ck_assert_int_eq(extkit_free_blocks(f.fs, blk, 1), -EFSCORRUPTED);
	fx_close(&f);
}
END_TEST

/* A range across two groups: each group's bitmap and count. */
START_TEST(test_blocks_across_groups)
{
	struct fx f;
	uint64_t start = extkit_group_first_block(&(struct extkit_super){
		.first_data_block = 1, .blocks_per_group = 2048 }, 2) - 10;
	uint32_t f1, f2;

	fx_open(&f, 0);
	f1 = f.fs->groups[1].free_blocks;
	f2 = f.fs->groups[2].free_blocks;
	ck_assert_int_eq(extkit_alloc_mark(f.fs, start, 10), 0);
	ck_assert_uint_eq(f.fs->groups[1].free_blocks, f1 - 10);
	ck_assert_uint_eq(f.fs->groups[2].free_blocks, f2);
	ck_assert_int_eq(extkit_alloc_mark(f.fs, start + 10, 1),
			 -EFSCORRUPTED);	/* group 2's superblock copy */
	ck_assert_int_eq(extkit_blocks_all_used(f.fs, start, 10), 1);
	ck_assert_int_eq(extkit_blocks_all_used(f.fs, start - 1, 10), 0);
	ck_assert_int_eq(extkit_free_blocks(f.fs, start, 10), 0);
	ck_assert_uint_eq(f.fs->groups[1].free_blocks, f1);
	fx_close(&f);
}
END_TEST

START_TEST(test_inode_stats)
{
	struct fx f;
	uint32_t ipg, ino, g = 2;
	struct extkit_group *gd;
	uint32_t sbfree;

	fx_open(&f, 1);
	ipg = f.fs->sb.inodes_per_group;
	gd = &f.fs->groups[g];
	gd->flags |= EXT4_BG_INODE_UNINIT;
	gd->itable_unused = ipg;
	sbfree = f.fs->sb.free_inodes_count;
	ino = g * ipg + 6;		/* index 5 in group 2 */
	extkit_alloc_stats_inode(f.fs, ino, 1, 1);
	ck_assert_uint_eq(gd->flags & EXT4_BG_INODE_UNINIT, 0);
	ck_assert_uint_eq(gd->itable_unused, ipg - 6);
	ck_assert_uint_eq(gd->free_inodes, ipg - 1);
	ck_assert_uint_eq(gd->used_dirs, 1);
	ck_assert_uint_eq(f.fs->sb.free_inodes_count, sbfree - 1);
	/* an inode before the mark leaves it; one past it moves it */
	ck_assert_int_eq(extkit_alloc_stats_inode_in_use(f.fs, ino - 3), 0);
	ck_assert_uint_eq(gd->itable_unused, ipg - 6);
	ck_assert_int_eq(extkit_alloc_stats_inode_in_use(f.fs, ino + 4), 1);
	ck_assert_uint_eq(gd->itable_unused, ipg - 10);
	extkit_alloc_stats_inode(f.fs, ino, 0, 1);
	ck_assert_uint_eq(gd->free_inodes, ipg);
	ck_assert_uint_eq(gd->used_dirs, 0);
	ck_assert_uint_eq(f.fs->sb.free_inodes_count, sbfree);
	/* counts never go below zero */
	gd->free_inodes = 0;
	extkit_alloc_stats_inode(f.fs, ino, 1, 0);
	ck_assert_uint_eq(gd->free_inodes, 0);
	extkit_alloc_stats_blocks(f.fs, g, gd->free_blocks + 5, 1);
	ck_assert_uint_eq(gd->free_blocks, 0);
	fx_close(&f);
}
END_TEST

/* A block bitmap never written loads as its group's metadata; storing
 * it writes the bits, the padding, the checksum, and a take clears the
 * flag. */
START_TEST(test_uninit_block_map)
{
	struct fx f;
	struct extkit_group_map m;
	uint32_t g = 3, meta;

	fx_open(&f, 1);
	f.fs->groups[g].flags |= EXT4_BG_BLOCK_UNINIT;
	/* junk in the bitmap block: not read */
	memset(f.raw, 0xa5, f.fs->g.block_size);
	ck_assert_int_eq(extkit_fs_write_block(f.fs,
			 f.fs->groups[g].block_bitmap, f.raw), 0);
	ck_assert_int_eq(extkit_group_map_load(f.fs, g, EXTKIT_MAP_BLOCKS,
					       &m), 0);
	meta = extkit_group_sb_overhead(&f.fs->sb, &f.fs->g, g) + 2 +
	       f.fs->g.itable_blocks;
	ck_assert_uint_eq(extkit_bitmap_count_range(&m.bm, 0, m.bits), meta);
	ck_assert_int_eq(extkit_bitmap_test(&m.bm, meta - 1), 1);
	ck_assert_int_eq(extkit_bitmap_test(&m.bm, meta), 0);
	extkit_alloc_stats_blocks(f.fs, g, 1, 1);
	ck_assert_int_eq(extkit_bitmap_set(&m.bm, meta), 0);
	ck_assert_int_eq(extkit_group_map_store(f.fs, &m), 0);
	extkit_group_map_free(&m);
	ck_assert_uint_eq(f.fs->groups[g].flags & EXT4_BG_BLOCK_UNINIT, 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, meta), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, meta + 1), 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS,
				  8 * f.fs->g.block_size - 1), 1);
	check_block_csum(&f, g);
	fx_close(&f);
}
END_TEST

/* Two groups' inode bitmaps loaded side by side into one bitmap at the
 * offsets given, edited, one stored back: its bits, the padding past
 * s_inodes_per_group set, the checksum in the descriptor. */
START_TEST(test_map_load_store_at)
{
	struct extkit_bitmap bm;
	uint32_t ipg, g = 2;
	struct fx f;

	fx_open(&f, 1);
	ipg = f.fs->sb.inodes_per_group;
	ck_assert_uint_eq(extkit_alloc_map_bits(f.fs, g, EXTKIT_MAP_INODES),
			  ipg);
	ck_assert_int_eq(extkit_alloc_inode_set(f.fs, g * ipg + 5, 1, 0), 0);
	ck_assert_int_eq(extkit_bitmap_init(&bm, 2 * ipg + 64), 0);
	ck_assert_int_eq(extkit_alloc_map_load(f.fs, 0, EXTKIT_MAP_INODES, &bm,
					       0, f.raw), 0);
	ck_assert_int_eq(extkit_alloc_map_load(f.fs, g, EXTKIT_MAP_INODES, &bm,
					       ipg + 64, f.raw), 0);
	ck_assert_int_eq(extkit_bitmap_test(&bm, 0), 1);	/* reserved */
	ck_assert_int_eq(extkit_bitmap_test(&bm, ipg + 64 + 4), 1);
	ck_assert_int_eq(extkit_bitmap_test(&bm, ipg + 64 + 5), 0);
	ck_assert_int_eq(extkit_bitmap_set(&bm, ipg + 64 + 9), 0);
	ck_assert_int_eq(extkit_bitmap_clear(&bm, ipg + 64 + 4), 0);
	ck_assert_int_eq(extkit_alloc_map_store(f.fs, g, EXTKIT_MAP_INODES, &bm,
						ipg + 64, f.raw), 0);
	extkit_bitmap_free(&bm);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES, 4), 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES, 9), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES, ipg), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES,
				  8 * f.fs->g.block_size - 1), 1);
	ck_assert_uint_eq(f.fs->groups[g].inode_bitmap_csum,
			  extkit_bitmap_csum(f.fs, f.raw, ipg / 8));
	fx_close(&f);
}
END_TEST

/* bigalloc (16 blocks a cluster, turned on in memory): the cluster
 * calls count clusters in the group, blocks in the superblock; in
 * whole-cluster mode a block take marks its whole cluster. */
START_TEST(test_bigalloc_clusters)
{
	struct fx f;
	uint32_t g = 1, free0;
	uint64_t c, sb0, blk, cl[3];

	fx_open(&f, 0);
	f.fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_BIGALLOC;
	f.fs->sb.feature_incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS;
	f.fs->g.cluster_bits = 4;
	f.fs->g.cluster_ratio = 16;
	f.fs->sb.log_cluster_size = f.fs->sb.log_block_size + 4;
	f.fs->sb.clusters_per_group = f.fs->sb.blocks_per_group / 16;
	f.fs->sb.first_data_block = 0;	/* as bigalloc has it */
	ck_assert_uint_eq(extkit_alloc_map_bits(f.fs, g, EXTKIT_MAP_BLOCKS),
			  128);
	free0 = f.fs->groups[g].free_blocks;
	sb0 = f.fs->sb.free_blocks_count;
	c = (extkit_group_first_block(&f.fs->sb, g) >> 4) + 100;
	ck_assert_int_eq(extkit_alloc_mark_clusters(f.fs, c, 2), 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 100), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 101), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 102), 0);
	/* padding past the group's 128 clusters */
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 128), 1);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 2);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sb0 - 32);
	/* planned in clusters from the one holding the goal block, the
	 * taken ones passed over, nothing marked */
	ck_assert_int_eq(extkit_alloc_find_clusters(f.fs, c * 16 + 5, 3, cl),
			 0);
	ck_assert_uint_eq(cl[0], c + 2);
	ck_assert_uint_eq(cl[1], c + 3);
	ck_assert_uint_eq(cl[2], c + 4);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 2);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 102), 0);
	/* the block calls refuse bigalloc unless whole clusters are
	 * taken */
	blk = (c + 2) * 16 + 3;
	ck_assert_int_eq(extkit_alloc_mark(f.fs, blk, 1), -EXTKIT_EUNSUPP);
	f.fs->alloc_whole_clusters = 1;
	ck_assert_int_eq(extkit_alloc_mark(f.fs, blk, 1), 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 102), 1);
	ck_assert_int_eq(extkit_blocks_all_used(f.fs, (c + 2) * 16, 16), 1);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 3);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sb0 - 48);
	ck_assert_int_eq(extkit_free_clusters(f.fs, c, 3), 0);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sb0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 102), 0);
	fx_close(&f);
}
END_TEST

/* fsbuild on bigalloc (16 blocks a cluster, turned on in memory): whole
 * clusters taken and given back, the group counting clusters and the
 * superblock blocks; the block calls refuse; the bitmap written holds a
 * bit per cluster with its padding. */
START_TEST(test_fsbuild_clusters)
{
	struct fx f;
	struct extkit_fsbuild fb;
	uint32_t g = 1, free0;
	uint64_t c, sb0, start, got;

	fx_open(&f, 0);
	f.fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_BIGALLOC;
	f.fs->sb.feature_incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS;
	f.fs->g.cluster_bits = 4;
	f.fs->g.cluster_ratio = 16;
	f.fs->sb.log_cluster_size = f.fs->sb.log_block_size + 4;
	f.fs->sb.clusters_per_group = f.fs->sb.blocks_per_group / 16;
	f.fs->sb.first_data_block = 0;	/* as bigalloc has it */
	ck_assert_int_eq(extkit_fsbuild_open(f.fs, &fb), 0);
	free0 = f.fs->groups[g].free_blocks;
	sb0 = f.fs->sb.free_blocks_count;
	c = (extkit_group_first_block(&f.fs->sb, g) >> 4) + 100;
	/* a goal inside a cluster: from that cluster's start */
	ck_assert_int_eq(extkit_fsbuild_clusters(&fb, c * 16 + 5, 2, &start,
						 &got), 0);
	ck_assert_uint_eq(start, c * 16);
	ck_assert_uint_eq(got, 2);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 2);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sb0 - 32);
	ck_assert_int_eq(extkit_fsbuild_blocks(&fb, start, 1, &start, &got),
			 -EXTKIT_EUNSUPP);
	ck_assert_int_eq(extkit_fsbuild_release(&fb, c * 16, 16),
			 -EXTKIT_EUNSUPP);
	ck_assert_int_eq(extkit_fsbuild_release_clusters(&fb, c * 16 + 1, 1),
			 -EINVAL);
	ck_assert_int_eq(extkit_fsbuild_release_clusters(&fb, c * 16 + 16,
							 1), 0);
	ck_assert_int_eq(extkit_fsbuild_release_clusters(&fb, c * 16 + 16,
							 1), -EFSCORRUPTED);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 1);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sb0 - 16);
	ck_assert_int_eq(extkit_fsbuild_flush(&fb), 0);
	extkit_fsbuild_close(&fb);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 100), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 101), 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 128), 1);
	fx_close(&f);
}
END_TEST

/* fsbuild's backing: taken in memory, the same disk state at flush. */
START_TEST(test_fsbuild_backing)
{
	struct fx f;
	struct extkit_fsbuild fb;
	uint64_t goal, start, got;
	uint32_t ino, g = 2, ipg, free0;

	fx_open(&f, 1);
	ipg = f.fs->sb.inodes_per_group;
	f.fs->groups[g].flags |= EXT4_BG_INODE_UNINIT;
	f.fs->groups[g].itable_unused = ipg;
	ck_assert_int_eq(extkit_fsbuild_open(f.fs, &fb), 0);
	goal = extkit_group_first_block(&f.fs->sb, g) + 300;
	free0 = f.fs->groups[g].free_blocks;
	ck_assert_int_eq(extkit_fsbuild_blocks(&fb, goal, 8, &start, &got),
			 0);
	ck_assert_uint_eq(start, goal);
	ck_assert_uint_eq(got, 8);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 8);
	ck_assert_int_eq(extkit_fsbuild_release(&fb, start + 6, 2), 0);
	ck_assert_int_eq(extkit_fsbuild_release(&fb, start + 6, 2),
			 -EFSCORRUPTED);
	ck_assert_int_eq(extkit_fsbuild_inode(&fb, g * ipg + 1, 1, &ino), 0);
	ck_assert_uint_eq(ino, g * ipg + 1);
	ck_assert_int_eq(extkit_fsbuild_flush(&fb), 0);
	extkit_fsbuild_close(&fb);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 300 + 5), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 300 + 6), 0);
	check_block_csum(&f, g);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES, 0), 1);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES, 1), 0);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES, ipg), 1);
	ck_assert_uint_eq(f.fs->groups[g].inode_bitmap_csum,
			  extkit_bitmap_csum(f.fs, f.raw, ipg / 8));
	ck_assert_uint_eq(f.fs->groups[g].flags & EXT4_BG_INODE_UNINIT, 0);
	ck_assert_uint_eq(f.fs->groups[g].itable_unused, ipg - 1);
	ck_assert_uint_eq(f.fs->groups[g].used_dirs, 1);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 6);
	fx_close(&f);
}
END_TEST

/* Planning finds free blocks from the goal on, wrapping around, and
 * marks nothing. */
START_TEST(test_find_plans)
{
	uint64_t blks[6], goal, last, sbfree, *all;
	uint32_t g = 2, free0;
	struct fx f;

	fx_open(&f, 1);
	goal = extkit_group_first_block(&f.fs->sb, g) + 400;
	ck_assert_int_eq(extkit_alloc_mark(f.fs, goal + 1, 2), 0);
	free0 = f.fs->groups[g].free_blocks;
	sbfree = f.fs->sb.free_blocks_count;
	ck_assert_int_eq(extkit_alloc_find(f.fs, goal, 4, blks), 0);
	ck_assert_uint_eq(blks[0], goal);
	ck_assert_uint_eq(blks[1], goal + 3);	/* the used ones passed */
	ck_assert_uint_eq(blks[2], goal + 4);
	ck_assert_uint_eq(blks[3], goal + 5);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sbfree);
	ck_assert_int_eq(extkit_blocks_all_used(f.fs, goal, 1), 0);
	/* from the last block on: the rest come from the start */
	last = f.fs->sb.blocks_count - 1;
	ck_assert_int_eq(extkit_alloc_find(f.fs, last, 2, blks), 0);
	ck_assert_uint_eq(blks[0], last);
	ck_assert_uint_lt(blks[1], last);
	/* one more than are free */
	all = calloc(f.fs->sb.free_blocks_count + 1, sizeof(*all));
	ck_assert_ptr_nonnull(all);
	ck_assert_int_eq(extkit_alloc_find(f.fs, goal,
					   f.fs->sb.free_blocks_count + 1,
					   all), -ENOSPC);
	ck_assert_int_eq(extkit_alloc_find(f.fs, goal,
					   f.fs->sb.free_blocks_count, all),
			 0);
	free(all);
	fx_close(&f);
}
END_TEST

struct runs_seen {
	uint64_t start[8], len[8];
	unsigned int n, stop_at;
};

static struct runs_seen seen;

static int note_run(struct extkit_fs *fs, uint64_t start, uint64_t count)
{
	(void)fs;
	seen.start[seen.n] = start;
	seen.len[seen.n++] = count;
	return seen.n == seen.stop_at ? 7 : 0;
}

/* A list of blocks given back: sorted, walked and freed as runs. */
START_TEST(test_blk_list)
{
	struct extkit_blk_list l = { 0 };
	static const unsigned int off[] = { 5, 1, 2, 9, 3 };
	uint32_t g = 1, free0;
	uint64_t p;
	struct fx f;

	fx_open(&f, 1);
	p = extkit_group_first_block(&f.fs->sb, g) + 100;
	for (unsigned int i = 0; i < 5; i++)
		ck_assert_int_eq(extkit_blk_list_push(&l, p + off[i]), 0);
	ck_assert_uint_eq(l.n, 5);
	extkit_blk_list_sort(&l);
	for (uint64_t i = 1; i < l.n; i++)
		ck_assert_uint_lt(l.blk[i - 1], l.blk[i]);
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(extkit_blk_list_runs(f.fs, &l, note_run, 0), 0);
	ck_assert_uint_eq(seen.n, 3);
	ck_assert_uint_eq(seen.start[0], p + 1);
	ck_assert_uint_eq(seen.len[0], 3);
	ck_assert_uint_eq(seen.start[1], p + 5);
	ck_assert_uint_eq(seen.len[1], 1);
	ck_assert_uint_eq(seen.start[2], p + 9);
	memset(&seen, 0, sizeof(seen));
	seen.stop_at = 2;	/* the walk stops at the first other answer */
	ck_assert_int_eq(extkit_blk_list_runs(f.fs, &l, note_run, 0), 7);
	ck_assert_uint_eq(seen.n, 2);
	/* taken, then released through the list */
	ck_assert_int_eq(extkit_alloc_mark(f.fs, p + 1, 3), 0);
	ck_assert_int_eq(extkit_alloc_mark(f.fs, p + 5, 1), 0);
	ck_assert_int_eq(extkit_alloc_mark(f.fs, p + 9, 1), 0);
	free0 = f.fs->groups[g].free_blocks;
	ck_assert_int_eq(extkit_blk_list_release(f.fs, &l), 0);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 + 5);
	ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS,
				  (uint32_t)(p + 2 - extkit_group_first_block(
						&f.fs->sb, g))), 0);
	check_block_csum(&f, g);
	extkit_blk_list_free(&l);
	ck_assert_ptr_null(l.blk);
	ck_assert_uint_eq(l.n, 0);
	fx_close(&f);
}
END_TEST

/* fsbuild as the allocation interface, and a named inode taken. */
START_TEST(test_fsbuild_interface)
{
	struct extkit_allocator a;
	struct extkit_fsbuild fb;
	uint64_t goal, start, got, sbfree;
	uint32_t ino, g = 1, ipg, free0, ifree0;
	struct fx f;

	fx_open(&f, 1);
	ipg = f.fs->sb.inodes_per_group;
	ck_assert_int_eq(extkit_fsbuild_open(f.fs, &fb), 0);
	extkit_fsbuild_allocator(&fb, &a);
	ck_assert_ptr_eq(a.arg, &fb);
	goal = extkit_group_first_block(&f.fs->sb, g) + 700;
	free0 = f.fs->groups[g].free_blocks;
	sbfree = f.fs->sb.free_blocks_count;
	ck_assert_int_eq(a.take_blocks(a.arg, goal, 5, &start, &got), 0);
	ck_assert_uint_eq(start, goal);
	ck_assert_uint_eq(got, 5);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 5);
	ck_assert_uint_eq(f.fs->sb.free_blocks_count, sbfree - 5);
	/* taken: the next take passes over them */
	ck_assert_int_eq(extkit_take_block(f.fs, &a, goal, &start), 0);
	ck_assert_uint_eq(start, goal + 5);
	ck_assert_int_eq(a.release(a.arg, goal + 1, 2), 0);
	ck_assert_int_eq(extkit_give_back(f.fs, &a, goal + 5, 1), 0);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 3);
	/* inodes: from the goal, and one by number */
	ifree0 = f.fs->groups[g].free_inodes;
	ck_assert_int_eq(a.take_inode(a.arg, g * ipg + 10, 1, &ino), 0);
	ck_assert_uint_eq(ino, g * ipg + 10);
	ck_assert_int_eq(extkit_fsbuild_take_inode(&fb, g * ipg + 12, 0), 0);
	ck_assert_int_eq(extkit_fsbuild_take_inode(&fb, g * ipg + 12, 0),
			 -EEXIST);
	ck_assert_int_eq(extkit_fsbuild_take_inode(&fb, 0, 0), -EINVAL);
	ck_assert_int_eq(extkit_fsbuild_take_inode(&fb,
						   f.fs->sb.inodes_count + 1,
						   0), -EINVAL);
	ck_assert_int_eq(a.take_inode(a.arg, g * ipg + 12, 0, &ino), 0);
	ck_assert_uint_eq(ino, g * ipg + 13);	/* 12 is taken */
	ck_assert_uint_eq(f.fs->groups[g].free_inodes, ifree0 - 3);
	ck_assert_uint_eq(f.fs->groups[g].used_dirs, 1);
	ck_assert_int_eq(extkit_fsbuild_flush(&fb), 0);
	extkit_fsbuild_close(&fb);
	for (uint32_t i = 0; i < 7; i++)
		ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_BLOCKS, 700 + i),
				 i == 0 || i == 3 || i == 4);
	check_block_csum(&f, g);
	for (uint32_t i = 8; i < 14; i++)
		ck_assert_int_eq(disk_bit(&f, g, EXTKIT_MAP_INODES, i),
				 i == 9 || i == 11 || i == 12);
	ck_assert_uint_eq(f.fs->groups[g].inode_bitmap_csum,
			  extkit_bitmap_csum(f.fs, f.raw, ipg / 8));
	fx_close(&f);
}
END_TEST

/* Settling a range sets only what is not in that state, counting it;
 * inodes taken and released on the on-disk bitmaps. */
START_TEST(test_settle_and_inodes)
{
	struct fx f;
	struct extkit_allocator a;
	uint64_t start, changed, blk, got;
	uint32_t g = 1, free0, ino, ipg;

	fx_open(&f, 1);
	ipg = f.fs->sb.inodes_per_group;
	start = extkit_group_first_block(&f.fs->sb, g) + 500;
	free0 = f.fs->groups[g].free_blocks;
	ck_assert_int_eq(extkit_alloc_mark(f.fs, start + 2, 2), 0);
	ck_assert_int_eq(extkit_alloc_settle(f.fs, start, 6, 1, &changed), 0);
	ck_assert_uint_eq(changed, 4);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 6);
	ck_assert_int_eq(extkit_alloc_settle(f.fs, start, 6, 1, &changed), 0);
	ck_assert_uint_eq(changed, 0);
	ck_assert_int_eq(extkit_alloc_settle(f.fs, start + 5, 3, 0, &changed),
			 0);
	ck_assert_uint_eq(changed, 1);
	ck_assert_uint_eq(f.fs->groups[g].free_blocks, free0 - 5);
	check_block_csum(&f, g);
	ck_assert_int_eq(extkit_alloc_settle(f.fs, f.fs->sb.blocks_count, 1,
					     1, NULL), -EFSCORRUPTED);
	/* inodes: the first free from the goal on, never a reserved one */
	ck_assert_int_eq(extkit_alloc_inode(f.fs, 1, 0, &ino), 0);
	ck_assert_uint_eq(ino, f.fs->g.first_ino);
	ck_assert_int_eq(extkit_inode_in_use(f.fs, ino), 1);
	ck_assert_int_eq(extkit_alloc_inode_set(f.fs, ino, 1, 0),
			 -EFSCORRUPTED);
	ck_assert_int_eq(extkit_alloc_inode(f.fs, ipg + 3, 1, &ino), 0);
	ck_assert_uint_eq(ino, ipg + 3);
	ck_assert_uint_eq(f.fs->groups[1].used_dirs, 1);
	ck_assert_int_eq(disk_bit(&f, 1, EXTKIT_MAP_INODES, 2), 1);
	ck_assert_uint_eq(f.fs->groups[1].inode_bitmap_csum,
			  extkit_bitmap_csum(f.fs, f.raw, ipg / 8));
	ck_assert_int_eq(extkit_alloc_inode_set(f.fs, ino, 0, 1), 0);
	ck_assert_uint_eq(f.fs->groups[1].used_dirs, 0);
	ck_assert_int_eq(extkit_inode_in_use(f.fs, ino), 0);
	/* the interface over the on-disk backing */
	extkit_alloc_disk(f.fs, &a);
	ck_assert_int_eq(a.take_blocks(a.arg, start + 100, 4, &blk, &got), 0);
	ck_assert_uint_eq(blk, start + 100);
	ck_assert_uint_eq(got, 1);
	ck_assert_int_eq(extkit_blocks_all_used(f.fs, blk, 1), 1);
	ck_assert_int_eq(extkit_give_back(f.fs, &a, blk, 1), 0);
	ck_assert_int_eq(extkit_blocks_all_used(f.fs, blk, 1), 0);
	ck_assert_int_eq(extkit_take_block(f.fs, NULL, blk, &got), 0);
	ck_assert_uint_eq(got, blk);
	fx_close(&f);
}
END_TEST

Suite *alloc_suite(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_blocks_take_release);
	tcase_add_test(tc, test_blocks_across_groups);
	tcase_add_test(tc, test_inode_stats);
	tcase_add_test(tc, test_uninit_block_map);
	tcase_add_test(tc, test_bigalloc_clusters);
	tcase_add_test(tc, test_fsbuild_backing);
	tcase_add_test(tc, test_fsbuild_clusters);
	tcase_add_test(tc, test_settle_and_inodes);
	tcase_add_test(tc, test_fsbuild_interface);
	tcase_add_test(tc, test_find_plans);
	tcase_add_test(tc, test_blk_list);
	tcase_add_test(tc, test_map_load_store_at);
	suite_add_tcase(s, tc);
	return s;
}
