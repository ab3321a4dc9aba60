/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fsck problem table: every finding has a code 0xPPNNNN (PP the pass,
 * 0x11 for pass 1B), one message in plain English, a prompt and flags.
 * fix_problem() alone decides, from -n/-y/-p or the terminal, whether a
 * problem is fixed. Codes are append-only and never reused.
 *
 * Output format (tests compare it): the message with its %-expansions,
 * then two spaces, the prompt, "? " and the answer, then an empty line:
 *
 *	Entry 'foo' in / (2) has deleted/unused inode 12.  Clear? yes
 *	<empty line>
 *
 * MSG_ONLY problems print the message and a newline. In preen mode a
 * problem is printed as "DEVICE: message  FIXED." (nothing with
 * PREEN_NOMSG), and a problem without PREEN_OK stops the run with
 * "UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY".
 *
 * Message expansions (from struct problem_context):
 *	%b block	%B logical block description ("block #5",
 *			"indirect block", ...) from blkcount
 *	%g group	%i inode	%j second inode	%d directory inode
 *	%N num		%O num2		%s str
 *	%Dn entry name	%Di entry inode	%Dt entry file type
 *	%Im inode mode (octal)	%Is i_size	%Ib i_blocks
 *	%Il i_links_count	%Iu uid		%Ig gid
 *	%p path of directory %i		%q path of directory %d
 *	%% a percent sign
 */
#ifndef EXTKIT_FSCK_PROBLEM_H
#define EXTKIT_FSCK_PROBLEM_H

#include <stdint.h>

#include "inode.h"

struct fsck_ctx;

/* Flags of a problem. */
#define PR_PREEN_OK	0x01	/* -p may fix it without asking */
#define PR_NO_OK	0x02	/* answering no leaves the fs valid */
#define PR_NO_DEFAULT	0x04	/* the default answer is no */
#define PR_MSG_ONLY	0x08	/* a report, no question */
#define PR_FATAL	0x10	/* the check cannot go on */
#define PR_PREEN_NOMSG	0x20	/* -p fixes it silently */
#define PR_NOT_A_FIX	0x40	/* yes changes nothing by itself (what
				 * it leads to is counted by its writes) */
#define PR_PREEN_NO	0x80	/* -p answers no (IGNORED), -y yes */

/* Prompts. */
enum problem_prompt {
	PROMPT_NONE = 0,
	PROMPT_FIX,
	PROMPT_CLEAR,
	PROMPT_SALVAGE,
	PROMPT_RELOCATE,
	PROMPT_CONNECT,
	PROMPT_CREATE,
	PROMPT_SPLIT,
	PROMPT_RENAME,
	PROMPT_CLONE,
	PROMPT_EXPAND,
	PROMPT_ALLOCATE,
	PROMPT_UNLINK,
	PROMPT_USE,
	PROMPT_CLEAR_INDEX,
	PROMPT_TRUNCATE,
	PROMPT_REPLAY,
	PROMPT_DELETE,
	PROMPT_CLEAR_FLAG,
	PROMPT_CLONE_SHARED,	/* e2fsck's "Clone multiply-claimed blocks" */
	PROMPT_DELETE_FILE,	/* e2fsck's "Delete file" */
};

/* Pass 0: superblock and group descriptors. */
#define PR_0_USE_BACKUP_SB	0x000001 /* primary sb unusable */
#define PR_0_USE_BACKUP_GDT	0x000002 /* primary descriptors bad */
#define PR_0_NO_SUPER		0x000003 /* no usable superblock at all */
#define PR_0_GDT_UNFIXABLE	0x000004 /* descriptor bad, no backup */
#define PR_0_R_BLOCKS		0x000005 /* reserved blocks > blocks */
#define PR_0_ORPHAN_LIST	0x000006 /* unprocessed orphan list */
#define PR_0_HASH_FLAGS		0x000007 /* dir_index, no signedness */
#define PR_0_FREE_COUNTS_BIG	0x000008 /* free counts > totals */
#define PR_0_ORPHAN_CLEAR	0x000009 /* orphan with no links: deleted */
#define PR_0_ORPHAN_TRUNCATE	0x00000A /* linked orphan: truncated */
#define PR_0_ORPHAN_BAD_LIST	0x00000B /* orphan chain unusable */
#define PR_0_ORPHAN_BLOCKS	0x00000C /* an orphan's blocks: stop */
/* 0x00000D retired (extent orphans are truncated now): never reuse it. */
#define PR_0_META_PREDICTED	0x000010 /* group place found by layout */
#define PR_0_META_RELOCATE	0x000011 /* group place to relocate */
#define PR_0_FLEX_SIZE		0x000012 /* s_log_groups_per_flex > 31 */
#define PR_0_INODE_COUNTS	0x000013 /* inodes_count != groups * ipg */
/* The journal (fsck/journal.c). */
#define PR_0_JOURNAL_BAD_INODE	0x000014 /* journal inode unusable */
#define PR_0_JOURNAL_BAD_SUPER	0x000015 /* journal superblock corrupt */
#define PR_0_JOURNAL_UNSUPP	0x000016 /* version/features unknown */
#define PR_0_JOURNAL_NO_FEATURE	0x000017 /* journal, has_journal clear */
#define PR_0_JOURNAL_RECOVER_SET 0x000018 /* needs_recovery, no journal */
#define PR_0_JOURNAL_HAS_DATA	0x000019 /* log not empty, no needs_recovery */
#define PR_0_JOURNAL_ERRNO	0x00001A /* journal records an error */
#define PR_0_JOURNAL_TXN_CORRUPT 0x00001B /* bad commit: replay stopped */
#define PR_0_JOURNAL_REPLAY_ERR	0x00001C /* replay failed or partial */
#define PR_0_JOURNAL_DELETED	0x00001D /* has_journal left without one */
#define PR_0_JOURNAL_RECREATE	0x00001E /* after the passes: a new one */
#define PR_0_JOURNAL_CREATE_ERR	0x00001F /* it could not be made */
#define PR_0_JOURNAL_V2_FIELDS	0x000020 /* stray fields past v1: cleared */
#define PR_0_JOURNAL_BACKUP	0x000021 /* s_jnl_blocks missing or stale */
#define PR_0_JOURNAL_FAST_COMMIT 0x000022 /* fast commits: dropped? */
#define PR_0_JOURNAL_USE_BACKUP	0x000023 /* bad inode: replay via s_jnl_blocks */
#define PR_0_JOURNAL_RESTORE_INODE 0x000024 /* bad inode: from s_jnl_blocks */
#define PR_0_JOURNAL_FC_REPLAY	0x000025 /* fast commits replayed */
#define PR_0_JOURNAL_FC_SKIPPED	0x000026 /* fast-commit tags not applied */
#define PR_0_JOURNAL_FC_DROPPED	0x000027 /* damage past the last good tail */

/*
 * Features and checksums (issue 13, branch feat): superblock and group
 * descriptor checksums, MMP, extent block checksums, directory tails.
 */
#define PR_0_SB_CSUM		0x000030 /* metadata_csum: s_checksum */
#define PR_0_GD_CSUM		0x000031 /* bg_checksum wrong */
#define PR_0_MMP_IN_USE		0x000032 /* MMP: in use, or bad: stop */
#define PR_0_MMP_DAMAGED	0x000033 /* bad magic or csum: rewritten */
/* Parity with e2fsck (issue 12; super_check.c, super_rebuild.c). */
#define PR_0_FS_REV_LEVEL	0x000100 /* revision 0 with features */
#define PR_0_SB_REBUILD		0x000101 /* one group: primary rebuilt */
#define PR_0_FUTURE_MTIME	0x000102 /* last mount time ahead */
#define PR_0_FUTURE_MTIME_FUDGED 0x000103 /* ... by less than a day */
#define PR_0_FUTURE_WTIME	0x000104 /* last write time ahead */
#define PR_0_FUTURE_WTIME_FUDGED 0x000105
#define PR_0_64BIT_NO_EXTENTS	0x000106 /* extents feature set */
#define PR_0_CSUM_SEED_NO_CSUM	0x000107 /* csum_seed cleared */
#define PR_0_BAD_MIN_EXTRA_ISIZE 0x000108 /* s_min_extra_isize */
#define PR_0_BAD_WANT_EXTRA_ISIZE 0x000109 /* s_want_extra_isize */
#define PR_1_EXTENT_CSUM	0x010070 /* tree block: only the csum */
/* Lazy-init marks of the descriptors (group_flags.c; issue 12, sweep). */
#define PR_0_GDT_UNINIT		0x000400 /* marks without gdt_csum */
#define PR_0_BB_UNINIT_LAST	0x000401 /* last group: BLOCK_UNINIT */
#define PR_0_GDT_ITABLE_UNUSED	0x000402 /* itable_unused > free inodes */
#define PR_0_NONZERO_RESERVED_GDT 0x000403 /* reserved GDT, no resize_inode */
#define PR_0_RESIZE_INODE_META_BG 0x000404 /* both features: drop the first */
#define PR_0_EXT_JOURNAL_NO_FEATURE 0x000500 /* journal UUID, no has_journal */
#define PR_0_CLUSTERS_PER_GROUP	0x000501 /* != blocks per group, no bigalloc */
/* Repairs that converge (issue 17, rel9; super_rebuild.c, relocate.c). */
#define PR_0_BLOCKS_COUNT_IMAGE	0x000700 /* garbage count: the image's */
#define PR_0_GDT_GARBLED	0x000701 /* group 0's table holds no root */
/* Preen parity with e2fsck (preen14): a bitmap the descriptor names
 * no block for is placed without asking (e2fsck's PR_1_RELOC_TO). */
#define PR_0_BITMAP_PREDICTED	0x000C00 /* PR_0_META_PREDICTED, block 0 */
#define PR_0_BITMAP_RELOCATE	0x000C01 /* PR_0_META_RELOCATE, block 0 */
#define PR_0_HURD_CLEAR_FILETYPE 0x000C02 /* Hurd: no filetype feature */
#define PR_2_INOREF_BG_INO_UNINIT 0x020400 /* entry into INODE_UNINIT */
#define PR_2_INOREF_IN_UNUSED	0x020401 /* entry past itable_unused */
/* The orphan file (orphan_file.c, orphan.c; issue 13). */
#define PR_0_ORPHAN_FILE_BAD	0x000200 /* not processed: why */
#define PR_0_ORPHAN_FILE_BLOCK	0x000201 /* a block's magic or csum */
#define PR_0_ORPHAN_FILE_ENTRY	0x000202 /* an entry is refused */
/* Parity with e2fsck (issue 12; super_check.c). */
#define PR_0_FIRST_META_BG_TOO_BIG 0x000300 /* past the descriptor blocks */
#define PR_0_INVALID_QUOTA_INO	0x000301 /* a reserved or too big number */
#define PR_0_STALE_INTERNAL_INO	0x000302 /* quota/orphan inum, feature off */
#define PR_0_QUOTA_INO_NOT_USUAL 0x000303 /* usr/grp inum away from 3/4 */

/* Pass 1: inodes and blocks. */
#define PR_1_ROOT_NOT_DIR	0x010001
#define PR_1_DTIME_LIVE		0x010002
#define PR_1_BAD_MODE		0x010003
#define PR_1_ILLEGAL_BLOCK	0x010004
#define PR_1_GARBAGE_IND	0x010005
#define PR_1_BAD_I_SIZE		0x010006
#define PR_1_BAD_I_BLOCKS	0x010007
#define PR_1_ZERO_LENGTH_DIR	0x010008
#define PR_1_DUP_BLOCK		0x010009
#define PR_1_BAD_EA_BLOCK	0x01000A
#define PR_1_BLOCK_READ		0x01000B
#define PR_1_EXTENT_BAD		0x01000C
#define PR_1_ITABLE_READ	0x01000D
#define PR_1_INDEX_NOT_DIR	0x01000E
#define PR_1_INDEX_NO_FEATURE	0x01000F
#define PR_1_RESERVED_MODE	0x010010
#define PR_1_BAD_SYMLINK	0x010011
#define PR_1_RESIZE_INODE	0x010012
#define PR_1_LOW_DTIME		0x010013
#define PR_1_FADDR		0x010014
#define PR_1_BAD_FLAGS		0x010015
#define PR_1_EA_NOT_VALID	0x010016
#define PR_1_SPECIAL_ILLEGAL	0x010017 /* device/FIFO/socket: bad i_block */
#define PR_1_SPECIAL_INLINE	0x010018 /* special file: inline data flag */
#define PR_1_SPECIAL_IMMUTABLE	0x010019 /* special file or symlink */
#define PR_1_SPECIAL_SIZE	0x01001A /* special file: nonzero i_size */
#define PR_1_BB_INVALID		0x01001B /* bad blocks inode: mode, links.. */
#define PR_1_BB_ILLEGAL_BLOCK	0x01001C /* bad block out of range */
#define PR_1_BB_META_BLOCK	0x01001D /* bad block in the metadata */
#define PR_1_EA_REFCOUNT	0x01001E /* h_refcount != inodes naming it */
#define PR_1_EA_NO_FEATURE	0x01001F /* i_file_acl without ext_attr */
#define PR_1_EA_WRITE		0x010020 /* EA block refcount not written */
#define PR_1_INODE_CSUM		0x010021 /* metadata_csum: only the csum */
#define PR_1_BLOCKS_HI		0x010025 /* l_i_blocks_high without huge_file */
#define PR_1_FILE_ACL_HI	0x010026 /* l_i_file_acl_high without 64bit */
#define PR_1_EXTRA_ISIZE	0x010027 /* i_extra_isize out of range */
#define PR_1_RESERVED_NOT_CLEAR	0x010028 /* unused journal/quota inode data */
#define PR_1_META_RELOCATED	0x010040 /* relocate.c */
#define PR_1_META_NO_SPACE	0x010041
#define PR_1_RESIZE_INVALID	0x010042 /* resize.c */
#define PR_1_RESIZE_NO_FEATURE	0x010043
#define PR_1_RESIZE_REBUILT	0x010044
#define PR_1_EXTENT_BAD_PBLK	0x010050 /* extents.c: start/end outside */
#define PR_1_EXTENT_ZERO_LEN	0x010051 /* extent of length 0 */
#define PR_1_EXTENT_ORDER	0x010052 /* out of order / overlapping */
#define PR_1_EXTENT_PAST_INDEX	0x010053 /* ends past its index range */
#define PR_1_EXTENT_NODE_BAD	0x010054 /* tree block unusable */
#define PR_1_EXTENT_INDEX_START	0x010055 /* index lblk != child's first */
#define PR_1_EXTENT_EMPTY_NODE	0x010056 /* tree block with no entry */
#define PR_1_EXTENT_ROOT_FIX	0x010057 /* root header salvaged */
#define PR_1_EXTENT_ROOT_BAD	0x010058 /* root header garbage */
#define PR_1_EXTENT_NODE_DEPTH	0x010059 /* tree block eh_depth wrong */
#define PR_1_TREE_IN_GROUP_META	0x01005A /* tree block in group metadata */
/* Extended attributes in inodes and EA inodes, inline data (xattr.c,
 * inline.c). */
#define PR_1_INLINE_NO_FEATURE	0x010080 /* inline data, feature off */
#define PR_1_INLINE_SET		0x010081 /* inline flag, nothing inline */
#define PR_1_INLINE_NO_ATTR	0x010082 /* no valid system.data */
#define PR_1_IBODY_EA_BAD	0x010083 /* in-inode EA area not valid */
#define PR_1_EA_INODE_BAD	0x010084 /* value inode unusable */
#define PR_1_EA_INODE_FLAG	0x010085 /* value inode lacks EA_INODE_FL */
#define PR_1_EA_BLOCK_CSUM	0x010086 /* EA block: only the checksum */
#define PR_1_INLINE_EXTENTS	0x010087 /* inline and extents flags */
/* Parity with e2fsck (issue 12). */
#define PR_1_TREAT_AS_DIR	0x010100 /* special file holding '.' '..' */
#define PR_1_EXTENT_FEATURE	0x010101 /* extent inode, feature off */
#define PR_1_COLLAPSE_DBLOCK	0x010300 /* dir extent past a hole: moved */
#define PR_1_UNINIT_DBLOCK	0x010301 /* dir extent marked unwritten */
#define PR_1_FAST_SYMLINK_EXTENT_FL 0x010600 /* symlink, no blocks, extents */
/* The campaign over issue 13's features (issue 17). */
#define PR_1_EXTENT_OVERRUN	0x010700 /* over the next one, past EOF */
/* Repairs that converge (issue 17, rel9). */
#define PR_1_IND_IN_GROUP_META	0x010800 /* indirect number in metadata */
#define PR_1_BIGALLOC_BLOCKMAP	0x010801 /* bigalloc: to an extent file */
#define PR_1E_TO_EXTENTS_FAILED	0x010802 /* ... and that failed: why */
#define PR_1_UNSET_EXTENTS_FL	0x010803 /* extent header, flag unset */
#define PR_1_QUOTA_INODE_SHARED	0x010804 /* before 1B: emptied */
#define PR_1_MISALIGNED_CLUSTER	0x010805 /* bigalloc: off the grid */
#define PR_1_TOOBIG_DIR		0x010806 /* dir block past 2 GiB */
/* Encrypted inodes (encrypt.c; issue 13's images, enc13). */
#define PR_1_ENCRYPT_NO_XATTR	0x010B00 /* encrypt flag, no context */
#define PR_1_ENCRYPT_BAD_XATTR	0x010B01 /* corrupt context: cleared */
/* Preen parity with e2fsck (preen14): one finding, two decisions. */
#define PR_1_IBODY_EA_COLLISION	0x010C00 /* in-inode values overlap */

/* Pass 1B: blocks claimed twice. */
#define PR_1B_CLONE		0x011001
#define PR_1B_NO_SPACE		0x011002
#define PR_1B_NO_ROOM_DELETE	0x011003 /* copies cannot fit: delete */
/* Passes 1B-1D in e2fsck's words (dupreport.c; issue 31). A problem
 * with an empty message prints its prompt alone. */
#define PR_1B_PASS_HEADER	0x016000
#define PR_1B_DUP_LIST		0x016001 /* an inode's shared blocks */
#define PR_1C_PASS_HEADER	0x016002
#define PR_1D_PASS_HEADER	0x016003
#define PR_1D_NUM_DUP_INODES	0x016004
#define PR_1D_DUP_FILE		0x016005 /* a file and its count */
#define PR_1D_DUP_FILE_LIST	0x016006 /* a file it shares with */
#define PR_1D_SHARE_METADATA	0x016007 /* ... and metadata */
#define PR_1D_DUP_BLOCKS_DEALT	0x016008 /* its copies are made */
#define PR_1D_CLONE_QUESTION	0x016009
#define PR_1D_DELETE_QUESTION	0x01600A /* after a no, or a failure */
#define PR_1_DUP_BLOCKS_PREENSTOP 0x01600B /* -p: said before pass 1B */

/* Pass 1: reserved inodes in full (resize.c, badblocks.c, journal inode). */
#define PR_1_RESIZE_ILLEGAL_BLOCK 0x015000 /* stray entry in inode 7's map */
#define PR_1_RESIZE_ENTRY_WRONG	0x015001 /* a list entry not the layout's */
#define PR_1_BB_GARBAGE_TREE	0x015002 /* inode 1: a garbage indirect tree */

/* Pass 2: directory structure. */
#define PR_2_DIR_CORRUPT	0x020001
#define PR_2_MISSING_DOT	0x020002
#define PR_2_MISSING_DOT_DOT	0x020003
#define PR_2_BAD_INODE_DOT	0x020004
#define PR_2_SPLIT_DOT		0x020005
#define PR_2_BAD_INO		0x020006
#define PR_2_UNUSED_INODE	0x020007
#define PR_2_LINK_DOT		0x020008
#define PR_2_LINK_DIR		0x020009
#define PR_2_LINK_ROOT		0x02000A
#define PR_2_BAD_NAME		0x02000B
#define PR_2_NULL_NAME		0x02000C
#define PR_2_DUP_DOT		0x02000D
#define PR_2_DUP_DOT_DOT	0x02000E
#define PR_2_BAD_FILETYPE	0x02000F
#define PR_2_DUP_NAME		0x020010
#define PR_2_DUP_NAME_RENAME	0x020011
#define PR_2_DIR_HOLE		0x020012
#define PR_2_DIR_READ		0x020013
#define PR_2_HTREE_BAD		0x020014
#define PR_2_DIR_OPEN		0x020015
#define PR_2_BAD_INODE_RANGE	0x020016
#define PR_2_DIR_CSUM		0x020017 /* metadata_csum: only the csum */
#define PR_2_DIR_NO_CSUM	0x020018 /* leaf block without a tail */
/* Parity with e2fsck (issue 12). */
#define PR_2_HTREE_HASHV	0x020100 /* root: unknown hash version */
#define PR_2_DOT_NULL_TERM	0x020101 /* '.' name not NUL-padded */
#define PR_2_DOT_DOT_NULL_TERM	0x020102 /* '..' name not NUL-padded */
#define PR_2_FEATURE_LARGE_FILES 0x020103 /* large files, no large_file */
#define PR_2_DIR_HOLES		0x020300 /* a run of unmapped dir blocks */
/* ext4 features (issue 13). */
#define PR_2_BAD_ENCODED_NAME	0x020500 /* strict casefold: not UTF-8 */
#define PR_2_LINK_DIR_FIRST	0x020600 /* first name of a dir: stray */
/* Encrypted directories (enc13). */
#define PR_2_ENCRYPT_SHORT_NAME	0x020B00 /* name under one cipher block */
#define PR_2_ENCRYPT_PLAIN	0x020B01 /* names an unencrypted inode */
#define PR_2_ENCRYPT_OTHER	0x020B02 /* names another policy's inode */
/* Preen parity with e2fsck (preen14). */
#define PR_2_HTREE_CLEAR	0x020C00 /* index and blocks disagree */
#define PR_2_SET_FILETYPE	0x020C01 /* file type 0: set */
#define PR_2_CLEAR_FILETYPE	0x020C02 /* type byte, no filetype feature */

/* Pass 3: connectivity. */
#define PR_3_NO_ROOT		0x030001
#define PR_3_UNCONNECTED_DIR	0x030002
#define PR_3_NO_LF		0x030003
#define PR_3_LF_NOT_DIR		0x030004
#define PR_3_BAD_DOT_DOT	0x030005
#define PR_3_CONNECT_FAILED	0x030006
#define PR_3_EXPAND_LF		0x030007
#define PR_3_ROOT_CREATE_FAILED	0x030008
#define PR_3_LF_CREATE_FAILED	0x030009
#define PR_3_LF_NO_SPACE	0x03000A /* full: lost files go in / */
#define PR_3_NO_SPACE_TO_RECOVER 0x03000B /* ... make room, run again */
/* ext4 features (issue 17's campaign). */
#define PR_3_INDEX_DROPPED	0x030700 /* no rebuild: the index dropped */
#define PR_3_LF_ENCRYPTED	0x030B00 /* lost+found encrypted (enc13) */

/* Pass 3A: -D, compacting and re-indexing directories. */
#define PR_3A_PASS_HEADER	0x031000
#define PR_3A_OPTIMIZE_DIR	0x031001 /* -v: one line a directory */
#define PR_3A_OPTIMIZE_SKIPPED	0x031002 /* refused, nothing written */
#define PR_3A_OPTIMIZE_FAILED	0x031003 /* I/O failed part-way */

/* Pass 4: reference counts. */
#define PR_4_UNATTACHED		0x040001
#define PR_4_ZERO_LEN		0x040002
#define PR_4_BAD_REF_COUNT	0x040003
#define PR_4_ZERO_DTIME		0x040004
/* EA inodes (xattr.c). */
#define PR_4_EA_INODE_REFS	0x040080 /* stored count != references */
#define PR_4_EA_INODE_UNNAMED	0x040081 /* reconnected: flag cleared */
#define PR_4_EA_INODE_NAMED	0x040082 /* a directory names it: flag cleared */
/* Parity with e2fsck (issue 12). */
#define PR_4_DIR_NLINK_FEATURE	0x040300 /* > 65,000 links, no dir_nlink */
#define PR_4_DIR_OVERFLOW_REF_COUNT 0x040301 /* count 1, exact one fits */

/* Pass 5: bitmaps and summary counts. */
#define PR_5_BLOCK_BITMAP	0x050001
#define PR_5_INODE_BITMAP	0x050002
#define PR_5_FREE_BLOCKS_GROUP	0x050003
#define PR_5_FREE_INODES_GROUP	0x050004
#define PR_5_DIRS_GROUP		0x050005
#define PR_5_FREE_BLOCKS	0x050006
#define PR_5_FREE_INODES	0x050007
#define PR_5_BITMAP_READ	0x050008
#define PR_5_BLOCK_PADDING	0x050009
#define PR_5_INODE_PADDING	0x05000A
#define PR_5_BLOCK_BITMAP_CSUM	0x05000B /* metadata_csum */
#define PR_5_INODE_BITMAP_CSUM	0x05000C
#define PR_5_BLOCK_UNINIT	0x05000D /* BLOCK_UNINIT, blocks in use */
/* Quota files, after the passes (quota.c; issue 13). */
#define PR_5_QUOTA_BAD_FILE	0x050200 /* not a valid quota file */
#define PR_5_QUOTA_USAGE	0x050201 /* one id's usage differs */
#define PR_5_QUOTA_UPDATE	0x050202 /* rewrite the quota file */
#define PR_5_QUOTA_WRITE	0x050203 /* the rewrite failed */
#define PR_5_QUOTA_SCAN		0x050204 /* usage could not be counted */
#define PR_5_ORPHAN_FILE_BAD	0x050210 /* orphan file unusable */
#define PR_5_ORPHAN_BLOCK_DIRTY	0x050211 /* a block is not empty */
#define PR_5_ORPHAN_PRESENT	0x050212 /* orphan_present, file clean */

/* What a message talks about; fill the fields the message names. */
struct problem_context {
	uint32_t ino;
	uint32_t ino2;
	uint32_t dir;
	uint64_t blk;
	int64_t blkcount;	/* >= 0 logical block; -1..-3 indirect */
	uint32_t group;
	uint64_t num;
	uint64_t num2;
	const char *str;
	const struct extkit_inode *inode;
	/* Directory entry, for %D expansions. */
	const char *de_name;
	uint32_t de_name_len;
	uint32_t de_inode;
	uint8_t de_type;
};

struct problem {
	uint32_t code;
	const char *message;
	enum problem_prompt prompt;
	unsigned int flags;
};

void clear_problem_context(struct problem_context *pctx);

/*
 * Reports problem code and returns 1 if it is to be fixed, 0 if not. A
 * "no" to a problem without PR_NO_OK marks the filesystem as still
 * invalid; FATAL problems set the abort flag. In preen mode a problem
 * without PR_PREEN_OK ends the program (exit 4).
 */
int fix_problem(struct fsck_ctx *ctx, uint32_t code,
		struct problem_context *pctx);

/* The table, sorted by code, for the unit test. */
extern const struct problem problem_table[];
extern const unsigned int problem_table_size;
const struct problem *find_problem(uint32_t code);

/* Expands message into out (size len); used by fix_problem. */
void problem_expand(struct fsck_ctx *ctx, const char *message,
		    const struct problem_context *pctx, char *out,
		    size_t len);

#endif /* EXTKIT_FSCK_PROBLEM_H */
