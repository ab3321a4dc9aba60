/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * On-disk layouts of the ext2/ext4 family. Little-endian fields only, kernel
 * names and kernel types; no functions. Every layout is pinned by static
 * asserts on its size and the offsets of its key fields.
 * Reference: Documentation/filesystems/ext4/ (super.rst, group_descr.rst,
 * inodes.rst, directory.rst, ifork.rst).
 */
#ifndef EXTKIT_ONDISK_H
#define EXTKIT_ONDISK_H

#include <stddef.h>
#include <linux/types.h>

#define EXT2_SUPER_MAGIC		0xEF53
#define EXT2_SUPERBLOCK_OFFSET		1024
#define EXT2_SUPERBLOCK_SIZE		1024
#define EXT2_MIN_BLOCK_LOG_SIZE		10
#define EXT2_MAX_BLOCK_LOG_SIZE		16
#define EXT2_MIN_BLOCK_SIZE		(1 << EXT2_MIN_BLOCK_LOG_SIZE)
#define EXT2_MAX_BLOCK_SIZE		(1 << EXT2_MAX_BLOCK_LOG_SIZE)

#define EXT2_GOOD_OLD_REV		0
#define EXT2_DYNAMIC_REV		1
#define EXT2_GOOD_OLD_FIRST_INO		11
#define EXT2_GOOD_OLD_INODE_SIZE	128

/* Reserved inode numbers */
#define EXT2_BAD_INO			1
#define EXT2_ROOT_INO			2
#define EXT4_USR_QUOTA_INO		3
#define EXT4_GRP_QUOTA_INO		4
#define EXT2_BOOT_LOADER_INO		5
#define EXT2_UNDEL_DIR_INO		6
#define EXT2_RESIZE_INO			7
#define EXT2_JOURNAL_INO		8
#define EXT2_EXCLUDE_INO		9
#define EXT4_REPLICA_INO		10

/* s_state */
#define EXT2_VALID_FS			0x0001
#define EXT2_ERROR_FS			0x0002
#define EXT3_ORPHAN_FS			0x0004

/* s_flags */
#define EXT2_FLAGS_SIGNED_HASH		0x0001
#define EXT2_FLAGS_UNSIGNED_HASH	0x0002
#define EXT2_FLAGS_TEST_FILESYS		0x0004

/* s_creator_os */
#define EXT2_OS_LINUX			0
#define EXT2_OS_HURD			1

/* s_feature_compat */
#define EXT2_FEATURE_COMPAT_DIR_PREALLOC	0x0001
#define EXT2_FEATURE_COMPAT_IMAGIC_INODES	0x0002
#define EXT3_FEATURE_COMPAT_HAS_JOURNAL		0x0004
#define EXT2_FEATURE_COMPAT_EXT_ATTR		0x0008
#define EXT2_FEATURE_COMPAT_RESIZE_INODE	0x0010
#define EXT2_FEATURE_COMPAT_DIR_INDEX		0x0020
#define EXT2_FEATURE_COMPAT_LAZY_BG		0x0040
#define EXT2_FEATURE_COMPAT_EXCLUDE_BITMAP	0x0100
#define EXT4_FEATURE_COMPAT_SPARSE_SUPER2	0x0200
#define EXT4_FEATURE_COMPAT_FAST_COMMIT		0x0400
#define EXT4_FEATURE_COMPAT_STABLE_INODES	0x0800
#define EXT4_FEATURE_COMPAT_ORPHAN_FILE		0x1000

/* s_feature_ro_compat */
#define EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER	0x0001
#define EXT2_FEATURE_RO_COMPAT_LARGE_FILE	0x0002
#define EXT2_FEATURE_RO_COMPAT_BTREE_DIR	0x0004
#define EXT4_FEATURE_RO_COMPAT_HUGE_FILE	0x0008
#define EXT4_FEATURE_RO_COMPAT_GDT_CSUM		0x0010
#define EXT4_FEATURE_RO_COMPAT_DIR_NLINK	0x0020
#define EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE	0x0040
#define EXT4_FEATURE_RO_COMPAT_HAS_SNAPSHOT	0x0080
#define EXT4_FEATURE_RO_COMPAT_QUOTA		0x0100
#define EXT4_FEATURE_RO_COMPAT_BIGALLOC		0x0200
#define EXT4_FEATURE_RO_COMPAT_METADATA_CSUM	0x0400
#define EXT4_FEATURE_RO_COMPAT_REPLICA		0x0800
#define EXT4_FEATURE_RO_COMPAT_READONLY		0x1000
#define EXT4_FEATURE_RO_COMPAT_PROJECT		0x2000
#define EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS	0x4000
#define EXT4_FEATURE_RO_COMPAT_VERITY		0x8000
#define EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT	0x10000

/* s_feature_incompat */
#define EXT2_FEATURE_INCOMPAT_COMPRESSION	0x0001
#define EXT2_FEATURE_INCOMPAT_FILETYPE		0x0002
#define EXT3_FEATURE_INCOMPAT_RECOVER		0x0004
#define EXT3_FEATURE_INCOMPAT_JOURNAL_DEV	0x0008
#define EXT2_FEATURE_INCOMPAT_META_BG		0x0010
#define EXT4_FEATURE_INCOMPAT_EXTENTS		0x0040
#define EXT4_FEATURE_INCOMPAT_64BIT		0x0080
#define EXT4_FEATURE_INCOMPAT_MMP		0x0100
#define EXT4_FEATURE_INCOMPAT_FLEX_BG		0x0200
#define EXT4_FEATURE_INCOMPAT_EA_INODE		0x0400
#define EXT4_FEATURE_INCOMPAT_DIRDATA		0x1000
#define EXT4_FEATURE_INCOMPAT_CSUM_SEED		0x2000
#define EXT4_FEATURE_INCOMPAT_LARGEDIR		0x4000
#define EXT4_FEATURE_INCOMPAT_INLINE_DATA	0x8000
#define EXT4_FEATURE_INCOMPAT_ENCRYPT		0x10000
#define EXT4_FEATURE_INCOMPAT_CASEFOLD		0x20000

struct ext2_super_block {
	__le32	s_inodes_count;
	__le32	s_blocks_count_lo;
	__le32	s_r_blocks_count_lo;
	__le32	s_free_blocks_count_lo;
	__le32	s_free_inodes_count;
	__le32	s_first_data_block;
	__le32	s_log_block_size;
	__le32	s_log_cluster_size;
	__le32	s_blocks_per_group;
	__le32	s_clusters_per_group;
	__le32	s_inodes_per_group;
	__le32	s_mtime;
	__le32	s_wtime;
	__le16	s_mnt_count;
	__le16	s_max_mnt_count;
	__le16	s_magic;
	__le16	s_state;
	__le16	s_errors;
	__le16	s_minor_rev_level;
	__le32	s_lastcheck;
	__le32	s_checkinterval;
	__le32	s_creator_os;
	__le32	s_rev_level;
	__le16	s_def_resuid;
	__le16	s_def_resgid;
	/* EXT2_DYNAMIC_REV only from here on */
	__le32	s_first_ino;
	__le16	s_inode_size;
	__le16	s_block_group_nr;
	__le32	s_feature_compat;
	__le32	s_feature_incompat;
	__le32	s_feature_ro_compat;
	__u8	s_uuid[16];
	char	s_volume_name[16];
	char	s_last_mounted[64];
	__le32	s_algorithm_usage_bitmap;
	__u8	s_prealloc_blocks;
	__u8	s_prealloc_dir_blocks;
	__le16	s_reserved_gdt_blocks;
	__u8	s_journal_uuid[16];
	__le32	s_journal_inum;
	__le32	s_journal_dev;
	__le32	s_last_orphan;
	__le32	s_hash_seed[4];
	__u8	s_def_hash_version;
	__u8	s_jnl_backup_type;	/* EXT3_JNL_BACKUP_BLOCKS or 0 */
	__le16	s_desc_size;
	__le32	s_default_mount_opts;
	__le32	s_first_meta_bg;
	__le32	s_mkfs_time;
	__le32	s_jnl_blocks[17];
	/* 64bit support */
	__le32	s_blocks_count_hi;
	__le32	s_r_blocks_count_hi;
	__le32	s_free_blocks_count_hi;
	__le16	s_min_extra_isize;
	__le16	s_want_extra_isize;
	__le32	s_flags;
	__le16	s_raid_stride;
	__le16	s_mmp_interval;
	__le64	s_mmp_block;
	__le32	s_raid_stripe_width;
	__u8	s_log_groups_per_flex;
	__u8	s_checksum_type;
	__u8	s_encryption_level;
	__u8	s_reserved_pad;
	__le64	s_kbytes_written;
	__le32	s_snapshot_inum;
	__le32	s_snapshot_id;
	__le64	s_snapshot_r_blocks_count;
	__le32	s_snapshot_list;
	__le32	s_error_count;
	__le32	s_first_error_time;
	__le32	s_first_error_ino;
	__le64	s_first_error_block;
	__u8	s_first_error_func[32];
	__le32	s_first_error_line;
	__le32	s_last_error_time;
	__le32	s_last_error_ino;
	__le32	s_last_error_line;
	__le64	s_last_error_block;
	__u8	s_last_error_func[32];
	__u8	s_mount_opts[64];
	__le32	s_usr_quota_inum;
	__le32	s_grp_quota_inum;
	__le32	s_overhead_clusters;
	__le32	s_backup_bgs[2];
	__u8	s_encrypt_algos[4];
	__u8	s_encrypt_pw_salt[16];
	__le32	s_lpf_ino;
	__le32	s_prj_quota_inum;
	__le32	s_checksum_seed;
	__u8	s_wtime_hi;
	__u8	s_mtime_hi;
	__u8	s_mkfs_time_hi;
	__u8	s_lastcheck_hi;
	__u8	s_first_error_time_hi;
	__u8	s_last_error_time_hi;
	__u8	s_first_error_errcode;
	__u8	s_last_error_errcode;
	__le16	s_encoding;
	__le16	s_encoding_flags;
	__le32	s_orphan_file_inum;
	__le32	s_reserved[94];
	__le32	s_checksum;
};

_Static_assert(sizeof(struct ext2_super_block) == 1024, "superblock size");
_Static_assert(offsetof(struct ext2_super_block, s_magic) == 0x38, "s_magic");
_Static_assert(offsetof(struct ext2_super_block, s_rev_level) == 0x4C, "rev");
_Static_assert(offsetof(struct ext2_super_block, s_first_ino) == 0x54, "ino");
_Static_assert(offsetof(struct ext2_super_block, s_uuid) == 0x68, "s_uuid");
_Static_assert(offsetof(struct ext2_super_block, s_volume_name) == 0x78,
	       "s_volume_name");
_Static_assert(offsetof(struct ext2_super_block, s_reserved_gdt_blocks) ==
	       0xCE, "s_reserved_gdt_blocks");
_Static_assert(offsetof(struct ext2_super_block, s_hash_seed) == 0xEC,
	       "s_hash_seed");
_Static_assert(offsetof(struct ext2_super_block, s_desc_size) == 0xFE,
	       "s_desc_size");
_Static_assert(offsetof(struct ext2_super_block, s_blocks_count_hi) == 0x150,
	       "s_blocks_count_hi");
_Static_assert(offsetof(struct ext2_super_block, s_flags) == 0x160, "flags");
_Static_assert(offsetof(struct ext2_super_block, s_kbytes_written) == 0x178,
	       "s_kbytes_written");
_Static_assert(offsetof(struct ext2_super_block, s_mount_opts) == 0x200,
	       "s_mount_opts");
_Static_assert(offsetof(struct ext2_super_block, s_checksum_seed) == 0x270,
	       "s_checksum_seed");
_Static_assert(offsetof(struct ext2_super_block, s_encoding) == 0x27C,
	       "s_encoding");
_Static_assert(offsetof(struct ext2_super_block, s_checksum) == 0x3FC,
	       "s_checksum");

/* Group descriptor: 32 bytes, or 64 with the 64bit feature (s_desc_size). */
#define EXT2_MIN_DESC_SIZE		32
#define EXT4_MIN_DESC_SIZE_64BIT	64
#define EXT4_MAX_DESC_SIZE		EXT2_MIN_BLOCK_SIZE

#define EXT4_BG_INODE_UNINIT		0x0001
#define EXT4_BG_BLOCK_UNINIT		0x0002
#define EXT4_BG_INODE_ZEROED		0x0004

struct ext4_group_desc {
	__le32	bg_block_bitmap_lo;
	__le32	bg_inode_bitmap_lo;
	__le32	bg_inode_table_lo;
	__le16	bg_free_blocks_count_lo;
	__le16	bg_free_inodes_count_lo;
	__le16	bg_used_dirs_count_lo;
	__le16	bg_flags;
	__le32	bg_exclude_bitmap_lo;
	__le16	bg_block_bitmap_csum_lo;
	__le16	bg_inode_bitmap_csum_lo;
	__le16	bg_itable_unused_lo;
	__le16	bg_checksum;
	/* 64-byte descriptors only */
	__le32	bg_block_bitmap_hi;
	__le32	bg_inode_bitmap_hi;
	__le32	bg_inode_table_hi;
	__le16	bg_free_blocks_count_hi;
	__le16	bg_free_inodes_count_hi;
	__le16	bg_used_dirs_count_hi;
	__le16	bg_itable_unused_hi;
	__le32	bg_exclude_bitmap_hi;
	__le16	bg_block_bitmap_csum_hi;
	__le16	bg_inode_bitmap_csum_hi;
	__le32	bg_reserved;
};

_Static_assert(sizeof(struct ext4_group_desc) == 64, "group desc size");
_Static_assert(offsetof(struct ext4_group_desc, bg_checksum) == 0x1E,
	       "bg_checksum");
_Static_assert(offsetof(struct ext4_group_desc, bg_block_bitmap_hi) == 32,
	       "32-byte descriptor ends before the hi half");
_Static_assert(offsetof(struct ext4_group_desc, bg_itable_unused_hi) == 0x32,
	       "bg_itable_unused_hi");

/* Inodes */
#define EXT2_NDIR_BLOCKS		12
#define EXT2_IND_BLOCK			12
#define EXT2_DIND_BLOCK			13
#define EXT2_TIND_BLOCK			14
#define EXT2_N_BLOCKS			15
/* s_jnl_backup_type: s_jnl_blocks holds the journal inode's i_block */
#define EXT3_JNL_BACKUP_BLOCKS		1

/* i_flags */
#define EXT2_SECRM_FL			0x00000001
#define EXT2_IMMUTABLE_FL		0x00000010
#define EXT2_APPEND_FL			0x00000020
#define EXT4_ENCRYPT_FL			0x00000800
#define EXT2_INDEX_FL			0x00001000
#define EXT4_HUGE_FILE_FL		0x00040000
#define EXT4_EXTENTS_FL			0x00080000
#define EXT4_VERITY_FL			0x00100000
#define EXT4_EA_INODE_FL		0x00200000
#define EXT4_INLINE_DATA_FL		0x10000000
#define EXT4_CASEFOLD_FL		0x40000000

struct ext2_inode {
	__le16	i_mode;
	__le16	i_uid;
	__le32	i_size_lo;
	__le32	i_atime;
	__le32	i_ctime;
	__le32	i_mtime;
	__le32	i_dtime;
	__le16	i_gid;
	__le16	i_links_count;
	__le32	i_blocks_lo;
	__le32	i_flags;
	__le32	l_i_version;
	__le32	i_block[EXT2_N_BLOCKS];
	__le32	i_generation;
	__le32	i_file_acl_lo;
	__le32	i_size_high;
	__le32	i_obso_faddr;
	/* osd2, Linux flavour */
	__le16	l_i_blocks_high;
	__le16	l_i_file_acl_high;
	__le16	l_i_uid_high;
	__le16	l_i_gid_high;
	__le16	l_i_checksum_lo;
	__le16	l_i_reserved;
	/* large inodes (s_inode_size > 128) only, bounded by i_extra_isize */
	__le16	i_extra_isize;
	__le16	i_checksum_hi;
	__le32	i_ctime_extra;
	__le32	i_mtime_extra;
	__le32	i_atime_extra;
	__le32	i_crtime;
	__le32	i_crtime_extra;
	__le32	i_version_hi;
	__le32	i_projid;
};

#define EXT2_INODE_CORE_SIZE		128
_Static_assert(sizeof(struct ext2_inode) == 160, "inode size");
_Static_assert(offsetof(struct ext2_inode, i_block) == 0x28, "i_block");
_Static_assert(offsetof(struct ext2_inode, i_size_high) == 0x6C, "size_hi");
_Static_assert(offsetof(struct ext2_inode, l_i_blocks_high) == 0x74,
	       "l_i_blocks_high");
_Static_assert(offsetof(struct ext2_inode, i_extra_isize) ==
	       EXT2_INODE_CORE_SIZE, "i_extra_isize");

/* Directory entries */
#define EXT2_NAME_LEN			255
#define EXT2_DIR_ENTRY_HEADER_LEN	8

#define EXT2_FT_UNKNOWN			0
#define EXT2_FT_REG_FILE		1
#define EXT2_FT_DIR			2
#define EXT2_FT_CHRDEV			3
#define EXT2_FT_BLKDEV			4
#define EXT2_FT_FIFO			5
#define EXT2_FT_SOCK			6
#define EXT2_FT_SYMLINK			7
#define EXT2_FT_MAX			8

/*
 * With the filetype feature byte 7 is the file type; without it, it is the
 * high byte of a 16-bit name_len (ext2_dir_entry, revision 0 layout).
 */
struct ext2_dir_entry_2 {
	__le32	inode;
	__le16	rec_len;
	__u8	name_len;
	__u8	file_type;
	char	name[EXT2_NAME_LEN];
};

_Static_assert(offsetof(struct ext2_dir_entry_2, name) == 8, "dirent name");

/* metadata_csum: the fake record that ends every leaf block */
#define EXT4_DIR_TAIL_FT		0xDE
struct ext4_dir_entry_tail {
	__le32	det_reserved_zero1;	/* inode, always 0 */
	__le16	det_rec_len;		/* 12 */
	__u8	det_reserved_zero2;	/* name_len, 0 */
	__u8	det_reserved_ft;	/* 0xDE */
	__le32	det_checksum;		/* crc32c */
};

_Static_assert(sizeof(struct ext4_dir_entry_tail) == 12, "dirent tail");

/* htree (dir_index) */
#define DX_HASH_LEGACY			0
#define DX_HASH_HALF_MD4		1
#define DX_HASH_TEA			2
#define DX_HASH_LEGACY_UNSIGNED		3
#define DX_HASH_HALF_MD4_UNSIGNED	4
#define DX_HASH_TEA_UNSIGNED		5
#define DX_HASH_SIPHASH			6
/* dx_root_info.unused_flags: a flag the kernel must understand */
#define DX_HASH_FLAG_INCOMPAT		0x1

struct dx_entry {
	__le32	hash;
	__le32	block;
};

struct dx_countlimit {
	__le16	limit;
	__le16	count;
};

struct dx_root_info {
	__le32	reserved_zero;
	__u8	hash_version;
	__u8	info_length;		/* 8 */
	__u8	indirect_levels;
	__u8	unused_flags;
};

/*
 * Block 0 of an indexed directory: '.' (rec_len 12), '..' whose rec_len
 * covers the rest of the block, then dx_root_info and the dx_entries. The
 * first dx_entry's hash field holds the count/limit pair.
 */
struct dx_root {
	__le32	dot_inode;
	__le16	dot_rec_len;
	__u8	dot_name_len;
	__u8	dot_file_type;
	char	dot_name[4];
	__le32	dotdot_inode;
	__le16	dotdot_rec_len;
	__u8	dotdot_name_len;
	__u8	dotdot_file_type;
	char	dotdot_name[4];
	struct dx_root_info info;
	struct dx_countlimit countlimit;
	__le32	block;
	struct dx_entry entries[];
};

_Static_assert(offsetof(struct dx_root, info) == 24, "dx_root info");
_Static_assert(offsetof(struct dx_root, countlimit) == 32, "dx_root limit");
_Static_assert(offsetof(struct dx_root, entries) == 40, "dx_root entries");

/*
 * Interior index block: one empty record spanning the block (inode 0,
 * rec_len = block size), count/limit at 8, first block at 12, entries at 16.
 */
struct dx_node {
	__le32	fake_inode;
	__le16	fake_rec_len;
	__u8	fake_name_len;
	__u8	fake_file_type;
	struct dx_countlimit countlimit;
	__le32	block;
	struct dx_entry entries[];
};

_Static_assert(offsetof(struct dx_node, countlimit) == 8, "dx_node limit");
_Static_assert(offsetof(struct dx_node, block) == 12, "dx_node block");
_Static_assert(offsetof(struct dx_node, entries) == 16, "dx_node entries");

/* metadata_csum: after the last dx_entry slot of a root or node */
struct dx_tail {
	__le32	dt_reserved;
	__le32	dt_checksum;
};

/* Extent tree (i_block of an EXT4_EXTENTS_FL inode, and tree blocks) */
#define EXT4_EXT_MAGIC			0xF30A
#define EXT4_EXT_MAX_DEPTH		5
#define EXT4_EXT_INIT_MAX_LEN		32768

struct ext4_extent_header {
	__le16	eh_magic;
	__le16	eh_entries;
	__le16	eh_max;
	__le16	eh_depth;
	__le32	eh_generation;
};

struct ext4_extent_idx {
	__le32	ei_block;
	__le32	ei_leaf_lo;
	__le16	ei_leaf_hi;
	__le16	ei_unused;
};

struct ext4_extent {
	__le32	ee_block;
	__le16	ee_len;		/* > 32768: unwritten, length - 32768 */
	__le16	ee_start_hi;
	__le32	ee_start_lo;
};

struct ext4_extent_tail {
	__le32	et_checksum;
};

_Static_assert(sizeof(struct ext4_extent_header) == 12, "extent header");
_Static_assert(sizeof(struct ext4_extent_idx) == 12, "extent index");
_Static_assert(sizeof(struct ext4_extent) == 12, "extent");
_Static_assert(offsetof(struct ext4_extent, ee_start_lo) == 8, "ee_start_lo");

/*
 * e2undo file (e2fsprogs lib/ext2fs/undo_io.c, misc/e2undo.c), cut into
 * blocks of e2undo_header.block_size: block 0 the header, block 1 a copy
 * of the filesystem superblock as it is when the file is finished (with
 * s_magic bit-inverted), then from key_offset a key block followed by the
 * data its keys describe, repeated. Every crc is crc32c seeded with ~0,
 * without the final inversion (ext2fs_crc32c_le(~0, ...)).
 */
#define E2UNDO_MAGIC		"E2UNDO02"
#define E2UNDO_KEYBLOCK_MAGIC	0xCADECADEu
#define E2UNDO_STATE_FINISHED	0x1	/* written to the end: no fsck needed */
#define E2UNDO_MIN_BLOCK_SIZE	1024
#define E2UNDO_MAX_BLOCK_SIZE	1048576
#define E2UNDO_MAX_EXTENT_BLOCKS 512	/* a key covers at most this many */

struct e2undo_header {
	char	magic[8];	/* E2UNDO_MAGIC, no NUL */
	__le64	num_keys;	/* keys in all key blocks */
	__le64	super_offset;	/* undo block holding the superblock copy */
	__le64	key_offset;	/* undo block of the first key block */
	__le32	block_size;	/* undo file block size */
	__le32	fs_block_size;	/* unit of e2undo_key.fsblk */
	__le32	sb_crc;		/* crc of the superblock copy (magic intact) */
	__le32	state;		/* E2UNDO_STATE_* */
	__le32	f_compat;	/* 0x1: fs_offset is meaningful */
	__le32	f_incompat;	/* e2undo refuses any bit */
	__le32	f_rocompat;	/* e2undo refuses any bit */
	__le32	pad32;
	__le64	fs_offset;	/* byte offset of the filesystem on the device */
	__u8	padding[436];
	__le32	header_crc;	/* crc of the 508 bytes before it */
};

struct e2undo_key {
	__le64	fsblk;		/* where the data goes, in fs_block_size units */
	__le32	blk_crc;	/* crc of the data (size bytes) */
	__le32	size;		/* bytes; the data takes ceil(size/bs) blocks */
};

/* A key block: this head, then block_size / 16 - 1 keys. */
struct e2undo_key_block {
	__le32	magic;		/* E2UNDO_KEYBLOCK_MAGIC */
	__le32	crc;		/* crc of the whole block with this field 0 */
	__le64	reserved;
};

_Static_assert(sizeof(struct e2undo_header) == 512, "e2undo header");
_Static_assert(offsetof(struct e2undo_header, block_size) == 32, "block_size");
_Static_assert(offsetof(struct e2undo_header, fs_offset) == 64, "fs_offset");
_Static_assert(offsetof(struct e2undo_header, header_crc) == 508,
	       "header_crc");
_Static_assert(sizeof(struct e2undo_key) == 16, "e2undo key");
_Static_assert(sizeof(struct e2undo_key_block) == 16, "e2undo key block");

/*
 * Extended attribute blocks (i_file_acl): a 32-byte header, then entries
 * from offset 32 growing up, ended by four zero bytes; values are placed
 * from the block end down. e_value_offs counts from the block start.
 */
#define EXT2_EXT_ATTR_MAGIC		0xEA020000u
#define EXT2_EXT_ATTR_PAD		4
#define EXT2_EXT_ATTR_NAME_HASH_SHIFT	5
#define EXT2_EXT_ATTR_VALUE_HASH_SHIFT	16

struct ext2_ext_attr_header {
	__le32	h_magic;
	__le32	h_refcount;	/* inodes naming this block */
	__le32	h_blocks;	/* always 1 */
	__le32	h_hash;		/* hash of the entries' hashes */
	__le32	h_checksum;	/* metadata_csum */
	__le32	h_reserved[3];
};

struct ext2_ext_attr_entry {
	__u8	e_name_len;
	__u8	e_name_index;	/* name prefix: 1 user., 2 acl, ... */
	__le16	e_value_offs;
	__le32	e_value_inum;	/* ea_inode: the inode holding the value */
	__le32	e_value_size;
	__le32	e_hash;
	char	e_name[];	/* not NUL-terminated */
};

_Static_assert(sizeof(struct ext2_ext_attr_header) == 32, "EA header");
_Static_assert(offsetof(struct ext2_ext_attr_header, h_refcount) == 4,
	       "h_refcount");
_Static_assert(offsetof(struct ext2_ext_attr_header, h_hash) == 12, "h_hash");
_Static_assert(sizeof(struct ext2_ext_attr_entry) == 16, "EA entry");
_Static_assert(offsetof(struct ext2_ext_attr_entry, e_hash) == 12, "e_hash");

/* Multiple mount protection: the block s_mmp_block names (mmp). */
#define EXT4_MMP_MAGIC		0x004D4D50
#define EXT4_MMP_SEQ_CLEAN	0xFF4D4D50	/* unmounted cleanly */
#define EXT4_MMP_SEQ_FSCK	0xE24D4D50	/* fsck is running */
#define EXT4_MMP_SEQ_MAX	0xE24D4D4F	/* largest live sequence */
#define EXT4_MMP_MIN_CHECK_INTERVAL	5

struct mmp_struct {
	__le32	mmp_magic;
	__le32	mmp_seq;
	__le64	mmp_time;
	__u8	mmp_nodename[64];
	__u8	mmp_bdevname[32];
	__le16	mmp_check_interval;
	__le16	mmp_pad1;
	__le32	mmp_pad2[226];
	__le32	mmp_checksum;	/* crc32c(fs seed, bytes before it) */
};

_Static_assert(sizeof(struct mmp_struct) == 1024, "MMP block");
_Static_assert(offsetof(struct mmp_struct, mmp_check_interval) == 112,
	       "mmp_check_interval");
_Static_assert(offsetof(struct mmp_struct, mmp_checksum) == 1020,
	       "mmp_checksum");

/*
 * Quota files (quota feature; the kernel's fs/quota/quotaio_v2.h and
 * quota_tree.h): 1 KiB quota blocks. Block 0: header, then the info at
 * byte 8; block 1: the root of a 4-level tree of __le32 references (one
 * byte of the id per level); data blocks: a header, then entries.
 */
#define EXT4_QUOTA_MAGIC_USR	0xd9c01f11
#define EXT4_QUOTA_MAGIC_GRP	0xd9c01927
#define EXT4_QUOTA_MAGIC_PRJ	0xd9c03f14
#define EXT4_QUOTA_TREE_ROOT	1	/* quota block of the tree root */
#define EXT4_QUOTA_TREE_DEPTH	4
#define EXT4_QUOTA_INFO_OFF	8
#define EXT4_QUOTA_DEF_GRACE	604800	/* a week */

struct v2_disk_dqheader {
	__le32	dqh_magic;
	__le32	dqh_version;	/* 0: v2r0, 1: v2r1 */
};

struct v2_disk_dqinfo {
	__le32	dqi_bgrace;
	__le32	dqi_igrace;
	__le32	dqi_flags;
	__le32	dqi_blocks;	/* quota blocks in the file */
	__le32	dqi_free_blk;	/* first free block (list) */
	__le32	dqi_free_entry;	/* first data block with a free entry */
};

struct qt_disk_dqdbheader {
	__le32	dqdh_next_free;
	__le32	dqdh_prev_free;
	__le16	dqdh_entries;	/* used entries in the block */
	__le16	dqdh_pad1;
	__le32	dqdh_pad2;
};

struct v2r1_disk_dqblk {
	__le32	dqb_id;
	__le32	dqb_pad;
	__le64	dqb_ihardlimit;
	__le64	dqb_isoftlimit;
	__le64	dqb_curinodes;
	__le64	dqb_bhardlimit;
	__le64	dqb_bsoftlimit;
	__le64	dqb_curspace;	/* bytes */
	__le64	dqb_btime;
	__le64	dqb_itime;
};

struct v2r0_disk_dqblk {
	__le32	dqb_id;
	__le32	dqb_ihardlimit;
	__le32	dqb_isoftlimit;
	__le32	dqb_curinodes;
	__le32	dqb_bhardlimit;
	__le32	dqb_bsoftlimit;
	__le64	dqb_curspace;
	__le64	dqb_btime;
	__le64	dqb_itime;
};

_Static_assert(sizeof(struct v2_disk_dqheader) == 8, "quota header");
_Static_assert(sizeof(struct v2_disk_dqinfo) == 24, "quota info");
_Static_assert(sizeof(struct qt_disk_dqdbheader) == 16, "quota data hdr");
_Static_assert(sizeof(struct v2r1_disk_dqblk) == 72, "v2r1 entry");
_Static_assert(offsetof(struct v2r1_disk_dqblk, dqb_curspace) == 48,
	       "dqb_curspace");
_Static_assert(sizeof(struct v2r0_disk_dqblk) == 48, "v2r0 entry");
_Static_assert(offsetof(struct v2r0_disk_dqblk, dqb_curspace) == 24,
	       "v2r0 dqb_curspace");

/*
 * ext4 fast commits (fs/ext4/fast_commit.h): tag-length-value records in
 * the journal's fast-commit area, all little-endian.
 */
#define EXT4_FC_TAG_ADD_RANGE	0x0001
#define EXT4_FC_TAG_DEL_RANGE	0x0002
#define EXT4_FC_TAG_CREAT	0x0003
#define EXT4_FC_TAG_LINK	0x0004
#define EXT4_FC_TAG_UNLINK	0x0005
#define EXT4_FC_TAG_INODE	0x0006
#define EXT4_FC_TAG_PAD		0x0007
#define EXT4_FC_TAG_TAIL	0x0008
#define EXT4_FC_TAG_HEAD	0x0009

struct ext4_fc_tl {
	__le16	fc_tag;
	__le16	fc_len;		/* bytes of the value that follows */
};

struct ext4_fc_head {
	__le32	fc_features;	/* none known */
	__le32	fc_tid;
};

struct ext4_fc_add_range {
	__le32	fc_ino;
	__u8	fc_ex[12];	/* a struct ext4_extent */
};

struct ext4_fc_del_range {
	__le32	fc_ino;
	__le32	fc_lblk;
	__le32	fc_len;
};

/* CREAT, LINK, UNLINK: the name (not NUL-terminated) follows. */
struct ext4_fc_dentry_info {
	__le32	fc_parent_ino;
	__le32	fc_ino;
};

/* INODE: the raw inode (128 bytes + i_extra_isize) follows. */
struct ext4_fc_inode {
	__le32	fc_ino;
};

struct ext4_fc_tail {
	__le32	fc_tid;
	__le32	fc_crc;		/* crc32c of the tags since the last tail */
};

_Static_assert(sizeof(struct ext4_fc_tl) == 4, "fc_tl");
_Static_assert(sizeof(struct ext4_fc_head) == 8, "fc_head");
_Static_assert(sizeof(struct ext4_fc_add_range) == 16, "fc_add_range");
_Static_assert(sizeof(struct ext4_fc_del_range) == 12, "fc_del_range");
_Static_assert(sizeof(struct ext4_fc_dentry_info) == 8, "fc_dentry_info");
_Static_assert(sizeof(struct ext4_fc_tail) == 8, "fc_tail");
_Static_assert(offsetof(struct ext4_fc_tail, fc_crc) == 4, "fc_crc");

#endif /* EXTKIT_ONDISK_H */
