// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What fsck creates: directories (lost+found, a new root), directory
 * entries (reconnected files), and blocks filling the holes of a
 * directory; the blocks and inodes come from fsck's allocator (alloc.c).
 * Entries are added by the library's add-entry (lib/diradd.c), which
 * grows the directory by a block when none has room, the block taken from
 * fsck's maps through its allocator hook. A hole is filled with a block
 * mapped in place (direct or single indirect map).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csum.h"
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
#include "walk.h"
#include "ondisk.h"

#include "fsck.h"
#include "problem.h"

#define LF_NAME		"lost+found"
#define LF_MODE		040700

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

/* ---- directory blocks ---- */

/*
 * Writes a fresh block of directory dir (i_generation gen): '.' and '..'
 * (parent non-zero) or one empty record, and the checksum tail with
 * metadata_csum.
 */
static int write_dir_block(struct fsck_ctx *ctx, uint64_t blk, uint32_t dir,
			   uint32_t gen, uint32_t parent)
{
	extkit_dirblock_new(ctx->fs, ctx->blkbuf, dir, parent, 0);
	return extkit_dirblock_write(ctx->fs, dir, gen, blk, ctx->blkbuf);
}

/*
 * Maps a new empty block into the hole at logical block lblk of dir,
 * through the library (extkit_dir_append_block, which takes the block and
 * any indirect block it needs from fsck's maps before its first write);
 * then the block and the inode are written. Extent maps are refused: the
 * library appends extents only at the end of a map.
 */
int fsck_dir_fill_hole(struct fsck_ctx *ctx, uint32_t dir, uint64_t lblk)
{
	struct extkit_allocator ba;
	struct extkit_inode inode;
	uint32_t bs = ctx->fs->g.block_size;
	uint64_t blk;
	int rc;

	fsck_allocator(ctx, &ba);
	fsck_drop_add_space(ctx, dir);
	rc = extkit_inode_read(ctx->fs, dir, &inode);
	if (rc)
		return rc;
	if (inode.flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL))
		return -EXTKIT_EUNSUPP;
	rc = extkit_dir_append_block(ctx->fs, &inode, lblk, inode.block[0],
				     &blk, &ba);
	/* Block 0 gets '.' and '..' (the root's number until pass 3 writes
	 * the parent's), as e2fsck's new directory block. */
	if (!rc)
		rc = write_dir_block(ctx, blk, dir, inode.generation,
				     lblk ? 0 : EXT2_ROOT_INO);
	if (rc)
		return rc;
	if (inode.size < (lblk + 1) * bs)
		inode.size = (lblk + 1) * bs;
	return fsck_write_inode(ctx, dir, &inode);
}

/*
 * bigalloc: a hole of an extent directory inside clusters the directory
 * already owns. A cluster is allocated whole, so the blocks of the
 * cluster of the extent before the hole, after that extent's end, and
 * those of the cluster of the extent after it, before its start, are the
 * directory's already: the two extents grow over them (pass 1 leaves
 * such holes when it moves an extent down, as e2fsck, keeping a block's
 * place in its cluster). A side whose blocks some extent maps already
 * (two logical clusters in one physical cluster) is not filled.
 */
struct cluster_gap {
	uint64_t start, end;	/* the hole [start, end) */
	uint64_t mask;		/* blocks per cluster - 1 */
	int apply;		/* 0: plan and check, 1: grow the extents */
	uint64_t fwd_end;	/* filled forward up to here */
	uint64_t fwd_pblk;	/* the block at start */
	uint64_t back_start;	/* filled backward down to here */
	uint64_t back_pblk;	/* the block at back_start */
};

/* Plans the growth of the extent ending at the hole (forward) and of the
 * one starting right after it (backward), each within its own cluster. */
static void gap_plan(struct cluster_gap *g, const struct extkit_walk_ent *e)
{
	uint64_t to;

	if (e->lblk + e->len == g->start && g->start) {
		to = ((g->start - 1) | g->mask) + 1;
		g->fwd_end = to < g->end ? to : g->end;
		g->fwd_pblk = e->pblk + e->len;
	} else if (e->lblk == g->end &&
		   !(e->flags & EXTKIT_WALK_UNWRITTEN)) {
		to = g->end & ~g->mask;
		g->back_start = to < g->fwd_end ? g->fwd_end : to;
		g->back_pblk = e->pblk - (g->end - g->back_start);
	}
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* A side whose blocks extent e maps is given up. */
static void gap_check(struct cluster_gap *g, const struct extkit_walk_ent *e)
{
	if (overlaps(e->pblk, e->len, g->fwd_pblk, g->fwd_end - g->start))
		g->fwd_end = g->start;
	if (overlaps(e->pblk, e->len, g->back_pblk, g->end - g->back_start))
		g->back_start = g->end;
}

static int gap_grow(struct cluster_gap *g, struct extkit_walk_ent *e)
{
	if (e->lblk + e->len == g->start && g->fwd_end > g->start) {
		e->len += (uint32_t)(g->fwd_end - g->start);
		return EXTKIT_WALK_CHANGED;
	}
	if (e->lblk == g->end && g->back_start < g->end) {
		e->len += (uint32_t)(g->end - g->back_start);
		e->lblk = g->back_start;
		e->pblk = g->back_pblk;
		return EXTKIT_WALK_CHANGED;
	}
	return 0;
}

static int gap_fn(struct extkit_fs *fs, struct extkit_walk_ent *e, void *arg)
{
	struct cluster_gap *g = arg;
	struct extkit_extent first;

	(void)fs;
	if (e->bad)
		return 0;
	if (!(e->flags & EXTKIT_WALK_META)) {
		if (g->apply > 0)
			return gap_grow(g, e);
		if (g->apply < 0)
			gap_check(g, e);
		else
			gap_plan(g, e);
		return 0;
	}
	/* a tree block whose first extent moved down: its index entry
	 * starts there too */
	if (g->apply <= 0 || !(e->flags & EXTKIT_WALK_LEAVE) || !e->entries)
		return 0;
	extkit_extent_get(e->block, 0, &first);
	if (first.lblk >= e->lblk)
		return 0;
	e->lblk = first.lblk;
	return EXTKIT_WALK_CHANGED;
}

/* Writes empty directory blocks over lblk [from, to) at pblk on. */
static int gap_write(struct fsck_ctx *ctx, uint32_t dir, uint32_t gen,
		     uint64_t from, uint64_t to, uint64_t pblk)
{
	int rc = 0;

	for (uint64_t l = from; !rc && l < to; l++, pblk++)
		rc = write_dir_block(ctx, pblk, dir, gen,
				     l ? 0 : EXT2_ROOT_INO);
	return rc;
}

/* Walks dir's extents once in the given phase (0 plan, -1 check: dry). */
static int gap_walk(struct fsck_ctx *ctx, struct extkit_inode *inode,
		    uint32_t dir, struct cluster_gap *g, int phase)
{
	struct extkit_walk wk = { .ino = dir, .fn = gap_fn, .arg = g,
				  .flags = phase > 0 ? 0 : EXTKIT_WALK_DRY };
	int rc;

	g->apply = phase;
	rc = extkit_walk(ctx->fs, inode, &wk);
	if (rc >= 0 && wk.inode_changed)
		rc = fsck_write_inode(ctx, dir, inode);
	return rc < 0 ? rc : 0;
}

int fsck_dir_fill_cluster_gap(struct fsck_ctx *ctx, uint32_t dir,
			      uint64_t start, uint64_t end)
{
	struct cluster_gap g = { .start = start, .end = end,
				 .mask = ctx->fs->g.cluster_ratio - 1,
				 .fwd_end = start, .back_start = end };
	struct extkit_inode inode;
	int rc;

	fsck_drop_add_space(ctx, dir);
	rc = extkit_inode_read(ctx->fs, dir, &inode);
	if (rc)
		return rc;
	if (!g.mask || !(inode.flags & EXT4_EXTENTS_FL))
		return -EXTKIT_EUNSUPP;
	rc = gap_walk(ctx, &inode, dir, &g, 0);
	if (!rc)
		rc = gap_walk(ctx, &inode, dir, &g, -1);
	if (!rc && (g.fwd_end > start || g.back_start < end))
		rc = gap_write(ctx, dir, inode.generation, start, g.fwd_end,
			       g.fwd_pblk);
	if (!rc)
		rc = gap_write(ctx, dir, inode.generation, g.back_start, end,
			       g.back_pblk);
	if (!rc)
		rc = gap_walk(ctx, &inode, dir, &g, 1);
	if (rc)
		return rc;
	return g.fwd_end < g.back_start ? -EXTKIT_EUNSUPP : 0;
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
static int write_new_dir(struct fsck_ctx *ctx, uint32_t parent, uint32_t ino,
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
	rc = write_dir_block(ctx, blk, ino, 0, parent);
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
static int new_dir_block(struct fsck_ctx *ctx, uint32_t ino, uint64_t *blk)
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
	rc = new_dir_block(ctx, ino, &blk);
	if (rc)
		return rc;
	rc = write_new_dir(ctx, parent, ino, mode, blk);
	if (rc && extkit_io_writes(ctx->io) == writes)
		fsck_release_new_block(ctx, blk);	/* failed before writing */
	return rc;
}

int fsck_set_dotdot(struct fsck_ctx *ctx, uint32_t dir, uint32_t parent)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	int rc, n = 0;

	if (ctx->readonly)
		return -EROFS;
	fsck_drop_add_space(ctx, dir);
	rc = extkit_dir_iter_open(ctx->fs, dir, 0, &it);
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

/* ---- lost+found ---- */

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
	rc = new_dir_block(ctx, ino, &blk);
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
	rc = write_new_dir(ctx, EXT2_ROOT_INO, ino, LF_MODE, blk);
	if (rc)
		return rc;
	fsck_count_link(ctx, ino);		/* its name in / */
	ctx->lost_found = ino;
	/* The new '..' is a link to the root: on disk too. */
	return fsck_adjust_links(ctx, EXT2_ROOT_INO, 1);
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

	if (ctx->readonly)
		return -EROFS;
	fsck_drop_add_space(ctx, dir);
	rc = extkit_dir_iter_open(ctx->fs, dir, 0, &it);
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
