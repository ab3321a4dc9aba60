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
#include "csum.h"
#include "dirblock.h"
#include "journal_new.h"
#include "mapbuild.h"
#include "alloc.h"
#include "mmp.h"
#include "orphan_new.h"
#include "resize_inode.h"
#include "xattrbuild.h"
#include "dir.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "io.h"

#include "mkfs.h"
#include "populate.h"

/* Blocks at the start of group 0's inode table holding inodes 1 ..
 * l->last_ino (11, and the orphan file's and quota's past it). */
static uint32_t reserved_itable_blocks(const struct mkfs_layout *l)
{
	return (l->last_ino * l->inode_size + l->block_size - 1) /
	       l->block_size;
}

static int zero_blocks(struct extkit_fs *fs, uint64_t blk, uint64_t count)
{
	uint64_t bs = fs->g.block_size;

	return count ? extkit_io_zero_bytes(fs->io, blk * bs, count * bs) : 0;
}

static int all_zero(const uint8_t *buf, size_t len)
{
	return len == 0 || (buf[0] == 0 && !memcmp(buf, buf + 1, len - 1));
}

/* The bitmap last built in buf, to reuse for groups that have the same
 * one (every full flex group's first group, when no backup is there). */
struct bitmap_cache {
	int valid;
	uint32_t group;
};

/*
 * Group g's block bitmap, with its checksum. A bitmap of zeros is not
 * written on a target that reads zeros (most groups of a flex_bg
 * filesystem hold nothing), and gets no checksum: such a group ends
 * BLOCK_UNINIT (checksum 0) unless the journal takes blocks from it, and
 * the journal's allocation sets it then. Every bitmap is right on disk
 * before the journal is placed, which reads them.
 */
static int write_block_bitmap(const struct mkfs_target *t,
			      const struct mkfs_layout *l,
			      struct extkit_fs *fs, uint32_t g,
			      struct extkit_bitmap *bm, uint8_t *buf,
			      struct bitmap_cache *c)
{
	if (mkfs_place_group_empty(l->place, g) &&
	    (g + 1 < l->groups || !extkit_has_group_csum(&fs->sb)))
		return t->known_zero ? 0 :
		       zero_blocks(fs, fs->groups[g].block_bitmap, 1);
	if (c->valid && mkfs_place_bitmap_same(l->place, g, c->group)) {
		/* same bytes, so the same crc32c (it covers no group number) */
		fs->groups[g].block_bitmap_csum =
			fs->groups[c->group].block_bitmap_csum;
	} else {
		mkfs_place_group_bitmap(l->place, g, bm);
		extkit_bitmap_to_disk(bm, 0, bm->nbits, buf);
		extkit_group_block_bitmap_csum_set(fs, g, buf);
		c->valid = 1;
		c->group = g;
	}
	if (t->known_zero && all_zero(buf, l->block_size))
		return 0;
	return extkit_io_write_blocks(fs->io, fs->groups[g].block_bitmap, 1,
				      buf);
}

/* An inode bitmap: inodes 1 .. l->last_ino used in group 0, the padding
 * past the group's inodes. */
static void build_inode_bitmap(const struct mkfs_layout *l, int group0,
			       struct extkit_bitmap *bm, uint8_t *buf)
{
	extkit_bitmap_clear_all(bm);
	if (group0)
		extkit_bitmap_set_range(bm, 0, l->last_ino);
	extkit_bitmap_set_range(bm, l->inodes_per_group,
				bm->nbits - l->inodes_per_group);
	extkit_bitmap_to_disk(bm, 0, bm->nbits, buf);
}

/* Group g's inode bitmap (buf built for it); INODE_UNINIT groups' are
 * not written, only zeroed on a target that may hold old data. */
static int write_inode_bitmap(const struct mkfs_target *t,
			      struct extkit_fs *fs, uint32_t g, uint8_t *buf)
{
	if (fs->groups[g].flags & EXT4_BG_INODE_UNINIT)
		return t->known_zero ? 0 :
		       zero_blocks(fs, fs->groups[g].inode_bitmap, 1);
	extkit_group_inode_bitmap_csum_set(fs, g, buf);
	return extkit_io_write_blocks(fs->io, fs->groups[g].inode_bitmap, 1,
				      buf);
}

/*
 * Inode tables: on a target that may hold old data, zeroed where mke2fs
 * zeroes them (everything with lazy_itable_init=0, else only group 0's
 * used part). Group 0's first blocks are written by write_inodes.
 */
static int zero_itable(const struct mkfs_opts *o, const struct mkfs_target *t,
		       const struct mkfs_layout *l, struct extkit_fs *fs,
		       uint32_t g)
{
	uint64_t it = fs->groups[g].inode_table;
	uint32_t skip = g ? 0 : reserved_itable_blocks(l);
	uint32_t n = l->itable_blocks;

	if (t->known_zero)
		return 0;
	if (o->lazy_itable_init && extkit_has_group_csum(&fs->sb))
		n = g ? 0 : skip;
	return n > skip ? zero_blocks(fs, it + skip, n - skip) : 0;
}

static int write_groups(const struct mkfs_opts *o,
			const struct mkfs_target *t,
			const struct mkfs_layout *l, struct extkit_fs *fs)
{
	struct bitmap_cache cache = { 0 };
	struct extkit_bitmap bm;
	int rc = extkit_bitmap_init(&bm, 8ULL * l->block_size);
	uint8_t *buf = malloc(3 * (size_t)l->block_size);
	uint8_t *ib0 = buf + l->block_size, *ib = ib0 + l->block_size;

	if (!buf && !rc)
		rc = -ENOMEM;
	if (!rc) {
		build_inode_bitmap(l, 1, &bm, ib0);
		build_inode_bitmap(l, 0, &bm, ib);
	}
	for (uint32_t g = 0; !rc && g < l->groups; g++) {
		rc = write_block_bitmap(t, l, fs, g, &bm, buf, &cache);
		if (!rc)
			rc = write_inode_bitmap(t, fs, g, g ? ib : ib0);
		if (!rc)
			rc = zero_itable(o, t, l, fs, g);
	}
	extkit_bitmap_free(&bm);
	free(buf);
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
	/* bigalloc: a directory's blocks lie in whole clusters */
	extkit_inode_set_fs_blocks(fs, ino,
				   (nblocks + fs->g.cluster_ratio - 1) &
				   ~(uint64_t)(fs->g.cluster_ratio - 1));
}

static int has_inline_data(const struct extkit_fs *fs)
{
	return extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_INLINE_DATA);
}

/*
 * An inode into the table. With inline_data, lost+found keeps the
 * in-inode attribute header (its magic, no entry) that mke2fs leaves
 * when the directory moves out of the inode into a block.
 */
static void put_inode(const struct extkit_fs *fs, uint8_t *table,
		      uint32_t ino, const struct extkit_inode *in)
{
	uint8_t *raw = table + (size_t)(ino - 1) * fs->g.inode_size;

	extkit_inode_encode(in, fs->g.inode_size, raw);
	if (ino == EXT2_GOOD_OLD_FIRST_INO && has_inline_data(fs))
		extkit_xattr_ibody_empty(fs, raw);
	extkit_inode_csum_set(fs, ino, raw);
}

/* A directory's blocks, first .. first + n - 1: an extent in i_block
 * with the extent feature, else direct blocks. */
static void map_dir(const struct extkit_fs *fs, struct extkit_inode *in,
		    uint64_t first, uint32_t n)
{
	uint64_t pblks[EXT2_NDIR_BLOCKS];
	struct extkit_mapbuild mb = {
		.extents = extkit_has_incompat(&fs->sb,
					       EXT4_FEATURE_INCOMPAT_EXTENTS),
		.nblocks = n, .pblks = pblks,
	};

	for (uint32_t i = 0; i < n; i++)
		pblks[i] = first + i;
	/* contiguous and at most 12 blocks: no tree blocks, no error */
	extkit_mapbuild_plan(fs, &mb);
	extkit_mapbuild_fill(fs, &mb, in);
}

/* -l: inode 1's indirect block, the bad blocks past the twelfth (its
 * map as build_inodes gave it: logical block i is bad block i). */
static int write_bad_ind(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint64_t meta = l->bad_ind;
	struct extkit_mapbuild mb = {
		.nblocks = l->nbad, .pblks = l->bad, .meta = &meta,
	};
	struct extkit_inode scratch = { 0 };
	int rc = extkit_mapbuild_plan(fs, &mb);

	if (rc)
		return rc;
	if (mb.nmeta != 1)	/* place.c takes one indirect block */
		return -EFBIG;
	mb.bufs = calloc(1, l->block_size);
	if (!mb.bufs)
		return -ENOMEM;
	extkit_mapbuild_fill(fs, &mb, &scratch);
	rc = extkit_mapbuild_write(fs, EXT2_BAD_INO, 0, &mb);
	free(mb.bufs);
	return rc;
}

/* Inodes 1 (bad blocks), 2 (root), 7 (resize) and 11 (lost+found). */
static void build_inodes(const struct mkfs_opts *o,
			 const struct mkfs_layout *l, struct extkit_fs *fs,
			 uint8_t *table)
{
	struct extkit_inode in;

	/* mke2fs writes only the 128-byte core of the bad blocks inode;
	 * with -l it maps the bad blocks, i_blocks counting them alone */
	memset(&in, 0, sizeof(in));
	in.atime = in.ctime = in.mtime = o->now;
	for (uint32_t i = 0; i < l->nbad && i < EXT2_NDIR_BLOCKS; i++)
		in.block[i] = (uint32_t)l->bad[i];
	in.block[EXT2_IND_BLOCK] = (uint32_t)l->bad_ind;
	in.size = (uint64_t)l->nbad * l->block_size;
	extkit_inode_set_fs_blocks(fs, &in, l->nbad);
	put_inode(fs, table, EXT2_BAD_INO, &in);

	dir_inode(o, fs, &in, S_IFDIR | 0755, 1);
	in.links_count = 3;
	map_dir(fs, &in, l->root_block, 1);
	if (o->root_owner_given) {
		in.uid = o->root_uid;
		in.gid = o->root_gid;
	}
	if (o->root_perms >= 0)
		in.mode = (uint16_t)(S_IFDIR | o->root_perms);
	put_inode(fs, table, EXT2_ROOT_INO, &in);

	dir_inode(o, fs, &in, S_IFDIR | 0700, l->lpf_blocks);
	in.links_count = 2;
	map_dir(fs, &in, l->lpf_block, l->lpf_blocks);
	put_inode(fs, table, EXT2_GOOD_OLD_FIRST_INO, &in);

	if (!l->dind_block)
		return;
	dir_inode(o, fs, &in, S_IFREG | 0600, 0);
	in.links_count = 1;
	in.size = extkit_resize_inode_size(l->block_size);
	in.block[EXT2_DIND_BLOCK] = (uint32_t)l->dind_block;
	/* bigalloc: e2fsprogs counts each of its blocks as a cluster */
	extkit_inode_set_fs_blocks(fs, &in, extkit_resize_inode_blocks(fs));
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

/* With metadata_csum: the tail record and checksum of block k. */
static void seal_dir_block(struct extkit_fs *fs, uint32_t ino, uint8_t *blk)
{
	if (!extkit_has_metadata_csum(&fs->sb))
		return;
	extkit_dirblock_init_tail(fs, blk);
	extkit_dirblock_csum_set(fs, ino, 0, blk);
}

/* Root, then lost+found right after it (in one write when adjacent). */
static int write_dirs(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint32_t bs = l->block_size, n = 1 + l->lpf_blocks;
	uint8_t *buf = calloc(n, bs);
	uint8_t *lpf = buf + bs;
	struct extkit_dir_format fmt;
	uint32_t end;
	int rc;

	if (!buf)
		return -ENOMEM;
	extkit_dir_format_init(fs, &fmt);
	end = bs - fmt.tail_len;
	extkit_dirblock_new(fs, buf, EXT2_ROOT_INO, EXT2_ROOT_INO,
			    EXTKIT_NEWDIR_OPEN);
	put_dirent(&fmt, buf + 24, EXT2_GOOD_OLD_FIRST_INO, end - 24,
		   "lost+found");
	seal_dir_block(fs, EXT2_ROOT_INO, buf);
	/* with inline_data, mke2fs's block made from the inline directory:
	 * ".." of 12 bytes, then an empty record */
	extkit_dirblock_new(fs, lpf, EXT2_GOOD_OLD_FIRST_INO, EXT2_ROOT_INO,
			    has_inline_data(fs) ? EXTKIT_NEWDIR_OPEN : 0);
	if (has_inline_data(fs))
		put_dirent(&fmt, lpf + 24, 0, end - 24, "");
	seal_dir_block(fs, EXT2_GOOD_OLD_FIRST_INO, lpf);
	for (uint32_t i = 1; i < l->lpf_blocks; i++) {
		extkit_dirblock_new(fs, lpf + (size_t)i * bs,
				    EXT2_GOOD_OLD_FIRST_INO, 0, 0);
		seal_dir_block(fs, EXT2_GOOD_OLD_FIRST_INO,
			       lpf + (size_t)i * bs);
	}
	if (l->lpf_block == l->root_block + 1) {
		rc = extkit_io_write_blocks(fs->io, l->root_block, n, buf);
	} else {
		rc = extkit_io_write_blocks(fs->io, l->root_block, 1, buf);
		if (!rc)
			rc = extkit_io_write_blocks(fs->io, l->lpf_block,
						    l->lpf_blocks, lpf);
	}
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

/* Each group's free block count, to see which groups a writer took
 * blocks from (note_touched). */
static uint32_t *free_counts(const struct extkit_fs *fs)
{
	uint32_t *n = malloc(fs->g.group_count * sizeof(*n));

	for (uint32_t g = 0; n && g < fs->g.group_count; g++)
		n[g] = fs->groups[g].free_blocks;
	return n;
}

static void note_touched(const struct extkit_fs *fs, const uint32_t *before,
			 uint8_t *touched)
{
	for (uint32_t g = 0; g < fs->g.group_count; g++)
		if (fs->groups[g].free_blocks != before[g])
			touched[g] = 1;
}

/*
 * The journal, through the library, which reads the bitmaps written
 * above; group free counts show which groups it took blocks from. Its
 * log reads as zeroes: on a target that reads zeroes it is left as it
 * is (holes in a new image file) unless -E lazy_journal_init=0 asks for
 * zeroes written out; elsewhere it is zeroed unless lazy_journal_init.
 */
static int write_journal(const struct mkfs_opts *o,
			 const struct mkfs_target *t,
			 const struct mkfs_layout *l, struct extkit_fs *fs,
			 uint8_t *touched)
{
	struct extkit_journal_params p = {
		.blocks = l->journal_blocks + l->fc_blocks,
		.fc_blocks = l->fc_blocks,
		.zero_log = !o->lazy_journal_init &&
			    (!t->known_zero || o->lazy_journal_init_given),
		.write_zeroes = t->known_zero,
		.from_start = l->journal_at_start,
		.csum = 1,
		.now = o->now,
		.defer_super = 1,
	};
	uint32_t *before = free_counts(fs);
	int rc = before ? extkit_journal_create(fs, &p) : -ENOMEM;

	if (!rc)
		note_touched(fs, before, touched);
	free(before);
	return rc;
}

/*
 * The MMP block, as mke2fs makes it after the journal: the first free
 * block, a clean sequence, the time of the run, this host's name and
 * the target's path, the update interval (-E mmp_update_interval=,
 * else 5 s).
 */
static int write_mmp(const struct mkfs_opts *o, const struct mkfs_target *t,
		     struct extkit_fs *fs, uint8_t *touched)
{
	uint32_t *before = free_counts(fs);
	uint16_t interval = (uint16_t)(o->mmp_interval ? o->mmp_interval :
				       EXT4_MMP_MIN_CHECK_INTERVAL);
	uint64_t blk;
	int rc = before ? extkit_alloc_find(fs, fs->sb.first_data_block, 1,
					    &blk) : -ENOMEM;

	if (!rc)
		rc = extkit_alloc_mark(fs, blk, 1);
	if (!rc) {
		/* the encoder keeps these raw fields: set both */
		fs->sb.mmp_block = blk;
		fs->sb.mmp_interval = interval;
		fs->raw_sb.s_mmp_block = cpu_to_le64(blk);
		fs->raw_sb.s_mmp_interval = cpu_to_le16(interval);
		rc = extkit_mmp_reset_at(fs, t->path, o->now);
	}
	if (!rc)
		note_touched(fs, before, touched);
	free(before);
	return rc;
}

static int has_quota(const struct extkit_fs *fs)
{
	return (fs->sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_QUOTA) != 0;
}

/* The quota inodes (quota.c), noting the groups they took blocks from. */
static int write_quota(const struct mkfs_opts *o, const struct mkfs_layout *l,
		       struct extkit_fs *fs, uint8_t *touched)
{
	uint32_t *before = free_counts(fs);
	int rc = before ? mkfs_quota_write(o, l, fs) : -ENOMEM;

	if (!rc)
		note_touched(fs, before, touched);
	free(before);
	return rc;
}

/* The orphan file, after the journal as mke2fs makes it. */
static int write_orphan_file(const struct mkfs_opts *o,
			     const struct mkfs_layout *l, struct extkit_fs *fs,
			     uint8_t *touched)
{
	uint32_t *before = free_counts(fs);
	int rc = before ? extkit_orphan_file_create(fs, l->orphan_ino,
						    l->orphan_blocks, o->now) :
		 -ENOMEM;

	if (!rc)
		note_touched(fs, before, touched);
	free(before);
	return rc;
}

/*
 * BLOCK_UNINIT as mke2fs 1.47.4 leaves it: on every group but the last
 * that nothing was allocated in (no superblock backup nor descriptor
 * block, no flex_bg tables, no root, lost+found or resize block, no
 * journal). Since 1.47.1 (e2fsprogs 7150bea3) a group holding a backup
 * keeps its bitmap, as written: a kernel initialising an uninit bitmap
 * would not mark descriptor blocks past group 0's. The bitmap checksums
 * of uninit groups are 0, as mke2fs leaves them.
 */
static void set_block_uninit(const struct mkfs_layout *l,
			     struct extkit_fs *fs, const uint8_t *touched)
{
	if (!extkit_has_group_csum(&fs->sb))
		return;
	for (uint32_t g = 1; g + 1 < l->groups; g++) {
		struct extkit_group *gd = &fs->groups[g];

		if (touched[g] || mkfs_place_flex_used(l->place, g) ||
		    extkit_group_sb_overhead(&fs->sb, &fs->g, g) ||
		    mkfs_badblocks_in_group(l, fs, g))
			continue;
		gd->flags |= EXT4_BG_BLOCK_UNINIT;
		gd->block_bitmap_csum = 0;
	}
}

/* A whole new filesystem: every block it needs, then the superblocks. */
static int write_all(const struct mkfs_opts *o, const struct mkfs_target *t,
		     const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint8_t *touched = calloc(l->groups, 1);
	int rc = touched ? 0 : -ENOMEM;

	fs->io->block_size = l->block_size;
	if (!rc)
		rc = write_groups(o, t, l, fs);
	if (!rc)
		rc = write_inodes(o, l, fs);
	if (!rc)
		rc = write_dirs(l, fs);
	if (!rc && l->dind_block)	/* the resize inode's blocks */
		rc = extkit_resize_fits(fs) ?
		     extkit_resize_write(fs, l->dind_block) : -EFBIG;
	if (!rc && l->bad_ind)
		rc = write_bad_ind(l, fs);
	if (!rc && !t->known_zero)
		rc = zero_slack(l, fs);
	if (!rc && l->journal_blocks)
		rc = write_journal(o, t, l, fs, touched);
	if (!rc && (fs->sb.feature_incompat & EXT4_FEATURE_INCOMPAT_MMP))
		rc = write_mmp(o, t, fs, touched);
	/* quota before the orphan file, as mke2fs; after -d's files when
	 * there are some (the usage must count them) */
	if (!rc && has_quota(fs) && !mkfs_populating(o))
		rc = write_quota(o, l, fs, touched);
	if (!rc && l->orphan_ino)
		rc = write_orphan_file(o, l, fs, touched);
	if (!rc)
		set_block_uninit(l, fs, touched);
	if (!rc && mkfs_populating(o))	/* after the journal, on the final flags */
		rc = mkfs_populate(o, l, fs);
	if (!rc && has_quota(fs) && mkfs_populating(o))
		rc = mkfs_quota_write(o, l, fs);
	if (!rc) {
		extkit_fs_add_kbytes_written(fs);
		rc = extkit_fs_write_super(fs);
	}
	if (!rc)
		rc = extkit_io_flush(fs->io);
	free(touched);
	return rc;
}

/*
 * -S, as mke2fs -S: the superblocks and group descriptors of the layout,
 * nothing else (no bitmap, inode table, directory, journal, quota or
 * orphan file), so that e2fsck can find what the old filesystem held.
 * The filesystem is marked in error, and no inode is left out as unused
 * (itable_unused 0), so that e2fsck reads every inode table; the special
 * inodes keep the numbers the layout gives them.
 */
static int write_super_only(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint8_t *none = calloc(l->groups, 1);	/* no group touched */

	if (!none)
		return -ENOMEM;
	set_block_uninit(l, fs, none);
	free(none);
	fs->sb.state |= EXT2_ERROR_FS;
	fs->raw_sb.s_overhead_clusters = 0;	/* not known: mke2fs -S */
	if (extkit_has_group_csum(&fs->sb))
		for (uint32_t g = 0; g < l->groups; g++)
			fs->groups[g].itable_unused = 0;
	if (fs->sb.feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL)
		fs->sb.journal_inum = EXT2_JOURNAL_INO;
	if (l->orphan_ino) {
		fs->sb.orphan_file_inum = l->orphan_ino;
		fs->raw_sb.s_orphan_file_inum = cpu_to_le32(l->orphan_ino);
	}
	extkit_fs_add_kbytes_written(fs);
	return extkit_fs_write_super(fs);
}

int mkfs_write(const struct mkfs_opts *o, const struct mkfs_target *t,
	       const struct mkfs_layout *l, struct extkit_fs *fs)
{
	if (o->super_only) {
		int rc;

		fs->io->block_size = l->block_size;
		rc = write_super_only(l, fs);
		return rc ? rc : extkit_io_flush(fs->io);
	}
	return write_all(o, t, l, fs);
}
