// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Blocks claimed twice, reported in e2fsck's words (see dupreport.h).
 *
 * Pass 1B's walk (pass1b.c, count_owners) hands every shared block of
 * each inode in its map's order (the extended attribute block last); the
 * inode's line lists them as runs ("1625 1800--1941"), and its runs are
 * kept. Pass 1C reads the directories pass 1 found until every file
 * naming shared blocks has a name. Pass 1D's sharing comes from the runs
 * sorted by start: two inodes share when runs of theirs overlap (a sweep
 * over the runs, the overlapping ones kept in a list). A file shares with
 * filesystem metadata when one of its runs overlaps a group's superblock
 * copy, descriptors, bitmaps or inode table.
 *
 * Memory: a run per stretch of shared blocks of an inode, a pair per two
 * inodes that share (at most DUP_PAIRS_MAX; past it the lists are cut).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dir.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"

#include "dupreport.h"
#include "fsck.h"
#include "problem.h"

#define DUP_PAIRS_MAX	(1u << 20)
#define DUP_TEXT_MAX	3000

/* e2fsck's names of the reserved inodes when no directory names them. */
static const char *const special_name[] = {
	"<The NULL inode>", "<The bad blocks inode>", "/",
	"<The user quota inode>", "<The group quota inode>",
	"<The boot loader inode>", "<The undelete directory inode>",
	"<The group descriptor inode>", "<The journal inode>",
	"<Reserved inode 9>", "<Reserved inode 10>",
};

void dupreport_start(struct fsck_ctx *ctx)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	fix_problem(ctx, ctx->opts->mode == FSCK_MODE_PREEN ?
		    PR_1_DUP_BLOCKS_PREENSTOP : PR_1B_PASS_HEADER, &pctx);
}

int dupreport_add(struct dup_report *r, uint32_t ino, uint64_t blk)
{
	struct dup_run *last = r->nruns > r->first_run ?
			       &r->runs[r->nruns - 1] : NULL;

	if (last && last->ino == ino && last->start + last->len == blk) {
		last->len++;
		return 0;
	}
	if (r->nruns == r->runs_cap) {
		size_t cap = r->runs_cap ? 2 * r->runs_cap : 64;
		struct dup_run *v = realloc(r->runs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->runs = v;
		r->runs_cap = cap;
	}
	r->runs[r->nruns].start = blk;
	r->runs[r->nruns].len = 1;
	r->runs[r->nruns++].ino = ino;
	return 0;
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* Whether [start, start + len) holds group metadata. */
static int run_is_meta(const struct extkit_fs *fs, uint64_t start,
		       uint64_t len)
{
	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		const struct extkit_group *gd = &fs->groups[g];
		uint64_t first = extkit_group_first_block(&fs->sb, g);

		if (overlaps(start, len, first,
			     extkit_group_sb_overhead(&fs->sb, &fs->g, g)) ||
		    overlaps(start, len, gd->block_bitmap, 1) ||
		    overlaps(start, len, gd->inode_bitmap, 1) ||
		    overlaps(start, len, gd->inode_table, fs->g.itable_blocks))
			return 1;
	}
	return 0;
}

static void text_add(struct dup_report *r, const char *s)
{
	size_t n = strlen(s);

	if (r->text_len + n + 5 >= DUP_TEXT_MAX) {
		if (r->text_len + 5 < DUP_TEXT_MAX &&
		    strcmp(r->text + r->text_len - 4, " ...")) {
			memcpy(r->text + r->text_len, " ...", 5);
			r->text_len += 4;
		}
		return;
	}
	memcpy(r->text + r->text_len, s, n + 1);
	r->text_len += n;
}

static int add_file(struct dup_report *r, uint32_t ino,
		    const struct extkit_inode *inode)
{
	struct dup_file *f;

	if (r->nfiles == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;

		f = realloc(r->files, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		r->files = f;
		r->cap = cap;
	}
	f = &r->files[r->nfiles++];
	memset(f, 0, sizeof(*f));
	f->ino = ino;
	f->mtime = inode->mtime;
	return 0;
}

int dupreport_inode(struct fsck_ctx *ctx, struct dup_report *r,
		    uint32_t ino, const struct extkit_inode *inode)
{
	struct problem_context pctx;
	struct dup_file *f;
	char one[64];
	int rc;

	if (r->nruns == r->first_run)
		return 0;
	if (!r->text) {
		r->text = malloc(DUP_TEXT_MAX);
		if (!r->text)
			return -ENOMEM;
	}
	rc = add_file(r, ino, inode);
	if (rc)
		return rc;
	f = &r->files[r->nfiles - 1];
	r->text[0] = '\0';
	r->text_len = 0;
	for (size_t i = r->first_run; i < r->nruns; i++) {
		const struct dup_run *u = &r->runs[i];

		if (u->len == 1)
			snprintf(one, sizeof(one), " %" PRIu64, u->start);
		else
			snprintf(one, sizeof(one), " %" PRIu64 "--%" PRIu64,
				 u->start, u->start + u->len - 1);
		text_add(r, one);
		f->nblocks += u->len;
		f->meta |= run_is_meta(ctx->fs, u->start, u->len);
	}
	r->first_run = r->nruns;
	if (ino == EXT2_BAD_INO)	/* e2fsck lists the bad ones alone */
		return 0;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.str = r->text;
	fix_problem(ctx, PR_1B_DUP_LIST, &pctx);
	return 0;
}

static struct dup_file *find_file(const struct dup_report *r, uint32_t ino)
{
	size_t lo = 0, hi = r->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->files[mid].ino == ino)
			return &r->files[mid];
		if (r->files[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Pass 1C: a directory naming each file; *left: files still unnamed. */
static void name_in_dir(struct fsck_ctx *ctx, struct dup_report *r,
			uint32_t dir, size_t *left)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	struct dup_file *f;
	int rc;

	if (extkit_dir_iter_open(ctx->fs, dir, 0, &it))
		return;
	while (*left && (rc = extkit_dir_iter_next(it, &ent)) != 0) {
		if (rc < 0)
			break;
		if (ent.kind != EXTKIT_DE_LIVE ||
		    (ent.name_len == 1 && ent.name[0] == '.') ||
		    (ent.name_len == 2 && !memcmp(ent.name, "..", 2)))
			continue;
		f = find_file(r, ent.inode);
		if (!f || f->dir)
			continue;
		f->name = malloc(ent.name_len + 1u);
		if (!f->name)
			break;
		memcpy(f->name, ent.name, ent.name_len);
		f->name[ent.name_len] = '\0';
		f->dir = dir;
		(*left)--;
	}
	extkit_dir_iter_close(it);
}

static int cmp_run(const void *a, const void *b)
{
	const struct dup_run *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Who shares with whom: pairs (a, b) both ways, from overlapping runs. */
static int find_pairs(struct dup_report *r, uint32_t **pairs, size_t *np)
{
	size_t *active = malloc((r->nruns + 1) * sizeof(*active));
	size_t nact = 0, cap = 0, n = 0;
	uint32_t *p = NULL;

	if (!active)
		return -ENOMEM;
	if (r->nruns)
		qsort(r->runs, r->nruns, sizeof(*r->runs), cmp_run);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct dup_run *u = &r->runs[i];
		size_t k = 0;

		for (size_t j = 0; j < nact; j++) {
			const struct dup_run *a = &r->runs[active[j]];

			if (a->start + a->len <= u->start)
				continue;
			active[k++] = active[j];
			if (a->ino == u->ino || n + 2 > 2 * DUP_PAIRS_MAX)
				continue;
			if (2 * (n + 2) > cap) {
				size_t nc = cap ? 2 * cap : 256;
				uint32_t *v = realloc(p, nc * sizeof(*v));

				if (!v) {
					free(p);
					free(active);
					return -ENOMEM;
				}
				p = v;
				cap = nc;
			}
			p[2 * n] = a->ino;
			p[2 * n + 1] = u->ino;
			p[2 * n + 2] = u->ino;
			p[2 * n + 3] = a->ino;
			n += 2;
		}
		nact = k;
		active[nact++] = i;
	}
	free(active);
	if (n)
		qsort(p, n, 2 * sizeof(*p), cmp_pair);
	*pairs = p;
	*np = n;
	return 0;
}

/* Each file's list of the inodes it shares with, from the pairs. */
static int share_lists(struct dup_report *r)
{
	uint32_t *p = NULL;
	size_t n = 0, i = 0;
	int rc = find_pairs(r, &p, &n);

	while (!rc && i < n) {
		struct dup_file *f = find_file(r, p[2 * i]);
		size_t j = i, k = 0;

		while (j < n && p[2 * j] == p[2 * i])
			j++;
		if (f) {
			f->shares = malloc((j - i) * sizeof(*f->shares));
			if (!f->shares)
				rc = -ENOMEM;
			for (size_t x = i; !rc && x < j; x++)
				if (!k || f->shares[k - 1] != p[2 * x + 1])
					f->shares[k++] = p[2 * x + 1];
			f->nshares = k;
		}
		i = j;
	}
	free(p);
	return rc;
}

int dupreport_is_file(const struct fsck_ctx *ctx, uint32_t ino)
{
	return ino >= ctx->fs->g.first_ino || ino == EXT2_ROOT_INO;
}

int dupreport_resolve(struct fsck_ctx *ctx, struct dup_report *r)
{
	struct problem_context pctx;
	size_t left = 0;
	uint64_t files = 0;
	int preen = ctx->opts->mode == FSCK_MODE_PREEN, rc;

	clear_problem_context(&pctx);
	if (!preen)
		fix_problem(ctx, PR_1C_PASS_HEADER, &pctx);
	for (size_t i = 0; i < r->nfiles; i++) {
		left += r->files[i].ino >= ctx->fs->g.first_ino;
		files += dupreport_is_file(ctx, r->files[i].ino);
	}
	for (uint32_t i = 0; left && i < ctx->dir_count; i++)
		if (fsck_inode_used(ctx, ctx->dirs[i].ino))
			name_in_dir(ctx, r, ctx->dirs[i].ino, &left);
	rc = share_lists(r);
	if (!preen)
		fix_problem(ctx, PR_1D_PASS_HEADER, &pctx);
	pctx.num = files;
	fix_problem(ctx, PR_1D_NUM_DUP_INODES, &pctx);
	return rc;
}

/* "PATH (inode #N, mod time TIME)" of inode ino. */
static void describe(struct fsck_ctx *ctx, const struct dup_report *r,
		     uint32_t ino, char *out, size_t len)
{
	const struct dup_file *f = find_file(r, ino);
	char path[1024] = "...", when[32] = "";
	time_t t = f ? (time_t)f->mtime : 0;
	struct tm tm;

	if (f && f->dir) {
		fsck_dir_path(ctx, f->dir, path, sizeof(path));
		snprintf(path + strlen(path), sizeof(path) - strlen(path),
			 "%s%s", strcmp(path, "/") ? "/" : "", f->name);
	} else if (ino < sizeof(special_name) / sizeof(special_name[0])) {
		snprintf(path, sizeof(path), "%s", special_name[ino]);
	}
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	snprintf(out, len, "%s (inode #%" PRIu32 ", mod time %s)", path, ino,
		 when);
}

void dupreport_file(struct fsck_ctx *ctx, const struct dup_report *r,
		    const struct dup_file *f)
{
	struct problem_context pctx;
	char text[1200];

	clear_problem_context(&pctx);
	describe(ctx, r, f->ino, text, sizeof(text));
	pctx.ino = f->ino;
	pctx.str = text;
	pctx.num = f->nblocks;
	pctx.num2 = f->nshares + (uint64_t)!!f->meta;
	fix_problem(ctx, PR_1D_DUP_FILE, &pctx);
	if (f->meta)
		fix_problem(ctx, PR_1D_SHARE_METADATA, &pctx);
	for (size_t i = 0; i < f->nshares; i++) {
		describe(ctx, r, f->shares[i], text, sizeof(text));
		pctx.ino = f->shares[i];
		fix_problem(ctx, PR_1D_DUP_FILE_LIST, &pctx);
	}
}

void dupreport_free(struct dup_report *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].name);
		free(r->files[i].shares);
	}
	free(r->files);
	free(r->runs);
	free(r->text);
	memset(r, 0, sizeof(*r));
}
