/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names of one directory, for duplicate detection in pass 2: a hash
 * set of 64-bit slots, each a 32-bit name hash and a 32-bit location of
 * the entry (the caller's encoding). Names are not copied; a hash match is
 * confirmed by the caller reading the earlier entry back. Insert and
 * lookup are O(1); memory is at most 16 bytes per entry.
 */
#ifndef EXTKIT_FSCK_NAMESET_H
#define EXTKIT_FSCK_NAMESET_H

#include <stddef.h>
#include <stdint.h>

struct nameset {
	uint64_t *slot;		/* hash << 32 | loc; 0 marks an empty slot */
	size_t cap;		/* power of two */
	size_t n;
};

/* Never 0. */
uint32_t nameset_hash(const char *name, uint32_t len);
/* Resets to empty, keeping the memory for the next directory. */
void nameset_reset(struct nameset *set);
void nameset_free(struct nameset *set);
int nameset_add(struct nameset *set, uint32_t hash, uint32_t loc);
/*
 * Iterates the locations stored under hash: *pos starts at 0; returns 1
 * with *loc filled, 0 when there are no more.
 */
int nameset_next(const struct nameset *set, uint32_t hash, size_t *pos,
		 uint32_t *loc);

#endif /* EXTKIT_FSCK_NAMESET_H */
