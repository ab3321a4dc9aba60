// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump extract [PATH] DEST, and --tar FILE: the tree walk (the
 * command that runs it is extract_cmd.c). This
 * is the one place that decides what may come out of an image. A name
 * is one path component: not empty, not "." or "..", no '/', no NUL, at
 * most 255 bytes, and not already used in its directory; anything else
 * is skipped, reported by path and counted. A directory is walked once
 * (a set of directory inodes), so hard-linked directories cannot loop;
 * depth is bounded. Every other name of an inode already put out becomes
 * a hard link to its first path. What cannot be read is listed, and the
 * walk goes on with everything else that is reachable.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "dir.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"
#include "xattr.h"
#include "cli/msg.h"

#include "extract.h"
#include "xwalk.h"

#define MAX_DEPTH	XWALK_MAX_DEPTH

/* ---- sets: inode -> value, and the names of one directory ---- */

struct imap_slot {
	uint32_t key;		/* 0: empty */
	char *val;
};

struct imap {
	struct imap_slot *s;
	size_t cap, n;		/* cap: a power of two */
};

static size_t ihash(uint32_t k, size_t cap)
{
	return (size_t)((k * 0x9E3779B1u) & (cap - 1));
}

static struct imap_slot *imap_find(const struct imap *m, uint32_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = ihash(key, m->cap); m->s[i].key; i = (i + 1) & (m->cap - 1))
		if (m->s[i].key == key)
			return &m->s[i];
	return NULL;
}

static int imap_put(struct imap *m, uint32_t key, char *val)
{
	struct imap_slot *old = m->s;
	size_t oldcap = m->cap, i;

	if ((m->n + 1) * 2 > m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->s = calloc(m->cap, sizeof(*m->s));
		if (!m->s) {
			m->s = old;
			m->cap = oldcap;
			return -ENOMEM;
		}
		m->n = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i].key)
				imap_put(m, old[i].key, old[i].val);
		free(old);
	}
	for (i = ihash(key, m->cap); m->s[i].key; i = (i + 1) & (m->cap - 1))
		;
	m->s[i].key = key;
	m->s[i].val = val;
	m->n++;
	return 0;
}

static void imap_free(struct imap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->s[i].val);
	free(m->s);
	memset(m, 0, sizeof(*m));
}

/* The names met in one directory: FNV-1a hash, open addressing. */
struct nameset {
	char **s;
	uint64_t *h;
	size_t cap, n;
};

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ULL;
	return h | 1;
}

static int nameset_grow(struct nameset *ns)
{
	struct nameset nw = { .cap = ns->cap ? ns->cap * 2 : 64 };
	size_t i, j;

	nw.s = calloc(nw.cap, sizeof(*nw.s));
	nw.h = calloc(nw.cap, sizeof(*nw.h));
	if (!nw.s || !nw.h) {
		free(nw.s);
		free(nw.h);
		return -ENOMEM;
	}
	for (i = 0; i < ns->cap; i++) {
		if (!ns->h[i])
			continue;
		for (j = ns->h[i] & (nw.cap - 1); nw.h[j];
		     j = (j + 1) & (nw.cap - 1))
			;
		nw.h[j] = ns->h[i];
		nw.s[j] = ns->s[i];
	}
	nw.n = ns->n;
	free(ns->s);
	free(ns->h);
	*ns = nw;
	return 0;
}

/* 1: name was already there; 0: added; negative: no memory. */
static int nameset_add(struct nameset *ns, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len);
	size_t i;

	if ((ns->n + 1) * 2 > ns->cap && nameset_grow(ns))
		return -ENOMEM;
	/* name has no NUL (name_problem came first), so strlen is its
	 * length once stored */
	for (i = h & (ns->cap - 1); ns->h[i]; i = (i + 1) & (ns->cap - 1))
		if (ns->h[i] == h && strlen(ns->s[i]) == len &&
		    !memcmp(ns->s[i], name, len))
			return 1;
	ns->s[i] = strndup(name, len);
	if (!ns->s[i])
		return -ENOMEM;
	ns->h[i] = h;
	ns->n++;
	return 0;
}

static void nameset_free(struct nameset *ns)
{
	for (size_t i = 0; i < ns->cap; i++)
		free(ns->s[i]);
	free(ns->s);
	free(ns->h);
}

/* ---- reports ---- */

static void put_escaped(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7F || c == '\\')
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
}

void xwalk_report(struct xwalk *w, const char *path, const char *fmt, ...)
{
	va_list ap;

	(void)w;
	fprintf(stderr, "%s: extract: /", cli_prog);
	put_escaped(stderr, path, strlen(path));
	fputs(": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void xwalk_damaged(struct xwalk *w, const char *path, const char *what,
		   int err)
{
	w->st.damaged++;
	xwalk_report(w, path, "%s: %s", what, extkit_strerror(err));
}

/* ---- the walk ---- */

struct walk_state {
	struct xwalk *w;
	struct imap dirs;	/* directory inodes entered */
	struct imap links;	/* inode -> its first path */
	char *path;		/* of the current entry, from the root */
	size_t plen;
	int depth;
};

/* The path buffer holds MAX_DEPTH + 1 names: never moved, so the names
 * and paths handed to a sink stay valid until their directory ends. */
#define PATH_CAP	XWALK_PATH_CAP

static int path_push(struct walk_state *s, const char *name, size_t len)
{
	if (s->plen + len + 2 > PATH_CAP)
		return -ENAMETOOLONG;
	if (s->plen)
		s->path[s->plen++] = '/';
	memcpy(s->path + s->plen, name, len);
	s->plen += len;
	s->path[s->plen] = '\0';
	return 0;
}

static void path_pop(struct walk_state *s, size_t to)
{
	s->plen = to;
	s->path[to] = '\0';
}

/* Reports an unsafe name in directory s->path; always counts it. */
static void unsafe_name(struct walk_state *s, const char *name, size_t len,
			uint32_t ino, const char *why)
{
	s->w->st.unsafe++;
	fprintf(stderr, "%s: extract: /", cli_prog);
	put_escaped(stderr, s->path, s->plen);
	fputs(s->plen ? "/" : "", stderr);
	put_escaped(stderr, name, len);
	fprintf(stderr, ": unsafe name (%s), inode %" PRIu32 " skipped\n",
		why, ino);
}

/* Why a name cannot be one component, or NULL when it can. */
static const char *name_problem(const char *name, size_t len)
{
	if (len == 0)
		return "empty";
	if (len > 255)
		return "longer than 255 bytes";
	if (memchr(name, '\0', len))
		return "holds a NUL byte";
	if (memchr(name, '/', len))
		return "holds a '/'";
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return "a '.' or '..' that is not the directory's own";
	return NULL;
}

static void entry_times(const uint8_t *raw, uint32_t size, struct xent *e)
{
	static const enum extkit_inode_time_field f[3] = {
		EXTKIT_TIME_ATIME, EXTKIT_TIME_MTIME, EXTKIT_TIME_CTIME,
	};
	struct timespec *ts[3] = { &e->atime, &e->mtime, &e->ctime };
	struct extkit_inode_time t;

	for (int i = 0; i < 3; i++) {
		memset(ts[i], 0, sizeof(*ts[i]));
		if (extkit_inode_time_get(raw, size, f[i], &t))
			continue;
		ts[i]->tv_sec = (time_t)t.sec;
		ts[i]->tv_nsec = t.has_extra && t.nsec < 1000000000u ?
				 (long)t.nsec : 0;
	}
}

static int walk_dir(struct walk_state *s, uint32_t dino, void *dh);

static void put_dir(struct walk_state *s, void *parent, struct xent *e)
{
	struct xwalk *w = s->w;
	void *dh;

	if (imap_find(&s->dirs, e->ino)) {
		w->st.unsafe++;
		xwalk_report(w, e->path, "directory inode %" PRIu32 " already "
			     "extracted (hard-linked directory), skipped",
			     e->ino);
		return;
	}
	if (s->depth >= MAX_DEPTH) {
		w->st.damaged++;
		xwalk_report(w, e->path, "deeper than %d directories, "
			     "skipped", MAX_DEPTH);
		return;
	}
	if (imap_put(&s->dirs, e->ino, NULL)) {
		xwalk_damaged(w, e->path, "directory", -ENOMEM);
		return;
	}
	if (w->ops->dir_begin(w, parent, e, &dh))
		return;
	w->st.dirs++;
	s->depth++;
	walk_dir(s, e->ino, dh);
	s->depth--;
	w->ops->dir_end(w, dh, e);
}

static void put_other(struct walk_state *s, void *parent, struct xent *e)
{
	struct xwalk *w = s->w;
	struct imap_slot *first = NULL;
	char *copy;

	if (S_ISSOCK(e->in->mode)) {
		w->st.sockets++;
		return;
	}
	if (e->in->links_count > 1)
		first = imap_find(&s->links, e->ino);
	if (first) {
		if (!w->ops->hardlink(w, parent, e, first->val))
			w->st.hardlinks++;
		return;
	}
	if (w->ops->leaf(w, parent, e))
		return;
	if (e->in->links_count > 1) {
		copy = strdup(e->path);
		if (!copy || imap_put(&s->links, e->ino, copy))
			free(copy);
	}
}

/* One entry of a directory (or the root): its inode, then the sink. */
static void put_entry(struct walk_state *s, void *parent, uint32_t ino,
		      const char *name)
{
	struct xwalk *w = s->w;
	struct extkit_inode in;
	struct xent e = { .ino = ino, .in = &in, .name = name,
			  .path = s->path };
	uint8_t *raw = malloc(w->fs->g.inode_size);
	int rc;

	rc = raw ? extkit_inode_read_raw(w->fs, ino, raw) : -ENOMEM;
	if (rc) {
		xwalk_damaged(w, s->path, "inode unreadable", rc);
		goto out;
	}
	extkit_inode_decode(raw, w->fs->g.inode_size, &in);
	e.raw = raw;
	/* a dtime alone is no sign: an orphan being truncated keeps its
	 * links and chains the orphan list through i_dtime */
	if (!in.links_count ||
	    extkit_mode_to_ftype(in.mode) == EXT2_FT_UNKNOWN) {
		w->st.damaged++;
		xwalk_report(w, s->path, "inode %" PRIu32 " is not in use "
			     "(mode 0%o, links %u), skipped", ino, in.mode,
			     in.links_count);
		goto out;
	}
	if (in.flags & EXT4_ENCRYPT_FL) {
		w->st.encrypted++;
		goto out;
	}
	entry_times(raw, w->fs->g.inode_size, &e);
	if (S_ISDIR(in.mode))
		put_dir(s, parent, &e);
	else
		put_other(s, parent, &e);
out:
	free(raw);
}

/*
 * A live record: '.' and '..' are the directory's own the first time
 * each is met; every other name must be safe and new in the directory.
 */
static void dir_record(struct walk_state *s, void *dh,
		       const struct extkit_dirent *d, struct nameset *names,
		       int *dots)
{
	size_t len = d->name_len, mark = s->plen;
	const char *why = name_problem(d->name, len);
	int dot = len == 1 && d->name[0] == '.' ? 1 :
		  len == 2 && d->name[0] == '.' && d->name[1] == '.' ? 2 : 0;
	int rc;

	if (dot && !(*dots & dot)) {
		*dots |= dot;
		return;
	}
	if (!why) {
		rc = nameset_add(names, d->name, len);
		if (rc < 0)
			why = "out of memory";
		else if (rc)
			why = "a duplicate in its directory";
	}
	if (why) {
		unsafe_name(s, d->name, len, d->inode, why);
		return;
	}
	if (path_push(s, d->name, len)) {
		xwalk_damaged(s->w, s->path, "entry", -ENOMEM);
		return;
	}
	put_entry(s, dh, d->inode, s->path + mark + (mark ? 1 : 0));
	path_pop(s, mark);
}

static int walk_dir(struct walk_state *s, uint32_t dino, void *dh)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent d;
	struct nameset names = { 0 };
	int rc, dots = 0;

	rc = extkit_dir_iter_open(s->w->fs, dino, EXTKIT_DIR_ITER_NOWRITE |
				  EXTKIT_DIR_ITER_PAST_CORRUPT, &it);
	if (rc) {
		xwalk_damaged(s->w, s->path, "directory unreadable", rc);
		return rc;
	}
	while ((rc = extkit_dir_iter_next(it, &d)) != 0) {
		if (rc < 0) {
			xwalk_damaged(s->w, s->path, "directory block", rc);
			continue;
		}
		if (d.kind == EXTKIT_DE_CORRUPT) {
			s->w->st.damaged++;
			xwalk_report(s->w, s->path, "directory block %" PRIu64
				     " offset %" PRIu32 ": %s, rest of the "
				     "block skipped", d.lblk, d.offset,
				     extkit_dirent_problem_str(d.problem));
			continue;
		}
		if (d.kind == EXTKIT_DE_LIVE)
			dir_record(s, dh, &d, &names, &dots);
	}
	nameset_free(&names);
	extkit_dir_iter_close(it);
	return 0;
}

/* The extraction root: a directory, or one file put under its name. */
static int walk_root(struct walk_state *s, const char *path)
{
	struct xwalk *w = s->w;
	struct extkit_inode in;
	const char *base;
	uint32_t ino;
	int rc;

	rc = dump_resolve(w->ctx, path, &ino);
	if (rc)
		return rc;
	rc = extkit_inode_read(w->fs, ino, &in);
	if (rc) {
		cli_error_rc(path, rc);
		return rc;
	}
	if (S_ISDIR(in.mode)) {
		put_entry(s, NULL, ino, NULL);
		return 0;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (name_problem(base, strlen(base))) {
		cli_error("%s: not a name to extract a file under", path);
		return -EINVAL;
	}
	if (path_push(s, base, strlen(base)))
		return -ENOMEM;
	put_entry(s, NULL, ino, s->path);
	return 0;
}

int xwalk_run(struct xwalk *w, const char *path)
{
	struct walk_state s = { .w = w };
	int rc;

	s.path = malloc(PATH_CAP);
	if (!s.path) {
		cli_error("%s", extkit_strerror(-ENOMEM));
		return DUMP_EXIT_FAIL;
	}
	s.path[0] = '\0';
	rc = walk_root(&s, path ? path : "/");
	imap_free(&s.dirs);
	imap_free(&s.links);
	free(s.path);
	if (rc)
		return DUMP_EXIT_FAIL;
	if (w->st.unsafe || w->st.damaged || w->st.encrypted || w->st.exists)
		return DUMP_EXIT_PARTIAL;
	return DUMP_EXIT_OK;
}

void xwalk_summary(struct xwalk *w)
{
	const struct xstats *t = &w->st;

	fprintf(w->out, "extracted %" PRIu64 " files (%" PRIu64 " bytes), %"
		PRIu64 " directories, %" PRIu64 " symlinks, %" PRIu64
		" special files, %" PRIu64 " hard links\n", t->files,
		t->bytes, t->dirs, t->symlinks, t->specials, t->hardlinks);
	if (t->unsafe || t->damaged || t->encrypted || t->sockets ||
	    t->exists)
		fprintf(w->out, "skipped: %" PRIu64 " unsafe entries, %" PRIu64
			" damaged or unreadable, %" PRIu64 " encrypted (no "
			"key), %" PRIu64 " sockets, %" PRIu64 " already in "
			"the destination\n", t->unsafe, t->damaged,
			t->encrypted, t->sockets, t->exists);
	if (t->owners || t->xattrs || t->devices || t->modes || t->times)
		fprintf(stderr, "%s: extract: not applied (not permitted): %"
			PRIu64 " owners, %" PRIu64 " extended attributes, %"
			PRIu64 " devices, %" PRIu64 " modes, %" PRIu64
			" times\n", cli_prog, t->owners, t->xattrs,
			t->devices, t->modes, t->times);
	if (t->other_xattrs)
		fprintf(w->out, "%" PRIu64 " extended attributes of unknown "
			"namespaces not copied\n", t->other_xattrs);
}

/* The summary as one JSON object (extract --json). */
void xwalk_summary_json(struct xwalk *w, struct json_writer *j, int partial)
{
	const struct xstats *t = &w->st;

	json_begin_object(j, NULL);
	json_bool(j, "partial", partial);
	json_u64(j, "files", t->files);
	json_u64(j, "bytes", t->bytes);
	json_u64(j, "directories", t->dirs);
	json_u64(j, "symlinks", t->symlinks);
	json_u64(j, "special_files", t->specials);
	json_u64(j, "hard_links", t->hardlinks);
	json_begin_object(j, "skipped");
	json_u64(j, "unsafe", t->unsafe);
	json_u64(j, "damaged", t->damaged);
	json_u64(j, "encrypted", t->encrypted);
	json_u64(j, "sockets", t->sockets);
	json_u64(j, "already_present", t->exists);
	json_end_object(j);
	json_begin_object(j, "not_applied");
	json_u64(j, "owners", t->owners);
	json_u64(j, "xattrs", t->xattrs);
	json_u64(j, "devices", t->devices);
	json_u64(j, "modes", t->modes);
	json_u64(j, "times", t->times);
	json_end_object(j);
	json_u64(j, "unknown_xattrs", t->other_xattrs);
	json_end_object(j);
}

int xattr_for_syscall(const struct extkit_xattr_value *v, char *name,
		      uint8_t *buf, size_t *len)
{
	int acl = v->name_index == 2 || v->name_index == 3;

	if (v->name_index == 7 && v->name_len == 4 &&
	    !memcmp(v->name, "data", 4))
		return 1;
	if (!v->prefix || v->name_index == 7 || v->name_index == 8)
		return -ENOTSUP;
	if (acl && v->name_len)
		return -ENOTSUP;
	snprintf(name, 256, "%s%.*s", v->prefix, (int)v->name_len, v->name);
	if (acl)
		return extkit_acl_to_xattr(v->value, v->size, buf, len);
	memcpy(buf, v->value, v->size);
	*len = v->size;
	return 0;
}
