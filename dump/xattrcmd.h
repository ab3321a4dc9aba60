/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extkit-dump xattr PATH [NAME] (xattrcmd.c): debugfs' ea_list, ea_get. */
#ifndef EXTKIT_DUMP_XATTRCMD_H
#define EXTKIT_DUMP_XATTRCMD_H

#include "dump.h"

int dump_xattr(struct dump_ctx *ctx);
/* A value as debugfs shows one: quoted (C escapes) when more than 7/8
 * of its bytes are printable ASCII, else its bytes in hex. */
void dump_xattr_put_value(const uint8_t *v, size_t len);

#endif /* EXTKIT_DUMP_XATTRCMD_H */
