// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump xattr PATH [NAME]: the extended attributes of one inode
 * as debugfs' ea_list prints them (values under 40 bytes shown, as
 * stored: a POSIX ACL in ext4's form), or one attribute's value as
 * ea_get prints it; in JSON every value whole, in hex. Values kept in
 * EA inodes are read from there (xattrlist.c).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "inode.h"
#include "xattrlist.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"
#include "xattrcmd.h"

#define LIST_VALUE_MAX	40	/* ea_list shows shorter values only */

struct xattr_show {
	struct dump_ctx *ctx;
	const char *want;	/* NAME, or NULL for all */
	int found;
};

/* Bytes as a C string: the usual escapes, others as \ooo. */
static void put_c_string(const uint8_t *s, size_t len)
{
	static const char esc[][2] = {
		{ '\a', 'a' }, { '\b', 'b' }, { '\f', 'f' }, { '\n', 'n' },
		{ '\t', 't' }, { '\v', 'v' }, { '\\', '\\' }, { '\'', '\'' },
		{ '"', '"' },
	};

	for (size_t i = 0; i < len; i++) {
		size_t e;

		for (e = 0; e < N_ELEM(esc); e++)
			if (s[i] == (uint8_t)esc[e][0])
				break;
		if (e < N_ELEM(esc))
			printf("\\%c", esc[e][1]);
		else if (s[i] < 32 || s[i] > 126)
			printf("\\%03o", s[i]);
		else
			putchar(s[i]);
	}
}

/* A value as debugfs shows it: quoted when more than 7/8 of its bytes
 * are printable ASCII, else its bytes in hex, each followed by a space. */
void dump_xattr_put_value(const uint8_t *v, size_t len)
{
	size_t printable = 0;

	for (size_t i = 0; i < len; i++)
		printable += v[i] >= 32 && v[i] <= 126;
	if (printable <= len * 7 / 8) {
		for (size_t i = 0; i < len; i++)
			printf("%02x ", v[i]);
		return;
	}
	putchar('"');
	put_c_string(v, len);
	putchar('"');
}

static void full_name(const struct extkit_xattr_value *v, char *out)
{
	char num[16];
	const char *pre = v->prefix;

	if (!pre) {
		snprintf(num, sizeof(num), "%u:", v->name_index);
		pre = num;
	}
	snprintf(out, 300, "%s%.*s", pre, (int)v->name_len, v->name);
}

static void json_value(struct json_writer *w,
		       const struct extkit_xattr_value *v, const char *name)
{
	char *hex = malloc((size_t)v->size * 2 + 1);

	json_begin_object(w, NULL);
	json_string(w, "name", name);
	json_u64(w, "name_index", v->name_index);
	json_u64(w, "value_size", v->size);
	json_u64(w, "value_inum", v->value_inum);
	if (hex) {
		for (uint32_t i = 0; i < v->size; i++)
			snprintf(hex + 2 * i, 3, "%02x", v->value[i]);
		hex[2 * v->size] = '\0';
		json_string(w, "value_hex", hex);
	} else {
		json_null(w, "value_hex");
	}
	free(hex);
	json_end_object(w);
}

static int show_one(const struct extkit_xattr_value *v, void *arg)
{
	struct xattr_show *s = arg;
	char name[300];
	size_t len = v->size;

	full_name(v, name);
	if (s->want && strcmp(s->want, name))
		return 0;
	s->found++;
	if (s->ctx->o->json) {
		json_value(&s->ctx->jw, v, name);
		return 0;
	}
	if (!s->want) {
		fputs("  ", stdout);
		/* the inline data's attribute: its size only */
		if (v->name_index == 7 && v->name_len == 4 &&
		    !memcmp(v->name, "data", 4))
			len = 0;
	}
	put_c_string((const uint8_t *)name, strlen(name));
	printf(" (%" PRIu32 ")", v->size);
	if (len && (s->want || len < LIST_VALUE_MAX)) {
		fputs(" = ", stdout);
		dump_xattr_put_value(v->value, len);
	}
	putchar('\n');
	return 0;
}

static int count_one(const struct extkit_xattr_value *v, void *arg)
{
	(void)v;
	++*(unsigned int *)arg;
	return 0;
}

int dump_xattr(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct xattr_show s = { .ctx = ctx };
	struct extkit_inode in;
	uint8_t *raw = NULL;
	uint32_t ino;
	int rc;

	s.want = ctx->o->nargs > 1 ? ctx->o->args[1] : NULL;
	rc = dump_resolve(ctx, path, &ino);
	if (rc)
		return rc;
	raw = malloc(ctx->fs->g.inode_size);
	rc = raw ? extkit_inode_read_raw(ctx->fs, ino, raw) : -ENOMEM;
	if (rc) {
		cli_error_rc(path, rc);
		goto out;
	}
	extkit_inode_decode(raw, ctx->fs->g.inode_size, &in);
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_u64(&ctx->jw, "inode", ino);
		json_begin_array(&ctx->jw, "xattrs");
	}
	/* the header only above a list that has entries, as debugfs */
	if (!ctx->o->json && !s.want) {
		unsigned int n = 0;

		extkit_xattr_list(ctx->fs, raw, &in, count_one, &n);
		if (n)
			printf("Extended attributes:\n");
	}
	rc = extkit_xattr_list(ctx->fs, raw, &in, show_one, &s);
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	}
	if (rc) {
		cli_error("%s: extended attributes: %s", path,
			  extkit_strerror(rc));
	} else if (s.want && !s.found) {
		cli_error("%s: %s: no such extended attribute", path, s.want);
		rc = -ENODATA;
	} else if (s.want && !ctx->o->json) {
		putchar('\n');
	}
out:
	free(raw);
	return rc;
}
