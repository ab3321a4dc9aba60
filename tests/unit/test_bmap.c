// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for bmap.c and extent.c: direct, single, double and triple
 * indirect maps, holes, out-of-range block numbers, extent trees of depth
 * 0 and 1, unwritten extents, corrupt and self-referencing trees, 64 KiB
 * blocks, and truncation of indirect maps. Images are built in memory
 * (image.c); the inode under test is written with extkit_inode_write()
 * and read back.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bmap.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "suites.h"

#define TEST_INO	12
#define MAX_RECS	64
#define ANY_LBLK	UINT64_MAX	/* META records: lblk not checked */

struct tctx {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint32_t bs;
	uint64_t free;		/* first block free for test data */
	struct extkit_inode inode;
};

struct rec {
	uint64_t lblk;
	uint64_t pblk;
	uint32_t count;
	int flags;
};

struct recs {
	struct rec r[MAX_RECS];
	int n;
	int stop_at;		/* 1-based call that returns stop_rc */
	int stop_rc;
};

static void tctx_open(struct tctx *t, uint32_t bs, uint32_t blocks,
		      uint32_t incompat)
{
	struct test_image_opts o;

	memset(t, 0, sizeof(*t));
	test_image_defaults(&o);
	o.block_size = bs;
	o.blocks = blocks;
	o.incompat |= incompat;
	t->io = test_image_make(&o);
	ck_assert_ptr_nonnull(t->io);
	t->fs = test_image_open(t->io);
	ck_assert_ptr_nonnull(t->fs);
	t->bs = t->fs->g.block_size;
	ck_assert_uint_eq(t->bs, bs);
	t->free = test_image_first_free_block(t->fs);
	t->inode.mode = S_IFREG | 0644;
	t->inode.links_count = 1;
}

static void tctx_close(struct tctx *t)
{
	int owns = t->fs->owns_io;

	extkit_fs_close(t->fs);
	if (!owns)
		extkit_io_close(t->io);
}

/* Writes t->inode as TEST_INO and reads it back into t->inode. */
static void tctx_commit(struct tctx *t, uint64_t size, uint64_t nblocks)
{
	t->inode.size = size;
	extkit_inode_set_fs_blocks(t->fs, &t->inode, nblocks);
	ck_assert_int_eq(extkit_inode_write(t->fs, TEST_INO, &t->inode), 0);
	memset(&t->inode, 0xA5, sizeof(t->inode));
	ck_assert_int_eq(extkit_inode_read(t->fs, TEST_INO, &t->inode), 0);
}

static uint8_t *blk_new(const struct tctx *t)
{
	uint8_t *b = calloc(1, t->bs);

	ck_assert_ptr_nonnull(b);
	return b;
}

/* Writes buf to blk and frees it. */
static void blk_put(struct tctx *t, uint64_t blk, uint8_t *buf)
{
	ck_assert_int_eq(extkit_fs_write_block(t->fs, blk, buf), 0);
	free(buf);
}

/* An indirect block with one entry set. */
static void ind_put1(struct tctx *t, uint64_t blk, uint32_t idx, uint32_t v)
{
	uint8_t *b = blk_new(t);

	put_le32(b + 4 * idx, v);
	blk_put(t, blk, b);
}

static int rec_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		  uint32_t count, int flags, void *arg)
{
	struct recs *rs = arg;

	if (rs->n < MAX_RECS) {
		rs->r[rs->n].lblk = lblk;
		rs->r[rs->n].pblk = pblk;
		rs->r[rs->n].count = count;
		rs->r[rs->n].flags = flags;
	}
	rs->n++;
	if (rs->stop_at && rs->n == rs->stop_at)
		return rs->stop_rc;
	return 0;
}

static void expect_rec(const struct recs *rs, int i, uint64_t lblk,
		       uint64_t pblk, uint32_t count, int flags)
{
	const struct rec *r = &rs->r[i];

	ck_assert_int_lt(i, rs->n);
	ck_assert_msg(r->pblk == pblk && r->count == count &&
		      r->flags == flags &&
		      (lblk == ANY_LBLK || r->lblk == lblk),
		      "record %d: got (%llu, %llu, %u, %d), "
		      "want (%llu, %llu, %u, %d)",
		      i, (unsigned long long)r->lblk,
		      (unsigned long long)r->pblk, r->count, r->flags,
		      (unsigned long long)lblk, (unsigned long long)pblk,
		      count, flags);
}

static uint64_t bmap1(struct tctx *t, uint64_t lblk)
{
	uint64_t pblk = 12345;

	ck_assert_int_eq(extkit_bmap(t->fs, &t->inode, lblk, &pblk), 0);
	return pblk;
}

static int walk(struct tctx *t, struct recs *rs)
{
	memset(rs, 0, sizeof(*rs));
	return extkit_block_walk(t->fs, &t->inode, rec_fn, rs);
}

/* Direct blocks only, merged into runs where contiguous. */
START_TEST(test_direct)
{
	struct tctx t;
	struct recs rs;
	uint64_t all[14];
	uint64_t f;
	int i;

	tctx_open(&t, 1024, 8192, 0);
	f = t.free;
	for (i = 0; i < 4; i++)
		t.inode.block[i] = f + i;
	t.inode.block[4] = f + 10;
	for (i = 5; i < 12; i++)
		t.inode.block[i] = f + 20 + i - 5;
	tctx_commit(&t, 12 * 1024, 12);

	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 3);
	expect_rec(&rs, 0, 0, f, 4, 0);
	expect_rec(&rs, 1, 4, f + 10, 1, 0);
	expect_rec(&rs, 2, 5, f + 20, 7, 0);

	ck_assert_uint_eq(bmap1(&t, 0), f);
	ck_assert_uint_eq(bmap1(&t, 3), f + 3);
	ck_assert_uint_eq(bmap1(&t, 4), f + 10);
	ck_assert_uint_eq(bmap1(&t, 11), f + 26);
	ck_assert_uint_eq(bmap1(&t, 12), 0);

	all[13] = 777;
	ck_assert_int_eq(extkit_bmap_all(t.fs, &t.inode, 13, all), 0);
	for (i = 0; i < 12; i++)
		ck_assert_uint_eq(all[i], t.inode.block[i]);
	ck_assert_uint_eq(all[12], 0);
	ck_assert_uint_eq(all[13], 777);
	tctx_close(&t);
}
END_TEST

/* The blocks of the file test_indirect_levels builds (1 KiB blocks). */
struct levels {
	uint64_t f, ind, dind, dind_i0, dind_i1, tind, tind_d, tind_i;
};

#define L_DIND	(12 + 256)
#define L_TIND	(12 + 256 + 65536 + 5)

static void levels_build(struct tctx *t, struct levels *v)
{
	uint64_t f = t->free;
	uint8_t *b;
	int i;

	*v = (struct levels){ .f = f, .ind = f + 12, .dind = f + 20,
		.dind_i0 = f + 21, .dind_i1 = f + 22, .tind = f + 30,
		.tind_d = f + 31, .tind_i = f + 32 };
	for (i = 0; i < 12; i++)
		t->inode.block[i] = f + i;
	t->inode.block[EXT2_IND_BLOCK] = v->ind;
	t->inode.block[EXT2_DIND_BLOCK] = v->dind;
	t->inode.block[EXT2_TIND_BLOCK] = v->tind;
	b = blk_new(t);
	for (i = 0; i < 3; i++)
		put_le32(b + 4 * i, f + 13 + i);	/* lblk 12..14 */
	blk_put(t, v->ind, b);
	b = blk_new(t);
	put_le32(b, v->dind_i0);
	put_le32(b + 4, v->dind_i1);
	blk_put(t, v->dind, b);
	ind_put1(t, v->dind_i0, 0, f + 40);		/* lblk 268 */
	ind_put1(t, v->dind_i1, 1, f + 41);		/* lblk 525 */
	ind_put1(t, v->tind, 0, v->tind_d);
	ind_put1(t, v->tind_d, 0, v->tind_i);
	ind_put1(t, v->tind_i, 5, f + 50);		/* lblk 65809 */
	tctx_commit(t, (L_TIND + 1) * 1024, 26);
}

/*
 * 1 KiB blocks, 256 addresses per block: data through the single (lblk
 * 12..14), double (268, 525) and triple (12+256+65536+5) indirect blocks.
 */
START_TEST(test_indirect_levels)
{
	struct tctx t;
	struct recs rs;
	struct levels v;
	uint64_t all[16];
	uint64_t f;

	tctx_open(&t, 1024, 8192, 0);
	levels_build(&t, &v);
	f = v.f;
	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 12);
	expect_rec(&rs, 0, 0, f, 12, 0);
	expect_rec(&rs, 1, ANY_LBLK, v.ind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 2, 12, f + 13, 3, 0);
	expect_rec(&rs, 3, ANY_LBLK, v.dind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 4, ANY_LBLK, v.dind_i0, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 5, L_DIND, f + 40, 1, 0);
	expect_rec(&rs, 6, ANY_LBLK, v.dind_i1, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 7, L_DIND + 256 + 1, f + 41, 1, 0);
	expect_rec(&rs, 8, ANY_LBLK, v.tind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 9, ANY_LBLK, v.tind_d, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 10, ANY_LBLK, v.tind_i, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 11, L_TIND, f + 50, 1, 0);

	ck_assert_uint_eq(bmap1(&t, 11), f + 11);
	ck_assert_uint_eq(bmap1(&t, 12), f + 13);
	ck_assert_uint_eq(bmap1(&t, 14), f + 15);
	ck_assert_uint_eq(bmap1(&t, 15), 0);
	ck_assert_uint_eq(bmap1(&t, L_DIND), f + 40);
	ck_assert_uint_eq(bmap1(&t, L_DIND + 1), 0);
	ck_assert_uint_eq(bmap1(&t, L_DIND + 257), f + 41);
	ck_assert_uint_eq(bmap1(&t, L_TIND), f + 50);
	ck_assert_uint_eq(bmap1(&t, L_TIND - 1), 0);
	ck_assert_uint_eq(bmap1(&t, L_TIND + 65536), 0);
	/* Past the triple indirect range: a hole, not an error. */
	ck_assert_uint_eq(bmap1(&t, 12 + 256 + 65536 + 16777216), 0);

	ck_assert_int_eq(extkit_bmap_all(t.fs, &t.inode, 16, all), 0);
	ck_assert_uint_eq(all[11], f + 11);
	ck_assert_uint_eq(all[12], f + 13);
	ck_assert_uint_eq(all[14], f + 15);
	ck_assert_uint_eq(all[15], 0);
	tctx_close(&t);
}
END_TEST

/* Holes in the direct blocks, inside an indirect block, and whole
 * subtrees (block number 0) skipped. */
START_TEST(test_holes)
{
	struct tctx t;
	struct recs rs;
	uint64_t all[301];
	uint64_t f, ind;
	uint8_t *b;
	int i;

	tctx_open(&t, 1024, 8192, 0);
	f = t.free;
	ind = f + 100;
	t.inode.block[3] = f;
	t.inode.block[4] = f + 1;
	t.inode.block[9] = f + 5;
	t.inode.block[EXT2_IND_BLOCK] = ind;
	b = blk_new(&t);
	put_le32(b + 4 * 2, f + 7);			/* lblk 14 */
	put_le32(b + 4 * 255, f + 8);			/* lblk 267 */
	blk_put(&t, ind, b);
	tctx_commit(&t, 300 * 1024, 6);

	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 5);
	expect_rec(&rs, 0, 3, f, 2, 0);
	expect_rec(&rs, 1, 9, f + 5, 1, 0);
	expect_rec(&rs, 2, ANY_LBLK, ind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 3, 14, f + 7, 1, 0);
	expect_rec(&rs, 4, 267, f + 8, 1, 0);

	ck_assert_uint_eq(bmap1(&t, 0), 0);
	ck_assert_uint_eq(bmap1(&t, 13), 0);
	ck_assert_uint_eq(bmap1(&t, 14), f + 7);
	ck_assert_uint_eq(bmap1(&t, 268), 0);	/* DIND is 0 */
	ck_assert_uint_eq(bmap1(&t, 70000), 0);	/* TIND is 0 */

	for (i = 0; i < 301; i++)
		all[i] = 999;
	/* Blocks at or past nblocks (267) are ignored. */
	ck_assert_int_eq(extkit_bmap_all(t.fs, &t.inode, 20, all), 0);
	for (i = 0; i < 20; i++) {
		uint64_t want = i == 3 ? f : i == 4 ? f + 1 :
				i == 9 ? f + 5 : i == 14 ? f + 7 : 0;

		ck_assert_uint_eq(all[i], want);
	}
	ck_assert_uint_eq(all[20], 999);
	ck_assert_int_eq(extkit_bmap_all(t.fs, &t.inode, 300, all), 0);
	ck_assert_uint_eq(all[267], f + 8);
	ck_assert_uint_eq(all[299], 0);
	ck_assert_uint_eq(all[300], 999);
	tctx_close(&t);
}
END_TEST

/* Block numbers outside the filesystem, direct, indirect and in an
 * indirect block: EFSCORRUPTED, with the good blocks before reported. */
START_TEST(test_out_of_range)
{
	struct tctx t;
	struct recs rs;
	uint64_t f, nb, ind, pblk;

	tctx_open(&t, 1024, 8192, 0);
	f = t.free;
	nb = t.fs->sb.blocks_count;
	ind = f + 10;
	t.inode.block[0] = f;
	t.inode.block[1] = nb;
	tctx_commit(&t, 2048, 2);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	ck_assert_int_eq(rs.n, 1);
	expect_rec(&rs, 0, 0, f, 1, 0);
	ck_assert_uint_eq(bmap1(&t, 0), f);
	ck_assert_int_eq(extkit_bmap(t.fs, &t.inode, 1, &pblk), -EFSCORRUPTED);

	memset(t.inode.block, 0, sizeof(t.inode.block));
	t.inode.block[EXT2_IND_BLOCK] = 0xFFFFFFFF;
	tctx_commit(&t, 20 * 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	ck_assert_int_eq(rs.n, 0);
	ck_assert_int_eq(extkit_bmap(t.fs, &t.inode, 12, &pblk),
			 -EFSCORRUPTED);

	t.inode.block[EXT2_IND_BLOCK] = ind;
	ind_put1(&t, ind, 3, nb + 5);
	tctx_commit(&t, 20 * 1024, 2);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	ck_assert_int_eq(rs.n, 1);
	expect_rec(&rs, 0, ANY_LBLK, ind, 1, EXTKIT_BLOCK_META);
	ck_assert_int_eq(extkit_bmap(t.fs, &t.inode, 15, &pblk),
			 -EFSCORRUPTED);
	ck_assert_uint_eq(bmap1(&t, 14), 0);
	tctx_close(&t);
}
END_TEST

/*
 * Indirect blocks that all point at each other: triple -> double -> single
 * -> data, every entry set. The walk would visit 16M references; it stops
 * with ELOOP after more references than the filesystem has blocks.
 */
START_TEST(test_indirect_budget)
{
	struct tctx t;
	struct recs rs;
	uint64_t f;
	uint8_t *b;
	int i;

	tctx_open(&t, 1024, 8192, 0);
	f = t.free;
	b = blk_new(&t);
	for (i = 0; i < 256; i++)
		put_le32(b + 4 * i, f);
	blk_put(&t, f, b);
	t.inode.block[EXT2_TIND_BLOCK] = f;
	tctx_commit(&t, 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EXTKIT_ELOOP);
	ck_assert_int_le(rs.n, 8192);
	tctx_close(&t);
}
END_TEST

/* The callback's stop value comes back unchanged. */
START_TEST(test_callback_stop)
{
	struct tctx t;
	struct recs rs;
	uint64_t f;

	tctx_open(&t, 1024, 8192, 0);
	f = t.free;
	t.inode.block[0] = f;
	t.inode.block[1] = f + 5;
	t.inode.block[2] = f + 9;
	tctx_commit(&t, 3072, 3);
	memset(&rs, 0, sizeof(rs));
	rs.stop_at = 2;
	rs.stop_rc = 7;
	ck_assert_int_eq(extkit_block_walk(t.fs, &t.inode, rec_fn, &rs), 7);
	ck_assert_int_eq(rs.n, 2);
	memset(&rs, 0, sizeof(rs));
	rs.stop_at = 1;
	rs.stop_rc = -EIO;
	ck_assert_int_eq(extkit_block_walk(t.fs, &t.inode, rec_fn, &rs),
			 -EIO);
	ck_assert_int_eq(rs.n, 1);
	tctx_close(&t);
}
END_TEST

/* A character device: i_block holds a device number, not blocks. */
START_TEST(test_no_block_map)
{
	struct tctx t;
	struct recs rs;
	uint64_t all[4] = { 1, 2, 3, 4 };

	tctx_open(&t, 1024, 8192, 0);
	t.inode.mode = S_IFCHR | 0600;
	t.inode.block[0] = 0xFFFFFFFF;
	t.inode.block[1] = 0x12345678;
	tctx_commit(&t, 0, 0);
	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 0);
	ck_assert_uint_eq(bmap1(&t, 0), 0);
	ck_assert_int_eq(extkit_bmap_all(t.fs, &t.inode, 4, all), 0);
	ck_assert_uint_eq(all[0], 0);
	ck_assert_uint_eq(all[3], 0);
	tctx_close(&t);
}
END_TEST

/* Extent building helpers: p is a node (root or block). */
static void ext_hdr(uint8_t *p, uint16_t entries, uint16_t max,
		    uint16_t depth)
{
	put_le16(p, EXT4_EXT_MAGIC);
	put_le16(p + 2, entries);
	put_le16(p + 4, max);
	put_le16(p + 6, depth);
	put_le32(p + 8, 0);
}

static void ext_leaf(uint8_t *p, int i, uint32_t lblk, uint16_t len,
		     uint64_t pblk)
{
	uint8_t *e = p + 12 + 12 * i;

	put_le32(e, lblk);
	put_le16(e + 4, len);
	put_le16(e + 6, (uint16_t)(pblk >> 32));
	put_le32(e + 8, (uint32_t)pblk);
}

static void ext_idx(uint8_t *p, int i, uint32_t lblk, uint64_t pblk)
{
	uint8_t *e = p + 12 + 12 * i;

	put_le32(e, lblk);
	put_le32(e + 4, (uint32_t)pblk);
	put_le16(e + 8, (uint16_t)(pblk >> 32));
	put_le16(e + 10, 0);
}

static void ext_set_root(struct tctx *t, const uint8_t *root)
{
	int i;

	t->inode.flags |= EXT4_EXTENTS_FL;
	for (i = 0; i < EXT2_N_BLOCKS; i++)
		t->inode.block[i] = get_le32(root + 4 * i);
}

static uint16_t ext_block_max(const struct tctx *t)
{
	return (uint16_t)((t->bs - 12) / 12);
}

START_TEST(test_extent_depth0)
{
	struct tctx t;
	struct recs rs;
	uint8_t root[60] = { 0 };
	uint64_t all[32];
	uint64_t f;
	int i;

	tctx_open(&t, 1024, 8192, EXT4_FEATURE_INCOMPAT_EXTENTS);
	f = t.free;
	ext_hdr(root, 3, 4, 0);
	ext_leaf(root, 0, 0, 4, f);
	ext_leaf(root, 1, 10, 2, f + 100);
	ext_leaf(root, 2, 20, 3, f + 200);
	ext_set_root(&t, root);
	tctx_commit(&t, 23 * 1024, 9);

	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 3);
	expect_rec(&rs, 0, 0, f, 4, 0);
	expect_rec(&rs, 1, 10, f + 100, 2, 0);
	expect_rec(&rs, 2, 20, f + 200, 3, 0);

	ck_assert_uint_eq(bmap1(&t, 0), f);
	ck_assert_uint_eq(bmap1(&t, 3), f + 3);
	ck_assert_uint_eq(bmap1(&t, 4), 0);
	ck_assert_uint_eq(bmap1(&t, 11), f + 101);
	ck_assert_uint_eq(bmap1(&t, 22), f + 202);
	ck_assert_uint_eq(bmap1(&t, 23), 0);
	ck_assert_uint_eq(bmap1(&t, 1000000), 0);

	ck_assert_int_eq(extkit_bmap_all(t.fs, &t.inode, 21, all), 0);
	for (i = 0; i < 21; i++) {
		uint64_t want = i < 4 ? f + i : i == 10 ? f + 100 :
				i == 11 ? f + 101 : i == 20 ? f + 200 : 0;

		ck_assert_uint_eq(all[i], want);
	}
	tctx_close(&t);
}
END_TEST

/* Root of depth 1 with two leaves; META blocks come before their data. */
/*
 * A depth-1 extent tree on 1 KiB blocks: an index root naming two leaves
 * at f + 500 (lblk 0: 8 blocks at f, lblk 50: 1 block at f + 60) and
 * f + 501 (lblk 100: 16 blocks at f + 200); i_size 116 KiB. Returns f.
 */
static uint64_t two_leaf_tree(struct tctx *t, uint64_t *leaf1,
			      uint64_t *leaf2)
{
	uint8_t root[60] = { 0 };
	uint64_t f;
	uint8_t *b;

	tctx_open(t, 1024, 8192, EXT4_FEATURE_INCOMPAT_EXTENTS);
	f = t->free;
	*leaf1 = f + 500;
	*leaf2 = f + 501;
	ext_hdr(root, 2, 4, 1);
	ext_idx(root, 0, 0, *leaf1);
	ext_idx(root, 1, 100, *leaf2);
	ext_set_root(t, root);
	b = blk_new(t);
	ext_hdr(b, 2, ext_block_max(t), 0);
	ext_leaf(b, 0, 0, 8, f);
	ext_leaf(b, 1, 50, 1, f + 60);
	blk_put(t, *leaf1, b);
	b = blk_new(t);
	ext_hdr(b, 1, ext_block_max(t), 0);
	ext_leaf(b, 0, 100, 16, f + 200);
	blk_put(t, *leaf2, b);
	tctx_commit(t, 116 * 1024, 27);
	return f;
}

START_TEST(test_extent_depth1)
{
	struct tctx t;
	struct recs rs;
	uint64_t f, leaf1, leaf2;

	f = two_leaf_tree(&t, &leaf1, &leaf2);

	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 5);
	expect_rec(&rs, 0, ANY_LBLK, leaf1, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 1, 0, f, 8, 0);
	expect_rec(&rs, 2, 50, f + 60, 1, 0);
	expect_rec(&rs, 3, ANY_LBLK, leaf2, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 4, 100, f + 200, 16, 0);

	ck_assert_uint_eq(bmap1(&t, 7), f + 7);
	ck_assert_uint_eq(bmap1(&t, 50), f + 60);
	ck_assert_uint_eq(bmap1(&t, 99), 0);
	ck_assert_uint_eq(bmap1(&t, 115), f + 215);
	ck_assert_uint_eq(bmap1(&t, 116), 0);
	tctx_close(&t);
}
END_TEST

/* ee_len > 32768: unwritten, reported with the flag, a hole to bmap. */
START_TEST(test_extent_unwritten)
{
	struct tctx t;
	struct recs rs;
	uint8_t root[60] = { 0 };
	uint64_t all[12];
	uint64_t f;

	tctx_open(&t, 1024, 8192, EXT4_FEATURE_INCOMPAT_EXTENTS);
	f = t.free;
	ext_hdr(root, 2, 4, 0);
	ext_leaf(root, 0, 0, 2, f);
	ext_leaf(root, 1, 2, EXT4_EXT_INIT_MAX_LEN + 5, f + 2);
	ext_set_root(&t, root);
	tctx_commit(&t, 7 * 1024, 7);

	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 2);
	expect_rec(&rs, 0, 0, f, 2, 0);
	expect_rec(&rs, 1, 2, f + 2, 5, EXTKIT_BLOCK_UNWRITTEN);
	ck_assert_uint_eq(bmap1(&t, 1), f + 1);
	ck_assert_uint_eq(bmap1(&t, 2), 0);
	ck_assert_uint_eq(bmap1(&t, 6), 0);
	ck_assert_int_eq(extkit_bmap_all(t.fs, &t.inode, 12, all), 0);
	ck_assert_uint_eq(all[1], f + 1);
	ck_assert_uint_eq(all[2], 0);
	ck_assert_uint_eq(all[6], 0);
	/* raw: the unwritten blocks as mapped; the end counts them */
	ck_assert_int_eq(extkit_bmap_all_raw(t.fs, &t.inode, 12, all), 0);
	ck_assert_uint_eq(all[2], f + 2);
	ck_assert_uint_eq(all[6], f + 6);
	ck_assert_uint_eq(all[7], 0);
	ck_assert_int_eq(extkit_bmap_end(t.fs, &t.inode, &f), 0);
	ck_assert_uint_eq(f, 7);
	tctx_close(&t);
}
END_TEST

/*
 * An index entry naming its own block: the child's depth is not one less
 * than its parent's, so the walk ends in ELOOP instead of hanging. Both a
 * root of depth 1 and an interior node of depth 1 naming itself.
 */
START_TEST(test_extent_self_loop)
{
	struct tctx t;
	struct recs rs;
	uint8_t root[60] = { 0 };
	uint64_t f, node, pblk;
	uint8_t *b;

	tctx_open(&t, 1024, 8192, EXT4_FEATURE_INCOMPAT_EXTENTS);
	f = t.free;
	node = f + 10;
	b = blk_new(&t);
	ext_hdr(b, 1, ext_block_max(&t), 1);
	ext_idx(b, 0, 0, node);
	blk_put(&t, node, b);

	ext_hdr(root, 1, 4, 1);
	ext_idx(root, 0, 0, node);
	ext_set_root(&t, root);
	tctx_commit(&t, 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EXTKIT_ELOOP);
	ck_assert_int_eq(rs.n, 0);
	ck_assert_int_eq(extkit_bmap(t.fs, &t.inode, 0, &pblk),
			 -EXTKIT_ELOOP);

	t.inode.flags = 0;
	ext_hdr(root, 1, 4, 2);
	ext_idx(root, 0, 0, node);
	ext_set_root(&t, root);
	tctx_commit(&t, 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EXTKIT_ELOOP);
	ck_assert_int_eq(rs.n, 1);
	expect_rec(&rs, 0, ANY_LBLK, node, 1, EXTKIT_BLOCK_META);
	tctx_close(&t);
}
END_TEST

/* Bad headers: magic (root and child), eh_max too large, too many
 * entries, depth above 5. */
START_TEST(test_extent_bad_header)
{
	struct tctx t;
	struct recs rs;
	uint8_t root[60] = { 0 };
	struct ext4_extent_header eh;
	uint64_t f, leaf, pblk;
	uint8_t *b;

	tctx_open(&t, 1024, 8192, EXT4_FEATURE_INCOMPAT_EXTENTS);
	f = t.free;
	leaf = f + 3;
	ext_hdr(root, 1, 4, 0);
	ext_leaf(root, 0, 0, 1, f);
	put_le16(root, 0xF30B);
	ext_set_root(&t, root);
	tctx_commit(&t, 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	ck_assert_int_eq(extkit_bmap(t.fs, &t.inode, 0, &pblk),
			 -EFSCORRUPTED);

	b = blk_new(&t);
	ext_hdr(b, 1, ext_block_max(&t), 0);
	ext_leaf(b, 0, 0, 1, f);
	put_le16(b, 0x0AF3);
	blk_put(&t, leaf, b);
	ext_hdr(root, 1, 4, 1);
	ext_idx(root, 0, 0, leaf);
	ext_set_root(&t, root);
	tctx_commit(&t, 1024, 2);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	ck_assert_int_eq(rs.n, 0);

	memset(&eh, 0, sizeof(eh));
	eh.eh_magic = cpu_to_le16(EXT4_EXT_MAGIC);
	eh.eh_max = cpu_to_le16(4);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 60), 0);
	eh.eh_max = cpu_to_le16(5);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 60), -EFSCORRUPTED);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 1024), 0);
	eh.eh_max = cpu_to_le16(85);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 1024),
			 -EFSCORRUPTED);
	eh.eh_max = cpu_to_le16(4);
	eh.eh_entries = cpu_to_le16(5);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 60), -EFSCORRUPTED);
	eh.eh_entries = cpu_to_le16(4);
	eh.eh_depth = cpu_to_le16(6);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 60), -EFSCORRUPTED);
	eh.eh_depth = cpu_to_le16(5);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 60), 0);
	ck_assert_int_eq(extkit_extent_header_check(&eh, 8), -EFSCORRUPTED);
	tctx_close(&t);
}
END_TEST

/* Extents out of logical order or overlapping, a run leaving the
 * filesystem, a zero length, a leaf pointer out of range. */
START_TEST(test_extent_corrupt)
{
	struct tctx t;
	struct recs rs;
	uint8_t root[60] = { 0 };
	uint64_t f, nb;

	tctx_open(&t, 1024, 8192, EXT4_FEATURE_INCOMPAT_EXTENTS);
	f = t.free;
	nb = t.fs->sb.blocks_count;
	ext_hdr(root, 2, 4, 0);
	ext_leaf(root, 0, 10, 2, f);
	ext_leaf(root, 1, 5, 2, f + 10);
	ext_set_root(&t, root);
	tctx_commit(&t, 12 * 1024, 4);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	ck_assert_int_eq(rs.n, 1);

	ext_leaf(root, 1, 11, 2, f + 10);		/* overlaps 10..11 */
	ext_set_root(&t, root);
	tctx_commit(&t, 13 * 1024, 4);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);

	ext_hdr(root, 1, 4, 0);
	ext_leaf(root, 0, 0, 8, nb - 4);		/* runs off the end */
	ext_set_root(&t, root);
	tctx_commit(&t, 8 * 1024, 8);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	ck_assert_int_eq(rs.n, 0);

	ext_leaf(root, 0, 0, 4, nb - 4);		/* ends on the last */
	ext_set_root(&t, root);
	tctx_commit(&t, 4 * 1024, 4);
	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 1);

	ext_leaf(root, 0, 0, 1, (uint64_t)1 << 40);	/* start_hi set */
	ext_set_root(&t, root);
	tctx_commit(&t, 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);

	ext_leaf(root, 0, 0, 0, f);			/* zero length */
	ext_set_root(&t, root);
	tctx_commit(&t, 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);

	ext_hdr(root, 1, 4, 1);
	ext_idx(root, 0, 0, nb);			/* leaf out of range */
	ext_set_root(&t, root);
	tctx_commit(&t, 1024, 1);
	ck_assert_int_eq(walk(&t, &rs), -EFSCORRUPTED);
	tctx_close(&t);
}
END_TEST

/* 64 KiB blocks: 16384 addresses per indirect block; extents too. */
START_TEST(test_64k_blocks)
{
	const uint64_t apb = 65536 / 4;
	struct tctx t;
	struct recs rs;
	uint8_t root[60] = { 0 };
	uint64_t f, ind, dind, dind_i;
	uint8_t *b;

	tctx_open(&t, 65536, 64, 0);
	ck_assert_uint_eq(t.fs->g.addr_per_block, apb);
	f = t.free;
	ind = f, dind = f + 1, dind_i = f + 2;
	t.inode.block[0] = f + 3;
	t.inode.block[EXT2_IND_BLOCK] = ind;
	t.inode.block[EXT2_DIND_BLOCK] = dind;
	b = blk_new(&t);
	put_le32(b, f + 4);				/* lblk 12 */
	put_le32(b + 4 * (apb - 1), f + 5);		/* lblk 12+16383 */
	blk_put(&t, ind, b);
	ind_put1(&t, dind, 1, dind_i);
	ind_put1(&t, dind_i, 2, f + 6);		/* 12+16384+16384+2 */
	tctx_commit(&t, (12 + 3 * apb) * 65536, 7);

	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 7);
	expect_rec(&rs, 0, 0, f + 3, 1, 0);
	expect_rec(&rs, 1, ANY_LBLK, ind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 2, 12, f + 4, 1, 0);
	expect_rec(&rs, 3, 12 + apb - 1, f + 5, 1, 0);
	expect_rec(&rs, 4, ANY_LBLK, dind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 5, ANY_LBLK, dind_i, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 6, 12 + 2 * apb + 2, f + 6, 1, 0);
	ck_assert_uint_eq(bmap1(&t, 12 + apb - 1), f + 5);
	ck_assert_uint_eq(bmap1(&t, 12 + apb), 0);
	ck_assert_uint_eq(bmap1(&t, 12 + 2 * apb + 2), f + 6);

	memset(t.inode.block, 0, sizeof(t.inode.block));
	b = blk_new(&t);
	ext_hdr(b, 1, ext_block_max(&t), 0);
	ext_leaf(b, 0, 7, 3, f + 10);
	blk_put(&t, ind, b);
	ext_hdr(root, 1, 4, 1);
	ext_idx(root, 0, 0, ind);
	ext_set_root(&t, root);
	tctx_commit(&t, 10 * 65536, 4);
	ck_assert_int_eq(walk(&t, &rs), 0);
	ck_assert_int_eq(rs.n, 2);
	expect_rec(&rs, 0, ANY_LBLK, ind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 1, 7, f + 10, 3, 0);
	ck_assert_uint_eq(bmap1(&t, 9), f + 12);
	tctx_close(&t);
}
END_TEST

/* Truncates the levels file to keep blocks; records what goes. */
static int cut(struct tctx *t, struct recs *rs, uint64_t keep, int dry)
{
	memset(rs, 0, sizeof(*rs));
	return extkit_bmap_truncate(t->fs, 12, &t->inode, keep, dry, rec_fn,
				    rs);
}

static uint32_t ind_entry(struct tctx *t, uint64_t blk, uint32_t idx)
{
	uint8_t *b = blk_new(t);
	uint32_t v;

	ck_assert_int_eq(extkit_fs_read_block(t->fs, blk, b), 0);
	v = get_le32(b + 4 * idx);
	free(b);
	return v;
}

/*
 * A cut inside the single indirect block: its later entries go, the
 * double and triple indirect trees go whole (blocks before data).
 */
START_TEST(test_truncate_ind)
{
	struct tctx t;
	struct recs rs;
	struct levels v;
	uint64_t f;

	tctx_open(&t, 1024, 8192, 0);
	levels_build(&t, &v);
	f = v.f;
	ck_assert_int_eq(cut(&t, &rs, 13, 0), 0);
	ck_assert_int_eq(rs.n, 10);
	expect_rec(&rs, 0, 13, f + 14, 2, 0);
	expect_rec(&rs, 1, ANY_LBLK, v.dind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 2, ANY_LBLK, v.dind_i0, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 3, L_DIND, f + 40, 1, 0);
	expect_rec(&rs, 4, ANY_LBLK, v.dind_i1, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 5, L_DIND + 257, f + 41, 1, 0);
	expect_rec(&rs, 6, ANY_LBLK, v.tind, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 9, L_TIND, f + 50, 1, 0);
	ck_assert_uint_eq(t.inode.block[EXT2_IND_BLOCK], v.ind);
	ck_assert_uint_eq(t.inode.block[EXT2_DIND_BLOCK], 0);
	ck_assert_uint_eq(t.inode.block[EXT2_TIND_BLOCK], 0);
	ck_assert_uint_eq(t.inode.block[11], f + 11);
	ck_assert_uint_eq(ind_entry(&t, v.ind, 0), f + 13);
	ck_assert_uint_eq(ind_entry(&t, v.ind, 1), 0);
	ck_assert_uint_eq(ind_entry(&t, v.ind, 2), 0);
	tctx_close(&t);
}
END_TEST

/*
 * A cut that empties an indirect block (dind_i1 maps only lblk 525):
 * the block goes too and its parent loses the pointer. A dry run of the
 * same cut reports the same and writes nothing.
 */
START_TEST(test_truncate_empties)
{
	struct tctx t;
	struct recs rs;
	struct levels v;
	struct extkit_inode copy;

	tctx_open(&t, 1024, 8192, 0);
	levels_build(&t, &v);
	copy = t.inode;
	ck_assert_int_eq(cut(&t, &rs, L_DIND + 257, 1), 0);
	ck_assert_int_eq(rs.n, 6);
	expect_rec(&rs, 0, L_DIND + 257, v.f + 41, 1, 0);
	expect_rec(&rs, 1, ANY_LBLK, v.dind_i1, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 2, ANY_LBLK, v.tind, 1, EXTKIT_BLOCK_META);
	ck_assert_uint_eq(ind_entry(&t, v.dind, 1), v.dind_i1);
	ck_assert_uint_eq(ind_entry(&t, v.dind_i1, 1), v.f + 41);

	t.inode = copy;
	ck_assert_int_eq(cut(&t, &rs, L_DIND + 257, 0), 0);
	ck_assert_int_eq(rs.n, 6);
	ck_assert_uint_eq(t.inode.block[EXT2_DIND_BLOCK], v.dind);
	ck_assert_uint_eq(t.inode.block[EXT2_TIND_BLOCK], 0);
	ck_assert_uint_eq(ind_entry(&t, v.dind, 0), v.dind_i0);
	ck_assert_uint_eq(ind_entry(&t, v.dind, 1), 0);
	ck_assert_uint_eq(ind_entry(&t, v.dind_i0, 0), v.f + 40);
	tctx_close(&t);
}
END_TEST

/* Everything (keep 0), a callback stop, a bad number, extent trees. */
START_TEST(test_truncate_edges)
{
	struct tctx t;
	struct recs rs;
	struct levels v;
	struct extkit_inode copy;

	tctx_open(&t, 1024, 8192, 0);
	levels_build(&t, &v);
	copy = t.inode;
	ck_assert_int_eq(cut(&t, &rs, 0, 1), 0);
	ck_assert_int_eq(rs.n, 12);
	expect_rec(&rs, 0, 0, v.f, 12, 0);
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		ck_assert_uint_eq(t.inode.block[i], 0);

	t.inode = copy;
	memset(&rs, 0, sizeof(rs));
	rs.stop_at = 2;
	rs.stop_rc = 7;
	ck_assert_int_eq(extkit_bmap_truncate(t.fs, 12, &t.inode, 0, 1, rec_fn,
					      &rs), 7);

	t.inode = copy;
	t.inode.block[5] = 999999;
	ck_assert_int_eq(cut(&t, &rs, 0, 1), -EFSCORRUPTED);

	/* A block map read as an extent tree: no valid root header. */
	t.inode = copy;
	t.inode.flags |= EXT4_EXTENTS_FL;
	ck_assert_int_eq(cut(&t, &rs, 0, 1), -EFSCORRUPTED);
	tctx_close(&t);
}
END_TEST

/*
 * Extent tree of depth 1, leaves [0..7, 50] and [100..115]: a cut at 4
 * shortens the first extent, drops the second, and drops the second leaf
 * whole (its extent, then the leaf block); a dry run changes no block.
 * A cut at 0 leaves an empty root of depth 0.
 */
START_TEST(test_extent_truncate)
{
	struct tctx t;
	struct recs rs;
	uint8_t root[60] = { 0 };
	uint64_t f, leaf1, leaf2;
	struct extkit_inode copy;
	struct extkit_extent ex;
	uint8_t *b;

	f = two_leaf_tree(&t, &leaf1, &leaf2);
	copy = t.inode;

	ck_assert_int_eq(cut(&t, &rs, 4, 1), 0);
	ck_assert_int_eq(rs.n, 4);
	expect_rec(&rs, 0, 100, f + 200, 16, 0);
	expect_rec(&rs, 1, 100, leaf2, 1, EXTKIT_BLOCK_META);
	expect_rec(&rs, 2, 50, f + 60, 1, 0);
	expect_rec(&rs, 3, 4, f + 4, 4, 0);
	b = blk_new(&t);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, leaf1, b), 0);
	ck_assert_uint_eq(extkit_extent_entries(b), 2);

	t.inode = copy;
	ck_assert_int_eq(cut(&t, &rs, 4, 0), 0);
	ck_assert_int_eq(rs.n, 4);
	extkit_extent_root_get(&t.inode, root);
	ck_assert_uint_eq(extkit_extent_entries(root), 1);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, leaf1, b), 0);
	ck_assert_uint_eq(extkit_extent_entries(b), 1);
	extkit_extent_get(b, 0, &ex);
	ck_assert_uint_eq(ex.lblk, 0);
	ck_assert_uint_eq(ex.len, 4);
	ck_assert_uint_eq(ex.pblk, f);
	ck_assert_uint_eq(bmap1(&t, 3), f + 3);
	ck_assert_uint_eq(bmap1(&t, 4), 0);

	ck_assert_int_eq(cut(&t, &rs, 0, 0), 0);
	ck_assert_int_eq(rs.n, 2);
	expect_rec(&rs, 1, 0, leaf1, 1, EXTKIT_BLOCK_META);
	extkit_extent_root_get(&t.inode, root);
	ck_assert_uint_eq(extkit_extent_entries(root), 0);
	ck_assert_uint_eq(extkit_extent_depth(root), 0);
	free(b);
	tctx_close(&t);
}
END_TEST

/* Node edits: remove an entry, open slots up to the capacity. */
START_TEST(test_extent_node_edit)
{
	uint8_t node[60] = { 0 };
	struct extkit_extent ex = { .lblk = 5, .pblk = 0x123456789ULL,
				    .len = 7, .unwritten = 1 };
	struct extkit_extent got;

	ext_hdr(node, 2, 4, 0);
	ext_leaf(node, 0, 0, 1, 100);
	ext_leaf(node, 1, 9, 1, 200);
	ck_assert_int_eq(extkit_extent_open_slots(node, 1, 2, 4), 0);
	ck_assert_uint_eq(extkit_extent_entries(node), 4);
	extkit_extent_put(node, 1, &ex);
	extkit_extent_get(node, 1, &got);
	ck_assert_uint_eq(got.lblk, 5);
	ck_assert_uint_eq(got.pblk, 0x123456789ULL);
	ck_assert_uint_eq(got.len, 7);
	ck_assert_int_eq(got.unwritten, 1);
	ck_assert_uint_eq(get_le16(node + 12 + 12 + 4), 32768 + 7);
	extkit_extent_get(node, 3, &got);
	ck_assert_uint_eq(got.pblk, 200);
	ck_assert_int_eq(extkit_extent_open_slots(node, 0, 1, 4), -ENOSPC);
	extkit_extent_remove(node, 0);
	ck_assert_uint_eq(extkit_extent_entries(node), 3);
	extkit_extent_get(node, 0, &got);
	ck_assert_uint_eq(got.lblk, 5);
	ck_assert_uint_eq(extkit_extent_capacity(4096), 340);
	ck_assert_uint_eq(extkit_extent_capacity(60), 4);
}
END_TEST

/* An indirect block's entries: little-endian 32-bit block numbers, entry
 * i at byte 4 * i (the last of a 1 KiB block at 1020). */
START_TEST(test_ind_entries)
{
	uint8_t b[1024], want[1024];

	for (int i = 0; i < 1024; i++)
		b[i] = (uint8_t)(i * 3);
	memcpy(want, b, sizeof(b));
	ck_assert_uint_eq(extkit_bmap_ind_get(b, 0), get_le32(b));
	ck_assert_uint_eq(extkit_bmap_ind_get(b, 255), get_le32(b + 1020));
	extkit_bmap_ind_set(b, 255, 0xdeadbeef);
	extkit_bmap_ind_set(b, 1, 0);
	put_le32(want + 1020, 0xdeadbeef);
	put_le32(want + 4, 0);
	ck_assert_mem_eq(b, want, sizeof(b));
	ck_assert_uint_eq(extkit_bmap_ind_get(b, 255), 0xdeadbeef);
	ck_assert_uint_eq(extkit_bmap_ind_get(b, 1), 0);
}
END_TEST

Suite *bmap_suite(void)
{
	Suite *s = suite_create("bmap");
	TCase *tc = tcase_create("indirect");
	TCase *te = tcase_create("extent");

	tcase_add_test(tc, test_direct);
	tcase_add_test(tc, test_indirect_levels);
	tcase_add_test(tc, test_holes);
	tcase_add_test(tc, test_out_of_range);
	tcase_add_test(tc, test_indirect_budget);
	tcase_add_test(tc, test_callback_stop);
	tcase_add_test(tc, test_no_block_map);
	tcase_add_test(tc, test_64k_blocks);
	tcase_add_test(tc, test_truncate_ind);
	tcase_add_test(tc, test_truncate_empties);
	tcase_add_test(tc, test_truncate_edges);
	tcase_add_test(tc, test_ind_entries);
	suite_add_tcase(s, tc);
	tcase_add_test(te, test_extent_depth0);
	tcase_add_test(te, test_extent_depth1);
	tcase_add_test(te, test_extent_unwritten);
	tcase_add_test(te, test_extent_self_loop);
	tcase_add_test(te, test_extent_bad_header);
	tcase_add_test(te, test_extent_corrupt);
	tcase_add_test(te, test_extent_truncate);
	tcase_add_test(te, test_extent_node_edit);
	suite_add_tcase(s, te);
	return s;
}
