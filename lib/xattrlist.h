/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every extended attribute of one inode with its value: those in the
 * inode (after i_extra_isize), then those of its EA block, values kept in
 * EA inodes read from there. For readers that copy attributes out
 * (extkit-dump extract); the parsing and the checks are xattr.c's.
 */
#ifndef EXTKIT_XATTRLIST_H
#define EXTKIT_XATTRLIST_H

#include <stdint.h>

#include "fs.h"
#include "inode.h"

struct extkit_xattr_value {
	uint8_t name_index;	/* 1 user., 2/3 POSIX ACLs, 4 trusted., ... */
	const char *prefix;	/* extkit_xattr_prefix, NULL when unknown */
	const char *name;	/* not NUL-terminated */
	uint8_t name_len;
	const uint8_t *value;	/* valid during the call */
	uint32_t size;
	uint32_t value_inum;	/* the EA inode holding it, or 0 */
};

/* Returning non-zero stops the walk with that value. */
typedef int (*extkit_xattr_fn)(const struct extkit_xattr_value *v,
			       void *arg);

/*
 * Calls fn for every attribute of inode ino (raw: its raw inode, in: the
 * same decoded). A region (the in-inode area, the block) that is not
 * valid is skipped whole, as is an attribute whose EA inode cannot be
 * read; the walk goes on and returns -EFSCORRUPTED (or the read's error)
 * at the end. Returns 0, fn's stop value, or that error.
 */
int extkit_xattr_list(struct extkit_fs *fs, const uint8_t *raw,
		      const struct extkit_inode *in, extkit_xattr_fn fn,
		      void *arg);

#endif /* EXTKIT_XATTRLIST_H */
