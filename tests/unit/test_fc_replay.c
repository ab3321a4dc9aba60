// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for fc_replay.c on forged fast-commit tags (struct extkit_fc
 * as fast_commit.c's scan hands it over), replayed into an ext4 image
 * with extents holding file F (4 blocks at P, named "f") and file G (no
 * blocks, "g") in the root:
 * - a file created (INODE, ADD_RANGE, CREAT): named, mapped, in use, its
 *   blocks marked and i_blocks counted;
 * - DEL_RANGE punches a hole (the extent split) and frees its blocks;
 *   ADD_RANGE over mapped blocks maps the logged ones and frees the old;
 *   blocks one inode lets go and another's ADD_RANGE claims stay in use;
 * - UNLINK of the last link: the name gone, dtime set, the inode and its
 *   blocks freed; LINK adds a name and a link;
 * - CREAT of a directory gives it a block with '.' and '..', never from
 *   a range the log claims (even one a later tag maps);
 * - INODE takes the logged fields but keeps the extent map on disk;
 * - tags that cannot apply (bad inode numbers and names, ranges outside
 *   the filesystem or over its metadata, inodes not in use, a parent
 *   that is no directory) are skipped and counted with the first reason,
 *   and a log of only those writes nothing;
 * after each, the group and superblock free counts agree with the
 * bitmaps (the superblock's counted again from the groups').
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "bmap.h"
#include "dir.h"
#include "diradd.h"
#include "dirspace.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "fast_commit.h"
#include "fs.h"
#include "group.h"
#include "image.h"
#include "inode.h"
#include "ondisk.h"
#include "suites.h"

#define BS	1024u
#define F	12u
#define G	13u
#define NEW	15u	/* unused until a tag makes it */
#define ROOT	EXT2_ROOT_INO
#define ISIZE	160u	/* logged inode: 128 + i_extra_isize */

struct fr {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t p;		/* F's blocks */
	uint64_t q;		/* a free run of 8 blocks */
	struct extkit_fc fc;
	struct extkit_fc_tag tags[32];
	uint8_t vals[4096];
	uint32_t used;
	struct extkit_fc_stats st;
};

static void add_name(struct extkit_fs *fs, const char *name, uint32_t ino)
{
	struct extkit_dirspace ds;

	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, ROOT, 0), 0);
	ck_assert_int_eq(extkit_dir_add(&ds, name, (uint32_t)strlen(name), ino,
					EXT2_FT_REG_FILE, NULL), 0);
	extkit_dirspace_free(&ds);
}

static void file_inode(struct extkit_inode *in, uint32_t ino, uint16_t mode)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];

	memset(in, 0, sizeof(*in));
	in->mode = mode;
	in->links_count = S_ISDIR(mode) ? 2 : 1;
	in->flags = EXT4_EXTENTS_FL;
	in->generation = 0x100 + ino;
	in->extra_isize = ISIZE - 128;
	extkit_extent_node_init(root, sizeof(root), EXTKIT_EXTENT_ROOT_MAX, 0);
	extkit_extent_root_put(in, root);
}

/* ino: a file of n blocks from p (none when n is 0), named name. */
static void make_file(struct fr *t, uint32_t ino, const char *name,
		      uint64_t p, uint32_t n)
{
	struct extkit_fs *fs = t->fs;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct extkit_extent ex = { .lblk = 0, .pblk = p, .len = n };
	struct extkit_inode in;

	file_inode(&in, ino, S_IFREG | 0644);
	if (n) {
		extkit_extent_root_get(&in, root);
		extkit_extent_put(root, 0, &ex);
		extkit_extent_set_entries(root, 1);
		extkit_extent_root_put(&in, root);
		ck_assert_int_eq(extkit_alloc_mark(fs, p, n), 0);
	}
	in.size = (uint64_t)n * BS;
	extkit_inode_set_fs_blocks(fs, &in, n);
	ck_assert_int_eq(extkit_alloc_inode_set(fs, ino, 1, 0), 0);
	ck_assert_int_eq(extkit_inode_write(fs, ino, &in), 0);
	add_name(fs, name, ino);
}

static void fr_open(struct fr *t)
{
	struct test_image_opts o;

	memset(t, 0, sizeof(*t));
	test_image_defaults(&o);
	o.incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	t->p = test_image_first_free_block(t->fs) + 100;
	t->q = t->p + 50;
	make_file(t, F, "f", t->p, 4);
	make_file(t, G, "g", 0, 0);
	ck_assert_int_eq(extkit_alloc_commit(t->fs), 0);
	t->fc.tags = t->tags;
	t->fc.vals = t->vals;
}

static void fr_close(struct fr *t)
{
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

/* ---- forged tags ---- */

static void put_tag(struct fr *t, uint16_t tag, const void *v, uint32_t len)
{
	ck_assert_uint_lt(t->fc.ntags, 32);
	ck_assert_uint_le(t->used + len, sizeof(t->vals));
	t->tags[t->fc.ntags++] = (struct extkit_fc_tag){ tag, (uint16_t)len,
							 t->used };
	memcpy(t->vals + t->used, v, len);
	t->used += len;
	t->fc.count[tag]++;
}

static void add_range(struct fr *t, uint32_t ino, uint32_t lblk,
		      uint16_t len, uint64_t pblk)
{
	uint8_t v[16] = { 0 };

	put_le32(v, ino);
	put_le32(v + 4, lblk);		/* ee_block */
	put_le16(v + 8, len);		/* ee_len */
	put_le16(v + 10, (uint16_t)(pblk >> 32));
	put_le32(v + 12, (uint32_t)pblk);
	put_tag(t, EXTKIT_FC_ADD_RANGE, v, sizeof(v));
}

static void del_range(struct fr *t, uint32_t ino, uint32_t lblk,
		      uint32_t len)
{
	uint8_t v[12];

	put_le32(v, ino);
	put_le32(v + 4, lblk);
	put_le32(v + 8, len);
	put_tag(t, EXTKIT_FC_DEL_RANGE, v, sizeof(v));
}

static void dentry(struct fr *t, uint16_t tag, uint32_t parent, uint32_t ino,
		   const char *name)
{
	uint8_t v[8 + 255];
	uint32_t len = (uint32_t)strlen(name);

	put_le32(v, parent);
	put_le32(v + 4, ino);
	memcpy(v + 8, name, len);
	put_tag(t, tag, v, 8 + len);
}

static void inode_tag(struct fr *t, uint32_t ino,
		      const struct extkit_inode *in)
{
	uint8_t v[4 + ISIZE] = { 0 };

	put_le32(v, ino);
	extkit_inode_encode(in, ISIZE, v + 4);
	put_tag(t, EXTKIT_FC_INODE, v, sizeof(v));
}

/* Replays the tags, then reopens the filesystem from the image. */
static int replay(struct fr *t)
{
	int rc = extkit_fc_replay(t->fs, &t->fc, &t->st);

	extkit_fs_close(t->fs);
	t->fs = test_image_open(t->io);
	return rc;
}

/* ---- what is on disk ---- */

static uint64_t pblk_of(struct fr *t, uint32_t ino, uint64_t lblk)
{
	struct extkit_inode in;
	uint64_t pblk = 99;

	ck_assert_int_eq(extkit_inode_read(t->fs, ino, &in), 0);
	ck_assert_int_eq(extkit_bmap(t->fs, &in, lblk, &pblk), 0);
	return pblk;
}

static uint64_t iblocks(struct fr *t, uint32_t ino)
{
	struct extkit_inode in;

	ck_assert_int_eq(extkit_inode_read(t->fs, ino, &in), 0);
	return extkit_inode_blocks_bytes(t->fs, &in) / BS;
}

static int used(struct fr *t, uint64_t blk)
{
	struct extkit_fs *fs = t->fs;
	uint32_t g = (uint32_t)((blk - fs->sb.first_data_block) /
				fs->sb.blocks_per_group);
	uint64_t bit = blk - extkit_group_first_block(&fs->sb, g);
	uint8_t map[BS];

	ck_assert_int_eq(extkit_fs_read_block(fs, fs->groups[g].block_bitmap,
					      map), 0);
	return map[bit / 8] >> (bit % 8) & 1;
}

static int all_used(struct fr *t, uint64_t blk, uint32_t n, int want)
{
	for (uint32_t i = 0; i < n; i++)
		if (used(t, blk + i) != want)
			return 0;
	return 1;
}

static uint32_t lookup(struct fr *t, uint32_t dir, const char *name)
{
	uint32_t ino = 0;
	int rc = extkit_dir_lookup(t->fs, dir, name, (uint32_t)strlen(name),
				   &ino);

	return rc ? 0 : ino;
}

/* Group and superblock free counts as the bitmaps say. */
static void counts_agree(struct fr *t)
{
	struct extkit_fs *fs = t->fs;
	uint64_t blocks = 0, inodes = 0;
	uint8_t map[BS];

	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		uint32_t nb = extkit_group_block_count(&fs->sb, g), fb = 0;
		uint32_t fi = 0;

		ck_assert_int_eq(extkit_fs_read_block(fs,
				 fs->groups[g].block_bitmap, map), 0);
		for (uint32_t i = 0; i < nb; i++)
			fb += !(map[i / 8] >> (i % 8) & 1);
		ck_assert_int_eq(extkit_fs_read_block(fs,
				 fs->groups[g].inode_bitmap, map), 0);
		for (uint32_t i = 0; i < fs->sb.inodes_per_group; i++)
			fi += !(map[i / 8] >> (i % 8) & 1);
		ck_assert_uint_eq(fs->groups[g].free_blocks, fb);
		ck_assert_uint_eq(fs->groups[g].free_inodes, fi);
		blocks += fb;
		inodes += fi;
	}
	ck_assert_uint_eq(fs->sb.free_blocks_count, blocks);
	ck_assert_uint_eq(fs->sb.free_inodes_count, inodes);
}

static void none_skipped(struct fr *t)
{
	ck_assert_msg(t->st.skipped == 0, "skipped tag %u: %s",
		      t->st.first_skip, t->st.skip_why);
}

/* ---- the tests ---- */

START_TEST(test_fixture)
{
	struct fr t;

	fr_open(&t);
	ck_assert_uint_eq(lookup(&t, ROOT, "f"), F);
	ck_assert_uint_eq(pblk_of(&t, F, 3), t.p + 3);
	ck_assert(all_used(&t, t.p, 4, 1));
	ck_assert(all_used(&t, t.q, 8, 0));
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

START_TEST(test_create_file)
{
	struct extkit_inode in;
	struct fr t;

	fr_open(&t);
	file_inode(&in, NEW, S_IFREG | 0640);
	in.size = 3 * BS;
	inode_tag(&t, NEW, &in);
	add_range(&t, NEW, 0, 3, t.q);
	dentry(&t, EXTKIT_FC_CREAT, ROOT, NEW, "new");
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_uint_eq(t.st.applied[EXTKIT_FC_INODE], 1);
	ck_assert_uint_eq(t.st.applied[EXTKIT_FC_ADD_RANGE], 1);
	ck_assert_uint_eq(t.st.applied[EXTKIT_FC_CREAT], 1);
	ck_assert_uint_eq(lookup(&t, ROOT, "new"), NEW);
	ck_assert_int_eq(extkit_inode_in_use(t.fs, NEW), 1);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(pblk_of(&t, NEW, i), t.q + i);
	ck_assert_uint_eq(pblk_of(&t, NEW, 3), 0);
	ck_assert(all_used(&t, t.q, 3, 1));
	ck_assert(all_used(&t, t.q + 3, 5, 0));
	ck_assert_uint_eq(iblocks(&t, NEW), 3);
	ck_assert_uint_eq(lookup(&t, ROOT, "f"), F);	/* the rest kept */
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

START_TEST(test_del_range)
{
	uint64_t free0;
	struct fr t;

	fr_open(&t);
	free0 = t.fs->sb.free_blocks_count;
	del_range(&t, F, 1, 2);
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_uint_eq(t.st.applied[EXTKIT_FC_DEL_RANGE], 1);
	ck_assert_uint_eq(pblk_of(&t, F, 0), t.p);
	ck_assert_uint_eq(pblk_of(&t, F, 1), 0);
	ck_assert_uint_eq(pblk_of(&t, F, 2), 0);
	ck_assert_uint_eq(pblk_of(&t, F, 3), t.p + 3);
	ck_assert(used(&t, t.p) && used(&t, t.p + 3));
	ck_assert(all_used(&t, t.p + 1, 2, 0));
	ck_assert_uint_eq(iblocks(&t, F), 2);
	ck_assert_uint_eq(t.fs->sb.free_blocks_count, free0 + 2);
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

START_TEST(test_add_range_replaces)
{
	struct fr t;

	fr_open(&t);
	add_range(&t, F, 1, 2, t.q);
	add_range(&t, F, 6, 1, t.q + 4);	/* past the end: a new extent */
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_uint_eq(pblk_of(&t, F, 0), t.p);
	ck_assert_uint_eq(pblk_of(&t, F, 1), t.q);
	ck_assert_uint_eq(pblk_of(&t, F, 2), t.q + 1);
	ck_assert_uint_eq(pblk_of(&t, F, 3), t.p + 3);
	ck_assert_uint_eq(pblk_of(&t, F, 5), 0);
	ck_assert_uint_eq(pblk_of(&t, F, 6), t.q + 4);
	ck_assert(all_used(&t, t.p + 1, 2, 0));	/* the old ones freed */
	ck_assert(all_used(&t, t.q, 2, 1));
	ck_assert(used(&t, t.q + 4));
	ck_assert_uint_eq(iblocks(&t, F), 5);
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

/* F lets its blocks go and G's ADD_RANGE maps them: they stay in use. */
START_TEST(test_claimed_not_freed)
{
	struct fr t;

	fr_open(&t);
	del_range(&t, F, 0, 4);
	add_range(&t, G, 0, 4, t.p);
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_uint_eq(pblk_of(&t, F, 0), 0);
	ck_assert_uint_eq(iblocks(&t, F), 0);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(pblk_of(&t, G, i), t.p + i);
	ck_assert(all_used(&t, t.p, 4, 1));
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

START_TEST(test_unlink_last_link)
{
	struct extkit_inode in;
	struct fr t;

	fr_open(&t);
	dentry(&t, EXTKIT_FC_UNLINK, ROOT, G, "f");	/* "f" is F's */
	dentry(&t, EXTKIT_FC_UNLINK, ROOT, F, "f");
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_uint_eq(lookup(&t, ROOT, "f"), 0);
	ck_assert_uint_eq(lookup(&t, ROOT, "g"), G);
	ck_assert_int_eq(extkit_inode_read(t.fs, F, &in), 0);
	ck_assert_uint_eq(in.links_count, 0);
	ck_assert_uint_ne(in.dtime, 0);
	ck_assert_uint_eq(in.size, 0);
	ck_assert_int_eq(extkit_inode_in_use(t.fs, F), 0);
	ck_assert(all_used(&t, t.p, 4, 0));
	ck_assert_int_eq(extkit_inode_read(t.fs, G, &in), 0);
	ck_assert_uint_eq(in.links_count, 1);
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

START_TEST(test_link)
{
	struct extkit_inode in;
	struct fr t;

	fr_open(&t);
	/* the kernel does not keep the superblock's counts: stale ones */
	t.fs->sb.free_blocks_count -= 7;
	t.fs->sb.free_inodes_count -= 3;
	ck_assert_int_eq(extkit_fs_write_super(t.fs), 0);
	dentry(&t, EXTKIT_FC_LINK, ROOT, F, "hard");
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_uint_eq(t.st.applied[EXTKIT_FC_LINK], 1);
	ck_assert_uint_eq(lookup(&t, ROOT, "hard"), F);
	ck_assert_uint_eq(lookup(&t, ROOT, "f"), F);
	ck_assert_int_eq(extkit_inode_read(t.fs, F, &in), 0);
	ck_assert_uint_eq(in.links_count, 2);
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

/* The first free block at or after blk, by the bitmap. */
static uint64_t next_free(struct fr *t, uint64_t blk)
{
	while (used(t, blk))
		blk++;
	return blk;
}

/* A new directory gets its block, not from the range the log claims
 * (the first free blocks after the inode table). */
START_TEST(test_create_dir)
{
	struct extkit_inode in;
	uint64_t x, blk;
	struct fr t;

	fr_open(&t);
	x = next_free(&t, t.fs->groups[0].inode_table);
	ck_assert_uint_lt(x + 20, t.p);
	file_inode(&in, NEW, S_IFDIR | 0755);
	inode_tag(&t, NEW, &in);
	dentry(&t, EXTKIT_FC_CREAT, ROOT, NEW, "d");
	add_range(&t, G, 0, 20, x);	/* claimed before it is replayed */
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_uint_eq(lookup(&t, ROOT, "d"), NEW);
	ck_assert_uint_eq(lookup(&t, NEW, "."), NEW);
	ck_assert_uint_eq(lookup(&t, NEW, ".."), ROOT);
	ck_assert_int_eq(extkit_inode_read(t.fs, NEW, &in), 0);
	ck_assert_uint_eq(in.size, BS);
	ck_assert_uint_ge(in.links_count, 2);
	blk = pblk_of(&t, NEW, 0);
	ck_assert_uint_ne(blk, 0);
	ck_assert(blk < x || blk >= x + 20);
	ck_assert(used(&t, blk));
	ck_assert(all_used(&t, x, 20, 1));
	ck_assert_uint_eq(pblk_of(&t, G, 19), x + 19);
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

/* INODE: the logged fields, the extent map kept from disk, i_blocks
 * counted from it. */
START_TEST(test_inode_keeps_map)
{
	struct extkit_inode in;
	struct fr t;

	fr_open(&t);
	file_inode(&in, F, S_IFREG | 0600);	/* an empty root logged */
	in.uid = 1000;
	in.mtime = 1234567;
	in.size = 4 * BS;
	in.blocks = 1;
	inode_tag(&t, F, &in);
	ck_assert_int_eq(replay(&t), 0);
	none_skipped(&t);
	ck_assert_int_eq(extkit_inode_read(t.fs, F, &in), 0);
	ck_assert_uint_eq(in.mode, S_IFREG | 0600);
	ck_assert_uint_eq(in.uid, 1000);
	ck_assert_uint_eq(in.mtime, 1234567);
	ck_assert_uint_eq(pblk_of(&t, F, 2), t.p + 2);
	ck_assert_uint_eq(iblocks(&t, F), 4);
	counts_agree(&t);
	fr_close(&t);
}
END_TEST

/* Tags that cannot apply: each skipped, the first reason kept, and a
 * log of nothing else writes nothing. */
START_TEST(test_skips)
{
	struct extkit_inode in;
	uint8_t *before;
	struct fr t;

	fr_open(&t);
	file_inode(&in, NEW, S_IFREG | 0644);
	add_range(&t, 5, 0, 1, t.q);			/* reserved inode */
	add_range(&t, t.fs->sb.inodes_count + 1, 0, 1, t.q);
	add_range(&t, F, 0, 2, t.fs->groups[0].inode_table);
	add_range(&t, F, 0, 2, t.fs->sb.blocks_count - 1);
	add_range(&t, F, 0, 0, t.q);			/* empty */
	add_range(&t, NEW, 0, 1, t.q);			/* not in use */
	del_range(&t, F, 0xfffffff0u, 0x20);
	del_range(&t, NEW, 0, 1);
	dentry(&t, EXTKIT_FC_CREAT, ROOT, F, "a/b");
	dentry(&t, EXTKIT_FC_LINK, ROOT, F, "..");
	dentry(&t, EXTKIT_FC_CREAT, ROOT, NEW, "new");	/* no inode */
	dentry(&t, EXTKIT_FC_LINK, F, G, "x");		/* F: no directory */
	dentry(&t, EXTKIT_FC_UNLINK, F, G, "g");
	inode_tag(&t, 1, &in);
	ck_assert_uint_eq(t.fc.ntags, 14);
	before = malloc(t.io->size);
	ck_assert_ptr_nonnull(before);
	memcpy(before, extkit_io_mem_buffer(t.io), t.io->size);
	ck_assert_int_eq(replay(&t), 0);
	ck_assert_uint_eq(t.st.skipped, 14);
	ck_assert_uint_eq(t.st.first_skip, 0);
	ck_assert_str_eq(t.st.skip_why, "a bad inode number");
	for (int k = 0; k < EXTKIT_FC_NTYPES; k++)
		ck_assert_uint_eq(t.st.applied[k], 0);
	ck_assert(!memcmp(extkit_io_mem_buffer(t.io), before, t.io->size));
	free(before);
	fr_close(&t);
}
END_TEST

/* The first reason of each kind, one bad tag at a time. */
START_TEST(test_skip_reasons)
{
	static const char *const why[] = {
		"a range over the filesystem's metadata",
		"a range outside the filesystem",
		"an empty range",
		"a range past the largest file",
		"a bad name",
		"an inode without a sound extent map",
		"a directory that is not one",
	};
	struct fr t;

	fr_open(&t);
	switch (_i) {
	case 0:
		add_range(&t, F, 0, 2, t.fs->groups[0].inode_table + 1);
		break;
	case 1:
		add_range(&t, F, 0, 2, t.fs->sb.blocks_count - 1);
		break;
	case 2:
		add_range(&t, F, 0, 0, t.q);
		break;
	case 3:
		del_range(&t, F, 0xfffffff0u, 0x20);
		break;
	case 4:
		dentry(&t, EXTKIT_FC_LINK, ROOT, F, ".");
		break;
	case 5:
		add_range(&t, NEW, 0, 1, t.q);
		break;
	case 6:
		dentry(&t, EXTKIT_FC_UNLINK, F, G, "g");
		break;
	}
	ck_assert_int_eq(replay(&t), 0);
	ck_assert_uint_eq(t.st.skipped, 1);
	ck_assert_str_eq(t.st.skip_why, why[_i]);
	fr_close(&t);
}
END_TEST

Suite *fc_replay_suite(void)
{
	Suite *s = suite_create("fc_replay");
	TCase *tc = tcase_create("replay");

	tcase_add_test(tc, test_fixture);
	tcase_add_test(tc, test_create_file);
	tcase_add_test(tc, test_del_range);
	tcase_add_test(tc, test_add_range_replaces);
	tcase_add_test(tc, test_claimed_not_freed);
	tcase_add_test(tc, test_unlink_last_link);
	tcase_add_test(tc, test_link);
	tcase_add_test(tc, test_create_dir);
	tcase_add_test(tc, test_inode_keeps_map);
	tcase_add_test(tc, test_skips);
	tcase_add_loop_test(tc, test_skip_reasons, 0, 7);
	suite_add_tcase(s, tc);
	return s;
}
