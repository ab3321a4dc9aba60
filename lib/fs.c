// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filesystem handle: reads and validates the superblock, reads the group
 * descriptor table (classic or meta_bg placement), and writes both back to
 * the primary location and every backup.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "feature.h"
#include "fs.h"
#include "mmp.h"

static int read_super(struct extkit_fs *fs, uint64_t sb_block,
		      uint32_t block_size)
{
	uint64_t off = EXT2_SUPERBLOCK_OFFSET;

	if (sb_block) {
		off = sb_block * block_size;
		if (block_size == 1024 && sb_block == 0)
			off = EXT2_SUPERBLOCK_OFFSET;
	}
	return extkit_io_read_bytes(fs->io, off, &fs->raw_sb,
				    sizeof(fs->raw_sb));
}

static int check_features(struct extkit_fs *fs, const char **why)
{
	uint32_t unsupp = fs->sb.feature_incompat & ~EXTKIT_INCOMPAT_READ_SUPP;

	if (!unsupp || (fs->flags & EXTKIT_FS_FORCE))
		return 0;
	*why = "filesystem has an incompatible feature extkit does not support";
	for (uint32_t bit = 1; bit; bit <<= 1) {
		if ((unsupp & bit) && extkit_feature_name(EXTKIT_INCOMPAT, bit)) {
			/* Name it when we can: the static strings below. */
			if (bit == EXT4_FEATURE_INCOMPAT_INLINE_DATA)
				*why = "the inline_data feature is not supported";
			else if (bit == EXT3_FEATURE_INCOMPAT_JOURNAL_DEV)
				*why = "this is an external journal device, not a filesystem";
			else if (bit == EXT2_FEATURE_INCOMPAT_COMPRESSION)
				*why = "the compression feature is not supported";
			else if (bit == EXT4_FEATURE_INCOMPAT_DIRDATA)
				*why = "the dirdata feature is not supported";
			break;
		}
	}
	return -EXTKIT_EUNSUPP;
}

uint64_t extkit_fs_desc_block(const struct extkit_fs *fs, uint32_t i)
{
	const struct extkit_super *sb = &fs->sb;
	uint64_t base = fs->sb_block ? fs->sb_block : sb->first_data_block +
			extkit_group_boot_block(sb, &fs->g, 0);

	if ((sb->feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG) &&
	    i >= sb->first_meta_bg) {
		uint32_t g = i * fs->g.descs_per_block;

		/* Opened from a backup superblock: the descriptors' backup
		 * copy, the one in the meta group's second group (as
		 * libext2fs reads them then). */
		if (fs->sb_block && g + 1 < fs->g.group_count)
			g++;
		return extkit_group_first_block(sb, g) +
		       (uint64_t)extkit_super_group_has_backup(sb, g) +
		       extkit_group_boot_block(sb, &fs->g, g);
	}
	return base + 1 + i;
}

static int check_group(struct extkit_fs *fs, uint32_t g, const char **why)
{
	const struct extkit_group *gd = &fs->groups[g];
	uint64_t itable_end = gd->inode_table + fs->g.itable_blocks;

	if (!extkit_fs_valid_block(fs, gd->block_bitmap) ||
	    !extkit_fs_valid_block(fs, gd->inode_bitmap) ||
	    !extkit_fs_valid_block(fs, gd->inode_table) ||
	    itable_end > fs->sb.blocks_count || itable_end < gd->inode_table) {
		*why = "a group descriptor points outside the filesystem";
		return -EFSCORRUPTED;
	}
	return 0;
}

static int read_groups(struct extkit_fs *fs, const char **why)
{
	uint32_t bs = fs->g.block_size;
	uint32_t n = fs->g.gdt_blocks;
	int rc;

	/* Before allocating: a partial image must still hold the table (a
	 * lying block count cannot make it huge). */
	if ((uint64_t)n * bs > fs->io->size) {
		*why = "the image ends before the group descriptors (truncated?)";
		return -EXTKIT_ETRUNC;
	}
	fs->gdt_raw = malloc((size_t)n * bs);
	fs->groups = calloc(fs->g.group_count, sizeof(*fs->groups));
	if (!fs->gdt_raw || !fs->groups)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t blk = extkit_fs_desc_block(fs, i);

		rc = extkit_io_read_blocks(fs->io, blk, 1,
					   fs->gdt_raw + (size_t)i * bs);
		if (rc)
			return rc;
	}
	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		extkit_group_decode(fs->gdt_raw + (size_t)g * fs->g.desc_size,
				    fs->g.desc_size, &fs->groups[g]);
		if (fs->flags & EXTKIT_FS_NO_GDT_CHECK)
			continue;
		rc = check_group(fs, g, why);
		if (rc)
			return rc;
	}
	return 0;
}

int extkit_fs_open_io(struct extkit_io *io, int flags, uint64_t sb_block,
		      uint32_t block_size, struct extkit_fs **out,
		      const char **why)
{
	struct extkit_fs *fs = calloc(1, sizeof(*fs));
	const char *dummy;
	int partial, rc;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!fs)
		return -ENOMEM;
	fs->io = io;
	fs->flags = flags;
	fs->sb_block = sb_block;
	rc = read_super(fs, sb_block, block_size);
	if (rc == -EXTKIT_ETRUNC) {
		*why = "the image is too small to hold a superblock";
		rc = -EXTKIT_ENOTEXT;
	}
	if (rc)
		goto fail;
	extkit_super_decode(&fs->raw_sb, &fs->sb);
	partial = (flags & EXTKIT_FS_PARTIAL) && !(flags & EXTKIT_FS_WRITE);
	rc = extkit_super_validate(&fs->sb, partial ? 0 : io->size, &fs->g,
				   why);
	if (!rc)
		fs->truncated = fs->sb.blocks_count >
				io->size / fs->g.block_size;
	if (!rc)
		rc = check_features(fs, why);
	if (rc)
		goto fail;
	io->block_size = fs->g.block_size;
	rc = read_groups(fs, why);
	if (rc)
		goto fail;
	/* A writer takes the MMP block first (and refuses if it is taken). */
	if ((flags & (EXTKIT_FS_WRITE | EXTKIT_FS_NO_MMP)) == EXTKIT_FS_WRITE &&
	    extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_MMP)) {
		rc = extkit_mmp_start(fs, why);
		if (rc)
			goto fail;
		fs->mmp_started = 1;
	}
	*out = fs;
	return 0;
fail:
	fs->io = NULL;
	extkit_fs_close(fs);
	return rc;
}

int extkit_fs_open(const char *path, int flags, struct extkit_fs **out,
		   const char **why)
{
	struct extkit_io *io;
	int ioflags = 0;
	int rc;

	if (flags & EXTKIT_FS_WRITE)
		ioflags |= EXTKIT_IO_WRITE;
	if (flags & EXTKIT_FS_EXCL)
		ioflags |= EXTKIT_IO_EXCL;
	rc = extkit_io_open_unix(path, ioflags, &io);
	if (rc)
		return rc;
	rc = extkit_fs_open_io(io, flags, 0, 0, out, why);
	if (rc) {
		extkit_io_close(io);
		return rc;
	}
	(*out)->owns_io = 1;
	(*out)->device_name = strdup(path);
	return 0;
}

void extkit_fs_close(struct extkit_fs *fs)
{
	if (!fs)
		return;
	if (fs->mmp_started)
		extkit_mmp_stop(fs);
	if (fs->owns_io)
		extkit_io_close(fs->io);
	free(fs->groups);
	free(fs->gdt_raw);
	free(fs->device_name);
	free(fs);
}

int extkit_fs_read_block(struct extkit_fs *fs, uint64_t blk, void *buf)
{
	if (blk >= fs->sb.blocks_count)
		return -EFSCORRUPTED;
	return extkit_io_read_blocks(fs->io, blk, 1, buf);
}

int extkit_fs_write_block(struct extkit_fs *fs, uint64_t blk,
			  const void *buf)
{
	if (blk >= fs->sb.blocks_count)
		return -EFSCORRUPTED;
	return extkit_io_write_blocks(fs->io, blk, 1, buf);
}

/*
 * Descriptor g encoded over raw (the bytes as read, or zeroes), its
 * checksum computed over that encoding and patched in.
 */
static void encode_desc(struct extkit_fs *fs, uint32_t g, uint8_t *raw)
{
	struct extkit_group *gd = &fs->groups[g];

	extkit_group_encode(gd, fs->g.desc_size, raw);
	if (extkit_has_group_csum(&fs->sb)) {
		gd->checksum = extkit_group_csum(fs, g, raw);
		put_le16(raw + offsetof(struct ext4_group_desc, bg_checksum),
			 gd->checksum);
	}
}

/*
 * Descriptor blocks [first, first + n), encoded: in gdt_raw when the
 * table was read (it stays what is on disk), else (a new filesystem,
 * gdt_raw NULL) in bounce, over zeroes.
 */
static const uint8_t *desc_blocks(struct extkit_fs *fs, uint32_t first,
				  uint32_t n, uint8_t *bounce)
{
	uint32_t dpb = fs->g.descs_per_block, g = first * dpb;
	uint32_t end = (first + n) * dpb;
	size_t off = (size_t)first * fs->g.block_size;
	uint8_t *out = fs->gdt_raw ? fs->gdt_raw + off : bounce;

	if (!fs->gdt_raw)
		memset(bounce, 0, (size_t)n * fs->g.block_size);
	if (end > fs->g.group_count)
		end = fs->g.group_count;
	for (; g < end; g++)
		encode_desc(fs, g, out + (size_t)(g - first * dpb) *
				     fs->g.desc_size);
	return out;
}

static void encode_super(struct extkit_fs *fs, uint32_t group,
			 struct ext2_super_block *out)
{
	*out = fs->raw_sb;
	if (group) {
		/*
		 * Backups are written as e2fsprogs' ext2fs_flush writes them:
		 * not marked valid, no recovery pending, so a fallback to a
		 * backup always leads to a full check.
		 */
		out->s_state = cpu_to_le16(fs->sb.state & ~EXT2_VALID_FS);
		out->s_feature_incompat = cpu_to_le32(fs->sb.feature_incompat &
					~EXT3_FEATURE_INCOMPAT_RECOVER);
	}
	if (fs->sb.rev_level != EXT2_GOOD_OLD_REV)
		out->s_block_group_nr = cpu_to_le16((uint16_t)group);
	if (fs->sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		out->s_checksum = cpu_to_le32(extkit_super_csum(out));
	/* raw_sb stands for what the primary holds: its checksum too. */
	if (!group)
		fs->raw_sb.s_checksum = out->s_checksum;
}

int extkit_fs_write_primary_super(struct extkit_fs *fs)
{
	struct ext2_super_block sb;

	extkit_super_encode(&fs->sb, &fs->raw_sb);
	encode_super(fs, 0, &sb);
	return extkit_io_write_bytes(fs->io, EXT2_SUPERBLOCK_OFFSET, &sb,
				     sizeof(sb));
}

/*
 * One write of extkit_fs_write_super; a dry run only checks that it lies
 * inside the target, so that a device shorter than the filesystem says
 * so before anything is written.
 */
static int put(struct extkit_fs *fs, int dry, uint64_t off, const void *buf,
	       uint64_t len)
{
	if (dry)
		return off > fs->io->size || len > fs->io->size - off ?
		       -EXTKIT_ETRUNC : 0;
	return extkit_io_write_bytes(fs->io, off, buf, (size_t)len);
}

/* Descriptor blocks (classic placement) that follow each superblock. */
static uint32_t classic_desc_blocks(const struct extkit_fs *fs)
{
	uint32_t n = fs->g.gdt_blocks;

	if ((fs->sb.feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG) &&
	    fs->sb.first_meta_bg < n)
		n = fs->sb.first_meta_bg;
	return n;
}

/* Where group g's copy of the classic descriptor blocks starts. */
static uint64_t classic_desc_start(const struct extkit_fs *fs, uint32_t g)
{
	if (!g)
		return fs->sb.first_data_block + 1 +
		       extkit_group_boot_block(&fs->sb, &fs->g, 0);
	return extkit_group_first_block(&fs->sb, g) + 1;
}

/*
 * Classic descriptor blocks [first, first + n) (buf) at the primary place
 * and in every backup group.
 */
static int put_classic(struct extkit_fs *fs, int dry, uint32_t first,
		       uint32_t n, const uint8_t *buf)
{
	uint64_t bs = fs->g.block_size;
	uint32_t count = fs->g.group_count;
	int rc = 0;

	for (uint32_t g = 0; !rc && g < count;
	     g = extkit_super_next_backup(&fs->sb, g, count)) {
		/* meta_bg: only the meta groups before s_first_meta_bg
		 * hold classic copies (the block after the superblock of
		 * a later one is the group's to use) */
		if ((fs->sb.feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG) &&
		    g / fs->g.descs_per_block >= fs->sb.first_meta_bg)
			break;
		rc = put(fs, dry, (classic_desc_start(fs, g) + first) * bs,
			 buf, (uint64_t)n * bs);
	}
	return rc;
}

/* The backup superblocks. */
static int put_backup_supers(struct extkit_fs *fs, int dry)
{
	uint32_t count = fs->g.group_count;
	struct ext2_super_block sb;
	int rc = 0;

	for (uint32_t g = extkit_super_next_backup(&fs->sb, 0, count);
	     !rc && g < count; g = extkit_super_next_backup(&fs->sb, g, count)) {
		encode_super(fs, g, &sb);
		rc = put(fs, dry, extkit_group_first_block(&fs->sb, g) *
				  fs->g.block_size, &sb, sizeof(sb));
	}
	return rc;
}

/* meta_bg: each descriptor block lives in groups 0, 1 and last of its
 * meta group. */
static int write_meta_bg_descs(struct extkit_fs *fs, int dry, uint8_t *bounce)
{
	uint32_t dpb = fs->g.descs_per_block;
	uint64_t bs = fs->g.block_size;
	int rc;

	for (uint32_t i = fs->sb.first_meta_bg; i < fs->g.gdt_blocks; i++) {
		uint32_t first = i * dpb;
		uint32_t groups[3] = { first, first + 1, first + dpb - 1 };
		const uint8_t *buf = dry ? NULL : desc_blocks(fs, i, 1, bounce);

		for (int k = 0; k < 3; k++) {
			uint32_t g = groups[k];
			uint64_t blk;

			if (g >= fs->g.group_count)
				continue;
			blk = extkit_group_first_block(&fs->sb, g) +
			      extkit_group_boot_block(&fs->sb, &fs->g, g) +
			      (uint64_t)extkit_super_group_has_backup(&fs->sb,
								      g);
			rc = put(fs, dry, blk * bs, buf, bs);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Bytes of descriptor blocks encoded at a time for a new filesystem:
 * under malloc's mmap threshold (128 KiB), so the buffer comes from the
 * heap, not fresh pages to fault in each run (mkfs -t ext4 of 1 TiB on
 * tmpfs: 22-23 ms of CPU with 64 KiB, 26-29 ms with 256 KiB, 33 ms with
 * 16 KiB and its 4 times as many writes; perf stat -r 7). */
#define DESC_CHUNK_BYTES	(64u << 10)

/*
 * Every copy but the primary superblock: descriptors (encoded a chunk at
 * a time and each chunk written to every copy, so a new filesystem's
 * table never sits whole in memory), then the backup superblocks.
 */
static int write_copies(struct extkit_fs *fs, int dry)
{
	uint32_t ndesc = classic_desc_blocks(fs), bs = fs->g.block_size;
	uint32_t chunk = fs->gdt_raw ? ndesc : DESC_CHUNK_BYTES / bs;
	uint8_t *bounce = NULL;
	int rc = 0;

	if (!chunk)
		chunk = 1;
	if (!dry && !fs->gdt_raw) {
		bounce = malloc((size_t)chunk * bs);
		if (!bounce)
			return -ENOMEM;
	}
	for (uint32_t i = 0; !rc && i < ndesc; i += chunk) {
		uint32_t n = ndesc - i < chunk ? ndesc - i : chunk;

		rc = put_classic(fs, dry, i, n, dry ? NULL :
				 desc_blocks(fs, i, n, bounce));
	}
	if (!rc)
		rc = put_backup_supers(fs, dry);
	if (!rc && (fs->sb.feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG))
		rc = write_meta_bg_descs(fs, dry, bounce);
	free(bounce);
	return rc;
}

void extkit_fs_set_kbytes_written(struct extkit_fs *fs, uint64_t kb)
{
	fs->raw_sb.s_kbytes_written = cpu_to_le64(kb);
}

void extkit_fs_add_kbytes_written(struct extkit_fs *fs)
{
	uint64_t kb = le64(fs->raw_sb.s_kbytes_written);
	uint64_t bytes = extkit_io_take_written(fs->io);

	if (kb && bytes)	/* nothing written: nothing to count */
		fs->raw_sb.s_kbytes_written =
			cpu_to_le64(kb + ((bytes + EXT2_SUPERBLOCK_SIZE) >> 10));
}

/*
 * Every place is checked before the first write, and the primary
 * superblock goes last (as e2fsprogs' ext2fs_flush does): when a write
 * fails, the primary still describes the filesystem as it was, and only
 * copies e2fsck does not compare (backups are rewritten from the primary)
 * may hold the new state.
 */
int extkit_fs_write_super(struct extkit_fs *fs)
{
	int rc;

	extkit_super_encode(&fs->sb, &fs->raw_sb);
	rc = write_copies(fs, 1);
	if (!rc)
		rc = put(fs, 1, EXT2_SUPERBLOCK_OFFSET, NULL,
			 sizeof(struct ext2_super_block));
	if (!rc)
		rc = write_copies(fs, 0);
	if (!rc)
		rc = extkit_fs_write_primary_super(fs);
	return rc;
}

int extkit_fs_write_supers(struct extkit_fs *fs)
{
	int rc;

	extkit_super_encode(&fs->sb, &fs->raw_sb);
	rc = put_backup_supers(fs, 1);
	if (!rc)
		rc = put(fs, 1, EXT2_SUPERBLOCK_OFFSET, NULL,
			 sizeof(struct ext2_super_block));
	if (!rc)
		rc = put_backup_supers(fs, 0);
	if (!rc)
		rc = extkit_fs_write_primary_super(fs);
	return rc;
}

int extkit_fs_super_csum_ok(const struct extkit_fs *fs)
{
	if (!(fs->sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return 1;
	return extkit_super_csum(&fs->raw_sb) == le32(fs->raw_sb.s_checksum);
}

int extkit_fs_group_csum_ok(const struct extkit_fs *fs, uint32_t g,
			    uint16_t *want)
{
	uint8_t fresh[EXT4_MAX_DESC_SIZE] = { 0 };
	const uint8_t *raw = fresh;

	if (!extkit_has_group_csum(&fs->sb))
		return 1;
	if (fs->gdt_raw)
		raw = fs->gdt_raw + (size_t)g * fs->g.desc_size;
	else	/* a new filesystem: the descriptor as it will be written */
		extkit_group_encode(&fs->groups[g], fs->g.desc_size, fresh);
	*want = extkit_group_csum(fs, g, raw);
	return *want == fs->groups[g].checksum;
}
