// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump ls and dirblock: the live entries of a directory, and every
 * record of one directory block with its slack and what it is.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dir.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "symlink.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "dump.h"
#include "json.h"
#include "names.h"

/* ---- ls ---- */

/* A symlink target ls -l shows (a block at most: 64 KiB). */
#define EXTKIT_LS_TARGET_MAX	65537

/* Remembers the first corrupt record of a walk, to report it once. */
struct corrupt_note {
	int seen;
	struct extkit_dirent ent;
};

static void note_corrupt(struct corrupt_note *cn,
			 const struct extkit_dirent *ent)
{
	if (ent->kind != EXTKIT_DE_CORRUPT || cn->seen)
		return;
	cn->seen = 1;
	cn->ent = *ent;
}

static int report_corrupt(const struct corrupt_note *cn, const char *path)
{
	if (!cn->seen)
		return 0;
	cli_error("%s: corrupt entry in block %" PRIu64 " (physical %" PRIu64
		  ") at offset %" PRIu32 ": %s", path, cn->ent.lblk,
		  cn->ent.pblk, cn->ent.offset,
		  extkit_dirent_problem_str(cn->ent.problem));
	return -EFSCORRUPTED;
}

/* What ls -l and -p show of an entry's inode, read once. */
struct ls_inode {
	int have;			/* the inode could be read */
	struct extkit_inode in;
	struct extkit_inode_time mtime;
	char target[EXTKIT_LS_TARGET_MAX];
	size_t target_len;
	int have_target;		/* a symlink whose target was read */
};

static void ls_read(struct dump_ctx *ctx, uint32_t ino, struct ls_inode *li)
{
	uint8_t *raw = malloc(ctx->fs->g.inode_size);

	memset(li, 0, sizeof(*li));
	if (!raw || extkit_inode_read_raw(ctx->fs, ino, raw)) {
		free(raw);
		return;
	}
	extkit_inode_decode(raw, ctx->fs->g.inode_size, &li->in);
	li->have = 1;
	if (extkit_inode_time_get(raw, ctx->fs->g.inode_size,
				  EXTKIT_TIME_MTIME, &li->mtime))
		li->mtime.sec = li->in.mtime;
	free(raw);
	if (extkit_mode_to_ftype(li->in.mode) == EXT2_FT_SYMLINK &&
	    !extkit_symlink_read(ctx->fs, ino, &li->in, li->target,
				 sizeof(li->target), &li->target_len))
		li->have_target = 1;
}

/* ls -l and -p in JSON: the inode's fields, null when it cannot be
 * read; mtime, and a symlink's target. */
static void ls_entry_long_json(struct dump_ctx *ctx, const struct ls_inode *li)
{
	static const char *const keys[] = {
		"mode", "links_count", "uid", "gid", "size", "mtime",
		"mtime_iso",
	};
	const struct extkit_inode *in = &li->in;
	struct json_writer *w = &ctx->jw;
	unsigned int i;

	if (!li->have) {
		for (i = 0; i < N_ELEM(keys); i++)
			json_null(w, keys[i]);
		return;
	}
	json_u64(w, "mode", in->mode);
	json_u64(w, "links_count", in->links_count);
	json_u64(w, "uid", in->uid);
	json_u64(w, "gid", in->gid);
	json_u64(w, "size", in->size);
	dump_json_time(w, "mtime", li->mtime.sec, li->mtime.nsec,
		       li->mtime.has_extra);
	if (li->have_target)
		json_bytes_name(w, "link_target", li->target,
				li->target_len);
}

static unsigned int digits(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* mtime as "YYYY-MM-DD HH:MM:SS" UTC, or dashes when it has no date. */
static void put_mtime(int64_t sec)
{
	time_t t = (time_t)sec;
	struct tm tm;
	char buf[32];

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, sizeof(buf), "%-19s", "-");
	fputs(buf, stdout);
}

/*
 * ls -l: inode, mode, links, owner, size, type, mtime, name and a
 * symlink's target, in columns as wide as this filesystem's numbers can
 * be (inode count, byte size), so that a listing lines up.
 */
static void ls_entry_long_text(struct dump_ctx *ctx,
			       const struct extkit_dirent *ent,
			       const struct ls_inode *li, unsigned int ftype)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	int wi = (int)digits(sb->inodes_count);
	int ws = (int)digits(sb->blocks_count * ctx->fs->g.block_size);

	printf("%*" PRIu32 " ", wi, ent->inode);
	if (li->have) {
		printf("%06o %5u %5" PRIu32 " %5" PRIu32 " %*" PRIu64 " %c ",
		       li->in.mode, li->in.links_count, li->in.uid,
		       li->in.gid, ws, li->in.size, extkit_ftype_char(ftype));
		put_mtime(li->mtime.sec);
	} else {
		printf("%6s %5s %5s %5s %*s %c %-19s", "?", "?", "?", "?", ws,
		       "?", extkit_ftype_char(ftype), "?");
	}
	putchar(' ');
	dump_put_name(ent->name, ent->name_len);
	if (li->have_target) {
		fputs(" -> ", stdout);
		dump_put_name(li->target, li->target_len);
	}
	putchar('\n');
}

/* ls -p, as debugfs: /inode/mode/uid/gid/name/size/, a directory's size
 * empty (//); an inode that cannot be read: mode, owner and size 0. */
static void ls_entry_parse_text(const struct extkit_dirent *ent,
				const struct ls_inode *li)
{
	printf("/%" PRIu32 "/%06o/%" PRIu32 "/%" PRIu32 "/", ent->inode,
	       li->have ? li->in.mode : 0, li->have ? li->in.uid : 0,
	       li->have ? li->in.gid : 0);
	dump_put_name(ent->name, ent->name_len);
	if (li->have && (li->in.mode & 0170000) == 0040000)
		printf("//\n");
	else
		printf("/%" PRIu64 "/\n", li->have ? li->in.size : 0);
}

/*
 * One entry. Its "type" is the inode's (from its mode) with -l or -p,
 * else the one the entry records (file_type; "unknown" without the
 * filetype feature).
 */
static void ls_entry(struct dump_ctx *ctx, const struct extkit_dirent *ent)
{
	int longer = ctx->o->long_list || ctx->o->parse_list;
	unsigned int ftype = ent->file_type;
	struct ls_inode li = { 0 };

	if (longer)
		ls_read(ctx, ent->inode, &li);
	if (li.have)
		ftype = extkit_mode_to_ftype(li.in.mode);
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_u64(&ctx->jw, "inode", ent->inode);
		json_bytes_name(&ctx->jw, "name", ent->name, ent->name_len);
		json_u64(&ctx->jw, "rec_len", ent->rec_len);
		json_u64(&ctx->jw, "name_len", ent->name_len);
		json_u64(&ctx->jw, "file_type", ent->file_type);
		json_string(&ctx->jw, "type", ftype_word(ftype));
		if (longer)
			ls_entry_long_json(ctx, &li);
		json_end_object(&ctx->jw);
		return;
	}
	if (ctx->o->parse_list) {
		ls_entry_parse_text(ent, &li);
		return;
	}
	if (ctx->o->long_list) {
		ls_entry_long_text(ctx, ent, &li, ftype);
		return;
	}
	printf("%" PRIu32 " ", ent->inode);
	dump_put_name(ent->name, ent->name_len);
	putchar('\n');
}

int dump_ls(struct dump_ctx *ctx)
{
	const char *path = ctx->o->nargs ? ctx->o->args[0] : "/";
	char where[DUMP_PATH_MAX];
	struct corrupt_note cn = { 0 };
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	uint32_t ino;
	int rc;

	if (dump_resolve(ctx, path, &ino))
		return -1;
	rc = extkit_dir_iter_open(ctx->fs, ino, 0, &it);
	if (rc < 0) {
		cli_error_rc(path, rc);
		return rc;
	}
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		dump_json_path(&ctx->jw, "path", dump_known_path(ctx, path,
			       ino, where, sizeof(where)));
		json_u64(&ctx->jw, "inode", ino);
		json_begin_array(&ctx->jw, "entries");
	}
	while ((rc = extkit_dir_iter_next(it, &ent)) > 0) {
		note_corrupt(&cn, &ent);
		if (ent.kind == EXTKIT_DE_LIVE)
			ls_entry(ctx, &ent);
	}
	extkit_dir_iter_close(it);
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	}
	if (rc < 0) {
		cli_error_rc(path, rc);
		return rc;
	}
	return report_corrupt(&cn, path);
}

/* ---- dirblock ---- */

static const char *const kind_names[] = {
	[EXTKIT_DE_LIVE] = "live", [EXTKIT_DE_EMPTY] = "empty",
	[EXTKIT_DE_TAIL] = "tail", [EXTKIT_DE_DX_NODE] = "dx_node",
	[EXTKIT_DE_CORRUPT] = "corrupt", [EXTKIT_DE_HOLE] = "hole",
};

static int has_name(const struct extkit_dirent *e)
{
	return e->kind == EXTKIT_DE_LIVE || e->kind == EXTKIT_DE_EMPTY;
}

static void record_json(struct json_writer *w, const struct extkit_dirent *e)
{
	json_begin_object(w, NULL);
	json_u64(w, "offset", e->offset);
	json_u64(w, "inode", e->inode);
	json_u64(w, "rec_len", e->rec_len);
	json_u64(w, "name_len", e->name_len);
	json_u64(w, "file_type", e->file_type);
	json_string(w, "type", ftype_word(e->file_type));
	if (has_name(e))
		json_bytes_name(w, "name", e->name, e->name_len);
	json_u64(w, "slack", e->slack);
	if (e->dx_overhead)
		json_u64(w, "dx_overhead", e->dx_overhead);
	json_string(w, "kind", dump_lookup_name(kind_names,
						N_ELEM(kind_names), e->kind,
						"unknown"));
	if (e->kind == EXTKIT_DE_CORRUPT)
		json_string(w, "reason",
			    extkit_dirent_problem_str(e->problem));
	json_end_object(w);
}

static void record_text(const struct extkit_dirent *e)
{
	const char *kind = dump_lookup_name(kind_names, N_ELEM(kind_names),
					    e->kind, "unknown");

	printf("%6" PRIu32 " %10" PRIu32 " %7" PRIu32 " %8" PRIu32 " %4u %6"
	       PRIu32 " %s", e->offset, e->inode, e->rec_len, e->name_len,
	       e->file_type, e->slack, kind);
	if (has_name(e)) {
		printf("%*s", 8 - (int)strlen(kind), "");
		dump_put_name(e->name, e->name_len);
	}
	if (e->kind == EXTKIT_DE_CORRUPT)
		printf(" (%s)", extkit_dirent_problem_str(e->problem));
	if (e->dx_overhead)
		printf(" [htree index: %" PRIu32 " bytes]", e->dx_overhead);
	putchar('\n');
}

static void dirblock_head(struct dump_ctx *ctx, const char *path,
			  uint32_t ino, uint64_t n,
			  const struct extkit_dirent *e)
{
	char where[DUMP_PATH_MAX];

	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		dump_json_path(&ctx->jw, "path", dump_known_path(ctx, path,
			       ino, where, sizeof(where)));
		json_u64(&ctx->jw, "inode", ino);
		json_u64(&ctx->jw, "lblk", n);
		json_u64(&ctx->jw, "pblk", e ? e->pblk : 0);
		json_begin_array(&ctx->jw, "records");
		return;
	}
	printf("%s: block %" PRIu64 " (physical ", path, n);
	dump_put_blk(ctx, e ? e->pblk : 0);
	printf(")\n%6s %10s %7s %8s %4s %6s %-7s %s\n", "offset", "inode",
	       "rec_len", "name_len", "type", "slack", "kind", "name");
}

static int dirblock_walk(struct dump_ctx *ctx, struct extkit_dir_iter *it,
			 const char *path, uint32_t ino, uint64_t n)
{
	struct extkit_dirent ent;
	int head = 0;
	int rc;

	while ((rc = extkit_dir_iter_next(it, &ent)) > 0) {
		if (ent.lblk < n)
			continue;
		if (ent.lblk > n)
			break;
		if (!head++)
			dirblock_head(ctx, path, ino, n, &ent);
		if (ctx->o->json)
			record_json(&ctx->jw, &ent);
		else
			record_text(&ent);
	}
	if (!head && rc >= 0)
		dirblock_head(ctx, path, ino, n, NULL);
	if (head || rc >= 0) {
		if (ctx->o->json) {
			json_end_array(&ctx->jw);
			json_end_object(&ctx->jw);
		}
	}
	if (rc < 0)
		cli_error_rc(path, rc);
	return rc < 0 ? rc : 0;
}

int dump_dirblock(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct extkit_dir_iter *it;
	uint32_t ino;
	uint64_t n;
	int rc;

	if (cli_parse_u64(ctx->o->args[1], &n)) {
		cli_error("%s: not a block number", ctx->o->args[1]);
		return -1;
	}
	if (dump_resolve(ctx, path, &ino))
		return -1;
	rc = extkit_dir_iter_open(ctx->fs, ino, EXTKIT_DIR_ITER_HOLES, &it);
	if (rc < 0) {
		cli_error_rc(path, rc);
		return rc;
	}
	if (n >= extkit_dir_iter_nblocks(it)) {
		cli_error("%s: block %" PRIu64 " is past the end of the "
			  "directory (%" PRIu64 " blocks)", path, n,
			  extkit_dir_iter_nblocks(it));
		rc = -1;
	} else {
		rc = dirblock_walk(ctx, it, path, ino, n);
	}
	extkit_dir_iter_close(it);
	return rc;
}
