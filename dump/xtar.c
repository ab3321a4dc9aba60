// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extract --tar FILE|-: the pax sink. libarchive's pax writer carries
 * what a non-root user cannot create on disk: owners by number, devices,
 * every attribute (SCHILY.xattr), POSIX ACLs (SCHILY.acl), nanosecond
 * times and sparse files (GNU.sparse 1.0, only the mapped runs stored).
 * libarchive is loaded with dlopen on first use, as mkfs -d does (its
 * 16 dependencies would cost every other command's start).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "acl.h"
#include "error.h"
#include "symlink.h"
#include "xattrlist.h"
#include "xattrbuild.h"
#include "cli/msg.h"

#include "extract.h"
#include "xwalk.h"

#define F(name) __typeof__(name) *name
struct warc_api {
	F(archive_write_new); F(archive_write_free);
	F(archive_write_set_format_pax); F(archive_write_open_filename);
	F(archive_write_open_fd); F(archive_write_header);
	F(archive_write_data); F(archive_write_finish_entry);
	F(archive_write_close); F(archive_error_string);
	F(archive_entry_new); F(archive_entry_free); F(archive_entry_clear);
	F(archive_entry_set_pathname); F(archive_entry_set_mode);
	F(archive_entry_set_uid); F(archive_entry_set_gid);
	F(archive_entry_set_size); F(archive_entry_set_atime);
	F(archive_entry_set_mtime); F(archive_entry_set_ctime);
	F(archive_entry_set_hardlink); F(archive_entry_set_symlink);
	F(archive_entry_set_rdevmajor); F(archive_entry_set_rdevminor);
	F(archive_entry_set_nlink);
	F(archive_entry_xattr_add_entry); F(archive_entry_acl_add_entry);
	F(archive_entry_sparse_add_entry);
};
#undef F

#define FN(name) { #name, offsetof(struct warc_api, name) }
static const struct {
	const char *name;
	size_t off;
} warc_fns[] = {
	FN(archive_write_new), FN(archive_write_free),
	FN(archive_write_set_format_pax), FN(archive_write_open_filename),
	FN(archive_write_open_fd), FN(archive_write_header),
	FN(archive_write_data), FN(archive_write_finish_entry),
	FN(archive_write_close), FN(archive_error_string),
	FN(archive_entry_new), FN(archive_entry_free), FN(archive_entry_clear),
	FN(archive_entry_set_pathname), FN(archive_entry_set_mode),
	FN(archive_entry_set_uid), FN(archive_entry_set_gid),
	FN(archive_entry_set_size), FN(archive_entry_set_atime),
	FN(archive_entry_set_mtime), FN(archive_entry_set_ctime),
	FN(archive_entry_set_hardlink), FN(archive_entry_set_symlink),
	FN(archive_entry_set_rdevmajor), FN(archive_entry_set_rdevminor),
	FN(archive_entry_set_nlink),
	FN(archive_entry_xattr_add_entry), FN(archive_entry_acl_add_entry),
	FN(archive_entry_sparse_add_entry),
};
#undef FN

_Static_assert(sizeof(warc_fns) / sizeof(warc_fns[0]) *
	       sizeof(void (*)(void)) == sizeof(struct warc_api),
	       "every function of struct warc_api is in warc_fns");

static int load_api(struct warc_api *api, const char **why)
{
	void *h = dlopen(LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		*why = dlerror();
		return -1;
	}
	for (size_t i = 0; i < sizeof(warc_fns) / sizeof(warc_fns[0]); i++) {
		void *f = dlsym(h, warc_fns[i].name);

		if (!f) {
			*why = dlerror();
			return -1;
		}
		*(void **)((char *)api + warc_fns[i].off) = f;
	}
	return 0;
}

struct tar_sink {
	struct warc_api la;
	struct archive *a;
	struct archive_entry *ent;
	uint8_t *xbuf;		/* XATTR_BUF_SIZE */
	char *target;
	char *name;		/* the entry's path in the archive */
	int failed;		/* the archive cannot go on */
	/* data feeding: the next byte of the entry to hand over */
	uint64_t pos;
};

#define TARGET_CAP	(65536 + 1)

static struct tar_sink *ts(struct xwalk *w)
{
	return w->sink;
}

/* ---- the entry's header ---- */

static void add_acl(struct tar_sink *t, int type, const uint8_t *v,
		    size_t len)
{
	static const struct { uint16_t ext; int la; } tags[] = {
		{ EXTKIT_ACL_USER_OBJ, ARCHIVE_ENTRY_ACL_USER_OBJ },
		{ EXTKIT_ACL_USER, ARCHIVE_ENTRY_ACL_USER },
		{ EXTKIT_ACL_GROUP_OBJ, ARCHIVE_ENTRY_ACL_GROUP_OBJ },
		{ EXTKIT_ACL_GROUP, ARCHIVE_ENTRY_ACL_GROUP },
		{ EXTKIT_ACL_MASK, ARCHIVE_ENTRY_ACL_MASK },
		{ EXTKIT_ACL_OTHER, ARCHIVE_ENTRY_ACL_OTHER },
	};

	for (size_t off = 4; off + 8 <= len; off += 8) {
		uint16_t tag = (uint16_t)(v[off] | v[off + 1] << 8);
		int perm = (v[off + 2] | v[off + 3] << 8) & 7;
		uint32_t id = (uint32_t)v[off + 4] | (uint32_t)v[off + 5] << 8 |
			      (uint32_t)v[off + 6] << 16 |
			      (uint32_t)v[off + 7] << 24;

		for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
			if (tags[i].ext == tag)
				t->la.archive_entry_acl_add_entry(t->ent, type,
					perm, tags[i].la,
					id == EXTKIT_ACL_UNDEFINED_ID ? -1 :
					(int)id, NULL);
	}
}

struct tar_x {
	struct xwalk *w;
	const struct xent *e;
};

static int add_one_xattr(const struct extkit_xattr_value *v, void *arg)
{
	struct tar_x *x = arg;
	struct tar_sink *t = ts(x->w);
	char name[256];
	size_t len;
	int rc = xattr_for_syscall(v, name, t->xbuf, &len);

	if (rc == 1)
		return 0;
	if (rc == -ENOTSUP) {
		x->w->st.other_xattrs++;
		return 0;
	}
	if (rc) {
		xwalk_damaged(x->w, x->e->path, name, rc);
		return 0;
	}
	if (v->name_index == 2 || v->name_index == 3)
		add_acl(t, v->name_index == 2 ? ARCHIVE_ENTRY_ACL_TYPE_ACCESS :
			ARCHIVE_ENTRY_ACL_TYPE_DEFAULT, t->xbuf, len);
	else
		t->la.archive_entry_xattr_add_entry(t->ent, name, t->xbuf,
						    len);
	return 0;
}

/* The fields every entry has; path gets a '/' for a directory. */
static int begin_entry(struct xwalk *w, const struct xent *e)
{
	struct tar_sink *t = ts(w);
	struct tar_x x = { w, e };
	size_t n = strlen(e->path);
	int rc;

	t->la.archive_entry_clear(t->ent);
	if (!n) {
		strcpy(t->name, ".");
		n = 1;
	} else {
		memcpy(t->name, e->path, n + 1);
	}
	if (S_ISDIR(e->in->mode))
		strcpy(t->name + n, "/");
	t->la.archive_entry_set_pathname(t->ent, t->name);
	/* before the ACL: libarchive keeps the group:: entry in the mode's
	 * group bits (which hold the mask when there is one), as bsdtar
	 * writes a file read from disk */
	t->la.archive_entry_set_mode(t->ent, e->in->mode);
	t->la.archive_entry_set_uid(t->ent, e->in->uid);
	t->la.archive_entry_set_gid(t->ent, e->in->gid);
	t->la.archive_entry_set_atime(t->ent, e->atime.tv_sec,
				      e->atime.tv_nsec);
	t->la.archive_entry_set_mtime(t->ent, e->mtime.tv_sec,
				      e->mtime.tv_nsec);
	t->la.archive_entry_set_ctime(t->ent, e->ctime.tv_sec,
				      e->ctime.tv_nsec);
	t->la.archive_entry_set_nlink(t->ent, e->in->links_count);
	rc = extkit_xattr_list(w->fs, e->raw, e->in, add_one_xattr, &x);
	if (rc)
		xwalk_damaged(w, e->path, "extended attributes", rc);
	return 0;
}

static int write_header(struct xwalk *w, const struct xent *e)
{
	struct tar_sink *t = ts(w);
	int rc = t->la.archive_write_header(t->a, t->ent);

	if (rc == ARCHIVE_OK || rc == ARCHIVE_WARN)
		return 0;
	if (rc == ARCHIVE_FATAL)
		t->failed = 1;
	w->st.damaged++;
	xwalk_report(w, e->path, "archive: %s",
		     t->la.archive_error_string(t->a));
	return -1;
}

/* ---- data: the sparse map first, then the runs in order ---- */

struct runs {
	struct tar_sink *t;
	uint64_t end;		/* end of the last run */
	int sparse;		/* a hole somewhere */
	int add;		/* add the runs to the entry's sparse map */
};

static int map_run(void *arg, uint64_t off, const uint8_t *buf, size_t len)
{
	struct runs *r = arg;

	(void)buf;
	if (r->add)
		r->t->la.archive_entry_sparse_add_entry(r->t->ent,
			(la_int64_t)off, (la_int64_t)len);
	if (off != r->end)
		r->sparse = 1;
	r->end = off + len;
	return 0;
}

/*
 * Hands len bytes at off to the pax writer. It expects the whole file,
 * holes included, but only counts down a hole's bytes without reading
 * them: the gap before a run is passed as one call of its exact length.
 * The bytes after the last run are never passed (finishing the entry
 * pads what the map says is data, and skips a hole).
 */
static int feed(void *arg, uint64_t off, const uint8_t *buf, size_t len)
{
	struct tar_sink *t = arg;
	la_ssize_t n;

	while (off > t->pos) {
		n = t->la.archive_write_data(t->a, buf, off - t->pos);
		if (n <= 0)
			return -EIO;
		t->pos += (uint64_t)n;
	}
	while (len) {
		n = t->la.archive_write_data(t->a, buf, len);
		if (n <= 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
		t->pos += (uint64_t)n;
	}
	return 0;
}

static int put_file(struct xwalk *w, const struct xent *e)
{
	struct tar_sink *t = ts(w);
	struct runs r = { .t = t };
	int rc;

	if (e->in->size > (uint64_t)INT64_MAX) {
		/* a tar size is signed: libarchive would take it as < 0 */
		xwalk_damaged(w, e->path, "size", -EFBIG);
		return -1;
	}
	/* the map decides the header: a map that cannot be walked skips
	 * the file */
	rc = dump_data_map(w->fs, e->ino, e->in, map_run, &r);
	if (rc) {
		xwalk_damaged(w, e->path, "block map", rc);
		return -1;
	}
	begin_entry(w, e);
	/* before the runs: libarchive drops a run past the entry's size */
	t->la.archive_entry_set_size(t->ent, (la_int64_t)e->in->size);
	if (r.sparse || r.end != e->in->size) {
		r = (struct runs){ .t = t, .add = 1 };
		dump_data_map(w->fs, e->ino, e->in, map_run, &r);
	}
	if (write_header(w, e))
		return -1;
	t->pos = 0;
	rc = dump_data_walk(w->fs, e->ino, e->in, feed, t);
	if (rc == -EIO) {
		t->failed = 1;
		xwalk_report(w, e->path, "archive: %s",
			     t->la.archive_error_string(t->a));
	} else if (rc) {
		xwalk_damaged(w, e->path, "data", rc);
	}
	t->la.archive_write_finish_entry(t->a);
	w->st.files++;
	w->st.bytes += e->in->size;
	return 0;
}

static int tar_leaf(struct xwalk *w, void *parent, const struct xent *e)
{
	struct tar_sink *t = ts(w);
	uint32_t major, minor;
	size_t len;
	int rc;

	(void)parent;
	if (t->failed)
		return -1;
	if (S_ISREG(e->in->mode))
		return put_file(w, e);
	if (S_ISLNK(e->in->mode)) {
		rc = extkit_symlink_read(w->fs, e->ino, e->in, t->target,
					 TARGET_CAP, &len);
		if (rc) {
			xwalk_damaged(w, e->path, "symlink target", rc);
			return -1;
		}
	}
	begin_entry(w, e);
	if (S_ISLNK(e->in->mode)) {
		t->la.archive_entry_set_symlink(t->ent, t->target);
		w->st.symlinks++;
	} else {
		if (S_ISCHR(e->in->mode) || S_ISBLK(e->in->mode)) {
			extkit_inode_rdev(e->in, &major, &minor);
			t->la.archive_entry_set_rdevmajor(t->ent, major);
			t->la.archive_entry_set_rdevminor(t->ent, minor);
		}
		w->st.specials++;
	}
	t->la.archive_entry_set_size(t->ent, 0);
	if (write_header(w, e))
		return -1;
	t->la.archive_write_finish_entry(t->a);
	return 0;
}

static int tar_hardlink(struct xwalk *w, void *parent, const struct xent *e,
			const char *first)
{
	struct tar_sink *t = ts(w);

	(void)parent;
	if (t->failed)
		return -1;
	begin_entry(w, e);
	t->la.archive_entry_set_hardlink(t->ent, first);
	t->la.archive_entry_set_size(t->ent, 0);
	if (write_header(w, e))
		return -1;
	t->la.archive_write_finish_entry(t->a);
	return 0;
}

/* A directory's entry goes first (tar extracts in order); the times it
 * carries are applied by the extracting tar after its children. */
static int tar_dir_begin(struct xwalk *w, void *parent, const struct xent *e,
			 void **dh)
{
	struct tar_sink *t = ts(w);

	(void)parent;
	*dh = NULL;
	if (t->failed)
		return -1;
	begin_entry(w, e);
	t->la.archive_entry_set_size(t->ent, 0);
	if (write_header(w, e))
		return -1;
	t->la.archive_write_finish_entry(t->a);
	return 0;
}

static void tar_dir_end(struct xwalk *w, void *dh, const struct xent *e)
{
	(void)w;
	(void)dh;
	(void)e;
}

static const struct xsink_ops tar_ops = {
	.dir_begin = tar_dir_begin,
	.dir_end = tar_dir_end,
	.leaf = tar_leaf,
	.hardlink = tar_hardlink,
};

int xsink_tar_open(struct xwalk *w, const char *file)
{
	struct tar_sink *t = calloc(1, sizeof(*t));
	const char *why = NULL;
	int rc;

	if (!t || !(t->xbuf = malloc(XATTR_BUF_SIZE)) ||
	    !(t->target = malloc(TARGET_CAP)) ||
	    !(t->name = malloc(XWALK_PATH_CAP + 4))) {
		cli_error("%s", extkit_strerror(-ENOMEM));
		goto fail;
	}
	if (load_api(&t->la, &why)) {
		cli_error("cannot load libarchive: %s", why ? why : "?");
		goto fail;
	}
	t->a = t->la.archive_write_new();
	t->ent = t->la.archive_entry_new();
	if (!t->a || !t->ent) {
		cli_error("%s", extkit_strerror(-ENOMEM));
		goto fail;
	}
	rc = t->la.archive_write_set_format_pax(t->a);
	if (rc == ARCHIVE_OK)
		rc = strcmp(file, "-") ?
		     t->la.archive_write_open_filename(t->a, file) :
		     t->la.archive_write_open_fd(t->a, 1);
	if (rc != ARCHIVE_OK) {
		cli_error("%s: %s", file, t->la.archive_error_string(t->a));
		goto fail;
	}
	w->ops = &tar_ops;
	w->sink = t;
	return 0;
fail:
	if (t) {
		if (t->ent)
			t->la.archive_entry_free(t->ent);
		if (t->a)
			t->la.archive_write_free(t->a);
		free(t->xbuf);
		free(t->target);
		free(t->name);
	}
	free(t);
	return -EIO;
}

int xsink_tar_close(struct xwalk *w)
{
	struct tar_sink *t = w->sink;
	int rc = t->failed ? -EIO : 0;

	if (t->la.archive_write_close(t->a) != ARCHIVE_OK) {
		cli_error("archive: %s", t->la.archive_error_string(t->a));
		rc = -EIO;
	}
	t->la.archive_entry_free(t->ent);
	t->la.archive_write_free(t->a);
	free(t->xbuf);
	free(t->target);
	free(t->name);
	free(t);
	return rc;
}
