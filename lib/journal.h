/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbd2, the journal of ext3/ext4, kept in an inode of the filesystem:
 * loading and checking the journal inode and the journal superblock, and
 * recovery (replay) of the transactions the log holds, as the kernel's
 * fs/jbd2/recovery.c and e2fsck do it:
 *
 *   scan    from s_start, transaction by transaction (descriptor, data,
 *           revoke and commit blocks, all tagged with the expected
 *           sequence), to the first incomplete or bad one;
 *   revoke  the revoke records of the complete transactions;
 *   plan    every data block to write back, revoked ones left out, every
 *           tag checksum verified;
 *   write   the plan, then the journal superblock marked empty.
 *
 * Everything that can be decided (all of the log read and checked) is
 * decided before the first write. The log is never trusted: its length is
 * bounded by s_maxlen, a transaction longer than the log ends the scan,
 * tags never run past their block.
 */
#ifndef EXTKIT_JOURNAL_H
#define EXTKIT_JOURNAL_H

#include <stdint.h>

#include "fs.h"
#include "inode.h"

struct extkit_fc;

/* Why a journal cannot be used (extkit_journal_load). */
enum extkit_journal_problem {
	EXTKIT_JOURNAL_OK = 0,
	EXTKIT_JOURNAL_BAD_INODE,	/* not a journal inode: mode, size, map */
	EXTKIT_JOURNAL_BAD_MAGIC,	/* block 0 holds no jbd2 superblock */
	EXTKIT_JOURNAL_BAD_SUPER,	/* a superblock field or its checksum */
	EXTKIT_JOURNAL_UNSUPP_VERSION,	/* magic, but an unknown block type */
	EXTKIT_JOURNAL_UNSUPP_INCOMPAT,	/* incompat feature bits unknown */
	EXTKIT_JOURNAL_UNSUPP_ROCOMPAT,	/* ro_compat feature bits unknown */
	EXTKIT_JOURNAL_MULTI_FS,	/* shared by several filesystems */
	EXTKIT_JOURNAL_V2_FIELDS,	/* stray fields past the v1 ones */
};

struct extkit_journal {
	struct extkit_fs *fs;
	uint32_t ino;
	uint64_t *map;		/* physical block of each journal block */
	uint32_t nblocks;	/* blocks the inode maps (from i_size) */
	uint8_t *sb_raw;	/* journal block 0, as read (block size) */

	/* The superblock, host order (valid from the magic on). */
	uint32_t version;	/* 1 or 2 */
	uint32_t blocksize;
	uint32_t maxlen;
	uint32_t first;		/* first log block */
	uint32_t last;		/* end of the log (fast-commit area after) */
	uint32_t sequence;	/* first transaction expected */
	uint32_t start;		/* first log block in use; 0: empty */
	int32_t errno_;
	uint32_t compat;
	uint32_t incompat;
	uint32_t ro_compat;
	uint32_t nr_users;
	uint32_t csum_seed;	/* crc32c(~0, s_uuid) with csum v2/v3 */
	uint32_t num_fc_blks;	/* s_num_fc_blks as stored (0: default) */
	uint8_t checksum_type;	/* s_checksum_type (v2 only) */
	uint32_t checksum;	/* s_checksum as stored (v2 only) */

	/* Not NULL: the journal inode is unusable (this says why) and the
	 * journal was mapped through the superblock's copy of its map. */
	const char *backup_why;
};

/* What a scan of the log found, and what recovery did. */
struct extkit_journal_replay {
	uint32_t transactions;	/* complete transactions to replay */
	uint32_t end_tid;	/* first transaction not replayed */
	uint64_t blocks;	/* filesystem blocks written back */
	uint64_t revoked;	/* tags skipped because revoked */
	uint64_t writes;	/* block writes done (journal sb included) */
	uint32_t failed_commit;	/* a commit with a bad checksum (0: none) */
	int error;		/* 0, -EFSBADCRC, -EFSCORRUPTED or -EIO:
				 * the replay went as far as it could */
	int fast_commit;	/* fast-commit blocks are pending (of
				 * transaction end_tid) */
	struct extkit_fc *fc;	/* what they hold (fast_commit.h), when
				 * pending and not dropped: the caller
				 * frees it (extkit_fc_free) */
};

/*
 * Loads the journal of fs: inode fs->sb.journal_inum, then its superblock.
 * Returns 0 with *problem set (the journal is in *out unless the problem
 * is BAD_INODE; *why a one-line detail), or a negative error (I/O, memory).
 * An unusable inode is replaced by the superblock's backup of its map
 * when that maps a journal (j->backup_why set); a backup whose block 0
 * holds no journal superblock leaves the inode's problem, BAD_INODE.
 */
int extkit_journal_load(struct extkit_fs *fs, struct extkit_journal **out,
			enum extkit_journal_problem *problem,
			const char **why);
void extkit_journal_free(struct extkit_journal *j);

/*
 * The journal inode as the superblock's backup describes it
 * (s_jnl_blocks, valid when s_jnl_backup_type is EXT3_JNL_BACKUP_BLOCKS):
 * i_block and i_size from it, a regular file of mode 0600 with one
 * link, EXTENTS_FL when i_block holds an extent root; the rest zero
 * (i_blocks too). Returns 0, or -ENOENT when there is no backup.
 */
int extkit_journal_backup_inode(const struct extkit_fs *fs,
				struct extkit_inode *inode);
/* The superblock's backup made from the journal inode: s_jnl_blocks
 * [0..14] its i_block, [15] i_size_high, [16] i_size, s_jnl_backup_type
 * EXT3_JNL_BACKUP_BLOCKS (in fs->raw_sb; the caller writes it). */
void extkit_journal_backup_store(struct extkit_fs *fs,
				 const struct extkit_inode *inode);
/* s_jnl_backup_type as stored: EXT3_JNL_BACKUP_BLOCKS, 0 (none), or a
 * value no tool knows. */
uint8_t extkit_journal_backup_type(const struct extkit_fs *fs);

/*
 * Rewrites inode ino from the superblock's backup (as above, i_blocks
 * counted from the map, i_extra_isize s_want_extra_isize). Returns 0,
 * -ENOENT (no backup), or an error reading the map or writing.
 */
int extkit_journal_restore_inode(struct extkit_fs *fs, uint32_t ino);

/* Blocks of the fast-commit area when the journal has one: s_num_fc_blks,
 * or the default when that is 0. */
uint32_t extkit_journal_fc_blocks(const struct extkit_journal *j);

/* Whether the fs names a journal on another device (journal UUID or
 * s_journal_dev set, no journal inode). */
int extkit_journal_is_external(const struct extkit_fs *fs);
/* Whether s_journal_uuid is set (a journal found by its UUID). */
int extkit_journal_has_uuid(const struct extkit_fs *fs);
/* Forgets a journal on another device: s_journal_uuid and s_journal_dev
 * zeroed in the in-memory superblock (the caller writes it). */
void extkit_journal_forget_external(struct extkit_fs *fs);

/* Modes of extkit_journal_recover (or-ed). */
#define EXTKIT_RECOVER_DRY	1	/* nothing is written (-n) */
#define EXTKIT_RECOVER_DROP_FC	2	/* pending fast commits dropped */
#define EXTKIT_RECOVER_FC	4	/* pending fast commits kept for
					 * the caller to replay (res->fc) */

/*
 * Recovers the log into the filesystem: scan, revoke table, plan, then
 * writes, then the journal superblock (s_start 0, s_sequence past the
 * last transaction, s_errno set when a commit was bad). A log whose scan
 * fails (a bad revoke block, a bad checksum in a transaction the log
 * goes on after) writes no block back, only the journal superblock; *res
 * says so in ->error. With EXTKIT_RECOVER_DRY nothing is written at all
 * (-n). With fast-commit blocks pending (->fast_commit; ->fc holds
 * them, as scanned before any write) nothing is written either, unless
 * the mode has EXTKIT_RECOVER_DROP_FC (the log is replayed without them
 * and the journal emptied: s_sequence past their transaction, they are
 * never replayed) or EXTKIT_RECOVER_FC and at least one fast commit
 * checks out (the log is replayed but the journal superblock is left
 * as it is: the caller replays ->fc on the filesystem opened again,
 * extkit_fc_replay, then empties the log with
 * extkit_journal_mark_recovered; cut short in between, the next run
 * replays both again). The filesystem superblock is left to the caller
 * (reopen, clear needs_recovery). Returns 0 or a negative I/O or memory
 * error.
 */
int extkit_journal_recover(struct extkit_journal *j, int mode,
			   struct extkit_journal_replay *res);
/* Empties the log after the replay *res describes (s_start 0, the
 * sequence past it, a failed commit in s_errno): writes the journal
 * superblock. */
int extkit_journal_mark_recovered(struct extkit_journal *j,
				  const struct extkit_journal_replay *res);

/*
 * Zeroes the superblock past its v1 fields (s_feature_compat to the end
 * of the block: features, UUID, s_nr_users, checksum), as e2fsck does
 * for EXTKIT_JOURNAL_V2_FIELDS, and checks it again: *problem and *why
 * as from extkit_journal_load. Block 0 is written when write is set.
 */
int extkit_journal_clear_v2_fields(struct extkit_journal *j, int write,
				   enum extkit_journal_problem *problem,
				   const char **why);

/*
 * Writes journal superblock fields back: s_sequence, s_start, s_errno
 * from j, with the checksum recomputed (csum v2/v3).
 */
int extkit_journal_write_super(struct extkit_journal *j);

/*
 * Replaces a corrupt journal superblock with an empty v2 one (a valid v1
 * header is kept): block size, length from the inode, first block 1, no
 * features, sequence seq (pick one unlikely to match old log blocks).
 */
int extkit_journal_reset_super(struct extkit_journal *j, uint32_t seq);

/*
 * Adds blocks written (by a replay) to the superblock's lifetime write
 * count, s_kbytes_written, in fs->raw_sb as e2fsck does after a replay;
 * written with the next superblock write.
 */
void extkit_journal_count_writes(struct extkit_fs *fs, uint64_t blocks);

#endif /* EXTKIT_JOURNAL_H */
