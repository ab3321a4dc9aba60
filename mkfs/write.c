// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a new filesystem. Every metadata block is built whole in memory
 * and written once; nothing is written twice. What must read as zeros
 * (inode tables, the backups' reserved GDT blocks, superblock slack) is
 * left alone when the target is known to read zeros (a new or punched
 * image file) and zeroed with the cheapest call otherwise (io zero_bytes:
 * BLKZEROOUT, hole punching, then plain writes). The superblock and the
 * descriptors go last, so an interrupted run leaves no valid filesystem.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bitmap.h"
#include "dir.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "io.h"

#include "mkfs.h"
#include "populate.h"

/*
 * The bitmaps being written and what they were built for: groups past 0
 * differ only in whether they hold a backup and in the last group's
 * size, so most groups reuse the previous group's bitmaps as they are.
 */
struct bitmap_buf {
	struct extkit_bitmap bm;
	uint8_t *buf;		/* block bitmap, then inode bitmap */
	uint32_t used;		/* metadata blocks at the group's start */
	uint32_t count;		/* blocks in the group */
	int for_group0;		/* 1: built for group 0; -1: not built */
};

static void build_block_bitmap(const struct mkfs_layout *l,
			       struct bitmap_buf *b, uint32_t g,
			       uint64_t start)
{
	uint32_t bits = 8 * l->block_size;

	extkit_bitmap_clear_all(&b->bm);
	extkit_bitmap_set_range(&b->bm, 0, b->used);
	if (g == 0)
		extkit_bitmap_set_range(&b->bm, l->root_block - start,
					1 + l->lpf_blocks +
					(l->dind_block ? 1 : 0));
	/* Padding: past the group's last block up to the bitmap's end. */
	extkit_bitmap_set_range(&b->bm, b->count, bits - b->count);
	extkit_bitmap_to_disk(&b->bm, 0, bits, b->buf);
}

static void build_inode_bitmap(const struct mkfs_layout *l,
			       struct bitmap_buf *b, uint32_t g)
{
	uint32_t bits = 8 * l->block_size;

	extkit_bitmap_clear_all(&b->bm);
	if (g == 0)
		extkit_bitmap_set_range(&b->bm, 0, EXT2_GOOD_OLD_FIRST_INO);
	extkit_bitmap_set_range(&b->bm, l->inodes_per_group,
				bits - l->inodes_per_group);
	extkit_bitmap_to_disk(&b->bm, 0, bits, b->buf + l->block_size);
}

/* Writes a group's block and inode bitmaps (adjacent: one write). */
static int write_bitmaps(const struct mkfs_layout *l, struct extkit_fs *fs,
			 uint32_t g, struct bitmap_buf *b)
{
	const struct extkit_group *gd = &fs->groups[g];
	uint64_t start = extkit_group_first_block(&fs->sb, g);
	uint32_t count = extkit_group_block_count(&fs->sb, g);
	uint32_t used = (uint32_t)(gd->inode_table - start) + l->itable_blocks;
	int same = b->for_group0 == 0 && g != 0;

	if (!same || used != b->used || count != b->count) {
		b->used = used;
		b->count = count;
		build_block_bitmap(l, b, g, start);
	}
	if (!same)
		build_inode_bitmap(l, b, g);
	b->for_group0 = g == 0;
	return extkit_io_write_blocks(fs->io, gd->block_bitmap, 2, b->buf);
}

/* Blocks at the start of group 0's inode table holding inodes 1 .. 11. */
static uint32_t reserved_itable_blocks(const struct mkfs_layout *l)
{
	return (EXT2_GOOD_OLD_FIRST_INO * l->inode_size + l->block_size - 1) /
	       l->block_size;
}

static int zero_blocks(struct extkit_fs *fs, uint64_t blk, uint64_t count)
{
	uint64_t bs = fs->g.block_size;

	return count ? extkit_io_zero_bytes(fs->io, blk * bs, count * bs) : 0;
}

static int write_groups(const struct mkfs_target *t,
			const struct mkfs_layout *l, struct extkit_fs *fs)
{
	struct bitmap_buf b = { .for_group0 = -1 };
	int rc = extkit_bitmap_init(&b.bm, 8ULL * l->block_size);

	b.buf = malloc(2 * (size_t)l->block_size);
	if (!b.buf && !rc)
		rc = -ENOMEM;
	for (uint32_t g = 0; !rc && g < l->groups; g++) {
		uint64_t it = fs->groups[g].inode_table;
		uint32_t skip = g ? 0 : reserved_itable_blocks(l);

		rc = write_bitmaps(l, fs, g, &b);
		if (!rc && !t->known_zero)
			rc = zero_blocks(fs, it + skip, l->itable_blocks - skip);
	}
	extkit_bitmap_free(&b.bm);
	free(b.buf);
	return rc;
}

static void dir_inode(const struct mkfs_opts *o, const struct extkit_fs *fs,
		      struct extkit_inode *ino, uint16_t mode,
		      uint64_t nblocks)
{
	memset(ino, 0, sizeof(*ino));
	ino->mode = mode;
	ino->atime = ino->ctime = ino->mtime = ino->crtime = o->now;
	ino->extra_isize = fs->sb.want_extra_isize;
	ino->size = nblocks * fs->g.block_size;
	extkit_inode_set_fs_blocks(fs, ino, nblocks);
}

static void put_inode(const struct extkit_fs *fs, uint8_t *table,
		      uint32_t ino, const struct extkit_inode *in)
{
	extkit_inode_encode(in, fs->g.inode_size,
			    table + (size_t)(ino - 1) * fs->g.inode_size);
}

/* Inodes 1 (bad blocks), 2 (root), 7 (resize) and 11 (lost+found). */
static void build_inodes(const struct mkfs_opts *o,
			 const struct mkfs_layout *l, struct extkit_fs *fs,
			 uint8_t *table)
{
	struct extkit_inode in;

	/* mke2fs writes only the 128-byte core of the bad blocks inode. */
	memset(&in, 0, sizeof(in));
	in.atime = in.ctime = in.mtime = o->now;
	put_inode(fs, table, EXT2_BAD_INO, &in);

	dir_inode(o, fs, &in, S_IFDIR | 0755, 1);
	in.links_count = 3;
	in.block[0] = (uint32_t)l->root_block;
	put_inode(fs, table, EXT2_ROOT_INO, &in);

	dir_inode(o, fs, &in, S_IFDIR | 0700, l->lpf_blocks);
	in.links_count = 2;
	for (uint32_t i = 0; i < l->lpf_blocks; i++)
		in.block[i] = (uint32_t)(l->lpf_block + i);
	put_inode(fs, table, EXT2_GOOD_OLD_FIRST_INO, &in);

	if (!l->dind_block)
		return;
	dir_inode(o, fs, &in, S_IFREG | 0600, 0);
	in.links_count = 1;
	in.size = mkfs_resize_inode_size(l);
	in.block[EXT2_DIND_BLOCK] = (uint32_t)l->dind_block;
	extkit_inode_set_fs_blocks(fs, &in, mkfs_resize_inode_blocks(l, fs));
	put_inode(fs, table, EXT2_RESIZE_INO, &in);
}

static int write_inodes(const struct mkfs_opts *o,
			const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint32_t n = reserved_itable_blocks(l);
	uint8_t *table = calloc(n, l->block_size);
	int rc;

	if (!table)
		return -ENOMEM;
	build_inodes(o, l, fs, table);
	rc = extkit_io_write_blocks(fs->io, fs->groups[0].inode_table, n,
				    table);
	free(table);
	return rc;
}

/* One directory record: a directory, or free space when ino is 0. */
static void put_dirent(const struct extkit_dir_format *fmt, uint8_t *p,
		       uint32_t ino, uint32_t rec_len, const char *name)
{
	extkit_dirent_set(fmt, p, ino, rec_len, name, (uint32_t)strlen(name),
			  ino ? EXT2_FT_DIR : 0);
}

/* Root then lost+found: adjacent, so one write. */
static int write_dirs(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint32_t bs = l->block_size, n = 1 + l->lpf_blocks;
	uint8_t *buf = calloc(n, bs);
	uint8_t *lpf = buf + bs;
	struct extkit_dir_format fmt;
	int rc;

	if (!buf)
		return -ENOMEM;
	extkit_dir_format_init(fs, &fmt);
	put_dirent(&fmt, buf, EXT2_ROOT_INO, 12, ".");
	put_dirent(&fmt, buf + 12, EXT2_ROOT_INO, 12, "..");
	put_dirent(&fmt, buf + 24, EXT2_GOOD_OLD_FIRST_INO, bs - 24,
		   "lost+found");
	put_dirent(&fmt, lpf, EXT2_GOOD_OLD_FIRST_INO, 12, ".");
	put_dirent(&fmt, lpf + 12, EXT2_ROOT_INO, bs - 12, "..");
	for (uint32_t i = 1; i < l->lpf_blocks; i++)
		put_dirent(&fmt, lpf + (size_t)i * bs, 0, bs, "");
	rc = extkit_io_write_blocks(fs->io, l->root_block, n, buf);
	free(buf);
	return rc;
}

/*
 * On a target that may hold old data: the bytes around each superblock
 * that are not written (the boot sector, the rest of a large block) and
 * the backups' reserved GDT blocks.
 */
static int zero_slack(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint64_t bs = l->block_size;
	int rc = extkit_io_zero_bytes(fs->io, 0, EXT2_SUPERBLOCK_OFFSET);

	if (!rc && bs > 2048)
		rc = extkit_io_zero_bytes(fs->io, 2048, bs - 2048);
	for (uint32_t g = 1; !rc && g < l->groups; g++) {
		uint64_t start = extkit_group_first_block(&fs->sb, g);

		if (!extkit_super_group_has_backup(&fs->sb, g))
			continue;
		if (bs > EXT2_SUPERBLOCK_SIZE)
			rc = extkit_io_zero_bytes(fs->io, start * bs +
						  EXT2_SUPERBLOCK_SIZE,
						  bs - EXT2_SUPERBLOCK_SIZE);
		if (!rc)
			rc = zero_blocks(fs, start + 1 + l->desc_blocks,
					 l->rsv_gdt);
	}
	return rc;
}

int mkfs_write(const struct mkfs_opts *o, const struct mkfs_target *t,
	       const struct mkfs_layout *l, struct extkit_fs *fs)
{
	int rc;

	fs->io->block_size = l->block_size;
	rc = write_groups(t, l, fs);
	if (!rc)
		rc = write_inodes(o, l, fs);
	if (!rc)
		rc = write_dirs(l, fs);
	if (!rc && l->dind_block)
		rc = mkfs_resize_write(l, fs);
	if (!rc && !t->known_zero)
		rc = zero_slack(l, fs);
	if (!rc && o->source)
		rc = mkfs_populate(o, l, fs);
	if (!rc)
		rc = extkit_fs_write_super(fs);
	if (!rc)
		rc = extkit_io_flush(fs->io);
	return rc;
}
