// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The data of one file, piece by piece (extract.h): inline data, or the
 * runs of its block map read a chunk at a time. Nothing past i_size and
 * nothing the map does not hold is ever produced, so a file that claims
 * 16 EiB costs what it maps.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bmap.h"
#include "error.h"
#include "inline.h"
#include "inode.h"
#include "io.h"
#include "ondisk.h"

#include "extract.h"

#define CHUNK_BYTES	(1u << 20)	/* read at most this much at once */

struct data_walk {
	uint64_t size;
	uint32_t bs;
	uint8_t *buf;		/* chunk bytes, NULL when only mapping */
	uint32_t chunk;		/* a multiple of bs, at most CHUNK_BYTES */
	dump_data_fn fn;
	void *arg;
};

static int run_cb(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		  uint32_t count, int flags, void *arg)
{
	struct data_walk *w = arg;
	uint64_t off = lblk * w->bs, len;
	uint32_t per = (w->buf ? w->chunk : CHUNK_BYTES) / w->bs, n;
	int rc;

	if (flags & (EXTKIT_BLOCK_META | EXTKIT_BLOCK_UNWRITTEN))
		return 0;
	while (count && off < w->size) {
		n = count < per ? count : per;
		len = (uint64_t)n * w->bs;
		if (len > w->size - off)
			len = w->size - off;
		if (w->buf) {
			rc = extkit_io_read_blocks(fs->io, pblk, n, w->buf);
			if (rc)
				return rc;
		}
		rc = w->fn(w->arg, off, w->buf, (size_t)len);
		if (rc)
			return rc;
		off += len;
		pblk += n;
		count -= n;
	}
	/* past i_size: the rest of the map holds nothing of the file */
	return off >= w->size ? 1 : 0;
}

static int inline_data(struct extkit_fs *fs, uint32_t ino,
		       const struct extkit_inode *in, struct data_walk *w)
{
	uint32_t cap = EXTKIT_INLINE_IBLOCK + EXTKIT_XATTR_MAX_VALUE, len;
	uint8_t *buf = malloc(cap);
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = extkit_inline_read(fs, ino, buf, cap, &len);
	/* i_size past what the inode holds: in a directory, damage; in a
	 * file, a hole up to i_size, as the kernel reads it (zeros past the
	 * inline bytes) and e2fsck accepts it (mke2fs -d makes such a file
	 * of a fallocated one) */
	if (!rc && len < in->size && extkit_inode_is_dir(in))
		rc = -EFSCORRUPTED;
	if (len && (!rc || rc == -EFSCORRUPTED)) {
		int r = w->fn(w->arg, 0, w->buf ? buf : NULL, len);

		if (r)
			rc = r;
	}
	free(buf);
	return rc;
}

static int walk(struct extkit_fs *fs, uint32_t ino,
		const struct extkit_inode *in, dump_data_fn fn, void *arg,
		int read)
{
	struct data_walk w = {
		.size = in->size, .bs = fs->g.block_size, .fn = fn,
		.arg = arg,
	};
	int rc;

	if (read) {
		/* a small file reads into a small buffer */
		w.chunk = in->size < CHUNK_BYTES ? (uint32_t)in->size :
			  CHUNK_BYTES;
		w.chunk = (w.chunk + w.bs - 1) / w.bs * w.bs;
		if (!w.chunk)
			w.chunk = w.bs;
		w.buf = malloc(w.chunk);
		if (!w.buf)
			return -ENOMEM;
	}
	if (in->flags & EXT4_INLINE_DATA_FL) {
		rc = inline_data(fs, ino, in, &w);
	} else if (!in->size || !extkit_inode_has_block_map(in)) {
		rc = 0;
	} else {
		rc = extkit_block_walk(fs, in, run_cb, &w);
		if (rc == 1)
			rc = 0;
	}
	free(w.buf);
	return rc;
}

int dump_data_walk(struct extkit_fs *fs, uint32_t ino,
		   const struct extkit_inode *in, dump_data_fn fn, void *arg)
{
	return walk(fs, ino, in, fn, arg, 1);
}

int dump_data_map(struct extkit_fs *fs, uint32_t ino,
		  const struct extkit_inode *in, dump_data_fn fn, void *arg)
{
	return walk(fs, ino, in, fn, arg, 0);
}

static int pwrite_all(int fd, const uint8_t *buf, size_t len, uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

struct fd_out {
	int fd;
	uint64_t end;		/* of the data written so far */
};

static int to_fd(void *arg, uint64_t off, const uint8_t *buf, size_t len)
{
	struct fd_out *o = arg;

	if (off > (uint64_t)INT64_MAX - len)
		return -EFBIG;
	o->end = off + len;
	return pwrite_all(o->fd, buf, len, off);
}

int dump_data_to_fd(struct extkit_fs *fs, uint32_t ino,
		    const struct extkit_inode *in, int fd)
{
	struct fd_out o = { .fd = fd };
	int rc = dump_data_walk(fs, ino, in, to_fd, &o);
	int r2 = 0;

	/* the size even after a bad map: what came out, at its length
	 * (a trailing hole is made by the size alone) */
	if (in->size > (uint64_t)INT64_MAX)
		r2 = -EFBIG;
	else if (o.end != in->size && ftruncate(fd, (off_t)in->size))
		r2 = errno == EINVAL ? -EFBIG : -errno;
	return rc ? rc : r2;
}
