/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-inode counters (i_links_count as found, names counted) in one byte
 * per inode; values of 255 and more live in a small overflow hash table
 * (directories with many subdirectories, files with many links). Values
 * saturate at 65535, the largest i_links_count.
 */
#ifndef EXTKIT_FSCK_COUNT_H
#define EXTKIT_FSCK_COUNT_H

#include <stddef.h>
#include <stdint.h>

struct fsck_count {
	uint8_t *v;		/* n + 1 bytes, index = inode number */
	uint32_t n;
	uint32_t *big_key;	/* overflow: open addressing, 0 = empty */
	uint32_t *big_val;
	size_t big_cap;
	size_t big_n;
};

int fsck_count_init(struct fsck_count *c, uint32_t n);
void fsck_count_free(struct fsck_count *c);
uint32_t fsck_count_get(const struct fsck_count *c, uint32_t ino);
/* 0, or -ENOMEM (the value is then left at 254). */
int fsck_count_set(struct fsck_count *c, uint32_t ino, uint32_t v);

#endif /* EXTKIT_FSCK_COUNT_H */
