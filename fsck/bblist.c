// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -l FILE, -L FILE, -c: a new bad blocks list, as e2fsck's
 * read_bad_blocks_file. The block numbers come from FILE (one a line; a
 * line that does not start with a number is skipped, a number outside the
 * filesystem is ignored and said so) or from badblocks(8) run on the
 * target (-c: a read test; -cc: a non-destructive read-write test). -l
 * and -c add them to the list the bad blocks inode (1) holds (-c
 * replaces it unless -k), -L replaces it. Inode 1 is then rewritten with
 * an indirect map of the sorted list, its map blocks taken from the free
 * blocks that are not on the list, its old map blocks freed, the listed
 * blocks marked in use. The passes
 * then check it as usual: files using a bad block get their own copy
 * (pass 1B), the bitmaps follow (pass 5).
 *
 * Runs after the journal and before pass 1; the clean check is skipped
 * (a new list is checked in full). Refused on bigalloc (a bad block is a
 * block, the bitmaps count clusters).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "bmap.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "mapbuild.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "fsck.h"

/* The data blocks (the bad ones) or the map blocks of inode 1. */
struct bb_collect {
	struct fsck_alloc_list *list;
	int meta;
};

static int collect_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		      uint32_t count, int flags, void *arg)
{
	struct bb_collect *c = arg;

	(void)fs;
	(void)lblk;
	if (!!(flags & EXTKIT_BLOCK_META) != c->meta)
		return 0;
	for (uint32_t i = 0; i < count; i++)
		if (fsck_alloc_push(c->list, pblk + i))
			return -ENOMEM;
	return 0;
}

/* Block numbers from f, one a line, as ext2fs_read_bb_FILE reads them. */
static int read_numbers(struct fsck_ctx *ctx, FILE *f,
			struct fsck_alloc_list *list)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	char line[256];
	unsigned long long blk;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu", &blk) != 1)
			continue;
		if (blk < sb->first_data_block || blk >= sb->blocks_count) {
			printf("Bad block %llu out of range; ignored.\n", blk);
			continue;
		}
		if (fsck_alloc_push(list, blk))
			return -ENOMEM;
	}
	return ferror(f) ? -EIO : 0;
}

/* Where badblocks(8) is: EXTKIT_FSCK_BADBLOCKS when set, else PATH,
 * then the sbin directories (e2fsck puts /sbin in PATH for it). 0 and
 * out, or -ENOENT. */
static int find_badblocks(char *out, size_t len)
{
	const char *path = getenv("PATH");
	const char *given = getenv("EXTKIT_FSCK_BADBLOCKS");
	char dirs[4096];
	char *dir, *save = NULL;

	if (given) {
		snprintf(out, len, "%s", given);
		return access(out, X_OK) == 0 ? 0 : -ENOENT;
	}

	snprintf(dirs, sizeof(dirs), "%s:/sbin:/usr/sbin:/usr/local/sbin",
		 path ? path : "");
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/badblocks", *dir ? dir : ".");
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* badblocks -b BS -X [-s] [-n] TARGET LAST, its output read as a list. */
static int run_badblocks(struct fsck_ctx *ctx, struct fsck_alloc_list *list)
{
	char prog[4200], bs[16], last[24];
	const char *argv[10];
	int fds[2], n = 0, status, rc;
	FILE *f;
	pid_t pid;

	if (find_badblocks(prog, sizeof(prog))) {
		cli_error("-c: badblocks is not installed (it comes with "
			  "e2fsprogs): the bad blocks scan cannot run");
		return -ENOENT;
	}
	snprintf(bs, sizeof(bs), "%" PRIu32, ctx->fs->g.block_size);
	snprintf(last, sizeof(last), "%" PRIu64,
		 ctx->fs->sb.blocks_count - 1);
	argv[n++] = "badblocks";
	argv[n++] = "-b";
	argv[n++] = bs;
	argv[n++] = "-X";
	if (ctx->opts->mode != FSCK_MODE_PREEN)
		argv[n++] = "-s";
	if (ctx->opts->check_blocks > 1)
		argv[n++] = "-n";
	argv[n++] = ctx->opts->target;
	argv[n++] = last;
	argv[n] = NULL;
	fflush(stdout);
	if (pipe(fds) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	rc = f ? read_numbers(ctx, f, list) : -errno;
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		cli_error("-c: %s failed", prog);
		return rc ? rc : -EIO;
	}
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sorts the list and drops repeats. */
static void sort_unique(struct fsck_alloc_list *l)
{
	size_t n = 0;

	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	for (size_t i = 0; i < l->n; i++)
		if (!n || l->v[n - 1] != l->v[i])
			l->v[n++] = l->v[i];
	l->n = n;
}

/* The sorted list as runs, the blocks a map block must not take. */
static struct extkit_blk_run *list_runs(const struct fsck_alloc_list *l,
					size_t *nruns)
{
	struct extkit_blk_run *r = calloc(l->n + 1, sizeof(*r));
	size_t n = 0;

	if (!r)
		return NULL;
	for (size_t i = 0; i < l->n; i++) {
		if (n && r[n - 1].start + r[n - 1].len == l->v[i]) {
			r[n - 1].len++;
			continue;
		}
		r[n].start = l->v[i];
		r[n++].len = 1;
	}
	*nruns = n;
	return r;
}

/* Frees the old map blocks of inode 1, a run at a time (one not marked
 * in use is left: pass 5 settles it). */
static void free_old_map(struct fsck_ctx *ctx, struct fsck_alloc_list *old)
{
	sort_unique(old);
	for (size_t i = 0, j; i < old->n; i = j) {
		for (j = i + 1; j < old->n && old->v[j] == old->v[j - 1] + 1;
		     j++)
			;
		(void)extkit_free_blocks(ctx->fs, old->v[i], j - i);
	}
}

/* Inode 1 rewritten to map the sorted list (decided, then written). */
static int write_list(struct fsck_ctx *ctx, const struct fsck_alloc_list *l,
		      struct fsck_alloc_list *old_meta)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_mapbuild mb = { .extents = 0, .nblocks = l->n,
				      .pblks = l->v };
	struct extkit_blk_run *skip = NULL;
	struct extkit_inode in;
	uint64_t *meta = NULL;
	size_t nskip = 0;
	int rc = extkit_inode_read(fs, EXT2_BAD_INO, &in);

	if (!rc)
		rc = extkit_mapbuild_plan(fs, &mb);
	if (!rc) {
		skip = list_runs(l, &nskip);
		meta = calloc(mb.nmeta + 1, sizeof(*meta));
		mb.bufs = calloc(mb.nmeta + 1, fs->g.block_size);
		if (!skip || !meta || !mb.bufs)
			rc = -ENOMEM;
	}
	if (!rc && mb.nmeta)
		rc = extkit_alloc_find_skip(fs, fs->sb.first_data_block, skip,
					    nskip, mb.nmeta, meta);
	if (rc)
		goto out;
	/* Everything decided: the writes. */
	mb.meta = meta;
	free_old_map(ctx, old_meta);
	for (uint64_t i = 0; !rc && i < mb.nmeta; i++)
		rc = extkit_alloc_mark(fs, meta[i], 1);
	/* the bad blocks in use, as libext2fs marks them (a file's stay
	 * its own until pass 1B copies them) */
	for (size_t i = 0; !rc && i < l->n; i++)
		if (extkit_blocks_all_used(fs, l->v[i], 1) == 0)
			rc = extkit_alloc_mark(fs, l->v[i], 1);
	memset(in.block, 0, sizeof(in.block));
	in.flags &= ~(uint32_t)EXT4_EXTENTS_FL;
	extkit_mapbuild_fill(fs, &mb, &in);
	in.size = (uint64_t)l->n * fs->g.block_size;
	extkit_inode_set_fs_blocks(fs, &in, l->n + mb.nmeta);
	in.atime = in.mtime = ctx->now;
	if (!in.ctime)
		in.ctime = ctx->now;
	if (!rc)
		rc = extkit_mapbuild_write(fs, EXT2_BAD_INO, in.generation, &mb);
	if (!rc)
		rc = extkit_inode_write(fs, EXT2_BAD_INO, &in);
	if (!rc)
		rc = extkit_alloc_commit(fs);
out:
	free(skip);
	free(meta);
	free(mb.bufs);
	return rc;
}

/* The list inode 1 holds now: its bad blocks into keep (unless NULL),
 * its map blocks into meta. A map that cannot be walked is left to
 * pass 1: nothing of it is kept or freed. */
static int read_current(struct fsck_ctx *ctx, struct fsck_alloc_list *keep,
			struct fsck_alloc_list *meta)
{
	struct bb_collect data = { keep, 0 }, map = { meta, 1 };
	struct extkit_inode in;
	int rc = extkit_inode_read(ctx->fs, EXT2_BAD_INO, &in);

	if (rc)
		return rc;
	if (in.flags & EXT4_EXTENTS_FL)
		return 0;	/* not a bad blocks map: pass 1 clears it */
	if (keep && extkit_block_walk(ctx->fs, &in, collect_fn, &data))
		keep->n = 0;
	if (extkit_block_walk(ctx->fs, &in, collect_fn, &map))
		meta->n = 0;
	return 0;
}

int fsck_update_bad_blocks(struct fsck_ctx *ctx)
{
	const struct fsck_opts *o = ctx->opts;
	struct fsck_alloc_list list = { 0 }, meta = { 0 };
	int replace = o->bb_file ? o->bb_replace : !o->keep_bad_blocks;
	FILE *f;
	int rc;

	if ((!o->bb_file && !o->check_blocks) || ctx->readonly)
		return 0;
	if (ctx->fs->g.cluster_ratio > 1) {
		cli_error("%s: a bad blocks list (-l, -L, -c) cannot be kept "
			  "on bigalloc", o->target);
		return -EXTKIT_EUNSUPP;
	}
	rc = read_current(ctx, replace ? NULL : &list, &meta);
	if (!rc && o->bb_file) {
		f = fopen(o->bb_file, "r");
		if (!f) {
			rc = -errno;
			cli_error("%s: %s", o->bb_file, strerror(errno));
		} else {
			rc = read_numbers(ctx, f, &list);
			fclose(f);
		}
	} else if (!rc) {
		rc = run_badblocks(ctx, &list);
	}
	if (!rc) {
		sort_unique(&list);
		printf("%s: Updating bad block inode.\n", ctx->device);
		rc = write_list(ctx, &list, &meta);
		if (rc)
			cli_error("%s: updating the bad block inode: %s",
				  o->target, extkit_strerror(rc));
	}
	free(list.v);
	free(meta.v);
	return rc;
}
