/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The free-entry map of a directory: one walk of the directory iterator
 * yields every hole (a contiguous free run inside a block), the live and
 * free byte counts, the fragmentation figures, the blocks the live entries
 * would need if packed densely, and the insertion hints (the largest record
 * each block could take, kept in a max-tree so that finding the first block
 * with room costs no block visits).
 *
 * The checksum tail and the htree index (the dx_root behind '..' and the
 * interior dx_node blocks) are overhead, never free space.
 */
#ifndef EXTKIT_DIRSPACE_H
#define EXTKIT_DIRSPACE_H

#include <stdint.h>

#include "dir.h"
#include "dirext.h"
#include "fs.h"

/*
 * Hole-size buckets: <16 (12-15, and the 4- or 8-byte runs that cannot
 * hold a record), 16-23, 24-31, 32-63, 64-127, 128-255, 256-511, 512-1023,
 * 1024+, and whole-empty blocks (a hole spanning a block's usable bytes,
 * counted there and in no size bucket).
 */
#define EXTKIT_HOLE_BUCKETS		10
#define EXTKIT_HOLE_BUCKET_EMPTY	9
/* A hole smaller than this cannot take a typical new entry (16 chars). */
#define EXTKIT_FRAG_SMALL_HOLE		24

struct extkit_dir_hole {
	uint64_t lblk;
	uint32_t offset;
	uint32_t size;
};

struct extkit_dirspace_stats {
	uint64_t blocks;		/* mapped blocks, index ones too */
	uint64_t entries;		/* live records ('.' and '..' too) */
	uint64_t live_bytes;		/* their minimal record sizes */
	uint64_t free_bytes;
	uint64_t overhead_bytes;	/* checksum tails, htree index */
	uint64_t holes;
	uint32_t largest_hole;
	uint64_t hist[EXTKIT_HOLE_BUCKETS];
	uint64_t small_hole_bytes;	/* free bytes in holes < 24 bytes */
	uint64_t blocks_needed;		/* after dense packing */
	uint64_t reclaimable_blocks;	/* blocks - blocks_needed, >= 0 */
	uint64_t corrupt;		/* records the iterator flagged */
	int indexed;			/* htree in use */
};

/* Lower bound of bucket i (bucket EMPTY: 0); label such as "12-15". */
uint32_t extkit_hole_bucket_min(unsigned int i);
const char *extkit_hole_bucket_label(unsigned int i);
unsigned int extkit_hole_bucket(uint32_t size);

/* Share (0..1) of free bytes sitting in holes under 24 bytes: free space
 * too scattered for a typical new entry (a 16-byte name). */
double extkit_dirspace_small_hole_share(const struct extkit_dirspace_stats *st);
/* Share (0..1) of the directory's bytes that are free. */
double extkit_dirspace_free_share(const struct extkit_dirspace_stats *st);

/* A max-tree over per-block values: find the first block holding >= v. */
struct extkit_maxtree {
	uint32_t *t;
	uint64_t size;		/* leaves (a power of two) */
};

#define EXTKIT_DIRSPACE_HOLES	0x1	/* keep the list of holes */
/* insert by a first-fit walk from block 0, ignoring the hints */
#define EXTKIT_DIRSPACE_WALK	0x2

struct extkit_dirspace {
	struct extkit_fs *fs;
	uint32_t ino;
	uint32_t gen;		/* i_generation: seeds block checksums */
	int flags;
	struct extkit_dir_format fmt;
	struct extkit_dirspace_stats st;
	int stale;		/* st predates edits: refresh re-walks */
	uint64_t nblocks;	/* logical blocks (i_size / block size) */
	uint64_t blk_cap;	/* room in pblks and the tree */
	uint64_t *pblks;	/* physical block of each logical block */
	struct extkit_maxtree room;	/* largest insertable record */
	struct extkit_dir_hole *holes;
	uint64_t nholes;
	uint64_t holes_cap;
	uint64_t visits;	/* blocks read by insertions and removals */
	uint8_t *buf;		/* one block of scratch */
	/* Where a growing directory gets its blocks: zeroed by
	 * extkit_dirspace_build (the on-disk bitmaps); set it after. */
	struct extkit_allocator alloc;
};

/*
 * Figures only: one walk, no per-block state kept (dump frag).
 */
int extkit_dirspace_scan(struct extkit_fs *fs, uint32_t ino,
			 struct extkit_dirspace_stats *st);

/* Builds the map of directory ino (one walk). flags: EXTKIT_DIRSPACE_*. */
int extkit_dirspace_build(struct extkit_dirspace *ds, struct extkit_fs *fs,
			  uint32_t ino, int flags);
void extkit_dirspace_free(struct extkit_dirspace *ds);
/* Re-walks if edits made the figures stale. */
int extkit_dirspace_refresh(struct extkit_dirspace *ds);

/*
 * First logical block (from block 0) whose largest insertable record is at
 * least need bytes, from the hints (or by walking with
 * EXTKIT_DIRSPACE_WALK): 0 and *lblk, or -ENOSPC when none has room.
 */
int extkit_dirspace_find(struct extkit_dirspace *ds, uint32_t need,
			 uint64_t *lblk);
/* Records the room of block lblk after an edit (grows the map). */
int extkit_dirspace_set_room(struct extkit_dirspace *ds, uint64_t lblk,
			     uint64_t pblk, uint32_t room);
uint32_t extkit_dirspace_room(const struct extkit_dirspace *ds,
			      uint64_t lblk);

/*
 * Largest record a raw leaf block could take (what ext2_add_link would
 * find): the biggest free record, or the biggest rec_len less a live
 * record's own minimal size. -EFSCORRUPTED for a block the validator
 * rejects.
 */
int extkit_dirspace_block_room(const struct extkit_dir_format *fmt,
			       const uint8_t *buf, uint32_t *room);

/* Usable bytes of a leaf block (block size less the checksum tail). */
static inline uint32_t extkit_dirspace_usable(const struct extkit_dir_format *f)
{
	return f->block_size - f->tail_len;
}

/*
 * Dense packing, in order: a record goes into the current block if it
 * fits, else starts the next one. Compaction lays records out the same
 * way, so its result and blocks_needed agree.
 */
struct extkit_dir_packer {
	uint32_t usable;
	uint32_t fill;
	uint64_t blocks;
};

static inline void extkit_packer_init(struct extkit_dir_packer *p,
				      uint32_t usable)
{
	p->usable = usable;
	p->fill = 0;
	p->blocks = 0;
}

/* Returns 1 when the record starts a new block. */
static inline int extkit_packer_add(struct extkit_dir_packer *p,
				    uint32_t len)
{
	if (p->blocks && p->fill + len <= p->usable) {
		p->fill += len;
		return 0;
	}
	p->blocks++;
	p->fill = len;
	return 1;
}

#endif /* EXTKIT_DIRSPACE_H */
