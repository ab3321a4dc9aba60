// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A directory laid out in memory (see dirbuild.h): the entries are packed
 * next-fit through dir.c's record setter, the index comes from htree.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "casefold.h"
#include "dirblock.h"
#include "dirbuild.h"
#include "dirspace.h"
#include "error.h"
#include "htree.h"
#include "keysort.h"
#include "ondisk.h"

void extkit_dirbuild_init(struct extkit_dirbuild *db, struct extkit_fs *fs)
{
	memset(db, 0, sizeof(*db));
	db->fs = fs;
	db->bs = fs->g.block_size;
	extkit_dir_format_init(fs, &db->fmt);
}

static int grow(struct extkit_dirbuild *db, uint32_t len)
{
	void *p;

	if (db->n == db->cap) {
		db->cap = db->cap ? db->cap * 2 : 64;
		p = realloc(db->e, db->cap * sizeof(*db->e));
		if (!p)
			return -ENOMEM;
		db->e = p;
	}
	if (db->nlen + len > db->ncap) {
		db->ncap = db->ncap ? db->ncap * 2 : 2048;
		if (db->ncap < db->nlen + len)
			db->ncap = db->nlen + len;
		p = realloc(db->names, db->ncap);
		if (!p)
			return -ENOMEM;
		db->names = p;
	}
	return 0;
}

int extkit_dirbuild_add(struct extkit_dirbuild *db, const char *name,
			uint32_t len, uint32_t ino, uint8_t ftype)
{
	struct extkit_dirbuild_entry *e;
	int rc;

	if (len == 0 || len > EXT2_NAME_LEN)
		return len ? -ENAMETOOLONG : -EINVAL;
	rc = grow(db, len);
	if (rc)
		return rc;
	e = &db->e[db->n++];
	memset(e, 0, sizeof(*e));
	e->ino = ino;
	e->len = (uint8_t)len;
	e->ftype = ftype;
	e->name_off = (uint32_t)db->nlen;
	memcpy(db->names + db->nlen, name, len);
	db->nlen += len;
	return 0;
}

static void set_names(struct extkit_dirbuild *db)
{
	for (uint64_t i = 0; i < db->n; i++)
		db->e[i].name = db->names + db->e[i].name_off;
}

/* Big-endian bytes depth..depth+7 of e's name, zeros past its end:
 * keys in byte order of the names, a shorter name first (a name holds no
 * NUL byte). */
static uint64_t name_chunk(const struct extkit_dirbuild_entry *e,
			   uint32_t depth)
{
	uint64_t key = 0;

	for (uint32_t j = depth; j < depth + 8; j++)
		key = key << 8 | (j < e->len ? (uint8_t)e->name[j] : 0);
	return key;
}

/* Sorts k[0..n) (entries of db) by their names from byte depth on: by
 * the next eight bytes, then each run sharing them by the bytes after
 * (a run whose eighth byte is 0 has ended: the same name). */
static int sort_by_name(const struct extkit_dirbuild *db,
			struct extkit_sort_key *k, uint64_t n, uint32_t depth)
{
	uint64_t a, b;
	int rc;

	for (a = 0; a < n; a++)
		k[a].key = name_chunk(&db->e[k[a].i], depth);
	rc = extkit_keysort(k, n);
	for (a = 0; !rc && a < n; a = b) {
		for (b = a + 1; b < n && k[b].key == k[a].key; b++)
			;
		if (b - a > 1 && (k[a].key & 0xff) &&
		    depth + 8 < EXT2_NAME_LEN)
			rc = sort_by_name(db, k + a, b - a, depth + 8);
	}
	return rc;
}

/* Puts db's entries in the order of k. */
static int reorder(struct extkit_dirbuild *db,
		   const struct extkit_sort_key *k)
{
	struct extkit_dirbuild_entry *e = malloc(db->n * sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (uint64_t i = 0; i < db->n; i++)
		e[i] = db->e[k[i].i];
	free(db->e);
	db->e = e;
	db->cap = db->n;
	return 0;
}

/* A key for each entry (key: its first eight name bytes, or its hash and
 * minor hash); sorted, runs of equal keys by their whole names. */
static int sort_entries(struct extkit_dirbuild *db, int by_hash)
{
	struct extkit_sort_key *k;
	uint64_t a, b;
	int rc;

	set_names(db);
	if (db->n < 2)
		return 0;
	k = malloc(db->n * sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (a = 0; a < db->n; a++)
		k[a] = (struct extkit_sort_key){
			.key = (uint64_t)db->e[a].hash << 32 | db->e[a].minor,
			.i = a,
		};
	rc = by_hash ? extkit_keysort(k, db->n) : sort_by_name(db, k, db->n, 0);
	for (a = 0; by_hash && !rc && a < db->n; a = b) {
		for (b = a + 1; b < db->n && k[b].key == k[a].key; b++)
			;
		if (b - a > 1)
			rc = sort_by_name(db, k + a, b - a, 0);
	}
	if (!rc)
		rc = reorder(db, k);
	free(k);
	return rc;
}

int extkit_dirbuild_sort_names(struct extkit_dirbuild *db)
{
	return sort_entries(db, 0);
}

/* Appends record (ino, name) at *off of block blk at its minimal size. */
static void put_rec(struct extkit_dirbuild *db, uint8_t *blk, uint32_t *off,
		    uint32_t ino, const char *name, uint32_t len,
		    uint8_t ftype)
{
	uint32_t rl = extkit_dirent_min_len(len);

	extkit_dirent_set(&db->fmt, blk + *off, ino, rl, name, len, ftype);
	*off += rl;
}

/* The last record (at last) takes the rest of the block; the tail. */
static void finish_block(struct extkit_dirbuild *db, uint8_t *blk,
			 uint32_t last)
{
	extkit_dirent_set_rec_len(&db->fmt, blk + last,
				  extkit_dirspace_usable(&db->fmt) - last);
	if (db->fmt.tail_len)
		extkit_dirblock_init_tail(db->fs, blk);
}

/*
 * Lays the entries out from logical block first on, next-fit, into
 * db->out when out is set (else only counts). head: '.' and '..' start
 * block first. *blocks: the blocks used; with start_hash, each block's
 * first hash (bit 0: continues the hash of the block before).
 */
static void lay_out(struct extkit_dirbuild *db, int out, uint64_t first,
		    int head, uint64_t *blocks)
{
	struct extkit_dir_packer pk;
	uint8_t *blk = out ? db->out + first * db->bs : NULL;
	uint32_t off = 0, last = 0, min;
	uint64_t i;

	extkit_packer_init(&pk, extkit_dirspace_usable(&db->fmt));
	if (head) {
		extkit_packer_add(&pk, 12);
		extkit_packer_add(&pk, 12);
		if (blk) {
			extkit_dirblock_new(db->fs, blk, db->dot, db->dotdot,
					    EXTKIT_NEWDIR_OPEN);
			last = 12;
			off = 24;
		}
	}
	for (i = 0; i < db->n; i++) {
		const struct extkit_dirbuild_entry *e = &db->e[i];

		min = extkit_dirent_min_len(e->len);
		if (extkit_packer_add(&pk, min) && pk.blocks > 1 && blk) {
			finish_block(db, blk, last);
			blk += db->bs;
			off = 0;
		}
		if (!blk)
			continue;
		if (db->start_hash && off == 0)
			db->start_hash[pk.blocks - 1] = e->hash |
				(uint32_t)(i && db->e[i - 1].hash == e->hash);
		last = off;
		put_rec(db, blk, &off, e->ino, db->names + e->name_off, e->len,
			e->ftype);
	}
	if (blk && pk.blocks)
		finish_block(db, blk, last);
	*blocks = pk.blocks ? pk.blocks : 1;
}

static int hash_all(struct extkit_dirbuild *db, uint8_t version)
{
	uint64_t i;
	int rc;

	for (i = 0; i < db->n; i++) {
		rc = extkit_htree_hash(db->fs, db->dir_flags, version,
				       db->names + db->e[i].name_off,
				       db->e[i].len, &db->e[i].hash,
				       &db->e[i].minor);
		if (rc)
			return rc;
	}
	return sort_entries(db, 1);
}

/* Whether some name has no agreed hash (extkit_casefold_name_unhashable):
 * the directory then stays linear. */
static int has_unhashable_name(const struct extkit_dirbuild *db)
{
	uint64_t i;

	if (!extkit_dir_is_casefolded(db->fs, db->dir_flags))
		return 0;
	for (i = 0; i < db->n; i++)
		if (extkit_casefold_name_unhashable(db->fs, db->dir_flags,
				db->names + db->e[i].name_off, db->e[i].len))
			return 1;
	return 0;
}

/* Whether the directory gets an index, and its shape (entries sorted by
 * hash when it does). */
static int plan(struct extkit_dirbuild *db, struct extkit_htree_layout *lay,
		uint64_t *total)
{
	uint8_t version = db->fs->sb.def_hash_version;
	int rc;

	lay_out(db, 0, 0, 1, total);
	db->indexed = *total > 1 &&
		extkit_has_compat(&db->fs->sb, EXT2_FEATURE_COMPAT_DIR_INDEX) &&
		!has_unhashable_name(db);
	if (!db->indexed)
		return 0;
	if (version > DX_HASH_TEA)
		return -EXTKIT_EUNSUPP;
	memset(lay, 0, sizeof(*lay));
	lay->dot_ino = db->dot;
	lay->dotdot_ino = db->dotdot;
	lay->hash_version = version;
	lay->first_leaf = 1;
	rc = hash_all(db, version);
	if (rc)
		return rc;
	lay_out(db, 0, 1, 0, &lay->nleaves);
	rc = extkit_htree_index_blocks(db->fs, lay->nleaves, &lay->nnodes,
				       &lay->levels);
	*total = 1 + lay->nleaves + lay->nnodes;
	return rc;
}

int extkit_dirbuild_count(struct extkit_dirbuild *db, uint64_t *blocks)
{
	struct extkit_htree_layout lay;

	return plan(db, &lay, blocks);
}

static int alloc_out(struct extkit_dirbuild *db, uint64_t blocks)
{
	free(db->out);
	db->nout = blocks;
	db->out = calloc(blocks, db->bs);
	return db->out ? 0 : -ENOMEM;
}

int extkit_dirbuild_layout(struct extkit_dirbuild *db)
{
	struct extkit_htree_layout lay;
	uint64_t total;
	int rc = plan(db, &lay, &total);

	if (!rc)
		rc = alloc_out(db, total);
	if (rc)
		return rc;
	if (!db->indexed) {
		lay_out(db, 1, 0, 1, &total);
		return 0;
	}
	free(db->start_hash);
	db->start_hash = calloc(db->n + 1, sizeof(*db->start_hash));
	if (!db->start_hash)
		return -ENOMEM;
	lay_out(db, 1, 1, 0, &lay.nleaves);
	lay.start_hash = db->start_hash;
	lay.node_lblk = 1 + lay.nleaves;
	rc = extkit_htree_build(db->fs, &lay, db->out,
				db->out + lay.node_lblk * db->bs);
	free(db->start_hash);
	db->start_hash = NULL;
	return rc;
}

void extkit_dirbuild_reset(struct extkit_dirbuild *db)
{
	db->n = 0;
	db->nlen = 0;
	db->dot = db->dotdot = 0;
	db->indexed = 0;
	db->nout = 0;	/* db->out kept for the next layout to free */
}

void extkit_dirbuild_free(struct extkit_dirbuild *db)
{
	free(db->e);
	free(db->names);
	free(db->out);
	free(db->start_hash);
	memset(db, 0, sizeof(*db));
}
