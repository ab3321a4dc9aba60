// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump stat: the extended attributes of one inode (in the inode
 * after i_extra_isize, then in its EA block), EA inodes with their
 * reference counts and hashes, and the inline data an inode holds. All
 * parsing is the library's (xattr.c, inline.c).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "inline.h"
#include "inode.h"
#include "xattr.h"
#include "xattrlist.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"
#include "xattrcmd.h"

/* "user." + name, as debugfs prints it; unknown indexes by number. */
static void put_xattr_name(char *out, size_t cap, const struct extkit_xattr *x)
{
	const char *pre = extkit_xattr_prefix(x->name_index);
	char num[16];

	if (!pre) {
		snprintf(num, sizeof(num), "%u:", x->name_index);
		pre = num;
	}
	snprintf(out, cap, "%s%.*s", pre, (int)x->name_len, x->name);
}

#define STAT_VALUE_MAX	40	/* as debugfs: shorter values are shown */

/* The values of an inode's attributes, in the order of the walk below
 * (in the inode, then the EA block), read by xattrlist.c (which follows
 * EA inodes). */
struct xvals {
	size_t n, cap;
	struct xval {
		uint8_t *v;
		uint32_t size;
	} *a;
	int failed;
};

static int keep_value(const struct extkit_xattr_value *v, void *arg)
{
	struct xvals *xs = arg;
	struct xval *a = xs->a;

	if (xs->n == xs->cap) {
		xs->cap = xs->cap ? 2 * xs->cap : 8;
		a = realloc(xs->a, xs->cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		xs->a = a;
	}
	a[xs->n].v = malloc(v->size ? v->size : 1);
	if (!a[xs->n].v)
		return -ENOMEM;
	memcpy(a[xs->n].v, v->value, v->size);
	a[xs->n++].size = v->size;
	return 0;
}

static void xvals_free(struct xvals *xs)
{
	for (size_t i = 0; i < xs->n; i++)
		free(xs->a[i].v);
	free(xs->a);
}

static void one_value(struct dump_ctx *ctx, const struct extkit_xattr *x,
		      const struct xval *val)
{
	if (ctx->o->json) {
		if (val)
			json_hex(&ctx->jw, "value_hex", val->v, val->size);
		else
			json_null(&ctx->jw, "value_hex");
		return;
	}
	/* system.data (inline data) by its size only, as debugfs */
	if (!val || !val->size || val->size >= STAT_VALUE_MAX ||
	    (x->name_index == 7 && x->name_len == 4 &&
	     !memcmp(x->name, "data", 4)))
		return;
	fputs(" = ", stdout);
	dump_xattr_put_value(val->v, val->size);
}

static void one_xattr(struct dump_ctx *ctx, const struct extkit_xattr *x,
		      const char *where, const struct xval *val)
{
	struct json_writer *w = &ctx->jw;
	struct extkit_inode ea;
	char name[300];
	int have_ea = x->value_inum &&
		      !extkit_inode_read(ctx->fs, x->value_inum, &ea);

	put_xattr_name(name, sizeof(name), x);
	if (!ctx->o->json) {
		printf("  %s (%" PRIu32 ")", name, x->value_size);
		one_value(ctx, x, val);
		printf(" in %s, hash 0x%08" PRIx32, where, x->hash);
		if (have_ea)
			printf(", value inode %" PRIu32 " (refcount %" PRIu64
			       ", hash 0x%08" PRIx32 ")", x->value_inum,
			       extkit_ea_inode_refcount(&ea), ea.atime);
		putchar('\n');
		return;
	}
	json_begin_object(w, NULL);
	json_string(w, "name", name);
	json_u64(w, "name_index", x->name_index);
	json_u64(w, "value_size", x->value_size);
	json_string(w, "stored_in", where);
	json_u64(w, "hash", x->hash);
	json_u64(w, "value_inum", x->value_inum);
	if (have_ea) {
		json_u64(w, "value_inode_refcount",
			 extkit_ea_inode_refcount(&ea));
		json_u64(w, "value_inode_hash", ea.atime);
	}
	one_value(ctx, x, val);
	json_end_object(w);
}

static void region_xattrs(struct dump_ctx *ctx,
			  const struct extkit_xattr_region *r,
			  const char *where, const struct xvals *xs, size_t *k)
{
	uint32_t off = r->first;
	struct extkit_xattr x;

	while (extkit_xattr_next(r, &off, &x) == 1) {
		const struct xval *val = NULL;

		if (!xs->failed && *k < xs->n &&
		    xs->a[*k].size == x.value_size)
			val = &xs->a[*k];
		++*k;
		one_xattr(ctx, &x, where, val);
	}
}

static void inline_info(struct dump_ctx *ctx, const uint8_t *raw)
{
	struct extkit_inline in;
	int rc = extkit_inline_locate(ctx->fs, raw, &in);

	if (ctx->o->json) {
		json_begin_object(&ctx->jw, "inline_data");
		if (!rc) {
			json_u64(&ctx->jw, "capacity",
				 extkit_inline_capacity(&in));
			json_u64(&ctx->jw, "system_data_size", in.ea_len);
		} else {
			json_string(&ctx->jw, "error", extkit_strerror(rc));
		}
		json_end_object(&ctx->jw);
		return;
	}
	if (!rc)
		printf("%-12s %" PRIu64 " bytes (i_block 60, system.data %"
		       PRIu32 ")\n", "Inline data:",
		       extkit_inline_capacity(&in), in.ea_len);
	else
		printf("%-12s %s\n", "Inline data:", extkit_strerror(rc));
}

void dump_stat_xattrs(struct dump_ctx *ctx, uint32_t ino,
		      const struct extkit_inode *in)
{
	struct extkit_xattr_format fmt;
	struct extkit_xattr_region r;
	struct xvals xs = { 0 };
	size_t k = 0;
	uint8_t *raw = malloc(ctx->fs->g.inode_size);
	uint8_t *blk = malloc(ctx->fs->g.block_size);

	if (!raw || !blk || extkit_inode_read_raw(ctx->fs, ino, raw))
		goto out;
	extkit_xattr_format_init(ctx->fs, &fmt);
	xs.failed = extkit_xattr_list(ctx->fs, raw, in, keep_value, &xs) != 0;
	if (in->flags & EXT4_INLINE_DATA_FL)
		inline_info(ctx, raw);
	if (ctx->o->json)
		json_begin_array(&ctx->jw, "xattrs");
	else
		printf("Extended attributes:\n");
	if (extkit_xattr_ibody_region(raw, ctx->fs->g.inode_size, &r) &&
	    extkit_xattr_region_check(&fmt, &r) == EXTKIT_XATTR_OK)
		region_xattrs(ctx, &r, "inode", &xs, &k);
	if (in->file_acl && extkit_fs_valid_block(ctx->fs, in->file_acl) &&
	    !extkit_fs_read_block(ctx->fs, in->file_acl, blk) &&
	    extkit_xattr_block_check(&fmt, blk) == EXTKIT_XATTR_OK) {
		extkit_xattr_block_region(&fmt, blk, &r);
		region_xattrs(ctx, &r, "block", &xs, &k);
	}
	if (ctx->o->json)
		json_end_array(&ctx->jw);
out:
	xvals_free(&xs);
	free(raw);
	free(blk);
}
