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

#include "dir.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "dump.h"
#include "json.h"
#include "names.h"

/* ---- ls ---- */

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

/* ls -l in JSON: the inode's fields, null when it cannot be read. */
static void ls_entry_long_json(struct dump_ctx *ctx,
			       const struct extkit_inode *in, int have)
{
	static const char *const keys[] = {
		"mode", "links_count", "uid", "gid", "size",
	};
	struct json_writer *w = &ctx->jw;
	unsigned int i;

	if (!have) {
		for (i = 0; i < N_ELEM(keys); i++)
			json_null(w, keys[i]);
		return;
	}
	json_u64(w, "mode", in->mode);
	json_u64(w, "links_count", in->links_count);
	json_u64(w, "uid", in->uid);
	json_u64(w, "gid", in->gid);
	json_u64(w, "size", in->size);
}

/*
 * One entry. Its "type" is the inode's (from its mode) with -l, else the
 * one the entry records (file_type; "unknown" without the filetype
 * feature).
 */
static void ls_entry(struct dump_ctx *ctx, const struct extkit_dirent *ent)
{
	struct extkit_inode in;
	unsigned int ftype = ent->file_type;
	int have = 0;

	if (ctx->o->long_list)
		have = extkit_inode_read(ctx->fs, ent->inode, &in) == 0;
	if (have)
		ftype = extkit_mode_to_ftype(in.mode);
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_u64(&ctx->jw, "inode", ent->inode);
		json_bytes_name(&ctx->jw, "name", ent->name, ent->name_len);
		json_u64(&ctx->jw, "rec_len", ent->rec_len);
		json_u64(&ctx->jw, "name_len", ent->name_len);
		json_u64(&ctx->jw, "file_type", ent->file_type);
		json_string(&ctx->jw, "type", ftype_word(ftype));
		if (ctx->o->long_list)
			ls_entry_long_json(ctx, &in, have);
		json_end_object(&ctx->jw);
		return;
	}
	printf("%" PRIu32 " ", ent->inode);
	if (have)
		printf("%06o %u %" PRIu32 " %" PRIu32 " %" PRIu64 " %c ",
		       in.mode, in.links_count, in.uid, in.gid, in.size,
		       extkit_ftype_char(ftype));
	else if (ctx->o->long_list)
		printf("? ? ? ? ? %c ", extkit_ftype_char(ftype));
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
