// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ext4 fast commits (see fast_commit.h): the scan of the area into a
 * list of tags, checked by their TAILs. The replay is fc_replay.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "fast_commit.h"
#include "inode.h"
#include "jbd2_ondisk.h"

#define TL_SIZE		sizeof(struct ext4_fc_tl)
#define DENTRY_SIZE	sizeof(struct ext4_fc_dentry_info)
#define NAME_MAX_LEN	EXT2_NAME_LEN

/* A field of an on-disk struct in a value, or a raw inode, at p. */
#define FC_LE32(p, type, field)	get_le32((const uint8_t *)(p) + \
					 offsetof(struct type, field))
#define I_OFF(field)		offsetof(struct ext2_inode, field)

/* ---- the scan ---- */

struct fc_scan {
	struct extkit_journal *j;
	struct extkit_fc *fc;
	uint32_t crc;		/* since the last valid TAIL */
	uint32_t pending;	/* tags since then */
	uint32_t pending_vals;	/* their bytes in fc->vals */
	uint32_t pending_count[EXTKIT_FC_NTYPES];
	uint32_t ncap, vcap, nvals;
	int stale;		/* the tags since the last TAIL are older */
};

int extkit_fc_tag_len_ok(const struct extkit_journal *j, uint16_t tag,
			 uint32_t len)
{
	uint32_t isize = j->fs->g.inode_size;

	switch (tag) {
	case EXTKIT_FC_ADD_RANGE:
		return len == sizeof(struct ext4_fc_add_range);
	case EXTKIT_FC_DEL_RANGE:
		return len == sizeof(struct ext4_fc_del_range);
	case EXTKIT_FC_CREAT:
	case EXTKIT_FC_LINK:
	case EXTKIT_FC_UNLINK:
		return len > DENTRY_SIZE && len <= DENTRY_SIZE + NAME_MAX_LEN;
	case EXTKIT_FC_INODE:
		len -= sizeof(struct ext4_fc_inode);
		return len >= EXT2_GOOD_OLD_INODE_SIZE && len <= isize;
	case EXTKIT_FC_PAD:
		return 1;
	case EXTKIT_FC_TAIL:
		return len >= sizeof(struct ext4_fc_tail);
	case EXTKIT_FC_HEAD:
		return len == sizeof(struct ext4_fc_head);
	}
	return 0;
}

static int keep_tag(struct fc_scan *s, uint16_t tag, const uint8_t *val,
		    uint16_t len)
{
	struct extkit_fc *fc = s->fc;
	uint32_t n = fc->ntags + s->pending;

	if (n == s->ncap) {
		uint32_t cap = s->ncap ? s->ncap * 2 : 64;
		struct extkit_fc_tag *t = realloc(fc->tags, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		fc->tags = t;
		s->ncap = cap;
	}
	if (s->nvals + len > s->vcap) {
		uint32_t cap = s->vcap ? s->vcap * 2 : 4096;
		uint8_t *v;

		while (cap < s->nvals + len)
			cap *= 2;
		v = realloc(fc->vals, cap);
		if (!v)
			return -ENOMEM;
		fc->vals = v;
		s->vcap = cap;
	}
	memcpy(fc->vals + s->nvals, val, len);
	fc->tags[n] = (struct extkit_fc_tag){ tag, len, s->nvals };
	s->nvals += len;
	s->pending_vals += len;
	s->pending++;
	s->pending_count[tag]++;
	return 0;
}

/* A TAIL: the tags since the last one are kept when tid and crc match. */
static int tail(struct fc_scan *s, const uint8_t *p)
{
	struct extkit_fc *fc = s->fc;
	const uint8_t *v = p + TL_SIZE;
	uint32_t crc = extkit_crc32c(s->crc, p, TL_SIZE +
				     offsetof(struct ext4_fc_tail, fc_crc));

	if (FC_LE32(v, ext4_fc_tail, fc_tid) != fc->tid ||
	    FC_LE32(v, ext4_fc_tail, fc_crc) != crc)
		return 0;
	fc->commits++;
	fc->ntags += s->pending;
	for (int t = 0; t < EXTKIT_FC_NTYPES; t++)
		fc->count[t] += s->pending_count[t];
	memset(s->pending_count, 0, sizeof(s->pending_count));
	s->pending = s->pending_vals = 0;
	s->crc = 0;
	return 1;
}

/*
 * One block of the area: 1 to go on with the next, 0 when the scan ends
 * (fc->end says why when that is not a clean end), or an error.
 */
static int scan_block(struct fc_scan *s, const uint8_t *b, int first)
{
	struct extkit_fc *fc = s->fc;
	uint32_t bs = s->j->blocksize, off = 0;
	int rc;

	while (off + TL_SIZE <= bs) {
		const uint8_t *p = b + off;
		uint16_t tag = get_le16(p), len = get_le16(p + 2);

		if (tag == 0 || tag >= EXTKIT_FC_NTYPES) {
			/* zeros where a fast commit could start: the end */
			if (tag || s->pending)
				fc->end = "an unknown tag";
			return 0;
		}
		if (len > bs - off - TL_SIZE ||
		    !extkit_fc_tag_len_ok(s->j, tag, len)) {
			fc->end = "a tag of a bad length";
			return 0;
		}
		if (tag == EXTKIT_FC_TAIL) {
			if (!tail(s, p)) {
				/* another transaction's: what an older
				 * round of fast commits left, the end */
				if (FC_LE32(p + TL_SIZE, ext4_fc_tail,
					    fc_tid) != fc->tid)
					s->stale = 1;
				else
					fc->end = "a checksum that does not "
						  "match";
				return 0;
			}
		} else if (tag == EXTKIT_FC_HEAD && !(first && off == 0) &&
			   (FC_LE32(p + TL_SIZE, ext4_fc_head, fc_features) ||
			    FC_LE32(p + TL_SIZE, ext4_fc_head, fc_tid) !=
			    fc->tid)) {
			fc->end = "a stray head";
			return 0;
		} else {
			s->crc = extkit_crc32c(s->crc, p, TL_SIZE + len);
			if (tag != EXTKIT_FC_PAD && tag != EXTKIT_FC_HEAD) {
				rc = keep_tag(s, tag, p + TL_SIZE, len);
				if (rc)
					return rc;
			}
		}
		off += TL_SIZE + len;
	}
	return 1;
}

/* The journal block holding the HEAD of tid, or 0: the area starts
 * right after the log's end (s_maxlen - s_num_fc_blks + 1), or at that
 * end in the first kernels: both are looked at. */
static int find_head(struct extkit_journal *j, uint32_t tid, uint8_t *buf,
		     uint32_t *first)
{
	static const uint32_t at[2] = { 1, 0 };
	int rc;

	*first = 0;
	for (int i = 0; i < 2; i++) {
		uint32_t b = j->last + at[i];

		if (b >= j->maxlen || b >= j->nblocks)
			continue;
		rc = extkit_fs_read_block(j->fs, j->map[b], buf);
		if (rc)
			return rc;
		if (get_le16(buf) == EXTKIT_FC_HEAD &&
		    get_le16(buf + 2) == sizeof(struct ext4_fc_head) &&
		    FC_LE32(buf + TL_SIZE, ext4_fc_head, fc_tid) == tid) {
			*first = b;
			return 0;
		}
	}
	return 0;
}

int extkit_fc_scan(struct extkit_journal *j, uint32_t tid,
		   struct extkit_fc **out)
{
	struct fc_scan s = { .j = j };
	uint8_t *buf;
	uint32_t first;
	int rc;

	*out = NULL;
	if (!(j->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT))
		return 0;
	buf = malloc(j->blocksize);
	if (!buf)
		return -ENOMEM;
	rc = find_head(j, tid, buf, &first);
	if (rc || !first)
		goto out;
	s.fc = calloc(1, sizeof(*s.fc));
	if (!s.fc) {
		rc = -ENOMEM;
		goto out;
	}
	s.fc->tid = tid;
	s.fc->first = first;
	if (FC_LE32(buf + TL_SIZE, ext4_fc_head, fc_features))
		s.fc->end = "unknown fast-commit features";
	for (uint32_t b = first; !s.fc->end && b < j->maxlen &&
	     b < j->nblocks; b++) {
		if (b != first) {
			rc = extkit_fs_read_block(j->fs, j->map[b], buf);
			if (rc)
				break;
		}
		rc = scan_block(&s, buf, b == first);
		if (rc <= 0)
			break;
		rc = 0;
	}
	s.fc->dropped = s.stale ? 0 : s.pending;
	if (s.stale)
		s.fc->end = NULL;
	if (rc < 0) {
		extkit_fc_free(s.fc);
		s.fc = NULL;
	} else {
		rc = 0;
	}
	*out = s.fc;
out:
	free(buf);
	return rc;
}

void extkit_fc_free(struct extkit_fc *fc)
{
	if (!fc)
		return;
	free(fc->tags);
	free(fc->vals);
	free(fc);
}
