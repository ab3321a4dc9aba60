/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block and byte access to an image or device behind an ops table.
 * Backends: io_unix.c (files and block devices), io_mem.c (a buffer).
 */
#ifndef EXTKIT_IO_H
#define EXTKIT_IO_H

#include <stddef.h>
#include <stdint.h>

struct extkit_io;
struct extkit_readahead;

struct extkit_io_ops {
	int (*read_bytes)(struct extkit_io *io, uint64_t off, void *buf,
			  size_t len);
	int (*write_bytes)(struct extkit_io *io, uint64_t off, const void *buf,
			   size_t len);
	/* Make a byte range read back as zeros (holes where possible). */
	int (*zero_bytes)(struct extkit_io *io, uint64_t off, uint64_t len);
	/* Grow or shrink the backing store (files and buffers only). */
	int (*set_size)(struct extkit_io *io, uint64_t size);
	int (*flush)(struct extkit_io *io);
	/* Start writing a byte range out, without waiting (optional). */
	void (*start_writeback)(struct extkit_io *io, uint64_t off,
				uint64_t len);
	/* A new descriptor of the same file for O_DIRECT writes, or
	 * -errno (optional). */
	int (*direct_fd)(struct extkit_io *io);
	void (*close)(struct extkit_io *io);
};

#define EXTKIT_IO_WRITE		0x1	/* open for writing */
#define EXTKIT_IO_EXCL		0x2	/* O_EXCL on block devices */
#define EXTKIT_IO_CREATE	0x4	/* create a missing image file */
#define EXTKIT_IO_VOLATILE	0x8	/* writes stay in memory (an overlay):
					 * test builds do not count them */
/*
 * (unix) Direct I/O, as mke2fs -D: the file or device is opened with
 * O_DIRECT, so every read and write bypasses the page cache and goes
 * through a buffer, an offset and a length aligned to the device's
 * logical block size (BLKSSZGET; 4096 for an image file): an unaligned
 * call is made through an aligned buffer, the partial blocks at either
 * end read first (read-modify-write). The open fails with -EINVAL where
 * the filesystem holding the file refuses O_DIRECT.
 */
#define EXTKIT_IO_DIRECT	0x10

struct extkit_io {
	const struct extkit_io_ops *ops;
	uint64_t size;		/* bytes in the image or device */
	unsigned int block_size;/* unit of the block calls, set by the user */
	int flags;
	int is_blockdev;
	/*
	 * Write, zero and resize calls that reached the backend since open,
	 * failed ones included (a failed pwrite may have written part): a
	 * tool reads it to say truthfully whether the target was modified.
	 */
	uint64_t writes;
	/* Bytes of data written (write calls, not zeroing) not yet taken
	 * by extkit_io_take_written: the superblock's lifetime writes. */
	uint64_t bytes_written;
	void *priv;
	struct extkit_readahead *ra;	/* read window, NULL: none */
};

int extkit_io_open_unix(const char *path, int flags, struct extkit_io **out);
int extkit_io_open_mem(void *buf, size_t size, int flags,
		       struct extkit_io **out);
/* A growable buffer owned by the io (for tests that build images). */
int extkit_io_open_mem_owned(size_t size, struct extkit_io **out);
void *extkit_io_mem_buffer(struct extkit_io *io);
void extkit_io_close(struct extkit_io *io);
/*
 * Puts a read window of bytes (rounded down to 4 KiB; 0: none) in front
 * of io (readahead.c): nearby small reads become one, sequential ones
 * grow up to it. For readers that walk metadata (fsck, dump).
 */
int extkit_io_set_readahead(struct extkit_io *io, size_t bytes);
/*
 * Reads [off, off + len) into a read window now, for reads of parts of
 * it that follow (pass 2: the inodes of the next directories, a few
 * inodes apart, in one call). Nothing without a window, or when len is
 * more than it holds; a failure is forgotten (the reads then fail or
 * succeed on their own). Returns 0, or -1 when the read failed.
 */
int extkit_io_prefetch(struct extkit_io *io, uint64_t off, size_t len);
/*
 * on: a thread makes the next read of a window that grows on (a
 * sequential reader) while the caller works on what the window holds;
 * 0: stops it. Nothing without a window. The backend's reads must be
 * safe beside the caller's (unix and mem; not an undo log's). Returns 0
 * or -ENOMEM (then there is no thread; reads work as before).
 */
int extkit_io_readahead_thread(struct extkit_io *io, int on);
/*
 * 1 if path (a block device, or an image file behind a loop device) is
 * mounted, with the mount point copied to where; 0 if not; -errno.
 */
int extkit_io_check_mounted(const char *path, char *where, size_t wlen);

int extkit_io_read_bytes(struct extkit_io *io, uint64_t off, void *buf,
			 size_t len);
int extkit_io_write_bytes(struct extkit_io *io, uint64_t off, const void *buf,
			  size_t len);
int extkit_io_zero_bytes(struct extkit_io *io, uint64_t off, uint64_t len);
int extkit_io_set_size(struct extkit_io *io, uint64_t size);
int extkit_io_flush(struct extkit_io *io);
/*
 * Starts writing [off, off + len) to the disk now, without waiting for
 * it: data written once and not read again (mkfs -d's file data), so
 * the disk works while the writer goes on and the final flush has less
 * left to wait for. Advisory: nothing when the backend cannot.
 */
void extkit_io_start_writeback(struct extkit_io *io, uint64_t off,
			       uint64_t len);
/*
 * A new descriptor of the image or device, opened O_WRONLY | O_DIRECT |
 * O_CLOEXEC, for a writer that bypasses the page cache (mkfs -d's file
 * data, written once and never read back); the caller closes it. Its
 * writes bypass this layer: no bounds check, no count in io->writes, no
 * undo. -EOPNOTSUPP for backends that have none (memory, an undo log)
 * and, in test-hooks builds, while writes are being counted or stopped.
 */
int extkit_io_direct_fd(struct extkit_io *io);
/* Writes that reached the backend so far (see struct extkit_io). */
uint64_t extkit_io_writes(const struct extkit_io *io);
/* Counts bytes written around the io (a writer on extkit_io_direct_fd's
 * descriptor), as if through extkit_io_write_bytes. */
void extkit_io_add_written(struct extkit_io *io, uint64_t bytes);
/* The bytes written since the last call (or the open), and restarts. */
uint64_t extkit_io_take_written(struct extkit_io *io);

/* Block-unit calls, in io->block_size units. Reads past the end fail with
 * EXTKIT_ETRUNC; block numbers are never trusted to fit in memory. */
int extkit_io_read_blocks(struct extkit_io *io, uint64_t blk, uint32_t count,
			  void *buf);
int extkit_io_write_blocks(struct extkit_io *io, uint64_t blk, uint32_t count,
			   const void *buf);

#endif /* EXTKIT_IO_H */
