// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mke2fs.conf: the file MKE2FS_CONFIG names, else /etc/mke2fs.conf,
 * else (neither exists) the defaults e2fsprogs 1.47 builds in, which are
 * the same text. Only what extkit-mkfs uses is kept: the relations of
 * [defaults] and of each [fs_types] stanza ("name = { key = value }").
 *
 * A value is looked up as mke2fs looks it up: in the fs_types list (the
 * filesystem type, then the usage types) from the last to the first,
 * then in [defaults]. See mke2fs.conf(5).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/msg.h"

#include "mkfs.h"

#define CONF_DEFAULT_PATH	"/etc/mke2fs.conf"

/* e2fsprogs 1.47.4's built-in profile (misc/mke2fs.conf.in): since
 * 1.47.1, ext4 has metadata_csum_seed and orphan_file. */
static const char builtin_profile[] =
	"[defaults]\n"
	"base_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr\n"
	"default_mntopts = acl,user_xattr\n"
	"enable_periodic_fsck = 0\n"
	"blocksize = 4096\n"
	"inode_size = 256\n"
	"inode_ratio = 16384\n"
	"[fs_types]\n"
	"ext3 = {\n features = has_journal\n}\n"
	"ext4 = {\n features = has_journal,extent,huge_file,flex_bg,metadata_csum,metadata_csum_seed,64bit,dir_nlink,extra_isize,orphan_file\n}\n"
	"small = {\n blocksize = 1024\n inode_ratio = 4096\n}\n"
	"floppy = {\n blocksize = 1024\n inode_ratio = 8192\n}\n"
	"big = {\n inode_ratio = 32768\n}\n"
	"huge = {\n inode_ratio = 65536\n}\n"
	"news = {\n inode_ratio = 4096\n}\n"
	"largefile = {\n inode_ratio = 1048576\n blocksize = -1\n}\n"
	"largefile4 = {\n inode_ratio = 4194304\n blocksize = -1\n}\n"
	"hurd = {\n blocksize = 4096\n inode_size = 128\n warn_y2038_dates = 0\n}\n";

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int conf_add(struct mkfs_conf *c, const char *stanza, const char *key,
		    const char *value)
{
	struct mkfs_conf_rel *r;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;

		r = realloc(c->rel, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		c->rel = r;
		c->cap = cap;
	}
	r = &c->rel[c->n];
	r->stanza = strdup(stanza);
	r->key = strdup(key);
	r->value = strdup(value);
	if (!r->stanza || !r->key || !r->value) {
		free(r->stanza);
		free(r->key);
		free(r->value);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

/* One line. section: the current [section]; stanza: the open
 * "name = {" of [fs_types] ("" at the top of a section). */
static int parse_line(struct mkfs_conf *c, char *line, char *section,
		      char *stanza)
{
	char *s = trim(line), *eq, *key, *value;

	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']');

		if (!end)
			return -EINVAL;
		*end = '\0';
		snprintf(section, 64, "%s", s + 1);
		stanza[0] = '\0';
		return 0;
	}
	if (*s == '}') {
		stanza[0] = '\0';
		return 0;
	}
	eq = strchr(s, '=');
	if (!eq)
		return -EINVAL;
	*eq = '\0';
	key = trim(s);
	value = trim(eq + 1);
	if (!strcmp(value, "{")) {
		snprintf(stanza, 64, "%s", key);
		return 0;
	}
	if (!strcmp(section, "defaults") && !stanza[0])
		return conf_add(c, "", key, value);
	if (!strcmp(section, "fs_types") && stanza[0])
		return conf_add(c, stanza, key, value);
	return 0;	/* [options], [devices], ... : not used */
}

static int parse_text(struct mkfs_conf *c, const char *text, const char *name)
{
	char section[64] = "", stanza[64] = "";
	char *copy = strdup(text), *save = NULL;
	unsigned int lineno = 0;
	int rc = copy ? 0 : -ENOMEM;

	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; !rc && l;
	     l = strtok_r(NULL, "\n", &save)) {
		lineno++;
		rc = parse_line(c, l, section, stanza);
		if (rc == -EINVAL)
			cli_error("%s: line %u: not a relation, section or stanza",
				  name, lineno);
	}
	free(copy);
	return rc;
}

static int read_file(FILE *f, char **text)
{
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap + 1), *p;

	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			if (cap >= (1u << 20))
				break;	/* a config file, not a disk */
			p = realloc(buf, 2 * cap + 1);
			if (!p) {
				free(buf);
				buf = NULL;
			}
			buf = p;
			cap *= 2;
		}
	}
	if (!buf)
		return -ENOMEM;
	buf[len] = '\0';
	*text = buf;
	return 0;
}

int mkfs_conf_load(struct mkfs_conf *c)
{
	const char *path = getenv("MKE2FS_CONFIG");
	char *text = NULL;
	FILE *f;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!path || !*path)
		path = CONF_DEFAULT_PATH;
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT) {
			cli_error("%s: %s", path, strerror(errno));
			return -errno;
		}
		return parse_text(c, builtin_profile, "built-in profile");
	}
	rc = read_file(f, &text);
	fclose(f);
	if (!rc)
		rc = parse_text(c, text, path);
	free(text);
	if (rc == -ENOMEM)
		cli_error("out of memory");
	return rc;
}

void mkfs_conf_free(struct mkfs_conf *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->rel[i].stanza);
		free(c->rel[i].key);
		free(c->rel[i].value);
	}
	free(c->rel);
	memset(c, 0, sizeof(*c));
}

int mkfs_conf_has_type(const struct mkfs_conf *c, const char *type)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->rel[i].stanza, type))
			return 1;
	return 0;
}

/* The value of key in one stanza ("" for [defaults]); last one wins. */
const char *mkfs_conf_stanza_get(const struct mkfs_conf *c,
				 const char *stanza, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->rel[i].stanza, stanza) &&
		    !strcmp(c->rel[i].key, key))
			v = c->rel[i].value;
	return v;
}

const char *mkfs_conf_get(const struct mkfs_conf *c,
			  const char *const *types, const char *key)
{
	size_t n = 0;
	const char *v;

	while (types && types[n])
		n++;
	while (n--) {
		v = mkfs_conf_stanza_get(c, types[n], key);
		if (v)
			return v;
	}
	return mkfs_conf_stanza_get(c, "", key);
}

long mkfs_conf_get_int(const struct mkfs_conf *c, const char *const *types,
		       const char *key, long def)
{
	const char *v = mkfs_conf_get(c, types, key);
	char *end;
	long n;

	if (!v)
		return def;
	errno = 0;
	n = strtol(v, &end, 0);
	return errno || end == v || *end ? def : n;
}

int mkfs_conf_get_bool(const struct mkfs_conf *c, const char *const *types,
		       const char *key, int def)
{
	const char *v = mkfs_conf_get(c, types, key);

	if (!v)
		return def;
	if (!strcasecmp(v, "1") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
	    !strcasecmp(v, "t") || !strcasecmp(v, "y"))
		return 1;
	if (!strcasecmp(v, "0") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
	    !strcasecmp(v, "nil") || !strcasecmp(v, "f") ||
	    !strcasecmp(v, "n"))
		return 0;
	return def;
}
