// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extract's directory sink: everything is created relative to the
 * descriptor of its parent directory (openat, mkdirat, symlinkat,
 * mknodat, linkat), never through a joined path, never over an existing
 * name (O_EXCL, EEXIST is reported), and never through a symlink
 * (O_NOFOLLOW, directories opened O_DIRECTORY | O_NOFOLLOW). Contents
 * first, then owner, extended attributes, mode (so chown cannot clear a
 * setuid bit) and times; a directory's after its children. What the
 * caller is not permitted to apply (owners, trusted. and security.
 * attributes, devices as non-root) is counted for one summary line.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "error.h"
#include "symlink.h"
#include "xattrlist.h"
#include "cli/msg.h"

#include "extract.h"
#include "xwalk.h"

struct disk_sink {
	int destfd;
	uid_t euid;
	gid_t egid;
	uint8_t *xbuf;		/* XATTR_BUF_SIZE: one converted value */
	char *target;		/* a symlink's target */
};

#define TARGET_CAP	(65536 + 1)

static int hfd(void *h)
{
	return (int)(intptr_t)h - 1;
}

static void *fdh(int fd)
{
	return (void *)(intptr_t)(fd + 1);
}

static struct disk_sink *ds(struct xwalk *w)
{
	return w->sink;
}

/* Whether err means "not permitted to this caller" (summarized). */
static int not_permitted(int err)
{
	return err == EPERM || err == EACCES || err == ENOTSUP ||
	       err == EOPNOTSUPP;
}

/* ---- metadata ---- */

struct xset {
	struct xwalk *w;
	const struct xent *e;
	int fd;			/* the file, or -1: by name under dirfd */
	int dirfd;
	const char *name;
};

static int set_one(const struct extkit_xattr_value *v, void *arg)
{
	struct xset *x = arg;
	struct disk_sink *d = ds(x->w);
	char name[256], proc[64 + 256];
	size_t len;
	int rc;

	rc = xattr_for_syscall(v, name, d->xbuf, &len);
	if (rc == 1)
		return 0;
	if (rc == -ENOTSUP) {
		x->w->st.other_xattrs++;
		return 0;
	}
	if (rc) {
		xwalk_damaged(x->w, x->e->path, name, rc);
		return 0;
	}
	if (x->fd >= 0) {
		rc = fsetxattr(x->fd, name, d->xbuf, len, 0);
	} else {
		/* the entry under its directory's descriptor, not followed */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", x->dirfd,
			 x->name);
		rc = lsetxattr(proc, name, d->xbuf, len, 0);
	}
	/* one the destination cannot hold (ENOSPC: a value over a block
	 * without ea_inode; E2BIG) leaves the extraction partial */
	if (rc && not_permitted(errno))
		x->w->st.xattrs++;
	else if (rc)
		xwalk_damaged(x->w, x->e->path, name, -errno);
	return 0;
}

static void set_xattrs(struct xwalk *w, const struct xent *e, int fd,
		       int dirfd, const char *name)
{
	struct xset x = { w, e, fd, dirfd, name };
	int rc = extkit_xattr_list(w->fs, e->raw, e->in, set_one, &x);

	if (rc)
		xwalk_damaged(w, e->path, "extended attributes", rc);
}

/* Owner, attributes, mode, times of an open file or directory. */
static void meta_fd(struct xwalk *w, int fd, const struct xent *e)
{
	struct disk_sink *d = ds(w);
	struct timespec ts[2] = { e->atime, e->mtime };

	if ((e->in->uid != d->euid || e->in->gid != d->egid) &&
	    fchown(fd, e->in->uid, e->in->gid))
		w->st.owners++;
	set_xattrs(w, e, fd, -1, NULL);
	if (fchmod(fd, e->in->mode & 07777))
		w->st.modes++;
	if (futimens(fd, ts))
		w->st.times++;
}

/* The same for a symlink, a device or a FIFO, by name under dirfd. */
static void meta_at(struct xwalk *w, int dirfd, const struct xent *e)
{
	struct disk_sink *d = ds(w);
	struct timespec ts[2] = { e->atime, e->mtime };

	if ((e->in->uid != d->euid || e->in->gid != d->egid) &&
	    fchownat(dirfd, e->name, e->in->uid, e->in->gid,
		     AT_SYMLINK_NOFOLLOW))
		w->st.owners++;
	set_xattrs(w, e, -1, dirfd, e->name);
	if (!S_ISLNK(e->in->mode) &&
	    fchmodat(dirfd, e->name, e->in->mode & 07777, 0))
		w->st.modes++;
	if (utimensat(dirfd, e->name, ts, AT_SYMLINK_NOFOLLOW))
		w->st.times++;
}

/* ---- entries ---- */

static int created(struct xwalk *w, const struct xent *e, int rc)
{
	if (!rc)
		return 0;
	if (errno == EEXIST) {
		w->st.exists++;
		xwalk_report(w, e->path, "already exists in the "
			     "destination, skipped");
	} else {
		xwalk_damaged(w, e->path, "cannot create", -errno);
	}
	return -1;
}

static int disk_dir_begin(struct xwalk *w, void *parent, const struct xent *e,
			  void **dh)
{
	int pfd = parent ? hfd(parent) : ds(w)->destfd, fd;

	if (!e->name) {
		fd = dup(pfd);
	} else {
		if (created(w, e, mkdirat(pfd, e->name, 0700)))
			return -1;
		fd = openat(pfd, e->name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		xwalk_damaged(w, e->path, "cannot open", -errno);
		return -1;
	}
	*dh = fdh(fd);
	return 0;
}

static void disk_dir_end(struct xwalk *w, void *dh, const struct xent *e)
{
	int fd = hfd(dh);

	meta_fd(w, fd, e);
	close(fd);
}

static int put_file(struct xwalk *w, int pfd, const struct xent *e)
{
	int fd = openat(pfd, e->name, O_WRONLY | O_CREAT | O_EXCL |
			O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc;

	if (created(w, e, fd < 0))
		return -1;
	rc = dump_data_to_fd(w->fs, e->ino, e->in, fd);
	if (rc)
		xwalk_damaged(w, e->path, "data", rc);
	meta_fd(w, fd, e);
	if (close(fd) && !rc)
		xwalk_damaged(w, e->path, "data", -errno);
	w->st.files++;
	w->st.bytes += e->in->size;
	return 0;
}

static int put_symlink(struct xwalk *w, int pfd, const struct xent *e)
{
	size_t len;
	int rc;

	rc = extkit_symlink_read(w->fs, e->ino, e->in, ds(w)->target,
				 TARGET_CAP, &len);
	if (rc) {
		xwalk_damaged(w, e->path, "symlink target", rc);
		return -1;
	}
	if (created(w, e, symlinkat(ds(w)->target, pfd, e->name)))
		return -1;
	meta_at(w, pfd, e);
	w->st.symlinks++;
	return 0;
}

static int put_node(struct xwalk *w, int pfd, const struct xent *e)
{
	uint32_t major = 0, minor = 0;
	mode_t type = e->in->mode & S_IFMT;

	if (S_ISCHR(e->in->mode) || S_ISBLK(e->in->mode))
		extkit_inode_rdev(e->in, &major, &minor);
	if (mknodat(pfd, e->name, type | 0600, makedev(major, minor))) {
		if (errno == EPERM && type != S_IFIFO) {
			w->st.devices++;
			return -1;
		}
		return created(w, e, -1);
	}
	meta_at(w, pfd, e);
	w->st.specials++;
	return 0;
}

static int disk_leaf(struct xwalk *w, void *parent, const struct xent *e)
{
	int pfd = parent ? hfd(parent) : ds(w)->destfd;

	if (S_ISREG(e->in->mode))
		return put_file(w, pfd, e);
	if (S_ISLNK(e->in->mode))
		return put_symlink(w, pfd, e);
	return put_node(w, pfd, e);
}

/*
 * Opens the directory holding path (from the destination), one component
 * at a time, never following a symlink; *last gets the last component.
 */
static int open_parent(int destfd, const char *path, const char **last)
{
	const char *p = path, *slash;
	char comp[256];
	int fd = dup(destfd), next;

	while (fd >= 0 && (slash = strchr(p, '/')) != NULL) {
		size_t n = (size_t)(slash - p);

		if (n >= sizeof(comp)) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		close(fd);
		fd = next;
		p = slash + 1;
	}
	*last = p;
	return fd;
}

static int disk_hardlink(struct xwalk *w, void *parent, const struct xent *e,
			 const char *first)
{
	int pfd = parent ? hfd(parent) : ds(w)->destfd;
	const char *last;
	int ffd = open_parent(ds(w)->destfd, first, &last), rc;

	if (ffd < 0) {
		xwalk_damaged(w, e->path, "hard link", -errno);
		return -1;
	}
	rc = linkat(ffd, last, pfd, e->name, 0);
	close(ffd);
	return created(w, e, rc);
}

static const struct xsink_ops disk_ops = {
	.dir_begin = disk_dir_begin,
	.dir_end = disk_dir_end,
	.leaf = disk_leaf,
	.hardlink = disk_hardlink,
};

/* One descriptor per directory level: allow as many as may be. */
static void raise_fd_limit(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

int xsink_disk_open(struct xwalk *w, const char *dest)
{
	struct disk_sink *d = calloc(1, sizeof(*d));
	int fd;

	if (!d || !(d->xbuf = malloc(XATTR_BUF_SIZE)) ||
	    !(d->target = malloc(TARGET_CAP))) {
		if (d)
			free(d->xbuf);
		free(d);
		cli_error("%s", extkit_strerror(-ENOMEM));
		return -ENOMEM;
	}
	if (mkdir(dest, 0700) && errno != EEXIST) {
		cli_error("%s: %s", dest, strerror(errno));
		goto fail;
	}
	fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		cli_error("%s: %s", dest, strerror(errno));
		goto fail;
	}
	raise_fd_limit();
	d->destfd = fd;
	d->euid = geteuid();
	d->egid = getegid();
	w->ops = &disk_ops;
	w->sink = d;
	return 0;
fail:
	free(d->xbuf);
	free(d->target);
	free(d);
	return -errno;
}

void xsink_disk_close(struct xwalk *w)
{
	struct disk_sink *d = w->sink;

	close(d->destfd);
	free(d->xbuf);
	free(d->target);
	free(d);
}
