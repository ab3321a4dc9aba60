/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Adding a name to an htree directory with its index kept (dxadd.c);
 * used by extkit_dir_add (diradd.c). Both put records into leaves and
 * grow the directory through dirleaf.c.
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

#endif /* EXTKIT_DXADD_H */
