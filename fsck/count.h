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
uint32_t fsck_count_get(const struct fsck_count *c, uint32_t ino);
/* 0, or -ENOMEM (the value is then left at 2). */
int fsck_count_set(struct fsck_count *c, uint32_t ino, uint32_t v);

#endif /* EXTKIT_FSCK_COUNT_H */
