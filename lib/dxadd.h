/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Adding a name to an htree directory with its index kept (dxadd.c);
 * used by extkit_dir_add (diradd.c), which owns the helpers below.
 */
#ifndef EXTKIT_DXADD_H
#define EXTKIT_DXADD_H

#include <stdint.h>

#include "dir.h"
#include "dirspace.h"

/*
 * Puts the record into the leaf the index names for its hash, splitting
 * a full leaf. On 0, ds->buf holds that leaf with the record at *off of
 * logical block *lblk, not yet written (the caller writes it). -EAGAIN:
 * a shape not handled, nothing written.
 */
int extkit_dx_add(struct extkit_dirspace *ds, const char *name, uint32_t len,
		  uint32_t ino, uint8_t ftype, uint64_t *lblk, int *off);

/* diradd.c: places a record in the first record of buf with room (its
 * offset, or -ENOSPC); appends an empty block to the directory. */
int extkit_dx_place(const struct extkit_dir_format *fmt, uint8_t *buf,
		    const char *name, uint32_t len, uint32_t ino,
		    uint8_t ftype);
int extkit_dx_grow(struct extkit_dirspace *ds, uint64_t *lblk);

#endif /* EXTKIT_DXADD_H */
