/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A new UUID for a metadata_csum filesystem without metadata_csum_seed:
 * every checksum seeded by the UUID computed again, as tune2fs -U does
 * (misc/tune2fs.c, rewrite_metadata_checksums). Seeded by the UUID are:
 * the superblock (through the descriptors' seed, its own is crc32c(~0)),
 * every group descriptor with the checksums of its block and inode
 * bitmaps, every inode (the initialized part of each inode table),
 * extent tree blocks, directory leaf tails and htree dx tails, EA blocks,
 * the orphan file's blocks and the MMP block; with ea_inode also the EA
 * inodes' value hashes and the entry hashes naming them
 * (csum_rewrite_ea.c). Not seeded: the bitmaps and
 * quota files themselves, the journal (its own UUID seeds it).
 *
 * extkit_csum_rewrite_plan reads and checks everything with the old seed
 * and builds the new blocks in memory (an overlay io, io_overlay.h):
 * nothing is written. A bad checksum or value hash, an unreadable block,
 * a filesystem not cleanly unmounted or with errors refuse with *why set.
 */
#ifndef EXTKIT_CSUM_REWRITE_H
#define EXTKIT_CSUM_REWRITE_H

#include <stdint.h>

#include "fs.h"
#include "io_overlay.h"

struct extkit_csum_plan {
	struct extkit_plan_block *blocks;	/* sorted by block */
	uint64_t n;
	uint64_t inodes;			/* inodes rewritten */
};

/*
 * Sets fs->sb.uuid to uuid and plans every block to write (superblock
 * and descriptor copies included, fs->sb written as it is). The caller
 * writes the plan (csum_rewrite_commit) or frees it. On error fs->sb
 * keeps the old UUID.
 */
int extkit_csum_rewrite_plan(struct extkit_fs *fs, const uint8_t uuid[16],
			     struct extkit_csum_plan *plan, const char **why);
void extkit_csum_plan_free(struct extkit_csum_plan *plan);

/*
 * Writes the plan so that an interruption leaves the old UUID valid
 * everywhere or a committed journal transaction that a replay turns
 * into the new one (extkit-label, extkit-fsck, e2fsck, the kernel):
 *
 *   1 the plan's blocks as one transaction in the log (invisible: the
 *     journal superblock says empty), flushed;
 *   2 needs_recovery set in the primary superblock (old UUID), flushed;
 *   3 the journal superblock's s_start: the commit point, flushed;
 *   4 every block in place, the primary superblock (new UUID, still
 *     needs_recovery) last, flushed;
 *   5 the journal emptied, flushed; 6 the primary superblock without
 *     needs_recovery, flushed.
 *
 * -ENOSPC (nothing written) when the filesystem has no internal journal
 * or its log cannot hold the plan; *why says which.
 */
int extkit_csum_rewrite_commit(struct extkit_fs *fs,
			       const struct extkit_csum_plan *plan,
			       const char **why);

/*
 * How many blocks the journal's log can take in one transaction (its
 * descriptors and commit block counted out): 0, or -ENOSPC with *why
 * when there is no internal journal or its format cannot be written.
 * The plan stops as soon as it grows past this (memory stays bounded by
 * the journal's size).
 */
int extkit_csum_rewrite_room(struct extkit_fs *fs, uint64_t *blocks,
			     const char **why);

/*
 * A filesystem left with needs_recovery by an interrupted commit (or by
 * the kernel): replays its journal and clears the flag, then reopens
 * *fs (opened with flags). Returns 0 (nothing to do included) or an
 * error with *why.
 */
int extkit_csum_rewrite_finish(struct extkit_fs **fs, int *replayed,
			       const char **why);

#endif /* EXTKIT_CSUM_REWRITE_H */
