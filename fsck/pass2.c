// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: directory structure, record by record.
 *
 * Walks every directory pass 1 found once, with the library's editable
 * iterator; each record goes through the library's validator (dir.c). A
 * fix marks the record dirty: the iterator re-reads it (so records split
 * off '.' or '..' come next) and writes the block back. Checks: '.' first
 * and pointing to the directory itself (split when it is big), '..'
 * second; entries pointing to reserved, out-of-range or unused inodes; a
 * second '.' or '..'; links to '.', to the root or a second link to a
 * directory; zero-length names and names with '/' or NUL; the file type
 * against the inode's mode; in an encrypted directory, names shorter than
 * a cipher block and entries naming an inode without the directory's
 * encryption policy; duplicate names (one hash set per directory,
 * O(entries)); corrupt htree indexes; holes in a directory.
 *
 * Corrupt blocks are salvaged (pass2_salvage.c): every record that can
 * still be read is kept; only the unreadable bytes become free space, and
 * the iterator resumes where the records parse again. With -n (and after
 * a declined salvage) the edits are walked but not written, so the rest
 * of the block is still checked and counted.
 *
 * Collects: ctx->link_counted (every live entry, '.' and '..' included,
 * as e2fsck counts), and for each directory its parent (the first
 * directory naming it) and what its '..' says. Relies on pass 1's istate
 * and directory list.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "casefold.h"
#include "csum.h"
#include "dir.h"
#include "error.h"
#include "fs.h"
#include "dirblock.h"
#include "htree.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"

#include "fsck.h"
#include "pass2.h"
#include "problem.h"

/* Rewrites the record at p as (ino, name), its rec_len kept. */
static void set_dirent(struct dir_state *ds, uint8_t *p, uint32_t ino,
		       const char *name, uint32_t name_len)
{
	extkit_dirent_set(&ds->fmt, p, ino, extkit_dirent_rec_len(&ds->fmt, p),
			  name, name_len, EXT2_FT_DIR);
}

static int is_name(const uint8_t *p, uint32_t name_len, const char *want)
{
	size_t n = strlen(want);

	return name_len == n && memcmp(p + EXT2_DIR_ENTRY_HEADER_LEN, want,
				       n) == 0;
}

/* Whether valid records run from start exactly to end. */
static int chain_fits(const struct dir_state *ds, const uint8_t *buf,
		      uint32_t start, uint32_t end)
{
	struct extkit_dir_cursor c;
	int rc;

	extkit_dir_cursor_init(&c, &ds->fmt, buf, start, end);
	while ((rc = extkit_dir_cursor_next(&c)) > 0)
		;
	return rc == 0;
}

/*
 * Makes room for a record of 12 bytes in front of the live record at off
 * by moving it 12 bytes on (when its slack allows). Returns 1 if moved.
 */
static int shift_record(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	uint8_t *p = buf + off;
	uint32_t len = extkit_dirent_rec_len(&ds->fmt, p);
	uint32_t nl = extkit_dirent_name_len(&ds->fmt,
					     (struct ext2_dir_entry_2 *)p);

	if (len < 12 + extkit_dirent_min_len(nl))
		return 0;
	memmove(p + 12, p, extkit_dirent_min_len(nl));
	extkit_dirent_set_rec_len(&ds->fmt, p + 12, len - 12);
	extkit_dirent_set_rec_len(&ds->fmt, p, 12);
	return 1;
}

/* '.' in the first record of block 0. */
static void check_dot(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	uint8_t *p = buf + off;
	uint32_t ino = extkit_dirent_inode(p);
	uint32_t len = extkit_dirent_rec_len(&ds->fmt, p);
	uint32_t nl = extkit_dirent_name_len(&ds->fmt,
					     (struct ext2_dir_entry_2 *)p);

	if (!ino || !is_name(p, nl, ".")) {
		if (!pass2_problem(ds, PR_2_MISSING_DOT, buf, off))
			return;
		/* A record that names a real inode moves past '.'; one
		 * past the inode count is garbage and is overwritten. */
		if (ino && ino <= ds->ctx->fs->sb.inodes_count &&
		    shift_record(ds, buf, off))
			len = 12;
		set_dirent(ds, p, ds->ino, ".", 1);
		ds->dirty = 1;
		ds->index_broken = 1;	/* an htree root follows '..' */
	} else if (ino != ds->ino) {
		if (!pass2_problem(ds, PR_2_BAD_INODE_DOT, buf, off))
			return;
		extkit_dirent_set_inode(p, ds->ino);
		ds->dirty = 1;
	}
	/* the byte after the name (rec_len >= 12 holds it) */
	if (p[EXT2_DIR_ENTRY_HEADER_LEN + 1] &&
	    pass2_problem(ds, PR_2_DOT_NULL_TERM, buf, off)) {
		set_dirent(ds, p, extkit_dirent_inode(p), ".", 1);
		ds->dirty = 1;
	}
	if (len >= 24 && pass2_problem(ds, PR_2_SPLIT_DOT, buf, off)) {
		/* Records hidden behind a big '.' (the kernel never merges
		 * a deleted entry into '.') are kept when they parse. */
		extkit_dirent_set_rec_len(&ds->fmt, p, 12);
		if (!chain_fits(ds, buf, off + 12, off + len))
			extkit_dirent_set(&ds->fmt, p + 12, 0, len - 12, "", 0,
					  0);
		ds->dirty = 1;
	}
	if (extkit_dirent_inode(p) == ds->ino) {
		fsck_count_link(ds->ctx, ds->ino);
		pass2_check_filetype(ds, buf, off, ds->ino);
	}
}

/* '..' in the second record of block 0. */
static void check_dotdot(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	uint8_t *p = buf + off;
	uint32_t ino = extkit_dirent_inode(p);
	uint32_t nl = extkit_dirent_name_len(&ds->fmt,
					     (struct ext2_dir_entry_2 *)p);
	struct fsck_ctx *ctx = ds->ctx;

	if (!ino || !is_name(p, nl, "..")) {
		if (!pass2_problem(ds, PR_2_MISSING_DOT_DOT, buf, off))
			return;
		if (ino && ino <= ctx->fs->sb.inodes_count)
			shift_record(ds, buf, off);
		/* The parent is known in pass 3, which fixes this. */
		set_dirent(ds, p, EXT2_ROOT_INO, "..", 2);
		ds->dirty = 1;
		/* the record an htree root's info follows is rewritten */
		ds->index_broken = 1;
		ino = EXT2_ROOT_INO;
	}
	if (p[EXT2_DIR_ENTRY_HEADER_LEN + 2] &&
	    pass2_problem(ds, PR_2_DOT_DOT_NULL_TERM, buf, off)) {
		set_dirent(ds, p, ino, "..", 2);
		ds->dirty = 1;
	}
	ds->dir->dotdot = ino;
	/* A number no directory can have (e2fsck's PR_2_BAD_INO on '..'):
	 * the record is emptied; pass 3 finds the number wrong and writes
	 * the parent's. */
	if (((ino < ctx->fs->g.first_ino && ino != EXT2_ROOT_INO) ||
	     ino > ctx->fs->sb.inodes_count) &&
	    pass2_problem(ds, PR_2_BAD_INO, buf, off)) {
		extkit_dirent_set_inode(p, 0);
		ds->dirty = 1;
		return;
	}
	if (ino <= ctx->fs->sb.inodes_count && fsck_inode_used(ctx, ino) &&
	    fsck_ftype(ctx, ino) == EXT2_FT_DIR) {
		fsck_count_link(ctx, ino);
		ds->dir->flags |= FSCK_DIR_DOTDOT_COUNTED;
		pass2_check_filetype(ds, buf, off, ino);
	}
}

/* Clears the live record at off (inode 0: free space). */
static void clear_entry(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	extkit_dirent_set_inode(buf + off, 0);
	ds->dirty = 1;
}

/* Without the filetype feature the type byte must be 0 (e2fsck's
 * check_filetype: a Hurd filesystem loses the feature in check_super). */
static void clear_stray_filetype(struct dir_state *ds, uint8_t *buf,
				 uint32_t off)
{
	struct problem_context pctx;

	if (!buf[off + 7])
		return;
	pass2_fill_pctx(ds, &pctx, buf, off);
	if (fix_problem(ds->ctx, PR_2_CLEAR_FILETYPE, &pctx)) {
		buf[off + 7] = 0;
		ds->dirty = 1;
	}
}

/* The entry's file type byte against want (a missing one is set, a
 * wrong one is a question, as e2fsck's check_filetype). */
static void check_filetype_is(struct dir_state *ds, uint8_t *buf,
			      uint32_t off, uint8_t want)
{
	struct problem_context pctx;

	if (!ds->fmt.has_filetype) {
		clear_stray_filetype(ds, buf, off);
		return;
	}
	if (buf[off + 7] == want)
		return;
	pass2_fill_pctx(ds, &pctx, buf, off);
	pctx.num = want;
	if (fix_problem(ds->ctx, buf[off + 7] ? PR_2_BAD_FILETYPE :
			PR_2_SET_FILETYPE, &pctx)) {
		buf[off + 7] = want;
		ds->dirty = 1;
	}
}

void pass2_check_filetype(struct dir_state *ds, uint8_t *buf, uint32_t off,
			  uint32_t target)
{
	check_filetype_is(ds, buf, off, fsck_ftype(ds->ctx, target));
}

/* The file type of an entry naming an inode pass 1 did not see (a lazy
 * init mark hid it: the check restarts): from the inode's own mode, as
 * e2fsck reads it; a zeroed inode has none. */
static void check_unseen_filetype(struct dir_state *ds, uint8_t *buf,
				  uint32_t off, uint32_t target)
{
	struct extkit_inode inode;

	if (extkit_inode_read(ds->ctx->fs, target, &inode))
		return;
	check_filetype_is(ds, buf, off,
			  extkit_mode_to_ftype((uint16_t)inode.mode));
}

/* Which inode-number problem the entry has, or 0. */
static uint32_t entry_inode_problem(struct dir_state *ds, const uint8_t *p,
				    uint32_t nl)
{
	struct fsck_ctx *ctx = ds->ctx;
	uint32_t ino = extkit_dirent_inode(p);

	if (is_name(p, nl, "."))
		return PR_2_DUP_DOT;
	if (is_name(p, nl, ".."))
		return PR_2_DUP_DOT_DOT;
	if (ino == ds->ino)
		return PR_2_LINK_DOT;
	if (ino == EXT2_ROOT_INO)
		return PR_2_LINK_ROOT;
	if (ino < ctx->fs->g.first_ino || ino > ctx->fs->sb.inodes_count)
		return PR_2_BAD_INO;
	if (!fsck_inode_used(ctx, ino))
		return PR_2_UNUSED_INODE;
	return 0;
}

/*
 * In a casefolded directory under a strict encoding a name must be
 * well-formed UTF-8 (the kernel refuses to create others there); fixed
 * as e2fsck fixes it: from the first bad byte on, every byte becomes
 * '.'. The name's hash changes: an index is rebuilt.
 */
static void check_name_encoding(struct dir_state *ds, uint8_t *buf,
				uint32_t off, uint32_t nl)
{
	char *name = (char *)buf + off + EXT2_DIR_ENTRY_HEADER_LEN;
	int at;

	if (!(ds->ctx->fs->sb.encoding_flags & EXTKIT_ENC_STRICT_MODE_FL) ||
	    !extkit_dir_is_casefolded(ds->ctx->fs, ds->dir_flags) ||
	    ds->policy != FSCK_ENC_NONE)	/* ciphertext (as e2fsck) */
		return;
	at = extkit_utf8_invalid_at(name, nl);
	if (at < 0 || !pass2_problem(ds, PR_2_BAD_ENCODED_NAME, buf, off))
		return;
	memset(name + at, '.', nl - (uint32_t)at);
	ds->dirty = 1;
	ds->index_broken = 1;
}

/* '/' and NUL are not allowed in a name; fixed by replacing with '.'.
 * An encrypted directory's names are ciphertext: any byte goes (as
 * e2fsck, a directory is encrypted when pass 1 found its policy). */
static void check_name_chars(struct dir_state *ds, uint8_t *buf,
			     uint32_t off, uint32_t nl)
{
	uint8_t *name = buf + off + EXT2_DIR_ENTRY_HEADER_LEN;
	uint32_t i;

	if (ds->policy != FSCK_ENC_NONE)
		return;

	for (i = 0; i < nl; i++)
		if (name[i] == '/' || name[i] == '\0')
			break;
	if (i == nl || !pass2_problem(ds, PR_2_BAD_NAME, buf, off))
		return;
	for (i = 0; i < nl; i++)
		if (name[i] == '/' || name[i] == '\0')
			name[i] = '.';
	ds->dirty = 1;
}

/* The smallest encrypted name: one cipher block (the kernel pads names
 * to 16 bytes or more, FSCRYPT_FNAME_MIN_MSG_LEN). */
#define ENC_NAME_MIN	16

/* Whether the inode an entry names is a kind the kernel encrypts in an
 * encrypted directory: a file, directory or symlink (the entry's type,
 * pass 1's when it has none). */
static int needs_encryption(const struct dir_state *ds, const uint8_t *p,
			    uint32_t target)
{
	const struct ext2_dir_entry_2 *de = (const void *)p;
	uint8_t ft = extkit_dirent_file_type(&ds->fmt, de);

	if (ft == EXT2_FT_UNKNOWN)
		ft = fsck_ftype(ds->ctx, target);
	return ft == EXT2_FT_REG_FILE || ft == EXT2_FT_DIR ||
	       ft == EXT2_FT_SYMLINK;
}

/*
 * An entry of an encrypted directory (e2fsck's check_encrypted_dirent):
 * its name is at least one cipher block, and a file, directory or
 * symlink it names has the directory's policy. The entry goes when
 * either is wrong (the inode is found unattached in pass 4, a directory
 * unconnected in pass 3). 1 when it was cleared.
 */
static int check_encrypted_entry(struct dir_state *ds, uint8_t *buf,
				 uint32_t off, uint32_t nl, uint32_t target)
{
	uint32_t policy, code;

	if (ds->policy == FSCK_ENC_NONE)
		return 0;
	if (nl < ENC_NAME_MIN &&
	    pass2_problem(ds, PR_2_ENCRYPT_SHORT_NAME, buf, off)) {
		clear_entry(ds, buf, off);
		return 1;
	}
	policy = fsck_enc_policy_of(&ds->ctx->enc, target);
	if (policy == ds->policy)
		return 0;
	if (policy != FSCK_ENC_NONE)
		code = PR_2_ENCRYPT_OTHER;
	else if (needs_encryption(ds, buf + off, target))
		code = PR_2_ENCRYPT_PLAIN;
	else
		return 0;
	if (!pass2_problem(ds, code, buf, off))
		return 0;
	clear_entry(ds, buf, off);
	return 1;
}

/* What the '..' of directory sub names: pass 2's record of it, or its
 * block 0 read now when pass 2 has not got there (0: none). */
static uint32_t dotdot_of(struct fsck_ctx *ctx, const struct fsck_dir *sub)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	uint32_t found = 0;
	int n = 0;

	if (sub->dotdot)
		return sub->dotdot;
	if (extkit_dir_iter_open(ctx->fs, sub->ino, 0, &it))
		return 0;
	while (n < 2 && extkit_dir_iter_next(it, &ent) > 0) {
		if (ent.kind != EXTKIT_DE_LIVE || ent.lblk)
			break;
		if (++n == 2 && ent.name_len == 2 &&
		    !memcmp(ent.name, "..", 2))
			found = ent.inode;
	}
	extkit_dir_iter_close(it);
	return found;
}

/*
 * A second name for directory sub (first named in sub->parent), met in
 * this directory, which the directory's '..' names and the first does
 * not: the first name is the stray one (a copy of this directory's block
 * over another, say), so it goes and this one stays. 1 when it went.
 */
static int drop_first_link(struct dir_state *ds, uint8_t *buf, uint32_t off,
			   struct fsck_dir *sub)
{
	struct problem_context pctx;

	if (dotdot_of(ds->ctx, sub) != ds->ino)
		return 0;
	pass2_fill_pctx(ds, &pctx, buf, off);
	pctx.num = sub->parent;
	if (!fix_problem(ds->ctx, PR_2_LINK_DIR_FIRST, &pctx) ||
	    fsck_unlink_entry(ds->ctx, sub->parent, sub->ino, NULL))
		return 0;
	sub->parent = ds->ino;
	return 1;
}

/* A directory has one parent: a second name for it is cleared. */
static int check_dir_link(struct dir_state *ds, uint8_t *buf, uint32_t off,
			  uint32_t target)
{
	struct fsck_dir *sub;

	if (fsck_ftype(ds->ctx, target) != EXT2_FT_DIR)
		return 0;
	sub = fsck_dir_find(ds->ctx, target);
	if (!sub)
		return 0;
	if (sub->parent && sub->parent != ds->ino) {
		if (drop_first_link(ds, buf, off, sub))
			return 0;
		if (pass2_problem(ds, PR_2_LINK_DIR, buf, off)) {
			clear_entry(ds, buf, off);
			return 1;
		}
		return 0;
	}
	if (sub->parent == ds->ino) {
		/* Second name for the subdirectory in this directory. */
		if (pass2_problem(ds, PR_2_LINK_DIR, buf, off)) {
			clear_entry(ds, buf, off);
			return 1;
		}
		return 0;
	}
	sub->parent = ds->ino;
	return 0;
}

/* An entry naming an inode pass 1 did not see in use: kept when a lazy
 * init mark hid it, or a restart is due anyway (group_flags.c). */
static int uninit_ref(struct dir_state *ds, const uint8_t *buf,
		      uint32_t off, uint32_t target)
{
	struct problem_context pctx;

	pass2_fill_pctx(ds, &pctx, buf, off);
	return fsck_uninit_ref(ds->ctx, target, &pctx);
}

/* An ordinary entry (not '.' or '..' of block 0). */
static void check_entry(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	uint8_t *p = buf + off;
	uint32_t nl = extkit_dirent_name_len(&ds->fmt,
					     (struct ext2_dir_entry_2 *)p);
	uint32_t target = extkit_dirent_inode(p), code;

	if (!target)
		return;
	if (nl == 0) {
		if (pass2_problem(ds, PR_2_NULL_NAME, buf, off))
			clear_entry(ds, buf, off);
		return;
	}
	code = entry_inode_problem(ds, p, nl);
	if (code == PR_2_UNUSED_INODE && uninit_ref(ds, buf, off, target)) {
		/* pass 1 did not look there: after the restart */
		check_unseen_filetype(ds, buf, off, target);
		return;
	}
	if (code) {
		if (pass2_problem(ds, code, buf, off))
			clear_entry(ds, buf, off);
		return;
	}
	check_name_encoding(ds, buf, off, nl);
	check_name_chars(ds, buf, off, nl);
	pass2_check_filetype(ds, buf, off, target);
	if (check_encrypted_entry(ds, buf, off, nl, target))
		return;
	if (pass2_check_dup_name(ds, buf, off))
		return;
	if (check_dir_link(ds, buf, off, target))
		return;
	fsck_count_link(ds->ctx, target);
}

/* Checks the valid record at off of the current block. */
void pass2_record(struct dir_state *ds, uint8_t *buf, uint32_t off)
{
	if (ds->lblk == 0 && ds->rec_no == 0)
		check_dot(ds, buf, off);
	else if (ds->lblk == 0 && ds->rec_no == 1)
		check_dotdot(ds, buf, off);
	else
		check_entry(ds, buf, off);
	ds->rec_no++;
	ds->prev_off = (int64_t)off;
}

static void start_block(struct dir_state *ds, uint64_t lblk)
{
	ds->lblk = lblk;
	ds->rec_no = 0;
	ds->prev_off = -1;
	ds->walk_only = ds->ctx->readonly;
	ds->tail_pending = 0;
}

/*
 * One entry handed out by the iterator. A fix that changes the record
 * (splitting '.', say) marks it dirty: the iterator re-reads it and hands
 * out what was split off next.
 */
static void handle_ent(struct dir_state *ds, struct extkit_dir_iter *it,
		       const struct extkit_dirent *ent)
{
	uint8_t *buf = extkit_dir_iter_block(it);

	if (ent->kind == EXTKIT_DE_HOLE) {
		pass2_hole(ds, ent->lblk);
		return;
	}
	ds->dirty = 0;
	ds->pblk = ent->pblk;
	if (ent->lblk != ds->lblk) {
		start_block(ds, ent->lblk);
		pass2_check_block_csum(ds, it, buf);
	}
	switch (ent->kind) {
	case EXTKIT_DE_LIVE:
	case EXTKIT_DE_EMPTY:
		pass2_record(ds, buf, ent->offset);
		break;
	case EXTKIT_DE_CORRUPT:
		if (pass2_salvage(ds, it, ent))
			pass2_record(ds, buf, ent->offset);
		break;
	default:
		break;
	}
	/* the records are fixed now: a block still without a tail gets
	 * one (a salvage writes its own) */
	if (ds->tail_pending && buf &&
	    ent->offset + ent->rec_len >= ds->fmt.block_size) {
		ds->tail_pending = 0;
		if (!extkit_dirblock_has_tail(ds->ctx->fs, buf))
			pass2_check_block_csum(ds, it, buf);
	}
	if (ds->dirty && buf)
		extkit_dir_iter_mark_dirty(it);
}

/*
 * The htree flag is set: the index must be usable and agree with the
 * entries (checked once the records are written back). Clearing the flag
 * leaves a valid linear directory.
 */
static void check_index(struct dir_state *ds, int indexed)
{
	struct problem_context pctx;
	struct extkit_inode inode;
	uint32_t code = PR_2_HTREE_BAD;

	if (extkit_inode_read(ds->ctx->fs, ds->ino, &inode) ||
	    !(inode.flags & EXT2_INDEX_FL) ||
	    !extkit_has_compat(&ds->ctx->fs->sb,
			       EXT2_FEATURE_COMPAT_DIR_INDEX))
		return;
	clear_problem_context(&pctx);
	pctx.ino = ds->ino;
	pctx.str = pass2_index_problem(ds, indexed, &code, &pctx.num);
	if (!pctx.str || !fix_problem(ds->ctx, code, &pctx))
		return;
	/* With metadata_csum the old index blocks are leaves without a
	 * tail: the directory is rebuilt after the passes, and the flag
	 * stays until then, so that a repair stopped before the rebuild
	 * leaves the same bad index for the next run (not a linear
	 * directory e2fsck finds corrupt). */
	if (extkit_has_metadata_csum(&ds->ctx->fs->sb)) {
		pass2_rehash_later(ds);
		return;
	}
	inode.flags &= ~EXT2_INDEX_FL;
	fsck_write_inode(ds->ctx, ds->ino, &inode);
}

static void report_dir_error(struct dir_state *ds, uint32_t code, int rc)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = ds->ino;
	pctx.str = extkit_strerror(rc);
	fix_problem(ds->ctx, code, &pctx);
	ds->ctx->flags |= FSCK_FL_UNCORRECTED;
}

/* The inode flags of directory ino (0 if it cannot be read). */
static uint32_t dir_inode_flags(struct fsck_ctx *ctx, uint32_t ino)
{
	struct extkit_inode inode;

	return extkit_inode_read(ctx->fs, ino, &inode) ? 0 : inode.flags;
}

/* Walks directory dir once, every record through handle_ent. */
static int check_dir(struct dir_state *ds, struct fsck_dir *dir)
{
	int flags = EXTKIT_DIR_ITER_HOLES | EXTKIT_DIR_ITER_PAST_CORRUPT |
		    EXTKIT_DIR_ITER_MAP_END;
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	int rc, indexed;

	ds->ino = dir->ino;
	ds->dir = dir;
	ds->dir_flags = dir_inode_flags(ds->ctx, dir->ino);
	ds->policy = fsck_enc_policy_of(&ds->ctx->enc, dir->ino);
	ds->index_broken = 0;
	ds->hole_end = 0;
	ds->dirty = 0;
	start_block(ds, UINT64_MAX);
	nameset_reset(&ds->names);
	if (ds->ctx->readonly)
		flags |= EXTKIT_DIR_ITER_NOWRITE;
	rc = extkit_dir_iter_open(ds->ctx->fs, dir->ino, flags, &it);
	if (rc == -EFSCORRUPTED)
		/* a map reaching further than the filesystem has blocks
		 * (a too big block pass 1 was told to keep): as far as
		 * i_size goes */
		rc = extkit_dir_iter_open(ds->ctx->fs, dir->ino,
					  flags & ~EXTKIT_DIR_ITER_MAP_END, &it);
	if (rc) {
		report_dir_error(ds, PR_2_DIR_OPEN, rc);
		return rc == -ENOMEM ? rc : 0;
	}
	ds->it = it;
	while ((rc = extkit_dir_iter_next(it, &ent)) != 0) {
		if (rc < 0) {
			report_dir_error(ds, PR_2_DIR_READ, rc);
			continue;
		}
		handle_ent(ds, it, &ent);
		if (ds->ctx->flags & FSCK_FL_ABORT)
			break;
	}
	indexed = extkit_dir_iter_indexed(it);
	rc = extkit_dir_iter_close(it);
	ds->it = NULL;
	if (rc)
		report_dir_error(ds, PR_2_DIR_READ, rc);
	check_index(ds, indexed);
	return 0;
}

/* Byte offset of inode ino in the image; 0 if it has no place. */
static uint64_t inode_offset(struct fsck_ctx *ctx, uint32_t ino)
{
	uint64_t blk;
	uint32_t in_block;

	if (extkit_inode_locate(ctx->fs, ino, &blk, &in_block))
		return 0;
	return blk * ctx->fs->g.block_size + in_block;
}

/*
 * Before directory i is walked: when the inodes of the directories that
 * follow lie close together in the inode table (at most PREFETCH_GAP
 * bytes apart: a deep tree's directories made one after the other), one
 * read brings them all into a read window; each directory's own read of
 * its inode is then served from memory. Returns the first directory the
 * read does not cover. Only when the run has two or more: copying the
 * bytes between costs less than the calls it saves only when they are
 * this close.
 */
#define PREFETCH_GAP	8192u
static uint32_t prefetch_inodes(struct fsck_ctx *ctx, uint32_t i)
{
	uint32_t isz = ctx->fs->g.inode_size, j = i + 1;
	uint64_t start = inode_offset(ctx, ctx->dirs[i].ino), end, next;

	if (!start)
		return j;
	end = start + isz;
	for (; j < ctx->dir_count; j++) {
		next = inode_offset(ctx, ctx->dirs[j].ino);
		if (next < end || next - end > PREFETCH_GAP ||
		    next + isz - start > FSCK_READAHEAD_BYTES)
			break;
		end = next + isz;
	}
	if (j - i >= 2)
		extkit_io_prefetch(ctx->io, start, (size_t)(end - start));
	return j;
}

int fsck_pass2(struct fsck_ctx *ctx)
{
	struct dir_state ds = { .ctx = ctx };
	int rc = 0;

	extkit_dir_format_init(ctx->fs, &ds.fmt);
	ds.cmp_buf = malloc(ctx->fs->g.block_size);
	if (!ds.cmp_buf) {
		rc = -ENOMEM;
		goto out;
	}
	/* Directory blocks the kernel laid out one after the other are
	 * read ahead on the other core where that pays; without the
	 * thread, as before. */
	if (fsck_threads_pay(ctx))
		(void)extkit_io_readahead_thread(ctx->io, 1);
	for (uint32_t i = 0, next = 0; i < ctx->dir_count && !rc; i++) {
		if (!fsck_inode_used(ctx, ctx->dirs[i].ino))
			continue;
		if (i >= next)
			next = prefetch_inodes(ctx, i);
		if ((i & 1023) == 0)
			fsck_progress(ctx, i, ctx->dir_count);
		rc = check_dir(&ds, &ctx->dirs[i]);
		if (ctx->flags & FSCK_FL_ABORT)
			break;
	}
	if (!rc && !(ctx->flags & FSCK_FL_ABORT))
		fsck_check_large_file(ctx);
out:
	extkit_io_readahead_thread(ctx->io, 0);
	nameset_free(&ds.names);
	free(ds.cmp_buf);
	return rc;
}
