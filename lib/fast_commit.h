/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ext4 fast commits: the area of the journal after the jbd2 log (journal
 * blocks s_maxlen - s_num_fc_blks + 1 .. s_maxlen - 1) where the kernel
 * logs, between two full commits, what changed since the last one as a
 * list of tags (struct ext4_fc_tl: le16 tag, le16 length, then the
 * value), never one across a block boundary:
 *
 *   HEAD 9      le32 features (0), le32 tid: the transaction after the
 *               log's last one; the first tag of the area
 *   ADD_RANGE 1 le32 ino, a 12-byte ext4_extent: map those blocks
 *   DEL_RANGE 2 le32 ino, le32 lblk, le32 len: unmap them
 *   CREAT 3     le32 parent, le32 ino, the name (1..255 bytes): a new
 *   LINK 4      entry (CREAT: of a new inode); UNLINK 5: the entry goes
 *   INODE 6     le32 ino, the raw inode (128 bytes + i_extra_isize)
 *   PAD 7       filler (also covered by the checksum)
 *   TAIL 8      le32 tid, le32 crc: the end of one fast commit; the
 *               crc32c (seed 0) of every byte of the tags since the
 *               previous TAIL (or the HEAD) up to and including this
 *               tag's tid; its length runs to the end of the block.
 *
 * Only the tags up to the last TAIL whose tid and crc match are
 * replayed; the scan ends at the first tag that is unknown, runs past its
 * block or has a length its type cannot have, and at a bad TAIL.
 *
 * Replay follows the kernel's (fs/ext4/fast_commit.c) and e2fsck's: an
 * INODE tag overwrites the inode but its block map (i_block is taken
 * only for inline data), ADD_RANGE/DEL_RANGE edit the extent tree, the
 * dentry tags add or remove directory entries. Bitmaps and counts are
 * left to the full check that follows (blocks the replay allocates are
 * marked in the bitmaps; they never come from a range the log maps).
 */
#ifndef EXTKIT_FAST_COMMIT_H
#define EXTKIT_FAST_COMMIT_H

#include <stdint.h>

#include "fs.h"
#include "journal.h"
#include "ondisk.h"

#define EXTKIT_FC_ADD_RANGE	EXT4_FC_TAG_ADD_RANGE
#define EXTKIT_FC_DEL_RANGE	EXT4_FC_TAG_DEL_RANGE
#define EXTKIT_FC_CREAT		EXT4_FC_TAG_CREAT
#define EXTKIT_FC_LINK		EXT4_FC_TAG_LINK
#define EXTKIT_FC_UNLINK	EXT4_FC_TAG_UNLINK
#define EXTKIT_FC_INODE		EXT4_FC_TAG_INODE
#define EXTKIT_FC_PAD		EXT4_FC_TAG_PAD
#define EXTKIT_FC_TAIL		EXT4_FC_TAG_TAIL
#define EXTKIT_FC_HEAD		EXT4_FC_TAG_HEAD
#define EXTKIT_FC_NTYPES	10

/* One tag to replay: its value is len bytes at fc->vals + val. */
struct extkit_fc_tag {
	uint16_t tag;
	uint16_t len;
	uint32_t val;
};

/* What the scan of the fast-commit area found. */
struct extkit_fc {
	uint32_t tid;		/* the HEAD's transaction */
	uint32_t first;		/* journal block of the HEAD */
	uint32_t commits;	/* fast commits with a valid TAIL */
	uint32_t ntags;		/* tags of those (PAD, HEAD, TAIL left out) */
	uint32_t dropped;	/* tags after the last valid TAIL */
	const char *end;	/* why the scan stopped after a tag it could
				 * not replay (NULL: a clean end) */
	struct extkit_fc_tag *tags;
	uint8_t *vals;
	uint32_t count[EXTKIT_FC_NTYPES];	/* ntags by type */
};

/*
 * Scans the fast-commit area of journal j for transaction tid (the one
 * after the log's last). *out is NULL when no fast commit is pending
 * there (no HEAD of tid), else the tags (commits 0: a HEAD, but no
 * fast commit whose TAIL checks out). Reads only; memory is bounded by
 * the area. Returns 0 or a negative I/O or memory error.
 */
int extkit_fc_scan(struct extkit_journal *j, uint32_t tid,
		   struct extkit_fc **out);
void extkit_fc_free(struct extkit_fc *fc);

/* Whether len is a length a tag of type tag may have (the kernel's
 * ext4_fc_value_len_isvalid); 0 for an unknown tag. */
int extkit_fc_tag_len_ok(const struct extkit_journal *j, uint16_t tag,
			 uint32_t len);

/* What a replay did. */
struct extkit_fc_stats {
	uint32_t applied[EXTKIT_FC_NTYPES];	/* tags replayed, by type */
	uint32_t skipped;	/* tags that could not apply (bad inode
				 * number, range outside the filesystem or
				 * on its metadata, missing inode or
				 * directory, damaged map) */
	uint32_t first_skip;	/* index of the first one skipped */
	const char *skip_why;	/* why */
};

/*
 * Replays fc (already scanned) into fs, which must be open read-write
 * with the jbd2 log already replayed. Every tag is checked against the
 * filesystem before the first write; a tag that cannot apply is
 * skipped (counted in st). Returns 0, or a negative error (I/O, memory,
 * no space) that stopped the replay midway.
 */
int extkit_fc_replay(struct extkit_fs *fs, const struct extkit_fc *fc,
		     struct extkit_fc_stats *st);

#endif /* EXTKIT_FAST_COMMIT_H */
