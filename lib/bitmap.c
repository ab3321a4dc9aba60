// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * In-memory bitmaps with range operations a 64-bit word at a time. The
 * spare bits of the last word are always zero, so whole-word scans need
 * no special case at the end.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "endian.h"

#define WORD_BITS	64u

static uint64_t nwords(uint64_t nbits)
{
	return (nbits + WORD_BITS - 1) / WORD_BITS;
}

static int range_ok(const struct extkit_bitmap *bm, uint64_t start,
		    uint64_t count)
{
	return start <= bm->nbits && count <= bm->nbits - start;
}

/* Mask of bits [lo, hi] (inclusive) within one word, 0 <= lo <= hi < 64. */
static uint64_t word_mask(unsigned int lo, unsigned int hi)
{
	return (~0ULL << lo) & (~0ULL >> (WORD_BITS - 1 - hi));
}

int extkit_bitmap_init(struct extkit_bitmap *bm, uint64_t nbits)
{
	uint64_t n = nwords(nbits);

	bm->nbits = 0;
	bm->words = NULL;
	if (n > SIZE_MAX / sizeof(uint64_t))
		return -EINVAL;
	bm->words = calloc(n ? (size_t)n : 1, sizeof(uint64_t));
	if (!bm->words)
		return -ENOMEM;
	bm->nbits = nbits;
	return 0;
}

void extkit_bitmap_free(struct extkit_bitmap *bm)
{
	free(bm->words);
	bm->words = NULL;
	bm->nbits = 0;
}

int extkit_bitmap_set(struct extkit_bitmap *bm, uint64_t bit)
{
	if (bit >= bm->nbits)
		return -ERANGE;
	bm->words[bit / WORD_BITS] |= 1ULL << (bit % WORD_BITS);
	return 0;
}

int extkit_bitmap_clear(struct extkit_bitmap *bm, uint64_t bit)
{
	if (bit >= bm->nbits)
		return -ERANGE;
	bm->words[bit / WORD_BITS] &= ~(1ULL << (bit % WORD_BITS));
	return 0;
}

int extkit_bitmap_test(const struct extkit_bitmap *bm, uint64_t bit)
{
	if (bit >= bm->nbits)
		return -ERANGE;
	return (bm->words[bit / WORD_BITS] >> (bit % WORD_BITS)) & 1;
}

/* Sets (set != 0) or clears a checked, non-empty range. */
static void range_apply(uint64_t *w, uint64_t start, uint64_t count, int set)
{
	uint64_t end = start + count - 1;
	uint64_t first = start / WORD_BITS, last = end / WORD_BITS;
	unsigned int lo = start % WORD_BITS, hi = end % WORD_BITS;
	uint64_t head, tail;

	if (first == last) {
		head = word_mask(lo, hi);
		w[first] = set ? w[first] | head : w[first] & ~head;
		return;
	}
	head = word_mask(lo, WORD_BITS - 1);
	tail = word_mask(0, hi);
	w[first] = set ? w[first] | head : w[first] & ~head;
	w[last] = set ? w[last] | tail : w[last] & ~tail;
	if (last > first + 1)
		memset(&w[first + 1], set ? 0xff : 0,
		       (size_t)(last - first - 1) * sizeof(*w));
}

int extkit_bitmap_set_range(struct extkit_bitmap *bm, uint64_t start,
			    uint64_t count)
{
	if (!range_ok(bm, start, count))
		return -ERANGE;
	if (count)
		range_apply(bm->words, start, count, 1);
	return 0;
}

int extkit_bitmap_clear_range(struct extkit_bitmap *bm, uint64_t start,
			      uint64_t count)
{
	if (!range_ok(bm, start, count))
		return -ERANGE;
	if (count)
		range_apply(bm->words, start, count, 0);
	return 0;
}

void extkit_bitmap_clear_all(struct extkit_bitmap *bm)
{
	memset(bm->words, 0, (size_t)nwords(bm->nbits) * sizeof(uint64_t));
}

/* Mask of the bits of word i inside the inclusive bit range [first, last]. */
static uint64_t range_word_mask(uint64_t i, uint64_t first, uint64_t last)
{
	unsigned int lo = i == first / WORD_BITS ? first % WORD_BITS : 0;
	unsigned int hi = i == last / WORD_BITS ? last % WORD_BITS :
						  WORD_BITS - 1;

	return word_mask(lo, hi);
}

uint64_t extkit_bitmap_count_range(const struct extkit_bitmap *bm,
				   uint64_t start, uint64_t count)
{
	uint64_t last = start + count - 1;
	uint64_t n = 0;

	if (!count || !range_ok(bm, start, count))
		return 0;
	for (uint64_t i = start / WORD_BITS; i <= last / WORD_BITS; i++)
		n += (uint64_t)__builtin_popcountll(bm->words[i] &
				range_word_mask(i, start, last));
	return n;
}

static int find_first(const struct extkit_bitmap *bm, uint64_t start,
		      uint64_t count, uint64_t *found, int want_set)
{
	uint64_t last = start + count - 1;

	if (!range_ok(bm, start, count))
		return -ERANGE;
	if (!count)
		return -ENOENT;
	for (uint64_t i = start / WORD_BITS; i <= last / WORD_BITS; i++) {
		uint64_t w = want_set ? bm->words[i] : ~bm->words[i];

		w &= range_word_mask(i, start, last);
		if (w) {
			*found = i * WORD_BITS +
				 (uint64_t)__builtin_ctzll(w);
			return 0;
		}
	}
	return -ENOENT;
}

int extkit_bitmap_find_first_zero(const struct extkit_bitmap *bm,
				  uint64_t start, uint64_t count,
				  uint64_t *found)
{
	return find_first(bm, start, count, found, 0);
}

int extkit_bitmap_find_first_set(const struct extkit_bitmap *bm,
				 uint64_t start, uint64_t count,
				 uint64_t *found)
{
	return find_first(bm, start, count, found, 1);
}

int extkit_bitmap_find_zero_run(const struct extkit_bitmap *bm,
				uint64_t start, uint64_t count, uint64_t len,
				uint64_t *found)
{
	uint64_t end = start + count, z, set;
	int rc;

	if (!len)
		return -EINVAL;
	/* Each set bit met restarts the search just past it: one pass. */
	while (start + len <= end) {
		rc = find_first(bm, start, end - start, &z, 0);
		if (rc)
			return rc;
		if (z + len > end)
			return -ENOENT;
		rc = find_first(bm, z, len, &set, 1);
		if (rc == -ENOENT) {
			*found = z;
			return 0;
		}
		if (rc)
			return rc;
		start = set + 1;
	}
	return -ENOENT;
}

/* 64 bits starting at bit (any alignment); bits past the end read 0. */
static uint64_t get_bits(const struct extkit_bitmap *bm, uint64_t bit)
{
	uint64_t idx = bit / WORD_BITS;
	unsigned int off = bit % WORD_BITS;
	uint64_t v = bm->words[idx] >> off;

	if (off && idx + 1 < nwords(bm->nbits))
		v |= bm->words[idx + 1] << (WORD_BITS - off);
	return v;
}

/* Stores the low n bits (1..64) of v at bit; the range is checked. */
static void put_bits(struct extkit_bitmap *bm, uint64_t bit, uint64_t v,
		     unsigned int n)
{
	uint64_t idx = bit / WORD_BITS;
	unsigned int off = bit % WORD_BITS;

	if (n < WORD_BITS)
		v &= (1ULL << n) - 1;
	range_apply(bm->words, bit, n, 0);
	bm->words[idx] |= v << off;
	if (off && off + n > WORD_BITS)
		bm->words[idx + 1] |= v >> (WORD_BITS - off);
}

int extkit_bitmap_to_disk(const struct extkit_bitmap *bm, uint64_t start,
			  uint64_t nbits, void *out)
{
	uint8_t *p = out;

	if (!range_ok(bm, start, nbits))
		return -ERANGE;
	for (uint64_t done = 0; done < nbits; done += WORD_BITS) {
		uint64_t left = nbits - done;
		unsigned int n = left < WORD_BITS ? (unsigned int)left :
						    WORD_BITS;
		uint64_t v = get_bits(bm, start + done);

		if (n < WORD_BITS)
			v &= (1ULL << n) - 1;
		/* Little-endian bytes: bit i of the run is byte i / 8. */
		if (n == WORD_BITS) {
			put_le32(p, (uint32_t)v);
			put_le32(p + 4, (uint32_t)(v >> 32));
			p += 8;
			continue;
		}
		for (unsigned int b = 0; b < (n + 7) / 8; b++)
			*p++ = (uint8_t)(v >> (8 * b));
	}
	return 0;
}

int extkit_bitmap_from_disk(struct extkit_bitmap *bm, uint64_t start,
			    uint64_t nbits, const void *in)
{
	const uint8_t *p = in;

	if (!range_ok(bm, start, nbits))
		return -ERANGE;
	for (uint64_t done = 0; done < nbits; done += WORD_BITS) {
		uint64_t left = nbits - done;
		unsigned int n = left < WORD_BITS ? (unsigned int)left :
						    WORD_BITS;
		uint64_t v = 0;

		if (n == WORD_BITS) {
			v = get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
			p += 8;
		} else {
			for (unsigned int b = 0; b < (n + 7) / 8; b++)
				v |= (uint64_t)*p++ << (8 * b);
		}
		put_bits(bm, start + done, v, n);
	}
	return 0;
}

/* Counts (and with clear, clears) a run of on-disk bits. */
static uint64_t disk_range(uint8_t *p, uint64_t start, uint64_t count,
			   int clear)
{
	uint64_t n = 0;

	while (count) {
		uint64_t byte = start / 8;
		unsigned int off = start % 8;
		unsigned int len;
		uint8_t mask;

		if (!off && count >= 8) {
			uint64_t full = count / 8;

			for (uint64_t i = 0; i < full; i++)
				n += (uint64_t)__builtin_popcount(p[byte + i]);
			if (clear)
				memset(p + byte, 0, full);
			start += full * 8;
			count -= full * 8;
			continue;
		}
		len = count < 8 - off ? (unsigned int)count : 8 - off;
		mask = (uint8_t)(((1u << len) - 1) << off);
		n += (uint64_t)__builtin_popcount(p[byte] & mask);
		if (clear)
			p[byte] &= (uint8_t)~mask;
		start += len;
		count -= len;
	}
	return n;
}

uint64_t extkit_bitmap_disk_count(const void *disk, uint64_t start,
				  uint64_t count)
{
	return disk_range((uint8_t *)(uintptr_t)disk, start, count, 0);
}

uint64_t extkit_bitmap_disk_clear(void *disk, uint64_t start,
				  uint64_t count)
{
	return disk_range(disk, start, count, 1);
}
