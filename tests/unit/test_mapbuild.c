// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for mapbuild.c: a block map built anew over scattered
 * blocks reads back (through bmap.c's walk) as exactly those blocks, with
 * as many tree blocks as the plan said: extent trees of depth 0, 1 and 2
 * (1 KiB blocks: 84 extents a leaf), indirect maps up to the double
 * level, the tree-block counts of a triple indirect map, and the limits;
 * a map given as runs is the map given block by block.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bmap.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "mapbuild.h"
#include "ondisk.h"
#include "suites.h"

#define TEST_INO	12

struct seen {
	uint64_t *pblks;	/* by logical block */
	uint64_t n;
	uint64_t meta;
};

static int seen_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		   uint32_t count, int flags, void *arg)
{
	struct seen *s = arg;
	uint32_t i;

	(void)fs;
	if (flags & EXTKIT_BLOCK_META) {
		s->meta++;
		return 0;
	}
	for (i = 0; i < count; i++) {
		ck_assert_uint_lt(lblk + i, s->n);
		s->pblks[lblk + i] = pblk + i;
	}
	return 0;
}

static void close_fs(struct extkit_fs *fs, struct extkit_io *io)
{
	int owns = fs->owns_io;

	extkit_fs_close(fs);
	if (!owns)
		extkit_io_close(io);
}

/*
 * Maps n blocks, every stride-th block from the first free one (runs of
 * run blocks), builds the map with its tree blocks after them, writes it
 * and walks it back. Returns the root's depth (extents) or the tree
 * block count (indirect).
 */
static uint16_t build_and_walk(int extents, uint64_t n, uint32_t run,
			       uint32_t stride, uint64_t want_meta)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_mapbuild mb = { .extents = extents, .nblocks = n };
	struct extkit_inode inode;
	struct seen s = { .n = n };
	uint64_t *p = calloc(n, sizeof(*p)), *meta, i, base;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	uint16_t depth;

	test_image_defaults(&o);
	if (extents)
		o.incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS;
	io = test_image_make(&o);
	fs = test_image_open(io);
	base = test_image_first_free_block(fs);
	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++)
		p[i] = base + (i / run) * stride + i % run;
	mb.pblks = p;
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &mb), 0);
	ck_assert_uint_eq(mb.nmeta, want_meta);
	meta = calloc(mb.nmeta + 1, sizeof(*meta));
	mb.bufs = calloc(mb.nmeta + 1, fs->g.block_size);
	ck_assert_ptr_nonnull(meta);
	ck_assert_ptr_nonnull(mb.bufs);
	for (i = 0; i < mb.nmeta; i++)
		meta[i] = p[n - 1] + 1 + i;
	ck_assert_uint_lt(meta[mb.nmeta ? mb.nmeta - 1 : 0],
			  fs->sb.blocks_count);
	mb.meta = meta;
	memset(&inode, 0, sizeof(inode));
	inode.mode = S_IFDIR | 0755;
	inode.links_count = 2;
	extkit_mapbuild_fill(fs, &mb, &inode);
	ck_assert_int_eq(!!(inode.flags & EXT4_EXTENTS_FL), extents);
	inode.size = n * fs->g.block_size;
	extkit_inode_set_fs_blocks(fs, &inode, n + mb.nmeta);
	ck_assert_int_eq(extkit_mapbuild_write(fs, TEST_INO, 0, &mb), 0);
	ck_assert_int_eq(extkit_inode_write(fs, TEST_INO, &inode), 0);
	ck_assert_int_eq(extkit_inode_read(fs, TEST_INO, &inode), 0);

	s.pblks = calloc(n, sizeof(*s.pblks));
	ck_assert_ptr_nonnull(s.pblks);
	ck_assert_int_eq(extkit_block_walk(fs, &inode, seen_fn, &s), 0);
	ck_assert_uint_eq(s.meta, mb.nmeta);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(s.pblks[i], p[i]);
	extkit_extent_root_get(&inode, root);
	depth = extents ? extkit_extent_depth(root) : (uint16_t)mb.nmeta;
	free(s.pblks);
	free(meta);
	free(mb.bufs);
	free(p);
	close_fs(fs, io);
	return depth;
}

START_TEST(test_extent_depths)
{
	/* 3 runs fit the root; 100 runs: 2 leaves; 420 runs: 5 leaves
	 * under one index node. */
	ck_assert_uint_eq(build_and_walk(1, 6, 2, 3, 0), 0);
	ck_assert_uint_eq(build_and_walk(1, 100, 1, 2, 2), 1);
	ck_assert_uint_eq(build_and_walk(1, 840, 2, 3, 6), 2);
	/* One long run: one extent, whatever its length. */
	ck_assert_uint_eq(build_and_walk(1, 1000, 1000, 1000, 0), 0);
}
END_TEST

START_TEST(test_indirect_levels)
{
	/* 1 KiB blocks: 256 pointers an indirect block. */
	ck_assert_uint_eq(build_and_walk(0, 12, 1, 2, 0), 0);
	ck_assert_uint_eq(build_and_walk(0, 13, 1, 2, 1), 1);
	ck_assert_uint_eq(build_and_walk(0, 268, 4, 5, 1), 1);
	/* IND, DIND and two blocks under it */
	ck_assert_uint_eq(build_and_walk(0, 268 + 300, 1, 2, 4), 4);
}
END_TEST

START_TEST(test_plan_limits)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t n = 12 + 256 + 65536 + 5, i;
	uint64_t *p = calloc(n, sizeof(*p));
	struct extkit_mapbuild mb = { .nblocks = n, .pblks = p };

	test_image_defaults(&o);
	io = test_image_make(&o);
	fs = test_image_open(io);
	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++)
		p[i] = 100 + 2 * i;
	/* IND 1, DIND 1 + 256, TIND 1 + 1 + 1 */
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &mb), 0);
	ck_assert_uint_eq(mb.nmeta, 261);
	p[n - 1] = (uint64_t)UINT32_MAX + 1;
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &mb), -EFBIG);
	mb.extents = 1;
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &mb), 0);
	free(p);
	close_fs(fs, io);
}
END_TEST

/*
 * The map of n blocks (runs of run blocks, every stride-th) planned and
 * filled from runs equals the one from pblks: tree block count, i_block
 * and every tree block's bytes.
 */
static void runs_like_blocks(uint64_t n, uint64_t run, uint64_t stride)
{
	struct test_image_opts o;
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_mapbuild a = { .extents = 1, .nblocks = n };
	struct extkit_mapbuild b = { .extents = 1, .nblocks = n };
	uint64_t *p = calloc(n, sizeof(*p)), *meta, i;
	struct extkit_blk_run *r = calloc(n, sizeof(*r));
	struct extkit_inode ia, ib;
	size_t nr = 0;

	test_image_defaults(&o);
	io = test_image_make(&o);
	fs = test_image_open(io);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(r);
	for (i = 0; i < n; i++) {
		p[i] = 1000 + (i / run) * stride + i % run;
		if (nr && r[nr - 1].start + r[nr - 1].len == p[i]) {
			r[nr - 1].len++;
		} else {
			r[nr].start = p[i];
			r[nr++].len = 1;
		}
	}
	a.pblks = p;
	b.runs = r;
	b.nruns = nr;
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &a), 0);
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &b), 0);
	ck_assert_uint_eq(a.nmeta, b.nmeta);
	meta = calloc(a.nmeta + 1, sizeof(*meta));
	a.bufs = calloc(a.nmeta + 1, fs->g.block_size);
	b.bufs = calloc(a.nmeta + 1, fs->g.block_size);
	ck_assert(meta && a.bufs && b.bufs);
	for (i = 0; i < a.nmeta; i++)
		meta[i] = 10 + i;
	a.meta = b.meta = meta;
	memset(&ia, 0, sizeof(ia));
	memset(&ib, 0, sizeof(ib));
	extkit_mapbuild_fill(fs, &a, &ia);
	extkit_mapbuild_fill(fs, &b, &ib);
	ck_assert_mem_eq(ia.block, ib.block, sizeof(ia.block));
	ck_assert_uint_eq(ia.flags, ib.flags);
	ck_assert_mem_eq(a.bufs, b.bufs, a.nmeta * fs->g.block_size);
	/* runs adding up to another length, or under a block map */
	b.nblocks = n + 1;
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &b), -EINVAL);
	b.nblocks = n;
	b.extents = 0;
	ck_assert_int_eq(extkit_mapbuild_plan(fs, &b), -EINVAL);
	free(meta);
	free(a.bufs);
	free(b.bufs);
	free(r);
	free(p);
	close_fs(fs, io);
}

START_TEST(test_runs_like_blocks)
{
	runs_like_blocks(6, 2, 3);		/* the root alone */
	runs_like_blocks(300, 1, 2);		/* 300 extents: 4 leaves */
	runs_like_blocks(100000, 100000, 1);	/* one run, 4 extents */
	runs_like_blocks(200000, 40000, 50000);	/* split at 32768: leaf */
}
END_TEST

Suite *mapbuild_suite(void)
{
	Suite *s = suite_create("mapbuild");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_extent_depths);
	tcase_add_test(tc, test_indirect_levels);
	tcase_add_test(tc, test_plan_limits);
	tcase_add_test(tc, test_runs_like_blocks);
	suite_add_tcase(s, tc);
	return s;
}
