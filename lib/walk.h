/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one block-map walker: indirect maps (i_block[0..11] direct, [12]
 * single, [13] double, [14] triple indirect) and extent trees alike. It
 * visits data and map blocks in logical order, reports a bad pointer or a
 * bad tree block to its callback instead of stopping, and lets the
 * callback change or drop the current mapping; the walk then stores the
 * edit in its node and goes on. Changed map blocks are written when the
 * walk leaves them (extent tree blocks with their checksum), i_block is
 * edited in the inode given (the caller writes the inode).
 *
 * Bounds: the depth is fixed (three indirect levels; each extent tree
 * block must sit one level below its parent, at most five), every block
 * number is checked against the filesystem before use, and a walk meets
 * at most as many block references as the filesystem has blocks: a map
 * whose blocks point at each other ends in -EXTKIT_ELOOP, never a hang.
 * The walker never prints and allocates one buffer per level.
 */
#ifndef EXTKIT_WALK_H
#define EXTKIT_WALK_H

#include <stdint.h>

#include "fs.h"
#include "inode.h"

/* ent->flags: what is visited. The first two equal EXTKIT_BLOCK_META and
 * EXTKIT_BLOCK_UNWRITTEN (bmap.h). */
#define EXTKIT_WALK_META	0x1	/* a map block: indirect or tree block */
#define EXTKIT_WALK_UNWRITTEN	0x2	/* an extent marked unwritten */
#define EXTKIT_WALK_LEAVE	0x4	/* a map block, after its entries */
#define EXTKIT_WALK_EXTENT	0x8	/* the map is an extent tree */
#define EXTKIT_WALK_OVERRUN	0x10	/* with BAD_ORDER: the extent runs over
					 * the next one of its leaf and past
					 * i_size (its length is the bad part) */

/* ent->bad: why the entry or the block it names is unusable. A bad
 * entry is visited once, and a bad map block is not entered. */
enum extkit_walk_bad {
	EXTKIT_WALK_OK = 0,
	EXTKIT_WALK_BAD_PBLK,	/* a block (or run) outside the fs, or 0 */
	EXTKIT_WALK_BAD_LEN,	/* an extent of length 0 */
	EXTKIT_WALK_BAD_ORDER,	/* logical start out of order or outside
				 * its node's range (entered all the same) */
	EXTKIT_WALK_BAD_PAST,	/* an extent reaching past its node's range */
	EXTKIT_WALK_BAD_READ,	/* a map block that cannot be read: err */
	EXTKIT_WALK_BAD_MAGIC,	/* a tree block without the extent magic */
	EXTKIT_WALK_BAD_HEADER,	/* a tree block with a bad count or capacity */
	EXTKIT_WALK_BAD_DEPTH,	/* a tree block at the wrong depth: block */
};

/* What the callback says, a combination (or a negative error). */
#define EXTKIT_WALK_CHANGED	0x1	/* ent's lblk/pblk/len are to be stored;
					 * on ENTER: the block moved to pblk
					 * (written there); on BAD_DEPTH: read
					 * it as the depth it sits at */
#define EXTKIT_WALK_DROP	0x2	/* remove the mapping from its node */
#define EXTKIT_WALK_SKIP	0x4	/* ENTER: do not walk this block */
#define EXTKIT_WALK_NOWRITE	0x8	/* ENTER: keep its edits in memory */
#define EXTKIT_WALK_EDITED	0x10	/* the callback edited ent->node (leaf
					 * entries from index on: skip more) or,
					 * on ENTER, ent->block itself */
#define EXTKIT_WALK_ABORT	0x20	/* stop now: extkit_walk() returns 1 */

/*
 * One visit. A map block is visited when entered (after it was read and
 * found sound: ENTER) and when left (flags EXTKIT_WALK_LEAVE, entries set);
 * a data run once. Fields the callback may change: lblk, pblk, len (with
 * CHANGED), skip (with EDITED), and the bytes of node and block.
 */
struct extkit_walk_ent {
	uint64_t lblk;		/* first logical block mapped */
	uint64_t end;		/* where the range the entry may map ends:
				 * a slot's span, an index entry's child
				 * range, an extent's node range */
	uint64_t pblk;		/* the block, or the first of the run */
	uint32_t len;		/* blocks in the run: 1 but for extents */
	int level;		/* 0 data; map block: its height above the
				 * data (indirect 1..3, tree depth + 1) */
	int flags;		/* EXTKIT_WALK_META ... */
	int bad;		/* enum extkit_walk_bad */
	int err;		/* the read error with BAD_READ */
	uint8_t *node;		/* the node holding the entry: an indirect
				 * block, an extent node; NULL in i_block
				 * of an indirect map */
	uint16_t index;		/* the entry's place in its node */
	uint16_t cap;		/* entries that node can hold */
	uint8_t *block;		/* map block: its contents (ENTER, LEAVE,
				 * BAD_DEPTH) */
	uint32_t entries;	/* LEAVE: entries still set in block */
	uint16_t skip;		/* EDITED: entries after index to pass over */
};

struct extkit_walk;
typedef int (*extkit_walk_fn)(struct extkit_fs *fs,
			      struct extkit_walk_ent *ent, void *arg);

/* extkit_walk flags */
#define EXTKIT_WALK_DRY		0x1	/* write no map block */
#define EXTKIT_WALK_REVERSE	0x2	/* each node's entries last first */

struct extkit_walk {
	uint32_t ino;		/* owner: seeds the tree block checksums */
	int flags;		/* EXTKIT_WALK_DRY, EXTKIT_WALK_REVERSE */
	uint64_t from;		/* entries wholly below it are passed over
				 * (their blocks not even read) */
	extkit_walk_fn fn;
	void *arg;
	int inode_changed;	/* out: i_block of the inode was edited */
};

/*
 * Walks the block map of inode (an extent tree when EXT4_EXTENTS_FL is
 * set); the caller decides whether the inode has a block map at all.
 * Returns 0 when done, 1 when the callback aborted (the edits made so far
 * stay in memory; i_block is stored), or a negative error: the callback's
 * own, -ENOMEM, -EFSCORRUPTED for an extent root with a bad header, or
 * -EXTKIT_ELOOP when the reference budget is spent.
 */
int extkit_walk(struct extkit_fs *fs, struct extkit_inode *inode,
		struct extkit_walk *wk);

#endif /* EXTKIT_WALK_H */
