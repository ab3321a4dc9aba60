// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directories: the editable iterator over every record of every block.
 * One record's bytes (rec_len codec, validator, setter, cursor) are
 * direntry.c's; lookup and path resolution are in dirpath.c.
 *
 * The iterator maps the directory once (extkit_bmap_all), reads each block
 * once into one buffer and hands out records pointing into it: no per-entry
 * allocation, no per-entry reads.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "dir.h"
#include "dirblock.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "inline.h"
#include "inode.h"
#include "ondisk.h"
#include "super.h"

#define DIR_TAIL_LEN		12u
#define DX_ROOT_LIMIT_OFF	32u	/* count/limit in a dx_root */
#define DX_NODE_LIMIT_OFF	8u	/* count/limit in a dx_node */
#define DX_ENTRY_SIZE		8u
#define DX_MAX_LEVELS		2u
#define DX_MAX_LEVELS_LARGEDIR	3u

/* ---- htree: which logical blocks are interior index nodes ---- */

/* Index node blocks found so far, at most max (the directory's blocks). */
struct dx_list {
	uint64_t *blk;
	uint32_t n;
	uint32_t cap;
	uint64_t max;
};

static int dx_list_push(struct dx_list *l, uint64_t lblk)
{
	uint64_t *nb;
	uint32_t cap;

	if (l->n >= l->max || l->n >= UINT32_MAX / 2)
		return 0;
	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 16;
		nb = realloc(l->blk, (size_t)cap * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		l->blk = nb;
		l->cap = cap;
	}
	l->blk[l->n++] = lblk;
	return 1;
}

/* count <= limit, and limit entries fit the block from byte base on. */
static int dx_countlimit_ok(const struct extkit_dir_iter *it,
			    const uint8_t *b, uint32_t base)
{
	uint32_t limit = get_le16(b + base);
	uint32_t count = get_le16(b + base + 2);

	return count <= limit &&
	       limit <= (it->fmt.block_size - base) / DX_ENTRY_SIZE;
}

/*
 * Appends the child blocks of the index entries whose count/limit pair is
 * at byte base of block b. Returns 1, 0 for a malformed index, or -ENOMEM.
 */
static int dx_collect(const struct extkit_dir_iter *it, struct dx_list *l,
		      const uint8_t *b, uint32_t base)
{
	uint32_t count = get_le16(b + base + 2);
	uint64_t child;
	uint32_t i;
	int rc;

	if (!dx_countlimit_ok(it, b, base))
		return 0;
	for (i = 0; i < count; i++) {
		child = get_le32(b + base + i * DX_ENTRY_SIZE + 4);
		if (child == 0 || child >= it->nblocks)
			return 0;
		rc = dx_list_push(l, child);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* Reads index node lblk into the iterator's buffer and collects its
 * children. Returns 1, 0 for a malformed index, or a negative error. */
static int dx_node_children(struct extkit_dir_iter *it, struct dx_list *l,
			    uint64_t lblk)
{
	uint64_t pblk = it->pblks[lblk];
	int rc;

	if (!pblk)
		return 0;
	rc = extkit_fs_read_block(it->fs, pblk, it->buf);
	if (rc)
		return rc;
	return dx_collect(it, l, it->buf, DX_NODE_LIMIT_OFF);
}

/* Whether b holds a dx_root this iterator can use; *levels gets its depth. */
static int dx_root_usable(const struct extkit_dir_iter *it, const uint8_t *b,
			  uint32_t *levels)
{
	const struct dx_root *root = (const struct dx_root *)b;
	uint32_t bs = it->fmt.block_size;
	uint32_t max = DX_MAX_LEVELS;

	if (extkit_has_incompat(&it->fs->sb, EXT4_FEATURE_INCOMPAT_LARGEDIR))
		max = DX_MAX_LEVELS_LARGEDIR;
	if (extkit_rec_len_from_disk(root->dot_rec_len, bs) != 12 ||
	    extkit_rec_len_from_disk(root->dotdot_rec_len, bs) != bs - 12)
		return 0;
	/* dx_root_info.reserved_zero must be 0: e2fsck finds the root
	 * invalid otherwise (PR_1_HTREE_BADROOT) */
	if (root->info.reserved_zero ||
	    root->info.info_length != sizeof(struct dx_root_info) ||
	    root->info.indirect_levels > max)
		return 0;
	/* a flag the kernel does not know makes it refuse the root
	 * (dx_probe: "Unimplemented hash flags") */
	if (root->info.unused_flags & DX_HASH_FLAG_INCOMPAT)
		return 0;
	if (!dx_countlimit_ok(it, b, DX_ROOT_LIMIT_OFF))
		return 0;
	*levels = root->info.indirect_levels;
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sorts the node list, drops duplicates and hands it to the iterator. */
static void dx_adopt(struct extkit_dir_iter *it, struct dx_list *l)
{
	uint32_t i, n = 0;

	if (l->n)
		qsort(l->blk, l->n, sizeof(*l->blk), cmp_u64);
	for (i = 0; i < l->n; i++)
		if (n == 0 || l->blk[n - 1] != l->blk[i])
			l->blk[n++] = l->blk[i];
	it->dx_nodes = l->blk;
	it->dx_node_count = n;
	it->indexed = 1;
	l->blk = NULL;
}

/*
 * Parses block 0 as a dx_root and walks the index levels to find the
 * interior node blocks. A malformed index leaves the directory linear
 * (fsck judges it); only read errors and lack of memory fail.
 */
static int dx_load(struct extkit_dir_iter *it)
{
	struct dx_list l = { .max = it->nblocks };
	uint32_t levels, lvl, i, start = 0, end;
	int rc;

	if (it->nblocks == 0 || !it->pblks[0])
		return 0;
	rc = extkit_fs_read_block(it->fs, it->pblks[0], it->buf);
	if (rc)
		return rc;
	if (!dx_root_usable(it, it->buf, &levels))
		return 0;
	rc = 1;
	if (levels > 0)
		rc = dx_collect(it, &l, it->buf, DX_ROOT_LIMIT_OFF);
	for (lvl = 1; rc > 0 && lvl < levels; lvl++) {
		end = l.n;
		for (i = start; rc > 0 && i < end; i++)
			rc = dx_node_children(it, &l, l.blk[i]);
		start = end;
	}
	if (rc > 0)
		dx_adopt(it, &l);
	free(l.blk);
	return rc < 0 ? rc : 0;
}

static int dx_is_node(const struct extkit_dir_iter *it, uint64_t lblk)
{
	if (!it->indexed || !it->dx_node_count)
		return 0;
	return bsearch(&lblk, it->dx_nodes, it->dx_node_count,
		       sizeof(*it->dx_nodes), cmp_u64) != NULL;
}

/* ---- the iterator ---- */

static void dir_iter_release(struct extkit_dir_iter *it)
{
	free(it->inline_raw);
	it->inline_raw = NULL;
	free(it->pblks);
	free(it->dx_nodes);
	free(it->buf);
	it->pblks = NULL;
	it->dx_nodes = NULL;
	it->buf = NULL;
	it->dx_node_count = 0;
	it->nblocks = 0;
	it->loaded = 0;
	it->dirty = 0;
}

/* Maps logical blocks 0 .. ceil(i_size / block size) - 1 once, no further
 * than the map goes (with MAP_END: as far as it goes, unwritten extents
 * read too). */
static int dir_map_blocks(struct extkit_dir_iter *it)
{
	uint32_t bs = it->fmt.block_size;
	uint64_t n = it->inode.size / bs + (it->inode.size % bs != 0), end;
	int rc;

	/* i_size past the last mapped block adds no blocks: the directory
	 * ends there (as the kernel's readdir finds it; fsck corrects
	 * i_size), and a huge i_size costs nothing. */
	rc = extkit_bmap_end(it->fs, &it->inode, &end);
	if (rc)
		return rc;
	if (end < n || (it->flags & EXTKIT_DIR_ITER_MAP_END))
		n = end;
	if (n > it->fs->sb.blocks_count)
		return -EFSCORRUPTED;
	it->nblocks = n;
	if (n == 0)
		return 0;
	it->pblks = calloc((size_t)n, sizeof(*it->pblks));
	if (!it->pblks)
		return -ENOMEM;
	if (it->flags & EXTKIT_DIR_ITER_MAP_END)
		return extkit_bmap_all_raw(it->fs, &it->inode, n, it->pblks);
	return extkit_bmap_all(it->fs, &it->inode, n, it->pblks);
}

/* An inline directory: the raw inode is kept, its parts walked. */
static int dir_inline_init(struct extkit_dir_iter *it)
{
	struct extkit_inline in;
	int rc;

	it->inline_raw = malloc(it->fs->g.inode_size);
	if (!it->inline_raw)
		return -ENOMEM;
	rc = extkit_inode_read_raw(it->fs, it->ino, it->inline_raw);
	if (rc)
		return rc;
	rc = extkit_inline_locate(it->fs, it->inline_raw, &in);
	if (rc)
		return rc == -ENODATA ? -EFSCORRUPTED : rc;
	it->inline_dir = 1;
	it->inline_ea_len = in.ea_len;
	it->nblocks = in.ea_len ? 3 : 2;
	return 0;
}

/* Loads part lblk of an inline directory into buf. */
static void dir_inline_load(struct extkit_dir_iter *it)
{
	const uint8_t *iblock = it->inline_raw +
				offsetof(struct ext2_inode, i_block);
	struct extkit_inline in;

	if (it->lblk == 0) {
		memset(it->buf, 0, 24);
		extkit_dirent_set(&it->fmt, it->buf, it->ino, 12, ".", 1,
				  EXT2_FT_DIR);
		extkit_dirent_set(&it->fmt, it->buf + 12, get_le32(iblock),
				  12, "..", 2, EXT2_FT_DIR);
		it->area = 24;
	} else if (it->lblk == 1) {
		it->area = EXTKIT_INLINE_IBLOCK - EXTKIT_INLINE_DOTDOT;
		memcpy(it->buf, iblock + EXTKIT_INLINE_DOTDOT, it->area);
	} else {
		extkit_inline_locate(it->fs, it->inline_raw, &in);
		it->area = in.ea_len;
		memcpy(it->buf, in.ea, in.ea_len);
	}
}

/* Writes part lblk of an inline directory back into the inode. */
static int dir_inline_write(struct extkit_dir_iter *it)
{
	int rc;

	if (it->lblk == 0)
		rc = extkit_inline_write(it->fs, it->ino, 0, 0, it->buf + 12,
					 EXTKIT_INLINE_DOTDOT);
	else if (it->lblk == 1)
		rc = extkit_inline_write(it->fs, it->ino, 0,
					 EXTKIT_INLINE_DOTDOT, it->buf,
					 it->area);
	else
		rc = extkit_inline_write(it->fs, it->ino, 1, 0, it->buf,
					 it->area);
	/* The kept copy follows, so later parts are written over it. */
	if (!rc)
		rc = extkit_inode_read_raw(it->fs, it->ino, it->inline_raw);
	return rc;
}

int extkit_dir_iter_init(struct extkit_dir_iter *it, struct extkit_fs *fs,
			 uint32_t ino, int flags)
{
	int rc;

	memset(it, 0, sizeof(*it));
	it->fs = fs;
	it->ino = ino;
	it->flags = flags;
	extkit_dir_format_init(fs, &it->fmt);
	rc = extkit_inode_read(fs, ino, &it->inode);
	if (rc)
		return rc;
	if (!extkit_inode_is_dir(&it->inode))
		return -ENOTDIR;
	if (it->inode.flags & EXT4_INLINE_DATA_FL)
		rc = dir_inline_init(it);
	else
		rc = dir_map_blocks(it);
	if (rc)
		goto fail;
	it->buf = malloc(it->fmt.block_size);
	if (!it->buf) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!it->inline_dir && (it->inode.flags & EXT2_INDEX_FL) &&
	    extkit_has_compat(&fs->sb, EXT2_FEATURE_COMPAT_DIR_INDEX)) {
		rc = dx_load(it);
		if (rc)
			goto fail;
	}
	return 0;
fail:
	dir_iter_release(it);
	return rc;
}

/*
 * Whether loaded block 0 of a directory flagged as indexed starts as an
 * htree root even though the index is not usable: '.' of 12 bytes, then
 * '..', then a dx_root_info whose reserved_zero is 0 and info_length at
 * least 8 (what e2fsck asks of a root before it checks the index). Its
 * records run to the block end: a root has a dx_tail, never a leaf's
 * tail, whatever the last bytes read as.
 */
static int dir_block_root_shaped(const struct extkit_dir_iter *it)
{
	const struct dx_root *root = (const struct dx_root *)it->buf;

	return it->lblk == 0 && !it->inline_dir &&
	       (it->inode.flags & EXT2_INDEX_FL) &&
	       extkit_has_compat(&it->fs->sb, EXT2_FEATURE_COMPAT_DIR_INDEX) &&
	       extkit_rec_len_from_disk(root->dot_rec_len,
					it->fmt.block_size) == 12 &&
	       root->dotdot_name_len == 2 && !root->info.reserved_zero &&
	       root->info.info_length >= sizeof(struct dx_root_info);
}

/*
 * End of the records of the loaded block: block size, or the offset of
 * the metadata_csum tail when the block ends in one (never in the htree
 * root, whose index runs to the block end).
 */
static uint32_t dir_block_limit(const struct extkit_dir_iter *it)
{
	if (it->inline_dir)
		return it->area;
	if (it->indexed && it->lblk == 0)
		return it->fmt.block_size;
	if (dir_block_root_shaped(it))
		return it->fmt.block_size;
	if ((it->flags & EXTKIT_DIR_ITER_OLD_ROOT) && it->lblk == 0 &&
	    extkit_dirblock_is_dx_root(it->fs, it->buf))
		return it->fmt.block_size;
	return extkit_dir_block_end(&it->fmt, it->buf);
}

/* Writes the loaded block back if dirty (and not frozen). */
static int dir_write_back(struct extkit_dir_iter *it)
{
	int rc = 0;

	if (it->dirty && !it->frozen && it->inline_dir &&
	    !(it->flags & EXTKIT_DIR_ITER_NOWRITE))
		rc = dir_inline_write(it);
	else if (it->dirty && !it->frozen &&
		 !(it->flags & EXTKIT_DIR_ITER_NOWRITE))
		rc = extkit_dirblock_write(it->fs, it->ino,
					   it->inode.generation,
					   it->pblks[it->lblk], it->buf);
	it->dirty = 0;
	return rc;
}

/* Writes the loaded block back if dirty and moves past it. */
static int dir_leave_block(struct extkit_dir_iter *it)
{
	int rc = dir_write_back(it);

	it->loaded = 0;
	it->frozen = 0;
	it->reread = 0;
	it->seeked = 0;
	it->lblk++;
	return rc;
}

/*
 * Loads the next mapped block. Returns 0 with a block loaded, 1 with a
 * HOLE entry in *ent, 2 at the end of the directory, or a negative error
 * (the iterator has then moved past the failing block).
 */
static int dir_load_next(struct extkit_dir_iter *it, struct extkit_dirent *ent)
{
	uint64_t pblk;
	int rc;

	for (;;) {
		if (it->loaded) {
			rc = dir_leave_block(it);
			if (rc)
				return rc;
		}
		if (it->lblk >= it->nblocks)
			return 2;
		if (it->inline_dir) {
			dir_inline_load(it);
			it->loaded = 1;
			it->off = 0;
			return 0;
		}
		pblk = it->pblks[it->lblk];
		if (pblk)
			break;
		if (it->flags & EXTKIT_DIR_ITER_HOLES) {
			memset(ent, 0, sizeof(*ent));
			ent->lblk = it->lblk++;
			ent->rec_len = it->fmt.block_size;
			ent->kind = EXTKIT_DE_HOLE;
			return 1;
		}
		it->lblk++;
	}
	rc = extkit_fs_read_block(it->fs, pblk, it->buf);
	if (rc) {
		it->lblk++;
		return rc;
	}
	it->loaded = 1;
	it->off = 0;
	it->area = it->fmt.block_size;
	return 0;
}

/* Hands out the record at it->off as one of the fixed-size kinds. */
static int dir_emit_whole(struct extkit_dir_iter *it,
			  struct extkit_dirent *ent,
			  enum extkit_dirent_kind kind, uint32_t len)
{
	ent->kind = kind;
	ent->rec_len = len;
	ent->inode = get_le32(it->buf + it->off);
	if (kind == EXTKIT_DE_DX_NODE)
		ent->dx_overhead = len;
	it->off += len;
	return 1;
}

/* Decodes the header and name of the record at it->off into *ent. */
static void dir_decode(const struct extkit_dir_iter *it,
		       struct extkit_dirent *ent, uint32_t len)
{
	const uint8_t *p = it->buf + it->off;

	ent->inode = get_le32(p);
	ent->rec_len = len;
	ent->name_len = extkit_dirent_name_len(&it->fmt,
			(const struct ext2_dir_entry_2 *)p);
	ent->file_type = it->fmt.has_filetype ? p[7] : 0;
	ent->name = (const char *)p + EXT2_DIR_ENTRY_HEADER_LEN;
}

/*
 * An invalid record. With EXTKIT_DIR_ITER_PAST_CORRUPT and a sound
 * length (only the inode number is out of range) the walk goes on past
 * it; else the rest of the block is skipped.
 */
static int dir_emit_corrupt(struct extkit_dir_iter *it,
			    struct extkit_dirent *ent,
			    enum extkit_dirent_problem problem, uint32_t len)
{
	uint32_t bs = it->area;

	ent->kind = EXTKIT_DE_CORRUPT;
	ent->problem = problem;
	if (problem == EXTKIT_DIRENT_BAD_INODE &&
	    (it->flags & EXTKIT_DIR_ITER_PAST_CORRUPT)) {
		dir_decode(it, ent, len);
		it->off += len;
		return 1;
	}
	ent->rec_len = bs - it->off;
	if (it->off + 4 <= bs)
		ent->inode = get_le32(it->buf + it->off);
	it->off = bs;
	return 1;
}

static int dir_emit_record(struct extkit_dir_iter *it,
			   struct extkit_dirent *ent, uint32_t len)
{
	dir_decode(it, ent, len);
	ent->kind = ent->inode ? EXTKIT_DE_LIVE : EXTKIT_DE_EMPTY;
	if (it->indexed && it->lblk == 0 && it->off == 12)
		ent->dx_overhead = len - extkit_dirent_min_len(2);
	else if (ent->inode)
		ent->slack = len - extkit_dirent_min_len(ent->name_len);
	else
		ent->slack = len;
	it->off += len;
	return 1;
}

/* Decodes the record at it->off of the loaded block. */
static int dir_next_record(struct extkit_dir_iter *it,
			   struct extkit_dirent *ent)
{
	enum extkit_dirent_problem problem;
	uint32_t limit, len;

	memset(ent, 0, sizeof(*ent));
	ent->lblk = it->lblk;
	ent->pblk = it->pblks ? it->pblks[it->lblk] : 0;
	ent->offset = it->off;
	ent->name = (const char *)it->buf + it->off;
	it->cur = it->off;
	it->reread = 0;
	it->seeked = 0;
	if (it->off == 0 && dx_is_node(it, it->lblk)) {
		it->cur_kind = EXTKIT_DE_DX_NODE;
		return dir_emit_whole(it, ent, EXTKIT_DE_DX_NODE,
				      it->fmt.block_size);
	}
	limit = dir_block_limit(it);
	if (it->off == limit) {
		it->cur_kind = EXTKIT_DE_TAIL;
		return dir_emit_whole(it, ent, EXTKIT_DE_TAIL, DIR_TAIL_LEN);
	}
	problem = extkit_dirent_check(&it->fmt, it->buf, it->off, limit, &len);
	if (problem != EXTKIT_DIRENT_OK) {
		it->cur_kind = EXTKIT_DE_CORRUPT;
		return dir_emit_corrupt(it, ent, problem, len);
	}
	dir_emit_record(it, ent, len);
	it->cur_kind = ent->kind;
	return 1;
}

/*
 * The caller changed the record handed out last: the walk goes on from
 * its new end. One that no longer parses is handed out again (CORRUPT).
 */
static void dir_reread(struct extkit_dir_iter *it)
{
	enum extkit_dirent_problem problem;
	uint32_t len;

	it->reread = 0;
	if (it->cur_kind != EXTKIT_DE_LIVE && it->cur_kind != EXTKIT_DE_EMPTY &&
	    it->cur_kind != EXTKIT_DE_CORRUPT)
		return;
	problem = extkit_dirent_check(&it->fmt, it->buf, it->cur,
				      dir_block_limit(it), &len);
	if (problem == EXTKIT_DIRENT_OK ||
	    (problem == EXTKIT_DIRENT_BAD_INODE &&
	     (it->flags & EXTKIT_DIR_ITER_PAST_CORRUPT)))
		it->off = it->cur + len;
	else if (it->cur_kind != EXTKIT_DE_CORRUPT)
		it->off = it->cur;
}

int extkit_dir_iter_next(struct extkit_dir_iter *it,
			 struct extkit_dirent *ent)
{
	int rc;

	if (!it->buf)
		return -EINVAL;
	if (it->loaded && it->reread && !it->seeked)
		dir_reread(it);
	if (!it->loaded || it->off >= it->area) {
		rc = dir_load_next(it, ent);
		if (rc == 2)
			return 0;
		if (rc)
			return rc;
	}
	return dir_next_record(it, ent);
}

void extkit_dir_iter_mark_dirty(struct extkit_dir_iter *it)
{
	if (!it->loaded)
		return;
	it->dirty = 1;
	it->reread = 1;
}

int extkit_dir_iter_set_inode(struct extkit_dir_iter *it, uint32_t ino)
{
	if (!it->loaded || (it->cur_kind != EXTKIT_DE_LIVE &&
			    it->cur_kind != EXTKIT_DE_EMPTY))
		return -EINVAL;
	put_le32(it->buf + it->cur, ino);
	extkit_dir_iter_mark_dirty(it);
	return 0;
}

int extkit_dir_iter_seek(struct extkit_dir_iter *it, uint32_t offset)
{
	if (!it->loaded || (offset & 3u) || offset > it->area)
		return -EINVAL;
	it->off = offset;
	it->seeked = 1;
	return 0;
}

int extkit_dir_iter_freeze(struct extkit_dir_iter *it)
{
	int rc;

	if (!it->loaded)
		return 0;
	rc = dir_write_back(it);
	it->frozen = 1;
	return rc;
}

uint8_t *extkit_dir_iter_block(struct extkit_dir_iter *it)
{
	return it->loaded ? it->buf : NULL;
}

const struct extkit_inode *extkit_dir_iter_inode(
	const struct extkit_dir_iter *it)
{
	return &it->inode;
}

const struct extkit_dir_format *extkit_dir_iter_format(
	const struct extkit_dir_iter *it)
{
	return &it->fmt;
}

uint64_t extkit_dir_iter_nblocks(const struct extkit_dir_iter *it)
{
	return it->nblocks;
}

uint64_t extkit_dir_iter_pblk(const struct extkit_dir_iter *it,
			      uint64_t lblk)
{
	return lblk < it->nblocks && it->pblks ? it->pblks[lblk] : 0;
}

uint32_t extkit_dir_iter_area(const struct extkit_dir_iter *it)
{
	return it->area;
}

uint32_t extkit_dir_iter_limit(const struct extkit_dir_iter *it)
{
	return dir_block_limit(it);
}

int extkit_dir_iter_is_inline(const struct extkit_dir_iter *it)
{
	return it->inline_dir;
}

int extkit_dir_iter_indexed(const struct extkit_dir_iter *it)
{
	return it->indexed;
}

int extkit_dir_iter_end(struct extkit_dir_iter *it)
{
	int rc = 0;

	if (it->loaded && (it->pblks || it->inline_dir))
		rc = dir_write_back(it);
	dir_iter_release(it);
	return rc;
}

int extkit_dir_iter_open(struct extkit_fs *fs, uint32_t ino, int flags,
			 struct extkit_dir_iter **out)
{
	struct extkit_dir_iter *it = malloc(sizeof(*it));
	int rc;

	*out = NULL;
	if (!it)
		return -ENOMEM;
	rc = extkit_dir_iter_init(it, fs, ino, flags);
	if (rc) {
		free(it);
		return rc;
	}
	*out = it;
	return 0;
}

int extkit_dir_iter_close(struct extkit_dir_iter *it)
{
	int rc;

	if (!it)
		return 0;
	rc = extkit_dir_iter_end(it);
	free(it);
	return rc;
}
