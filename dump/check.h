/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extkit-dump bmap, ncheck, icheck, imap (check.c): debugfs' lookups. */
#ifndef EXTKIT_DUMP_CHECK_H
#define EXTKIT_DUMP_CHECK_H

#include "dump.h"

int dump_bmap(struct dump_ctx *ctx);
int dump_ncheck(struct dump_ctx *ctx);
int dump_icheck(struct dump_ctx *ctx);
int dump_imap(struct dump_ctx *ctx);

#endif /* EXTKIT_DUMP_CHECK_H */
