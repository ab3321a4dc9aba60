// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The orphan file (orphan_file feature; lib/orphan_file.c holds the
 * block format).
 *
 * Release (pass 0, after the orphan list, as e2fsck): with orphan_present
 * set, the file's blocks are read in order, each checked (magic,
 * checksum); the inodes of the slots in use are deleted or truncated by
 * the orphan list's code (orphan.c), the blocks read so far emptied and
 * orphan_present cleared. A block with a bad magic or checksum stops the
 * reading there: what it and the later blocks name is left to the passes
 * (as e2fsck does) and the end check empties them. Not with -n, an
 * error state or bigalloc (the list's rules).
 *
 * Check (after the passes): every block of the file must be an empty one
 * (no slot in use, the magic, the checksum of its place) and
 * orphan_present clear when they all are.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"
#include "orphan_file.h"
#include "cli/msg.h"

#include "fsck.h"
#include "problem.h"

struct ofile {
	struct fsck_ctx *ctx;
	uint32_t ino;
	struct extkit_inode inode;
	uint64_t nblocks;
	uint8_t *buf;
	uint8_t *want;
};

/* Why the file cannot be used, or NULL; loads o->inode. */
static const char *ofile_open(struct ofile *o, struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint32_t bs = fs->g.block_size;

	memset(o, 0, sizeof(*o));
	o->ctx = ctx;
	o->ino = fs->sb.orphan_file_inum;
	if (!o->ino || o->ino > fs->sb.inodes_count)
		return "its inode number is out of range";
	if (extkit_inode_read(fs, o->ino, &o->inode))
		return "its inode cannot be read";
	if (!S_ISREG(o->inode.mode) || !extkit_inode_has_block_map(&o->inode))
		return "it is not a regular file";
	if (o->inode.size % bs || o->inode.size / bs > fs->sb.blocks_count)
		return "its size is not a whole number of blocks";
	o->nblocks = o->inode.size / bs;
	o->buf = malloc(bs);
	o->want = malloc(bs);
	if (!o->buf || !o->want)
		return "out of memory";
	return NULL;
}

static void ofile_close(struct ofile *o)
{
	free(o->buf);
	free(o->want);
}

/* Block lblk into o->buf, *pblk its place; a hole or error: a reason. */
static const char *read_block(struct ofile *o, uint64_t lblk, uint64_t *pblk)
{
	struct extkit_fs *fs = o->ctx->fs;

	if (extkit_bmap(fs, &o->inode, lblk, pblk) || !*pblk ||
	    !extkit_fs_valid_block(fs, *pblk))
		return "a hole or a bad block number";
	if (extkit_fs_read_block(fs, *pblk, o->buf))
		return "it cannot be read";
	switch (extkit_orphan_block_check(fs, o->ino, o->inode.generation,
					  *pblk, o->buf)) {
	case EXTKIT_ORPHAN_BLOCK_BAD_MAGIC:
		return "bad magic number";
	case EXTKIT_ORPHAN_BLOCK_BAD_CSUM:
		return "bad checksum";
	default:
		return NULL;
	}
}

static int push(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t ino)
{
	if (*n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 64;
		uint32_t *p = realloc(*v, (size_t)c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = ino;
	return 0;
}

/* Empties blocks 0 .. upto-1 of the file. */
static int empty_blocks(struct ofile *o, uint64_t upto)
{
	struct extkit_fs *fs = o->ctx->fs;
	uint64_t pblk;
	int rc = 0;

	for (uint64_t l = 0; l < upto && !rc; l++) {
		rc = extkit_bmap(fs, &o->inode, l, &pblk);
		if (rc || !pblk)
			break;
		extkit_orphan_block_init(fs, o->ino, o->inode.generation,
					 pblk, o->want);
		rc = extkit_fs_write_block(fs, pblk, o->want);
	}
	return rc;
}

static void report(struct fsck_ctx *ctx, uint32_t code, uint32_t ino,
		   uint64_t num, const char *why)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.num = num;
	pctx.str = why;
	fix_problem(ctx, code, &pctx);
}

void fsck_orphan_file_release(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	uint32_t *inos = NULL, n = 0, cap = 0, slots;
	const char *why;
	struct ofile o;
	uint64_t l, pblk;
	int rc = 0;

	if (!(sb->feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) ||
	    !(sb->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT) ||
	    ctx->readonly || (sb->state & EXT2_ERROR_FS) ||
	    ctx->fs->g.cluster_bits)
		return;
	why = ofile_open(&o, ctx);
	if (why) {
		report(ctx, PR_0_ORPHAN_FILE_BAD, o.ino, 0, why);
		ofile_close(&o);
		return;
	}
	slots = extkit_orphan_slots(ctx->fs);
	for (l = 0; l < o.nblocks && !rc; l++) {
		why = read_block(&o, l, &pblk);
		if (why) {
			report(ctx, PR_0_ORPHAN_FILE_BLOCK, o.ino, l, why);
			break;
		}
		for (uint32_t i = 0; i < slots && !rc; i++) {
			uint32_t ino = extkit_orphan_slot(o.buf, i);

			if (ino)
				rc = push(&inos, &n, &cap, ino);
		}
	}
	if (!rc && !n && l == o.nblocks)
		goto out;	/* nothing named: the end check says so */
	if (!rc && n)
		rc = fsck_release_orphan_set(ctx, inos, n);
	if (rc >= 0 && !(rc = empty_blocks(&o, l)) && l == o.nblocks)
		sb->feature_ro_compat &= ~EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT;
	if (rc < 0)
		cli_error_rc("releasing the orphan file's inodes", rc);
	if (rc)		/* a full check settles what was left */
		sb->state &= (uint16_t)~EXT2_VALID_FS;
	ctx->flags |= FSCK_FL_SB_DIRTY | FSCK_FL_RECOVERED;
out:
	free(inos);
	ofile_close(&o);
}

/* Block lblk (at pblk) against an empty block: rewritten if wanted. */
static int check_block(struct ofile *o, uint64_t lblk, uint64_t pblk)
{
	struct extkit_fs *fs = o->ctx->fs;

	extkit_orphan_block_init(fs, o->ino, o->inode.generation, pblk,
				 o->want);
	if (extkit_fs_read_block(fs, pblk, o->buf) ||
	    !memcmp(o->buf, o->want, fs->g.block_size))
		return 0;
	{
		struct problem_context pctx;

		clear_problem_context(&pctx);
		pctx.ino = o->ino;
		pctx.num = lblk;
		if (!fix_problem(o->ctx, PR_5_ORPHAN_BLOCK_DIRTY, &pctx))
			return 1;
	}
	if (extkit_fs_write_block(fs, pblk, o->want))
		return 1;
	return 0;
}

void fsck_orphan_file_check(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	const char *why;
	struct ofile o;
	int dirty = 0;

	if (!(sb->feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		return;
	why = ofile_open(&o, ctx);
	for (uint64_t l = 0; !why && l < o.nblocks; l++) {
		uint64_t pblk;

		if (extkit_bmap(ctx->fs, &o.inode, l, &pblk) || !pblk ||
		    !extkit_fs_valid_block(ctx->fs, pblk))
			why = "a hole or a bad block number";
		else
			dirty |= check_block(&o, l, pblk);
	}
	if (why) {
		report(ctx, PR_5_ORPHAN_FILE_BAD, o.ino, 0, why);
		ctx->flags |= FSCK_FL_UNCORRECTED;
	} else if (!dirty &&
		   (sb->feature_ro_compat &
		    EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT)) {
		report(ctx, PR_5_ORPHAN_PRESENT, o.ino, 0, NULL);
		if (!ctx->readonly) {
			sb->feature_ro_compat &=
				~EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT;
			ctx->flags |= FSCK_FL_SB_DIRTY;
		}
	}
	ofile_close(&o);
}
