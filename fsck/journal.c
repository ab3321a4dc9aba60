// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal, before pass 1 (from fsck_open, after the superblock is
 * open and before the orphan list): the journal inode and the journal
 * superblock are checked (lib/journal.c), and a filesystem whose journal
 * needs recovery is replayed, then opened again: the replay may have
 * rewritten the superblock and the descriptors. With -n nothing is
 * replayed, and a warning says that the check sees the filesystem
 * without the journal's transactions.
 *
 * Refused by name (exit 8): a journal on another device that needs
 * recovery, a journal of unknown version or features. Fast commits after
 * the log (lib/fast_commit.c) are scanned with it, before any write,
 * and replayed on the filesystem opened again after the log; when none
 * checks out they are cleared only when the user says so, the rest of
 * the log replayed. A journal inode that is
 * not one is used through the superblock's copy of its map
 * (s_jnl_blocks) when that maps a journal (replayed, then the inode
 * rewritten from the copy), else cleared (has_journal off); a corrupt
 * journal superblock is replaced by an empty one, and stray fields past
 * the v1 superblock are cleared, as e2fsck does.
 *
 * Relies on: ctx->fs open. Produces: ctx->fs reopened after a replay,
 * FSCK_FL_RECOVERED set (a replay is not an error: exit 0, as e2fsck).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "error.h"
#include "fast_commit.h"
#include "inode.h"
#include "journal.h"
#include "journal_new.h"
#include "cli/msg.h"

#include "fsck.h"
#include "problem.h"

static int has_journal(const struct extkit_super *sb)
{
	return extkit_has_compat(sb, EXT3_FEATURE_COMPAT_HAS_JOURNAL);
}

static int needs_recovery(const struct extkit_super *sb)
{
	return extkit_has_incompat(sb, EXT3_FEATURE_INCOMPAT_RECOVER);
}

/* Clears needs_recovery; an unclean recovery asks for a full check. */
static void clear_recover(struct fsck_ctx *ctx, int full_check)
{
	struct extkit_super *sb = &ctx->fs->sb;

	sb->feature_incompat &= ~(uint32_t)EXT3_FEATURE_INCOMPAT_RECOVER;
	if (full_check)
		sb->state &= (uint16_t)~EXT2_VALID_FS;
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

/* The journal inode is unusable: the journal is dropped (e2fsck). */
static int fix_bad_inode(struct fsck_ctx *ctx, const char *why)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.ino = sb->journal_inum;
	pctx.str = why;
	if (has_journal(sb) || sb->journal_inum) {
		if (!fix_problem(ctx, PR_0_JOURNAL_BAD_INODE, &pctx))
			return 0;
		sb->feature_compat &=
			~(uint32_t)EXT3_FEATURE_COMPAT_HAS_JOURNAL;
		sb->journal_inum = 0;
		clear_recover(ctx, 1);
		ctx->flags |= FSCK_FL_JOURNAL_CLEARED;
		fix_problem(ctx, PR_0_JOURNAL_DELETED, &pctx);
	} else if (needs_recovery(sb) &&
		   fix_problem(ctx, PR_0_JOURNAL_RECOVER_SET, &pctx)) {
		clear_recover(ctx, 1);
	}
	return 0;
}

/* A sequence number unlikely to match any old log block. */
static uint32_t fresh_sequence(const struct fsck_ctx *ctx)
{
	uint32_t seq;

	if (getrandom(&seq, sizeof(seq), GRND_NONBLOCK) != sizeof(seq))
		seq = ctx->now * 2654435761u;
	return seq;
}

/* A journal superblock that cannot be trusted is replaced. */
static int fix_bad_super(struct fsck_ctx *ctx, struct extkit_journal *j,
			 const char *why)
{
	struct problem_context pctx;
	int rc;

	if (!has_journal(&ctx->fs->sb))
		return fix_bad_inode(ctx, why);
	clear_problem_context(&pctx);
	pctx.str = why;
	if (!fix_problem(ctx, PR_0_JOURNAL_BAD_SUPER, &pctx))
		return 0;
	rc = extkit_journal_reset_super(j, fresh_sequence(ctx));
	if (rc) {
		cli_error_rc("writing the journal superblock", rc);
		return rc;
	}
	if (needs_recovery(&ctx->fs->sb))
		clear_recover(ctx, 1);
	return 0;
}

/* has_journal clear although a journal inode is named. */
static void check_feature(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;
	int full;

	if (has_journal(sb))
		return;
	clear_problem_context(&pctx);
	pctx.ino = sb->journal_inum;
	if (fix_problem(ctx, PR_0_JOURNAL_NO_FEATURE, &pctx)) {
		full = needs_recovery(sb) ||
		       sb->journal_inum < ctx->fs->g.first_ino;
		sb->journal_inum = 0;
		clear_recover(ctx, full);
	} else if (!ctx->readonly) {
		sb->feature_compat |= EXT3_FEATURE_COMPAT_HAS_JOURNAL;
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
}

/*
 * An error the kernel recorded in the journal marks the filesystem as
 * having errors (a full check follows); the primary superblock is
 * written at once, as after a replay.
 */
static int check_errno(struct fsck_ctx *ctx, struct extkit_journal *j)
{
	struct problem_context pctx;
	int rc;

	if (!j->errno_ || needs_recovery(&ctx->fs->sb))
		return 0;
	clear_problem_context(&pctx);
	pctx.num = (uint64_t)(j->errno_ < 0 ? -(int64_t)j->errno_ :
					      j->errno_);
	if (!fix_problem(ctx, PR_0_JOURNAL_ERRNO, &pctx))
		return 0;
	ctx->fs->sb.state |= EXT2_ERROR_FS;
	j->errno_ = 0;
	rc = extkit_journal_write_super(j);
	if (!rc)
		rc = extkit_fs_write_primary_super(ctx->fs);
	if (rc)
		cli_error_rc("writing the superblock", rc);
	else	/* the kernel's error moved, none fixed: e2fsck exits 0 */
		ctx->flags |= FSCK_FL_RECOVERED;
	return rc;
}

static void report_replay(struct fsck_ctx *ctx,
			  const struct extkit_journal_replay *res)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	if (res->failed_commit && !res->error) {
		pctx.num = res->failed_commit;
		fix_problem(ctx, PR_0_JOURNAL_TXN_CORRUPT, &pctx);
	}
	if (res->error) {
		pctx.str = res->error == -EFSBADCRC ?
			   "a journal checksum does not match" :
			   "the log is corrupt";
		fix_problem(ctx, PR_0_JOURNAL_REPLAY_ERR, &pctx);
	}
}

/* What fast commits hold, for the messages. */
static void fc_summary(const struct extkit_fc *fc, char *buf, size_t len)
{
	const uint32_t *n = fc->count;

	snprintf(buf, len, "%" PRIu32 " inode updates, %" PRIu32 " ranges "
		 "added, %" PRIu32 " removed, %" PRIu32 " entries added, %"
		 PRIu32 " removed", n[EXTKIT_FC_INODE],
		 n[EXTKIT_FC_ADD_RANGE], n[EXTKIT_FC_DEL_RANGE],
		 n[EXTKIT_FC_CREAT] + n[EXTKIT_FC_LINK], n[EXTKIT_FC_UNLINK]);
}

/* Why pending fast commits cannot be replayed (none checks out). */
static const char *fc_unusable(const struct extkit_fc *fc)
{
	if (fc && fc->end)
		return fc->end;
	return "no fast commit is complete";
}

/*
 * Fast-commit blocks (ext4's fast_commit: inode, extent and directory
 * entry changes logged after the last full transaction) of which none
 * checks out. Asked (never by itself with -p): the log is replayed
 * without them, and the filesystem gets a full check; otherwise the run
 * stops.
 */
static int drop_fast_commit(struct fsck_ctx *ctx,
			    const struct extkit_journal_replay *res)
{
	struct problem_context pctx;

	clear_problem_context(&pctx);
	pctx.num = res->end_tid;
	pctx.str = fc_unusable(res->fc);
	if (fix_problem(ctx, PR_0_JOURNAL_FAST_COMMIT, &pctx))
		return 1;
	cli_error("%s: the journal holds fast commits that cannot be "
		  "replayed (%s)", ctx->opts->target, pctx.str);
	return 0;
}

/*
 * The fast commits after the log, replayed on the filesystem opened
 * again (the log is in it). A replay an error stopped midway is said
 * to be so; the full check that follows repairs what it left.
 */
static int replay_fast_commits(struct fsck_ctx *ctx,
			       const struct extkit_fc *fc)
{
	struct extkit_fc_stats st;
	struct problem_context pctx;
	char what[160];
	int rc;

	clear_problem_context(&pctx);
	fc_summary(fc, what, sizeof(what));
	pctx.num = fc->commits;
	pctx.num2 = fc->tid;
	pctx.str = what;
	fix_problem(ctx, PR_0_JOURNAL_FC_REPLAY, &pctx);
	if (fc->end) {
		pctx.num = fc->dropped;
		pctx.str = fc->end;
		fix_problem(ctx, PR_0_JOURNAL_FC_DROPPED, &pctx);
	}
	rc = extkit_fc_replay(ctx->fs, fc, &st);
	if (st.skipped) {
		pctx.num = st.skipped;
		pctx.str = st.skip_why;
		fix_problem(ctx, PR_0_JOURNAL_FC_SKIPPED, &pctx);
	}
	if (rc == -EIO || rc == -ENOMEM) {
		cli_error_rc("replaying the fast commits", rc);
		return rc;
	}
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_0_JOURNAL_REPLAY_ERR, &pctx);
	}
	return 0;
}

/*
 * The log emptied once its fast commits are in: until then a run cut
 * short finds it as it was and replays both again.
 */
static int empty_log(struct fsck_ctx *ctx, struct extkit_journal_replay *res)
{
	struct extkit_journal *j;
	enum extkit_journal_problem problem;
	const char *why;
	int rc;

	rc = extkit_journal_load(ctx->fs, &j, &problem, &why);
	if (!rc && problem != EXTKIT_JOURNAL_OK)
		rc = -EFSCORRUPTED;
	if (!rc) {
		rc = extkit_journal_mark_recovered(j, res);
		if (!rc)
			res->writes++;
	}
	if (j)
		extkit_journal_free(j);
	if (rc)
		cli_error_rc("emptying the journal after its fast commits", rc);
	return rc;
}

/*
 * Replays the log (then its fast commits), opens the filesystem again
 * and clears needs_recovery; the primary superblock is written at once.
 */
static int replay(struct fsck_ctx *ctx, struct extkit_journal **jp)
{
	struct extkit_journal_replay res;
	unsigned int dirty = ctx->flags & FSCK_FL_SB_DIRTY;
	int rc;

	rc = extkit_journal_recover(*jp, EXTKIT_RECOVER_FC, &res);
	if (!rc && res.fast_commit && (!res.fc || !res.fc->commits)) {
		int drop = drop_fast_commit(ctx, &res);

		extkit_fc_free(res.fc);
		if (!drop)
			return -EXTKIT_EUNSUPP;
		rc = extkit_journal_recover(*jp, EXTKIT_RECOVER_DROP_FC, &res);
	}
	printf("%s: recovering journal\n", ctx->device);
	extkit_journal_free(*jp);
	*jp = NULL;
	if (rc) {
		cli_error_rc("replaying the journal", rc);
		return rc;
	}
	ctx->flags |= FSCK_FL_RECOVERED;
	rc = fsck_reopen(ctx);
	if (!rc && res.fc) {
		rc = replay_fast_commits(ctx, res.fc);
		if (!rc)
			rc = empty_log(ctx, &res);
	}
	extkit_fc_free(res.fc);
	if (rc)
		return rc;
	report_replay(ctx, &res);
	extkit_journal_count_writes(ctx->fs, res.writes);
	clear_recover(ctx, res.error != 0 || res.fast_commit);
	/* The primary superblock alone, as e2fsck: the backups keep what
	 * they hold unless the check finds more to change. */
	ctx->flags = (ctx->flags & ~(unsigned int)FSCK_FL_SB_DIRTY) | dirty;
	return fsck_write_super(ctx, 0);
}

/* The log holds transactions but needs_recovery is clear. */
static void check_log_empty(struct fsck_ctx *ctx, struct extkit_journal *j)
{
	struct extkit_super *sb = &ctx->fs->sb;
	struct problem_context pctx;

	if (!has_journal(sb) || needs_recovery(sb) || !j->start)
		return;
	clear_problem_context(&pctx);
	if (fix_problem(ctx, PR_0_JOURNAL_HAS_DATA, &pctx)) {
		sb->feature_incompat |= EXT3_FEATURE_INCOMPAT_RECOVER;
		ctx->opts->force = 1;
	}
}

/* -n: e2fsck's warning, in our words. */
static void warn_no_replay(void)
{
	printf("Warning: the journal needs recovery, but a read-only check "
	       "(-n) does not replay it: the check below sees the "
	       "filesystem without its last transactions.\n");
}

/* -n: pending fast commits are named, with what a repair run does with
 * them (a log that cannot be read is left to that run). */
static void warn_fast_commit(struct extkit_journal *j)
{
	struct extkit_journal_replay res;
	char what[160];

	if (extkit_journal_recover(j, EXTKIT_RECOVER_DRY, &res) ||
	    !res.fast_commit)
		return;
	if (res.fc && res.fc->commits) {
		fc_summary(res.fc, what, sizeof(what));
		printf("Warning: the journal holds %" PRIu32 " fast commits "
		       "(transaction %" PRIu32 ": %s) that a repair run "
		       "replays; the check below does not see them.\n",
		       res.fc->commits, res.end_tid, what);
	} else {
		printf("Warning: the journal holds fast commits (transaction "
		       "%" PRIu32 ") that cannot be replayed (%s): a repair "
		       "run asks to clear them.\n", res.end_tid,
		       fc_unusable(res.fc));
	}
	extkit_fc_free(res.fc);
}

static int check_loaded(struct fsck_ctx *ctx, struct extkit_journal **jp)
{
	struct extkit_super *sb = &ctx->fs->sb;
	int rc;

	check_feature(ctx);
	check_log_empty(ctx, *jp);
	if (!needs_recovery(sb) || !has_journal(sb))
		return check_errno(ctx, *jp);
	if (ctx->readonly) {
		warn_no_replay();
		warn_fast_commit(*jp);
		return 0;
	}
	rc = replay(ctx, jp);
	if (rc)
		return rc;
	/* The journal as it is after the replay: s_errno, if any. */
	return fsck_journal(ctx);
}

/*
 * A journal UUID with neither has_journal nor needs_recovery (damage):
 * no journal is in use, but e2fsck looks for that device and stops when
 * it is not there. The names go (s_journal_dev with it).
 */
static int check_stray_external(struct fsck_ctx *ctx)
{
	struct problem_context pctx;

	if (has_journal(&ctx->fs->sb) || !extkit_journal_has_uuid(ctx->fs))
		return 0;
	clear_problem_context(&pctx);
	if (fix_problem(ctx, PR_0_EXT_JOURNAL_NO_FEATURE, &pctx)) {
		extkit_journal_forget_external(ctx->fs);
		ctx->flags |= FSCK_FL_SB_DIRTY;
	}
	return 0;
}

/*
 * Fields past the v1 superblock that cannot be right (a bad v1 -> v2
 * upgrade): cleared, then the superblock is checked again. With -n
 * only in memory: the check goes on as it would after the fix.
 */
static int clear_v2_fields(struct fsck_ctx *ctx, struct extkit_journal *j,
			   enum extkit_journal_problem *problem,
			   const char **why)
{
	struct problem_context pctx;
	int write, rc;

	clear_problem_context(&pctx);
	pctx.str = *why;
	write = fix_problem(ctx, PR_0_JOURNAL_V2_FIELDS, &pctx);
	rc = extkit_journal_clear_v2_fields(j, write, problem, why);
	if (rc)
		cli_error_rc("writing the journal superblock", rc);
	return rc;
}

/* What extkit_journal_load found, fixed or refused. */
static int check_problem(struct fsck_ctx *ctx, struct extkit_journal **jp,
			 enum extkit_journal_problem problem, const char *why)
{
	struct problem_context pctx;
	int rc;

	if (problem == EXTKIT_JOURNAL_V2_FIELDS) {
		rc = clear_v2_fields(ctx, *jp, &problem, &why);
		if (rc)
			return rc;
	}
	clear_problem_context(&pctx);
	pctx.str = why;
	switch (problem) {
	case EXTKIT_JOURNAL_OK:
		return check_loaded(ctx, jp);
	case EXTKIT_JOURNAL_BAD_INODE:
	case EXTKIT_JOURNAL_BAD_MAGIC:
		return fix_bad_inode(ctx, why);
	case EXTKIT_JOURNAL_BAD_SUPER:
		return fix_bad_super(ctx, *jp, why);
	default:
		fix_problem(ctx, PR_0_JOURNAL_UNSUPP, &pctx);
		return -EXTKIT_EUNSUPP;
	}
}

/*
 * The journal inode is unusable, but the superblock's copy of its map
 * (s_jnl_blocks) maps a journal: as e2fsck, the journal is used through
 * it. A log to replay is replayed first (it may bring the inode table
 * block back, inode included: fsck_journal runs again after it);
 * otherwise (or when the journal superblock has a problem of its own,
 * checked next) the inode is rewritten from the copy. Declined (-n), the
 * check goes on with the journal as the copy maps it.
 */
static int use_backup(struct fsck_ctx *ctx, struct extkit_journal *j,
		      int log_usable)
{
	struct problem_context pctx;
	int rc;

	clear_problem_context(&pctx);
	pctx.ino = j->ino;
	pctx.str = j->backup_why;
	if (needs_recovery(&ctx->fs->sb) && log_usable) {
		fix_problem(ctx, PR_0_JOURNAL_USE_BACKUP, &pctx);
		return 0;
	}
	if (!fix_problem(ctx, PR_0_JOURNAL_RESTORE_INODE, &pctx))
		return 0;
	rc = extkit_journal_restore_inode(ctx->fs, j->ino);
	if (rc)
		cli_error_rc("writing the journal inode", rc);
	return rc;
}

/* What extkit_journal_load found, the inode's backup first. */
static int check_journal(struct fsck_ctx *ctx, struct extkit_journal **jp,
			 enum extkit_journal_problem problem, const char *why)
{
	struct extkit_journal *j = *jp;
	int rc;

	if (j && j->backup_why) {
		/* no journal in use: nothing to restore */
		if (!has_journal(&ctx->fs->sb))
			return fix_bad_inode(ctx, j->backup_why);
		rc = use_backup(ctx, j, problem == EXTKIT_JOURNAL_OK);
		if (rc)
			return rc;
	}
	return check_problem(ctx, jp, problem, why);
}

int fsck_journal(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_super *sb = &fs->sb;
	enum extkit_journal_problem problem;
	struct extkit_journal *j = NULL;
	const char *why;
	int rc;

	if (extkit_journal_is_external(fs)) {
		if (!needs_recovery(sb))
			return check_stray_external(ctx);
		if (ctx->readonly) {
			warn_no_replay();
			return 0;
		}
		cli_error("%s: the journal is on another device (external "
			  "journal%s%s); extkit cannot replay an external "
			  "journal: replay it with e2fsck -j JOURNAL, then "
			  "check again", ctx->opts->target,
			  ctx->opts->journal_dev ? " " : "",
			  ctx->opts->journal_dev ? ctx->opts->journal_dev :
						   "");
		return -EXTKIT_EUNSUPP;
	}
	if (!has_journal(sb) && !needs_recovery(sb) && !sb->journal_inum)
		return 0;
	if (!sb->journal_inum)
		return fix_bad_inode(ctx, "no journal inode");
	rc = extkit_journal_load(fs, &j, &problem, &why);
	if (rc) {
		cli_error_rc("reading the journal", rc);
		return rc;
	}
	rc = check_journal(ctx, &j, problem, why);
	extkit_journal_free(j);
	return rc;
}

/* The journal inode's i_block as the superblock keeps it. */
static int backup_matches(const struct extkit_fs *fs,
			  const struct extkit_inode *inode)
{
	struct extkit_inode b;

	if (extkit_journal_backup_inode(fs, &b))
		return 0;
	return !memcmp(b.block, inode->block, sizeof(b.block));
}

/*
 * The superblock keeps a copy of the journal inode's block map
 * (s_jnl_blocks[0..14] = i_block, [15] i_size_high, [16] i_size,
 * s_jnl_backup_type EXT3_JNL_BACKUP_BLOCKS) for when the inode is lost.
 * A missing or stale copy is made again, as e2fsck does (with -n
 * nothing is said): after the journal checks, and after the passes
 * (a clone in pass 1B may have moved a journal block). An inode that is
 * no journal, or a run that left errors, keeps the old copy.
 */
void fsck_journal_backup(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint8_t type = extkit_journal_backup_type(fs);
	struct extkit_inode inode;
	struct problem_context pctx;

	if (ctx->readonly || !has_journal(&fs->sb) || !fs->sb.journal_inum ||
	    (ctx->flags & FSCK_FL_UNCORRECTED) ||
	    extkit_inode_read(fs, fs->sb.journal_inum, &inode) ||
	    !S_ISREG(inode.mode) || !inode.links_count)
		return;
	if ((type != 0 && type != EXT3_JNL_BACKUP_BLOCKS) ||
	    backup_matches(fs, &inode))
		return;
	clear_problem_context(&pctx);
	fix_problem(ctx, PR_0_JOURNAL_BACKUP, &pctx);
	extkit_journal_backup_store(fs, &inode);
	/* every superblock gets it; not a repair: alone it leaves the
	 * exit status 0, as e2fsck's */
	ctx->flags |= FSCK_FL_SB_DIRTY;
}

void fsck_journal_recreate(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	struct extkit_journal_params p = { 0 };
	struct problem_context pctx;
	int rc;

	if (!(ctx->flags & FSCK_FL_JOURNAL_CLEARED) || ctx->readonly ||
	    (ctx->flags & FSCK_FL_UNCORRECTED))
		return;
	p.blocks = extkit_journal_default_blocks(fs->sb.blocks_count,
						 fs->g.block_size);
	if (!p.blocks)
		return;		/* too small for a journal */
	clear_problem_context(&pctx);
	pctx.num = p.blocks;
	if (!fix_problem(ctx, PR_0_JOURNAL_RECREATE, &pctx))
		return;
	p.zero_log = 1;
	p.now = ctx->now;
	p.defer_super = 1;	/* finish_fs writes them */
	rc = extkit_journal_create(fs, &p);
	if (rc) {
		pctx.str = extkit_strerror(rc);
		fix_problem(ctx, PR_0_JOURNAL_CREATE_ERR, &pctx);
		return;
	}
	ctx->flags |= FSCK_FL_SB_DIRTY | FSCK_FL_CHANGED;
}
