// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for journal.c and journal_replay.c on forged logs: a
 * transaction written into a new journal (journal_write.c) is replayed
 * into the filesystem and the log emptied; a dry run writes nothing; a
 * block that begins with the jbd2 magic is escaped in the log and comes
 * back whole; a transaction whose commit block is gone, or whose
 * sequence is not the one the superblock expects, is not replayed; a
 * later transaction's revoke block keeps an earlier tag from being
 * written back, and a revoke record of the same transaction does not.
 * Loading names what is wrong with a journal superblock: its magic, a
 * field, an unknown version or feature, several users of an internal
 * journal. The journal inode comes back from the superblock's backup
 * (s_jnl_blocks), -ENOENT without one; an external journal is told by
 * its UUID or device and forgotten; a lost journal superblock is
 * replaced by an empty v2 one; the v2 fields of a v1 superblock are
 * cleared (written only when asked); replay writes are counted in
 * s_kbytes_written.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
#include "io.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_new.h"
#include "journal_write.h"
#include "suites.h"

#define BS	1024u

struct jt {
	struct extkit_io *io;
	struct extkit_fs *fs;
	uint64_t blk[2];	/* the filesystem blocks the log carries */
	uint8_t data[2][BS];
	uint32_t tid;		/* the sequence of the first transaction */
};

static struct extkit_journal *load(struct jt *t)
{
	enum extkit_journal_problem problem;
	struct extkit_journal *j = NULL;
	const char *why = NULL;

	ck_assert_int_eq(extkit_journal_load(t->fs, &j, &problem, &why), 0);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_OK);
	ck_assert_ptr_nonnull(j);
	return j;
}

static void setup(struct jt *t)
{
	struct extkit_journal_params p = { .blocks = 1024, .zero_log = 1,
					   .now = 1700000000 };
	struct test_image_opts o;
	struct extkit_journal *j;

	memset(t, 0, sizeof(*t));
	test_image_defaults(&o);
	o.blocks = 8192;
	t->io = test_image_make(&o);
	t->fs = test_image_open(t->io);
	ck_assert_int_eq(extkit_journal_create(t->fs, &p), 0);
	t->blk[0] = t->fs->sb.blocks_count - 5;
	t->blk[1] = t->fs->sb.blocks_count - 3;
	for (unsigned int i = 0; i < BS; i++) {
		t->data[0][i] = (uint8_t)(i * 7 + 1);
		t->data[1][i] = (uint8_t)(255 - i);
	}
	j = load(t);
	ck_assert_uint_eq(j->start, 0);
	t->tid = j->sequence;
	extkit_journal_free(j);
}

static void teardown(struct jt *t)
{
	extkit_fs_close(t->fs);
	extkit_io_close(t->io);
}

static void read_blk(struct jt *t, uint64_t blk, uint8_t *buf)
{
	ck_assert_int_eq(extkit_io_read_blocks(t->io, blk, 1, buf), 0);
}

/* Writes the two blocks as one transaction; with commit set, makes the
 * log visible (s_start). Returns the log blocks it took. */
static uint64_t write_txn(struct jt *t, int commit)
{
	struct extkit_plan_block b[2] = { { t->blk[0], t->data[0] },
					  { t->blk[1], t->data[1] } };
	struct extkit_journal *j = load(t);
	uint64_t n = extkit_journal_transaction_blocks(j, 2);

	ck_assert_uint_eq(n, 4);	/* descriptor, 2 data, commit */
	ck_assert_int_eq(extkit_journal_write_transaction(j, b, 2), 0);
	if (commit) {
		j->start = j->first;
		ck_assert_int_eq(extkit_journal_write_super(j), 0);
	}
	extkit_journal_free(j);
	return n;
}

/* Overwrites log block idx (relative to s_first) with buf. */
static void put_log(struct jt *t, uint32_t idx, const uint8_t *buf)
{
	struct extkit_journal *j = load(t);

	ck_assert_int_eq(extkit_io_write_blocks(t->io,
						j->map[j->first + idx], 1,
						buf), 0);
	extkit_journal_free(j);
}

static void get_log(struct jt *t, uint32_t idx, uint8_t *buf)
{
	struct extkit_journal *j = load(t);

	read_blk(t, j->map[j->first + idx], buf);
	extkit_journal_free(j);
}

static void recover(struct jt *t, int mode, struct extkit_journal_replay *r)
{
	struct extkit_journal *j = load(t);

	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(extkit_journal_recover(j, mode, r), 0);
	extkit_journal_free(j);
}

static int blk_is(struct jt *t, uint64_t blk, const uint8_t *want)
{
	uint8_t buf[BS];

	read_blk(t, blk, buf);
	return !memcmp(buf, want, BS);
}

static const uint8_t zero[BS];

START_TEST(test_replay_applies)
{
	struct extkit_journal_replay r;
	struct extkit_journal *j;
	struct jt t;

	setup(&t);
	write_txn(&t, 1);
	ck_assert(blk_is(&t, t.blk[0], zero));	/* not yet */
	recover(&t, 0, &r);
	ck_assert_int_eq(r.error, 0);
	ck_assert_uint_eq(r.transactions, 1);
	ck_assert_uint_eq(r.blocks, 2);
	ck_assert_uint_eq(r.revoked, 0);
	ck_assert_uint_eq(r.end_tid, t.tid + 1);
	ck_assert(blk_is(&t, t.blk[0], t.data[0]));
	ck_assert(blk_is(&t, t.blk[1], t.data[1]));
	/* the log is empty now; as jbd2_journal_recover, the sequence
	 * goes one past the first transaction not replayed */
	j = load(&t);
	ck_assert_uint_eq(j->start, 0);
	ck_assert_uint_eq(j->sequence, t.tid + 2);
	extkit_journal_free(j);
	/* replaying an empty log does nothing */
	recover(&t, 0, &r);
	ck_assert_uint_eq(r.transactions, 0);
	ck_assert_uint_eq(r.blocks, 0);
	teardown(&t);
}
END_TEST

START_TEST(test_dry_run_writes_nothing)
{
	struct extkit_journal_replay r;
	struct extkit_journal *j;
	struct jt t;

	setup(&t);
	write_txn(&t, 1);
	recover(&t, EXTKIT_RECOVER_DRY, &r);
	ck_assert_uint_eq(r.transactions, 1);
	ck_assert_uint_eq(r.writes, 0);
	ck_assert(blk_is(&t, t.blk[0], zero));
	ck_assert(blk_is(&t, t.blk[1], zero));
	j = load(&t);
	ck_assert_uint_eq(j->start, j->first);	/* still to replay */
	extkit_journal_free(j);
	teardown(&t);
}
END_TEST

START_TEST(test_uncommitted_log_ignored)
{
	struct extkit_journal_replay r;
	struct jt t;

	setup(&t);
	write_txn(&t, 0);		/* s_start stays 0 */
	recover(&t, 0, &r);
	ck_assert_uint_eq(r.transactions, 0);
	ck_assert(blk_is(&t, t.blk[0], zero));
	teardown(&t);
}
END_TEST

START_TEST(test_escaped_block)
{
	struct extkit_journal_replay r;
	uint8_t buf[BS];
	struct jt t;

	setup(&t);
	put_be32(t.data[0], JBD2_MAGIC_NUMBER);
	write_txn(&t, 1);
	/* the log's copy (after the descriptor) has its magic zeroed */
	get_log(&t, 1, buf);
	ck_assert_uint_eq(get_be32(buf), 0);
	ck_assert_mem_eq(buf + 4, t.data[0] + 4, BS - 4);
	recover(&t, 0, &r);
	ck_assert_uint_eq(r.blocks, 2);
	ck_assert(blk_is(&t, t.blk[0], t.data[0]));
	teardown(&t);
}
END_TEST

START_TEST(test_missing_commit)
{
	struct extkit_journal_replay r;
	struct jt t;

	setup(&t);
	write_txn(&t, 1);
	put_log(&t, 3, zero);		/* write_txn's commit block */
	recover(&t, 0, &r);
	ck_assert_uint_eq(r.transactions, 0);
	ck_assert_uint_eq(r.blocks, 0);
	ck_assert(blk_is(&t, t.blk[0], zero));
	ck_assert(blk_is(&t, t.blk[1], zero));
	teardown(&t);
}
END_TEST

START_TEST(test_wrong_sequence)
{
	struct extkit_journal_replay r;
	struct extkit_journal *j;
	struct jt t;

	setup(&t);
	write_txn(&t, 1);
	j = load(&t);
	j->sequence = t.tid + 1;	/* the log holds t.tid */
	ck_assert_int_eq(extkit_journal_write_super(j), 0);
	extkit_journal_free(j);
	recover(&t, 0, &r);
	ck_assert_uint_eq(r.transactions, 0);
	ck_assert(blk_is(&t, t.blk[0], zero));
	teardown(&t);
}
END_TEST

/* A revoke block (32-bit block numbers: no 64bit journal feature) for
 * blk in transaction tid, at log block idx, and its commit after it. */
static void forge_revoke(struct jt *t, uint32_t idx, uint32_t tid,
			 uint64_t blk)
{
	uint8_t b[BS];

	memset(b, 0, BS);
	put_be32(b, JBD2_MAGIC_NUMBER);
	put_be32(b + 4, JBD2_REVOKE_BLOCK);
	put_be32(b + 8, tid);
	put_be32(b + 12, 16 + 4);
	put_be32(b + 16, (uint32_t)blk);
	put_log(t, idx, b);
	memset(b, 0, BS);
	put_be32(b, JBD2_MAGIC_NUMBER);
	put_be32(b + 4, JBD2_COMMIT_BLOCK);
	put_be32(b + 8, tid);
	put_log(t, idx + 1, b);
}

START_TEST(test_revoke_later_transaction)
{
	struct extkit_journal_replay r;
	struct jt t;
	uint64_t n;

	setup(&t);
	n = write_txn(&t, 1);
	forge_revoke(&t, (uint32_t)n, t.tid + 1, t.blk[0]);
	recover(&t, 0, &r);
	ck_assert_int_eq(r.error, 0);
	ck_assert_uint_eq(r.transactions, 2);
	ck_assert_uint_eq(r.revoked, 1);
	ck_assert_uint_eq(r.blocks, 1);
	ck_assert(blk_is(&t, t.blk[0], zero));	/* revoked */
	ck_assert(blk_is(&t, t.blk[1], t.data[1]));
	ck_assert_uint_eq(r.end_tid, t.tid + 2);
	teardown(&t);
}
END_TEST

START_TEST(test_revoke_of_other_block)
{
	struct extkit_journal_replay r;
	struct jt t;
	uint64_t n;

	setup(&t);
	n = write_txn(&t, 1);
	forge_revoke(&t, (uint32_t)n, t.tid + 1, t.blk[1] + 1);
	recover(&t, 0, &r);
	ck_assert_uint_eq(r.transactions, 2);
	ck_assert_uint_eq(r.revoked, 0);
	ck_assert(blk_is(&t, t.blk[0], t.data[0]));
	ck_assert(blk_is(&t, t.blk[1], t.data[1]));
	teardown(&t);
}
END_TEST

START_TEST(test_write_refusals)
{
	struct extkit_plan_block b[1] = { { 100, NULL } };
	struct extkit_journal *j;
	struct jt t;

	setup(&t);
	b[0].data = t.data[0];
	write_txn(&t, 1);
	j = load(&t);
	/* a log that is not empty takes no second transaction */
	ck_assert_int_eq(extkit_journal_write_transaction(j, b, 1), -EBUSY);
	j->start = 0;
	/* more blocks than the log holds */
	ck_assert_int_eq(extkit_journal_write_transaction(j, b, 5000),
			 -ENOSPC);
	extkit_journal_free(j);
	teardown(&t);
}
END_TEST

/* Journal block 0, changed by edit, then loaded: the problem named. */
static enum extkit_journal_problem load_edited(struct jt *t,
					       void (*edit)(uint8_t *))
{
	enum extkit_journal_problem problem;
	struct extkit_journal *j = load(t);
	uint64_t blk0 = j->map[0];
	const char *why = NULL;
	uint8_t b[BS];

	extkit_journal_free(j);
	read_blk(t, blk0, b);
	edit(b);
	ck_assert_int_eq(extkit_io_write_blocks(t->io, blk0, 1, b), 0);
	j = NULL;
	ck_assert_int_eq(extkit_journal_load(t->fs, &j, &problem, &why), 0);
	if (problem != EXTKIT_JOURNAL_OK)
		ck_assert_ptr_nonnull(why);
	extkit_journal_free(j);
	return problem;
}

static void bad_magic(uint8_t *b) { put_be32(b, 0xc03b3999); }
static void bad_first(uint8_t *b) { put_be32(b + 0x14, 0); }
static void bad_type(uint8_t *b) { put_be32(b + 4, 9); }
static void bad_incompat(uint8_t *b) { put_be32(b + 0x28, 1u << 30); }
static void bad_rocompat(uint8_t *b) { put_be32(b + 0x2c, 1u << 30); }
static void two_users(uint8_t *b) { put_be32(b + 0x40, 2); }
static void no_change(uint8_t *b) { (void)b; }

START_TEST(test_load_problems)
{
	static const struct {
		void (*edit)(uint8_t *);
		enum extkit_journal_problem want;
	} cases[] = {
		{ no_change, EXTKIT_JOURNAL_OK },
		{ bad_magic, EXTKIT_JOURNAL_BAD_MAGIC },
		{ bad_first, EXTKIT_JOURNAL_BAD_SUPER },
		{ bad_type, EXTKIT_JOURNAL_UNSUPP_VERSION },
		{ bad_incompat, EXTKIT_JOURNAL_UNSUPP_INCOMPAT },
		{ bad_rocompat, EXTKIT_JOURNAL_UNSUPP_ROCOMPAT },
		/* an internal journal cannot have several users: e2fsck
		 * clears the v2 fields */
		{ two_users, EXTKIT_JOURNAL_V2_FIELDS },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jt t;

		setup(&t);
		ck_assert_msg(load_edited(&t, cases[i].edit) == cases[i].want,
			      "case %u", i);
		teardown(&t);
	}
}
END_TEST

/* ---- the journal inode's backup, the superblock's repairs ---- */

static struct extkit_journal *load_any(struct jt *t,
				       enum extkit_journal_problem *problem)
{
	struct extkit_journal *j = NULL;
	const char *why = NULL;

	ck_assert_int_eq(extkit_journal_load(t->fs, &j, problem, &why), 0);
	return j;
}

/* s_jnl_blocks describes inode 8: a lost inode comes back from it. */
START_TEST(test_backup_restore_inode)
{
	enum extkit_journal_problem problem;
	struct extkit_inode orig, in;
	struct extkit_journal *j;
	struct jt t;

	setup(&t);
	ck_assert_int_eq(extkit_inode_read(t.fs, EXT2_JOURNAL_INO, &orig), 0);
	ck_assert_int_eq(extkit_journal_backup_inode(t.fs, &in), 0);
	ck_assert_uint_eq(in.mode, S_IFREG | 0600);
	ck_assert_uint_eq(in.links_count, 1);
	ck_assert_uint_eq(in.size, orig.size);
	ck_assert_uint_eq(in.size, 1024 * BS);
	ck_assert_mem_eq(in.block, orig.block, sizeof(in.block));
	ck_assert_uint_eq(in.flags & EXT4_EXTENTS_FL, 0);	/* a block map */
	ck_assert_uint_eq(in.blocks, 0);
	/* the inode lost, then rewritten from the backup */
	memset(&in, 0, sizeof(in));
	ck_assert_int_eq(extkit_inode_write(t.fs, EXT2_JOURNAL_INO, &in), 0);
	j = load_any(&t, &problem);	/* found through the backup */
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_OK);
	ck_assert_ptr_nonnull(j->backup_why);
	extkit_journal_free(j);
	ck_assert_int_eq(extkit_journal_restore_inode(t.fs, EXT2_JOURNAL_INO),
			 0);
	ck_assert_int_eq(extkit_inode_read(t.fs, EXT2_JOURNAL_INO, &in), 0);
	ck_assert_uint_eq(in.blocks, orig.blocks);	/* data and map */
	ck_assert_uint_eq(in.size, orig.size);
	ck_assert_mem_eq(in.block, orig.block, sizeof(in.block));
	j = load(&t);
	ck_assert_ptr_null(j->backup_why);	/* the inode itself */
	ck_assert_uint_eq(j->sequence, t.tid);
	extkit_journal_free(j);
	/* no backup: nothing to go by */
	t.fs->raw_sb.s_jnl_backup_type = 0;
	ck_assert_int_eq(extkit_journal_backup_inode(t.fs, &in), -ENOENT);
	ck_assert_int_eq(extkit_journal_restore_inode(t.fs, EXT2_JOURNAL_INO),
			 -ENOENT);
	teardown(&t);
}
END_TEST

START_TEST(test_external)
{
	struct jt t;

	setup(&t);
	ck_assert_int_eq(extkit_journal_is_external(t.fs), 0);
	ck_assert_int_eq(extkit_journal_has_uuid(t.fs), 0);
	t.fs->raw_sb.s_journal_uuid[5] = 0x42;
	ck_assert_int_eq(extkit_journal_has_uuid(t.fs), 1);
	ck_assert_int_eq(extkit_journal_is_external(t.fs), 0);	/* inode 8 */
	t.fs->sb.journal_inum = 0;
	ck_assert_int_eq(extkit_journal_is_external(t.fs), 1);
	extkit_journal_forget_external(t.fs);
	ck_assert_int_eq(extkit_journal_has_uuid(t.fs), 0);
	ck_assert_int_eq(extkit_journal_is_external(t.fs), 0);
	t.fs->raw_sb.s_journal_dev = cpu_to_le32(0x0801);
	ck_assert_int_eq(extkit_journal_is_external(t.fs), 1);
	ck_assert_int_eq(extkit_journal_has_uuid(t.fs), 0);
	extkit_journal_forget_external(t.fs);
	ck_assert_uint_eq(t.fs->raw_sb.s_journal_dev, 0);
	ck_assert_int_eq(extkit_journal_is_external(t.fs), 0);
	teardown(&t);
}
END_TEST

/* A superblock gone: replaced by an empty v2 one of the inode's length. */
START_TEST(test_reset_super)
{
	enum extkit_journal_problem problem;
	struct extkit_journal *j;
	struct jt t;

	setup(&t);
	write_txn(&t, 1);
	j = load(&t);
	ck_assert_int_eq(extkit_io_write_blocks(t.io, j->map[0], 1, zero), 0);
	extkit_journal_free(j);
	j = load_any(&t, &problem);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_BAD_MAGIC);
	ck_assert_int_eq(extkit_journal_reset_super(j, 4321), 0);
	extkit_journal_free(j);
	j = load(&t);
	ck_assert_uint_eq(j->version, 2);
	ck_assert_uint_eq(j->sequence, 4321);
	ck_assert_uint_eq(j->start, 0);		/* the old log forgotten */
	ck_assert_uint_eq(j->first, 1);
	ck_assert_uint_eq(j->maxlen, 1024);
	ck_assert_uint_eq(j->blocksize, BS);
	ck_assert_uint_eq(j->incompat, 0);
	extkit_journal_free(j);
	teardown(&t);
}
END_TEST

/* A v1 superblock with v2 fields: cleared, it loads; without write,
 * only in memory. */
START_TEST(test_clear_v2_fields)
{
	enum extkit_journal_problem problem;
	struct extkit_journal *j;
	const char *why = NULL;
	uint8_t b[BS];
	struct jt t;

	setup(&t);
	j = load(&t);
	read_blk(&t, j->map[0], b);
	put_be32(b + 4, JBD2_SUPERBLOCK_V1);	/* s_nr_users stays 1 */
	ck_assert_int_eq(extkit_io_write_blocks(t.io, j->map[0], 1, b), 0);
	extkit_journal_free(j);
	j = load_any(&t, &problem);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_V2_FIELDS);
	ck_assert_int_eq(extkit_journal_clear_v2_fields(j, 0, &problem, &why),
			 0);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_OK);
	extkit_journal_free(j);
	j = load_any(&t, &problem);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_V2_FIELDS);	/* not written */
	ck_assert_int_eq(extkit_journal_clear_v2_fields(j, 1, &problem, &why),
			 0);
	ck_assert_int_eq(problem, EXTKIT_JOURNAL_OK);
	extkit_journal_free(j);
	j = load(&t);
	ck_assert_uint_eq(j->version, 1);
	ck_assert_uint_eq(j->sequence, t.tid);
	extkit_journal_free(j);
	teardown(&t);
}
END_TEST

START_TEST(test_count_writes)
{
	struct jt t;
	uint64_t kb;

	setup(&t);
	kb = le64(t.fs->raw_sb.s_kbytes_written);
	extkit_journal_count_writes(t.fs, 3);
	ck_assert_uint_eq(le64(t.fs->raw_sb.s_kbytes_written), kb + 3);
	extkit_journal_count_writes(t.fs, 0);
	ck_assert_uint_eq(le64(t.fs->raw_sb.s_kbytes_written), kb + 3);
	t.fs->g.block_size = 4096;	/* counted in KiB, not blocks */
	extkit_journal_count_writes(t.fs, 2);
	t.fs->g.block_size = BS;
	ck_assert_uint_eq(le64(t.fs->raw_sb.s_kbytes_written), kb + 11);
	teardown(&t);
}
END_TEST

/* The superblock's journal backup (s_jnl_backup_type at 0xFD,
 * s_jnl_blocks at 0x10C: i_block, then i_size_high and i_size) stored
 * and read back. */
START_TEST(test_backup_store)
{
	struct extkit_fs *fs = calloc(1, sizeof(*fs));
	const uint8_t *raw = (const uint8_t *)&fs->raw_sb;
	struct extkit_inode in, back;

	ck_assert_ptr_nonnull(fs);
	memset(&in, 0, sizeof(in));
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		in.block[i] = 0x1000u + (uint32_t)i;
	in.size = 0x123456789ull;
	ck_assert_uint_eq(extkit_journal_backup_type(fs), 0);
	ck_assert_int_eq(extkit_journal_backup_inode(fs, &back), -ENOENT);
	extkit_journal_backup_store(fs, &in);
	ck_assert_uint_eq(raw[0xFD], EXT3_JNL_BACKUP_BLOCKS);
	ck_assert_uint_eq(extkit_journal_backup_type(fs),
			  EXT3_JNL_BACKUP_BLOCKS);
	ck_assert_uint_eq(get_le32(raw + 0x10C), 0x1000);
	ck_assert_uint_eq(get_le32(raw + 0x10C + 4 * 14), 0x100e);
	ck_assert_uint_eq(get_le32(raw + 0x10C + 4 * 15), 1);
	ck_assert_uint_eq(get_le32(raw + 0x10C + 4 * 16), 0x23456789);
	ck_assert_int_eq(extkit_journal_backup_inode(fs, &back), 0);
	ck_assert_mem_eq(back.block, in.block, sizeof(in.block));
	ck_assert_uint_eq(back.size, in.size);
	free(fs);
}
END_TEST

Suite *journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("replay");
	TCase *fix = tcase_create("repairs");

	tcase_add_test(tc, test_replay_applies);
	tcase_add_test(tc, test_dry_run_writes_nothing);
	tcase_add_test(tc, test_uncommitted_log_ignored);
	tcase_add_test(tc, test_escaped_block);
	tcase_add_test(tc, test_missing_commit);
	tcase_add_test(tc, test_wrong_sequence);
	tcase_add_test(tc, test_revoke_later_transaction);
	tcase_add_test(tc, test_revoke_of_other_block);
	tcase_add_test(tc, test_write_refusals);
	tcase_add_test(tc, test_load_problems);
	tcase_add_test(tc, test_backup_store);
	suite_add_tcase(s, tc);
	tcase_add_test(fix, test_backup_restore_inode);
	tcase_add_test(fix, test_external);
	tcase_add_test(fix, test_reset_super);
	tcase_add_test(fix, test_clear_v2_fields);
	tcase_add_test(fix, test_count_writes);
	suite_add_tcase(s, fix);
	return s;
}
