/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extkit-mkfs --file-contexts: SELinux labels from a file_contexts file,
 * through libselinux's selabel interface, loaded (dlopen) only when the
 * option is given, so that extkit-mkfs does not need libselinux.
 */
#ifndef EXTKIT_MKFS_SELABEL_H
#define EXTKIT_MKFS_SELABEL_H

#include <stdint.h>

struct mkfs_selabel;

/* Loads libselinux and the file; NULL and *why when it cannot. */
struct mkfs_selabel *mkfs_selabel_open(const char *file, const char **why);
/* The label of path (an absolute path) for a file of mode: 0 and *ctx
 * (free with mkfs_selabel_free), -ENOENT when the file gives none, or
 * another negative errno. */
int mkfs_selabel_lookup(struct mkfs_selabel *s, const char *path,
			uint32_t mode, char **ctx);
void mkfs_selabel_free(struct mkfs_selabel *s, char *ctx);
void mkfs_selabel_close(struct mkfs_selabel *s);

#endif /* EXTKIT_MKFS_SELABEL_H */
