// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inline_data: finding, reading and rewriting the bytes an inode keeps
 * in i_block and in its "system.data" attribute.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "inline.h"
#include "inode.h"
#include "ondisk.h"
#include "xattr.h"

int extkit_inline_locate(const struct extkit_fs *fs, const uint8_t *raw,
			 struct extkit_inline *in)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	struct extkit_xattr x;

	memset(in, 0, sizeof(*in));
	in->iblock = raw + offsetof(struct ext2_inode, i_block);
	if (!extkit_xattr_ibody_region(raw, fs->g.inode_size, &r))
		return -ENODATA;
	extkit_xattr_format_init(fs, &fmt);
	if (extkit_xattr_region_check(&fmt, &r) != EXTKIT_XATTR_OK)
		return -EFSCORRUPTED;
	if (!extkit_xattr_find(&r, EXTKIT_INLINE_EA_INDEX,
			       EXTKIT_INLINE_EA_NAME, &x))
		return -ENODATA;
	if (x.value_inum)
		return -EFSCORRUPTED;
	in->ea = x.value_size ? x.value : NULL;
	in->ea_len = x.value_size;
	in->entry_off = (uint32_t)(r.buf - raw) + x.offset;
	return 0;
}

/* Reads inode ino raw into a new *raw (freed by the caller, also on an
 * error) and finds its inline data in it. */
static int load_inline(struct extkit_fs *fs, uint32_t ino, uint8_t **raw,
		       struct extkit_inline *in)
{
	int rc;

	*raw = malloc(fs->g.inode_size);
	if (!*raw)
		return -ENOMEM;
	rc = extkit_inode_read_raw(fs, ino, *raw);
	return rc ? rc : extkit_inline_locate(fs, *raw, in);
}

int extkit_inline_read(struct extkit_fs *fs, uint32_t ino, uint8_t *buf,
		       uint32_t cap, uint32_t *len)
{
	struct extkit_inline in;
	struct extkit_inode inode;
	uint8_t *raw;
	uint64_t n;
	int rc;

	*len = 0;
	rc = load_inline(fs, ino, &raw, &in);
	if (rc)
		goto out;
	extkit_inode_decode(raw, fs->g.inode_size, &inode);
	n = inode.size < extkit_inline_capacity(&in) ? inode.size :
		extkit_inline_capacity(&in);
	if (n > cap)
		n = cap;
	memcpy(buf, in.iblock, n < EXTKIT_INLINE_IBLOCK ? n :
	       EXTKIT_INLINE_IBLOCK);
	if (n > EXTKIT_INLINE_IBLOCK)
		memcpy(buf + EXTKIT_INLINE_IBLOCK, in.ea,
		       n - EXTKIT_INLINE_IBLOCK);
	*len = (uint32_t)n;
out:
	free(raw);
	return rc;
}

int extkit_inline_write(struct extkit_fs *fs, uint32_t ino, int part,
			uint32_t off, const uint8_t *data, uint32_t len)
{
	struct ext2_ext_attr_entry *e;
	struct extkit_inline in;
	uint8_t *raw, *dst;
	int rc;

	rc = load_inline(fs, ino, &raw, &in);
	if (rc)
		goto out;
	rc = -EINVAL;
	if (part == 0 && off <= EXTKIT_INLINE_IBLOCK &&
	    len <= EXTKIT_INLINE_IBLOCK - off) {
		dst = raw + offsetof(struct ext2_inode, i_block) + off;
	} else if (part == 1 && in.ea && off <= in.ea_len &&
		   len <= in.ea_len - off) {
		dst = raw + (in.ea - raw) + off;
	} else {
		goto out;
	}
	memcpy(dst, data, len);
	e = (void *)(raw + in.entry_off);
	/* a hash of 0 (the kernel's and e2fsprogs' in the inode) stays 0:
	 * the kernel edits the value in place without one */
	if (part == 1 && e->e_hash) {
		e->e_hash = cpu_to_le32(extkit_xattr_hash_entry(
			(const uint8_t *)e->e_name, e->e_name_len,
			raw + (in.ea - raw), in.ea_len, 0));
	}
	rc = extkit_inode_write_raw(fs, ino, raw);
out:
	free(raw);
	return rc;
}
