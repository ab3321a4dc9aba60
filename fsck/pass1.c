// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1: every inode, and the blocks each one claims.
 *
 * Checks: modes, dtime on live inodes, the htree flag, block numbers in
 * range (bad ones cleared), indirect blocks full of garbage, extended
 * attribute blocks (xattr.c: validated once each, shared ones counted,
 * h_refcount settled at the end of the pass), i_size against the last
 * mapped block and i_blocks against the blocks counted (the EA block
 * included); blocks claimed twice are noted for pass 1B. The root must
 * be a directory. Device, FIFO, socket and symlink inodes get their own
 * checks (pass1_types.c), the bad blocks inode too (badblocks.c). An
 * inode with i_links_count 0 but no dtime and a valid mode is kept for
 * now (pass 4 decides, from the names pass 2 finds, whether it is live).
 *
 * Collects: ctx->istate (used, file type, zero-link), ctx->link_count,
 * the inode_used map, block_found (group metadata first, then every
 * inode's blocks) and block_dup, and the directory list ctx->dirs in
 * inode order (for passes 2 and 3), ctx->ea (the EA blocks and how many
 * inodes name each), ctx->enc (the encryption policy of each encrypted
 * inode, encrypt.c).
 *
 * Reads the inode tables in large chunks, one group at a time; cost is
 * O(inodes + blocks). Frees nothing: the maps live until the end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "ondisk.h"
#include "resize_inode.h"

#include "fsck.h"
#include "itable_reader.h"
#include "pass1.h"
#include "problem.h"

#define CHUNK_BYTES	(1u << 18)	/* inode table read size */

/* The superblock copies, descriptors, bitmaps and inode tables. */
static void mark_group_metadata(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;

	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		const struct extkit_group *gd = &fs->groups[g];
		uint32_t meta = extkit_group_sb_overhead(&fs->sb, &fs->g, g);

		if (meta)
			fsck_block_mark(ctx, extkit_group_first_block(&fs->sb,
								      g), meta);
		/* 0: out of place, relocated at the end of pass 1 */
		if (gd->block_bitmap)
			fsck_block_mark(ctx, gd->block_bitmap, 1);
		if (gd->inode_bitmap)
			fsck_block_mark(ctx, gd->inode_bitmap, 1);
		/* read where it is, moved with its contents */
		if (gd->inode_table && !(ctx->relocate &&
		    (ctx->relocate[g] & FSCK_RELOC_KEEP_IT)))
			fsck_block_mark(ctx, gd->inode_table,
					fs->g.itable_blocks);
	}
	if (extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_MMP) &&
	    extkit_fs_valid_block(fs, fs->sb.mmp_block))
		fsck_block_mark(ctx, fs->sb.mmp_block, 1);
}

/* Mode and dtime of a live inode; 0 to go on, 1 if cleared. */
static int check_inode_fields(struct fsck_ctx *ctx, uint32_t ino,
			      struct extkit_inode *inode, int *dirty)
{
	uint8_t ft = extkit_mode_to_ftype(inode->mode);

	if (ino == EXT2_ROOT_INO && ft != EXT2_FT_DIR) {
		if (pass1_report(ctx, PR_1_ROOT_NOT_DIR, ino, inode, 0)) {
			fsck_clear_inode(ctx, ino, inode);
			return 1;
		}
	} else if (ft == EXT2_FT_UNKNOWN) {
		/* a lost mode word over a directory's blocks (e2fsck's
		 * check_is_really_dir comes first too) */
		pass1_check_really_dir(ctx, ino, inode, dirty);
		if (S_ISDIR(inode->mode))
			return 0;
		if (pass1_report(ctx, PR_1_BAD_MODE, ino, inode, 0)) {
			fsck_clear_inode(ctx, ino, inode);
			return 1;
		}
	}
	if (inode->dtime && inode->links_count &&
	    pass1_report(ctx, PR_1_DTIME_LIVE, ino, inode, 0)) {
		inode->dtime = 0;
		*dirty = 1;
	}
	return 0;
}

/* The htree index flag: directories only, with dir_index. Checked after
 * the file type checks, which clear a special file or symlink with it. */
static void check_index_flag(struct fsck_ctx *ctx, uint32_t ino,
			     struct extkit_inode *inode, int *dirty)
{
	uint8_t ft;

	if (!(inode->flags & EXT2_INDEX_FL))
		return;
	ft = extkit_mode_to_ftype(inode->mode);
	if (ft != EXT2_FT_DIR &&
	    pass1_report(ctx, PR_1_INDEX_NOT_DIR, ino, inode, 0)) {
		inode->flags &= ~EXT2_INDEX_FL;
		*dirty = 1;
	} else if ((inode->flags & EXT2_INDEX_FL) &&
		   !extkit_has_compat(&ctx->fs->sb,
				      EXT2_FEATURE_COMPAT_DIR_INDEX) &&
		   pass1_report(ctx, PR_1_INDEX_NO_FEATURE, ino, inode, 0)) {
		inode->flags &= ~EXT2_INDEX_FL;
		*dirty = 1;
	}
}

/* Flags that need a feature the filesystem does not have. */
#define CASEFOLD_FL	0x40000000u
#define IMAGIC_FL	0x00002000u	/* AFS directory (imagic_inodes) */
#define ENCRYPT_FL	0x00000800u	/* fscrypt (encrypt) */

/*
 * A reserved inode's flags (not the root's): only those that change how
 * its map is read count, as e2fsck's pass 1 sees them (its other flag
 * checks are for inodes past s_first_ino). The extents flag without the
 * feature, when the inode is in use or is the journal's (e2fsck's
 * rule); the inline data flag without the feature, when the inode's map
 * is read (a file, directory or symlink mode): a mode-0 reserved inode
 * claims nothing, whatever its flags say.
 */
static uint32_t reserved_bad_flags(struct fsck_ctx *ctx, uint32_t ino,
				   const struct extkit_inode *inode)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	uint32_t bad = 0;

	if ((inode->flags & EXT4_EXTENTS_FL) &&
	    (inode->links_count || ino == EXT2_JOURNAL_INO) &&
	    !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_EXTENTS) &&
	    !fsck_extent_feature(ctx, ino, inode))
		bad |= EXT4_EXTENTS_FL;
	if ((inode->flags & EXT4_INLINE_DATA_FL) &&
	    (S_ISREG(inode->mode) || S_ISDIR(inode->mode) ||
	     S_ISLNK(inode->mode)) &&
	    !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_INLINE_DATA))
		bad |= EXT4_INLINE_DATA_FL;
	/* e2fsck's checks of every inode in use or reserved */
	if ((inode->flags & CASEFOLD_FL) &&
	    (!S_ISDIR(inode->mode) ||
	     !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_CASEFOLD)))
		bad |= CASEFOLD_FL;
	if ((inode->flags & EXT4_EA_INODE_FL) && !S_ISREG(inode->mode))
		bad |= EXT4_EA_INODE_FL;
	return bad;
}

static void check_flags(struct fsck_ctx *ctx, uint32_t ino,
			struct extkit_inode *inode, int *dirty)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;
	uint32_t bad = 0;

	if (ino < ctx->fs->g.first_ino && ino != EXT2_ROOT_INO) {
		bad = reserved_bad_flags(ctx, ino, inode);
		goto report;
	}
	if ((inode->flags & EXT4_EXTENTS_FL) &&
	    !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_EXTENTS) &&
	    !fsck_extent_feature(ctx, ino, inode))
		bad |= EXT4_EXTENTS_FL;
	if ((inode->flags & CASEFOLD_FL) &&
	    (!S_ISDIR(inode->mode) ||
	     !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_CASEFOLD)))
		bad |= CASEFOLD_FL;
	if ((inode->flags & IMAGIC_FL) &&
	    !(sb->feature_compat & EXT2_FEATURE_COMPAT_IMAGIC_INODES))
		bad |= IMAGIC_FL;
	if ((inode->flags & ENCRYPT_FL) &&
	    !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_ENCRYPT))
		bad |= ENCRYPT_FL;
	/* An EA inode without ea_inode: the kernel will not look it up by
	 * name ("unexpected EA_INODE flag"); e2fsck does not check. */
	if ((inode->flags & EXT4_EA_INODE_FL) &&
	    !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_EA_INODE))
		bad |= EXT4_EA_INODE_FL;
	/* fs-verity: the kernel will not open a file with the flag on a
	 * filesystem without RO_COMPAT_VERITY (e2fsck does not check). */
	if ((inode->flags & EXT4_VERITY_FL) &&
	    !extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_VERITY))
		bad |= EXT4_VERITY_FL;
	/* The inline data flag of an ordinary inode is fsck_inline_check's;
	 * the root's, never inline, just goes. */
	if ((inode->flags & EXT4_INLINE_DATA_FL) && ino == EXT2_ROOT_INO &&
	    !extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_INLINE_DATA))
		bad |= EXT4_INLINE_DATA_FL;
	/* pass 4 looks at these again (fsck_pass4's named_ea_inodes); a
	 * list that could not grow only misses that check */
	if ((inode->flags & EXT4_EA_INODE_FL) && !(bad & EXT4_EA_INODE_FL))
		(void)fsck_alloc_push(&ctx->ea_flagged, ino);
report:
	if (!bad)
		return;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.str = bad & EXT4_EXTENTS_FL ? "extents" :
		   bad & CASEFOLD_FL ? "casefold" :
		   bad & IMAGIC_FL ? "imagic" :
		   bad & ENCRYPT_FL ? "encrypt" :
		   bad & EXT4_VERITY_FL ? "verity" :
		   bad & EXT4_EA_INODE_FL ? "EA inode" : "inline data";
	if (fix_problem(ctx, PR_1_BAD_FLAGS, &pctx)) {
		inode->flags &= ~bad;
		*dirty = 1;
	}
}

/*
 * A file or directory on an extents filesystem whose i_block holds a
 * sound extent header but lacks EXT4_EXTENTS_FL (a damaged flags word):
 * the flag is set back, as e2fsck's PR_1_UNSET_EXTENT_FL does. Read as a
 * block map, the header's words would name blocks (eh_max 4: block 4).
 */
static void check_missing_extents_fl(struct fsck_ctx *ctx, uint32_t ino,
				     struct extkit_inode *inode, int *dirty)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct problem_context pctx;

	if ((inode->flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) ||
	    (!S_ISREG(inode->mode) && !S_ISDIR(inode->mode)) ||
	    !extkit_has_incompat(&ctx->fs->sb, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return;
	extkit_extent_root_get(inode, root);
	if (extkit_extent_header_check((const void *)root, sizeof(root)))
		return;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	if (fix_problem(ctx, PR_1_UNSET_EXTENTS_FL, &pctx)) {
		inode->flags |= EXT4_EXTENTS_FL;
		*dirty = 1;
	}
}

/*
 * The largest i_size a block-mapped file can have: 12 direct blocks and
 * the single, double and triple indirect trees (e2fsck's ext2_max_sizes).
 */
static uint64_t max_mapped_size(uint64_t bs)
{
	uint64_t p = bs / 4;

	return (EXT2_NDIR_BLOCKS + p + p * p + p * p * p) * bs;
}

/* Inode 7 as the resize inode: with the resize_inode feature only
 * (without it, e2fsck checks inode 7 as any other reserved inode). */
static int is_resize_inode(const struct fsck_ctx *ctx, uint32_t ino)
{
	return ino == EXT2_RESIZE_INO &&
	       extkit_has_compat(&ctx->fs->sb,
				 EXT2_FEATURE_COMPAT_RESIZE_INODE);
}

/*
 * The resize inode's i_size: mke2fs' covers what its double indirect
 * map reaches; e2fsck checks it as any regular file's (not below its
 * last mapped block, not past what a block map reaches) and sets it to
 * the end of its last block.
 */
static void check_resize_size(struct fsck_ctx *ctx,
			      struct extkit_inode *inode, int *dirty)
{
	uint64_t bs = ctx->fs->g.block_size;
	int64_t last = extkit_resize_inode_last_lblk(ctx->fs);
	uint64_t want = (uint64_t)(last + 1) * bs;

	if ((last < 0 || inode->size >= (uint64_t)last * bs) &&
	    inode->size <= max_mapped_size(bs))
		return;
	if (pass1_report(ctx, PR_1_BAD_I_SIZE, EXT2_RESIZE_INO, inode,
			 want)) {
		inode->size = want;
		*dirty = 1;
	}
}

/* i_size and i_blocks against what the block scan found. */
static void check_sizes(struct fsck_ctx *ctx, uint32_t ino,
			struct extkit_inode *inode,
			const struct fsck_blk_result *res, uint64_t ea_blocks,
			int *dirty)
{
	uint64_t bs = ctx->fs->g.block_size, want, nblk;
	int bad = 0;

	if (res->failed)
		return;
	/* the resize inode's map is its layout's: i_size must reach the
	 * last copy it lists and stay within what a block map reaches, and
	 * i_blocks counts the layout's blocks (as e2fsck's pass 1) */
	if (is_resize_inode(ctx, ino)) {
		if (!fsck_resize_inode_countable(ctx, inode))
			return;
		check_resize_size(ctx, inode, dirty);
		nblk = extkit_resize_inode_blocks(ctx->fs) + ea_blocks;
		goto check_blocks;
	}
	want = (uint64_t)(res->last_lblk + 1) * bs;
	if (inode->flags & EXT4_INLINE_DATA_FL && S_ISDIR(inode->mode)) {
		want = fsck_inline_dir_size(ctx, ino);
		bad = inode->size != want;
	} else if (inode->flags & EXT4_INLINE_DATA_FL) {
		/* e2fsck bounds a file's i_size only as a block-mapped
		 * one's, and sets it to 0 past that */
		want = 0;
		bad = inode->size > max_mapped_size(bs);
	} else if (S_ISDIR(inode->mode))
		bad = inode->size != want;
	else if (S_ISREG(inode->mode) && res->last_init_lblk >= 0 &&
		 inode->size < (uint64_t)res->last_init_lblk * bs &&
		 !(inode->flags & EXT4_VERITY_FL))
		/* unwritten extents past i_size are preallocation; a verity
		 * file keeps its Merkle tree past i_size (as e2fsck) */
		bad = 1;
	else if (!(inode->flags & EXT4_EXTENTS_FL))
		/* past what a block map reaches (e2fsck's ext2_max_sizes) */
		bad = inode->size > max_mapped_size(bs);
	/* An extent map reaches 2^32 logical blocks at most: e2fsck bounds
	 * any inode but a directory or symlink so (a reserved inode of
	 * mode 0 with garbage over it too). */
	if (!S_ISDIR(inode->mode) && !S_ISLNK(inode->mode) &&
	    (inode->flags & EXT4_EXTENTS_FL) && inode->size > (bs << 32) - 1)
		bad = 1;
	if (bad && pass1_report(ctx, PR_1_BAD_I_SIZE, ino, inode, want)) {
		inode->size = want;
		*dirty = 1;
	}
	nblk = res->nblocks + ea_blocks;
	if (res->to_extents)
		return;
check_blocks:
	if (extkit_inode_blocks_bytes(ctx->fs, inode) != nblk * bs &&
	    pass1_report(ctx, PR_1_BAD_I_BLOCKS, ino, inode,
		   nblk * ctx->fs->g.sb_sectors_per_block)) {
		extkit_inode_set_fs_blocks(ctx->fs, inode, nblk);
		inode->flags &= ~EXT4_HUGE_FILE_FL;
		*dirty = 1;
	}
}

/* An EA block claimed before by something else is one more shared
 * block of the inode (pass 1B clones it as it clones the map's). */
static void note_ea_dup(struct fsck_blk_result *res, uint64_t ea_dup)
{
	if (!ea_dup)
		return;
	if (!res->dups)
		res->first_dup = ea_dup;
	res->dups++;
}

/* An inode that met claimed blocks: pass 1B reports them all, in
 * e2fsck's words (PR_1_DUP_BLOCK is no longer said here). */
static void note_dups(struct fsck_ctx *ctx, uint32_t ino,
		      const struct fsck_blk_result *res)
{
	if (!res->dups)
		return;
	fsck_istate_set_dup(&ctx->istate, ino, 1);
	ctx->flags |= FSCK_FL_DUPS;
}

/* Records a live inode in the maps. */
static int record_inode(struct fsck_ctx *ctx, uint32_t ino,
			const struct extkit_inode *inode,
			const struct fsck_blk_result *res, uint64_t ea_values)
{
	uint8_t ft = extkit_mode_to_ftype(inode->mode);

	/* As e2fsck's i_blocks == 0: an EA block is content too, and so
	 * are the EA inodes holding its values (their blocks count in
	 * i_blocks); cleared as zero-length in pass 4, the owner left them
	 * unattached for the next run. */
	fsck_istate_set(&ctx->istate, ino, ft, !res->nblocks &&
			!inode->size && !inode->file_acl && !ea_values);
	fsck_istate_set_zero_link(&ctx->istate, ino, !inode->links_count &&
				  ino >= ctx->fs->g.first_ino);
	fsck_stats_inode(ctx, inode, res);
	fsck_count_set(&ctx->link_count, ino, inode->links_count);
	extkit_bitmap_set(&ctx->inode_used, ino - 1);
	if (ft == EXT2_FT_DIR && ino != EXT2_RESIZE_INO)
		return fsck_dir_add(ctx, ino);
	return 0;
}

/* Neither pass1_check_really_dir nor pass1_check_type acts on these. */
static int reg_or_dir(uint16_t mode)
{
	return S_ISREG(mode) || S_ISDIR(mode);
}

/* Checks one inode in use (or that might be); inode may be changed. */
static int check_live(struct fsck_ctx *ctx, uint32_t ino,
		      struct extkit_inode *inode)
{
	struct fsck_blk_result res;
	uint64_t ea_blocks, ibody_blocks, ea_dup;
	int dirty = 0, rc;

	if (check_inode_fields(ctx, ino, inode, &dirty))
		return 0;
	/* e2fsck's order: inline data, then the attributes in the inode.
	 * The calls are skipped where they would return at once (inode
	 * without the inline data flag; a regular file or directory for
	 * the type checks): the test costs less than their frames, and
	 * most inodes take this path. */
	if ((inode->flags & EXT4_INLINE_DATA_FL) &&
	    fsck_inline_check(ctx, ino, inode, &dirty))
		return 0;
	if (dirty)
		fsck_write_inode(ctx, ino, inode);
	/* Clearing the attributes takes an inline inode's system.data. */
	if (fsck_ea_check_ibody(ctx, ino, &ibody_blocks) == 1 &&
	    (inode->flags & EXT4_INLINE_DATA_FL) &&
	    fsck_inline_check(ctx, ino, inode, &dirty))
		return 0;
	if (!reg_or_dir(inode->mode))
		pass1_check_really_dir(ctx, ino, inode, &dirty);
	check_flags(ctx, ino, inode, &dirty);
	/* e2fsck's order: the encryption context before the type checks */
	if (inode->flags & EXT4_ENCRYPT_FL) {
		rc = fsck_enc_check_inode(ctx, ino, inode, &dirty);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	check_missing_extents_fl(ctx, ino, inode, &dirty);
	if (!reg_or_dir(inode->mode) &&
	    pass1_check_type(ctx, ino, inode, &dirty))
		return 0;
	check_index_flag(ctx, ino, inode, &dirty);
	rc = fsck_ea_check_inode(ctx, ino, inode, &dirty, &ea_blocks, &ea_dup);
	if (!rc)
		rc = fsck_scan_blocks(ctx, ino, inode, &res);
	if (rc)
		return rc;
	note_ea_dup(&res, ea_dup);
	if (res.cleared) {
		fsck_ea_forget_ibody(ctx, ino);
		fsck_release_blocks(ctx, inode);
		fsck_clear_inode(ctx, ino, inode);
		return 0;
	}
	if (res.inode_dirty)
		dirty = 1;
	note_dups(ctx, ino, &res);
	if (S_ISDIR(inode->mode) && res.last_lblk < 0 && !res.failed &&
	    ino != EXT2_RESIZE_INO && !(inode->flags & EXT4_INLINE_DATA_FL)) {
		if (pass1_report(ctx, PR_1_ZERO_LENGTH_DIR, ino, inode, 0)) {
			fsck_release_blocks(ctx, inode);
			fsck_clear_inode(ctx, ino, inode);
			return 0;
		}
	}
	/* bigalloc: a block map is rebuilt as extents in pass 1E, with
	 * its i_blocks (counted here by blocks, not clusters) */
	if (!res.failed) {
		rc = fsck_queue_to_extents(ctx, ino, inode);
		if (rc < 0)
			return rc;
		res.to_extents = rc;
	}
	if (!res.failed && res.misaligned > 0 && !ctx->readonly &&
	    (inode->flags & EXT4_EXTENTS_FL)) {
		rc = fsck_alloc_push(&ctx->to_extents, ino);
		if (rc)
			return rc;
		res.to_extents = 1;
	}
	check_sizes(ctx, ino, inode, &res, ea_blocks + ibody_blocks, &dirty);
	if (dirty)
		fsck_write_inode(ctx, ino, inode);
	return record_inode(ctx, ino, inode, &res, ea_blocks + ibody_blocks);
}

/* The journal and quota inodes when their features do not use them. */
static int reserved_unused(const struct extkit_super *sb, uint32_t ino)
{
	if (ino == EXT2_JOURNAL_INO)
		return !(sb->feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL) ||
		       sb->journal_inum != ino;
	/* a quota inode the superblock does not name (e2fsck's
	 * quota_inum_is_super) */
	if (ino == EXT4_USR_QUOTA_INO || ino == EXT4_GRP_QUOTA_INO)
		return !extkit_super_internal_inode(sb, ino);
	return 0;
}

/* As e2fsck: an unused journal or quota inode is cleared whole (its map,
 * flags and size too: a cleared journal keeps no extent flag). */
static void check_reserved_clear(struct fsck_ctx *ctx, uint32_t ino,
				 struct extkit_inode *inode)
{
	if (!reserved_unused(&ctx->fs->sb, ino) ||
	    !(inode->links_count || inode->blocks || inode->block[0]))
		return;
	if (!pass1_report(ctx, PR_1_RESERVED_NOT_CLEAR, ino, inode, 0))
		return;
	memset(inode, 0, sizeof(*inode));
	fsck_write_inode(ctx, ino, inode);
}

/*
 * Reserved inodes below s_first_ino other than the root. The bad blocks
 * inode has its own rules. The others keep the blocks their map names
 * only with a mode of a file, directory or symlink (fsck_scan_blocks);
 * inodes 6, 9, 10 and any other unnamed reserved inode must have mode 0,
 * as e2fsck wants, so that their i_block claims nothing. As e2fsck's
 * check_blocks runs on them too, the rest is a live inode's: flags that
 * need a feature or a directory (casefold, index), the EA block
 * (i_file_acl), i_size and i_blocks.
 */
static int check_reserved(struct fsck_ctx *ctx, uint32_t ino,
			  struct extkit_inode *inode, int csum_bad)
{
	struct fsck_blk_result res;
	uint64_t ea_blocks = 0, ea_dup = 0;
	int bad = 0, dirty = 0, rc;

	if (ino == EXT2_BAD_INO) {
		rc = pass1_check_bad_inode(ctx, inode, csum_bad);
		/* the flags e2fsck checks on every inode (EA inode) */
		check_flags(ctx, ino, inode, &dirty);
		if (dirty)
			fsck_write_inode(ctx, ino, inode);
		fsck_istate_mark_used(&ctx->istate, ino);
		extkit_bitmap_set(&ctx->inode_used, ino - 1);
		return rc;
	}
	/* the resize, journal and quota inodes have checks of their own,
	 * which rebuild what they clear */
	if (!is_resize_inode(ctx, ino) && ino != EXT2_JOURNAL_INO &&
	    !extkit_super_internal_inode(&ctx->fs->sb, ino) &&
	    (inode->flags & EXT4_INLINE_DATA_FL) &&
	    (inode->flags & EXT4_EXTENTS_FL) &&
	    fsck_inline_both_flags(ctx, ino, inode, &dirty)) {
		fsck_istate_mark_used(&ctx->istate, ino);
		extkit_bitmap_set(&ctx->inode_used, ino - 1);
		return 0;
	}
	check_flags(ctx, ino, inode, &dirty);
	/* An unused journal or quota inode: past the flags e2fsck checks
	 * on every inode, it looks at nothing but whether it holds links
	 * or blocks (then it is cleared whole). */
	if (reserved_unused(&ctx->fs->sb, ino)) {
		if (dirty)
			fsck_write_inode(ctx, ino, inode);
		check_reserved_clear(ctx, ino, inode);
		fsck_istate_mark_used(&ctx->istate, ino);
		extkit_bitmap_set(&ctx->inode_used, ino - 1);
		return 0;
	}
	if (ino == EXT2_BOOT_LOADER_INO)
		bad = S_ISDIR(inode->mode);
	else if (ino == EXT2_RESIZE_INO || ino == EXT2_JOURNAL_INO ||
		 ino == EXT4_USR_QUOTA_INO || ino == EXT4_GRP_QUOTA_INO)
		bad = inode->mode && !S_ISREG(inode->mode);
	else
		bad = inode->mode != 0;
	if (bad && pass1_report(ctx, PR_1_RESERVED_MODE, ino, inode, 0)) {
		inode->mode = 0;
		dirty = 1;
	}
	if (dirty)
		fsck_write_inode(ctx, ino, inode);
	dirty = 0;
	if (ino == EXT2_RESIZE_INO) {
		rc = fsck_check_resize_inode(ctx, inode);
		if (rc)
			return rc;
	}
	/* An EA block number outside the filesystem (or without ext_attr)
	 * on a reserved inode: e2fsck only marks the inode bad, which
	 * pass 2 acts on for inodes a directory names, never these. Nobody
	 * reads it; it is left alone, as there. */
	if (!inode->file_acl ||
	    (extkit_fs_valid_block(ctx->fs, inode->file_acl) &&
	     extkit_has_compat(&ctx->fs->sb, EXT2_FEATURE_COMPAT_EXT_ATTR)))
		rc = fsck_ea_check_inode(ctx, ino, inode, &dirty, &ea_blocks,
					 &ea_dup);
	else
		rc = 0;
	if (!rc)
		rc = fsck_scan_blocks(ctx, ino, inode, &res);
	if (rc)
		return rc;
	note_ea_dup(&res, ea_dup);
	if (res.cleared) {
		/* a map the scan gave up on (a bad extent root, say) */
		fsck_release_blocks(ctx, inode);
		fsck_clear_inode(ctx, ino, inode);
		fsck_istate_mark_used(&ctx->istate, ino);
		extkit_bitmap_set(&ctx->inode_used, ino - 1);
		return 0;
	}
	if (res.inode_dirty)
		dirty = 1;
	check_index_flag(ctx, ino, inode, &dirty);
	check_sizes(ctx, ino, inode, &res, ea_blocks, &dirty);
	if (dirty)
		fsck_write_inode(ctx, ino, inode);
	note_dups(ctx, ino, &res);
	fsck_stats_reserved(ctx, ino, inode, &res);
	fsck_istate_mark_used(&ctx->istate, ino);
	extkit_bitmap_set(&ctx->inode_used, ino - 1);
	return 0;
}

/*
 * Raw fields the decoded inode does not carry: a dtime that looks like an
 * orphan list link (below the inode count; the list was cleared in pass
 * 0) and the obsolete fragment address, which must be zero. st holds
 * raw's stored fields; 1 when raw was rewritten.
 */
static int check_raw(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw,
		     struct extkit_inode_stored st)
{
	uint32_t isz = ctx->fs->g.inode_size;
	struct extkit_inode inode;
	uint32_t dtime = st.dtime, faddr;
	uint8_t *copy;
	int changed = 0;

	/* Reserved inodes: the dtime only (e2fsck checks it for all). */
	faddr = ino < ctx->fs->g.first_ino && ino != EXT2_ROOT_INO ?
		0 : st.faddr;
	if ((!dtime || dtime >= ctx->fs->sb.inodes_count) && !faddr)
		return 0;
	extkit_inode_decode(raw, isz, &inode);
	copy = malloc(isz);
	if (!copy)
		return 0;
	memcpy(copy, raw, isz);
	if (dtime && dtime < ctx->fs->sb.inodes_count &&
	    pass1_report(ctx, PR_1_LOW_DTIME, ino, &inode, dtime))
		st.dtime = inode.links_count ? 0 : ctx->now;
	if (faddr && pass1_report(ctx, PR_1_FADDR, ino, &inode, faddr))
		st.faddr = 0;
	extkit_inode_stored_put(&st, isz, copy);
	if (memcmp(copy, raw, isz) && fsck_fixing(ctx)) {
		extkit_inode_write_raw(ctx->fs, ino, copy);
		memcpy(raw, copy, ctx->fs->g.inode_size);
		changed = 1;
	}
	free(copy);
	return changed;
}

/* e2fsck's rule: 0, or 4 (i_extra_isize, i_checksum_hi) up to the room
 * past the 128-byte core, a multiple of 4. */
static int extra_isize_ok(uint32_t v, uint32_t inode_size)
{
	return !v || (v >= 4 && v <= inode_size - EXT2_INODE_CORE_SIZE &&
		      !(v & 3));
}

/* The value a bad i_extra_isize gets: rounded up when only unaligned,
 * else s_want_extra_isize (0 if that is bad too). */
static uint16_t extra_isize_fix(struct extkit_fs *fs, uint32_t v)
{
	uint32_t isz = fs->g.inode_size;

	if (extra_isize_ok((v + 3) & ~3u, isz) && v >= 4)
		return (uint16_t)((v + 3) & ~3u);
	return extra_isize_ok(fs->sb.want_extra_isize, isz) ?
	       fs->sb.want_extra_isize : 0;
}

/*
 * Raw fields of a live inode that the features make meaningless:
 * l_i_blocks_high (huge_file), l_i_file_acl_high (64bit) must be zero;
 * i_extra_isize of a large inode must fit (as e2fsck checks them).
 * 1 when raw was rewritten.
 */
static int check_raw_live(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t isz = fs->g.inode_size;
	struct extkit_inode_stored st;
	struct extkit_inode inode;
	uint16_t bhi, ahi, extra;
	uint8_t *copy;
	int changed = 0;

	extkit_inode_stored_get(raw, isz, &st);
	bhi = st.blocks_hi;
	ahi = st.file_acl_hi;
	extra = st.extra_isize;
	if (fs->sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_HUGE_FILE)
		bhi = 0;
	if (fs->sb.feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		ahi = 0;
	if (!bhi && !ahi && extra_isize_ok(extra, isz))
		return 0;
	extkit_inode_decode(raw, isz, &inode);
	copy = malloc(isz);
	if (!copy)
		return 0;
	memcpy(copy, raw, isz);
	if (!extra_isize_ok(extra, isz) &&
	    pass1_report(ctx, PR_1_EXTRA_ISIZE, ino, &inode, extra))
		st.extra_isize = extra_isize_fix(fs, extra);
	if (bhi && pass1_report(ctx, PR_1_BLOCKS_HI, ino, &inode, bhi))
		st.blocks_hi = 0;
	if (ahi && pass1_report(ctx, PR_1_FILE_ACL_HI, ino, &inode, ahi))
		st.file_acl_hi = 0;
	extkit_inode_stored_put(&st, isz, copy);
	if (memcmp(copy, raw, isz) && fsck_fixing(ctx)) {
		extkit_inode_write_raw(fs, ino, copy);
		memcpy(raw, copy, isz);
		changed = 1;
	}
	free(copy);
	return changed;
}

static int check_fields(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw)
{
	struct extkit_inode_stored st;
	struct extkit_inode inode;
	/* the bad blocks inode is not trusted with a wrong checksum */
	int csum_bad = ino == EXT2_BAD_INO &&
		       !extkit_inode_csum_verify(ctx->fs, ino, raw);

	extkit_inode_stored_get(raw, ctx->fs->g.inode_size, &st);
	if (check_raw(ctx, ino, raw, st))
		extkit_inode_stored_get(raw, ctx->fs->g.inode_size, &st);
	if (ino < ctx->fs->g.first_ino && ino != EXT2_ROOT_INO) {
		extkit_inode_decode(raw, ctx->fs->g.inode_size, &inode);
		return check_reserved(ctx, ino, &inode, csum_bad);
	}
	/* Fast path: a never used inode (no mode, no links). */
	if (st.mode == 0 && st.links_count == 0)
		return 0;
	extkit_inode_decode(raw, ctx->fs->g.inode_size, &inode);
	if (!inode.links_count && (inode.dtime || !inode.mode))
		return 0;
	if (check_raw_live(ctx, ino, raw))
		extkit_inode_decode(raw, ctx->fs->g.inode_size, &inode);
	return check_live(ctx, ino, &inode);
}

/*
 * metadata_csum: an inode whose checksum was wrong when read and is
 * still wrong after the other checks (which rewrite the inodes they fix,
 * checksum included) gets its checksum rewritten, as e2fsck's
 * PR_1_INODE_ONLY_CSUM_INVALID does.
 */
static void recheck_csum(struct fsck_ctx *ctx, uint32_t ino)
{
	uint8_t *raw = malloc(ctx->fs->g.inode_size);
	struct extkit_inode inode;

	if (!raw)
		return;
	if (!extkit_inode_read_raw(ctx->fs, ino, raw) &&
	    !extkit_inode_csum_verify(ctx->fs, ino, raw)) {
		extkit_inode_decode(raw, ctx->fs->g.inode_size, &inode);
		if (pass1_report(ctx, PR_1_INODE_CSUM, ino, &inode, 0) &&
		    fsck_fixing(ctx))
			extkit_inode_write_raw(ctx->fs, ino, raw);
	}
	free(raw);
}

/* csum_ok: the checksum verdict on raw as read (the reader's), or -1. */
static int check_one(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw,
		     int csum_ok)
{
	int rc;

	if (csum_ok < 0)
		csum_ok = extkit_inode_csum_verify(ctx->fs, ino, raw);
	rc = check_fields(ctx, ino, raw);

	if (!rc && !csum_ok && !(ctx->flags & FSCK_FL_ABORT))
		recheck_csum(ctx, ino);
	return rc;
}

static void report_itable(struct fsck_ctx *ctx, uint32_t g, uint64_t blk,
			  int rc)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.group = g;
	pctx.blk = blk;
	pctx.str = extkit_strerror(rc);
	fix_problem(ctx, PR_1_ITABLE_READ, &pctx);
	ctx->flags |= FSCK_FL_UNCORRECTED;
}

/* Inodes of group g that can hold anything (uninit_bg aware). */
static uint32_t group_inodes(struct fsck_ctx *ctx, uint32_t g)
{
	const struct extkit_group *gd = &ctx->fs->groups[g];
	uint32_t ipg = ctx->fs->sb.inodes_per_group;

	if (!extkit_has_ro_compat(&ctx->fs->sb,
				  EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
				  EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return ipg;
	if (gd->flags & EXT4_BG_INODE_UNINIT)
		return 0;
	return gd->itable_unused < ipg ? ipg - gd->itable_unused : 0;
}

/* Where pass 1 reads inode tables: a reader one chunk ahead, or, when
 * there is none (no thread), one buffer read in turn. */
struct itable_src {
	struct itable_reader *reader;
	uint8_t *buf;
	uint32_t chunk_blocks;
	int ahead;		/* ask for the next chunk while checking */
};

/* Inode table blocks of group g to read (0 without a table). */
static uint32_t group_itable_blocks(struct fsck_ctx *ctx, uint32_t g)
{
	uint32_t ipb = ctx->fs->g.inodes_per_block;

	if (!ctx->fs->groups[g].inode_table)
		return 0;
	return (group_inodes(ctx, g) + ipb - 1) / ipb;
}

/* The inodes of group g a chunk from table block b holds: the first
 * (*first) and how many are checked. */
static uint32_t chunk_inodes(struct fsck_ctx *ctx, uint32_t g, uint32_t b,
			     uint32_t cnt, uint32_t *first)
{
	uint32_t ipb = ctx->fs->g.inodes_per_block, n = group_inodes(ctx, g);
	uint32_t from = b * ipb;

	*first = g * ctx->fs->sb.inodes_per_group + 1 + from;
	if (from >= n)
		return 0;
	return n - from < cnt * ipb ? n - from : cnt * ipb;
}

/* Asks the reader for the first chunk at or after block b of group g's
 * table. */
static void post_from(struct fsck_ctx *ctx, struct itable_src *src,
		      uint32_t g, uint32_t b)
{
	uint32_t n, cnt, first, ninodes;

	if (!src->reader || !src->ahead)
		return;
	for (; g < ctx->fs->g.group_count; g++, b = 0) {
		n = group_itable_blocks(ctx, g);
		if (b < n) {
			cnt = n - b < src->chunk_blocks ? n - b :
							  src->chunk_blocks;
			ninodes = chunk_inodes(ctx, g, b, cnt, &first);
			itable_reader_post(src->reader,
					   ctx->fs->groups[g].inode_table + b,
					   cnt, first, ninodes);
			return;
		}
	}
}

/* *ok: the chunk's checksum verdicts when the reader made them. */
static int read_chunk(struct fsck_ctx *ctx, struct itable_src *src,
		      uint32_t g, uint32_t b, uint32_t cnt, uint8_t **chunk,
		      const uint8_t **ok)
{
	uint64_t blk = ctx->fs->groups[g].inode_table + b;
	uint32_t first, ninodes = chunk_inodes(ctx, g, b, cnt, &first);

	*ok = NULL;
	if (src->reader)
		return itable_reader_get(src->reader, blk, cnt, first,
					 ninodes, chunk, ok);
	*chunk = src->buf;
	return extkit_io_read_blocks(ctx->io, blk, cnt, src->buf);
}

static int scan_group(struct fsck_ctx *ctx, uint32_t g,
		      struct itable_src *src)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t isz = fs->g.inode_size, ipb = fs->g.inodes_per_block;
	uint32_t chunk_blocks = src->chunk_blocks;
	uint32_t n = group_inodes(ctx, g);
	uint32_t nblk = (n + ipb - 1) / ipb;
	uint32_t first = g * fs->sb.inodes_per_group + 1;
	const uint8_t *ok;
	uint8_t *chunk;
	int rc;

	if (!fs->groups[g].inode_table) {
		/* Lost its table (relocated at the end of the pass): the
		 * reserved inodes stay in use, the others read as free. */
		for (uint32_t ino = first; ino < first + n &&
		     ino < fs->g.first_ino; ino++) {
			fsck_istate_mark_used(&ctx->istate, ino);
			extkit_bitmap_set(&ctx->inode_used, ino - 1);
		}
		return 0;
	}

	for (uint32_t b = 0; b < nblk; b += chunk_blocks) {
		uint32_t cnt = nblk - b < chunk_blocks ? nblk - b :
							 chunk_blocks;
		uint64_t blk = fs->groups[g].inode_table + b;

		rc = read_chunk(ctx, src, g, b, cnt, &chunk, &ok);
		post_from(ctx, src, g, b + chunk_blocks);
		if (rc) {
			report_itable(ctx, g, blk, rc);
			continue;
		}
		ctx->p1.raw_writes = extkit_io_writes(ctx->io);
		for (uint32_t i = 0; i < cnt * ipb; i++) {
			uint32_t idx = b * ipb + i;

			if (idx >= n)
				break;
			ctx->p1.ino = first + idx;
			ctx->p1.raw = chunk + (size_t)i * isz;
			rc = check_one(ctx, first + idx, chunk + (size_t)i *
				       isz, ok ? ok[i] : -1);
			ctx->p1.raw = NULL;
			if (rc)
				return rc;
		}
	}
	return 0;
}

int fsck_pass1(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t bs = fs->g.block_size;
	struct itable_src src = { .ahead = 1 };
	int rc = 0;

	ctx->ind_fix.n = 0;	/* a restart scans again */
	fsck_enc_free(&ctx->enc);
	src.chunk_blocks = CHUNK_BYTES / bs ? CHUNK_BYTES / bs : 1;
	if (src.chunk_blocks > fs->g.itable_blocks)
		src.chunk_blocks = fs->g.itable_blocks;
	if (fsck_threads_pay(ctx))
		src.reader = itable_reader_new(ctx->io,
					       (size_t)src.chunk_blocks * bs,
					       fs);
	if (!src.reader) {
		src.buf = malloc((size_t)src.chunk_blocks * bs);
		if (!src.buf)
			return -ENOMEM;
	}
	mark_group_metadata(ctx);
	for (uint32_t g = 0; g < fs->g.group_count && !rc; g++) {
		fsck_progress(ctx, g, fs->g.group_count);
		if (g == 0)
			post_from(ctx, &src, 0, 0);
		rc = scan_group(ctx, g, &src);
		if (ctx->flags & FSCK_FL_ABORT)
			break;
	}
	src.ahead = 0;
	if (!rc && !(ctx->flags & FSCK_FL_ABORT))
		rc = fsck_relocate_group_places(ctx);
	/* A relocated inode table is zeroes: scanned now, so that its
	 * reserved inodes (resize inode, root) are checked and rebuilt. */
	for (uint32_t g = 0; ctx->relocate && g < fs->g.group_count && !rc;
	     g++)
		if ((ctx->relocate[g] & FSCK_RELOC_ITABLE) &&
		    !(ctx->relocate[g] & FSCK_RELOC_KEEP_IT) &&
		    fs->groups[g].inode_table)
			rc = scan_group(ctx, g, &src);
	itable_reader_free(src.reader);
	free(src.buf);
	if (!rc && !(ctx->flags & FSCK_FL_ABORT))
		rc = fsck_ea_recheck_ahead(ctx);
	if (!rc && !(ctx->flags & FSCK_FL_ABORT))
		rc = fsck_ea_refcounts(ctx);
	if (!rc && !(ctx->flags & FSCK_FL_ABORT))
		fsck_apply_ind_fixes(ctx, 1);
	fsck_enc_pass1_done(&ctx->enc);
	return rc;
}

int fsck_pass1_resize(struct fsck_ctx *ctx)
{
	return fsck_rebuild_resize_inode(ctx);
}
