// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for xattrlist.c: every attribute of an inode with its value,
 * those in the inode first, then those of its EA block, with the prefix
 * of their index; a walk stopped by the callback; an EA block that is
 * not valid skipped whole (the in-inode ones still listed) and reported.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"
#include "suites.h"
#include "xattrbuild.h"
#include "xattrlist.h"

#define INO	12u
#define ISIZE	256u
#define BS	1024u
#define EA_BLK	6000u

struct seen {
	char names[8][40];
	uint32_t sizes[8];
	int n, stop_at;
};

static int collect(const struct extkit_xattr_value *v, void *arg)
{
	struct seen *s = arg;

	ck_assert_int_lt(s->n, 8);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s%.*s",
		 v->prefix ? v->prefix : "?", (int)v->name_len, v->name);
	s->sizes[s->n] = v->size;
	s->n++;
	return s->n == s->stop_at ? 42 : 0;
}

/* user.small in the inode; user.big (600 bytes) in the block. */
static void make_inode(struct extkit_fs *fs, struct extkit_io *io,
		       uint8_t *raw, struct extkit_inode *in)
{
	static uint8_t big[600];
	struct extkit_xattr_item it[2] = {
		{ 1, 5, "small", "v", 1 },
		{ 1, 3, "big", big, sizeof(big) },
	};
	uint8_t block[BS];
	int use_block = 0;

	memset(big, 'b', sizeof(big));
	memset(in, 0, sizeof(*in));
	memset(raw, 0, ISIZE);
	in->mode = S_IFREG | 0644;
	in->links_count = 1;
	in->extra_isize = 32;
	in->file_acl = EA_BLK;
	in->blocks = BS / 512;
	extkit_inode_encode(in, ISIZE, raw);
	ck_assert_int_eq(extkit_xattr_build(fs, it, 2, raw, block,
					    &use_block), 0);
	ck_assert_int_eq(use_block, 1);
	ck_assert_int_eq(extkit_io_write_blocks(io, EA_BLK, 1, block), 0);
}

static struct extkit_fs *open_fs(struct extkit_io **io)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.inode_size = ISIZE;
	o.compat |= EXT2_FEATURE_COMPAT_EXT_ATTR;
	*io = test_image_make(&o);
	return test_image_open(*io);
}

START_TEST(test_list)
{
	struct extkit_inode in;
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io);
	struct seen s = { .stop_at = -1 };
	uint8_t raw[ISIZE];

	make_inode(fs, io, raw, &in);
	ck_assert_int_eq(extkit_xattr_list(fs, raw, &in, collect, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_str_eq(s.names[0], "user.small");
	ck_assert_uint_eq(s.sizes[0], 1);
	ck_assert_str_eq(s.names[1], "user.big");
	ck_assert_uint_eq(s.sizes[1], 600);
	/* the callback stops the walk with its value */
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	ck_assert_int_eq(extkit_xattr_list(fs, raw, &in, collect, &s), 42);
	ck_assert_int_eq(s.n, 1);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

START_TEST(test_bad_block_skipped)
{
	struct extkit_inode in;
	struct extkit_io *io;
	struct extkit_fs *fs = open_fs(&io);
	struct seen s = { .stop_at = -1 };
	uint8_t raw[ISIZE], block[BS];

	make_inode(fs, io, raw, &in);
	ck_assert_int_eq(extkit_io_read_blocks(io, EA_BLK, 1, block), 0);
	put_le32(block, 0x12345678);		/* h_magic */
	ck_assert_int_eq(extkit_io_write_blocks(io, EA_BLK, 1, block), 0);
	ck_assert_int_eq(extkit_xattr_list(fs, raw, &in, collect, &s),
			 -EFSCORRUPTED);
	ck_assert_int_eq(s.n, 1);
	ck_assert_str_eq(s.names[0], "user.small");
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

Suite *xattrlist_suite(void)
{
	Suite *s = suite_create("xattrlist");
	TCase *tc = tcase_create("xattrlist");

	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_bad_block_skipped);
	suite_add_tcase(s, tc);
	return s;
}
