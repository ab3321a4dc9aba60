/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1's inode table reads, one ahead: while pass 1 checks the inodes
 * of one chunk, a second thread reads the next chunk into a second
 * buffer (the copy from the page cache is a third of the pass on a warm
 * cache). Only the reading moves: the checks, their order and output
 * stay on the caller's thread. A chunk read ahead is taken only if the
 * io saw no write since it was asked for; otherwise, and whenever the
 * thread cannot be had, the chunk is read as before.
 */
#ifndef FSCK_ITABLE_READER_H
#define FSCK_ITABLE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "io.h"

struct itable_reader;

/* A reader of chunks of up to bytes on io, which must be safe to read
 * from two threads (a file or device: pread; not an undo log); NULL
 * when none can be had (no memory, no thread). */
struct itable_reader *itable_reader_new(struct extkit_io *io, size_t bytes);
/* Asks for count blocks (io->block_size) from blk to be read ahead (the
 * one request; a range past the image is left to the plain read). */
void itable_reader_post(struct itable_reader *r, uint64_t blk,
			uint32_t count);
/*
 * Reads count blocks from blk, as extkit_io_read_blocks, into *bufp:
 * from the read ahead when it is the same range and nothing was written
 * since, else now. *bufp is the reader's buffer, valid until the next
 * get.
 */
int itable_reader_get(struct itable_reader *r, uint64_t blk, uint32_t count,
		      uint8_t **bufp);
void itable_reader_free(struct itable_reader *r);

#endif /* FSCK_ITABLE_READER_H */
