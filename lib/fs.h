/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A filesystem handle: ties the io, the superblock and the groups together. */
#ifndef EXTKIT_FS_H
#define EXTKIT_FS_H

#include <stdint.h>

#include "group.h"
#include "io.h"
#include "ondisk.h"
#include "super.h"

#define EXTKIT_FS_WRITE		0x1	/* open read-write */
#define EXTKIT_FS_EXCL		0x2	/* exclusive open of block devices */
#define EXTKIT_FS_FORCE		0x4	/* open despite unsupported features */
#define EXTKIT_FS_NO_GDT_CHECK	0x8	/* keep descriptors that point outside */
#define EXTKIT_FS_NO_MMP	0x10	/* the caller takes the MMP block */
#define EXTKIT_FS_PARTIAL	0x20	/* read-only: accept an image shorter
					 * than the filesystem (fs->truncated;
					 * reads past its end fail) */

struct extkit_fs {
	struct extkit_io *io;
	struct ext2_super_block raw_sb;	/* as read; encode() writes into it */
	struct extkit_super sb;
	struct extkit_geom g;
	struct extkit_group *groups;	/* g.group_count descriptors */
	uint8_t *gdt_raw;		/* descriptor blocks as read; NULL for
					 * a new filesystem (mkfs) */
	uint64_t sb_block;		/* 0: primary; else a backup's block */
	int flags;
	int truncated;			/* the image ends before the fs does */
	int owns_io;
	int mmp_started;		/* close: clean MMP sequence */
	char *device_name;
	int alloc_whole_clusters;	/* bigalloc: the block allocation
					 * functions of alloc.h take whole
					 * free clusters (see there) */
};

/*
 * Opens path. On failure *why (if non-NULL) gets a one-line reason for a
 * malformed superblock or descriptor table; the return code says the rest.
 */
int extkit_fs_open(const char *path, int flags, struct extkit_fs **out,
		   const char **why);
/*
 * Opens over an existing io. sb_block 0 reads the primary superblock;
 * otherwise block sb_block of size block_size holds a backup superblock.
 */
int extkit_fs_open_io(struct extkit_io *io, int flags, uint64_t sb_block,
		      uint32_t block_size, struct extkit_fs **out,
		      const char **why);
void extkit_fs_close(struct extkit_fs *fs);

/* Block reads/writes that refuse block numbers outside the filesystem. */
int extkit_fs_read_block(struct extkit_fs *fs, uint64_t blk, void *buf);
int extkit_fs_write_block(struct extkit_fs *fs, uint64_t blk,
			  const void *buf);

/*
 * s_kbytes_written as e2fsprogs keeps it: when not 0 (mke2fs sets 1 for
 * ext4's features; 0 means nobody counts), the KiB fs->io wrote since
 * the last call, and the superblock about to be written, are added
 * (nothing when nothing was written).
 * Call it just before the last superblock write of a run.
 */
void extkit_fs_add_kbytes_written(struct extkit_fs *fs);
/* Sets s_kbytes_written (mke2fs starts it at 1 on ext4). */
void extkit_fs_set_kbytes_written(struct extkit_fs *fs, uint64_t kb);
/*
 * Writes the superblock and descriptors, primary and every backup. Every
 * place is checked against the target's size first (-EXTKIT_ETRUNC before
 * any write); the primary superblock is written last, so after a failed
 * write it still holds the previous state.
 */
int extkit_fs_write_super(struct extkit_fs *fs);
/*
 * Writes the superblock to the backups, then the primary (descriptors
 * untouched), as e2label and tune2fs do for a change that is in the
 * superblock alone; checked against the target's size first.
 */
int extkit_fs_write_supers(struct extkit_fs *fs);
/* Writes the primary superblock only (descriptors untouched). */
int extkit_fs_write_primary_super(struct extkit_fs *fs);
/* Block holding descriptor block i (primary copy). */
uint64_t extkit_fs_desc_block(const struct extkit_fs *fs, uint32_t i);

static inline int extkit_fs_valid_block(const struct extkit_fs *fs,
					uint64_t blk)
{
	return blk >= fs->sb.first_data_block && blk < fs->sb.blocks_count;
}

/*
 * metadata_csum: whether the superblock as read carries its checksum
 * (1 without the feature).
 */
int extkit_fs_super_csum_ok(const struct extkit_fs *fs);
/*
 * gdt_csum or metadata_csum: whether descriptor g as read carries its
 * checksum; *want gets the right one (1 without the features).
 */
int extkit_fs_group_csum_ok(const struct extkit_fs *fs, uint32_t g,
			    uint16_t *want);

#endif /* EXTKIT_FS_H */
