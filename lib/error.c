// SPDX-License-Identifier: GPL-2.0-or-later
/* Messages for the library's error codes. */
#include "config.h"

#include <string.h>

#include "error.h"

const char *extkit_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case EFSCORRUPTED:
		return "filesystem metadata is corrupted";
	case EFSBADCRC:
		return "metadata checksum does not match";
	case EXTKIT_ENOTEXT:
		return "not an ext2/ext3/ext4 filesystem (bad magic number)";
	case EXTKIT_EUNSUPP:
		return "filesystem uses a feature extkit does not support";
	case EXTKIT_ELOOP:
		return "loop or excessive depth in block map or path";
	case ENOTBLK:
		return "not an image file or block device";
	case EXTKIT_ETRUNC:
		return "image is shorter than the filesystem says (truncated)";
	default:
		return strerror(err);
	}
}
