/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small metadata_csum filesystem in memory for the checksum-rewrite
 * suites (test_csum_rewrite.c): every structure a new UUID re-seeds,
 * each with its checksum right, and a verifier that checks them all
 * with lib's own checks under the seed fs->sb.uuid gives.
 */
#ifndef EXTKIT_TEST_CSFS_H
#define EXTKIT_TEST_CSFS_H

#include <stdint.h>

#include "fs.h"
#include "io.h"

#define CSFS_BS		1024u
#define CSFS_FILE	12	/* extent tree of depth 1, an EA block */
#define CSFS_DIR	13	/* block-mapped directory, one leaf */
#define CSFS_EA_OWNER	14	/* in-inode entry naming CSFS_EA_INODE */
#define CSFS_EA_INODE	15	/* an EA inode, its value in 2 blocks */
#define CSFS_NAMES	150	/* names in the root: an htree */

struct csfs {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t ea_block;	/* CSFS_FILE's EA block */
	uint64_t tree_block;	/* CSFS_FILE's extent tree block */
	uint64_t dir_block;	/* CSFS_DIR's leaf */
};

/* Builds it (journal of 1024 blocks when journal is set) and opens it. */
void csfs_make(struct csfs *c, int journal);
/* Closes and reopens c->fs on c->io. */
void csfs_reopen(struct csfs *c);
void csfs_close(struct csfs *c);

/* What csfs_verify checked and what failed. */
enum csfs_kind {
	CSFS_GROUP, CSFS_BBITMAP, CSFS_IBITMAP, CSFS_INODE, CSFS_EXTENT,
	CSFS_LEAF, CSFS_DX, CSFS_EA_BLOCK, CSFS_EA_HASH, CSFS_EA_ENTRY,
	CSFS_KINDS
};

struct csfs_report {
	unsigned int checked[CSFS_KINDS];
	unsigned int bad[CSFS_KINDS];
	unsigned int inodes;	/* inodes with any byte set */
};

/* Every checksum and value hash of fs under its current seed; returns
 * the number of bad ones (the superblock's own included). */
unsigned int csfs_verify(struct extkit_fs *fs, struct csfs_report *rep);

#endif /* EXTKIT_TEST_CSFS_H */
