// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jbd2: the journal inode and the journal superblock (load, checks,
 * write-back, reset). The log itself is read in journal_replay.c.
 * Every jbd2 field is big-endian. Reference: the kernel's
 * Documentation/filesystems/ext4/journal.rst and fs/jbd2/journal.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "csum.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_int.h"

#define KNOWN_COMPAT	JBD2_FEATURE_COMPAT_CHECKSUM
#define KNOWN_INCOMPAT	(JBD2_FEATURE_INCOMPAT_REVOKE | \
			 JBD2_FEATURE_INCOMPAT_64BIT | \
			 JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT | \
			 JBD2_FEATURE_INCOMPAT_CSUM_V2 | \
			 JBD2_FEATURE_INCOMPAT_CSUM_V3 | \
			 JBD2_FEATURE_INCOMPAT_FAST_COMMIT)
#define KNOWN_ROCOMPAT	0

/* The kernel's default size of the fast-commit area. */
#define DEFAULT_FC_BLOCKS	256

int extkit_journal_is_external(const struct extkit_fs *fs)
{
	static const uint8_t zero[16];

	return fs->sb.journal_inum == 0 &&
	       (memcmp(fs->raw_sb.s_journal_uuid, zero, 16) != 0 ||
		le32(fs->raw_sb.s_journal_dev) != 0);
}

int extkit_journal_has_uuid(const struct extkit_fs *fs)
{
	static const uint8_t zero[16];

	return memcmp(fs->raw_sb.s_journal_uuid, zero, 16) != 0;
}

void extkit_journal_forget_external(struct extkit_fs *fs)
{
	memset(fs->raw_sb.s_journal_uuid, 0, sizeof(fs->raw_sb.s_journal_uuid));
	fs->raw_sb.s_journal_dev = 0;
}

void extkit_journal_free(struct extkit_journal *j)
{
	if (!j)
		return;
	free(j->map);
	free(j->sb_raw);
	free(j);
}

/*
 * A journal inode: a regular file in use, at least 1024 blocks, every
 * block up to i_size mapped inside the filesystem (no holes). Its map
 * goes into j->map; *why says what is wrong with it.
 */
static int map_journal_inode(struct extkit_journal *j,
			     const struct extkit_inode *inode,
			     const char **why)
{
	struct extkit_fs *fs = j->fs;
	uint64_t n = inode->size / fs->g.block_size;
	/* a partial last block must be mapped too (e2fsck: the blocks
	 * must cover i_size, else the journal is too small) */
	uint64_t cover = n + (inode->size % fs->g.block_size != 0);
	int rc;

	*why = NULL;
	if (!S_ISREG(inode->mode) || inode->links_count == 0)
		*why = "the journal inode is not a regular file in use";
	/* e2fsck: EXT2_ET_NO_JOURNAL (a journal is never encrypted) */
	else if (inode->flags & EXT4_ENCRYPT_FL)
		*why = "the journal inode has the encrypt flag";
	else if (!extkit_inode_has_block_map(inode))
		*why = "the journal inode has no block map";
	else if (n < JBD2_MIN_JOURNAL_BLOCKS)
		*why = "the journal is smaller than 1024 blocks";
	else if (n > fs->sb.blocks_count || n > UINT32_MAX)
		*why = "the journal is larger than the filesystem";
	if (*why)
		return 0;
	j->nblocks = (uint32_t)n;
	free(j->map);
	j->map = calloc(cover, sizeof(*j->map));
	if (!j->map)
		return -ENOMEM;
	rc = extkit_bmap_all(fs, inode, cover, j->map);
	if (rc == -EFSCORRUPTED || rc == -EXTKIT_ELOOP) {
		*why = "the journal inode's block map is corrupt";
		return 0;
	}
	if (rc)
		return rc;
	for (uint64_t i = 0; i < cover; i++) {
		/* block 0 is in the filesystem with 4 KiB blocks: a hole
		 * all the same */
		if (!j->map[i] || !extkit_fs_valid_block(fs, j->map[i])) {
			*why = i < n ? "the journal inode has holes" :
				       "the journal's i_size runs past its "
				       "last block";
			return 0;
		}
	}
	return 0;
}

void extkit_journal_backup_store(struct extkit_fs *fs,
				 const struct extkit_inode *inode)
{
	struct ext2_super_block *raw = &fs->raw_sb;

	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		raw->s_jnl_blocks[i] = cpu_to_le32(inode->block[i]);
	raw->s_jnl_blocks[15] = cpu_to_le32((uint32_t)(inode->size >> 32));
	raw->s_jnl_blocks[16] = cpu_to_le32((uint32_t)inode->size);
	raw->s_jnl_backup_type = EXT3_JNL_BACKUP_BLOCKS;
}

uint8_t extkit_journal_backup_type(const struct extkit_fs *fs)
{
	return fs->raw_sb.s_jnl_backup_type;
}

int extkit_journal_backup_inode(const struct extkit_fs *fs,
				struct extkit_inode *inode)
{
	const struct ext2_super_block *raw = &fs->raw_sb;

	if (raw->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS)
		return -ENOENT;
	memset(inode, 0, sizeof(*inode));
	inode->mode = S_IFREG | 0600;
	inode->links_count = 1;
	/* s_jnl_blocks[0..14]: i_block; [15]: i_size_high; [16]: i_size */
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		inode->block[i] = le32(raw->s_jnl_blocks[i]);
	inode->size = (uint64_t)le32(raw->s_jnl_blocks[15]) << 32 |
		      le32(raw->s_jnl_blocks[16]);
	/* an extent root starts with eh_magic (le16) */
	if ((inode->block[0] & 0xffff) == EXT4_EXT_MAGIC)
		inode->flags |= EXT4_EXTENTS_FL;
	return 0;
}

/*
 * Whether inode ino can be written back where it is: its group's table
 * is not marked for relocation (fsck sets bg_inode_table to 0 until
 * pass 1 moves it; block 0 is never a table) and lies in the filesystem.
 */
static int inode_in_place(struct extkit_fs *fs, uint32_t ino)
{
	uint32_t group = (ino - 1) / fs->sb.inodes_per_group;
	uint64_t blk;
	uint32_t off;

	return fs->groups[group].inode_table != 0 &&
	       extkit_inode_locate(fs, ino, &blk, &off) == 0;
}

/*
 * The journal inode, or when it is unusable the copy of its map the
 * superblock keeps (e2fsck's fallback): j->backup_why then says what
 * was wrong with the inode (inode 8 only). An inode whose table is out
 * of place cannot be restored: it stays a bad inode (e2fsck, failing to
 * write it, also drops the journal).
 */
static int map_inode(struct extkit_journal *j, const char **why)
{
	struct extkit_inode inode;
	const char *backup_why;
	int rc;

	*why = NULL;
	rc = extkit_inode_read(j->fs, j->ino, &inode);
	if (rc == -EFSCORRUPTED) {
		/* its inode table lies outside the filesystem (fsck
		 * relocates it): a bad journal inode, as for e2fsck */
		*why = "the journal inode cannot be read";
	} else if (rc) {
		return rc;
	} else {
		rc = map_journal_inode(j, &inode, why);
		if (rc || !*why)
			return rc;
	}
	/* the copy is the reserved journal inode's map: an inode the
	 * superblock names in its place (a file, a directory, another
	 * reserved inode) is never rewritten from it; that journal is
	 * invalid (e2fsck: PR_0_JOURNAL_BAD_INODE, the files kept) */
	if (j->ino != EXT2_JOURNAL_INO || !inode_in_place(j->fs, j->ino) ||
	    extkit_journal_backup_inode(j->fs, &inode))
		return 0;
	rc = map_journal_inode(j, &inode, &backup_why);
	if (rc || backup_why)
		return rc;
	j->backup_why = *why;
	*why = NULL;
	return 0;
}

static int count_block(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		       uint32_t count, int flags, void *arg)
{
	(void)fs, (void)lblk, (void)pblk, (void)flags;
	*(uint64_t *)arg += count;
	return 0;
}

int extkit_journal_restore_inode(struct extkit_fs *fs, uint32_t ino)
{
	struct extkit_inode inode;
	uint64_t nblocks = 0;
	int rc;

	rc = extkit_journal_backup_inode(fs, &inode);
	if (!rc)
		rc = extkit_block_walk(fs, &inode, count_block, &nblocks);
	if (rc)
		return rc;
	if (fs->g.inode_size > EXT2_GOOD_OLD_INODE_SIZE)
		inode.extra_isize = fs->sb.want_extra_isize;
	extkit_inode_set_fs_blocks(fs, &inode, nblocks);
	return extkit_inode_write(fs, ino, &inode);
}

/* crc32c(~0) of the superblock's 1024 bytes with s_checksum zero. */
static uint32_t super_csum(const uint8_t *raw)
{
	uint8_t copy[sizeof(struct jbd2_superblock)];

	memcpy(copy, raw, sizeof(copy));
	memset(copy + offsetof(struct jbd2_superblock, s_checksum), 0, 4);
	return extkit_crc32c(~0u, copy, sizeof(copy));
}

uint32_t extkit_journal_fc_blocks(const struct extkit_journal *j)
{
	return j->num_fc_blks ? j->num_fc_blks : DEFAULT_FC_BLOCKS;
}

static uint32_t sb_field(const uint8_t *raw, size_t off)
{
	return get_be32(raw + off);
}

#define SB_OFF(f) offsetof(struct jbd2_superblock, f)

static void decode_super(struct extkit_journal *j)
{
	const uint8_t *raw = j->sb_raw;

	j->blocksize = sb_field(raw, SB_OFF(s_blocksize));
	j->maxlen = sb_field(raw, SB_OFF(s_maxlen));
	j->first = sb_field(raw, SB_OFF(s_first));
	j->sequence = sb_field(raw, SB_OFF(s_sequence));
	j->start = sb_field(raw, SB_OFF(s_start));
	j->errno_ = (int32_t)sb_field(raw, SB_OFF(s_errno));
	j->compat = j->incompat = j->ro_compat = j->nr_users = 0;
	j->num_fc_blks = j->checksum = 0;
	j->checksum_type = 0;
	if (j->version == 2) {
		j->compat = sb_field(raw, SB_OFF(s_feature_compat));
		j->incompat = sb_field(raw, SB_OFF(s_feature_incompat));
		j->ro_compat = sb_field(raw, SB_OFF(s_feature_ro_compat));
		j->nr_users = sb_field(raw, SB_OFF(s_nr_users));
		j->checksum_type = raw[SB_OFF(s_checksum_type)];
		j->checksum = sb_field(raw, SB_OFF(s_checksum));
		j->num_fc_blks = sb_field(raw, SB_OFF(s_num_fc_blks));
	}
	j->csum_seed = extkit_crc32c(~0u, raw + SB_OFF(s_uuid), 16);
}

/* The checks the kernel's journal load makes, with a reason. */
static const char *check_fields(struct extkit_journal *j)
{
	const uint8_t *raw = j->sb_raw;
	int v2 = !!(j->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2);
	int v3 = !!(j->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3);
	uint32_t fc = 0;

	if (v2 && v3)
		return "both checksum v2 and v3 are set";
	if ((v2 || v3) && (j->compat & JBD2_FEATURE_COMPAT_CHECKSUM))
		return "checksum v1 is set with v2 or v3";
	if ((v2 || v3) && raw[SB_OFF(s_checksum_type)] != JBD2_CRC32C_CHKSUM)
		return "unknown checksum type";
	if ((v2 || v3) && super_csum(raw) != sb_field(raw, SB_OFF(s_checksum)))
		return "the journal superblock checksum does not match";
	if (j->blocksize != j->fs->g.block_size)
		return "the journal block size is not the filesystem's";
	if (j->maxlen > j->nblocks)
		return "the journal is shorter than its superblock says";
	if (j->maxlen < JBD2_MIN_JOURNAL_BLOCKS)
		return "the journal length is below 1024 blocks";
	if (j->first == 0 || j->first >= j->maxlen)
		return "the journal's first log block is out of range";
	j->last = j->maxlen;
	if (j->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		fc = extkit_journal_fc_blocks(j);
		if (fc >= j->maxlen ||
		    j->maxlen - fc < JBD2_MIN_JOURNAL_BLOCKS)
			return "the fast-commit area does not fit the journal";
		j->last = j->maxlen - fc;
	}
	if (j->first >= j->last)
		return "the journal's first log block is out of range";
	if (j->start && (j->start < j->first || j->start >= j->last))
		return "the log start is outside the log";
	return NULL;
}

/*
 * Fields past the v1 superblock that cannot be right: any of them set in
 * a v1 superblock, or s_nr_users above 1 in the v2 superblock of an
 * internal journal (it counts the filesystems sharing an external one).
 * e2fsck takes both for a bad v1 -> v2 upgrade and clears them.
 */
static const char *stray_v2_fields(const struct extkit_journal *j)
{
	const uint8_t *raw = j->sb_raw;

	if (j->version == 1 &&
	    (sb_field(raw, SB_OFF(s_feature_compat)) ||
	     sb_field(raw, SB_OFF(s_feature_incompat)) ||
	     sb_field(raw, SB_OFF(s_feature_ro_compat)) ||
	     sb_field(raw, SB_OFF(s_nr_users))))
		return "a version 1 superblock with version 2 fields set";
	if (j->version == 2 && j->nr_users > 1 &&
	    !extkit_journal_has_uuid(j->fs))
		return "the journal of this filesystem alone says it has "
		       "several users";
	return NULL;
}

/* Reads and checks block 0 of the journal. */
static enum extkit_journal_problem check_super(struct extkit_journal *j,
					       const char **why)
{
	uint32_t type;

	*why = NULL;
	if (get_be32(j->sb_raw) != JBD2_MAGIC_NUMBER) {
		*why = "no journal superblock magic";
		return EXTKIT_JOURNAL_BAD_MAGIC;
	}
	type = get_be32(j->sb_raw + 4);
	if (type == JBD2_SUPERBLOCK_V1 || type == JBD2_SUPERBLOCK_V2) {
		j->version = type == JBD2_SUPERBLOCK_V1 ? 1 : 2;
	} else if (type == JBD2_DESCRIPTOR_BLOCK ||
		   type == JBD2_COMMIT_BLOCK || type == JBD2_REVOKE_BLOCK) {
		*why = "block 0 of the journal is a log block";
		return EXTKIT_JOURNAL_BAD_SUPER;
	} else {
		*why = "unknown journal superblock version";
		return EXTKIT_JOURNAL_UNSUPP_VERSION;
	}
	decode_super(j);
	*why = stray_v2_fields(j);
	if (*why)
		return EXTKIT_JOURNAL_V2_FIELDS;
	if (j->nr_users > 1) {
		*why = "the journal is shared by several filesystems";
		return EXTKIT_JOURNAL_MULTI_FS;
	}
	if (j->incompat & ~KNOWN_INCOMPAT) {
		*why = "unknown incompatible journal features";
		return EXTKIT_JOURNAL_UNSUPP_INCOMPAT;
	}
	if (j->ro_compat & ~KNOWN_ROCOMPAT) {
		*why = "unknown read-only journal features";
		return EXTKIT_JOURNAL_UNSUPP_ROCOMPAT;
	}
	*why = check_fields(j);
	return *why ? EXTKIT_JOURNAL_BAD_SUPER : EXTKIT_JOURNAL_OK;
}

int extkit_journal_load(struct extkit_fs *fs, struct extkit_journal **out,
			enum extkit_journal_problem *problem,
			const char **why)
{
	struct extkit_journal *j = calloc(1, sizeof(*j));
	int rc;

	*out = NULL;
	*why = NULL;
	if (!j)
		return -ENOMEM;
	j->fs = fs;
	j->ino = fs->sb.journal_inum;
	*problem = EXTKIT_JOURNAL_BAD_INODE;
	if (j->ino < 1 || j->ino > fs->sb.inodes_count) {
		*why = "the journal inode number is out of range";
		extkit_journal_free(j);
		return 0;
	}
	rc = map_inode(j, why);
	if (rc || *why) {
		extkit_journal_free(j);
		return rc;
	}
	j->sb_raw = malloc(fs->g.block_size);
	if (!j->sb_raw) {
		extkit_journal_free(j);
		return -ENOMEM;
	}
	rc = extkit_fs_read_block(fs, j->map[0], j->sb_raw);
	if (rc) {
		extkit_journal_free(j);
		return rc;
	}
	*problem = check_super(j, why);
	if (j->backup_why && *problem == EXTKIT_JOURNAL_BAD_MAGIC) {
		*problem = EXTKIT_JOURNAL_BAD_INODE;
		*why = j->backup_why;
		extkit_journal_free(j);
		return 0;
	}
	*out = j;
	return 0;
}

int extkit_journal_clear_v2_fields(struct extkit_journal *j, int write,
				   enum extkit_journal_problem *problem,
				   const char **why)
{
	size_t v1_end = SB_OFF(s_feature_compat);

	memset(j->sb_raw + v1_end, 0, j->fs->g.block_size - v1_end);
	*problem = check_super(j, why);
	if (!write)
		return 0;
	return extkit_fs_write_block(j->fs, j->map[0], j->sb_raw);
}

static void encode_dynamic(struct extkit_journal *j)
{
	uint8_t *raw = j->sb_raw;

	put_be32(raw + SB_OFF(s_sequence), j->sequence);
	put_be32(raw + SB_OFF(s_start), j->start);
	put_be32(raw + SB_OFF(s_errno), (uint32_t)j->errno_);
	if (jbd2_has_csum_v2or3(j))
		put_be32(raw + SB_OFF(s_checksum), super_csum(raw));
}

int extkit_journal_write_super(struct extkit_journal *j)
{
	encode_dynamic(j);
	return extkit_fs_write_block(j->fs, j->map[0], j->sb_raw);
}

int extkit_journal_reset_super(struct extkit_journal *j, uint32_t seq)
{
	uint8_t *raw = j->sb_raw;
	uint32_t bs = j->fs->g.block_size;
	uint32_t len = j->nblocks;

	/* A valid v1 signature stays; anything else becomes v2. */
	if (get_be32(raw) != JBD2_MAGIC_NUMBER ||
	    get_be32(raw + 4) != JBD2_SUPERBLOCK_V1) {
		put_be32(raw, JBD2_MAGIC_NUMBER);
		put_be32(raw + 4, JBD2_SUPERBLOCK_V2);
	}
	memset(raw + sizeof(struct jbd2_header), 0,
	       bs - sizeof(struct jbd2_header));
	put_be32(raw + SB_OFF(s_blocksize), bs);
	put_be32(raw + SB_OFF(s_maxlen), len);
	put_be32(raw + SB_OFF(s_first), 1);
	put_be32(raw + SB_OFF(s_sequence), seq);
	j->version = get_be32(raw + 4) == JBD2_SUPERBLOCK_V1 ? 1 : 2;
	decode_super(j);
	j->last = j->maxlen;
	return extkit_fs_write_block(j->fs, j->map[0], raw);
}

void extkit_journal_count_writes(struct extkit_fs *fs, uint64_t blocks)
{
	uint64_t kb = le64(fs->raw_sb.s_kbytes_written);

	kb += blocks * fs->g.block_size / 1024;
	fs->raw_sb.s_kbytes_written = cpu_to_le64(kb);
}
