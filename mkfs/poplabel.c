// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d with --file-contexts (selabel.c): each inode copied from a
 * directory gets security.selinux from the file_contexts file, for its
 * path in the new filesystem (under --selinux-root) and its mode. A label
 * the source has is kept, unless --relabel.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xattrbuild.h"

#include "populate.h"
#include "selabel.h"

/* The path looked up: --selinux-root, then the path in the image. */
static int label_path(const struct pop *p, char *buf, size_t size)
{
	const char *root = p->o->selinux_root ? p->o->selinux_root : "";
	const char *r = p->path + (p->src_len < p->plen ? p->src_len :
				   p->plen);
	size_t rl = strlen(root);
	int n;

	while (*r == '/')
		r++;
	while (rl && root[rl - 1] == '/')
		rl--;
	n = snprintf(buf, size, "%.*s/%s", (int)rl, root, r);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int pop_label(struct pop *p, struct pop_meta *m, struct pop_label *lb)
{
	char path[8192];
	uint8_t index;
	const char *suffix;
	int rc;

	memset(lb, 0, sizeof(*lb));
	if (!p->o->selabel)
		return 0;
	if (extkit_xattr_name_split("security.selinux", &index, &suffix))
		return -EOPNOTSUPP;
	for (size_t i = 0; i < m->nx; i++)
		if (m->x[i].index == index && m->x[i].name_len == 7 &&
		    !memcmp(m->x[i].name, suffix, 7)) {
			if (!p->o->relabel)
				return 0;	/* the source's label */
			m->x[i] = m->x[--m->nx];	/* replaced */
			break;
		}
	rc = label_path(p, path, sizeof(path));
	if (!rc)
		rc = mkfs_selabel_lookup(p->o->selabel, path, m->mode,
					 &lb->ctx);
	if (rc == -ENOENT)
		return 0;	/* no label for it */
	if (rc)
		return rc;
	lb->items = malloc((m->nx + 1) * sizeof(*lb->items));
	if (!lb->items)
		return -ENOMEM;
	if (m->nx)
		memcpy(lb->items, m->x, m->nx * sizeof(*lb->items));
	lb->items[m->nx] = (struct extkit_xattr_item){
		.index = index,
		.name_len = 7,
		.name = suffix,
		.value = lb->ctx,
		.size = (uint32_t)strlen(lb->ctx) + 1,	/* as setfilecon */
	};
	m->x = lb->items;
	m->nx++;
	return 0;
}

void pop_label_free(struct pop *p, struct pop_label *lb)
{
	if (lb->ctx)
		mkfs_selabel_free(p->o->selabel, lb->ctx);
	free(lb->items);
	memset(lb, 0, sizeof(*lb));
}
