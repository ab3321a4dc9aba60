// SPDX-License-Identifier: GPL-2.0-or-later
/* POSIX ACLs: the ext4 on-disk form to the xattr form (acl.h). */
#include "config.h"

#include <errno.h>

#include "acl.h"
#include "endian.h"
#include "error.h"
#include "xattrbuild.h"

/* Bytes an entry of tag takes on disk: 4, 8, or 0 for an unknown tag. */
static size_t ext4_entry_len(uint16_t tag)
{
	switch (tag) {
	case EXTKIT_ACL_USER_OBJ:
	case EXTKIT_ACL_GROUP_OBJ:
	case EXTKIT_ACL_MASK:
	case EXTKIT_ACL_OTHER:
		return 4;
	case EXTKIT_ACL_USER:
	case EXTKIT_ACL_GROUP:
		return 8;
	default:
		return 0;
	}
}

int extkit_acl_to_xattr(const uint8_t *in, size_t in_size, uint8_t *out,
			size_t *size)
{
	size_t off = 4, o = 4, len;
	uint16_t tag;

	if (in_size < 4 || get_le32(in) != EXTKIT_ACL_EXT4_VERSION)
		return -EFSCORRUPTED;
	put_le32(out, EXTKIT_ACL_XATTR_VERSION);
	while (off < in_size) {
		if (in_size - off < 4)
			return -EFSCORRUPTED;
		tag = get_le16(in + off);
		len = ext4_entry_len(tag);
		if (!len || in_size - off < len)
			return -EFSCORRUPTED;
		put_le16(out + o, tag);
		put_le16(out + o + 2, get_le16(in + off + 2));
		put_le32(out + o + 4, len == 8 ? get_le32(in + off + 4) :
			 EXTKIT_ACL_UNDEFINED_ID);
		off += len;
		o += 8;
	}
	*size = o;
	return 0;
}
