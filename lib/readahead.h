/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A read window in front of an io (io.c calls these): reads of what was
 * just read, or of a part of it, are served from memory, and a reader
 * that goes on where the last read ended gets ever larger reads (up to
 * the window's size). Writes that touch the window drop it, so reads always return
 * what the image holds. A read the window cannot serve, and any read
 * whose larger version fails, goes to the backend exactly as asked, so
 * errors are those of the plain read.
 */
#ifndef EXTKIT_READAHEAD_H
#define EXTKIT_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "io.h"

int extkit_readahead_read(struct extkit_io *io, uint64_t off, void *buf,
			  size_t len);
/* Forgets the window if [off, off + len) overlaps it (len 0: always). */
void extkit_readahead_drop(struct extkit_io *io, uint64_t off, uint64_t len);
void extkit_readahead_free(struct extkit_io *io);

#endif /* EXTKIT_READAHEAD_H */
