// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the library's read path: open an image held in memory,
 * read every inode, walk every block map, the attributes in every inode
 * and its inline data, every attribute value (EA inodes, ACLs converted)
 * and symlink target as extract reads them, iterate every directory,
 * decode an indexed directory's root and the journal's first log blocks
 * as extkit-dump htree and logdump read them, and resolve a few paths. Whatever the bytes, the library must return an
 * error or succeed: no crash, no hang, no unbounded allocation.
 *
 * Built two ways: with -DEXTKIT_LIBFUZZER as a libFuzzer target
 * (LLVMFuzzerTestOneInput), and by default as a deterministic mutation
 * driver run by `make check`: fuzz_image SEED_IMAGE ITERATIONS SEED.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "bmap.h"
#include "dir.h"
#include "dxblock.h"
#include "fs.h"
#include "inode.h"
#include "inline.h"
#include "io.h"
#include "journal.h"
#include "journal_log.h"
#include "symlink.h"
#include "xattr.h"
#include "xattrlist.h"

/* Upper bound of inodes visited per image, so a lying count stays cheap. */
#define MAX_INODES	4096

static int count_block(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		       uint32_t count, int flags, void *arg)
{
	uint64_t *n = arg;

	(void)fs;
	(void)lblk;
	(void)pblk;
	(void)flags;
	*n += count;
	return 0;
}

static void walk_dir(struct extkit_fs *fs, uint32_t ino)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	uint64_t n = 0;

	if (extkit_dir_iter_open(fs, ino, EXTKIT_DIR_ITER_HOLES, &it))
		return;
	while (extkit_dir_iter_next(it, &ent) > 0 && n++ < 1000000)
		;
	extkit_dir_iter_close(it);
}

/* The attributes in the inode and its inline data, through the library. */
static void walk_xattrs(struct extkit_fs *fs, uint32_t ino)
{
	static uint8_t raw[EXT2_MAX_BLOCK_SIZE], data[EXT2_MAX_BLOCK_SIZE];
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	struct extkit_xattr x;
	uint32_t off, len, n = 0;

	if (fs->g.inode_size > sizeof(raw) ||
	    extkit_inode_read_raw(fs, ino, raw))
		return;
	extkit_xattr_format_init(fs, &fmt);
	if (extkit_xattr_ibody_region(raw, fs->g.inode_size, &r)) {
		(void)extkit_xattr_region_check(&fmt, &r);
		off = r.first;
		while (extkit_xattr_next(&r, &off, &x) == 1 && n++ < 1000)
			;
	}
	extkit_inline_read(fs, ino, data, sizeof(data), &len);
}

/* What extract asks of an attribute: an ACL in the system call form. */
static int touch_value(const struct extkit_xattr_value *v, void *arg)
{
	static uint8_t acl[2 * EXTKIT_XATTR_MAX_VALUE + 8];
	size_t len;

	(void)arg;
	if (v->name_index == 2 || v->name_index == 3)
		extkit_acl_to_xattr(v->value, v->size, acl, &len);
	return 0;
}

/* Every attribute with its value, and a symlink's target. */
static void walk_values(struct extkit_fs *fs, uint32_t ino,
			const struct extkit_inode *inode)
{
	static uint8_t raw[EXT2_MAX_BLOCK_SIZE];
	static char target[EXT2_MAX_BLOCK_SIZE + 1];
	size_t len;

	if (fs->g.inode_size > sizeof(raw) ||
	    extkit_inode_read_raw(fs, ino, raw))
		return;
	extkit_xattr_list(fs, raw, inode, touch_value, NULL);
	if (S_ISLNK(inode->mode))
		extkit_symlink_read(fs, ino, inode, target, sizeof(target),
				    &len);
}

/* Block 0 of an indexed directory, as extkit-dump htree reads it. */
static void walk_dx_root(struct extkit_fs *fs, uint32_t ino)
{
	struct extkit_dx_root_info ri;
	struct extkit_dx_index ix;
	struct extkit_dir_iter *it;
	uint8_t *b;
	uint64_t pblk;
	volatile uint64_t sum = 0;

	if (extkit_dir_iter_open(fs, ino, 0, &it))
		return;
	b = malloc(fs->g.block_size);
	pblk = extkit_dir_iter_nblocks(it) ? extkit_dir_iter_pblk(it, 0) : 0;
	if (b && pblk && !extkit_fs_read_block(fs, pblk, b) &&
	    !extkit_dx_root_decode(fs, b, &ri, &ix))
		for (uint32_t i = 0; i < ix.n; i++)
			sum += extkit_dx_entry_hash(&ix, i) +
			       extkit_dx_entry_block(&ix, i);
	free(b);
	extkit_dir_iter_close(it);
}

/* The journal's first log blocks and its fast-commit area's first, as
 * extkit-dump logdump reads them. */
static void walk_log_block(struct extkit_journal *j, const uint8_t *b)
{
	struct extkit_jlog_revokes rv;
	struct extkit_jlog_tags it;
	struct extkit_jlog_tag t;
	struct extkit_jlog_fc_tag ft;
	uint32_t type, seq, off = 0;
	uint64_t blk;

	if (extkit_jlog_header(b, &type, &seq)) {
		extkit_jlog_tags_init(&it, j, b);
		while (extkit_jlog_tags_next(&it, &t))
			;
		extkit_jlog_revokes_init(&rv, j, b);
		while (extkit_jlog_revokes_next(&rv, &blk))
			;
		extkit_jlog_tail_ok(j, b);
		extkit_jlog_commit_ok(j, b);
		return;
	}
	while (extkit_jlog_fc_next(j, b, &off, &ft) > 0)
		;
}

static void walk_journal(struct extkit_fs *fs)
{
	enum extkit_journal_problem problem;
	struct extkit_journal *j = NULL;
	const char *why;
	uint32_t first, last;
	uint8_t *b;

	if (!fs->sb.journal_inum ||
	    extkit_journal_load(fs, &j, &problem, &why) || !j)
		return;
	b = malloc(fs->g.block_size);
	if (b && j->blocksize == fs->g.block_size &&
	    !extkit_jlog_bounds(j, &first, &last)) {
		for (uint32_t i = first; i < last && i < first + 32; i++)
			if (!extkit_jlog_read(j, i, b))
				walk_log_block(j, b);
		if (last + 1 < j->nblocks && !extkit_jlog_read(j, last + 1, b))
			walk_log_block(j, b);
	}
	free(b);
	extkit_journal_free(j);
}

static void walk_inode(struct extkit_fs *fs, uint32_t ino)
{
	struct extkit_inode inode;
	uint64_t blocks = 0, pblk;

	if (extkit_inode_read(fs, ino, &inode))
		return;
	if (!inode.links_count && !inode.mode)
		return;
	extkit_block_walk(fs, &inode, count_block, &blocks);
	extkit_bmap(fs, &inode, 5000, &pblk);
	walk_xattrs(fs, ino);
	walk_values(fs, ino, &inode);
	if (extkit_inode_is_dir(&inode))
		walk_dir(fs, ino);
	if (extkit_inode_is_dir(&inode) && (inode.flags & EXT2_INDEX_FL))
		walk_dx_root(fs, ino);
}

static void exercise(uint8_t *data, size_t size)
{
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint32_t ino, limit;

	if (extkit_io_open_mem(data, size, 0, &io))
		return;
	if (extkit_fs_open_io(io, 0, 0, 0, &fs, NULL) == 0) {
		limit = fs->sb.inodes_count < MAX_INODES ?
			fs->sb.inodes_count : MAX_INODES;
		for (ino = 1; ino <= limit; ino++)
			walk_inode(fs, ino);
		extkit_path_resolve(fs, "/lost+found/../a/b/c", &ino);
		extkit_path_resolve(fs, "<12>/x", &ino);
		walk_journal(fs);
		extkit_fs_close(fs);
	}
	extkit_io_close(io);
}

#ifdef EXTKIT_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	exercise(copy, size);
	free(copy);
	return 0;
}
#else
static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, same run everywhere */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint8_t *load(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = (size_t)len;
	return buf;
}

/*
 * Mutates the copy: a few random bytes anywhere in the metadata-dense
 * start of the image, a few anywhere at all, sometimes a truncation.
 */
static size_t mutate(uint8_t *img, size_t size)
{
	size_t hot = size < 262144 ? size : 262144;
	int flips = 1 + (int)(rng() % 16);

	for (int i = 0; i < flips; i++) {
		size_t off = (rng() % 4) ? rng() % hot : rng() % size;

		img[off] = (rng() % 3) ? (uint8_t)rng() : img[off] ^ 0xff;
	}
	if (rng() % 20 == 0)
		return (size_t)(rng() % size);
	return size;
}

int main(int argc, char **argv)
{
	size_t size;
	uint8_t *orig, *img;
	long iterations;

	if (argc != 4) {
		fprintf(stderr, "usage: fuzz_image IMAGE ITERATIONS SEED\n");
		return 2;
	}
	orig = load(argv[1], &size);
	if (!orig || !size) {
		fprintf(stderr, "fuzz_image: cannot read %s\n", argv[1]);
		return 2;
	}
	iterations = atol(argv[2]);
	rng_state = strtoull(argv[3], NULL, 0) | 1;
	img = malloc(size);
	for (long i = 0; img && i < iterations; i++) {
		memcpy(img, orig, size);
		exercise(img, mutate(img, size));
	}
	printf("fuzz_image: %ld mutated images of %s survived\n", iterations,
	       argv[1]);
	free(img);
	free(orig);
	return 0;
}
#endif
