/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Encrypted inodes (fscrypt, the encrypt feature), as e2fsck checks
 * them: pass 1 reads the encryption context of every inode with
 * EXT4_ENCRYPT_FL (the extended attribute of index 9, name "c") and
 * keeps a small policy number for it; pass 2 asks for the numbers of an
 * encrypted directory and of the inodes its entries name.
 *
 * Memory: encrypted inodes are few, and made in runs that share one
 * policy (a directory's files), so the map keeps runs of consecutive
 * inode numbers with their policy (12 bytes a run, sorted by inode),
 * plus the distinct policies seen (a hash set, dropped after pass 1).
 */
#ifndef EXTKIT_FSCK_ENCRYPT_H
#define EXTKIT_FSCK_ENCRYPT_H

#include <stddef.h>
#include <stdint.h>

#include "inode.h"

struct fsck_ctx;

#define FSCK_ENC_NONE		UINT32_MAX	/* not (validly) encrypted */
/* A context version this fsck does not know (3 and up): it may be
 * valid, so it is kept; all such inodes share this number. */
#define FSCK_ENC_UNKNOWN	(UINT32_MAX - 1)

/* Inodes first..last have policy number policy. */
struct fsck_enc_run {
	uint32_t first;
	uint32_t last;
	uint32_t policy;
};

struct fsck_enc_policy;

struct fsck_enc {
	struct fsck_enc_run *runs;	/* sorted by inode */
	size_t n_runs, cap_runs;
	struct fsck_enc_policy *set;	/* open addressing, pass 1 only */
	size_t set_n, set_cap;
	uint32_t next_id;
};

/*
 * The policy number of an encryption context (len bytes): 0 and *id
 * set (FSCK_ENC_UNKNOWN for a version this fsck does not know), 1 when
 * the context is corrupt (version 0, or a version 1 or 2 context of the
 * wrong size), -ENOMEM. Two contexts get one number when they differ
 * in their nonce only (the last 16 bytes: the policy is the rest).
 */
int fsck_enc_policy_id(struct fsck_enc *enc, const uint8_t *val,
		       uint32_t len, uint32_t *id);
/* Records inode ino with policy number id: 0 or -ENOMEM. */
int fsck_enc_add(struct fsck_enc *enc, uint32_t ino, uint32_t id);
/* The policy number of inode ino, FSCK_ENC_NONE when none. */
uint32_t fsck_enc_policy_of(const struct fsck_enc *enc, uint32_t ino);
/* After pass 1: only the runs are needed from now on. */
void fsck_enc_pass1_done(struct fsck_enc *enc);
void fsck_enc_free(struct fsck_enc *enc);

/*
 * Pass 1, an inode with EXT4_ENCRYPT_FL: without an encryption context
 * the flag goes (*inode changed, *dirty set); with a corrupt one the
 * inode is cleared (1); else it is recorded. 0, 1 or -ENOMEM.
 */
int fsck_enc_check_inode(struct fsck_ctx *ctx, uint32_t ino,
			 struct extkit_inode *inode, int *dirty);

#endif /* EXTKIT_FSCK_ENCRYPT_H */
