// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * In-memory ext2 images for unit tests. Every group carries a superblock
 * backup and descriptor copy (no sparse_super), then its bitmaps and inode
 * table; the root directory holds '.' and '..' in one block.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "endian.h"
#include "image.h"
#include "inode.h"
#include "super.h"

void test_image_defaults(struct test_image_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->block_size = 1024;
	o->blocks = 8192;
	o->inodes_per_group = 256;
	o->inode_size = 256;
	o->incompat = EXT2_FEATURE_INCOMPAT_FILETYPE;
}

static uint32_t log2u(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static void fill_super(const struct test_image_opts *o, uint32_t groups,
		       struct extkit_super *sb)
{
	uint32_t bpg = o->blocks_per_group ? o->blocks_per_group :
					     8 * o->block_size;

	memset(sb, 0, sizeof(*sb));
	sb->magic = EXT2_SUPER_MAGIC;
	sb->rev_level = EXT2_DYNAMIC_REV;
	sb->log_block_size = log2u(o->block_size) - 10;
	sb->log_cluster_size = sb->log_block_size;
	sb->blocks_count = o->blocks;
	sb->first_data_block = o->block_size == 1024;
	sb->blocks_per_group = bpg;
	sb->clusters_per_group = bpg;
	sb->inodes_per_group = o->inodes_per_group;
	sb->inodes_count = groups * o->inodes_per_group;
	sb->first_ino = EXT2_GOOD_OLD_FIRST_INO;
	sb->inode_size = (uint16_t)o->inode_size;
	sb->state = EXT2_VALID_FS;
	sb->errors = 1;
	sb->max_mnt_count = 0xffff;
	sb->feature_incompat = o->incompat;
	sb->feature_ro_compat = o->ro_compat;
	sb->feature_compat = o->compat;
	sb->flags = EXT2_FLAGS_UNSIGNED_HASH;
	if (o->desc_size >= 64) {
		sb->feature_incompat |= EXT4_FEATURE_INCOMPAT_64BIT;
		sb->desc_size = (uint16_t)o->desc_size;
	}
	for (int i = 0; i < 16; i++)
		sb->uuid[i] = (uint8_t)(0x10 + i);
}

static void set_bits(uint8_t *map, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		map[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* Lays out group g; returns the blocks it uses. */
static uint32_t layout_group(struct extkit_fs *fs, uint32_t g, uint8_t *img)
{
	struct extkit_group *gd = &fs->groups[g];
	uint32_t bs = fs->g.block_size;
	uint64_t start = extkit_group_first_block(&fs->sb, g);
	uint32_t count = extkit_group_block_count(&fs->sb, g);
	uint32_t meta = extkit_group_sb_overhead(&fs->sb, &fs->g, g);
	uint8_t *bbm;

	gd->block_bitmap = start + meta;
	gd->inode_bitmap = start + meta + 1;
	gd->inode_table = start + meta + 2;
	meta += 2 + fs->g.itable_blocks;
	bbm = img + gd->block_bitmap * bs;
	set_bits(bbm, 0, meta);
	set_bits(bbm, count, bs * 8);
	set_bits(img + gd->inode_bitmap * bs, fs->sb.inodes_per_group, bs * 8);
	gd->free_blocks = count - meta;
	gd->free_inodes = fs->sb.inodes_per_group;
	return meta;
}

static void make_root(struct extkit_fs *fs, uint8_t *img)
{
	uint32_t bs = fs->g.block_size;
	struct extkit_group *gd = &fs->groups[0];
	uint64_t blk = gd->inode_table + fs->g.itable_blocks;
	uint8_t *b = img + blk * bs;
	struct extkit_inode root;
	__le16 rl;

	/* '.' then '..' covering the rest of the block */
	put_le32(b, EXT2_ROOT_INO);
	put_le16(b + 4, 12);
	b[6] = 1;
	b[7] = EXT2_FT_DIR;
	b[8] = '.';
	put_le32(b + 12, EXT2_ROOT_INO);
	extkit_rec_len_to_disk(bs - 12, bs, &rl);
	memcpy(b + 16, &rl, 2);
	b[18] = 2;
	b[19] = EXT2_FT_DIR;
	b[20] = '.';
	b[21] = '.';
	set_bits(img + gd->block_bitmap * bs,
		 (uint32_t)(blk - extkit_group_first_block(&fs->sb, 0)),
		 (uint32_t)(blk - extkit_group_first_block(&fs->sb, 0)) + 1);
	gd->free_blocks--;
	/* inodes 1..first_ino-1 are reserved and in use */
	set_bits(img + gd->inode_bitmap * bs, 0, fs->sb.first_ino - 1);
	gd->free_inodes -= fs->sb.first_ino - 1;
	gd->used_dirs = 1;
	memset(&root, 0, sizeof(root));
	root.mode = S_IFDIR | 0755;
	root.links_count = 2;
	root.size = bs;
	root.block[0] = (uint32_t)blk;
	root.extra_isize = fs->g.inode_size > 128 ? 32 : 0;
	extkit_inode_set_fs_blocks(fs, &root, 1);
	ck_assert_int_eq(extkit_inode_write(fs, EXT2_ROOT_INO, &root), 0);
}

struct extkit_io *test_image_make(const struct test_image_opts *o)
{
	struct extkit_super sb;
	struct extkit_geom geom;
	struct extkit_fs *fs;
	struct extkit_io *io;
	uint32_t bpg = o->blocks_per_group ? o->blocks_per_group :
					     8 * o->block_size;
	uint32_t groups = (o->blocks - (o->block_size == 1024) + bpg - 1) / bpg;
	uint64_t free_blocks = 0, free_inodes = 0;
	const char *why = NULL;
	uint8_t *img;

	fill_super(o, groups, &sb);
	ck_assert_msg(extkit_super_validate(&sb, 0, &geom, &why) == 0, "%s",
		      why ? why : "?");
	ck_assert_int_eq(extkit_io_open_mem_owned((size_t)o->blocks *
						  o->block_size, &io), 0);
	img = extkit_io_mem_buffer(io);
	extkit_super_encode(&sb, (struct ext2_super_block *)(img + 1024));
	fs = calloc(1, sizeof(*fs));
	fs->io = io;
	fs->sb = sb;
	fs->g = geom;
	fs->raw_sb = *(struct ext2_super_block *)(img + 1024);
	fs->groups = calloc(groups, sizeof(*fs->groups));
	fs->gdt_raw = calloc(geom.gdt_blocks, geom.block_size);
	io->block_size = geom.block_size;
	for (uint32_t g = 0; g < groups; g++)
		layout_group(fs, g, img);
	make_root(fs, img);
	for (uint32_t g = 0; g < groups; g++) {
		free_blocks += fs->groups[g].free_blocks;
		free_inodes += fs->groups[g].free_inodes;
	}
	fs->sb.free_blocks_count = free_blocks;
	fs->sb.free_inodes_count = (uint32_t)free_inodes;
	ck_assert_int_eq(extkit_fs_write_super(fs), 0);
	extkit_fs_close(fs);
	return io;
}

struct extkit_fs *test_image_open(struct extkit_io *io)
{
	struct extkit_fs *fs = NULL;
	const char *why = NULL;
	int rc = extkit_fs_open_io(io, EXTKIT_FS_WRITE, 0, 0, &fs, &why);

	ck_assert_msg(rc == 0, "open: %d %s", rc, why ? why : "");
	return fs;
}

uint64_t test_image_first_free_block(const struct extkit_fs *fs)
{
	/* group 0: metadata, then the root directory block */
	return fs->groups[0].inode_table + fs->g.itable_blocks + 1;
}
