/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * On-disk layout of jbd2, the journal of ext3/ext4. Unlike the rest of the
 * filesystem, every jbd2 field is BIG-endian: read them with get_be32/
 * put_be32 (endian.h) on the raw bytes. Layouts are pinned by static asserts.
 * Reference: Documentation/filesystems/ext4/journal.rst.
 */
#ifndef EXTKIT_JBD2_ONDISK_H
#define EXTKIT_JBD2_ONDISK_H

#include <stddef.h>
#include <linux/types.h>

#define JBD2_MAGIC_NUMBER		0xc03b3998U

/* h_blocktype */
#define JBD2_DESCRIPTOR_BLOCK		1
#define JBD2_COMMIT_BLOCK		2
#define JBD2_SUPERBLOCK_V1		3
#define JBD2_SUPERBLOCK_V2		4
#define JBD2_REVOKE_BLOCK		5
#define JBD2_FC_BLOCK			6

/* s_feature_compat */
#define JBD2_FEATURE_COMPAT_CHECKSUM		0x00000001
/* s_feature_incompat */
#define JBD2_FEATURE_INCOMPAT_REVOKE		0x00000001
#define JBD2_FEATURE_INCOMPAT_64BIT		0x00000002
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT	0x00000004
#define JBD2_FEATURE_INCOMPAT_CSUM_V2		0x00000008
#define JBD2_FEATURE_INCOMPAT_CSUM_V3		0x00000010
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT	0x00000020

/* s_checksum_type */
#define JBD2_CRC32_CHKSUM		1
#define JBD2_MD5_CHKSUM			2
#define JBD2_SHA1_CHKSUM		3
#define JBD2_CRC32C_CHKSUM		4

/* t_flags of a descriptor tag */
#define JBD2_FLAG_ESCAPE		1	/* block had the magic: restore it */
#define JBD2_FLAG_SAME_UUID		2	/* no 16-byte UUID follows the tag */
#define JBD2_FLAG_DELETED		4	/* unused */
#define JBD2_FLAG_LAST_TAG		8	/* last tag of this descriptor */

#define JBD2_MIN_JOURNAL_BLOCKS		1024
#define JBD2_DEFAULT_MAX_COMMIT_AGE	5

/* Common header of every journal metadata block. */
struct jbd2_header {
	__be32	h_magic;
	__be32	h_blocktype;
	__be32	h_sequence;		/* transaction id */
};

/* The journal superblock: the first block of the journal. */
struct jbd2_superblock {
	struct jbd2_header s_header;
	/* static: v1 and v2 */
	__be32	s_blocksize;		/* journal device block size */
	__be32	s_maxlen;		/* blocks in the journal */
	__be32	s_first;		/* first block of log information */
	/* dynamic */
	__be32	s_sequence;		/* first commit id expected in the log */
	__be32	s_start;		/* block of the log's start; 0 = clean */
	__be32	s_errno;
	/* v2 only */
	__be32	s_feature_compat;
	__be32	s_feature_incompat;
	__be32	s_feature_ro_compat;
	__u8	s_uuid[16];
	__be32	s_nr_users;
	__be32	s_dynsuper;
	__be32	s_max_transaction;
	__be32	s_max_trans_data;
	__u8	s_checksum_type;
	__u8	s_padding2[3];
	__be32	s_num_fc_blks;		/* fast-commit blocks; 0 = default */
	__be32	s_head;			/* block of the log's head (fs unmounted) */
	__be32	s_padding[40];
	__be32	s_checksum;		/* crc32c(~0, superblock with this 0) */
	__u8	s_users[16 * 48];
};

_Static_assert(sizeof(struct jbd2_superblock) == 1024, "jbd2 superblock size");
_Static_assert(offsetof(struct jbd2_superblock, s_blocksize) == 0x0C, "blocksize");
_Static_assert(offsetof(struct jbd2_superblock, s_feature_compat) == 0x24, "compat");
_Static_assert(offsetof(struct jbd2_superblock, s_uuid) == 0x30, "uuid");
_Static_assert(offsetof(struct jbd2_superblock, s_checksum_type) == 0x50, "csum type");
_Static_assert(offsetof(struct jbd2_superblock, s_num_fc_blks) == 0x54, "fc blks");
_Static_assert(offsetof(struct jbd2_superblock, s_head) == 0x58, "head");
_Static_assert(offsetof(struct jbd2_superblock, s_checksum) == 0xFC, "checksum");
_Static_assert(offsetof(struct jbd2_superblock, s_users) == 0x100, "users");

/*
 * Descriptor block tags. With csum_v3 every tag is struct jbd2_block_tag3
 * (16 bytes); otherwise struct jbd2_block_tag (12 bytes with 64bit, 8
 * without: t_blocknr_high is absent), with a 2-byte checksum under csum_v2.
 * A tag without JBD2_FLAG_SAME_UUID is followed by the 16-byte UUID.
 */
struct jbd2_block_tag3 {
	__be32	t_blocknr;
	__be32	t_flags;
	__be32	t_blocknr_high;
	__be32	t_checksum;		/* crc32c(seq, block), csum_v3 */
};

struct jbd2_block_tag {
	__be32	t_blocknr;
	__be16	t_checksum;		/* low 16 bits of crc32c, csum_v2 */
	__be16	t_flags;
	__be32	t_blocknr_high;		/* 64bit only */
};

_Static_assert(sizeof(struct jbd2_block_tag3) == 16, "tag3 size");
_Static_assert(sizeof(struct jbd2_block_tag) == 12, "tag size");

/* Tail of a descriptor or revoke block with csum v2/v3. */
struct jbd2_block_tail {
	__be32	t_checksum;
};

/* Commit block. */
struct jbd2_commit_header {
	struct jbd2_header h;
	__u8	h_chksum_type;
	__u8	h_chksum_size;
	__u8	h_padding[2];
	__be32	h_chksum[8];		/* JBD2_CHECKSUM_BYTES = 32 / 4 */
	__be64	h_commit_sec;
	__be32	h_commit_nsec;
};

_Static_assert(offsetof(struct jbd2_commit_header, h_chksum) == 0x10, "commit csum");
_Static_assert(offsetof(struct jbd2_commit_header, h_commit_sec) == 0x30, "commit sec");

/* Revoke block: a header, the bytes used, then 4- or 8-byte block numbers. */
struct jbd2_revoke_header {
	struct jbd2_header r_header;
	__be32	r_count;		/* bytes used in this block, header included */
};

_Static_assert(sizeof(struct jbd2_revoke_header) == 16, "revoke header");

#endif /* EXTKIT_JBD2_ONDISK_H */
