// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A metadata_csum filesystem in memory with one of each structure a
 * new UUID re-seeds (csfs.h), built with lib's own writers on a
 * test_image, then sealed: every bitmap and inode checksum set.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "csfs.h"
#include "csum.h"
#include "diradd.h"
#include "dirblock.h"
#include "dircompact.h"
#include "dirspace.h"
#include "ea_inode_build.h"
#include "endian.h"
#include "extent.h"
#include "image.h"
#include "inode.h"
#include "journal_new.h"
#include "ondisk.h"
#include "walk.h"
#include "xattr.h"
#include "xattrbuild.h"

#define BS	CSFS_BS
#define NOW	1700000000u
#define EA_SIZE	2000u

static uint8_t ea_value[EA_SIZE];

static uint64_t take(struct extkit_fs *fs)
{
	uint64_t b;

	ck_assert_int_eq(extkit_alloc_block(fs, test_image_first_free_block(fs),
					    &b), 0);
	return b;
}

static void base_inode(struct extkit_inode *in, uint32_t ino, uint16_t mode)
{
	memset(in, 0, sizeof(*in));
	in->mode = mode;
	in->links_count = 1;
	in->generation = 0x5a5a0000u + ino;
	in->extra_isize = 32;
	in->mtime = in->ctime = in->atime = NOW;
}

/* CSFS_FILE: four data blocks under an extent tree block, and a value
 * too large for the inode, in an EA block. */
static void make_file(struct csfs *c)
{
	struct extkit_fs *fs = c->fs;
	static const char note[600] = "a note";
	struct extkit_xattr_item it = { .index = EXTKIT_XATTR_INDEX_USER,
					.name_len = 4, .name = "note",
					.value = note, .size = sizeof(note) };
	uint8_t node[BS], root[EXTKIT_EXTENT_ROOT_SIZE], raw[256], blk[BS];
	struct extkit_extent_idx ix;
	struct extkit_inode in;
	int use = 0;

	ck_assert_int_eq(extkit_alloc_inode_set(fs, CSFS_FILE, 1, 0), 0);
	base_inode(&in, CSFS_FILE, S_IFREG | 0644);
	c->tree_block = take(fs);
	extkit_extent_node_init(node, BS, extkit_extent_capacity(BS), 0);
	for (uint16_t i = 0; i < 4; i++) {
		struct extkit_extent ex = { .lblk = i, .pblk = take(fs),
					    .len = 1 };

		memset(blk, 'a' + i, BS);
		ck_assert_int_eq(extkit_fs_write_block(fs, ex.pblk, blk), 0);
		extkit_extent_put(node, i, &ex);
	}
	extkit_extent_set_entries(node, 4);
	ck_assert_int_eq(extkit_extent_write_block(fs, CSFS_FILE,
						   in.generation,
						   c->tree_block, node), 0);
	extkit_extent_node_init(root, sizeof(root), EXTKIT_EXTENT_ROOT_MAX, 1);
	ix.lblk = 0;
	ix.child = c->tree_block;
	extkit_extent_idx_put(root, 0, &ix);
	extkit_extent_set_entries(root, 1);
	extkit_extent_root_put(&in, root);
	in.flags = EXT4_EXTENTS_FL;
	in.size = 4 * BS;
	in.links_count = CSFS_NAMES;	/* every name in the root */
	c->ea_block = take(fs);
	in.file_acl = c->ea_block;
	extkit_inode_set_fs_blocks(fs, &in, 6);
	memset(raw, 0, sizeof(raw));
	extkit_inode_encode(&in, sizeof(raw), raw);
	ck_assert_int_eq(extkit_xattr_build(fs, &it, 1, raw, blk, &use), 0);
	ck_assert_int_eq(use, 1);
	extkit_ea_block_csum_set(fs, c->ea_block, blk);
	ck_assert_int_eq(extkit_fs_write_block(fs, c->ea_block, blk), 0);
	ck_assert_int_eq(extkit_inode_write_raw(fs, CSFS_FILE, raw), 0);
}

/* CSFS_DIR: a directory mapped by i_block[0] (no extents), one leaf. */
static void make_dir(struct csfs *c)
{
	struct extkit_fs *fs = c->fs;
	struct extkit_inode in;
	uint8_t buf[BS];

	ck_assert_int_eq(extkit_alloc_inode_set(fs, CSFS_DIR, 1, 1), 0);
	base_inode(&in, CSFS_DIR, S_IFDIR | 0755);
	in.links_count = 2;
	c->dir_block = take(fs);
	in.block[0] = (uint32_t)c->dir_block;
	in.size = BS;
	extkit_inode_set_fs_blocks(fs, &in, 1);
	extkit_dirblock_new(fs, buf, CSFS_DIR, EXT2_ROOT_INO, 0);
	ck_assert_int_eq(extkit_dirblock_write(fs, CSFS_DIR, in.generation,
					       c->dir_block, buf), 0);
	ck_assert_int_eq(extkit_inode_write(fs, CSFS_DIR, &in), 0);
}

/* CSFS_EA_INODE holds a 2000-byte value; CSFS_EA_OWNER's in-inode entry
 * names it. */
static void make_ea_inode(struct csfs *c)
{
	struct extkit_fs *fs = c->fs;
	struct extkit_xattr_item it = { .index = EXTKIT_XATTR_INDEX_USER,
					.name_len = 3, .name = "big",
					.value = ea_value, .size = EA_SIZE };
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE], raw[256], blk[BS];
	struct extkit_inode in;
	int use = 1;

	for (uint32_t i = 0; i < EA_SIZE; i++)
		ea_value[i] = (uint8_t)(i * 13 + 5);
	ck_assert_int_eq(extkit_alloc_inode_set(fs, CSFS_EA_INODE, 1, 0), 0);
	base_inode(&in, CSFS_EA_INODE, S_IFREG | 0600);
	extkit_extent_node_init(root, sizeof(root), EXTKIT_EXTENT_ROOT_MAX, 0);
	for (uint16_t i = 0; i < 2; i++) {
		struct extkit_extent ex = { .lblk = i, .pblk = take(fs),
					    .len = 1 };

		memset(blk, 0, BS);
		memcpy(blk, ea_value + i * BS, i ? EA_SIZE - BS : BS);
		ck_assert_int_eq(extkit_fs_write_block(fs, ex.pblk, blk), 0);
		extkit_extent_put(root, i, &ex);
	}
	extkit_extent_set_entries(root, 2);
	extkit_extent_root_put(&in, root);
	in.flags = EXT4_EXTENTS_FL;
	in.size = EA_SIZE;
	extkit_inode_set_fs_blocks(fs, &in, 2);
	it.value_hash = extkit_ea_inode_init(fs, &in, ea_value, EA_SIZE, NOW);
	it.value_inum = CSFS_EA_INODE;
	ck_assert_int_eq(extkit_inode_write(fs, CSFS_EA_INODE, &in), 0);

	ck_assert_int_eq(extkit_alloc_inode_set(fs, CSFS_EA_OWNER, 1, 0), 0);
	base_inode(&in, CSFS_EA_OWNER, S_IFREG | 0644);
	/* the EA inode's blocks are charged to its owner (e2fsck, kernel) */
	extkit_inode_set_fs_blocks(fs, &in, 2);
	memset(raw, 0, sizeof(raw));
	extkit_inode_encode(&in, sizeof(raw), raw);
	ck_assert_int_eq(extkit_xattr_place(fs, &it, 1, raw, 1), 0);
	ck_assert_uint_eq(it.ea_inode, 1);
	ck_assert_uint_eq(it.where, EXTKIT_XATTR_AT_INODE);
	it.value_inum = CSFS_EA_INODE;
	it.value_hash = extkit_ea_inode_value_hash(fs, ea_value, EA_SIZE);
	extkit_xattr_lay_out(fs, &it, 1, raw, blk, &use);
	ck_assert_int_eq(use, 0);
	ck_assert_int_eq(extkit_inode_write_raw(fs, CSFS_EA_OWNER, raw), 0);
}

/* The root: a leaf with a tail, the directory and the EA owner, then
 * enough names (links of CSFS_FILE) for an htree. */
static void make_root(struct csfs *c)
{
	struct extkit_fs *fs = c->fs;
	struct extkit_compact_result res;
	struct extkit_dirspace ds;
	struct extkit_inode in;
	uint8_t buf[BS];
	char name[64];

	ck_assert_int_eq(extkit_inode_read(fs, EXT2_ROOT_INO, &in), 0);
	extkit_dirblock_new(fs, buf, EXT2_ROOT_INO, EXT2_ROOT_INO, 0);
	ck_assert_int_eq(extkit_dirblock_write(fs, EXT2_ROOT_INO,
					       in.generation, in.block[0],
					       buf), 0);
	in.links_count = 3;		/* '.', '..' and CSFS_DIR's '..' */
	ck_assert_int_eq(extkit_inode_write(fs, EXT2_ROOT_INO, &in), 0);
	ck_assert_int_eq(extkit_dirspace_build(&ds, fs, EXT2_ROOT_INO, 0), 0);
	ck_assert_int_eq(extkit_dir_add(&ds, "dir", 3, CSFS_DIR, EXT2_FT_DIR,
					NULL), 0);
	ck_assert_int_eq(extkit_dir_add(&ds, "owner", 5, CSFS_EA_OWNER,
					EXT2_FT_REG_FILE, NULL), 0);
	for (unsigned int i = 0; i < CSFS_NAMES; i++) {
		snprintf(name, sizeof(name), "a_name_long_enough_%04u", i);
		ck_assert_int_eq(extkit_dir_add(&ds, name,
						(uint32_t)strlen(name),
						CSFS_FILE, EXT2_FT_REG_FILE,
						NULL), 0);
	}
	extkit_dirspace_free(&ds);
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(extkit_dir_compact(fs, EXT2_ROOT_INO, &res), 0);
	ck_assert_int_eq(res.indexed, 1);
}

static int is_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/* The test image's bitmaps and inodes, written without checksums: every
 * one set now, then the descriptors and superblock. */
static void seal(struct extkit_fs *fs)
{
	uint8_t buf[BS], raw[256];

	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		ck_assert_int_eq(extkit_fs_read_block(fs,
				 fs->groups[g].block_bitmap, buf), 0);
		extkit_group_block_bitmap_csum_set(fs, g, buf);
		ck_assert_int_eq(extkit_fs_read_block(fs,
				 fs->groups[g].inode_bitmap, buf), 0);
		extkit_group_inode_bitmap_csum_set(fs, g, buf);
	}
	for (uint32_t ino = 1; ino <= fs->sb.inodes_count; ino++) {
		ck_assert_int_eq(extkit_inode_read_raw(fs, ino, raw), 0);
		if (!is_zero(raw, fs->g.inode_size))
			ck_assert_int_eq(extkit_inode_write_raw(fs, ino, raw),
					 0);
	}
	ck_assert_int_eq(extkit_alloc_commit(fs), 0);
}

void csfs_make(struct csfs *c, int journal)
{
	struct extkit_journal_params p = { .blocks = 1024, .zero_log = 1,
					   .now = NOW };
	struct test_image_opts o;

	memset(c, 0, sizeof(*c));
	test_image_defaults(&o);
	o.blocks = 4096;
	o.blocks_per_group = 2048;
	o.inodes_per_group = 64;
	o.desc_size = 64;
	o.incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS |
		      EXT4_FEATURE_INCOMPAT_EA_INODE;
	o.compat = EXT2_FEATURE_COMPAT_DIR_INDEX |
		   EXT2_FEATURE_COMPAT_EXT_ATTR;
	o.ro_compat = EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	c->io = test_image_make(&o);
	c->fs = test_image_open(c->io);
	c->fs->sb.checksum_type = 1;		/* crc32c */
	c->fs->sb.min_extra_isize = c->fs->sb.want_extra_isize = 32;
	if (journal)
		ck_assert_int_eq(extkit_journal_create(c->fs, &p), 0);
	make_file(c);
	make_dir(c);
	make_ea_inode(c);
	make_root(c);
	seal(c->fs);
	csfs_reopen(c);
}

void csfs_reopen(struct csfs *c)
{
	extkit_fs_close(c->fs);
	c->fs = test_image_open(c->io);
}

void csfs_close(struct csfs *c)
{
	extkit_fs_close(c->fs);
	extkit_io_close(c->io);
	c->fs = NULL;
	c->io = NULL;
}

/* --- the verifier --- */

struct vctx {
	struct extkit_fs *fs;
	struct csfs_report *rep;
	uint32_t ino, gen;
	int dir, index;
	uint8_t buf[BS];
};

static void count(struct csfs_report *r, enum csfs_kind k, int ok)
{
	r->checked[k]++;
	if (!ok)
		r->bad[k]++;
}

static void check_dir_block(struct vctx *v, uint64_t blk)
{
	struct extkit_fs *fs = v->fs;
	int ok;

	ck_assert_int_eq(extkit_fs_read_block(fs, blk, v->buf), 0);
	ok = v->index ? extkit_dirblock_csum_verify(fs, v->ino, v->gen, v->buf)
		      : extkit_dirblock_leaf_csum_verify(fs, v->ino, v->gen,
							 v->buf);
	ck_assert_int_ne(ok, -ENOSPC);	/* every block carries one */
	count(v->rep, v->index && extkit_dirblock_is_dx(fs, v->buf) ?
		      CSFS_DX : CSFS_LEAF, ok == 1);
}

static int walk_fn(struct extkit_fs *fs, struct extkit_walk_ent *ent,
		   void *arg)
{
	struct vctx *v = arg;

	if (ent->bad) {
		count(v->rep, CSFS_EXTENT, 0);
		return 0;
	}
	if (ent->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (ent->flags & EXTKIT_WALK_META) {
		if (ent->flags & EXTKIT_WALK_EXTENT)
			count(v->rep, CSFS_EXTENT,
			      extkit_extent_block_csum_ok(fs, v->ino, v->gen,
							  ent->block) == 1);
		return 0;
	}
	for (uint32_t i = 0; v->dir && i < ent->len; i++)
		check_dir_block(v, ent->pblk + i);
	return 0;
}

static void check_ea_block(struct vctx *v, uint64_t blk)
{
	const struct ext2_ext_attr_header *h = (const void *)v->buf;

	ck_assert_int_eq(extkit_fs_read_block(v->fs, blk, v->buf), 0);
	count(v->rep, CSFS_EA_BLOCK, le32(h->h_checksum) ==
	      extkit_ea_block_csum(v->fs, blk, v->buf));
}

/* The value hash of EA inode ino under the current seed. */
static uint32_t value_hash(struct extkit_fs *fs, uint32_t ino, uint32_t size)
{
	uint8_t *val = malloc(size ? size : 1);
	uint32_t h;

	ck_assert_ptr_nonnull(val);
	ck_assert_int_eq(extkit_ea_inode_read(fs, ino, size, val), 0);
	h = extkit_ea_inode_value_hash(fs, val, size);
	free(val);
	return h;
}

/* Each in-inode entry naming an EA inode hashes its name and the value
 * hash of that inode's value under the current seed. */
static void check_ibody(struct vctx *v, const uint8_t *raw)
{
	struct extkit_xattr_region r;
	struct extkit_inode ea;
	struct extkit_xattr x;
	uint32_t off;

	if (!extkit_xattr_ibody_region(raw, v->fs->g.inode_size, &r))
		return;
	off = r.first;
	while (extkit_xattr_next(&r, &off, &x) == 1) {
		if (!x.value_inum)
			continue;
		ck_assert_int_eq(extkit_inode_read(v->fs, x.value_inum, &ea),
				 0);
		count(v->rep, CSFS_EA_ENTRY, x.hash ==
		      extkit_xattr_hash_ea_inode((const uint8_t *)x.name,
						 x.name_len,
						 value_hash(v->fs,
							    x.value_inum,
							    x.value_size), 0));
	}
}

static void check_inode(struct vctx *v, uint32_t ino, uint8_t *raw)
{
	struct extkit_fs *fs = v->fs;
	struct extkit_walk wk = { .ino = ino, .flags = EXTKIT_WALK_DRY,
				  .fn = walk_fn, .arg = v };
	struct extkit_inode in;

	v->rep->inodes++;
	count(v->rep, CSFS_INODE, extkit_inode_csum_verify(fs, ino, raw) == 1);
	extkit_inode_decode(raw, fs->g.inode_size, &in);
	if (!in.links_count)
		return;
	v->ino = ino;
	v->gen = in.generation;
	v->dir = S_ISDIR(in.mode);
	v->index = !!(in.flags & EXT2_INDEX_FL);
	if (extkit_inode_has_block_map(&in))
		ck_assert_int_eq(extkit_walk(fs, &in, &wk), 0);
	if (in.file_acl)
		check_ea_block(v, in.file_acl);
	if (in.flags & EXT4_EA_INODE_FL)
		count(v->rep, CSFS_EA_HASH,
		      in.atime == value_hash(fs, ino, (uint32_t)in.size));
	check_ibody(v, raw);
}

unsigned int csfs_verify(struct extkit_fs *fs, struct csfs_report *rep)
{
	struct vctx *v = calloc(1, sizeof(*v));
	uint8_t raw[256];
	unsigned int bad = 0;
	uint16_t want;

	ck_assert_ptr_nonnull(v);
	memset(rep, 0, sizeof(*rep));
	v->fs = fs;
	v->rep = rep;
	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		count(rep, CSFS_GROUP, extkit_fs_group_csum_ok(fs, g, &want));
		ck_assert_int_eq(extkit_fs_read_block(fs,
				 fs->groups[g].block_bitmap, v->buf), 0);
		count(rep, CSFS_BBITMAP,
		      extkit_group_block_bitmap_csum_ok(fs, g, v->buf));
		ck_assert_int_eq(extkit_fs_read_block(fs,
				 fs->groups[g].inode_bitmap, v->buf), 0);
		count(rep, CSFS_IBITMAP,
		      extkit_group_inode_bitmap_csum_ok(fs, g, v->buf));
	}
	for (uint32_t ino = 1; ino <= fs->sb.inodes_count; ino++) {
		ck_assert_int_eq(extkit_inode_read_raw(fs, ino, raw), 0);
		if (!is_zero(raw, fs->g.inode_size))
			check_inode(v, ino, raw);
	}
	free(v);
	for (int k = 0; k < CSFS_KINDS; k++)
		bad += rep->bad[k];
	return bad + !extkit_fs_super_csum_ok(fs);
}
