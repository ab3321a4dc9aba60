// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for fast_commit.c's scan of the fast-commit area, on forged
 * tag blocks: a fast commit whose TAIL checks out hands its tags over
 * (HEAD, PAD and TAIL left out) with their values; a TAIL with a wrong
 * checksum drops the tags before it; a tag of a bad length or an unknown
 * tag ends the scan after the commits before it; a TAIL of an older
 * transaction is a clean end; no HEAD of the transaction, or a journal
 * without the feature, means nothing is pending.
 *
 * And journal_replay.c with fast commits pending after the log: without
 * a mode for them nothing is written; DROP_FC replays the log and
 * empties the journal past their transaction; FC replays the log, hands
 * them over and keeps the journal as it was until
 * extkit_journal_mark_recovered empties it (the sequence past the log,
 * a bad commit of a clean replay in s_errno, the sequence kept after a
 * failed scan); FC with no fast commit whose TAIL checks out refuses.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "fast_commit.h"
#include "fs.h"
#include "image.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_new.h"
#include "journal_write.h"
#include "suites.h"

#define BS	1024u
#define TID	7u

struct fct {
	struct extkit_io *io;
	struct extkit_fs *fs;
	struct extkit_journal *j;
	uint8_t blk[BS];	/* the block being forged */
	uint32_t off;
	uint32_t crc;		/* since the last TAIL */
};

static void fct_open(struct fct *t)
{
	struct extkit_journal_params p = { .blocks = 1100, .fc_blocks = 64,
					   .zero_log = 1, .now = 1700000000 };
	enum extkit_journal_problem problem;
	struct test_image_opts o;
	const char *why;

	memset(t, 0, sizeof(*t));
	test_image_defaults(&o);
	o.blocks = 8192;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	ck_assert_int_eq(extkit_journal_create(t->fs, &p), 0);
	ck_assert_int_eq(extkit_journal_load(t->fs, &t->j, &problem, &why),
			 0);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_OK);
	/* as the kernel sets it at mount */
	t->j->incompat |= JBD2_FEATURE_INCOMPAT_FAST_COMMIT;
	t->j->last = t->j->maxlen - extkit_journal_fc_blocks(t->j);
	ck_assert_uint_eq(t->j->last, 1100 - 64);
}

static void fct_close(struct fct *t)
{
	extkit_journal_free(t->j);
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

/* Appends a tag, counted in the running checksum. */
static void tag(struct fct *t, uint16_t type, const void *val, uint16_t len)
{
	uint8_t *p = t->blk + t->off;

	ck_assert_uint_le(t->off + 4 + len, BS);
	put_le16(p, type);
	put_le16(p + 2, len);
	memcpy(p + 4, val, len);
	t->crc = extkit_crc32c(t->crc, p, 4u + len);
	t->off += 4u + len;
}

static void head(struct fct *t, uint32_t tid)
{
	uint8_t v[8];

	put_le32(v, 0);
	put_le32(v + 4, tid);
	tag(t, EXTKIT_FC_HEAD, v, sizeof(v));
}

/* A TAIL over the rest of the block (crc_delta 0: the right checksum),
 * then the block goes to journal block lblk (relative to the area). */
static void tail_and_put(struct fct *t, uint32_t tid, uint32_t crc_delta,
			 uint32_t lblk)
{
	uint8_t *p = t->blk + t->off;
	uint16_t len = (uint16_t)(BS - t->off - 4);

	put_le16(p, EXTKIT_FC_TAIL);
	put_le16(p + 2, len);
	put_le32(p + 4, tid);
	put_le32(p + 8, extkit_crc32c(t->crc, p, 8) + crc_delta);
	t->crc = 0;
	ck_assert_int_eq(extkit_io_write_blocks(t->io,
				t->j->map[t->j->last + 1 + lblk], 1, t->blk),
			 0);
	memset(t->blk, 0, BS);
	t->off = 0;
}

static void some_tags(struct fct *t)
{
	uint8_t add[16] = { 0 }, del[12], creat[13];

	put_le32(add, 12);
	put_le32(add + 4, 0);		/* ee_block */
	put_le16(add + 8, 3);		/* ee_len */
	put_le32(add + 12, 4000);	/* ee_start_lo */
	tag(t, EXTKIT_FC_ADD_RANGE, add, sizeof(add));
	put_le32(del, 12);
	put_le32(del + 4, 5);
	put_le32(del + 8, 2);
	tag(t, EXTKIT_FC_DEL_RANGE, del, sizeof(del));
	tag(t, EXTKIT_FC_PAD, "\0\0\0", 3);
	put_le32(creat, 2);
	put_le32(creat + 4, 12);
	memcpy(creat + 8, "hello", 5);
	tag(t, EXTKIT_FC_CREAT, creat, sizeof(creat));
}

START_TEST(test_one_commit)
{
	struct extkit_fc *fc = NULL;
	struct fct t;

	fct_open(&t);
	head(&t, TID);
	some_tags(&t);
	tail_and_put(&t, TID, 0, 0);
	ck_assert_int_eq(extkit_fc_scan(t.j, TID, &fc), 0);
	ck_assert_ptr_nonnull(fc);
	ck_assert_uint_eq(fc->tid, TID);
	ck_assert_uint_eq(fc->first, t.j->last + 1);
	ck_assert_uint_eq(fc->commits, 1);
	ck_assert_uint_eq(fc->ntags, 3);
	ck_assert_uint_eq(fc->dropped, 0);
	ck_assert_ptr_null(fc->end);
	ck_assert_uint_eq(fc->count[EXTKIT_FC_ADD_RANGE], 1);
	ck_assert_uint_eq(fc->count[EXTKIT_FC_DEL_RANGE], 1);
	ck_assert_uint_eq(fc->count[EXTKIT_FC_CREAT], 1);
	ck_assert_uint_eq(fc->count[EXTKIT_FC_PAD], 0);
	ck_assert_uint_eq(fc->tags[0].tag, EXTKIT_FC_ADD_RANGE);
	ck_assert_uint_eq(fc->tags[0].len, 16);
	ck_assert_uint_eq(get_le32(fc->vals + fc->tags[0].val + 12), 4000);
	ck_assert_uint_eq(fc->tags[2].tag, EXTKIT_FC_CREAT);
	ck_assert_mem_eq(fc->vals + fc->tags[2].val + 8, "hello", 5);
	extkit_fc_free(fc);
	/* no HEAD of another transaction */
	ck_assert_int_eq(extkit_fc_scan(t.j, TID + 1, &fc), 0);
	ck_assert_ptr_null(fc);
	/* nor anything without the feature */
	t.j->incompat &= ~JBD2_FEATURE_INCOMPAT_FAST_COMMIT;
	ck_assert_int_eq(extkit_fc_scan(t.j, TID, &fc), 0);
	ck_assert_ptr_null(fc);
	fct_close(&t);
}
END_TEST

START_TEST(test_bad_checksum)
{
	struct extkit_fc *fc = NULL;
	struct fct t;

	fct_open(&t);
	head(&t, TID);
	some_tags(&t);
	tail_and_put(&t, TID, 1, 0);
	ck_assert_int_eq(extkit_fc_scan(t.j, TID, &fc), 0);
	ck_assert_ptr_nonnull(fc);
	ck_assert_uint_eq(fc->commits, 0);
	ck_assert_uint_eq(fc->ntags, 0);
	ck_assert_uint_eq(fc->dropped, 3);
	ck_assert_ptr_nonnull(fc->end);
	extkit_fc_free(fc);
	fct_close(&t);
}
END_TEST

/* A good commit, then one that breaks off: the first one stays. */
static void two_commits(struct fct *t, int second_kind)
{
	uint8_t del[12] = { 0 };

	head(t, TID);
	some_tags(t);
	tail_and_put(t, TID, 0, 0);
	put_le32(del, 12);
	tag(t, EXTKIT_FC_DEL_RANGE, del, sizeof(del));
	if (second_kind == 0)	/* a DEL_RANGE one byte short */
		tag(t, EXTKIT_FC_DEL_RANGE, del, sizeof(del) - 1);
	else if (second_kind == 1)	/* an unknown tag */
		tag(t, 42, del, 4);
	tail_and_put(t, second_kind == 2 ? TID - 1 : TID, 0, 1);
}

START_TEST(test_bad_length_ends)
{
	struct extkit_fc *fc = NULL;
	struct fct t;

	fct_open(&t);
	two_commits(&t, 0);
	ck_assert_int_eq(extkit_fc_scan(t.j, TID, &fc), 0);
	ck_assert_uint_eq(fc->commits, 1);
	ck_assert_uint_eq(fc->ntags, 3);
	ck_assert_uint_eq(fc->dropped, 1);
	ck_assert_str_eq(fc->end, "a tag of a bad length");
	extkit_fc_free(fc);
	fct_close(&t);
}
END_TEST

START_TEST(test_unknown_tag_ends)
{
	struct extkit_fc *fc = NULL;
	struct fct t;

	fct_open(&t);
	two_commits(&t, 1);
	ck_assert_int_eq(extkit_fc_scan(t.j, TID, &fc), 0);
	ck_assert_uint_eq(fc->commits, 1);
	ck_assert_uint_eq(fc->ntags, 3);
	ck_assert_str_eq(fc->end, "an unknown tag");
	extkit_fc_free(fc);
	fct_close(&t);
}
END_TEST

START_TEST(test_stale_tail_is_clean_end)
{
	struct extkit_fc *fc = NULL;
	struct fct t;

	fct_open(&t);
	two_commits(&t, 2);
	ck_assert_int_eq(extkit_fc_scan(t.j, TID, &fc), 0);
	ck_assert_uint_eq(fc->commits, 1);
	ck_assert_uint_eq(fc->ntags, 3);
	ck_assert_uint_eq(fc->dropped, 0);
	ck_assert_ptr_null(fc->end);
	extkit_fc_free(fc);
	fct_close(&t);
}
END_TEST

/* The lengths each tag may have (the kernel's
 * ext4_fc_value_len_isvalid), the inode's by the inode size (256). */
START_TEST(test_tag_lengths)
{
	static const struct {
		uint16_t tag;
		uint32_t ok[3], bad[3];
	} c[] = {
		{ EXTKIT_FC_ADD_RANGE, { 16, 16, 16 }, { 0, 15, 17 } },
		{ EXTKIT_FC_DEL_RANGE, { 12, 12, 12 }, { 0, 11, 13 } },
		{ EXTKIT_FC_CREAT, { 9, 100, 263 }, { 0, 8, 264 } },
		{ EXTKIT_FC_LINK, { 9, 9, 263 }, { 8, 264, 0 } },
		{ EXTKIT_FC_UNLINK, { 9, 9, 263 }, { 8, 264, 0 } },
		{ EXTKIT_FC_INODE, { 132, 200, 260 }, { 131, 261, 3 } },
		{ EXTKIT_FC_PAD, { 0, 1, 1000 }, { 0, 0, 0 } },
		{ EXTKIT_FC_TAIL, { 8, 100, 1000 }, { 0, 7, 7 } },
		{ EXTKIT_FC_HEAD, { 8, 8, 8 }, { 0, 7, 9 } },
	};
	struct fct t;

	fct_open(&t);
	ck_assert_uint_eq(t.fs->g.inode_size, 256);
	for (unsigned int i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (int k = 0; k < 3; k++) {
			ck_assert_msg(extkit_fc_tag_len_ok(t.j, c[i].tag,
							   c[i].ok[k]),
				      "tag %u len %u", c[i].tag, c[i].ok[k]);
			if (c[i].tag != EXTKIT_FC_PAD)
				ck_assert_msg(!extkit_fc_tag_len_ok(t.j,
						c[i].tag, c[i].bad[k]),
					      "tag %u len %u", c[i].tag,
					      c[i].bad[k]);
		}
	ck_assert_int_eq(extkit_fc_tag_len_ok(t.j, 0, 8), 0);
	ck_assert_int_eq(extkit_fc_tag_len_ok(t.j, 10, 8), 0);
	fct_close(&t);
}
END_TEST

/* ---- journal_replay.c: a log with fast commits pending after it ---- */

static struct extkit_journal *reload(struct fct *t)
{
	enum extkit_journal_problem problem;
	const char *why;

	extkit_journal_free(t->j);
	t->j = NULL;
	ck_assert_int_eq(extkit_journal_load(t->fs, &t->j, &problem, &why),
			 0);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_OK);
	return t->j;
}

/* The feature on disk, one transaction in the log writing data to blk,
 * then a fast commit of the transaction after it (its TAIL's checksum
 * off by crc_delta). Returns the log's transaction. */
static uint32_t log_and_fc(struct fct *t, uint64_t blk, const uint8_t *data,
			   uint32_t crc_delta)
{
	struct extkit_plan_block b = { blk, (uint8_t *)data };
	uint32_t incompat, tid;

	incompat = get_be32(t->j->sb_raw + offsetof(struct jbd2_superblock,
						    s_feature_incompat));
	put_be32(t->j->sb_raw + offsetof(struct jbd2_superblock,
					 s_feature_incompat),
		 incompat | JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	ck_assert_int_eq(extkit_journal_write_super(t->j), 0);
	reload(t);
	ck_assert_uint_eq(t->j->last, 1100 - 64);
	tid = t->j->sequence;
	ck_assert_int_eq(extkit_journal_write_transaction(t->j, &b, 1), 0);
	t->j->start = t->j->first;
	ck_assert_int_eq(extkit_journal_write_super(t->j), 0);
	head(t, tid + 1);
	some_tags(t);
	tail_and_put(t, tid + 1, crc_delta, 0);
	reload(t);
	return tid;
}

struct rt {
	struct fct t;
	uint64_t blk;
	uint8_t data[BS], before[BS];
	uint32_t tid;
	struct extkit_journal_replay res;
};

static void rt_open(struct rt *r, uint32_t crc_delta)
{
	fct_open(&r->t);
	r->blk = r->t.fs->sb.blocks_count - 5;
	for (unsigned int i = 0; i < BS; i++)
		r->data[i] = (uint8_t)(i * 5 + 1);
	ck_assert_int_eq(extkit_io_read_blocks(r->t.io, r->blk, 1, r->before),
			 0);
	ck_assert(memcmp(r->before, r->data, BS));
	r->tid = log_and_fc(&r->t, r->blk, r->data, crc_delta);
	memset(&r->res, 0, sizeof(r->res));
}

static void rt_close(struct rt *r)
{
	extkit_fc_free(r->res.fc);
	fct_close(&r->t);
}

static int blk_is(struct rt *r, const uint8_t *want)
{
	uint8_t buf[BS];

	ck_assert_int_eq(extkit_io_read_blocks(r->t.io, r->blk, 1, buf), 0);
	return !memcmp(buf, want, BS);
}

/* Without a mode for them: refused, nothing written, the log kept. */
START_TEST(test_recover_refuses)
{
	struct rt r;

	rt_open(&r, 0);
	ck_assert_int_eq(extkit_journal_recover(r.t.j, 0, &r.res), 0);
	ck_assert_int_eq(r.res.fast_commit, 1);
	ck_assert_uint_eq(r.res.end_tid, r.tid + 1);
	ck_assert(blk_is(&r, r.before));
	ck_assert_uint_eq(reload(&r.t)->start, r.t.j->first);
	rt_close(&r);
}
END_TEST

/* DROP_FC: the log replayed, the journal emptied past the fast
 * commits' transaction, which a later replay never sees. */
START_TEST(test_recover_drop_fc)
{
	struct extkit_fc *fc = NULL;
	struct rt r;

	rt_open(&r, 0);
	ck_assert_int_eq(extkit_journal_recover(r.t.j, EXTKIT_RECOVER_DROP_FC,
						&r.res), 0);
	ck_assert_int_eq(r.res.fast_commit, 1);
	ck_assert_ptr_null(r.res.fc);
	ck_assert(blk_is(&r, r.data));
	reload(&r.t);
	ck_assert_uint_eq(r.t.j->start, 0);
	ck_assert_uint_gt(r.t.j->sequence, r.tid + 1);
	ck_assert_int_eq(extkit_fc_scan(r.t.j, r.t.j->sequence, &fc), 0);
	ck_assert_ptr_null(fc);
	rt_close(&r);
}
END_TEST

/* FC: the log replayed, the fast commits handed over, the journal left
 * as it was until extkit_journal_mark_recovered empties it. */
START_TEST(test_recover_fc_then_mark)
{
	struct extkit_journal_replay again;
	struct rt r;

	rt_open(&r, 0);
	ck_assert_int_eq(extkit_journal_recover(r.t.j, EXTKIT_RECOVER_FC,
						&r.res), 0);
	ck_assert_ptr_nonnull(r.res.fc);
	ck_assert_uint_eq(r.res.fc->commits, 1);
	ck_assert_uint_eq(r.res.fc->ntags, 3);
	ck_assert(blk_is(&r, r.data));
	ck_assert_uint_eq(reload(&r.t)->start, r.t.j->first);	/* kept */
	ck_assert_int_eq(extkit_journal_mark_recovered(r.t.j, &r.res), 0);
	reload(&r.t);
	ck_assert_uint_eq(r.t.j->start, 0);
	ck_assert_uint_eq(r.t.j->sequence, r.tid + 2);
	ck_assert_int_eq(r.t.j->errno_, 0);
	/* nothing left to replay */
	ck_assert_int_eq(extkit_journal_recover(r.t.j, EXTKIT_RECOVER_FC,
						&again), 0);
	ck_assert_int_eq(again.fast_commit, 0);
	ck_assert_uint_eq(again.transactions, 0);
	rt_close(&r);
}
END_TEST

/* FC with no fast commit whose TAIL checks out: refused as without. */
START_TEST(test_recover_fc_none_valid)
{
	struct rt r;

	rt_open(&r, 1);
	ck_assert_int_eq(extkit_journal_recover(r.t.j, EXTKIT_RECOVER_FC,
						&r.res), 0);
	ck_assert_int_eq(r.res.fast_commit, 1);
	ck_assert(blk_is(&r, r.before));
	ck_assert_uint_eq(reload(&r.t)->start, r.t.j->first);
	rt_close(&r);
}
END_TEST

/* mark_recovered: a bad commit of a clean replay goes to s_errno; after
 * a failed scan the sequence stays. */
START_TEST(test_mark_recovered_fields)
{
	struct extkit_journal_replay res;
	uint32_t seq;
	struct rt r;

	rt_open(&r, 0);
	seq = r.t.j->sequence;
	memset(&res, 0, sizeof(res));
	res.end_tid = seq + 5;
	res.failed_commit = seq + 4;
	ck_assert_int_eq(extkit_journal_mark_recovered(r.t.j, &res), 0);
	reload(&r.t);
	ck_assert_uint_eq(r.t.j->start, 0);
	ck_assert_uint_eq(r.t.j->sequence, seq + 6);
	ck_assert_int_eq(r.t.j->errno_, -EINVAL);
	res.error = -EFSBADCRC;
	res.end_tid = seq + 50;
	ck_assert_int_eq(extkit_journal_mark_recovered(r.t.j, &res), 0);
	ck_assert_uint_eq(reload(&r.t)->sequence, seq + 6);
	rt_close(&r);
}
END_TEST

Suite *fast_commit_suite(void)
{
	Suite *s = suite_create("fast_commit");
	TCase *tc = tcase_create("scan");
	TCase *rc = tcase_create("recover");

	tcase_add_test(tc, test_one_commit);
	tcase_add_test(tc, test_bad_checksum);
	tcase_add_test(tc, test_bad_length_ends);
	tcase_add_test(tc, test_unknown_tag_ends);
	tcase_add_test(tc, test_stale_tail_is_clean_end);
	tcase_add_test(tc, test_tag_lengths);
	suite_add_tcase(s, tc);
	tcase_add_test(rc, test_recover_refuses);
	tcase_add_test(rc, test_recover_drop_fc);
	tcase_add_test(rc, test_recover_fc_then_mark);
	tcase_add_test(rc, test_recover_fc_none_valid);
	tcase_add_test(rc, test_mark_recovered_fields);
	suite_add_tcase(s, rc);
	return s;
}
