// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for dircompact.c on in-memory images: a thinned directory
 * with an indirect block and a hole is packed into fewer blocks, keeps
 * every name, has no hole left and gives every other block back; a
 * directory whose new index needs a block the full filesystem does not
 * have is refused with the image byte for byte as it was.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bmap.h"
#include "diradd.h"
#include "dircompact.h"
#include "dirspace.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"
#include "suites.h"

#define ROOT	EXT2_ROOT_INO
#define NAMES	1000

static struct extkit_fs *open_image(uint32_t compat, struct extkit_io **io)
{
	struct test_image_opts o;

	test_image_defaults(&o);
	o.inodes_per_group = 2048;
	o.compat |= compat;
	*io = test_image_make(&o);
	return test_image_open(*io);
}

static void close_image(struct extkit_fs *fs, struct extkit_io *io)
{
	int owns = fs->owns_io;

	extkit_fs_close(fs);
	if (!owns)
		extkit_io_close(io);
}

static void name_of(char *buf, unsigned int i)
{
	snprintf(buf, 64, "entry-%04u-with-a-longer-name", i);
}

/* Adds names [0, n) to the root directory; thin: then removes three
 * names of four. */
static void fill_root(struct extkit_fs *fs, unsigned int n, int thin)
{
	struct extkit_dirspace ds;
	char name[64];
	unsigned int i;

	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT, 0), 0);
	for (i = 0; i < n; i++) {
		name_of(name, i);
		ck_assert_int_eq(extkit_dir_add(&ds, name,
						(uint32_t)strlen(name),
						11 + i % 1000,
						EXT2_FT_REG_FILE, NULL), 0);
	}
	for (i = 0; i < n; i++) {
		name_of(name, i);
		if (thin && i % 4)
			ck_assert_int_eq(extkit_dir_remove(&ds, name, (uint32_t)
							   strlen(name), NULL),
					 0);
	}
	extkit_dirspace_free(&ds);
}

START_TEST(test_compact_with_hole)
{
	struct extkit_compact_result res;
	struct extkit_inode inode;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(0, &io);
	uint64_t free0 = fs->sb.free_blocks_count, pblk, i, hole;
	char name[64];
	uint32_t ino;

	fill_root(fs, NAMES, 1);
	/* Punch block 3 (its names are lost with it, as the kernel would
	 * see them). */
	ck_assert_int_eq(extkit_inode_read(fs, ROOT, &inode), 0);
	ck_assert_uint_ne(inode.block[EXT2_IND_BLOCK], 0);
	hole = inode.block[3];
	ck_assert_int_eq(extkit_free_blocks(fs, hole, 1), 0);
	inode.block[3] = 0;
	extkit_inode_set_fs_blocks(fs, &inode,
				   extkit_inode_blocks_bytes(fs, &inode) /
				   1024 - 1);
	ck_assert_int_eq(extkit_inode_write(fs, ROOT, &inode), 0);
	ck_assert_int_eq(extkit_alloc_commit(fs), 0);

	ck_assert_int_eq(extkit_dir_compact(fs, ROOT, &res), 0);
	ck_assert_int_eq(res.written, 1);
	ck_assert_uint_lt(res.blocks_after, res.blocks_before);
	ck_assert_int_eq(extkit_inode_read(fs, ROOT, &inode), 0);
	ck_assert_uint_eq(inode.size, res.blocks_after * 1024);
	for (i = 0; i < res.blocks_after; i++) {
		ck_assert_int_eq(extkit_bmap(fs, &inode, i, &pblk), 0);
		ck_assert_uint_ne(pblk, 0);
	}
	/* Under 12 blocks: no indirect block left, nothing else held. */
	ck_assert_uint_le(res.blocks_after, 12);
	ck_assert_uint_eq(inode.block[EXT2_IND_BLOCK], 0);
	ck_assert_uint_eq(extkit_inode_blocks_bytes(fs, &inode),
			  res.blocks_after * 1024);
	ck_assert_uint_eq(free0 - fs->sb.free_blocks_count,
			  res.blocks_after - 1);	/* root had 1 block */
	for (i = 0; i < NAMES; i += 4) {
		name_of(name, (unsigned int)i);
		if (extkit_dir_lookup(fs, ROOT, name, (uint32_t)strlen(name),
				      &ino) == 0)
			ck_assert_uint_eq(ino, 11 + i % 1000);
	}
	close_image(fs, io);
}
END_TEST

START_TEST(test_compact_refused_when_full)
{
	struct extkit_compact_result res;
	struct extkit_io *io;
	struct extkit_fs *fs = open_image(EXT2_FEATURE_COMPAT_DIR_INDEX, &io);
	size_t size = (size_t)fs->sb.blocks_count * 1024;
	uint8_t *before = malloc(size);
	uint64_t blk;

	ck_assert_ptr_nonnull(before);
	/* 100 records of 40 bytes fill 4 blocks (the first with '.' and
	 * '..'): an index needs a root block besides its 4 leaves. Then
	 * no free block is left. */
	fill_root(fs, 100, 0);
	while (extkit_alloc_block(fs, 0, &blk) == 0)
		;
	ck_assert_int_eq(extkit_alloc_commit(fs), 0);
	ck_assert_uint_eq(fs->sb.free_blocks_count, 0);
	memcpy(before, extkit_io_mem_buffer(io), size);

	ck_assert_int_eq(extkit_dir_compact_check(fs, ROOT, &res), -ENOSPC);
	ck_assert_int_eq(extkit_dir_compact(fs, ROOT, &res), -ENOSPC);
	ck_assert_int_eq(res.written, 0);
	ck_assert_int_eq(memcmp(before, extkit_io_mem_buffer(io), size), 0);
	free(before);
	close_image(fs, io);
}
END_TEST

/* Worth compacting: a block to win back and enough of the bytes free;
 * never a directory with damage. */
START_TEST(test_compact_wanted)
{
	struct extkit_dirspace_stats st;

	memset(&st, 0, sizeof(st));
	st.live_bytes = 600;
	st.free_bytes = 400;		/* 40 % free */
	ck_assert_int_eq(extkit_dir_compact_wanted(&st, 0), 0);
	st.reclaimable_blocks = 1;
	ck_assert_int_eq(extkit_dir_compact_wanted(&st, 0), 1);
	ck_assert_int_eq(extkit_dir_compact_wanted(&st, 40), 1);
	ck_assert_int_eq(extkit_dir_compact_wanted(&st, 41), 0);
	st.corrupt = 1;
	ck_assert_int_eq(extkit_dir_compact_wanted(&st, 0), 0);
}
END_TEST

Suite *dircompact_suite(void)
{
	Suite *s = suite_create("dircompact");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_compact_with_hole);
	tcase_add_test(tc, test_compact_refused_when_full);
	tcase_add_test(tc, test_compact_wanted);
	suite_add_tcase(s, tc);
	return s;
}
