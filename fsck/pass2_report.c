// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2's report about one record: the problem context filled from the
 * directory being walked and the record at an offset of its block (inode,
 * name, file type), for pass2.c, pass2_salvage.c and pass2_csum.c.
 */
#include "config.h"

#include "dir.h"
#include "ondisk.h"

#include "fsck.h"
#include "pass2.h"
#include "problem.h"

void pass2_fill_pctx(struct dir_state *ds, struct problem_context *pctx,
		     const uint8_t *buf, uint32_t off)
{
	const uint8_t *p = buf + off;

	clear_problem_context(pctx);
	pctx->ino = ds->ino;
	pctx->num = off;
	pctx->blkcount = (int64_t)ds->lblk;
	pctx->de_inode = extkit_dirent_inode(p);
	pctx->de_name_len = extkit_dirent_name_len(&ds->fmt,
					(const struct ext2_dir_entry_2 *)p);
	if (pctx->de_name_len > EXT2_NAME_LEN)
		pctx->de_name_len = EXT2_NAME_LEN;
	pctx->de_name = (const char *)p + EXT2_DIR_ENTRY_HEADER_LEN;
	pctx->de_type = extkit_dirent_file_type(&ds->fmt,
					(const struct ext2_dir_entry_2 *)p);
}

int pass2_problem(struct dir_state *ds, uint32_t code, const uint8_t *buf,
		  uint32_t off)
{
	struct problem_context pctx;

	pass2_fill_pctx(ds, &pctx, buf, off);
	return fix_problem(ds->ctx, code, &pctx);
}
