/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Multiple mount protection (the mmp feature): the MMP block, whether
 * another node has the filesystem in use, and the sequence a writer
 * keeps in it while it works (as e2fsprogs' ext2fs_mmp_start/_stop).
 */
#ifndef EXTKIT_MMP_H
#define EXTKIT_MMP_H

#include <stdint.h>

struct extkit_fs;

/* The MMP block in host order. */
struct extkit_mmp {
	uint32_t magic;
	uint32_t seq;
	uint64_t time;
	char nodename[65];	/* NUL-terminated copies */
	char bdevname[33];
	uint16_t check_interval;
	int csum_ok;		/* 1 without metadata_csum */
};

/* Reads s_mmp_block: 0, -EFSCORRUPTED (no such block, bad magic) or an
 * I/O error; a wrong checksum only clears m->csum_ok. */
int extkit_mmp_read(struct extkit_fs *fs, struct extkit_mmp *m);

/*
 * Whether the MMP block, inside the filesystem, is damaged: 1 with *why
 * for a bad magic or (metadata_csum) a bad checksum, 0 when it is sound
 * or lies outside the filesystem (extkit_mmp_check says so), or an I/O
 * error.
 */
int extkit_mmp_damaged(struct extkit_fs *fs, const char **why);
/*
 * Rewrites the MMP block as a new one, as e2fsck does when it is
 * damaged: the magic, the clean sequence, no time, this host's name,
 * devname (cut to 32 bytes), the update interval (at least 5 s); the
 * rest of the block zero.
 */
int extkit_mmp_reset(struct extkit_fs *fs, const char *devname);
/* The same with mmp_time set to time (mke2fs sets the time it wrote). */
int extkit_mmp_reset_at(struct extkit_fs *fs, const char *devname,
			uint64_t time);

/*
 * Whether the filesystem is free to use: -EBUSY (*why names the cause)
 * when the MMP block says fsck runs elsewhere, or a live sequence is
 * still moving after 2 * interval + 1 seconds (one left by a crash does
 * not move); -EFSCORRUPTED with *why for an MMP block that is not one.
 */
int extkit_mmp_check(struct extkit_fs *fs, const char **why);
/* Before the first write: extkit_mmp_check, then the fsck sequence is
 * stored so that other nodes keep off. */
int extkit_mmp_start(struct extkit_fs *fs, const char **why);
/* After the last write: the clean sequence. */
int extkit_mmp_stop(struct extkit_fs *fs);

#endif /* EXTKIT_MMP_H */
