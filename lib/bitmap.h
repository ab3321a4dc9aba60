/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * In-memory bitmaps (block and inode maps). Bits live in host-order 64-bit
 * words; every range operation works a machine word at a time, never bit
 * by bit. The on-disk form (bit i in byte i / 8, bit i % 8) is produced and
 * read only by extkit_bitmap_to_disk() / _from_disk().
 *
 * Range arguments are (start, count). Out-of-range arguments return
 * -ERANGE and change nothing.
 */
#ifndef EXTKIT_BITMAP_H
#define EXTKIT_BITMAP_H

#include <stddef.h>
#include <stdint.h>

struct extkit_bitmap {
	uint64_t nbits;
	uint64_t *words;	/* (nbits + 63) / 64 words; spare bits 0 */
};

/* Allocates a bitmap of nbits bits, all clear; -ENOMEM, -EINVAL. */
int extkit_bitmap_init(struct extkit_bitmap *bm, uint64_t nbits);
void extkit_bitmap_free(struct extkit_bitmap *bm);

int extkit_bitmap_set(struct extkit_bitmap *bm, uint64_t bit);
int extkit_bitmap_clear(struct extkit_bitmap *bm, uint64_t bit);
/* 1 if set, 0 if clear, -ERANGE past the end. */
int extkit_bitmap_test(const struct extkit_bitmap *bm, uint64_t bit);

int extkit_bitmap_set_range(struct extkit_bitmap *bm, uint64_t start,
			    uint64_t count);
int extkit_bitmap_clear_range(struct extkit_bitmap *bm, uint64_t start,
			      uint64_t count);
/* Clears every bit. */
void extkit_bitmap_clear_all(struct extkit_bitmap *bm);

/* Number of set bits in the range (0 for an out-of-range request). */
uint64_t extkit_bitmap_count_range(const struct extkit_bitmap *bm,
				   uint64_t start, uint64_t count);

/*
 * First zero (or set) bit in [start, start + count): 0 and *found, or
 * -ENOENT when there is none, -ERANGE for a range past the end.
 */
int extkit_bitmap_find_first_zero(const struct extkit_bitmap *bm,
				  uint64_t start, uint64_t count,
				  uint64_t *found);
int extkit_bitmap_find_first_set(const struct extkit_bitmap *bm,
				 uint64_t start, uint64_t count,
				 uint64_t *found);
/*
 * First run of len zero bits inside [start, start + count): 0 and *found,
 * -ENOENT when there is none, -ERANGE for a range past the end.
 */
int extkit_bitmap_find_zero_run(const struct extkit_bitmap *bm,
				uint64_t start, uint64_t count, uint64_t len,
				uint64_t *found);

/*
 * Copies bits [start, start + nbits) to the on-disk layout in out, which
 * receives (nbits + 7) / 8 bytes; bits of the last byte past nbits are 0.
 */
int extkit_bitmap_to_disk(const struct extkit_bitmap *bm, uint64_t start,
			  uint64_t nbits, void *out);
/* Loads nbits on-disk bits from in into bits [start, start + nbits). */
int extkit_bitmap_from_disk(struct extkit_bitmap *bm, uint64_t start,
			    uint64_t nbits, const void *in);

/*
 * Bits [start, start + count) of a bitmap in its on-disk layout (a block
 * read from disk): how many are set, and clearing them (returning how
 * many of them were set). Bytes at a time; the caller checks the range.
 */
uint64_t extkit_bitmap_disk_count(const void *disk, uint64_t start,
				  uint64_t count);
uint64_t extkit_bitmap_disk_clear(void *disk, uint64_t start,
				  uint64_t count);

#endif /* EXTKIT_BITMAP_H */
