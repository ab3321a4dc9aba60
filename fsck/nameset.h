/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names of one directory, for duplicate detection in pass 2: a hash
 * set of 40-bit name hashes (5 to 10 bytes per entry). Names are not
 * kept; when a hash is already present the caller confirms the duplicate
 * by reading the earlier entries back, which happens for real duplicates
 * and rare collisions only (among the 200,000 names of a big directory
 * 0.02 collisions are expected at 40 bits; at 32 bits there were about
 * five, each reading the whole directory back).
 */
#ifndef EXTKIT_FSCK_NAMESET_H
#define EXTKIT_FSCK_NAMESET_H

#include <stddef.h>
#include <stdint.h>

struct nameset {
	uint32_t *slot;		/* the hash's high 32 bits; 0: empty slot */
	uint8_t *low;		/* its low 8 bits */
	size_t cap;		/* power of two */
	size_t n;
};

/* 40 bits; never 0 in bits 8..39. */
uint64_t nameset_hash(const char *name, uint32_t len);
/* Resets to empty, keeping the memory for the next directory. */
void nameset_reset(struct nameset *set);
void nameset_free(struct nameset *set);
int nameset_add(struct nameset *set, uint64_t hash);
int nameset_has(const struct nameset *set, uint64_t hash);
/* 1 if hash is in the set; else adds it and returns 0 (-ENOMEM: not
 * added, not there). One probe where has and add take two. */
int nameset_insert(struct nameset *set, uint64_t hash);

#endif /* EXTKIT_FSCK_NAMESET_H */
