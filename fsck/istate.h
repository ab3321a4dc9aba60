/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What pass 1 found about each inode, in four bits per inode number (half
 * a byte: 0.5 bytes per inode, 2.5 MB for 5 million inodes): whether it
 * is in use and its file type (EXT2_FT_* of i_mode), with "a regular file
 * without content" (no blocks, size 0, no attribute block or values) as
 * a state of its own, the one pass 4 needs (an unattached empty file is
 * cleared, not reconnected). The states that are rare on a sound
 * filesystem live in bitmaps of their own, allocated zeroed and never
 * touched until one is set: "in use with i_links_count 0" (zero_link)
 * and "holds blocks claimed twice" (dup); a count of the bits set in
 * each spares the bitmap reads while there are none.
 *
 * A page of the codes (8192 inodes) no inode in use was ever recorded in
 * is never written; the walks over every inode in use (passes 4 and 5)
 * skip it through a flag per page, set at its first write, as reading it
 * would make it resident as well (so do kernels that map no shared zero
 * page).
 */
#ifndef EXTKIT_FSCK_ISTATE_H
#define EXTKIT_FSCK_ISTATE_H

#include <stdint.h>

#include "bitmap.h"
#include "ondisk.h"

/* The four-bit codes. */
#define IST_FREE	0x0	/* not in use */
#define IST_EMPTY_REG	0x1	/* in use: a regular file without content */
#define IST_TYPED	0x8	/* in use; the low three bits: EXT2_FT_* */

#define IST_PAGE_SHIFT	13	/* inodes per page count: 8192 (4 KiB) */

struct fsck_istate {
	uint8_t *v;		/* inode ino: byte ino / 2, low half if even */
	uint32_t n;		/* highest inode number */
	uint8_t *page_written;	/* per 1 << IST_PAGE_SHIFT inodes */
	struct extkit_bitmap zero_link;	/* bit ino - 1 */
	struct extkit_bitmap dup;	/* bit ino - 1 */
	uint32_t zero_link_n;	/* bits set in each */
	uint32_t dup_n;
};

int fsck_istate_init(struct fsck_istate *s, uint32_t n);
void fsck_istate_free(struct fsck_istate *s);
/* How many inodes from first (count of them) have the code; pages never
 * written are not read. */
uint32_t fsck_istate_count_code(const struct fsck_istate *s, uint32_t first,
				uint32_t count, unsigned int code);

static inline unsigned int fsck_istate_code(const struct fsck_istate *s,
					    uint32_t ino)
{
	return (s->v[ino >> 1] >> ((ino & 1) * 4)) & 0xfu;
}

static inline void fsck_istate_put(struct fsck_istate *s, uint32_t ino,
				   unsigned int code)
{
	unsigned int shift = (ino & 1) * 4;

	s->v[ino >> 1] = (uint8_t)((s->v[ino >> 1] & ~(0xfu << shift)) |
				   (code << shift));
	s->page_written[ino >> IST_PAGE_SHIFT] = 1;
}

static inline int fsck_istate_used(const struct fsck_istate *s, uint32_t ino)
{
	return fsck_istate_code(s, ino) != IST_FREE;
}

/* The first inode number from ino on that is in use; n + 1 if none. */
static inline uint64_t fsck_istate_next_used(const struct fsck_istate *s,
					     uint64_t ino)
{
	while (ino <= s->n) {
		if (fsck_istate_code(s, (uint32_t)ino) != IST_FREE)
			return ino;
		if (s->page_written[ino >> IST_PAGE_SHIFT])
			ino++;
		else
			ino = ((ino >> IST_PAGE_SHIFT) + 1) << IST_PAGE_SHIFT;
	}
	return (uint64_t)s->n + 1;
}

/* EXT2_FT_* of an inode in use; 0 (EXT2_FT_UNKNOWN) when not in use. */
static inline uint8_t fsck_istate_ftype(const struct fsck_istate *s,
					uint32_t ino)
{
	/* by code: IST_EMPTY_REG is a regular file; 2..7 are not made */
	static const uint8_t ftype_of[16] = {
		[IST_EMPTY_REG] = EXT2_FT_REG_FILE,
		[IST_TYPED | 0] = 0, [IST_TYPED | 1] = 1, [IST_TYPED | 2] = 2,
		[IST_TYPED | 3] = 3, [IST_TYPED | 4] = 4, [IST_TYPED | 5] = 5,
		[IST_TYPED | 6] = 6, [IST_TYPED | 7] = 7,
	};

	return ftype_of[fsck_istate_code(s, ino)];
}

/* A regular file in use without content (pass 1's verdict). */
static inline int fsck_istate_empty_reg(const struct fsck_istate *s,
					uint32_t ino)
{
	return fsck_istate_code(s, ino) == IST_EMPTY_REG;
}

/* In use with file type ft; empty: without content (kept for regular
 * files only, the one type pass 4 asks about). */
static inline void fsck_istate_set(struct fsck_istate *s, uint32_t ino,
				   uint8_t ft, int empty)
{
	fsck_istate_put(s, ino, empty && ft == EXT2_FT_REG_FILE ?
				IST_EMPTY_REG : IST_TYPED | (ft & 7u));
}

/* In use, its type as known (EXT2_FT_UNKNOWN if none was recorded). */
static inline void fsck_istate_mark_used(struct fsck_istate *s, uint32_t ino)
{
	if (fsck_istate_code(s, ino) == IST_FREE)
		fsck_istate_put(s, ino, IST_TYPED | EXT2_FT_UNKNOWN);
}

/* The rare states (never for inode 0). */
static inline int fsck_istate_zero_link(const struct fsck_istate *s,
					uint32_t ino)
{
	return s->zero_link_n && ino &&
	       extkit_bitmap_test(&s->zero_link, ino - 1) == 1;
}

static inline int fsck_istate_dup(const struct fsck_istate *s, uint32_t ino)
{
	return s->dup_n && ino && extkit_bitmap_test(&s->dup, ino - 1) == 1;
}

/* Sets (on) or clears bit ino - 1 of a rare state's bitmap, counted. */
static inline void fsck_istate_rare_put(struct extkit_bitmap *bm,
					uint32_t *nset, uint32_t ino, int on)
{
	int was;

	if (!ino || (!on && !*nset))
		return;
	was = extkit_bitmap_test(bm, ino - 1) == 1;
	if (on && !was && !extkit_bitmap_set(bm, ino - 1))
		(*nset)++;
	else if (!on && was && !extkit_bitmap_clear(bm, ino - 1))
		(*nset)--;
}

static inline void fsck_istate_set_zero_link(struct fsck_istate *s,
					     uint32_t ino, int on)
{
	fsck_istate_rare_put(&s->zero_link, &s->zero_link_n, ino, on);
}

static inline void fsck_istate_set_dup(struct fsck_istate *s, uint32_t ino,
				       int on)
{
	fsck_istate_rare_put(&s->dup, &s->dup_n, ino, on);
}

/* Not in use, and neither of the rare states. */
static inline void fsck_istate_clear(struct fsck_istate *s, uint32_t ino)
{
	fsck_istate_put(s, ino, IST_FREE);
	fsck_istate_set_zero_link(s, ino, 0);
	fsck_istate_set_dup(s, ino, 0);
}

#endif /* EXTKIT_FSCK_ISTATE_H */
