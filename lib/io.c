// SPDX-License-Identifier: GPL-2.0-or-later
/* Backend-independent io calls: bounds checks and block-to-byte mapping. */
#include "config.h"

#include <stdlib.h>

#include "error.h"
#include "io.h"
#include "readahead.h"

static int check_range(struct extkit_io *io, uint64_t off, uint64_t len)
{
	if (off > io->size || len > io->size - off)
		return -EXTKIT_ETRUNC;
	return 0;
}

int extkit_io_read_bytes(struct extkit_io *io, uint64_t off, void *buf,
			 size_t len)
{
	int rc = check_range(io, off, len);

	if (rc)
		return rc;
	if (io->ra && len)
		return extkit_readahead_read(io, off, buf, len);
	return io->ops->read_bytes(io, off, buf, len);
}

int extkit_io_write_bytes(struct extkit_io *io, uint64_t off, const void *buf,
			  size_t len)
{
	int rc;

	if (!(io->flags & EXTKIT_IO_WRITE))
		return -EROFS;
	rc = check_range(io, off, len);
	if (rc)
		return rc;
	io->writes++;
	extkit_readahead_drop(io, off, len);
	return io->ops->write_bytes(io, off, buf, len);
}

int extkit_io_zero_bytes(struct extkit_io *io, uint64_t off, uint64_t len)
{
	int rc;

	if (!(io->flags & EXTKIT_IO_WRITE))
		return -EROFS;
	rc = check_range(io, off, len);
	if (rc)
		return rc;
	io->writes++;
	extkit_readahead_drop(io, off, len);
	return io->ops->zero_bytes(io, off, len);
}

int extkit_io_set_size(struct extkit_io *io, uint64_t size)
{
	int rc;

	if (!(io->flags & EXTKIT_IO_WRITE))
		return -EROFS;
	if (!io->ops->set_size)
		return -EOPNOTSUPP;
	extkit_readahead_drop(io, 0, 0);
	rc = io->ops->set_size(io, size);
	if (!rc)	/* all or nothing: counted when done */
		io->writes++;
	return rc;
}

int extkit_io_flush(struct extkit_io *io)
{
	if (!io->ops->flush)
		return 0;
	return io->ops->flush(io);
}

uint64_t extkit_io_writes(const struct extkit_io *io)
{
	return io ? io->writes : 0;
}

static int block_span(struct extkit_io *io, uint64_t blk, uint32_t count,
		      uint64_t *off, size_t *len)
{
	uint64_t bs = io->block_size;

	if (!bs)
		return -EINVAL;
	if (blk > UINT64_MAX / bs || (uint64_t)count > SIZE_MAX / bs)
		return -EXTKIT_ETRUNC;
	*off = blk * bs;
	*len = (size_t)count * bs;
	return 0;
}

int extkit_io_read_blocks(struct extkit_io *io, uint64_t blk, uint32_t count,
			  void *buf)
{
	uint64_t off;
	size_t len;
	int rc = block_span(io, blk, count, &off, &len);

	return rc ? rc : extkit_io_read_bytes(io, off, buf, len);
}

int extkit_io_write_blocks(struct extkit_io *io, uint64_t blk, uint32_t count,
			   const void *buf)
{
	uint64_t off;
	size_t len;
	int rc = block_span(io, blk, count, &off, &len);

	return rc ? rc : extkit_io_write_bytes(io, off, buf, len);
}

void extkit_io_close(struct extkit_io *io)
{
	if (io) {
		extkit_readahead_free(io);
		io->ops->close(io);
	}
}
