// SPDX-License-Identifier: GPL-2.0-or-later
/* Every extended attribute of one inode, values included (xattrlist.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "error.h"
#include "xattr.h"
#include "xattrlist.h"

struct list_walk {
	struct extkit_fs *fs;
	extkit_xattr_fn fn;
	void *arg;
	uint8_t *ea_buf;	/* EXTKIT_XATTR_MAX_VALUE bytes, on demand */
	int err;		/* the first region or value skipped */
};

static int one_value(struct list_walk *w, const struct extkit_xattr *x)
{
	struct extkit_xattr_value v = {
		.name_index = x->name_index,
		.prefix = extkit_xattr_prefix(x->name_index),
		.name = x->name, .name_len = x->name_len,
		.value = x->value, .size = x->value_size,
		.value_inum = x->value_inum,
	};
	int rc;

	if (x->value_inum) {
		if (!w->ea_buf)
			w->ea_buf = malloc(EXTKIT_XATTR_MAX_VALUE);
		if (!w->ea_buf)
			return -ENOMEM;
		rc = extkit_ea_inode_read(w->fs, x->value_inum,
					  x->value_size, w->ea_buf);
		if (rc) {
			if (!w->err)
				w->err = rc;
			return 0;
		}
		v.value = w->ea_buf;
	}
	return w->fn(&v, w->arg);
}

static int region_values(struct list_walk *w,
			 const struct extkit_xattr_format *fmt,
			 const struct extkit_xattr_region *r)
{
	uint32_t off = r->first;
	struct extkit_xattr x;
	int rc;

	if (extkit_xattr_region_check(fmt, r) != EXTKIT_XATTR_OK) {
		if (!w->err)
			w->err = -EFSCORRUPTED;
		return 0;
	}
	while ((rc = extkit_xattr_next(r, &off, &x)) == 1) {
		rc = one_value(w, &x);
		if (rc)
			return rc;
	}
	return rc;
}

static int block_values(struct list_walk *w,
			const struct extkit_xattr_format *fmt, uint64_t blk)
{
	struct extkit_xattr_region r;
	uint8_t *buf;
	int rc;

	if (!extkit_fs_valid_block(w->fs, blk)) {
		if (!w->err)
			w->err = -EFSCORRUPTED;
		return 0;
	}
	buf = malloc(w->fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	rc = extkit_fs_read_block(w->fs, blk, buf);
	if (rc) {
		if (!w->err)
			w->err = rc;
		rc = 0;
	} else if (extkit_xattr_block_check(fmt, buf) != EXTKIT_XATTR_OK) {
		if (!w->err)
			w->err = -EFSCORRUPTED;
	} else {
		extkit_xattr_block_region(fmt, buf, &r);
		rc = region_values(w, fmt, &r);
	}
	free(buf);
	return rc;
}

int extkit_xattr_list(struct extkit_fs *fs, const uint8_t *raw,
		      const struct extkit_inode *in, extkit_xattr_fn fn,
		      void *arg)
{
	struct list_walk w = { .fs = fs, .fn = fn, .arg = arg };
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	int rc = 0;

	extkit_xattr_format_init(fs, &fmt);
	if (extkit_xattr_ibody_region(raw, fs->g.inode_size, &r))
		rc = region_values(&w, &fmt, &r);
	if (!rc && in->file_acl)
		rc = block_values(&w, &fmt, in->file_acl);
	free(w.ea_buf);
	return rc ? rc : w.err;
}
