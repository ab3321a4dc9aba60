// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The jbd2 log, block by block (see journal_log.h). jbd2 structures
 * are big-endian; the fast-commit tags are little-endian.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "fast_commit.h"
#include "jbd2_ondisk.h"
#include "journal_int.h"
#include "journal_log.h"
#include "ondisk.h"

#define TL_SIZE		sizeof(struct ext4_fc_tl)
#define UUID_LEN	16u

static int has_incompat(const struct extkit_journal *j, uint32_t f)
{
	return (j->incompat & f) != 0;
}

int extkit_jlog_read(const struct extkit_journal *j, uint32_t idx, void *buf)
{
	if (idx >= j->nblocks)
		return -EFSCORRUPTED;
	return extkit_fs_read_block(j->fs, j->map[idx], buf);
}

int extkit_jlog_bounds(const struct extkit_journal *j, uint32_t *first,
		       uint32_t *last)
{
	uint32_t len = j->maxlen < j->nblocks ? j->maxlen : j->nblocks;
	uint32_t fc = 0;

	if (j->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		fc = extkit_journal_fc_blocks(j);
		if (fc >= len)
			fc = 0;
	}
	*first = j->first;
	*last = len - fc;
	if (*first == 0 || *first >= *last)
		return -EFSCORRUPTED;
	return 0;
}

int extkit_jlog_header(const void *buf, uint32_t *type, uint32_t *sequence)
{
	const uint8_t *p = buf;

	if (get_be32(p) != JBD2_MAGIC_NUMBER)
		return 0;
	*type = get_be32(p + 4);
	*sequence = get_be32(p + 8);
	return 1;
}

/* 16 with csum v3; else 12, +2 with v2, -4 without 64bit (the kernel's
 * count, csum v2's oddity included). */
uint32_t extkit_jlog_tag_bytes(const struct extkit_journal *j)
{
	uint32_t sz = 12;

	if (has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V3))
		return 16;
	if (has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V2))
		sz += 2;
	if (!has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT))
		sz -= 4;
	return sz;
}

uint32_t extkit_jlog_tail_bytes(const struct extkit_journal *j)
{
	return jbd2_has_csum_v2or3(j) ? sizeof(struct jbd2_block_tail) : 0;
}

void extkit_jlog_tags_init(struct extkit_jlog_tags *it,
			   const struct extkit_journal *j, const void *buf)
{
	it->j = j;
	it->buf = buf;
	it->off = sizeof(struct jbd2_header);
	it->tag_bytes = extkit_jlog_tag_bytes(j);
	it->end = j->blocksize - extkit_jlog_tail_bytes(j);
}

int extkit_jlog_tags_next(struct extkit_jlog_tags *it,
			  struct extkit_jlog_tag *t)
{
	const struct extkit_journal *j = it->j;
	const uint8_t *p = it->buf + it->off;
	int v3 = has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V3);

	if (it->off + it->tag_bytes > it->end)
		return 0;
	t->blk = get_be32(p);
	t->flags = v3 ? get_be32(p + 4) : get_be16(p + 6);
	t->csum = v3 ? get_be32(p + 12) : get_be16(p + 4);
	if (has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT))
		t->blk |= (uint64_t)get_be32(p + 8) << 32;
	it->off += it->tag_bytes;
	if (!(t->flags & JBD2_FLAG_SAME_UUID))
		it->off += UUID_LEN;
	if (t->flags & JBD2_FLAG_LAST_TAG)
		it->off = it->end;	/* the walk ends after this one */
	return 1;
}

uint32_t extkit_jlog_tag_count(const struct extkit_journal *j,
			       const void *buf)
{
	struct extkit_jlog_tags it;
	struct extkit_jlog_tag t;
	uint32_t n = 0;

	extkit_jlog_tags_init(&it, j, buf);
	while (extkit_jlog_tags_next(&it, &t))
		n++;
	return n;
}

void extkit_jlog_revokes_init(struct extkit_jlog_revokes *it,
			      const struct extkit_journal *j,
			      const void *buf)
{
	uint32_t room = j->blocksize - extkit_jlog_tail_bytes(j);

	it->buf = buf;
	it->off = sizeof(struct jbd2_revoke_header);
	it->count = get_be32(it->buf + offsetof(struct jbd2_revoke_header,
						r_count));
	it->end = it->count < room ? it->count : room;
	it->rec = has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
}

int extkit_jlog_revokes_fit(const struct extkit_jlog_revokes *it)
{
	return it->count == it->end;
}

int extkit_jlog_revokes_next(struct extkit_jlog_revokes *it, uint64_t *blk)
{
	if (it->off + it->rec > it->end)
		return 0;
	*blk = it->rec == 8 ? get_be64(it->buf + it->off) :
			      get_be32(it->buf + it->off);
	it->off += it->rec;
	return 1;
}

void extkit_jlog_commit_decode(const void *buf, struct extkit_jlog_commit *c)
{
	const uint8_t *p = buf;

	c->csum_type = p[offsetof(struct jbd2_commit_header, h_chksum_type)];
	c->csum_size = p[offsetof(struct jbd2_commit_header, h_chksum_size)];
	c->csum = get_be32(p + offsetof(struct jbd2_commit_header, h_chksum));
	c->sec = get_be64(p + offsetof(struct jbd2_commit_header,
				       h_commit_sec));
	c->nsec = get_be32(p + offsetof(struct jbd2_commit_header,
					h_commit_nsec));
}

/* crc32c over a log block with the 4 bytes at off taken as zero. */
static uint32_t block_csum(const struct extkit_journal *j, const uint8_t *buf,
			   size_t off)
{
	static const uint8_t zero[4];
	uint32_t c = extkit_crc32c(j->csum_seed, buf, off);

	c = extkit_crc32c(c, zero, 4);
	return extkit_crc32c(c, buf + off + 4, j->blocksize - off - 4);
}

int extkit_jlog_tail_ok(const struct extkit_journal *j, const void *buf)
{
	size_t off = j->blocksize - sizeof(struct jbd2_block_tail);

	if (!jbd2_has_csum_v2or3(j))
		return 1;
	return block_csum(j, buf, off) == get_be32((const uint8_t *)buf + off);
}

int extkit_jlog_commit_ok(const struct extkit_journal *j, const void *buf)
{
	size_t off = offsetof(struct jbd2_commit_header, h_chksum);

	if (!jbd2_has_csum_v2or3(j))
		return 1;
	return block_csum(j, buf, off) == get_be32((const uint8_t *)buf + off);
}

int extkit_jlog_tag_csum_ok(const struct extkit_journal *j,
			    const struct extkit_jlog_tag *t, const void *data,
			    uint32_t seq)
{
	uint8_t be[4];
	uint32_t c;

	if (!jbd2_has_csum_v2or3(j))
		return 1;
	put_be32(be, seq);
	c = extkit_crc32c(j->csum_seed, be, 4);
	c = extkit_crc32c(c, data, j->blocksize);
	if (has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V3))
		return t->csum == c;
	return t->csum == (c & 0xffff);
}

/* The fields of a fast-commit value v of t->len bytes (len_ok). */
static void fc_fields(const uint8_t *v, struct extkit_jlog_fc_tag *t)
{
	uint32_t len;

	switch (t->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		t->ino = get_le32(v);
		t->lblk = get_le32(v + 4);
		len = get_le16(v + 8);
		t->count = len > EXT4_EXT_INIT_MAX_LEN ?
			   len - EXT4_EXT_INIT_MAX_LEN : len;
		t->pblk = ((uint64_t)get_le16(v + 10) << 32) | get_le32(v + 12);
		break;
	case EXT4_FC_TAG_DEL_RANGE:
		t->ino = get_le32(v);
		t->lblk = get_le32(v + 4);
		t->count = get_le32(v + 8);
		break;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		t->parent = get_le32(v);
		t->ino = get_le32(v + 4);
		t->name = (const char *)v + sizeof(struct ext4_fc_dentry_info);
		t->name_len = t->len - sizeof(struct ext4_fc_dentry_info);
		break;
	case EXT4_FC_TAG_INODE:
		t->ino = get_le32(v);
		break;
	case EXT4_FC_TAG_TAIL:
		t->tid = get_le32(v);
		break;
	case EXT4_FC_TAG_HEAD:
		t->features = get_le32(v);
		t->tid = get_le32(v + 4);
		break;
	}
}

int extkit_jlog_fc_next(const struct extkit_journal *j, const void *buf,
			uint32_t *off, struct extkit_jlog_fc_tag *t)
{
	const uint8_t *p = (const uint8_t *)buf + *off;

	memset(t, 0, sizeof(*t));
	if (*off + TL_SIZE > j->blocksize)
		return 0;
	t->tag = get_le16(p);
	t->len = get_le16(p + 2);
	if (t->len > j->blocksize - *off - TL_SIZE)
		return -EFSCORRUPTED;
	t->len_ok = extkit_fc_tag_len_ok(j, t->tag, t->len);
	if (t->len_ok)
		fc_fields(p + TL_SIZE, t);
	*off += TL_SIZE + t->len;
	return 1;
}
