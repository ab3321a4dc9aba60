// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The problem table and fix_problem(): the only place that decides
 * whether a finding is fixed, and the only place that prints findings.
 * The output format is documented in problem.h.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ondisk.h"
#include "undo.h"

#include "fsck.h"
#include "interact.h"
#include "problem.h"

#define MSG_MAX		4096
#define PATH_MSG_MAX	1024

const struct problem problem_table[] = {
	/* Pass 0 */
	{ PR_0_USE_BACKUP_SB,
	  "The primary superblock is unusable (%s). Using the backup "
	  "superblock at block %b; it will replace the primary.",
	  PROMPT_USE, 0 },
	{ PR_0_USE_BACKUP_GDT,
	  "The group descriptors are corrupt (%s). Using the backup "
	  "superblock and descriptors at block %b.",
	  PROMPT_USE, 0 },
	/* Reported on stderr by open.c's report_no_super, not here. */
	{ PR_0_NO_SUPER,
	  "No usable superblock found (%s).",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_GDT_UNFIXABLE,
	  "Group descriptor %g is corrupt (%s) and no backup is usable.",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_R_BLOCKS,
	  "Reserved blocks count %N is larger than the block count %O.",
	  PROMPT_FIX, 0 },
	{ PR_0_ORPHAN_LIST,
	  "The orphan inode list starting at inode %i was not processed.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_HASH_FLAGS,
	  "The superblock has dir_index but no hash signedness flag.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK | PR_PREEN_NOMSG | PR_NOT_A_FIX },
	{ PR_0_FREE_COUNTS_BIG,
	  "The superblock free %s count %N is larger than the total %O.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK | PR_PREEN_NOMSG },
	{ PR_0_ORPHAN_CLEAR,
	  "Deleting orphaned inode %i (uid=%Iu, gid=%Ig, mode=%Im, "
	  "size=%Is): it has no links.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_ORPHAN_TRUNCATE,
	  "Truncating orphaned inode %i (uid=%Iu, gid=%Ig, mode=%Im, "
	  "size=%Is) to its size.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_ORPHAN_BAD_LIST,
	  "The orphan inode list is corrupt: entry %N, inode %i, %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_ORPHAN_BLOCKS,
	  "Cannot release the blocks of orphaned inode %i (%s); the rest of "
	  "the orphan list is left to the full check.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_META_PREDICTED,
	  "The %s of group %g is out of place (block %b); the layout puts "
	  "it at block %N.",
	  PROMPT_USE, 0 },
	{ PR_0_META_RELOCATE,
	  "The %s of group %g is out of place (block %b).",
	  PROMPT_RELOCATE, 0 },
	{ PR_0_FLEX_SIZE,
	  "The superblock's flex group size (log %N) is out of range.",
	  PROMPT_FIX, 0 },
	{ PR_0_INODE_COUNTS,
	  "The superblock's inode count (%N) and inodes per group (%O) "
	  "disagree and no backup is usable; %s.",
	  PROMPT_FIX, 0 },
	{ PR_0_JOURNAL_BAD_INODE,
	  "The superblock names an unusable journal (inode %i): %s.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_JOURNAL_BAD_SUPER,
	  "The journal superblock is corrupt (%s); it is replaced by an "
	  "empty one.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_JOURNAL_UNSUPP,
	  "The journal cannot be used: %s.",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_JOURNAL_NO_FEATURE,
	  "The superblock's has_journal flag is clear, but it names a "
	  "journal (inode %i).",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_JOURNAL_RECOVER_SET,
	  "The superblock's needs_recovery flag is set, but there is no "
	  "journal.",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_JOURNAL_HAS_DATA,
	  "The superblock's needs_recovery flag is clear, but the journal "
	  "holds transactions.",
	  PROMPT_REPLAY, 0 },
	{ PR_0_JOURNAL_ERRNO,
	  "The journal superblock records an error (errno %N); the "
	  "filesystem is marked as having errors.",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_PREEN_NOMSG | PR_NOT_A_FIX },
	{ PR_0_JOURNAL_TXN_CORRUPT,
	  "Journal transaction %N was corrupt; the replay stopped before "
	  "it.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_JOURNAL_REPLAY_ERR,
	  "The journal replay was not complete (%s); the filesystem gets "
	  "a full check.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_JOURNAL_DELETED,
	  "The journal was cleared: the filesystem has no journal now.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_JOURNAL_RECREATE,
	  "The filesystem lost its journal; a new empty one of %N blocks "
	  "can be made.",
	  PROMPT_CREATE, PR_PREEN_OK },
	{ PR_0_JOURNAL_CREATE_ERR,
	  "The new journal could not be made (%s); the filesystem has no "
	  "journal.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_JOURNAL_V2_FIELDS,
	  "The journal superblock has invalid fields past the version 1 "
	  "ones (%s): a bad upgrade of a version 1 journal. The fields "
	  "past version 1 are cleared.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_JOURNAL_BACKUP,
	  "Backing up the journal inode's block map in the superblock.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_JOURNAL_FAST_COMMIT,
	  "The journal holds fast commits (transaction %N) that cannot be "
	  "replayed (%s): they can be cleared and the rest of the journal "
	  "replayed without them, losing the changes they hold (a full "
	  "check follows).",
	  PROMPT_CLEAR, 0 },
	{ PR_0_JOURNAL_USE_BACKUP,
	  "The journal inode %i is unusable (%s); the journal is read "
	  "through the copy of its block map that the superblock keeps.",
	  PROMPT_NONE, PR_MSG_ONLY | PR_PREEN_NOMSG },
	{ PR_0_JOURNAL_RESTORE_INODE,
	  "The journal inode %i is unusable (%s), but the superblock keeps "
	  "a copy of its block map: the inode is rewritten from it.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_JOURNAL_FC_REPLAY,
	  "Replaying %N fast commits of transaction %O (%s).",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_JOURNAL_FC_SKIPPED,
	  "%N fast-commit tags could not be applied (the first: %s); the "
	  "full check follows.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_JOURNAL_FC_DROPPED,
	  "The fast-commit area is damaged after the last complete fast "
	  "commit (%s): the rest of it is not replayed, as the kernel "
	  "does.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_SB_CSUM,
	  "The superblock checksum does not match the superblock.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_GD_CSUM,
	  "Group descriptor %g checksum is %N, should be %O.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_MMP_IN_USE,
	  "MMP block %b: %s; not checking it. If no node uses the "
	  "filesystem, clear it with tune2fs -f -E clear_mmp.",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_MMP_DAMAGED,
	  "The MMP block %b is damaged (%s); it is rewritten as a new one "
	  "(make sure no other node uses the filesystem).",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_FS_REV_LEVEL,
	  "The filesystem has feature flags set, but is a revision 0 "
	  "filesystem.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_SB_REBUILD,
	  "The primary superblock is unusable (%s), and a filesystem of one "
	  "group has no backup. Its other fields agree with the group "
	  "descriptor and the inode table: it can be rebuilt from them.",
	  PROMPT_FIX, 0 },
	{ PR_0_FUTURE_MTIME,
	  "The superblock's last mount time (%N) is in the future.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_FUTURE_MTIME_FUDGED,
	  "The superblock's last mount time is in the future by less than "
	  "a day, probably because the hardware clock is set wrong.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_FUTURE_WTIME,
	  "The superblock's last write time (%N) is in the future.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_FUTURE_WTIME_FUDGED,
	  "The superblock's last write time is in the future by less than "
	  "a day, probably because the hardware clock is set wrong.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_64BIT_NO_EXTENTS,
	  "The filesystem has the 64bit feature but not extents, which it "
	  "needs to reach all of its blocks.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_CSUM_SEED_NO_CSUM,
	  "The metadata_csum_seed feature is set without metadata_csum.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_BAD_MIN_EXTRA_ISIZE,
	  "The superblock's minimum extra inode size (%N) is invalid; "
	  "it should be %O.",
	  PROMPT_FIX, 0 },
	{ PR_0_BAD_WANT_EXTRA_ISIZE,
	  "The superblock's desired extra inode size (%N) is invalid; "
	  "it should be %O.",
	  PROMPT_FIX, 0 },
	/* The orphan file (orphan_file.c) */
	{ PR_0_ORPHAN_FILE_BAD,
	  "The orphan file (inode %i) cannot be processed: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_ORPHAN_FILE_BLOCK,
	  "Orphan file (inode %i) block %N: %s; its entries are left to "
	  "the check.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_ORPHAN_FILE_ENTRY,
	  "Inode %i, named in the orphan file, is %s: not released.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_0_FIRST_META_BG_TOO_BIG,
	  "The superblock's first_meta_bg (%N) is past the %O group "
	  "descriptor blocks.",
	  PROMPT_CLEAR, 0 },
	{ PR_0_INVALID_QUOTA_INO,
	  "Invalid %s quota inode %i.",
	  PROMPT_FIX, 0 },
	{ PR_0_STALE_INTERNAL_INO,
	  "The superblock names inode %i as its %s, but the feature that "
	  "uses it is off: the number is stale (the inode is left as it "
	  "is).",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_QUOTA_INO_NOT_USUAL,
	  "The superblock names inode %i as its %s, but inode %N holds "
	  "that quota file.",
	  PROMPT_FIX, PR_PREEN_OK },
	/* Lazy-init marks of the descriptors (group_flags.c) */
	{ PR_0_GDT_UNINIT,
	  "Group descriptor %g has lazy-init marks, but the filesystem has "
	  "no group descriptor checksums.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_BB_UNINIT_LAST,
	  "The last group's block bitmap is marked uninitialized.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_GDT_ITABLE_UNUSED,
	  "Group descriptor %g counts %N never-used inodes, more than it "
	  "has free.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_NONZERO_RESERVED_GDT,
	  "The superblock reserves %N GDT blocks for growth, but the "
	  "filesystem has no resize_inode feature.",
	  PROMPT_FIX, 0 },
	{ PR_0_RESIZE_INODE_META_BG,
	  "The resize_inode and meta_bg features are both set; they "
	  "exclude each other: resize_inode is to be cleared.",
	  PROMPT_FIX, 0 },
	{ PR_0_EXT_JOURNAL_NO_FEATURE,
	  "The superblock names a journal on another device, but the "
	  "filesystem has no has_journal feature.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_CLUSTERS_PER_GROUP,
	  "Clusters per group is %N, but without bigalloc it must be the "
	  "blocks per group (%O).",
	  PROMPT_FIX, 0 },
	{ PR_0_BLOCKS_COUNT_IMAGE,
	  "The superblock's block count (%N) is past the end of the image "
	  "and names groups the descriptors do not describe, and no backup "
	  "is usable; the image holds %O blocks.",
	  PROMPT_FIX, 0 },
	{ PR_0_GDT_GARBLED,
	  "Group 0's descriptor names an inode table at %b that holds no "
	  "root directory, while mkfs' place for it (%N) holds one: the "
	  "descriptor is garbage and no backup is usable.",
	  PROMPT_NONE, PR_MSG_ONLY | PR_PREEN_OK },
	{ PR_0_BITMAP_PREDICTED,
	  "The %s of group %g is out of place (block %b); the layout puts "
	  "it at block %N.",
	  PROMPT_USE, PR_PREEN_OK },
	{ PR_0_BITMAP_RELOCATE,
	  "The %s of group %g is out of place (block %b).",
	  PROMPT_RELOCATE, PR_PREEN_OK },
	{ PR_0_HURD_CLEAR_FILETYPE,
	  "The filesystem was made by the Hurd, which does not support "
	  "the filetype feature.",
	  PROMPT_CLEAR, 0 },
	/* Pass 1 */
	{ PR_1_ROOT_NOT_DIR,
	  "Root inode is not a directory (mode %Im).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_DTIME_LIVE,
	  "Inode %i is in use, but has dtime set.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_BAD_MODE,
	  "Inode %i has an invalid mode (%Im).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_ILLEGAL_BLOCK,
	  "Illegal %B (%b) in inode %i.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_GARBAGE_IND,
	  "The %B (%b) of inode %i is full of garbage (%N illegal block "
	  "numbers).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_BAD_I_SIZE,
	  "Inode %i, i_size is %Is, should be %N.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_BAD_I_BLOCKS,
	  "Inode %i, i_blocks is %Ib, should be %N.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_ZERO_LENGTH_DIR,
	  "Directory inode %i has no blocks.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_1_DUP_BLOCK,
	  "Inode %i has %N block(s) claimed by another inode or by "
	  "filesystem metadata (first %b).",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_BAD_EA_BLOCK,
	  "Inode %i has an illegal extended attribute block %b.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_BLOCK_READ,
	  "Error reading %B (%b) of inode %i: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_EXTENT_BAD,
	  "Inode %i has a corrupt extent tree (%s); it is left as it is.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_ITABLE_READ,
	  "Error reading the inode table of group %g at block %b: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_INDEX_NOT_DIR,
	  "Inode %i has the htree index flag set but is not a directory.",
	  PROMPT_CLEAR_INDEX, PR_PREEN_OK },
	{ PR_1_INDEX_NO_FEATURE,
	  "Directory inode %i has the htree index flag set on a "
	  "filesystem without dir_index.",
	  PROMPT_CLEAR_INDEX, PR_PREEN_OK },
	{ PR_1_RESERVED_MODE,
	  "Reserved inode %i has an invalid mode (%Im).",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_1_BAD_SYMLINK,
	  "Symlink inode %i is invalid (%s).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_RESIZE_INODE,
	  "The lists of backups in the reserved GDT blocks of the resize "
	  "inode (double indirect block %b) are not valid.",
	  PROMPT_FIX, 0 },
	{ PR_1_LOW_DTIME,
	  "Inode %i was part of the orphaned inode list (dtime %N).",
	  PROMPT_FIX, 0 },
	{ PR_1_FADDR,
	  "i_faddr for inode %i is %N, should be zero.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_BAD_FLAGS,
	  "Inode %i has flags the filesystem's features do not allow (%s).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EA_NOT_VALID,
	  "Inode %i has an extended attribute block %b that is not valid "
	  "(%s).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_SPECIAL_ILLEGAL,
	  "Inode %i is an illegal %s.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_SPECIAL_INLINE,
	  "Special file inode %i (%s) has the inline data flag set.",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_PREEN_NO | PR_NO_OK },
	{ PR_1_SPECIAL_IMMUTABLE,
	  "Special file inode %i (%s) has the immutable or append-only "
	  "flag set.",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_NO_OK | PR_NO_DEFAULT },
	{ PR_1_SPECIAL_SIZE,
	  "Special file inode %i (%s) has size %Is, should be 0.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_BB_INVALID,
	  "The bad blocks inode looks invalid (%s).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_BB_ILLEGAL_BLOCK,
	  "Illegal %B (%b) in the bad blocks inode.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_BB_META_BLOCK,
	  "The bad blocks inode lists block %b (%B), which is %s.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EA_REFCOUNT,
	  "Extended attribute block %b has reference count %O, should be "
	  "%N.",
	  PROMPT_FIX, 0 },
	{ PR_1_EA_NO_FEATURE,
	  "Inode %i has extended attribute block %b, but the filesystem "
	  "has no ext_attr feature.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EA_WRITE,
	  "Cannot update the reference count of extended attribute block "
	  "%b: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_INODE_CSUM,
	  "Inode %i passes checks, but its checksum does not match.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_BLOCKS_HI,
	  "i_blocks_hi for inode %i is %N, should be zero.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_FILE_ACL_HI,
	  "i_file_acl_hi for inode %i is %N, should be zero.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_1_EXTRA_ISIZE,
	  "Inode %i has an invalid extra size (%N).",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_RESERVED_NOT_CLEAR,
	  "Reserved inode %i is not in use, but contains data.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_1_META_RELOCATED,
	  "Relocated the %s of group %g to block %b.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_META_NO_SPACE,
	  "No free blocks in group %g for its %s.",
	  PROMPT_NONE, PR_FATAL },
	{ PR_1_RESIZE_INVALID,
	  "The resize inode is not valid (%s); it will be built anew.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_RESIZE_NO_FEATURE,
	  "The filesystem has no resize_inode feature, but inode %i is not "
	  "empty.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_RESIZE_REBUILT,
	  "Built the resize inode anew (double indirect block %b).",
	  PROMPT_NONE, PR_MSG_ONLY | PR_PREEN_NOMSG },
	{ PR_1_EXTENT_BAD_PBLK,
	  "Inode %i has an extent (logical block %N, length %O) with an "
	  "invalid physical block %b.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EXTENT_ZERO_LEN,
	  "Inode %i has an extent of length zero (logical block %N, "
	  "physical block %b).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EXTENT_ORDER,
	  "Inode %i has an extent (logical block %N, physical block %b, "
	  "length %O) out of order or overlapping the one before it.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EXTENT_PAST_INDEX,
	  "Inode %i has an extent (logical block %N, physical block %b, "
	  "length %O) that reaches past the range of its index entry.",
	  PROMPT_FIX, 0 },
	{ PR_1_EXTENT_NODE_BAD,
	  "Inode %i has an invalid extent tree block %b (logical block %N): "
	  "%s.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EXTENT_INDEX_START,
	  "The index entry for extent tree block %b of inode %i says logical "
	  "block %O, but the block starts at %N.",
	  PROMPT_FIX, 0 },
	{ PR_1_EXTENT_EMPTY_NODE,
	  "Extent tree block %b of inode %i holds no entries.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_1_EXTENT_ROOT_FIX,
	  "The extent tree root of inode %i has a bad %s; its other fields "
	  "are valid.",
	  PROMPT_FIX, 0 },
	{ PR_1_EXTENT_ROOT_BAD,
	  "The extent tree root of inode %i is not valid (%s).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_EXTENT_NODE_DEPTH,
	  "Extent tree block %b of inode %i says depth %N, but it sits at "
	  "depth %O.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_TREE_IN_GROUP_META,
	  "Inode %i's extent tree block %b is group metadata (a superblock "
	  "copy, descriptors, a bitmap or an inode table): the inode gets a "
	  "copy of it, checked after a restart.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_EXTENT_CSUM,
	  "Extent tree block %b of inode %i passes checks, but its checksum "
	  "does not match.",
	  PROMPT_FIX, 0 },
	/* Extended attributes in inodes, EA inodes, inline data */
	{ PR_1_INLINE_NO_FEATURE,
	  "Inode %i has inline data, but the superblock is missing the "
	  "inline_data feature.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_INLINE_SET,
	  "Inode %i has the inline data flag on a filesystem without "
	  "inline data support.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_INLINE_NO_ATTR,
	  "Inode %i has the inline data flag but no valid system.data "
	  "attribute.",
	  PROMPT_TRUNCATE, 0 },
	{ PR_1_IBODY_EA_BAD,
	  "Inode %i has extended attributes in the inode that are not "
	  "valid (%s).",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_1_EA_INODE_BAD,
	  "Inode %i has an extended attribute whose value inode %N is not "
	  "valid (%s).",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_1_EA_INODE_FLAG,
	  "Extended attribute value inode %N of inode %i is missing the "
	  "EA_INODE flag.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_EA_BLOCK_CSUM,
	  "Extended attribute block %b passes checks, but its checksum does "
	  "not match.",
	  PROMPT_FIX, 0 },
	{ PR_1_INLINE_EXTENTS,
	  "Inode %i has both the inline data and the extents flags.",
	  PROMPT_FIX, 0 },
	{ PR_1_TREAT_AS_DIR,
	  "Inode %i is a %s but it looks like it is really a directory.",
	  PROMPT_FIX, 0 },
	{ PR_1_EXTENT_FEATURE,
	  "Inode %i is in extent format, but the filesystem lacks the "
	  "extents feature.",
	  PROMPT_FIX, 0 },
	{ PR_1_COLLAPSE_DBLOCK,
	  "Directory inode %i block %N should be at block %O.",
	  PROMPT_FIX, 0 },
	{ PR_1_UNINIT_DBLOCK,
	  "Directory inode %i has an extent marked unwritten at block %N.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_FAST_SYMLINK_EXTENT_FL,
	  "Symlink inode %i has the extents flag but no blocks.",
	  PROMPT_FIX, 0 },
	{ PR_1_EXTENT_OVERRUN,
	  "Inode %i has an extent (logical block %N, physical block %b, "
	  "length %O) running over the next one and past the end of the "
	  "file.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_IND_IN_GROUP_META,
	  "The %B (%b) of inode %i is group metadata (a superblock copy, "
	  "descriptors, a bitmap or an inode table), not a map of the file.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_BIGALLOC_BLOCKMAP,
	  "Inode %i on a bigalloc filesystem is block mapped; its map will "
	  "be rebuilt as extents.",
	  PROMPT_FIX, 0 },
	{ PR_1E_TO_EXTENTS_FAILED,
	  "The extents of inode %i could not be rebuilt: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1_UNSET_EXTENTS_FL,
	  "Inode %i lacks the extents flag, but its i_block holds an extent "
	  "tree.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_QUOTA_INODE_SHARED,
	  "Quota inode %i shares %N block(s) with other files or metadata; "
	  "quota files are recounted and rewritten: its blocks are left to "
	  "the others.",
	  PROMPT_CLEAR, 0 },
	{ PR_1_MISALIGNED_CLUSTER,
	  "Inode %i logical block %N (physical block %b) violates cluster "
	  "allocation rules; its extents will be rebuilt.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_1_TOOBIG_DIR,
	  "Directory inode %i: %B (%b) lies past the end a directory can "
	  "have (2 GiB without large_dir, never more blocks than the "
	  "filesystem has).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_ENCRYPT_NO_XATTR,
	  "Inode %i has the encrypt flag but no encryption extended "
	  "attribute.",
	  PROMPT_CLEAR_FLAG, 0 },
	{ PR_1_ENCRYPT_BAD_XATTR,
	  "Encrypted inode %i has a corrupt encryption extended attribute.",
	  PROMPT_CLEAR, 0 },
	/* PR_1_IBODY_EA_BAD's overlapping values: e2fsck does not clear
	 * them unasked (its PR_1_INODE_EA_ALLOC_COLLISION) */
	{ PR_1_IBODY_EA_COLLISION,
	  "Inode %i has extended attributes in the inode that are not "
	  "valid (%s).",
	  PROMPT_CLEAR, 0 },
	/* Pass 1B */
	{ PR_1B_CLONE,
	  "Inode %i shares %N block(s) with other inodes or filesystem "
	  "metadata.",
	  PROMPT_CLONE, 0 },
	{ PR_1B_NO_SPACE,
	  "Cannot clone the shared blocks of inode %i: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1B_NO_ROOM_DELETE,
	  "Inode %i names %N shared block(s); the free blocks cannot hold "
	  "a copy of every shared block.",
	  PROMPT_DELETE, 0 },
	/* Pass 1: reserved inodes in full */
	{ PR_1_RESIZE_ILLEGAL_BLOCK,
	  "Illegal block %N in inode %i, the resize inode (%s).",
	  PROMPT_CLEAR, 0 },
	{ PR_1_RESIZE_ENTRY_WRONG,
	  "Inode %i, the resize inode, maps block %N where its layout has "
	  "%O (%s).",
	  PROMPT_FIX, 0 },
	{ PR_1_BB_GARBAGE_TREE,
	  "The bad blocks inode's %B (%b) is no list of blocks (%s).",
	  PROMPT_CLEAR, 0 },
	{ PR_1B_PASS_HEADER,
	  "\nRunning additional passes to resolve blocks claimed by more "
	  "than one inode...\nPass 1B: Rescanning for multiply-claimed "
	  "blocks",
	  PROMPT_NONE, PR_MSG_ONLY },
	/* %s: " B" or " B--C" for each run of shared blocks, map order */
	{ PR_1B_DUP_LIST,
	  "Multiply-claimed block(s) in inode %i:%s",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1C_PASS_HEADER,
	  "Pass 1C: Scanning directories for inodes with multiply-claimed "
	  "blocks",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1D_PASS_HEADER,
	  "Pass 1D: Reconciling multiply-claimed blocks",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1D_NUM_DUP_INODES,
	  "(There are %N inodes containing multiply-claimed blocks.)\n",
	  PROMPT_NONE, PR_MSG_ONLY },
	/* %s: "PATH (inode #N, mod time TIME)" (dupreport.c) */
	{ PR_1D_DUP_FILE,
	  "File %s \n  has %N multiply-claimed block(s), shared with %O "
	  "file(s):",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1D_DUP_FILE_LIST,
	  "\t%s",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1D_SHARE_METADATA,
	  "\t<filesystem metadata>",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_1D_DUP_BLOCKS_DEALT,
	  "Multiply-claimed blocks already reassigned or cloned.\n",
	  PROMPT_NONE, PR_MSG_ONLY },
	/* a no is counted when "Delete file?" gets one too (e2fsck) */
	{ PR_1D_CLONE_QUESTION,
	  "",
	  PROMPT_CLONE_SHARED, PR_NO_OK },
	{ PR_1D_DELETE_QUESTION,
	  "",
	  PROMPT_DELETE_FILE, 0 },
	{ PR_1_DUP_BLOCKS_PREENSTOP,
	  "Duplicate or bad block in use!",
	  PROMPT_NONE, PR_MSG_ONLY },
	/* Pass 2 */
	{ PR_2_DIR_CORRUPT,
	  "Directory inode %i, %B, offset %N: directory corrupted (%s).",
	  PROMPT_SALVAGE, 0 },
	{ PR_2_MISSING_DOT,
	  "Missing '.' in directory inode %i.",
	  PROMPT_FIX, 0 },
	{ PR_2_MISSING_DOT_DOT,
	  "Missing '..' in directory inode %i.",
	  PROMPT_FIX, 0 },
	{ PR_2_BAD_INODE_DOT,
	  "Bad inode number for '.' in directory inode %i.",
	  PROMPT_FIX, 0 },
	{ PR_2_SPLIT_DOT,
	  "Directory entry for '.' in %p (%i) is big.",
	  PROMPT_SPLIT, PR_NO_OK },
	{ PR_2_BAD_INO,
	  "Entry '%Dn' in %p (%i) has bad inode number %Di.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_UNUSED_INODE,
	  "Entry '%Dn' in %p (%i) has deleted/unused inode %Di.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_2_LINK_DOT,
	  "Entry '%Dn' in %p (%i) is a link to '.'.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_LINK_DIR,
	  "Entry '%Dn' in %p (%i) is a second link to directory %Di.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_LINK_ROOT,
	  "Entry '%Dn' in %p (%i) is a link to the root inode.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_BAD_NAME,
	  "Entry '%Dn' in %p (%i) has illegal characters in its name.",
	  PROMPT_FIX, 0 },
	{ PR_2_NULL_NAME,
	  "Entry at offset %N in %p (%i) has a zero-length name.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_DUP_DOT,
	  "Entry '%Dn' in %p (%i) is a duplicate '.' entry.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_DUP_DOT_DOT,
	  "Entry '%Dn' in %p (%i) is a duplicate '..' entry.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_BAD_FILETYPE,
	  "Entry '%Dn' in %p (%i) has file type %Dt, should be %N.",
	  PROMPT_FIX, 0 },
	{ PR_2_DUP_NAME,
	  "Entry '%Dn' in %p (%i) is a duplicate name for inode %Di.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_DUP_NAME_RENAME,
	  "Entry '%Dn' in %p (%i) has the name of another entry; "
	  "new name '%s'.",
	  PROMPT_RENAME, 0 },
	{ PR_2_DIR_HOLE,
	  "Directory inode %i has an unallocated %B.",
	  PROMPT_ALLOCATE, 0 },
	{ PR_2_DIR_READ,
	  "Error reading directory inode %i: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_2_HTREE_BAD,
	  "Directory inode %i has a corrupt htree index (%s).",
	  PROMPT_CLEAR_INDEX, PR_PREEN_OK },
	{ PR_2_DIR_OPEN,
	  "Cannot check directory inode %i: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_2_BAD_INODE_RANGE,
	  "Entry at offset %N in %p (%i) has an inode number out of "
	  "range (%Di).",
	  PROMPT_CLEAR, 0 },
	{ PR_2_DIR_CSUM,
	  "Directory inode %i, %B passes checks, but its checksum does not "
	  "match.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_2_DIR_NO_CSUM,
	  "Directory inode %i, %B has no checksum tail.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_2_HTREE_HASHV,
	  "Directory inode %i has an htree index with an unsupported hash "
	  "version (%N).",
	  PROMPT_CLEAR_INDEX, PR_PREEN_OK },
	{ PR_2_DOT_NULL_TERM,
	  "The '.' entry in directory inode %i is not NUL-terminated.",
	  PROMPT_FIX, 0 },
	{ PR_2_DOT_DOT_NULL_TERM,
	  "The '..' entry in directory inode %i is not NUL-terminated.",
	  PROMPT_FIX, 0 },
	{ PR_2_FEATURE_LARGE_FILES,
	  "The filesystem holds large files (%N), but lacks the large_file "
	  "feature.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_2_DIR_HOLES,
	  "Directory inode %i has %N unallocated blocks, %B to #%O.",
	  PROMPT_ALLOCATE, 0 },
	{ PR_2_INOREF_BG_INO_UNINIT,
	  "Entry '%Dn' in %p (%i) names inode %Di of group %g, whose inode "
	  "table is marked uninitialized; the check will restart.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_2_INOREF_IN_UNUSED,
	  "Entry '%Dn' in %p (%i) names inode %Di in the never-used part of "
	  "group %g's inode table; the check will restart.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_2_BAD_ENCODED_NAME,
	  "Entry '%Dn' in %p (%i) has illegal UTF-8 characters in its name.",
	  PROMPT_FIX, 0 },
	{ PR_2_LINK_DIR_FIRST,
	  "Entry '%Dn' in %p (%i) names directory %Di, whose '..' is %i; "
	  "its other name, in directory %N, is the second link.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_ENCRYPT_SHORT_NAME,
	  "Encrypted entry '%Dn' in %p (%i) is too short.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_ENCRYPT_PLAIN,
	  "Encrypted entry '%Dn' in %p (%i) references unencrypted inode "
	  "%Di.",
	  PROMPT_CLEAR, 0 },
	{ PR_2_ENCRYPT_OTHER,
	  "Encrypted entry '%Dn' in %p (%i) references inode %Di, which has "
	  "a different encryption policy.",
	  PROMPT_CLEAR, 0 },
	/* PR_2_HTREE_BAD found checking the whole tree (e2fsck's
	 * PR_2_HTREE_CLEAR after its NOTREF, DUPREF, MIN_HASH, ...) */
	{ PR_2_HTREE_CLEAR,
	  "Directory inode %i has a corrupt htree index (%s).",
	  PROMPT_CLEAR_INDEX, 0 },
	/* PR_2_BAD_FILETYPE of an entry without one (e2fsck's
	 * PR_2_SET_FILETYPE); a wrong one is a question */
	{ PR_2_SET_FILETYPE,
	  "Entry '%Dn' in %p (%i) has file type %Dt, should be %N.",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	/* a type byte without the filetype feature (e2fsck's wording) */
	{ PR_2_CLEAR_FILETYPE,
	  "Entry '%Dn' in %p (%i) has filetype set.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	/* Pass 3 */
	{ PR_3_NO_ROOT,
	  "Root inode not allocated.",
	  PROMPT_ALLOCATE, 0 },
	{ PR_3_UNCONNECTED_DIR,
	  "Unconnected directory inode %i ('..' is %j).",
	  PROMPT_CONNECT, 0 },
	{ PR_3_NO_LF,
	  "/lost+found not found.",
	  PROMPT_CREATE, PR_PREEN_OK | PR_NOT_A_FIX },
	{ PR_3_LF_NOT_DIR,
	  "/lost+found is not a directory (inode %i).",
	  PROMPT_UNLINK, 0 },
	{ PR_3_BAD_DOT_DOT,
	  "'..' in %p (%i) is %j, should be %d.",
	  PROMPT_FIX, 0 },
	{ PR_3_CONNECT_FAILED,
	  "Cannot connect inode %i to /lost+found: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_3_EXPAND_LF,
	  "No room in /lost+found.",
	  PROMPT_EXPAND, 0 },
	{ PR_3_ROOT_CREATE_FAILED,
	  "Cannot create the root directory: %s.",
	  PROMPT_NONE, PR_FATAL },
	{ PR_3_LF_CREATE_FAILED,
	  "Cannot create /lost+found: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_3_LF_NO_SPACE,
	  "Cannot allocate an inode or block for /lost+found; the root "
	  "directory can hold the lost files instead.",
	  PROMPT_USE, PR_NOT_A_FIX },
	{ PR_3_NO_SPACE_TO_RECOVER,
	  "Insufficient space to recover lost files: move data off the "
	  "filesystem and check it again.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_3_INDEX_DROPPED,
	  "Directory %q (%d) cannot be rebuilt (%s): its index blocks are "
	  "made empty blocks and it is left a linear directory.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_3_LF_ENCRYPTED,
	  "/lost+found (inode %i) is encrypted.",
	  PROMPT_CLEAR, 0 },
	/* Pass 3A */
	{ PR_3A_PASS_HEADER,
	  "Pass 3A: Optimizing directories",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_3A_OPTIMIZE_DIR,
	  "Directory inode %d: %N -> %O blocks%s",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_3A_OPTIMIZE_SKIPPED,
	  "Directory %q (%d) was not optimized and is left as it was: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_3A_OPTIMIZE_FAILED,
	  "Optimizing directory %q (%d) failed after writing began: %s. "
	  "Run extkit-fsck again.",
	  PROMPT_NONE, PR_MSG_ONLY },
	/* Pass 4 */
	{ PR_4_UNATTACHED,
	  "Unattached inode %i.",
	  PROMPT_CONNECT, 0 },
	{ PR_4_ZERO_LEN,
	  "Unattached zero-length inode %i.",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_NO_OK },
	{ PR_4_BAD_REF_COUNT,
	  "Inode %i ref count is %Il, should be %N.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_4_ZERO_DTIME,
	  "Deleted inode %i has zero dtime.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_4_EA_INODE_REFS,
	  "Extended attribute value inode %i has reference count %O, should "
	  "be %N.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_4_EA_INODE_UNNAMED,
	  "Inode %i, an extended attribute value no attribute names, goes "
	  "to lost+found as a plain file (the kernel will not open an EA "
	  "inode a directory names).",
	  PROMPT_CLEAR_FLAG, PR_PREEN_OK },
	{ PR_4_EA_INODE_NAMED,
	  "Inode %i has the EA_INODE flag, but directories name it and no "
	  "extended attribute does (the kernel will not open it).",
	  PROMPT_CLEAR_FLAG, PR_PREEN_OK },
	{ PR_4_DIR_NLINK_FEATURE,
	  "Directory inode %i has %N links, more than 65,000, but the "
	  "filesystem lacks the dir_nlink feature.",
	  PROMPT_FIX, 0 },
	{ PR_4_DIR_OVERFLOW_REF_COUNT,
	  "Directory inode %i ref count is 1 (too many to count), but the "
	  "exact count %N fits.",
	  PROMPT_FIX, PR_PREEN_OK },
	/* Pass 5 */
	{ PR_5_BLOCK_BITMAP,
	  "Block bitmap differences: %s.",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG },
	{ PR_5_INODE_BITMAP,
	  "Inode bitmap differences: %s.",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG },
	{ PR_5_FREE_BLOCKS_GROUP,
	  "Free blocks count wrong for group %g (%O, counted=%N).",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG },
	{ PR_5_FREE_INODES_GROUP,
	  "Free inodes count wrong for group %g (%O, counted=%N).",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG },
	{ PR_5_DIRS_GROUP,
	  "Directories count wrong for group %g (%O, counted=%N).",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG },
	{ PR_5_FREE_BLOCKS,
	  "Free blocks count wrong (%O, counted=%N).",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK | PR_PREEN_NOMSG },
	{ PR_5_FREE_INODES,
	  "Free inodes count wrong (%O, counted=%N).",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK | PR_PREEN_NOMSG },
	{ PR_5_BITMAP_READ,
	  "Cannot read the %s bitmap of group %g at block %b.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_5_BLOCK_PADDING,
	  "Padding at the end of the block bitmap is not set.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_5_INODE_PADDING,
	  "Padding at the end of the inode bitmap is not set.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_5_BLOCK_BITMAP_CSUM,
	  "The block bitmap of group %g does not match its checksum.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_5_INODE_BITMAP_CSUM,
	  "The inode bitmap of group %g does not match its checksum.",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_5_BLOCK_UNINIT,
	  "Group %g has blocks in use but is marked BLOCK_UNINIT.",
	  PROMPT_FIX, PR_PREEN_OK },
	/* Quota files (quota.c) */
	{ PR_5_QUOTA_BAD_FILE,
	  "The quota file of type %N (inode %i) is not valid: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_5_QUOTA_USAGE,
	  "Quota type %N, id %O: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_5_QUOTA_UPDATE,
	  "Update quota info for quota type %N (%s, inode %i).",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_5_QUOTA_WRITE,
	  "Writing the quota file of type %N (inode %i) failed: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_5_QUOTA_SCAN,
	  "Counting quota usage failed: %s; the quota files are left "
	  "alone.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_5_ORPHAN_FILE_BAD,
	  "The orphan file (inode %i) is not valid: %s.",
	  PROMPT_NONE, PR_MSG_ONLY },
	{ PR_5_ORPHAN_BLOCK_DIRTY,
	  "Orphan file (inode %i) block %N is not clean.",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_5_ORPHAN_PRESENT,
	  "The orphan_present feature is set but the orphan file is "
	  "clean.",
	  PROMPT_CLEAR, PR_PREEN_OK },
};

const unsigned int problem_table_size =
	sizeof(problem_table) / sizeof(problem_table[0]);

static const char *const prompt_text[] = {
	[PROMPT_NONE] = "",
	[PROMPT_FIX] = "Fix",
	[PROMPT_CLEAR] = "Clear",
	[PROMPT_SALVAGE] = "Salvage",
	[PROMPT_RELOCATE] = "Relocate",
	[PROMPT_CONNECT] = "Connect to /lost+found",
	[PROMPT_CREATE] = "Create",
	[PROMPT_SPLIT] = "Split",
	[PROMPT_RENAME] = "Rename",
	[PROMPT_CLONE] = "Clone",
	[PROMPT_EXPAND] = "Expand",
	[PROMPT_ALLOCATE] = "Allocate",
	[PROMPT_UNLINK] = "Unlink",
	[PROMPT_USE] = "Use it",
	[PROMPT_CLEAR_INDEX] = "Clear the index",
	[PROMPT_TRUNCATE] = "Truncate",
	[PROMPT_REPLAY] = "Replay it",
	[PROMPT_DELETE] = "Delete it",
	[PROMPT_CLEAR_FLAG] = "Clear the flag",
	[PROMPT_CLONE_SHARED] = "Clone multiply-claimed blocks",
	[PROMPT_DELETE_FILE] = "Delete file",
};

/* What preen mode prints after a fixed problem's message. */
static const char *const preen_text[] = {
	[PROMPT_NONE] = "",
	[PROMPT_FIX] = "FIXED",
	[PROMPT_CLEAR] = "CLEARED",
	[PROMPT_SALVAGE] = "SALVAGED",
	[PROMPT_RELOCATE] = "RELOCATED",
	[PROMPT_CONNECT] = "CONNECTED",
	[PROMPT_CREATE] = "CREATED",
	[PROMPT_SPLIT] = "SPLIT",
	[PROMPT_RENAME] = "RENAMED",
	[PROMPT_CLONE] = "CLONED",
	[PROMPT_EXPAND] = "EXPANDED",
	[PROMPT_ALLOCATE] = "ALLOCATED",
	[PROMPT_UNLINK] = "UNLINKED",
	[PROMPT_USE] = "USED",
	[PROMPT_CLEAR_INDEX] = "INDEX CLEARED",
	[PROMPT_TRUNCATE] = "TRUNCATED",
	[PROMPT_REPLAY] = "REPLAYED",
	[PROMPT_DELETE] = "DELETED",
	[PROMPT_CLEAR_FLAG] = "FLAG CLEARED",
	[PROMPT_CLONE_SHARED] = "CLONED",
	[PROMPT_DELETE_FILE] = "DELETED",
};

void clear_problem_context(struct problem_context *pctx)
{
	memset(pctx, 0, sizeof(*pctx));
}

const struct problem *find_problem(uint32_t code)
{
	unsigned int lo = 0, hi = problem_table_size;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (problem_table[mid].code == code)
			return &problem_table[mid];
		if (problem_table[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- message expansion ---- */

struct outbuf {
	char *p;
	size_t len;
	size_t pos;
};

static void out_str(struct outbuf *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->pos + 1 < o->len; i++)
		o->p[o->pos++] = s[i];
	o->p[o->pos] = '\0';
}

static void out_fmt(struct outbuf *o, const char *fmt, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), fmt, v);

	if (n > 0)
		out_str(o, tmp, (size_t)n);
}

/* A directory entry name: printable bytes as they are, others as \ooo. */
static void out_name(struct outbuf *o, const char *name, uint32_t len)
{
	char tmp[8];

	for (uint32_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c >= 0x7f || c == '\\') {
			snprintf(tmp, sizeof(tmp), "\\%03o", c);
			out_str(o, tmp, 4);
		} else {
			out_str(o, (const char *)&c, 1);
		}
	}
}

static void out_blkcount(struct outbuf *o, int64_t bc)
{
	static const char *const meta[] = {
		"indirect block", "double indirect block",
		"triple indirect block",
	};

	if (bc >= 0)
		out_fmt(o, "block #%" PRIu64, (uint64_t)bc);
	else if (bc >= -3)
		out_str(o, meta[-bc - 1], strlen(meta[-bc - 1]));
	else
		out_str(o, "extended attribute block", 24);
}

static void out_path(struct fsck_ctx *ctx, struct outbuf *o, uint32_t ino)
{
	char path[PATH_MSG_MAX];

	if (!ctx) {
		out_str(o, "???", 3);
		return;
	}
	fsck_dir_path(ctx, ino, path, sizeof(path));
	out_str(o, path, strlen(path));
}

static void expand_inode(struct outbuf *o, char c,
			 const struct extkit_inode *inode)
{
	if (!inode) {
		out_str(o, "???", 3);
		return;
	}
	switch (c) {
	case 'm':
		out_fmt(o, "0%" PRIo64, inode->mode);
		break;
	case 's':
		out_fmt(o, "%" PRIu64, inode->size);
		break;
	case 'b':
		out_fmt(o, "%" PRIu64, inode->blocks);
		break;
	case 'l':
		out_fmt(o, "%" PRIu64, inode->links_count);
		break;
	case 'u':
		out_fmt(o, "%" PRIu64, inode->uid);
		break;
	case 'g':
		out_fmt(o, "%" PRIu64, inode->gid);
		break;
	default:
		out_str(o, "%I", 2);
		out_str(o, &c, 1);
	}
}

static void expand_dirent(struct outbuf *o, char c,
			  const struct problem_context *pctx)
{
	switch (c) {
	case 'n':
		out_name(o, pctx->de_name, pctx->de_name_len);
		break;
	case 'i':
		out_fmt(o, "%" PRIu64, pctx->de_inode);
		break;
	case 't':
		out_fmt(o, "%" PRIu64, pctx->de_type);
		break;
	default:
		out_str(o, "%D", 2);
		out_str(o, &c, 1);
	}
}

/* Expands one % sequence at *fmt (just past the '%'); returns its length. */
static size_t expand_one(struct fsck_ctx *ctx, struct outbuf *o,
			 const char *fmt, const struct problem_context *pctx)
{
	switch (*fmt) {
	case 'b': out_fmt(o, "%" PRIu64, pctx->blk); return 1;
	case 'B': out_blkcount(o, pctx->blkcount); return 1;
	case 'g': out_fmt(o, "%" PRIu64, pctx->group); return 1;
	case 'i': out_fmt(o, "%" PRIu64, pctx->ino); return 1;
	case 'j': out_fmt(o, "%" PRIu64, pctx->ino2); return 1;
	case 'd': out_fmt(o, "%" PRIu64, pctx->dir); return 1;
	case 'N': out_fmt(o, "%" PRIu64, pctx->num); return 1;
	case 'O': out_fmt(o, "%" PRIu64, pctx->num2); return 1;
	case 's':
		out_str(o, pctx->str ? pctx->str : "",
			pctx->str ? strlen(pctx->str) : 0);
		return 1;
	case 'p': out_path(ctx, o, pctx->ino); return 1;
	case 'q': out_path(ctx, o, pctx->dir); return 1;
	case '%': out_str(o, "%", 1); return 1;
	case 'I':
		if (!fmt[1])
			return 1;
		expand_inode(o, fmt[1], pctx->inode);
		return 2;
	case 'D':
		if (!fmt[1])
			return 1;
		expand_dirent(o, fmt[1], pctx);
		return 2;
	case '\0':
		return 0;
	default:
		out_str(o, "%", 1);
		out_str(o, fmt, 1);
		return 1;
	}
}

void problem_expand(struct fsck_ctx *ctx, const char *message,
		    const struct problem_context *pctx, char *out,
		    size_t len)
{
	struct outbuf o = { .p = out, .len = len, .pos = 0 };
	const char *m = message;

	out[0] = '\0';
	while (*m) {
		const char *pct = strchr(m, '%');

		if (!pct) {
			out_str(&o, m, strlen(m));
			break;
		}
		out_str(&o, m, (size_t)(pct - m));
		m = pct + 1;
		m += expand_one(ctx, &o, m, pctx);
	}
}

/* ---- answering ---- */

/* In preen mode, a problem that is not safe to fix ends the run. */
static void preen_halt(struct fsck_ctx *ctx, const char *msg)
{
	printf("%s: %s\n\n%s: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
	       "\t(i.e., without -a or -p options)\n",
	       ctx->device, msg, ctx->device);
	fflush(stdout);
	if (!ctx->readonly && ctx->fs) {
		ctx->fs->sb.state &= (uint16_t)~EXT2_VALID_FS;
		ctx->fs->sb.state |= EXT2_ERROR_FS;
		extkit_fs_write_primary_super(ctx->fs);
		extkit_io_flush(ctx->io);
		/* -z: the undo file must be complete, with this superblock,
		 * or e2undo will not replay it. */
		if (ctx->undo)
			extkit_undo_finish(ctx->io);
	}
	exit(FSCK_UNCORRECTED);
}

/* One key per question on the terminal; returns 1 for yes, 0 for no. A
 * cancel (Ctrl-C, end of input) answers no and stops the run. */
static int ask_terminal(struct fsck_ctx *ctx, const char *prompt, int def,
			const char *sep)
{
	if (ctx->yes_to_all) {
		printf("%s%s? yes\n\n", sep, prompt);
		return 1;
	}
	printf("%s%s<%c>? ", sep, prompt, def ? 'y' : 'n');
	fflush(stdout);
	switch (ctx->tty ? fsck_ask_key(fileno(ctx->tty), def) :
			   FSCK_ANSWER_CANCEL) {
	case FSCK_ANSWER_YES:
		printf("yes\n\n");
		return 1;
	case FSCK_ANSWER_ALL:
		printf("yes to all\n\n");
		ctx->yes_to_all = 1;
		return 1;
	case FSCK_ANSWER_NO:
		printf("no\n\n");
		return 0;
	case FSCK_ANSWER_CANCEL:
	default:
		printf("cancelled!\n\n");
		fsck_request_cancel();
		fsck_poll_cancel(ctx);
		return 0;
	}
}

static int answer(struct fsck_ctx *ctx, const struct problem *p,
		  const char *msg)
{
	const char *prompt = prompt_text[p->prompt];
	const char *sep = *msg ? "  " : "";	/* the prompt alone */
	int def = !(p->flags & PR_NO_DEFAULT);
	int yes;

	if (ctx->opts->mode == FSCK_MODE_PREEN && (p->flags & PR_PREEN_NO))
		def = 0;

	switch (ctx->opts->mode) {
	case FSCK_MODE_PREEN:
		if (!(p->flags & PR_PREEN_OK))
			preen_halt(ctx, msg);
		if (!(p->flags & PR_PREEN_NOMSG))
			printf("%s: %s%s%s.\n", ctx->device, msg, sep,
			       def ? preen_text[p->prompt] : "IGNORED");
		return def;
	case FSCK_MODE_NO:
		printf("%s%s%s? no\n\n", msg, sep, prompt);
		return 0;
	case FSCK_MODE_YES:
		printf("%s%s%s? yes\n\n", msg, sep, prompt);
		return 1;
	case FSCK_MODE_ASK:
	default:
		fputs(msg, stdout);
		yes = ask_terminal(ctx, prompt, def, sep);
		return yes;
	}
}

int fix_problem(struct fsck_ctx *ctx, uint32_t code,
		struct problem_context *pctx)
{
	const struct problem *p = find_problem(code);
	char *msg;
	int yes;

	/* A cancelled run fixes nothing more (the passes stop soon). */
	if (fsck_poll_cancel(ctx))
		return 0;
	if (!p) {
		printf("Unknown problem code 0x%06x.\n", code);
		ctx->flags |= FSCK_FL_UNCORRECTED;
		return 0;
	}
	msg = malloc(MSG_MAX);
	if (!msg)
		return 0;
	if (ctx->opts && ctx->opts->debug)	/* -d */
		fprintf(stderr, "extkit-fsck: problem 0x%06x\n", code);
	problem_expand(ctx, p->message, pctx, msg, MSG_MAX);
	fsck_progress_clear(ctx);
	if (p->flags & (PR_MSG_ONLY | PR_FATAL)) {
		if (ctx->opts->mode == FSCK_MODE_PREEN)
			printf("%s: %s\n", ctx->device, msg);
		else
			printf("%s\n", msg);
		if (p->flags & PR_FATAL)
			ctx->flags |= FSCK_FL_ABORT;
		free(msg);
		return 0;
	}
	yes = answer(ctx, p, msg);
	free(msg);
	if (yes && ctx->readonly)
		yes = 0;
	/* the question a cancel answered is not an error left (the run
	 * stops; its exit code says so) */
	if (!yes && !(p->flags & PR_NO_OK) && !(ctx->flags & FSCK_FL_CANCEL))
		ctx->flags |= FSCK_FL_UNCORRECTED;
	if (yes && !(p->flags & PR_NOT_A_FIX))
		ctx->flags |= FSCK_FL_CHANGED;
	/* a fix before the clean check makes it a full check (e2fsck's
	 * E2F_FLAG_PROBLEMS_FIXED); not the silent ones */
	if (yes && !(p->flags & (PR_NOT_A_FIX | PR_PREEN_NOMSG)))
		ctx->flags |= FSCK_FL_FIXED;
	return yes;
}
