// SPDX-License-Identifier: GPL-2.0-or-later
/* Hash set of directory entry names (see nameset.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nameset.h"

/* FNV-1a, then a final mix; 40 bits, never 0 above the low 8. */
uint64_t nameset_hash(const char *name, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
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
