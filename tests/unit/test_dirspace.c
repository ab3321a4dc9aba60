// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for dirspace.c, diradd.c, dirext.c and alloc.c: hole
 * buckets, the figures of a fresh and of a hand-built directory, insertion
 * by splitting and reuse, removal by merging, growth past the direct and
 * indirect blocks, and the hint bookkeeping compared with brute force on
 * random add/remove sequences: a second image takes the same operations
 * through the first-fit walk from block 0, the two directories must stay
 * byte-identical, and every block's recorded room must equal what a fresh
 * read of the block says.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diradd.h"
#include "dirext.h"
#include "dirleaf.h"
#include "dirspace.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "suites.h"

#define ROOT	EXT2_ROOT_INO

static struct extkit_fs *open_image(uint32_t bs, uint32_t blocks,
				    struct extkit_io **io)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.block_size = bs;
	o.blocks = blocks;
	o.inodes_per_group = 2048;
	*io = test_image_make(&o);
	return test_image_open(*io);
}

static void close_image(struct extkit_fs *fs, struct extkit_io *io)
{
	extkit_fs_close(fs);
	extkit_io_close(io);
}

START_TEST(test_buckets)
{
	ck_assert_uint_eq(extkit_hole_bucket(4), 0);
	ck_assert_uint_eq(extkit_hole_bucket(12), 0);
	ck_assert_uint_eq(extkit_hole_bucket(15), 0);
	ck_assert_uint_eq(extkit_hole_bucket(16), 1);
	ck_assert_uint_eq(extkit_hole_bucket(23), 1);
	ck_assert_uint_eq(extkit_hole_bucket(24), 2);
	ck_assert_uint_eq(extkit_hole_bucket(63), 3);
	ck_assert_uint_eq(extkit_hole_bucket(64), 4);
	ck_assert_uint_eq(extkit_hole_bucket(1023), 7);
	ck_assert_uint_eq(extkit_hole_bucket(1024), 8);
	ck_assert_uint_eq(extkit_hole_bucket(65536), 8);
	ck_assert_str_eq(extkit_hole_bucket_label(9), "empty_blocks");
}
END_TEST

START_TEST(test_fresh_root)
{
	struct extkit_dirspace_stats st;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(1024, 8192, &io);

	ck_assert_int_eq(extkit_dirspace_scan(fs, ROOT, &st), 0);
	ck_assert_uint_eq(st.blocks, 1);
	ck_assert_uint_eq(st.entries, 2);
	ck_assert_uint_eq(st.live_bytes, 24);
	ck_assert_uint_eq(st.free_bytes, 1000);
	ck_assert_uint_eq(st.holes, 1);
	ck_assert_uint_eq(st.largest_hole, 1000);
	ck_assert_uint_eq(st.hist[7], 1);
	ck_assert_uint_eq(st.blocks_needed, 1);
	ck_assert_uint_eq(st.reclaimable_blocks, 0);
	ck_assert(extkit_dirspace_small_hole_share(&st) == 0.0);
	close_image(fs, io);
}
END_TEST

static void add_name(struct extkit_dirspace *ds, const char *name,
		     uint32_t ino)
{
	ck_assert_int_eq(extkit_dir_add(ds, name, (uint32_t)strlen(name),
					ino, EXT2_FT_REG_FILE, NULL), 0);
}

/* Split, reuse of a free first record, merge on removal, small holes. */
START_TEST(test_add_remove_figures)
{
	struct extkit_dirspace ds;
	struct extkit_dirspace_stats st;
	struct extkit_dir_hole w;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(1024, 8192, &io);
	uint32_t ino;

	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT, 0), 0);
	/* 8-byte names: 16-byte records */
	ck_assert_int_eq(extkit_dir_add(&ds, "abcdabcd", 8, 20, 1, &w), 0);
	ck_assert_uint_eq(w.lblk, 0);
	ck_assert_uint_eq(w.offset, 24);	/* after '..' shrunk to 12 */
	add_name(&ds, "efghefgh", 21);		/* at 40 */
	add_name(&ds, "ijklijkl", 22);		/* at 56, the rest */
	ck_assert_uint_eq(extkit_dirspace_room(&ds, 0), 1024 - 72);
	/* removing efgh leaves a 16-byte hole behind abcd */
	ck_assert_int_eq(extkit_dir_remove(&ds, "efghefgh", 8, &ino), 0);
	ck_assert_uint_eq(ino, 21);
	ck_assert_int_eq(extkit_dir_remove(&ds, "efghefgh", 8, NULL),
			 -ENOENT);
	ck_assert_int_eq(extkit_dir_remove(&ds, "..", 2, NULL), -EINVAL);
	ck_assert_int_eq(extkit_dirspace_refresh(&ds), 0);
	st = ds.st;
	ck_assert_uint_eq(st.entries, 4);
	ck_assert_uint_eq(st.live_bytes, 56);
	ck_assert_uint_eq(st.free_bytes, 1024 - 56);
	ck_assert_uint_eq(st.largest_hole, 1024 - 72);
	ck_assert_uint_eq(st.holes, 2);
	ck_assert_uint_eq(st.hist[1], 1);	/* the 16-byte hole */
	ck_assert_uint_eq(st.small_hole_bytes, 16);
	ck_assert(extkit_dirspace_small_hole_share(&st) > 0.0);
	/* an 8-char name (16 bytes) fits the hole exactly */
	ck_assert_int_eq(extkit_dir_add(&ds, "12345678", 8, 23, 1, &w), 0);
	ck_assert_uint_eq(w.offset, 40);
	extkit_dirspace_free(&ds);
	close_image(fs, io);
}
END_TEST

/* Each bucket's lower bound lands in it, the byte below in the one
 * before; the shares of free bytes. */
START_TEST(test_bucket_bounds_and_shares)
{
	struct extkit_dirspace_stats st;

	for (unsigned int i = 1; i < EXTKIT_HOLE_BUCKET_EMPTY; i++) {
		ck_assert_uint_eq(extkit_hole_bucket(extkit_hole_bucket_min(i)),
				  i);
		ck_assert_uint_eq(
			extkit_hole_bucket(extkit_hole_bucket_min(i) - 1),
			i - 1);
	}
	ck_assert_uint_eq(extkit_hole_bucket_min(0), 0);
	ck_assert_uint_eq(extkit_hole_bucket_min(EXTKIT_HOLE_BUCKET_EMPTY), 0);
	ck_assert_uint_eq(extkit_hole_bucket_min(EXTKIT_HOLE_BUCKETS), 0);
	ck_assert_str_eq(extkit_hole_bucket_label(EXTKIT_HOLE_BUCKETS), "?");
	memset(&st, 0, sizeof(st));
	ck_assert(extkit_dirspace_free_share(&st) == 0.0);
	ck_assert(extkit_dirspace_small_hole_share(&st) == 0.0);
	st.live_bytes = 300;
	st.free_bytes = 600;
	st.overhead_bytes = 100;
	st.small_hole_bytes = 150;
	ck_assert(extkit_dirspace_free_share(&st) == 0.6);
	ck_assert(extkit_dirspace_small_hole_share(&st) == 0.25);
}
END_TEST

/* Finding room from the hints, and removing a record by its place. */
START_TEST(test_find_and_remove_at)
{
	struct extkit_dirspace ds;
	struct extkit_dir_hole w[3];
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(1024, 8192, &io);
	uint64_t lblk = 99;
	uint32_t ino;

	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT, 0), 0);
	ck_assert_int_eq(extkit_dirspace_find(&ds, 1024 - 24, &lblk), 0);
	ck_assert_uint_eq(lblk, 0);	/* '..' can shrink to 12 */
	ck_assert_int_eq(extkit_dirspace_find(&ds, 1024 - 23, &lblk),
			 -ENOSPC);
	ck_assert_int_eq(extkit_dir_add(&ds, "abcdabcd", 8, 20, 1, &w[0]), 0);
	ck_assert_int_eq(extkit_dir_add(&ds, "efghefgh", 8, 21, 1, &w[1]), 0);
	ck_assert_int_eq(extkit_dir_add(&ds, "ijklijkl", 8, 22, 1, &w[2]), 0);
	ck_assert_uint_eq(extkit_dirspace_room(&ds, 0), 1024 - 72);
	ck_assert_int_eq(extkit_dirspace_find(&ds, 1024 - 72, &lblk), 0);
	ck_assert_int_eq(extkit_dirspace_find(&ds, 1024 - 71, &lblk),
			 -ENOSPC);
	/* the last record goes: its room joins the one before */
	ck_assert_int_eq(extkit_dir_remove_at(&ds, w[2].lblk, w[2].offset), 0);
	ck_assert_int_eq(extkit_dir_lookup(fs, ROOT, "ijklijkl", 8, &ino),
			 -ENOENT);
	ck_assert_int_eq(extkit_dir_lookup(fs, ROOT, "efghefgh", 8, &ino), 0);
	ck_assert_uint_eq(ino, 21);
	ck_assert_uint_eq(extkit_dirspace_room(&ds, 0), 1024 - 56);
	ck_assert_int_eq(extkit_dirspace_find(&ds, 1024 - 56, &lblk), 0);
	/* a place that holds no live record */
	ck_assert_int_eq(extkit_dir_remove_at(&ds, w[2].lblk, w[2].offset),
			 -ENOENT);
	ck_assert_int_eq(extkit_dir_remove_at(&ds, 0, 30), -ENOENT);
	/* a new block's one empty record is no live one */
	ck_assert_int_eq(extkit_dir_leaf_append(&ds, &lblk), 0);
	ck_assert_uint_eq(lblk, 1);
	ck_assert_int_eq(extkit_dir_remove_at(&ds, 1, 0), -ENOENT);
	ck_assert_int_eq(extkit_dir_remove_at(&ds, 2, 0), -ENOENT);
	extkit_dirspace_free(&ds);
	close_image(fs, io);
}
END_TEST

/* A name unique to n, at least len bytes (at most 47). */
static void make_name(char *buf, unsigned int n, unsigned int len)
{
	unsigned int i = (unsigned int)snprintf(buf, 32, "f%u_", n);

	for (; i < len; i++)
		buf[i] = (char)('a' + (n + i) % 26);
	buf[i] = 0;
}

/* Growth through the indirect block; the block map holds every block. */
START_TEST(test_grow_indirect)
{
	struct extkit_dirspace ds;
	struct extkit_inode inode;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(1024, 8192, &io);
	uint64_t free0 = fs->sb.free_blocks_count;
	char name[64];
	unsigned int i;

	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT, 0), 0);
	for (i = 0; i < 1000; i++) {
		make_name(name, i, 40);
		add_name(&ds, name, 11 + i % 1000);
	}
	ck_assert_int_eq(extkit_dirspace_refresh(&ds), 0);
	ck_assert_uint_eq(ds.st.entries, 1002);
	ck_assert_uint_gt(ds.st.blocks, 12);
	ck_assert_uint_eq(ds.st.blocks, ds.st.blocks_needed);
	ck_assert_int_eq(extkit_inode_read(fs, ROOT, &inode), 0);
	ck_assert_uint_eq(inode.size, ds.st.blocks * 1024);
	/* data blocks plus the indirect block */
	ck_assert_uint_eq(extkit_inode_blocks_bytes(fs, &inode),
			  (ds.st.blocks + 1) * 1024);
	ck_assert_uint_eq(free0 - fs->sb.free_blocks_count, ds.st.blocks);
	/* truncating back to 1 block frees the rest and the indirect block */
	ck_assert_int_eq(extkit_dir_truncate(fs, &inode, 1), 0);
	ck_assert_uint_eq(extkit_inode_blocks_bytes(fs, &inode), 1024);
	ck_assert_uint_eq(fs->sb.free_blocks_count, free0);
	ck_assert_uint_eq(inode.block[12], 0);
	extkit_dirspace_free(&ds);
	close_image(fs, io);
}
END_TEST

/* ---- the model comparison ---- */

#define MODEL_MAX	4096

struct model {
	char names[MODEL_MAX][48];
	uint32_t ino[MODEL_MAX];
	unsigned int n;
};

/* Physical blocks of the two directories must hold the same bytes. */
static void compare_dirs(struct extkit_dirspace *a, struct extkit_dirspace *b)
{
	uint32_t bs = a->fs->g.block_size;
	uint8_t *x = malloc(bs), *y = malloc(bs);
	uint64_t i;

	ck_assert_uint_eq(a->nblocks, b->nblocks);
	for (i = 0; i < a->nblocks; i++) {
		ck_assert_int_eq(extkit_fs_read_block(a->fs, a->pblks[i], x),
				 0);
		ck_assert_int_eq(extkit_fs_read_block(b->fs, b->pblks[i], y),
				 0);
		ck_assert_msg(!memcmp(x, y, bs), "block %llu differs",
			      (unsigned long long)i);
	}
	free(x);
	free(y);
}

/* Brute force: every block's room, recomputed from a fresh read. */
static void check_rooms(struct extkit_dirspace *ds)
{
	uint8_t *x = malloc(ds->fs->g.block_size);
	uint32_t room;
	uint64_t i;

	for (i = 0; i < ds->nblocks; i++) {
		ck_assert_int_eq(extkit_fs_read_block(ds->fs, ds->pblks[i], x),
				 0);
		ck_assert_int_eq(extkit_dirspace_block_room(&ds->fmt, x, &room),
				 0);
		ck_assert_uint_eq(extkit_dirspace_room(ds, i), room);
	}
	free(x);
}

/* The live names of the directory are exactly the model's. */
static void check_names(struct extkit_fs *fs, const struct model *m)
{
	struct extkit_dir_iter it;
	struct extkit_dirent e;
	unsigned int seen = 0, i;
	int rc;

	ck_assert_int_eq(extkit_dir_iter_init(&it, fs, ROOT, 0), 0);
	while ((rc = extkit_dir_iter_next(&it, &e)) > 0) {
		if (e.kind != EXTKIT_DE_LIVE || (e.lblk == 0 && e.offset < 24))
			continue;
		for (i = 0; i < m->n; i++)
			if (strlen(m->names[i]) == e.name_len &&
			    !memcmp(m->names[i], e.name, e.name_len))
				break;
		ck_assert_uint_lt(i, m->n);
		ck_assert_uint_eq(e.inode, m->ino[i]);
		seen++;
	}
	ck_assert_int_eq(rc, 0);
	extkit_dir_iter_end(&it);
	ck_assert_uint_eq(seen, m->n);
}

static void model_step(struct model *m, struct extkit_dirspace *a,
		       struct extkit_dirspace *b, unsigned int step)
{
	unsigned int k, len;
	char name[48];

	if (m->n > 0 && (m->n >= MODEL_MAX || rand() % 100 < 45)) {
		k = (unsigned int)rand() % m->n;
		len = (unsigned int)strlen(m->names[k]);
		ck_assert_int_eq(extkit_dir_remove(a, m->names[k], len, NULL),
				 0);
		ck_assert_int_eq(extkit_dir_remove(b, m->names[k], len, NULL),
				 0);
		m->n--;
		memcpy(m->names[k], m->names[m->n], sizeof(m->names[k]));
		m->ino[k] = m->ino[m->n];
		return;
	}
	make_name(name, step, 1 + (unsigned int)rand() % 40);
	add_name(a, name, 11 + step % 2000);
	add_name(b, name, 11 + step % 2000);
	memcpy(m->names[m->n], name, sizeof(name));
	m->ino[m->n++] = 11 + step % 2000;
}

static void run_model(uint32_t bs, unsigned int steps, unsigned int seed)
{
	static struct model m;
	struct extkit_dirspace a, b;
	struct extkit_io *ioa, *iob;
	struct extkit_fs *fa = open_image(bs, 8192, &ioa);
	struct extkit_fs *fb = open_image(bs, 8192, &iob);
	unsigned int i;

	srand(seed);
	m.n = 0;
	ck_assert_int_eq(extkit_dirspace_build(&a, fa, ROOT, 0), 0);
	ck_assert_int_eq(extkit_dirspace_build(&b, fb, ROOT,
					       EXTKIT_DIRSPACE_WALK), 0);
	for (i = 0; i < steps; i++) {
		model_step(&m, &a, &b, i);
		if (i % 97 == 0) {
			check_rooms(&a);
			compare_dirs(&a, &b);
		}
	}
	check_rooms(&a);
	compare_dirs(&a, &b);
	check_names(fa, &m);
	/* the hints read one block per operation; the walk reads more */
	ck_assert_uint_le(a.visits, steps);
	ck_assert_uint_gt(b.visits, a.visits);
	ck_assert_int_eq(extkit_dirspace_refresh(&a), 0);
	ck_assert_uint_eq(a.st.entries, m.n + 2);
	extkit_dirspace_free(&a);
	extkit_dirspace_free(&b);
	close_image(fa, ioa);
	close_image(fb, iob);
}

START_TEST(test_model_1k)
{
	run_model(1024, 4000, 1);
}
END_TEST

START_TEST(test_model_4k)
{
	run_model(4096, 4000, 7);
}
END_TEST

/* The figures a scan gives agree with a map's refreshed ones. */
START_TEST(test_scan_matches_map)
{
	struct extkit_dirspace ds;
	struct extkit_dirspace_stats st;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(1024, 8192, &io);
	char name[64];
	unsigned int i;

	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT,
					       EXTKIT_DIRSPACE_HOLES), 0);
	for (i = 0; i < 300; i++) {
		make_name(name, i, 8 + i % 30);
		add_name(&ds, name, 11 + i);
	}
	for (i = 0; i < 300; i += 3) {
		make_name(name, i, 8 + i % 30);
		ck_assert_int_eq(extkit_dir_remove(&ds, name,
				 (uint32_t)strlen(name), NULL), 0);
	}
	ck_assert_int_eq(extkit_dirspace_refresh(&ds), 0);
	ck_assert_int_eq(extkit_dirspace_scan(fs, ROOT, &st), 0);
	ck_assert_mem_eq(&st, &ds.st, sizeof(st));
	ck_assert_uint_eq(ds.nholes, st.holes);
	ck_assert_uint_eq(st.entries, 202);
	ck_assert_uint_gt(st.reclaimable_blocks, 0);
	extkit_dirspace_free(&ds);
	close_image(fs, io);
}
END_TEST

Suite *dirspace_suite(void)
{
	Suite *s = suite_create("dirspace");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_buckets);
	tcase_add_test(tc, test_bucket_bounds_and_shares);
	tcase_add_test(tc, test_find_and_remove_at);
	tcase_add_test(tc, test_fresh_root);
	tcase_add_test(tc, test_add_remove_figures);
	tcase_add_test(tc, test_grow_indirect);
	tcase_add_test(tc, test_scan_matches_map);
	tcase_add_test(tc, test_model_1k);
	tcase_add_test(tc, test_model_4k);
	suite_add_tcase(s, tc);
	return s;
}
