/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names of one directory, for duplicate detection in pass 2: a hash
 * set of 32-bit name hashes (4 to 8 bytes per entry). Names are not kept;
 * when a hash is already present the caller confirms the duplicate by
 * reading the earlier entries back, which happens for real duplicates and
 * for the rare hash collision only.
 */
#ifndef EXTKIT_FSCK_NAMESET_H
#define EXTKIT_FSCK_NAMESET_H

#include <stddef.h>
#include <stdint.h>

struct nameset {
	uint32_t *slot;		/* 0 marks an empty slot */
	size_t cap;		/* power of two */
	size_t n;
};

/* Never 0. */
uint32_t nameset_hash(const char *name, uint32_t len);
/* Resets to empty, keeping the memory for the next directory. */
void nameset_reset(struct nameset *set);
void nameset_free(struct nameset *set);
int nameset_add(struct nameset *set, uint32_t hash);
int nameset_has(const struct nameset *set, uint32_t hash);

#endif /* EXTKIT_FSCK_NAMESET_H */
