// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for dxadd.c called directly, on a root directory that
 * extkit_dir_compact indexed (1 KiB blocks):
 * - a name goes into the leaf the index names for its hash, left in
 *   ds->buf at the offset returned and not written (the caller writes);
 * - names added until the root is full: leaves split, then the root gets
 *   a level of nodes below it; the index stays sound (every name in the
 *   leaf its hash says, counts and limits right), every name is found,
 *   and under metadata_csum every block's checksum (leaf tail, dx tail)
 *   verifies;
 * - shapes it does not handle (an encrypted directory; a root whose info
 *   length, hash version or depth does not parse) answer -EAGAIN and
 *   write nothing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "dir.h"
#include "diradd.h"
#include "dirblock.h"
#include "dircompact.h"
#include "direntry.h"
#include "dirspace.h"
#include "dxadd.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "htree.h"
#include "image.h"
#include "inode.h"
#include "ondisk.h"
#include "suites.h"

#define BS	1024u
#define ROOT	EXT2_ROOT_INO
#define FIRST	200u	/* names before the index is built */
#define INFO	offsetof(struct dx_root, info)
#define NAME_BUF	256

struct dxt {
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_dirspace ds;
	int have_ds;
};

/* Long names (6 to a 1 KiB leaf): the root fills in a few hundred. */
static void name_of(char *buf, unsigned int n)
{
	snprintf(buf, NAME_BUF, "entry_%05u_%u_%0140u", n, n * 7919u % 100000u,
		 n);
}

static uint32_t ino_of(unsigned int n)
{
	return 20 + n % 1000;
}

static void dxt_open(struct dxt *t, int csum)
{
	struct extkit_compact_result res;
	struct test_image_opts o;
	char name[NAME_BUF];

	memset(t, 0, sizeof(*t));
	test_image_defaults(&o);
	o.inodes_per_group = 2048;
	o.compat |= EXT2_FEATURE_COMPAT_DIR_INDEX;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	if (csum) {	/* and the root's block with its tail */
		struct extkit_inode in;
		uint8_t buf[BS];

		t->fs->sb.feature_ro_compat |=
			EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
		ck_assert_int_eq(extkit_inode_read(t->fs, ROOT, &in), 0);
		extkit_dirblock_new(t->fs, buf, ROOT, ROOT, 0);
		ck_assert_int_eq(extkit_dirblock_write(t->fs, ROOT,
						       in.generation,
						       in.block[0], buf), 0);
	}
	ck_assert_int_eq(extkit_dirspace_build(&t->ds, t->fs, ROOT, 0), 0);
	for (unsigned int i = 0; i < FIRST; i++) {
		name_of(name, i);
		ck_assert_int_eq(extkit_dir_add(&t->ds, name,
						(uint32_t)strlen(name),
						ino_of(i), EXT2_FT_REG_FILE,
						NULL), 0);
	}
	extkit_dirspace_free(&t->ds);
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(extkit_dir_compact(t->fs, ROOT, &res), 0);
	ck_assert_int_eq(res.indexed, 1);
}

static struct extkit_dirspace *ds_of(struct dxt *t)
{
	if (!t->have_ds) {
		ck_assert_int_eq(extkit_dirspace_build(&t->ds, t->fs, ROOT, 0),
				 0);
		ck_assert(t->ds.st.indexed);
		t->have_ds = 1;
	}
	return &t->ds;
}

static void dxt_close(struct dxt *t)
{
	if (t->have_ds)
		extkit_dirspace_free(&t->ds);
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

/* dx_add, the record checked in ds->buf, then written as diradd.c
 * does (the leaf, its room). */
static void add(struct dxt *t, unsigned int n)
{
	struct extkit_dirspace *ds = ds_of(t);
	const struct ext2_dir_entry_2 *de;
	uint64_t lblk = 0;
	uint32_t room;
	char name[NAME_BUF];
	int off = -1;

	name_of(name, n);
	ck_assert_int_eq(extkit_dx_add(ds, name, (uint32_t)strlen(name),
				       ino_of(n), EXT2_FT_REG_FILE, &lblk,
				       &off), 0);
	ck_assert_int_ge(off, 0);
	de = (const struct ext2_dir_entry_2 *)(ds->buf + off);
	ck_assert_uint_eq(le32(de->inode), ino_of(n));
	ck_assert_uint_eq(extkit_dirent_name_len(&ds->fmt, de), strlen(name));
	ck_assert(!memcmp(de->name, name, strlen(name)));
	ck_assert_int_eq(extkit_dirspace_block_room(&ds->fmt, ds->buf, &room),
			 0);
	ck_assert_int_eq(extkit_dirblock_write(t->fs, ROOT, ds->gen,
					       ds->pblks[lblk], ds->buf), 0);
	ck_assert_int_eq(extkit_dirspace_set_room(ds, lblk, ds->pblks[lblk],
						  room), 0);
}

static void check_index(struct dxt *t, uint64_t entries,
			struct extkit_htree_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	ck_assert_int_eq(extkit_htree_verify(t->fs, ROOT, rep), 0);
	ck_assert_uint_eq(rep->bad_hash, 0);
	ck_assert_uint_eq(rep->bad_index, 0);
	ck_assert_uint_eq(rep->bad_node, 0);
	ck_assert_uint_eq(rep->entries, entries);
}

static void check_found(struct dxt *t, unsigned int n)
{
	char name[NAME_BUF];
	uint32_t ino = 0;

	name_of(name, n);
	ck_assert_msg(extkit_dir_lookup(t->fs, ROOT, name,
					(uint32_t)strlen(name), &ino) == 0,
		      "%s not found", name);
	ck_assert_uint_eq(ino, ino_of(n));
}

START_TEST(test_place_not_written)
{
	struct extkit_htree_report rep;
	uint8_t disk[BS];
	uint64_t lblk = 0;
	char name[NAME_BUF];
	uint32_t ino;
	struct dxt t;
	int off = -1;

	dxt_open(&t, 0);
	name_of(name, FIRST);
	ck_assert_int_eq(extkit_dx_add(ds_of(&t), name,
				       (uint32_t)strlen(name), 77,
				       EXT2_FT_REG_FILE, &lblk, &off), 0);
	ck_assert_uint_gt(lblk, 0);	/* a leaf, not the root */
	ck_assert_int_ge(off, 0);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, t.ds.pblks[lblk], disk),
			 0);
	ck_assert(memcmp(disk, t.ds.buf, BS));
	ck_assert_int_eq(extkit_dir_lookup(t.fs, ROOT, name,
					   (uint32_t)strlen(name), &ino),
			 -ENOENT);
	ck_assert_int_eq(extkit_dirblock_write(t.fs, ROOT, t.ds.gen,
					       t.ds.pblks[lblk], t.ds.buf), 0);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, ROOT, name,
					   (uint32_t)strlen(name), &ino), 0);
	ck_assert_uint_eq(ino, 77);
	check_index(&t, FIRST + 1, &rep);	/* in the leaf its hash says */
	dxt_close(&t);
}
END_TEST

static uint8_t root_levels(struct dxt *t)
{
	uint8_t buf[BS];
	struct extkit_inode in;
	uint64_t pblk;

	ck_assert_int_eq(extkit_inode_read(t->fs, ROOT, &in), 0);
	ck_assert_int_eq(extkit_bmap(t->fs, &in, 0, &pblk), 0);
	ck_assert_int_eq(extkit_fs_read_block(t->fs, pblk, buf), 0);
	return ((const struct dx_root *)buf)->info.indirect_levels;
}

/* Every block of the root carries a checksum that verifies. */
static void check_csums(struct dxt *t)
{
	struct extkit_inode in;
	uint8_t buf[BS];
	uint64_t pblk;

	ck_assert_int_eq(extkit_inode_read(t->fs, ROOT, &in), 0);
	for (uint64_t l = 0; l < in.size / BS; l++) {
		ck_assert_int_eq(extkit_bmap(t->fs, &in, l, &pblk), 0);
		ck_assert_int_eq(extkit_fs_read_block(t->fs, pblk, buf), 0);
		ck_assert_msg(extkit_dirblock_csum_verify(t->fs, ROOT,
							  in.generation,
							  buf) == 1,
			      "block %llu", (unsigned long long)l);
	}
}

/* Names until the root is full and gets a level of nodes below it. */
START_TEST(test_grow_a_level)
{
	struct extkit_htree_report rep;
	unsigned int n = FIRST;
	uint64_t leaves;
	struct dxt t;

	dxt_open(&t, 1);
	check_index(&t, FIRST, &rep);
	leaves = rep.leaves;
	ck_assert_uint_eq(rep.nodes, 0);
	ck_assert_uint_eq(root_levels(&t), 0);
	while (root_levels(&t) == 0 && n < 8000)
		add(&t, n++);
	ck_assert_uint_eq(root_levels(&t), 1);
	check_index(&t, n, &rep);
	check_csums(&t);
	ck_assert_uint_eq(rep.levels, 1);
	ck_assert_uint_gt(rep.leaves, leaves);
	ck_assert_uint_eq(rep.nodes, 1);	/* the root's entries moved there */
	for (unsigned int k = 0; k < 200; k++)	/* and it keeps going */
		add(&t, n++);
	check_index(&t, n, &rep);
	check_csums(&t);
	for (unsigned int i = 0; i < n; i++)
		check_found(&t, i);
	dxt_close(&t);
}
END_TEST

/* Overwrites one byte of the root block on disk. */
static void poke_root(struct dxt *t, size_t off, uint8_t v)
{
	struct extkit_inode in;
	uint8_t buf[BS];
	uint64_t pblk;

	ck_assert_int_eq(extkit_inode_read(t->fs, ROOT, &in), 0);
	ck_assert_int_eq(extkit_bmap(t->fs, &in, 0, &pblk), 0);
	ck_assert_int_eq(extkit_fs_read_block(t->fs, pblk, buf), 0);
	buf[off] = v;
	ck_assert_int_eq(extkit_fs_write_block(t->fs, pblk, buf), 0);
}

START_TEST(test_eagain_writes_nothing)
{
	struct extkit_inode in;
	uint64_t lblk = 99;
	uint8_t *before;
	char name[NAME_BUF];
	struct dxt t;
	int off = 99;

	dxt_open(&t, 0);
	ds_of(&t);
	switch (_i) {
	case 0:
		ck_assert_int_eq(extkit_inode_read(t.fs, ROOT, &in), 0);
		in.flags |= EXT4_ENCRYPT_FL;
		ck_assert_int_eq(extkit_inode_write(t.fs, ROOT, &in), 0);
		break;
	case 1:
		poke_root(&t, INFO + offsetof(struct dx_root_info,
					      info_length), 7);
		break;
	case 2:
		poke_root(&t, INFO + offsetof(struct dx_root_info,
					      hash_version), 9);
		break;
	case 3:
		poke_root(&t, INFO + offsetof(struct dx_root_info,
					      indirect_levels), 3);
		break;
	}
	before = malloc(t.io->size);
	ck_assert_ptr_nonnull(before);
	memcpy(before, extkit_io_mem_buffer(t.io), t.io->size);
	name_of(name, FIRST);
	ck_assert_int_eq(extkit_dx_add(&t.ds, name, (uint32_t)strlen(name), 77,
				       EXT2_FT_REG_FILE, &lblk, &off),
			 -EAGAIN);
	ck_assert(!memcmp(extkit_io_mem_buffer(t.io), before, t.io->size));
	free(before);
	dxt_close(&t);
}
END_TEST

Suite *dxadd_suite(void)
{
	Suite *s = suite_create("dxadd");
	TCase *tc = tcase_create("dxadd");

	tcase_add_test(tc, test_place_not_written);
	tcase_add_test(tc, test_grow_a_level);
	tcase_add_loop_test(tc, test_eagain_writes_nothing, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
