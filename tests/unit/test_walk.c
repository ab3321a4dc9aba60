// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for walk.c, the block-map walker: edits under the walk
 * (a pointer changed, a mapping dropped, in i_block, in an indirect block
 * and in extent nodes; written, or not on a dry walk), bad pointers and
 * bad tree blocks reported with the walk going on, loops ending in an
 * error, an abort, a walk from a logical block on and a reverse walk.
 * Images are built in memory (image.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "endian.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "suites.h"
#include "walk.h"

#define MAX_SEEN	64

struct seen {
	struct extkit_walk_ent e[MAX_SEEN];
	int n;
	/* what to answer: to the visit of pblk (with flags), rc */
	uint64_t at_pblk;
	int at_flags;
	int rc;
	uint64_t new_pblk;	/* for CHANGED */
	uint32_t new_len;	/* for CHANGED on an extent, when non-zero */
};

struct wctx {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint32_t bs;
	uint64_t f;		/* first block free for test data */
	struct extkit_inode inode;
};

static void wctx_open(struct wctx *t, uint32_t incompat)
{
	struct test_image_opts o;

	memset(t, 0, sizeof(*t));
	test_image_defaults(&o);
	o.incompat |= incompat;
	t->io = test_image_make(&o);
	ck_assert_ptr_nonnull(t->io);
	t->fs = test_image_open(t->io);
	ck_assert_ptr_nonnull(t->fs);
	t->bs = t->fs->g.block_size;
	t->f = test_image_first_free_block(t->fs);
	t->inode.mode = S_IFREG | 0644;
	t->inode.links_count = 1;
	if (incompat & EXT4_FEATURE_INCOMPAT_EXTENTS)
		t->inode.flags = EXT4_EXTENTS_FL;
}

static void wctx_close(struct wctx *t)
{
	int owns = t->fs->owns_io;

	extkit_fs_close(t->fs);
	if (!owns)
		extkit_io_close(t->io);
}

static int seen_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		   void *arg)
{
	struct seen *s = arg;

	(void)fs;
	if (s->n < MAX_SEEN)
		s->e[s->n] = *e;
	s->n++;
	if (!s->rc || e->pblk != s->at_pblk || e->flags != s->at_flags)
		return 0;
	if (s->rc & EXTKIT_WALK_CHANGED) {
		e->pblk = s->new_pblk;
		if (s->new_len)
			e->len = s->new_len;
	}
	return s->rc;
}

static int walk(struct wctx *t, struct seen *s, int flags)
{
	struct extkit_walk wk = { .ino = 12, .flags = flags, .fn = seen_fn,
				  .arg = s };
	int rc = extkit_walk(t->fs, &t->inode, &wk);

	if (rc >= 0)
		ck_assert_int_ge(wk.inode_changed, 0);
	return rc;
}

static void block_put32(struct wctx *t, uint64_t blk, uint32_t idx,
			uint32_t v)
{
	uint8_t *b = calloc(1, t->bs);

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(extkit_fs_read_block(t->fs, blk, b), 0);
	put_le32(b + 4 * idx, v);
	ck_assert_int_eq(extkit_fs_write_block(t->fs, blk, b), 0);
	free(b);
}

static uint32_t block_get32(struct wctx *t, uint64_t blk, uint32_t idx)
{
	uint8_t *b = calloc(1, t->bs);
	uint32_t v;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(extkit_fs_read_block(t->fs, blk, b), 0);
	v = get_le32(b + 4 * idx);
	free(b);
	return v;
}

static void zero_block(struct wctx *t, uint64_t blk)
{
	uint8_t *b = calloc(1, t->bs);

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(extkit_fs_write_block(t->fs, blk, b), 0);
	free(b);
}

/* i_block[0] = f, [1] = f + 1, single indirect f + 10 mapping lblk 12
 * (f + 2) and 14 (f + 3). */
static void ind_map(struct wctx *t)
{
	t->inode.block[0] = t->f;
	t->inode.block[1] = t->f + 1;
	t->inode.block[EXT2_IND_BLOCK] = t->f + 10;
	zero_block(t, t->f + 10);
	block_put32(t, t->f + 10, 0, t->f + 2);
	block_put32(t, t->f + 10, 2, t->f + 3);
}

/* Visits in order: data, the indirect block entered, its data, left. */
START_TEST(test_walk_order)
{
	struct wctx t;
	struct seen s = { 0 };

	wctx_open(&t, 0);
	ind_map(&t);
	ck_assert_int_eq(walk(&t, &s, 0), 0);
	ck_assert_int_eq(s.n, 6);
	ck_assert_uint_eq(s.e[0].pblk, t.f);
	ck_assert_uint_eq(s.e[1].lblk, 1);
	ck_assert_uint_eq(s.e[2].pblk, t.f + 10);
	ck_assert_int_eq(s.e[2].flags, EXTKIT_WALK_META);
	ck_assert_int_eq(s.e[2].level, 1);
	ck_assert_uint_eq(s.e[3].lblk, 12);
	ck_assert_uint_eq(s.e[4].lblk, 14);
	ck_assert_uint_eq(s.e[4].pblk, t.f + 3);
	ck_assert_int_eq(s.e[5].flags, EXTKIT_WALK_META | EXTKIT_WALK_LEAVE);
	ck_assert_uint_eq(s.e[5].entries, 2);

	/* Reverse, from lblk 2 on: i_block[0..1] passed over. */
	memset(&s, 0, sizeof(s));
	{
		struct extkit_walk wk = { .flags = EXTKIT_WALK_REVERSE,
					  .from = 2, .fn = seen_fn,
					  .arg = &s };

		ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	}
	ck_assert_int_eq(s.n, 4);
	ck_assert_uint_eq(s.e[1].lblk, 14);
	ck_assert_uint_eq(s.e[2].lblk, 12);
	wctx_close(&t);
}
END_TEST

/*
 * The logical ranges of the double and triple indirect slots (12 + apb
 * and 12 + apb + apb^2 on) with i_block[0..12] all holes, which are not
 * visited; inside the double indirect tree, the second slot of its first
 * indirect block maps 12 + apb + 1.
 */
START_TEST(test_walk_dind_tind_ranges)
{
	struct wctx t;
	struct seen s = { 0 };
	uint64_t apb;

	wctx_open(&t, 0);
	apb = t.fs->g.addr_per_block;
	t.inode.block[EXT2_DIND_BLOCK] = t.f + 10;
	t.inode.block[EXT2_TIND_BLOCK] = t.f + 20;
	zero_block(&t, t.f + 10);
	zero_block(&t, t.f + 11);
	zero_block(&t, t.f + 20);
	block_put32(&t, t.f + 10, 0, t.f + 11);
	block_put32(&t, t.f + 11, 1, t.f + 2);
	ck_assert_int_eq(walk(&t, &s, 0), 0);
	/* dind entered, ind entered, data, ind left, dind left, tind
	 * entered (empty), tind left */
	ck_assert_int_eq(s.n, 7);
	ck_assert_uint_eq(s.e[0].pblk, t.f + 10);
	ck_assert_uint_eq(s.e[0].lblk, 12 + apb);
	ck_assert_uint_eq(s.e[0].end, 12 + apb + apb * apb);
	ck_assert_int_eq(s.e[0].level, 2);
	ck_assert_uint_eq(s.e[1].lblk, 12 + apb);
	ck_assert_uint_eq(s.e[1].end, 12 + 2 * apb);
	ck_assert_uint_eq(s.e[2].pblk, t.f + 2);
	ck_assert_uint_eq(s.e[2].lblk, 12 + apb + 1);
	ck_assert_uint_eq(s.e[5].pblk, t.f + 20);
	ck_assert_uint_eq(s.e[5].lblk, 12 + apb + apb * apb);
	ck_assert_uint_eq(s.e[5].end, 12 + apb + apb * apb + apb * apb * apb);
	ck_assert_int_eq(s.e[5].level, 3);
	ck_assert_int_eq(s.e[6].flags, EXTKIT_WALK_META | EXTKIT_WALK_LEAVE);
	ck_assert_uint_eq(s.e[6].entries, 0);
	wctx_close(&t);
}
END_TEST

/* A pointer changed and a mapping dropped, in i_block and in an
 * indirect block: stored in memory, written unless the walk is dry. */
START_TEST(test_walk_edit_indirect)
{
	struct wctx t;
	struct seen s = { 0 };
	struct extkit_walk wk = { .fn = seen_fn, .arg = &s };

	wctx_open(&t, 0);
	ind_map(&t);
	s.at_pblk = t.f + 1;
	s.rc = EXTKIT_WALK_CHANGED;
	s.new_pblk = t.f + 7;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_int_eq(wk.inode_changed, 1);
	ck_assert_uint_eq(t.inode.block[1], t.f + 7);

	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f + 3;
	s.rc = EXTKIT_WALK_DROP;
	wk.flags = EXTKIT_WALK_DRY;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_int_eq(wk.inode_changed, 0);
	ck_assert_uint_eq(s.e[s.n - 1].entries, 1);	/* in memory */
	ck_assert_uint_eq(block_get32(&t, t.f + 10, 2), t.f + 3);

	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f + 3;
	s.rc = EXTKIT_WALK_DROP;
	wk.flags = 0;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_uint_eq(block_get32(&t, t.f + 10, 2), 0);
	ck_assert_uint_eq(block_get32(&t, t.f + 10, 0), t.f + 2);

	/* The indirect block itself dropped when left: i_block loses it. */
	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f + 10;
	s.at_flags = EXTKIT_WALK_META | EXTKIT_WALK_LEAVE;
	s.rc = EXTKIT_WALK_DROP;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_int_eq(wk.inode_changed, 1);
	ck_assert_uint_eq(t.inode.block[EXT2_IND_BLOCK], 0);
	wctx_close(&t);
}
END_TEST

/* Bad numbers, in i_block and in an indirect block, are reported and
 * the walk goes on; an unreadable indirect block is not entered. */
START_TEST(test_walk_bad_pointer)
{
	struct wctx t;
	struct seen s = { 0 };
	uint64_t nb;
	int bad = 0, good = 0;

	wctx_open(&t, 0);
	nb = t.fs->sb.blocks_count;
	ind_map(&t);
	t.inode.block[0] = (uint32_t)nb;
	block_put32(&t, t.f + 10, 1, (uint32_t)nb + 5);
	t.inode.block[EXT2_DIND_BLOCK] = 0xFFFFFFFF;
	ck_assert_int_eq(walk(&t, &s, 0), 0);
	for (int i = 0; i < s.n; i++) {
		if (s.e[i].bad) {
			ck_assert_int_eq(s.e[i].bad, EXTKIT_WALK_BAD_PBLK);
			bad++;
		} else if (!(s.e[i].flags & EXTKIT_WALK_META)) {
			good++;
		}
	}
	ck_assert_int_eq(bad, 3);
	ck_assert_int_eq(good, 3);	/* f + 1, f + 2, f + 3 */
	ck_assert_int_eq(s.e[s.n - 1].level, 2);	/* the double, last */

	/* Dropping the bad ones clears them. */
	memset(&s, 0, sizeof(s));
	s.at_pblk = nb + 5;
	s.rc = EXTKIT_WALK_DROP;
	ck_assert_int_eq(walk(&t, &s, 0), 0);
	ck_assert_uint_eq(block_get32(&t, t.f + 10, 1), 0);
	wctx_close(&t);
}
END_TEST

/* Indirect blocks that all point at each other: -EXTKIT_ELOOP. */
START_TEST(test_walk_loop)
{
	struct wctx t;
	struct seen s = { 0 };

	wctx_open(&t, 0);
	zero_block(&t, t.f);
	for (uint32_t i = 0; i < t.fs->g.addr_per_block; i++)
		block_put32(&t, t.f, i, (uint32_t)t.f);
	t.inode.block[EXT2_TIND_BLOCK] = (uint32_t)t.f;
	ck_assert_int_eq(walk(&t, &s, EXTKIT_WALK_DRY), -EXTKIT_ELOOP);
	ck_assert_int_le(s.n, 3 * (int)t.fs->sb.blocks_count);
	wctx_close(&t);
}
END_TEST

/* The callback stops the walk: 1; a negative answer comes back. */
START_TEST(test_walk_abort)
{
	struct wctx t;
	struct seen s = { 0 };

	wctx_open(&t, 0);
	ind_map(&t);
	s.at_pblk = t.f + 1;
	s.rc = EXTKIT_WALK_ABORT;
	ck_assert_int_eq(walk(&t, &s, 0), 1);
	ck_assert_int_eq(s.n, 2);
	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f + 2;
	s.rc = -EIO;
	ck_assert_int_eq(walk(&t, &s, 0), -EIO);
	wctx_close(&t);
}
END_TEST

/* ---- extent trees ---- */

static void ext_hdr(uint8_t *p, uint16_t entries, uint16_t max,
		    uint16_t depth)
{
	memset(p, 0, 12);
	put_le16(p, EXT4_EXT_MAGIC);
	put_le16(p + 2, entries);
	put_le16(p + 4, max);
	put_le16(p + 6, depth);
}

/* Root of depth 1 over leaves f + 20 [0..3 -> f, 10 -> f + 4] and
 * f + 21 [20..21 -> f + 5]. */
static void ext_tree(struct wctx *t)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE] = { 0 };
	uint16_t cap = extkit_extent_capacity(t->bs);
	uint8_t *b = calloc(1, t->bs);
	struct extkit_extent ex = { 0 };
	struct extkit_extent_idx ix = { 0 };

	ck_assert_ptr_nonnull(b);
	ext_hdr(b, 2, cap, 0);
	ex = (struct extkit_extent){ .lblk = 0, .pblk = t->f, .len = 4 };
	extkit_extent_put(b, 0, &ex);
	ex = (struct extkit_extent){ .lblk = 10, .pblk = t->f + 4, .len = 1 };
	extkit_extent_put(b, 1, &ex);
	ck_assert_int_eq(extkit_fs_write_block(t->fs, t->f + 20, b), 0);
	ext_hdr(b, 1, cap, 0);
	ex = (struct extkit_extent){ .lblk = 20, .pblk = t->f + 5, .len = 2 };
	extkit_extent_put(b, 0, &ex);
	ck_assert_int_eq(extkit_fs_write_block(t->fs, t->f + 21, b), 0);
	free(b);
	ext_hdr(root, 2, EXTKIT_EXTENT_ROOT_MAX, 1);
	ix = (struct extkit_extent_idx){ .lblk = 0, .child = t->f + 20 };
	extkit_extent_idx_put(root, 0, &ix);
	ix = (struct extkit_extent_idx){ .lblk = 20, .child = t->f + 21 };
	extkit_extent_idx_put(root, 1, &ix);
	extkit_extent_root_put(&t->inode, root);
}

static uint16_t node_entries(struct wctx *t, uint64_t blk)
{
	uint8_t *b = calloc(1, t->bs);
	uint16_t n;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(extkit_fs_read_block(t->fs, blk, b), 0);
	n = extkit_extent_entries(b);
	free(b);
	return n;
}

/* An extent shortened, one dropped, a leaf dropped when left empty. */
START_TEST(test_walk_edit_extent)
{
	struct wctx t;
	struct seen s = { 0 };
	struct extkit_walk wk = { .ino = 12, .fn = seen_fn, .arg = &s };
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];

	wctx_open(&t, EXT4_FEATURE_INCOMPAT_EXTENTS);
	ext_tree(&t);
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_int_eq(s.n, 7);	/* 2 leaves in and out, 3 extents */
	ck_assert_int_eq(s.e[0].flags, EXTKIT_WALK_META | EXTKIT_WALK_EXTENT);
	ck_assert_uint_eq(s.e[2].lblk, 10);
	ck_assert_uint_eq(s.e[2].end, 20);	/* its node's range */

	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f + 4;
	s.at_flags = EXTKIT_WALK_EXTENT;
	s.rc = EXTKIT_WALK_DROP;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_uint_eq(node_entries(&t, t.f + 20), 1);
	ck_assert_int_eq(wk.inode_changed, 0);

	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f + 5;
	s.at_flags = EXTKIT_WALK_EXTENT;
	s.rc = EXTKIT_WALK_DROP;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_uint_eq(node_entries(&t, t.f + 21), 0);
	ck_assert_uint_eq(s.e[s.n - 1].entries, 0);

	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f + 21;
	s.at_flags = EXTKIT_WALK_META | EXTKIT_WALK_EXTENT | EXTKIT_WALK_LEAVE;
	s.rc = EXTKIT_WALK_DROP;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_int_eq(wk.inode_changed, 1);
	extkit_extent_root_get(&t.inode, root);
	ck_assert_uint_eq(extkit_extent_entries(root), 1);

	memset(&s, 0, sizeof(s));
	s.at_pblk = t.f;
	s.at_flags = EXTKIT_WALK_EXTENT;
	s.rc = EXTKIT_WALK_CHANGED;
	s.new_pblk = t.f + 30;
	s.new_len = 2;
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(extkit_walk(t.fs, &t.inode, &wk), 0);
	ck_assert_uint_eq(s.e[1].pblk, t.f + 30);
	ck_assert_uint_eq(s.e[1].len, 2);
	wctx_close(&t);
}
END_TEST

/* A bad extent and a bad child are reported; the walk goes on. A child
 * naming its own parent sits at the wrong depth: reported, not a hang. */
START_TEST(test_walk_bad_extent)
{
	struct wctx t;
	struct seen s = { 0 };
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct extkit_extent_idx ix;
	struct extkit_extent ex = { .lblk = 1, .pblk = 0, .len = 1 };
	uint8_t *b = calloc(1, 1024);

	wctx_open(&t, EXT4_FEATURE_INCOMPAT_EXTENTS);
	ext_tree(&t);
	/* leaf 1: extent 10 points at block 0; leaf 2 lost its magic */
	ck_assert_int_eq(extkit_fs_read_block(t.fs, t.f + 20, b), 0);
	ex.lblk = 10;
	extkit_extent_put(b, 1, &ex);
	ck_assert_int_eq(extkit_fs_write_block(t.fs, t.f + 20, b), 0);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, t.f + 21, b), 0);
	put_le16(b, 0x1234);
	ck_assert_int_eq(extkit_fs_write_block(t.fs, t.f + 21, b), 0);
	ck_assert_int_eq(walk(&t, &s, 0), 0);
	ck_assert_int_eq(s.n, 5);
	ck_assert_int_eq(s.e[2].bad, EXTKIT_WALK_BAD_PBLK);
	ck_assert_int_eq(s.e[4].bad, EXTKIT_WALK_BAD_MAGIC);
	ck_assert_uint_eq(s.e[4].pblk, t.f + 21);

	/* leaf 2 an index node naming leaf 1's parent slot: itself */
	ext_hdr(b, 1, extkit_extent_capacity(t.bs), 1);
	ix = (struct extkit_extent_idx){ .lblk = 20, .child = t.f + 21 };
	extkit_extent_idx_put(b, 0, &ix);
	ck_assert_int_eq(extkit_fs_write_block(t.fs, t.f + 21, b), 0);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(walk(&t, &s, 0), 0);
	ck_assert_int_eq(s.e[s.n - 1].bad, EXTKIT_WALK_BAD_DEPTH);
	extkit_extent_root_get(&t.inode, root);
	ck_assert_uint_eq(extkit_extent_entries(root), 2);
	free(b);
	wctx_close(&t);
}
END_TEST

Suite *walk_suite(void)
{
	Suite *s = suite_create("walk");
	TCase *tc = tcase_create("indirect");
	TCase *te = tcase_create("extent");

	tcase_add_test(tc, test_walk_order);
	tcase_add_test(tc, test_walk_dind_tind_ranges);
	tcase_add_test(tc, test_walk_edit_indirect);
	tcase_add_test(tc, test_walk_bad_pointer);
	tcase_add_test(tc, test_walk_loop);
	tcase_add_test(tc, test_walk_abort);
	suite_add_tcase(s, tc);
	tcase_add_test(te, test_walk_edit_extent);
	tcase_add_test(te, test_walk_bad_extent);
	suite_add_tcase(s, te);
	return s;
}
