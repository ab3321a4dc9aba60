// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for dirpath.c: lookup in one directory (-ENOENT, -ENOTDIR),
 * path resolution (absolute and root-relative paths, "<N>" as debugfs
 * takes it and "/<N>" as an ordinary name, "..", symlinks in the middle
 * followed relative to their directory or from the root, the last
 * component not followed, a loop ending in -ELOOP, an over-long path)
 * and a directory's path from the root, on a small tree built in memory.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diradd.h"
#include "dir.h"
#include "dirspace.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "io.h"
#include "suites.h"

#define BS	1024u
#define ROOT	EXT2_ROOT_INO

enum { A = 12, B, F, LNK, ABS, L1, L2, C, UP };

struct tree {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t next_blk;
};

static void link_in(struct tree *t, uint32_t dir, const char *name,
		    uint32_t ino, uint8_t ftype)
{
	struct extkit_dirspace ds;

	ck_assert_int_eq(extkit_dirspace_build(&ds, t->fs, dir, 0), 0);
	ck_assert_int_eq(extkit_dir_add(&ds, name, (uint32_t)strlen(name),
					ino, ftype, NULL), 0);
	extkit_dirspace_free(&ds);
}

static void mkdir_at(struct tree *t, uint32_t parent, const char *name,
		     uint32_t ino)
{
	struct extkit_dir_format fmt;
	struct extkit_inode in;
	uint8_t buf[BS] = { 0 };
	uint64_t blk = t->next_blk++;

	extkit_dir_format_init(t->fs, &fmt);
	ck_assert_int_eq(extkit_dirent_set(&fmt, buf, ino, 12, ".", 1,
					   EXT2_FT_DIR), 0);
	ck_assert_int_eq(extkit_dirent_set(&fmt, buf + 12, parent, BS - 12,
					   "..", 2, EXT2_FT_DIR), 0);
	ck_assert_int_eq(extkit_io_write_blocks(t->io, blk, 1, buf), 0);
	memset(&in, 0, sizeof(in));
	in.mode = S_IFDIR | 0755;
	in.links_count = 2;
	in.size = BS;
	in.blocks = BS / 512;
	in.block[0] = (uint32_t)blk;
	ck_assert_int_eq(extkit_inode_write(t->fs, ino, &in), 0);
	link_in(t, parent, name, ino, EXT2_FT_DIR);
}

static void mknode(struct tree *t, uint32_t dir, const char *name,
		   uint32_t ino, const char *target)
{
	struct extkit_inode in;
	uint8_t ib[60] = { 0 };

	memset(&in, 0, sizeof(in));
	in.links_count = 1;
	if (target) {
		in.mode = S_IFLNK | 0777;
		in.size = strlen(target);
		memcpy(ib, target, in.size);
		for (int i = 0; i < EXT2_N_BLOCKS; i++)
			in.block[i] = get_le32(ib + 4 * i);
	} else {
		in.mode = S_IFREG | 0644;
	}
	ck_assert_int_eq(extkit_inode_write(t->fs, ino, &in), 0);
	link_in(t, dir, name, ino, target ? EXT2_FT_SYMLINK :
				   EXT2_FT_REG_FILE);
}

/*
 * /a/b/c, /a/b/up -> /a, /f (a file), /lnk -> a, /abs -> /a/b,
 * /l1 -> l2/x, /l2 -> l1/x.
 */
static void tree_make(struct tree *t)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.blocks = 8192;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	t->next_blk = 7000;
	mkdir_at(t, ROOT, "a", A);
	mkdir_at(t, A, "b", B);
	mkdir_at(t, B, "c", C);
	mknode(t, ROOT, "f", F, NULL);
	mknode(t, ROOT, "lnk", LNK, "a");
	mknode(t, ROOT, "abs", ABS, "/a/b");
	mknode(t, ROOT, "l1", L1, "l2/x");
	mknode(t, ROOT, "l2", L2, "l1/x");
	mknode(t, B, "up", UP, "/a");
}

static void tree_free(struct tree *t)
{
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

static uint32_t resolve(struct tree *t, const char *path, int want_rc)
{
	uint32_t ino = 0;

	ck_assert_msg(extkit_path_resolve(t->fs, path, &ino) == want_rc,
		      "%s", path);
	return ino;
}

START_TEST(test_lookup)
{
	struct tree t;
	uint32_t ino;

	tree_make(&t);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, ROOT, "a", 1, &ino), 0);
	ck_assert_uint_eq(ino, A);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, A, "..", 2, &ino), 0);
	ck_assert_uint_eq(ino, ROOT);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, ROOT, "ab", 2, &ino),
			 -ENOENT);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, ROOT, "", 0, &ino), -EINVAL);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, F, "x", 1, &ino), -ENOTDIR);
	tree_free(&t);
}
END_TEST

START_TEST(test_resolve)
{
	struct tree t;

	tree_make(&t);
	ck_assert_uint_eq(resolve(&t, "/", 0), ROOT);
	ck_assert_uint_eq(resolve(&t, "/a/b/c", 0), C);
	ck_assert_uint_eq(resolve(&t, "a/b/c", 0), C);
	ck_assert_uint_eq(resolve(&t, "//a///b/", 0), B);
	ck_assert_uint_eq(resolve(&t, "/a/b/../b/c/..", 0), B);
	ck_assert_uint_eq(resolve(&t, "<13>", 0), B);
	ck_assert_uint_eq(resolve(&t, "<13>/c", 0), C);
	resolve(&t, "/<13>", -ENOENT);
	resolve(&t, "/a/x", -ENOENT);
	resolve(&t, "", -ENOENT);
	resolve(&t, "/f/x", -ENOTDIR);
	tree_free(&t);
}
END_TEST

START_TEST(test_symlinks)
{
	char *longp;
	struct tree t;

	tree_make(&t);
	ck_assert_uint_eq(resolve(&t, "/lnk/b/c", 0), C);
	ck_assert_uint_eq(resolve(&t, "/abs/c", 0), C);
	ck_assert_uint_eq(resolve(&t, "/a/b/up/b/c", 0), C);
	ck_assert_uint_eq(resolve(&t, "/lnk", 0), LNK);	/* not followed */
	ck_assert_uint_eq(resolve(&t, "/abs", 0), ABS);
	resolve(&t, "/l1/y", -ELOOP);
	longp = malloc(5000);
	ck_assert_ptr_nonnull(longp);
	memset(longp, 'a', 4999);
	longp[0] = '/';
	longp[4999] = 0;
	resolve(&t, longp, -ENAMETOOLONG);
	free(longp);
	tree_free(&t);
}
END_TEST

START_TEST(test_path_of)
{
	char buf[64];
	struct tree t;

	tree_make(&t);
	ck_assert_int_eq(extkit_dir_path_of(t.fs, C, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/a/b/c");
	ck_assert_int_eq(extkit_dir_path_of(t.fs, ROOT, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/");
	ck_assert_int_eq(extkit_dir_path_of(t.fs, C, buf, 4), -ENAMETOOLONG);
	tree_free(&t);
}
END_TEST

Suite *dirpath_suite(void)
{
	Suite *s = suite_create("dirpath");
	TCase *tc = tcase_create("dirpath");

	tcase_add_test(tc, test_lookup);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_symlinks);
	tcase_add_test(tc, test_path_of);
	suite_add_tcase(s, tc);
	return s;
}
