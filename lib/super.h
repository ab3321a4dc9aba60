/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Superblock: decode/encode between the on-disk struct and a host-endian
 * view, validation with a reason, and the geometry derived once from it.
 */
#ifndef EXTKIT_SUPER_H
#define EXTKIT_SUPER_H

#include <stdint.h>

#include "ondisk.h"

/* Host-endian superblock; lo/hi halves already combined. */
struct extkit_super {
	uint32_t inodes_count;
	uint64_t blocks_count;
	uint64_t r_blocks_count;
	uint64_t free_blocks_count;
	uint32_t free_inodes_count;
	uint32_t first_data_block;
	uint32_t log_block_size;
	uint32_t log_cluster_size;
	uint32_t blocks_per_group;
	uint32_t clusters_per_group;
	uint32_t inodes_per_group;
	uint32_t mtime;
	uint32_t wtime;
	uint16_t mnt_count;
	uint16_t max_mnt_count;
	uint16_t magic;
	uint16_t state;
	uint16_t errors;
	uint16_t minor_rev_level;
	uint32_t lastcheck;
	uint32_t checkinterval;
	uint32_t creator_os;
	uint32_t rev_level;
	uint16_t def_resuid;
	uint16_t def_resgid;
	uint32_t first_ino;
	uint16_t inode_size;
	uint16_t block_group_nr;
	uint32_t feature_compat;
	uint32_t feature_incompat;
	uint32_t feature_ro_compat;
	uint8_t uuid[16];
	char volume_name[17];		/* NUL-terminated copy */
	char last_mounted[65];		/* NUL-terminated copy */
	uint16_t reserved_gdt_blocks;
	uint32_t journal_inum;
	uint32_t last_orphan;
	uint32_t hash_seed[4];
	uint8_t def_hash_version;
	uint16_t desc_size;
	uint32_t default_mount_opts;
	uint32_t first_meta_bg;
	uint32_t mkfs_time;
	uint16_t min_extra_isize;
	uint16_t want_extra_isize;
	uint32_t flags;
	uint8_t log_groups_per_flex;
	uint8_t checksum_type;
	uint32_t backup_bgs[2];
	uint32_t lpf_ino;
	uint32_t checksum_seed;
	uint32_t checksum;
	/* Feature fields (decoded only; encode keeps the on-disk bytes). */
	uint16_t mmp_interval;
	uint64_t mmp_block;
	uint32_t quota_inum[3];		/* user, group, project (0: none) */
	uint32_t orphan_file_inum;
	/* Decoded and encoded (mkfs sets them). */
	uint16_t encoding;
	uint16_t encoding_flags;
	uint16_t raid_stride;
	uint32_t raid_stripe_width;
	uint8_t encrypt_algos[4];
};

/* Geometry computed once from a validated superblock. */
struct extkit_geom {
	uint32_t block_size;
	uint32_t group_count;
	uint32_t desc_size;		/* 32 or s_desc_size with 64bit */
	uint32_t descs_per_block;
	uint32_t gdt_blocks;		/* blocks of group descriptors */
	uint32_t inode_size;
	uint32_t inodes_per_block;
	uint32_t itable_blocks;		/* inode table blocks per group */
	uint32_t first_ino;
	uint32_t addr_per_block;	/* block numbers per indirect block */
	uint32_t sb_sectors_per_block;	/* i_blocks units (512) per block */
	int big_rec_len;		/* 64 KiB blocks: rec_len encoding */
	uint32_t cluster_bits;		/* log2 blocks per cluster (bigalloc) */
	uint32_t cluster_ratio;		/* blocks per cluster, 1 without */
};

void extkit_super_decode(const struct ext2_super_block *disk,
			 struct extkit_super *mem);
/* s_hash_seed from its 16 bytes as stored (the UUID form mke2fs's
 * -E hash_seed= takes). */
void extkit_super_set_hash_seed(struct extkit_super *sb,
				const uint8_t seed[16]);
/*
 * s_overhead_clusters, which struct extkit_super does not carry (the
 * encoder keeps it): set in the raw superblock.
 */
void extkit_super_set_overhead(struct ext2_super_block *d,
			       uint32_t clusters);
/* Writes the known fields of mem into disk; other bytes are kept. */
void extkit_super_encode(const struct extkit_super *mem,
			 struct ext2_super_block *disk);

/*
 * Checks the superblock for sanity against the image size (in bytes; 0 if
 * unknown) and fills geom. On failure returns a negative code and sets *why
 * to a one-line reason (a static string).
 */
int extkit_super_validate(const struct extkit_super *sb, uint64_t image_size,
			  struct extkit_geom *geom, const char **why);

static inline int extkit_has_compat(const struct extkit_super *sb, uint32_t f)
{
	return (sb->feature_compat & f) != 0;
}

static inline int extkit_has_incompat(const struct extkit_super *sb,
				      uint32_t f)
{
	return (sb->feature_incompat & f) != 0;
}

static inline int extkit_has_ro_compat(const struct extkit_super *sb,
				       uint32_t f)
{
	return (sb->feature_ro_compat & f) != 0;
}

/*
 * Whether ino is one the filesystem keeps for itself above s_first_ino
 * and names in the superblock, not in a directory: a quota inode (the
 * project one usually) or the orphan file.
 */
int extkit_super_internal_inode(const struct extkit_super *sb, uint32_t ino);

/* Whether group g holds a superblock backup (sparse_super, sparse_super2). */
int extkit_super_group_has_backup(const struct extkit_super *sb, uint32_t g);
/* The first group after g holding a superblock backup; n (the group
 * count) when there is none. */
uint32_t extkit_super_next_backup(const struct extkit_super *sb, uint32_t g,
				  uint32_t n);

/* Description of superblock fields, for generic dumps (JSON/text). */
enum extkit_field_kind {
	EXTKIT_FIELD_NUM,	/* little-endian integer, size 1/2/4/8 */
	EXTKIT_FIELD_NUM_HI,	/* lo at offset, hi at hi_offset (64bit) */
	EXTKIT_FIELD_UUID,	/* 16 bytes */
	EXTKIT_FIELD_STRING,	/* fixed-size char array */
	EXTKIT_FIELD_ARRAY32,	/* array of le32 (count elements) */
	EXTKIT_FIELD_ARRAY8,	/* array of bytes shown as numbers */
};

struct extkit_super_field {
	const char *name;	/* kernel name without s_ and _lo */
	uint16_t offset;
	uint16_t size;		/* bytes of one element */
	uint16_t count;		/* elements (ARRAY32) or bytes (STRING) */
	uint16_t hi_offset;	/* NUM_HI only */
	enum extkit_field_kind kind;
};

extern const struct extkit_super_field extkit_super_fields[];
extern const unsigned int extkit_super_field_count;

/* Reads one numeric field from a raw superblock (NUM or NUM_HI). */
uint64_t extkit_super_field_value(const struct ext2_super_block *disk,
				  const struct extkit_super_field *f,
				  int is_64bit);
/* Element i (below f->count) of an ARRAY32 or ARRAY8 field. */
uint64_t extkit_super_field_element(const struct ext2_super_block *disk,
				    const struct extkit_super_field *f,
				    unsigned int i);

#endif /* EXTKIT_SUPER_H */
