/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the jbd2 log block by block (journal_log.c): a block's header,
 * the tags of a descriptor block, the records of a revoke block, a
 * commit block's fields, and the checksums of each (crc32c with csum
 * v2/v3); the fast-commit area's tags one at a time. Recovery
 * (journal_replay.c) and viewers (extkit-dump logdump) share these
 * parsers. Every read stays inside the block, whatever its counts say.
 */
#ifndef EXTKIT_JOURNAL_LOG_H
#define EXTKIT_JOURNAL_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "journal.h"

/* Reads journal block idx (< j->nblocks) into buf (j->blocksize
 * bytes); -EFSCORRUPTED past the journal's end. */
int extkit_jlog_read(const struct extkit_journal *j, uint32_t idx, void *buf);

/*
 * Where the log lies: blocks [*first, *last) wrap around, the
 * fast-commit area (when the journal has the feature and it fits)
 * follows. The length is s_maxlen cut to what the inode maps.
 * -EFSCORRUPTED when there is no log between them.
 */
int extkit_jlog_bounds(const struct extkit_journal *j, uint32_t *first,
		       uint32_t *last);

/* A log block's header: 1 when it starts with the jbd2 magic (type and
 * sequence filled), else 0. */
int extkit_jlog_header(const void *buf, uint32_t *type, uint32_t *sequence);

/* Bytes of a descriptor tag, and of the checksum tail that ends
 * descriptor and revoke blocks (0 without csum v2/v3). */
uint32_t extkit_jlog_tag_bytes(const struct extkit_journal *j);
uint32_t extkit_jlog_tail_bytes(const struct extkit_journal *j);

/* A tag of a descriptor block. */
struct extkit_jlog_tag {
	uint64_t blk;		/* filesystem block (64 bits with 64bit) */
	uint32_t flags;		/* JBD2_FLAG_* */
	uint32_t csum;		/* 16 bits (v2) or 32 (v3) */
};

/* A walk over the tags of descriptor block buf. */
struct extkit_jlog_tags {
	const struct extkit_journal *j;
	const uint8_t *buf;
	size_t off;
	uint32_t tag_bytes;
	uint32_t end;		/* where tags must end (the tail) */
};

void extkit_jlog_tags_init(struct extkit_jlog_tags *it,
			   const struct extkit_journal *j, const void *buf);
/* 1 with *t filled, 0 after the last tag (LAST_TAG, or no room left). */
int extkit_jlog_tags_next(struct extkit_jlog_tags *it,
			  struct extkit_jlog_tag *t);
/* Tags of descriptor buf: data blocks that follow it in the log. */
uint32_t extkit_jlog_tag_count(const struct extkit_journal *j,
			       const void *buf);

/* A walk over the records of revoke block buf. */
struct extkit_jlog_revokes {
	const uint8_t *buf;
	uint32_t off;
	uint32_t count;		/* r_count as stored: bytes used */
	uint32_t end;		/* r_count, cut at the block (or tail) */
	uint32_t rec;		/* 4, or 8 with 64bit */
};

void extkit_jlog_revokes_init(struct extkit_jlog_revokes *it,
			      const struct extkit_journal *j,
			      const void *buf);
/* Whether r_count fits the block (before its checksum tail). */
int extkit_jlog_revokes_fit(const struct extkit_jlog_revokes *it);
/* 1 with *blk filled, 0 at the end. */
int extkit_jlog_revokes_next(struct extkit_jlog_revokes *it, uint64_t *blk);

/* A commit block's fields. */
struct extkit_jlog_commit {
	uint8_t csum_type;	/* h_chksum_type (v1 checksums) */
	uint8_t csum_size;
	uint32_t csum;		/* h_chksum[0] */
	uint64_t sec;		/* commit time */
	uint32_t nsec;
};

void extkit_jlog_commit_decode(const void *buf, struct extkit_jlog_commit *c);

/* Checksums with csum v2/v3 (always 1 without): a descriptor or revoke
 * block's tail, a commit block's, a data block's tag (seq: its
 * transaction). */
int extkit_jlog_tail_ok(const struct extkit_journal *j, const void *buf);
int extkit_jlog_commit_ok(const struct extkit_journal *j, const void *buf);
int extkit_jlog_tag_csum_ok(const struct extkit_journal *j,
			    const struct extkit_jlog_tag *t, const void *data,
			    uint32_t seq);

/* One tag of the fast-commit area, decoded (fast_commit.h names them). */
struct extkit_jlog_fc_tag {
	uint16_t tag;		/* EXT4_FC_TAG_*; 0 or past 9: unknown */
	uint16_t len;		/* of the value */
	int len_ok;		/* a length its type may have */
	uint32_t ino;		/* ADD_RANGE, DEL_RANGE, INODE; dentries:
				 * the entry's inode */
	uint32_t parent;	/* dentries */
	uint32_t lblk;		/* ADD_RANGE (the extent's), DEL_RANGE */
	uint64_t pblk;		/* ADD_RANGE */
	uint32_t count;		/* ADD_RANGE (unwritten bit off), DEL_RANGE */
	uint32_t tid;		/* HEAD, TAIL */
	uint32_t features;	/* HEAD */
	const char *name;	/* dentries: in the block, not terminated */
	uint32_t name_len;
};

/*
 * The tag at *off of fast-commit block buf: 1 with *t filled and *off
 * moved past it, 0 when no tag header fits, -EFSCORRUPTED when its value
 * runs past the block (*t has the header).
 */
int extkit_jlog_fc_next(const struct extkit_journal *j, const void *buf,
			uint32_t *off, struct extkit_jlog_fc_tag *t);

#endif /* EXTKIT_JOURNAL_LOG_H */
