// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The read window of an io (readahead.h). A miss reads what was asked
 * and keeps it (the same inode or block is often read again soon); a
 * miss right at the end of the window (a sequential reader: inode
 * tables, a directory's consecutive blocks) reads twice as much as the
 * last time, up to the window's size. One buffer per io, allocated
 * once; nothing grows with the image.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "readahead.h"

#define RA_PAGE		4096u

struct extkit_readahead {
	uint8_t *buf;
	size_t cap;		/* the window's size */
	uint64_t off;		/* what buf holds: [off, off + len) */
	size_t len;
	size_t last;		/* size of the last miss read */
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
	ra->buf = malloc(bytes);
	if (!ra->buf) {
		free(ra);
		return -ENOMEM;
	}
	ra->cap = bytes;
	io->ra = ra;
	return 0;
}

void extkit_readahead_free(struct extkit_io *io)
{
	if (!io->ra)
		return;
	free(io->ra->buf);
	free(io->ra);
	io->ra = NULL;
}

void extkit_readahead_drop(struct extkit_io *io, uint64_t off, uint64_t len)
{
	struct extkit_readahead *ra = io->ra;

	if (!ra || !ra->len)
		return;
	if (!len || (off < ra->off + ra->len && ra->off < off + len))
		ra->len = 0;
}

/* Fills the window with [start, start + size) clipped to the image. */
static int fill(struct extkit_io *io, uint64_t start, size_t size)
{
	struct extkit_readahead *ra = io->ra;
	int rc;

	if (start >= io->size)
		return -1;
	if (size > io->size - start)
		size = (size_t)(io->size - start);
	ra->len = 0;
	rc = io->ops->read_bytes(io, start, ra->buf, size);
	if (rc)
		return rc;
	ra->off = start;
	ra->len = size;
	ra->last = size;
	return 0;
}

int extkit_readahead_read(struct extkit_io *io, uint64_t off, void *buf,
			  size_t len)
{
	struct extkit_readahead *ra = io->ra;
	size_t size = len;

	if (ra->len && off >= ra->off && off - ra->off <= ra->len &&
	    len <= ra->len - (off - ra->off))
		goto hit;
	if (len > ra->cap)
		return io->ops->read_bytes(io, off, buf, len);
	if (ra->len && off == ra->off + ra->len) {
		/* Sequential: twice the last read, within the window. */
		size_t grow = ra->last <= ra->cap / 2 ? ra->last * 2 : ra->cap;

		if (grow > size)
			size = grow;
	}
	if (fill(io, off, size) || off + len > ra->off + ra->len)
		return io->ops->read_bytes(io, off, buf, len);
hit:
	memcpy(buf, ra->buf + (off - ra->off), len);
	return 0;
}
