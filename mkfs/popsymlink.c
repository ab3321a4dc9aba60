// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: symbolic links. A target shorter than i_block (60 bytes) is
 * kept in i_block (a fast link); with inline_data a longer one may go
 * inline (i_block and system.data, popinline.c); else it takes a block.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk.h"

#include "populate.h"

/*
 * With inline_data, a target too long for i_block (60 bytes or more)
 * goes inline when i_block and the in-inode system.data can hold it, as
 * e2fsprogs' ext2fs_symlink does (mke2fs -d; an exact 60 bytes with an
 * empty system.data), and the link's other attributes fit in the inode
 * too, and there are no quotas: e2fsck (1.47.0 and 1.47.4) skips its
 * check_blocks for an inline symlink, so it counts neither its EA block
 * nor its inode in the quotas (mke2fs's quotas leave it out too, the
 * kernel's count it: the kernel's first removal of one makes the
 * quotas wrong); such a link takes a block here. 1 when written
 * inline, 0 when it takes a block.
 */
static int inline_symlink(struct pop *p, uint32_t ino,
			  const struct pop_meta *m, const char *target,
			  size_t len)
{
	struct pop_meta lm = *m;
	int rc;

	if (!pop_inline_ok(p, ino) ||
	    extkit_has_ro_compat(&p->fs->sb, EXT4_FEATURE_RO_COMPAT_QUOTA))
		return 0;
	lm.size = len;	/* an archive's entry gives 0 */
	rc = pop_inline_fits(p, &lm, 1);
	if (rc <= 0)
		return rc;
	rc = pop_inline_file(p, ino, &lm, (const uint8_t *)target);
	return rc ? rc : 1;
}

int pop_symlink(struct pop *p, uint32_t ino, const struct pop_meta *m,
		const char *target, size_t len)
{
	struct extkit_inode in = { 0 };
	struct pop_file f;
	int rc;

	if (len < sizeof(in.block)) {
		/* fast: the bytes in i_block */
		extkit_inode_set_iblock_bytes(&in, target, len);
		in.size = len;
		return pop_write_inode(p, ino, m, &in, 1);
	}
	if (len >= p->fs->g.block_size)
		return -ENAMETOOLONG;
	rc = inline_symlink(p, ino, m, target, len);
	if (rc)
		return rc < 0 ? rc : 0;
	rc = pop_file_begin(p, &f, len);
	if (!rc)
		rc = pop_file_write(p, &f, 0, target, len);
	if (!rc)
		rc = pop_file_end(p, &f, ino, &in);
	pop_file_free(&f);
	return rc ? rc : pop_write_inode(p, ino, m, &in, 1);
}
