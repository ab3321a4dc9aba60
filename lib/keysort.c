// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The radix sort of keysort.h: one pass counts the values of all eight
 * bytes of the keys; then a stable scatter for each byte, lowest first,
 * skipping the bytes every key has the same (names sharing a prefix,
 * hashes under 2^32 in the high half).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keysort.h"

#define KEY_BYTES 8

static unsigned byte_of(uint64_t key, int b)
{
	return (unsigned)(key >> (8 * b)) & 0xff;
}

/* Scatters src into dst by byte b (count: the byte's histogram). */
static void scatter(const struct extkit_sort_key *src,
		    struct extkit_sort_key *dst, uint64_t n, int b,
		    const uint64_t count[256])
{
	uint64_t at[256], sum = 0;

	for (int v = 0; v < 256; v++) {
		at[v] = sum;
		sum += count[v];
	}
	for (uint64_t i = 0; i < n; i++)
		dst[at[byte_of(src[i].key, b)]++] = src[i];
}

int extkit_keysort(struct extkit_sort_key *k, uint64_t n)
{
	uint64_t (*count)[256];
	struct extkit_sort_key *tmp, *src = k, *dst;

	if (n < 2)
		return 0;
	count = calloc(KEY_BYTES, sizeof(*count));
	tmp = malloc(n * sizeof(*tmp));
	if (!count || !tmp) {
		free(count);
		free(tmp);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++)
		for (int b = 0; b < KEY_BYTES; b++)
			count[b][byte_of(k[i].key, b)]++;
	dst = tmp;
	for (int b = 0; b < KEY_BYTES; b++) {
		struct extkit_sort_key *t;

		/* every key has the same byte here: the order stands */
		if (count[b][byte_of(k[0].key, b)] == n)
			continue;
		scatter(src, dst, n, b, count[b]);
		t = src;
		src = dst;
		dst = t;
	}
	if (src != k)
		memcpy(k, src, n * sizeof(*k));
	free(tmp);
	free(count);
	return 0;
}
