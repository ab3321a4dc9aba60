// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * popinto IMAGE SOURCE: runs extkit-mkfs's -d step (mkfs_populate) on an
 * empty filesystem another tool made (mke2fs -t ext4: extents, flex_bg,
 * 64bit, metadata_csum, uninitialised groups), then writes the
 * superblock and descriptors. A test helper for the ext4 paths of -d
 * while extkit-mkfs itself makes ext2 only.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bmap.h"
#include "clock.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "cli/msg.h"

#include "../../mkfs/mkfs.h"
#include "../../mkfs/populate.h"

const char cli_prog[] = "popinto";

/* The first block of directory ino and how many follow it contiguously. */
static int dir_blocks(struct extkit_fs *fs, uint32_t ino, uint64_t *first,
		      uint32_t *count)
{
	struct extkit_inode in;
	uint64_t n, blk;
	int rc = extkit_inode_read(fs, ino, &in);

	n = rc ? 0 : in.size / fs->g.block_size;
	*count = 0;
	for (uint64_t i = 0; !rc && i < n; i++) {
		rc = extkit_bmap(fs, &in, i, &blk);
		if (!rc && i == 0)
			*first = blk;
		else if (!rc && blk != *first + i)
			rc = -EXTKIT_EUNSUPP;
		(*count)++;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct mkfs_opts o;
	struct mkfs_layout l;
	struct extkit_fs *fs;
	const char *why = NULL, *bad;
	uint32_t n;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: popinto IMAGE SOURCE\n");
		return 2;
	}
	memset(&o, 0, sizeof(o));
	o.revision = 1;
	memset(&l, 0, sizeof(l));
	o.source = argv[2];
	o.quiet = 1;
	if (extkit_clock_now(&o.now, &o.fixed_time, &bad))
		return 2;
	o.clamp_mtime = o.fixed_time;
	rc = extkit_fs_open(argv[1], EXTKIT_FS_WRITE, &fs, &why);
	if (rc) {
		cli_error("%s: %s", argv[1], why ? why : extkit_strerror(rc));
		return 1;
	}
	rc = dir_blocks(fs, EXT2_ROOT_INO, &l.root_block, &n);
	if (!rc && n != 1)
		rc = -EXTKIT_EUNSUPP;
	if (!rc)
		rc = dir_blocks(fs, EXT2_GOOD_OLD_FIRST_INO, &l.lpf_block,
				&l.lpf_blocks);
	if (!rc)
		rc = mkfs_populate(&o, &l, fs);
	if (!rc)
		rc = extkit_fs_write_super(fs);
	if (rc && rc != -ECANCELED)
		cli_error("%s: %s", argv[1], extkit_strerror(rc));
	extkit_fs_close(fs);
	return rc ? 1 : 0;
}
