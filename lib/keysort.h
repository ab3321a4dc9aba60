/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sorting records by a 64-bit key: a radix sort, a byte of the key a
 * pass, stable (records with equal keys keep their order). mkfs -d and
 * compaction sort each directory's names twice (by name, then by hash
 * for the index); through qsort's callback that was a tenth of mkfs -d's
 * time on a directory of 100,000 files.
 */
#ifndef EXTKIT_KEYSORT_H
#define EXTKIT_KEYSORT_H

#include <stdint.h>

struct extkit_sort_key {
	uint64_t key;
	uint64_t i;	/* the caller's: which record */
};

/* Sorts k[0..n) by key; 0, or -ENOMEM (k unchanged). */
int extkit_keysort(struct extkit_sort_key *k, uint64_t n);

#endif /* EXTKIT_KEYSORT_H */
