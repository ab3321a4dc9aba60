// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fit's measure of an archive (fit.h): read once through libarchive
 * before the run reads it again to copy it (so not standard input). Its
 * paths are resolved as archive.c resolves them (parents the archive
 * does not list are made, a directory listed again is the same one, a
 * hard link is a name and no inode), each directory's names summed; its
 * data pieces are gathered as archive.c gathers them, so that the blocks
 * of zeros that copy leaves as holes are not counted.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/msg.h"
#include "xattrbuild.h"

#include "archive_dl.h"
#include "fit.h"

#define FIT_NOT_DIR	UINT32_MAX

struct fa {
	const struct archive_api *la;
	struct archive *a;
	struct fit_need *nd;
	struct pop_map paths;		/* path hashes -> directory + 1 */
	uint64_t *bytes;		/* each directory's names */
	uint64_t ndirs, cap;
	const char *why;
	/* the data window of the file being read (archive.c's gather) */
	struct fit_file f;
	uint64_t at, have;
	uint8_t nz[FIT_WIN_CHUNKS];	/* a KiB of the window not all zero */
};

/* Two hashes of a path, carried component by component. */
struct phash {
	uint64_t a, b;
};

static void phash_add(struct phash *h, const char *s, size_t len)
{
	h->a = (h->a ^ '/') * 0x100000001b3ULL;
	h->b = (h->b ^ '/') * 0x9E3779B97F4A7C15ULL + 1;
	for (size_t i = 0; i < len; i++) {
		h->a = (h->a ^ (uint8_t)s[i]) * 0x100000001b3ULL;
		h->b = ((h->b ^ (uint8_t)s[i]) * 0x9E3779B97F4A7C15ULL) ^
		       (h->b >> 29);
	}
}

static int new_dir(struct fa *c, const struct phash *h)
{
	if (c->ndirs == c->cap) {
		uint64_t *b = realloc(c->bytes, (c->cap ? c->cap * 2 : 64) *
				      sizeof(*b));

		if (!b)
			return -ENOMEM;
		c->bytes = b;
		c->cap = c->cap ? c->cap * 2 : 64;
	}
	if (c->ndirs >= FIT_NOT_DIR - 1)
		return -EFBIG;
	c->bytes[c->ndirs++] = 24;		/* '.' and '..' */
	return pop_map_put(&c->paths, h->a, h->b, (uint32_t)c->ndirs);
}

/* ---- data ---- */

static void window_flush(struct fa *c)
{
	fit_file_window(&c->f, c->at, c->at + c->have, c->nz);
	c->have = 0;
}

static void window_add(struct fa *c, uint64_t off, const uint8_t *buf,
		       size_t size)
{
	if (c->have && off != c->at + c->have)
		window_flush(c);
	while (size) {
		size_t n;

		if (!c->have) {
			c->at = off;
			memset(c->nz, 0, sizeof(c->nz));
		}
		n = POP_BUF - c->have < size ? POP_BUF - c->have : size;
		fit_scan(c->nz, c->at / FIT_CHUNK, off, buf, n);
		c->have += n;
		off += n;
		buf += n;
		size -= n;
		if (c->have == POP_BUF)
			window_flush(c);
	}
}

static int add_data(struct fa *c, uint64_t size)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	int r;

	fit_file_begin(&c->f);
	c->have = 0;
	while ((r = c->la->archive_read_data_block(c->a, &buf, &len, &off)) ==
	       ARCHIVE_OK)
		window_add(c, (uint64_t)off, buf, len);
	if (r != ARCHIVE_EOF) {
		c->why = c->la->archive_error_string(c->a);
		return -EIO;
	}
	window_flush(c);
	fit_file_end(c->nd, &c->f, size);
	return 0;
}

/* ---- attributes ---- */

static void add_acl_size(struct fa *c, struct archive_entry *e, int type,
			 uint8_t index, struct fit_attr *a, size_t *k)
{
	int n = c->la->archive_entry_acl_reset(e, type);

	if (n <= 0)
		return;
	a[*k].index = index;
	a[*k].name = "";
	a[*k].name_len = 0;
	a[*k].size = 4 + 8 * ((uint32_t)n + 3);	/* at most */
	(*k)++;
}

/* An entry's attributes, with the label --file-contexts gives its path
 * (nd->path) and mode. */
static int add_attrs(struct fa *c, struct archive_entry *e, uint32_t mode)
{
	struct fit_attr a[67];
	char *ctx;
	int rc;
	const char *name, *suffix;
	const void *val;
	size_t size, k = 0;
	uint8_t idx;

	c->la->archive_entry_xattr_reset(e);
	while (k < 64 && c->la->archive_entry_xattr_next(e, &name, &val,
							  &size) == ARCHIVE_OK) {
		if (extkit_xattr_name_split(name, &idx, &suffix) ||
		    idx == EXTKIT_XATTR_INDEX_ACL_ACCESS ||
		    idx == EXTKIT_XATTR_INDEX_ACL_DEFAULT)
			continue;	/* as archive.c: ACLs from the list */
		a[k].index = idx;
		a[k].name = suffix;
		a[k].name_len = (uint8_t)strlen(suffix);
		a[k].size = (uint32_t)size;
		k++;
	}
	add_acl_size(c, e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS,
		     EXTKIT_XATTR_INDEX_ACL_ACCESS, a, &k);
	add_acl_size(c, e, ARCHIVE_ENTRY_ACL_TYPE_DEFAULT,
		     EXTKIT_XATTR_INDEX_ACL_DEFAULT, a, &k);
	rc = fit_label(c->nd, mode, a, &k, &ctx);
	if (!rc)
		fit_add_attrs(c->nd, a, k);
	fit_label_free(c->nd, ctx);
	return rc;
}

/* A directory the archive implies (no entry of its own): its label. */
static int add_dir_label(struct fa *c)
{
	struct fit_attr a[1];
	size_t k = 0;
	char *ctx;
	int rc = fit_label(c->nd, S_IFDIR | 0755, a, &k, &ctx);

	if (!rc)
		fit_add_attrs(c->nd, a, k);
	fit_label_free(c->nd, ctx);
	return rc;
}

/* ---- entries ---- */

/* A new name in directory d (an index into bytes), and its inode. */
static int add_name(struct fa *c, uint32_t d, const char *s, size_t n,
		    const struct phash *h, int is_dir, int inode)
{
	c->bytes[d] += fit_name_bytes(n);
	c->nd->inodes += inode;
	return is_dir ? new_dir(c, h) :
		pop_map_put(&c->paths, h->a, h->b, FIT_NOT_DIR);
}

static int new_entry(struct fa *c, struct archive_entry *e, uint32_t d,
		     const char *s, size_t n, const struct phash *h)
{
	unsigned int mode = c->la->archive_entry_mode(e);
	const char *t;
	int rc;

	if (c->la->archive_entry_hardlink(e))
		return add_name(c, d, s, n, h, 0, 0);
	rc = add_name(c, d, s, n, h, S_ISDIR(mode), 1);
	if (!rc)
		rc = add_attrs(c, e, mode);
	if (rc)
		return rc;
	if (S_ISLNK(mode)) {
		t = c->la->archive_entry_symlink(e);
		fit_add_symlink(c->nd, t ? strlen(t) : 0);
	} else if (S_ISREG(mode)) {
		return add_data(c, c->la->archive_entry_size_is_set(e) ?
			(uint64_t)c->la->archive_entry_size(e) : 0);
	}
	return 0;
}

/* Walks the entry's path as archive.c does; parents made as needed. */
static int one_entry(struct fa *c, struct archive_entry *e)
{
	const char *s = c->la->archive_entry_pathname(e);
	struct phash h = { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };
	uint32_t d = 0, v;

	if (!s) {
		c->why = "an entry without a name";
		return -EINVAL;
	}
	c->nd->plen = 0;
	c->nd->path[0] = 0;
	for (;;) {
		size_t n;
		int last, rc;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 1 && s[0] == '.') {
			s++;
			continue;
		}
		if (n == 2 && !memcmp(s, "..", 2)) {
			c->why = "a path with '..'";
			return -EINVAL;
		}
		last = !s[n] || !s[n + strspn(s + n, "/")];
		if (!n)				/* the root itself */
			return add_attrs(c, e, c->la->archive_entry_mode(e));
		if (c->nd->plen + n + 2 > sizeof(c->nd->path)) {
			c->why = "path too long";
			return -ENAMETOOLONG;
		}
		c->nd->path[c->nd->plen++] = '/';
		memcpy(c->nd->path + c->nd->plen, s, n);
		c->nd->plen += n;
		c->nd->path[c->nd->plen] = 0;
		phash_add(&h, s, n);
		if (pop_map_get(&c->paths, h.a, h.b, &v)) {
			if (last && v != FIT_NOT_DIR)	/* listed again */
				return add_attrs(c, e,
					c->la->archive_entry_mode(e));
			if (last || v == FIT_NOT_DIR)
				return 0;	/* the copy decides */
			d = v - 1;
		} else if (last) {
			return new_entry(c, e, d, s, n, &h);
		} else {
			rc = add_name(c, d, s, n, &h, 1, 1);
			if (!rc)
				rc = add_dir_label(c);
			if (rc)
				return rc;
			d = (uint32_t)c->ndirs - 1;
		}
		s += n;
	}
}

static int read_all(struct fa *c)
{
	struct archive_entry *e;
	int r, rc = 0;

	while (!rc && (r = c->la->archive_read_next_header(c->a, &e)) !=
	       ARCHIVE_EOF) {
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			c->why = c->la->archive_error_string(c->a);
			return -EIO;
		}
		rc = one_entry(c, e);
	}
	return rc;
}

int fit_measure_archive(const struct mkfs_opts *o, struct fit_need *nd)
{
	struct phash root = { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };
	struct phash lpf = root;
	struct fa *c = calloc(1, sizeof(*c));
	uint32_t v;
	int rc;

	if (!c)
		return -ENOMEM;
	c->nd = nd;
	c->la = archive_api_load(&c->why);
	rc = c->la ? new_dir(c, &root) : -EIO;
	c->a = !rc ? c->la->archive_read_new() : NULL;
	if (!rc && !c->a)
		rc = -ENOMEM;
	if (!rc) {
		c->la->archive_read_support_filter_all(c->a);
		c->la->archive_read_support_format_all(c->a);
		if (c->la->archive_read_open_filename(c->a, o->source,
						      1 << 16)) {
			c->why = c->la->archive_error_string(c->a);
			rc = -EIO;
		}
	}
	if (!rc)
		rc = read_all(c);
	phash_add(&lpf, "lost+found", 10);
	if (!rc && !pop_map_get(&c->paths, lpf.a, lpf.b, &v))
		c->bytes[0] += fit_name_bytes(10);	/* made by the copy */
	for (uint64_t i = 0; !rc && i < c->ndirs; i++)
		fit_add_dir(nd, c->bytes[i]);
	if (rc)
		cli_error("-d %s: measuring the archive: %s", o->source,
			  c->why ? c->why : strerror(-rc));
	if (c->a)
		c->la->archive_read_free(c->a);
	pop_map_free(&c->paths);
	free(c->bytes);
	free(c);
	return rc;
}
