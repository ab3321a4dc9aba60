// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: a directory laid out in memory (lib/dirbuild.c: linear, or
 * htree when it needs more than one block and dir_index is on), written
 * in runs of contiguous blocks, its map and inode; lost+found.
 */
#include "config.h"

#include <stdlib.h>

#include "csum.h"
#include "dirblock.h"
#include "error.h"
#include "group.h"
#include "ondisk.h"

#include "populate.h"

#define EXT2_LINK_MAX	65000	/* as the kernel's EXT4_LINK_MAX */

/* Blocks near inode ino: its group's first block when the blocks taken
 * so far are in an earlier group, else right after them. */
static uint64_t goal_for(struct pop *p, uint32_t ino)
{
	const struct extkit_super *sb = &p->fs->sb;
	uint32_t g = (ino - 1) / sb->inodes_per_group;
	uint64_t first = extkit_group_first_block(sb, g);

	return p->blk_goal < first ? first : p->blk_goal;
}


/* ---- directories ---- */

static uint16_t dir_links(const struct extkit_dirbuild *db)
{
	uint64_t n = 2;

	for (uint64_t i = 0; i < db->n; i++)
		n += db->e[i].ftype == EXT2_FT_DIR;
	/* past the 16-bit count, dir_nlink's 1 means "many" */
	return n < EXT2_LINK_MAX ? (uint16_t)n : 1;
}

int pop_dir_finish(struct pop *p, uint32_t ino, struct extkit_dirbuild *db)
{
	struct extkit_inode in;
	uint64_t *pblks, i, got, total;
	int rc = pop_inline_ok(p, ino) ?
		 pop_inline_dir(p, ino, db, dir_links(db)) : 0;

	if (rc)		/* 1: inline, written */
		return rc < 0 ? rc : 0;
	rc = extkit_dirbuild_layout(db);
	if (rc)
		return rc;
	pblks = calloc(db->nout, sizeof(*pblks));
	if (!pblks)
		return -ENOMEM;
	rc = pop_inode_get(p, ino, p->raw);
	if (!rc)
		extkit_inode_decode(p->raw, p->fs->g.inode_size, &in);
	if (!rc)	/* in whole clusters on bigalloc */
		rc = pop_take_map(p, goal_for(p, ino), db->nout, pblks, 0);
	for (i = 0; !rc && i < db->nout; i++)
		if (extkit_has_metadata_csum(&p->fs->sb))
			extkit_dirblock_csum_set(p->fs, ino, in.generation,
						 db->out + i * db->bs);
	for (i = 0; !rc && i < db->nout; i += got) {
		/* runs of contiguous blocks, one write each */
		for (got = 1; i + got < db->nout && got < 4096 &&
		     pblks[i + got] == pblks[i] + got; got++)
			;
		rc = extkit_io_write_blocks(p->fs->io, pblks[i], (uint32_t)got,
					    db->out + i * db->bs);
	}
	if (!rc)
		rc = pop_build_map(p, ino, db->nout, pblks, &in, &total);
	free(pblks);
	if (rc)
		return rc;
	in.size = db->nout * db->bs;
	in.links_count = dir_links(db);
	if (db->indexed)
		in.flags |= EXT2_INDEX_FL;
	/* what its attributes hold (an EA block, EA inodes' blocks) is
	 * already in i_blocks: the directory had no block before */
	extkit_inode_set_fs_blocks(p->fs, &in, total + in.blocks /
				   p->fs->g.sb_sectors_per_block);
	extkit_inode_encode(&in, p->fs->g.inode_size, p->raw);
	return pop_inode_put(p, ino, p->raw, 0);
}

int pop_claim_lpf(struct pop *p)
{
	uint32_t bits = p->fs->g.cluster_bits;
	/* on bigalloc its blocks fill clusters from the first's start */
	int rc = extkit_fsbuild_release_clusters(&p->fb, p->lpf_block,
			(p->lpf_blocks + (1ull << bits) - 1) >> bits);

	p->lpf_blocks = 0;
	return rc;
}
