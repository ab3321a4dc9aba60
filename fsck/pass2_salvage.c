// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2 helpers: salvaging a corrupt directory block, duplicate names,
 * holes in a directory.
 *
 * Salvage keeps every record that can still be read. At a corrupt record
 * it looks for the next offset (4-byte aligned) from which a valid chain
 * of records runs exactly to the end of the block; the bytes in between
 * become part of the corrupt record when that record still has a
 * plausible inode and name, else free space (an empty record, or merged
 * into the previous record when too short to stand alone). The iterator
 * then resumes there (extkit_dir_iter_seek) and the records after the
 * damage are checked as usual. This differs from e2fsck, which
 * often gives up the rest of the block at the first bad offset.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "dir.h"
#include "dirblock.h"
#include "error.h"
#include "fs.h"
#include "ondisk.h"

#include "fsck.h"
#include "pass2.h"
#include "problem.h"

#define RENAME_TRIES	10000u

static uint32_t name_len_at(const struct dir_state *ds, const uint8_t *p)
{
	return extkit_dirent_name_len(&ds->fmt,
				      (const struct ext2_dir_entry_2 *)p);
}

/* Whether valid records run from p exactly to limit (an inode number
 * out of range is for the checks that follow to judge). */
static int chain_ok(const struct dir_state *ds, const uint8_t *buf,
		    uint32_t p, uint32_t limit)
{
	struct extkit_dir_cursor c;
	int rc;

	extkit_dir_cursor_init(&c, &ds->fmt, buf, p, limit);
	/* The first record must hold something, or be the free tail. */
	if (extkit_dir_cursor_next(&c) <= 0)
		return 0;
	if ((!extkit_dirent_inode(buf + p) || !name_len_at(ds, buf + p)) &&
	    p + c.rec_len != limit)
		return 0;
	while ((rc = extkit_dir_cursor_next(&c)) != 0)
		if (rc < 0 && c.problem != EXTKIT_DIRENT_BAD_INODE)
			return 0;
	return 1;
}

/* A record whose inode and name look real, in gap bytes. */
static int plausible(const struct dir_state *ds, const uint8_t *p,
		     uint32_t gap)
{
	uint32_t ino = extkit_dirent_inode(p), nl;

	if (gap < 12)
		return 0;
	nl = name_len_at(ds, p);
	if (!ino || ino > ds->fmt.inodes_count || !nl ||
	    extkit_dirent_min_len(nl) > gap)
		return 0;
	for (uint32_t i = 0; i < nl; i++) {
		uint8_t c = p[EXT2_DIR_ENTRY_HEADER_LEN + i];

		if (c == 0 || c == '/')
			return 0;
	}
	return 1;
}

/* The first offset after off from which a valid chain runs to limit, or
 * limit. */
static uint32_t next_chain(const struct dir_state *ds, const uint8_t *buf,
			   uint32_t off, uint32_t limit)
{
	uint32_t p = off + (ds->prev_off >= 0 ? 4 : 12);

	for (; p + 12 <= limit; p += 4)
		if (chain_ok(ds, buf, p, limit))
			return p;
	return limit;
}

/*
 * metadata_csum: a leaf block without its tail (garbage, or a tail
 * destroyed with the records before it) gets one now, unless records
 * after the damage run to the very end of the block; the salvage then
 * ends before the tail, and the block is complete in one run. Returns
 * the salvage's limit.
 */
static uint32_t tail_limit(struct dir_state *ds, uint8_t *buf, uint32_t off,
			   uint32_t limit)
{
	uint32_t bs = ds->fmt.block_size, end = bs - ds->fmt.tail_len;

	if (!ds->fmt.tail_len || limit != bs || off + 12 > end ||
	    next_chain(ds, buf, off, bs) < bs)
		return limit;
	extkit_dirblock_init_tail(ds->ctx->fs, buf);
	return end;
}

/*
 * Rewrites the corrupt record at off so the block parses again. Returns
 * the offset to go on from (off when the record now stands, further on
 * when it was merged into the previous record).
 */
static uint32_t salvage_at(struct dir_state *ds, uint8_t *buf, uint32_t off,
			   uint32_t limit)
{
	uint32_t next = next_chain(ds, buf, off, limit), gap;
	uint8_t *prev;

	gap = next - off;
	if (plausible(ds, buf + off, gap)) {
		extkit_dirent_set_rec_len(&ds->fmt, buf + off, gap);
		return off;
	}
	if (gap >= 12 || ds->prev_off < 0) {
		extkit_dirent_set(&ds->fmt, buf + off, 0, gap, "", 0, 0);
		return off;
	}
	prev = buf + ds->prev_off;
	extkit_dirent_set_rec_len(&ds->fmt, prev,
				  extkit_dirent_rec_len(&ds->fmt, prev) + gap);
	return next;
}

/* A record with an inode number past the inode count. */
static void bad_inode_record(struct dir_state *ds, uint8_t *buf,
			     uint32_t off)
{
	if (pass2_problem(ds, PR_2_BAD_INODE_RANGE, buf, off)) {
		extkit_dirent_set_inode(buf + off, 0);
		ds->dirty = 1;
	} else if (ds->walk_only) {
		extkit_dirent_set_inode(buf + off, 0);
	}
	ds->rec_no++;
	ds->prev_off = (int64_t)off;
}

static void report_corrupt(struct dir_state *ds, uint32_t off,
			   enum extkit_dirent_problem pr, int *fix)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = ds->ino;
	pctx.blkcount = (int64_t)ds->lblk;
	pctx.num = off;
	pctx.str = extkit_dirent_problem_str(pr);
	*fix = fix_problem(ds->ctx, PR_2_DIR_CORRUPT, &pctx);
}

int pass2_salvage(struct dir_state *ds, struct extkit_dir_iter *it,
		  const struct extkit_dirent *ent)
{
	uint8_t *buf = extkit_dir_iter_block(it);
	uint32_t off = ent->offset, limit;
	int fix;

	if (!buf)
		return 0;
	if (ent->problem == EXTKIT_DIRENT_BAD_INODE) {
		/* Where '.' or '..' belongs: as e2fsck, that check comes
		 * first (and rewrites the record): the caller's. */
		if (ds->lblk == 0 && ds->rec_no < 2)
			return 1;
		bad_inode_record(ds, buf, off);
		return 0;
	}
	/* an inline directory's part and an htree root have no checksum
	 * tail */
	limit = extkit_dir_iter_limit(it);
	if (off >= limit) {
		/* past the records (a leaf's checksum tail) */
		extkit_dir_iter_seek(it, extkit_dir_iter_area(it));
		return 0;
	}
	report_corrupt(ds, off, ent->problem, &fix);
	if (fix) {
		ds->dirty = 1;
		if (limit == extkit_dir_block_end(&ds->fmt, buf) &&
		    !extkit_dir_iter_is_inline(it))
			limit = tail_limit(ds, buf, off, limit);
	} else if (!ds->walk_only) {
		/* the fixes so far are written, the salvage is not */
		if (extkit_dir_iter_freeze(it))
			ds->ctx->flags |= FSCK_FL_UNCORRECTED;
		ds->walk_only = 1;
	}
	extkit_dir_iter_seek(it, salvage_at(ds, buf, off, limit));
	return 0;
}

/* ---- duplicate names ---- */

/* The live entry named name among the records of buf before offset end
 * (the whole block when end is past it); its inode in *ino. */
static int name_in_block(const struct dir_state *ds, const uint8_t *buf,
			 uint32_t end, const uint8_t *name, uint32_t nl,
			 uint32_t *ino)
{
	struct extkit_dir_cursor c;

	extkit_dir_cursor_init(&c, &ds->fmt, buf, 0, ds->fmt.block_size);
	while (extkit_dir_cursor_next(&c) > 0 && c.off < end) {
		if (extkit_dirent_inode(buf + c.off) &&
		    name_len_at(ds, buf + c.off) == nl &&
		    !memcmp(buf + c.off + EXT2_DIR_ENTRY_HEADER_LEN, name,
			    nl)) {
			*ino = extkit_dirent_inode(buf + c.off);
			return 1;
		}
	}
	return 0;
}

/*
 * Whether an entry before offset off of the current block has this name
 * (its inode in *other): the earlier blocks read back. Only called when
 * the name's hash is in the set (a duplicate or a collision).
 */
static int find_dup(struct dir_state *ds, const uint8_t *buf, uint32_t off,
		    const uint8_t *name, uint32_t nl, uint32_t *other)
{
	struct extkit_dir_iter *it = ds->it;
	uint64_t pblk;

	for (uint64_t l = 0; it && l < ds->lblk; l++) {
		pblk = extkit_dir_iter_pblk(it, l);
		if (!pblk ||
		    extkit_fs_read_block(ds->ctx->fs, pblk, ds->cmp_buf))
			continue;
		if (name_in_block(ds, ds->cmp_buf, ds->fmt.block_size, name,
				  nl, other))
			return 1;
	}
	return name_in_block(ds, buf, off, name, nl, other);
}

/* A free new name "name~N" (or the name's end replaced) that fits. */
static int new_name(struct dir_state *ds, const uint8_t *buf, uint32_t off,
		    char *out, uint32_t *out_len)
{
	const uint8_t *name = buf + off + EXT2_DIR_ENTRY_HEADER_LEN;
	uint32_t nl = name_len_at(ds, buf + off);
	uint32_t room = buf == NULL ? 0 :
			extkit_dirent_rec_len(&ds->fmt, buf + off);
	char suffix[16];

	for (uint32_t k = 0; k < RENAME_TRIES; k++) {
		uint32_t sl = (uint32_t)snprintf(suffix, sizeof(suffix),
						 "~%u", k);
		uint32_t base = nl;

		if (nl + sl > EXT2_NAME_LEN ||
		    extkit_dirent_min_len(nl + sl) > room)
			base = nl > sl ? nl - sl : 0;
		if (!base)
			continue;
		memcpy(out, name, base);
		memcpy(out + base, suffix, sl);
		*out_len = base + sl;
		/* a name whose hash is new is in no earlier entry */
		if (!nameset_has(&ds->names, nameset_hash(out, *out_len)))
			return 0;
	}
	return -EEXIST;
}

static int rename_dup(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	char name[EXT2_NAME_LEN + 16];
	uint32_t nl;
	struct problem_context pctx;
	uint8_t *p = buf + off;

	if (new_name(ds, buf, off, name, &nl))
		return pass2_problem(ds, PR_2_DUP_NAME, buf, off);
	name[nl] = '\0';
	clear_problem_context(&pctx);
	pctx.ino = ds->ino;
	pctx.de_inode = extkit_dirent_inode(p);
	pctx.de_name = (const char *)p + EXT2_DIR_ENTRY_HEADER_LEN;
	pctx.de_name_len = name_len_at(ds, p);
	pctx.str = name;
	if (!fix_problem(ds->ctx, PR_2_DUP_NAME_RENAME, &pctx))
		return 0;
	extkit_dirent_set(&ds->fmt, p, extkit_dirent_inode(p),
			  extkit_dirent_rec_len(&ds->fmt, p), name, nl,
			  extkit_dirent_file_type(&ds->fmt,
					(const struct ext2_dir_entry_2 *)p));
	ds->dirty = 1;
	ds->index_broken = 1;
	nameset_add(&ds->names, nameset_hash(name, nl));
	return 0;
}

int pass2_check_dup_name(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	const uint8_t *name = buf + off + EXT2_DIR_ENTRY_HEADER_LEN;
	uint32_t nl = name_len_at(ds, buf + off), other;
	uint64_t hash = nameset_hash((const char *)name, nl);

	/* a new hash is a new name (now in the set); a hash seen before
	 * is a duplicate only if an earlier entry has the name */
	if (nameset_insert(&ds->names, hash) != 1 ||
	    !find_dup(ds, buf, off, name, nl, &other))
		return 0;
	if (other != extkit_dirent_inode(buf + off))
		return rename_dup(ds, buf, off);
	if (pass2_problem(ds, PR_2_DUP_NAME, buf, off)) {
		extkit_dirent_set_inode(buf + off, 0);
		ds->dirty = 1;
		ds->index_broken = 1;
		return 1;
	}
	return 0;
}

/* ---- holes ---- */

/* A new block 0 holds '.' and '..' (the root's number): counted as
 * check_dot and check_dotdot count them, for pass 3 and 4. */
static void count_new_dots(struct dir_state *ds)
{
	struct fsck_ctx *ctx = ds->ctx;

	fsck_count_link(ctx, ds->ino);
	ds->dir->dotdot = EXT2_ROOT_INO;
	if (fsck_inode_used(ctx, EXT2_ROOT_INO) &&
	    fsck_ftype(ctx, EXT2_ROOT_INO) == EXT2_FT_DIR) {
		fsck_count_link(ctx, EXT2_ROOT_INO);
		ds->dir->flags |= FSCK_DIR_DOTDOT_COUNTED;
	}
}

/*
 * Holes come one block at a time from the iterator; they are reported a
 * run at a time (e2fsck asks once a block: a run of thousands would ask
 * as often). The run ends at the next mapped block; the iterator's walk
 * ends at the last mapped block, so a run is never longer than the map.
 */
void pass2_hole(struct dir_state *ds, uint64_t lblk)
{
	uint64_t n = extkit_dir_iter_nblocks(ds->it), end = lblk + 1;
	struct problem_context pctx;

	if (lblk < ds->hole_end)
		return;
	while (end < n && !extkit_dir_iter_pblk(ds->it, end))
		end++;
	ds->hole_end = end;
	clear_problem_context(&pctx);
	pctx.ino = ds->ino;
	pctx.blkcount = (int64_t)lblk;
	pctx.num = end - lblk;
	pctx.num2 = end - 1;
	if (!fix_problem(ds->ctx, end - lblk > 1 ? PR_2_DIR_HOLES :
			 PR_2_DIR_HOLE, &pctx))
		return;
	if (extkit_dir_iter_inode(ds->it)->flags & EXT4_EXTENTS_FL) {
		if (fsck_dir_fill_cluster_gap(ds->ctx, ds->ino, lblk, end))
			ds->ctx->flags |= FSCK_FL_UNCORRECTED;
		else if (!lblk)
			count_new_dots(ds);
		ds->index_broken = 1;
		return;
	}
	for (; lblk < end; lblk++) {
		if (fsck_dir_fill_hole(ds->ctx, ds->ino, lblk)) {
			ds->ctx->flags |= FSCK_FL_UNCORRECTED;
			return;
		}
		if (!lblk)
			count_new_dots(ds);
	}
	ds->index_broken = 1;
}
