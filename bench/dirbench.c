// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory benchmarks over the library (driven by the bench/ scripts;
 * never part of make check).
 *   dirbench batches IMAGE PATH BATCHES PER [walk]
 *	adds BATCHES x PER new names to directory PATH through the
 *	free-entry map's hints, or (walk) by a first-fit walk from block 0;
 *	prints one line per batch: batch, entries, seconds, blocks read.
 *   dirbench scan IMAGE PATH REPS
 *	iterates directory PATH REPS times; prints entries, records,
 *	seconds and entries per second.
 *   dirbench fill IMAGE PATH N
 *	adds N names n000000_abcd.. to PATH, hard links to the regular
 *	files PATH already holds (their link counts raised to match).
 *   dirbench thin IMAGE PATH EVERY
 *	removes every entry of PATH but one in EVERY (scattered deletions,
 *	each merged into the previous record) and lowers the link counts of
 *	their inodes (hard links: no inode is freed).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diradd.h"
#include "inode.h"
#include "dirspace.h"
#include "error.h"
#include "fs.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_dir(const char *img, const char *path, int flags,
		    struct extkit_fs **fs, uint32_t *ino)
{
	const char *why = NULL;
	int rc = extkit_fs_open(img, flags, fs, &why);

	if (rc) {
		fprintf(stderr, "dirbench: %s: %s\n", img,
			why ? why : extkit_strerror(rc));
		return rc;
	}
	rc = extkit_path_resolve(*fs, path, ino);
	if (rc)
		fprintf(stderr, "dirbench: %s: %s\n", path,
			extkit_strerror(rc));
	return rc;
}

static int batches(const char *img, const char *path, unsigned int nb,
		   unsigned int per, int walk)
{
	struct extkit_dirspace ds = { 0 };
	struct extkit_fs *fs;
	uint64_t visits;
	unsigned int b, i;
	char name[64];
	uint32_t ino;
	double t;
	int rc;

	rc = open_dir(img, path, EXTKIT_FS_WRITE, &fs, &ino);
	if (!rc)
		rc = extkit_dirspace_build(&ds, fs, ino,
					   walk ? EXTKIT_DIRSPACE_WALK : 0);
	for (b = 0; !rc && b < nb; b++) {
		t = now();
		visits = ds.visits;
		for (i = 0; !rc && i < per; i++) {
			snprintf(name, sizeof(name), "batch%u_entry_%06u", b,
				 i);
			rc = extkit_dir_add(&ds, name, (uint32_t)strlen(name),
					    11, 1, NULL);
		}
		printf("%u %u %.4f %" PRIu64 "\n", b + 1, per, now() - t,
		       ds.visits - visits);
	}
	if (rc)
		fprintf(stderr, "dirbench: %s\n", extkit_strerror(rc));
	extkit_dirspace_free(&ds);
	extkit_fs_close(fs);
	return rc ? 1 : 0;
}

static int scan(const char *img, const char *path, unsigned int reps)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent e;
	struct extkit_fs *fs;
	uint64_t live = 0, recs = 0;
	unsigned int r;
	uint32_t ino;
	double t;
	int rc;

	rc = open_dir(img, path, 0, &fs, &ino);
	t = now();
	for (r = 0; !rc && r < reps; r++) {
		rc = extkit_dir_iter_open(fs, ino, 0, &it);
		while (!rc && (rc = extkit_dir_iter_next(it, &e)) > 0) {
			recs++;
			live += e.kind == EXTKIT_DE_LIVE;
			rc = 0;
		}
		extkit_dir_iter_close(it);
	}
	t = now() - t;
	if (!rc)
		printf("%" PRIu64 " %" PRIu64 " %.4f %.0f\n", live / reps,
		       recs / reps, t, (double)live / t);
	extkit_fs_close(fs);
	return rc ? 1 : 0;
}

struct victim {
	uint64_t lblk;
	uint32_t off;
	uint32_t ino;
};

/* Lists the entries to remove: all live ones but '.', '..' and every
 * every-th. */
static int thin_list(struct extkit_fs *fs, uint32_t dir, unsigned int every,
		     struct victim **out, uint64_t *n)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent e;
	struct victim *v = NULL, *nv;
	uint64_t cap = 0, k = 0;
	int rc = extkit_dir_iter_open(fs, dir, 0, &it);

	*n = 0;
	while (!rc && (rc = extkit_dir_iter_next(it, &e)) > 0) {
		rc = 0;
		if (e.kind != EXTKIT_DE_LIVE ||
		    (e.lblk == 0 && e.offset < 24) || k++ % every == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
		}
		v[*n].lblk = e.lblk;
		v[*n].off = e.offset;
		v[(*n)++].ino = e.inode;
	}
	extkit_dir_iter_close(it);
	*out = v;
	return rc;
}

static int drop_links(struct extkit_fs *fs, const struct victim *v,
		      uint64_t n)
{
	uint16_t *drops = calloc(fs->sb.inodes_count + 1u, sizeof(*drops));
	struct extkit_inode inode;
	uint64_t i;
	int rc = 0;

	if (!drops)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		drops[v[i].ino]++;
	for (i = 1; !rc && i <= fs->sb.inodes_count; i++) {
		if (!drops[i])
			continue;
		rc = extkit_inode_read(fs, (uint32_t)i, &inode);
		if (!rc && inode.links_count <= drops[i])
			rc = -EMLINK;	/* would free it: not benched */
		if (!rc) {
			inode.links_count -= drops[i];
			rc = extkit_inode_write(fs, (uint32_t)i, &inode);
		}
	}
	free(drops);
	return rc;
}

static int thin(const char *img, const char *path, unsigned int every)
{
	struct extkit_dirspace ds = { 0 };
	struct extkit_fs *fs;
	struct victim *v = NULL;
	uint64_t n = 0, i;
	uint32_t ino;
	double t = now();
	int rc;

	rc = open_dir(img, path, EXTKIT_FS_WRITE, &fs, &ino);
	if (!rc)
		rc = thin_list(fs, ino, every ? every : 1, &v, &n);
	if (!rc)
		rc = extkit_dirspace_build(&ds, fs, ino, 0);
	for (i = 0; !rc && i < n; i++)
		rc = extkit_dir_remove_at(&ds, v[i].lblk, v[i].off);
	if (!rc)
		rc = drop_links(fs, v, n);
	if (rc)
		fprintf(stderr, "dirbench: %s\n", extkit_strerror(rc));
	else
		printf("removed %" PRIu64 " entries in %.3f s\n", n, now() - t);
	extkit_dirspace_free(&ds);
	free(v);
	extkit_fs_close(fs);
	return rc ? 1 : 0;
}

/* Hard-link targets: the live non-dot entries of dir (at most max). */
static int fill_targets(struct extkit_fs *fs, uint32_t dir, uint32_t *t,
			unsigned int max, unsigned int *n)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent e;
	int rc = extkit_dir_iter_open(fs, dir, 0, &it);

	*n = 0;
	while (!rc && *n < max && (rc = extkit_dir_iter_next(it, &e)) > 0) {
		rc = 0;
		if (e.kind == EXTKIT_DE_LIVE && e.file_type == 1)
			t[(*n)++] = e.inode;
	}
	extkit_dir_iter_close(it);
	return rc ? rc : (*n ? 0 : -ENOENT);
}

static int fill(const char *img, const char *path, unsigned int count)
{
	struct extkit_dirspace ds = { 0 };
	struct extkit_inode inode;
	struct extkit_fs *fs;
	uint32_t ino, t[64];
	unsigned int nt = 0, i;
	char name[32];
	int rc;

	rc = open_dir(img, path, EXTKIT_FS_WRITE, &fs, &ino);
	if (!rc)
		rc = fill_targets(fs, ino, t, 64, &nt);
	if (!rc)
		rc = extkit_dirspace_build(&ds, fs, ino, 0);
	for (i = 0; !rc && i < count; i++) {
		snprintf(name, sizeof(name), "n%06u_abcd", i + nt);
		rc = extkit_dir_add(&ds, name, (uint32_t)strlen(name),
				    t[i % nt], 1, NULL);
	}
	for (i = 0; !rc && i < nt; i++) {
		rc = extkit_inode_read(fs, t[i], &inode);
		inode.links_count += (uint16_t)(count / nt + (i < count % nt));
		if (!rc)
			rc = extkit_inode_write(fs, t[i], &inode);
	}
	if (rc)
		fprintf(stderr, "dirbench: %s\n", extkit_strerror(rc));
	extkit_dirspace_free(&ds);
	extkit_fs_close(fs);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "fill"))
		return fill(argv[2], argv[3], (unsigned int)atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "thin"))
		return thin(argv[2], argv[3], (unsigned int)atoi(argv[4]));
	if (argc >= 6 && !strcmp(argv[1], "batches"))
		return batches(argv[2], argv[3], (unsigned int)atoi(argv[4]),
			       (unsigned int)atoi(argv[5]),
			       argc > 6 && !strcmp(argv[6], "walk"));
	if (argc == 5 && !strcmp(argv[1], "scan"))
		return scan(argv[2], argv[3], (unsigned int)atoi(argv[4]));
	fprintf(stderr, "usage: dirbench batches IMAGE PATH BATCHES PER "
		"[walk]\n       dirbench scan IMAGE PATH REPS\n");
	return 2;
}
