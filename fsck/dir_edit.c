// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory edits for fsck: entries added (the library's add-entry,
 * lib/diradd.c, which grows the directory by a block when none has room,
 * the block from fsck's allocator, alloc.c) and unlinked, '..' set, new
 * directories made (a block near the inode, '.' and '..', one extent
 * cluster with bigalloc), a fresh directory block written, link counts
 * adjusted. Used by pass 2 (holes, dir_hole.c), pass 3 and lost+found.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "dirblock.h"
#include "diradd.h"
#include "dirspace.h"
#include "error.h"
#include "extent.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "io.h"
#include "mapbuild.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

int fsck_adjust_links(struct fsck_ctx *ctx, uint32_t ino, int adj)
{
	struct extkit_inode inode;
	int rc = extkit_inode_read(ctx->fs, ino, &inode);

	if (rc)
		return rc;
	if (adj > 0 && inode.links_count < UINT16_MAX)
		inode.links_count++;
	else if (adj < 0 && inode.links_count > 0)
		inode.links_count--;
	fsck_count_set(&ctx->link_count, ino, inode.links_count);
	return fsck_write_inode(ctx, ino, &inode);
}

/*
 * Writes a fresh block of directory dir (i_generation gen): '.' and '..'
 * (parent non-zero) or one empty record, and the checksum tail with
 * metadata_csum.
 */
int fsck_dir_block_write(struct fsck_ctx *ctx, uint64_t blk, uint32_t dir,
			 uint32_t gen, uint32_t parent)
{
	extkit_dirblock_new(ctx->fs, ctx->blkbuf, dir, parent, 0);
	return extkit_dirblock_write(ctx->fs, dir, gen, blk, ctx->blkbuf);
}

/* ---- entries ---- */

void fsck_drop_add_space(struct fsck_ctx *ctx, uint32_t dir)
{
	if (!ctx->add_space || (dir && ctx->add_space->ino != dir))
		return;
	extkit_dirspace_free(ctx->add_space);
	free(ctx->add_space);
	ctx->add_space = NULL;
}

/* The free-entry map of dir: the cached one, or a new walk. */
static int add_space(struct fsck_ctx *ctx, uint32_t dir,
		     struct extkit_dirspace **out)
{
	struct extkit_dirspace *ds;
	int rc;

	if (ctx->add_space && ctx->add_space->ino == dir) {
		*out = ctx->add_space;
		return 0;
	}
	fsck_drop_add_space(ctx, 0);
	ds = calloc(1, sizeof(*ds));
	if (!ds)
		return -ENOMEM;
	rc = extkit_dirspace_build(ds, ctx->fs, dir, 0);
	if (rc) {
		free(ds);
		return rc;
	}
	fsck_allocator(ctx, &ds->alloc);
	ctx->add_space = *out = ds;
	return 0;
}

int fsck_add_entry(struct fsck_ctx *ctx, uint32_t dir, const char *name,
		   uint32_t name_len, uint32_t ino, uint8_t ftype)
{
	struct extkit_dirspace *ds;
	struct problem_context pctx;
	uint64_t lblk;
	int rc;

	if (ctx->readonly)
		return -EROFS;
	rc = add_space(ctx, dir, &ds);
	if (rc)
		return rc;
	/* Growing lost+found is asked first (an index dropped by the
	 * insertion may give it room: not asked then). */
	if (dir == ctx->lost_found && dir != EXT2_ROOT_INO &&
	    !ds->st.indexed &&
	    extkit_dirspace_find(ds, extkit_dirent_min_len(name_len),
				 &lblk) == -ENOSPC) {
		clear_problem_context(&pctx);
		pctx.ino = dir;
		if (!fix_problem(ctx, PR_3_EXPAND_LF, &pctx))
			rc = -ENOSPC;
	}
	if (!rc)
		rc = extkit_dir_add(ds, name, name_len, ino, ftype, NULL);
	if (rc)
		fsck_drop_add_space(ctx, dir);
	return rc;
}

/* ---- directories ---- */

/*
 * The map of a new directory of one block, blk: a block map, but on
 * bigalloc, where every file is an extent file holding whole clusters
 * (e2fsck: "cannot be block mapped"), one extent and i_blocks a cluster.
 */
static void set_dir_map(const struct extkit_fs *fs, struct extkit_inode *inode,
			uint64_t blk)
{
	struct extkit_extent ex = { .lblk = 0, .pblk = blk, .len = 1 };
	struct extkit_mapbuild mb = { .extents = 1, .list = &ex, .nlist = 1 };

	if (fs->g.cluster_ratio == 1 || extkit_mapbuild_plan(fs, &mb) ||
	    mb.nmeta) {
		inode->block[0] = (uint32_t)blk;
		extkit_inode_set_fs_blocks(fs, inode, 1);
		return;
	}
	extkit_mapbuild_fill(fs, &mb, inode);
	extkit_inode_set_fs_blocks(fs, inode, fs->g.cluster_ratio);
}

/*
 * Writes directory ino (one block, blk, already allocated) and records
 * it. The in-memory record comes first: only the two writes can fail
 * once the first is done.
 */
int fsck_write_new_dir(struct fsck_ctx *ctx, uint32_t parent, uint32_t ino,
		       uint16_t mode, uint64_t blk)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_inode inode;
	struct fsck_dir *d;
	int rc;

	if (!fsck_dir_find(ctx, ino)) {
		rc = fsck_dir_add(ctx, ino);
		if (rc)
			return rc;
	}
	rc = fsck_dir_block_write(ctx, blk, ino, 0, parent);
	if (rc)
		return rc;
	memset(&inode, 0, sizeof(inode));
	inode.mode = mode;
	inode.links_count = 2;
	inode.size = fs->g.block_size;
	inode.atime = inode.ctime = inode.mtime = ctx->now;
	set_dir_map(fs, &inode, blk);
	if (fs->g.inode_size > EXT2_INODE_CORE_SIZE)
		inode.extra_isize = 32;
	rc = fsck_write_inode(ctx, ino, &inode);
	if (rc)
		return rc;
	fsck_istate_clear(&ctx->istate, ino);
	fsck_istate_set(&ctx->istate, ino, EXT2_FT_DIR, 0);
	fsck_count_set(&ctx->link_count, ino, 2);
	fsck_count_link(ctx, ino);		/* its '.' */
	if (parent != ino)
		fsck_count_link(ctx, parent);	/* its '..' */
	else
		fsck_count_link(ctx, ino);
	d = fsck_dir_find(ctx, ino);
	d->parent = d->dotdot = parent;
	d->flags = FSCK_DIR_DOTDOT_COUNTED | FSCK_DIR_DONE;
	return 0;
}

/* The block of new directory ino, near its inode. */
int fsck_new_dir_block(struct fsck_ctx *ctx, uint32_t ino, uint64_t *blk)
{
	struct extkit_fs *fs = ctx->fs;

	/* bigalloc: a cluster of its own (fsck_new_run) */
	return fsck_new_run(ctx, extkit_group_first_block(&fs->sb,
				extkit_group_of_inode(&fs->sb, ino)), 1, blk);
}

int fsck_make_dir(struct fsck_ctx *ctx, uint32_t parent, uint32_t ino,
		  uint16_t mode)
{
	uint64_t blk, writes = extkit_io_writes(ctx->io);
	int rc;

	fsck_drop_add_space(ctx, ino);	/* ino gets a new block map */
	rc = fsck_new_dir_block(ctx, ino, &blk);
	if (rc)
		return rc;
	rc = fsck_write_new_dir(ctx, parent, ino, mode, blk);
	if (rc && extkit_io_writes(ctx->io) == writes)
		fsck_release_new_block(ctx, blk);	/* failed before writing */
	return rc;
}

/* An edit of dir's records in place: none under -n; the cached
 * free-entry map of dir goes. */
static int open_for_edit(struct fsck_ctx *ctx, uint32_t dir,
			 struct extkit_dir_iter **it)
{
	if (ctx->readonly)
		return -EROFS;
	fsck_drop_add_space(ctx, dir);
	return extkit_dir_iter_open(ctx->fs, dir, 0, it);
}

int fsck_set_dotdot(struct fsck_ctx *ctx, uint32_t dir, uint32_t parent)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	int rc, n = 0;

	rc = open_for_edit(ctx, dir, &it);
	if (rc)
		return rc;
	while ((rc = extkit_dir_iter_next(it, &ent)) > 0 && ent.lblk == 0) {
		if (n++ != 1)
			continue;
		/* an emptied '..' (pass 2 cleared a bad number) too */
		if ((ent.kind != EXTKIT_DE_LIVE &&
		     ent.kind != EXTKIT_DE_EMPTY) || ent.name_len != 2 ||
		    memcmp(ent.name, "..", 2) != 0)
			break;
		extkit_dir_iter_set_inode(it, parent);
		rc = 2;
		break;
	}
	if (extkit_dir_iter_close(it) && rc >= 0)
		rc = -EIO;
	return rc == 2 ? 0 : (rc < 0 ? rc : -ENOENT);
}

static int is_dot_or_dotdot(const struct extkit_dirent *ent)
{
	return (ent->name_len == 1 && ent->name[0] == '.') ||
	       (ent->name_len == 2 && !memcmp(ent->name, "..", 2));
}

int fsck_unlink_entry(struct fsck_ctx *ctx, uint32_t dir, uint32_t ino,
		      const char *name)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	int rc, done = 0;

	rc = open_for_edit(ctx, dir, &it);
	if (rc)
		return rc;
	while (!done && (rc = extkit_dir_iter_next(it, &ent)) > 0) {
		if (ent.kind != EXTKIT_DE_LIVE || ent.inode != ino ||
		    is_dot_or_dotdot(&ent))
			continue;
		if (name && (ent.name_len != strlen(name) ||
			     memcmp(ent.name, name, ent.name_len)))
			continue;
		extkit_dir_iter_set_inode(it, 0);
		fsck_uncount_link(ctx, ino);
		done = 1;
	}
	if (extkit_dir_iter_close(it) && rc >= 0)
		rc = -EIO;
	return rc < 0 ? rc : (done ? 0 : -ENOENT);
}
