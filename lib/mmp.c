// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Multiple mount protection. A node that mounts the filesystem (or
 * checks it) writes a sequence number into the MMP block and updates it
 * every s_mmp_update_interval seconds; EXT4_MMP_SEQ_CLEAN means nobody
 * has it, EXT4_MMP_SEQ_FSCK that fsck has it. Before writing, a tool
 * reads the block; a live sequence is re-read after 2 * interval + 1
 * seconds, and if it moved another node is alive. The protocol and the
 * values: the kernel's fs/ext4/mmp.c, e2fsprogs' lib/ext2fs/mmp.c.
 * fs.c takes and releases the block when a writer opens and closes the
 * filesystem, so this file sits under fs.c: its I/O goes to io.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "csum.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "mmp.h"
#include "ondisk.h"

static uint32_t mmp_csum(const struct extkit_fs *fs, const void *raw)
{
	return extkit_crc32c(extkit_csum_seed(&fs->sb), raw,
			     offsetof(struct mmp_struct, mmp_checksum));
}

static int read_raw(struct extkit_fs *fs, struct mmp_struct *raw)
{
	uint64_t blk = fs->sb.mmp_block;

	if (blk <= fs->sb.first_data_block || blk >= fs->sb.blocks_count)
		return -EFSCORRUPTED;
	return extkit_io_read_bytes(fs->io, blk * fs->g.block_size, raw,
				    sizeof(*raw));
}

int extkit_mmp_read(struct extkit_fs *fs, struct extkit_mmp *m)
{
	struct mmp_struct raw;
	int rc = read_raw(fs, &raw);

	if (rc)
		return rc;
	memset(m, 0, sizeof(*m));
	m->magic = le32(raw.mmp_magic);
	m->seq = le32(raw.mmp_seq);
	m->time = le64(raw.mmp_time);
	memcpy(m->nodename, raw.mmp_nodename, sizeof(raw.mmp_nodename));
	memcpy(m->bdevname, raw.mmp_bdevname, sizeof(raw.mmp_bdevname));
	m->check_interval = le16(raw.mmp_check_interval);
	m->csum_ok = !extkit_has_metadata_csum(&fs->sb) ||
		     le32(raw.mmp_checksum) == mmp_csum(fs, &raw);
	return m->magic == EXT4_MMP_MAGIC ? 0 : -EFSCORRUPTED;
}

int extkit_mmp_damaged(struct extkit_fs *fs, const char **why)
{
	struct extkit_mmp m;
	int rc = extkit_mmp_read(fs, &m);
	uint64_t blk = fs->sb.mmp_block;

	*why = NULL;
	if (rc == -EFSCORRUPTED &&
	    (blk <= fs->sb.first_data_block || blk >= fs->sb.blocks_count))
		return 0;	/* no MMP block to repair */
	if (rc == -EFSCORRUPTED)
		*why = "bad magic";
	else if (rc)
		return rc;
	else if (!m.csum_ok)
		*why = "bad checksum";
	return *why != NULL;
}

static uint32_t update_interval(const struct extkit_fs *fs)
{
	uint32_t iv = fs->sb.mmp_interval;

	return iv < EXT4_MMP_MIN_CHECK_INTERVAL ? EXT4_MMP_MIN_CHECK_INTERVAL :
						  iv;
}

int extkit_mmp_reset(struct extkit_fs *fs, const char *devname)
{
	return extkit_mmp_reset_at(fs, devname, 0);
}

int extkit_mmp_reset_at(struct extkit_fs *fs, const char *devname,
			uint64_t time)
{
	struct mmp_struct *raw = calloc(1, fs->g.block_size);
	size_t n = strlen(devname);
	int rc;

	if (!raw)
		return -ENOMEM;
	raw->mmp_magic = cpu_to_le32(EXT4_MMP_MAGIC);
	raw->mmp_seq = cpu_to_le32(EXT4_MMP_SEQ_CLEAN);
	raw->mmp_time = cpu_to_le64(time);
	gethostname((char *)raw->mmp_nodename, sizeof(raw->mmp_nodename) - 1);
	memcpy(raw->mmp_bdevname, devname,
	       n < sizeof(raw->mmp_bdevname) ? n : sizeof(raw->mmp_bdevname));
	raw->mmp_check_interval = cpu_to_le16((uint16_t)update_interval(fs));
	if (extkit_has_metadata_csum(&fs->sb))
		raw->mmp_checksum = cpu_to_le32(mmp_csum(fs, raw));
	rc = -EFSCORRUPTED;
	if (fs->sb.mmp_block < fs->sb.blocks_count)
		rc = extkit_io_write_blocks(fs->io, fs->sb.mmp_block, 1, raw);
	free(raw);
	return rc ? rc : extkit_io_flush(fs->io);
}

static int write_seq(struct extkit_fs *fs, uint32_t seq)
{
	struct mmp_struct raw;
	uint32_t now = 0;
	int fixed, rc = read_raw(fs, &raw);
	const char *bad;

	if (rc)
		return rc;
	if (extkit_clock_now(&now, &fixed, &bad))
		now = (uint32_t)time(NULL);
	raw.mmp_magic = cpu_to_le32(EXT4_MMP_MAGIC);
	raw.mmp_seq = cpu_to_le32(seq);
	raw.mmp_time = cpu_to_le64(now);
	memset(raw.mmp_nodename, 0, sizeof(raw.mmp_nodename));
	gethostname((char *)raw.mmp_nodename, sizeof(raw.mmp_nodename) - 1);
	if (extkit_has_metadata_csum(&fs->sb))
		raw.mmp_checksum = cpu_to_le32(mmp_csum(fs, &raw));
	rc = extkit_io_write_bytes(fs->io,
				   fs->sb.mmp_block * fs->g.block_size, &raw,
				   sizeof(raw));
	return rc ? rc : extkit_io_flush(fs->io);
}

/* Seconds to wait before a live sequence is read again. */
static unsigned int wait_time(const struct extkit_fs *fs,
			      const struct extkit_mmp *m)
{
	unsigned int iv = fs->sb.mmp_interval;

	if (m->check_interval > iv)
		iv = m->check_interval;
	if (iv < EXT4_MMP_MIN_CHECK_INTERVAL)
		iv = EXT4_MMP_MIN_CHECK_INTERVAL;
	return 2 * iv + 1;
}

int extkit_mmp_check(struct extkit_fs *fs, const char **why)
{
	struct extkit_mmp m, again;
	int rc = extkit_mmp_read(fs, &m);

	if (rc == -EFSCORRUPTED) {
		*why = "the MMP block is not valid (bad block number or magic)";
		return rc;
	}
	if (rc)
		return rc;
	if (m.seq == EXT4_MMP_SEQ_FSCK) {
		*why = "the MMP block says fsck is running on it (another node?)";
		return -EBUSY;
	}
	if (m.seq == EXT4_MMP_SEQ_CLEAN)
		return 0;
	if (m.seq > EXT4_MMP_SEQ_MAX) {
		*why = "the MMP block holds an invalid sequence";
		return -EFSCORRUPTED;
	}
	sleep(wait_time(fs, &m));
	rc = extkit_mmp_read(fs, &again);
	if (rc)
		return rc;
	if (again.seq != m.seq) {
		*why = "the MMP block says it is in use on another node";
		return -EBUSY;
	}
	return 0;
}

int extkit_mmp_start(struct extkit_fs *fs, const char **why)
{
	int rc = extkit_mmp_check(fs, why);

	return rc ? rc : write_seq(fs, EXT4_MMP_SEQ_FSCK);
}

int extkit_mmp_stop(struct extkit_fs *fs)
{
	return write_seq(fs, EXT4_MMP_SEQ_CLEAN);
}
