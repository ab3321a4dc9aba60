// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Quota files: read and check, lay out, write into the quota inode (see
 * quota.h). Facts from the kernel's fs/quota/quota_tree.c and
 * quotaio_v2.h and e2fsprogs' lib/support/quotaio_tree.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bitmap.h"
#include "bmap.h"
#include "endian.h"
#include "error.h"
#include "mapbuild.h"
#include "ondisk.h"
#include "quota.h"
#include "xattr.h"

#define QBLK		EXTKIT_QUOTA_BLOCK
#define QREFS		(QBLK / 4)	/* references in a tree block */
#define QHDR		sizeof(struct qt_disk_dqdbheader)
#define QFILE_MAX	(1ULL << 31)	/* e2fsprogs' limit on the size */

static const uint32_t quota_magic[EXTKIT_QUOTA_TYPES] = {
	EXT4_QUOTA_MAGIC_USR, EXT4_QUOTA_MAGIC_GRP, EXT4_QUOTA_MAGIC_PRJ,
};

const char *extkit_quota_type_name(int type)
{
	static const char *const names[] = { "user", "group", "project" };

	return type >= 0 && type < EXTKIT_QUOTA_TYPES ? names[type] : "?";
}

uint32_t extkit_quota_inum(const struct extkit_super *sb, int type)
{
	if (!(sb->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_QUOTA) ||
	    type < 0 || type >= EXTKIT_QUOTA_TYPES)
		return 0;
	return sb->quota_inum[type];
}

uint32_t extkit_quota_id(const struct extkit_inode *inode, int type)
{
	switch (type) {
	case 0:
		return inode->uid;
	case 1:
		return inode->gid;
	default:
		return inode->projid;	/* 0 when the inode has no room */
	}
}

int extkit_quota_charged(const struct extkit_fs *fs, uint32_t ino,
			 const struct extkit_inode *inode)
{
	const struct extkit_super *sb = &fs->sb;

	if (ino != EXT2_ROOT_INO && ino < fs->g.first_ino)
		return 0;
	if (ino == sb->quota_inum[2] || (inode->flags & EXT4_EA_INODE_FL))
		return 0;
	return !((sb->feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
		 ino == sb->orphan_file_inum);
}

/* EA inodes a region names. */
static uint32_t region_ea_inodes(const struct extkit_xattr_region *r)
{
	struct extkit_xattr x;
	uint32_t off = r->first, n = 0;
	int guard = 0;

	while (extkit_xattr_next(r, &off, &x) == 1 && guard++ < 4096)
		if (x.value_inum)
			n++;
	return n;
}

uint32_t extkit_quota_ea_inodes(struct extkit_fs *fs, const uint8_t *raw,
				const struct extkit_inode *in, uint8_t *blk)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	uint32_t n = 0;

	if (!extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_EA_INODE))
		return 0;
	if (extkit_xattr_ibody_region(raw, fs->g.inode_size, &r) == 1)
		n += region_ea_inodes(&r);
	if (!in->file_acl || !extkit_fs_valid_block(fs, in->file_acl) ||
	    extkit_fs_read_block(fs, in->file_acl, blk))
		return n;
	extkit_xattr_format_init(fs, &fmt);
	if (extkit_xattr_block_check(&fmt, blk))
		return n;
	extkit_xattr_block_region(&fmt, blk, &r);
	return n + region_ea_inodes(&r);
}

/* ---- the set of dquots ---- */

static size_t slot_of(uint32_t id, size_t cap)
{
	return (size_t)((id * 2654435761u) & (cap - 1));
}

static int set_grow(struct extkit_quota_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	struct extkit_dquot *v = calloc(cap, sizeof(*v));
	uint8_t *used = calloc(cap, 1);

	if (!v || !used) {
		free(v);
		free(used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->used[i])
			continue;
		for (j = slot_of(s->v[i].id, cap); used[j]; j = (j + 1) & (cap - 1))
			;
		used[j] = 1;
		v[j] = s->v[i];
	}
	free(s->v);
	free(s->used);
	s->v = v;
	s->used = used;
	s->cap = cap;
	return 0;
}

struct extkit_dquot *extkit_quota_set_find(const struct extkit_quota_set *s,
					   uint32_t id)
{
	if (!s->cap)
		return NULL;
	for (size_t j = slot_of(id, s->cap); s->used[j];
	     j = (j + 1) & (s->cap - 1))
		if (s->v[j].id == id)
			return &s->v[j];
	return NULL;
}

struct extkit_dquot *extkit_quota_set_get(struct extkit_quota_set *s,
					  uint32_t id)
{
	struct extkit_dquot *d = extkit_quota_set_find(s, id);
	size_t j;

	if (d)
		return d;
	if ((s->n + 1) * 2 > s->cap && set_grow(s))
		return NULL;
	for (j = slot_of(id, s->cap); s->used[j]; j = (j + 1) & (s->cap - 1))
		;
	s->used[j] = 1;
	memset(&s->v[j], 0, sizeof(s->v[j]));
	s->v[j].id = id;
	s->n++;
	return &s->v[j];
}

static int cmp_dquot(const void *a, const void *b)
{
	uint32_t x = (*(struct extkit_dquot *const *)a)->id;
	uint32_t y = (*(struct extkit_dquot *const *)b)->id;

	return x < y ? -1 : x > y;
}

int extkit_quota_set_sorted(const struct extkit_quota_set *s,
			    struct extkit_dquot ***out)
{
	struct extkit_dquot **v = malloc((s->n + 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->used[i])
			v[k++] = &s->v[i];
	qsort(v, k, sizeof(*v), cmp_dquot);
	*out = v;
	return 0;
}

void extkit_quota_set_free(struct extkit_quota_set *s)
{
	free(s->v);
	free(s->used);
	memset(s, 0, sizeof(*s));
}

/* ---- reading ---- */

struct qreader {
	struct extkit_fs *fs;
	struct extkit_inode inode;
	uint8_t *fsblk;		/* one filesystem block */
	uint64_t cached;	/* logical block in fsblk, or ~0 */
	uint32_t entry_size;
	uint32_t per_block;	/* entries in a data block */
	uint32_t blocks;	/* dqi_blocks */
	struct extkit_bitmap seen;	/* quota blocks visited */
	struct extkit_quota_file *qf;
	uint64_t refs;		/* data references (ids) in the tree */
	const char *why;
};

/* Quota block q into out (zeros for a hole). */
static int read_qblk(struct qreader *r, uint32_t q, uint8_t *out)
{
	uint32_t bs = r->fs->g.block_size;
	uint64_t byte = (uint64_t)q * QBLK, lblk = byte / bs, pblk;
	int rc;

	if (lblk != r->cached) {
		rc = extkit_bmap(r->fs, &r->inode, lblk, &pblk);
		if (rc)
			return rc;
		if (!pblk)
			memset(r->fsblk, 0, bs);
		else if ((rc = extkit_fs_read_block(r->fs, pblk, r->fsblk)))
			return rc;
		r->cached = lblk;
	}
	memcpy(out, r->fsblk + byte % bs, QBLK);
	return 0;
}

static int corrupt(struct qreader *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return -EFSCORRUPTED;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void decode_entry(const struct qreader *r, const uint8_t *p,
			 struct extkit_dquot *d)
{
	if (r->qf->version == 1) {
		const struct v2r1_disk_dqblk *e = (const void *)p;

		d->id = le32(e->dqb_id);
		d->ihardlimit = le64(e->dqb_ihardlimit);
		d->isoftlimit = le64(e->dqb_isoftlimit);
		d->curinodes = le64(e->dqb_curinodes);
		d->bhardlimit = le64(e->dqb_bhardlimit);
		d->bsoftlimit = le64(e->dqb_bsoftlimit);
		d->curspace = le64(e->dqb_curspace);
		d->btime = le64(e->dqb_btime);
		d->itime = le64(e->dqb_itime);
	} else {
		const struct v2r0_disk_dqblk *e = (const void *)p;

		d->id = le32(e->dqb_id);
		d->ihardlimit = le32(e->dqb_ihardlimit);
		d->isoftlimit = le32(e->dqb_isoftlimit);
		d->curinodes = le32(e->dqb_curinodes);
		d->bhardlimit = le32(e->dqb_bhardlimit);
		d->bsoftlimit = le32(e->dqb_bsoftlimit);
		d->curspace = le64(e->dqb_curspace);
		d->btime = le64(e->dqb_btime);
		d->itime = le64(e->dqb_itime);
	}
	/* an entry otherwise empty is written with itime 1 */
	if (!d->id && !d->ihardlimit && !d->isoftlimit && !d->curinodes &&
	    !d->bhardlimit && !d->bsoftlimit && !d->curspace && !d->btime &&
	    d->itime == 1)
		d->itime = 0;
}

/* A data block, first visit: its entries go into the set. */
static int read_data_block(struct qreader *r, uint32_t q, const uint8_t *b)
{
	const struct qt_disk_dqdbheader *h = (const void *)b;
	uint32_t used = 0;

	for (uint32_t i = 0; i < r->per_block; i++) {
		const uint8_t *p = b + QHDR + (size_t)i * r->entry_size;
		struct extkit_dquot d, *slot;

		if (all_zero(p, r->entry_size))
			continue;
		used++;
		decode_entry(r, p, &d);
		if (extkit_quota_set_find(&r->qf->dq, d.id))
			return corrupt(r, "an id has two entries");
		slot = extkit_quota_set_get(&r->qf->dq, d.id);
		if (!slot)
			return -ENOMEM;
		*slot = d;
		slot->qblk = q;	/* for the reference check */
	}
	if (used != le16(h->dqdh_entries))
		return corrupt(r, "a data block's entry count is wrong");
	return 0;
}

static int visit(struct qreader *r, uint32_t q)
{
	if (q < EXT4_QUOTA_TREE_ROOT || q >= r->blocks)
		return corrupt(r, "a reference points outside the file");
	return 0;
}

static int read_tree(struct qreader *r, uint32_t q, int depth, uint32_t id)
{
	uint8_t b[QBLK];
	int rc = visit(r, q);

	if (rc)
		return rc;
	if (extkit_bitmap_test(&r->seen, q))
		return corrupt(r, "a tree block is referenced twice");
	extkit_bitmap_set(&r->seen, q);
	rc = read_qblk(r, q, b);
	for (uint32_t i = 0; !rc && i < QREFS; i++) {
		uint32_t c = le32(((const __le32 *)b)[i]);
		uint32_t cid = id | (i << (8 * (EXT4_QUOTA_TREE_DEPTH - 1 -
						 depth)));
		uint8_t d[QBLK];
		struct extkit_dquot *e;

		if (!c)
			continue;
		if (depth < EXT4_QUOTA_TREE_DEPTH - 1) {
			rc = read_tree(r, c, depth + 1, cid);
			continue;
		}
		rc = visit(r, c);
		if (!rc && !extkit_bitmap_test(&r->seen, c)) {
			extkit_bitmap_set(&r->seen, c);
			rc = read_qblk(r, c, d);
			if (!rc)
				rc = read_data_block(r, c, d);
		}
		if (!rc && (!(e = extkit_quota_set_find(&r->qf->dq, cid)) ||
			    e->qblk != c))
			rc = corrupt(r, "an id's reference has no entry");
		r->refs++;
	}
	return rc;
}

static int read_info(struct qreader *r, int type)
{
	uint8_t b[QBLK];
	const struct v2_disk_dqheader *h = (const void *)b;
	const struct v2_disk_dqinfo *in =
		(const void *)(b + EXT4_QUOTA_INFO_OFF);
	struct extkit_quota_file *qf = r->qf;
	uint64_t size = r->inode.size;
	int rc;

	if (size < 2 * QBLK || size > QFILE_MAX)
		return corrupt(r, "its size is not that of a quota file");
	rc = read_qblk(r, 0, b);
	if (rc)
		return rc;
	if (le32(h->dqh_magic) != quota_magic[type])
		return corrupt(r, "bad magic number");
	qf->version = le32(h->dqh_version);
	if (qf->version > 1)
		return corrupt(r, "unknown version");
	qf->bgrace = le32(in->dqi_bgrace);
	qf->igrace = le32(in->dqi_igrace);
	qf->flags = le32(in->dqi_flags);
	qf->blocks = le32(in->dqi_blocks);
	qf->free_blk = le32(in->dqi_free_blk);
	qf->free_entry = le32(in->dqi_free_entry);
	if (qf->blocks < 2 || qf->blocks > (size + QBLK - 1) / QBLK)
		return corrupt(r, "its block count does not fit its size");
	if (qf->free_blk >= qf->blocks || qf->free_entry >= qf->blocks)
		return corrupt(r, "a free list points outside the file");
	r->blocks = qf->blocks;
	r->entry_size = qf->version ? sizeof(struct v2r1_disk_dqblk) :
				      sizeof(struct v2r0_disk_dqblk);
	r->per_block = (QBLK - QHDR) / r->entry_size;
	return 0;
}

int extkit_quota_read(struct extkit_fs *fs, uint32_t ino, int type,
		      struct extkit_quota_file *qf, const char **why)
{
	struct qreader r = { .fs = fs, .qf = qf, .cached = ~0ULL };
	int rc;

	memset(qf, 0, sizeof(*qf));
	*why = NULL;
	if (type < 0 || type >= EXTKIT_QUOTA_TYPES || !ino ||
	    ino > fs->sb.inodes_count)
		return -EINVAL;
	rc = extkit_inode_read(fs, ino, &r.inode);
	if (rc)
		return rc;
	if (!S_ISREG(r.inode.mode) || !extkit_inode_has_block_map(&r.inode)) {
		*why = "it is not a regular file";
		return -EFSCORRUPTED;
	}
	r.fsblk = malloc(fs->g.block_size);
	if (!r.fsblk)
		return -ENOMEM;
	rc = read_info(&r, type);
	if (!rc)
		rc = extkit_bitmap_init(&r.seen, r.blocks);
	if (!rc) {
		rc = read_tree(&r, EXT4_QUOTA_TREE_ROOT, 0, 0);
		extkit_bitmap_free(&r.seen);
	}
	if (!rc && r.refs != qf->dq.n)
		rc = corrupt(&r, "an entry has no reference");
	free(r.fsblk);
	if (rc == -EFSCORRUPTED)
		*why = r.why ? r.why : "a block map is corrupt";
	if (rc)
		extkit_quota_set_free(&qf->dq);
	return rc;
}

/* ---- building ---- */

struct qbuilder {
	uint8_t *buf;
	uint32_t blocks;	/* dqi_blocks */
	uint32_t cap;		/* blocks allocated in buf */
	uint32_t free_entry;	/* data block with room, 0: none */
};

static int new_qblk(struct qbuilder *b, uint32_t *q)
{
	if (b->blocks == b->cap) {
		uint32_t cap = b->cap * 2;
		uint8_t *n = realloc(b->buf, (size_t)cap * QBLK);

		if (!n)
			return -ENOMEM;
		memset(n + (size_t)b->cap * QBLK, 0,
		       (size_t)(cap - b->cap) * QBLK);
		b->buf = n;
		b->cap = cap;
	}
	*q = b->blocks++;
	return 0;
}

static void encode_entry(uint8_t *p, const struct extkit_dquot *d)
{
	struct v2r1_disk_dqblk e;

	e.dqb_id = cpu_to_le32(d->id);
	e.dqb_pad = 0;
	e.dqb_ihardlimit = cpu_to_le64(d->ihardlimit);
	e.dqb_isoftlimit = cpu_to_le64(d->isoftlimit);
	e.dqb_curinodes = cpu_to_le64(d->curinodes);
	e.dqb_bhardlimit = cpu_to_le64(d->bhardlimit);
	e.dqb_bsoftlimit = cpu_to_le64(d->bsoftlimit);
	e.dqb_curspace = cpu_to_le64(d->curspace);
	e.dqb_btime = cpu_to_le64(d->btime);
	e.dqb_itime = cpu_to_le64(d->itime);
	if (all_zero((const uint8_t *)&e, sizeof(e)))
		e.dqb_itime = cpu_to_le64(1);
	memcpy(p, &e, sizeof(e));
}

/* The entry goes into the data block with room, or a new one. */
static int place_entry(struct qbuilder *b, const struct extkit_dquot *d,
		       uint32_t *blk)
{
	const uint32_t per = (QBLK - QHDR) / sizeof(struct v2r1_disk_dqblk);
	struct qt_disk_dqdbheader *h;
	uint8_t *p;
	uint32_t q = b->free_entry, n;
	int rc;

	if (!q) {
		rc = new_qblk(b, &q);
		if (rc)
			return rc;
		b->free_entry = q;
	}
	p = b->buf + (size_t)q * QBLK;
	h = (struct qt_disk_dqdbheader *)p;
	n = le16(h->dqdh_entries);
	if (n + 1 >= per)	/* full after this one: off the free list */
		b->free_entry = 0;
	h->dqdh_entries = cpu_to_le16((uint16_t)(n + 1));
	encode_entry(p + QHDR + (size_t)n * sizeof(struct v2r1_disk_dqblk),
		     d);
	*blk = q;
	return 0;
}

/* Inserts d through the tree, allocating tree blocks as e2fsprogs does
 * (each before the levels below it). */
static int insert(struct qbuilder *b, const struct extkit_dquot *d,
		  uint32_t q, int depth)
{
	uint32_t idx = (d->id >> (8 * (EXT4_QUOTA_TREE_DEPTH - 1 - depth))) &
		       0xff;
	uint32_t child = le32(((__le32 *)(b->buf + (size_t)q * QBLK))[idx]);
	int rc;

	if (depth == EXT4_QUOTA_TREE_DEPTH - 1) {
		rc = place_entry(b, d, &child);
	} else {
		if (!child && (rc = new_qblk(b, &child)))
			return rc;
		rc = insert(b, d, child, depth + 1);
	}
	if (!rc)	/* buf may have moved */
		((__le32 *)(b->buf + (size_t)q * QBLK))[idx] =
			cpu_to_le32(child);
	return rc;
}

static void set_grace(struct extkit_dquot *d, uint32_t bgrace,
		      uint32_t igrace, uint32_t now)
{
	if (d->bsoftlimit && (d->curspace + 1023) / 1024 > d->bsoftlimit) {
		if (!d->btime)
			d->btime = (uint64_t)now + bgrace;
	} else {
		d->btime = 0;
	}
	if (d->isoftlimit && d->curinodes > d->isoftlimit) {
		if (!d->itime)
			d->itime = (uint64_t)now + igrace;
	} else {
		d->itime = 0;
	}
}

int extkit_quota_build(int type, uint32_t bgrace, uint32_t igrace,
		       uint32_t flags, struct extkit_dquot *const *dq,
		       size_t n, uint32_t now, uint8_t **out, size_t *len)
{
	struct qbuilder b = { .blocks = 2, .cap = 8 };
	struct v2_disk_dqheader *h;
	struct v2_disk_dqinfo *in;
	int rc = 0;

	if (type < 0 || type >= EXTKIT_QUOTA_TYPES)
		return -EINVAL;
	b.buf = calloc(b.cap, QBLK);
	if (!b.buf)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		struct extkit_dquot d = *dq[i];

		if (!d.curspace && !d.curinodes && !d.bsoftlimit &&
		    !d.isoftlimit && !d.bhardlimit && !d.ihardlimit)
			continue;
		set_grace(&d, bgrace, igrace, now);
		rc = insert(&b, &d, EXT4_QUOTA_TREE_ROOT, 0);
	}
	if (rc) {
		free(b.buf);
		return rc;
	}
	h = (struct v2_disk_dqheader *)b.buf;
	h->dqh_magic = cpu_to_le32(quota_magic[type]);
	h->dqh_version = cpu_to_le32(1);
	in = (struct v2_disk_dqinfo *)(b.buf + EXT4_QUOTA_INFO_OFF);
	in->dqi_bgrace = cpu_to_le32(bgrace);
	in->dqi_igrace = cpu_to_le32(igrace);
	in->dqi_flags = cpu_to_le32(flags);
	in->dqi_blocks = cpu_to_le32(b.blocks);
	in->dqi_free_blk = 0;
	in->dqi_free_entry = cpu_to_le32(b.free_entry);
	*out = b.buf;
	*len = (size_t)b.blocks * QBLK;
	return 0;
}

/* ---- writing into the inode ---- */

static int collect_freed(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
			 uint32_t count, int flags, void *arg)
{
	(void)fs;
	(void)lblk;
	(void)flags;
	for (uint32_t i = 0; i < count; i++)
		if (extkit_blk_list_push(arg, pblk + i))
			return -ENOMEM;
	return 0;
}

/* Finds n data blocks and the map blocks they need, near goal. */
/*
 * e2fsprogs' quota writer allocates a block of 1 KiB when it first
 * writes it: the header (quota block 0), then the first id's tree path
 * and data block (2 .. 5), as it extends the file, then the root (1) as
 * the insertion unwinds; later blocks in order. With 1 KiB filesystem
 * blocks, the root thus lies after block 5 (larger blocks hold quota
 * blocks 0 and 1 together, in the order the file has them).
 */
static void order_as_e2fsprogs(const struct extkit_fs *fs, uint64_t nblocks,
			       uint64_t *all)
{
	uint64_t root;

	if (fs->g.block_size != EXTKIT_QUOTA_BLOCK ||
	    nblocks < 2 + EXT4_QUOTA_TREE_DEPTH)
		return;
	root = all[1 + EXT4_QUOTA_TREE_DEPTH];
	memmove(all + 2, all + 1, EXT4_QUOTA_TREE_DEPTH * sizeof(*all));
	all[1] = root;
}

static int plan_blocks(struct extkit_fs *fs, uint64_t goal,
		       struct extkit_mapbuild *mb, uint64_t *all)
{
	int rc;

	for (int tries = 0; tries < 4; tries++) {
		uint64_t want = mb->nblocks + mb->nmeta;

		rc = extkit_alloc_find(fs, goal, want, all);
		if (rc)
			return rc;
		order_as_e2fsprogs(fs, mb->nblocks, all);
		mb->pblks = all;
		rc = extkit_mapbuild_plan(fs, mb);
		if (rc)
			return rc;
		if (mb->nblocks + mb->nmeta <= want) {
			mb->meta = all + mb->nblocks;
			return 0;
		}
	}
	return -ENOSPC;
}

/*
 * bigalloc: whole clusters, logical block i at offset i % ratio of its
 * cluster (as the kernel requires of an extent file), and each tree block
 * the map needs in a cluster of its own. all[] gets the data blocks then
 * the tree blocks; clus[] the clusters (data first), *nclus of them.
 */
static int plan_clusters(struct extkit_fs *fs, uint64_t goal,
			 struct extkit_mapbuild *mb, uint64_t *all,
			 uint64_t *clus, uint64_t *nclus)
{
	uint32_t shift = fs->g.cluster_bits, mask = (1u << shift) - 1;
	uint64_t ndata = (mb->nblocks + mask) >> shift;
	int rc;

	for (int tries = 0; tries < 4; tries++) {
		uint64_t want = ndata + mb->nmeta;

		rc = extkit_alloc_find_clusters(fs, goal, want, clus);
		if (rc)
			return rc;
		for (uint64_t i = 0; i < mb->nblocks; i++)
			all[i] = (clus[i >> shift] << shift) + (i & mask);
		mb->pblks = all;
		rc = extkit_mapbuild_plan(fs, mb);
		if (rc)
			return rc;
		if (ndata + mb->nmeta <= want) {
			for (uint64_t k = 0; k < mb->nmeta; k++)
				all[mb->nblocks + k] = clus[ndata + k] << shift;
			mb->meta = all + mb->nblocks;
			*nclus = ndata + mb->nmeta;
			return 0;
		}
	}
	return -ENOSPC;
}

/* The blocks of a run list as the clusters holding them, freed once. */
static int release_clusters(struct extkit_fs *fs, struct extkit_blk_list *l)
{
	uint32_t shift = fs->g.cluster_bits;
	uint64_t n = 0;
	int rc = 0;

	extkit_blk_list_sort(l);
	for (uint64_t i = 0; i < l->n; i++) {
		uint64_t c = l->blk[i] >> shift;

		if (!n || l->blk[n - 1] != c)
			l->blk[n++] = c;
	}
	l->n = n;
	for (uint64_t i = 0, j; !rc && i < n; i = j) {
		for (j = i + 1; j < n && l->blk[j] == l->blk[j - 1] + 1; j++)
			;
		rc = extkit_free_clusters(fs, l->blk[i], j - i);
	}
	return rc;
}

/* Takes the planned blocks (block runs) or clusters (bigalloc). */
static int mark_planned(struct extkit_fs *fs, const uint64_t *v, uint64_t n)
{
	int rc = 0;

	for (uint64_t i = 0, run; !rc && i < n; i += run) {
		for (run = 1; i + run < n && v[i + run] == v[i] + run; run++)
			;
		rc = fs->g.cluster_bits ?
		     extkit_alloc_mark_clusters(fs, v[i], run) :
		     extkit_alloc_mark(fs, v[i], run);
	}
	return rc;
}

static void make_quota_inode(struct extkit_fs *fs, struct extkit_inode *in,
			     uint64_t size, uint32_t now)
{
	in->mode = S_IFREG | 0600;
	in->uid = in->gid = 0;
	in->links_count = 1;
	in->dtime = 0;
	in->flags = EXT2_IMMUTABLE_FL;
	in->file_acl = 0;
	in->atime = in->ctime = in->mtime = now;
	if (fs->g.inode_size > EXT2_GOOD_OLD_INODE_SIZE && !in->extra_isize)
		in->extra_isize = 32;
	if (in->extra_isize >= 8)	/* e2fsprogs makes the inode anew */
		in->crtime = now;
	in->size = size;	/* the quota blocks, as e2fsprogs sets it */
}

int extkit_quota_write_inode(struct extkit_fs *fs, uint32_t ino,
			     const uint8_t *buf, size_t len, uint32_t now)
{
	int rc = extkit_quota_write_inode_nocommit(fs, ino, buf, len, now);

	return rc ? rc : extkit_alloc_commit(fs);
}

int extkit_quota_write_inode_nocommit(struct extkit_fs *fs, uint32_t ino,
				      const uint8_t *buf, size_t len,
				      uint32_t now)
{
	uint32_t bs = fs->g.block_size;
	struct extkit_mapbuild mb = { 0 };
	struct extkit_blk_list old = { 0 };
	struct extkit_inode in;
	uint64_t *all = NULL, *clus = NULL, goal, nclus = 0;
	uint8_t *data = NULL;
	int bigalloc = fs->g.cluster_ratio > 1, rc;

	mb.extents = !!(fs->sb.feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS);
	if (bigalloc && !mb.extents)	/* the kernel maps clusters by extents */
		return -EXTKIT_EUNSUPP;
	rc = extkit_inode_read(fs, ino, &in);
	if (rc)
		return rc;
	mb.nblocks = (len + bs - 1) / bs;
	all = calloc(mb.nblocks * 2 + 16, sizeof(*all));
	clus = calloc(mb.nblocks + 16, sizeof(*clus));
	data = calloc(mb.nblocks, bs);
	if (!all || !clus || !data) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(data, buf, len);
	goal = fs->sb.first_data_block;
	if (extkit_inode_has_block_map(&in) &&
	    extkit_bmap(fs, &in, 0, &goal) == 0 && goal)
		goal--;		/* near the old data */
	rc = bigalloc ? plan_clusters(fs, goal, &mb, all, clus, &nclus) :
			plan_blocks(fs, goal, &mb, all);
	if (rc)
		goto out;
	mb.bufs = calloc(mb.nmeta + 1, bs);
	if (!mb.bufs) {
		rc = -ENOMEM;
		goto out;
	}
	/* Everything decided: free the old map, take and write the new. */
	if (S_ISREG(in.mode) && extkit_inode_has_block_map(&in))
		rc = extkit_bmap_truncate(fs, ino, &in, 0, 0, collect_freed,
					  &old);
	else
		memset(in.block, 0, sizeof(in.block));
	if (!rc)
		rc = bigalloc ? release_clusters(fs, &old) :
				extkit_blk_list_release(fs, &old);
	if (!rc)
		rc = bigalloc ? mark_planned(fs, clus, nclus) :
				mark_planned(fs, all, mb.nblocks + mb.nmeta);
	for (uint64_t i = 0; !rc && i < mb.nblocks; i++)
		rc = extkit_fs_write_block(fs, all[i], data + i * bs);
	if (rc)
		goto out;
	make_quota_inode(fs, &in, len, now);
	extkit_mapbuild_fill(fs, &mb, &in);
	/* bigalloc: i_blocks counts whole clusters */
	extkit_inode_set_fs_blocks(fs, &in, bigalloc ?
				   nclus << fs->g.cluster_bits :
				   mb.nblocks + mb.nmeta);
	rc = extkit_mapbuild_write(fs, ino, in.generation, &mb);
	if (!rc)
		rc = extkit_inode_write(fs, ino, &in);
out:
	extkit_blk_list_free(&old);
	free(mb.bufs);
	free(all);
	free(clus);
	free(data);
	return rc;
}
