// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory compaction (see dircompact.h), in two halves.
 *
 * Planning reads and decides, and writes nothing: the directory's block
 * map (data and tree blocks, any depth, holes skipped), its live entries
 * (through the iterator), the new contents laid out in memory (linear, or
 * hash-sorted leaves under an htree built by htree.c), the new block map
 * (mapbuild.c) over the directory's own blocks in their logical order,
 * the few new blocks it may need, the blocks it gives back. Anything that
 * can fail -- a feature, a corrupt record, memory, space, a block the
 * bitmaps do not show in use -- fails here, with the directory untouched.
 *
 * Writing then marks the new blocks, writes the contents and the tree
 * blocks, switches the inode over, frees what is left and writes the
 * counts. Only I/O can fail there, and the result says what was written.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bmap.h"
#include "casefold.h"
#include "dir.h"
#include "dirblock.h"
#include "dirbuild.h"
#include "dircompact.h"
#include "dirspace.h"
#include "error.h"
#include "htree.h"
#include "inode.h"
#include "mapbuild.h"
#include "ondisk.h"
#include "super.h"

struct compact {
	struct extkit_fs *fs;
	uint32_t ino;
	struct extkit_inode inode;	/* as on disk */
	struct extkit_inode next;	/* as it will be */
	struct extkit_dir_format fmt;
	uint32_t bs;
	/* the map now: data blocks in logical order, tree blocks */
	struct extkit_blk_list data;
	struct extkit_blk_list tree;
	/* the live entries, then the new contents (db.nout blocks) */
	struct extkit_dirbuild db;
	/* the new map, the blocks taken and given back */
	uint64_t *pblks;
	struct extkit_mapbuild mb;
	uint64_t *meta;
	uint64_t *fresh;
	uint64_t nfresh;
	struct extkit_blk_list release;
};

/* ---- planning: what the directory is ---- */

/* Directories whose names or hashes extkit cannot rewrite. */
static int check_features(const struct compact *c)
{
	uint32_t both = EXT4_ENCRYPT_FL | EXT4_CASEFOLD_FL;

	if (!extkit_inode_is_dir(&c->inode))
		return -ENOTDIR;
	if (c->inode.flags & EXT4_INLINE_DATA_FL)
		return -EXTKIT_EUNSUPP;
	/* encrypted names are hashed as the bytes they are on disk, but
	 * encrypted and casefolded ones by a keyed siphash stored in each
	 * entry, which a rewrite would have to carry */
	if ((c->inode.flags & both) == both)
		return -EXTKIT_EUNSUPP;
	/* casefolded names are hashed folded: under an encoding extkit
	 * knows (utf8-12.1) only */
	if ((c->inode.flags & EXT4_CASEFOLD_FL) &&
	    !extkit_dir_is_casefolded(c->fs, c->inode.flags))
		return -EXTKIT_EUNSUPP;
	if (!extkit_inode_has_block_map(&c->inode))
		return -EXTKIT_EUNSUPP;
	return 0;
}

static int map_one(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		   uint32_t count, int flags, void *arg)
{
	struct compact *c = arg;
	uint32_t i;
	int rc = 0;

	(void)fs;
	(void)lblk;
	if (flags & EXTKIT_BLOCK_UNWRITTEN)
		return -EXTKIT_EUNSUPP;
	for (i = 0; !rc && i < count; i++)
		rc = extkit_blk_list_push(flags & EXTKIT_BLOCK_META ? &c->tree : &c->data,
			     pblk + i);
	return rc;
}

static int collect_one(struct compact *c, const struct extkit_dirent *d)
{
	if (d->name_len == 1 && d->name[0] == '.' && !c->db.dot) {
		c->db.dot = d->inode;
		return 0;
	}
	if (d->name_len == 2 && !memcmp(d->name, "..", 2) && !c->db.dotdot) {
		c->db.dotdot = d->inode;
		return 0;
	}
	if (d->name_len > EXT2_NAME_LEN)
		return -EFSCORRUPTED;
	return extkit_dirbuild_add(&c->db, d->name, d->name_len, d->inode,
				   d->file_type);
}

/* '.', '..' and every other live entry; holes hold none. */
static int collect(struct compact *c)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent d;
	int rc;

	/* pass 2 may have cleared the index flag of a directory whose
	 * block 0 is still its htree root */
	rc = extkit_dir_iter_open(c->fs, c->ino, EXTKIT_DIR_ITER_OLD_ROOT, &it);
	if (rc)
		return rc;
	while ((rc = extkit_dir_iter_next(it, &d)) > 0) {
		if (d.kind == EXTKIT_DE_CORRUPT)
			rc = -EFSCORRUPTED;
		else if (d.kind == EXTKIT_DE_LIVE)
			rc = collect_one(c, &d);
		else
			rc = 0;
		if (rc)
			break;
	}
	extkit_dir_iter_close(it);
	if (!rc && (!c->db.dot || !c->db.dotdot))
		rc = -EFSCORRUPTED;
	return rc;
}

/* Inode, format, block map and entries: everything is read here. */
static int read_dir(struct compact *c)
{
	int rc = extkit_inode_read(c->fs, c->ino, &c->inode);

	if (!rc)
		rc = check_features(c);
	if (rc)
		return rc;
	c->db.dir_flags = c->inode.flags;
	extkit_dir_format_init(c->fs, &c->fmt);
	rc = extkit_block_walk(c->fs, &c->inode, map_one, c);
	if (!rc && !c->data.n)
		rc = -EFSCORRUPTED;
	return rc ? rc : collect(c);
}

/* ---- planning: the new map ---- */

/*
 * Blocks for the new map: the directory's data blocks in logical order,
 * then fresh ones after the last of them. Its tree blocks come from the
 * old tree blocks, then the data blocks left over, then fresh blocks.
 * alloc_find hands out the same first blocks for a larger count, so
 * asking again for more keeps the data blocks where they were.
 */
static int choose_blocks(struct compact *c)
{
	uint64_t keep = c->db.nout < c->data.n ? c->db.nout : c->data.n;
	uint64_t extra = c->db.nout - keep, spare, need = extra, i, k;
	uint64_t goal = c->data.blk[c->data.n - 1] + 1;
	int rc;

	c->pblks = malloc(c->db.nout * sizeof(*c->pblks));
	if (!c->pblks)
		return -ENOMEM;
	memcpy(c->pblks, c->data.blk, keep * sizeof(*c->pblks));
	c->mb.extents = !!(c->inode.flags & EXT4_EXTENTS_FL);
	c->mb.nblocks = c->db.nout;
	c->mb.pblks = c->pblks;
	spare = c->tree.n + (c->data.n - keep);
	for (;;) {
		free(c->fresh);
		c->fresh = malloc((need ? need : 1) * sizeof(*c->fresh));
		if (!c->fresh)
			return -ENOMEM;
		c->nfresh = need;
		rc = extkit_alloc_find(c->fs, goal, need, c->fresh);
		if (rc)
			return rc;
		memcpy(c->pblks + keep, c->fresh, extra * sizeof(*c->pblks));
		rc = extkit_mapbuild_plan(c->fs, &c->mb);
		if (rc)
			return rc;
		if (extra + (c->mb.nmeta > spare ? c->mb.nmeta - spare : 0) <=
		    need)
			break;
		need = extra + c->mb.nmeta - spare;
	}
	c->meta = malloc((c->mb.nmeta + 1) * sizeof(*c->meta));
	if (!c->meta)
		return -ENOMEM;
	for (i = 0, k = 0; i < c->mb.nmeta; i++) {
		if (i < c->tree.n)
			c->meta[i] = c->tree.blk[i];
		else if (i < spare)
			c->meta[i] = c->data.blk[keep + i - c->tree.n];
		else
			c->meta[i] = c->fresh[extra + k++];
	}
	c->nfresh = extra + k;
	c->mb.meta = c->meta;
	return 0;
}

/* What the new map does not use goes back; all of it must be in use. */
static int plan_release(struct compact *c)
{
	uint64_t keep = c->db.nout < c->data.n ? c->db.nout : c->data.n, i;
	uint64_t used = c->mb.nmeta < c->tree.n ? c->mb.nmeta : c->tree.n;
	uint64_t used_data = c->mb.nmeta > c->tree.n ?
			     c->mb.nmeta - c->tree.n : 0;
	int rc = 0;

	for (i = used; !rc && i < c->tree.n; i++)
		rc = extkit_blk_list_push(&c->release, c->tree.blk[i]);
	for (i = keep + used_data; !rc && i < c->data.n; i++)
		rc = extkit_blk_list_push(&c->release, c->data.blk[i]);
	if (rc || !c->release.n)
		return rc;
	extkit_blk_list_sort(&c->release);
	for (i = 1; i < c->release.n; i++)
		if (c->release.blk[i] == c->release.blk[i - 1])
			return -EFSCORRUPTED;	/* mapped twice */
	/* extkit_blocks_all_used says 1 when a run is all in use */
	rc = extkit_blk_list_runs(c->fs, &c->release, extkit_blocks_all_used,
				  1);
	return rc == 1 ? 0 : rc ? rc : -EFSCORRUPTED;
}

/* The inode as it will be: map, size, i_blocks, index flag. */
static int plan_inode(struct compact *c)
{
	uint64_t had = c->data.n + c->tree.n, has = c->db.nout + c->mb.nmeta;
	uint64_t bytes = extkit_inode_blocks_bytes(c->fs, &c->inode);

	if (bytes / c->bs < had)
		return -EFSCORRUPTED;	/* i_blocks lies: pass 1 fixes it */
	c->mb.bufs = calloc(c->mb.nmeta + 1, c->bs);
	if (!c->mb.bufs)
		return -ENOMEM;
	c->next = c->inode;
	extkit_mapbuild_fill(c->fs, &c->mb, &c->next);
	extkit_inode_set_fs_blocks(c->fs, &c->next, bytes / c->bs - had + has);
	c->next.size = c->db.nout * c->bs;
	if (c->db.indexed)
		c->next.flags |= EXT2_INDEX_FL;
	else
		c->next.flags &= ~EXT2_INDEX_FL;
	return 0;
}

static int plan(struct compact *c, struct extkit_compact_result *res)
{
	int rc = read_dir(c);

	res->blocks_before = c->data.n;
	res->entries = c->db.n + 2;
	if (!rc)
		rc = extkit_dirbuild_layout(&c->db);
	if (!rc)
		rc = choose_blocks(c);
	if (!rc)
		rc = plan_release(c);
	if (!rc)
		rc = plan_inode(c);
	res->blocks_after = c->db.nout;
	res->indexed = c->db.indexed;
	return rc;
}

/* ---- writing ---- */

static int mark_fresh(struct compact *c)
{
	uint64_t i;
	int rc = 0;

	for (i = 0; !rc && i < c->nfresh; i++)
		rc = extkit_alloc_mark(c->fs, c->fresh[i], 1);
	return rc;
}

static int write_all(struct compact *c)
{
	uint32_t gen = c->inode.generation;
	uint64_t i;
	int rc = mark_fresh(c);

	for (i = 0; !rc && i < c->db.nout; i++)
		rc = extkit_dirblock_write(c->fs, c->ino, gen, c->pblks[i],
					   c->db.out + i * c->bs);
	if (!rc)
		rc = extkit_mapbuild_write(c->fs, c->ino, gen, &c->mb);
	if (!rc)
		rc = extkit_inode_write(c->fs, c->ino, &c->next);
	if (!rc)
		rc = extkit_blk_list_runs(c->fs, &c->release,
					  extkit_free_blocks, 0);
	if (!rc)
		rc = extkit_alloc_commit(c->fs);
	return rc;
}

static void compact_free(struct compact *c)
{
	extkit_blk_list_free(&c->data);
	extkit_blk_list_free(&c->tree);
	extkit_blk_list_free(&c->release);
	extkit_dirbuild_free(&c->db);
	free(c->pblks);
	free(c->meta);
	free(c->fresh);
	free(c->mb.bufs);
}

static int compact(struct extkit_fs *fs, uint32_t ino,
		   struct extkit_compact_result *res, int dry)
{
	struct compact c = { .fs = fs, .ino = ino, .bs = fs->g.block_size };
	int rc;

	extkit_dirbuild_init(&c.db, fs);
	memset(res, 0, sizeof(*res));
	rc = plan(&c, res);
	if (!rc && !dry) {
		res->written = 1;
		rc = write_all(&c);
	}
	compact_free(&c);
	return rc;
}

int extkit_dir_compact(struct extkit_fs *fs, uint32_t ino,
		       struct extkit_compact_result *res)
{
	return compact(fs, ino, res, 0);
}

int extkit_dir_compact_check(struct extkit_fs *fs, uint32_t ino,
			     struct extkit_compact_result *res)
{
	return compact(fs, ino, res, 1);
}

int extkit_dir_compact_wanted(const struct extkit_dirspace_stats *st,
			      unsigned int threshold)
{
	uint64_t total = st->free_bytes + st->live_bytes;

	if (!st->reclaimable_blocks || st->corrupt)
		return 0;
	return st->free_bytes * 100 >= (uint64_t)threshold * total;
}
