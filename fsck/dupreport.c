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
 * over a sorted copy of the runs, the overlapping ones kept in a list).
 * A file lists the inodes it shares with in e2fsck's order (its lists are
 * built by prepending): from the file's last shared block back to its
 * first, and at one block the later inode first. A file shares with
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

	/* e2fsck counts a file's shared clusters, one each time its map
	 * enters another cluster (a block at the start of one, a jump, or
	 * another physical cluster); without bigalloc each block */
	if (!last)
		r->next_blk = 0;
	if (!(blk & ((1ull << r->shift) - 1)) || blk != r->next_blk ||
	    !r->clusters)
		r->clusters++;
	r->next_blk = blk + 1;
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
	f->run0 = r->first_run;
	f->run1 = r->nruns;
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
		f->meta |= run_is_meta(ctx->fs, u->start, u->len);
	}
	f->nblocks = r->clusters;
	r->clusters = 0;
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

/* Who shares with whom: pairs (a, b) both ways, from overlapping runs
 * (sorted: a copy of the runs, sorted by start). */
static int find_pairs(struct dup_report *r, const struct dup_run *sorted,
		      uint32_t **pairs, size_t *np)
{
	size_t *active = malloc((r->nruns + 1) * sizeof(*active));
	size_t nact = 0, cap = 0, n = 0;
	uint32_t *p = NULL;

	if (!active)
		return -ENOMEM;
	for (size_t i = 0; i < r->nruns; i++) {
		const struct dup_run *u = &sorted[i];
		size_t k = 0;

		for (size_t j = 0; j < nact; j++) {
			const struct dup_run *a = &sorted[active[j]];

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

/* Where e2fsck lists inode c among those f shares with: f's runs from
 * its last back (pos), the highest block of that run c names (blk). */
struct share_key {
	uint32_t ino;
	size_t pos;
	uint64_t blk;
};

static void share_key(const struct dup_report *r, const struct dup_file *f,
		      const struct dup_file *c, struct share_key *k)
{
	k->ino = c->ino;
	k->pos = SIZE_MAX;
	k->blk = 0;
	for (size_t i = f->run1; i-- > f->run0 && k->pos == SIZE_MAX;) {
		const struct dup_run *u = &r->runs[i];

		for (size_t j = c->run0; j < c->run1; j++) {
			const struct dup_run *v = &r->runs[j];
			uint64_t hi, m = (1ull << r->shift) - 1;

			/* bigalloc: by cluster (runs widened to theirs) */
			if (!overlaps(u->start & ~m,
				      ((u->start + u->len + m) & ~m) -
				      (u->start & ~m),
				      v->start & ~m,
				      ((v->start + v->len + m) & ~m) -
				      (v->start & ~m)))
				continue;
			hi = u->start + u->len < v->start + v->len ?
			     u->start + u->len : v->start + v->len;
			k->pos = f->run1 - i;
			if (hi - 1 > k->blk)
				k->blk = hi - 1;
		}
	}
}

static int cmp_key(const void *a, const void *b)
{
	const struct share_key *x = a, *y = b;

	if (x->pos != y->pos)
		return (x->pos > y->pos) - (x->pos < y->pos);
	if (x->blk != y->blk)
		return (x->blk < y->blk) - (x->blk > y->blk);
	return (x->ino < y->ino) - (x->ino > y->ino);
}

/* f's list in e2fsck's order; left by inode number when the work would
 * be too much (many runs on both sides). */
static void order_shares(const struct dup_report *r, struct dup_file *f)
{
	struct share_key *k;
	uint64_t work = 0;

	for (size_t i = 0; i < f->nshares; i++) {
		const struct dup_file *c = find_file(r, f->shares[i]);

		work += (uint64_t)(f->run1 - f->run0) *
			(c ? c->run1 - c->run0 : 0);
	}
	if (f->nshares < 2 || work > (1u << 22))
		return;
	k = malloc(f->nshares * sizeof(*k));
	if (!k)
		return;
	for (size_t i = 0; i < f->nshares; i++) {
		const struct dup_file *c = find_file(r, f->shares[i]);

		if (c)
			share_key(r, f, c, &k[i]);
		else
			k[i] = (struct share_key){ f->shares[i], SIZE_MAX, 0 };
	}
	qsort(k, f->nshares, sizeof(*k), cmp_key);
	for (size_t i = 0; i < f->nshares; i++)
		f->shares[i] = k[i].ino;
	free(k);
}

/* Each file's list of the inodes it shares with, from the pairs. */
static int share_lists(struct dup_report *r)
{
	struct dup_run *sorted = malloc((r->nruns + 1) * sizeof(*sorted));
	uint32_t *p = NULL;
	size_t n = 0, i = 0;
	int rc;

	if (!sorted)
		return -ENOMEM;
	/* bigalloc: two files share a cluster, whichever blocks of it */
	for (size_t x = 0; x < r->nruns; x++) {
		uint64_t c0 = r->runs[x].start >> r->shift;
		uint64_t c1 = (r->runs[x].start + r->runs[x].len - 1) >>
			      r->shift;

		sorted[x] = r->runs[x];
		sorted[x].start = c0;
		sorted[x].len = c1 - c0 + 1;
	}
	if (r->nruns)
		qsort(sorted, r->nruns, sizeof(*sorted), cmp_run);
	rc = find_pairs(r, sorted, &p, &n);
	free(sorted);

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
			if (!rc)
				order_shares(r, f);
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
