/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ownership map of a filesystem's metadata: which block runs the
 * superblock copies, the descriptor blocks, the reserved GDT blocks, each
 * group's bitmaps and inode table, and the metadata held by reserved
 * inodes (the resize inode's double indirect block, the journal, the
 * orphan file, the quota files) and the MMP block claim. A place is
 * trusted only when it lies where its kind may lie and no other claim
 * overlaps it (e2fsprogs' ext2fs_check_desc does the first half of this
 * with a block bitmap; the map keeps who claims what, so a caller can
 * say which of two claims is wrong).
 *
 * Claims are runs (start, len); the map is a sorted array, built once
 * and queried: O(n log n) to build, a query visits the claims that
 * overlap it (plus a run of neighbours). Nothing here reads a block
 * except extkit_owners_add_inodes(), which walks the reserved inodes'
 * maps read-only.
 */
#ifndef EXTKIT_OWNERS_H
#define EXTKIT_OWNERS_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

enum extkit_owner {
	EXTKIT_OWN_SUPER,		/* a superblock copy (and boot block) */
	EXTKIT_OWN_DESC,		/* group descriptor blocks */
	EXTKIT_OWN_RESERVED_GDT,	/* reserved GDT blocks */
	EXTKIT_OWN_BLOCK_BITMAP,
	EXTKIT_OWN_INODE_BITMAP,
	EXTKIT_OWN_INODE_TABLE,
	EXTKIT_OWN_RESIZE,		/* the resize inode's double indirect */
	EXTKIT_OWN_JOURNAL,		/* the journal inode's blocks */
	EXTKIT_OWN_MMP,
	EXTKIT_OWN_ORPHAN_FILE,
	EXTKIT_OWN_QUOTA,
	EXTKIT_OWN_KINDS
};

struct extkit_claim {
	uint64_t start;
	uint64_t len;
	uint32_t group;		/* the group of a per-group place; else 0 */
	uint8_t kind;		/* enum extkit_owner */
};

struct extkit_owners {
	struct extkit_claim *c;
	size_t n, cap;
	uint64_t *max_end;	/* after sorting: max end of c[0..i] */
	int sorted;
};

void extkit_owners_init(struct extkit_owners *o);
void extkit_owners_free(struct extkit_owners *o);

/* Adds one claim (len 0 adds nothing); -ENOMEM. Unsorts the map. */
int extkit_owners_claim(struct extkit_owners *o, int kind, uint32_t group,
			uint64_t start, uint64_t len);

/* The places every group's layout fixes: superblock copies, descriptor
 * blocks (meta_bg's too), reserved GDT blocks. */
int extkit_owners_add_fixed(struct extkit_owners *o,
			    const struct extkit_fs *fs);
/* Each group's block bitmap, inode bitmap and inode table as its
 * descriptor names them (block 0 too: with 4 KiB blocks it holds the
 * superblock). */
int extkit_owners_add_groups(struct extkit_owners *o,
			     const struct extkit_fs *fs);
/*
 * The metadata reserved inodes and the superblock name: the MMP block,
 * the resize inode's double indirect block, every block (data and map)
 * of the journal, the orphan file and the quota inodes. Read through the
 * descriptors as they are: an inode whose table place is unusable, and
 * mappings outside the filesystem, are passed over (pass 1 judges them).
 */
int extkit_owners_add_inodes(struct extkit_owners *o, struct extkit_fs *fs);

/* Sorts the map for queries; -ENOMEM. */
int extkit_owners_sort(struct extkit_owners *o);

/*
 * The claims (of a sorted map) that overlap start..+len, other than
 * *self (NULL: none excluded): up to max of them copied to out; returns
 * how many there are in all.
 */
size_t extkit_owners_find(const struct extkit_owners *o, uint64_t start,
			  uint64_t len, const struct extkit_claim *self,
			  struct extkit_claim *out, size_t max);

/* "block bitmap", "reserved GDT blocks", ... */
const char *extkit_owner_name(int kind);

#endif /* EXTKIT_OWNERS_H */
