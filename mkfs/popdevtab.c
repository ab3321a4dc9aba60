// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d with --device-table (devtable.c): the table's paths the source
 * lacks are added to their directories as the directories are copied,
 * and the paths it has take the table's mode and owner. Paths are those
 * of the new filesystem: the entry being copied is p->path without the
 * source's own name.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ondisk.h"

#include "devtable.h"
#include "populate.h"

/* The path in the new filesystem of the entry being copied. */
static const char *rel_path(const struct pop *p, size_t *len)
{
	const char *r = p->path + (p->src_len < p->plen ? p->src_len :
				   p->plen);

	while (*r == '/')
		r++;
	*len = strlen(r);
	return r;
}

static struct devtab_ent *current(const struct pop *p)
{
	size_t len;
	const char *r;

	if (!p->o->devtab)
		return NULL;
	r = rel_path(p, &len);
	return mkfs_devtab_find(p->o->devtab, r, len);
}

static int type_clash(struct pop *p, const struct devtab_ent *e,
		      uint32_t mode)
{
	snprintf(p->why, sizeof(p->why), "the device table (line %u) gives "
		 "type %c, the source has type %c", e->line,
		 mkfs_devtab_type_char(e->mode), mkfs_devtab_type_char(mode));
	return -EINVAL;
}

/* A path of the table: the type must be the source's. */
int pop_dt_meta(struct pop *p, struct pop_meta *m)
{
	struct devtab_ent *e = current(p);

	if (!e)
		return 0;
	if ((e->mode & S_IFMT) != (m->mode & S_IFMT))
		return type_clash(p, e, m->mode);
	m->mode = e->mode;
	m->uid = e->uid;
	m->gid = e->gid;
	e->used = 1;
	return 0;
}

int pop_dt_set_inode(struct pop *p, uint32_t ino, struct devtab_ent *e)
{
	struct extkit_inode in;
	int rc;

	if (!e)
		e = current(p);
	if (!e)
		return 0;
	rc = pop_inode_get(p, ino, p->raw);
	if (rc)
		return rc;
	extkit_inode_decode(p->raw, p->fs->g.inode_size, &in);
	if ((e->mode & S_IFMT) != ((uint32_t)in.mode & S_IFMT))
		return type_clash(p, e, in.mode);
	in.mode = (uint16_t)e->mode;
	in.uid = e->uid;
	in.gid = e->gid;
	extkit_inode_encode(&in, p->fs->g.inode_size, p->raw);
	e->used = 1;
	return pop_inode_put(p, ino, p->raw, 0);
}

void pop_dt_meta_new(const struct pop *p, const struct devtab_ent *e,
		     struct pop_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->mode = e->mode;
	m->uid = e->uid;
	m->gid = e->gid;
	m->rdev_major = e->major;
	m->rdev_minor = e->minor;
	m->atime.tv_sec = m->mtime.tv_sec = m->ctime.tv_sec = p->o->now;
}

int pop_dt_stat(struct pop *p, struct stat *st)
{
	struct devtab_ent *e = current(p);

	if (!e)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->st_mode = e->mode;
	st->st_uid = e->uid;
	st->st_gid = e->gid;
	st->st_nlink = 1;
	st->st_rdev = makedev(e->major, e->minor);
	st->st_atim.tv_sec = st->st_mtim.tv_sec = st->st_ctim.tv_sec =
		p->o->now;
	return 0;
}

static int cmp_name(const struct extkit_dirbuild *db, uint64_t i,
		    const char *name, size_t len)
{
	const struct extkit_dirbuild_entry *e = &db->e[i];
	int c = memcmp(db->names + e->name_off, name,
		       e->len < len ? e->len : len);

	return c ? c : e->len < len ? -1 : e->len > len;
}

/* Whether db (sorted by name) has name. */
static int has_name(const struct extkit_dirbuild *db, const char *name,
		    size_t len)
{
	uint64_t lo = 0, hi = db->n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int c = cmp_name(db, mid, name, len);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int pop_dt_add_names(struct pop *p, struct extkit_dirbuild *db)
{
	struct mkfs_devtab *dt = p->o->devtab;
	uint64_t had = db->n;
	size_t first, n, len;
	const char *dir;
	int rc = 0;

	if (!dt)
		return 0;
	dir = rel_path(p, &len);
	n = mkfs_devtab_children(dt, dir, len, &first);
	for (size_t i = first; !rc && i < first + n; i++) {
		const char *name = devtab_name(&dt->e[i]);
		size_t nl = strlen(name);

		if (has_name(db, name, nl))
			continue;
		rc = extkit_dirbuild_add(db, name, (uint32_t)nl, POP_DT_NEW,
					 extkit_mode_to_ftype(
						 (uint16_t)dt->e[i].mode));
	}
	if (!rc && db->n != had)
		rc = extkit_dirbuild_sort_names(db);
	return rc;
}

int pop_dt_check_used(struct pop *p)
{
	struct mkfs_devtab *dt = p->o->devtab;

	for (size_t i = 0; dt && i < dt->n; i++) {
		if (dt->e[i].used)
			continue;
		snprintf(p->why, sizeof(p->why), "line %u: /%s: its "
			 "directory is neither in the source nor in the "
			 "table", dt->e[i].line, dt->e[i].path);
		p->plen = 0;
		p->path[0] = 0;
		return pop_path_push(p, dt->file, strlen(dt->file)) ?
		       -ENAMETOOLONG : -EINVAL;
	}
	return 0;
}
