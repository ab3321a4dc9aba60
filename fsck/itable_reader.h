/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1's inode table reads, one ahead: while pass 1 checks the inodes
 * of one chunk, a second thread reads the next chunk into a second
 * buffer (the copy from the page cache is a third of the pass on a warm
 * cache), and with metadata_csum verifies the chunk's inode checksums
 * (a sixth of the pass on ext4). Only the reading and that pure
 * computation move: the checks, their order and output stay on the
 * caller's thread. A chunk read ahead is taken only if the
 * io saw no write since it was asked for; otherwise, and whenever the
 * thread cannot be had, the chunk is read as before.
 */
#ifndef FSCK_ITABLE_READER_H
#define FSCK_ITABLE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "io.h"

struct extkit_fs;
struct itable_reader;

/* A reader of chunks of up to bytes on io, which must be safe to read
 * from two threads (a file or device: pread; not an undo log); NULL
 * when none can be had (no memory, no thread). With fs (metadata_csum)
 * the thread also verifies inode checksums: fs is only read, and must
 * not change while the reader lives. */
struct itable_reader *itable_reader_new(struct extkit_io *io, size_t bytes,
					const struct extkit_fs *fs);
/* Asks for count blocks (io->block_size) from blk to be read ahead (the
 * one request; a range past the image is left to the plain read), and
 * the checksums of the ninodes inodes from first_ino at its start. */
void itable_reader_post(struct itable_reader *r, uint64_t blk,
			uint32_t count, uint32_t first_ino, uint32_t ninodes);
/*
 * Reads count blocks from blk, as extkit_io_read_blocks, into *bufp:
 * from the read ahead when it is the same range and nothing was written
 * since, else now. *bufp is the reader's buffer, valid until the next
 * get. *okp: when the read ahead verified the same inodes, one byte per
 * inode, extkit_inode_csum_verify's verdict; else NULL (verify them).
 */
int itable_reader_get(struct itable_reader *r, uint64_t blk, uint32_t count,
		      uint32_t first_ino, uint32_t ninodes, uint8_t **bufp,
		      const uint8_t **okp);
void itable_reader_free(struct itable_reader *r);

#endif /* FSCK_ITABLE_READER_H */
