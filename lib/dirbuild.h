/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A whole directory laid out in memory from a list of entries: '.' and
 * '..' plus the names added, packed next-fit into blocks (the packing
 * dirspace.c counts blocks_needed with). Linear when the entries fit one
 * block or dir_index is off, keeping the order they were added in; else
 * the leaves are sorted by hash under an htree index (root in block 0,
 * leaves from block 1, index nodes after the leaves). With metadata_csum
 * each leaf gets an (empty) tail: extkit_dirblock_write sums it.
 * Used by compaction (dircompact.c) and by mkfs -d, which lays out each
 * new directory in one go instead of inserting names one by one.
 */
#ifndef EXTKIT_DIRBUILD_H
#define EXTKIT_DIRBUILD_H

#include <stdint.h>

#include "dir.h"
#include "fs.h"

struct extkit_dirbuild_entry {
	uint32_t ino;
	uint32_t hash;
	uint32_t minor;
	uint32_t name_off;
	const char *name;	/* set once the names stop moving */
	uint8_t len;
	uint8_t ftype;
};

struct extkit_dirbuild {
	struct extkit_fs *fs;
	struct extkit_dir_format fmt;
	uint32_t bs;
	uint32_t dot;			/* '.' and '..' */
	uint32_t dotdot;
	/* the directory's inode flags: a casefolded one hashes the names
	 * folded (extkit_htree_hash); 0 after init */
	uint32_t dir_flags;
	struct extkit_dirbuild_entry *e;
	uint64_t n;
	uint64_t cap;
	char *names;
	uint64_t nlen;
	uint64_t ncap;
	/* the result of extkit_dirbuild_layout: nout blocks at out */
	uint8_t *out;
	uint64_t nout;
	uint32_t *start_hash;
	int indexed;
};

void extkit_dirbuild_init(struct extkit_dirbuild *db, struct extkit_fs *fs);
/* Appends an entry (name of 1..255 bytes; -ENAMETOOLONG past that). */
int extkit_dirbuild_add(struct extkit_dirbuild *db, const char *name,
			uint32_t len, uint32_t ino, uint8_t ftype);
/* Sorts the entries by name (bytes, then length): an order independent
 * of the order they were added in. 0, or -ENOMEM (the order unchanged). */
int extkit_dirbuild_sort_names(struct extkit_dirbuild *db);
/* Blocks the directory will take (index blocks included), reading the
 * names only: the inode numbers may still be 0. */
int extkit_dirbuild_count(struct extkit_dirbuild *db, uint64_t *blocks);
/* Lays the blocks out in db->out (db->nout of them). */
int extkit_dirbuild_layout(struct extkit_dirbuild *db);
/* Forgets the entries and the result, keeping the memory for reuse. */
void extkit_dirbuild_reset(struct extkit_dirbuild *db);
void extkit_dirbuild_free(struct extkit_dirbuild *db);

#endif /* EXTKIT_DIRBUILD_H */
