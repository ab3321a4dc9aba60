// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Planning a UUID change under metadata_csum (csum_rewrite.h): each
 * checksummed structure is read, checked against the old seed, given its
 * checksum under the new seed and written into an overlay io standing in
 * for fs->io, so that the library's own writers (superblock, inodes,
 * extent and directory blocks) produce the blocks. fs->sb.uuid switches
 * between the two UUIDs around each check and each store.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "csum_rewrite.h"
#include "csum_rewrite_ea.h"
#include "dirblock.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"
#include "orphan_file.h"
#include "walk.h"

struct rw {
	struct extkit_fs *fs;
	uint8_t old_uuid[16];
	uint8_t new_uuid[16];
	uint8_t *buf;		/* a block */
	uint8_t *raw;		/* an inode */
	uint32_t ino;
	uint32_t gen;
	int is_dir;
	int is_index;
	const char *why;
	struct extkit_csum_plan *plan;
	int ea_pass;		/* the EA inodes' value hashes only */
	uint64_t room;		/* blocks the journal can take */
	struct extkit_ea_hashes ea;
};

static void use_seed(struct rw *r, int new)
{
	memcpy(r->fs->sb.uuid, new ? r->new_uuid : r->old_uuid, 16);
}

static int bad(struct rw *r, const char *why, int rc)
{
	r->why = why;
	return rc;
}

/* Refuses what tune2fs refuses (a filesystem not checked clean) and what
 * this rewrite does not cover. */
static int check_clean(struct rw *r)
{
	const struct extkit_super *sb = &r->fs->sb;
	uint16_t want;

	if (!(sb->state & EXT2_VALID_FS) || (sb->state & EXT2_ERROR_FS))
		return bad(r, "not cleanly unmounted or has errors: run "
			   "extkit-fsck -f first", -EFSCORRUPTED);
	if (extkit_has_incompat(sb, EXT3_FEATURE_INCOMPAT_RECOVER))
		return bad(r, "the journal needs recovery: run extkit-fsck "
			   "first", -EFSCORRUPTED);
	if (sb->last_orphan)
		return bad(r, "the orphan list is not empty: run extkit-fsck "
			   "first", -EFSCORRUPTED);
	if (!extkit_fs_super_csum_ok(r->fs))
		return bad(r, "the superblock checksum is wrong: run "
			   "extkit-fsck first", -EFSBADCRC);
	for (uint32_t g = 0; g < r->fs->g.group_count; g++)
		if (!extkit_fs_group_csum_ok(r->fs, g, &want))
			return bad(r, "a group descriptor checksum is wrong: "
				   "run extkit-fsck first", -EFSBADCRC);
	return 0;
}

static int group_has_csum(const struct extkit_fs *fs)
{
	return extkit_has_group_csum(&fs->sb);
}

/* The bitmap checksums of group g, in fs->groups (the descriptors reach
 * the overlay with extkit_fs_write_super). Uninitialized bitmaps are not
 * checked by anyone and keep their checksums. */
static int rewrite_bitmaps(struct rw *r, uint32_t g)
{
	struct extkit_fs *fs = r->fs;
	struct extkit_group *gd = &fs->groups[g];
	int lazy = group_has_csum(fs);
	int rc;

	if (!(lazy && (gd->flags & EXT4_BG_BLOCK_UNINIT))) {
		if ((rc = extkit_fs_read_block(fs, gd->block_bitmap, r->buf)))
			return bad(r, "a block bitmap cannot be read", rc);
		use_seed(r, 0);
		if (!extkit_group_block_bitmap_csum_ok(fs, g, r->buf))
			return bad(r, "a block bitmap checksum is wrong: run "
				   "extkit-fsck first", -EFSBADCRC);
		use_seed(r, 1);
		extkit_group_block_bitmap_csum_set(fs, g, r->buf);
	}
	if (!(lazy && (gd->flags & EXT4_BG_INODE_UNINIT))) {
		if ((rc = extkit_fs_read_block(fs, gd->inode_bitmap, r->buf)))
			return bad(r, "an inode bitmap cannot be read", rc);
		use_seed(r, 0);
		if (!extkit_group_inode_bitmap_csum_ok(fs, g, r->buf))
			return bad(r, "an inode bitmap checksum is wrong: run "
				   "extkit-fsck first", -EFSBADCRC);
		use_seed(r, 1);
		extkit_group_inode_bitmap_csum_set(fs, g, r->buf);
	}
	return 0;
}

/* One directory block: a leaf with a tail, or an htree root or node. */
static int rewrite_dir_block(struct rw *r, uint64_t blk)
{
	struct extkit_fs *fs = r->fs;
	int rc = extkit_fs_read_block(fs, blk, r->buf), ok;

	if (rc)
		return bad(r, "a directory block cannot be read", rc);
	use_seed(r, 0);
	ok = r->is_index ? extkit_dirblock_csum_verify(fs, r->ino, r->gen,
						       r->buf)
			 : extkit_dirblock_leaf_csum_verify(fs, r->ino, r->gen,
							    r->buf);
	if (ok == -ENOSPC)
		return 0;	/* no checksum to carry (e2fsck adds one) */
	if (ok != 1)
		return bad(r, "a directory block checksum is wrong: run "
			   "extkit-fsck first", -EFSBADCRC);
	use_seed(r, 1);
	if (extkit_dirblock_csum_set(fs, r->ino, r->gen, r->buf))
		return 0;
	return extkit_fs_write_block(fs, blk, r->buf);
}

static int rewrite_orphan_block(struct rw *r, uint64_t blk)
{
	struct extkit_fs *fs = r->fs;
	uint32_t c;
	int rc = extkit_fs_read_block(fs, blk, r->buf);

	if (rc)
		return bad(r, "an orphan file block cannot be read", rc);
	use_seed(r, 0);
	if (extkit_orphan_block_check(fs, r->ino, r->gen, blk, r->buf) !=
	    EXTKIT_ORPHAN_BLOCK_OK)
		return bad(r, "an orphan file block is damaged: run "
			   "extkit-fsck first", -EFSBADCRC);
	use_seed(r, 1);
	c = cpu_to_le32(extkit_orphan_block_csum(fs, r->ino, r->gen, blk,
						  r->buf));
	memcpy(r->buf + fs->g.block_size - 4, &c, 4);
	return extkit_fs_write_block(fs, blk, r->buf);
}

static int walk_fn(struct extkit_fs *fs, struct extkit_walk_ent *ent,
		   void *arg)
{
	struct rw *r = arg;
	int rc;

	if (ent->bad)
		return bad(r, "a block map is damaged: run extkit-fsck first",
			   -EFSCORRUPTED);
	if (ent->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (ent->flags & EXTKIT_WALK_META) {
		if (!(ent->flags & EXTKIT_WALK_EXTENT))
			return 0;	/* indirect blocks carry no checksum */
		use_seed(r, 0);
		if (!extkit_extent_block_csum_ok(fs, r->ino, r->gen,
						 ent->block))
			return bad(r, "an extent block checksum is wrong: run "
				   "extkit-fsck first", -EFSBADCRC);
		use_seed(r, 1);
		return extkit_extent_write_block(fs, r->ino, r->gen, ent->pblk,
						 ent->block);
	}
	if (ent->flags & EXTKIT_WALK_UNWRITTEN)
		return 0;
	for (uint32_t i = 0; i < ent->len; i++) {
		if (r->is_dir)
			rc = rewrite_dir_block(r, ent->pblk + i);
		else if (r->ino == fs->sb.orphan_file_inum)
			rc = rewrite_orphan_block(r, ent->pblk + i);
		else
			return 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* Whether the inode's data blocks carry checksums to rewrite. */
static int data_has_csums(const struct rw *r)
{
	return r->is_dir || (r->ino && r->ino == r->fs->sb.orphan_file_inum);
}

static int rewrite_map(struct rw *r, struct extkit_inode *in)
{
	struct extkit_walk wk = { .ino = r->ino, .flags = EXTKIT_WALK_DRY,
				  .fn = walk_fn, .arg = r };
	int rc;

	if (!extkit_inode_has_block_map(in) ||
	    (in->flags & EXT4_INLINE_DATA_FL))
		return 0;
	if (!(in->flags & EXT4_EXTENTS_FL) && !data_has_csums(r))
		return 0;
	rc = extkit_walk(r->fs, in, &wk);
	if (rc > 0 || (rc < 0 && !r->why))
		return bad(r, "a block map cannot be walked: run extkit-fsck "
			   "first", rc > 0 ? -EFSCORRUPTED : rc);
	return rc;
}

static int rewrite_ea_block(struct rw *r, uint64_t blk)
{
	struct extkit_fs *fs = r->fs;
	const struct ext2_ext_attr_header *h = (const void *)r->buf;
	int rc;

	if (!extkit_fs_valid_block(fs, blk))
		return bad(r, "an EA block number is out of range: run "
			   "extkit-fsck first", -EFSCORRUPTED);
	if ((rc = extkit_fs_read_block(fs, blk, r->buf)))
		return bad(r, "an EA block cannot be read", rc);
	use_seed(r, 1);
	if (le32(h->h_checksum) == extkit_ea_block_csum(fs, blk, r->buf))
		return 0;	/* shared: planned for an earlier owner */
	use_seed(r, 0);
	if (le32(h->h_checksum) != extkit_ea_block_csum(fs, blk, r->buf))
		return bad(r, "an EA block checksum is wrong: run extkit-fsck "
			   "first", -EFSBADCRC);
	use_seed(r, 1);
	if ((rc = extkit_ea_block_rehash(fs, r->buf, &r->ea)))
		return bad(r, "an EA block names an unknown EA inode: run "
			   "extkit-fsck first", rc);
	extkit_ea_block_csum_set(fs, blk, r->buf);
	return extkit_fs_write_block(fs, blk, r->buf);
}

static int is_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/* First pass: the new value hash of EA inode ino (r->raw left alone). */
static int ea_inode_hash(struct rw *r, uint32_t ino)
{
	uint8_t *copy = malloc(r->fs->g.inode_size);
	int rc;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, r->raw, r->fs->g.inode_size);
	rc = extkit_ea_inode_rehash(r->fs, ino, copy, r->old_uuid, r->new_uuid,
				    &r->ea);
	free(copy);
	if (rc == -EFSBADCRC || rc == -EFSCORRUPTED)
		return bad(r, "an EA inode's value hash is wrong: run "
			   "extkit-fsck first", rc);
	return rc ? bad(r, "an EA inode cannot be read", rc) : 0;
}

/* Second pass: EA inode ino gets the value hash the first computed. */
static int ea_inode_set(struct rw *r, uint32_t ino)
{
	uint32_t hash;
	__le32 le;

	if (!extkit_ea_hash_lookup(&r->ea, ino, &hash))
		return 0;	/* not in use: no entry names it */
	le = cpu_to_le32(hash);
	memcpy(r->raw + offsetof(struct ext2_inode, i_atime), &le, 4);
	return 0;
}

/* Inode ino: its blocks first (read through the overlay: an EA block
 * shared by several owners is found already rewritten after the first),
 * then the inode itself. An inode not in use keeps its bytes with a new
 * checksum (tune2fs zeroes it). */
static int rewrite_inode(struct rw *r, uint32_t ino, int in_use)
{
	struct extkit_fs *fs = r->fs;
	struct extkit_inode in;
	int rc = extkit_inode_read_raw(fs, ino, r->raw);

	if (rc)
		return bad(r, "an inode table block cannot be read", rc);
	if (is_zero(r->raw, fs->g.inode_size))
		return 0;
	use_seed(r, 0);
	if (!extkit_inode_csum_verify(fs, ino, r->raw))
		return bad(r, "an inode checksum is wrong: run extkit-fsck "
			   "first", -EFSBADCRC);
	extkit_inode_decode(r->raw, fs->g.inode_size, &in);
	r->ino = ino;
	r->gen = in.generation;
	r->is_dir = (in.mode & 0xF000) == 0x4000;
	r->is_index = !!(in.flags & EXT2_INDEX_FL);
	if (r->ea_pass)
		return (in_use && in.links_count &&
			(in.flags & EXT4_EA_INODE_FL)) ? ea_inode_hash(r, ino)
						       : 0;
	if (in_use && in.links_count) {
		if ((rc = rewrite_map(r, &in)))
			return rc;
		if (in.file_acl && (rc = rewrite_ea_block(r, in.file_acl)))
			return rc;
	}
	use_seed(r, 1);
	if ((in.flags & EXT4_EA_INODE_FL) && (rc = ea_inode_set(r, ino)))
		return rc;
	if ((rc = extkit_ea_ibody_rehash(fs, r->raw, &r->ea)))
		return bad(r, "an inode names an unknown EA inode: run "
			   "extkit-fsck first", rc);
	r->plan->inodes++;
	return extkit_inode_write_raw(fs, ino, r->raw);
}

static int rewrite_group_inodes(struct rw *r, uint32_t g)
{
	struct extkit_fs *fs = r->fs;
	const struct extkit_group *gd = &fs->groups[g];
	uint32_t n = fs->sb.inodes_per_group;
	uint8_t *map;
	int rc;

	if (group_has_csum(fs)) {
		if (gd->flags & EXT4_BG_INODE_UNINIT)
			return 0;
		n = gd->itable_unused > n ? 0 : n - gd->itable_unused;
	}
	map = malloc(fs->g.block_size);
	if (!map)
		return -ENOMEM;
	rc = extkit_fs_read_block(fs, gd->inode_bitmap, map);
	for (uint32_t i = 0; !rc && i < n; i++) {
		uint32_t ino = g * fs->sb.inodes_per_group + i + 1;

		rc = rewrite_inode(r, ino, (map[i / 8] >> (i % 8)) & 1);
	}
	free(map);
	return rc;
}

static int rewrite_mmp(struct rw *r)
{
	struct extkit_fs *fs = r->fs;
	uint64_t blk = fs->sb.mmp_block;
	const size_t off = offsetof(struct mmp_struct, mmp_checksum);
	uint32_t c;
	int rc;

	if (!extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_MMP))
		return 0;
	if (!extkit_fs_valid_block(fs, blk))
		return bad(r, "the MMP block number is out of range",
			   -EFSCORRUPTED);
	if ((rc = extkit_fs_read_block(fs, blk, r->buf)))
		return bad(r, "the MMP block cannot be read", rc);
	c = cpu_to_le32(extkit_crc32c(extkit_csum_seed(&fs->sb), r->buf, off));
	memcpy(r->buf + off, &c, 4);
	return extkit_fs_write_block(fs, blk, r->buf);
}

static int plan_all(struct rw *r)
{
	struct extkit_fs *fs = r->fs;
	int rc = 0;

	for (uint32_t g = 0; !rc && g < fs->g.group_count; g++)
		rc = rewrite_bitmaps(r, g);
	r->ea_pass = extkit_has_incompat(&fs->sb,
					 EXT4_FEATURE_INCOMPAT_EA_INODE);
	for (uint32_t g = 0; !rc && r->ea_pass && g < fs->g.group_count; g++)
		rc = rewrite_group_inodes(r, g);
	r->ea_pass = 0;
	for (uint32_t g = 0; !rc && g < fs->g.group_count; g++) {
		rc = rewrite_group_inodes(r, g);
		if (!rc && extkit_overlay_count(fs->io) > r->room)
			rc = bad(r, "the journal is too small to hold the "
				 "rewrite in one transaction (use "
				 "--keep-csum-seed, or a larger journal)",
				 -ENOSPC);
	}
	use_seed(r, 1);
	if (!rc)
		rc = rewrite_mmp(r);
	if (!rc)
		rc = extkit_fs_write_super(fs);
	return rc;
}

int extkit_csum_rewrite_plan(struct extkit_fs *fs, const uint8_t uuid[16],
			     struct extkit_csum_plan *plan, const char **why)
{
	struct rw r = { .fs = fs, .plan = plan };
	struct extkit_io *real = fs->io, *ovl = NULL;
	int rc;

	memset(plan, 0, sizeof(*plan));
	memcpy(r.old_uuid, fs->sb.uuid, 16);
	memcpy(r.new_uuid, uuid, 16);
	rc = check_clean(&r);
	if (!rc)
		rc = extkit_csum_rewrite_room(fs, &r.room, &r.why);
	if (rc)
		goto out;
	r.buf = malloc(fs->g.block_size);
	r.raw = malloc(fs->g.inode_size);
	rc = (r.buf && r.raw) ? extkit_overlay_open(real, fs->g.block_size,
						    &ovl) : -ENOMEM;
	if (rc)
		goto out;
	fs->io = ovl;
	rc = plan_all(&r);
	fs->io = real;
	if (!rc)
		rc = extkit_overlay_blocks(ovl, &plan->blocks, &plan->n);
	extkit_io_close(ovl);
out:
	free(r.buf);
	free(r.raw);
	extkit_ea_hashes_free(&r.ea);
	if (rc) {
		memcpy(fs->sb.uuid, r.old_uuid, 16);
		*why = r.why;
	}
	return rc;
}

void extkit_csum_plan_free(struct extkit_csum_plan *plan)
{
	extkit_plan_free(plan->blocks, plan->n);
	memset(plan, 0, sizeof(*plan));
}
