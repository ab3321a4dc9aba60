/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 1B's table of shared blocks (dups.c), for pass1b.c and extclone.c. */
#ifndef EXTKIT_FSCK_DUPS_H
#define EXTKIT_FSCK_DUPS_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

#include "fsck.h"

/* References to one shared block from inodes other than reserved ones;
 * DUP_KEEP: metadata or a reserved inode owns it (every file copies). */
#define DUP_KEEP	0x80000000u
/* DUP_BAD: the bad blocks list names it (with DUP_KEEP). */
#define DUP_BAD		0x40000000u
#define DUP_FLAGS	(DUP_KEEP | DUP_BAD)

struct fsck_dups {
	uint64_t *blk;		/* open addressing, 0 = empty slot */
	uint32_t *refs;
	size_t mask;
	/* the inodes naming shared blocks, and how many references each */
	uint32_t *sharer;
	uint64_t *sharer_refs;
	size_t nsharers, sharer_cap;
};

/* blk's reference count, its slot made if it had none. */
uint32_t *fsck_dup_slot(struct fsck_dups *d, uint64_t blk);
/* blk's count, without adding it: 0 when it has no slot. */
uint32_t fsck_dup_refs(const struct fsck_dups *d, uint64_t blk);
/* Whether pass 1 found blk claimed more than once (block_dup). */
int fsck_dup_is_shared(struct fsck_ctx *ctx, uint64_t blk);
/* Whether a block of group metadata (superblock copy, descriptors,
 * bitmaps, inode table) is blk. */
int fsck_dup_group_meta(const struct extkit_fs *fs, uint64_t blk);
/*
 * Pass 1B's owners of the shared blocks (dups.c): whether this
 * reference to blk must be copied (blk is shared and another reference,
 * or group metadata, keeps it: e2fsck's rule, the last owner keeps the
 * block); and, once it was, one reference fewer.
 */
int fsck_dup_must_copy(struct fsck_ctx *ctx, struct fsck_dups *d,
		       uint64_t blk);
void fsck_dup_copied(struct fsck_ctx *ctx, struct fsck_dups *d,
		     uint64_t blk);
/* Whether reserved inode ino keeps shared block blk rather than copy it:
 * no group metadata and no bad blocks list owns blk (the files naming it
 * copy it; a journal whose map was pointed at a file's block keeps the
 * block, the file its data). */
int fsck_dup_reserved_keeps(struct fsck_ctx *ctx, struct fsck_dups *d,
			    uint32_t ino, uint64_t blk);

#endif /* EXTKIT_FSCK_DUPS_H */
