// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /lost+found: found (pass 3 under -n only looks), made when missing or
 * unusable (all or nothing: inode, block and name settled before the
 * first write), an encrypted one unlinked and made anew, and files
 * reconnected into it (e2fsck's e2fsck_reconnect_file). The directory
 * edits are dir_edit.c's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

#define LF_NAME		"lost+found"
#define LF_MODE		040700

/*
 * All or nothing: the inode, the block and the name in / (which may grow
 * the root) are settled before the new directory is written; when one
 * of them fails, what was taken is given back and nothing is written.
 */
static int create_lost_found(struct fsck_ctx *ctx)
{
	uint32_t ino;
	uint64_t blk;
	int rc;

	rc = fsck_new_inode(ctx, EXT2_ROOT_INO, 1, &ino);
	if (rc)
		return rc;
	rc = fsck_new_dir_block(ctx, ino, &blk);
	if (rc) {
		fsck_release_new_inode(ctx, ino, 1);
		return rc;
	}
	rc = fsck_add_entry(ctx, EXT2_ROOT_INO, LF_NAME, strlen(LF_NAME), ino,
			    EXT2_FT_DIR);
	if (rc) {
		fsck_release_new_block(ctx, blk);
		fsck_release_new_inode(ctx, ino, 1);
		return rc;
	}
	/* From here on only the writes themselves can fail. */
	rc = fsck_write_new_dir(ctx, EXT2_ROOT_INO, ino, LF_MODE, blk);
	if (rc)
		return rc;
	fsck_count_link(ctx, ino);		/* its name in / */
	ctx->lost_found = ino;
	/* The new '..' is a link to the root: on disk too. */
	return fsck_adjust_links(ctx, EXT2_ROOT_INO, 1);
}

/*
 * An encrypted /lost+found (e2fsck's PR_3_LPF_ENCRYPTED): files moved
 * there could be named only with the key, so it is unlinked and a new
 * one made. The old directory, now unconnected, goes into the new one
 * later in pass 3. 0 when unlinked; -ENOTDIR, not asked again, when
 * kept.
 */
static int unlink_encrypted_lf(struct fsck_ctx *ctx, uint32_t ino,
			       struct problem_context *pctx)
{
	struct fsck_dir *d;
	int rc;

	pctx->ino = ino;
	if (!fix_problem(ctx, PR_3_LF_ENCRYPTED, pctx)) {
		ctx->lost_found_err = -ENOTDIR;
		return -ENOTDIR;
	}
	rc = fsck_unlink_entry(ctx, EXT2_ROOT_INO, ino, LF_NAME);
	if (rc)
		return rc;
	d = fsck_dir_find(ctx, ino);
	if (d) {
		d->parent = 0;
		d->flags &= ~(uint32_t)FSCK_DIR_DONE;
	}
	return 0;
}

static int is_encrypted(struct fsck_ctx *ctx, uint32_t ino)
{
	struct extkit_inode inode;

	return !extkit_inode_read(ctx->fs, ino, &inode) &&
	       (inode.flags & EXT4_ENCRYPT_FL);
}

/*
 * No free inode or block for /lost+found: lost files go in the root
 * directory instead, as e2fsck offers (with a word that the filesystem
 * is full). The next run asks again.
 */
static int use_root(struct fsck_ctx *ctx)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	if (!fix_problem(ctx, PR_3_LF_NO_SPACE, &pctx))
		return 0;
	fix_problem(ctx, PR_3_NO_SPACE_TO_RECOVER, &pctx);
	ctx->lost_found = EXT2_ROOT_INO;
	return 1;
}

void fsck_find_lost_found(struct fsck_ctx *ctx)
{
	uint32_t ino;

	if (ctx->lost_found || ctx->lost_found_err ||
	    extkit_dir_lookup(ctx->fs, EXT2_ROOT_INO, LF_NAME,
			      strlen(LF_NAME), &ino))
		return;
	if (ino <= ctx->fs->sb.inodes_count &&
	    fsck_ftype(ctx, ino) == EXT2_FT_DIR && fsck_inode_used(ctx, ino) &&
	    !is_encrypted(ctx, ino))
		ctx->lost_found = ino;
}

int fsck_get_lost_found(struct fsck_ctx *ctx, int create)
{
	struct problem_context pctx;
	uint32_t ino;
	int rc;

	if (ctx->lost_found)
		return 0;
	if (ctx->lost_found_err)	/* reported once, when it failed */
		return ctx->lost_found_err;
	clear_problem_context(&pctx);
	rc = extkit_dir_lookup(ctx->fs, EXT2_ROOT_INO, LF_NAME,
			       strlen(LF_NAME), &ino);
	if (!rc && ino <= ctx->fs->sb.inodes_count &&
	    fsck_ftype(ctx, ino) == EXT2_FT_DIR && fsck_inode_used(ctx, ino)) {
		if (!is_encrypted(ctx, ino)) {
			ctx->lost_found = ino;
			return 0;
		}
		rc = unlink_encrypted_lf(ctx, ino, &pctx);
		if (rc)
			return rc;
	} else if (!rc) {
		pctx.ino = ino;
		if (!fix_problem(ctx, PR_3_LF_NOT_DIR, &pctx))
			return -ENOTDIR;
		rc = fsck_unlink_entry(ctx, EXT2_ROOT_INO, ino, LF_NAME);
		if (rc)
			return rc;
	} else if (rc != -ENOENT) {
		return rc;
	}
	if (!create || !fix_problem(ctx, PR_3_NO_LF, &pctx))
		return -ENOENT;
	rc = create_lost_found(ctx);
	if (rc == -ENOSPC && use_root(ctx))
		return 0;
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_3_LF_CREATE_FAILED, &pctx);
		ctx->flags |= FSCK_FL_UNCORRECTED;
		ctx->lost_found_err = rc;
	}
	return rc;
}

int fsck_reconnect(struct fsck_ctx *ctx, uint32_t ino)
{
	struct problem_context pctx;
	char name[32];
	int rc;

	rc = fsck_get_lost_found(ctx, 1);
	if (!rc) {
		snprintf(name, sizeof(name), "#%" PRIu32, ino);
		rc = fsck_add_entry(ctx, ctx->lost_found, name, strlen(name),
				    ino, fsck_ftype(ctx, ino));
	}
	if (rc) {
		clear_problem_context(&pctx);
		pctx.ino = ino;
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_3_CONNECT_FAILED, &pctx);
		ctx->flags |= FSCK_FL_UNCORRECTED;
		return rc;
	}
	fsck_count_link(ctx, ino);
	return 0;
}
