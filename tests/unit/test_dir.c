// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for direntry.c and dir.c: the rec_len codec against golden
 * bytes at 1, 4 and 64 KiB blocks, every validator reason, name_len
 * without the filetype feature, the iterator over live, deleted, tail,
 * hole, corrupt and htree blocks, write-back, lookup and path resolution
 * (debugfs "<N>" syntax, symlinks, loops). Images are built in memory
 * (image.c); directory blocks are written as raw bytes and inodes with
 * extkit_inode_write().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dir.h"
#include "dirblock.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inline.h"
#include "inode.h"
#include "suites.h"

#define DIR_INO		12
#define MAX_SEEN	32

struct tctx {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint32_t bs;
	uint64_t next;		/* next block free for test data */
	uint8_t *blk;		/* one block of scratch */
};

struct seen {
	struct extkit_dirent e;
	char name[256];
};

static void tctx_open(struct tctx *t, uint32_t bs, uint32_t blocks)
{
	struct test_image_opts o;

	memset(t, 0, sizeof(*t));
	test_image_defaults(&o);
	o.block_size = bs;
	o.blocks = blocks;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	t->bs = t->fs->g.block_size;
	ck_assert_uint_eq(t->bs, bs);
	t->next = test_image_first_free_block(t->fs);
	t->blk = calloc(1, bs);
	ck_assert_ptr_nonnull(t->blk);
}

static void tctx_close(struct tctx *t)
{
	int owns = t->fs->owns_io;

	extkit_fs_close(t->fs);
	if (!owns)
		extkit_io_close(t->io);
	free(t->blk);
}

/* Writes a record header and name; drec is the on-disk rec_len. */
static void rec_raw(uint8_t *b, uint32_t off, uint32_t ino, uint16_t drec,
		    uint8_t nl, uint8_t ft, const char *name)
{
	put_le32(b + off, ino);
	put_le16(b + off + 4, drec);
	b[off + 6] = nl;
	b[off + 7] = ft;
	if (name)
		memcpy(b + off + 8, name, strlen(name));
}

/* Writes a valid record; returns the offset after it. */
static uint32_t rec(struct tctx *t, uint32_t off, uint32_t ino,
		    uint32_t len, const char *name, uint8_t ft)
{
	__le16 d;

	ck_assert_int_eq(extkit_rec_len_to_disk(len, t->bs, &d), 0);
	rec_raw(t->blk, off, ino, le16(d), (uint8_t)strlen(name), ft, name);
	return off + len;
}

static void tail(struct tctx *t)
{
	rec_raw(t->blk, t->bs - 12, 0, 12, 0, EXT4_DIR_TAIL_FT, NULL);
	put_le32(t->blk + t->bs - 4, 0x12345678);
}

/* Writes the scratch block to a fresh block and clears it. */
static uint64_t flush_blk(struct tctx *t)
{
	uint64_t b = t->next++;

	ck_assert_int_eq(extkit_fs_write_block(t->fs, b, t->blk), 0);
	memset(t->blk, 0, t->bs);
	return b;
}

static void put_inode(struct tctx *t, uint32_t ino, uint16_t mode,
		      uint64_t size, const uint64_t *blks, uint32_t n,
		      uint32_t flags)
{
	struct extkit_inode in;
	uint32_t i, used = 0;

	memset(&in, 0, sizeof(in));
	in.mode = mode;
	in.links_count = S_ISDIR(mode) ? 2 : 1;
	in.size = size;
	in.flags = flags;
	in.extra_isize = t->fs->g.inode_size > 128 ? 32 : 0;
	for (i = 0; i < n; i++) {
		in.block[i] = (uint32_t)blks[i];
		used += blks[i] != 0;
	}
	extkit_inode_set_fs_blocks(t->fs, &in, used);
	ck_assert_int_eq(extkit_inode_write(t->fs, ino, &in), 0);
}

static void put_dir(struct tctx *t, uint32_t ino, const uint64_t *blks,
		    uint32_t n, uint32_t flags)
{
	put_inode(t, ino, S_IFDIR | 0755, (uint64_t)n * t->bs, blks, n, flags);
}

/* A fast symlink: the target lives in i_block. */
static void put_fast_link(struct tctx *t, uint32_t ino, const char *target)
{
	struct extkit_inode in;
	uint8_t raw[EXT2_N_BLOCKS * 4] = { 0 };
	uint32_t i;

	memset(&in, 0, sizeof(in));
	in.mode = S_IFLNK | 0777;
	in.links_count = 1;
	in.size = strlen(target);
	in.extra_isize = t->fs->g.inode_size > 128 ? 32 : 0;
	memcpy(raw, target, strlen(target));
	for (i = 0; i < EXT2_N_BLOCKS; i++)
		in.block[i] = get_le32(raw + 4 * i);
	ck_assert_int_eq(extkit_inode_write(t->fs, ino, &in), 0);
}

static void put_slow_link(struct tctx *t, uint32_t ino, const char *target)
{
	uint64_t b;

	memcpy(t->blk, target, strlen(target));
	b = flush_blk(t);
	put_inode(t, ino, S_IFLNK | 0777, strlen(target), &b, 1, 0);
}

static int collect(struct tctx *t, uint32_t ino, int flags,
		   struct seen *out)
{
	struct extkit_dir_iter it;
	struct extkit_dirent e;
	int n = 0, rc;

	ck_assert_int_eq(extkit_dir_iter_init(&it, t->fs, ino, flags), 0);
	while ((rc = extkit_dir_iter_next(&it, &e)) > 0) {
		ck_assert_int_lt(n, MAX_SEEN);
		memset(&out[n], 0, sizeof(out[n]));
		out[n].e = e;
		if (e.kind == EXTKIT_DE_LIVE || e.kind == EXTKIT_DE_EMPTY)
			memcpy(out[n].name, e.name, e.name_len);
		n++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	return n;
}

static void expect(const struct seen *s, enum extkit_dirent_kind kind,
		   uint64_t lblk, uint32_t off, uint32_t rec_len,
		   uint32_t slack)
{
	ck_assert_int_eq(s->e.kind, kind);
	ck_assert_uint_eq(s->e.lblk, lblk);
	ck_assert_uint_eq(s->e.offset, off);
	ck_assert_uint_eq(s->e.rec_len, rec_len);
	ck_assert_uint_eq(s->e.slack, slack);
}

/* ---- rec_len codec ---- */

static uint32_t dec(const uint8_t b[2], uint32_t bs)
{
	__le16 d;

	memcpy(&d, b, 2);
	return extkit_rec_len_from_disk(d, bs);
}

static void enc(uint32_t len, uint32_t bs, const uint8_t want[2])
{
	__le16 d;

	ck_assert_int_eq(extkit_rec_len_to_disk(len, bs, &d), 0);
	ck_assert_mem_eq(&d, want, 2);
}

START_TEST(test_rec_len_identity)
{
	static const uint8_t r12[2] = { 0x0c, 0x00 };
	static const uint8_t r1k[2] = { 0x00, 0x04 };
	static const uint8_t r4k[2] = { 0x00, 0x10 };
	static const uint8_t r4092[2] = { 0xfc, 0x0f };

	ck_assert_uint_eq(dec(r12, 1024), 12);
	ck_assert_uint_eq(dec(r1k, 1024), 1024);
	ck_assert_uint_eq(dec(r4k, 4096), 4096);
	ck_assert_uint_eq(dec(r4092, 4096), 4092);
	enc(12, 1024, r12);
	enc(1024, 1024, r1k);
	enc(12, 4096, r12);
	enc(4096, 4096, r4k);
	enc(4092, 4096, r4092);
}
END_TEST

START_TEST(test_rec_len_64k)
{
	static const uint8_t r12[2] = { 0x0c, 0x00 };
	static const uint8_t r65532[2] = { 0xfc, 0xff };
	static const uint8_t r65524[2] = { 0xf4, 0xff };
	static const uint8_t rmax[2] = { 0xff, 0xff };
	static const uint8_t rzero[2] = { 0x00, 0x00 };

	ck_assert_uint_eq(dec(r12, 65536), 12);
	ck_assert_uint_eq(dec(r65532, 65536), 65532);
	ck_assert_uint_eq(dec(r65524, 65536), 65524);
	ck_assert_uint_eq(dec(rmax, 65536), 65536);
	ck_assert_uint_eq(dec(rzero, 65536), 65536);
	enc(12, 65536, r12);
	enc(65532, 65536, r65532);
	enc(65524, 65536, r65524);
	enc(65536, 65536, rmax);
	/* below 64 KiB a stored 0 is just 0 (and invalid) */
	ck_assert_uint_eq(dec(rzero, 32768), 0);
}
END_TEST

START_TEST(test_rec_len_roundtrip)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };
	uint32_t i, len;
	__le16 d;

	for (i = 0; i < 3; i++) {
		for (len = 12; len <= sizes[i]; len += 4) {
			ck_assert_int_eq(extkit_rec_len_to_disk(len, sizes[i],
								&d), 0);
			ck_assert_uint_eq(extkit_rec_len_from_disk(d, sizes[i]),
					  len);
		}
	}
}
END_TEST

START_TEST(test_rec_len_to_disk_errors)
{
	__le16 d = 0x7777;

	ck_assert_int_eq(extkit_rec_len_to_disk(0, 1024, &d), -EINVAL);
	ck_assert_int_eq(extkit_rec_len_to_disk(13, 1024, &d), -EINVAL);
	ck_assert_int_eq(extkit_rec_len_to_disk(14, 4096, &d), -EINVAL);
	ck_assert_int_eq(extkit_rec_len_to_disk(1028, 1024, &d), -EINVAL);
	ck_assert_int_eq(extkit_rec_len_to_disk(4100, 4096, &d), -EINVAL);
	ck_assert_int_eq(extkit_rec_len_to_disk(65535, 65536, &d), -EINVAL);
	ck_assert_int_eq(extkit_rec_len_to_disk(65540, 65536, &d), -EINVAL);
	ck_assert_uint_eq(d, 0x7777);
}
END_TEST

/* ---- validator ---- */

static const struct extkit_dir_format fmt_1k = {
	.block_size = 1024, .inodes_count = 256, .has_filetype = 1,
};

static enum extkit_dirent_problem chk(const struct extkit_dir_format *f,
				      const uint8_t *b, uint32_t off,
				      uint32_t *len)
{
	return extkit_dirent_check(f, b, off, f->block_size, len);
}

START_TEST(test_check_reasons)
{
	uint8_t b[1024] = { 0 };
	uint32_t len;

	rec_raw(b, 0, 11, 16, 5, 1, "hello");
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len), EXTKIT_DIRENT_OK);
	ck_assert_uint_eq(len, 16);
	rec_raw(b, 0, 11, 8, 0, 1, NULL);
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len), EXTKIT_DIRENT_TOO_SHORT);
	rec_raw(b, 0, 11, 0, 0, 1, NULL);
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len), EXTKIT_DIRENT_TOO_SHORT);
	rec_raw(b, 0, 11, 14, 1, 1, NULL);
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len), EXTKIT_DIRENT_UNALIGNED);
	rec_raw(b, 0, 11, 12, 5, 1, "hello");
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len),
			 EXTKIT_DIRENT_NAME_TOO_LONG);
	rec_raw(b, 0, 257, 12, 1, 1, "x");
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len), EXTKIT_DIRENT_BAD_INODE);
	rec_raw(b, 0, 256, 12, 1, 1, "x");
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len), EXTKIT_DIRENT_OK);
	/* a record crossing the block end */
	rec_raw(b, 1000, 11, 28, 1, 1, "x");
	ck_assert_int_eq(chk(&fmt_1k, b, 1000, &len),
			 EXTKIT_DIRENT_CROSSES_BLOCK);
	ck_assert_uint_eq(len, 28);
	rec_raw(b, 1000, 11, 24, 1, 1, "x");
	ck_assert_int_eq(chk(&fmt_1k, b, 1000, &len), EXTKIT_DIRENT_OK);
	/* ... or into the checksum tail */
	ck_assert_int_eq(extkit_dirent_check(&fmt_1k, b, 1000, 1012, &len),
			 EXTKIT_DIRENT_CROSSES_BLOCK);
	/* no room for a header */
	ck_assert_int_eq(chk(&fmt_1k, b, 1020, &len),
			 EXTKIT_DIRENT_CHAIN_SHORT);
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(chk(&fmt_1k, b, 1016, &len),
			 EXTKIT_DIRENT_TOO_SHORT);
}
END_TEST

START_TEST(test_check_64k)
{
	struct extkit_dir_format f = {
		.block_size = 65536, .inodes_count = 100, .has_filetype = 1,
	};
	uint8_t *b = calloc(1, 65536);
	uint32_t len;

	ck_assert_ptr_nonnull(b);
	rec_raw(b, 0, 0, 0xffff, 0, 0, NULL);
	ck_assert_int_eq(chk(&f, b, 0, &len), EXTKIT_DIRENT_OK);
	ck_assert_uint_eq(len, 65536);
	rec_raw(b, 0, 0, 0, 0, 0, NULL);
	ck_assert_int_eq(chk(&f, b, 0, &len), EXTKIT_DIRENT_OK);
	ck_assert_uint_eq(len, 65536);
	rec_raw(b, 12, 2, 0xfff4, 2, 2, "..");
	ck_assert_int_eq(chk(&f, b, 12, &len), EXTKIT_DIRENT_OK);
	ck_assert_uint_eq(len, 65524);
	rec_raw(b, 16, 2, 0xfff4, 2, 2, "..");
	ck_assert_int_eq(chk(&f, b, 16, &len), EXTKIT_DIRENT_CROSSES_BLOCK);
	free(b);
}
END_TEST

START_TEST(test_name_len_type_byte)
{
	struct extkit_dir_format nf = fmt_1k;
	uint8_t b[1024] = { 0 };
	const struct ext2_dir_entry_2 *de = (const void *)b;
	uint32_t len;

	nf.has_filetype = 0;
	rec_raw(b, 0, 11, 16, 4, 1, "abcd");
	ck_assert_uint_eq(extkit_dirent_name_len(&fmt_1k, de), 4);
	ck_assert_uint_eq(extkit_dirent_file_type(&fmt_1k, de), 1);
	/* without filetype byte 7 is a stray type byte, not name_len's
	 * high byte (the kernel and e2fsprogs read one byte): fsck clears
	 * it, the name stays 4 bytes long */
	ck_assert_uint_eq(extkit_dirent_name_len(&nf, de), 4);
	ck_assert_uint_eq(extkit_dirent_file_type(&nf, de), 0);
	ck_assert_int_eq(chk(&fmt_1k, b, 0, &len), EXTKIT_DIRENT_OK);
	ck_assert_int_eq(chk(&nf, b, 0, &len), EXTKIT_DIRENT_OK);
}
END_TEST

START_TEST(test_problem_str)
{
	int p;

	for (p = EXTKIT_DIRENT_OK; p <= EXTKIT_DIRENT_CHAIN_SHORT; p++)
		ck_assert_ptr_nonnull(extkit_dirent_problem_str(p));
	ck_assert_str_ne(extkit_dirent_problem_str(EXTKIT_DIRENT_TOO_SHORT),
			 extkit_dirent_problem_str(EXTKIT_DIRENT_UNALIGNED));
}
END_TEST

START_TEST(test_format_init)
{
	struct extkit_dir_format f;
	struct tctx t;

	tctx_open(&t, 1024, 8192);
	extkit_dir_format_init(t.fs, &f);
	ck_assert_uint_eq(f.block_size, 1024);
	ck_assert_uint_eq(f.inodes_count, t.fs->sb.inodes_count);
	ck_assert_uint_eq(f.tail_len, 0);
	ck_assert_int_ne(f.has_filetype, 0);
	t.fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	t.fs->sb.feature_incompat &= ~EXT2_FEATURE_INCOMPAT_FILETYPE;
	extkit_dir_format_init(t.fs, &f);
	ck_assert_uint_eq(f.tail_len, 12);
	ck_assert_int_eq(f.has_filetype, 0);
	tctx_close(&t);
}
END_TEST

/* ---- iterator ---- */

/*
 * Directory DIR_INO of four 1 KiB blocks on a metadata_csum filesystem:
 * 0: . .. alpha (deleted "gone") beta tail; 1: hole;
 * 2: gamma, then a record with an unaligned rec_len; 3: delta tail.
 */
static void make_mixed_dir(struct tctx *t, uint64_t *blks)
{
	uint32_t off;

	t->fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	off = rec(t, 0, DIR_INO, 12, ".", EXT2_FT_DIR);
	off = rec(t, off, EXT2_ROOT_INO, 12, "..", EXT2_FT_DIR);
	off = rec(t, off, 13, 16, "alpha", EXT2_FT_REG_FILE);
	off = rec(t, off, 0, 20, "gone", EXT2_FT_REG_FILE);
	rec(t, off, 14, 1012 - off, "beta", EXT2_FT_SYMLINK);
	tail(t);
	blks[0] = flush_blk(t);
	blks[1] = 0;
	off = rec(t, 0, 15, 16, "gamma", EXT2_FT_REG_FILE);
	rec_raw(t->blk, off, 16, 13, 3, 1, "bad");
	blks[2] = flush_blk(t);
	rec(t, 0, 16, 1012, "delta", EXT2_FT_DIR);
	tail(t);
	blks[3] = flush_blk(t);
	put_dir(t, DIR_INO, blks, 4, 0);
}

START_TEST(test_iter_mixed)
{
	struct seen s[MAX_SEEN];
	uint64_t blks[4];
	struct tctx t;
	int n;

	tctx_open(&t, 1024, 8192);
	make_mixed_dir(&t, blks);
	n = collect(&t, DIR_INO, 0, s);
	ck_assert_int_eq(n, 10);
	expect(&s[0], EXTKIT_DE_LIVE, 0, 0, 12, 0);
	ck_assert_str_eq(s[0].name, ".");
	ck_assert_uint_eq(s[0].e.pblk, blks[0]);
	expect(&s[1], EXTKIT_DE_LIVE, 0, 12, 12, 0);
	ck_assert_str_eq(s[1].name, "..");
	expect(&s[2], EXTKIT_DE_LIVE, 0, 24, 16, 0);
	ck_assert_str_eq(s[2].name, "alpha");
	ck_assert_uint_eq(s[2].e.inode, 13);
	ck_assert_uint_eq(s[2].e.file_type, EXT2_FT_REG_FILE);
	expect(&s[3], EXTKIT_DE_EMPTY, 0, 40, 20, 20);
	expect(&s[4], EXTKIT_DE_LIVE, 0, 60, 952, 940);
	ck_assert_str_eq(s[4].name, "beta");
	ck_assert_uint_eq(s[4].e.file_type, EXT2_FT_SYMLINK);
	expect(&s[5], EXTKIT_DE_TAIL, 0, 1012, 12, 0);
	expect(&s[6], EXTKIT_DE_LIVE, 2, 0, 16, 0);
	ck_assert_str_eq(s[6].name, "gamma");
	ck_assert_uint_eq(s[6].e.pblk, blks[2]);
	expect(&s[7], EXTKIT_DE_CORRUPT, 2, 16, 1008, 0);
	ck_assert_int_eq(s[7].e.problem, EXTKIT_DIRENT_UNALIGNED);
	expect(&s[8], EXTKIT_DE_LIVE, 3, 0, 1012, 996);
	ck_assert_str_eq(s[8].name, "delta");
	expect(&s[9], EXTKIT_DE_TAIL, 3, 1012, 12, 0);
	tctx_close(&t);
}
END_TEST

START_TEST(test_iter_holes)
{
	struct seen s[MAX_SEEN];
	uint64_t blks[4];
	struct tctx t;
	int n;

	tctx_open(&t, 1024, 8192);
	make_mixed_dir(&t, blks);
	n = collect(&t, DIR_INO, EXTKIT_DIR_ITER_HOLES, s);
	ck_assert_int_eq(n, 11);
	expect(&s[5], EXTKIT_DE_TAIL, 0, 1012, 12, 0);
	expect(&s[6], EXTKIT_DE_HOLE, 1, 0, 1024, 0);
	ck_assert_uint_eq(s[6].e.pblk, 0);
	ck_assert_ptr_null(s[6].e.name);
	expect(&s[7], EXTKIT_DE_LIVE, 2, 0, 16, 0);
	/* i_size past the map: no holes after the last mapped block */
	put_inode(&t, DIR_INO, S_IFDIR | 0755, 64 * 1024, blks, 4, 0);
	ck_assert_int_eq(collect(&t, DIR_INO, EXTKIT_DIR_ITER_HOLES, s), 11);
	/* i_size short of the map: the walk stops at i_size, or with
	 * MAP_END goes on to the last mapped block */
	put_inode(&t, DIR_INO, S_IFDIR | 0755, 2 * 1024, blks, 4, 0);
	ck_assert_int_eq(collect(&t, DIR_INO, EXTKIT_DIR_ITER_HOLES, s), 7);
	ck_assert_int_eq(collect(&t, DIR_INO, EXTKIT_DIR_ITER_HOLES |
				 EXTKIT_DIR_ITER_MAP_END, s), 11);
	put_dir(&t, DIR_INO, blks, 4, 0);
	/* without metadata_csum the tail is an ordinary empty record */
	t.fs->sb.feature_ro_compat &= ~EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	n = collect(&t, DIR_INO, 0, s);
	ck_assert_int_eq(n, 10);
	expect(&s[5], EXTKIT_DE_EMPTY, 0, 1012, 12, 12);
	tctx_close(&t);
}
END_TEST

/* Counts the reads the iterator issues (the test runs in its own process). */
static const struct extkit_io_ops *real_ops;
static struct extkit_io_ops counting_ops;
static unsigned int nreads;

static int count_read(struct extkit_io *io, uint64_t off, void *buf,
		      size_t len)
{
	nreads++;
	return real_ops->read_bytes(io, off, buf, len);
}

START_TEST(test_iter_one_read_per_block)
{
	struct extkit_dir_iter it;
	struct extkit_dirent e;
	uint64_t blks[4];
	struct tctx t;
	int n = 0, rc;

	tctx_open(&t, 1024, 8192);
	make_mixed_dir(&t, blks);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, DIR_INO, 0), 0);
	real_ops = t.fs->io->ops;
	counting_ops = *real_ops;
	counting_ops.read_bytes = count_read;
	t.fs->io->ops = &counting_ops;
	while ((rc = extkit_dir_iter_next(&it, &e)) > 0)
		n++;
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(n, 10);
	ck_assert_uint_eq(nreads, 3);	/* three mapped blocks */
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	t.fs->io->ops = real_ops;
	tctx_close(&t);
}
END_TEST

START_TEST(test_iter_mark_dirty)
{
	struct extkit_dir_iter it;
	struct extkit_dirent e;
	uint64_t blks[2];
	struct tctx t;
	uint8_t *b;

	tctx_open(&t, 1024, 8192);
	rec(&t, rec(&t, 0, DIR_INO, 12, ".", 2), 2, 1012, "..", 2);
	blks[0] = flush_blk(&t);
	rec(&t, 0, 13, 1024, "x", 1);
	blks[1] = flush_blk(&t);
	put_dir(&t, DIR_INO, blks, 2, 0);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, DIR_INO, 0), 0);
	ck_assert_ptr_null(extkit_dir_iter_block(&it));
	ck_assert_int_eq(extkit_dir_iter_next(&it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_next(&it, &e), 1);
	b = extkit_dir_iter_block(&it);
	ck_assert_ptr_nonnull(b);
	put_le32(b + e.offset, 7);
	extkit_dir_iter_mark_dirty(&it);
	/* moving to block 1 writes block 0 back */
	ck_assert_int_eq(extkit_dir_iter_next(&it, &e), 1);
	ck_assert_uint_eq(e.lblk, 1);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, blks[0], t.blk), 0);
	ck_assert_uint_eq(get_le32(t.blk + 12), 7);
	b = extkit_dir_iter_block(&it);
	put_le32(b, 99);
	extkit_dir_iter_mark_dirty(&it);
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, blks[1], t.blk), 0);
	ck_assert_uint_eq(get_le32(t.blk), 99);
	tctx_close(&t);
}
END_TEST

/* What the walk says of the block it hands out: its bytes and where
 * its records end (before a checksum tail), not inline. */
START_TEST(test_iter_area_limit)
{
	struct extkit_dir_iter it;
	struct extkit_dirent e;
	uint64_t blks[2];
	struct tctx t;

	tctx_open(&t, 1024, 8192);
	t.fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	extkit_dirblock_new(t.fs, t.blk, DIR_INO, EXT2_ROOT_INO, 0);
	blks[0] = flush_blk(&t);
	rec(&t, 0, 13, 1024, "x", 1);		/* no tail */
	blks[1] = flush_blk(&t);
	put_dir(&t, DIR_INO, blks, 2, 0);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, DIR_INO, 0), 0);
	ck_assert_int_eq(extkit_dir_iter_next(&it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_is_inline(&it), 0);
	ck_assert_uint_eq(extkit_dir_iter_area(&it), 1024);
	ck_assert_uint_eq(extkit_dir_iter_limit(&it), 1024 - 12);
	do	/* '..', and the tail as the walk reports it */
		ck_assert_int_eq(extkit_dir_iter_next(&it, &e), 1);
	while (e.lblk == 0);
	ck_assert_uint_eq(e.lblk, 1);
	ck_assert_uint_eq(extkit_dir_iter_limit(&it), 1024);
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	tctx_close(&t);
}
END_TEST

START_TEST(test_iter_errors)
{
	struct extkit_dir_iter it;
	struct extkit_dirent e;
	uint64_t blk;
	struct tctx t;

	tctx_open(&t, 1024, 8192);
	blk = flush_blk(&t);
	put_inode(&t, 13, S_IFREG | 0644, 1024, &blk, 1, 0);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, 13, 0), -ENOTDIR);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, 13, "a", 1, &(uint32_t){0}),
			 -ENOTDIR);
	/* i_size claims more blocks than the filesystem has: the walk ends
	 * with the map, at once and without an array that large */
	put_inode(&t, DIR_INO, S_IFDIR | 0755, 1ull << 40, &blk, 1, 0);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, DIR_INO, 0), 0);
	ck_assert_uint_eq(extkit_dir_iter_nblocks(&it), 1);
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	/* an empty directory ends at once */
	put_inode(&t, DIR_INO, S_IFDIR | 0755, 0, NULL, 0, 0);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, DIR_INO, 0), 0);
	ck_assert_int_eq(extkit_dir_iter_next(&it, &e), 0);
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	tctx_close(&t);
}
END_TEST

/* dx_root in the scratch block: levels deep, count entries to blocks. */
static void dx_root_blk(struct tctx *t, uint8_t levels, uint8_t info_len,
			const uint32_t *to, uint16_t count)
{
	uint16_t i;

	rec(t, 0, DIR_INO, 12, ".", EXT2_FT_DIR);
	rec(t, 12, EXT2_ROOT_INO, t->bs - 12, "..", EXT2_FT_DIR);
	t->blk[24 + 4] = DX_HASH_HALF_MD4;
	t->blk[24 + 5] = info_len;
	t->blk[24 + 6] = levels;
	put_le16(t->blk + 32, (uint16_t)((t->bs - 32) / 8));
	put_le16(t->blk + 34, count);
	for (i = 0; i < count; i++) {
		if (i)
			put_le32(t->blk + 32 + 8 * i, 0x10000000u * i);
		put_le32(t->blk + 36 + 8 * i, to[i]);
	}
}

static void dx_node_blk(struct tctx *t, const uint32_t *to, uint16_t count)
{
	uint16_t i;

	put_le16(t->blk + 4, (uint16_t)t->bs);
	put_le16(t->blk + 8, (uint16_t)((t->bs - 8) / 8));
	put_le16(t->blk + 10, count);
	for (i = 0; i < count; i++) {
		if (i)
			put_le32(t->blk + 8 + 8 * i, 0x08000000u * i);
		put_le32(t->blk + 12 + 8 * i, to[i]);
	}
}

/* Leaf block holding one live record spanning the block. */
static uint64_t leaf_blk(struct tctx *t, uint32_t ino, const char *name)
{
	rec(t, 0, ino, t->bs, name, EXT2_FT_REG_FILE);
	return flush_blk(t);
}

/* Indexed directory: root -> node 1 -> leaves 2, 3. */
static void make_dx_dir(struct tctx *t, uint8_t info_len, uint32_t first)
{
	static const uint32_t leaves[2] = { 2, 3 };
	uint64_t blks[4];

	t->fs->sb.feature_compat |= EXT2_FEATURE_COMPAT_DIR_INDEX;
	dx_root_blk(t, 1, info_len, &first, 1);
	blks[0] = flush_blk(t);
	dx_node_blk(t, leaves, 2);
	blks[1] = flush_blk(t);
	blks[2] = leaf_blk(t, 13, "a1");
	blks[3] = leaf_blk(t, 14, "b1");
	put_dir(t, DIR_INO, blks, 4, EXT2_INDEX_FL);
}

static void expect_dx_walk(struct tctx *t, int indexed)
{
	struct seen s[MAX_SEEN];
	int n = collect(t, DIR_INO, 0, s);

	ck_assert_int_eq(n, 5);
	expect(&s[0], EXTKIT_DE_LIVE, 0, 0, 12, 0);
	if (indexed) {
		expect(&s[1], EXTKIT_DE_LIVE, 0, 12, 1012, 0);
		ck_assert_uint_eq(s[1].e.dx_overhead, 1000);
		expect(&s[2], EXTKIT_DE_DX_NODE, 1, 0, 1024, 0);
		ck_assert_uint_eq(s[2].e.dx_overhead, 1024);
	} else {
		expect(&s[1], EXTKIT_DE_LIVE, 0, 12, 1012, 1000);
		ck_assert_uint_eq(s[1].e.dx_overhead, 0);
		expect(&s[2], EXTKIT_DE_EMPTY, 1, 0, 1024, 1024);
	}
	ck_assert_str_eq(s[1].name, "..");
	expect(&s[3], EXTKIT_DE_LIVE, 2, 0, 1024, 1012);
	ck_assert_str_eq(s[3].name, "a1");
	expect(&s[4], EXTKIT_DE_LIVE, 3, 0, 1024, 1012);
	ck_assert_str_eq(s[4].name, "b1");
}

static int dx_indexed(struct tctx *t)
{
	struct extkit_dir_iter it;
	int indexed;

	ck_assert_int_eq(extkit_dir_iter_init(&it, t->fs, DIR_INO, 0), 0);
	indexed = it.indexed;
	if (indexed) {
		ck_assert_uint_eq(it.dx_node_count, 1);
		ck_assert_uint_eq(it.dx_nodes[0], 1);
	}
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	return indexed;
}

START_TEST(test_iter_htree)
{
	struct tctx t;

	tctx_open(&t, 1024, 8192);
	make_dx_dir(&t, 8, 1);
	ck_assert_int_eq(dx_indexed(&t), 1);
	expect_dx_walk(&t, 1);
	/* without the dir_index feature the flag is ignored */
	t.fs->sb.feature_compat &= ~EXT2_FEATURE_COMPAT_DIR_INDEX;
	ck_assert_int_eq(dx_indexed(&t), 0);
	expect_dx_walk(&t, 0);
	tctx_close(&t);
}
END_TEST

START_TEST(test_iter_htree_bad_root)
{
	struct tctx t;

	tctx_open(&t, 1024, 8192);
	make_dx_dir(&t, 7, 1);		/* info_length 7 */
	ck_assert_int_eq(dx_indexed(&t), 0);
	expect_dx_walk(&t, 0);
	tctx_close(&t);
	tctx_open(&t, 1024, 8192);
	make_dx_dir(&t, 8, 9);		/* index points past the end */
	ck_assert_int_eq(dx_indexed(&t), 0);
	expect_dx_walk(&t, 0);
	tctx_close(&t);
}
END_TEST

/* root -> node 1 -> node 2 -> leaves 3, 4; then too deep. */
START_TEST(test_iter_htree_two_levels)
{
	static const uint32_t one = 1, two = 2, leaves[2] = { 3, 4 };
	struct extkit_dir_iter it;
	struct seen s[MAX_SEEN];
	uint64_t blks[5];
	struct tctx t;

	tctx_open(&t, 1024, 8192);
	t.fs->sb.feature_compat |= EXT2_FEATURE_COMPAT_DIR_INDEX;
	dx_root_blk(&t, 2, 8, &one, 1);
	blks[0] = flush_blk(&t);
	dx_node_blk(&t, &two, 1);
	blks[1] = flush_blk(&t);
	dx_node_blk(&t, leaves, 2);
	blks[2] = flush_blk(&t);
	blks[3] = leaf_blk(&t, 13, "a1");
	blks[4] = leaf_blk(&t, 14, "b1");
	put_dir(&t, DIR_INO, blks, 5, EXT2_INDEX_FL);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, DIR_INO, 0), 0);
	ck_assert_int_eq(it.indexed, 1);
	ck_assert_uint_eq(it.dx_node_count, 2);
	ck_assert_uint_eq(it.dx_nodes[0], 1);
	ck_assert_uint_eq(it.dx_nodes[1], 2);
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	ck_assert_int_eq(collect(&t, DIR_INO, 0, s), 6);
	expect(&s[2], EXTKIT_DE_DX_NODE, 1, 0, 1024, 0);
	expect(&s[3], EXTKIT_DE_DX_NODE, 2, 0, 1024, 0);
	expect(&s[4], EXTKIT_DE_LIVE, 3, 0, 1024, 1012);
	/* three levels need largedir */
	ck_assert_int_eq(extkit_fs_read_block(t.fs, blks[0], t.blk), 0);
	t.blk[24 + 6] = 3;
	ck_assert_int_eq(extkit_fs_write_block(t.fs, blks[0], t.blk), 0);
	ck_assert_int_eq(extkit_dir_iter_init(&it, t.fs, DIR_INO, 0), 0);
	ck_assert_int_eq(it.indexed, 0);
	ck_assert_int_eq(extkit_dir_iter_end(&it), 0);
	tctx_close(&t);
}
END_TEST

START_TEST(test_iter_64k)
{
	struct seen s[MAX_SEEN];
	uint64_t blks[3];
	struct tctx t;

	tctx_open(&t, 65536, 64);
	rec(&t, rec(&t, 0, DIR_INO, 12, ".", 2), 2, 65524, "..", 2);
	ck_assert_uint_eq(get_le16(t.blk + 16), 65524);
	blks[0] = flush_blk(&t);
	rec_raw(t.blk, 0, 0, 0xffff, 0, 0, NULL);
	blks[1] = flush_blk(&t);
	rec_raw(t.blk, 0, 13, 0, 1, 1, "z");
	blks[2] = flush_blk(&t);
	put_dir(&t, DIR_INO, blks, 3, 0);
	ck_assert_int_eq(collect(&t, DIR_INO, 0, s), 4);
	expect(&s[1], EXTKIT_DE_LIVE, 0, 12, 65524, 65512);
	expect(&s[2], EXTKIT_DE_EMPTY, 1, 0, 65536, 65536);
	expect(&s[3], EXTKIT_DE_LIVE, 2, 0, 65536, 65524);
	ck_assert_str_eq(s[3].name, "z");
	tctx_close(&t);
}
END_TEST

/* ---- lookup and path resolution ---- */

START_TEST(test_lookup)
{
	uint64_t blks[4];
	struct tctx t;
	uint32_t ino = 0;

	tctx_open(&t, 1024, 8192);
	make_mixed_dir(&t, blks);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "alpha", 5, &ino),
			 0);
	ck_assert_uint_eq(ino, 13);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "beta", 4, &ino), 0);
	ck_assert_uint_eq(ino, 14);
	/* after the corrupt block */
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "delta", 5, &ino),
			 0);
	ck_assert_uint_eq(ino, 16);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "..", 2, &ino), 0);
	ck_assert_uint_eq(ino, EXT2_ROOT_INO);
	/*
	 * Deleted records and prefixes do not match; as the directory has a
	 * corrupt block, "not found" is reported as corruption.
	 */
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "gone", 4, &ino),
			 -EFSCORRUPTED);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "alph", 4, &ino),
			 -EFSCORRUPTED);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "alphax", 6, &ino),
			 -EFSCORRUPTED);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, EXT2_ROOT_INO, "nope", 4,
					   &ino), -ENOENT);
	ck_assert_int_eq(extkit_dir_lookup(t.fs, DIR_INO, "", 0, &ino),
			 -EINVAL);
	tctx_close(&t);
}
END_TEST

/*
 * /: d (12, dir), ln -> "d", abs -> "/d", slow -> a 61-byte path to d,
 *    loop -> "loop", self -> ".", file (17), dangle -> "nowhere"
 * /d: alpha (19), up -> "../ln"
 */
static void make_tree(struct tctx *t)
{
	static const char slow[] = "./././././././././././././././././"
				   "./././././././././././././d";
	struct extkit_inode root;
	uint64_t rb, blk;
	uint32_t off;

	ck_assert_int_eq(extkit_inode_read(t->fs, EXT2_ROOT_INO, &root), 0);
	rb = root.block[0];
	off = rec(t, 0, 2, 12, ".", 2);
	off = rec(t, off, 2, 12, "..", 2);
	off = rec(t, off, 12, 12, "d", 2);
	off = rec(t, off, 13, 12, "ln", 7);
	off = rec(t, off, 14, 12, "abs", 7);
	off = rec(t, off, 15, 16, "slow", 7);
	off = rec(t, off, 16, 16, "loop", 7);
	off = rec(t, off, 20, 16, "self", 7);
	off = rec(t, off, 17, 16, "file", 1);
	rec(t, off, 18, 1024 - off, "dangle", 7);
	ck_assert_int_eq(extkit_fs_write_block(t->fs, rb, t->blk), 0);
	memset(t->blk, 0, t->bs);
	off = rec(t, 0, 12, 12, ".", 2);
	off = rec(t, off, 2, 12, "..", 2);
	off = rec(t, off, 19, 16, "alpha", 1);
	rec(t, off, 21, 1024 - off, "up", 7);
	blk = flush_blk(t);
	put_dir(t, 12, &blk, 1, 0);
	put_fast_link(t, 13, "d");
	put_fast_link(t, 14, "/d");
	ck_assert_uint_ge(strlen(slow), 60);
	put_slow_link(t, 15, slow);
	put_fast_link(t, 16, "loop");
	put_fast_link(t, 20, ".");
	put_inode(t, 17, S_IFREG | 0644, 0, NULL, 0, 0);
	put_fast_link(t, 18, "nowhere");
	put_inode(t, 19, S_IFREG | 0644, 0, NULL, 0, 0);
	put_fast_link(t, 21, "../ln");
}

static int res(struct tctx *t, const char *path)
{
	uint32_t ino = 0;
	int rc = extkit_path_resolve(t->fs, path, &ino);

	return rc ? rc : (int)ino;
}

START_TEST(test_path_basic)
{
	struct tctx t;

	tctx_open(&t, 1024, 8192);
	make_tree(&t);
	ck_assert_int_eq(res(&t, "/"), EXT2_ROOT_INO);
	ck_assert_int_eq(res(&t, "///"), EXT2_ROOT_INO);
	ck_assert_int_eq(res(&t, ""), -ENOENT);
	ck_assert_int_eq(res(&t, "/d/alpha"), 19);
	ck_assert_int_eq(res(&t, "d/alpha"), 19);
	ck_assert_int_eq(res(&t, "//d///alpha/"), 19);
	ck_assert_int_eq(res(&t, "/d/./alpha"), 19);
	ck_assert_int_eq(res(&t, "/d/.."), EXT2_ROOT_INO);
	ck_assert_int_eq(res(&t, "/d/../d"), 12);
	ck_assert_int_eq(res(&t, "/.."), EXT2_ROOT_INO);
	ck_assert_int_eq(res(&t, "/missing"), -ENOENT);
	ck_assert_int_eq(res(&t, "/file/x"), -ENOTDIR);
	ck_assert_int_eq(res(&t, "/d/alpha/x"), -ENOTDIR);
	/* debugfs "<N>" */
	ck_assert_int_eq(res(&t, "<12>"), 12);
	ck_assert_int_eq(res(&t, "<2>"), 2);
	ck_assert_int_eq(res(&t, "<12>/alpha"), 19);
	ck_assert_int_eq(res(&t, "<17>"), 17);
	ck_assert_int_eq(res(&t, "/<12>"), -ENOENT);
	ck_assert_int_eq(res(&t, "<0>"), -ENOENT);
	ck_assert_int_eq(res(&t, "<99999>"), -ENOENT);
	ck_assert_int_eq(res(&t, "<1x>"), -ENOENT);
	tctx_close(&t);
}
END_TEST

START_TEST(test_path_symlinks)
{
	struct tctx t;
	char path[64 * 5 + 16];
	int i;

	tctx_open(&t, 1024, 8192);
	make_tree(&t);
	ck_assert_int_eq(res(&t, "/ln/alpha"), 19);
	ck_assert_int_eq(res(&t, "/ln"), 13);		/* last: not followed */
	ck_assert_int_eq(res(&t, "/abs/alpha"), 19);
	ck_assert_int_eq(res(&t, "/slow/alpha"), 19);
	ck_assert_int_eq(res(&t, "/d/up/alpha"), 19);	/* ../ln, then d */
	ck_assert_int_eq(res(&t, "/d/up/../file"), 17);
	ck_assert_int_eq(res(&t, "/loop"), 16);
	ck_assert_int_eq(res(&t, "/loop/x"), -ELOOP);
	ck_assert_int_eq(res(&t, "/dangle/x"), -ENOENT);
	/* exactly 40 follows resolve, 41 do not */
	strcpy(path, "");
	for (i = 0; i < 40; i++)
		strcat(path, "/self");
	strcat(path, "/d");
	ck_assert_int_eq(res(&t, path), 12);
	memmove(path + 5, path, strlen(path) + 1);
	memcpy(path, "/self", 5);
	ck_assert_int_eq(res(&t, path), -ELOOP);
	tctx_close(&t);
}
END_TEST

START_TEST(test_path_too_long)
{
	struct tctx t;
	char *p = malloc(5000);
	int i;

	ck_assert_ptr_nonnull(p);
	tctx_open(&t, 1024, 8192);
	make_tree(&t);
	for (i = 0; i < 4998; i += 2)
		memcpy(p + i, "/.", 2);
	p[4998] = 0;
	ck_assert_int_eq(res(&t, p), -ENAMETOOLONG);
	p[4096] = 0;		/* "/./././..." of 4096 bytes */
	ck_assert_int_eq(res(&t, p), EXT2_ROOT_INO);
	memset(p, 'a', 300);
	p[0] = '/';
	p[300] = 0;
	ck_assert_int_eq(res(&t, p), -ENAMETOOLONG);
	tctx_close(&t);
	free(p);
}
END_TEST

/* ---- the record setter, the cursor, editing under the walk ---- */

START_TEST(test_dirent_set_golden)
{
	static const uint8_t ft[12] = { 13, 0, 0, 0, 16, 0, 3, 1,
					'a', 'b', 'c', 0 };
	static const uint8_t noft[12] = { 13, 0, 0, 0, 16, 0, 3, 0,
					  'a', 'b', 'c', 0 };
	struct extkit_dir_format fmt = { .block_size = 1024,
					 .inodes_count = 100,
					 .has_filetype = 1 };
	uint8_t b[24];

	memset(b, 0xff, sizeof(b));
	ck_assert_int_eq(extkit_dirent_set(&fmt, b, 13, 16, "abc", 3,
					   EXT2_FT_REG_FILE), 0);
	ck_assert_mem_eq(b, ft, sizeof(ft));
	ck_assert_uint_eq(b[12], 0xff);	/* past the minimal record */
	ck_assert_uint_eq(extkit_dirent_rec_len(&fmt, b), 16);
	/* without filetype byte 7 (the type byte) is written 0 */
	fmt.has_filetype = 0;
	memset(b, 0xff, sizeof(b));
	ck_assert_int_eq(extkit_dirent_set(&fmt, b, 13, 16, "abc", 3,
					   EXT2_FT_REG_FILE), 0);
	ck_assert_mem_eq(b, noft, sizeof(noft));
	/* refused: nothing written */
	ck_assert_int_eq(extkit_dirent_set(&fmt, b, 1, 18, "x", 1, 0),
			 -EINVAL);
	ck_assert_int_eq(extkit_dirent_set(&fmt, b, 1, 2048, "x", 1, 0),
			 -EINVAL);
	ck_assert_mem_eq(b, noft, sizeof(noft));
	/* 64 KiB blocks: the whole block is stored as 65535 */
	fmt.block_size = 65536;
	ck_assert_int_eq(extkit_dirent_set(&fmt, b, 0, 65536, "", 0, 0), 0);
	ck_assert_uint_eq(get_le16(b + 4), 65535);
	ck_assert_uint_eq(extkit_dirent_rec_len(&fmt, b), 65536);
}
END_TEST

START_TEST(test_cursor)
{
	struct extkit_dir_format fmt = { .block_size = 1024,
					 .inodes_count = 100,
					 .tail_len = 12, .has_filetype = 1 };
	struct extkit_dir_cursor c;
	struct tctx t;
	uint32_t off;

	tctx_open(&t, 1024, 8192);
	off = rec(&t, 0, 2, 12, ".", 2);
	off = rec(&t, off, 2, 12, "..", 2);
	off = rec(&t, off, 500, 16, "far", 1);	/* inode out of range */
	rec(&t, off, 14, 1012 - off, "y", 1);
	tail(&t);
	ck_assert_uint_eq(extkit_dir_block_end(&fmt, t.blk), 1012);
	extkit_dir_cursor_init(&c, &fmt, t.blk, 0, 1012);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), 1);
	ck_assert_uint_eq(c.prev, EXTKIT_DIR_NO_OFFSET);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), 1);
	ck_assert_uint_eq(c.off, 12);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), -EFSCORRUPTED);
	ck_assert_int_eq(c.problem, EXTKIT_DIRENT_BAD_INODE);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), 1);	/* past it */
	ck_assert_uint_eq(c.off, 40);
	ck_assert_uint_eq(c.prev, 24);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), 0);
	/* a length that cannot be trusted: the cursor stays */
	put_le16(t.blk + 12 + 4, 13);
	extkit_dir_cursor_init(&c, &fmt, t.blk, 0, 1012);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), 1);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), -EFSCORRUPTED);
	ck_assert_int_eq(c.problem, EXTKIT_DIRENT_UNALIGNED);
	ck_assert_int_eq(extkit_dir_cursor_next(&c), -EFSCORRUPTED);
	ck_assert_uint_eq(c.off, 12);
	/* no tail: the records end at the block end */
	memset(t.blk + 1012, 0, 12);
	ck_assert_uint_eq(extkit_dir_block_end(&fmt, t.blk), 1024);
	tctx_close(&t);
}
END_TEST

/* One block: '.', '..', "big" (1000 bytes) and a record with an inode
 * past the count behind a split. Returns the block. */
static uint64_t make_edit_dir(struct tctx *t)
{
	uint64_t blk;

	rec(t, rec(t, rec(t, 0, DIR_INO, 12, ".", 2), 2, 12, "..", 2), 13,
	    1000, "big", 1);
	blk = flush_blk(t);
	put_dir(t, DIR_INO, &blk, 1, 0);
	return blk;
}

START_TEST(test_iter_split_and_seek)
{
	const struct extkit_dir_format *fmt;
	struct extkit_dir_iter *it;
	struct extkit_dirent e;
	uint64_t blk;
	struct tctx t;
	uint8_t *b;

	tctx_open(&t, 1024, 8192);
	blk = make_edit_dir(&t);
	ck_assert_int_eq(extkit_dir_iter_open(t.fs, DIR_INO, 0, &it), 0);
	fmt = extkit_dir_iter_format(it);
	ck_assert_uint_eq(extkit_dir_iter_nblocks(it), 1);
	ck_assert_uint_eq(extkit_dir_iter_pblk(it, 0), blk);
	ck_assert_uint_eq(extkit_dir_iter_pblk(it, 1), 0);
	ck_assert_int_eq(extkit_dir_iter_indexed(it), 0);
	ck_assert_uint_eq(extkit_dir_iter_inode(it)->size, 1024);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_uint_eq(e.offset, 24);
	/* split "big": the new record is handed out next */
	b = extkit_dir_iter_block(it);
	ck_assert_int_eq(extkit_dirent_set_rec_len(fmt, b + 24, 12), 0);
	ck_assert_int_eq(extkit_dirent_set(fmt, b + 36, 14, 988, "new", 3,
					   1), 0);
	extkit_dir_iter_mark_dirty(it);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_uint_eq(e.offset, 36);
	ck_assert_uint_eq(e.inode, 14);
	ck_assert_uint_eq(e.rec_len, 988);
	/* back to "big", then clear "new" */
	ck_assert_int_eq(extkit_dir_iter_seek(it, 24), 0);
	ck_assert_int_eq(extkit_dir_iter_seek(it, 26), -EINVAL);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_uint_eq(e.offset, 24);
	ck_assert_uint_eq(e.rec_len, 12);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_set_inode(it, 0), 0);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 0);
	ck_assert_int_eq(extkit_dir_iter_close(it), 0);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, blk, t.blk), 0);
	ck_assert_uint_eq(get_le16(t.blk + 24 + 4), 12);
	ck_assert_uint_eq(get_le32(t.blk + 36), 0);
	ck_assert_mem_eq(t.blk + 44, "new", 3);
	tctx_close(&t);
}
END_TEST

START_TEST(test_iter_past_corrupt)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent e;
	struct tctx t;
	uint64_t blk;

	tctx_open(&t, 1024, 8192);
	rec(&t, rec(&t, rec(&t, 0, DIR_INO, 12, ".", 2), 2, 12, "..", 2),
	    t.fs->sb.inodes_count + 1, 16, "far", 1);
	rec(&t, 40, 13, 984, "z", 1);
	blk = flush_blk(&t);
	put_dir(&t, DIR_INO, &blk, 1, 0);
	ck_assert_int_eq(extkit_dir_iter_open(t.fs, DIR_INO,
			 EXTKIT_DIR_ITER_PAST_CORRUPT, &it), 0);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(e.kind, EXTKIT_DE_CORRUPT);
	ck_assert_int_eq(e.problem, EXTKIT_DIRENT_BAD_INODE);
	ck_assert_uint_eq(e.rec_len, 16);
	ck_assert_uint_eq(e.name_len, 3);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(e.kind, EXTKIT_DE_LIVE);
	ck_assert_uint_eq(e.offset, 40);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 0);
	ck_assert_int_eq(extkit_dir_iter_close(it), 0);
	tctx_close(&t);
}
END_TEST

START_TEST(test_iter_nowrite_freeze)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent e;
	struct tctx t;
	uint64_t blk;

	tctx_open(&t, 1024, 8192);
	blk = make_edit_dir(&t);
	/* NOWRITE: edits are walked, never written */
	ck_assert_int_eq(extkit_dir_iter_open(t.fs, DIR_INO,
			 EXTKIT_DIR_ITER_NOWRITE, &it), 0);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_set_inode(it, 15), 0);
	ck_assert_int_eq(extkit_dir_iter_close(it), 0);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, blk, t.blk), 0);
	ck_assert_uint_eq(get_le32(t.blk), DIR_INO);
	/* freeze: what was changed so far is written, later edits not */
	ck_assert_int_eq(extkit_dir_iter_open(t.fs, DIR_INO, 0, &it), 0);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_set_inode(it, 15), 0);
	ck_assert_int_eq(extkit_dir_iter_freeze(it), 0);
	ck_assert_int_eq(extkit_dir_iter_next(it, &e), 1);
	ck_assert_int_eq(extkit_dir_iter_set_inode(it, 16), 0);
	ck_assert_int_eq(extkit_dir_iter_close(it), 0);
	ck_assert_int_eq(extkit_fs_read_block(t.fs, blk, t.blk), 0);
	ck_assert_uint_eq(get_le32(t.blk), 15);
	ck_assert_uint_eq(get_le32(t.blk + 12), 2);
	tctx_close(&t);
}
END_TEST

/* The one builder of new directory blocks: every shape checked byte by
 * byte and walked by the cursor to the block's usable end. */
static int walks_clean(const struct extkit_dir_format *f, const uint8_t *b,
		       uint32_t end)
{
	struct extkit_dir_cursor c;
	int rc, n = 0;

	extkit_dir_cursor_init(&c, f, b, 0, end);
	while ((rc = extkit_dir_cursor_next(&c)) == 1)
		n++;
	return rc == 0 ? n : -1;
}

START_TEST(test_dirblock_new)
{
	struct extkit_dir_format f;
	uint8_t iblock[EXTKIT_INLINE_IBLOCK];
	struct tctx t;
	uint8_t *b;

	for (uint32_t bs = 1024; bs <= 65536; bs *= 64) {
		tctx_open(&t, bs, bs == 1024 ? 8192 : 64);
		b = t.blk;
		memset(b, 0xaa, bs);
		extkit_dir_format_init(t.fs, &f);
		extkit_dirblock_new(t.fs, b, 12, 2, 0);
		ck_assert_uint_eq(get_le32(b), 12);
		ck_assert_uint_eq(get_le16(b + 4), 12);
		ck_assert_uint_eq(b[6], 1);
		ck_assert_uint_eq(b[7], EXT2_FT_DIR);
		ck_assert_uint_eq(b[8], '.');
		ck_assert_uint_eq(b[9], 0);
		ck_assert_uint_eq(get_le32(b + 12), 2);
		ck_assert_uint_eq(extkit_dirent_rec_len(&f, b + 12), bs - 12);
		ck_assert_uint_eq(b[18], 2);
		ck_assert_uint_eq(b[bs - 1], 0);	/* the rest zeroed */
		ck_assert_int_eq(walks_clean(&f, b, bs), 2);
		ck_assert_int_eq(extkit_dirblock_has_tail(t.fs, b), 0);
		/* metadata_csum: the tail; '..' ends where it starts */
		t.fs->sb.feature_ro_compat |=
			EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
		extkit_dir_format_init(t.fs, &f);
		extkit_dirblock_new(t.fs, b, 12, 2, 0);
		ck_assert_int_eq(extkit_dirblock_has_tail(t.fs, b), 1);
		ck_assert_uint_eq(extkit_dirent_rec_len(&f, b + 12), bs - 24);
		ck_assert_int_eq(walks_clean(&f, b,
				 extkit_dir_block_end(&f, b)), 2);
		/* open: '..' of 12, the caller's records from 24 */
		extkit_dirblock_new(t.fs, b, 12, 2, EXTKIT_NEWDIR_OPEN);
		ck_assert_uint_eq(extkit_dirent_rec_len(&f, b + 12), 12);
		ck_assert_uint_eq(get_le32(b + 24), 0);
		ck_assert_int_eq(extkit_dirblock_has_tail(t.fs, b), 1);
		/* a block past the first: one empty record */
		extkit_dirblock_new(t.fs, b, 12, 0, 0);
		ck_assert_uint_eq(get_le32(b), 0);
		ck_assert_uint_eq(extkit_dirent_rec_len(&f, b), bs - 12);
		ck_assert_int_eq(walks_clean(&f, b,
				 extkit_dir_block_end(&f, b)), 1);
		/* an htree root's head: no tail, '..' to the very end */
		extkit_dirblock_new(t.fs, b, 12, 2, EXTKIT_NEWDIR_DX_ROOT);
		ck_assert_uint_eq(extkit_dirent_rec_len(&f, b + 12), bs - 12);
		ck_assert_int_eq(extkit_dirblock_has_tail(t.fs, b), 0);
		/* without filetype: byte 7 is name_len's high byte */
		t.fs->sb.feature_incompat &= ~EXT2_FEATURE_INCOMPAT_FILETYPE;
		extkit_dirblock_new(t.fs, b, 12, 2, 0);
		ck_assert_uint_eq(b[7], 0);
		ck_assert_uint_eq(b[19], 0);
		tctx_close(&t);
	}
	tctx_open(&t, 1024, 8192);
	memset(iblock, 0xaa, sizeof(iblock));
	extkit_dirblock_new_inline(t.fs, iblock, 77);
	ck_assert_uint_eq(get_le32(iblock), 77);
	ck_assert_uint_eq(get_le32(iblock + 4), 0);
	ck_assert_uint_eq(get_le16(iblock + 8), EXTKIT_INLINE_IBLOCK - 4);
	ck_assert_uint_eq(iblock[EXTKIT_INLINE_IBLOCK - 1], 0);
	tctx_close(&t);
}
END_TEST

/* The record's inode (bytes 0-3) read and set, and the name cleared
 * (name_len byte 6, type byte 7), at an offset that is not a multiple
 * of 4 too (a corrupt block's record), the other bytes kept. */
START_TEST(test_dirent_inode_fields)
{
	uint8_t b[64], want[64];

	for (int off = 0; off <= 2; off += 2) {
		for (int i = 0; i < 64; i++)
			b[i] = (uint8_t)(0xa0 + i);
		memcpy(want, b, sizeof(b));
		ck_assert_uint_eq(extkit_dirent_inode(b + off),
				  get_le32(b + off));
		extkit_dirent_set_inode(b + off, 0x01020304);
		put_le32(want + off, 0x01020304);
		ck_assert_mem_eq(b, want, sizeof(b));
		ck_assert_uint_eq(extkit_dirent_inode(b + off), 0x01020304);
		extkit_dirent_clear_name(b + off);
		want[off + 6] = 0;
		want[off + 7] = 0;
		ck_assert_mem_eq(b, want, sizeof(b));
		/* the type byte read at any offset too */
		b[off + 7] = 5;
		ck_assert_uint_eq(extkit_dirent_file_type(&fmt_1k,
				  (const void *)(b + off)), 5);
	}
}
END_TEST

Suite *dir_suite(void)
{
	Suite *s = suite_create("dir");
	TCase *tc = tcase_create("codec");
	TCase *ti = tcase_create("iter");
	TCase *tp = tcase_create("path");

	tcase_add_test(tc, test_rec_len_identity);
	tcase_add_test(tc, test_rec_len_64k);
	tcase_add_test(tc, test_rec_len_roundtrip);
	tcase_add_test(tc, test_rec_len_to_disk_errors);
	tcase_add_test(tc, test_check_reasons);
	tcase_add_test(tc, test_check_64k);
	tcase_add_test(tc, test_name_len_type_byte);
	tcase_add_test(tc, test_problem_str);
	tcase_add_test(tc, test_dirent_set_golden);
	tcase_add_test(tc, test_dirblock_new);
	tcase_add_test(tc, test_dirent_inode_fields);
	tcase_add_test(ti, test_cursor);
	tcase_add_test(ti, test_iter_split_and_seek);
	tcase_add_test(ti, test_iter_past_corrupt);
	tcase_add_test(ti, test_iter_nowrite_freeze);
	tcase_add_test(ti, test_format_init);
	tcase_add_test(ti, test_iter_mixed);
	tcase_add_test(ti, test_iter_holes);
	tcase_add_test(ti, test_iter_one_read_per_block);
	tcase_add_test(ti, test_iter_mark_dirty);
	tcase_add_test(ti, test_iter_area_limit);
	tcase_add_test(ti, test_iter_errors);
	tcase_add_test(ti, test_iter_htree);
	tcase_add_test(ti, test_iter_htree_bad_root);
	tcase_add_test(ti, test_iter_htree_two_levels);
	tcase_add_test(ti, test_iter_64k);
	tcase_add_test(tp, test_lookup);
	tcase_add_test(tp, test_path_basic);
	tcase_add_test(tp, test_path_symlinks);
	tcase_add_test(tp, test_path_too_long);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, ti);
	suite_add_tcase(s, tp);
	return s;
}
