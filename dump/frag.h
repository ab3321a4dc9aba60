/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extkit-dump frag: free-entry fragmentation of directories. */
#ifndef EXTKIT_DUMP_FRAG_H
#define EXTKIT_DUMP_FRAG_H

#include "dump.h"

/*
 * Prints the figures of directory path, or (path NULL) of every directory
 * of the filesystem: totals and the top directories by reclaimable
 * blocks. Returns 0 or a negative error (already reported).
 */
int dump_frag(struct dump_ctx *ctx, const char *path);

#endif /* EXTKIT_DUMP_FRAG_H */
