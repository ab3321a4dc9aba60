// SPDX-License-Identifier: GPL-2.0-or-later
/* io backend over a memory buffer, for unit tests and in-memory images. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "io.h"

struct mem_priv {
	unsigned char *buf;
	int owned;
};

static int mem_read(struct extkit_io *io, uint64_t off, void *buf, size_t len)
{
	struct mem_priv *p = io->priv;

	memcpy(buf, p->buf + off, len);
	return 0;
}

static int mem_write(struct extkit_io *io, uint64_t off, const void *buf,
		     size_t len)
{
	struct mem_priv *p = io->priv;

	memcpy(p->buf + off, buf, len);
	return 0;
}

static int mem_zero(struct extkit_io *io, uint64_t off, uint64_t len)
{
	struct mem_priv *p = io->priv;

	memset(p->buf + off, 0, len);
	return 0;
}

static int mem_set_size(struct extkit_io *io, uint64_t size)
{
	struct mem_priv *p = io->priv;
	unsigned char *nb;

	if (!p->owned)
		return -EOPNOTSUPP;
	if (size > SIZE_MAX)
		return -ENOMEM;
	nb = realloc(p->buf, size ? size : 1);
	if (!nb)
		return -ENOMEM;
	if (size > io->size)
		memset(nb + io->size, 0, size - io->size);
	p->buf = nb;
	io->size = size;
	return 0;
}

static void mem_close(struct extkit_io *io)
{
	struct mem_priv *p = io->priv;

	if (p->owned)
		free(p->buf);
	free(p);
	free(io);
}

static const struct extkit_io_ops mem_ops = {
	.read_bytes = mem_read,
	.write_bytes = mem_write,
	.zero_bytes = mem_zero,
	.set_size = mem_set_size,
	.close = mem_close,
};

static int mem_open(void *buf, size_t size, int flags, int owned,
		    struct extkit_io **out)
{
	struct extkit_io *io = calloc(1, sizeof(*io));
	struct mem_priv *p = calloc(1, sizeof(*p));

	if (!io || !p) {
		free(io);
		free(p);
		return -ENOMEM;
	}
	p->buf = buf;
	p->owned = owned;
	io->ops = &mem_ops;
	io->size = size;
	io->flags = flags;
	io->block_size = 1024;
	io->priv = p;
	*out = io;
	return 0;
}

int extkit_io_open_mem(void *buf, size_t size, int flags,
		       struct extkit_io **out)
{
	return mem_open(buf, size, flags, 0, out);
}

int extkit_io_open_mem_owned(size_t size, struct extkit_io **out)
{
	void *buf = calloc(1, size ? size : 1);
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = mem_open(buf, size, EXTKIT_IO_WRITE, 1, out);
	if (rc)
		free(buf);
	return rc;
}

void *extkit_io_mem_buffer(struct extkit_io *io)
{
	return ((struct mem_priv *)io->priv)->buf;
}
