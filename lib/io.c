// SPDX-License-Identifier: GPL-2.0-or-later
/* Backend-independent io calls: bounds checks and block-to-byte mapping. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"
#include "io.h"
#include "readahead.h"

#ifdef EXTKIT_TEST_HOOKS
/*
 * Test builds only (configure --enable-test-hooks). Every write, zeroing
 * or resize call made through this file is counted over the whole
 * process (a wrapping io such as the undo log counts with what it
 * passes on; writes to an io marked EXTKIT_IO_VOLATILE, which stay in
 * memory, are not). With EXTKIT_TEST_STOP_AFTER_WRITES=N the process ends right
 * before the Nth call, with _exit(99): no flush, no cleanup, as if it had
 * been killed there. With EXTKIT_TEST_COUNT_WRITES set, the count is
 * printed to stderr at exit ("extkit-test: N writes").
 */
static unsigned long long test_writes, test_stop_at;

static void test_print_count(void)
{
	fprintf(stderr, "extkit-test: %llu writes\n", test_writes);
}

static void test_stop_point(void)
{
	static int ready;

	if (!ready) {
		const char *s = getenv("EXTKIT_TEST_STOP_AFTER_WRITES");

		ready = 1;
		if (s)
			test_stop_at = strtoull(s, NULL, 10);
		if (getenv("EXTKIT_TEST_COUNT_WRITES"))
			atexit(test_print_count);
	}
	if (++test_writes == test_stop_at)
		_exit(99);
}
#else
static void test_stop_point(void)
{
}
#endif

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
	if (!(io->flags & EXTKIT_IO_VOLATILE))
		test_stop_point();
	io->writes++;
	io->bytes_written += len;
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
	test_stop_point();
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
	test_stop_point();
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

void extkit_io_start_writeback(struct extkit_io *io, uint64_t off,
			       uint64_t len)
{
	if (io->ops->start_writeback)
		io->ops->start_writeback(io, off, len);
}

int extkit_io_direct_fd(struct extkit_io *io)
{
#ifdef EXTKIT_TEST_HOOKS
	/* every write must go through test_stop_point */
	if (getenv("EXTKIT_TEST_STOP_AFTER_WRITES") ||
	    getenv("EXTKIT_TEST_COUNT_WRITES"))
		return -EOPNOTSUPP;
#endif
	if (!(io->flags & EXTKIT_IO_WRITE))
		return -EROFS;
	if (!io->ops->direct_fd)
		return -EOPNOTSUPP;
	return io->ops->direct_fd(io);
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

void extkit_io_add_written(struct extkit_io *io, uint64_t bytes)
{
	io->bytes_written += bytes;
}

uint64_t extkit_io_take_written(struct extkit_io *io)
{
	uint64_t n = io->bytes_written;

	io->bytes_written = 0;
	return n;
}
