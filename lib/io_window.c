// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A window on another io: byte 0 of the window is byte start of the base,
 * and the window ends len bytes later (a partition of a whole-disk image,
 * or what follows --offset). Every call is bounded to the window by
 * io.c's range check before it gets here, so nothing outside it is read
 * or written, and the base's own ops are called directly (a write is
 * counted once, in the window). The base is closed with the window.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "image.h"
#include "io.h"

struct window {
	struct extkit_io *base;
	uint64_t start;
};

static struct window *win(struct extkit_io *io)
{
	return io->priv;
}

static int w_read(struct extkit_io *io, uint64_t off, void *buf, size_t len)
{
	struct extkit_io *b = win(io)->base;

	return b->ops->read_bytes(b, win(io)->start + off, buf, len);
}

static int w_write(struct extkit_io *io, uint64_t off, const void *buf,
		   size_t len)
{
	struct extkit_io *b = win(io)->base;

	return b->ops->write_bytes(b, win(io)->start + off, buf, len);
}

static int w_zero(struct extkit_io *io, uint64_t off, uint64_t len)
{
	struct extkit_io *b = win(io)->base;

	return b->ops->zero_bytes(b, win(io)->start + off, len);
}

/* A window's size is the partition's: it never grows or shrinks. */
static int w_set_size(struct extkit_io *io, uint64_t size)
{
	return size == io->size ? 0 : -EOPNOTSUPP;
}

static int w_flush(struct extkit_io *io)
{
	return extkit_io_flush(win(io)->base);
}

static void w_writeback(struct extkit_io *io, uint64_t off, uint64_t len)
{
	extkit_io_start_writeback(win(io)->base, win(io)->start + off, len);
}

static void w_close(struct extkit_io *io)
{
	extkit_io_close(win(io)->base);
	free(io->priv);
	free(io);
}

/* No direct_fd: its writes would bypass the window's offset. */
static const struct extkit_io_ops window_ops = {
	.read_bytes = w_read,
	.write_bytes = w_write,
	.zero_bytes = w_zero,
	.set_size = w_set_size,
	.flush = w_flush,
	.start_writeback = w_writeback,
	.close = w_close,
};

int extkit_io_open_window(struct extkit_io *base, uint64_t start,
			  uint64_t len, struct extkit_io **out)
{
	struct extkit_io *io;
	struct window *w;

	if (start > base->size || len > base->size - start)
		return -EINVAL;
	io = calloc(1, sizeof(*io));
	w = calloc(1, sizeof(*w));
	if (!io || !w) {
		free(io);
		free(w);
		return -ENOMEM;
	}
	w->base = base;
	w->start = start;
	io->ops = &window_ops;
	io->size = len;
	io->flags = base->flags;
	io->is_blockdev = base->is_blockdev;
	io->priv = w;
	*out = io;
	return 0;
}
