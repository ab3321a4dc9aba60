// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: new inodes (numbers, runs kept for a directory's children) and
 * writing them whole: times with nanoseconds when the inode is large
 * enough, extended attributes in the inode then in one block, and
 * special files (symbolic links: popsymlink.c).
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csum.h"
#include "ea_inode_build.h"
#include "error.h"
#include "inline.h"
#include "inline_build.h"
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
	int ea = extkit_has_incompat(&p->fs->sb,
				     EXT4_FEATURE_INCOMPAT_EA_INODE);

	for (size_t i = 1; i < m->nx; i++)
		if (m->x[i].size > big->size)
			big = &m->x[i];
	prefix = extkit_xattr_prefix(big->index);
	if (ea && big->size > EXTKIT_XATTR_MAX_VALUE)
		snprintf(p->why, sizeof(p->why), "attribute %s%.*s (%u "
			 "bytes): larger than the %u bytes ext4 stores",
			 prefix ? prefix : "", (int)big->name_len, big->name,
			 big->size, EXTKIT_XATTR_MAX_VALUE);
	else
		snprintf(p->why, sizeof(p->why), "attribute %s%.*s (%u "
			 "bytes): the attributes do not fit in the inode "
			 "and one %u-byte block%s", prefix ? prefix : "",
			 (int)big->name_len, big->name, big->size,
			 p->fs->g.block_size,
			 ea ? " (with EA inodes)" : " (no ea_inode)");
	return -E2BIG;
}

/* The attributes to write: the entry's (unless -E no_copy_xattrs) and
 * extra (system.data), in a new array *items of *n. */
static int gather_items(const struct pop *p, const struct pop_meta *m,
			const struct extkit_xattr_item *extra,
			struct extkit_xattr_item **items, size_t *n)
{
	size_t nx = p->o->no_copy_xattrs ? 0 : m->nx;

	*n = nx + (extra != NULL);
	*items = NULL;
	if (!*n)
		return 0;
	*items = calloc(*n, sizeof(**items));
	if (!*items)
		return -ENOMEM;
	for (size_t i = 0; i < nx; i++)
		(*items)[i] = m->x[i];
	if (extra)
		(*items)[nx] = *extra;
	return 0;
}

static int use_ea_inode(const struct pop *p)
{
	return extkit_has_incompat(&p->fs->sb, EXT4_FEATURE_INCOMPAT_EA_INODE);
}

/* Whether none of the placed items went to the block or an EA inode. */
static int all_in_inode(const struct extkit_xattr_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (items[i].where != EXTKIT_XATTR_AT_INODE ||
		    items[i].ea_inode)
			return 0;
	return 1;
}

int pop_xattrs_fit(struct pop *p, const struct pop_meta *m,
		   const struct extkit_xattr_item *extra, int inode_only)
{
	struct extkit_xattr_item *items;
	size_t n;
	int rc = gather_items(p, m, extra, &items, &n);

	if (!rc && n) {
		/* only i_extra_isize matters to the placing */
		struct extkit_inode z = {
			.extra_isize = p->fs->g.inode_size >
				       EXT2_INODE_CORE_SIZE ?
				       p->fs->sb.want_extra_isize : 0,
		};

		memset(p->raw, 0, p->fs->g.inode_size);
		extkit_inode_encode(&z, p->fs->g.inode_size, p->raw);
		rc = extkit_xattr_place(p->fs, items, n, p->raw,
					use_ea_inode(p));
		if (!rc && inode_only && !all_in_inode(items, n))
			rc = -ENOSPC;
	}
	free(items);
	return rc == -ENOSPC || rc == -E2BIG ? 0 : rc ? rc : 1;
}

/* The extended attributes: in the inode, then one block, then EA
 * inodes. POP_ENOFIT when they do not fit (nothing written then). */
static int put_xattrs(struct pop *p, const struct pop_meta *m,
		      const struct extkit_xattr_item *extra,
		      struct extkit_inode *in)
{
	uint32_t bits = p->fs->g.cluster_bits;
	uint64_t cs = (uint64_t)p->fs->g.block_size << bits;
	struct extkit_xattr_item *items;
	uint64_t blk, charged = 0;
	size_t n;
	int use = 0, rc = gather_items(p, m, extra, &items, &n);

	if (rc || !n)
		return rc;
	rc = extkit_xattr_place(p->fs, items, n, p->raw, use_ea_inode(p));
	if (rc == -ENOSPC || rc == -E2BIG)
		rc = -POP_ENOFIT;
	/* the kernel charges an EA inode's blocks to the inode whose
	 * attribute it holds (ext4_xattr_inode_alloc_quota): in i_blocks,
	 * as e2fsck counts them, in whole clusters on bigalloc */
	for (size_t i = 0; !rc && i < n; i++)
		if (items[i].ea_inode) {
			rc = pop_ea_inode(p, &items[i]);
			charged += ((items[i].size + cs - 1) / cs) << bits;
		}
	if (!rc)
		extkit_xattr_lay_out(p->fs, items, n, p->raw, p->ea, &use);
	free(items);
	if (!rc && use)		/* a cluster of its own on bigalloc */
		rc = pop_take_map(p, p->blk_goal, 1, &blk, 1);
	if (!rc && use) {
		extkit_ea_block_csum_set(p->fs, blk, p->ea);
		rc = extkit_fs_write_block(p->fs, blk, p->ea);
		in->file_acl = blk;
		charged += 1ull << bits;
	}
	if (!rc && charged)
		extkit_inode_set_fs_blocks(p->fs, in, in->blocks /
					   p->fs->g.sb_sectors_per_block +
					   charged);
	return rc;
}

int pop_write_inode_x(struct pop *p, uint32_t ino, const struct pop_meta *m,
		      struct extkit_inode *in, uint16_t links,
		      const struct extkit_xattr_item *extra)
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
	rc = put_xattrs(p, m, extra, in);
	if (rc)
		return rc;
	/* file_acl and i_blocks may have changed: encode again */
	extkit_inode_encode(in, isize, p->raw);
	return pop_inode_put(p, ino, p->raw, 1);
}

/* The empty system.data a directory that may stay inline starts with,
 * and which inodes may be inline at all (not the root nor lost+found). */
const struct extkit_xattr_item pop_inline_item = {
	.index = EXTKIT_INLINE_EA_INDEX,
	.name_len = 4,
	.name = EXTKIT_INLINE_EA_NAME,
	.value = "",
	.size = 0,
};

int pop_inline_ok(const struct pop *p, uint32_t ino)
{
	return extkit_has_incompat(&p->fs->sb,
				   EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
	       ino >= p->fs->g.first_ino && ino != EXT2_GOOD_OLD_FIRST_INO;
}

int pop_write_inode(struct pop *p, uint32_t ino, const struct pop_meta *m,
		    struct extkit_inode *in, uint16_t links)
{
	struct extkit_inode keep = *in;
	int rc;

	/* a directory that may stay inline: its system.data, empty, goes
	 * in first (pop_dir_finish fills or drops it) */
	if (S_ISDIR(m->mode) && pop_inline_ok(p, ino)) {
		rc = pop_write_inode_x(p, ino, m, in, links, &pop_inline_item);
		if (rc != -POP_ENOFIT)
			return rc;
		*in = keep;
	}
	rc = pop_write_inode_x(p, ino, m, in, links, NULL);
	return rc == -POP_ENOFIT ? xattrs_too_big(p, m) : rc;
}

/* ---- other kinds ---- */

int pop_special(struct pop *p, uint32_t ino, const struct pop_meta *m)
{
	struct extkit_inode in = { 0 };

	if (S_ISCHR(m->mode) || S_ISBLK(m->mode))
		extkit_inode_set_rdev(&in, m->rdev_major, m->rdev_minor);
	return pop_write_inode(p, ino, m, &in, 1);
}

/* A value that goes in an EA inode is written as that inode's data (no
 * holes), its hash and reference count set as the kernel sets them. */
int pop_ea_inode(struct pop *p, struct extkit_xattr_item *it)
{
	uint32_t isize = p->fs->g.inode_size, ino;
	struct extkit_inode in = { 0 };
	struct pop_file f;
	uint8_t *raw;
	int rc = pop_new_inode(p, 0, &ino);

	if (rc)
		return rc;
	rc = pop_file_begin(p, &f, it->size);
	f.no_holes = 1;
	if (!rc)
		rc = pop_file_write(p, &f, 0, it->value, it->size);
	if (!rc)
		rc = pop_file_end(p, &f, ino, &in);
	pop_file_free(&f);
	raw = rc ? NULL : calloc(1, isize);
	if (!rc && !raw)
		rc = -ENOMEM;
	if (rc)
		return rc;
	in.extra_isize = isize > EXT2_INODE_CORE_SIZE ?
			 p->fs->sb.want_extra_isize : 0;
	it->value_hash = extkit_ea_inode_init(p->fs, &in, it->value, it->size,
					      p->o->now);
	it->value_inum = ino;
	extkit_inode_encode(&in, isize, raw);
	rc = pop_inode_put(p, ino, raw, 1);
	free(raw);
	return rc;
}
