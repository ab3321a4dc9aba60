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

static int grow(struct nameset *set)
{
	struct nameset n = { .cap = set->cap ? set->cap * 2 : 256 };

	n.slot = calloc(n.cap, sizeof(*n.slot));
	n.low = malloc(n.cap * sizeof(*n.low));
	if (!n.slot || !n.low) {
		free(n.slot);
		free(n.low);
		return -ENOMEM;
	}
	for (size_t i = 0; i < set->cap; i++)
		if (set->slot[i])
			(void)put(&n, set->slot[i], set->low[i]);
	nameset_free(set);
	*set = n;
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
