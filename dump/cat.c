// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump cat PATH (the contents on standard output, holes as zero
 * bytes, as debugfs cat) and dump [-p] PATH FILE (into FILE, holes kept
 * as holes; -p also sets its owner, mode and times, as debugfs dump -p).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "inode.h"
#include "cli/msg.h"

#include "extract.h"

/* Resolves a path to a regular file (or anything with data). */
static int open_file(struct dump_ctx *ctx, const char *path, uint32_t *ino,
		     struct extkit_inode *in)
{
	int rc = dump_resolve(ctx, path, ino);

	if (rc)
		return rc;
	rc = extkit_inode_read(ctx->fs, *ino, in);
	if (rc) {
		cli_error_rc(path, rc);
		return rc;
	}
	if (S_ISDIR(in->mode)) {
		cli_error("%s: is a directory", path);
		return -EISDIR;
	}
	return 0;
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

struct stream {
	uint64_t pos;
	uint8_t zeros[65536];
};

static int zeros_to(struct stream *s, uint64_t off)
{
	int rc;

	while (s->pos < off) {
		size_t n = off - s->pos < sizeof(s->zeros) ?
			   (size_t)(off - s->pos) : sizeof(s->zeros);

		rc = write_all(STDOUT_FILENO, s->zeros, n);
		if (rc)
			return rc;
		s->pos += n;
	}
	return 0;
}

static int to_stdout(void *arg, uint64_t off, const uint8_t *buf, size_t len)
{
	struct stream *s = arg;
	int rc = zeros_to(s, off);

	if (!rc)
		rc = write_all(STDOUT_FILENO, buf, len);
	s->pos = off + len;
	return rc;
}

int dump_cat(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct extkit_inode in;
	struct stream *s;
	uint32_t ino;
	int rc;

	rc = open_file(ctx, path, &ino, &in);
	if (rc)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	fflush(stdout);
	rc = dump_data_walk(ctx->fs, ino, &in, to_stdout, s);
	if (!rc)
		rc = zeros_to(s, in.size);
	free(s);
	if (rc)
		cli_error_rc(path, rc);
	return rc;
}

/* -p: owner (when permitted), mode, then times; one line if refused. */
static void preserve(int fd, const char *file, const struct extkit_inode *in,
		     const uint8_t *raw, uint32_t raw_size)
{
	struct extkit_inode_time t;
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	int refused = 0;

	if (fchown(fd, in->uid, in->gid))
		refused = 1;
	if (fchmod(fd, in->mode & 07777))
		refused = 1;
	if (!extkit_inode_time_get(raw, raw_size, EXTKIT_TIME_ATIME, &t)) {
		ts[0].tv_sec = (time_t)t.sec;
		ts[0].tv_nsec = t.has_extra && t.nsec < 1000000000u ? t.nsec :
				0;
	}
	if (!extkit_inode_time_get(raw, raw_size, EXTKIT_TIME_MTIME, &t)) {
		ts[1].tv_sec = (time_t)t.sec;
		ts[1].tv_nsec = t.has_extra && t.nsec < 1000000000u ? t.nsec :
				0;
	}
	if (futimens(fd, ts))
		refused = 1;
	if (refused)
		fprintf(stderr, "%s: warning: %s: owner, mode or times not "
			"applied (not permitted)\n", cli_prog, file);
}

int dump_dump(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0], *file = ctx->o->args[1];
	uint32_t size = ctx->fs->g.inode_size;
	struct extkit_inode in;
	uint8_t *raw = NULL;
	uint32_t ino;
	int rc, fd;

	rc = open_file(ctx, path, &ino, &in);
	if (rc)
		return rc;
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		rc = -errno;
		cli_error("%s: %s", file, strerror(errno));
		return rc;
	}
	rc = dump_data_to_fd(ctx->fs, ino, &in, fd);
	if (rc)
		cli_error_rc(path, rc);
	if (!rc && ctx->o->preserve) {
		raw = malloc(size);
		if (raw && !extkit_inode_read_raw(ctx->fs, ino, raw))
			preserve(fd, file, &in, raw, size);
		free(raw);
	}
	if (close(fd) && !rc) {
		rc = -errno;
		cli_error("%s: %s", file, strerror(errno));
	}
	return rc;
}
