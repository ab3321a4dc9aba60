// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-mkfs --device-table FILE: the genext2fs/makedevs format, one
 * path a line,
 *
 *   name type mode uid gid major minor start inc count
 *
 * type d (directory), f (regular file), p (FIFO), c, b (devices) or s
 * (socket); mode in octal; '-' for a number that does not apply. With a
 * count, the line stands for count paths: name followed by start,
 * start + 1, ..., the minor growing by inc from one to the next (as
 * makedevs does). '#' starts a comment. A path the source has keeps its
 * contents and takes the table's mode and owner; a path it lacks is made
 * (empty, for f). The table is read whole and checked before anything is
 * written: each bad line is an error naming the file and the line.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ondisk.h"
#include "cli/msg.h"

#include "devtable.h"

#define DT_RANGE_MAX	65536u		/* paths one line may stand for */
#define DT_TOTAL_MAX	(1u << 20)	/* paths in the whole table */
#define DT_LINE_MAX	(PATH_MAX + 256)
#define DT_MAJOR_MAX	4095u		/* Linux's 12-bit major */
#define DT_MINOR_MAX	((1u << 20) - 1)

struct dt_line {
	char path[PATH_MAX];
	uint32_t mode, uid, gid, major, minor, start, inc, count;
};

struct dt_load {
	struct mkfs_devtab *dt;
	size_t cap;
	uint32_t line;
};

static int bad(const struct dt_load *l, const char *fmt, const char *what)
{
	char msg[PATH_MAX + 128];

	snprintf(msg, sizeof(msg), fmt, what);
	cli_error("%s: line %u: %s", l->dt->file, l->line, msg);
	return -EINVAL;
}

char mkfs_devtab_type_char(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return 'd';
	case S_IFREG: return 'f';
	case S_IFIFO: return 'p';
	case S_IFCHR: return 'c';
	case S_IFBLK: return 'b';
	case S_IFSOCK: return 's';
	case S_IFLNK: return 'l';
	}
	return '?';
}

static uint32_t type_mode(const char *t)
{
	static const struct { char c; uint32_t m; } types[] = {
		{ 'd', S_IFDIR }, { 'f', S_IFREG }, { 'p', S_IFIFO },
		{ 'c', S_IFCHR }, { 'b', S_IFBLK }, { 's', S_IFSOCK },
	};

	if (!t[0] || t[1])
		return 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].c == t[0])
			return types[i].m;
	return 0;
}

/* A field: '-' is 0; base 8 or 10; at most max. */
static int number(const struct dt_load *l, const char *s, const char *name,
		  int base, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!strcmp(s, "-")) {
		*out = 0;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (!*s || *s == '-' || *s == '+' || *end || errno || v > max) {
		char what[96];

		snprintf(what, sizeof(what), "bad %s '%.40s'", name, s);
		return bad(l, "%s", what);
	}
	*out = (uint32_t)v;
	return 0;
}

/* The path without its leading '/' (or "./"), each name checked. */
static int clean_path(const struct dt_load *l, const char *in, char *out)
{
	size_t o = 0;
	const char *s = in;

	if (s[0] != '/')
		return bad(l, "'%s': the path must start with '/'", in);
	while (*s) {
		size_t n;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (!n)
			break;
		if ((n == 1 && s[0] == '.') || (n == 2 && !memcmp(s, "..", 2)))
			return bad(l, "'%s': '.' or '..' in the path", in);
		if (n > EXT2_NAME_LEN)
			return bad(l, "'%s': a name longer than 255 bytes", in);
		if (o)
			out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
		s += n;
	}
	out[o] = 0;
	return 0;
}

static int split(char *line, char **f, int max)
{
	int n = 0;

	for (char *tok = strtok(line, " \t\r\n"); tok;
	     tok = strtok(NULL, " \t\r\n")) {
		if (n == max)
			return max + 1;
		f[n++] = tok;
	}
	return n;
}

static int parse_line(const struct dt_load *l, char *text, struct dt_line *d)
{
	char *f[10];
	int n = split(text, f, 10);
	uint32_t perm;

	if (n != 10)
		return bad(l, "%s", "10 fields wanted: name type mode uid gid "
			   "major minor start inc count");
	d->mode = type_mode(f[1]);
	if (!d->mode)
		return bad(l, "unknown type '%.20s' (d, f, p, c, b or s)",
			   f[1]);
	if (number(l, f[2], "mode", 8, 07777, &perm) ||
	    number(l, f[3], "uid", 10, UINT32_MAX, &d->uid) ||
	    number(l, f[4], "gid", 10, UINT32_MAX, &d->gid) ||
	    number(l, f[5], "major", 10, DT_MAJOR_MAX, &d->major) ||
	    number(l, f[6], "minor", 10, DT_MINOR_MAX, &d->minor) ||
	    number(l, f[7], "start", 10, UINT32_MAX, &d->start) ||
	    number(l, f[8], "inc", 10, DT_MINOR_MAX, &d->inc) ||
	    number(l, f[9], "count", 10, DT_RANGE_MAX, &d->count))
		return -EINVAL;
	d->mode |= perm;
	if (strlen(f[0]) >= sizeof(d->path) - 12)
		return bad(l, "%s", "the path is too long");
	if (clean_path(l, f[0], d->path))
		return -EINVAL;
	if (!d->path[0] && (d->count || !S_ISDIR(d->mode)))
		return bad(l, "%s", "the root '/' can only be a directory");
	return 0;
}

static int add(struct dt_load *l, const char *path, const struct dt_line *d,
	       uint32_t minor)
{
	struct mkfs_devtab *dt = l->dt;
	struct devtab_ent *e;
	const char *slash = strrchr(path, '/');

	if (dt->n == DT_TOTAL_MAX)
		return bad(l, "more than %s paths in the table", "1048576");
	if (dt->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		e = realloc(dt->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		dt->e = e;
		l->cap = cap;
	}
	e = &dt->e[dt->n];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	dt->n++;
	e->plen = slash ? (uint32_t)(slash - path) : 0;
	e->mode = d->mode;
	e->uid = d->uid;
	e->gid = d->gid;
	e->major = d->major;
	e->minor = minor;
	e->line = l->line;
	return 0;
}

static int expand(struct dt_load *l, const struct dt_line *d)
{
	char path[PATH_MAX + 16];
	uint64_t minor;

	if (!d->count)
		return add(l, d->path, d, d->minor);
	if (!d->path[0])
		return bad(l, "%s", "a range of the root");
	for (uint32_t i = 0; i < d->count; i++) {
		minor = d->minor + (uint64_t)i * d->inc;
		if (minor > DT_MINOR_MAX || (uint64_t)d->start + i > UINT32_MAX)
			return bad(l, "%s", "the range goes past the largest "
				   "minor or number");
		snprintf(path, sizeof(path), "%s%u", d->path, d->start + i);
		if (strlen(devtab_name(&(struct devtab_ent){
			.path = path,
			.plen = (uint32_t)(strrchr(path, '/') ?
					   strrchr(path, '/') - path : 0)
		})) > EXT2_NAME_LEN)
			return bad(l, "%s", "a name of the range is longer "
				   "than 255 bytes");
		if (add(l, path, d, (uint32_t)minor))
			return -EINVAL;
	}
	return 0;
}

/* Order: the directory's path, then the name (bytes, shorter first). */
static int cmp_key(const char *pa, size_t la, const char *na, size_t nla,
		   const char *pb, size_t lb, const char *nb, size_t nlb)
{
	int c = memcmp(pa, pb, la < lb ? la : lb);

	if (c || la != lb)
		return c ? c : la < lb ? -1 : 1;
	c = memcmp(na, nb, nla < nlb ? nla : nlb);
	return c ? c : nla < nlb ? -1 : nla > nlb;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct devtab_ent *x = a, *y = b;
	const char *nx = devtab_name(x), *ny = devtab_name(y);
	int c = cmp_key(x->path, x->plen, nx, strlen(nx),
			y->path, y->plen, ny, strlen(ny));

	/* the same path: the later line last */
	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

/* The same path twice: the last line's mode and owner, one type. */
static int merge_dups(struct dt_load *l)
{
	struct mkfs_devtab *dt = l->dt;
	size_t out = 0;

	for (size_t i = 0; i < dt->n; i++) {
		struct devtab_ent *e = &dt->e[i];

		if (out && !strcmp(dt->e[out - 1].path, e->path)) {
			struct devtab_ent *k = &dt->e[out - 1];

			if ((k->mode & S_IFMT) != (e->mode & S_IFMT)) {
				l->line = e->line;
				cli_error("%s: line %u: /%s: of type %c on "
					  "line %u", dt->file, e->line,
					  e->path,
					  mkfs_devtab_type_char(k->mode),
					  k->line);
				return -EINVAL;
			}
			free(k->path);
			*k = *e;
			e->path = NULL;
			continue;
		}
		dt->e[out++] = *e;
	}
	dt->n = out;
	return 0;
}

/* Every parent the table names is a directory in it. */
static int check_parents(struct mkfs_devtab *dt)
{
	for (size_t i = 0; i < dt->n; i++) {
		struct devtab_ent *e = &dt->e[i], *d;

		if (!e->plen)
			continue;
		d = mkfs_devtab_find(dt, e->path, e->plen);
		if (d && !S_ISDIR(d->mode)) {
			cli_error("%s: line %u: /%s: /%.*s is not a "
				  "directory (line %u)", dt->file, e->line,
				  e->path, (int)e->plen, e->path, d->line);
			return -EINVAL;
		}
	}
	return 0;
}

static int read_lines(FILE *f, struct dt_load *l)
{
	char *text = NULL;
	size_t size = 0;
	ssize_t n;
	int rc = 0;

	while (!rc && (n = getline(&text, &size, f)) >= 0) {
		struct dt_line d;
		char *s = text;

		l->line++;
		if ((size_t)n > DT_LINE_MAX) {
			rc = bad(l, "%s", "line too long");
			break;
		}
		if (memchr(text, 0, (size_t)n)) {
			rc = bad(l, "%s", "a NUL byte in the line");
			break;
		}
		s[strcspn(s, "#")] = 0;
		s += strspn(s, " \t\r\n");
		if (!*s)
			continue;
		rc = parse_line(l, s, &d);
		if (!rc)
			rc = expand(l, &d);
	}
	if (!rc && ferror(f)) {
		cli_error("%s: %s", l->dt->file, strerror(errno));
		rc = -EIO;
	}
	free(text);
	return rc;
}

int mkfs_devtab_load(const char *file, struct mkfs_devtab **out)
{
	struct mkfs_devtab *dt = calloc(1, sizeof(*dt));
	struct dt_load l = { .dt = dt };
	FILE *f;
	int rc;

	*out = NULL;
	if (!dt || !(dt->file = strdup(file))) {
		free(dt);
		cli_error("out of memory");
		return -ENOMEM;
	}
	f = fopen(file, "re");
	if (!f) {
		cli_error("--device-table %s: %s", file, strerror(errno));
		mkfs_devtab_free(dt);
		return -errno;
	}
	rc = read_lines(f, &l);
	fclose(f);
	if (rc == -ENOMEM)
		cli_error("%s: out of memory", file);
	if (!rc) {
		qsort(dt->e, dt->n, sizeof(*dt->e), cmp_ent);
		rc = merge_dups(&l);
	}
	if (!rc)
		rc = check_parents(dt);
	if (rc) {
		mkfs_devtab_free(dt);
		return rc;
	}
	*out = dt;
	return 0;
}

void mkfs_devtab_free(struct mkfs_devtab *dt)
{
	if (!dt)
		return;
	for (size_t i = 0; i < dt->n; i++)
		free(dt->e[i].path);
	free(dt->e);
	free(dt->file);
	free(dt);
}

struct devtab_ent *mkfs_devtab_find(struct mkfs_devtab *dt, const char *path,
				    size_t len)
{
	const char *slash = memrchr(path, '/', len);
	size_t plen = slash ? (size_t)(slash - path) : 0;
	const char *name = slash ? slash + 1 : path;
	size_t nlen = len - (size_t)(name - path);
	size_t lo = 0, hi = dt->n;

	if (!len)	/* the root: "" sorts first */
		return dt->n && !dt->e[0].path[0] ? &dt->e[0] : NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct devtab_ent *e = &dt->e[mid];
		const char *en = devtab_name(e);
		int c = cmp_key(e->path, e->plen, en, strlen(en),
				path, plen, name, nlen);

		if (!c)
			return e;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

size_t mkfs_devtab_children(const struct mkfs_devtab *dt, const char *dir,
			    size_t len, size_t *first)
{
	size_t lo = 0, hi = dt->n, n = 0;

	while (lo < hi) {	/* the first entry whose directory >= dir */
		size_t mid = lo + (hi - lo) / 2;
		const struct devtab_ent *e = &dt->e[mid];
		int c = cmp_key(e->path, e->plen, "", 0, dir, len, "", 0);

		if (c < 0 || (!c && !e->path[0]))
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < dt->n && dt->e[lo + n].plen == len &&
	       dt->e[lo + n].path[0] && !memcmp(dt->e[lo + n].path, dir, len))
		n++;
	return n;
}
