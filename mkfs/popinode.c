// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: new inodes (numbers, runs kept for a directory's children) and
 * writing them whole: times with nanoseconds when the inode is large
 * enough, extended attributes in the inode then in one block, symbolic
 * links and special files.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "ondisk.h"

#include "populate.h"
#include "xattr.h"

/* ---- inodes ---- */

int pop_new_inode(struct pop *p, int is_dir, uint32_t *ino)
{
	int rc = extkit_fsbuild_inode(&p->fb, p->ino_goal, is_dir, ino);

	if (!rc)
		p->ino_goal = *ino + 1;
	return rc;
}

/* A run of n new inodes to come: it starts on an inode table block of
 * its own unless it fits in what is left of the current one. */
void pop_align_goal(struct pop *p, uint64_t n)
{
	uint32_t ipb = p->fs->g.inodes_per_block;
	uint32_t used = (p->ino_goal - 1) % ipb;

	if (!p->no_reserve && used && n > ipb - used &&
	    p->ino_goal <= p->fs->sb.inodes_count - (ipb - used))
		p->ino_goal += ipb - used;
}

/* With SOURCE_DATE_EPOCH, no time after it (reproducible images), unless
 * -E clamp_mtime=0. */
static struct timespec clamp(const struct pop *p, struct timespec t)
{
	if (p->o->clamp_mtime > 0 && t.tv_sec >= (time_t)p->o->now) {
		t.tv_sec = p->o->now;
		t.tv_nsec = 0;
	}
	return t;
}

static void put_times(struct pop *p, const struct pop_meta *m,
		      struct extkit_inode *in)
{
	struct timespec a = clamp(p, m->atime), c = clamp(p, m->ctime);
	struct timespec mt = clamp(p, m->mtime);
	const struct timespec *ts[] = {
		[EXTKIT_TIME_ATIME] = &a, [EXTKIT_TIME_CTIME] = &c,
		[EXTKIT_TIME_MTIME] = &mt,
	};

	in->atime = (uint32_t)a.tv_sec;
	in->ctime = (uint32_t)c.tv_sec;
	in->mtime = (uint32_t)mt.tv_sec;
	in->crtime = p->o->now;
	extkit_inode_encode(in, p->fs->g.inode_size, p->raw);
	/* nanoseconds and the epoch bits, where the inode has room */
	for (int i = EXTKIT_TIME_ATIME; i <= EXTKIT_TIME_MTIME; i++) {
		struct extkit_inode_time t = { .sec = ts[i]->tv_sec,
					       .nsec = (uint32_t)ts[i]->tv_nsec };

		extkit_inode_time_set(p->raw, p->fs->g.inode_size, i, &t);
	}
}

/* Names the largest attribute of m, which did not fit (for pop_error). */
static int xattrs_too_big(struct pop *p, const struct pop_meta *m)
{
	const struct extkit_xattr_item *big = &m->x[0];
	const char *prefix;

	for (size_t i = 1; i < m->nx; i++)
		if (m->x[i].size > big->size)
			big = &m->x[i];
	prefix = extkit_xattr_prefix(big->index);
	snprintf(p->why, sizeof(p->why), "attribute %s%.*s (%u bytes): the "
		 "attributes do not fit in the inode and one %u-byte block",
		 prefix ? prefix : "", (int)big->name_len,
		 big->name, big->size, p->fs->g.block_size);
	return -E2BIG;
}

/* The extended attributes: in the inode, then one block. */
static int put_xattrs(struct pop *p, const struct pop_meta *m,
		      struct extkit_inode *in)
{
	uint64_t blk, got;
	int use, rc;

	if (!m->nx || p->o->no_copy_xattrs)
		return 0;
	rc = extkit_xattr_build(p->fs, m->x, m->nx, p->raw, p->ea, &use);
	if (rc == -ENOSPC)
		return xattrs_too_big(p, m);
	if (rc || !use)
		return rc;
	rc = pop_take_blocks(p, p->blk_goal, 1, &blk, &got);
	if (rc)
		return rc;
	extkit_ea_block_csum_set(p->fs, blk, p->ea);
	rc = extkit_fs_write_block(p->fs, blk, p->ea);
	if (rc)
		return rc;
	in->file_acl = blk;
	extkit_inode_set_fs_blocks(p->fs, in, in->blocks /
				   p->fs->g.sb_sectors_per_block + 1);
	return 0;
}

int pop_write_inode(struct pop *p, uint32_t ino, const struct pop_meta *m,
		    struct extkit_inode *in, uint16_t links)
{
	uint32_t isize = p->fs->g.inode_size;
	int rc;

	in->mode = (uint16_t)m->mode;
	in->uid = m->uid;
	in->gid = m->gid;
	in->links_count = links;
	in->extra_isize = isize > EXT2_INODE_CORE_SIZE ?
			  p->fs->sb.want_extra_isize : 0;
	if (in->size > 0x7FFFFFFFULL && !S_ISDIR(m->mode))
		p->fs->sb.feature_ro_compat |=
			EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	memset(p->raw, 0, isize);
	put_times(p, m, in);
	rc = put_xattrs(p, m, in);
	if (rc)
		return rc;
	/* file_acl and i_blocks may have changed: encode again */
	extkit_inode_encode(in, isize, p->raw);
	return pop_inode_put(p, ino, p->raw, 1);
}


/* ---- other kinds ---- */

int pop_symlink(struct pop *p, uint32_t ino, const struct pop_meta *m,
		const char *target, size_t len)
{
	struct extkit_inode in = { 0 };
	struct pop_file f;
	int rc;

	if (len < sizeof(in.block)) {
		/* fast: the bytes in i_block */
		memcpy(in.block, target, len);
		in.size = len;
		return pop_write_inode(p, ino, m, &in, 1);
	}
	if (len >= p->fs->g.block_size)
		return -ENAMETOOLONG;
	rc = pop_file_begin(p, &f, len);
	if (!rc)
		rc = pop_file_write(p, &f, 0, target, len);
	if (!rc)
		rc = pop_file_end(p, &f, ino, &in);
	pop_file_free(&f);
	return rc ? rc : pop_write_inode(p, ino, m, &in, 1);
}

int pop_special(struct pop *p, uint32_t ino, const struct pop_meta *m)
{
	struct extkit_inode in = { 0 };

	if (S_ISCHR(m->mode) || S_ISBLK(m->mode))
		extkit_inode_set_rdev(&in, m->rdev_major, m->rdev_minor);
	return pop_write_inode(p, ino, m, &in, 1);
}
