// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Superblock: decode/encode, validation, geometry, backup placement and
 * feature names. Field meanings: Documentation/filesystems/ext4/super.rst.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "super.h"

static uint64_t combine(__le32 lo, __le32 hi, int is_64bit)
{
	return le32(lo) | (is_64bit ? (uint64_t)le32(hi) << 32 : 0);
}

static void decode_ids(const struct ext2_super_block *d,
		       struct extkit_super *m)
{
	memcpy(m->uuid, d->s_uuid, sizeof(m->uuid));
	memcpy(m->volume_name, d->s_volume_name, 16);
	m->volume_name[16] = '\0';
	memcpy(m->last_mounted, d->s_last_mounted, 64);
	m->last_mounted[64] = '\0';
	for (int i = 0; i < 4; i++)
		m->hash_seed[i] = le32(d->s_hash_seed[i]);
}

void extkit_super_decode(const struct ext2_super_block *d,
			 struct extkit_super *m)
{
	int is64 = (le32(d->s_feature_incompat) &
		    EXT4_FEATURE_INCOMPAT_64BIT) != 0;

	memset(m, 0, sizeof(*m));
	m->inodes_count = le32(d->s_inodes_count);
	m->blocks_count = combine(d->s_blocks_count_lo, d->s_blocks_count_hi,
				  is64);
	m->r_blocks_count = combine(d->s_r_blocks_count_lo,
				    d->s_r_blocks_count_hi, is64);
	m->free_blocks_count = combine(d->s_free_blocks_count_lo,
				       d->s_free_blocks_count_hi, is64);
	m->free_inodes_count = le32(d->s_free_inodes_count);
	m->first_data_block = le32(d->s_first_data_block);
	m->log_block_size = le32(d->s_log_block_size);
	m->log_cluster_size = le32(d->s_log_cluster_size);
	m->blocks_per_group = le32(d->s_blocks_per_group);
	m->clusters_per_group = le32(d->s_clusters_per_group);
	m->inodes_per_group = le32(d->s_inodes_per_group);
	m->mtime = le32(d->s_mtime);
	m->wtime = le32(d->s_wtime);
	m->mnt_count = le16(d->s_mnt_count);
	m->max_mnt_count = le16(d->s_max_mnt_count);
	m->magic = le16(d->s_magic);
	m->state = le16(d->s_state);
	m->errors = le16(d->s_errors);
	m->minor_rev_level = le16(d->s_minor_rev_level);
	m->lastcheck = le32(d->s_lastcheck);
	m->checkinterval = le32(d->s_checkinterval);
	m->creator_os = le32(d->s_creator_os);
	m->rev_level = le32(d->s_rev_level);
	m->def_resuid = le16(d->s_def_resuid);
	m->def_resgid = le16(d->s_def_resgid);
	if (m->rev_level == EXT2_GOOD_OLD_REV) {
		/*
		 * Revision 0: inode size and first inode are fixed. The
		 * other fields are read as they are (zero as mkfs leaves
		 * them), so feature bits set anyway are seen, as e2fsprogs
		 * and the kernel see them, and fsck can report them.
		 */
		m->first_ino = EXT2_GOOD_OLD_FIRST_INO;
		m->inode_size = EXT2_GOOD_OLD_INODE_SIZE;
	} else {
		m->first_ino = le32(d->s_first_ino);
		m->inode_size = le16(d->s_inode_size);
	}
	m->block_group_nr = le16(d->s_block_group_nr);
	m->feature_compat = le32(d->s_feature_compat);
	m->feature_incompat = le32(d->s_feature_incompat);
	m->feature_ro_compat = le32(d->s_feature_ro_compat);
	decode_ids(d, m);
	m->reserved_gdt_blocks = le16(d->s_reserved_gdt_blocks);
	m->journal_inum = le32(d->s_journal_inum);
	m->last_orphan = le32(d->s_last_orphan);
	m->def_hash_version = d->s_def_hash_version;
	m->desc_size = le16(d->s_desc_size);
	m->default_mount_opts = le32(d->s_default_mount_opts);
	m->first_meta_bg = le32(d->s_first_meta_bg);
	m->mkfs_time = le32(d->s_mkfs_time);
	m->min_extra_isize = le16(d->s_min_extra_isize);
	m->want_extra_isize = le16(d->s_want_extra_isize);
	m->flags = le32(d->s_flags);
	m->log_groups_per_flex = d->s_log_groups_per_flex;
	m->checksum_type = d->s_checksum_type;
	m->backup_bgs[0] = le32(d->s_backup_bgs[0]);
	m->backup_bgs[1] = le32(d->s_backup_bgs[1]);
	m->lpf_ino = le32(d->s_lpf_ino);
	m->checksum_seed = le32(d->s_checksum_seed);
	m->checksum = le32(d->s_checksum);
	m->mmp_interval = le16(d->s_mmp_interval);
	m->mmp_block = le64(d->s_mmp_block);
	m->quota_inum[0] = le32(d->s_usr_quota_inum);
	m->quota_inum[1] = le32(d->s_grp_quota_inum);
	m->quota_inum[2] = le32(d->s_prj_quota_inum);
	m->orphan_file_inum = le32(d->s_orphan_file_inum);
	m->encoding = le16(d->s_encoding);
	m->encoding_flags = le16(d->s_encoding_flags);
	m->raid_stride = le16(d->s_raid_stride);
	m->raid_stripe_width = le32(d->s_raid_stripe_width);
	memcpy(m->encrypt_algos, d->s_encrypt_algos, 4);
}

static void encode_counts(const struct extkit_super *m,
			  struct ext2_super_block *d, int is64)
{
	d->s_inodes_count = cpu_to_le32(m->inodes_count);
	d->s_blocks_count_lo = cpu_to_le32((uint32_t)m->blocks_count);
	d->s_r_blocks_count_lo = cpu_to_le32((uint32_t)m->r_blocks_count);
	d->s_free_blocks_count_lo =
		cpu_to_le32((uint32_t)m->free_blocks_count);
	if (is64) {
		d->s_blocks_count_hi = cpu_to_le32(m->blocks_count >> 32);
		d->s_r_blocks_count_hi = cpu_to_le32(m->r_blocks_count >> 32);
		d->s_free_blocks_count_hi =
			cpu_to_le32(m->free_blocks_count >> 32);
	}
	d->s_free_inodes_count = cpu_to_le32(m->free_inodes_count);
	d->s_first_data_block = cpu_to_le32(m->first_data_block);
	d->s_log_block_size = cpu_to_le32(m->log_block_size);
	d->s_log_cluster_size = cpu_to_le32(m->log_cluster_size);
	d->s_blocks_per_group = cpu_to_le32(m->blocks_per_group);
	d->s_clusters_per_group = cpu_to_le32(m->clusters_per_group);
	d->s_inodes_per_group = cpu_to_le32(m->inodes_per_group);
}

static void encode_state(const struct extkit_super *m,
			 struct ext2_super_block *d)
{
	d->s_mtime = cpu_to_le32(m->mtime);
	d->s_wtime = cpu_to_le32(m->wtime);
	d->s_mnt_count = cpu_to_le16(m->mnt_count);
	d->s_max_mnt_count = cpu_to_le16(m->max_mnt_count);
	d->s_magic = cpu_to_le16(m->magic);
	d->s_state = cpu_to_le16(m->state);
	d->s_errors = cpu_to_le16(m->errors);
	d->s_minor_rev_level = cpu_to_le16(m->minor_rev_level);
	d->s_lastcheck = cpu_to_le32(m->lastcheck);
	d->s_checkinterval = cpu_to_le32(m->checkinterval);
	d->s_creator_os = cpu_to_le32(m->creator_os);
	d->s_rev_level = cpu_to_le32(m->rev_level);
	d->s_def_resuid = cpu_to_le16(m->def_resuid);
	d->s_def_resgid = cpu_to_le16(m->def_resgid);
}

static void encode_dynamic(const struct extkit_super *m,
			   struct ext2_super_block *d)
{
	d->s_first_ino = cpu_to_le32(m->first_ino);
	d->s_inode_size = cpu_to_le16(m->inode_size);
	d->s_block_group_nr = cpu_to_le16(m->block_group_nr);
	d->s_feature_compat = cpu_to_le32(m->feature_compat);
	d->s_feature_incompat = cpu_to_le32(m->feature_incompat);
	d->s_feature_ro_compat = cpu_to_le32(m->feature_ro_compat);
	memcpy(d->s_uuid, m->uuid, 16);
	memcpy(d->s_volume_name, m->volume_name, 16);
	memcpy(d->s_last_mounted, m->last_mounted, 64);
	d->s_reserved_gdt_blocks = cpu_to_le16(m->reserved_gdt_blocks);
	d->s_journal_inum = cpu_to_le32(m->journal_inum);
	d->s_last_orphan = cpu_to_le32(m->last_orphan);
	for (int i = 0; i < 4; i++)
		d->s_hash_seed[i] = cpu_to_le32(m->hash_seed[i]);
	d->s_def_hash_version = m->def_hash_version;
	d->s_desc_size = cpu_to_le16(m->desc_size);
	d->s_default_mount_opts = cpu_to_le32(m->default_mount_opts);
	d->s_first_meta_bg = cpu_to_le32(m->first_meta_bg);
	d->s_mkfs_time = cpu_to_le32(m->mkfs_time);
	d->s_min_extra_isize = cpu_to_le16(m->min_extra_isize);
	d->s_want_extra_isize = cpu_to_le16(m->want_extra_isize);
	d->s_flags = cpu_to_le32(m->flags);
	d->s_log_groups_per_flex = m->log_groups_per_flex;
	d->s_checksum_type = m->checksum_type;
	d->s_backup_bgs[0] = cpu_to_le32(m->backup_bgs[0]);
	d->s_backup_bgs[1] = cpu_to_le32(m->backup_bgs[1]);
	d->s_lpf_ino = cpu_to_le32(m->lpf_ino);
	d->s_usr_quota_inum = cpu_to_le32(m->quota_inum[0]);
	d->s_grp_quota_inum = cpu_to_le32(m->quota_inum[1]);
	d->s_prj_quota_inum = cpu_to_le32(m->quota_inum[2]);
	d->s_orphan_file_inum = cpu_to_le32(m->orphan_file_inum);
	d->s_checksum_seed = cpu_to_le32(m->checksum_seed);
	d->s_checksum = cpu_to_le32(m->checksum);
	d->s_encoding = cpu_to_le16(m->encoding);
	d->s_encoding_flags = cpu_to_le16(m->encoding_flags);
	d->s_raid_stride = cpu_to_le16(m->raid_stride);
	d->s_raid_stripe_width = cpu_to_le32(m->raid_stripe_width);
	memcpy(d->s_encrypt_algos, m->encrypt_algos, 4);
}

void extkit_super_set_overhead(struct ext2_super_block *d,
			       uint32_t clusters)
{
	d->s_overhead_clusters = cpu_to_le32(clusters);
}

void extkit_super_set_hash_seed(struct extkit_super *sb,
				const uint8_t seed[16])
{
	for (int i = 0; i < 4; i++)
		sb->hash_seed[i] = get_le32(seed + 4 * i);
}

void extkit_super_encode(const struct extkit_super *m,
			 struct ext2_super_block *d)
{
	int is64 = (m->feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT) != 0;

	encode_counts(m, d, is64);
	encode_state(m, d);
	/*
	 * Revision 0 too: decode reads these fields as stored (mke2fs -r 0
	 * writes the UUID, hash seed, first inode 11 and inode size 128).
	 */
	encode_dynamic(m, d);
}

static int is_power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

/*
 * bigalloc: a cluster of 2^n blocks (n at most 16 above the block size,
 * as e2fsprogs allows), one bitmap bit per cluster, blocks per group a
 * whole number of clusters, block 0 the first data block. Without it the
 * cluster is the block.
 */
static int check_cluster_fields(const struct extkit_super *sb,
				const char **why)
{
	uint32_t ratio_log;

	if (!(sb->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC)) {
		if (sb->log_cluster_size == sb->log_block_size)
			return 0;
		*why = "cluster size differs from block size without bigalloc";
		return -EFSCORRUPTED;
	}
	if (sb->log_cluster_size < sb->log_block_size ||
	    sb->log_cluster_size - sb->log_block_size > 16) {
		*why = "cluster size (s_log_cluster_size) is out of range";
		return -EFSCORRUPTED;
	}
	ratio_log = sb->log_cluster_size - sb->log_block_size;
	if ((uint64_t)sb->clusters_per_group << ratio_log !=
	    sb->blocks_per_group) {
		*why = "blocks per group is not clusters per group times the cluster ratio";
		return -EFSCORRUPTED;
	}
	if (sb->first_data_block != 0) {
		*why = "first data block is not 0 with bigalloc";
		return -EFSCORRUPTED;
	}
	return 0;
}

static int check_block_fields(const struct extkit_super *sb,
			      const char **why)
{
	uint32_t bs, cpg;
	int rc;

	if (sb->magic != EXT2_SUPER_MAGIC) {
		*why = "bad magic number in superblock";
		return -EXTKIT_ENOTEXT;
	}
	if (sb->rev_level > EXT2_DYNAMIC_REV) {
		*why = "superblock revision level is newer than supported";
		return -EXTKIT_EUNSUPP;
	}
	if (sb->log_block_size > EXT2_MAX_BLOCK_LOG_SIZE -
				 EXT2_MIN_BLOCK_LOG_SIZE) {
		*why = "superblock block size field (s_log_block_size) is out of range 0..6";
		return -EFSCORRUPTED;
	}
	rc = check_cluster_fields(sb, why);
	if (rc)
		return rc;
	bs = EXT2_MIN_BLOCK_SIZE << sb->log_block_size;
	cpg = sb->blocks_per_group >> (sb->log_cluster_size -
				       sb->log_block_size);
	if (cpg < 8 || cpg > 8 * bs || cpg % 8) {
		*why = "blocks per group is out of range";
		return -EFSCORRUPTED;
	}
	if (sb->first_data_block != (bs == 1024 && !(sb->feature_ro_compat &
			EXT4_FEATURE_RO_COMPAT_BIGALLOC) ? 1u : 0u)) {
		*why = "first data block does not match the block size";
		return -EFSCORRUPTED;
	}
	if (sb->blocks_count <= sb->first_data_block) {
		*why = "block count is too small";
		return -EFSCORRUPTED;
	}
	return 0;
}

static int check_inode_fields(const struct extkit_super *sb, uint32_t bs,
			      const char **why)
{
	if (sb->inode_size < EXT2_GOOD_OLD_INODE_SIZE ||
	    sb->inode_size > bs || !is_power_of_two(sb->inode_size)) {
		*why = "inode size is not a power of two between 128 and the block size";
		return -EFSCORRUPTED;
	}
	if (sb->inodes_per_group == 0 || sb->inodes_per_group > 8 * bs) {
		*why = "inodes per group is out of range";
		return -EFSCORRUPTED;
	}
	if (sb->first_ino < EXT2_GOOD_OLD_FIRST_INO ||
	    sb->first_ino > sb->inodes_count) {
		*why = "first non-reserved inode is out of range";
		return -EFSCORRUPTED;
	}
	return 0;
}

static int compute_groups(const struct extkit_super *sb,
			  struct extkit_geom *g, const char **why)
{
	uint64_t groups = (sb->blocks_count - sb->first_data_block +
			   sb->blocks_per_group - 1) / sb->blocks_per_group;

	if (groups > UINT32_MAX ||
	    groups * sb->inodes_per_group != sb->inodes_count) {
		*why = "inode count does not equal groups times inodes per group";
		return -EFSCORRUPTED;
	}
	g->group_count = (uint32_t)groups;
	g->desc_size = EXT2_MIN_DESC_SIZE;
	if (sb->feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT) {
		g->desc_size = sb->desc_size;
		if (g->desc_size < EXT4_MIN_DESC_SIZE_64BIT ||
		    g->desc_size > EXT4_MAX_DESC_SIZE ||
		    !is_power_of_two(g->desc_size)) {
			*why = "group descriptor size is invalid";
			return -EFSCORRUPTED;
		}
	}
	g->descs_per_block = g->block_size / g->desc_size;
	g->gdt_blocks = (uint32_t)((groups + g->descs_per_block - 1) /
				   g->descs_per_block);
	return 0;
}

int extkit_super_validate(const struct extkit_super *sb, uint64_t image_size,
			  struct extkit_geom *g, const char **why)
{
	const char *dummy;
	uint32_t bs;
	int rc;

	if (!why)
		why = &dummy;
	*why = NULL;
	rc = check_block_fields(sb, why);
	if (rc)
		return rc;
	bs = EXT2_MIN_BLOCK_SIZE << sb->log_block_size;
	rc = check_inode_fields(sb, bs, why);
	if (rc)
		return rc;
	memset(g, 0, sizeof(*g));
	g->block_size = bs;
	rc = compute_groups(sb, g, why);
	if (rc)
		return rc;
	if (image_size && sb->blocks_count > image_size / bs) {
		*why = "the filesystem is larger than the image (truncated?)";
		return -EXTKIT_ETRUNC;
	}
	g->inode_size = sb->inode_size;
	g->inodes_per_block = bs / sb->inode_size;
	g->itable_blocks = (uint32_t)(((uint64_t)sb->inodes_per_group *
				       sb->inode_size + bs - 1) / bs);
	g->first_ino = sb->first_ino;
	g->addr_per_block = bs / 4;
	g->sb_sectors_per_block = bs / 512;
	g->big_rec_len = bs >= 65536;
	g->cluster_bits = sb->log_cluster_size - sb->log_block_size;
	g->cluster_ratio = 1u << g->cluster_bits;
	return 0;
}

static int is_power_of(uint32_t n, uint32_t base)
{
	while (n % base == 0)
		n /= base;
	return n == 1;
}

int extkit_super_group_has_backup(const struct extkit_super *sb, uint32_t g)
{
	if (g == 0)
		return 1;
	if (sb->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2)
		return g == sb->backup_bgs[0] || g == sb->backup_bgs[1];
	if (!(sb->feature_ro_compat & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return 1;
	if (g == 1)
		return 1;
	return is_power_of(g, 3) || is_power_of(g, 5) || is_power_of(g, 7);
}

/* The least power of base above g. */
static uint64_t power_above(uint32_t g, uint32_t base)
{
	uint64_t p = 1;

	while (p <= g)
		p *= base;
	return p;
}

uint32_t extkit_super_next_backup(const struct extkit_super *sb, uint32_t g,
				  uint32_t n)
{
	uint64_t next = n;

	if (sb->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
		for (int i = 0; i < 2; i++)
			if (sb->backup_bgs[i] > g && sb->backup_bgs[i] < next)
				next = sb->backup_bgs[i];
	} else if (!(sb->feature_ro_compat &
		     EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER)) {
		next = (uint64_t)g + 1;
	} else {
		uint64_t p3 = power_above(g, 3), p5 = power_above(g, 5);
		uint64_t p7 = power_above(g, 7);

		next = p3 < p5 ? p3 : p5;
		next = next < p7 ? next : p7;
	}
	return next < n ? (uint32_t)next : n;
}

int extkit_super_internal_inode(const struct extkit_super *sb, uint32_t ino)
{
	if (!ino)
		return 0;
	if (sb->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_QUOTA)
		for (int i = 0; i < 3; i++)
			if (sb->quota_inum[i] == ino)
				return 1;
	return (sb->feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	       sb->orphan_file_inum == ino;
}
