// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1 checks that depend on the file type, as e2fsck's pass 1 makes
 * them (e2fsck_pass1_check_device_inode, e2fsck_pass1_check_symlink,
 * check_extents_inlinedata, check_immutable, check_size).
 *
 * Device, FIFO and socket inodes hold no blocks: i_block[0] and [1]
 * carry the device number (the old 16-bit encoding in [0], the new
 * 32-bit one in [1]) and the rest is unused. Such an inode is illegal,
 * and is cleared, when it has the htree index or extents flag, or when
 * it has the immutable or append-only flag and a word of i_block[4..14]
 * is nonzero (the kernel does not always zero those words, so they only
 * count together with a flag that cannot be set on a device). A legal
 * one loses the inline data, immutable and append-only flags and any
 * nonzero i_size.
 *
 * A symlink is fast when its target (shorter than the 60 bytes of
 * i_block) sits in i_block, slow when it has one data block holding the
 * target. Either way the target must end in a NUL inside its buffer and
 * its length must equal i_size; a slow symlink's one block must be in
 * range and readable. An invalid symlink is cleared; a valid one loses
 * the immutable and append-only flags.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extent.h"
#include "inline.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "symlink.h"

#include "fsck.h"
#include "pass1.h"
#include "problem.h"

/* i_block words left alone: the device number is in [0] (old 16-bit
 * encoding) or [1] (new 32-bit one), and e2fsck never looks at [0..3]. */
#define DEV_BLOCK_WORDS		4
#define SPECIAL_BAD_FLAGS	(EXT2_IMMUTABLE_FL | EXT2_APPEND_FL)

const char *pass1_special_name(uint16_t mode)
{
	if (S_ISCHR(mode))
		return "character device";
	if (S_ISBLK(mode))
		return "block device";
	if (S_ISFIFO(mode))
		return "FIFO";
	if (S_ISSOCK(mode))
		return "socket";
	if (S_ISLNK(mode))
		return "symlink";
	return NULL;
}

static int report_type(struct fsck_ctx *ctx, uint32_t code, uint32_t ino,
		       struct extkit_inode *inode, const char *why)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.inode = inode;
	pctx.str = why;
	return fix_problem(ctx, code, &pctx);
}

/*
 * e2fsck_pass1_check_device_inode: why the inode cannot be a device,
 * FIFO or socket (into why, for the message), or NULL.
 */
static const char *device_problem(const struct extkit_inode *inode,
				  char *why, size_t len)
{
	const char *name = pass1_special_name(inode->mode);

	if (inode->flags & (EXT2_INDEX_FL | EXT4_EXTENTS_FL)) {
		snprintf(why, len, "%s with the %s flag", name,
			 inode->flags & EXT2_INDEX_FL ? "htree index" :
			 "extents");
		return why;
	}
	if (!(inode->flags & SPECIAL_BAD_FLAGS))
		return NULL;
	for (int i = DEV_BLOCK_WORDS; i < EXT2_N_BLOCKS; i++) {
		if (inode->block[i]) {
			snprintf(why, len, "%s with the %s flag and a nonzero "
				 "i_block[%d]", name,
				 inode->flags & EXT2_IMMUTABLE_FL ?
				 "immutable" : "append-only", i);
			return why;
		}
	}
	return NULL;
}

/* The immutable and append-only flags, which a special file cannot
 * have (the kernel refuses to set or clear them there). */
static void check_immutable(struct fsck_ctx *ctx, uint32_t ino,
			    struct extkit_inode *inode, int *dirty)
{
	if (!(inode->flags & SPECIAL_BAD_FLAGS))
		return;
	if (report_type(ctx, PR_1_SPECIAL_IMMUTABLE, ino, inode,
			pass1_special_name(inode->mode))) {
		inode->flags &= ~SPECIAL_BAD_FLAGS;
		*dirty = 1;
	}
}

/* Device, FIFO or socket; 1 when cleared. */
static int check_special(struct fsck_ctx *ctx, uint32_t ino,
			 struct extkit_inode *inode, int *dirty)
{
	const char *name = pass1_special_name(inode->mode);
	char why[96];

	if (device_problem(inode, why, sizeof(why))) {
		if (!report_type(ctx, PR_1_SPECIAL_ILLEGAL, ino, inode, why))
			return 0;
		fsck_clear_inode(ctx, ino, inode);
		return 1;
	}
	if ((inode->flags & EXT4_INLINE_DATA_FL) &&
	    report_type(ctx, PR_1_SPECIAL_INLINE, ino, inode, name)) {
		inode->flags &= ~EXT4_INLINE_DATA_FL;
		*dirty = 1;
	}
	check_immutable(ctx, ino, inode, dirty);
	if (inode->size &&
	    report_type(ctx, PR_1_SPECIAL_SIZE, ino, inode, name)) {
		inode->size = 0;
		*dirty = 1;
	}
	return 0;
}

/*
 * The target length in buf (at most buflen bytes) against i_size. An
 * encrypted target (EXT4_ENCRYPT_FL) is ciphertext, NULs included,
 * after its 16-bit length (fscrypt_symlink_data): i_size is that length
 * plus 2 (e2fsck's check_symlink).
 */
static const char *target_problem(const uint8_t *buf, size_t buflen,
				  uint64_t size, int encrypted)
{
	size_t len = encrypted ? (size_t)extkit_symlink_enc_len(buf) + 2 :
				 strnlen((const char *)buf, buflen);

	if (len >= buflen)
		return "the target is not NUL-terminated";
	if (len != size)
		return "size does not match the target";
	return NULL;
}

/* The one block blk of a slow symlink: in range, readable, a valid
 * target. */
static const char *symlink_block_problem(struct fsck_ctx *ctx,
					 const struct extkit_inode *inode,
					 uint64_t blk)
{
	if (!extkit_fs_valid_block(ctx->fs, blk))
		return "its block is out of range";
	if (extkit_fs_read_block(ctx->fs, blk, ctx->blkbuf))
		return "its block cannot be read";
	return target_problem(ctx->blkbuf, ctx->fs->g.block_size, inode->size,
			      !!(inode->flags & EXT4_ENCRYPT_FL));
}

/* A slow symlink mapped by i_block: block[0] and no other. */
static const char *slow_symlink_problem(struct fsck_ctx *ctx,
					const struct extkit_inode *inode)
{
	if (inode->size >= ctx->fs->g.block_size)
		return "size is too large";
	if (!inode->block[0])
		return "no block";
	for (int i = 1; i < EXT2_N_BLOCKS; i++)
		if (inode->block[i])
			return "more than one block";
	return symlink_block_problem(ctx, inode, inode->block[0]);
}

/* A slow symlink mapped by extents: a root of depth 0 holding one
 * extent, block 0 of length 1 (e2fsck's check_symlink). */
static const char *extent_symlink_problem(struct fsck_ctx *ctx,
					  const struct extkit_inode *inode)
{
	uint8_t root[EXT2_N_BLOCKS * 4];
	struct extkit_extent ex;

	if (inode->size >= ctx->fs->g.block_size)
		return "size is too large";
	extkit_extent_root_get(inode, root);
	if (!extkit_extent_has_magic(root) ||
	    extkit_extent_depth(root) != 0 ||
	    extkit_extent_entries(root) != 1)
		return "its extent tree is not one extent";
	extkit_extent_get(root, 0, &ex);
	if (ex.lblk != 0 || ex.len != 1 || ex.unwritten)
		return "its extent is not block 0 alone";
	return symlink_block_problem(ctx, inode, ex.pblk);
}

/* An inline symlink: its target is the whole inline area, i_block and
 * the system.data value (e2fsck's check_symlink: i_size equals
 * ext2fs_inline_data_size). */
static const char *inline_symlink_problem(struct fsck_ctx *ctx, uint32_t ino,
					  const struct extkit_inode *inode)
{
	struct extkit_inline in;
	const char *why = NULL;
	uint8_t *raw;

	if (inode->flags & EXT4_EXTENTS_FL)
		return "it has the inline data and extents flags";
	raw = malloc(ctx->fs->g.inode_size);
	if (!raw)
		return NULL;
	if (extkit_inode_read_raw(ctx->fs, ino, raw) ||
	    extkit_inline_locate(ctx->fs, raw, &in))
		why = "its inline data cannot be found";
	else if (inode->size != extkit_inline_capacity(&in))
		why = "size does not match its inline data";
	free(raw);
	return why;
}

/* Why a symlink is invalid, or NULL (e2fsck's check_symlink rules). */
static const char *symlink_problem(struct fsck_ctx *ctx, uint32_t ino,
				   const struct extkit_inode *inode)
{
	uint8_t raw[EXTKIT_FAST_SYMLINK_MAX];

	if (!inode->size)
		return "size is zero";
	if (inode->size >> 32)
		return "size is too large";
	if (inode->flags & EXT2_INDEX_FL)
		return "it has the htree index flag";
	if (inode->flags & EXT4_INLINE_DATA_FL)
		return inline_symlink_problem(ctx, ino, inode);
	if (extkit_inode_has_block_map(inode))
		return inode->flags & EXT4_EXTENTS_FL ?
		       extent_symlink_problem(ctx, inode) :
		       slow_symlink_problem(ctx, inode);
	if (inode->flags & EXT4_EXTENTS_FL)
		return "a fast symlink has the extents flag";
	extkit_symlink_iblock_bytes(inode, raw);
	return target_problem(raw, sizeof(raw), inode->size,
			      !!(inode->flags & EXT4_ENCRYPT_FL));
}

/* 1 when the symlink was cleared. */
static int check_symlink(struct fsck_ctx *ctx, uint32_t ino,
			 struct extkit_inode *inode, int *dirty)
{
	const char *why;

	/* The extents flag on a symlink without blocks (no data, no EA
	 * block) is dropped first, as e2fsck's PR_1_FAST_SYMLINK_EXTENT_FL
	 * does: a fast symlink then stays. */
	if ((inode->flags & EXT4_EXTENTS_FL) && !inode->file_acl &&
	    !extkit_inode_blocks_bytes(ctx->fs, inode) &&
	    extkit_has_incompat(&ctx->fs->sb, EXT4_FEATURE_INCOMPAT_EXTENTS) &&
	    report_type(ctx, PR_1_FAST_SYMLINK_EXTENT_FL, ino, inode, NULL)) {
		inode->flags &= ~EXT4_EXTENTS_FL;
		*dirty = 1;
	}
	why = symlink_problem(ctx, ino, inode);
	if (!why) {
		check_immutable(ctx, ino, inode, dirty);
		return 0;
	}
	if (!report_type(ctx, PR_1_BAD_SYMLINK, ino, inode, why))
		return 0;
	fsck_clear_inode(ctx, ino, inode);
	return 1;
}

int pass1_check_type(struct fsck_ctx *ctx, uint32_t ino,
		     struct extkit_inode *inode, int *dirty)
{
	uint16_t mode = inode->mode;

	if (S_ISLNK(mode))
		return check_symlink(ctx, ino, inode, dirty);
	if (S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) ||
	    S_ISSOCK(mode))
		return check_special(ctx, ino, inode, dirty);
	return 0;
}
