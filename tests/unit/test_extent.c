// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for extent edits: extent.c's node access against golden
 * bytes (header, leaf and index entries with 48-bit block numbers,
 * unwritten lengths), its header checks, slots opened and removed, the
 * root in i_block and the tree-block checksum; and dirext.c's appends
 * and truncation on an extent-mapped directory (contiguous blocks grow
 * one extent, a gap starts another, a full in-inode list is refused and
 * gives its block back, truncation frees what lies past the end) and on
 * a block map (the indirect block taken with the 13th block).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dirext.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "ondisk.h"
#include "suites.h"

#define BS	1024u

static void empty_node(uint8_t *node, uint16_t max)
{
	put_le16(node, EXT4_EXT_MAGIC);
	put_le16(node + 2, 0);
	put_le16(node + 4, max);
	put_le16(node + 6, 0);
	put_le32(node + 8, 0);
}

START_TEST(test_leaf_golden)
{
	uint8_t node[BS] = { 0 };
	struct extkit_extent ex = { .lblk = 0x01020304, .pblk = 0xa0b0c0d0e0f0,
				    .len = 7, .unwritten = 0 }, got;

	empty_node(node, extkit_extent_capacity(BS));
	ck_assert_uint_eq(extkit_extent_capacity(BS), (BS - 12) / 12);
	ck_assert_uint_eq(extkit_extent_capacity(EXTKIT_EXTENT_ROOT_SIZE), 4);
	extkit_extent_put(node, 0, &ex);
	extkit_extent_set_entries(node, 1);
	extkit_extent_set_depth(node, 0);
	/* ee_block, ee_len, ee_start_hi, ee_start_lo at 12, 16, 18, 20 */
	ck_assert_uint_eq(get_le16(node + 2), 1);
	ck_assert_uint_eq(get_le32(node + 12), 0x01020304);
	ck_assert_uint_eq(get_le16(node + 16), 7);
	ck_assert_uint_eq(get_le16(node + 18), 0xa0b0);
	ck_assert_uint_eq(get_le32(node + 20), 0xc0d0e0f0);
	extkit_extent_get(node, 0, &got);
	ck_assert_uint_eq(got.lblk, ex.lblk);
	ck_assert_uint_eq(got.pblk, ex.pblk);
	ck_assert_uint_eq(got.len, 7);
	ck_assert_int_eq(got.unwritten, 0);
	/* unwritten: ee_len carries 32768 more */
	ex.unwritten = 1;
	ex.len = 100;
	extkit_extent_put(node, 1, &ex);
	ck_assert_uint_eq(get_le16(node + 12 + 12 + 4), 32768 + 100);
	extkit_extent_get(node, 1, &got);
	ck_assert_uint_eq(got.len, 100);
	ck_assert_int_ne(got.unwritten, 0);
	/* a length of exactly 32768 is an initialized extent */
	put_le16(node + 16, 32768);
	extkit_extent_get(node, 0, &got);
	ck_assert_uint_eq(got.len, 32768);
	ck_assert_int_eq(got.unwritten, 0);
}
END_TEST

/* One raw ext4_extent wherever it lies (a fast-commit tag's), and a
 * node's eh_max set with its entries kept. */
START_TEST(test_decode_and_set_max)
{
	uint8_t raw[12], node[BS] = { 0 };
	struct extkit_extent ex = { .lblk = 77, .pblk = 0x123456789aull,
				    .len = 9 }, got;

	put_le32(raw, 0xfffffffe);
	put_le16(raw + 4, 32768 + 5);		/* unwritten, 5 blocks */
	put_le16(raw + 6, 0x00ab);
	put_le32(raw + 8, 0xcdef0123);
	extkit_extent_decode(raw, &got);
	ck_assert_uint_eq(got.lblk, 0xfffffffe);
	ck_assert_uint_eq(got.len, 5);
	ck_assert_int_ne(got.unwritten, 0);
	ck_assert_uint_eq(got.pblk, 0xabcdef0123ull);
	put_le16(raw + 4, 32768);		/* the longest written one */
	extkit_extent_decode(raw, &got);
	ck_assert_uint_eq(got.len, 32768);
	ck_assert_int_eq(got.unwritten, 0);

	extkit_extent_node_init(node, BS, 10, 0);
	extkit_extent_put(node, 0, &ex);
	extkit_extent_set_entries(node, 1);
	put_le16(node, 0);			/* magic lost */
	extkit_extent_set_max(node, extkit_extent_capacity(BS));
	ck_assert_uint_eq(get_le16(node), EXT4_EXT_MAGIC);
	ck_assert_uint_eq(get_le16(node + 4), (BS - 12) / 12);
	ck_assert_uint_eq(extkit_extent_entries(node), 1);
	extkit_extent_get(node, 0, &got);
	ck_assert_uint_eq(got.pblk, ex.pblk);
}
END_TEST

START_TEST(test_index_golden)
{
	uint8_t node[BS] = { 0 };
	struct extkit_extent_idx ix = { .lblk = 500, .child = 0x123456789a },
				 got;

	empty_node(node, 84);
	extkit_extent_set_depth(node, 2);
	ck_assert_uint_eq(extkit_extent_depth(node), 2);
	ck_assert_uint_eq(get_le16(node + 6), 2);
	extkit_extent_idx_put(node, 3, &ix);
	/* ei_block, ei_leaf_lo, ei_leaf_hi at 0, 4, 8 of entry 3 */
	ck_assert_uint_eq(get_le32(node + 12 + 36), 500);
	ck_assert_uint_eq(get_le32(node + 12 + 40), 0x3456789a);
	ck_assert_uint_eq(get_le16(node + 12 + 44), 0x12);
	extkit_extent_idx_get(node, 3, &got);
	ck_assert_uint_eq(got.lblk, 500);
	ck_assert_uint_eq(got.child, 0x123456789a);
}
END_TEST

START_TEST(test_header_check)
{
	uint8_t node[BS] = { 0 };
	const struct ext4_extent_header *eh = (const void *)node;

	empty_node(node, 4);
	ck_assert_int_eq(extkit_extent_header_check(eh, 60), 0);
	ck_assert_int_eq(extkit_extent_header_check(eh, 11), -EFSCORRUPTED);
	put_le16(node + 4, 5);		/* more than 60 bytes hold */
	ck_assert_int_eq(extkit_extent_header_check(eh, 60), -EFSCORRUPTED);
	ck_assert_int_eq(extkit_extent_header_check(eh, BS), 0);
	put_le16(node + 2, 6);		/* entries past max */
	ck_assert_int_eq(extkit_extent_header_check(eh, BS), -EFSCORRUPTED);
	put_le16(node + 2, 5);
	put_le16(node + 6, 6);		/* deeper than the kernel allows */
	ck_assert_int_eq(extkit_extent_header_check(eh, BS), -EFSCORRUPTED);
	put_le16(node + 6, 5);
	ck_assert_int_eq(extkit_extent_header_check(eh, BS), 0);
	put_le16(node, 0xf30b);
	ck_assert_int_eq(extkit_extent_header_check(eh, BS), -EFSCORRUPTED);
}
END_TEST

static void put_lblks(uint8_t *node, const uint32_t *l, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct extkit_extent ex = { .lblk = l[i], .pblk = 1000 + l[i],
					    .len = 1 };

		extkit_extent_put(node, i, &ex);
	}
	extkit_extent_set_entries(node, n);
}

static uint64_t lblk_at(const uint8_t *node, uint16_t i)
{
	struct extkit_extent ex;

	extkit_extent_get(node, i, &ex);
	return ex.lblk;
}

START_TEST(test_slots)
{
	uint8_t node[EXTKIT_EXTENT_ROOT_SIZE] = { 0 };
	static const uint32_t l[3] = { 10, 20, 30 };
	struct extkit_extent ex = { .lblk = 15, .pblk = 5, .len = 1 };

	empty_node(node, 4);
	put_lblks(node, l, 3);
	ck_assert_int_eq(extkit_extent_open_slots(node, 1, 1, 4), 0);
	ck_assert_uint_eq(extkit_extent_entries(node), 4);
	extkit_extent_put(node, 1, &ex);
	ck_assert_uint_eq(lblk_at(node, 0), 10);
	ck_assert_uint_eq(lblk_at(node, 1), 15);
	ck_assert_uint_eq(lblk_at(node, 2), 20);
	ck_assert_uint_eq(lblk_at(node, 3), 30);
	/* full: no room for another */
	ck_assert_int_eq(extkit_extent_open_slots(node, 0, 1, 4), -ENOSPC);
	ck_assert_uint_eq(extkit_extent_entries(node), 4);
	extkit_extent_remove(node, 0);
	ck_assert_uint_eq(extkit_extent_entries(node), 3);
	ck_assert_uint_eq(lblk_at(node, 0), 15);
	ck_assert_uint_eq(lblk_at(node, 2), 30);
	extkit_extent_remove(node, 2);
	ck_assert_uint_eq(extkit_extent_entries(node), 2);
	ck_assert_uint_eq(lblk_at(node, 1), 20);
	/* two at the end */
	ck_assert_int_eq(extkit_extent_open_slots(node, 2, 2, 4), 0);
	ck_assert_uint_eq(extkit_extent_entries(node), 4);
	ck_assert_uint_eq(lblk_at(node, 1), 20);
}
END_TEST

struct tfs {
	struct extkit_io *io;
	struct extkit_fs *fs;
};

static void tfs_open(struct tfs *t)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.blocks = 8192;
	o.incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
}

static void tfs_close(struct tfs *t)
{
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

START_TEST(test_root_and_tree_block_csum)
{
	struct extkit_inode in;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE], back[EXTKIT_EXTENT_ROOT_SIZE];
	uint8_t blk[BS] = { 0 };
	struct extkit_extent ex = { .lblk = 0, .pblk = 4000, .len = 3 };
	struct tfs t;

	memset(&in, 0, sizeof(in));
	empty_node(root, 4);
	extkit_extent_put(root, 0, &ex);
	extkit_extent_set_entries(root, 1);
	extkit_extent_root_put(&in, root);
	ck_assert_uint_eq(in.block[0], EXT4_EXT_MAGIC | 1u << 16);
	extkit_extent_root_get(&in, back);
	ck_assert_mem_eq(root, back, sizeof(root));

	tfs_open(&t);
	t.fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	empty_node(blk, extkit_extent_capacity(BS));
	extkit_extent_put(blk, 0, &ex);
	extkit_extent_set_entries(blk, 1);
	ck_assert_int_eq(extkit_extent_write_block(t.fs, 12, 77, 3000, blk),
			 0);
	ck_assert_int_eq(extkit_io_read_blocks(t.io, 3000, 1, blk), 0);
	ck_assert_int_eq(extkit_extent_block_csum_ok(t.fs, 12, 77, blk), 1);
	ck_assert_int_eq(extkit_extent_block_csum_ok(t.fs, 12, 78, blk), 0);
	ck_assert_int_eq(extkit_extent_block_csum_ok(t.fs, 13, 77, blk), 0);
	blk[13] ^= 1;
	ck_assert_int_eq(extkit_extent_block_csum_ok(t.fs, 12, 77, blk), 0);
	tfs_close(&t);
}
END_TEST

/* An allocator handing out the blocks of a list, and taking back. */
struct list_alloc {
	const uint64_t *blk;
	unsigned int n, next, released;
};

static int list_take(void *arg, uint64_t goal, uint64_t want,
		     uint64_t *start, uint64_t *got)
{
	struct list_alloc *a = arg;

	(void)goal;
	(void)want;
	if (a->next == a->n)
		return -ENOSPC;
	*start = a->blk[a->next++];
	*got = 1;
	return 0;
}

static int list_release(void *arg, uint64_t start, uint64_t count)
{
	struct list_alloc *a = arg;

	(void)start;
	a->released += (unsigned int)count;
	return 0;
}

static void extent_dir(struct extkit_inode *in)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE] = { 0 };

	memset(in, 0, sizeof(*in));
	in->mode = S_IFDIR | 0755;
	in->links_count = 2;
	in->flags = EXT4_EXTENTS_FL;
	empty_node(root, 4);
	extkit_extent_root_put(in, root);
}

static void root_extent(const struct extkit_inode *in, uint16_t i,
			struct extkit_extent *ex)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];

	extkit_extent_root_get(in, root);
	ck_assert_uint_gt(extkit_extent_entries(root), i);
	extkit_extent_get(root, i, ex);
}

START_TEST(test_dir_append_extents)
{
	/* 3000..3002 contiguous, then 3100, 3200, 3300, then 3400 */
	static const uint64_t blks[] = { 3000, 3001, 3002, 3100, 3200, 3300,
					 3400 };
	struct list_alloc la = { blks, 7, 0, 0 };
	struct extkit_allocator ba = { .take_blocks = list_take,
				      .release = list_release, .arg = &la };
	struct extkit_extent ex;
	struct extkit_inode in;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	uint64_t pblk, l;
	struct tfs t;

	tfs_open(&t);
	extent_dir(&in);
	for (l = 0; l < 6; l++) {
		ck_assert_int_eq(extkit_dir_append_block(t.fs, &in, l, 0,
							 &pblk, &ba), 0);
		ck_assert_uint_eq(pblk, blks[l]);
	}
	extkit_extent_root_get(&in, root);
	ck_assert_uint_eq(extkit_extent_entries(root), 4);
	root_extent(&in, 0, &ex);
	ck_assert_uint_eq(ex.lblk, 0);
	ck_assert_uint_eq(ex.pblk, 3000);
	ck_assert_uint_eq(ex.len, 3);		/* merged */
	root_extent(&in, 3, &ex);
	ck_assert_uint_eq(ex.lblk, 5);
	ck_assert_uint_eq(ex.pblk, 3300);
	ck_assert_uint_eq(ex.len, 1);
	ck_assert_uint_eq(extkit_inode_blocks_bytes(t.fs, &in), 6 * BS);
	/* the in-inode list is full: refused, the block given back */
	ck_assert_int_eq(extkit_dir_append_block(t.fs, &in, 6, 0, &pblk,
						 &ba), -EXTKIT_EUNSUPP);
	ck_assert_uint_eq(la.released, 1);
	ck_assert_uint_eq(extkit_inode_blocks_bytes(t.fs, &in), 6 * BS);
	tfs_close(&t);
}
END_TEST

START_TEST(test_dir_truncate_extents)
{
	struct extkit_extent ex;
	struct extkit_inode in;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	uint64_t pblk, free0;
	struct tfs t;

	tfs_open(&t);
	extent_dir(&in);
	free0 = t.fs->sb.free_blocks_count;
	/* from the bitmaps: contiguous from the goal */
	for (uint64_t l = 0; l < 5; l++)
		ck_assert_int_eq(extkit_dir_append_block(t.fs, &in, l, 2000,
							 &pblk, NULL), 0);
	ck_assert_uint_eq(free0 - t.fs->sb.free_blocks_count, 5);
	root_extent(&in, 0, &ex);
	ck_assert_uint_eq(ex.len, 5);
	in.size = 5 * BS;
	ck_assert_int_eq(extkit_dir_truncate(t.fs, &in, 2), 0);
	ck_assert_uint_eq(in.size, 2 * BS);
	ck_assert_uint_eq(free0 - t.fs->sb.free_blocks_count, 2);
	ck_assert_uint_eq(extkit_inode_blocks_bytes(t.fs, &in), 2 * BS);
	root_extent(&in, 0, &ex);
	ck_assert_uint_eq(ex.len, 2);
	ck_assert_int_eq(extkit_dir_truncate(t.fs, &in, 0), 0);
	extkit_extent_root_get(&in, root);
	ck_assert_uint_eq(extkit_extent_entries(root), 0);
	ck_assert_uint_eq(t.fs->sb.free_blocks_count, free0);
	tfs_close(&t);
}
END_TEST

START_TEST(test_dir_append_block_map)
{
	struct extkit_inode in;
	uint64_t pblk, free0, got;
	struct tfs t;

	tfs_open(&t);
	memset(&in, 0, sizeof(in));
	in.mode = S_IFDIR | 0755;
	free0 = t.fs->sb.free_blocks_count;
	for (uint64_t l = 0; l < 12; l++)
		ck_assert_int_eq(extkit_dir_append_block(t.fs, &in, l, 0,
							 &pblk, NULL), 0);
	ck_assert_uint_eq(in.block[EXT2_IND_BLOCK], 0);
	ck_assert_uint_eq(free0 - t.fs->sb.free_blocks_count, 12);
	/* the 13th block brings the indirect block with it */
	ck_assert_int_eq(extkit_dir_append_block(t.fs, &in, 12, 0, &pblk,
						 NULL), 0);
	ck_assert_uint_ne(in.block[EXT2_IND_BLOCK], 0);
	ck_assert_uint_eq(free0 - t.fs->sb.free_blocks_count, 14);
	ck_assert_uint_eq(extkit_inode_blocks_bytes(t.fs, &in), 14 * BS);
	in.size = 13 * BS;
	ck_assert_int_eq(extkit_bmap(t.fs, &in, 12, &got), 0);
	ck_assert_uint_eq(got, pblk);
	/* back to 12 blocks: the indirect block goes too */
	ck_assert_int_eq(extkit_dir_truncate(t.fs, &in, 12), 0);
	ck_assert_uint_eq(in.block[EXT2_IND_BLOCK], 0);
	ck_assert_uint_eq(free0 - t.fs->sb.free_blocks_count, 12);
	tfs_close(&t);
}
END_TEST

/* eh_magic (0xF30A, the header's first two bytes, little-endian). */
START_TEST(test_has_magic)
{
	uint8_t node[60] = { 0 };

	ck_assert_int_eq(extkit_extent_has_magic(node), 0);
	node[0] = 0x0a;
	node[1] = 0xf3;
	ck_assert_int_eq(extkit_extent_has_magic(node), 1);
	node[1] = 0x0a;
	node[0] = 0xf3;
	ck_assert_int_eq(extkit_extent_has_magic(node), 0);
}
END_TEST

/* eh_max: the header's bytes 4-5, little-endian. */
START_TEST(test_max)
{
	uint8_t node[1024];

	extkit_extent_node_init(node, sizeof(node), 84, 0);
	ck_assert_uint_eq(extkit_extent_max(node), 84);
	ck_assert_uint_eq(get_le16(node + 4), 84);
	put_le16(node + 4, 0x1234);
	ck_assert_uint_eq(extkit_extent_max(node), 0x1234);
}
END_TEST

Suite *extent_suite(void)
{
	Suite *s = suite_create("extent");
	TCase *tc = tcase_create("node");
	TCase *dir = tcase_create("dirext");

	tcase_add_test(tc, test_leaf_golden);
	tcase_add_test(tc, test_decode_and_set_max);
	tcase_add_test(tc, test_index_golden);
	tcase_add_test(tc, test_header_check);
	tcase_add_test(tc, test_slots);
	tcase_add_test(tc, test_root_and_tree_block_csum);
	tcase_add_test(tc, test_has_magic);
	tcase_add_test(tc, test_max);
	suite_add_tcase(s, tc);
	tcase_add_test(dir, test_dir_append_extents);
	tcase_add_test(dir, test_dir_truncate_extents);
	tcase_add_test(dir, test_dir_append_block_map);
	suite_add_tcase(s, dir);
	return s;
}
