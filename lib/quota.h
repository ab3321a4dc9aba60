/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Quota files (the quota feature): the user, group and project quota
 * inodes hold a "v2" quota file of 1 KiB quota blocks: a header (magic
 * per type, version), the info (grace times, flags, block count, free
 * lists), a radix tree of four levels indexed by the id's bytes (root at
 * quota block 1) and data blocks of fixed-size entries, one per id with
 * its usage (bytes, inodes) and limits. The layout is the one the
 * kernel's fs/quota/quota_tree.c and e2fsprogs' quotaio_tree.c share.
 *
 * Reading checks every reference and entry (bounded: each block is
 * visited once, the tree has four levels); building lays out the file
 * as e2fsprogs writes it (ids inserted in ascending order), so that a
 * file rewritten by extkit equals e2fsck's.
 */
#ifndef EXTKIT_QUOTA_H
#define EXTKIT_QUOTA_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"
#include "inode.h"

#define EXTKIT_QUOTA_TYPES	3	/* user, group, project */
#define EXTKIT_QUOTA_BLOCK	1024	/* quota block size */

/* One id's usage and limits (host order). */
struct extkit_dquot {
	uint32_t id;
	uint64_t curspace;	/* bytes */
	uint64_t curinodes;
	uint64_t bhardlimit, bsoftlimit;	/* in 1 KiB units */
	uint64_t ihardlimit, isoftlimit;
	uint64_t btime, itime;	/* grace expiry, 0: none */
	uint32_t qblk;		/* read: the quota block holding it */
};

/* A set of dquots by id (open addressing). */
struct extkit_quota_set {
	struct extkit_dquot *v;
	uint8_t *used;
	size_t cap;		/* power of two, or 0 */
	size_t n;
};

/* Returns the dquot of id, creating an empty one; NULL on ENOMEM. */
struct extkit_dquot *extkit_quota_set_get(struct extkit_quota_set *s,
					  uint32_t id);
/* The dquot of id or NULL. */
struct extkit_dquot *extkit_quota_set_find(const struct extkit_quota_set *s,
					   uint32_t id);
/* The dquots sorted by id: an array of n pointers into s (free() it). */
int extkit_quota_set_sorted(const struct extkit_quota_set *s,
			    struct extkit_dquot ***out);
void extkit_quota_set_free(struct extkit_quota_set *s);

/* What a quota file holds. */
struct extkit_quota_file {
	uint32_t version;	/* 0 (48-byte entries) or 1 (72-byte) */
	uint32_t bgrace, igrace, flags;
	uint32_t blocks, free_blk, free_entry;
	struct extkit_quota_set dq;
};

/* "user", "group", "project". */
const char *extkit_quota_type_name(int type);
/* The superblock's quota inode of type (0: none). */
uint32_t extkit_quota_inum(const struct extkit_super *sb, int type);
/*
 * The id an inode is charged to for type: uid, gid, or the project id
 * (0 when the inode has no room for it).
 */
uint32_t extkit_quota_id(const struct extkit_inode *inode, int type);
/*
 * Whether inode ino is charged to quotas at all: the root and inodes from
 * s_first_ino on, other than the project quota inode, the orphan file
 * and EA inodes (whose blocks and inode count go to their owners).
 */
int extkit_quota_charged(const struct extkit_fs *fs, uint32_t ino,
			 const struct extkit_inode *inode);
/*
 * With ea_inode: the EA inodes raw inode's attributes name (in the inode
 * and in a valid EA block, read into blk, a block's worth of bytes):
 * each is charged to the inode's owners as one more inode, as the
 * kernel (ext4_xattr_inode_alloc_quota) and e2fsck count them.
 */
uint32_t extkit_quota_ea_inodes(struct extkit_fs *fs, const uint8_t *raw,
				const struct extkit_inode *in, uint8_t *blk);

/*
 * Reads and checks the quota file of type in inode ino into *qf (the
 * caller frees qf->dq). -EFSCORRUPTED with *why (a static string) when
 * the file is not a valid quota file of that type; other negative codes
 * for I/O errors or ENOMEM.
 */
int extkit_quota_read(struct extkit_fs *fs, uint32_t ino, int type,
		      struct extkit_quota_file *qf, const char **why);

/*
 * Lays out a quota file of type holding the n dquots (ascending ids;
 * those with neither usage nor limits are left out) with the given grace
 * times and flags, as e2fsprogs writes it: *buf (malloc'd) of *len bytes,
 * a multiple of EXTKIT_QUOTA_BLOCK. Grace expiry times follow the soft
 * limits (now + grace when newly over a limit, 0 when under).
 */
int extkit_quota_build(int type, uint32_t bgrace, uint32_t igrace,
		       uint32_t flags, struct extkit_dquot *const *dq,
		       size_t n, uint32_t now, uint8_t **buf, size_t *len);

/*
 * Replaces the contents of quota inode ino by buf (len bytes): the new
 * blocks are found first (nothing is written on ENOSPC), then the old
 * ones are freed, the data and map written, and the inode made a quota
 * inode (regular, 0600, immutable, one link, i_size len) as e2fsprogs
 * makes it. The on-disk bitmaps must be right
 * (after pass 5); group counts are written. On bigalloc the file takes
 * whole clusters (an extent map; -EXTKIT_EUNSUPP without extents).
 */
int extkit_quota_write_inode(struct extkit_fs *fs, uint32_t ino,
			     const uint8_t *buf, size_t len, uint32_t now);
/* The same without writing the superblock and descriptors (a writer
 * that writes them last, as mkfs). */
int extkit_quota_write_inode_nocommit(struct extkit_fs *fs, uint32_t ino,
				      const uint8_t *buf, size_t len,
				      uint32_t now);

#endif /* EXTKIT_QUOTA_H */
