// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Adding a name to an indexed directory and keeping its index (the
 * kernel's ext4_dx_add_entry, fs/ext4/namei.c): the name's hash leads
 * down the root and nodes to one leaf; the name goes into that leaf when
 * it has room. A full leaf is split as the kernel's do_split does: its
 * records sorted by hash, the upper ones (under half a block) moved to a
 * block appended to the directory, the new block's lowest hash (bit 0
 * set when it continues a run of equal hashes) inserted into the parent
 * after the full leaf's entry. Every block is written with its checksum
 * (leaf tail, dx tail). A full parent is split first (the upper half
 * of its entries to a new node, its first hash into the grandparent),
 * from the highest full index block down; a full root gets a level
 * below it (its entries moved to a new node), up to the depth the
 * filesystem allows (1, 2 with large_dir). Shapes not handled here (an
 * index full at that depth; encrypted names; an index that does not
 * parse) answer -EAGAIN: the caller then drops the index as before.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dirblock.h"
#include "dirleaf.h"
#include "dxadd.h"
#include "endian.h"
#include "error.h"
#include "htree.h"
#include "inode.h"
#include "ondisk.h"

#define DX_MAX_LEVELS	4	/* frames: root, two nodes, and one spare */

/* One index block on the way down. */
struct dx_frame {
	uint64_t lblk;
	uint32_t entries;	/* offset of the count/limit (entry 0) */
	uint32_t count, limit;
	uint32_t at;		/* the entry followed */
};

struct dx_rec {
	uint32_t hash;
	uint32_t off;
	uint32_t len;		/* minimal record length */
};

static int read_lblk(struct extkit_dirspace *ds, uint64_t lblk, uint8_t *buf)
{
	if (lblk >= ds->nblocks || !ds->pblks[lblk])
		return -EAGAIN;
	return extkit_fs_read_block(ds->fs, ds->pblks[lblk], buf);
}

/* Follows hash through the index block in buf; -EAGAIN if unusable. */
static int frame_step(const uint8_t *buf, uint32_t bs, struct dx_frame *f,
		      uint32_t hash, uint64_t *next)
{
	const uint8_t *e = buf + f->entries;
	uint32_t lo = 1, hi;

	f->limit = get_le16(e);
	f->count = get_le16(e + 2);
	if (!f->count || f->count > f->limit ||
	    f->entries + (uint64_t)f->limit * 8 > bs)
		return -EAGAIN;
	hi = f->count;	/* last entry whose hash <= hash, entry 0 implied */
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (get_le32(e + mid * 8) <= hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	f->at = lo - 1;
	*next = get_le32(e + f->at * 8 + 4) & 0x0fffffff;
	return 0;
}

/* Hashes name as the root says and walks from the root to its leaf. */
static int dx_walk(struct extkit_dirspace *ds, uint32_t dir_flags,
		   const char *name, uint32_t len, uint32_t *hash, unsigned int *version, struct dx_frame *fr,
		   int *nfr, uint64_t *leaf)
{
	uint32_t bs = ds->fmt.block_size;
	const struct dx_root *root = (const struct dx_root *)ds->buf;
	uint64_t next;
	int levels, rc = read_lblk(ds, 0, ds->buf);

	if (rc)
		return rc;
	levels = root->info.indirect_levels;
	if (root->info.info_length != 8 || levels > 2 ||
	    root->info.hash_version > DX_HASH_TEA)
		return -EAGAIN;
	*version = root->info.hash_version;
	rc = extkit_htree_hash(ds->fs, dir_flags, *version, name, len, hash,
			       NULL);
	if (rc)
		return -EAGAIN;
	fr[0].lblk = 0;
	fr[0].entries = offsetof(struct dx_root, countlimit);
	for (int i = 0; i <= levels; i++) {
		if (i && (rc = read_lblk(ds, fr[i].lblk, ds->buf)))
			return rc;
		rc = frame_step(ds->buf, bs, &fr[i], *hash, &next);
		if (rc)
			return rc;
		if (i < levels) {
			fr[i + 1].lblk = next;
			fr[i + 1].entries = offsetof(struct dx_node,
						     countlimit);
		}
	}
	*nfr = levels + 1;
	*leaf = next;
	return next && next < ds->nblocks ? 0 : -EAGAIN;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct dx_rec *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The live records of leaf buf with their hashes; *n of them. */
static int leaf_records(struct extkit_dirspace *ds, uint32_t dir_flags,
			unsigned int version, const uint8_t *buf, struct dx_rec **out, uint32_t *n)
{
	const struct extkit_dir_format *fmt = &ds->fmt;
	struct extkit_dir_cursor c;
	struct dx_rec *v = calloc(fmt->block_size / 12 + 1, sizeof(*v));
	int rc;

	*n = 0;
	if (!v)
		return -ENOMEM;
	extkit_dir_cursor_init(&c, fmt, buf, 0, extkit_dirspace_usable(fmt));
	while ((rc = extkit_dir_cursor_next(&c)) > 0) {
		const struct ext2_dir_entry_2 *de = (const void *)(buf + c.off);
		uint32_t len = extkit_dirent_name_len(fmt, de);

		if (!get_le32(buf + c.off))
			continue;
		v[*n].off = c.off;
		v[*n].len = extkit_dirent_min_len(len);
		rc = extkit_htree_hash(ds->fs, dir_flags, version,
				       (const char *)de->name, len,
				       &v[*n].hash, NULL);
		if (rc)
			break;
		(*n)++;
	}
	if (rc < 0 || *n < 2) {
		free(v);
		return -EAGAIN;	/* a bad record, or nothing to split */
	}
	qsort(v, *n, sizeof(*v), cmp_rec);
	*out = v;
	return 0;
}

/* Lays records from..to-1 of src packed into dst (an empty leaf). */
static void pack(struct extkit_dirspace *ds, const uint8_t *src,
		 const struct dx_rec *r, uint32_t from, uint32_t to,
		 uint8_t *dst)
{
	uint32_t usable = extkit_dirspace_usable(&ds->fmt), off = 0;

	memset(dst, 0, ds->fmt.block_size);
	for (uint32_t i = from; i < to; i++) {
		memcpy(dst + off, src + r[i].off, r[i].len);
		extkit_dirent_set_rec_len(&ds->fmt, dst + off,
					  i + 1 < to ? r[i].len : usable - off);
		off += r[i].len;
	}
	if (ds->fmt.tail_len)
		extkit_dirblock_init_tail(ds->fs, dst);
}

/* Inserts (hash, lblk) after entry f->at of index block f->lblk. */
static int parent_insert(struct extkit_dirspace *ds, struct dx_frame *f,
			 uint32_t hash, uint64_t lblk, uint8_t *buf)
{
	uint8_t *e;
	int rc = read_lblk(ds, f->lblk, buf);

	if (rc)
		return rc;
	e = buf + f->entries;
	memmove(e + (f->at + 2) * 8, e + (f->at + 1) * 8,
		(size_t)(f->count - f->at - 1) * 8);
	put_le32(e + (f->at + 1) * 8, hash);
	put_le32(e + (f->at + 1) * 8 + 4, (uint32_t)lblk);
	put_le16(e + 2, (uint16_t)(f->count + 1));
	return extkit_dirblock_write(ds->fs, ds->ino, ds->gen,
				     ds->pblks[f->lblk], buf);
}

#define DX_NODE_ENTRIES	8u	/* after the fake empty record */

/* The deepest index (indirect_levels) the filesystem allows. */
static int max_levels(const struct extkit_fs *fs)
{
	return extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_LARGEDIR) ?
	       2 : 1;
}

/*
 * Writes a new index node at logical block nl holding the n entries at
 * src (entry 0's hash slot holding the node's count and limit), into
 * buf; it takes no names (room 0).
 */
static int write_node(struct extkit_dirspace *ds, uint64_t nl,
		      const uint8_t *src, uint32_t n, uint8_t *buf)
{
	uint32_t bs = ds->fmt.block_size;
	int rc;

	memset(buf, 0, bs);
	/* one empty record over the block hides the index */
	extkit_dirent_set(&ds->fmt, buf, 0, bs, "", 0, 0);
	memcpy(buf + DX_NODE_ENTRIES, src, (size_t)n * 8);
	put_le16(buf + DX_NODE_ENTRIES,
		 (uint16_t)extkit_htree_node_limit(ds->fs));
	put_le16(buf + DX_NODE_ENTRIES + 2, (uint16_t)n);
	rc = extkit_dirblock_write(ds->fs, ds->ino, ds->gen, ds->pblks[nl],
				   buf);
	return rc ? rc : extkit_dirspace_set_room(ds, nl, ds->pblks[nl], 0);
}

/*
 * The root is full: its entries move to a new node below it, and the
 * root points to that one node (indirect_levels + 1), as the kernel's
 * ext4_dx_add_entry adds a level. The frames shift down by one.
 */
static int add_level(struct extkit_dirspace *ds, struct dx_frame *fr,
		     int *nfr, uint8_t *a, uint8_t *b)
{
	uint32_t count = fr[0].count;
	uint8_t *e = a + fr[0].entries;
	uint64_t nb;
	int rc = extkit_dir_leaf_append(ds, &nb);

	if (!rc)
		rc = read_lblk(ds, 0, a);
	if (!rc)
		rc = write_node(ds, nb, e, count, b);
	if (rc)
		return rc;
	memset(e + 8, 0, (size_t)(count - 1) * 8);
	put_le16(e + 2, 1);
	put_le32(e + 4, (uint32_t)nb);
	((struct dx_root *)a)->info.indirect_levels++;
	rc = extkit_dirblock_write(ds->fs, ds->ino, ds->gen, ds->pblks[0], a);
	if (rc)
		return rc;
	memmove(&fr[2], &fr[1], (size_t)(*nfr - 1) * sizeof(*fr));
	fr[1].lblk = nb;
	fr[1].entries = DX_NODE_ENTRIES;
	fr[1].count = count;
	fr[1].limit = extkit_htree_node_limit(ds->fs);
	fr[1].at = fr[0].at;
	fr[0].count = 1;
	fr[0].at = 0;
	(*nfr)++;
	return 0;
}

/*
 * Index node fr[j] is full and its parent fr[j - 1] is not: the upper
 * half of its entries moves to a new node, whose first hash goes into
 * the parent after fr[j]'s entry (the kernel's node split). fr[j] and
 * fr[j - 1] then describe the half the path goes through.
 */
static int split_node(struct extkit_dirspace *ds, struct dx_frame *fr, int j,
		      uint8_t *a, uint8_t *b)
{
	uint32_t count = fr[j].count, half = count / 2, key;
	uint8_t *e = a + fr[j].entries;
	uint64_t nb;
	int rc = extkit_dir_leaf_append(ds, &nb);

	if (!rc)
		rc = read_lblk(ds, fr[j].lblk, a);
	if (rc)
		return rc;
	key = get_le32(e + half * 8);
	rc = write_node(ds, nb, e + half * 8, count - half, b);
	if (!rc)
		rc = parent_insert(ds, &fr[j - 1], key, nb, b);
	if (rc)
		return rc;
	memset(e + half * 8, 0, (size_t)(count - half) * 8);
	put_le16(e + 2, (uint16_t)half);
	rc = extkit_dirblock_write(ds->fs, ds->ino, ds->gen,
				   ds->pblks[fr[j].lblk], a);
	if (rc)
		return rc;
	fr[j - 1].count++;
	if (fr[j].at >= half) {
		fr[j].lblk = nb;
		fr[j].at -= half;
		fr[j].count = count - half;
		fr[j - 1].at++;
	} else {
		fr[j].count = half;
	}
	return 0;
}

/*
 * Room in the leaf's parent for one more entry: full index blocks on the
 * way down are split from the highest one whose parent has room, a
 * level added first when the root itself is full. -EAGAIN when the
 * index is as deep as the filesystem allows and full (the kernel's
 * "Directory index full").
 */
static int make_room(struct extkit_dirspace *ds, struct dx_frame *fr,
		     int *nfr)
{
	uint8_t *a, *b;
	int i = *nfr - 1, rc = 0;

	if (fr[i].count < fr[i].limit)
		return 0;
	while (i > 0 && fr[i - 1].count >= fr[i - 1].limit)
		i--;
	if (i == 0 && *nfr - 1 >= max_levels(ds->fs))
		return -EAGAIN;
	a = malloc(ds->fmt.block_size);
	b = malloc(ds->fmt.block_size);
	if (!a || !b)
		rc = -ENOMEM;
	if (!rc && i == 0) {
		rc = add_level(ds, fr, nfr, a, b);
		i = 2;	/* the old root's node has room now */
	}
	for (; !rc && i < *nfr; i++)
		rc = split_node(ds, fr, i, a, b);
	free(a);
	free(b);
	return rc;
}

/* Writes leaf block lblk from buf and records its room. */
static int write_leaf(struct extkit_dirspace *ds, uint64_t lblk, uint8_t *buf)
{
	uint32_t room;
	int rc = extkit_dirspace_block_room(&ds->fmt, buf, &room);

	if (!rc)
		rc = extkit_dirblock_write(ds->fs, ds->ino, ds->gen,
					   ds->pblks[lblk], buf);
	if (!rc)
		rc = extkit_dirspace_set_room(ds, lblk, ds->pblks[lblk], room);
	return rc;
}

/* Splits leaf (its records in ds->buf) into it and a new block. */
static int split(struct extkit_dirspace *ds, uint32_t dir_flags,
		 unsigned int version,
		 struct dx_frame *parent, uint64_t leaf, uint32_t hash,
		 uint64_t *target)
{
	uint32_t bs = ds->fmt.block_size, n, move = 0, size = 0, at, hash2;
	uint8_t *old = malloc(bs), *out = malloc(bs);
	struct dx_rec *r = NULL;
	uint64_t nl;
	int rc = old && out ? 0 : -ENOMEM;

	if (!rc) {
		memcpy(old, ds->buf, bs);
		rc = leaf_records(ds, dir_flags, version, old, &r, &n);
	}
	for (uint32_t i = n; !rc && i-- > 0;) {
		if (size + r[i].len / 2 > extkit_dirspace_usable(&ds->fmt) / 2)
			break;
		size += r[i].len;
		move++;
	}
	if (!rc && (move == 0 || move >= n))
		move = n / 2;
	at = n - move;
	if (!rc) {
		hash2 = r[at].hash + (r[at].hash == r[at - 1].hash);
		rc = extkit_dir_leaf_append(ds, &nl);
	}
	if (!rc) {	/* new block, index, then the old leaf */
		pack(ds, old, r, at, n, out);
		rc = write_leaf(ds, nl, out);
	}
	if (!rc)
		rc = parent_insert(ds, parent, hash2, nl, out);
	if (!rc) {
		pack(ds, old, r, 0, at, out);
		rc = write_leaf(ds, leaf, out);
	}
	if (!rc)
		*target = hash >= (hash2 & ~1u) ? nl : leaf;
	free(r);
	free(old);
	free(out);
	return rc;
}

int extkit_dx_add(struct extkit_dirspace *ds, const char *name, uint32_t len,
		  uint32_t ino, uint8_t ftype, uint64_t *lblk, int *off)
{
	struct dx_frame fr[DX_MAX_LEVELS];
	struct extkit_inode inode;
	unsigned int version;
	uint32_t hash;
	uint64_t leaf;
	int nfr, rc = extkit_inode_read(ds->fs, ds->ino, &inode);

	if (rc)
		return rc;
	/* encrypted names need the key to be hashed (siphash) or placed */
	if (inode.flags & EXT4_ENCRYPT_FL)
		return -EAGAIN;
	rc = dx_walk(ds, inode.flags, name, len, &hash, &version, fr, &nfr, &leaf);
	if (!rc)
		rc = read_lblk(ds, leaf, ds->buf);
	if (rc)
		return rc;
	*off = extkit_dir_leaf_place(&ds->fmt, ds->buf, name, len, ino, ftype);
	if (*off >= 0) {
		*lblk = leaf;
		return 0;
	}
	if (*off != -ENOSPC)
		return *off;
	/* a node split or a new level reuses ds->buf: the leaf read again */
	rc = make_room(ds, fr, &nfr);
	if (!rc)
		rc = read_lblk(ds, leaf, ds->buf);
	if (rc)
		return rc;
	rc = split(ds, inode.flags, version, &fr[nfr - 1], leaf, hash,
		   lblk);
	if (!rc)
		rc = read_lblk(ds, *lblk, ds->buf);
	if (rc)
		return rc;
	*off = extkit_dir_leaf_place(&ds->fmt, ds->buf, name, len, ino, ftype);
	return *off < 0 ? -EFSCORRUPTED : 0;
}
