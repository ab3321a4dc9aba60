// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The policy map of encrypted inodes (encmap.h): a hash set of the
 * distinct policies seen, giving each a number, and runs of inodes
 * sharing a number, sorted by inode.
 *
 * A context is v1 (28 bytes: version 1, contents mode, filenames mode,
 * flags, an 8-byte master key descriptor, a 16-byte nonce) or v2 (40:
 * version 2, the modes and flags, 4 reserved bytes, a 16-byte master
 * key identifier, the nonce); see struct fscrypt_context in the
 * kernel's fs/crypto/fscrypt_private.h. Its policy is all but the nonce.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encmap.h"

#define ENC_NONCE_SIZE		16
#define ENC_V1_SIZE		28
#define ENC_V2_SIZE		40

_Static_assert(ENC_V2_SIZE - ENC_NONCE_SIZE == FSCK_ENC_POLICY_MAX,
	       "a v2 policy fills the key");

/* ---- the policy set (pass 1) ---- */

static size_t policy_hash(const uint8_t *key, uint32_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ key[i]) * 16777619u;
	return h;
}

static struct fsck_enc_policy *policy_slot(struct fsck_enc_policy *set,
					  size_t cap, const uint8_t *key,
					  uint32_t len)
{
	size_t i = policy_hash(key, len) & (cap - 1);

	while (set[i].len && (set[i].len != len ||
			      memcmp(set[i].key, key, len)))
		i = (i + 1) & (cap - 1);
	return &set[i];
}

static int policy_set_grow(struct fsck_enc *enc)
{
	size_t cap = enc->set_cap ? enc->set_cap * 2 : 16;
	struct fsck_enc_policy *set = calloc(cap, sizeof(*set));

	if (!set)
		return -ENOMEM;
	for (size_t i = 0; i < enc->set_cap; i++)
		if (enc->set[i].len)
			*policy_slot(set, cap, enc->set[i].key,
				     enc->set[i].len) = enc->set[i];
	free(enc->set);
	enc->set = set;
	enc->set_cap = cap;
	return 0;
}

/* The policy bytes of a context of len bytes: their count, 0 when the
 * version is unknown, -1 when the context is corrupt. */
static int policy_len(const uint8_t *val, uint32_t len)
{
	if (len < 1 || val[0] == 0)
		return -1;
	if (val[0] == 1)
		return len == ENC_V1_SIZE ? ENC_V1_SIZE - ENC_NONCE_SIZE : -1;
	if (val[0] == 2)
		return len == ENC_V2_SIZE ? ENC_V2_SIZE - ENC_NONCE_SIZE : -1;
	return 0;
}

int fsck_enc_policy_id(struct fsck_enc *enc, const uint8_t *val,
		       uint32_t len, uint32_t *id)
{
	int plen = policy_len(val, len);
	struct fsck_enc_policy *p;

	if (plen < 0)
		return 1;
	if (plen == 0) {
		*id = FSCK_ENC_UNKNOWN;
		return 0;
	}
	if (2 * (enc->set_n + 1) > enc->set_cap && policy_set_grow(enc))
		return -ENOMEM;
	p = policy_slot(enc->set, enc->set_cap, val, (uint32_t)plen);
	if (!p->len) {
		memcpy(p->key, val, (size_t)plen);
		p->len = (uint8_t)plen;
		p->id = enc->next_id++;
		enc->set_n++;
	}
	*id = p->id;
	return 0;
}

/* ---- the runs (pass 1 adds, pass 2 reads) ---- */

/* The first run whose last inode is ino or above. */
static size_t run_at(const struct fsck_enc *enc, uint32_t ino)
{
	size_t lo = 0, hi = enc->n_runs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (enc->runs[mid].last < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int fsck_enc_add(struct fsck_enc *enc, uint32_t ino, uint32_t id)
{
	struct fsck_enc_run *last = enc->n_runs ?
				    &enc->runs[enc->n_runs - 1] : NULL;
	size_t at;

	if (last && last->last + 1 == ino && last->policy == id) {
		last->last = ino;
		return 0;
	}
	/* pass 1 goes in inode order: anything else is a rescan */
	at = last && ino <= last->last ? run_at(enc, ino) : enc->n_runs;
	if (at < enc->n_runs && enc->runs[at].first <= ino)
		return 0;	/* known already */
	if (enc->n_runs == enc->cap_runs) {
		size_t cap = enc->cap_runs ? enc->cap_runs * 2 : 64;
		struct fsck_enc_run *r = realloc(enc->runs, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		enc->runs = r;
		enc->cap_runs = cap;
	}
	memmove(&enc->runs[at + 1], &enc->runs[at],
		(enc->n_runs - at) * sizeof(*enc->runs));
	enc->runs[at] = (struct fsck_enc_run){ ino, ino, id };
	enc->n_runs++;
	return 0;
}

uint32_t fsck_enc_policy_of(const struct fsck_enc *enc, uint32_t ino)
{
	size_t at;

	if (!enc->n_runs)
		return FSCK_ENC_NONE;
	at = run_at(enc, ino);
	if (at < enc->n_runs && enc->runs[at].first <= ino)
		return enc->runs[at].policy;
	return FSCK_ENC_NONE;
}

void fsck_enc_pass1_done(struct fsck_enc *enc)
{
	free(enc->set);
	enc->set = NULL;
	enc->set_n = enc->set_cap = 0;
}

void fsck_enc_free(struct fsck_enc *enc)
{
	fsck_enc_pass1_done(enc);
	free(enc->runs);
	memset(enc, 0, sizeof(*enc));
}

