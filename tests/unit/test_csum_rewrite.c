// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for csum_rewrite.c and csum_commit.c on a metadata_csum
 * filesystem holding one of each structure the UUID seeds (csfs.c):
 * descriptors, both bitmaps, inodes, an extent tree block, directory
 * leaves and htree nodes, an EA block, an EA inode and the entry naming
 * it.
 *
 * The plan writes nothing and switches fs->sb.uuid; written through the
 * journal, every checksum and value hash verifies with lib's own checks
 * under the new UUID and every one fails under the old. A filesystem
 * not clean, or with any checksum wrong, is refused with a reason and
 * its UUID kept; without a journal, or with one too small, -ENOSPC. Cut
 * short after any number of writes, the image holds the old UUID with
 * every checksum right, or needs_recovery, which
 * extkit_csum_rewrite_finish replays into the new one.
 * (e2fsck's agreement: tests/label/csum_rewrite.sh.)
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csfs.h"
#include "csum_rewrite.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "io.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_write.h"
#include "ondisk.h"
#include "suites.h"

#define BS	CSFS_BS

static const uint8_t new_uuid[16] = {
	0x0b, 0x7e, 0x4a, 0x1c, 0x2f, 0x3d, 0x4e, 0x5a,
	0x9b, 0x6c, 0x7d, 0x8e, 0x9f, 0x0a, 0x1b, 0x2c,
};

/* Every kind of checksum the fixture holds, each checked at least once. */
static void all_checked(const struct csfs_report *rep)
{
	for (int k = 0; k < CSFS_KINDS; k++)
		ck_assert_msg(rep->checked[k] > 0, "kind %d not checked", k);
	ck_assert_uint_gt(rep->checked[CSFS_DX], 0);
	ck_assert_uint_gt(rep->checked[CSFS_LEAF], 3);
}

static uint8_t *snapshot(struct extkit_io *io)
{
	uint8_t *copy = malloc(io->size);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, extkit_io_mem_buffer(io), io->size);
	return copy;
}

static int unchanged(struct extkit_io *io, const uint8_t *copy)
{
	return !memcmp(extkit_io_mem_buffer(io), copy, io->size);
}

/* The verifier sees the fixture sound, and sees every kind go bad under
 * another seed: a check that could not fail would prove nothing. */
START_TEST(test_fixture_sound)
{
	struct csfs_report rep;
	struct csfs c;

	csfs_make(&c, 1);
	ck_assert_uint_eq(csfs_verify(c.fs, &rep), 0);
	all_checked(&rep);
	memcpy(c.fs->sb.uuid, new_uuid, 16);
	csfs_verify(c.fs, &rep);
	for (int k = 0; k < CSFS_KINDS; k++)
		ck_assert_msg(rep.bad[k] == rep.checked[k], "kind %d", k);
	csfs_close(&c);
}
END_TEST

START_TEST(test_rewrite_reseeds_everything)
{
	struct extkit_csum_plan plan;
	struct extkit_journal *j;
	enum extkit_journal_problem problem;
	struct csfs_report before, rep;
	const char *why = NULL;
	uint8_t old_uuid[16], *copy;
	struct csfs c;

	csfs_make(&c, 1);
	ck_assert_uint_eq(csfs_verify(c.fs, &before), 0);
	memcpy(old_uuid, c.fs->sb.uuid, 16);
	copy = snapshot(c.io);
	ck_assert_int_eq(extkit_csum_rewrite_plan(c.fs, new_uuid, &plan, &why),
			 0);
	ck_assert(unchanged(c.io, copy));	/* a plan writes nothing */
	ck_assert_mem_eq(c.fs->sb.uuid, new_uuid, 16);
	ck_assert_uint_eq(plan.inodes, before.inodes);
	ck_assert_uint_gt(plan.n, 0);
	for (uint64_t i = 1; i < plan.n; i++)
		ck_assert_uint_lt(plan.blocks[i - 1].blk, plan.blocks[i].blk);
	ck_assert_int_eq(extkit_csum_rewrite_commit(c.fs, &plan, &why), 0);
	extkit_csum_plan_free(&plan);
	ck_assert_uint_eq(plan.n, 0);
	free(copy);

	csfs_reopen(&c);
	ck_assert_mem_eq(c.fs->sb.uuid, new_uuid, 16);
	ck_assert(!extkit_has_incompat(&c.fs->sb,
				       EXT3_FEATURE_INCOMPAT_RECOVER));
	ck_assert_uint_eq(csfs_verify(c.fs, &rep), 0);
	for (int k = 0; k < CSFS_KINDS; k++)
		ck_assert_uint_eq(rep.checked[k], before.checked[k]);
	/* the log is empty again */
	ck_assert_int_eq(extkit_journal_load(c.fs, &j, &problem, &why), 0);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_OK);
	ck_assert_uint_eq(j->start, 0);
	extkit_journal_free(j);
	/* and nothing verifies under the old seed any more */
	memcpy(c.fs->sb.uuid, old_uuid, 16);
	csfs_verify(c.fs, &rep);
	for (int k = 0; k < CSFS_KINDS; k++)
		ck_assert_msg(rep.bad[k] == rep.checked[k], "kind %d", k);
	csfs_close(&c);
}
END_TEST

/* --- refusals --- */

static void flip(struct csfs *c, uint64_t blk, uint32_t off)
{
	uint8_t buf[BS];

	ck_assert_int_eq(extkit_io_read_blocks(c->io, blk, 1, buf), 0);
	buf[off] ^= 0x10;
	ck_assert_int_eq(extkit_io_write_blocks(c->io, blk, 1, buf), 0);
}

static void flip_inode(struct csfs *c, uint32_t ino)
{
	uint64_t blk;
	uint32_t off;

	ck_assert_int_eq(extkit_inode_locate(c->fs, ino, &blk, &off), 0);
	flip(c, blk, off + 8);		/* i_atime */
}

static void flip_ea_value(struct csfs *c)
{
	struct extkit_inode in;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct extkit_extent ex;

	ck_assert_int_eq(extkit_inode_read(c->fs, CSFS_EA_INODE, &in), 0);
	extkit_extent_root_get(&in, root);
	extkit_extent_get(root, 0, &ex);
	flip(c, ex.pblk, 100);
}

enum damage {
	D_ERRORS, D_NOT_CLEAN, D_RECOVER, D_ORPHANS, D_INODE,
	D_TREE, D_LEAF, D_EA_BLOCK, D_EA_VALUE, D_BITMAP, D_IBITMAP,
	D_GROUP, D_DAMAGES
};

static int damage(struct csfs *c, enum damage d)
{
	struct extkit_fs *fs = c->fs;

	switch (d) {
	case D_ERRORS:
		fs->sb.state |= EXT2_ERROR_FS;
		return -EFSCORRUPTED;
	case D_NOT_CLEAN:
		fs->sb.state &= (uint16_t)~EXT2_VALID_FS;
		return -EFSCORRUPTED;
	case D_RECOVER:
		fs->sb.feature_incompat |= EXT3_FEATURE_INCOMPAT_RECOVER;
		return -EFSCORRUPTED;
	case D_ORPHANS:
		fs->sb.last_orphan = CSFS_FILE;
		return -EFSCORRUPTED;
	case D_INODE:
		flip_inode(c, CSFS_DIR);
		return -EFSBADCRC;
	case D_TREE:	/* an unused slot: the header stays sound */
		flip(c, c->tree_block, 12 + 12 * 10);
		return -EFSBADCRC;
	case D_LEAF:
		flip(c, c->dir_block, 100);
		return -EFSBADCRC;
	case D_EA_BLOCK:
		flip(c, c->ea_block, BS - 10);
		return -EFSBADCRC;
	case D_EA_VALUE:
		flip_ea_value(c);
		return -EFSBADCRC;
	case D_BITMAP:
		flip(c, fs->groups[1].block_bitmap, 100);
		return -EFSBADCRC;
	case D_IBITMAP:
		flip(c, fs->groups[1].inode_bitmap, 3);
		return -EFSBADCRC;
	case D_GROUP:
		fs->groups[1].checksum ^= 1;
		return -EFSBADCRC;
	default:
		ck_abort();
	}
	return 0;
}

/* Each damage refused with a reason, the UUID kept, nothing written. */
START_TEST(test_refusals)
{
	struct extkit_csum_plan plan;
	uint8_t old_uuid[16], *copy;
	const char *why;
	struct csfs c;
	int want;

	csfs_make(&c, 1);
	want = damage(&c, (enum damage)_i);
	memcpy(old_uuid, c.fs->sb.uuid, 16);
	copy = snapshot(c.io);
	why = NULL;
	ck_assert_int_eq(extkit_csum_rewrite_plan(c.fs, new_uuid, &plan, &why),
			 want);
	ck_assert_ptr_nonnull(why);
	ck_assert_mem_eq(c.fs->sb.uuid, old_uuid, 16);
	ck_assert(unchanged(c.io, copy));
	free(copy);
	csfs_close(&c);
}
END_TEST

/* No journal to make it atomic: -ENOSPC from the room and the plan. */
START_TEST(test_no_journal)
{
	struct extkit_csum_plan plan;
	const char *why = NULL;
	uint64_t room = 1;
	struct csfs c;

	csfs_make(&c, 0);
	ck_assert_int_eq(extkit_csum_rewrite_room(c.fs, &room, &why), -ENOSPC);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(extkit_csum_rewrite_plan(c.fs, new_uuid, &plan, &why),
			 -ENOSPC);
	ck_assert_ptr_nonnull(why);
	csfs_close(&c);
}
END_TEST

/* A log too short for the plan: the plan stops, -ENOSPC, UUID kept. */
START_TEST(test_journal_too_small)
{
	struct extkit_csum_plan plan;
	struct extkit_journal *j;
	enum extkit_journal_problem problem;
	const char *why = NULL;
	uint64_t room, full;
	uint8_t old_uuid[16], jsb[BS];
	struct csfs c;

	csfs_make(&c, 1);
	memcpy(old_uuid, c.fs->sb.uuid, 16);
	ck_assert_int_eq(extkit_csum_rewrite_room(c.fs, &full, &why), 0);
	ck_assert_int_eq(extkit_journal_load(c.fs, &j, &problem, &why), 0);
	/* as large as the transaction the largest plan makes, and no more */
	ck_assert_uint_le(extkit_journal_transaction_blocks(j, full),
			  (uint64_t)j->last - j->first);
	ck_assert_uint_gt(extkit_journal_transaction_blocks(j, full + 1),
			  (uint64_t)j->last - j->first);
	/* a log of 12 blocks: s_first moved up to 12 before the end */
	ck_assert_int_eq(extkit_io_read_blocks(c.io, j->map[0], 1, jsb), 0);
	put_be32(jsb + offsetof(struct jbd2_superblock, s_first),
		 j->last - 12);
	ck_assert_int_eq(extkit_io_write_blocks(c.io, j->map[0], 1, jsb), 0);
	extkit_journal_free(j);
	ck_assert_int_eq(extkit_csum_rewrite_room(c.fs, &room, &why), 0);
	ck_assert_uint_lt(room, 12);
	ck_assert_uint_gt(room, 0);
	ck_assert_int_eq(extkit_csum_rewrite_plan(c.fs, new_uuid, &plan, &why),
			 -ENOSPC);
	ck_assert_ptr_nonnull(why);
	ck_assert_mem_eq(c.fs->sb.uuid, old_uuid, 16);
	csfs_close(&c);
}
END_TEST

/* --- interrupted commits --- */

/* An io over a mem io that lets limit writes through, then fails. */
struct cut {
	struct extkit_io *base;
	uint64_t writes, limit;
};

static struct cut *cutp(struct extkit_io *io)
{
	return io->priv;
}

static int cut_read(struct extkit_io *io, uint64_t off, void *buf, size_t len)
{
	return cutp(io)->base->ops->read_bytes(cutp(io)->base, off, buf, len);
}

static int cut_write(struct extkit_io *io, uint64_t off, const void *buf,
		     size_t len)
{
	struct cut *c = cutp(io);

	if (c->writes++ >= c->limit)
		return -EIO;
	return c->base->ops->write_bytes(c->base, off, buf, len);
}

static int cut_zero(struct extkit_io *io, uint64_t off, uint64_t len)
{
	struct cut *c = cutp(io);

	if (c->writes++ >= c->limit)
		return -EIO;
	return c->base->ops->zero_bytes(c->base, off, len);
}

static int cut_flush(struct extkit_io *io)
{
	(void)io;
	return 0;
}

static void cut_close(struct extkit_io *io)
{
	free(io->priv);
	free(io);
}

static const struct extkit_io_ops cut_ops = {
	.read_bytes = cut_read,
	.write_bytes = cut_write,
	.zero_bytes = cut_zero,
	.flush = cut_flush,
	.close = cut_close,
};

static struct extkit_io *cut_open(struct extkit_io *base, uint64_t limit)
{
	struct extkit_io *io = calloc(1, sizeof(*io));
	struct cut *c = calloc(1, sizeof(*c));

	ck_assert(io && c);
	c->base = base;
	c->limit = limit;
	io->ops = &cut_ops;
	io->size = base->size;
	io->flags = base->flags;
	io->priv = c;
	return io;
}

/* Plans and commits on image (a copy) with writes cut after limit;
 * returns the writes the commit made or tried. */
static uint64_t cut_commit(const uint8_t *image, size_t size, uint64_t limit,
			   struct extkit_io **mem, int *rc)
{
	struct extkit_csum_plan plan;
	struct extkit_fs *fs;
	struct extkit_io *io;
	const char *why = NULL;
	uint64_t n;

	ck_assert_int_eq(extkit_io_open_mem_owned(size, mem), 0);
	memcpy(extkit_io_mem_buffer(*mem), image, size);
	io = cut_open(*mem, UINT64_MAX);
	fs = test_image_open(io);
	ck_assert_int_eq(extkit_csum_rewrite_plan(fs, new_uuid, &plan, &why),
			 0);
	cutp(io)->writes = 0;
	cutp(io)->limit = limit;
	*rc = extkit_csum_rewrite_commit(fs, &plan, &why);
	n = cutp(io)->writes;
	extkit_csum_plan_free(&plan);
	extkit_fs_close(fs);
	extkit_io_close(io);
	return n;
}

/* After a commit cut short: the old UUID, every checksum right and
 * nothing to recover; or needs_recovery, which finish replays (a
 * committed transaction: the new UUID; an empty log: the old one), every
 * checksum right after. Returns 1 when the new UUID is there. */
static int check_cut(struct extkit_io *mem, const uint8_t *old_uuid,
		     uint64_t n)
{
	struct csfs_report rep;
	struct extkit_fs *fs = test_image_open(mem);
	const char *why = NULL;
	int replayed = 0, is_new;

	if (!extkit_has_incompat(&fs->sb, EXT3_FEATURE_INCOMPAT_RECOVER)) {
		ck_assert_msg(!memcmp(fs->sb.uuid, old_uuid, 16),
			      "cut after %llu: new UUID, nothing to recover",
			      (unsigned long long)n);
		ck_assert_msg(csfs_verify(fs, &rep) == 0, "cut after %llu",
			      (unsigned long long)n);
		extkit_fs_close(fs);
		return 0;
	}
	ck_assert(!memcmp(fs->sb.uuid, old_uuid, 16) ||
		  !memcmp(fs->sb.uuid, new_uuid, 16));
	ck_assert_msg(extkit_csum_rewrite_finish(&fs, &replayed, &why) == 0,
		      "cut after %llu: %s", (unsigned long long)n,
		      why ? why : "");
	ck_assert_int_eq(replayed, 1);
	ck_assert_ptr_null(fs);
	fs = test_image_open(mem);
	is_new = !memcmp(fs->sb.uuid, new_uuid, 16);
	ck_assert(is_new || !memcmp(fs->sb.uuid, old_uuid, 16));
	ck_assert(!extkit_has_incompat(&fs->sb,
				       EXT3_FEATURE_INCOMPAT_RECOVER));
	ck_assert_msg(csfs_verify(fs, &rep) == 0, "cut after %llu, replayed",
		      (unsigned long long)n);
	/* finishing again has nothing to do */
	ck_assert_int_eq(extkit_csum_rewrite_finish(&fs, &replayed, &why), 0);
	ck_assert_int_eq(replayed, 0);
	extkit_fs_close(fs);
	return is_new;
}

START_TEST(test_cut_at_every_write)
{
	struct extkit_io *mem;
	uint8_t old_uuid[16], *image;
	uint64_t total, first_new = 0;
	struct csfs c;
	size_t size;
	int rc;

	csfs_make(&c, 1);
	memcpy(old_uuid, c.fs->sb.uuid, 16);
	size = c.io->size;
	image = snapshot(c.io);
	csfs_close(&c);
	total = cut_commit(image, size, UINT64_MAX, &mem, &rc);
	ck_assert_int_eq(rc, 0);
	extkit_io_close(mem);
	ck_assert_uint_gt(total, 6);
	for (uint64_t n = 0; n < total; n++) {
		cut_commit(image, size, n, &mem, &rc);
		ck_assert_int_eq(rc, -EIO);
		/* one commit point: the old UUID before it, the new after */
		if (check_cut(mem, old_uuid, n)) {
			if (!first_new)
				first_new = n;
		} else {
			ck_assert_msg(!first_new, "old UUID after %llu, new "
				      "after %llu", (unsigned long long)n,
				      (unsigned long long)first_new);
		}
		extkit_io_close(mem);
	}
	ck_assert_uint_gt(first_new, 2);	/* both outcomes happen */
	free(image);
}
END_TEST

static void save(struct extkit_io *io, const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(extkit_io_mem_buffer(io), 1, io->size, f),
			  io->size);
	ck_assert_int_eq(fclose(f), 0);
}

/* For tests/label/csum_fixture.sh: with EXTKIT_TEST_CSFS_DIR set, the
 * fixture before the rewrite (before.img), after it (after.img) and cut
 * right after the commit point (cut.img: needs_recovery, the new UUID in
 * the journal only), for e2fsck to judge. */
START_TEST(test_save_images)
{
	const char *dir = getenv("EXTKIT_TEST_CSFS_DIR");
	struct extkit_csum_plan plan;
	struct extkit_io *mem;
	const char *why = NULL;
	uint64_t n = 0, total;
	uint8_t *image;
	struct csfs c;
	int rc;

	if (!dir)
		return;
	csfs_make(&c, 1);
	save(c.io, dir, "before.img");
	image = snapshot(c.io);
	ck_assert_int_eq(extkit_csum_rewrite_plan(c.fs, new_uuid, &plan, &why),
			 0);
	ck_assert_int_eq(extkit_csum_rewrite_commit(c.fs, &plan, &why), 0);
	extkit_csum_plan_free(&plan);
	save(c.io, dir, "after.img");
	/* the first cut that leaves needs_recovery and the journal full */
	total = cut_commit(image, c.io->size, UINT64_MAX, &mem, &rc);
	extkit_io_close(mem);
	for (n = 0; n < total; n++) {
		struct extkit_fs *fs;
		int committed;

		cut_commit(image, c.io->size, n, &mem, &rc);
		fs = test_image_open(mem);
		committed = extkit_has_incompat(&fs->sb,
				EXT3_FEATURE_INCOMPAT_RECOVER) &&
			    fs->sb.journal_inum;
		if (committed) {
			enum extkit_journal_problem problem;
			struct extkit_journal *j;

			ck_assert_int_eq(extkit_journal_load(fs, &j, &problem,
							     &why), 0);
			committed = j->start != 0;
			extkit_journal_free(j);
		}
		extkit_fs_close(fs);
		if (committed) {
			save(mem, dir, "cut.img");
			extkit_io_close(mem);
			break;
		}
		extkit_io_close(mem);
	}
	ck_assert_uint_lt(n, total);
	free(image);
	csfs_close(&c);
}
END_TEST

Suite *csum_rewrite_suite(void)
{
	Suite *s = suite_create("csum_rewrite");
	TCase *tc = tcase_create("rewrite");
	TCase *img = tcase_create("images");

	tcase_add_test(tc, test_fixture_sound);
	tcase_add_test(tc, test_rewrite_reseeds_everything);
	tcase_add_loop_test(tc, test_refusals, 0, D_DAMAGES);
	tcase_add_test(tc, test_no_journal);
	tcase_add_test(tc, test_journal_too_small);
	tcase_add_test(tc, test_cut_at_every_write);
	suite_add_tcase(s, tc);
	tcase_add_test(img, test_save_images);
	suite_add_tcase(s, img);
	return s;
}
