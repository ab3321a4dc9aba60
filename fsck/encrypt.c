// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Encrypted inodes for pass 1 and the policy map pass 2 reads (e2fsck's
 * encrypted_files.c does the same job; see encrypt.h for the memory
 * layout).
 *
 * The encryption context (struct fscrypt_context in the kernel's
 * fs/crypto/fscrypt_private.h) is the value of the attribute of index 9
 * (EXT4_XATTR_INDEX_ENCRYPTION), name "c":
 *	v1: version 1, contents mode, filenames mode, flags, an 8-byte
 *	    master key descriptor, a 16-byte nonce (28 bytes);
 *	v2: version 2, contents mode, filenames mode, flags, 4 reserved
 *	    bytes, a 16-byte master key identifier, a 16-byte nonce (40).
 * The policy is the context without its nonce: every file of an
 * encrypted directory has the directory's policy and a nonce of its own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "xattr.h"

#include "encrypt.h"
#include "fsck.h"
#include "pass1.h"
#include "problem.h"

#define ENC_XATTR_INDEX		9	/* EXT4_XATTR_INDEX_ENCRYPTION */
#define ENC_XATTR_NAME		"c"
#define ENC_NONCE_SIZE		16
#define ENC_V1_SIZE		28
#define ENC_V2_SIZE		40
#define ENC_POLICY_MAX		(ENC_V2_SIZE - ENC_NONCE_SIZE)

struct fsck_enc_policy {
	uint8_t key[ENC_POLICY_MAX];	/* the context without its nonce */
	uint8_t len;			/* 0: empty slot */
	uint32_t id;
};

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

/* ---- reading the context ---- */

/* Copies the value of x (at most ENC_V2_SIZE + 1 bytes: enough to tell
 * a size that is wrong) into out; *len its full size. */
static int copy_value(struct fsck_ctx *ctx, const struct extkit_xattr *x,
		      uint8_t *out, uint32_t *len)
{
	uint32_t n = x->value_size < ENC_V2_SIZE + 1 ? x->value_size :
		     ENC_V2_SIZE + 1;
	uint8_t *buf;
	int rc;

	*len = x->value_size;
	if (!x->value_inum) {
		memcpy(out, x->value, n);
		return 1;
	}
	/* in an EA inode (the kernel never puts it there; e2fsck reads it) */
	buf = x->value_size <= EXTKIT_XATTR_MAX_VALUE ?
	      malloc(x->value_size ? x->value_size : 1) : NULL;
	if (!buf)
		return 0;
	rc = extkit_ea_inode_read(ctx->fs, x->value_inum, x->value_size, buf);
	if (!rc)
		memcpy(out, buf, n);
	free(buf);
	return rc ? 0 : 1;
}

static int context_in_ibody(struct fsck_ctx *ctx, uint32_t ino,
			    uint8_t *out, uint32_t *len)
{
	uint32_t isz = ctx->fs->g.inode_size;
	struct extkit_xattr_region reg;
	struct extkit_xattr x;
	uint8_t *raw;
	int found = 0;

	if (isz <= EXT2_INODE_CORE_SIZE)
		return 0;
	raw = malloc(isz);
	if (!raw)
		return -ENOMEM;
	if (!fsck_inode_read_raw(ctx, ino, raw) &&
	    extkit_xattr_ibody_region(raw, isz, &reg) &&
	    extkit_xattr_find(&reg, ENC_XATTR_INDEX, ENC_XATTR_NAME, &x))
		found = copy_value(ctx, &x, out, len);
	free(raw);
	return found;
}

/* In the EA block, when it is a valid one (e2fsck reads no attribute
 * from a block it cannot parse). */
static int context_in_block(struct fsck_ctx *ctx,
			    const struct extkit_inode *inode, uint8_t *out,
			    uint32_t *len)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region reg;
	struct extkit_xattr x;
	uint8_t *buf;
	int found = 0;

	if (!inode->file_acl ||
	    !extkit_fs_valid_block(ctx->fs, inode->file_acl) ||
	    !extkit_has_compat(&ctx->fs->sb, EXT2_FEATURE_COMPAT_EXT_ATTR))
		return 0;
	buf = malloc(ctx->fs->g.block_size);
	if (!buf)
		return -ENOMEM;
	extkit_xattr_format_init(ctx->fs, &fmt);
	if (!extkit_fs_read_block(ctx->fs, inode->file_acl, buf) &&
	    extkit_xattr_block_check(&fmt, buf) == EXTKIT_XATTR_OK) {
		extkit_xattr_block_region(&fmt, buf, &reg);
		if (extkit_xattr_find(&reg, ENC_XATTR_INDEX, ENC_XATTR_NAME,
				      &x))
			found = copy_value(ctx, &x, out, len);
	}
	free(buf);
	return found;
}

/* The inode's encryption context: 1 found (the attributes in the inode
 * first, as the kernel looks), 0 none, -ENOMEM. */
static int read_context(struct fsck_ctx *ctx, uint32_t ino,
			const struct extkit_inode *inode, uint8_t *out,
			uint32_t *len)
{
	int rc = context_in_ibody(ctx, ino, out, len);

	return rc ? rc : context_in_block(ctx, inode, out, len);
}

int fsck_enc_check_inode(struct fsck_ctx *ctx, uint32_t ino,
			 struct extkit_inode *inode, int *dirty)
{
	uint8_t val[ENC_V2_SIZE + 1];
	uint32_t len = 0, id;
	int rc = read_context(ctx, ino, inode, val, &len);

	if (rc < 0)
		return rc;
	if (!rc) {
		if (pass1_report(ctx, PR_1_ENCRYPT_NO_XATTR, ino, inode, 0)) {
			inode->flags &= ~EXT4_ENCRYPT_FL;
			*dirty = 1;
		}
		return 0;
	}
	rc = fsck_enc_policy_id(&ctx->enc, val, len, &id);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return fsck_enc_add(&ctx->enc, ino, id);
	if (!pass1_report(ctx, PR_1_ENCRYPT_BAD_XATTR, ino, inode, 0))
		return 0;
	/* its blocks are not claimed yet: pass 5 frees them */
	fsck_ea_forget_ibody(ctx, ino);
	pass1_clear_inode(ctx, ino, inode);
	return 1;
}
