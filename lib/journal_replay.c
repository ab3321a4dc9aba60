// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jbd2 recovery: the log is read three times, as the kernel's
 * fs/jbd2/recovery.c does (scan for the end, revoke records, replay),
 * but the replay pass only builds a plan; the plan is written when all
 * of the log has been read and checked.
 *
 * Log layout: from s_start, each transaction is descriptor blocks (a
 * header, then tags naming the filesystem block of each data block that
 * follows), revoke blocks, and one commit block, every header carrying
 * the transaction's sequence; the log wraps from the last block back to
 * s_first. The first block without the magic or with an unexpected
 * sequence ends the log.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "fast_commit.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_int.h"
#include "journal_log.h"

/* One data block of the plan: journal block jblk goes to fs block blk. */
struct plan_entry {
	uint64_t blk;
	uint32_t jblk;
	uint32_t order;		/* position in the log: the last one wins */
	int escaped;
};

/* Revoked blocks: block -> the newest transaction that revoked it. */
struct revoke_table {
	uint64_t *keys;		/* block + 1; 0 is an empty slot */
	uint32_t *tids;
	size_t cap;		/* power of two */
	size_t n;
};

struct recovery {
	struct extkit_journal *j;
	struct extkit_journal_replay *res;
	uint8_t *buf;		/* the log block being parsed */
	uint8_t *data;		/* a data block */
	uint32_t end_tid;	/* first transaction not to replay */
	int fatal;		/* the scan failed: replay nothing */
	struct revoke_table revoke;
	struct plan_entry *plan;
	size_t nplan;
	size_t plan_cap;
};

static int has_incompat(const struct extkit_journal *j, uint32_t f)
{
	return (j->incompat & f) != 0;
}

static uint32_t wrap(const struct extkit_journal *j, uint64_t b)
{
	if (b >= j->last)
		b = j->first + (b - j->first) % (j->last - j->first);
	return (uint32_t)b;
}

static int read_log(struct recovery *r, uint32_t idx, void *buf)
{
	return extkit_jlog_read(r->j, idx, buf);
}

/* crc32 big-endian (the v1 journal checksum), poly 0x04c11db7. */
static uint32_t crc32_be(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= (uint32_t)*p++ << 24;
		for (int i = 0; i < 8; i++)
			crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04c11db7u :
						    crc << 1;
	}
	return crc;
}

static uint32_t count_tags(const struct recovery *r, const uint8_t *buf)
{
	return extkit_jlog_tag_count(r->j, buf);
}

/* v1 checksum: crc32_be over the descriptor and the data blocks it
 * describes; moves *blk past them. Nonzero on a read error. */
static int v1_sum(struct recovery *r, uint32_t *blk, uint32_t *sum)
{
	uint32_t n = count_tags(r, r->buf);
	int rc;

	*sum = crc32_be(*sum, r->buf, r->j->blocksize);
	for (uint32_t i = 0; i < n; i++) {
		rc = read_log(r, *blk, r->data);
		if (rc)
			return rc;
		*sum = crc32_be(*sum, r->data, r->j->blocksize);
		*blk = wrap(r->j, (uint64_t)*blk + 1);
	}
	return 0;
}

/* A v1 commit checksum: the sum over the transaction, or none at all. */
static int v1_commit_ok(const uint8_t *buf, uint32_t sum)
{
	struct extkit_jlog_commit c;

	extkit_jlog_commit_decode(buf, &c);
	if (c.csum_type == JBD2_CRC32_CHKSUM && c.csum_size == 4 &&
	    c.csum == sum)
		return 1;
	return c.csum_type == 0 && c.csum_size == 0 && c.csum == 0;
}

/* Reads log block *blk into r->buf if it is a header of transaction tid;
 * returns its type, 0 when the log ends there, or a negative error. */
static int read_header(struct recovery *r, uint32_t *blk, uint32_t tid)
{
	uint32_t type, seq;
	int rc = read_log(r, *blk, r->buf);

	if (rc)
		return rc;
	*blk = wrap(r->j, (uint64_t)*blk + 1);
	if (!extkit_jlog_header(r->buf, &type, &seq) || seq != tid)
		return 0;
	return (int)type;
}

/* A commit block whose checksum failed: ends the log; *stop when the
 * scan stops here. Sets the failure the kernel reports. */
static void bad_commit(struct recovery *r, uint32_t tid, uint64_t time,
		       uint64_t last_time)
{
	r->end_tid = tid;
	if (time < last_time)	/* a stale block of an older log */
		return;
	if (!has_incompat(r->j, JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT))
		r->res->failed_commit = tid;
}

/*
 * Pass 1: finds the end of the log (r->end_tid). A transaction stops at
 * the first block that does not belong, at a commit with a bad checksum,
 * or when it would be longer than the log. A checksum failure inside a
 * transaction whose commit is newer than the previous one fails the
 * whole recovery (r->fatal), as in the kernel.
 */
static int scan_log(struct recovery *r)
{
	struct extkit_journal *j = r->j;
	uint32_t blk = j->start, tid = j->sequence, sum = ~0u;
	uint64_t used = 0, last_time = 0, loglen = j->last - j->first;
	int need_time_check = 0, type, rc;

	r->end_tid = 0;
	for (;;) {
		uint32_t before = blk;

		type = read_header(r, &blk, tid);
		if (type < 0)
			return type;
		if (type == JBD2_DESCRIPTOR_BLOCK) {
			if (!extkit_jlog_tail_ok(j, r->buf))
				need_time_check = 1;
			if ((j->compat & JBD2_FEATURE_COMPAT_CHECKSUM) &&
			    !need_time_check) {
				rc = v1_sum(r, &blk, &sum);
				if (rc)
					return rc;
			} else {
				blk = wrap(j, (uint64_t)blk +
					   count_tags(r, r->buf));
			}
		} else if (type == JBD2_COMMIT_BLOCK) {
			struct extkit_jlog_commit c;
			uint64_t time;

			extkit_jlog_commit_decode(r->buf, &c);
			time = c.sec;

			if ((j->compat & JBD2_FEATURE_COMPAT_CHECKSUM) &&
			    !need_time_check && !v1_commit_ok(r->buf, sum)) {
				bad_commit(r, tid, time, last_time);
				break;
			}
			sum = ~0u;
			if (!extkit_jlog_commit_ok(j, r->buf)) {
				bad_commit(r, tid, time, last_time);
				break;
			}
			if (need_time_check) {
				if (time >= last_time)
					r->fatal = -EFSBADCRC;
				r->end_tid = tid;
				break;
			}
			last_time = time;
			tid++;
			r->res->transactions++;
			used = 0;
			continue;
		} else if (type == JBD2_REVOKE_BLOCK) {
			if (!extkit_jlog_tail_ok(j, r->buf))
				need_time_check = 1;
		} else {
			break;
		}
		/* Blocks this transaction spans, wrap-around included. */
		used += (blk + loglen - before) % loglen;
		if (used == 0 || used >= loglen)
			break;
	}
	if (!r->end_tid)
		r->end_tid = tid;
	return 0;
}

static int revoke_add(struct revoke_table *t, uint64_t blk, uint32_t tid)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct revoke_table nt = { 0 };

		nt.cap = t->cap ? t->cap * 2 : 1024;
		nt.keys = calloc(nt.cap, sizeof(*nt.keys));
		nt.tids = calloc(nt.cap, sizeof(*nt.tids));
		if (!nt.keys || !nt.tids) {
			free(nt.keys);
			free(nt.tids);
			return -ENOMEM;
		}
		for (i = 0; i < t->cap; i++)
			if (t->keys[i])
				revoke_add(&nt, t->keys[i] - 1, t->tids[i]);
		free(t->keys);
		free(t->tids);
		*t = nt;
	}
	i = (size_t)((blk * 0x9e3779b97f4a7c15ull) >> 17) & (t->cap - 1);
	while (t->keys[i] && t->keys[i] != blk + 1)
		i = (i + 1) & (t->cap - 1);
	if (!t->keys[i]) {
		t->keys[i] = blk + 1;
		t->tids[i] = tid;
		t->n++;
	} else if ((int32_t)(tid - t->tids[i]) > 0) {
		t->tids[i] = tid;
	}
	return 0;
}

/* Whether blk was revoked by transaction tid or a later one. */
static int revoked(const struct revoke_table *t, uint64_t blk, uint32_t tid)
{
	size_t i;

	if (!t->cap)
		return 0;
	i = (size_t)((blk * 0x9e3779b97f4a7c15ull) >> 17) & (t->cap - 1);
	while (t->keys[i]) {
		if (t->keys[i] == blk + 1)
			return (int32_t)(t->tids[i] - tid) >= 0;
		i = (i + 1) & (t->cap - 1);
	}
	return 0;
}

/* The records of one revoke block; a count past the block is corrupt. */
static int scan_revoke_block(struct recovery *r, uint32_t tid)
{
	struct extkit_jlog_revokes it;
	uint64_t blk;
	int rc;

	extkit_jlog_revokes_init(&it, r->j, r->buf);
	if (!extkit_jlog_revokes_fit(&it))
		return -EFSCORRUPTED;
	while (extkit_jlog_revokes_next(&it, &blk)) {
		rc = revoke_add(&r->revoke, blk, tid);
		if (rc)
			return rc;
	}
	return 0;
}

static int plan_add(struct recovery *r, uint64_t blk, uint32_t jblk,
		    int escaped)
{
	if (r->nplan == r->plan_cap) {
		size_t cap = r->plan_cap ? r->plan_cap * 2 : 256;
		struct plan_entry *p = realloc(r->plan, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->plan = p;
		r->plan_cap = cap;
	}
	r->plan[r->nplan] = (struct plan_entry){ blk, jblk,
						 (uint32_t)r->nplan, escaped };
	r->nplan++;
	return 0;
}

/* The data blocks of one descriptor into the plan. */
static int plan_descriptor(struct recovery *r, uint32_t *blk, uint32_t tid)
{
	struct extkit_journal *j = r->j;
	struct extkit_jlog_tags it;
	struct extkit_jlog_tag t;
	int rc;

	extkit_jlog_tags_init(&it, j, r->buf);
	while (extkit_jlog_tags_next(&it, &t)) {
		uint32_t jblk = *blk;

		*blk = wrap(j, (uint64_t)*blk + 1);
		if (revoked(&r->revoke, t.blk, tid)) {
			r->res->revoked++;
			continue;
		}
		rc = read_log(r, jblk, r->data);
		if (rc)
			return rc;
		if (!extkit_jlog_tag_csum_ok(j, &t, r->data, tid)) {
			r->res->error = -EFSBADCRC;
			continue;
		}
		if (t.blk >= j->fs->sb.blocks_count) {
			r->res->error = -EFSCORRUPTED;
			continue;
		}
		rc = plan_add(r, t.blk, jblk, !!(t.flags & JBD2_FLAG_ESCAPE));
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Passes 2 and 3 over the transactions the scan accepted: with
 * want_revoke the revoke table is built, else the plan.
 */
static int walk_log(struct recovery *r, int want_revoke)
{
	struct extkit_journal *j = r->j;
	uint32_t blk = j->start, tid = j->sequence;
	int type, rc;

	while (tid != r->end_tid) {
		type = read_header(r, &blk, tid);
		if (type < 0)
			return type;
		if (type == JBD2_DESCRIPTOR_BLOCK) {
			if (!extkit_jlog_tail_ok(j, r->buf))
				return -EFSBADCRC;
			if (want_revoke)
				blk = wrap(j, (uint64_t)blk +
					   count_tags(r, r->buf));
			else if ((rc = plan_descriptor(r, &blk, tid)))
				return rc;
		} else if (type == JBD2_COMMIT_BLOCK) {
			tid++;
		} else if (type == JBD2_REVOKE_BLOCK) {
			if (want_revoke && (rc = scan_revoke_block(r, tid)))
				return rc;
		} else {
			return -EFSCORRUPTED;	/* the scan went past it */
		}
	}
	return 0;
}

static int cmp_plan(const void *a, const void *b)
{
	const struct plan_entry *x = a, *y = b;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the plan by block; only the last copy of each block is kept. */
static void plan_dedup(struct recovery *r)
{
	size_t out = 0;

	if (!r->nplan)
		return;
	qsort(r->plan, r->nplan, sizeof(*r->plan), cmp_plan);
	for (size_t i = 0; i < r->nplan; i++) {
		if (i + 1 < r->nplan && r->plan[i + 1].blk == r->plan[i].blk)
			continue;
		r->plan[out++] = r->plan[i];
	}
	r->nplan = out;
}

static int write_plan(struct recovery *r)
{
	struct extkit_fs *fs = r->j->fs;
	int rc;

	for (size_t i = 0; i < r->nplan; i++) {
		rc = read_log(r, r->plan[i].jblk, r->data);
		if (rc)
			return rc;
		if (r->plan[i].escaped)
			put_be32(r->data, JBD2_MAGIC_NUMBER);
		rc = extkit_fs_write_block(fs, r->plan[i].blk, r->data);
		if (rc)
			return rc;
		r->res->writes++;
		r->res->blocks++;
	}
	return extkit_io_flush(fs->io);
}

/* Reads and checks the whole log; fills r->plan. */
static int plan_recovery(struct recovery *r)
{
	int rc;

	if (!r->j->start) {
		r->end_tid = r->j->sequence;
		return 0;
	}
	rc = scan_log(r);
	if (rc || r->fatal)
		return rc;
	rc = walk_log(r, 1);
	if (rc == -EFSCORRUPTED || rc == -EFSBADCRC) {
		r->fatal = rc;
		return 0;
	}
	if (rc)
		return rc;
	rc = walk_log(r, 0);
	if (rc == -EFSCORRUPTED || rc == -EFSBADCRC) {
		r->fatal = rc;
		r->nplan = 0;
		return 0;
	}
	if (!rc)
		plan_dedup(r);
	return rc;
}

int extkit_journal_mark_recovered(struct extkit_journal *j,
				  const struct extkit_journal_replay *res)
{
	/* The log is empty now; a clean recovery restarts it past the
	 * last transaction, so no old commit can match again. */
	if (!res->error)
		j->sequence = res->end_tid + 1;
	j->start = 0;
	/* e2fsck records a bad commit only in an otherwise clean replay */
	if (res->failed_commit && !res->error)
		j->errno_ = -EINVAL;
	return extkit_journal_write_super(j);
}

int extkit_journal_recover(struct extkit_journal *j, int mode,
			   struct extkit_journal_replay *res)
{
	struct recovery r = { .j = j, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	r.buf = malloc(j->blocksize);
	r.data = malloc(j->blocksize);
	rc = r.buf && r.data ? plan_recovery(&r) : -ENOMEM;
	if (rc)
		goto out;
	res->end_tid = r.end_tid;
	/* Fast commits of the transaction after the log's last one: read
	 * and checked before anything is written. An empty log (s_start
	 * 0) has none to replay, as the kernel and e2fsck read it. */
	if (j->start) {
		rc = extkit_fc_scan(j, r.end_tid, &res->fc);
		if (rc)
			goto out;
	}
	res->fast_commit = res->fc != NULL;
	if (res->fast_commit && !(mode & EXTKIT_RECOVER_DROP_FC) &&
	    (!(mode & EXTKIT_RECOVER_FC) || !res->fc->commits))
		goto out;	/* refused: nothing is written */
	if (mode & EXTKIT_RECOVER_DROP_FC) {
		extkit_fc_free(res->fc);
		res->fc = NULL;
	}
	if (r.fatal) {
		res->error = r.fatal;
		res->transactions = 0;
	}
	if (mode & EXTKIT_RECOVER_DRY)
		goto out;
	if (!r.fatal) {
		rc = write_plan(&r);
		if (rc)
			goto out;
	}
	/* Fast commits still to replay: the log stays as it is until
	 * they are in (extkit_journal_mark_recovered), so that a replay
	 * cut short is done again, fast commits and all. */
	if (res->fc)
		goto out;
	rc = extkit_journal_mark_recovered(j, res);
	if (!rc)
		res->writes++;
out:
	if (rc) {
		extkit_fc_free(res->fc);
		res->fc = NULL;
	}
	free(r.buf);
	free(r.data);
	free(r.plan);
	free(r.revoke.keys);
	free(r.revoke.tids);
	return rc;
}
