/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 2 internals shared by pass2.c, pass2_salvage.c, pass2_csum.c,
 * pass2_report.c and pass2_index.c. */
#ifndef EXTKIT_FSCK_PASS2_H
#define EXTKIT_FSCK_PASS2_H

#include <stdint.h>

#include "dir.h"

#include "fsck.h"
#include "nameset.h"

/* The directory being checked and where the walk is in it. */
struct dir_state {
	struct fsck_ctx *ctx;
	struct extkit_dir_format fmt;
	struct extkit_dir_iter *it;
	uint32_t ino;
	uint32_t dir_flags;	/* the directory's inode flags */
	uint32_t policy;	/* its encryption policy (FSCK_ENC_NONE) */
	struct fsck_dir *dir;
	uint64_t lblk;		/* current logical block */
	uint64_t pblk;		/* its physical block */
	uint32_t rec_no;	/* records seen in this block */
	int64_t prev_off;	/* previous record in this block, -1: none */
	int dirty;		/* the current record was changed */
	/* Edits of this block are for the walk only, never written: -n,
	 * or a salvage the user declined. */
	int walk_only;
	int index_broken;	/* entries of an htree directory changed */
	uint64_t hole_end;	/* holes below it were reported in a run */
	/* metadata_csum: the block's records did not parse when it was
	 * loaded; its tail is checked again after its last record */
	int tail_pending;
	struct nameset names;
	uint8_t *cmp_buf;	/* reading back an earlier name */
};

struct problem_context;
/* The problem context of the record at off of buf (pass2_report.c). */
void pass2_fill_pctx(struct dir_state *ds, struct problem_context *pctx,
		     const uint8_t *buf, uint32_t off);
/* Reports code about the record at off of buf; 1 if to be fixed. */
int pass2_problem(struct dir_state *ds, uint32_t code, const uint8_t *buf,
		  uint32_t off);
/* metadata_csum: checks the checksum of the block just loaded. */
void pass2_check_block_csum(struct dir_state *ds,
			    const struct extkit_dir_iter *it, uint8_t *buf);
/* Why the htree index of the directory cannot stand, or NULL; an
 * unknown hash version is its own problem (*code, version in num;
 * pass2_index.c). */
const char *pass2_index_problem(struct dir_state *ds, int indexed,
				uint32_t *code, uint64_t *num);
/* Has the directory rebuilt after the passes (e2fsck's pass 3A). */
void pass2_rehash_later(struct dir_state *ds);
/* Checks the valid record at off of the current block buf. */
void pass2_record(struct dir_state *ds, uint8_t *buf, uint32_t off);
void pass2_check_filetype(struct dir_state *ds, uint8_t *buf, uint32_t off,
			  uint32_t target);

/* pass2_salvage.c */
/* A record the iterator found corrupt: checked when only its inode is
 * out of range, else rewritten so that the block parses again, and the
 * walk resumes where it stands. 1 when the record stands where '.' or
 * '..' belongs: the caller checks it as a record (pass2_record). */
int pass2_salvage(struct dir_state *ds, struct extkit_dir_iter *it,
		  const struct extkit_dirent *ent);
/* 1 when the entry at off duplicates an earlier name and was cleared
 * (or left alone); it is then not counted. Renames when the inodes
 * differ. */
int pass2_check_dup_name(struct dir_state *ds, uint8_t *buf, uint32_t off);
/* The unmapped block lblk: reported with the run of holes it starts
 * (one question), each block filled with an empty directory block. */
void pass2_hole(struct dir_state *ds, uint64_t lblk);

#endif /* EXTKIT_FSCK_PASS2_H */
