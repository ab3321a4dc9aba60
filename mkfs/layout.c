// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Geometry and layout of a new ext2 filesystem, computed the way mke2fs
 * (misc/mke2fs.c PRS() and lib/ext2fs/initialize.c) computes them, so the
 * same options give the same geometry:
 *   size class -> block size and inode ratio -> blocks per group ->
 *   inodes per group (filling whole inode table blocks, a multiple of 8)
 *   -> reserved GDT blocks -> drop a last group too small for its metadata.
 * Then the in-memory superblock and group descriptors (mkfs_fs_init).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endian.h"
#include "error.h"
#include "group.h"
#include "ondisk.h"
#include "resize_inode.h"
#include "super.h"
#include "cli/msg.h"
#include "cli/parse.h"
#include "csum.h"
#include "journal_new.h"
#include "orphan_new.h"

#include "mkfs.h"

#define KIB		1024ULL
#define MIB		(KIB * KIB)
#define TIB		(MIB * MIB)
#define MAX_BPG		65528u	/* (1 << 16) - 8: free counts are 16-bit */
#define MIN_IPG		16u	/* group 0 holds inodes 1..11 */
#define DESC_SIZE_64BIT	64u	/* s_desc_size with 64bit */
#define LPF_MIN_BYTES	(16 * KIB)

static uint64_t div_ceil(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Bytes to format: SIZE, else the size of the file or device. */
static int pick_size(const struct mkfs_opts *o, const struct mkfs_target *t,
		     struct mkfs_layout *l)
{
	uint64_t unit = o->block_size ? o->block_size : 1024;

	if (o->size_arg) {
		if (cli_parse_size(o->size_arg, unit, &l->size_bytes)) {
			cli_error("invalid size '%s': a number of %s with an "
				  "optional suffix: s (512-byte sectors), K, M, "
				  "G, T, P or E", o->size_arg,
				  o->block_size ? "blocks" : "KiB");
			return -EINVAL;
		}
		if (t->is_blockdev && l->size_bytes > t->size) {
			cli_error("%s: size %s is larger than the device (%llu bytes)",
				  t->path, o->size_arg,
				  (unsigned long long)t->size);
			return -EINVAL;
		}
		return 0;
	}
	if (!t->exists) {
		cli_error("%s does not exist; give a SIZE to create it",
			  t->path);
		return -ENOENT;
	}
	if (!t->size) {
		cli_error("%s is empty; give a SIZE", t->path);
		return -EINVAL;
	}
	l->size_bytes = t->size;
	l->size_from_target = 1;
	return 0;
}

/* The block size: -b, else the size class's, but not below a sector. */
static int pick_block_size(const struct mkfs_opts *o,
			   const struct mkfs_target *t, struct mkfs_layout *l)
{
	l->block_size = o->block_size ? o->block_size : o->def_block_size;
	if (t->sector_size <= l->block_size)
		return 0;
	if (o->block_size || t->sector_size > EXT2_MAX_BLOCK_SIZE) {
		cli_error("block size %u is smaller than the sector size %u of %s",
			  l->block_size, t->sector_size, t->path);
		return -EINVAL;
	}
	l->block_size = t->sector_size;
	return 0;
}

/*
 * Blocks per group: 8 x the block size (-g), at most 65528; with bigalloc
 * the same counts clusters (mke2fs), and the size is whole clusters.
 */
static uint32_t log2u(uint32_t v);

static int pick_groups(const struct mkfs_opts *o, struct mkfs_layout *l)
{
	uint64_t per = 8 * l->block_size;

	l->first_data_block = l->block_size == 1024 && !l->cluster_bits;
	if (o->blocks_per_group) {
		if (o->blocks_per_group < 256 || o->blocks_per_group > per) {
			cli_error("blocks per group %u out of range: 256 .. %llu "
				  "(8 x the block size)", o->blocks_per_group,
				  (unsigned long long)per);
			return -EINVAL;
		}
		per = o->blocks_per_group;
	} else if (l->cluster_bits && log2u(l->block_size) +
		   l->cluster_bits - EXT2_MIN_BLOCK_LOG_SIZE + 15 >= 32) {
		per = 8ULL * (l->block_size - 1);
	}
	if (per > MAX_BPG)
		per = MAX_BPG;
	per <<= l->cluster_bits;
	if (per > UINT32_MAX) {
		cli_error("%llu blocks per group do not fit in 32 bits; use a smaller cluster size (-C)",
			  (unsigned long long)per);
		return -EINVAL;
	}
	l->blocks_per_group = (uint32_t)per;
	l->blocks &= ~((1ULL << l->cluster_bits) - 1);
	return 0;
}

static int pick_sizes(struct mkfs_opts *o, const struct mkfs_target *t,
		      struct mkfs_layout *l)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	l->size_class = o->size_type;
	if (pick_block_size(o, t, l))
		return -EINVAL;
	if (l->block_size < EXT2_MIN_BLOCK_SIZE ||
	    l->block_size > EXT2_MAX_BLOCK_SIZE ||
	    (l->block_size & (l->block_size - 1))) {
		cli_error("invalid block size %u in mke2fs.conf",
			  l->block_size);
		return -EINVAL;
	}
	l->inode_size = o->inode_size ? o->inode_size : o->def_inode_size;
	if (l->inode_size > l->block_size) {
		cli_error("inode size %u is larger than the block size %u",
			  l->inode_size, l->block_size);
		return -EINVAL;
	}
	if ((o->incompat & EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
	    l->inode_size == EXT2_GOOD_OLD_INODE_SIZE) {
		cli_error("128-byte inodes are too small for inline data; give a larger inode size (-I)");
		return -EINVAL;
	}
	if (mkfs_bigalloc_geometry(o, l))
		return -EINVAL;
	l->inode_ratio = o->inode_ratio;
	if (!l->inode_ratio)
		l->inode_ratio = o->def_inode_ratio < l->block_size ?
				 l->block_size : o->def_inode_ratio;
	if (!o->inode_ratio && l->inode_ratio < l->block_size << l->cluster_bits)
		l->inode_ratio = l->block_size << l->cluster_bits;
	l->blocks = l->size_bytes / l->block_size;
	/* mke2fs rounds a device's (not a given) size down to whole pages. */
	if (l->size_from_target && page > l->block_size)
		l->blocks &= ~(page / l->block_size - 1);
	if (l->blocks > UINT32_MAX &&
	    !(o->incompat & EXT4_FEATURE_INCOMPAT_64BIT)) {
		cli_error("%llu blocks of %u bytes do not fit in 32 bits; use a larger block size (-b) or -O 64bit",
			  (unsigned long long)l->blocks, l->block_size);
		return -EFBIG;
	}
	/* mke2fs: no resize inode past 2^32 blocks */
	if (l->blocks > UINT32_MAX)
		o->compat &= ~EXT2_FEATURE_COMPAT_RESIZE_INODE;
	l->desc_size = !(o->incompat & EXT4_FEATURE_INCOMPAT_64BIT) ?
		       EXT2_MIN_DESC_SIZE :
		       o->desc_size ? o->desc_size : DESC_SIZE_64BIT;
	return pick_groups(o, l);
}

static int pick_inodes(const struct mkfs_opts *o, const struct mkfs_layout *l,
		       uint64_t *inodes)
{
	uint64_t bytes = l->blocks * l->block_size;

	*inodes = o->inode_count ? o->inode_count : bytes / l->inode_ratio;
	/* mke2fs: a ratio asking for more than 2^32 - 1 gets that many with
	 * 64bit; one giving none (-T largefile4 on a few MiB) gets
	 * libext2fs's default, one inode per 4 KiB (initialize.c) */
	if (!o->inode_count && *inodes > UINT32_MAX &&
	    (o->incompat & EXT4_FEATURE_INCOMPAT_64BIT))
		*inodes = UINT32_MAX;
	if (!*inodes) {
		uint64_t per = l->block_size >= 4096 ? 1 : 4096 / l->block_size;

		*inodes = l->blocks / per;
		if (*inodes > UINT32_MAX)
			*inodes = UINT32_MAX;
	}
	if (*inodes > UINT32_MAX) {
		cli_error("too many inodes (%llu); raise the bytes per inode (-i)",
			  (unsigned long long)*inodes);
		return -EINVAL;
	}
	if (*inodes * l->inode_size >= bytes) {
		cli_error("%llu inodes of %u bytes do not fit in %llu bytes; raise -i or lower -N",
			  (unsigned long long)*inodes, l->inode_size,
			  (unsigned long long)bytes);
		return -EINVAL;
	}
	return 0;
}

/* Inodes per group: whole inode table blocks, a multiple of 8, and a
 * total that fits in 32 bits (initialize.c, label ipg_retry). */
static void fit_ipg(struct mkfs_layout *l, uint32_t ipg)
{
	uint32_t bs = l->block_size, isz = l->inode_size;

	for (;;) {
		uint32_t itb = (uint32_t)div_ceil((uint64_t)ipg * isz, bs);

		ipg = (uint32_t)((uint64_t)itb * bs / isz) & ~7u;
		if (ipg < MIN_IPG)
			ipg = MIN_IPG;
		l->inodes_per_group = ipg;
		l->itable_blocks = (uint32_t)div_ceil((uint64_t)ipg * isz, bs);
		if ((uint64_t)ipg * l->groups <= UINT32_MAX)
			return;
		ipg--;
	}
}

/* Reserved GDT blocks: room to grow 1024 times, or to 2^32 blocks. */
static uint32_t reserved_gdt(const struct mkfs_opts *o,
			     const struct mkfs_layout *l)
{
	uint64_t max_blocks = UINT32_MAX;
	uint32_t dpb = l->block_size / l->desc_size;
	uint64_t rsv_groups, rsv;

	if (l->blocks < max_blocks / 1024)
		max_blocks = l->blocks * 1024;
	if (o->resize_blocks)
		max_blocks = o->resize_blocks;
	if (max_blocks <= l->blocks)
		return 0;
	rsv_groups = div_ceil(max_blocks - l->first_data_block,
			      l->blocks_per_group);
	rsv = div_ceil(rsv_groups, dpb);
	if (rsv <= l->desc_blocks)
		return 0;
	rsv -= l->desc_blocks;
	return rsv > l->block_size / 4 ? l->block_size / 4 : (uint32_t)rsv;
}

/*
 * sparse_super2's two backup groups for l->groups groups, as mke2fs sets
 * them: group 1 and the last group (num_backup_sb of them), clamped,
 * never twice the same, in ascending order (initialize.c).
 */
static void pick_backup_bgs(const struct mkfs_opts *o, struct mkfs_layout *l)
{
	uint32_t b0 = o->num_backup_sb >= 1 ? 1 : 0;
	uint32_t b1 = o->num_backup_sb >= 2 ? UINT32_MAX : 0;

	if (b0 >= l->groups)
		b0 = l->groups - 1;
	if (b1 >= l->groups)
		b1 = l->groups - 1;
	if (b1 == b0)
		b1 = 0;
	l->backup_bgs[0] = b0 < b1 || !b1 ? b0 : b1;
	l->backup_bgs[1] = b0 < b1 || !b1 ? b1 : b0;
	if (!b1) {
		l->backup_bgs[0] = b0;
		l->backup_bgs[1] = 0;
	}
}

/* Whether the last group holds a backup (for its overhead); with
 * sparse_super2 mke2fs decides it from num_backup_sb, before clamping. */
static int last_has_backup(const struct mkfs_opts *o,
			   const struct mkfs_layout *l)
{
	struct extkit_super sb;

	if (o->compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2)
		return l->groups == 2 ? o->num_backup_sb >= 1 :
		       o->num_backup_sb >= 2;
	memset(&sb, 0, sizeof(sb));
	sb.feature_ro_compat = o->ro_compat;
	return extkit_super_group_has_backup(&sb, l->groups - 1);
}

static int too_small(const struct mkfs_layout *l)
{
	cli_error("%llu bytes are too small for a filesystem with %u-byte blocks",
		  (unsigned long long)l->size_bytes, l->block_size);
	return -ENOSPC;
}

/* Groups, inodes per group and reserved GDT blocks for l->blocks.
 * Returns 1 when l->blocks was cut (retry), 0 when done, or an error. */
static int fit_groups(struct mkfs_opts *o, struct mkfs_layout *l,
		      uint64_t inodes)
{
	uint32_t bs = l->block_size;
	uint64_t groups, ipg, rem, last;

	groups = div_ceil(l->blocks - l->first_data_block,
			  l->blocks_per_group);
	l->groups = (uint32_t)groups;
	l->desc_blocks = (uint32_t)div_ceil(groups, bs / l->desc_size);
	if (inodes < EXT2_GOOD_OLD_FIRST_INO + 1)
		inodes = EXT2_GOOD_OLD_FIRST_INO + 1;
	ipg = div_ceil(inodes, groups);
	if (ipg > 8ULL * bs) {
		if (l->blocks_per_group < 256 || l->cluster_bits) {
			cli_error("too many inodes for the filesystem size");
			return -EINVAL;
		}
		l->blocks_per_group -= 8;
		return 2;
	}
	if (ipg > 65536 - bs / l->inode_size)
		ipg = 65536 - bs / l->inode_size;
	fit_ipg(l, (uint32_t)ipg);
	l->rsv_gdt = (o->compat & EXT2_FEATURE_COMPAT_RESIZE_INODE) ?
		     reserved_gdt(o, l) : 0;
	/* mke2fs turns meta_bg on when the descriptors would take more
	 * than 3/4 of a group (initialize.c) */
	if (l->rsv_gdt + l->desc_blocks > l->blocks_per_group * 3 / 4) {
		o->incompat |= EXT2_FEATURE_INCOMPAT_META_BG;
		o->compat &= ~EXT2_FEATURE_COMPAT_RESIZE_INODE;
		l->rsv_gdt = 0;
	}
	if (3 + l->itable_blocks + l->rsv_gdt +
	    ((o->incompat & EXT2_FEATURE_INCOMPAT_META_BG) ? 1 :
	     l->desc_blocks) > l->blocks_per_group) {
		cli_error("too many inodes per group; raise -i or lower -N");
		return -EINVAL;
	}
	last = 2 + l->itable_blocks;
	pick_backup_bgs(o, l);
	if (last_has_backup(o, l))
		last += 1 + l->desc_blocks + l->rsv_gdt;
	rem = (l->blocks - l->first_data_block) % l->blocks_per_group;
	if (l->groups == 1 && rem && rem < last)
		return too_small(l);
	if (rem && rem < last + 50) {
		l->blocks -= rem;
		return 1;
	}
	return 0;
}

static int fit_geometry(struct mkfs_opts *o, struct mkfs_layout *l,
			uint64_t inodes)
{
	uint64_t orig_blocks = l->blocks;
	uint64_t r0 = (uint64_t)(o->reserved_pct * (double)l->blocks / 100.0);
	int rc;

	do {
		if (l->blocks <= l->first_data_block)
			return too_small(l);
		rc = fit_groups(o, l, inodes);
		if (rc == 2)
			l->blocks = orig_blocks;
	} while (rc > 0);
	if (rc)
		return rc;
	l->r_blocks = r0;
	if (l->blocks != orig_blocks) {
		double ratio = 100.0 * (double)r0 / (double)orig_blocks;

		l->r_blocks = (uint64_t)(ratio * (double)l->blocks / 100.0);
	}
	return 0;
}

/* lost+found as mke2fs makes it: 16 KiB and at least 2 blocks, within
 * the 12 direct blocks. */
static uint32_t lpf_blocks(uint32_t bs)
{
	uint32_t n = (uint32_t)(LPF_MIN_BYTES / bs);

	if (n < 2)
		n = 2;
	return n > EXT2_NDIR_BLOCKS ? EXT2_NDIR_BLOCKS : n;
}

/*
 * The journal's size: -J size= (MiB), else mke2fs's default for the
 * size; none when the filesystem is too small for one (as mke2fs, which
 * then goes on without). With fast_commit, an area after the log of -J
 * fast_commit_size= (KiB), else 1/64 of the default journal, whatever
 * -J size= says (e2fsprogs' ext2fs_get_journal_params).
 */
static int pick_journal(struct mkfs_opts *o, struct mkfs_layout *l)
{
	uint64_t j, def, fc = 0;

	if (!(o->compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))
		return 0;
	def = extkit_journal_default_blocks(l->blocks, l->block_size);
	if (!def) {
		o->compat &= ~EXT3_FEATURE_COMPAT_HAS_JOURNAL;
		if (!o->quiet)
			fprintf(stderr, "%s: the filesystem is too small for a journal\n",
				cli_prog);
		return 0;
	}
	if (o->compat & EXT4_FEATURE_COMPAT_FAST_COMMIT)
		fc = o->fc_kib ? (uint64_t)o->fc_kib * 1024 / l->block_size :
		     def / 64;
	j = o->journal_mb ? (uint64_t)o->journal_mb * MIB / l->block_size :
	    def;
	if ((o->journal_mb || (fc && o->fc_kib)) &&
	    (j + fc < 1024 || j + fc > 10240000 || j + fc > l->blocks / 2)) {
		cli_error("journal size %llu blocks (%llu of them fast-commit): 1024 to 10240000 and at most half the filesystem",
			  (unsigned long long)(j + fc),
			  (unsigned long long)fc);
		return -EINVAL;
	}
	l->journal_blocks = (uint32_t)j;
	l->fc_blocks = (uint32_t)fc;
	return 0;
}

/*
 * -E orphan_file_size= as mke2fs reads it (parse_num_blocks2): a number
 * of blocks, or of KiB, MiB, GiB, TiB (K, M, G, T) or 512-byte sectors
 * (s) cut down to whole blocks; 0 blocks is refused.
 */
static int orphan_size_blocks(const char *arg, uint32_t bs, uint64_t *out)
{
	unsigned int shift = 0;
	uint64_t n, kib_per_block = bs / 1024;
	char *end;

	errno = 0;
	n = strtoull(arg, &end, 0);
	if (errno || end == arg || (end[0] && end[1]))
		n = 0;
	switch (end[0]) {
	case 'T': case 't': shift += 10;	/* fallthrough */
	case 'G': case 'g': shift += 10;	/* fallthrough */
	case 'M': case 'm': shift += 10;	/* fallthrough */
	case 'K': case 'k':
		n = shift < 64 && n <= (UINT64_MAX >> shift) ?
		    (n << shift) / kib_per_block : 0;
		break;
	case 's':
		n = n / (2 * kib_per_block);
		break;
	case '\0':
		break;
	default:
		n = 0;
	}
	if (!n) {
		cli_error("invalid size of orphan file '%s'", arg);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

/*
 * The inodes mkfs takes past lost+found (11), in mke2fs's order: the
 * project quota file, then the orphan file. Its size: -E orphan_file_size=,
 * else mke2fs's default, at most 512 blocks. With no journal (too small
 * a filesystem), mke2fs drops orphan_file too.
 */
static int pick_special_inodes(struct mkfs_opts *o, struct mkfs_layout *l)
{
	uint64_t n;

	l->last_ino = EXT2_GOOD_OLD_FIRST_INO;
	if ((o->ro_compat & EXT4_FEATURE_RO_COMPAT_QUOTA) &&
	    (o->quota_types & 4))
		l->prj_ino = ++l->last_ino;
	if (!(o->compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))
		o->compat &= ~EXT4_FEATURE_COMPAT_ORPHAN_FILE;
	if (!(o->compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		return 0;
	n = extkit_orphan_default_blocks(l->blocks);
	if (o->orphan_size && orphan_size_blocks(o->orphan_size,
						 l->block_size, &n))
		return -EINVAL;
	if (n > EXTKIT_ORPHAN_MAX_BLOCKS)
		n = EXTKIT_ORPHAN_MAX_BLOCKS;
	l->orphan_ino = ++l->last_ino;
	l->orphan_blocks = (uint32_t)n;
	return 0;
}

int mkfs_layout_compute(struct mkfs_opts *o, const struct mkfs_target *t,
			struct mkfs_layout *l)
{
	uint64_t inodes;
	int rc;

	memset(l, 0, sizeof(*l));
	rc = pick_size(o, t, l);
	if (!rc)
		rc = mkfs_profile_apply(o, l->size_bytes);
	if (!rc)
		rc = pick_sizes(o, t, l);
	if (!rc)
		rc = pick_inodes(o, l, &inodes);
	if (!rc)
		rc = fit_geometry(o, l, inodes);
	if (!rc)
		rc = pick_journal(o, l);
	if (!rc)
		rc = pick_special_inodes(o, l);
	/* with inline_data, mke2fs's lost+found starts inline and its
	 * first expansion only moves it to a block: one block less */
	if (!rc)
		l->lpf_blocks = lpf_blocks(l->block_size) -
			!!(o->incompat & EXT4_FEATURE_INCOMPAT_INLINE_DATA);
	l->stride = o->stride;
	/* mke2fs packs the tables only with flex_bg, and starts the
	 * journal from the first data block in any case */
	l->journal_at_start = o->packed_meta_blocks > 0;
	l->packed = l->journal_at_start &&
		    (o->incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG);
	if (!rc)
		rc = mkfs_badblocks_read(o, l);
	return rc;
}

static uint32_t log2u(uint32_t v)
{
	uint32_t n = 0;

	while ((1u << n) < v)
		n++;
	return n;
}

static void fill_ids(const struct mkfs_opts *o, struct extkit_super *sb)
{
	memcpy(sb->uuid, o->uuid, sizeof(sb->uuid));
	if (o->incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED)
		sb->checksum_seed = extkit_crc32c(~0u, sb->uuid,
						  sizeof(sb->uuid));
	memcpy(sb->volume_name, o->label, sizeof(o->label));
	extkit_super_set_hash_seed(sb, o->hash_seed);
	sb->def_hash_version = o->hash_alg;	/* half_md4 by default */
	/* Name bytes hash as the C char of this machine, as mke2fs does. */
#ifdef __CHAR_UNSIGNED__
	sb->flags |= EXT2_FLAGS_UNSIGNED_HASH;
#else
	sb->flags |= EXT2_FLAGS_SIGNED_HASH;
#endif
}

static void fill_super(const struct mkfs_opts *o, const struct mkfs_layout *l,
		       struct extkit_super *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->inodes_count = l->inodes_per_group * l->groups;
	sb->blocks_count = l->blocks;
	sb->r_blocks_count = l->r_blocks;
	sb->first_data_block = l->first_data_block;
	sb->log_block_size = log2u(l->block_size) - EXT2_MIN_BLOCK_LOG_SIZE;
	sb->log_cluster_size = sb->log_block_size + l->cluster_bits;
	sb->blocks_per_group = l->blocks_per_group;
	sb->clusters_per_group = l->blocks_per_group >> l->cluster_bits;
	sb->inodes_per_group = l->inodes_per_group;
	sb->wtime = sb->lastcheck = sb->mkfs_time = o->now;
	sb->max_mnt_count = 0xffff;	/* -1: no mount-count checks */
	sb->magic = EXT2_SUPER_MAGIC;
	sb->state = EXT2_VALID_FS;
	sb->errors = 1;			/* continue */
	sb->creator_os = o->creator_os ?
			 (uint32_t)mkfs_creator_os(o->creator_os) :
			 EXT2_OS_LINUX;
	memcpy(sb->last_mounted, o->last_mounted, sizeof(o->last_mounted));
	if (o->test_fs)
		sb->flags |= EXT2_FLAGS_TEST_FILESYS;
	sb->rev_level = o->revision ? EXT2_DYNAMIC_REV : EXT2_GOOD_OLD_REV;
	sb->first_ino = EXT2_GOOD_OLD_FIRST_INO;
	sb->inode_size = (uint16_t)l->inode_size;
	sb->feature_compat = o->compat;
	sb->feature_incompat = o->incompat;
	sb->feature_ro_compat = o->ro_compat;
	sb->reserved_gdt_blocks = (uint16_t)l->rsv_gdt;
	if (o->revision)
		sb->default_mount_opts = o->mntopts;
	if (o->periodic_fsck) {
		/* mke2fs: 180 days, and 20 mounts plus a jitter from the
		 * UUID so that not every filesystem is checked at once */
		uint32_t sum = 0;

		for (size_t i = 0; i < sizeof(o->uuid); i++)
			sum += o->uuid[i];
		sb->checkinterval = 86400u * 180u;
		sb->max_mnt_count = (uint16_t)(20 + sum % 20);
	}
	if (l->inode_size > EXT2_GOOD_OLD_INODE_SIZE)
		sb->min_extra_isize = sb->want_extra_isize = 32;
	if (o->errors_behavior)
		sb->errors = o->errors_behavior;
	if (o->compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
		sb->backup_bgs[0] = l->backup_bgs[0];
		sb->backup_bgs[1] = l->backup_bgs[1];
	}
	if (o->incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		sb->desc_size = (uint16_t)l->desc_size;
	if (o->incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG)
		sb->log_groups_per_flex = (uint8_t)log2u(o->flex_bg_size);
	if (o->ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		sb->checksum_type = 1;	/* crc32c */
	fill_ids(o, sb);
}

/*
 * Inode counts and flags (free block counts come from place.c). With a
 * descriptor checksum every group but 0 is INODE_UNINIT with its whole
 * table unused, and with lazy_itable_init=0 every table is zeroed
 * (ITABLE_ZEROED). BLOCK_UNINIT is decided after the journal (write.c).
 */
static void fill_groups(const struct mkfs_opts *o,
			const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint64_t free_blocks = 0, free_inodes = 0;
	int csum = extkit_has_group_csum(&fs->sb);

	for (uint32_t g = 0; g < l->groups; g++) {
		struct extkit_group *gd = &fs->groups[g];

		gd->free_inodes = l->inodes_per_group;
		if (g == 0) {
			gd->free_inodes -= l->last_ino;
			gd->used_dirs = 2;
		}
		if (csum) {
			gd->itable_unused = gd->free_inodes;
			if (g)
				gd->flags |= EXT4_BG_INODE_UNINIT;
			if (!o->lazy_itable_init || o->prezeroed)
				gd->flags |= EXT4_BG_INODE_ZEROED;
		}
		free_blocks += gd->free_blocks;
		free_inodes += gd->free_inodes;
	}
	fs->sb.free_blocks_count = free_blocks << l->cluster_bits;
	fs->sb.free_inodes_count = (uint32_t)free_inodes;
}

/*
 * s_overhead_clusters as mke2fs 1.47 sets it: the blocks before the first
 * group plus every group's superblock, descriptors, bitmaps and inode
 * table. struct extkit_super has no field for it: it goes into the raw
 * superblock (extkit_super_set_overhead), whose bytes the encoder keeps.
 */
static void set_overhead(const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint64_t n = l->first_data_block;

	if (l->cluster_bits) {
		extkit_super_set_overhead(&fs->raw_sb,
					  (uint32_t)l->overhead_clusters);
		return;
	}
	for (uint32_t g = 0; g < l->groups; g++)
		n += extkit_group_sb_overhead(&fs->sb, &fs->g, g) + 2 +
		     l->itable_blocks;
	/* mke2fs counts with the bad blocks unmarked: one in a superblock
	 * backup's area is not counted */
	for (uint32_t i = 0; i < l->nbad; i++) {
		uint32_t g = extkit_group_of_block(&fs->sb, l->bad[i]);

		if (l->bad[i] < extkit_group_first_block(&fs->sb, g) +
				extkit_group_sb_overhead(&fs->sb, &fs->g, g))
			n--;
	}
	extkit_super_set_overhead(&fs->raw_sb, (uint32_t)n);
}

int mkfs_fs_init(const struct mkfs_opts *o, struct mkfs_layout *l,
		 struct extkit_fs *fs)
{
	const char *why = NULL;
	int rc;

	memset(fs, 0, sizeof(*fs));
	/* bigalloc: the journal and orphan file take whole clusters */
	fs->alloc_whole_clusters = 1;
	fill_super(o, l, &fs->sb);
	/* The resize inode of 4 KiB and larger blocks is over 2 GiB. */
	if ((o->compat & EXT2_FEATURE_COMPAT_RESIZE_INODE) &&
	    extkit_resize_inode_size(l->block_size) >= (1ULL << 31))
		fs->sb.feature_ro_compat |= EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	rc = extkit_super_validate(&fs->sb, 0, &fs->g, &why);
	if (rc) {
		cli_error("internal error: the new superblock is invalid: %s",
			  why ? why : extkit_strerror(rc));
		return rc;
	}
	/* No gdt_raw: extkit_fs_write_super encodes the descriptors a chunk
	 * at a time from the groups. */
	fs->groups = calloc(l->groups, sizeof(*fs->groups));
	rc = fs->groups ? mkfs_place(l, fs) : -ENOMEM;
	if (rc) {
		mkfs_fs_release(fs, l);
		cli_error(rc == -ENOMEM ? "out of memory" :
			  "no room for the group tables; raise -i or lower -N");
		return rc;
	}
	fill_groups(o, l, fs);
	fs->sb.raid_stride = (uint16_t)o->stride;
	fs->sb.raid_stripe_width = o->stripe_width;
	if (o->incompat & EXT4_FEATURE_INCOMPAT_CASEFOLD) {
		fs->sb.encoding = o->s_encoding;
		fs->sb.encoding_flags = o->s_encoding_flags;
	}
	/* the kernel's defaults for encryption: AES-256-XTS for contents,
	 * AES-256-CTS for names (as mke2fs sets them) */
	if (o->incompat & EXT4_FEATURE_INCOMPAT_ENCRYPT) {
		fs->sb.encrypt_algos[0] = 1;
		fs->sb.encrypt_algos[1] = 4;
	}
	extkit_super_encode(&fs->sb, &fs->raw_sb);
	/* mke2fs counts lifetime writes on filesystems with one of ext4's
	 * features (1 to start; 0 stays: nobody counts) */
	if ((o->incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) ||
	    (o->ro_compat & (EXT4_FEATURE_RO_COMPAT_HUGE_FILE |
			     EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
			     EXT4_FEATURE_RO_COMPAT_DIR_NLINK |
			     EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
			     EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE)))
		extkit_fs_set_kbytes_written(fs, 1);
	set_overhead(l, fs);
	mkfs_badblocks_warn(l, fs);
	return 0;
}

void mkfs_fs_release(struct extkit_fs *fs, struct mkfs_layout *l)
{
	mkfs_place_free(l->place);
	l->place = NULL;
	free(l->bad);
	l->bad = NULL;
	l->nbad = 0;
	free(fs->groups);
	fs->groups = NULL;
}
