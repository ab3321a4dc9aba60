// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debugfs' lookups between blocks, inodes and names: bmap PATH LBLK (the
 * physical block of a logical one), ncheck INO... (the names of inodes,
 * every hard link), icheck BLOCK... (the inode that owns a block: data,
 * map or EA block), imap PATH (where an inode lies in its table). Text
 * as debugfs prints it, or JSON.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "dir.h"
#include "error.h"
#include "inode.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "check.h"
#include "dump.h"
#include "json.h"

/* A decimal (or 0x hex) number up to max; reports a bad one. */
static int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (!*s || *end || errno || *v > max || s[0] == '-') {
		cli_error("%s: not a number from 0 to %" PRIu64, s, max);
		return -EINVAL;
	}
	return 0;
}

/* ---- bmap ---- */

struct bmap_find {
	uint64_t lblk, pblk;
	int unwritten;
};

static int bmap_cb(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		   uint32_t count, int flags, void *arg)
{
	struct bmap_find *f = arg;

	(void)fs;
	if (flags & EXTKIT_BLOCK_META || f->lblk < lblk)
		return f->lblk < lblk && !(flags & EXTKIT_BLOCK_META);
	if (f->lblk - lblk >= count)
		return 0;
	f->pblk = pblk + (f->lblk - lblk);
	f->unwritten = !!(flags & EXTKIT_BLOCK_UNWRITTEN);
	return 1;
}

int dump_bmap(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct bmap_find f = { 0 };
	struct extkit_inode in;
	uint32_t ino;
	int rc;

	if (parse_num(ctx->o->args[1], UINT32_MAX, &f.lblk))
		return -EINVAL;
	rc = dump_resolve(ctx, path, &ino);
	if (rc)
		return rc;
	rc = extkit_inode_read(ctx->fs, ino, &in);
	if (!rc && extkit_inode_has_block_map(&in))
		rc = extkit_block_walk(ctx->fs, &in, bmap_cb, &f);
	if (rc < 0) {
		cli_error_rc(path, rc);
		return rc;
	}
	if (!ctx->o->json) {
		printf("%" PRIu64 "%s\n", f.pblk,
		       f.unwritten ? " (uninit)" : "");
		return 0;
	}
	json_begin_object(&ctx->jw, NULL);
	json_u64(&ctx->jw, "inode", ino);
	json_u64(&ctx->jw, "logical", f.lblk);
	if (f.pblk)
		json_u64(&ctx->jw, "physical", f.pblk);
	else
		json_null(&ctx->jw, "physical");
	json_bool(&ctx->jw, "unwritten", f.unwritten);
	json_end_object(&ctx->jw);
	return 0;
}

/* ---- the inodes in use, in table order ---- */

/* Calls fn for every inode in use (links, a mode, no dtime); groups whose
 * inode table is not initialized are skipped. */
static int scan_inodes(struct extkit_fs *fs,
		       int (*fn)(struct extkit_fs *fs, uint32_t ino,
				 const struct extkit_inode *in, void *arg),
		       void *arg)
{
	uint32_t ipg = fs->sb.inodes_per_group, g, i;
	struct extkit_inode in;
	int csum = !!(fs->sb.feature_ro_compat &
		      (EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
		       EXT4_FEATURE_RO_COMPAT_METADATA_CSUM));
	int rc;

	for (g = 0; g < fs->g.group_count; g++) {
		uint32_t n = ipg;

		if (csum && (fs->groups[g].flags & EXT4_BG_INODE_UNINIT))
			continue;
		if (csum && fs->groups[g].itable_unused < ipg)
			n = ipg - fs->groups[g].itable_unused;
		for (i = 0; i < n; i++) {
			uint32_t ino = g * ipg + i + 1;

			if (ino > fs->sb.inodes_count)
				return 0;
			if (extkit_inode_read(fs, ino, &in) ||
			    !in.links_count || in.dtime || !in.mode)
				continue;
			rc = fn(fs, ino, &in, arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ---- ncheck ---- */

struct ncheck {
	struct dump_ctx *ctx;
	uint64_t *want;		/* the inodes asked for */
	char **paths;		/* per inode: its paths, '\n'-separated */
	size_t n;
	char dir[DUMP_PATH_MAX];
};

static int add_path(struct ncheck *c, size_t k, const char *name,
		    size_t len)
{
	size_t old = c->paths[k] ? strlen(c->paths[k]) : 0;
	size_t dl = strcmp(c->dir, "/") ? strlen(c->dir) : 0;
	char *p = realloc(c->paths[k], old + dl + len + 3);

	if (!p)
		return -ENOMEM;
	c->paths[k] = p;
	if (old)
		p[old++] = '\n';
	memcpy(p + old, c->dir, dl);
	p[old + dl] = '/';
	memcpy(p + old + dl + 1, name, len);
	p[old + dl + 1 + len] = '\0';
	return 0;
}

static int ncheck_dir(struct extkit_fs *fs, uint32_t ino,
		      const struct extkit_inode *in, void *arg)
{
	struct ncheck *c = arg;
	struct extkit_dir_iter *it;
	struct extkit_dirent d;
	int rc, named = 0;

	if (!S_ISDIR(in->mode) || extkit_dir_iter_open(fs, ino,
					EXTKIT_DIR_ITER_NOWRITE, &it))
		return 0;
	while ((rc = extkit_dir_iter_next(it, &d)) != 0) {
		if (rc < 0 || d.kind != EXTKIT_DE_LIVE)
			continue;
		if ((d.name_len == 1 && d.name[0] == '.') ||
		    (d.name_len == 2 && d.name[0] == '.' && d.name[1] == '.'))
			continue;
		for (size_t k = 0; k < c->n; k++) {
			if (c->want[k] != d.inode)
				continue;
			if (!named && extkit_dir_path_of(fs, ino, c->dir,
							 sizeof(c->dir)))
				snprintf(c->dir, sizeof(c->dir), "<%" PRIu32
					 ">", ino);
			named = 1;
			if (add_path(c, k, d.name, d.name_len)) {
				extkit_dir_iter_close(it);
				return -ENOMEM;
			}
		}
	}
	extkit_dir_iter_close(it);
	return 0;
}

/* The paths of one inode (a '\n'-separated list) as JSON strings, or
 * their exact bytes in hex (paths_hex, in the same order). */
static void ncheck_json_paths(struct json_writer *w, const char *key,
			      const char *paths, int hex)
{
	const char *p, *nl;

	json_begin_array(w, key);
	for (p = paths; p && *p; p = nl ? nl + 1 : NULL) {
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (hex)
			json_hex(w, NULL, p, len);
		else
			json_string_n(w, NULL, p, len);
	}
	json_end_array(w);
}

static void ncheck_print(struct ncheck *c)
{
	struct json_writer *w = &c->ctx->jw;
	char *p, *nl;

	if (c->ctx->o->json) {
		json_begin_object(w, NULL);
		json_begin_array(w, "inodes");
	} else {
		printf("Inode\tPathname\n");
	}
	for (size_t k = 0; k < c->n; k++) {
		if (c->ctx->o->json) {
			json_begin_object(w, NULL);
			json_u64(w, "inode", c->want[k]);
			ncheck_json_paths(w, "paths", c->paths[k], 0);
			ncheck_json_paths(w, "paths_hex", c->paths[k], 1);
			json_end_object(w);
			continue;
		}
		for (p = c->paths[k]; p && *p; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			printf("%" PRIu64 "\t", c->want[k]);
			dump_put_name(p, nl ? (size_t)(nl - p) : strlen(p));
			putchar('\n');
		}
	}
	if (c->ctx->o->json) {
		json_end_array(w);
		json_end_object(w);
	}
}

int dump_ncheck(struct dump_ctx *ctx)
{
	struct ncheck c = { .ctx = ctx, .n = (size_t)ctx->o->nargs };
	int rc = -ENOMEM;

	c.want = calloc(c.n, sizeof(*c.want));
	c.paths = calloc(c.n, sizeof(*c.paths));
	if (!c.want || !c.paths)
		goto out;
	for (size_t k = 0; k < c.n; k++) {
		rc = parse_num(ctx->o->args[k], ctx->fs->sb.inodes_count,
			       &c.want[k]);
		if (rc)
			goto out;
	}
	rc = scan_inodes(ctx->fs, ncheck_dir, &c);
	if (!rc)
		ncheck_print(&c);
out:
	if (rc == -ENOMEM)
		cli_error("%s", extkit_strerror(rc));
	for (size_t k = 0; c.paths && k < c.n; k++)
		free(c.paths[k]);
	free(c.paths);
	free(c.want);
	return rc;
}

/* ---- icheck ---- */

struct want_blk {
	uint64_t blk;
	uint32_t owner;		/* 0: not found yet */
	size_t order;		/* as given */
};

struct icheck {
	struct want_blk *w;	/* sorted by blk */
	size_t n, left;
	uint32_t ino;
};

static int by_blk(const void *a, const void *b)
{
	const struct want_blk *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static int by_order(const void *a, const void *b)
{
	const struct want_blk *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* Marks the blocks asked for in [pblk, pblk + count) as ino's. */
static void claim(struct icheck *c, uint64_t pblk, uint64_t count)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->w[mid].blk < pblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->n && c->w[lo].blk - pblk < count; lo++) {
		if (!c->w[lo].owner) {
			c->w[lo].owner = c->ino;
			c->left--;
		}
	}
}

static int icheck_run(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		      uint32_t count, int flags, void *arg)
{
	(void)fs;
	(void)lblk;
	(void)flags;
	claim(arg, pblk, count);
	return 0;
}

static int icheck_inode(struct extkit_fs *fs, uint32_t ino,
			const struct extkit_inode *in, void *arg)
{
	struct icheck *c = arg;

	c->ino = ino;
	if (in->file_acl)
		claim(c, in->file_acl, 1);
	if (extkit_inode_has_block_map(in))
		extkit_block_walk(fs, in, icheck_run, c);
	return c->left ? 0 : 1;
}

int dump_icheck(struct dump_ctx *ctx)
{
	struct icheck c = { .n = (size_t)ctx->o->nargs };
	struct json_writer *w = &ctx->jw;
	int rc = 0;

	c.w = calloc(c.n, sizeof(*c.w));
	if (!c.w) {
		cli_error("%s", extkit_strerror(-ENOMEM));
		return -ENOMEM;
	}
	for (size_t k = 0; k < c.n && !rc; k++) {
		rc = parse_num(ctx->o->args[k], UINT64_MAX, &c.w[k].blk);
		c.w[k].order = k;
	}
	if (rc)
		goto out;
	c.left = c.n;
	qsort(c.w, c.n, sizeof(*c.w), by_blk);
	scan_inodes(ctx->fs, icheck_inode, &c);
	qsort(c.w, c.n, sizeof(*c.w), by_order);
	if (ctx->o->json) {
		json_begin_object(w, NULL);
		json_begin_array(w, "blocks");
	} else {
		printf("Block\tInode number\n");
	}
	for (size_t k = 0; k < c.n; k++) {
		if (!ctx->o->json) {
			if (c.w[k].owner)
				printf("%" PRIu64 "\t%" PRIu32 "\n", c.w[k].blk,
				       c.w[k].owner);
			else
				printf("%" PRIu64 "\t<block not found>\n",
				       c.w[k].blk);
			continue;
		}
		json_begin_object(w, NULL);
		json_u64(w, "block", c.w[k].blk);
		if (c.w[k].owner)
			json_u64(w, "inode", c.w[k].owner);
		else
			json_null(w, "inode");
		json_end_object(w);
	}
	if (ctx->o->json) {
		json_end_array(w);
		json_end_object(w);
	}
out:
	free(c.w);
	return rc;
}

/* ---- imap ---- */

int dump_imap(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct json_writer *w = &ctx->jw;
	uint32_t ino, off;
	uint64_t blk;
	int rc;

	rc = dump_resolve(ctx, path, &ino);
	if (rc)
		return rc;
	rc = extkit_inode_locate(ctx->fs, ino, &blk, &off);
	if (rc) {
		cli_error_rc(path, rc);
		return rc;
	}
	if (!ctx->o->json) {
		printf("Inode %" PRIu32 " is part of block group %" PRIu32
		       "\n\tlocated at block %" PRIu64 ", offset 0x%04" PRIx32
		       "\n", ino, (ino - 1) / ctx->fs->sb.inodes_per_group, blk,
		       off);
		return 0;
	}
	json_begin_object(w, NULL);
	json_u64(w, "inode", ino);
	json_u64(w, "group", (ino - 1) / ctx->fs->sb.inodes_per_group);
	json_u64(w, "block", blk);
	json_u64(w, "offset", off);
	json_end_object(w);
	return 0;
}
