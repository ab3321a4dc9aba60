// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io backend for image files and block devices: pread/pwrite that retry
 * short transfers, zeroing by the cheapest call that guarantees zeros, and
 * the mounted-filesystem check.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "error.h"
#include "io.h"

struct unix_priv {
	int fd;
};

static int fd_of(struct extkit_io *io)
{
	return ((struct unix_priv *)io->priv)->fd;
}

static int unix_read(struct extkit_io *io, uint64_t off, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd_of(io), p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EXTKIT_ETRUNC;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int unix_write(struct extkit_io *io, uint64_t off, const void *buf,
		      size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd_of(io), p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int zero_by_writing(struct extkit_io *io, uint64_t off, uint64_t len)
{
	size_t chunk = 1 << 20;
	void *zeros = calloc(1, chunk);
	int rc = 0;

	if (!zeros)
		return -ENOMEM;
	while (len && !rc) {
		size_t n = len < chunk ? (size_t)len : chunk;

		rc = unix_write(io, off, zeros, n);
		off += n;
		len -= n;
	}
	free(zeros);
	return rc;
}

static int unix_zero(struct extkit_io *io, uint64_t off, uint64_t len)
{
	int fd = fd_of(io);

	if (!len)
		return 0;
	if (io->is_blockdev) {
		uint64_t range[2] = { off, len };

		if (ioctl(fd, BLKZEROOUT, range) == 0)
			return 0;
	} else {
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)off, (off_t)len) == 0)
			return 0;
		if (fallocate(fd, FALLOC_FL_ZERO_RANGE, (off_t)off,
			      (off_t)len) == 0)
			return 0;
	}
	return zero_by_writing(io, off, len);
}

static int unix_set_size(struct extkit_io *io, uint64_t size)
{
	if (io->is_blockdev)
		return -EOPNOTSUPP;
	if (ftruncate(fd_of(io), (off_t)size) < 0)
		return -errno;
	io->size = size;
	return 0;
}

static int unix_flush(struct extkit_io *io)
{
	if (!(io->flags & EXTKIT_IO_WRITE))
		return 0;
	if (fsync(fd_of(io)) < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

static void unix_start_writeback(struct extkit_io *io, uint64_t off,
				 uint64_t len)
{
	/* an error only means the data goes out later, with the flush */
	(void)sync_file_range(fd_of(io), (off_t)off, (off_t)len,
			      SYNC_FILE_RANGE_WRITE);
}

/*
 * Opens the file behind our descriptor again through /proc/self/fd: the
 * same file even if its name has changed since, with its own open file
 * description (O_DIRECT on it does not touch ours).
 */
static int unix_direct_fd(struct extkit_io *io)
{
	char name[40];
	struct stat a, b;
	int fd;

	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd_of(io));
	fd = open(name, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &a) || fstat(fd_of(io), &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(fd);
		return -ENXIO;
	}
	return fd;
}

static void unix_close(struct extkit_io *io)
{
	close(fd_of(io));
	free(io->priv);
	free(io);
}

static const struct extkit_io_ops unix_ops = {
	.read_bytes = unix_read,
	.write_bytes = unix_write,
	.zero_bytes = unix_zero,
	.set_size = unix_set_size,
	.flush = unix_flush,
	.start_writeback = unix_start_writeback,
	.direct_fd = unix_direct_fd,
	.close = unix_close,
};

static int open_fd(const char *path, int flags, int *fd_out, struct stat *st)
{
	int oflags = (flags & EXTKIT_IO_WRITE) ? O_RDWR : O_RDONLY;
	int fd;

	/* Never open a FIFO or a tty: that can block forever. */
	if (stat(path, st) == 0 && !S_ISREG(st->st_mode) &&
	    !S_ISBLK(st->st_mode))
		return -ENOTBLK;
	oflags |= O_CLOEXEC;
	if (flags & EXTKIT_IO_CREATE)
		oflags |= O_CREAT;
	fd = open(path, oflags, 0644);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (S_ISBLK(st->st_mode) && (flags & EXTKIT_IO_EXCL)) {
		/* Reopen exclusively: the kernel refuses if mounted. */
		close(fd);
		fd = open(path, oflags | O_EXCL, 0644);
		if (fd < 0)
			return -errno;
	}
	*fd_out = fd;
	return 0;
}

int extkit_io_open_unix(const char *path, int flags, struct extkit_io **out)
{
	struct extkit_io *io = calloc(1, sizeof(*io));
	struct unix_priv *p = calloc(1, sizeof(*p));
	struct stat st;
	int rc;

	if (!io || !p) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = open_fd(path, flags, &p->fd, &st);
	if (rc)
		goto fail;
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes = 0;

		io->is_blockdev = 1;
		if (ioctl(p->fd, BLKGETSIZE64, &bytes) < 0) {
			rc = -errno;
			close(p->fd);
			goto fail;
		}
		io->size = bytes;
	} else if (S_ISREG(st.st_mode)) {
		io->size = (uint64_t)st.st_size;
	} else {
		close(p->fd);
		rc = -ENOTBLK;
		goto fail;
	}
	posix_fadvise(p->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	io->ops = &unix_ops;
	io->flags = flags;
	io->block_size = 1024;
	io->priv = p;
	*out = io;
	return 0;
fail:
	free(p);
	free(io);
	return rc;
}

/* Whether block device maj:min is a loop device backed by the file st. */
static int loop_backed_by(unsigned int maj, unsigned int min,
			  const struct stat *st)
{
	char path[64], back[PATH_MAX];
	struct stat bst;
	int match = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file",
		 maj, min);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* not a loop device */
	if (fgets(back, sizeof(back), f)) {
		back[strcspn(back, "\n")] = '\0';
		match = stat(back, &bst) == 0 && bst.st_ino == st->st_ino &&
			bst.st_dev == st->st_dev;
	}
	fclose(f);
	return match;
}

/*
 * Whether /proc/self/mountinfo holds the device: the block device dev
 * itself, or (st not NULL: an image file) a mounted loop device backed
 * by st. One pass over mountinfo; only mounted block devices (major not
 * 0) are asked whether they are a loop device, so an unmounted image
 * costs one read of mountinfo, whatever the number of loop devices.
 * The first mount point found goes to where.
 */
static int mounted(dev_t dev, const struct stat *st, char *where, size_t wlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		char mnt[2048];

		if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &maj, &min,
			   mnt) != 3)
			continue;
		if (st)
			found = maj != 0 && loop_backed_by(maj, min, st);
		else
			found = makedev(maj, min) == dev;
		if (found && where && wlen)
			snprintf(where, wlen, "%s", mnt);
	}
	fclose(f);
	return found;
}

int extkit_io_check_mounted(const char *path, char *where, size_t wlen)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISBLK(st.st_mode))
		return mounted(st.st_rdev, NULL, where, wlen);
	if (S_ISREG(st.st_mode))
		return mounted(0, &st, where, wlen);
	return 0;
}
