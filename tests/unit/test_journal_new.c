// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for journal_new.c: mke2fs's default sizes; a new journal
 * on an in-memory image maps one run of blocks (indirect blocks in walk
 * order for a block map, one extent for the extent feature), its jbd2
 * superblock, the superblock fields, and refusals that write nothing;
 * alloc.c's search by runs finds the blocks its search by block does.
 * With EXTKIT_TEST_JOURNAL_IMAGE=PATH a last test adds a journal to that
 * image file (EXTKIT_TEST_JOURNAL_CSUM=1 for csum v3), for
 * tests/mkfs/journal_new.sh to check with e2fsck and dumpe2fs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bmap.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "jbd2_ondisk.h"
#include "journal_new.h"
#include "ondisk.h"
#include "suites.h"

struct seen {
	uint64_t next;		/* expected next physical block */
	uint64_t data, meta;
	int gaps;
};

/* Every block, data or tree, must follow the previous one. */
static int seen_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		   uint32_t count, int flags, void *arg)
{
	struct seen *s = arg;

	(void)fs;
	(void)lblk;
	if (s->next && pblk != s->next)
		s->gaps++;
	s->next = pblk + count;
	if (flags & EXTKIT_BLOCK_META)
		s->meta += count;
	else
		s->data += count;
	return 0;
}

START_TEST(test_default_sizes)
{
	ck_assert_uint_eq(extkit_journal_default_blocks(2047, 1024), 0);
	ck_assert_uint_eq(extkit_journal_default_blocks(2048, 1024), 1024);
	ck_assert_uint_eq(extkit_journal_default_blocks(32768, 4096), 4096);
	ck_assert_uint_eq(extkit_journal_default_blocks(524288, 4096), 16384);
	ck_assert_uint_eq(extkit_journal_default_blocks(1ULL << 24, 4096),
			  131072);
	ck_assert_uint_eq(extkit_journal_default_blocks(1ULL << 32, 4096),
			  262144);
}
END_TEST

static struct extkit_fs *make_fs(uint32_t incompat)
{
	struct test_image_opts o;
	struct extkit_fs *fs;

	test_image_defaults(&o);
	o.incompat |= incompat;
	fs = test_image_open(test_image_make(&o));
	return fs;
}

static void check_journal(struct extkit_fs *fs, uint32_t n, uint64_t meta)
{
	struct extkit_inode in;
	struct seen s = { 0 };
	uint8_t *blk = malloc(fs->g.block_size);
	uint64_t first;

	ck_assert_ptr_nonnull(blk);
	ck_assert_uint_eq(fs->sb.journal_inum, EXT2_JOURNAL_INO);
	ck_assert(fs->sb.feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL);
	ck_assert_int_eq(extkit_inode_read(fs, EXT2_JOURNAL_INO, &in), 0);
	ck_assert_uint_eq(in.size, (uint64_t)n * fs->g.block_size);
	ck_assert_int_eq(extkit_block_walk(fs, &in, seen_fn, &s), 0);
	ck_assert_uint_eq(s.data, n);
	ck_assert_uint_eq(s.meta, meta);
	ck_assert_int_eq(s.gaps, 0);
	ck_assert_int_eq(extkit_bmap(fs, &in, 0, &first), 0);
	ck_assert_int_eq(extkit_fs_read_block(fs, first, blk), 0);
	ck_assert_uint_eq(get_be32(blk), JBD2_MAGIC_NUMBER);
	ck_assert_uint_eq(get_be32(blk + 4), JBD2_SUPERBLOCK_V2);
	ck_assert_uint_eq(get_be32(blk + 0x10), n);	/* s_maxlen */
	ck_assert_uint_eq(get_be32(blk + 0x14), 1);	/* s_first */
	ck_assert_mem_eq(blk + 0x30, fs->sb.uuid, 16);
	free(blk);
}

/* Closes fs and the in-memory image under it. */
static void close_fs(struct extkit_fs *fs)
{
	struct extkit_io *io = fs->io;
	int owns = fs->owns_io;

	extkit_fs_close(fs);
	if (!owns)
		extkit_io_close(io);
}

/* Reads the image back through a new handle. */
static void reopen(struct extkit_fs **fs)
{
	struct extkit_io *io = (*fs)->io;

	(*fs)->owns_io = 0;
	extkit_fs_close(*fs);
	*fs = test_image_open(io);
}

/* 1 KiB blocks, a block map: 12 direct, an indirect block, a double
 * indirect one and 3 indirect blocks under it, all in one run. */
START_TEST(test_block_map)
{
	struct extkit_fs *fs = make_fs(0);
	struct extkit_journal_params p = { .blocks = 1024, .now = 1 };
	uint64_t free0 = fs->sb.free_blocks_count;

	ck_assert_int_eq(extkit_journal_create(fs, &p), 0);
	ck_assert_uint_eq(fs->sb.free_blocks_count, free0 - 1024 - 5);
	reopen(&fs);
	check_journal(fs, 1024, 5);
	ck_assert_uint_eq(fs->sb.free_blocks_count, free0 - 1024 - 5);
	close_fs(fs);
}
END_TEST

START_TEST(test_extents)
{
	struct extkit_fs *fs = make_fs(EXT4_FEATURE_INCOMPAT_EXTENTS);
	struct extkit_journal_params p = { .blocks = 2000, .now = 1 };

	ck_assert_int_eq(extkit_journal_create(fs, &p), 0);
	reopen(&fs);
	check_journal(fs, 2000, 0);
	close_fs(fs);
}
END_TEST

/* Refusals leave every byte as it was. */
START_TEST(test_refusals)
{
	struct extkit_fs *fs = make_fs(0);
	struct extkit_journal_params p = { .blocks = 1000, .now = 1 };
	size_t size = (size_t)fs->io->size;
	uint8_t *before = malloc(size);

	ck_assert_ptr_nonnull(before);
	memcpy(before, extkit_io_mem_buffer(fs->io), size);
	ck_assert_int_eq(extkit_journal_create(fs, &p), -EINVAL);
	p.blocks = 9000;
	ck_assert_int_eq(extkit_journal_create(fs, &p), -ENOSPC);
	ck_assert_mem_eq(extkit_io_mem_buffer(fs->io), before, size);
	p.blocks = 1024;
	ck_assert_int_eq(extkit_journal_create(fs, &p), 0);
	ck_assert_int_eq(extkit_journal_create(fs, &p), -EEXIST);
	free(before);
	close_fs(fs);
}
END_TEST

/* Free blocks found as runs are the ones found block by block, in the
 * same order, runs maximal; passing over skip runs; -ENOSPC gives none. */
START_TEST(test_find_runs)
{
	struct extkit_fs *fs = make_fs(EXT4_FEATURE_INCOMPAT_EXTENTS);
	const struct extkit_blk_run skip[] = { { 3000, 10 }, { 3500, 1 } };
	uint64_t want = 3000, goal = 2900, k = 0, i;
	uint64_t *blks = malloc(want * sizeof(*blks));
	struct extkit_blk_run *runs;
	size_t nruns;

	ck_assert_ptr_nonnull(blks);
	/* holes in the free space: blocks 2950, 3100 .. 3104, 3300 */
	ck_assert_int_eq(extkit_alloc_mark(fs, 2950, 1), 0);
	ck_assert_int_eq(extkit_alloc_mark(fs, 3100, 5), 0);
	ck_assert_int_eq(extkit_alloc_mark(fs, 3300, 1), 0);
	ck_assert_int_eq(extkit_alloc_find_skip(fs, goal, skip, 2, want,
						blks), 0);
	ck_assert_int_eq(extkit_alloc_find_runs(fs, goal, skip, 2, want,
						&runs, &nruns), 0);
	ck_assert_uint_ge(nruns, 6);
	for (size_t r = 0; r < nruns; r++) {
		if (r)
			ck_assert_uint_ne(runs[r - 1].start + runs[r - 1].len,
					  runs[r].start);
		for (i = 0; i < runs[r].len; i++, k++) {
			ck_assert_uint_lt(k, want);
			ck_assert_uint_eq(runs[r].start + i, blks[k]);
		}
	}
	ck_assert_uint_eq(k, want);
	free(runs);
	ck_assert_int_eq(extkit_alloc_find_runs(fs, goal, NULL, 0,
						fs->sb.free_blocks_count + 1,
						&runs, &nruns), -ENOSPC);
	ck_assert_ptr_null(runs);
	ck_assert_uint_eq(nruns, 0);
	free(blks);
	close_fs(fs);
}
END_TEST

/* The image named by EXTKIT_TEST_JOURNAL_IMAGE gets a default journal. */
START_TEST(test_image_file)
{
	const char *path = getenv("EXTKIT_TEST_JOURNAL_IMAGE");
	const char *csum = getenv("EXTKIT_TEST_JOURNAL_CSUM");
	struct extkit_journal_params p = { 0 };
	struct extkit_fs *fs;

	if (!path)
		return;
	ck_assert_int_eq(extkit_fs_open(path, EXTKIT_FS_WRITE, &fs, NULL), 0);
	p.blocks = extkit_journal_default_blocks(fs->sb.blocks_count,
						 fs->g.block_size);
	p.csum = csum && !strcmp(csum, "1");
	ck_assert_int_eq(extkit_journal_create(fs, &p), 0);
	extkit_fs_close(fs);
}
END_TEST

Suite *journal_new_suite(void)
{
	Suite *s = suite_create("journal_new");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_default_sizes);
	tcase_add_test(tc, test_block_map);
	tcase_add_test(tc, test_extents);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_find_runs);
	tcase_add_test(tc, test_image_file);
	suite_add_tcase(s, tc);
	return s;
}
