// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ext4 fast commits (see fast_commit.h): the replay of the tags
 * fast_commit.c's scan kept, checked first, then applied to the inodes,
 * their extent trees and the directories.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "alloc_stats.h"
#include "csum.h"
#include "diradd.h"
#include "dirblock.h"
#include "dirspace.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "fast_commit.h"
#include "inline.h"
#include "inode.h"
#include "jbd2_ondisk.h"
#include "mapbuild.h"
#include "walk.h"

#define DENTRY_SIZE	sizeof(struct ext4_fc_dentry_info)

/* A field of an on-disk struct in a value, or a raw inode, at p. */
#define FC_LE32(p, type, field)	get_le32((const uint8_t *)(p) + \
					 offsetof(struct type, field))
#define I_OFF(field)		offsetof(struct ext2_inode, field)

/* A sorted list of block runs, merged where they touch. */
struct run_list {
	struct extkit_blk_run *v;
	size_t n, cap;
};

/* The extents of one inode being edited (host order, sorted). */
struct ext_list {
	struct extkit_extent *v;
	size_t n, cap;
};

struct fc_replay {
	struct extkit_fs *fs;
	const struct extkit_fc *fc;
	struct extkit_fc_stats *st;
	struct run_list meta;		/* fixed metadata of the groups */
	struct run_list claimed;	/* what the ADD_RANGE tags map */
	struct run_list released;	/* what edited maps let go */
	struct run_list old_tree;	/* tree blocks of the map in ext */
	uint32_t ext_ino;		/* whose extents ext holds (0: none) */
	struct ext_list ext;
	int ext_dirty;
	struct extkit_dirspace *ds;	/* a directory being edited */
	uint8_t *raw;			/* an inode, raw */
};

static int run_push(struct run_list *l, uint64_t start, uint64_t len)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct extkit_blk_run *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct extkit_blk_run){ start, len };
	return 0;
}

static int cmp_run(const void *a, const void *b)
{
	const struct extkit_blk_run *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void run_sort_merge(struct run_list *l)
{
	size_t out = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_run);
	for (size_t i = 1; i < l->n; i++) {
		struct extkit_blk_run *last = &l->v[out];

		if (l->v[i].start <= last->start + last->len) {
			uint64_t end = l->v[i].start + l->v[i].len;

			if (end > last->start + last->len)
				last->len = end - last->start;
		} else {
			l->v[++out] = l->v[i];
		}
	}
	l->n = out + 1;
}

/* Whether [start, start + len) meets a run of the (sorted) list. */
static int run_overlaps(const struct run_list *l, uint64_t start, uint64_t len)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {	/* the first run ending past start */
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].start + l->v[mid].len <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->v[lo].start < start + len;
}

/* Superblocks, descriptors, bitmaps and inode tables of every group. */
static int collect_meta(struct fc_replay *r)
{
	struct extkit_fs *fs = r->fs;
	int rc = 0;

	for (uint32_t g = 0; !rc && g < fs->g.group_count; g++) {
		const struct extkit_group *gd = &fs->groups[g];
		uint32_t over = extkit_group_sb_overhead(&fs->sb, &fs->g, g);

		if (over)
			rc = run_push(&r->meta,
				      extkit_group_first_block(&fs->sb, g) +
				      extkit_group_boot_block(&fs->sb, &fs->g,
							      g), over);
		if (!rc)
			rc = run_push(&r->meta, gd->block_bitmap, 1);
		if (!rc)
			rc = run_push(&r->meta, gd->inode_bitmap, 1);
		if (!rc)
			rc = run_push(&r->meta, gd->inode_table,
				      fs->g.itable_blocks);
	}
	run_sort_merge(&r->meta);
	return rc;
}

static const uint8_t *tag_val(const struct fc_replay *r, uint32_t i)
{
	return r->fc->vals + r->fc->tags[i].val;
}

/* An inode a tag may name: the root or an ordinary one. */
static int ino_ok(const struct extkit_fs *fs, uint32_t ino)
{
	return ino == EXT2_ROOT_INO ||
	       (ino >= fs->g.first_ino && ino <= fs->sb.inodes_count);
}

/* The extent of an ADD_RANGE tag (fc_ex: a struct ext4_extent). */
static void add_range_extent(const uint8_t *v, struct extkit_extent *ex)
{
	extkit_extent_decode(v + offsetof(struct ext4_fc_add_range, fc_ex), ex);
}

static const char *check_range(const struct fc_replay *r, const uint8_t *v)
{
	const struct extkit_fs *fs = r->fs;
	struct extkit_extent ex;

	add_range_extent(v, &ex);
	if (!ex.len)
		return "an empty range";
	if (ex.pblk < fs->sb.first_data_block ||
	    ex.pblk + ex.len > fs->sb.blocks_count ||
	    ex.lblk + ex.len > (1ull << 32))
		return "a range outside the filesystem";
	if (run_overlaps(&r->meta, ex.pblk, ex.len))
		return "a range over the filesystem's metadata";
	return NULL;
}

/* A dentry name: no '/' or NUL, not "." or "..". */
static int name_ok(const uint8_t *name, uint32_t len)
{
	if (memchr(name, '/', len) || memchr(name, 0, len))
		return 0;
	return !(len <= 2 && name[0] == '.' && (len == 1 || name[1] == '.'));
}

/* Why tag i cannot apply to this filesystem, or NULL. */
static const char *check_tag(const struct fc_replay *r, uint32_t i)
{
	const struct extkit_fc_tag *t = &r->fc->tags[i];
	const uint8_t *v = tag_val(r, i);
	const struct extkit_fs *fs = r->fs;

	switch (t->tag) {
	case EXTKIT_FC_ADD_RANGE:
		if (!ino_ok(fs, FC_LE32(v, ext4_fc_add_range, fc_ino)))
			return "a bad inode number";
		return check_range(r, v);
	case EXTKIT_FC_DEL_RANGE:
		if (!ino_ok(fs, FC_LE32(v, ext4_fc_del_range, fc_ino)))
			return "a bad inode number";
		if ((uint64_t)FC_LE32(v, ext4_fc_del_range, fc_lblk) +
		    FC_LE32(v, ext4_fc_del_range, fc_len) > (1ull << 32))
			return "a range past the largest file";
		return NULL;
	case EXTKIT_FC_INODE:
		return ino_ok(fs, FC_LE32(v, ext4_fc_inode, fc_ino)) ? NULL :
		       "a bad inode number";
	case EXTKIT_FC_CREAT:
	case EXTKIT_FC_LINK:
	case EXTKIT_FC_UNLINK:
		if (!ino_ok(fs, FC_LE32(v, ext4_fc_dentry_info,
					fc_parent_ino)) ||
		    !ino_ok(fs, FC_LE32(v, ext4_fc_dentry_info, fc_ino)))
			return "a bad inode number";
		if (!name_ok(v + DENTRY_SIZE, t->len - DENTRY_SIZE))
			return "a bad name";
		return NULL;
	}
	return "an unknown tag";
}

static void skip(struct fc_replay *r, uint32_t i, const char *why)
{
	if (!r->st->skipped++) {
		r->st->first_skip = i;
		r->st->skip_why = why;
	}
}

/* Checks every tag; the ranges of the good ADD_RANGE tags are claimed:
 * no block the replay allocates comes from them. */
static int check_all(struct fc_replay *r, uint8_t *bad)
{
	struct extkit_extent ex;
	int rc;

	for (uint32_t i = 0; i < r->fc->ntags; i++) {
		const char *why = check_tag(r, i);

		if (why) {
			bad[i] = 1;
			skip(r, i, why);
			continue;
		}
		if (r->fc->tags[i].tag != EXTKIT_FC_ADD_RANGE)
			continue;
		add_range_extent(tag_val(r, i), &ex);
		rc = run_push(&r->claimed, ex.pblk, ex.len);
		if (rc)
			return rc;
	}
	run_sort_merge(&r->claimed);
	return 0;
}

/* ---- blocks the replay allocates ---- */

/* The on-disk bitmaps passing over the ranges the log claims. */
static int take_blocks(void *arg, uint64_t goal, uint64_t want,
		       uint64_t *blk, uint64_t *got)
{
	struct fc_replay *r = arg;
	int rc = extkit_alloc_find_skip(r->fs, goal, r->claimed.v,
					r->claimed.n, 1, blk);

	(void)want;
	*got = 1;
	return rc ? rc : extkit_alloc_mark(r->fs, *blk, 1);
}

static int give_back(void *arg, uint64_t start, uint64_t count)
{
	struct fc_replay *r = arg;

	return extkit_free_blocks(r->fs, start, count);
}

/* The goal of ino's new blocks: its group's inode table. */
static uint64_t ino_table(const struct extkit_fs *fs, uint32_t ino)
{
	return fs->groups[extkit_group_of_inode(&fs->sb, ino)].inode_table;
}

static int take_block(struct fc_replay *r, uint64_t goal, uint64_t *blk)
{
	uint64_t got;

	return take_blocks(r, goal, 1, blk, &got);
}

/* ---- inodes ---- */

/* An inode the kernel's iget would give: a mode and a link. */
static int inode_live(const struct extkit_inode *inode)
{
	return inode->mode && inode->links_count;
}

/* Blocks a map takes (data and tree blocks); bad: the walk met damage. */
struct count_arg {
	uint64_t n;
	int bad;
};

static int count_fn(struct extkit_fs *fs, struct extkit_walk_ent *e,
		    void *arg)
{
	struct count_arg *c = arg;

	(void)fs;
	if (e->bad) {
		c->bad = 1;
		return EXTKIT_WALK_ABORT;
	}
	if (!(e->flags & EXTKIT_WALK_LEAVE))
		c->n += e->len;
	return 0;
}

/* i_blocks from the map (and the xattr block); kept if the map is bad. */
static void set_iblocks(struct extkit_fs *fs, uint32_t ino,
			struct extkit_inode *inode)
{
	struct count_arg c = { 0 };
	struct extkit_walk wk = { .ino = ino, .flags = EXTKIT_WALK_DRY,
				  .fn = count_fn, .arg = &c };

	if (!extkit_inode_has_block_map(inode))
		c.n = 0;
	else if (extkit_walk(fs, inode, &wk) || c.bad)
		return;
	if (inode->file_acl)
		c.n++;
	extkit_inode_set_fs_blocks(fs, inode, c.n);
}

static void drop_dir(struct fc_replay *r)
{
	if (!r->ds)
		return;
	extkit_dirspace_free(r->ds);
	free(r->ds);
	r->ds = NULL;
}

static int flush_extents(struct fc_replay *r);

/* Marks inode ino in use in its group (alloc.c): bitmap bit, counts,
 * INODE_UNINIT and bg_itable_unused (else the check would take it for
 * never used), also when its bit is set already. */
static int mark_inode_used(struct fc_replay *r, uint32_t ino)
{
	int rc = extkit_alloc_inode_set(r->fs, ino, 1, 0);

	if (rc == -EFSCORRUPTED) {	/* in use already */
		extkit_alloc_stats_inode_in_use(r->fs, ino);
		rc = 0;
	}
	return rc;
}

/* i_block of a raw inode: kept from disk for an extent map (an empty
 * root if that holds none), taken from the log for inline data. */
static void fix_iblock(uint8_t *raw, const uint8_t *logged)
{
	uint32_t flags = get_le32(raw + I_OFF(i_flags));
	uint8_t *root = raw + I_OFF(i_block);

	if (flags & EXT4_EXTENTS_FL) {
		if (get_le16(root) != EXT4_EXT_MAGIC)
			extkit_extent_node_init(root,
				sizeof(struct ext4_extent_header),
				EXTKIT_EXTENT_ROOT_MAX, 0);
	} else if (flags & EXT4_INLINE_DATA_FL) {
		memcpy(root, logged + I_OFF(i_block), EXTKIT_EXTENT_ROOT_SIZE);
	}
}

/*
 * INODE: the logged inode over the one on disk, up to i_block and from
 * i_generation on (the bytes logged: 128 + i_extra_isize). A directory
 * with an extent map keeps its size: its blocks are what the dentry tags
 * rebuilt, not what the log's size says.
 */
static int replay_inode(struct fc_replay *r, uint32_t i)
{
	struct extkit_fs *fs = r->fs;
	const uint8_t *v = tag_val(r, i), *logged = v + 4;
	uint32_t ino = FC_LE32(v, ext4_fc_inode, fc_ino);
	uint32_t len = r->fc->tags[i].len - sizeof(struct ext4_fc_inode);
	uint8_t size_lo[4], size_hi[4];
	struct extkit_inode inode;
	int rc;

	if (r->ext_ino == ino) {
		rc = flush_extents(r);
		if (rc)
			return rc;
	}
	if (r->ds && r->ds->ino == ino)
		drop_dir(r);
	rc = extkit_inode_read_raw(fs, ino, r->raw);
	if (rc)
		return rc;
	memcpy(size_lo, r->raw + I_OFF(i_size_lo), 4);
	memcpy(size_hi, r->raw + I_OFF(i_size_high), 4);
	memcpy(r->raw, logged, I_OFF(i_block));
	memcpy(r->raw + I_OFF(i_generation), logged + I_OFF(i_generation),
	       len - I_OFF(i_generation));
	fix_iblock(r->raw, logged);
	if (S_ISDIR(get_le16(r->raw)) &&
	    (get_le32(r->raw + I_OFF(i_flags)) & EXT4_EXTENTS_FL)) {
		memcpy(r->raw + I_OFF(i_size_lo), size_lo, 4);
		memcpy(r->raw + I_OFF(i_size_high), size_hi, 4);
	}
	extkit_inode_decode(r->raw, fs->g.inode_size, &inode);
	set_iblocks(fs, ino, &inode);
	extkit_inode_encode(&inode, fs->g.inode_size, r->raw);
	rc = extkit_inode_write_raw(fs, ino, r->raw);
	if (!rc && inode.links_count)
		rc = mark_inode_used(r, ino);
	return rc;
}

/* ---- extent maps ---- */

static int ext_reserve(struct ext_list *l, size_t n)
{
	size_t cap = l->cap ? l->cap : 16;
	struct extkit_extent *v;

	if (n <= l->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	v = realloc(l->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->cap = cap;
	return 0;
}

static int ext_push(struct ext_list *l, const struct extkit_extent *ex)
{
	int rc = ext_reserve(l, l->n + 1);

	if (!rc)
		l->v[l->n++] = *ex;
	return rc;
}

struct load_arg {
	struct ext_list *l;
	struct run_list *tree;
	int bad;
	int rc;
};

static int load_fn(struct extkit_fs *fs, struct extkit_walk_ent *e, void *arg)
{
	struct load_arg *a = arg;
	struct extkit_extent ex;

	(void)fs;
	if (e->bad) {
		a->bad = 1;
		return EXTKIT_WALK_ABORT;
	}
	if (e->flags & EXTKIT_WALK_LEAVE)
		return 0;
	if (e->level) {
		a->rc = run_push(a->tree, e->pblk, 1);
		return a->rc ? EXTKIT_WALK_ABORT : 0;
	}
	ex = (struct extkit_extent){ e->lblk, e->pblk, e->len,
				     !!(e->flags & EXTKIT_WALK_UNWRITTEN) };
	a->rc = ext_push(a->l, &ex);
	return a->rc ? EXTKIT_WALK_ABORT : 0;
}

/* Loads the extents of ino (flushing another inode's first): 0, 1 when
 * the inode cannot take ranges (not in use, no extent map, a damaged
 * one), or an error. */
static int load_extents(struct fc_replay *r, uint32_t ino)
{
	struct extkit_inode inode;
	struct load_arg a = { .l = &r->ext, .tree = &r->old_tree };
	struct extkit_walk wk = { .ino = ino, .flags = EXTKIT_WALK_DRY,
				  .fn = load_fn, .arg = &a };
	int rc;

	if (r->ext_ino == ino)
		return 0;
	rc = flush_extents(r);
	if (rc)
		return rc;
	if (r->ds && r->ds->ino == ino)
		drop_dir(r);
	rc = extkit_inode_read(r->fs, ino, &inode);
	if (rc)
		return rc;
	if (!inode_live(&inode) || !(inode.flags & EXT4_EXTENTS_FL) ||
	    (inode.flags & EXT4_INLINE_DATA_FL))
		return 1;
	r->ext.n = 0;
	r->old_tree.n = 0;
	rc = extkit_walk(r->fs, &inode, &wk);
	if (a.rc)
		return a.rc;
	if (rc < 0 && rc != -EFSCORRUPTED && rc != -EXTKIT_ELOOP)
		return rc;
	if (rc || a.bad)
		return 1;
	r->ext_ino = ino;
	r->ext_dirty = 0;
	return 0;
}

/* Unmaps [lo, hi) from the list (an extent across it is split); the
 * blocks unmapped go to *gone. */
static int ext_punch(struct ext_list *l, uint64_t lo, uint64_t hi,
		     struct run_list *gone)
{
	size_t n = l->n, i;
	int rc = ext_reserve(l, 2 * n + 1);

	if (rc)
		return rc;
	/* the old entries move up; the kept parts are written from 0 */
	memmove(l->v + n + 1, l->v, n * sizeof(*l->v));
	l->n = 0;
	for (i = 0; i < n; i++) {
		struct extkit_extent e = l->v[n + 1 + i], part;
		uint64_t end = e.lblk + e.len;
		uint64_t from = e.lblk > lo ? e.lblk : lo;
		uint64_t to = end < hi ? end : hi;

		if (end <= lo || e.lblk >= hi) {
			l->v[l->n++] = e;
			continue;
		}
		rc = run_push(gone, e.pblk + (from - e.lblk), to - from);
		if (rc)
			return rc;
		if (e.lblk < lo) {
			part = e;
			part.len = (uint32_t)(lo - e.lblk);
			l->v[l->n++] = part;
		}
		if (end > hi) {
			part = e;
			part.lblk = hi;
			part.pblk = e.pblk + (hi - e.lblk);
			part.len = (uint32_t)(end - hi);
			l->v[l->n++] = part;
		}
	}
	return 0;
}

static int cmp_ext(const void *a, const void *b)
{
	const struct extkit_extent *x = a, *y = b;

	return (x->lblk > y->lblk) - (x->lblk < y->lblk);
}

/* ADD_RANGE: the range maps the logged blocks, whatever it mapped. */
static int replay_add_range(struct fc_replay *r, uint32_t i)
{
	const uint8_t *v = tag_val(r, i);
	struct extkit_extent ex;
	int rc = load_extents(r, FC_LE32(v, ext4_fc_add_range, fc_ino));

	if (rc)
		return rc;
	add_range_extent(v, &ex);
	rc = ext_punch(&r->ext, ex.lblk, ex.lblk + ex.len, &r->released);
	if (!rc)
		rc = ext_push(&r->ext, &ex);
	if (!rc)
		qsort(r->ext.v, r->ext.n, sizeof(*r->ext.v), cmp_ext);
	r->ext_dirty = 1;
	return rc;
}

/* DEL_RANGE: the range maps nothing. */
static int replay_del_range(struct fc_replay *r, uint32_t i)
{
	const uint8_t *v = tag_val(r, i);
	uint64_t lblk = FC_LE32(v, ext4_fc_del_range, fc_lblk);
	uint64_t len = FC_LE32(v, ext4_fc_del_range, fc_len);
	int rc = load_extents(r, FC_LE32(v, ext4_fc_del_range, fc_ino));

	if (rc)
		return rc;
	r->ext_dirty = 1;
	return ext_punch(&r->ext, lblk, lblk + len, &r->released);
}

/* The list as a tree may hold it: neighbours merged, long runs cut to
 * the extent's limits (32768 blocks, 32767 unwritten). */
static int ext_normalize(struct ext_list *l)
{
	struct ext_list out = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < l->n; i++) {
		struct extkit_extent e = l->v[i];
		uint64_t len = e.len;

		if (out.n && e.lblk < out.v[out.n - 1].lblk +
				     out.v[out.n - 1].len)
			continue;	/* overlaps (a damaged map): dropped */
		while (i + 1 < l->n && l->v[i + 1].lblk == e.lblk + len &&
		       l->v[i + 1].pblk == e.pblk + len &&
		       l->v[i + 1].unwritten == e.unwritten)
			len += l->v[++i].len;
		while (!rc && len) {
			uint32_t max = e.unwritten ? (EXT4_EXT_INIT_MAX_LEN - 1) :
						     EXT4_EXT_INIT_MAX_LEN;

			e.len = len < max ? (uint32_t)len : max;
			rc = ext_push(&out, &e);
			e.lblk += e.len;
			e.pblk += e.len;
			len -= e.len;
		}
	}
	free(l->v);
	*l = out;
	return rc;
}

/* Sets the blocks of [start, start + len) in use (used) or free where
 * they are not, as the kernel's replay does for the maps it edited
 * (pass 5 would otherwise report them); groups whose bitmap is
 * uninitialised, and bigalloc, are left to pass 5. */
static int set_blocks(struct extkit_fs *fs, uint64_t start, uint64_t len,
		      int used)
{
	int rc;

	if (!len || !extkit_fs_valid_block(fs, start) ||
	    !extkit_fs_valid_block(fs, start + len - 1))
		return 0;
	rc = extkit_alloc_settle(fs, start, len, used, NULL);
	return rc == -EXTKIT_EUNSUPP ? 0 : rc;
}

/* Frees what the edited maps let go (punched data, old tree blocks)
 * and no ADD_RANGE of the log maps, as the kernel's replay does. */
static int free_released(struct fc_replay *r)
{
	const struct run_list *c = &r->claimed;
	size_t k = 0;
	int rc = 0;

	run_sort_merge(&r->released);
	for (size_t i = 0; !rc && i < r->released.n; i++) {
		uint64_t at = r->released.v[i].start;
		uint64_t end = at + r->released.v[i].len;

		while (!rc && at < end) {
			uint64_t stop = end;

			while (k < c->n && c->v[k].start + c->v[k].len <= at)
				k++;
			if (k < c->n && c->v[k].start <= at) {
				at = c->v[k].start + c->v[k].len;
				continue;
			}
			if (k < c->n && c->v[k].start < end)
				stop = c->v[k].start;
			rc = set_blocks(r->fs, at, stop - at, 0);
			at = stop;
		}
	}
	return rc;
}

/* Writes the edited extents of r->ext_ino as a new tree (its blocks not
 * from any claimed range); the old tree blocks are left to the check. */
static int flush_extents(struct fc_replay *r)
{
	struct extkit_fs *fs = r->fs;
	struct extkit_mapbuild mb = { .extents = 1 };
	struct extkit_inode inode;
	uint64_t *meta = NULL, nblocks = 0;
	uint32_t ino = r->ext_ino;
	int rc;

	if (!ino)
		return 0;
	r->ext_ino = 0;
	if (!r->ext_dirty)
		return 0;
	for (size_t k = 0; k < r->old_tree.n; k++) {
		rc = run_push(&r->released, r->old_tree.v[k].start, 1);
		if (rc)
			return rc;
	}
	rc = ext_normalize(&r->ext);
	if (rc)
		return rc;
	mb.list = r->ext.v;
	mb.nlist = r->ext.n;
	if (r->ext.n)
		mb.nblocks = r->ext.v[r->ext.n - 1].lblk +
			     r->ext.v[r->ext.n - 1].len;
	rc = extkit_mapbuild_plan(fs, &mb);
	if (rc)
		return rc;
	if (mb.nmeta) {
		meta = calloc(mb.nmeta, sizeof(*meta));
		mb.bufs = calloc(mb.nmeta, fs->g.block_size);
		rc = meta && mb.bufs ? 0 : -ENOMEM;
	}
	for (uint64_t k = 0; !rc && k < mb.nmeta; k++)
		rc = take_block(r, ino_table(fs, ino), &meta[k]);
	mb.meta = meta;
	if (!rc)
		rc = extkit_inode_read(fs, ino, &inode);
	if (!rc) {
		extkit_mapbuild_fill(fs, &mb, &inode);
		rc = extkit_mapbuild_write(fs, ino, inode.generation, &mb);
	}
	for (size_t k = 0; !rc && k < r->ext.n; k++) {
		nblocks += r->ext.v[k].len;
		rc = set_blocks(fs, r->ext.v[k].pblk, r->ext.v[k].len, 1);
	}
	if (!rc) {
		extkit_inode_set_fs_blocks(fs, &inode, nblocks + mb.nmeta +
					   (inode.file_acl ? 1 : 0));
		rc = extkit_inode_write(fs, ino, &inode);
	}
	free(meta);
	free(mb.bufs);
	return rc;
}

/* ---- directory entries ---- */

/* The free-entry map of directory dir (cached): 0, 1 when dir is no
 * directory in use, 2 for an inline one (no map), or an error. */
static int dir_space(struct fc_replay *r, uint32_t dir)
{
	struct extkit_inode inode;
	int rc;

	if (r->ds && r->ds->ino == dir)
		return 0;
	drop_dir(r);
	rc = flush_extents(r);
	if (rc)
		return rc;
	rc = extkit_inode_read(r->fs, dir, &inode);
	if (rc)
		return rc;
	if (!inode_live(&inode) || !S_ISDIR(inode.mode))
		return 1;
	if (inode.flags & EXT4_INLINE_DATA_FL)
		return 2;
	r->ds = calloc(1, sizeof(*r->ds));
	if (!r->ds)
		return -ENOMEM;
	rc = extkit_dirspace_build(r->ds, r->fs, dir, 0);
	if (rc) {
		free(r->ds);
		r->ds = NULL;
		return rc == -ENOMEM || rc == -EIO ? rc : 1;
	}
	r->ds->alloc = (struct extkit_allocator){ .take_blocks = take_blocks,
						  .release = give_back,
						  .arg = r };
	return 0;
}

/* A new directory without a block gets one: '.' and '..'. */
static int init_dir(struct fc_replay *r, uint32_t ino, uint32_t parent,
		    struct extkit_inode *inode)
{
	struct extkit_fs *fs = r->fs;
	uint32_t bs = fs->g.block_size;
	struct extkit_extent ex = { .lblk = 0, .len = 1 };
	struct extkit_mapbuild mb = { .extents = 1, .list = &ex, .nlist = 1,
				      .nblocks = 1 };
	uint8_t *b;
	int rc;

	if (inode->size || !(inode->flags & EXT4_EXTENTS_FL) ||
	    (inode->flags & EXT4_INLINE_DATA_FL))
		return 0;	/* made already, or not ours to make */
	rc = take_block(r, ino_table(fs, ino), &ex.pblk);
	if (rc)
		return rc;
	b = calloc(1, bs);
	if (!b)
		return -ENOMEM;
	extkit_dirblock_new(fs, b, ino, parent, 0);
	rc = extkit_dirblock_write(fs, ino, inode->generation, ex.pblk, b);
	free(b);
	if (rc)
		return rc;
	rc = extkit_mapbuild_plan(fs, &mb);
	if (rc || mb.nmeta)
		return rc ? rc : -EFSCORRUPTED;
	extkit_mapbuild_fill(fs, &mb, inode);
	inode->size = bs;
	extkit_inode_set_fs_blocks(fs, inode, 1 + (inode->file_acl ? 1 : 0));
	if (inode->links_count < 2)
		inode->links_count = 2;
	return 0;
}

/* ---- inline directories ---- */

/*
 * An inline directory's entries lie in two parts (inline.h): part 0 is
 * i_block past the parent's inode number, part 1 the system.data value;
 * rec_len counts within a part. One part, copied out.
 */
struct inline_part {
	uint8_t buf[EXTKIT_INLINE_IBLOCK];
	uint8_t *p;		/* buf, or the value */
	uint32_t len;
	uint32_t off;		/* in the part (extkit_inline_write) */
};

/* The next record of an inline part through dir.c's cursor: 1, 0 at
 * the end, -EFSCORRUPTED for a damaged one. An inode number out of range
 * is not damage here (the record is sound; pass 2 judges the entry). */
static int next_record(struct extkit_dir_cursor *c)
{
	int rc = extkit_dir_cursor_next(c);

	if (rc == -EFSCORRUPTED && c->problem == EXTKIT_DIRENT_BAD_INODE)
		return 1;
	return rc;
}

/* Part k (0, 1) of the inline directory in raw: 0, or 1 when absent. */
static int inline_part(const struct extkit_fs *fs, const uint8_t *raw,
		       int k, struct inline_part *pt, uint8_t **ea)
{
	struct extkit_inline in;

	if (extkit_inline_locate(fs, raw, &in))
		return 1;
	if (k == 0) {
		pt->len = EXTKIT_INLINE_IBLOCK - EXTKIT_INLINE_DOTDOT;
		memcpy(pt->buf, in.iblock + EXTKIT_INLINE_DOTDOT, pt->len);
		pt->p = pt->buf;
		pt->off = EXTKIT_INLINE_DOTDOT;
		return 0;
	}
	if (!in.ea_len)
		return 1;
	*ea = malloc(in.ea_len);
	if (!*ea)
		return -ENOMEM;
	memcpy(*ea, in.ea, in.ea_len);
	pt->p = *ea;
	pt->len = in.ea_len;
	pt->off = 0;
	return 0;
}

/*
 * One edit of an inline directory's part: with add, name goes into the
 * first record with room (a free one, or a live one's slack), as the
 * kernel's ext4_add_dirent_to_inline; else the live record of name for
 * ino goes (merged into the previous one, or freed when first). 1 when
 * done (written), 0 when not possible in this part.
 */
static int inline_edit(struct fc_replay *r, uint32_t dir, int k,
		       struct inline_part *pt, const char *name, uint32_t len,
		       uint32_t ino, uint8_t ftype, int add)
{
	struct extkit_dir_format fmt;
	struct extkit_dir_cursor c;
	uint32_t need = extkit_dirent_min_len(len);
	int rc;

	extkit_dir_format_init(r->fs, &fmt);
	extkit_dir_cursor_init(&c, &fmt, pt->p, 0, pt->len);
	while ((rc = next_record(&c)) == 1) {
		uint8_t *e = pt->p + c.off;
		const struct ext2_dir_entry_2 *de = (const void *)e;
		uint32_t live = le32(de->inode);
		uint32_t nl = extkit_dirent_name_len(&fmt, de);
		uint32_t used = live ? extkit_dirent_min_len(nl) : 0;

		if (add && c.rec_len - used >= need) {
			if (used)
				extkit_dirent_set_rec_len(&fmt, e, used);
			extkit_dirent_set(&fmt, e + used, ino,
					  c.rec_len - used, name, len, ftype);
			break;
		}
		if (!add && live == ino && nl == len &&
		    !memcmp(de->name, name, len)) {
			if (c.prev == EXTKIT_DIR_NO_OFFSET)
				extkit_dirent_set(&fmt, e, 0, c.rec_len,
					de->name, nl,
					extkit_dirent_file_type(&fmt, de));
			else
				extkit_dirent_set_rec_len(&fmt, pt->p + c.prev,
					extkit_dirent_rec_len(&fmt,
						pt->p + c.prev) + c.rec_len);
			break;
		}
	}
	if (rc != 1)
		return 0;	/* no room, or damaged: left to pass 2 */
	rc = extkit_inline_write(r->fs, dir, k, pt->off, pt->p, pt->len);
	return rc ? rc : 1;
}

/* Adds (add) or removes name in inline directory dir: 0 when done, 1
 * when there is no room (or no such entry), or an error. */
static int inline_dir_edit(struct fc_replay *r, uint32_t dir,
			   const char *name, uint32_t len, uint32_t ino,
			   uint8_t ftype, int add)
{
	struct inline_part pt;
	int rc = 0;

	for (int k = 0; k < 2 && rc == 0; k++) {
		uint8_t *ea = NULL;

		rc = extkit_inode_read_raw(r->fs, dir, r->raw);
		if (!rc)
			rc = inline_part(r->fs, r->raw, k, &pt, &ea);
		if (rc == 1) {
			rc = 0;
			break;
		}
		if (!rc)
			rc = inline_edit(r, dir, k, &pt, name, len, ino, ftype,
					 add);
		free(ea);
	}
	return rc < 0 ? rc : rc == 1 ? 0 : 1;
}

/* Copies the live records of an inline part after *at in block b (up to
 * end); *last: the last record's offset. -ENOSPC past end. */
static int copy_part(const struct extkit_dir_format *fmt, const uint8_t *p,
		     uint32_t len, uint8_t *b, uint32_t end, uint32_t *at,
		     uint32_t *last)
{
	struct extkit_dir_cursor c;
	int rc;

	extkit_dir_cursor_init(&c, fmt, p, 0, len);
	while ((rc = next_record(&c)) == 1) {
		const struct ext2_dir_entry_2 *de = (const void *)(p + c.off);
		uint32_t ino = le32(de->inode);
		uint32_t nl = extkit_dirent_name_len(fmt, de);
		uint32_t need = extkit_dirent_min_len(nl);

		if (!ino)
			continue;
		if (*at + need > end)
			return -ENOSPC;
		extkit_dirent_set(fmt, b + *at, ino, need, de->name, nl,
				  extkit_dirent_file_type(fmt, de));
		*last = *at;
		*at += need;
	}
	return rc;
}

/*
 * An inline directory without room for an entry becomes a directory of
 * one block, as the kernel's ext4_convert_inline_dir makes it: '.', '..'
 * (the parent number of i_block) and the entries of both parts. The
 * system.data attribute stays, unused.
 */
static int inline_to_block(struct fc_replay *r, uint32_t dir)
{
	struct extkit_fs *fs = r->fs;
	uint32_t bs = fs->g.block_size, end = bs, at = 24, last = 12;
	struct extkit_extent ex = { .lblk = 0, .len = 1 };
	struct extkit_mapbuild mb = { .extents = 1, .list = &ex, .nlist = 1,
				      .nblocks = 1 };
	struct extkit_dir_format fmt;
	struct extkit_inode inode;
	struct extkit_inline in;
	uint8_t *b;
	int rc = extkit_inode_read_raw(fs, dir, r->raw);

	if (rc)
		return rc;
	if (extkit_inline_locate(fs, r->raw, &in) ||
	    !extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return 1;
	b = calloc(1, bs);
	if (!b)
		return -ENOMEM;
	extkit_dir_format_init(fs, &fmt);
	end = bs - fmt.tail_len;
	extkit_dirblock_new(fs, b, dir, get_le32(in.iblock),
			    EXTKIT_NEWDIR_OPEN);
	rc = copy_part(&fmt, in.iblock + EXTKIT_INLINE_DOTDOT,
		       EXTKIT_INLINE_IBLOCK - EXTKIT_INLINE_DOTDOT, b, end, &at,
		       &last);
	if (!rc && in.ea_len)
		rc = copy_part(&fmt, in.ea, in.ea_len, b, end, &at, &last);
	if (!rc)
		rc = extkit_dirent_set_rec_len(&fmt, b + last, end - last);
	if (!rc)
		rc = extkit_inode_read(fs, dir, &inode);
	if (!rc)
		rc = take_block(r, ino_table(fs, dir), &ex.pblk);
	if (!rc)
		rc = extkit_dirblock_write(fs, dir, inode.generation, ex.pblk,
					   b);
	free(b);
	if (!rc)
		rc = extkit_mapbuild_plan(fs, &mb);
	if (rc)
		return rc == -EFSCORRUPTED || rc == -ENOSPC ? 1 : rc;
	inode.flags &= ~(uint32_t)EXT4_INLINE_DATA_FL;
	extkit_mapbuild_fill(fs, &mb, &inode);
	inode.size = bs;
	extkit_inode_set_fs_blocks(fs, &inode, 1 + (inode.file_acl ? 1 : 0));
	return extkit_inode_write(fs, dir, &inode);
}

/*
 * Unlinks name from directory dir if it names ino (any inode when ino is
 * 0): the record's inode is zeroed through the directory iterator (which
 * keeps an htree's index and block checksums right, as the kernel's
 * unlink leaves them). 1 when removed, 0 when not there.
 */
static int remove_name(struct fc_replay *r, uint32_t dir, const char *name,
		       uint32_t len, uint32_t ino)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	int rc, done = 0;

	drop_dir(r);	/* the iterator edits the blocks under it */
	rc = extkit_dir_iter_open(r->fs, dir, 0, &it);
	if (rc)
		return rc;
	while (!done && (rc = extkit_dir_iter_next(it, &ent)) > 0) {
		if (ent.kind != EXTKIT_DE_LIVE || ent.name_len != len ||
		    memcmp(ent.name, name, len) || (ino && ent.inode != ino))
			continue;
		rc = extkit_dir_iter_set_inode(it, 0);
		done = !rc;
		if (rc)
			break;
	}
	if (extkit_dir_iter_close(it) && rc >= 0)
		rc = -EIO;
	return rc < 0 ? rc : done;
}

/* Clears inode ino's bit in its group's bitmap (alloc.c; counts in
 * memory); one free already, or in a group never initialised, stays. */
static int mark_inode_free(struct fc_replay *r, uint32_t ino)
{
	int rc = extkit_alloc_inode_set(r->fs, ino, 0, 0);

	return rc == -EFSCORRUPTED ? 0 : rc;
}

/*
 * UNLINK takes a link from ino; at none the inode goes as the kernel's
 * evict does it during its replay: dtime set, the bitmap bit cleared,
 * its blocks (data and map) let go (freed at the end unless a range of
 * the log maps them), size 0 and an empty map.
 */
static int drop_link(struct fc_replay *r, uint32_t ino)
{
	struct extkit_fs *fs = r->fs;
	struct extkit_inode inode;
	struct ext_list l = { 0 };
	struct load_arg a = { .l = &l, .tree = &r->released };
	struct extkit_walk wk = { .ino = ino, .flags = EXTKIT_WALK_DRY,
				  .fn = load_fn, .arg = &a };
	int rc = extkit_inode_read(fs, ino, &inode);

	if (rc)
		return rc;
	if (inode.links_count > 1) {
		inode.links_count--;
		return extkit_inode_write(fs, ino, &inode);
	}
	inode.links_count = 0;
	inode.dtime = fs->sb.wtime ? fs->sb.wtime : 1;
	if (extkit_inode_has_block_map(&inode) &&
	    !extkit_walk(fs, &inode, &wk) && !a.bad && !a.rc) {
		for (size_t k = 0; !rc && k < l.n; k++)
			rc = run_push(&r->released, l.v[k].pblk, l.v[k].len);
		if (!rc) {
			struct extkit_mapbuild mb = { .extents = 1 };

			inode.size = 0;
			if (inode.flags & EXT4_EXTENTS_FL)
				extkit_mapbuild_fill(fs, &mb, &inode);
			else
				memset(inode.block, 0, sizeof(inode.block));
			extkit_inode_set_fs_blocks(fs, &inode,
						   inode.file_acl ? 1 : 0);
		}
	}
	free(l.v);
	if (!rc)
		rc = extkit_inode_write(fs, ino, &inode);
	return rc ? rc : mark_inode_free(r, ino);
}

/* name for ino in inline directory parent (an entry of that name for
 * another inode goes first). 1: no room (the check reconnects ino). */
static int inline_link(struct fc_replay *r, uint32_t parent,
		       const char *name, uint32_t len, uint32_t ino,
		       uint8_t ftype)
{
	uint32_t found;
	int rc;

	if (!extkit_dir_lookup(r->fs, parent, name, len, &found)) {
		if (found == ino)
			return 0;
		rc = inline_dir_edit(r, parent, name, len, found, 0, 0);
		if (rc < 0)
			return rc;
	}
	return inline_dir_edit(r, parent, name, len, ino, ftype, 1);
}

/* CREAT, LINK: name in parent for ino (an entry of that name for another
 * inode is replaced, as e2fsck does); CREAT of a directory makes its
 * first block when it has none. 1: skipped. */
static int replay_link(struct fc_replay *r, uint32_t i)
{
	const uint8_t *v = tag_val(r, i);
	uint32_t parent = FC_LE32(v, ext4_fc_dentry_info, fc_parent_ino);
	uint32_t ino = FC_LE32(v, ext4_fc_dentry_info, fc_ino);
	uint32_t len = r->fc->tags[i].len - DENTRY_SIZE, found;
	const char *name = (const char *)v + DENTRY_SIZE;
	int creat = r->fc->tags[i].tag == EXTKIT_FC_CREAT;
	struct extkit_inode inode;
	uint8_t ftype;
	int rc;

	if (parent == ino)
		return 1;
	if (r->ext_ino == ino && (rc = flush_extents(r)))
		return rc;
	if (r->ds && r->ds->ino == ino)
		drop_dir(r);
	rc = extkit_inode_read(r->fs, ino, &inode);
	if (rc)
		return rc;
	ftype = extkit_mode_to_ftype(inode.mode);
	if (!inode.mode || ftype == EXT2_FT_UNKNOWN ||
	    (!creat && !inode.links_count))
		return 1;
	rc = dir_space(r, parent);	/* a directory in use, or skipped */
	if (rc < 0 || rc == 1)
		return rc;
	if (creat && S_ISDIR(inode.mode)) {
		rc = init_dir(r, ino, parent, &inode);
		if (rc)
			return rc;
	}
	if (!extkit_dir_lookup(r->fs, parent, name, len, &found) &&
	    found == ino) {
		rc = 0;		/* there already: no new link */
	} else if (r->ds) {
		rc = remove_name(r, parent, name, len, 0);
		if (rc >= 0)
			rc = dir_space(r, parent);	/* the map again */
		if (!rc)
			rc = extkit_dir_add(r->ds, name, len, ino, ftype, NULL);
		if (rc)
			drop_dir(r);
		if (!rc && !creat && inode.links_count < 65000)
			inode.links_count++;
	} else {
		rc = inline_link(r, parent, name, len, ino, ftype);
		if (rc == 1) {		/* no room: a block directory */
			rc = inline_to_block(r, parent);
			if (!rc)
				rc = dir_space(r, parent);
			if (!rc)
				rc = extkit_dir_add(r->ds, name, len, ino,
						    ftype, NULL);
		}
		if (!rc && !creat && inode.links_count < 65000)
			inode.links_count++;
	}
	if (rc)
		return rc;
	if (!inode.links_count)
		inode.links_count = 1;	/* CREAT: the kernel's set_nlink */
	rc = extkit_inode_write(r->fs, ino, &inode);
	return rc ? rc : mark_inode_used(r, ino);
}

/* UNLINK: name goes from parent if it names ino; ino loses a link. */
static int replay_unlink(struct fc_replay *r, uint32_t i)
{
	const uint8_t *v = tag_val(r, i);
	const char *name = (const char *)v + DENTRY_SIZE;
	uint32_t parent = FC_LE32(v, ext4_fc_dentry_info, fc_parent_ino);
	uint32_t ino = FC_LE32(v, ext4_fc_dentry_info, fc_ino);
	uint32_t len = r->fc->tags[i].len - DENTRY_SIZE;
	int rc = dir_space(r, parent);

	if (rc == 2) {
		rc = inline_dir_edit(r, parent, name, len, ino, 0, 0);
		rc = rc == 0 ? 1 : rc == 1 ? 0 : rc;	/* 1: removed */
	} else if (!rc) {
		rc = remove_name(r, parent, name, len, ino);
	} else {
		return rc;
	}
	if (rc <= 0)
		return rc;
	if (r->ext_ino == ino && (rc = flush_extents(r)))
		return rc;
	return drop_link(r, ino);
}

/* ---- the whole replay ---- */

static int replay_tag(struct fc_replay *r, uint32_t i)
{
	switch (r->fc->tags[i].tag) {
	case EXTKIT_FC_ADD_RANGE:
		return replay_add_range(r, i);
	case EXTKIT_FC_DEL_RANGE:
		return replay_del_range(r, i);
	case EXTKIT_FC_INODE:
		return replay_inode(r, i);
	case EXTKIT_FC_CREAT:
	case EXTKIT_FC_LINK:
		return replay_link(r, i);
	case EXTKIT_FC_UNLINK:
		return replay_unlink(r, i);
	}
	return 1;
}

static const char *skip_reason(uint16_t tag)
{
	switch (tag) {
	case EXTKIT_FC_ADD_RANGE:
	case EXTKIT_FC_DEL_RANGE:
		return "an inode without a sound extent map";
	case EXTKIT_FC_UNLINK:
		return "a directory that is not one";
	}
	return "an inode or directory that is not in use or damaged";
}

/* The superblock's free counts from the groups' (the kernel does not
 * log them; e2fsck's replay counts them again too). */
static void sum_free_counts(struct extkit_fs *fs)
{
	uint64_t blocks = 0, inodes = 0;

	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		blocks += fs->groups[g].free_blocks;	/* clusters */
		inodes += fs->groups[g].free_inodes;
	}
	blocks *= fs->g.cluster_ratio;
	if (blocks <= fs->sb.blocks_count && inodes <= fs->sb.inodes_count) {
		fs->sb.free_blocks_count = blocks;
		fs->sb.free_inodes_count = (uint32_t)inodes;
	}
}

int extkit_fc_replay(struct extkit_fs *fs, const struct extkit_fc *fc,
		     struct extkit_fc_stats *st)
{
	struct fc_replay r = { .fs = fs, .fc = fc, .st = st };
	uint8_t *bad = calloc(fc->ntags ? fc->ntags : 1, 1);
	int rc;

	memset(st, 0, sizeof(*st));
	r.raw = malloc(fs->g.inode_size);
	rc = bad && r.raw ? collect_meta(&r) : -ENOMEM;
	if (!rc)
		rc = check_all(&r, bad);
	for (uint32_t i = 0; !rc && i < fc->ntags; i++) {
		if (bad[i])
			continue;
		rc = replay_tag(&r, i);
		if (rc == 1) {
			skip(&r, i, skip_reason(fc->tags[i].tag));
		} else if (rc < 0 && rc != -EIO && rc != -ENOMEM) {
			/* the library refused (a damaged or unsupported
			 * directory, no space): that tag alone */
			skip(&r, i, extkit_strerror(rc));
			drop_dir(&r);
		} else if (!rc) {
			st->applied[fc->tags[i].tag]++;
		}
		rc = rc < 0 && rc != -EIO && rc != -ENOMEM ? 0 :
		     rc == 1 ? 0 : rc;
	}
	if (!rc)
		rc = flush_extents(&r);
	drop_dir(&r);
	if (!rc)
		rc = free_released(&r);
	if (!rc) {
		sum_free_counts(fs);
		rc = extkit_alloc_commit(fs);
	}
	free(r.ext.v);
	free(r.meta.v);
	free(r.claimed.v);
	free(r.released.v);
	free(r.old_tree.v);
	free(r.raw);
	free(bad);
	return rc;
}
