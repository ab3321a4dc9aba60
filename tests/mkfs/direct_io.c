// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The direct I/O of lib/io_unix.c (EXTKIT_IO_DIRECT, extkit-mkfs -D),
 * for tests/mkfs/direct.sh: an image file of SIZE bytes (best no
 * multiple of 4096) opened direct, its descriptor checked for O_DIRECT
 * (/proc/self/fdinfo), then writes, reads and zeroings at every kind of
 * offset and length (aligned, unaligned at either end, within one unit,
 * across the 1 MiB bounce buffer, touching the file's last byte, from
 * unaligned buffers), each mirrored in memory; every read must give the
 * mirror's bytes, and at the end the file, read without the io, must be
 * the mirror, its size unchanged.
 * usage: direct_io FILE SIZE [OPS]   exit 0 pass, 1 fail, 77 O_DIRECT
 * refused by the filesystem holding FILE.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "io.h"

#define MAXLEN	(3u << 20)	/* longer than the bounce buffer */

struct run {
	struct extkit_io *io;
	uint8_t *mirror, *buf, *rbuf;
	uint64_t size;
	unsigned int seed;
	unsigned long writes, reads, zeroes;
};

/* Whether a descriptor of this process on file st has O_DIRECT. */
static int fd_is_direct(const struct stat *st)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[PATH_MAX], line[256];
		struct stat fst;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		if (e->d_name[0] == '.' || stat(path, &fst) ||
		    fst.st_ino != st->st_ino || fst.st_dev != st->st_dev)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s",
			 e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags:", 6) &&
			    (strtoul(line + 6, NULL, 8) & O_DIRECT))
				found = 1;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

static int op(struct run *r, int kind, uint64_t off, size_t len, size_t skew)
{
	int rc;

	if (kind == 0) {
		for (size_t i = 0; i < len; i++)
			r->buf[skew + i] = (uint8_t)rand_r(&r->seed);
		rc = extkit_io_write_bytes(r->io, off, r->buf + skew, len);
		memcpy(r->mirror + off, r->buf + skew, len);
		r->writes++;
	} else if (kind == 1) {
		rc = extkit_io_read_bytes(r->io, off, r->rbuf + skew, len);
		if (!rc && memcmp(r->rbuf + skew, r->mirror + off, len)) {
			fprintf(stderr, "read %zu bytes at %llu: not what was "
				"written\n", len, (unsigned long long)off);
			return -1;
		}
		r->reads++;
	} else {
		rc = extkit_io_zero_bytes(r->io, off, len);
		memset(r->mirror + off, 0, len);
		r->zeroes++;
	}
	if (rc)
		fprintf(stderr, "%s %zu bytes at %llu: %s\n",
			kind == 0 ? "write" : kind == 1 ? "read" : "zero", len,
			(unsigned long long)off, extkit_strerror(rc));
	return rc;
}

/* The shapes that matter, each written then read back. */
static int edges(struct run *r)
{
	uint64_t s = r->size;
	const uint64_t offs[] = { 0, 1, 1024, 4095, 4096, 4097, 12288 - 7,
				  s - 1, s - 100, s - 5000, s / 2 + 3 };
	const size_t lens[] = { 1, 100, 3000, 4096, 4097, 8192, 70000,
				(1u << 20) + 5000 };
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(offs) / sizeof(offs[0]); i++)
		for (size_t j = 0; !rc && j < sizeof(lens) / sizeof(lens[0]);
		     j++) {
			uint64_t off = offs[i];
			size_t len = lens[j];

			if (off >= s)
				continue;
			if (len > s - off)
				len = (size_t)(s - off);
			rc = op(r, 0, off, len, j % 3);
			if (!rc)
				rc = op(r, 1, off, len, i % 5);
		}
	return rc;
}

static int random_ops(struct run *r, unsigned long n)
{
	int rc = 0;

	for (unsigned long i = 0; !rc && i < n; i++) {
		uint64_t off = (uint64_t)rand_r(&r->seed) % r->size;
		size_t len = (size_t)rand_r(&r->seed) %
			     (i % 16 ? 10000 : MAXLEN);

		if (len > r->size - off)
			len = (size_t)(r->size - off);
		rc = op(r, (int)(i % 3), off, len, i % 7);
	}
	return rc;
}

/* The file read without the io: the mirror, its size unchanged. */
static int compare_file(const char *path, const struct run *r)
{
	int fd = open(path, O_RDONLY);
	uint8_t *all = malloc(r->size);
	struct stat st;
	ssize_t n;
	int bad;

	if (fd < 0 || !all || fstat(fd, &st)) {
		perror(path);
		free(all);
		return -1;
	}
	n = pread(fd, all, r->size, 0);
	bad = (uint64_t)st.st_size != r->size || n != (ssize_t)r->size ||
	      memcmp(all, r->mirror, r->size);
	if (bad)
		fprintf(stderr, "%s: size %lld, read %zd: not its mirror\n",
			path, (long long)st.st_size, n);
	close(fd);
	free(all);
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct run r = { .seed = 1 };
	unsigned long n = argc > 3 ? strtoul(argv[3], NULL, 10) : 2000;
	struct stat st;
	int fd, rc;

	if (argc < 3) {
		fprintf(stderr, "usage: direct_io FILE SIZE [OPS]\n");
		return 1;
	}
	r.size = strtoull(argv[2], NULL, 10);
	r.mirror = calloc(1, r.size);
	r.buf = malloc(MAXLEN + 8);
	r.rbuf = malloc(MAXLEN + 8);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (r.size < 16384 || !r.mirror || !r.buf || !r.rbuf || fd < 0 ||
	    ftruncate(fd, (off_t)r.size) || close(fd)) {
		perror(argv[1]);
		return 1;
	}
	rc = extkit_io_open_unix(argv[1], EXTKIT_IO_WRITE | EXTKIT_IO_DIRECT,
				 &r.io);
	if (rc == -EINVAL) {
		printf("O_DIRECT refused where %s is\n", argv[1]);
		return 77;
	}
	if (rc || stat(argv[1], &st)) {
		fprintf(stderr, "%s: %s\n", argv[1], extkit_strerror(rc));
		return 1;
	}
	if (!fd_is_direct(&st)) {
		fprintf(stderr, "%s: the io's descriptor has no O_DIRECT\n",
			argv[1]);
		return 1;
	}
	rc = edges(&r);
	if (!rc)
		rc = random_ops(&r, n);
	if (!rc)
		rc = extkit_io_flush(r.io);
	extkit_io_close(r.io);
	if (!rc)
		rc = compare_file(argv[1], &r);
	if (!rc)
		printf("%lu writes, %lu reads, %lu zeroings through O_DIRECT: "
		       "the file is its mirror, %llu bytes\n", r.writes,
		       r.reads, r.zeroes, (unsigned long long)r.size);
	free(r.mirror);
	free(r.buf);
	free(r.rbuf);
	return rc ? 1 : 0;
}
