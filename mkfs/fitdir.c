// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fit's measure of a directory (fit.h): the tree walked once, each
 * entry's status, data segments (SEEK_DATA / SEEK_HOLE, so holes take
 * nothing), attribute names and sizes; files with several links counted
 * once unless -E hard_dereference.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cli/msg.h"
#include "xattrbuild.h"

#include "fit.h"

#define FIT_MAX_ATTRS	256

/*
 * Bytes [from, to) of the file read (a segment, its ends on FIT_ALIGN,
 * so every block of every size is read whole in one window), as the copy
 * reads them: a block of zeros stays a hole. Unreadable: all data.
 */
static void add_segment(struct fit_need *nd, struct fit_file *f, int fd,
			uint64_t from, uint64_t to)
{
	while (from < to) {
		size_t want = to - from < POP_BUF ? to - from : POP_BUF;
		ssize_t n = fd < 0 ? -1 : pread(fd, nd->buf, want, (off_t)from);

		if (n <= 0) {
			fit_file_bytes(f, from, to);
			return;
		}
		memset(nd->nz, 0, sizeof(nd->nz));
		fit_scan(nd->nz, from / FIT_CHUNK, from, nd->buf, (size_t)n);
		fit_file_window(f, from, from + (uint64_t)n, nd->nz);
		from += (uint64_t)n;
	}
}

static void add_file(struct fit_need *nd, int fd, const struct stat *st)
{
	uint64_t size = (uint64_t)st->st_size, end;
	int sparse = fd >= 0 && (uint64_t)st->st_blocks * 512 < size;
	off_t data = 0, hole = (off_t)size;
	struct fit_file f;

	fit_file_begin(&f);
	for (;;) {
		if (sparse) {
			data = lseek(fd, data, SEEK_DATA);
			if (data < 0)
				break;
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0)
				hole = (off_t)size;
		}
		data -= data % FIT_ALIGN;
		end = ((uint64_t)hole + FIT_ALIGN - 1) / FIT_ALIGN * FIT_ALIGN;
		end = end < size ? end : size;
		add_segment(nd, &f, fd, (uint64_t)data, end);
		if (!sparse || end >= size)
			break;
		data = (off_t)end;
	}
	fit_file_end(nd, &f, size);
}

/* The attributes of name (in the current directory) as stored, with
 * the label --file-contexts gives. */
static int add_xattrs(struct fit_need *nd, const char *name, uint32_t mode)
{
	char list[65536], *ctx;
	struct fit_attr a[FIT_MAX_ATTRS + 1];
	ssize_t n = llistxattr(name, list, sizeof(list));
	size_t k = 0;
	int rc;

	for (ssize_t off = 0; n > 0 && off < n && k < FIT_MAX_ATTRS;) {
		const char *x = list + off, *suffix;
		ssize_t v = lgetxattr(name, x, NULL, 0);
		uint8_t index;

		off += (ssize_t)strlen(x) + 1;
		if (v < 0 || extkit_xattr_name_split(x, &index, &suffix))
			continue;	/* left out by the copy as well */
		a[k].index = index;
		a[k].name = suffix;
		a[k].name_len = (uint8_t)strlen(suffix);
		a[k].size = (uint32_t)v;	/* an ACL shrinks */
		k++;
	}
	rc = fit_label(nd, mode, a, &k, &ctx);
	if (!rc)
		fit_add_attrs(nd, a, k);
	fit_label_free(nd, ctx);
	return rc;
}

/* The path in the image, for labels: name added (one_at cuts it back). */
static int path_push(struct fit_need *nd, const char *name)
{
	size_t len = strlen(name);

	if (nd->plen + len + 2 > sizeof(nd->path))
		return -ENAMETOOLONG;
	nd->path[nd->plen++] = '/';
	memcpy(nd->path + nd->plen, name, len + 1);
	nd->plen += len;
	return 0;
}

static int walk(struct fit_need *nd, int dfd, int root);

static int one(struct fit_need *nd, int dfd, const char *name,
	       uint64_t *dirbytes)
{
	struct stat st;
	uint32_t have;
	int fd, rc = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	*dirbytes += fit_name_bytes(strlen(name));
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1 && !nd->deref) {
		if (pop_map_get(&nd->seen, st.st_dev, st.st_ino, &have))
			return 0;
		rc = pop_map_put(&nd->seen, st.st_dev, st.st_ino, 1);
		if (rc)
			return rc;
	}
	nd->inodes++;
	rc = path_push(nd, name);
	if (!rc)
		rc = add_xattrs(nd, name, st.st_mode);
	if (rc)
		return rc;
	if (S_ISREG(st.st_mode) && st.st_size < FIT_CHUNK) {
		/* no whole block to be a hole: not read */
		struct fit_file f;

		fit_file_begin(&f);
		fit_file_bytes(&f, 0, (uint64_t)st.st_size);
		fit_file_end(nd, &f, (uint64_t)st.st_size);
	} else if (S_ISREG(st.st_mode)) {
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOATIME);
		if (fd < 0)
			fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
		add_file(nd, fd, &st);
		if (fd >= 0)
			close(fd);
	} else if (S_ISLNK(st.st_mode)) {
		fit_add_symlink(nd, (uint64_t)st.st_size);
	} else if (S_ISDIR(st.st_mode)) {
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_NOATIME);
		if (fd < 0)
			fd = openat(dfd, name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			return -errno;
		rc = walk(nd, fd, 0);
		close(fd);
		if (!rc && fchdir(dfd))	/* back, for the names */
			rc = -errno;
	}
	return rc;
}

static int one_at(struct fit_need *nd, int dfd, const char *name,
		  uint64_t *dirbytes)
{
	size_t plen = nd->plen;
	int rc = one(nd, dfd, name, dirbytes);

	nd->plen = plen;
	nd->path[plen] = 0;
	return rc;
}

/* The entries of directory dfd (closed by the caller), recursively. */
static int walk(struct fit_need *nd, int dfd, int root)
{
	uint64_t bytes = 24;	/* '.' and '..' */
	int fd = dup(dfd), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	if (fchdir(dfd)) {	/* attributes are read by name, from here */
		rc = -errno;
		close(fd);
		return rc;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (!rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		rc = one_at(nd, dfd, de->d_name, &bytes);
	}
	closedir(d);
	if (!rc)	/* lost+found, in the root (counted twice if there) */
		fit_add_dir(nd, bytes + (root ? fit_name_bytes(10) : 0));
	return rc;
}

int fit_measure_dir(const struct mkfs_opts *o, struct fit_need *nd)
{
	int dfd, cwd, rc;

	nd->buf = malloc(POP_BUF);
	if (!nd->buf)
		return -ENOMEM;
	cwd = open(".", O_PATH | O_DIRECTORY);
	dfd = open(o->source, O_RDONLY | O_DIRECTORY | O_NOATIME);
	if (dfd < 0)
		dfd = open(o->source, O_RDONLY | O_DIRECTORY);
	if (cwd < 0 || dfd < 0) {
		rc = -errno;
		cli_error("-d %s: %s", o->source, strerror(errno));
		goto out;
	}
	if (fchdir(dfd)) {
		rc = -errno;
		cli_error("-d %s: %s", o->source, strerror(errno));
		goto out;
	}
	rc = add_xattrs(nd, ".", S_IFDIR);	/* the root's own */
	if (!rc)
		rc = walk(nd, dfd, 1);
	if (fchdir(cwd) && !rc)
		rc = -errno;
	if (rc)
		cli_error("-d %s: measuring the tree: %s", o->source,
			  strerror(-rc));
out:
	if (dfd >= 0)
		close(dfd);
	if (cwd >= 0)
		close(cwd);
	free(nd->buf);
	nd->buf = NULL;
	return rc;
}
