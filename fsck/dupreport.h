/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Blocks claimed twice, reported as e2fsck's passes 1B-1D report them
 * (dupreport.c): pass 1B lists each inode's shared blocks, pass 1C finds
 * each file's name, pass 1D names each file with the files it shares
 * with (by path, inode and mtime, "<filesystem metadata>" where group
 * metadata is involved) before its blocks are cloned (pass1b.c).
 */
#ifndef EXTKIT_FSCK_DUPREPORT_H
#define EXTKIT_FSCK_DUPREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "inode.h"

struct fsck_ctx;

/* One inode naming shared blocks. */
struct dup_file {
	uint32_t ino;
	uint32_t dir;		/* a directory naming it (pass 1C), 0: none */
	char *name;		/* its name there */
	uint32_t mtime;
	uint64_t nblocks;	/* its references to shared blocks */
	int meta;		/* one of them is group metadata */
	uint32_t *shares;	/* the other inodes naming one of them, in
				 * e2fsck's order (dupreport.c) */
	size_t nshares;
	size_t run0, run1;	/* its runs: runs[run0 .. run1 - 1] */
};

/* A run of shared blocks one inode names. */
struct dup_run {
	uint64_t start;
	uint64_t len;
	uint32_t ino;
};

struct dup_report {
	struct dup_file *files;		/* inode order */
	size_t nfiles, cap;
	struct dup_run *runs;		/* every inode's runs */
	size_t nruns, runs_cap;
	size_t first_run;		/* the current inode's first */
	uint32_t shift;			/* bigalloc: sharing is by cluster */
	uint64_t clusters;		/* the current inode's count */
	uint64_t next_blk;		/* the block after its last one */
	char *text;			/* the 1B line being built */
	size_t text_len;
};

/* Pass 1B's header. */
void dupreport_start(struct fsck_ctx *ctx);
/* A shared block of the inode being walked (in its map's order). */
int dupreport_add(struct dup_report *r, uint32_t ino, uint64_t blk);
/* The inode's walk is over: its 1B line, and its entry kept. */
int dupreport_inode(struct fsck_ctx *ctx, struct dup_report *r,
		    uint32_t ino, const struct extkit_inode *inode);
/* Passes 1C and 1D's headers and the count; the names found and the
 * sharing worked out. */
int dupreport_resolve(struct fsck_ctx *ctx, struct dup_report *r);
/* Pass 1D's report of file f (its lines before the question). */
void dupreport_file(struct fsck_ctx *ctx, const struct dup_report *r,
		    const struct dup_file *f);
/* Whether inode ino is one pass 1D reports as a file of its own. */
int dupreport_is_file(const struct fsck_ctx *ctx, uint32_t ino);
void dupreport_free(struct dup_report *r);

#endif /* EXTKIT_FSCK_DUPREPORT_H */
