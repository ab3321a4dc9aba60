// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: a small open-addressing map from two keys to an inode number
 * (source device and inode to the new inode; an inode to its names), and
 * the link counts of inodes with more than one name, written at the end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"

#include "populate.h"

#define EXT2_LINK_MAX	65000	/* as the kernel's EXT4_LINK_MAX */

/* ---- a map from two keys to an inode number ---- */

static uint64_t slot_of(const struct pop_map *m, uint64_t k1, uint64_t k2)
{
	uint64_t h = (k1 * 0x9E3779B97F4A7C15ULL) ^
		     (k2 + 0x632BE59BD9B4E019ULL);

	h ^= h >> 29;
	return (h * 0xBF58476D1CE4E5B9ULL) & (m->cap - 1);
}

int pop_map_get(const struct pop_map *m, uint64_t k1, uint64_t k2,
		uint32_t *val)
{
	if (!m->cap)
		return 0;
	for (uint64_t s = slot_of(m, k1, k2); m->val[s];
	     s = (s + 1) & (m->cap - 1))
		if (m->k1[s] == k1 && m->k2[s] == k2) {
			*val = m->val[s];
			return 1;
		}
	return 0;
}

static int map_grow(struct pop_map *m)
{
	struct pop_map n = { .cap = m->cap ? m->cap * 2 : 1024 };
	int rc = 0;

	n.k1 = calloc(n.cap, sizeof(*n.k1));
	n.k2 = calloc(n.cap, sizeof(*n.k2));
	n.val = calloc(n.cap, sizeof(*n.val));
	if (!n.k1 || !n.k2 || !n.val) {
		pop_map_free(&n);
		return -ENOMEM;
	}
	for (uint64_t s = 0; !rc && s < m->cap; s++)
		if (m->val[s])
			rc = pop_map_put(&n, m->k1[s], m->k2[s], m->val[s]);
	pop_map_free(m);
	*m = n;
	return rc;
}

/* Sets (k1, k2) to val (never 0), replacing a value already there. */
int pop_map_put(struct pop_map *m, uint64_t k1, uint64_t k2, uint32_t val)
{
	uint64_t s;
	int rc;

	if ((m->n + 1) * 2 > m->cap) {
		rc = map_grow(m);
		if (rc)
			return rc;
	}
	for (s = slot_of(m, k1, k2); m->val[s]; s = (s + 1) & (m->cap - 1))
		if (m->k1[s] == k1 && m->k2[s] == k2)
			break;
	if (!m->val[s])
		m->n++;
	m->k1[s] = k1;
	m->k2[s] = k2;
	m->val[s] = val;
	return 0;
}

void pop_map_free(struct pop_map *m)
{
	free(m->k1);
	free(m->k2);
	free(m->val);
	memset(m, 0, sizeof(*m));
}


/* ---- hard links ---- */

int pop_link_add(struct pop *p, uint32_t ino)
{
	uint32_t n = 1;

	pop_map_get(&p->links, ino, 0, &n);
	return pop_map_put(&p->links, ino, 0, n + 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* In inode order: most land in the inode table window or the block
 * beside it, none is read twice. */
int pop_links_write(struct pop *p)
{
	uint64_t *v = calloc(p->links.n + 1, sizeof(*v)), n = 0, i;
	int rc = v ? 0 : -ENOMEM;

	for (uint64_t s = 0; !rc && s < p->links.cap; s++) {
		if (!p->links.val[s])
			continue;
		if (p->links.val[s] >= EXT2_LINK_MAX)
			rc = -EMLINK;
		v[n++] = p->links.k1[s] << 32 | p->links.val[s];
	}
	if (!rc && n)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; !rc && i < n; i++) {
		uint32_t ino = (uint32_t)(v[i] >> 32);

		rc = pop_inode_get(p, ino, p->raw);
		if (rc)
			break;
		extkit_inode_set_links_raw(p->raw, (uint16_t)v[i]);
		rc = pop_inode_put(p, ino, p->raw, 0);
	}
	free(v);
	return rc;
}
