// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The quota inodes (quota feature) as mke2fs makes them: user quota in
 * inode 3, group quota in inode 4, project quota in the first inode
 * after lost+found (layout.c reserves it), each a v2 quota file (lib's
 * quota.c lays it out as e2fsprogs does) holding what every inode in use
 * is charged, with a week of grace and no limits. mke2fs counts the
 * usage before -d copies anything in, and so leaves the files wrong;
 * extkit-mkfs writes them after -d, from the inodes as they are.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "csum.h"
#include "error.h"
#include "inode.h"
#include "io.h"
#include "quota.h"

#include "mkfs.h"

#define CHUNK_BLOCKS	64	/* inode table blocks read at once */

struct qscan {
	struct extkit_fs *fs;
	struct extkit_quota_set set[EXTKIT_QUOTA_TYPES];
	unsigned int types;		/* bits 0 user, 1 group, 2 project */
	uint8_t *chunk;
	uint8_t *ibm;
	uint8_t *blk;		/* an EA block */
};

static int charge(struct qscan *qs, uint32_t ino, const uint8_t *raw)
{
	struct extkit_inode in;
	uint64_t space, inodes;

	extkit_inode_decode(raw, qs->fs->g.inode_size, &in);
	/* an inode mkfs has taken but not made yet (the orphan file) */
	if (!in.mode || !extkit_quota_charged(qs->fs, ino, &in))
		return 0;
	space = extkit_inode_blocks_bytes(qs->fs, &in);
	/* its EA inodes count as its own (-d with ea_inode) */
	inodes = 1 + extkit_quota_ea_inodes(qs->fs, raw, &in, qs->blk);
	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++) {
		struct extkit_dquot *d;

		if (!(qs->types & (1u << t)))
			continue;
		d = extkit_quota_set_get(&qs->set[t], extkit_quota_id(&in, t));
		if (!d)
			return -ENOMEM;
		d->curspace += space;
		d->curinodes += inodes;
	}
	return 0;
}

/* The inodes in use of group g: its bitmap, then its table up to the
 * last inode the bitmap has, CHUNK_BLOCKS blocks at a time. */
static int scan_group(struct qscan *qs, uint32_t g)
{
	struct extkit_fs *fs = qs->fs;
	const struct extkit_group *gd = &fs->groups[g];
	uint32_t ipg = fs->sb.inodes_per_group, isz = fs->g.inode_size;
	uint32_t ipb = fs->g.block_size / isz, used = ipg;
	int rc;

	if (gd->flags & EXT4_BG_INODE_UNINIT)
		return 0;
	if (extkit_has_group_csum(&fs->sb))
		used = ipg - gd->itable_unused;
	rc = extkit_io_read_blocks(fs->io, gd->inode_bitmap, 1, qs->ibm);
	/* the table only up to the last inode in use (a new filesystem
	 * without -d: a few blocks of group 0, nothing elsewhere) */
	while (!rc && used && !(qs->ibm[(used - 1) / 8] &
				(1u << ((used - 1) % 8))))
		used = qs->ibm[(used - 1) / 8] ? used - 1 :
		       (used - 1) / 8 * 8;	/* a byte of zeroes at once */
	for (uint32_t b = 0; !rc && b * ipb < used; b += CHUNK_BLOCKS) {
		uint32_t n = (used - b * ipb + ipb - 1) / ipb;

		if (n > CHUNK_BLOCKS)
			n = CHUNK_BLOCKS;
		rc = extkit_io_read_blocks(fs->io, gd->inode_table + b, n,
					   qs->chunk);
		for (uint32_t i = 0; !rc && i < n * ipb &&
		     b * ipb + i < used; i++) {
			uint32_t k = b * ipb + i;

			if (qs->ibm[k / 8] & (1u << (k % 8)))
				rc = charge(qs, g * ipg + k + 1,
					    qs->chunk + (size_t)i * isz);
		}
	}
	return rc;
}

static int write_type(struct qscan *qs, int t, uint32_t ino, uint32_t now)
{
	struct extkit_dquot **v = NULL;
	uint8_t *buf = NULL;
	size_t len;
	int rc = extkit_quota_set_sorted(&qs->set[t], &v);

	if (!rc)
		rc = extkit_quota_build(t, EXT4_QUOTA_DEF_GRACE,
					EXT4_QUOTA_DEF_GRACE, 0, v,
					qs->set[t].n, now, &buf, &len);
	if (!rc)
		rc = extkit_quota_write_inode_nocommit(qs->fs, ino, buf, len,
						       now);
	free(v);
	free(buf);
	return rc;
}

int mkfs_quota_write(const struct mkfs_opts *o, const struct mkfs_layout *l,
		     struct extkit_fs *fs)
{
	static const uint32_t fixed[2] = { EXT4_USR_QUOTA_INO,
					   EXT4_GRP_QUOTA_INO };
	struct qscan qs = { .fs = fs, .types = o->quota_types };
	int rc = 0;

	/* first the inode numbers: the project inode is not charged */
	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++)
		if (qs.types & (1u << t))
			fs->sb.quota_inum[t] = t < 2 ? fixed[t] : l->prj_ino;
	qs.chunk = malloc((size_t)CHUNK_BLOCKS * fs->g.block_size);
	qs.ibm = malloc(fs->g.block_size);
	qs.blk = malloc(fs->g.block_size);
	if (!qs.chunk || !qs.ibm || !qs.blk)
		rc = -ENOMEM;
	for (uint32_t g = 0; !rc && g < fs->g.group_count; g++)
		rc = scan_group(&qs, g);
	for (int t = 0; !rc && t < EXTKIT_QUOTA_TYPES; t++)
		if (qs.types & (1u << t))
			rc = write_type(&qs, t, fs->sb.quota_inum[t], o->now);
	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++)
		extkit_quota_set_free(&qs.set[t]);
	free(qs.chunk);
	free(qs.ibm);
	free(qs.blk);
	return rc;
}
