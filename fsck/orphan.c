// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The orphan inode list: finishing the deletes and truncates the kernel
 * left undone (e2fsck's release_orphan_inodes), before pass 1.
 *
 * The list starts at s_last_orphan; each member's i_dtime holds the next
 * inode number (0 ends it). A member with i_links_count 0 is deleted: its
 * blocks (data, indirect or extent tree blocks) and its extended attribute
 * block (when no other inode shares it) are freed in the on-disk block
 * bitmap, the inode in the inode bitmap, the group and superblock counts
 * follow, and i_dtime becomes the deletion time. A member still linked is
 * truncated to i_size: block pointers past the last block i_size covers
 * are cleared, indirect blocks left empty are freed (in an extent tree:
 * extents past it dropped, the one across it shortened, tree blocks left
 * empty freed), i_blocks follows, the
 * tail of the last block is zeroed (as the kernel's truncate does; e2fsck
 * zeroes the tail of the first freed block instead), and i_dtime is
 * cleared. The xattr block of a truncated file stays.
 *
 * Safety: the whole chain is walked first, without writing anything. An
 * inode number out of range or reserved, a member not in use (mode 0 or
 * invalid, its inode bitmap bit clear), a loop, or a read error means the
 * list cannot be trusted: it is reported and only its head is cleared
 * (PR_0_ORPHAN_LIST); the passes deal with its members. Each member's
 * blocks are checked (in range, marked in use) before any of them is
 * freed; a bad one stops the processing there and the rest of the list is
 * left to the passes (e2fsck does the same). Either way the superblock is
 * marked not clean so that the full check runs. With -n the list is not
 * looked at (as e2fsck): the passes report what its members need, and a
 * head naming a file still linked and in use is no error. With the
 * error state set the list is not trusted either (e2fsck's rule).
 *
 * Bitmaps are edited on disk through alloc.c (alloc_stats.c keeps the
 * counts in ctx->fs->groups and ctx->fs->sb, written at the end of the
 * run), so pass 1 reads a filesystem on which the orphans are already
 * gone and pass 5 finds nothing to fix.
 *
 * Runs from pass 0 (fsck_open), before the clean check, as e2fsck does: a
 * filesystem marked clean still gets its orphans released. Allocates its
 * own buffers (the passes' maps do not exist yet) and frees them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bitmap.h"
#include "bmap.h"
#include "csum.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "ondisk.h"
#include "xattr.h"
#include "cli/msg.h"

#include "fsck.h"
#include "problem.h"

struct blk_run {
	uint64_t blk;
	uint32_t count;
};

struct orphans {
	struct fsck_ctx *ctx;
	struct extkit_fs *fs;
	uint32_t *list;		/* the chain, head first */
	uint32_t n;
	uint32_t list_cap;
	struct blk_run *runs;	/* blocks one member frees */
	size_t nruns;
	size_t cap;
	uint64_t nblocks;	/* blocks in runs */
	const char *why;	/* why a member's blocks are refused */
	uint8_t *buf;		/* a scratch block */
};

/* ---- on-disk bitmaps (alloc.c's backing) ---- */

/* Frees the collected runs; blocks already free are not counted twice. */
static int free_runs(struct orphans *o)
{
	int rc = 0;

	for (size_t i = 0; i < o->nruns && !rc; i++)
		rc = extkit_alloc_settle(o->fs, o->runs[i].blk,
					 o->runs[i].count, 0, NULL);
	return rc;
}

/* Marks inode ino free in its group's inode bitmap (counts follow). */
static int free_inode_bit(struct orphans *o, uint32_t ino, int is_dir)
{
	int rc = extkit_alloc_inode_set(o->fs, ino, 0, is_dir);

	return rc == -EFSCORRUPTED ? 0 : rc;	/* free already */
}

static int inode_bit_set(struct orphans *o, uint32_t ino)
{
	return extkit_inode_in_use(o->fs, ino) == 1;
}

/* ---- the chain ---- */

/* Why ino cannot be a member of the list, or NULL; *next its link. */
static const char *member_problem(struct orphans *o, uint32_t ino,
				  struct extkit_bitmap *seen, uint32_t *next)
{
	struct extkit_fs *fs = o->fs;
	struct extkit_inode inode;

	if (ino > fs->sb.inodes_count)
		return "out of range";
	if (ino < fs->g.first_ino)
		return "a reserved inode";
	if (extkit_bitmap_test(seen, ino - 1) == 1)
		return "already in the list (a loop)";
	if (extkit_inode_read(fs, ino, &inode))
		return "cannot be read";
	if (!inode.mode || extkit_mode_to_ftype(inode.mode) ==
			   EXT2_FT_UNKNOWN)
		return "not in use";
	if (!inode_bit_set(o, ino))
		return "not marked in use in the inode bitmap";
	extkit_bitmap_set(seen, ino - 1);
	*next = inode.dtime;
	return NULL;
}

static int push_member(struct orphans *o, uint32_t ino)
{
	uint32_t *l;

	if (o->n == o->list_cap) {
		size_t cap = o->list_cap ? (size_t)o->list_cap * 2 : 64;

		l = realloc(o->list, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		o->list = l;
		o->list_cap = (uint32_t)cap;
	}
	o->list[o->n++] = ino;
	return 0;
}

/* Walks the chain into o->list; 0, or -EFSCORRUPTED once reported. */
static int walk_chain(struct orphans *o)
{
	uint32_t max = o->fs->sb.inodes_count, ino = o->fs->sb.last_orphan;
	struct problem_context pctx;
	struct extkit_bitmap seen;
	const char *why = NULL;
	uint32_t next = 0;
	int rc;

	rc = extkit_bitmap_init(&seen, max);
	if (rc)
		return rc;
	while (ino && !why && !rc) {
		if (o->n >= max) {
			why = "the list is longer than the inode count";
			break;
		}
		why = member_problem(o, ino, &seen, &next);
		if (!why)
			rc = push_member(o, ino);
		if (!why)
			ino = next;
	}
	extkit_bitmap_free(&seen);
	if (rc)
		return rc;
	if (!why)
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.num = o->n + 1;
	pctx.str = why;
	fix_problem(o->ctx, PR_0_ORPHAN_BAD_LIST, &pctx);
	return -EFSCORRUPTED;
}

/* ---- one member ---- */

static int push_run(struct orphans *o, uint64_t blk, uint32_t count)
{
	struct blk_run *r;

	if (o->nruns && o->runs[o->nruns - 1].blk +
			o->runs[o->nruns - 1].count == blk &&
	    o->runs[o->nruns - 1].count <= UINT32_MAX - count) {
		o->runs[o->nruns - 1].count += count;
		return 0;
	}
	if (o->nruns == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;

		r = realloc(o->runs, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		o->runs = r;
		o->cap = cap;
	}
	o->runs[o->nruns].blk = blk;
	o->runs[o->nruns++].count = count;
	return 0;
}

/* Block walk callback: remembers a run once every block is in use. */
static int collect_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		      uint32_t count, int flags, void *arg)
{
	struct orphans *o = arg;
	int rc;

	(void)lblk;
	(void)flags;
	rc = extkit_blocks_all_used(fs, pblk, count);
	if (rc < 0)
		return rc;
	if (!rc) {
		o->why = "a block is already marked free";
		return 1;
	}
	o->nblocks += count;
	return push_run(o, pblk, count);
}

static void reset_runs(struct orphans *o)
{
	o->nruns = 0;
	o->nblocks = 0;
	o->why = NULL;
}

/* Why the walk failed, for a message. */
static void walk_failed(struct orphans *o, int rc)
{
	if (!o->why)
		o->why = extkit_strerror(rc);
}

/* A deleted member's xattr block: one reference less, freed at 0. */
static int release_ea(struct orphans *o, struct extkit_inode *inode)
{
	uint64_t blk = inode->file_acl;
	uint32_t refs;

	if (!blk || !extkit_fs_valid_block(o->fs, blk) ||
	    extkit_fs_read_block(o->fs, blk, o->buf) ||
	    !extkit_xattr_block_has_header(o->buf))
		return 0;	/* not an xattr block: pass 1 and 5 decide */
	inode->file_acl = 0;
	refs = extkit_xattr_refcount(o->buf);
	if (refs > 1) {
		extkit_xattr_set_refcount(o->buf, refs - 1);
		extkit_ea_block_csum_set(o->fs, blk, o->buf);
		return extkit_fs_write_block(o->fs, blk, o->buf);
	}
	return extkit_alloc_settle(o->fs, blk, 1, 0, NULL);
}

static int delete_member(struct orphans *o, uint32_t ino,
			 struct extkit_inode *inode)
{
	int rc;

	rc = extkit_block_walk(o->fs, inode, collect_fn, o);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		walk_failed(o, rc);
		return 1;
	}
	rc = free_runs(o);
	if (!rc)
		rc = release_ea(o, inode);
	if (!rc)
		rc = free_inode_bit(o, ino, S_ISDIR(inode->mode));
	if (rc)
		return rc;
	inode->links_count = 0;
	inode->dtime = o->ctx->now;
	return fsck_write_inode(o->ctx, ino, inode);
}

/* Zeroes the bytes of the last block past i_size (a truncate does). */
static int zero_tail(struct orphans *o, const struct extkit_inode *inode)
{
	uint32_t bs = o->fs->g.block_size, off = inode->size % bs;
	uint64_t pblk = 0;
	int rc;

	if (!off || !S_ISREG(inode->mode))
		return 0;
	rc = extkit_bmap(o->fs, inode, inode->size / bs, &pblk);
	if (rc || !pblk)
		return rc;
	rc = extkit_fs_read_block(o->fs, pblk, o->buf);
	if (rc)
		return rc;
	memset(o->buf + off, 0, bs - off);
	return extkit_fs_write_block(o->fs, pblk, o->buf);
}

static int no_op_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		    uint32_t count, int flags, void *arg)
{
	(void)lblk;
	(void)pblk;
	(void)count;
	(void)flags;
	(void)arg;
	return 0;
}

/* Cuts a block map or extent tree after keep blocks: checked first (a
 * dry run), then done; i_blocks follows. 0, 1 when refused, or -errno. */
static int truncate_map(struct orphans *o, uint32_t ino,
			struct extkit_inode *inode, uint64_t keep)
{
	uint64_t bs = o->fs->g.block_size, have;
	struct extkit_inode dry = *inode;
	int rc;

	rc = extkit_bmap_truncate(o->fs, ino, &dry, keep, 1, collect_fn, o);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		walk_failed(o, rc);
		return 1;
	}
	if (!o->nruns)
		return 0;
	rc = extkit_bmap_truncate(o->fs, ino, inode, keep, 0, no_op_fn, NULL);
	if (!rc)
		rc = free_runs(o);
	have = extkit_inode_blocks_bytes(o->fs, inode) / bs;
	extkit_inode_set_fs_blocks(o->fs, inode, have > o->nblocks ?
				   have - o->nblocks : 0);
	return rc;
}

static int truncate_member(struct orphans *o, uint32_t ino,
			   struct extkit_inode *inode)
{
	uint64_t bs = o->fs->g.block_size;
	uint64_t keep = (inode->size + bs - 1) / bs;
	int rc = 0;

	if (extkit_inode_has_block_map(inode))
		rc = truncate_map(o, ino, inode, keep);
	if (!rc)
		rc = zero_tail(o, inode);
	if (rc)
		return rc;
	inode->dtime = 0;
	return fsck_write_inode(o->ctx, ino, inode);
}

/* Deletes or truncates one member: 0, 1 to stop (reported), or -errno. */
static int release_member(struct orphans *o, uint32_t ino)
{
	struct problem_context pctx;
	struct extkit_inode inode;
	int rc = extkit_inode_read(o->fs, ino, &inode);

	if (rc)
		return rc;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.inode = &inode;
	fix_problem(o->ctx, inode.links_count ? PR_0_ORPHAN_TRUNCATE :
		    PR_0_ORPHAN_CLEAR, &pctx);
	reset_runs(o);
	rc = inode.links_count ? truncate_member(o, ino, &inode) :
				 delete_member(o, ino, &inode);
	if (rc == 1) {
		pctx.str = o->why;
		fix_problem(o->ctx, PR_0_ORPHAN_BLOCKS, &pctx);
	}
	return rc;
}

/* ---- the list ---- */

/* The list is not processed: asked to clear its head (the old way). */
static void clear_list(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = sb->last_orphan;
	if (fix_problem(ctx, PR_0_ORPHAN_LIST, &pctx)) {
		sb->last_orphan = 0;
		sb->state &= (uint16_t)~EXT2_VALID_FS;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

static int orphans_init(struct orphans *o, struct fsck_ctx *ctx)
{
	uint32_t bs = ctx->fs->g.block_size;

	memset(o, 0, sizeof(*o));
	o->ctx = ctx;
	o->fs = ctx->fs;
	o->buf = malloc(bs);
	if (!o->buf)
		return -ENOMEM;
	return 0;
}

static void orphans_free(struct orphans *o)
{
	free(o->list);
	free(o->buf);
	free(o->runs);
}

/* Releases every member in order; 0, 1 when stopped early, or -errno. */
static int release_all(struct orphans *o)
{
	int rc = 0;

	for (uint32_t i = 0; i < o->n && !rc; i++)
		rc = release_member(o, o->list[i]);
	return rc;
}

void fsck_release_orphans(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct orphans o;
	int rc;

	if (!sb->last_orphan || ctx->readonly)
		return;
	/* bigalloc: freeing here works on blocks, the bitmaps hold
	 * clusters; the list is dropped and passes 1-5 settle its members
	 * (a zero-link inode goes in pass 4, its clusters in pass 5). */
	if ((sb->state & EXT2_ERROR_FS) || ctx->fs->g.cluster_bits) {
		clear_list(ctx);
		return;
	}
	rc = orphans_init(&o, ctx);
	if (!rc)
		rc = walk_chain(&o);
	if (rc) {
		orphans_free(&o);
		if (rc != -EFSCORRUPTED)
			cli_error_rc("orphan inode list", rc);
		clear_list(ctx);
		return;
	}
	rc = release_all(&o);
	orphans_free(&o);
	if (rc < 0)
		cli_error_rc("releasing orphan inodes", rc);
	sb->last_orphan = 0;
	if (rc)
		sb->state &= (uint16_t)~EXT2_VALID_FS;
	ctx->flags |= FSCK_FL_SB_DIRTY | FSCK_FL_RECOVERED;
}

/*
 * The inodes the orphan file names (orphan_file.c): each is checked as a
 * list member is (in use, not reserved, named once), then deleted or
 * truncated in order. 0 when all were released, 1 when one was refused
 * or the processing stopped (reported), or -errno.
 */
int fsck_release_orphan_set(struct fsck_ctx *ctx, const uint32_t *inos,
			    uint32_t n)
{
	struct extkit_bitmap seen;
	struct orphans o;
	uint32_t next;
	int rc, refused = 0;

	rc = orphans_init(&o, ctx);
	if (!rc)
		rc = extkit_bitmap_init(&seen, ctx->fs->sb.inodes_count);
	if (rc) {
		orphans_free(&o);
		return rc;
	}
	for (uint32_t i = 0; i < n && !rc; i++) {
		const char *why = member_problem(&o, inos[i], &seen, &next);
		struct problem_context pctx;

		if (!why) {
			rc = push_member(&o, inos[i]);
			continue;
		}
		clear_problem_context(&pctx);
		pctx.ino = inos[i];
		pctx.str = why;
		fix_problem(ctx, PR_0_ORPHAN_FILE_ENTRY, &pctx);
		refused = 1;
	}
	extkit_bitmap_free(&seen);
	if (!rc)
		rc = release_all(&o);
	orphans_free(&o);
	return rc ? rc : refused;
}
