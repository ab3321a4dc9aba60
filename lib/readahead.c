// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The read windows of an io (readahead.h). A checker interleaves a few
 * streams of reads (pass 2: a directory's inode, then its blocks, then
 * the inode again), so there are a few windows, each following one
 * stream; a read goes to the window holding it, else to the window it
 * continues, else to the least recently used one.
 *
 * A miss reads what was asked and keeps it (the same inode or block is
 * often read again soon). A miss right at the end of a window (a
 * sequential reader: inode tables, a directory's consecutive blocks, the
 * blocks of directories the kernel placed one after the other) reads
 * twice as much as that window's last read, up to the window's size. A
 * read of a quarter of a window or more goes straight to the caller's
 * buffer (no copy). The buffers are allocated on first use, once;
 * nothing grows with the image.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "readahead.h"

#define RA_PAGE		4096u
#define RA_WINDOWS	3

struct ra_window {
	uint8_t *buf;		/* NULL until first used */
	uint64_t off;		/* what buf holds: [off, off + len) */
	size_t len;
	size_t last;		/* size of the last miss read */
	uint64_t used;		/* tick of the last use (LRU) */
};

struct extkit_readahead {
	size_t cap;		/* each window's size */
	uint64_t tick;
	struct ra_window w[RA_WINDOWS];
};

int extkit_io_set_readahead(struct extkit_io *io, size_t bytes)
{
	struct extkit_readahead *ra;

	extkit_readahead_free(io);
	bytes &= ~(size_t)(RA_PAGE - 1);
	if (!bytes)
		return 0;
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return -ENOMEM;
	ra->cap = bytes;
	io->ra = ra;
	return 0;
}

void extkit_readahead_free(struct extkit_io *io)
{
	if (!io->ra)
		return;
	for (int i = 0; i < RA_WINDOWS; i++)
		free(io->ra->w[i].buf);
	free(io->ra);
	io->ra = NULL;
}

void extkit_readahead_drop(struct extkit_io *io, uint64_t off, uint64_t len)
{
	struct extkit_readahead *ra = io->ra;

	if (!ra)
		return;
	for (int i = 0; i < RA_WINDOWS; i++) {
		struct ra_window *w = &ra->w[i];

		if (w->len && (!len || (off < w->off + w->len &&
					w->off < off + len)))
			w->len = 0;
	}
}

/* Fills window w with [start, start + size) clipped to the image. */
static int fill(struct extkit_io *io, struct ra_window *w, uint64_t start,
		size_t size)
{
	int rc;

	if (start >= io->size)
		return -1;
	if (size > io->size - start)
		size = (size_t)(io->size - start);
	w->len = 0;
	if (!w->buf) {
		w->buf = malloc(io->ra->cap);
		if (!w->buf)
			return -ENOMEM;
	}
	rc = io->ops->read_bytes(io, start, w->buf, size);
	if (rc)
		return rc;
	w->off = start;
	w->len = size;
	w->last = size;
	return 0;
}

/*
 * Whether off continues window w: right at its end. A reader that skips
 * (pass 2 going from one directory's inode to the next) gets what it
 * asks, not the bytes between: copying bytes costs more than the calls
 * it saves unless nearly all of them are used.
 */
static int continues(const struct ra_window *w, uint64_t off)
{
	return w->len && off == w->off + w->len;
}

/* The window for a miss at off: one it continues, else the LRU one. */
static struct ra_window *pick(struct extkit_readahead *ra, uint64_t off)
{
	struct ra_window *lru = &ra->w[0];

	for (int i = 0; i < RA_WINDOWS; i++) {
		if (continues(&ra->w[i], off))
			return &ra->w[i];
		if (ra->w[i].used < lru->used)
			lru = &ra->w[i];
	}
	return lru;
}

int extkit_io_prefetch(struct extkit_io *io, uint64_t off, size_t len)
{
	struct extkit_readahead *ra = io->ra;
	struct ra_window *w;

	if (!ra || !len || len > ra->cap || off > io->size ||
	    len > io->size - off)
		return 0;
	for (int i = 0; i < RA_WINDOWS; i++) {
		w = &ra->w[i];
		if (w->len && off >= w->off && off - w->off <= w->len &&
		    len <= w->len - (off - w->off))
			return 0;	/* held already */
	}
	w = pick(ra, off);
	w->used = ++ra->tick;
	return fill(io, w, off, len) ? -1 : 0;
}

int extkit_readahead_read(struct extkit_io *io, uint64_t off, void *buf,
			  size_t len)
{
	struct extkit_readahead *ra = io->ra;
	struct ra_window *w;
	size_t size = len;

	for (int i = 0; i < RA_WINDOWS; i++) {
		w = &ra->w[i];
		if (w->len && off >= w->off && off - w->off <= w->len &&
		    len <= w->len - (off - w->off))
			goto hit;
	}
	if (len >= ra->cap / 4)
		return io->ops->read_bytes(io, off, buf, len);
	w = pick(ra, off);
	if (continues(w, off)) {
		/* Onward: twice the last read, within the window. */
		size_t grow = w->last <= ra->cap / 2 ? w->last * 2 : ra->cap;

		if (grow > size)
			size = grow;
	}
	if (fill(io, w, off, size) || off + len > w->off + w->len)
		return io->ops->read_bytes(io, off, buf, len);
hit:
	w->used = ++ra->tick;
	memcpy(buf, w->buf + (off - w->off), len);
	return 0;
}
