// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Encrypted inodes in pass 1 (e2fsck's add_encrypted_file): the
 * encryption context of an inode with EXT4_ENCRYPT_FL is the value of
 * its attribute of index 9 (EXT4_XATTR_INDEX_ENCRYPTION), name "c", in
 * the inode or in its EA block. Without one the flag goes; a corrupt one
 * clears the inode; else the inode goes into the policy map (encmap.c)
 * that pass 2 reads.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "xattr.h"

#include "encmap.h"
#include "fsck.h"
#include "pass1.h"
#include "problem.h"

#define ENC_XATTR_INDEX		9	/* EXT4_XATTR_INDEX_ENCRYPTION */
#define ENC_XATTR_NAME		"c"

/* ---- reading the context ---- */

/* Copies the value of x (its first FSCK_ENC_CONTEXT_MAX bytes) into
 * out; *len its full size. */
static int copy_value(struct fsck_ctx *ctx, const struct extkit_xattr *x,
		      uint8_t *out, uint32_t *len)
{
	uint32_t n = x->value_size < FSCK_ENC_CONTEXT_MAX ? x->value_size :
		     FSCK_ENC_CONTEXT_MAX;
	uint8_t *buf;
	int rc;

	*len = x->value_size;
	if (!x->value_inum) {
		memcpy(out, x->value, n);
		return 1;
	}
	/* in an EA inode (the kernel never puts it there; e2fsck reads it) */
	buf = x->value_size <= EXTKIT_XATTR_MAX_VALUE ?
	      malloc(x->value_size ? x->value_size : 1) : NULL;
	if (!buf)
		return 0;
	rc = extkit_ea_inode_read(ctx->fs, x->value_inum, x->value_size, buf);
	if (!rc)
		memcpy(out, buf, n);
	free(buf);
	return rc ? 0 : 1;
}

static int context_in_ibody(struct fsck_ctx *ctx, uint32_t ino,
			    uint8_t *out, uint32_t *len)
{
	uint32_t isz = ctx->fs->g.inode_size;
	struct extkit_xattr_region reg;
	struct extkit_xattr x;
	uint8_t *raw;
	int found = 0;

	if (isz <= EXT2_INODE_CORE_SIZE)
		return 0;
	raw = malloc(isz);
	if (!raw)
		return -ENOMEM;
	if (!fsck_inode_read_raw(ctx, ino, raw) &&
	    extkit_xattr_ibody_region(raw, isz, &reg) &&
	    extkit_xattr_find(&reg, ENC_XATTR_INDEX, ENC_XATTR_NAME, &x))
		found = copy_value(ctx, &x, out, len);
	free(raw);
	return found;
}

/* In the EA block, when it is a valid one (e2fsck reads no attribute
 * from a block it cannot parse). */
static int context_in_block(struct fsck_ctx *ctx,
			    const struct extkit_inode *inode, uint8_t *out,
			    uint32_t *len)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region reg;
	struct extkit_xattr x;
	uint8_t *buf;
	int found = 0;

	if (!inode->file_acl ||
	    !extkit_fs_valid_block(ctx->fs, inode->file_acl) ||
	    !extkit_has_compat(&ctx->fs->sb, EXT2_FEATURE_COMPAT_EXT_ATTR))
		return 0;
	buf = malloc(ctx->fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	extkit_xattr_format_init(ctx->fs, &fmt);
	if (!extkit_fs_read_block(ctx->fs, inode->file_acl, buf) &&
	    extkit_xattr_block_check(&fmt, buf) == EXTKIT_XATTR_OK) {
		extkit_xattr_block_region(&fmt, buf, &reg);
		if (extkit_xattr_find(&reg, ENC_XATTR_INDEX, ENC_XATTR_NAME,
				      &x))
			found = copy_value(ctx, &x, out, len);
	}
	free(buf);
	return found;
}

/* The inode's encryption context: 1 found (the attributes in the inode
 * first, as the kernel looks), 0 none, -ENOMEM. */
static int read_context(struct fsck_ctx *ctx, uint32_t ino,
			const struct extkit_inode *inode, uint8_t *out,
			uint32_t *len)
{
	int rc = context_in_ibody(ctx, ino, out, len);

	return rc ? rc : context_in_block(ctx, inode, out, len);
}

int fsck_enc_check_inode(struct fsck_ctx *ctx, uint32_t ino,
			 struct extkit_inode *inode, int *dirty)
{
	uint8_t val[FSCK_ENC_CONTEXT_MAX];
	uint32_t len = 0, id;
	int rc = read_context(ctx, ino, inode, val, &len);

	if (rc < 0)
		return rc;
	if (!rc) {
		if (pass1_report(ctx, PR_1_ENCRYPT_NO_XATTR, ino, inode, 0)) {
			inode->flags &= ~EXT4_ENCRYPT_FL;
			*dirty = 1;
		}
		return 0;
	}
	rc = fsck_enc_policy_id(&ctx->enc, val, len, &id);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return fsck_enc_add(&ctx->enc, ino, id);
	if (!pass1_report(ctx, PR_1_ENCRYPT_BAD_XATTR, ino, inode, 0))
		return 0;
	/* its blocks are not claimed yet: pass 5 frees them */
	fsck_ea_forget_ibody(ctx, ino);
	fsck_clear_inode(ctx, ino, inode);
	return 1;
}
