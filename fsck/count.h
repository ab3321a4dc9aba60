/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-inode counters (i_links_count as found, names counted) in two bits
 * per inode: 0, 1 and 2 (files, empty directories) in place; 3 says the
 * value lives in a small overflow hash table (directories with
 * subdirectories, files with several links). Values saturate at 65535,
 * the largest i_links_count.
 */
#ifndef EXTKIT_FSCK_COUNT_H
#define EXTKIT_FSCK_COUNT_H

#include <stddef.h>
#include <stdint.h>

struct fsck_count {
	uint8_t *v;		/* 2 bits per inode number 0..n */
	uint32_t n;
	uint32_t *big_key;	/* overflow: open addressing, 0 = empty */
	uint32_t *big_val;
	size_t big_cap;
	size_t big_n;
};

int fsck_count_init(struct fsck_count *c, uint32_t n);
void fsck_count_free(struct fsck_count *c);

/* The overflow table's side of get and set (count.c); callers use the
 * inline functions below, which handle the common case (a value of 0, 1
 * or 2 kept in place) without a call: pass 1, 2 and 4 go through them
 * once or more per inode and per directory entry. */
uint32_t fsck_count_get_big(const struct fsck_count *c, uint32_t ino);
int fsck_count_set_big(struct fsck_count *c, uint32_t ino, uint32_t v);

static inline unsigned int fsck_count_slot(const struct fsck_count *c,
					   uint32_t ino)
{
	return (c->v[ino >> 2] >> ((ino & 3) * 2)) & 3u;
}

static inline void fsck_count_slot_put(struct fsck_count *c, uint32_t ino,
				       unsigned int v)
{
	unsigned int shift = (ino & 3) * 2;

	c->v[ino >> 2] = (uint8_t)((c->v[ino >> 2] & ~(3u << shift)) |
				   (v << shift));
}

static inline uint32_t fsck_count_get(const struct fsck_count *c,
				      uint32_t ino)
{
	unsigned int v;

	if (ino > c->n)
		return 0;
	v = fsck_count_slot(c, ino);
	return v < 3 ? v : fsck_count_get_big(c, ino);
}

/* 0, or -ENOMEM (the value is then left at 2); -EINVAL past n. */
static inline int fsck_count_set(struct fsck_count *c, uint32_t ino,
				 uint32_t v)
{
	if (ino <= c->n && v < 3 && fsck_count_slot(c, ino) < 3) {
		fsck_count_slot_put(c, ino, v);
		return 0;
	}
	return fsck_count_set_big(c, ino, v);
}

#endif /* EXTKIT_FSCK_COUNT_H */
