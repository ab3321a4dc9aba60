// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 1: a device, FIFO or socket inode, or one of no known type, that
 * is really a directory (a mode word damaged, the rest intact). Its
 * first mapped block is read; when it opens with a '.' record naming the
 * inode itself and a '..' record naming an inode in range, both valid
 * records, the type is set back to a directory (e2fsck's
 * check_is_really_dir makes the same test). An inline inode needs its
 * system.data and the parent number and first record of an inline
 * directory. The directory checks that follow then see a directory and keep
 * every entry, where clearing a "special file" with blocks would drop a
 * whole subtree into lost+found.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bmap.h"
#include "dir.h"
#include "fs.h"
#include "inline.h"
#include "inode.h"
#include "ondisk.h"

#include "fsck.h"
#include "pass1.h"
#include "problem.h"

/* Whether the record at off names name and an inode in 1..max, with
 * a valid rec_len; its rec_len in *len. */
static int dir_record(const struct extkit_dir_format *fmt,
		      const uint8_t *buf, uint32_t off, const char *name,
		      uint32_t *len)
{
	uint32_t nl = (uint32_t)strlen(name);
	uint32_t ino = extkit_dirent_inode(buf + off);

	if (extkit_dirent_check(fmt, buf, off, fmt->block_size - fmt->tail_len,
				len) != EXTKIT_DIRENT_OK)
		return 0;
	return ino && ino <= fmt->inodes_count &&
	       extkit_dirent_name_len(fmt,
			(const struct ext2_dir_entry_2 *)(buf + off)) == nl &&
	       memcmp(buf + off + EXT2_DIR_ENTRY_HEADER_LEN, name, nl) == 0;
}

/* Whether n names an inode a directory entry can name: the root or one
 * past the reserved ones. */
static int entry_inode_ok(const struct extkit_fs *fs, uint32_t n)
{
	return n == EXT2_ROOT_INO ||
	       (n >= fs->g.first_ino && n < fs->sb.inodes_count);
}

/*
 * Whether inline inode ino reads as an inline directory: a system.data
 * attribute (a device never has one), a size that is a multiple of 4,
 * the 4-byte parent number, then a first record naming no inode or a
 * usable one, within the 56 bytes left in i_block (its rec_len may be
 * damaged otherwise: the salvage in pass 2 deals with it).
 */
static int inline_looks_like_dir(struct fsck_ctx *ctx, uint32_t ino,
				 const struct extkit_inode *inode)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t size;
	uint32_t first = inode->block[1], rec_len;

	if (!extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_INLINE_DATA))
		return 0;
	size = fsck_inline_dir_size(ctx, ino);
	/* i_block[2] starts with the first record's rec_len (le16) */
	rec_len = inode->block[2] & 0xffff;
	return size && !(size & 3) && entry_inode_ok(fs, inode->block[0]) &&
	       (!first || entry_inode_ok(fs, first)) &&
	       rec_len <= EXTKIT_INLINE_IBLOCK - 4;
}

/* Whether the first block of inode ino holds '.' (ino) and '..'. */
static int looks_like_dir(struct fsck_ctx *ctx, uint32_t ino,
			  const struct extkit_inode *inode)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_dir_format fmt;
	struct extkit_inode dir = *inode;
	uint64_t pblk = 0;
	uint32_t len;
	uint8_t *buf;
	int ok = 0;

	if (inode->flags & EXT4_INLINE_DATA_FL)
		return inline_looks_like_dir(ctx, ino, inode);
	/* mapped as the directory it would be */
	dir.mode = (uint16_t)(S_IFDIR | (inode->mode & 07777));
	if (extkit_bmap(fs, &dir, 0, &pblk) || pblk <= fs->sb.first_data_block
	    || pblk >= fs->sb.blocks_count)
		return 0;
	buf = malloc(fs->g.block_size);
	if (!buf)
		return 0;
	extkit_dir_format_init(fs, &fmt);
	if (extkit_fs_read_block(fs, pblk, buf) == 0 &&
	    dir_record(&fmt, buf, 0, ".", &len) &&
	    extkit_dirent_inode(buf) == ino && len < fmt.block_size &&
	    dir_record(&fmt, buf, len, "..", &len))
		ok = 1;
	free(buf);
	return ok;
}

void pass1_check_really_dir(struct fsck_ctx *ctx, uint32_t ino,
			    struct extkit_inode *inode, int *dirty)
{
	uint16_t mode = inode->mode;
	struct problem_context pctx;

	/* a symlink is believed, as a file or directory (not called) */
	if (S_ISLNK(mode) || !looks_like_dir(ctx, ino, inode))
		return;
	clear_problem_context(&pctx);
	pctx.ino = ino;
	pctx.inode = inode;
	pctx.str = pass1_special_name(mode);
	if (!pctx.str)
		pctx.str = "file of no known type";
	if (fix_problem(ctx, PR_1_TREAT_AS_DIR, &pctx)) {
		inode->mode = (uint16_t)(S_IFDIR | (mode & 07777));
		*dirty = 1;
	}
}
