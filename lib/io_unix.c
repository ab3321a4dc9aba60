// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io backend for image files and block devices: pread/pwrite that retry
 * short transfers, zeroing by the cheapest call that guarantees zeros,
 * direct I/O (EXTKIT_IO_DIRECT: O_DIRECT, every transfer aligned, the
 * unaligned ones through an aligned buffer) and the mounted-filesystem
 * check.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <mntent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "error.h"
#include "io.h"

/* Direct I/O: an unaligned call goes through an aligned buffer of at
 * most this many bytes at a time. */
#define BOUNCE_MAX	(1u << 20)

struct unix_priv {
	int fd;
	/* EXTKIT_IO_DIRECT: the unit offsets, lengths and buffer addresses
	 * are aligned to (a power of two, 512 to 65536); 0: buffered */
	uint32_t align;
};

static int fd_of(struct extkit_io *io)
{
	return ((struct unix_priv *)io->priv)->fd;
}

static int read_full(int fd, uint64_t off, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

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

static int write_full(int fd, uint64_t off, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

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

/* ---- direct I/O ---- */

static int aligned(uint32_t unit, uint64_t off, const void *buf, size_t len)
{
	return off % unit == 0 && len % unit == 0 &&
	       (uintptr_t)buf % unit == 0;
}

/*
 * Reads len bytes (a multiple of unit) from off (aligned) into buf
 * (aligned): what lies past the end of the file reads as zeros; *got
 * the bytes the file held.
 */
static int read_upto(const struct unix_priv *p, uint64_t off, uint8_t *buf,
		     size_t len, size_t *got)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(p->fd, buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
		if (done % p->align)	/* the end of the file */
			break;
	}
	memset(buf + done, 0, len - done);
	*got = done;
	return 0;
}

/* One piece of an unaligned call: the aligned span [at, at + span)
 * holding bytes [head, head + n) of it, and its buffer. */
struct piece {
	uint64_t at;
	size_t head, n, span;
	uint8_t *buf;
};

/* The next piece of the call at off, len bytes left: at most BOUNCE_MAX
 * bytes of buffer, allocated aligned here. */
static int piece_start(const struct unix_priv *p, uint64_t off, size_t len,
		       struct piece *pc)
{
	uint32_t u = p->align;

	pc->head = (size_t)(off % u);
	pc->at = off - pc->head;
	pc->n = len < BOUNCE_MAX - pc->head ? len : BOUNCE_MAX - pc->head;
	pc->span = (pc->head + pc->n + u - 1) / u * u;
	pc->buf = NULL;
	if (posix_memalign((void **)&pc->buf, u, pc->span))
		return -ENOMEM;
	return 0;
}

static int direct_read(struct extkit_io *io, uint64_t off, void *buf,
		       size_t len)
{
	const struct unix_priv *p = io->priv;
	uint8_t *out = buf;
	struct piece pc;
	size_t got;
	int rc = 0;

	if (aligned(p->align, off, buf, len))
		return read_full(p->fd, off, buf, len);
	while (len && !rc) {
		rc = piece_start(p, off, len, &pc);
		if (!rc)
			rc = read_upto(p, pc.at, pc.buf, pc.span, &got);
		if (!rc && got < pc.head + pc.n)
			rc = -EXTKIT_ETRUNC;
		if (!rc)
			memcpy(out, pc.buf + pc.head, pc.n);
		free(pc.buf);
		out += pc.n;
		off += pc.n;
		len -= pc.n;
	}
	return rc;
}

/* The partial units at either end of a piece, read first: what the
 * write leaves of them stays. */
static int read_edges(const struct unix_priv *p, const struct piece *pc)
{
	size_t u = p->align, end = pc->head + pc->n, last = end - end % u;
	size_t got;
	int rc = 0;

	if (pc->head)
		rc = read_upto(p, pc->at, pc->buf, u, &got);
	if (!rc && end % u && !(pc->head && last == 0))
		rc = read_upto(p, pc->at + last, pc->buf + last, u, &got);
	return rc;
}

static int direct_write(struct extkit_io *io, uint64_t off, const void *buf,
			size_t len)
{
	const struct unix_priv *p = io->priv;
	const uint8_t *in = buf;
	struct piece pc;
	int rc = 0;

	if (aligned(p->align, off, buf, len))
		return write_full(p->fd, off, buf, len);
	while (len && !rc) {
		rc = piece_start(p, off, len, &pc);
		if (!rc)
			rc = read_edges(p, &pc);
		if (!rc) {
			memcpy(pc.buf + pc.head, in, pc.n);
			rc = write_full(p->fd, pc.at, pc.buf, pc.span);
		}
		/* a file whose size is not a multiple of the unit: the
		 * last unit written whole made it longer */
		if (!rc && !io->is_blockdev && pc.at + pc.span > io->size &&
		    ftruncate(p->fd, (off_t)io->size) < 0)
			rc = -errno;
		free(pc.buf);
		in += pc.n;
		off += pc.n;
		len -= pc.n;
	}
	return rc;
}

/* ---- the ops ---- */

static int unix_read(struct extkit_io *io, uint64_t off, void *buf, size_t len)
{
	const struct unix_priv *p = io->priv;

	if (p->align)
		return direct_read(io, off, buf, len);
	return read_full(p->fd, off, buf, len);
}

static int unix_write(struct extkit_io *io, uint64_t off, const void *buf,
		      size_t len)
{
	const struct unix_priv *p = io->priv;

	if (p->align)
		return direct_write(io, off, buf, len);
	return write_full(p->fd, off, buf, len);
}

static int zero_by_writing(struct extkit_io *io, uint64_t off, uint64_t len)
{
	size_t chunk = 1 << 20;
	void *zeros = NULL;
	int rc = 0;

	/* aligned, so that direct I/O writes it as it is */
	if (posix_memalign(&zeros, 65536, chunk))
		return -ENOMEM;
	memset(zeros, 0, chunk);
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
	if (flags & EXTKIT_IO_DIRECT)
		oflags |= O_DIRECT;
#ifdef EXTKIT_TEST_HOOKS
	/* tests: a filesystem that refuses O_DIRECT */
	if ((flags & EXTKIT_IO_DIRECT) &&
	    getenv("EXTKIT_TEST_OPEN_DIRECT_EINVAL"))
		return -EINVAL;
#endif
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

/* The unit of direct I/O: a block device's logical block size, 4096 for
 * a file (a multiple of what any filesystem asks). */
static uint32_t direct_unit(int fd, int is_blockdev)
{
	int ss = 0;

	if (is_blockdev && ioctl(fd, BLKSSZGET, &ss) == 0 && ss >= 512 &&
	    ss <= 65536 && !(ss & (ss - 1)))
		return (uint32_t)ss;
	return 4096;
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
	if (flags & EXTKIT_IO_DIRECT)
		p->align = direct_unit(p->fd, io->is_blockdev);
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
