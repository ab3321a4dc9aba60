/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * POSIX ACLs as ext4 stores them (the value of system.posix_acl_access,
 * index 2, and system.posix_acl_default, index 3): a 4-byte version 1
 * header, then entries of 4 bytes (tag, perm: USER_OBJ, GROUP_OBJ, MASK,
 * OTHER) or 8 bytes (tag, perm, id: USER, GROUP). The system calls
 * (setxattr, getxattr) speak the xattr form: version 2, every entry 8
 * bytes, the short ones with id 0xFFFFFFFF. extkit_acl_from_xattr
 * (xattrbuild.h) goes one way, extkit_acl_to_xattr the other.
 */
#ifndef EXTKIT_ACL_H
#define EXTKIT_ACL_H

#include <stddef.h>
#include <stdint.h>

#define EXTKIT_ACL_EXT4_VERSION		1u
#define EXTKIT_ACL_XATTR_VERSION	2u
#define EXTKIT_ACL_UNDEFINED_ID		0xFFFFFFFFu

/* Bytes the xattr form of an ext4 value of in_size bytes takes at most. */
static inline size_t extkit_acl_xattr_max_size(size_t in_size)
{
	return 4 + 2 * (in_size >= 4 ? in_size - 4 : 0);
}

/*
 * The ext4 form in in (in_size bytes) to the xattr form in out
 * (extkit_acl_xattr_max_size(in_size) bytes); *size gets its length.
 * -EFSCORRUPTED for a bad version, an unknown tag or an entry cut short.
 */
int extkit_acl_to_xattr(const uint8_t *in, size_t in_size, uint8_t *out,
			size_t *size);

#endif /* EXTKIT_ACL_H */
