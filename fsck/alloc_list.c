// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * struct fsck_alloc_list (fsck.h): a list of block or inode numbers that
 * grows by doubling; what fsck allocated (pass 5 takes it as on-disk
 * truth) and the passes' work lists (indirect fixes, pass 1E's files,
 * the directories to re-index, the EA inodes found).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "fsck.h"

int fsck_alloc_push(struct fsck_alloc_list *l, uint64_t v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		uint64_t *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = v;
	return 0;
}
