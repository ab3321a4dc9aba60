// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfull ROOT COUNT: fill the directory ROOT (a freshly mounted filesystem,
 * or a directory later given to mke2fs -d) with about COUNT inodes, the
 * shape a full filesystem has:
 *   big/          one directory of min(200000, COUNT / 4) entries
 *   deep/cNN/...  100 chains of directories 25 levels deep, 4 files a level
 *   d/PPP/DDD/    directories of 200 files each for the rest
 * One file in four holds a few bytes, one in 64 three blocks (12 KiB), the
 * rest are empty. Names and contents depend on COUNT only. Used by
 * bench/fsck.sh; not part of make check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char block[12288];

static void die(const char *what, const char *path)
{
	fprintf(stderr, "mkfull: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void mkdir_or_die(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir", path);
}

/* File number n: its content follows from n alone. */
static void make_file(const char *path, unsigned long n)
{
	size_t len = 0;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create", path);
	if (n % 64 == 0)
		len = sizeof(block);
	else if (n % 4 == 0)
		len = 16 + n % 100;
	if (len && write(fd, block, len) != (ssize_t)len)
		die("write", path);
	if (close(fd))
		die("close", path);
}

int main(int argc, char **argv)
{
	unsigned long count, big, made = 0, n = 0, i, j, k;
	char path[4096];

	if (argc != 3 || (count = strtoul(argv[2], NULL, 10)) < 1000) {
		fprintf(stderr, "usage: mkfull ROOT COUNT (COUNT >= 1000)\n");
		return 2;
	}
	memset(block, 'x', sizeof(block));
	big = count / 4 < 200000 ? count / 4 : 200000;
	snprintf(path, sizeof(path), "%s/big", argv[1]);
	mkdir_or_die(path);
	for (i = 0; i < big; i++, made++) {
		snprintf(path, sizeof(path), "%s/big/entry-%08lu", argv[1], i);
		make_file(path, n++);
	}
	snprintf(path, sizeof(path), "%s/deep", argv[1]);
	mkdir_or_die(path);
	for (i = 0; i < 100; i++) {
		int len = snprintf(path, sizeof(path), "%s/deep/c%02lu",
				   argv[1], i);

		for (j = 0; j < 25; j++, made += 5) {
			mkdir_or_die(path);
			for (k = 0; k < 4; k++) {
				snprintf(path + len, sizeof(path) - len,
					 "/f%lu", k);
				make_file(path, n++);
			}
			len += snprintf(path + len, sizeof(path) - len,
					"/l%02lu", j);
		}
	}
	snprintf(path, sizeof(path), "%s/d", argv[1]);
	mkdir_or_die(path);
	for (i = 0; made < count; i++) {
		snprintf(path, sizeof(path), "%s/d/%03lu", argv[1], i / 100);
		mkdir_or_die(path);
		snprintf(path, sizeof(path), "%s/d/%03lu/%03lu", argv[1],
			 i / 100, i % 100);
		mkdir_or_die(path);
		made++;
		for (j = 0; j < 200 && made < count; j++, made++) {
			snprintf(path, sizeof(path), "%s/d/%03lu/%03lu/f%03lu",
				 argv[1], i / 100, i % 100, j);
			make_file(path, n++);
		}
	}
	return 0;
}
