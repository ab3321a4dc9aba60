/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Builds small, valid ext2 images in memory (io_mem) for unit tests:
 * one or more groups, bitmaps, inode table, a root directory with '.'
 * and '..' in one block. Tests then add inodes and blocks with the
 * raw helpers below.
 */
#ifndef EXTKIT_TEST_IMAGE_H
#define EXTKIT_TEST_IMAGE_H

#include <stdint.h>

#include "fs.h"
#include "io.h"

struct test_image_opts {
	uint32_t block_size;	/* 1024 .. 65536 */
	uint32_t blocks;	/* total blocks */
	uint32_t inodes_per_group;
	uint32_t blocks_per_group;	/* 0: 8 * block_size */
	uint32_t inode_size;	/* 128 .. block_size */
	uint32_t incompat;	/* extra incompat bits (e.g. FILETYPE) */
	uint32_t ro_compat;
	uint32_t compat;
	uint32_t desc_size;	/* 0: 32; 64 sets the 64bit feature */
};

/* Default options: 1 KiB blocks, 8192 blocks, 256 inodes, filetype. */
void test_image_defaults(struct test_image_opts *o);
/* Returns an owned in-memory io holding the new image. */
struct extkit_io *test_image_make(const struct test_image_opts *o);
/* Opens it (aborts the test on failure). */
struct extkit_fs *test_image_open(struct extkit_io *io);

/* First block after the metadata of group 0: free for test data. */
uint64_t test_image_first_free_block(const struct extkit_fs *fs);

#endif /* EXTKIT_TEST_IMAGE_H */
