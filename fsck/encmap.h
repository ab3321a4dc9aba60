/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The encryption policies of encrypted inodes (fscrypt, the encrypt
 * feature): pass 1 gives each encryption context it reads a small
 * policy number (encrypt.c) and records the inode with it; pass 2 asks
 * for the numbers of an encrypted directory and of the inodes its
 * entries name (as e2fsck's encrypted_files.c).
 *
 * Memory: encrypted inodes are few, and made in runs that share one
 * policy (a directory's files), so the map keeps runs of consecutive
 * inode numbers with their policy (12 bytes a run, sorted by inode),
 * plus the distinct policies seen (a hash set, dropped after pass 1).
 */
#ifndef EXTKIT_FSCK_ENCMAP_H
#define EXTKIT_FSCK_ENCMAP_H

#include <stddef.h>
#include <stdint.h>

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

/* The bytes of a context fsck_enc_policy_id reads (a v2 context). */
#define FSCK_ENC_CONTEXT_MAX	40

/* One distinct policy: the context without its nonce (at most 24
 * bytes, a v2 policy). */
#define FSCK_ENC_POLICY_MAX	24
struct fsck_enc_policy {
	uint8_t key[FSCK_ENC_POLICY_MAX];
	uint8_t len;			/* 0: empty slot */
	uint32_t id;
};

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
 * wrong size), -ENOMEM. val holds the first FSCK_ENC_CONTEXT_MAX bytes
 * (or all) of a context of len bytes. Two contexts get one number when
 * they differ in their nonce only (the last 16 bytes: the policy is the
 * rest).
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

#endif /* EXTKIT_FSCK_ENCMAP_H */
