// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump stat: the extended attributes of one inode (in the inode
 * after i_extra_isize, then in its EA block), EA inodes with their
 * reference counts and hashes, and the inline data an inode holds. All
 * parsing is the library's (xattr.c, inline.c).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "inline.h"
#include "inode.h"
#include "xattr.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"

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

static void one_xattr(struct dump_ctx *ctx, const struct extkit_xattr *x,
		      const char *where)
{
	struct json_writer *w = &ctx->jw;
	struct extkit_inode ea;
	char name[300];
	int have_ea = x->value_inum &&
		      !extkit_inode_read(ctx->fs, x->value_inum, &ea);

	put_xattr_name(name, sizeof(name), x);
	if (!ctx->o->json) {
		printf("  %s (%" PRIu32 ") in %s, hash 0x%08" PRIx32, name,
		       x->value_size, where, x->hash);
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
	json_end_object(w);
}

static void region_xattrs(struct dump_ctx *ctx,
			  const struct extkit_xattr_region *r,
			  const char *where)
{
	uint32_t off = r->first;
	struct extkit_xattr x;

	while (extkit_xattr_next(r, &off, &x) == 1)
		one_xattr(ctx, &x, where);
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
	uint8_t *raw = malloc(ctx->fs->g.inode_size);
	uint8_t *blk = malloc(ctx->fs->g.block_size);

	if (!raw || !blk || extkit_inode_read_raw(ctx->fs, ino, raw))
		goto out;
	extkit_xattr_format_init(ctx->fs, &fmt);
	if (in->flags & EXT4_INLINE_DATA_FL)
		inline_info(ctx, raw);
	if (ctx->o->json)
		json_begin_array(&ctx->jw, "xattrs");
	else
		printf("Extended attributes:\n");
	if (extkit_xattr_ibody_region(raw, ctx->fs->g.inode_size, &r) &&
	    extkit_xattr_region_check(&fmt, &r) == EXTKIT_XATTR_OK)
		region_xattrs(ctx, &r, "inode");
	if (in->file_acl && extkit_fs_valid_block(ctx->fs, in->file_acl) &&
	    !extkit_fs_read_block(ctx->fs, in->file_acl, blk) &&
	    extkit_xattr_block_check(&fmt, blk) == EXTKIT_XATTR_OK) {
		extkit_xattr_block_region(&fmt, blk, &r);
		region_xattrs(ctx, &r, "block");
	}
	if (ctx->o->json)
		json_end_array(&ctx->jw);
out:
	free(raw);
	free(blk);
}
