// SPDX-License-Identifier: GPL-2.0-or-later
/* One jbd2 transaction into an empty log (journal_write.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "journal_int.h"
#include "journal_write.h"

static int v3(const struct extkit_journal *j)
{
	return (j->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3) != 0;
}

/* The kernel's journal_tag_bytes. */
static uint32_t tag_bytes(const struct extkit_journal *j)
{
	uint32_t sz = 12;

	if (v3(j))
		return 16;
	if (j->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		sz += 2;
	if (!(j->incompat & JBD2_FEATURE_INCOMPAT_64BIT))
		sz -= 4;
	return sz;
}

/* Tags one descriptor holds: the first is followed by the UUID. */
static uint32_t tags_per_desc(const struct extkit_journal *j)
{
	uint32_t space = j->blocksize - sizeof(struct jbd2_header) -
			 (jbd2_has_csum_v2or3(j) ? 4 : 0);
	uint32_t tb = tag_bytes(j);

	return 1 + (space - tb - 16) / tb;
}

uint64_t extkit_journal_transaction_blocks(const struct extkit_journal *j,
					   uint64_t n)
{
	uint32_t per = tags_per_desc(j);

	if (j->blocksize != j->fs->g.block_size ||
	    ((j->compat & JBD2_FEATURE_COMPAT_CHECKSUM) &&
	     !jbd2_has_csum_v2or3(j)))
		return 0;
	return n + (n + per - 1) / per + 1;
}

/* crc32c over a log block with the 4 bytes at off taken as zero. */
static uint32_t block_csum(const struct extkit_journal *j, uint8_t *buf,
			   size_t off)
{
	memset(buf + off, 0, 4);
	return extkit_crc32c(j->csum_seed, buf, j->blocksize);
}

static void put_tag(const struct extkit_journal *j, uint8_t *p,
		    uint64_t blk, uint32_t flags, uint32_t csum)
{
	put_be32(p, (uint32_t)blk);
	if (v3(j)) {
		put_be32(p + 4, flags);
		put_be32(p + 8, (uint32_t)(blk >> 32));
		put_be32(p + 12, csum);
		return;
	}
	put_be16(p + 4, (uint16_t)csum);
	put_be16(p + 6, (uint16_t)flags);
	if (j->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
		put_be32(p + 8, (uint32_t)(blk >> 32));
}

static void header(uint8_t *buf, uint32_t type, uint32_t tid)
{
	put_be32(buf, JBD2_MAGIC_NUMBER);
	put_be32(buf + 4, type);
	put_be32(buf + 8, tid);
}

struct txn {
	struct extkit_journal *j;
	uint8_t *desc, *data;
	uint32_t idx;		/* next log block */
	uint32_t tid;
};

static int log_write(struct txn *t, const uint8_t *buf)
{
	return extkit_fs_write_block(t->j->fs, t->j->map[t->idx++], buf);
}

/* One descriptor for b[0..k), then the k data blocks. */
static int write_run(struct txn *t, const struct extkit_plan_block *b,
		     uint32_t k)
{
	struct extkit_journal *j = t->j;
	uint32_t desc_at = t->idx++, tb = tag_bytes(j);
	size_t off = sizeof(struct jbd2_header);
	uint8_t be[4];
	int rc = 0;

	memset(t->desc, 0, j->blocksize);
	header(t->desc, JBD2_DESCRIPTOR_BLOCK, t->tid);
	put_be32(be, t->tid);
	for (uint32_t i = 0; !rc && i < k; i++) {
		uint32_t flags = i ? JBD2_FLAG_SAME_UUID : 0, c;

		memcpy(t->data, b[i].data, j->blocksize);
		if (get_be32(t->data) == JBD2_MAGIC_NUMBER) {
			memset(t->data, 0, 4);
			flags |= JBD2_FLAG_ESCAPE;
		}
		if (i == k - 1)
			flags |= JBD2_FLAG_LAST_TAG;
		c = extkit_crc32c(extkit_crc32c(j->csum_seed, be, 4), t->data,
				  j->blocksize);
		put_tag(j, t->desc + off, b[i].blk, flags,
			jbd2_has_csum_v2or3(j) ? c : 0);
		off += tb;
		if (!i) {
			memcpy(t->desc + off, j->sb_raw + 0x30, 16);
			off += 16;
		}
		rc = log_write(t, t->data);
	}
	if (!rc && jbd2_has_csum_v2or3(j)) {
		size_t toff = j->blocksize - 4;

		put_be32(t->desc + toff, block_csum(j, t->desc, toff));
	}
	return rc ? rc : extkit_fs_write_block(j->fs, j->map[desc_at],
					       t->desc);
}

static int write_commit(struct txn *t)
{
	struct extkit_journal *j = t->j;
	size_t off = offsetof(struct jbd2_commit_header, h_chksum);
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	memset(t->desc, 0, j->blocksize);
	header(t->desc, JBD2_COMMIT_BLOCK, t->tid);
	put_be64(t->desc + offsetof(struct jbd2_commit_header, h_commit_sec),
		 (uint64_t)now.tv_sec);
	put_be32(t->desc + offsetof(struct jbd2_commit_header, h_commit_nsec),
		 (uint32_t)now.tv_nsec);
	if (jbd2_has_csum_v2or3(j))
		put_be32(t->desc + off, block_csum(j, t->desc, off));
	return log_write(t, t->desc);
}

int extkit_journal_write_transaction(struct extkit_journal *j,
				     const struct extkit_plan_block *b,
				     uint64_t n)
{
	uint64_t need = extkit_journal_transaction_blocks(j, n);
	uint32_t per = tags_per_desc(j);
	struct txn t = { .j = j, .idx = j->first, .tid = j->sequence };
	int rc = 0;

	if (j->start)
		return -EBUSY;
	if (!need || j->last <= j->first || need > j->last - j->first ||
	    j->last > j->nblocks)
		return -ENOSPC;
	t.desc = malloc(j->blocksize);
	t.data = malloc(j->blocksize);
	if (!t.desc || !t.data)
		rc = -ENOMEM;
	for (uint64_t i = 0; !rc && i < n; i += per)
		rc = write_run(&t, b + i, (uint32_t)(n - i < per ? n - i : per));
	if (!rc)
		rc = write_commit(&t);
	free(t.desc);
	free(t.data);
	return rc;
}
