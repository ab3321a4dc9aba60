// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -l FILE: a list of bad blocks (one decimal block number a line, as
 * badblocks(8) writes it), read as mke2fs reads it: a line without a
 * number is passed over, a number outside the filesystem is ignored with
 * a warning, one past 32 bits is an error. A bad block in the primary
 * superblock or descriptors (the first data block through the last
 * descriptor block and one more) stops the run, as mke2fs. place.c
 * keeps the tables and everything else off the others, and inode 1 maps
 * them (write.c): twelve direct blocks, then one indirect block.
 * -c runs badblocks(8) over the target first, as mke2fs -c, and adds
 * what it lists.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/msg.h"
#include "group.h"
#include "super.h"

#include "mkfs.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int push(struct mkfs_layout *l, uint64_t blk, size_t *cap)
{
	if (l->nbad == *cap) {
		size_t n = *cap ? 2 * *cap : 64;
		uint64_t *p = realloc(l->bad, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->bad = p;
		*cap = n;
	}
	l->bad[l->nbad++] = blk;
	return 0;
}

static int read_list(FILE *f, const char *path, struct mkfs_layout *l)
{
	char line[128];
	size_t cap = 0;
	int rc = 0;

	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "%llu", &v) != 1)
			continue;
		if (v >> 32) {
			cli_error("%s: bad block %llu does not fit in 32 bits",
				  path, v);
			return -EOVERFLOW;
		}
		if (v < l->first_data_block || v >= l->blocks) {
			fprintf(stderr, "Bad block %llu out of range; ignored.\n",
				v);
			continue;
		}
		rc = push(l, v, &cap);
	}
	if (!rc && ferror(f)) {
		cli_error("%s: reading: %s", path, strerror(errno));
		rc = -EIO;
	}
	return rc;
}

/* -c: the target must be there, as large as the filesystem. */
static int check_target(const struct mkfs_opts *o,
			const struct mkfs_layout *l)
{
	uint64_t need = l->blocks * l->block_size;
	struct stat st;

	if (stat(o->target, &st) < 0) {
		cli_error("-c: %s: %s (badblocks reads the target: make it first)",
			  o->target, strerror(errno));
		return -errno;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < need) {
		cli_error("-c: %s has %llu bytes, %llu needed (badblocks reads the target: make it that large first)",
			  o->target, (unsigned long long)st.st_size,
			  (unsigned long long)need);
		return -ENOSPC;
	}
	return 0;
}

/*
 * -c: badblocks -b BLOCKSIZE -X [-s] [-w] TARGET LAST, as mke2fs runs it
 * (-s unless -q, -w for -cc), its output read as a list. Run without a
 * shell; an exit other than 0 stops the run (mke2fs goes on).
 */
static int run_badblocks(const struct mkfs_opts *o, struct mkfs_layout *l)
{
	char bs[16], last[24];
	const char *argv[9];
	int fd[2], n = 0, status, rc;
	FILE *f;
	pid_t pid;

	snprintf(bs, sizeof(bs), "%u", l->block_size);
	snprintf(last, sizeof(last), "%llu", (unsigned long long)l->blocks - 1);
	argv[n++] = "badblocks";
	argv[n++] = "-b";
	argv[n++] = bs;
	argv[n++] = "-X";
	if (!o->quiet)
		argv[n++] = "-s";
	if (o->check > 1)
		argv[n++] = "-w";
	argv[n++] = o->target;
	argv[n++] = last;
	argv[n] = NULL;
	if (o->verbose)
		printf("Running command: badblocks -b %s -X %s%s%s %s\n", bs,
		       o->quiet ? "" : "-s ", o->check > 1 ? "-w " : "",
		       o->target, last);
	fflush(stdout);
	if (pipe(fd) < 0) {
		cli_error("-c: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		cli_error("-c: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return rc;
	}
	if (!pid) {
		close(fd[0]);
		if (dup2(fd[1], STDOUT_FILENO) < 0)
			_exit(127);
		execvp("badblocks", (char *const *)argv);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	rc = f ? read_list(f, "badblocks", l) : -errno;
	if (f)
		fclose(f);
	else
		close(fd[0]);
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		cli_error("-c: badblocks failed (%s %d); nothing was written",
			  WIFEXITED(status) ? "exit" : "signal",
			  WIFEXITED(status) ? WEXITSTATUS(status) :
			  WTERMSIG(status));
		rc = -EIO;
	}
	return rc;
}

/* Sorted, each once. */
static void sort_unique(struct mkfs_layout *l)
{
	uint32_t k = 0;

	if (!l->nbad)
		return;
	qsort(l->bad, l->nbad, sizeof(*l->bad), cmp_u64);
	for (uint32_t i = 0; i < l->nbad; i++)
		if (!k || l->bad[k - 1] != l->bad[i])
			l->bad[k++] = l->bad[i];
	l->nbad = k;
}

/* mke2fs: the primary superblock and descriptors must be good. */
static int check_primary(const struct mkfs_layout *l)
{
	uint64_t last = l->first_data_block + 1 + l->desc_blocks;

	for (uint32_t i = 0; i < l->nbad && l->bad[i] <= last; i++) {
		fprintf(stderr, "Block %llu in primary superblock/group descriptor area bad.\n",
			(unsigned long long)l->bad[i]);
		cli_error("blocks %u through %llu must be good to build a filesystem",
			  l->first_data_block, (unsigned long long)last);
		return -EINVAL;
	}
	return 0;
}

int mkfs_badblocks_read(const struct mkfs_opts *o, struct mkfs_layout *l)
{
	uint64_t max = EXT2_NDIR_BLOCKS + l->block_size / 4;
	FILE *f;
	int rc;

	if (!o->badblocks_file && !o->check)
		return 0;
	if (l->cluster_bits) {
		cli_error("-%c with bigalloc: extkit-mkfs does not place bad blocks in clusters; use mke2fs",
			  o->badblocks_file ? 'l' : 'c');
		return -EINVAL;
	}
	rc = o->check && !o->dry_run ? check_target(o, l) : 0;
	if (!rc && o->badblocks_file) {
		f = fopen(o->badblocks_file, "r");
		if (!f) {
			cli_error("%s: %s", o->badblocks_file, strerror(errno));
			return -errno;
		}
		rc = read_list(f, o->badblocks_file, l);
		fclose(f);
	}
	if (!rc && o->check && !o->dry_run)
		rc = run_badblocks(o, l);
	if (rc == -ENOMEM)
		cli_error("out of memory");
	if (!rc) {
		sort_unique(l);
		if (l->nbad > max) {
			cli_error("%s: %u bad blocks; extkit-mkfs maps at most %llu (one indirect block)",
				  o->badblocks_file ? o->badblocks_file :
				  "badblocks", l->nbad,
				  (unsigned long long)max);
			rc = -EFBIG;
		}
	}
	if (!rc)
		rc = check_primary(l);
	if (rc) {
		free(l->bad);
		l->bad = NULL;
		l->nbad = 0;
	}
	return rc;
}

int mkfs_badblocks_in_group(const struct mkfs_layout *l,
			    const struct extkit_fs *fs, uint32_t g)
{
	uint64_t first = extkit_group_first_block(&fs->sb, g);
	uint64_t end = first + extkit_group_block_count(&fs->sb, g);

	for (uint32_t i = 0; i < l->nbad; i++)
		if (l->bad[i] >= first && l->bad[i] < end)
			return 1;
	return 0;
}

static int is_bad(const struct mkfs_layout *l, uint64_t blk)
{
	uint32_t lo = 0, hi = l->nbad;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->bad[mid] < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nbad && l->bad[lo] == blk;
}

void mkfs_badblocks_warn(const struct mkfs_layout *l,
			 const struct extkit_fs *fs)
{
	for (uint32_t g = 1; l->nbad && g < l->groups; g++) {
		uint64_t first = extkit_group_first_block(&fs->sb, g);

		if (!extkit_super_group_has_backup(&fs->sb, g))
			continue;
		for (uint32_t j = 0; j <= l->desc_blocks; j++) {
			if (is_bad(l, first + j)) {
				fprintf(stderr, "Warning: the backup superblock/group descriptors at block %llu contain\n\tbad blocks.\n\n",
					(unsigned long long)first);
				break;
			}
		}
	}
}
