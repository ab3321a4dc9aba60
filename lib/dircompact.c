// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory compaction (see dircompact.h): collect the live entries with
 * the iterator, lay them out with the dirspace packer (linear, or hash-
 * sorted leaves under an htree built by htree.c), write them over the
 * directory's first blocks, then truncate the rest away.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "dir.h"
#include "dirblock.h"
#include "dircompact.h"
#include "dirext.h"
#include "dirspace.h"
#include "endian.h"
#include "error.h"
#include "htree.h"
#include "inode.h"
#include "ondisk.h"

struct centry {
	uint32_t ino;
	uint32_t hash;
	uint32_t minor;
	uint32_t name_off;
	const char *name;	/* set once the names stop moving */
	uint8_t len;
	uint8_t ftype;
};

struct compact {
	struct extkit_fs *fs;
	uint32_t ino;
	struct extkit_inode inode;
	struct extkit_dir_format fmt;
	uint64_t *pblks;
	uint64_t nblocks;
	struct centry *e;
	uint64_t n;
	uint64_t cap;
	char *names;
	uint64_t nlen;
	uint64_t ncap;
	uint32_t dot;
	uint32_t dotdot;
	uint8_t *buf;
	uint32_t *start_hash;	/* htree: first hash of each leaf */
};

static int grow_arrays(struct compact *c, uint32_t len)
{
	void *p;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		p = realloc(c->e, c->cap * sizeof(*c->e));
		if (!p)
			return -ENOMEM;
		c->e = p;
	}
	if (c->nlen + len > c->ncap) {
		c->ncap = c->ncap ? c->ncap * 2 : 4096;
		p = realloc(c->names, c->ncap);
		if (!p)
			return -ENOMEM;
		c->names = p;
	}
	return 0;
}

static int collect_one(struct compact *c, const struct extkit_dirent *d)
{
	struct centry *e;
	int rc;

	if (d->name_len == 1 && d->name[0] == '.' && !c->dot) {
		c->dot = d->inode;
		return 0;
	}
	if (d->name_len == 2 && !memcmp(d->name, "..", 2) && !c->dotdot) {
		c->dotdot = d->inode;
		return 0;
	}
	if (d->name_len > EXT2_NAME_LEN)
		return -EFSCORRUPTED;
	rc = grow_arrays(c, d->name_len);
	if (rc)
		return rc;
	e = &c->e[c->n++];
	memset(e, 0, sizeof(*e));
	e->ino = d->inode;
	e->len = (uint8_t)d->name_len;
	e->ftype = d->file_type;
	e->name_off = (uint32_t)c->nlen;
	memcpy(c->names + c->nlen, d->name, d->name_len);
	c->nlen += d->name_len;
	return 0;
}

/* Reads the directory: its map, '.', '..' and every other live entry. */
static int collect(struct compact *c)
{
	struct extkit_dir_iter it;
	struct extkit_dirent d;
	int rc;

	rc = extkit_dir_iter_init(&it, c->fs, c->ino, 0);
	if (rc)
		return rc;
	c->inode = it.inode;
	c->fmt = it.fmt;
	c->nblocks = it.nblocks;
	while ((rc = extkit_dir_iter_next(&it, &d)) > 0) {
		if (d.kind == EXTKIT_DE_CORRUPT || d.kind == EXTKIT_DE_HOLE)
			rc = -EFSCORRUPTED;
		else if (d.kind == EXTKIT_DE_LIVE)
			rc = collect_one(c, &d);
		else
			rc = 0;
		if (rc)
			break;
	}
	c->pblks = it.pblks;	/* the map outlives the iterator */
	it.pblks = NULL;
	extkit_dir_iter_end(&it);
	if (!rc && (!c->dot || !c->dotdot))
		rc = -EFSCORRUPTED;
	return rc;
}

/* ---- layout ---- */

/* Appends record (ino, name) at *off of c->buf. */
static void put_rec(struct compact *c, uint32_t *off, uint32_t ino,
		    const char *name, uint32_t len, uint8_t ftype)
{
	uint8_t *p = c->buf + *off;
	uint32_t rl = extkit_dirent_min_len(len);
	__le16 d;

	put_le32(p, ino);
	extkit_rec_len_to_disk(rl, c->fmt.block_size, &d);
	memcpy(p + 4, &d, sizeof(d));
	p[6] = (uint8_t)len;
	p[7] = c->fmt.has_filetype ? ftype : 0;
	memcpy(p + EXT2_DIR_ENTRY_HEADER_LEN, name, len);
	memset(p + EXT2_DIR_ENTRY_HEADER_LEN + len, 0,
	       rl - EXT2_DIR_ENTRY_HEADER_LEN - len);
	*off += rl;
}

/* The last record at last takes the rest of the block; writes it. */
static int flush_block(struct compact *c, uint64_t lblk, uint32_t last)
{
	uint32_t usable = extkit_dirspace_usable(&c->fmt);
	__le16 d;

	extkit_rec_len_to_disk(usable - last, c->fmt.block_size, &d);
	memcpy(c->buf + last + 4, &d, sizeof(d));
	if (c->fmt.tail_len)
		extkit_dirblock_init_tail(c->fs, c->buf);
	return extkit_dirblock_write(c->fs, c->ino, c->inode.generation,
				     c->pblks[lblk], c->buf);
}

/*
 * Lays entries [0, n) out from logical block first on, next-fit (the
 * dirspace packer). head: '.' and '..' start block first. Writes each
 * block when done unless dry; returns the block count in *blocks and,
 * if start_hash is set, each block's first hash (bit 0: continues the
 * hash of the block before).
 */
static int lay_out(struct compact *c, uint64_t first, int head, int dry,
		   uint64_t *blocks)
{
	struct extkit_dir_packer pk;
	uint32_t off = 0, last = 0, min;
	uint64_t i, b = 0;
	int rc = 0;

	extkit_packer_init(&pk, extkit_dirspace_usable(&c->fmt));
	memset(c->buf, 0, c->fmt.block_size);
	if (head) {
		extkit_packer_add(&pk, 12);
		extkit_packer_add(&pk, 12);
		put_rec(c, &off, c->dot, ".", 1, EXT2_FT_DIR);
		last = off;
		put_rec(c, &off, c->dotdot, "..", 2, EXT2_FT_DIR);
	}
	for (i = 0; i < c->n && !rc; i++) {
		const struct centry *e = &c->e[i];

		min = extkit_dirent_min_len(e->len);
		if (extkit_packer_add(&pk, min) && pk.blocks > 1) {
			if (!dry)
				rc = flush_block(c, first + b, last);
			b++;
			off = 0;
			memset(c->buf, 0, c->fmt.block_size);
		}
		if (c->start_hash && off == 0)
			c->start_hash[pk.blocks - 1] = e->hash |
				(uint32_t)(i && c->e[i - 1].hash == e->hash);
		last = off;
		put_rec(c, &off, e->ino, c->names + e->name_off, e->len,
			e->ftype);
	}
	if (!rc && pk.blocks && !dry)
		rc = flush_block(c, first + b, last);
	*blocks = pk.blocks ? pk.blocks : 1;
	return rc;
}

static int cmp_hash(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;
	uint32_t n = x->len < y->len ? x->len : y->len;
	int r;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	r = memcmp(x->name, y->name, n);
	return r ? r : (int)x->len - (int)y->len;
}

static int hash_all(struct compact *c, uint8_t version)
{
	unsigned int v = extkit_htree_version(c->fs, version);
	uint64_t i;
	int rc;

	for (i = 0; i < c->n; i++) {
		rc = extkit_dx_hash(v, c->fs->sb.hash_seed,
				    c->names + c->e[i].name_off, c->e[i].len,
				    &c->e[i].hash, &c->e[i].minor);
		if (rc)
			return rc;
	}
	for (i = 0; i < c->n; i++)
		c->e[i].name = c->names + c->e[i].name_off;
	qsort(c->e, c->n, sizeof(*c->e), cmp_hash);
	return 0;
}

/* Makes logical blocks [0, n) mapped, appending blocks if needed. */
static int ensure_blocks(struct compact *c, uint64_t n)
{
	uint64_t i, pblk, *np;
	int rc;

	for (i = 0; i < n && i < c->nblocks; i++)
		if (!c->pblks[i])
			return -EXTKIT_EUNSUPP;
	if (n <= c->nblocks)
		return 0;
	np = realloc(c->pblks, n * sizeof(*np));
	if (!np)
		return -ENOMEM;
	c->pblks = np;
	for (i = c->nblocks; i < n; i++) {
		rc = extkit_dir_append_block(c->fs, &c->inode, i,
					     c->pblks[i - 1] + 1, &pblk, NULL);
		if (rc)
			return rc;
		c->pblks[i] = pblk;
		c->nblocks = i + 1;
		c->inode.size = c->nblocks * c->fmt.block_size;
	}
	return 0;
}

/* Root and index nodes over leaves 1 .. nleaves; nodes after them. */
static int write_index(struct compact *c, uint64_t nleaves, uint64_t nodes,
		       uint32_t levels, uint8_t version)
{
	uint32_t bs = c->fmt.block_size;
	struct extkit_htree_layout lay = {
		.dot_ino = c->dot, .dotdot_ino = c->dotdot,
		.hash_version = version, .first_leaf = 1,
		.nleaves = nleaves, .start_hash = c->start_hash,
		.node_lblk = 1 + nleaves, .nnodes = nodes, .levels = levels,
	};
	uint8_t *nb = calloc(nodes + 1, bs);
	uint64_t i;
	int rc;

	if (!nb)
		return -ENOMEM;
	rc = extkit_htree_build(c->fs, &lay, c->buf, nb);
	if (!rc)
		rc = extkit_dirblock_write(c->fs, c->ino, c->inode.generation,
					   c->pblks[0], c->buf);
	for (i = 0; !rc && i < nodes; i++)
		rc = extkit_dirblock_write(c->fs, c->ino, c->inode.generation,
					   c->pblks[1 + nleaves + i],
					   nb + i * bs);
	free(nb);
	return rc;
}

static int compact_htree(struct compact *c, uint64_t *total)
{
	uint8_t version = c->fs->sb.def_hash_version;
	uint64_t nleaves, nodes;
	uint32_t levels;
	int rc;

	if (version > DX_HASH_TEA)
		return -EXTKIT_EUNSUPP;
	rc = hash_all(c, version);
	if (rc)
		return rc;
	c->start_hash = calloc(c->n + 1, sizeof(*c->start_hash));
	if (!c->start_hash)
		return -ENOMEM;
	rc = lay_out(c, 1, 0, 1, &nleaves);
	if (!rc)
		rc = extkit_htree_index_blocks(c->fs, nleaves, &nodes, &levels);
	if (!rc)
		rc = ensure_blocks(c, 1 + nleaves + nodes);
	if (!rc)
		rc = lay_out(c, 1, 0, 0, &nleaves);
	if (!rc)
		rc = write_index(c, nleaves, nodes, levels, version);
	*total = 1 + nleaves + nodes;
	c->inode.flags |= EXT2_INDEX_FL;
	return rc;
}

static int compact_linear(struct compact *c, uint64_t *total)
{
	int rc = lay_out(c, 0, 1, 1, total);

	if (!rc)
		rc = ensure_blocks(c, *total);
	if (!rc)
		rc = lay_out(c, 0, 1, 0, total);
	c->inode.flags &= ~EXT2_INDEX_FL;
	return rc;
}

static int compact_run(struct compact *c, struct extkit_compact_result *res)
{
	uint64_t total;
	int rc;

	rc = collect(c);
	if (rc)
		return rc;
	res->blocks_before = c->nblocks;
	res->entries = c->n + 2;
	rc = lay_out(c, 0, 1, 1, &total);
	if (rc)
		return rc;
	res->indexed = total > 1 &&
		extkit_has_compat(&c->fs->sb, EXT2_FEATURE_COMPAT_DIR_INDEX);
	if (res->indexed)
		rc = compact_htree(c, &total);
	else
		rc = compact_linear(c, &total);
	if (!rc)
		rc = extkit_dir_truncate(c->fs, &c->inode, total);
	if (!rc)
		rc = extkit_inode_write(c->fs, c->ino, &c->inode);
	if (!rc)
		rc = extkit_alloc_commit(c->fs);
	res->blocks_after = total;
	return rc;
}

int extkit_dir_compact(struct extkit_fs *fs, uint32_t ino,
		       struct extkit_compact_result *res)
{
	struct compact c = { .fs = fs, .ino = ino };
	int rc;

	memset(res, 0, sizeof(*res));
	c.buf = malloc(fs->g.block_size);
	if (!c.buf)
		return -ENOMEM;
	rc = compact_run(&c, res);
	free(c.buf);
	free(c.pblks);
	free(c.e);
	free(c.names);
	free(c.start_hash);
	return rc;
}

int extkit_dir_compact_wanted(const struct extkit_dirspace_stats *st,
			      unsigned int threshold)
{
	uint64_t total = st->free_bytes + st->live_bytes;

	if (!st->reclaimable_blocks || st->corrupt)
		return 0;
	return st->free_bytes * 100 >= (uint64_t)threshold * total;
}
