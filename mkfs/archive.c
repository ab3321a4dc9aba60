// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d ARCHIVE: tar, cpio and whatever else libarchive reads, with any
 * compression, in one streaming pass. Each entry's inode and data are
 * written as the entry goes by; the directories are kept in memory (their
 * names and inode numbers) and laid out at the end, names sorted, each in
 * one go. Parent directories an archive does not list are made (0755,
 * root's, the mkfs time). Hard links name an earlier entry.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "ondisk.h"

#include "archive_dl.h"
#include "devtable.h"
#include "populate.h"

#define LPF_NAME	"lost+found"
#define POP_BAR_MIN_BYTES	(1u << 20)	/* smaller: no progress bar */

/* libarchive's functions, loaded by pop_archive */
static const struct archive_api *la;

struct adir {
	uint32_t ino;
	uint32_t parent;
	struct extkit_dirbuild db;
	uint32_t res_next;	/* inodes [res_next, res_end) kept for */
	uint32_t res_end;	/* the children still to come */
	uint32_t res_size;	/* the run taken last */
};

/* A directory's runs of inodes: one inode table block's worth first,
 * doubling up to 64 blocks' worth. */
#define RES_MAX_BLOCKS	64

struct arc {
	struct pop *p;
	struct archive *a;
	struct archive_entry *cur;
	struct adir *dirs;
	uint64_t ndirs;
	uint64_t cap;
	struct pop_map dir_of;		/* inode -> index + 1 in dirs */
	struct pop_map names;		/* (dir, name hash) -> entry */
	const char *why;		/* the reason for an error */
	char lpath[4096 + 256];		/* the walked path in the image */
	size_t llen;			/* (for --file-contexts' labels) */
};

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ULL;
	return h;
}

static int new_dir(struct arc *c, uint32_t ino, uint32_t parent)
{
	struct adir *d;

	if (c->ndirs == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		d = realloc(c->dirs, c->cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		c->dirs = d;
	}
	d = &c->dirs[c->ndirs++];
	memset(d, 0, sizeof(*d));
	d->ino = ino;
	d->parent = parent;
	extkit_dirbuild_init(&d->db, c->p->fs);
	return pop_map_put(&c->dir_of, ino, 0, (uint32_t)c->ndirs);
}

static struct adir *dir_of(struct arc *c, uint32_t ino)
{
	uint32_t i;

	return pop_map_get(&c->dir_of, ino, 0, &i) ? &c->dirs[i - 1] : NULL;
}

/* The entry name of directory dir, or NULL. */
static struct extkit_dirbuild_entry *lookup(struct arc *c, uint32_t dir,
					    const char *name, size_t len)
{
	struct adir *d = dir_of(c, dir);
	struct extkit_dirbuild_entry *e;
	uint32_t i;

	if (!d || !pop_map_get(&c->names, dir, name_hash(name, len), &i))
		return NULL;
	e = &d->db.e[i - 1];
	if (e->len != len || memcmp(d->db.names + e->name_off, name, len))
		return NULL;
	return e;
}

static int add_name(struct arc *c, uint32_t dir, const char *name,
		    size_t len, uint32_t ino, uint8_t ftype)
{
	struct adir *d = dir_of(c, dir);
	int rc;

	if (!d)
		return -ENOTDIR;
	rc = extkit_dirbuild_add(&d->db, name, (uint32_t)len, ino, ftype);
	if (!rc)
		rc = pop_map_put(&c->names, dir, name_hash(name, len),
				 (uint32_t)d->db.n);
	return rc;
}

/*
 * A new inode for a child of directory dir. Entries of an archive come
 * in its order (a tar made depth first puts a subdirectory's whole tree
 * between two files of its parent), so each directory keeps a run of
 * inodes for its children, taken after every run given out so far (the
 * ext4 idea of reserving inodes for a new directory): the children of a
 * directory sit in few inode table blocks. A run is a soft claim: its
 * unused inodes stay free, and once no inode is left after the runs the
 * search wraps around into them.
 */
static int child_inode(struct arc *c, uint32_t dir, int is_dir,
		       uint32_t *ino)
{
	struct pop *p = c->p;
	struct adir *d = dir_of(c, dir);
	uint32_t ipb = p->fs->g.inodes_per_block, last, max;
	int rc;

	if (!d || p->no_reserve)
		return pop_new_inode(p, is_dir, ino);
	while (d->res_next < d->res_end) {
		rc = extkit_fsbuild_take_inode(&p->fb, d->res_next++, is_dir);
		if (rc != -EEXIST) {
			*ino = d->res_next - 1;
			return rc;
		}
	}
	max = RES_MAX_BLOCKS * ipb;
	d->res_size = !d->res_size ? ipb :
		      d->res_size < max / 2 ? d->res_size * 2 : max;
	pop_align_goal(p, d->res_size);
	rc = pop_new_inode(p, is_dir, ino);
	if (rc)
		return rc;
	last = p->fs->sb.inodes_count;
	d->res_next = *ino + 1;
	d->res_end = last - *ino < d->res_size ? last + 1 : *ino + d->res_size;
	if (d->res_end > p->ino_goal)
		p->ino_goal = d->res_end;
	return 0;
}

/* --file-contexts: m's label for the path walk() last reached. */
static int arc_label(struct arc *c, struct pop_meta *m, struct pop_label *lb)
{
	return pop_label_at(c->p, c->lpath, m, lb);
}

static void default_meta(const struct pop *p, struct pop_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->mode = S_IFDIR | 0755;
	m->atime.tv_sec = m->mtime.tv_sec = m->ctime.tv_sec = p->o->now;
}

static int make_dir(struct arc *c, uint32_t parent, const char *name,
		    size_t len, uint32_t *ino)
{
	struct extkit_inode in = { 0 };
	struct pop_label lb = { 0 };
	struct pop_meta m;
	int rc;

	if (parent == EXT2_ROOT_INO && len == sizeof(LPF_NAME) - 1 &&
	    !memcmp(name, LPF_NAME, len)) {
		*ino = EXT2_GOOD_OLD_FIRST_INO;
		rc = pop_claim_lpf(c->p);
	} else {
		rc = child_inode(c, parent, 1, ino);
	}
	default_meta(c->p, &m);
	if (!rc)
		rc = arc_label(c, &m, &lb);
	if (!rc)
		rc = pop_write_inode(c->p, *ino, &m, &in, 2);
	pop_label_free(c->p, &lb);
	if (!rc)
		rc = add_name(c, parent, name, len, *ino, EXT2_FT_DIR);
	return rc ? rc : new_dir(c, *ino, parent);
}

/*
 * Walks path to its last component: *dir the directory holding it (made
 * when missing, if make), *name and *len the last component ("" for the
 * root itself).
 */
static int walk(struct arc *c, const char *path, int make, uint32_t *dir,
		const char **name, size_t *len)
{
	uint32_t cur = EXT2_ROOT_INO;
	const char *s = path;
	int rc;

	c->llen = 0;
	c->lpath[0] = 0;
	for (;;) {
		size_t n;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 1 && s[0] == '.') {
			s += 1;
			continue;
		}
		if (n == 2 && !memcmp(s, "..", 2)) {
			c->why = "a path with '..'";
			return -EINVAL;
		}
		if (n > EXT2_NAME_LEN) {
			c->why = "name longer than 255 bytes";
			return -ENAMETOOLONG;
		}
		if (n && c->llen + n + 2 > sizeof(c->lpath)) {
			c->why = "path too long";
			return -ENAMETOOLONG;
		}
		if (n) {
			c->lpath[c->llen++] = '/';
			memcpy(c->lpath + c->llen, s, n);
			c->llen += n;
			c->lpath[c->llen] = 0;
		}
		if (!s[n] || !s[n + strspn(s + n, "/")]) {
			*dir = cur;
			*name = s;
			*len = n;
			return 0;
		}
		struct extkit_dirbuild_entry *e = lookup(c, cur, s, n);

		if (e && e->ftype != EXT2_FT_DIR) {
			c->why = "a parent is not a directory";
			return -ENOTDIR;
		}
		if (e) {
			cur = e->ino;
		} else if (!make) {
			c->why = "no such entry in the archive";
			return -ENOENT;
		} else {
			rc = make_dir(c, cur, s, n, &cur);
			if (rc)
				return rc;
		}
		s += n;
	}
}

/* ---- attributes ---- */

struct axattrs {
	struct extkit_xattr_item items[64];
	uint8_t *bufs[64];
	size_t n;
};

static void axattrs_free(struct axattrs *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->bufs[i]);
	x->n = 0;
}

static int add_item(struct axattrs *x, uint8_t index, const char *suffix,
		    uint8_t *value, size_t size)
{
	if (x->n == sizeof(x->items) / sizeof(x->items[0])) {
		free(value);
		return -E2BIG;
	}
	x->items[x->n].index = index;
	x->items[x->n].name = suffix;
	x->items[x->n].name_len = (uint8_t)strlen(suffix);
	x->items[x->n].value = value;
	x->items[x->n].size = (uint32_t)size;
	x->bufs[x->n++] = value;
	return 0;
}

static uint16_t acl_tag(int tag)
{
	switch (tag) {
	case ARCHIVE_ENTRY_ACL_USER_OBJ: return EXTKIT_ACL_USER_OBJ;
	case ARCHIVE_ENTRY_ACL_USER: return EXTKIT_ACL_USER;
	case ARCHIVE_ENTRY_ACL_GROUP_OBJ: return EXTKIT_ACL_GROUP_OBJ;
	case ARCHIVE_ENTRY_ACL_GROUP: return EXTKIT_ACL_GROUP;
	case ARCHIVE_ENTRY_ACL_MASK: return EXTKIT_ACL_MASK;
	case ARCHIVE_ENTRY_ACL_OTHER: return EXTKIT_ACL_OTHER;
	}
	return 0;
}

/*
 * The uid or gid of a named entry: the archive's number, else its name
 * looked up here (GNU tar's ACL text has names only). An unknown name
 * is an error, never root.
 */
static int acl_entry_id(struct pop *p, int tag, int id, const char *nm,
			uint32_t *out)
{
	char buf[4096];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;
	int user = tag == ARCHIVE_ENTRY_ACL_USER;

	*out = id < 0 ? 0 : (uint32_t)id;
	if (id >= 0 || (!user && tag != ARCHIVE_ENTRY_ACL_GROUP))
		return 0;
	if (nm && user && !getpwnam_r(nm, &pw, buf, sizeof(buf), &pwp) &&
	    pwp)
		*out = pwp->pw_uid;
	else if (nm && !user && !getgrnam_r(nm, &gr, buf, sizeof(buf), &grp) &&
		 grp)
		*out = grp->gr_gid;
	else {
		snprintf(p->why, sizeof(p->why), "ACL entry %s:%s: no such "
			 "%s here and no number in the archive",
			 user ? "user" : "group", nm ? nm : "",
			 user ? "user" : "group");
		return -EINVAL;
	}
	return 0;
}

/* One POSIX ACL of the entry (access or default) as an attribute. */
static int add_acl(struct pop *p, struct axattrs *x, struct archive_entry *e,
		   int type, uint8_t index, int *mask)
{
	int n = la->archive_entry_acl_reset(e, type), t, perm, tag, id, rc = 0;
	struct extkit_acl_entry *v;
	const char *nm;
	uint8_t *out;
	size_t size, k = 0;

	if (n <= 0)
		return 0;
	v = calloc((size_t)n + 3, sizeof(*v));
	out = malloc(extkit_acl_max_size((size_t)n + 3));
	if (!v || !out) {
		free(v);
		free(out);
		return -ENOMEM;
	}
	while (k < (size_t)n + 3 &&
	       la->archive_entry_acl_next(e, type, &t, &perm, &tag, &id, &nm) ==
	       ARCHIVE_OK) {
		if (tag == ARCHIVE_ENTRY_ACL_MASK && mask)
			*mask = perm & 7;
		v[k].tag = acl_tag(tag);
		v[k].perm = (uint16_t)(perm & 7);
		rc = acl_entry_id(p, tag, id, nm, &v[k].id);
		if (rc)
			break;
		k++;
	}
	if (!rc)
		rc = extkit_acl_encode(v, k, out, &size);
	free(v);
	if (rc) {
		free(out);
		return rc;
	}
	return add_item(x, index, "", out, size);
}

static int read_attrs(struct pop *p, struct archive_entry *e,
		      struct axattrs *x, int *mask)
{
	const char *name, *suffix;
	const void *val;
	size_t size;
	uint8_t idx, *copy;
	int rc = 0;

	x->n = 0;
	la->archive_entry_xattr_reset(e);
	while (!rc && la->archive_entry_xattr_next(e, &name, &val, &size) ==
	       ARCHIVE_OK) {
		rc = extkit_xattr_name_split(name, &idx, &suffix);
		if (rc == -EOPNOTSUPP || idx == EXTKIT_XATTR_INDEX_ACL_ACCESS ||
		    idx == EXTKIT_XATTR_INDEX_ACL_DEFAULT) {
			rc = 0;		/* ACLs come from the ACL list */
			continue;
		}
		copy = rc ? NULL : malloc(size ? size : 1);
		if (!rc && !copy)
			rc = -ENOMEM;
		if (!rc) {
			memcpy(copy, val, size);
			rc = add_item(x, idx, suffix, copy, size);
		}
	}
	if (!rc)
		rc = add_acl(p, x, e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS,
			     EXTKIT_XATTR_INDEX_ACL_ACCESS, mask);
	if (!rc)
		rc = add_acl(p, x, e, ARCHIVE_ENTRY_ACL_TYPE_DEFAULT,
			     EXTKIT_XATTR_INDEX_ACL_DEFAULT, NULL);
	return rc;
}

static void entry_meta(struct archive_entry *e, struct axattrs *x,
		       struct pop_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->mode = la->archive_entry_mode(e);
	m->uid = (uint32_t)la->archive_entry_uid(e);
	m->gid = (uint32_t)la->archive_entry_gid(e);
	m->size = la->archive_entry_size_is_set(e) ?
		  (uint64_t)la->archive_entry_size(e) : 0;
	m->atime.tv_sec = la->archive_entry_atime(e);
	m->atime.tv_nsec = la->archive_entry_atime_nsec(e);
	m->mtime.tv_sec = la->archive_entry_mtime(e);
	m->mtime.tv_nsec = la->archive_entry_mtime_nsec(e);
	m->ctime.tv_sec = la->archive_entry_ctime(e);
	m->ctime.tv_nsec = la->archive_entry_ctime_nsec(e);
	if (!la->archive_entry_atime_is_set(e))
		m->atime = m->mtime;
	if (!la->archive_entry_ctime_is_set(e))
		m->ctime = m->mtime;
	m->rdev_major = (uint32_t)la->archive_entry_rdevmajor(e);
	m->rdev_minor = (uint32_t)la->archive_entry_rdevminor(e);
	m->x = x->items;
	m->nx = x->n;
}

/* ---- entries ---- */

/*
 * Gathers the archive's data pieces (at any offsets, often not on block
 * boundaries) into whole blocks in rbuf, so that blocks of zeros are seen
 * whole and stay holes. *at, *have: the offset and length gathered.
 */
static int gather(struct arc *c, struct pop_file *f, uint64_t off,
		  const uint8_t *buf, size_t size, uint64_t *at,
		  uint64_t *have)
{
	int rc = 0;

	if (*have && off != *at + *have) {
		rc = pop_file_write(c->p, f, *at, c->p->rbuf, *have);
		*have = 0;
	}
	if (!*have)
		*at = off;
	while (!rc && size) {
		size_t n = POP_BUF - *have < size ? POP_BUF - *have : size;

		memcpy(c->p->rbuf + *have, buf, n);
		*have += n;
		buf += n;
		size -= n;
		if (*have == POP_BUF) {
			rc = pop_file_write(c->p, f, *at, c->p->rbuf, *have);
			*at += *have;
			*have = 0;
		}
	}
	return rc;
}

/* A small file's data (inline data) read whole into rbuf: holes (pax
 * sparse files) stay zeros. */
static int read_small(struct arc *c, uint64_t size)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	int r;

	memset(c->p->rbuf, 0, size);
	while ((r = la->archive_read_data_block(c->a, &buf, &len, &off)) ==
	       ARCHIVE_OK) {
		if (off < 0 || (uint64_t)off > size || len > size - off)
			return -EFBIG;
		memcpy(c->p->rbuf + off, buf, len);
	}
	if (r != ARCHIVE_EOF) {
		c->why = la->archive_error_string(c->a);
		return -EIO;
	}
	return 0;
}

static int copy_data(struct arc *c, uint32_t ino, const struct pop_meta *m)
{
	struct extkit_inode in = { 0 };
	struct pop_file f;
	const void *buf;
	size_t size;
	la_int64_t off;
	uint64_t at = 0, have = 0;
	int rc, r;

	if (pop_inline_ok(c->p, ino)) {
		rc = pop_inline_fits(c->p, m, 0);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			rc = read_small(c, m->size);
			return rc ? rc : pop_inline_file(c->p, ino, m,
							 c->p->rbuf);
		}
	}
	rc = pop_file_begin(c->p, &f, m->size);

	while (!rc &&
	       (r = la->archive_read_data_block(c->a, &buf, &size, &off)) ==
	       ARCHIVE_OK)
		rc = gather(c, &f, (uint64_t)off, buf, size, &at, &have);
	if (!rc && have)
		rc = pop_file_write(c->p, &f, at, c->p->rbuf, have);
	if (!rc && r != ARCHIVE_EOF) {
		c->why = la->archive_error_string(c->a);
		rc = -EIO;
	}
	if (!rc)
		rc = pop_file_end(c->p, &f, ino, &in);
	pop_file_free(&f);
	return rc ? rc : pop_write_inode(c->p, ino, m, &in, 1);
}

static int hard_link(struct arc *c, const char *target, uint32_t dir,
		     const char *name, size_t len)
{
	struct extkit_dirbuild_entry *e;
	const char *tname;
	uint32_t tdir;
	size_t tlen;
	int rc = walk(c, target, 0, &tdir, &tname, &tlen);

	if (rc)
		return rc;
	e = tlen ? lookup(c, tdir, tname, tlen) : NULL;
	if (!e || e->ftype == EXT2_FT_DIR) {
		c->why = "a hard link to a missing entry or a directory";
		return -EINVAL;
	}
	rc = add_name(c, dir, name, len, e->ino, e->ftype);
	return rc ? rc : pop_link_add(c->p, e->ino);
}

/* A directory written before (made for a path, or listed again) is
 * written anew: the attribute block it got then is given back. */
static int drop_ea_block(struct arc *c, uint32_t ino)
{
	struct extkit_inode old;
	int rc = pop_inode_get(c->p, ino, c->p->raw);

	if (rc)
		return rc;
	extkit_inode_decode(c->p->raw, c->p->fs->g.inode_size, &old);
	if (!old.file_acl)
		return 0;
	return extkit_fsbuild_release_clusters(&c->p->fb, old.file_acl, 1);
}

/* The root, or a directory listed again: new attributes. */
static int redo_dir(struct arc *c, uint32_t ino, struct pop_meta *m)
{
	struct extkit_inode in = { 0 };
	int rc = drop_ea_block(c, ino);

	if (rc)
		return rc;

	if (ino == EXT2_ROOT_INO && c->p->o->root_owner_given) {
		m->uid = c->p->o->root_uid;
		m->gid = c->p->o->root_gid;
	}
	if (ino == EXT2_ROOT_INO && c->p->o->root_perms >= 0)
		m->mode = S_IFDIR | (uint32_t)c->p->o->root_perms;
	return pop_write_inode(c->p, ino, m, &in, 2);
}

static int new_entry(struct arc *c, uint32_t dir, const char *name,
		     size_t len, struct pop_meta *m)
{
	uint32_t ino;
	int rc;

	if (S_ISDIR(m->mode)) {
		rc = make_dir(c, dir, name, len, &ino);
		return rc ? rc : redo_dir(c, ino, m);
	}
	rc = child_inode(c, dir, 0, &ino);
	if (!rc)
		rc = add_name(c, dir, name, len, ino,
			      extkit_mode_to_ftype((uint16_t)m->mode));
	if (rc)
		return rc;
	if (S_ISREG(m->mode))
		return copy_data(c, ino, m);
	if (S_ISLNK(m->mode)) {
		const char *t = la->archive_entry_symlink(c->cur);

		return pop_symlink(c->p, ino, m, t ? t : "", t ? strlen(t) : 0);
	}
	return pop_special(c->p, ino, m);
}

static int one_entry(struct arc *c, struct archive_entry *e)
{
	const char *path = la->archive_entry_pathname(e), *name, *hl;
	struct extkit_dirbuild_entry *old;
	struct pop_label lb = { 0 };
	struct pop_meta m;
	struct axattrs x;
	uint32_t dir;
	size_t len;
	int rc, mask = -1;

	if (!path) {
		c->why = "an entry without a name";
		return -EINVAL;
	}
	rc = walk(c, path, 1, &dir, &name, &len);
	if (rc)
		return rc;
	hl = la->archive_entry_hardlink(e);
	old = len ? lookup(c, dir, name, len) : NULL;
	if (hl && !old)
		return hard_link(c, hl, dir, name, len);
	rc = read_attrs(c->p, e, &x, &mask);
	entry_meta(e, &x, &m);
	/* libarchive folds the owning group's entry into the mode; with a
	 * mask, the mode's group bits are the mask (acl(5)) */
	if (mask >= 0)
		m.mode = (m.mode & ~070u) | ((uint32_t)mask << 3);
	if (!rc)
		rc = arc_label(c, &m, &lb);
	if (rc)
		;
	else if (!len && S_ISDIR(m.mode))
		rc = redo_dir(c, EXT2_ROOT_INO, &m);
	else if (!len || hl || (old && !(old->ftype == EXT2_FT_DIR &&
					 S_ISDIR(m.mode)))) {
		c->why = "listed twice in the archive";
		rc = -EEXIST;
	} else if (old)
		rc = redo_dir(c, old->ino, &m);
	else
		rc = new_entry(c, dir, name, len, &m);
	pop_label_free(c->p, &lb);
	axattrs_free(&x);
	return rc;
}

static int finish_dirs(struct arc *c)
{
	int rc = 0;

	if (!lookup(c, EXT2_ROOT_INO, LPF_NAME, sizeof(LPF_NAME) - 1))
		rc = add_name(c, EXT2_ROOT_INO, LPF_NAME, sizeof(LPF_NAME) - 1,
			      EXT2_GOOD_OLD_FIRST_INO, EXT2_FT_DIR);
	for (uint64_t i = 0; !rc && i < c->ndirs; i++) {
		struct adir *d = &c->dirs[i];

		d->db.dot = d->ino;
		d->db.dotdot = d->parent;
		rc = extkit_dirbuild_sort_names(&d->db);
		if (!rc)
			rc = pop_dir_finish(c->p, d->ino, &d->db);
		extkit_dirbuild_free(&d->db);
	}
	return rc;
}

/* ---- the device table (devtable.c) ---- */

/* A path of the table the archive lacks: made as the table says. */
static int dt_make(struct arc *c, uint32_t dir, const char *name, size_t len,
		   const struct devtab_ent *e)
{
	struct extkit_inode in = { 0 };
	struct pop_label lb = { 0 };
	struct pop_meta m;
	uint32_t ino;
	int rc;

	pop_dt_meta_new(c->p, e, &m);
	rc = arc_label(c, &m, &lb);
	if (rc)
		return rc;
	if (S_ISDIR(m.mode)) {
		rc = make_dir(c, dir, name, len, &ino);
		if (!rc)
			rc = redo_dir(c, ino, &m);
	} else {
		rc = child_inode(c, dir, 0, &ino);
		if (!rc)
			rc = add_name(c, dir, name, len, ino,
				      extkit_mode_to_ftype((uint16_t)m.mode));
		if (!rc && S_ISREG(m.mode))	/* empty */
			rc = pop_write_inode(c->p, ino, &m, &in, 1);
		else if (!rc)
			rc = pop_special(c->p, ino, &m);
	}
	pop_label_free(c->p, &lb);
	return rc;
}

/* In the table's order (a directory before what it holds): the paths
 * the archive has take the table's mode and owner, the others are made. */
static int apply_devtab(struct arc *c)
{
	struct mkfs_devtab *dt = c->p->o->devtab;
	struct pop *p = c->p;
	int rc = 0;

	for (size_t i = 0; !rc && dt && i < dt->n; i++) {
		struct devtab_ent *e = &dt->e[i];
		struct extkit_dirbuild_entry *old;
		const char *name;
		uint32_t dir;
		size_t len;

		p->plen = 0;
		rc = pop_path_push(p, dt->file, strlen(dt->file));
		if (!rc)
			rc = walk(c, e->path, 0, &dir, &name, &len);
		if (rc == -ENOENT || rc == -ENOTDIR) {
			snprintf(p->why, sizeof(p->why), "line %u: /%s: its "
				 "directory is neither in the source nor in "
				 "the table", e->line, e->path);
			return rc;
		}
		if (rc)
			return rc;
		old = len ? lookup(c, dir, name, len) : NULL;
		if (!len)
			rc = pop_dt_set_inode(p, EXT2_ROOT_INO, e);
		else if (old)
			rc = pop_dt_set_inode(p, old->ino, e);
		else
			rc = dt_make(c, dir, name, len, e);
		e->used = 1;
	}
	return rc;
}

static void arc_free(struct arc *c)
{
	for (uint64_t i = 0; i < c->ndirs; i++)
		extkit_dirbuild_free(&c->dirs[i].db);
	free(c->dirs);
	pop_map_free(&c->dir_of);
	pop_map_free(&c->names);
	if (c->a)
		la->archive_read_free(c->a);
}

static int read_all(struct arc *c)
{
	struct archive_entry *e;
	int r, rc = 0;

	while (!rc &&
	       (r = la->archive_read_next_header(c->a, &e)) != ARCHIVE_EOF) {
		const char *path;

		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			c->why = la->archive_error_string(c->a);
			return -EIO;
		}
		c->cur = e;
		c->p->plen = 0;
		path = la->archive_entry_pathname(e);
		if (!path)
			path = "?";
		rc = pop_path_push(c->p, path, strlen(path));
		if (!rc)
			rc = one_entry(c, e);
		/* the bytes of the archive file read so far (compressed) */
		pop_progress_to(c->p,
				(uint64_t)la->archive_filter_bytes(c->a, -1));
	}
	return rc;
}

int pop_archive(struct pop *p, const char *source)
{
	struct arc c = { .p = p };
	int rc = new_dir(&c, EXT2_ROOT_INO, EXT2_ROOT_INO);
	struct extkit_inode in = { 0 };
	struct pop_label lb = { 0 };
	struct pop_meta m;
	struct stat st;
	/* "-": standard input (libarchive reads it for no file name) */
	const char *file = source && strcmp(source, "-") ? source : NULL;

	/* one pass, no count of entries first: a bar by the bytes of the
	 * archive file read, when it is big enough to take a while */
	p->total = !file || stat(file, &st) ? 0 : (uint64_t)st.st_size;
	p->bar = p->bar && p->total > POP_BAR_MIN_BYTES;
	la = source ? archive_api_load(&c.why) : NULL;
	if (source && !la) {
		pop_error(p, c.why);
		arc_free(&c);
		return -POP_EREPORTED;
	}
	c.a = la ? la->archive_read_new() : NULL;
	if (!rc && la && !c.a)
		rc = -ENOMEM;
	default_meta(p, &m);
	if (p->o->root_owner_given) {
		m.uid = p->o->root_uid;
		m.gid = p->o->root_gid;
	}
	if (p->o->root_perms >= 0)
		m.mode = S_IFDIR | (uint32_t)p->o->root_perms;
	if (!rc)
		rc = arc_label(&c, &m, &lb);
	if (!rc)
		rc = pop_write_inode(p, EXT2_ROOT_INO, &m, &in, 2);
	pop_label_free(p, &lb);
	if (!rc && la) {
		la->archive_read_support_filter_all(c.a);
		la->archive_read_support_format_all(c.a);
		if (la->archive_read_open_filename(c.a, file, 1 << 16)) {
			c.why = la->archive_error_string(c.a);
			rc = -EIO;
		}
	}
	if (!rc && la)
		rc = read_all(&c);
	if (!rc)
		pop_progress_to(p, p->total);
	if (!rc)
		rc = apply_devtab(&c);
	if (!rc) {
		p->plen = 0;
		p->path[0] = 0;
		if (source)
			pop_path_push(p, source, strlen(source));
		rc = finish_dirs(&c);
	}
	if (!rc && pop_label_lpf(p)) {
		c.why = "labelling lost+found";
		rc = -EIO;
	}
	if (rc)
		pop_error(p, c.why ? c.why : pop_reason(rc));
	arc_free(&c);
	return rc ? -POP_EREPORTED : 0;
}
