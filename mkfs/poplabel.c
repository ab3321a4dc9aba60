// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d with --file-contexts (selabel.c): each inode copied from a
 * directory or an archive gets security.selinux from the file_contexts
 * file, for its path in the new filesystem (under --selinux-root) and its
 * mode. A label the source has is kept, unless --relabel.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inode.h"
#include "ondisk.h"
#include "xattrbuild.h"

#include "populate.h"
#include "selabel.h"

/* The path looked up: --selinux-root, then img, the path in the image. */
static int label_path(const struct pop *p, const char *img, char *buf,
		      size_t size)
{
	const char *root = p->o->selinux_root ? p->o->selinux_root : "";
	size_t rl = strlen(root);
	int n;

	while (*img == '/')
		img++;
	while (rl && root[rl - 1] == '/')
		rl--;
	n = snprintf(buf, size, "%.*s/%s", (int)rl, root, img);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int pop_label_at(struct pop *p, const char *img, struct pop_meta *m,
		 struct pop_label *lb)
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
	rc = label_path(p, img, path, sizeof(path));
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

int pop_label(struct pop *p, struct pop_meta *m, struct pop_label *lb)
{
	return pop_label_at(p, p->path + (p->src_len < p->plen ? p->src_len :
					  p->plen), m, lb);
}

void pop_label_free(struct pop *p, struct pop_label *lb)
{
	if (lb->ctx)
		mkfs_selabel_free(p->o->selabel, lb->ctx);
	free(lb->items);
	memset(lb, 0, sizeof(*lb));
}

/* mkfs's own lost+found (the source had none): labelled as
 * /lost+found, its blocks and times kept. */
int pop_label_lpf(struct pop *p)
{
	struct extkit_inode in;
	struct pop_label lb;
	struct pop_meta m;
	int rc;

	if (!p->o->selabel || !p->lpf_blocks)
		return 0;
	rc = pop_inode_get(p, EXT2_GOOD_OLD_FIRST_INO, p->raw);
	if (rc)
		return rc;
	extkit_inode_decode(p->raw, p->fs->g.inode_size, &in);
	memset(&m, 0, sizeof(m));
	m.mode = in.mode;
	m.uid = in.uid;
	m.gid = in.gid;
	m.atime.tv_sec = in.atime;
	m.mtime.tv_sec = in.mtime;
	m.ctime.tv_sec = in.ctime;
	rc = pop_label_at(p, "lost+found", &m, &lb);
	if (!rc && m.nx)
		rc = pop_write_inode(p, EXT2_GOOD_OLD_FIRST_INO, &m, &in,
				     in.links_count);
	pop_label_free(p, &lb);
	return rc;
}
