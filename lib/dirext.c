// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory block maps: append and truncate (see dirext.h). Block-mapped
 * inodes up to the double indirect level on append (a directory that
 * large would hold millions of entries) and every level on truncate (the
 * block walker's cut, extkit_bmap_truncate); extent-mapped inodes whose
 * extents all fit in the inode.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bmap.h"
#include "dirext.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "ondisk.h"

#define NDIR		12u
#define EXT_MAX_LEN	32768u

/* ---- allocation ---- */

static int blk_take(struct extkit_fs *fs, const struct extkit_allocator *ba,
		    uint64_t goal, uint64_t *blk)
{
	return extkit_take_block(fs, ba, goal, blk);
}

static void blk_give_back(struct extkit_fs *fs,
			  const struct extkit_allocator *ba, uint64_t blk)
{
	extkit_give_back(fs, ba, blk, 1);
}

/*
 * Blocks taken before the first write, handed out by map_append as the
 * indirect blocks it needs (an allocator over a fixed set).
 */
struct blk_pool {
	uint64_t blk[2];
	unsigned int n;		/* taken */
	unsigned int used;	/* handed out */
};

static int pool_alloc(void *arg, uint64_t goal, uint64_t want,
		      uint64_t *blk, uint64_t *got)
{
	struct blk_pool *p = arg;

	(void)goal;
	(void)want;
	*got = 1;
	if (p->used == p->n)
		return -EIO;	/* counted wrong: never write unplanned */
	*blk = p->blk[p->used++];
	return 0;
}

/* ---- block-mapped ---- */

static int new_zero_block(struct extkit_fs *fs,
			  const struct extkit_allocator *ba, uint64_t goal,
			  uint64_t *blk, uint64_t *added)
{
	void *z;
	int rc = blk_take(fs, ba, goal, blk);

	if (rc)
		return rc;
	(*added)++;
	z = calloc(1, fs->g.block_size);
	if (!z)
		return -ENOMEM;
	rc = extkit_fs_write_block(fs, *blk, z);
	free(z);
	return rc;
}

/* Sets slot idx of indirect block *ptr (allocated if 0) to *val (set),
 * or reads it into *val. */
static int ind_slot(struct extkit_fs *fs, const struct extkit_allocator *ba,
		    uint32_t *ptr, uint32_t idx, uint32_t *val, int set,
		    uint64_t goal, uint64_t *added)
{
	uint8_t *b;
	uint64_t nb;
	int rc = 0;

	if (!*ptr) {
		rc = new_zero_block(fs, ba, goal, &nb, added);
		if (rc)
			return rc;
		*ptr = (uint32_t)nb;
	}
	b = malloc(fs->g.block_size);
	if (!b)
		return -ENOMEM;
	rc = extkit_fs_read_block(fs, *ptr, b);
	if (!rc && set) {
		put_le32(b + 4 * idx, *val);
		rc = extkit_fs_write_block(fs, *ptr, b);
	} else if (!rc) {
		*val = get_le32(b + 4 * idx);
	}
	free(b);
	return rc;
}

static int map_append(struct extkit_fs *fs, const struct extkit_allocator *ba,
		      struct extkit_inode *inode, uint64_t lblk, uint32_t pblk,
		      uint64_t goal, uint64_t *added)
{
	uint64_t apb = fs->g.addr_per_block, l = lblk, nb;
	uint32_t ind = 0;
	int rc;

	if (l < NDIR) {
		inode->block[l] = pblk;
		return 0;
	}
	l -= NDIR;
	if (l < apb)
		return ind_slot(fs, ba, &inode->block[NDIR], (uint32_t)l,
				&pblk, 1, goal, added);
	l -= apb;
	if (l >= apb * apb)
		return -EFBIG;
	/* double indirect: slot l / apb holds the indirect block */
	rc = ind_slot(fs, ba, &inode->block[NDIR + 1], (uint32_t)(l / apb),
		      &ind, 0, goal, added);
	if (!rc && !ind) {
		rc = new_zero_block(fs, ba, goal, &nb, added);
		ind = (uint32_t)nb;
		if (!rc)
			rc = ind_slot(fs, ba, &inode->block[NDIR + 1],
				      (uint32_t)(l / apb), &ind, 1, goal,
				      added);
	}
	if (rc)
		return rc;
	return ind_slot(fs, ba, &ind, (uint32_t)(l % apb), &pblk, 1, goal,
			added);
}

/* ---- extents in the inode (through extent.c) ---- */

/* The inode's extent root into root, with its header (eh): only a root
 * holding the extents itself (depth 0) is edited here. */
static int ext_load(const struct extkit_inode *inode, uint8_t *root,
		    struct ext4_extent_header *eh)
{
	extkit_extent_root_get(inode, root);
	memcpy(eh, root, sizeof(*eh));
	if (le16(eh->eh_magic) != EXT4_EXT_MAGIC || extkit_extent_depth(root))
		return -EXTKIT_EUNSUPP;
	if (extkit_extent_header_check(eh, EXTKIT_EXTENT_ROOT_SIZE))
		return -EFSCORRUPTED;
	return 0;
}

static int ext_append(struct extkit_inode *inode, uint64_t lblk,
		      uint64_t pblk)
{
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct ext4_extent_header eh;
	struct extkit_extent last, ex = { .lblk = lblk, .len = 1,
					  .pblk = pblk };
	uint16_t n;
	int rc = ext_load(inode, root, &eh);

	if (rc)
		return rc;
	n = extkit_extent_entries(root);
	if (n) {
		extkit_extent_get(root, n - 1u, &last);
		if (lblk < last.lblk + last.len)
			return -EXTKIT_EUNSUPP;
		if (!last.unwritten && last.len < EXT_MAX_LEN &&
		    last.lblk + last.len == lblk &&
		    last.pblk + last.len == pblk) {
			last.len++;
			extkit_extent_put(root, n - 1u, &last);
			extkit_extent_root_put(inode, root);
			return 0;
		}
	}
	if (n >= le16(eh.eh_max))
		return -EXTKIT_EUNSUPP;
	extkit_extent_put(root, n, &ex);
	extkit_extent_set_entries(root, n + 1u);
	extkit_extent_root_put(inode, root);
	return 0;
}

/* ---- the entry points ---- */

static uint64_t fs_blocks_of(const struct extkit_fs *fs,
			     const struct extkit_inode *inode)
{
	return extkit_inode_blocks_bytes(fs, inode) / fs->g.block_size;
}

/* How many indirect blocks appending at lblk of a block map allocates. */
static int ind_needed(struct extkit_fs *fs, const struct extkit_inode *inode,
		      uint64_t lblk, unsigned int *need)
{
	uint64_t apb = fs->g.addr_per_block, l = lblk;
	uint32_t dind = inode->block[NDIR + 1];
	uint8_t *b;
	int rc;

	*need = 0;
	if (l < NDIR)
		return 0;
	l -= NDIR;
	if (l < apb) {
		*need = !inode->block[NDIR];
		return 0;
	}
	l -= apb;
	if (l >= apb * apb)
		return -EFBIG;
	if (!dind) {
		*need = 2;
		return 0;
	}
	b = malloc(fs->g.block_size);
	if (!b)
		return -ENOMEM;
	rc = extkit_fs_read_block(fs, dind, b);
	*need = !rc && !get_le32(b + 4 * (l / apb));
	free(b);
	return rc;
}

/*
 * The data block and the indirect blocks a block-mapped append needs, all
 * taken before the first write (all or nothing); pool gets the latter.
 */
static int take_blocks(struct extkit_fs *fs, const struct extkit_inode *inode,
		       uint64_t lblk, uint64_t goal,
		       const struct extkit_allocator *ba, uint64_t *blk,
		       struct blk_pool *pool)
{
	unsigned int need = 0;
	int rc = 0;

	if (!(inode->flags & EXT4_EXTENTS_FL))
		rc = ind_needed(fs, inode, lblk, &need);
	if (!rc)
		rc = blk_take(fs, ba, goal, blk);
	if (rc)
		return rc;
	while (!rc && pool->n < need) {
		rc = blk_take(fs, ba, *blk, &pool->blk[pool->n]);
		if (!rc)
			pool->n++;
	}
	if (!rc)
		return 0;
	while (pool->n)
		blk_give_back(fs, ba, pool->blk[--pool->n]);
	blk_give_back(fs, ba, *blk);
	return rc;
}

int extkit_dir_append_block(struct extkit_fs *fs, struct extkit_inode *inode,
			    uint64_t lblk, uint64_t goal, uint64_t *pblk,
			    const struct extkit_allocator *ba)
{
	struct blk_pool pool = { .n = 0 };
	struct extkit_allocator from_pool = { .take_blocks = pool_alloc,
					      .arg = &pool };
	uint64_t added = 0, blk;
	int rc;

	rc = take_blocks(fs, inode, lblk, goal, ba, &blk, &pool);
	if (rc)
		return rc;
	if (inode->flags & EXT4_EXTENTS_FL)
		rc = ext_append(inode, lblk, blk);
	else if (blk > UINT32_MAX)
		rc = -EFBIG;
	else
		rc = map_append(fs, &from_pool, inode, lblk, (uint32_t)blk,
				blk, &added);
	if (rc) {
		/* Only blocks nothing was written to go back. */
		while (pool.n > pool.used)
			blk_give_back(fs, ba, pool.blk[--pool.n]);
		blk_give_back(fs, ba, blk);
		return rc;
	}
	extkit_inode_set_fs_blocks(fs, inode,
				   fs_blocks_of(fs, inode) + 1 + added);
	*pblk = blk;
	return 0;
}

/* The truncation's callback: every released run joins the free list. */
static int trim_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		   uint32_t count, int flags, void *arg)
{
	struct extkit_blk_list *fl = arg;
	int rc = 0;

	for (uint32_t i = 0; i < count && !rc; i++)
		rc = extkit_blk_list_push(fl, pblk + i);
	return rc;
}

int extkit_dir_truncate(struct extkit_fs *fs, struct extkit_inode *inode,
			uint64_t nblocks)
{
	struct extkit_blk_list fl = { 0 };
	uint64_t have = fs_blocks_of(fs, inode), freed;
	uint8_t root[EXTKIT_EXTENT_ROOT_SIZE];
	struct ext4_extent_header eh;
	int rc;

	/* Tree blocks would be rewritten, and their checksums want the
	 * owner's inode number: extents in the inode only. */
	if (inode->flags & EXT4_EXTENTS_FL) {
		rc = ext_load(inode, root, &eh);
		if (rc)
			return rc;
	}
	rc = extkit_bmap_truncate(fs, 0, inode, nblocks, 0, trim_fn, &fl);
	freed = fl.n;
	if (!rc)
		rc = extkit_blk_list_release(fs, &fl);
	extkit_blk_list_free(&fl);
	if (rc)
		return rc;
	extkit_inode_set_fs_blocks(fs, inode, have > freed ? have - freed : 0);
	inode->size = nblocks * fs->g.block_size;
	return 0;
}
