/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extkit-dump xattr PATH [NAME] (xattrcmd.c): debugfs' ea_list, ea_get. */
#ifndef EXTKIT_DUMP_XATTRCMD_H
#define EXTKIT_DUMP_XATTRCMD_H

#include "dump.h"

int dump_xattr(struct dump_ctx *ctx);

#endif /* EXTKIT_DUMP_XATTRCMD_H */
