// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inodes of any size from 128 bytes to the block size. Fields past the
 * first 128 bytes exist only as far as i_extra_isize says
 * (Documentation/filesystems/ext4/inodes.rst).
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "inode.h"

/* Whether the large-inode field at byte offset off (size len) is present. */
static int has_extra(uint32_t raw_size, uint16_t extra, size_t off,
		     size_t len)
{
	return raw_size > EXT2_INODE_CORE_SIZE &&
	       EXT2_INODE_CORE_SIZE + (size_t)extra <= raw_size &&
	       off + len <= EXT2_INODE_CORE_SIZE + (size_t)extra;
}

/* Field f of the raw inode at p, little-endian (ext2_inode's offsets). */
#define RAW16(p, f) get_le16((p) + offsetof(struct ext2_inode, f))
#define RAW32(p, f) get_le32((p) + offsetof(struct ext2_inode, f))

static void decode_extra(const uint8_t *p, uint32_t raw_size,
			 struct extkit_inode *m)
{
	uint16_t extra;

	if (raw_size <= EXT2_INODE_CORE_SIZE)
		return;
	extra = RAW16(p, i_extra_isize);
	m->extra_isize = extra;
	if (has_extra(raw_size, extra, offsetof(struct ext2_inode,
						i_checksum_hi), 2))
		m->checksum |= (uint32_t)RAW16(p, i_checksum_hi) << 16;
	if (has_extra(raw_size, extra, offsetof(struct ext2_inode, i_crtime),
		      4))
		m->crtime = RAW32(p, i_crtime);
	if (has_extra(raw_size, extra, offsetof(struct ext2_inode, i_projid),
		      4))
		m->projid = RAW32(p, i_projid);
}

/*
 * Reads the fields straight from raw, which holds at least the 128-byte
 * core; a shorter one (never on disk) is read from a zero-padded copy.
 * Pass 1 decodes every inode in use: no bulk copy or clearing here (the
 * string instructions they compile to cost more than the fields).
 */
void extkit_inode_decode(const void *raw, uint32_t raw_size,
			 struct extkit_inode *m)
{
	uint8_t pad[EXT2_INODE_CORE_SIZE];
	const uint8_t *p = raw;

	if (raw_size < EXT2_INODE_CORE_SIZE) {
		memset(pad, 0, sizeof(pad));
		memcpy(pad, raw, raw_size);
		p = pad;
	}
	m->mode = RAW16(p, i_mode);
	m->uid = RAW16(p, i_uid) | (uint32_t)RAW16(p, l_i_uid_high) << 16;
	m->gid = RAW16(p, i_gid) | (uint32_t)RAW16(p, l_i_gid_high) << 16;
	m->size = RAW32(p, i_size_lo) | (uint64_t)RAW32(p, i_size_high) << 32;
	m->atime = RAW32(p, i_atime);
	m->ctime = RAW32(p, i_ctime);
	m->mtime = RAW32(p, i_mtime);
	m->dtime = RAW32(p, i_dtime);
	m->links_count = RAW16(p, i_links_count);
	m->blocks = RAW32(p, i_blocks_lo) |
		    (uint64_t)RAW16(p, l_i_blocks_high) << 32;
	m->flags = RAW32(p, i_flags);
	m->version = RAW32(p, l_i_version);
	/* One copy (an extent root is read back as bytes, whole), then
	 * host order in place: nothing to do on a little-endian host. */
	memcpy(m->block, p + offsetof(struct ext2_inode, i_block),
	       sizeof(m->block));
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		m->block[i] = le32(m->block[i]);
	m->generation = RAW32(p, i_generation);
	m->file_acl = RAW32(p, i_file_acl_lo) |
		      (uint64_t)RAW16(p, l_i_file_acl_high) << 32;
	m->checksum = RAW16(p, l_i_checksum_lo);
	m->extra_isize = 0;
	m->crtime = 0;
	m->projid = 0;
	decode_extra(p, raw_size, m);
}

struct time_place {
	size_t sec, extra;	/* offsets; extra 0: none */
};

static const struct time_place time_places[] = {
	[EXTKIT_TIME_ATIME] = { offsetof(struct ext2_inode, i_atime),
				offsetof(struct ext2_inode, i_atime_extra) },
	[EXTKIT_TIME_CTIME] = { offsetof(struct ext2_inode, i_ctime),
				offsetof(struct ext2_inode, i_ctime_extra) },
	[EXTKIT_TIME_MTIME] = { offsetof(struct ext2_inode, i_mtime),
				offsetof(struct ext2_inode, i_mtime_extra) },
	[EXTKIT_TIME_CRTIME] = { offsetof(struct ext2_inode, i_crtime),
				 offsetof(struct ext2_inode, i_crtime_extra) },
	[EXTKIT_TIME_DTIME] = { offsetof(struct ext2_inode, i_dtime), 0 },
};

int extkit_inode_time_get(const void *raw, uint32_t raw_size,
			  enum extkit_inode_time_field which,
			  struct extkit_inode_time *t)
{
	const uint8_t *p = raw;
	const struct time_place *tp;
	uint16_t extra = 0;
	uint32_t x;

	memset(t, 0, sizeof(*t));
	if ((unsigned int)which >= sizeof(time_places) / sizeof(*time_places))
		return -EINVAL;
	tp = &time_places[which];
	if (raw_size > EXT2_INODE_CORE_SIZE)
		extra = get_le16(p + offsetof(struct ext2_inode,
					      i_extra_isize));
	if (tp->sec >= EXT2_INODE_CORE_SIZE &&
	    !has_extra(raw_size, extra, tp->sec, 4))
		return -ENOENT;
	x = get_le32(p + tp->sec);
	if (which == EXTKIT_TIME_DTIME) {
		t->sec = x;
		return 0;
	}
	t->sec = (int32_t)x;
	if (tp->extra && has_extra(raw_size, extra, tp->extra, 4)) {
		x = get_le32(p + tp->extra);
		t->sec += (int64_t)(x & 3) << 32;
		t->nsec = x >> 2;
		t->has_extra = 1;
	}
	return 0;
}

int extkit_inode_time_set(void *raw, uint32_t raw_size,
			  enum extkit_inode_time_field which,
			  const struct extkit_inode_time *t)
{
	uint8_t *p = raw;
	const struct time_place *tp;
	uint16_t extra = 0;
	uint32_t epoch;

	if ((unsigned int)which >= sizeof(time_places) / sizeof(*time_places))
		return -EINVAL;
	tp = &time_places[which];
	if (raw_size > EXT2_INODE_CORE_SIZE)
		extra = get_le16(p + offsetof(struct ext2_inode,
					      i_extra_isize));
	if (tp->sec >= EXT2_INODE_CORE_SIZE &&
	    !has_extra(raw_size, extra, tp->sec, 4))
		return -ENOENT;
	put_le32(p + tp->sec, (uint32_t)t->sec);
	if (tp->extra && has_extra(raw_size, extra, tp->extra, 4)) {
		epoch = (uint32_t)(((uint64_t)(t->sec - (int32_t)t->sec) >>
				    32) & 3);
		put_le32(p + tp->extra, t->nsec << 2 | epoch);
	}
	return 0;
}

void extkit_inode_set_links_raw(void *raw, uint16_t links)
{
	put_le16((uint8_t *)raw + offsetof(struct ext2_inode, i_links_count),
		 links);
}

static void encode_core(const struct extkit_inode *m, struct ext2_inode *d)
{
	d->i_mode = cpu_to_le16(m->mode);
	d->i_uid = cpu_to_le16((uint16_t)m->uid);
	d->l_i_uid_high = cpu_to_le16((uint16_t)(m->uid >> 16));
	d->i_gid = cpu_to_le16((uint16_t)m->gid);
	d->l_i_gid_high = cpu_to_le16((uint16_t)(m->gid >> 16));
	d->i_size_lo = cpu_to_le32((uint32_t)m->size);
	d->i_size_high = cpu_to_le32((uint32_t)(m->size >> 32));
	d->i_atime = cpu_to_le32(m->atime);
	d->i_ctime = cpu_to_le32(m->ctime);
	d->i_mtime = cpu_to_le32(m->mtime);
	d->i_dtime = cpu_to_le32(m->dtime);
	d->i_links_count = cpu_to_le16(m->links_count);
	d->i_blocks_lo = cpu_to_le32((uint32_t)m->blocks);
	d->l_i_blocks_high = cpu_to_le16((uint16_t)(m->blocks >> 32));
	d->i_flags = cpu_to_le32(m->flags);
	d->l_i_version = cpu_to_le32(m->version);
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		d->i_block[i] = cpu_to_le32(m->block[i]);
	d->i_generation = cpu_to_le32(m->generation);
	d->i_file_acl_lo = cpu_to_le32((uint32_t)m->file_acl);
	d->l_i_file_acl_high = cpu_to_le16((uint16_t)(m->file_acl >> 32));
	d->l_i_checksum_lo = cpu_to_le16((uint16_t)m->checksum);
}

void extkit_inode_encode(const struct extkit_inode *m, uint32_t raw_size,
			 void *raw)
{
	struct ext2_inode d;
	size_t len = raw_size < sizeof(d) ? raw_size : sizeof(d);

	memset(&d, 0, sizeof(d));
	memcpy(&d, raw, len);
	encode_core(m, &d);
	if (raw_size > EXT2_INODE_CORE_SIZE) {
		uint16_t extra = m->extra_isize;

		d.i_extra_isize = cpu_to_le16(extra);
		if (has_extra(raw_size, extra, offsetof(struct ext2_inode,
							i_checksum_hi), 2))
			d.i_checksum_hi = cpu_to_le16(m->checksum >> 16);
		if (has_extra(raw_size, extra, offsetof(struct ext2_inode,
							i_crtime), 4))
			d.i_crtime = cpu_to_le32(m->crtime);
		if (has_extra(raw_size, extra, offsetof(struct ext2_inode,
							i_projid), 4))
			d.i_projid = cpu_to_le32(m->projid);
	}
	memcpy(raw, &d, len);
}

int extkit_inode_locate(struct extkit_fs *fs, uint32_t ino, uint64_t *blk,
			uint32_t *off_in_block)
{
	uint32_t ipg = fs->sb.inodes_per_group;
	uint32_t group, index;
	uint64_t byte;

	if (ino == 0 || ino > fs->sb.inodes_count)
		return -EINVAL;
	group = (ino - 1) / ipg;
	index = (ino - 1) % ipg;
	byte = (uint64_t)index * fs->g.inode_size;
	*blk = fs->groups[group].inode_table + byte / fs->g.block_size;
	*off_in_block = (uint32_t)(byte % fs->g.block_size);
	if (*blk >= fs->sb.blocks_count || *blk < fs->sb.first_data_block)
		return -EFSCORRUPTED;
	return 0;
}

static int inode_offset(struct extkit_fs *fs, uint32_t ino, uint64_t *off)
{
	uint64_t blk;
	uint32_t in_block;
	int rc = extkit_inode_locate(fs, ino, &blk, &in_block);

	if (!rc)
		*off = blk * fs->g.block_size + in_block;
	return rc;
}

int extkit_inode_read_raw(struct extkit_fs *fs, uint32_t ino, void *raw)
{
	uint64_t off;
	int rc = inode_offset(fs, ino, &off);

	return rc ? rc : extkit_io_read_bytes(fs->io, off, raw,
					      fs->g.inode_size);
}

int extkit_inode_write_raw(struct extkit_fs *fs, uint32_t ino, void *raw)
{
	uint64_t off;
	int rc = inode_offset(fs, ino, &off);

	extkit_inode_csum_set(fs, ino, raw);
	return rc ? rc : extkit_io_write_bytes(fs->io, off, raw,
					       fs->g.inode_size);
}

int extkit_inode_read(struct extkit_fs *fs, uint32_t ino,
		      struct extkit_inode *inode)
{
	uint8_t *raw = malloc(fs->g.inode_size);
	int rc;

	if (!raw)
		return -ENOMEM;
	rc = extkit_inode_read_raw(fs, ino, raw);
	if (!rc)
		extkit_inode_decode(raw, fs->g.inode_size, inode);
	free(raw);
	return rc;
}

int extkit_inode_write(struct extkit_fs *fs, uint32_t ino,
		       const struct extkit_inode *inode)
{
	uint8_t *raw = malloc(fs->g.inode_size);
	int rc;

	if (!raw)
		return -ENOMEM;
	rc = extkit_inode_read_raw(fs, ino, raw);
	if (!rc) {
		extkit_inode_encode(inode, fs->g.inode_size, raw);
		rc = extkit_inode_write_raw(fs, ino, raw);
	}
	free(raw);
	return rc;
}

uint64_t extkit_inode_blocks_bytes(const struct extkit_fs *fs,
				   const struct extkit_inode *inode)
{
	uint64_t blocks = inode->blocks;

	if (!(fs->sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_HUGE_FILE))
		blocks &= 0xffffffffu;
	else if (inode->flags & EXT4_HUGE_FILE_FL)
		return blocks * fs->g.block_size;
	return blocks * 512;
}

void extkit_inode_set_fs_blocks(const struct extkit_fs *fs,
				struct extkit_inode *inode, uint64_t nblocks)
{
	inode->blocks = nblocks * fs->g.sb_sectors_per_block;
}

int extkit_inode_has_block_map(const struct extkit_inode *inode)
{
	if (inode->flags & EXT4_INLINE_DATA_FL)
		return 0;
	if (S_ISCHR(inode->mode) || S_ISBLK(inode->mode) ||
	    S_ISFIFO(inode->mode) || S_ISSOCK(inode->mode))
		return 0;
	/* Fast symlink: a target shorter than i_block sits inside it
	 * (the rule e2fsprogs' ext2fs_is_fast_symlink applies). */
	if (S_ISLNK(inode->mode) && inode->size &&
	    inode->size < sizeof(inode->block))
		return 0;
	return 1;
}

uint8_t extkit_mode_to_ftype(uint16_t mode)
{
	/* Indexed by the file type bits (S_IFMT, 0170000) shifted down:
	 * a load where the switch took a dozen instructions, for every
	 * inode of pass 1 and every entry of pass 2. */
	static const uint8_t ftype[16] = {
		[S_IFREG >> 12] = EXT2_FT_REG_FILE,
		[S_IFDIR >> 12] = EXT2_FT_DIR,
		[S_IFCHR >> 12] = EXT2_FT_CHRDEV,
		[S_IFBLK >> 12] = EXT2_FT_BLKDEV,
		[S_IFIFO >> 12] = EXT2_FT_FIFO,
		[S_IFSOCK >> 12] = EXT2_FT_SOCK,
		[S_IFLNK >> 12] = EXT2_FT_SYMLINK,
	};

	return ftype[(mode & S_IFMT) >> 12];
}

char extkit_ftype_char(uint8_t ftype)
{
	static const char chars[EXT2_FT_MAX] = "?-dcbpsl";

	return ftype < EXT2_FT_MAX ? chars[ftype] : '?';
}
