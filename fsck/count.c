// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-inode counters in two bits each, with an overflow table (count.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"

#define BIG		3u	/* the value is in the overflow table */
#define COUNT_MAX	65535u

int fsck_count_init(struct fsck_count *c, uint32_t n)
{
	memset(c, 0, sizeof(*c));
	c->v = calloc((size_t)n / 4 + 1, 1);
	c->n = n;
	return c->v ? 0 : -ENOMEM;
}

void fsck_count_free(struct fsck_count *c)
{
	free(c->v);
	free(c->big_key);
	free(c->big_val);
	memset(c, 0, sizeof(*c));
}

static size_t big_slot(const struct fsck_count *c, uint32_t ino)
{
	size_t i = (size_t)(ino * 0x9E3779B1u) & (c->big_cap - 1);

	while (c->big_key[i] && c->big_key[i] != ino)
		i = (i + 1) & (c->big_cap - 1);
	return i;
}

static int big_grow(struct fsck_count *c)
{
	size_t cap = c->big_cap ? c->big_cap * 2 : 64;
	uint32_t *key = calloc(cap, sizeof(*key));
	uint32_t *val = calloc(cap, sizeof(*val));
	struct fsck_count old = *c;

	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	c->big_key = key;
	c->big_val = val;
	c->big_cap = cap;
	for (size_t i = 0; i < old.big_cap; i++) {
		if (old.big_key[i]) {
			size_t s = big_slot(c, old.big_key[i]);

			key[s] = old.big_key[i];
			val[s] = old.big_val[i];
		}
	}
	free(old.big_key);
	free(old.big_val);
	return 0;
}

/* ino's slot says BIG (fsck_count_get in count.h). */
uint32_t fsck_count_get_big(const struct fsck_count *c, uint32_t ino)
{
	return c->big_val[big_slot(c, ino)];
}

/* Every set the inline fast path does not do (count.h). */
int fsck_count_set_big(struct fsck_count *c, uint32_t ino, uint32_t v)
{
	uint32_t cur;
	size_t s;

	if (ino > c->n)
		return -EINVAL;
	if (v > COUNT_MAX)
		v = COUNT_MAX;
	cur = fsck_count_slot(c, ino);
	if (v < BIG && cur < BIG) {
		fsck_count_slot_put(c, ino, v);
		return 0;
	}
	if (cur < BIG && (c->big_n + 1) * 2 > c->big_cap && big_grow(c)) {
		fsck_count_slot_put(c, ino, BIG - 1);
		return -ENOMEM;
	}
	s = big_slot(c, ino);
	if (!c->big_key[s]) {
		c->big_key[s] = ino;
		c->big_n++;
	}
	c->big_val[s] = v;
	fsck_count_slot_put(c, ino, BIG);
	return 0;
}
