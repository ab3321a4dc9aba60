/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error codes: functions return 0 or a negative errno. Filesystem-specific
 * conditions reuse errno values, as the kernel's ext4 and xfsprogs do.
 */
#ifndef EXTKIT_ERROR_H
#define EXTKIT_ERROR_H

#include <errno.h>

#define EFSCORRUPTED	EUCLEAN		/* metadata is inconsistent */
#define EFSBADCRC	EBADMSG		/* a checksum does not match */
#define EXTKIT_ENOTEXT	EMEDIUMTYPE	/* no ext2/ext4 superblock found */
#define EXTKIT_EUNSUPP	EOPNOTSUPP	/* a feature extkit cannot handle */
#define EXTKIT_ELOOP	ELOOP		/* a cycle or excessive depth */
#define EXTKIT_ETRUNC	ENXIO		/* the image ends before the data */

const char *extkit_strerror(int err);

#endif /* EXTKIT_ERROR_H */
