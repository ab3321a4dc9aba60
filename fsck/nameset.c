// SPDX-License-Identifier: GPL-2.0-or-later
/* Hash set of directory entry names (see nameset.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nameset.h"

static uint64_t load64(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static uint64_t load32(const char *p)
{
	uint32_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

#define HASH_M	0xc6a4a7935bd1e995ull

/* One word into the state, as MurmurHash64A mixes it (the word itself is
 * mixed first, so that no pattern of the words cancels in the state). */
static uint64_t mix_word(uint64_t h, uint64_t w)
{
	w *= HASH_M;
	w ^= w >> 47;
	w *= HASH_M;
	return (h ^ w) * HASH_M;
}

/*
 * Eight bytes at a time, the last one to eight as one word (two 4-byte
 * reads that may overlap, or the first, middle and last of three bytes
 * or fewer: with the length mixed in first, the words still tell every
 * name apart), then a final mix; 40 bits, never 0 above the low 8. Host
 * byte order: the hash lives in memory only.
 */
uint64_t nameset_hash(const char *name, uint32_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ (len * HASH_M), w;
	uint32_t n = len;

	for (; n > 8; name += 8, n -= 8)
		h = mix_word(h, load64(name));
	if (n == 8)
		w = load64(name);
	else if (n >= 4)
		w = load32(name) | load32(name + n - 4) << 32;
	else if (n)
		w = (unsigned char)name[0] |
		    (uint64_t)(unsigned char)name[n / 2] << 8 |
		    (uint64_t)(unsigned char)name[n - 1] << 16;
	else
		w = 0;
	h = mix_word(h, w);
	h ^= h >> 47;
	h *= HASH_M;
	h ^= h >> 47;
	h &= 0xffffffffffull;
	return h >> 8 ? h : h | 0x100;
}

static uint32_t hash_high(uint64_t hash)
{
	return (uint32_t)(hash >> 8);
}

void nameset_reset(struct nameset *set)
{
	/* After a big directory, small ones do not clear its whole table:
	 * it is dropped and grows again as needed. */
	if (set->cap > 1024 && set->n * 8 < set->cap) {
		nameset_free(set);
		return;
	}
	if (set->n && set->slot)
		memset(set->slot, 0, set->cap * sizeof(*set->slot));
	set->n = 0;
}

void nameset_free(struct nameset *set)
{
	free(set->slot);
	free(set->low);
	memset(set, 0, sizeof(*set));
}

static size_t first_slot(const struct nameset *set, uint32_t high)
{
	return (size_t)(high * 0x9E3779B1u) & (set->cap - 1);
}

/* Adds (high, low) unless there; 1 if it was. */
static int put(struct nameset *set, uint32_t high, uint8_t low)
{
	size_t i = first_slot(set, high);

	while (set->slot[i]) {
		if (set->slot[i] == high && set->low[i] == low)
			return 1;
		i = (i + 1) & (set->cap - 1);
	}
	set->slot[i] = high;
	set->low[i] = low;
	set->n++;
	return 0;
}

/* Makes each array twice as long, keeping what it holds (realloc: the
 * old contents are not copied to a second allocation where the
 * allocator can move or extend the pages, as it does for large ones). */
static int widen(struct nameset *set, size_t cap)
{
	uint32_t *slot = realloc(set->slot, cap * sizeof(*slot));
	uint8_t *low;

	if (!slot)
		return -ENOMEM;
	set->slot = slot;
	low = realloc(set->low, cap * sizeof(*low));
	if (!low)
		return -ENOMEM;
	set->low = low;
	memset(slot + set->cap, 0, (cap - set->cap) * sizeof(*slot));
	return 0;
}

/*
 * Doubles the table in place, so that growing never holds the old and
 * the new table at once (at 200,000 names: 1.3 MB, not 2 MB). Each entry
 * not yet placed is taken out and put where a probe from its new home
 * first finds a slot that is free or holds an entry not yet placed; such
 * an entry is displaced in turn (placed[] tells them apart). Probes pass
 * over placed entries only, and placed entries never move again, so
 * every entry ends up reachable from its home.
 */
static int is_placed(const uint64_t *placed, size_t i)
{
	return (int)(placed[i / 64] >> (i % 64) & 1);
}

/* Puts (high, low) in the grown table: at the first slot from its home
 * that is free or holds an entry not yet placed, which it displaces and
 * which is placed next, until a free slot ends the chain. */
static void place(struct nameset *set, uint64_t *placed, uint32_t high,
		  uint8_t low)
{
	for (;;) {
		size_t i = first_slot(set, high);
		uint32_t next_high;
		uint8_t next_low;

		while (set->slot[i] && is_placed(placed, i))
			i = (i + 1) & (set->cap - 1);
		placed[i / 64] |= 1ull << (i % 64);
		next_high = set->slot[i];
		next_low = set->low[i];
		set->slot[i] = high;
		set->low[i] = low;
		if (!next_high)
			return;
		high = next_high;
		low = next_low;
	}
}

/*
 * Doubles the table in place, so that growing never holds the old and
 * the new table at once (at 200,000 names: 1.3 MB, not 2 MB). Each entry
 * not yet placed is taken out of its slot and placed (place()). Probes
 * pass over placed entries only, and placed entries never move again,
 * so every entry ends up reachable from its new home.
 */
static int grow(struct nameset *set)
{
	size_t old = set->cap, cap = old ? old * 2 : 256;
	uint64_t *placed;

	if (widen(set, cap))
		return -ENOMEM;
	placed = calloc(cap / 64, sizeof(*placed));
	if (!placed)
		return -ENOMEM;		/* still a valid table of old slots */
	set->cap = cap;
	for (size_t j = 0; j < old; j++) {
		uint32_t high = set->slot[j];

		if (!high || is_placed(placed, j))
			continue;
		set->slot[j] = 0;
		place(set, placed, high, set->low[j]);
	}
	free(placed);
	return 0;
}

int nameset_add(struct nameset *set, uint64_t hash)
{
	int rc;

	/* Up to 7/8 full: a 200,000-entry directory fits in 1.25 MiB
	 * (linear probes stay short and cheap at that load). */
	if ((set->n + 1) * 8 > set->cap * 7) {
		rc = grow(set);
		if (rc)
			return rc;
	}
	(void)put(set, hash_high(hash), (uint8_t)hash);
	return 0;
}

int nameset_insert(struct nameset *set, uint64_t hash)
{
	if ((set->n + 1) * 8 > set->cap * 7 && grow(set))
		return nameset_has(set, hash) ? 1 : -ENOMEM;
	return put(set, hash_high(hash), (uint8_t)hash);
}

int nameset_has(const struct nameset *set, uint64_t hash)
{
	uint32_t high = hash_high(hash);
	uint8_t low = (uint8_t)hash;
	size_t i;

	if (!set->cap)
		return 0;
	for (i = first_slot(set, high); set->slot[i];
	     i = (i + 1) & (set->cap - 1))
		if (set->slot[i] == high && set->low[i] == low)
			return 1;
	return 0;
}
