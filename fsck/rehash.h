/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extkit-fsck -D: compact (and, with dir_index, re-index) directories. */
#ifndef EXTKIT_FSCK_REHASH_H
#define EXTKIT_FSCK_REHASH_H

#include "fsck.h"

/*
 * Parses the -E options -D understands ("compact_threshold=N", N a
 * percentage 0..100 of free directory bytes). 0, or -EINVAL for anything
 * else; *threshold (if non-NULL) gets N, 0 when absent.
 */
int fsck_rehash_parse_extended(const char *ext, unsigned int *threshold);

/*
 * After the passes, on a filesystem found consistent: compacts every
 * directory but lost+found that has reclaimable blocks (with a threshold:
 * only those with at least that share free), and with dir_index also
 * indexes the linear ones of more than one block. Never in read-only mode.
 */
int fsck_rehash(struct fsck_ctx *ctx);
/*
 * Without -D: rebuilds the directories in ctx->rehash_dirs (an index
 * cleared on metadata_csum), as e2fsck's pass 3A does.
 */
int fsck_rehash_listed(struct fsck_ctx *ctx);

#endif /* EXTKIT_FSCK_REHASH_H */
