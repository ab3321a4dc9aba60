// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ownership map of a filesystem's metadata (owners.h): claims kept
 * as runs in one array, sorted by start with a running maximum of their
 * ends, so that the claims overlapping a run are found by a binary
 * search and a walk back that stops once no earlier claim reaches it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bmap.h"
#include "csum.h"
#include "endian.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "io.h"
#include "jbd2_ondisk.h"
#include "ondisk.h"
#include "owners.h"
#include "walk.h"

static const char *const owner_names[EXTKIT_OWN_KINDS] = {
	[EXTKIT_OWN_SUPER] = "superblock",
	[EXTKIT_OWN_DESC] = "group descriptors",
	[EXTKIT_OWN_RESERVED_GDT] = "reserved GDT blocks",
	[EXTKIT_OWN_BLOCK_BITMAP] = "block bitmap",
	[EXTKIT_OWN_INODE_BITMAP] = "inode bitmap",
	[EXTKIT_OWN_INODE_TABLE] = "inode table",
	[EXTKIT_OWN_RESIZE] = "resize inode",
	[EXTKIT_OWN_JOURNAL] = "journal",
	[EXTKIT_OWN_MMP] = "MMP block",
	[EXTKIT_OWN_ORPHAN_FILE] = "orphan file",
	[EXTKIT_OWN_QUOTA] = "quota file",
};

const char *extkit_owner_name(int kind)
{
	return kind >= 0 && kind < EXTKIT_OWN_KINDS ? owner_names[kind] :
						      "metadata";
}

void extkit_owners_init(struct extkit_owners *o)
{
	memset(o, 0, sizeof(*o));
}

void extkit_owners_free(struct extkit_owners *o)
{
	free(o->c);
	free(o->max_end);
	extkit_owners_init(o);
}

int extkit_owners_claim(struct extkit_owners *o, int kind, uint32_t group,
			uint64_t start, uint64_t len)
{
	if (!len)
		return 0;
	/* a run that wraps is cut at the top: it overlaps all the same */
	if (start + len < start)
		len = UINT64_MAX - start;
	/* the previous claim of the same owner goes on: one run */
	if (o->n && o->c[o->n - 1].kind == kind &&
	    o->c[o->n - 1].group == group &&
	    o->c[o->n - 1].start + o->c[o->n - 1].len == start &&
	    kind >= EXTKIT_OWN_RESIZE) {
		o->c[o->n - 1].len += len;
		return 0;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		struct extkit_claim *c = realloc(o->c, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		o->c = c;
		o->cap = cap;
	}
	o->c[o->n++] = (struct extkit_claim){ .start = start, .len = len,
					      .group = group,
					      .kind = (uint8_t)kind };
	o->sorted = 0;
	return 0;
}

/* Group g's superblock copy, descriptor and reserved GDT blocks. */
static int add_group_fixed(struct extkit_owners *o, const struct extkit_fs *fs,
			   uint32_t g)
{
	const struct extkit_super *sb = &fs->sb;
	uint64_t at = extkit_group_first_block(sb, g);
	uint32_t all = extkit_group_sb_overhead(sb, &fs->g, g);
	uint32_t sup = extkit_group_boot_block(sb, &fs->g, g) +
		       (uint32_t)extkit_super_group_has_backup(sb, g);
	uint32_t rsv = 0;
	int rc;

	if (!(sb->feature_incompat & EXT2_FEATURE_INCOMPAT_META_BG) &&
	    extkit_super_group_has_backup(sb, g))
		rsv = sb->reserved_gdt_blocks;
	if (sup > all)
		sup = all;
	if (rsv > all - sup)
		rsv = all - sup;
	rc = extkit_owners_claim(o, EXTKIT_OWN_SUPER, g, at, sup);
	if (!rc)
		rc = extkit_owners_claim(o, EXTKIT_OWN_DESC, g, at + sup,
					 all - sup - rsv);
	if (!rc)
		rc = extkit_owners_claim(o, EXTKIT_OWN_RESERVED_GDT, g,
					 at + all - rsv, rsv);
	return rc;
}

int extkit_owners_add_fixed(struct extkit_owners *o,
			    const struct extkit_fs *fs)
{
	int rc = 0;

	for (uint32_t g = 0; g < fs->g.group_count && !rc; g++)
		rc = add_group_fixed(o, fs, g);
	return rc;
}

int extkit_owners_add_groups(struct extkit_owners *o,
			     const struct extkit_fs *fs)
{
	int rc = 0;

	for (uint32_t g = 0; g < fs->g.group_count && !rc; g++) {
		const struct extkit_group *gd = &fs->groups[g];

		rc = extkit_owners_claim(o, EXTKIT_OWN_BLOCK_BITMAP, g,
					 gd->block_bitmap, 1);
		if (!rc)
			rc = extkit_owners_claim(o, EXTKIT_OWN_INODE_BITMAP, g,
						 gd->inode_bitmap, 1);
		if (!rc)
			rc = extkit_owners_claim(o, EXTKIT_OWN_INODE_TABLE, g,
						 gd->inode_table,
						 fs->g.itable_blocks);
	}
	return rc;
}

struct inode_claims {
	struct extkit_owners *o;
	int kind;
	int rc;
};

static int claim_run(struct extkit_fs *fs, struct extkit_walk_ent *ent,
		     void *arg)
{
	struct inode_claims *ic = arg;

	(void)fs;
	if (ent->bad || (ent->flags & EXTKIT_WALK_LEAVE))
		return 0;
	ic->rc = extkit_owners_claim(ic->o, ic->kind, 0, ent->pblk,
				     ent->len);
	return ic->rc ? EXTKIT_WALK_ABORT : 0;
}

/* Whether inode ino can be read where its group's descriptor says. */
static int inode_readable(const struct extkit_fs *fs, uint32_t ino)
{
	uint32_t g;
	uint64_t it;

	if (ino == 0 || ino > fs->sb.inodes_count)
		return 0;
	g = (ino - 1) / fs->sb.inodes_per_group;
	it = fs->groups[g].inode_table;
	return it >= fs->sb.first_data_block &&
	       it + fs->g.itable_blocks <= fs->sb.blocks_count &&
	       it + fs->g.itable_blocks > it;
}

/* Whether the first block inode maps holds a journal superblock. */
static int starts_journal(struct extkit_fs *fs,
			  const struct extkit_inode *inode)
{
	uint8_t magic[4];
	uint64_t pblk = 0;

	if (extkit_bmap(fs, inode, 0, &pblk) || !pblk ||
	    !extkit_fs_valid_block(fs, pblk) ||
	    extkit_io_read_bytes(fs->io, pblk * fs->g.block_size, magic,
				 sizeof(magic)))
		return 0;
	return get_be32(magic) == JBD2_MAGIC_NUMBER;
}

/*
 * Reads inode ino when its map can be believed to judge other metadata
 * by: a regular file whose checksum matches (metadata_csum), and for the
 * journal, one whose first block is a journal superblock. A garbage
 * inode (its table block overwritten) would claim blocks at random and
 * make sound descriptors look wrong.
 */
static int read_believable(struct extkit_fs *fs, uint32_t ino, int kind,
			   struct extkit_inode *inode)
{
	uint8_t *raw;
	int ok;

	if (!inode_readable(fs, ino))
		return 0;
	raw = malloc(fs->g.inode_size);
	if (!raw)
		return 0;
	ok = !extkit_inode_read_raw(fs, ino, raw) &&
	     extkit_inode_csum_verify(fs, ino, raw);
	if (ok)
		extkit_inode_decode(raw, fs->g.inode_size, inode);
	free(raw);
	if (!ok || !S_ISREG(inode->mode) || !extkit_inode_has_block_map(inode))
		return 0;
	return kind != EXTKIT_OWN_JOURNAL || starts_journal(fs, inode);
}

static int add_inode_map(struct extkit_owners *o, struct extkit_fs *fs,
			 uint32_t ino, int kind)
{
	struct inode_claims ic = { .o = o, .kind = kind };
	struct extkit_walk wk = { .ino = ino, .flags = EXTKIT_WALK_DRY,
				  .fn = claim_run, .arg = &ic };
	struct extkit_inode inode;

	if (!read_believable(fs, ino, kind, &inode))
		return 0;
	/* a map that cannot be walked claims what was seen of it */
	(void)extkit_walk(fs, &inode, &wk);
	return ic.rc;
}

/* The resize inode's double indirect block (its other blocks are the
 * reserved GDT blocks, claimed as such). */
static int add_resize(struct extkit_owners *o, struct extkit_fs *fs)
{
	struct extkit_inode inode;
	uint64_t dind;

	if (!(fs->sb.feature_compat & EXT2_FEATURE_COMPAT_RESIZE_INODE) ||
	    !inode_readable(fs, EXT2_RESIZE_INO) ||
	    extkit_inode_read(fs, EXT2_RESIZE_INO, &inode))
		return 0;
	dind = inode.block[EXT2_DIND_BLOCK];
	if (!extkit_fs_valid_block(fs, dind))
		return 0;
	return extkit_owners_claim(o, EXTKIT_OWN_RESIZE, 0, dind, 1);
}

int extkit_owners_add_inodes(struct extkit_owners *o, struct extkit_fs *fs)
{
	const struct extkit_super *sb = &fs->sb;
	int rc = 0;

	if ((sb->feature_incompat & EXT4_FEATURE_INCOMPAT_MMP) &&
	    extkit_fs_valid_block(fs, sb->mmp_block))
		rc = extkit_owners_claim(o, EXTKIT_OWN_MMP, 0, sb->mmp_block,
					 1);
	if (!rc)
		rc = add_resize(o, fs);
	if (!rc && (sb->feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))
		rc = add_inode_map(o, fs, sb->journal_inum, EXTKIT_OWN_JOURNAL);
	if (!rc && (sb->feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		rc = add_inode_map(o, fs, sb->orphan_file_inum,
				   EXTKIT_OWN_ORPHAN_FILE);
	for (int q = 0; q < 3 && !rc; q++)
		if (sb->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_QUOTA)
			rc = add_inode_map(o, fs, sb->quota_inum[q],
					   EXTKIT_OWN_QUOTA);
	return rc;
}

static int by_start(const void *a, const void *b)
{
	const struct extkit_claim *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

int extkit_owners_sort(struct extkit_owners *o)
{
	uint64_t *me;

	if (o->sorted)
		return 0;
	me = realloc(o->max_end, (o->n ? o->n : 1) * sizeof(*me));
	if (!me)
		return -ENOMEM;
	o->max_end = me;
	if (o->n)
		qsort(o->c, o->n, sizeof(*o->c), by_start);
	for (size_t i = 0; i < o->n; i++) {
		uint64_t end = o->c[i].start + o->c[i].len;

		me[i] = i && me[i - 1] > end ? me[i - 1] : end;
	}
	o->sorted = 1;
	return 0;
}

static int same_claim(const struct extkit_claim *a,
		      const struct extkit_claim *b)
{
	return a->start == b->start && a->len == b->len &&
	       a->kind == b->kind && a->group == b->group;
}

size_t extkit_owners_find(const struct extkit_owners *o, uint64_t start,
			  uint64_t len, const struct extkit_claim *self,
			  struct extkit_claim *out, size_t max)
{
	uint64_t end = start + len < start ? UINT64_MAX : start + len;
	size_t lo = 0, hi = o->n, found = 0;

	if (!len || !o->sorted)
		return 0;
	/* hi: the first claim starting at or past end */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->c[mid].start < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && o->max_end[i] > start;) {
		const struct extkit_claim *c = &o->c[i];

		if (c->start + c->len <= start ||
		    (self && same_claim(c, self)))
			continue;
		if (found < max)
			out[found] = *c;
		found++;
	}
	return found;
}
