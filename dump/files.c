// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump stat and blocks: the fields of one inode, and the blocks a
 * file maps (with -m its indirect and extent tree blocks too).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bmap.h"
#include "csum.h"
#include "dir.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "symlink.h"
#include "walk.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"
#include "names.h"

/* ---- stat ---- */

static const char *map_kind(const struct extkit_inode *in)
{
	if (in->flags & EXT4_INLINE_DATA_FL)
		return "inline";
	if (extkit_inode_has_block_map(in))
		return in->flags & EXT4_EXTENTS_FL ? "extents" : "indirect";
	if (S_ISLNK(in->mode))
		return "fast_symlink";
	if (S_ISCHR(in->mode) || S_ISBLK(in->mode))
		return "device";
	return "none";
}

enum stat_fmt { FMT_DEC, FMT_OCT, FMT_HEX };

struct stat_num {
	const char *key;
	const char *label;
	uint64_t v;
	enum stat_fmt fmt;
};

static void stat_num_text(const struct stat_num *n)
{
	printf("%s:%*s", n->label, 12 - (int)strlen(n->label), "");
	if (n->fmt == FMT_OCT)
		printf("0%06" PRIo64, n->v);
	else if (n->fmt == FMT_HEX)
		printf("0x%08" PRIx64, n->v);
	else
		printf("%" PRIu64, n->v);
	putchar('\n');
}

/* The time stamps the inode has: text with ctime's form, or JSON. */
static void stat_times(struct dump_ctx *ctx, const uint8_t *raw)
{
	static const struct {
		const char *key;
		enum extkit_inode_time_field which;
	} times[] = {
		{ "atime", EXTKIT_TIME_ATIME }, { "ctime", EXTKIT_TIME_CTIME },
		{ "mtime", EXTKIT_TIME_MTIME }, { "dtime", EXTKIT_TIME_DTIME },
		{ "crtime", EXTKIT_TIME_CRTIME },
	};
	struct extkit_inode_time t;
	unsigned int i;

	for (i = 0; i < N_ELEM(times); i++) {
		if (extkit_inode_time_get(raw, ctx->fs->g.inode_size,
					  times[i].which, &t))
			continue;
		if (ctx->o->json) {
			dump_json_time(&ctx->jw, times[i].key, t.sec, t.nsec,
				       t.has_extra);
			continue;
		}
		printf("%s:%*s%" PRId64, times[i].key,
		       12 - (int)strlen(times[i].key), "", t.sec);
		if (t.has_extra)
			printf(".%09" PRIu32, t.nsec);
		if (t.sec) {
			fputs(" -- ", stdout);
			dump_put_time(t.sec);
		}
		putchar('\n');
	}
}

static void stat_print(struct dump_ctx *ctx, const char *path, uint32_t ino,
		       const struct extkit_inode *in)
{
	const struct stat_num nums[] = {
		{ "mode", "Mode", in->mode, FMT_OCT },
		{ "uid", "User", in->uid, FMT_DEC },
		{ "gid", "Group", in->gid, FMT_DEC },
		{ "size", "Size", in->size, FMT_DEC },
		{ "links_count", "Links", in->links_count, FMT_DEC },
		{ "i_blocks", "Blockcount", in->blocks, FMT_DEC },
		{ "allocated_bytes", "Allocated",
		  extkit_inode_blocks_bytes(ctx->fs, in), FMT_DEC },
		{ "flags", "Flags", in->flags, FMT_HEX },
		{ "generation", "Generation", in->generation, FMT_DEC },
		{ "version", "Version", in->version, FMT_DEC },
		{ "file_acl", "File ACL", in->file_acl, FMT_DEC },
		{ "extra_isize", "Extra isize", in->extra_isize, FMT_DEC },
		{ "projid", "Project", in->projid, FMT_DEC },
	};
	const char *type = ftype_word(extkit_mode_to_ftype(in->mode));
	struct json_writer *w = &ctx->jw;
	char where[DUMP_PATH_MAX];
	unsigned int i;

	if (!ctx->o->json) {
		printf("%-12s %" PRIu32 "\n%-12s %s\n", "Inode:", ino,
		       "Type:", type);
		for (i = 0; i < N_ELEM(nums); i++)
			stat_num_text(&nums[i]);
		printf("%-12s", "Flag names:");
		bit_names_text(&inode_flag_names, in->flags);
		printf("\n%-12s %s\n", "Block map:", map_kind(in));
		return;
	}
	json_u64(w, "inode", ino);
	dump_json_path(w, "path", dump_known_path(ctx, path, ino, where,
						   sizeof(where)));
	json_string(w, "type", type);
	for (i = 0; i < N_ELEM(nums); i++)
		json_u64(w, nums[i].key, nums[i].v);
	bit_names_json(w, "flag_names", &inode_flag_names, in->flags);
	json_string(w, "map_kind", map_kind(in));
}

/* i_block as numbers, or a fast symlink's target as text. */
static void stat_iblock(struct dump_ctx *ctx, const struct extkit_inode *in)
{
	char target[sizeof(in->block) + 1];
	unsigned int i;

	if (!strcmp(map_kind(in), "fast_symlink")) {
		extkit_symlink_iblock_bytes(in, (uint8_t *)target);
		target[sizeof(in->block)] = 0;
		i = (unsigned int)strnlen(target, in->size < sizeof(in->block)
					  ? in->size : sizeof(in->block));
		if (ctx->o->json) {
			json_string_n(&ctx->jw, "fast_link_target", target, i);
			return;
		}
		printf("%-12s ", "Fast link:");
		dump_put_name(target, i);
		putchar('\n');
		return;
	}
	if (ctx->o->json)
		json_begin_array(&ctx->jw, "i_block");
	else
		printf("%-12s", "i_block:");
	for (i = 0; i < EXT2_N_BLOCKS; i++) {
		if (ctx->o->json) {
			json_u64(&ctx->jw, NULL, in->block[i]);
			continue;
		}
		putchar(' ');
		dump_put_blk(ctx, in->block[i]);
	}
	if (ctx->o->json)
		json_end_array(&ctx->jw);
	else
		putchar('\n');
}

/* ---- stat: the block map decoded ---- */

struct map_print {
	struct dump_ctx *ctx;
	int extents;
	int root_depth;		/* eh_depth of the extent root */
	int n;			/* items printed */
	uint64_t lblk, pblk, len;	/* data run waiting to be printed */
	int unwritten;
	uint64_t budget;	/* runs and map blocks still allowed */
};

static const char *const ind_names[] = { "", "IND", "DIND", "TIND" };

static void map_flush(struct map_print *m)
{
	struct dump_ctx *ctx = m->ctx;

	if (!m->len)
		return;
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_u64(&ctx->jw, "lblk", m->lblk);
		json_u64(&ctx->jw, "pblk", m->pblk);
		json_u64(&ctx->jw, "len", m->len);
		json_bool(&ctx->jw, "unwritten", m->unwritten);
		json_end_object(&ctx->jw);
	} else {
		printf("%s(%" PRIu64, m->n++ ? ", " : " ", m->lblk);
		if (m->len > 1)
			printf("-%" PRIu64, m->lblk + m->len - 1);
		printf("%s):", m->unwritten ? "[u]" : "");
		dump_put_blk(ctx, m->pblk);
		if (m->len > 1) {
			putchar('-');
			dump_put_blk(ctx, m->pblk + m->len - 1);
		}
	}
	m->len = 0;
}

/* A map block, as debugfs names it: (IND), (DIND), (TIND), or (ETBn)
 * for an extent tree block named by an entry at level n of the tree. */
static void map_block(struct map_print *m, const struct extkit_walk_ent *e)
{
	struct dump_ctx *ctx = m->ctx;
	char name[16];

	if (m->extents)
		snprintf(name, sizeof(name), "ETB%d",
			 m->root_depth - e->level);
	else
		snprintf(name, sizeof(name), "%s",
			 ind_names[e->level > 0 && e->level < 4 ? e->level : 0]);
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_string(&ctx->jw, "map_block", name);
		json_u64(&ctx->jw, "pblk", e->pblk);
		json_u64(&ctx->jw, "lblk", e->lblk);
		json_end_object(&ctx->jw);
		return;
	}
	printf("%s(%s):", m->n++ ? ", " : " ", name);
	dump_put_blk(ctx, e->pblk);
}

static int map_fn(struct extkit_fs *fs, struct extkit_walk_ent *e, void *arg)
{
	struct map_print *m = arg;
	int unwritten = !!(e->flags & EXTKIT_WALK_UNWRITTEN);

	(void)fs;
	if ((e->flags & EXTKIT_WALK_LEAVE) || e->bad)
		return e->bad ? EXTKIT_WALK_SKIP : 0;
	if (!m->budget--)
		return EXTKIT_WALK_ABORT;
	if (e->flags & EXTKIT_WALK_META) {
		map_flush(m);
		map_block(m, e);
		return 0;
	}
	if (m->len && e->lblk == m->lblk + m->len &&
	    e->pblk == m->pblk + m->len && unwritten == m->unwritten) {
		m->len += e->len;
		return 0;
	}
	map_flush(m);
	m->lblk = e->lblk;
	m->pblk = e->pblk;
	m->len = e->len;
	m->unwritten = unwritten;
	return 0;
}

/*
 * The block map decoded, in debugfs' notation: runs "(lblk-lblk):pblk-pblk"
 * in logical order and the map blocks among them where the walk meets
 * them. JSON: "map" with the extent depth and the items.
 */
static void stat_map(struct dump_ctx *ctx, const struct extkit_inode *in)
{
	struct map_print m = { .ctx = ctx };
	struct extkit_inode copy = *in;
	struct extkit_walk wk = { .flags = EXTKIT_WALK_DRY, .fn = map_fn,
				  .arg = &m };

	if (!extkit_inode_has_block_map(in))
		return;
	m.extents = !!(in->flags & EXT4_EXTENTS_FL);
	m.root_depth = (int)(in->block[1] >> 16);	/* eh_depth */
	m.budget = ctx->fs->sb.blocks_count + 1;
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, "map");
		if (m.extents)
			json_u64(&ctx->jw, "depth", (uint64_t)m.root_depth);
		json_begin_array(&ctx->jw, "items");
	} else {
		printf("%-12s", m.extents ? "Extents:" : "Blocks:");
	}
	if (extkit_walk(ctx->fs, &copy, &wk) < 0 && !ctx->o->json)
		printf("%s(map unreadable)", m.n ? ", " : " ");
	map_flush(&m);
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	} else {
		if (m.extents)
			printf("\n%-12s %d", "Depth:", m.root_depth);
		putchar('\n');
	}
}

/* A device's numbers, and the inode's checksum under metadata_csum:
 * the stored value and whether it matches (debugfs shows the value). */
static void stat_dev_csum(struct dump_ctx *ctx, uint32_t ino,
			  const struct extkit_inode *in, const uint8_t *raw)
{
	unsigned int ft = extkit_mode_to_ftype(in->mode);
	struct json_writer *w = &ctx->jw;
	uint32_t major, minor;
	int ok;

	if (ft == EXT2_FT_CHRDEV || ft == EXT2_FT_BLKDEV) {
		extkit_inode_rdev(in, &major, &minor);
		if (ctx->o->json) {
			json_u64(w, "device_major", major);
			json_u64(w, "device_minor", minor);
		} else {
			printf("%-12s %" PRIu32 ":%" PRIu32 "\n", "Device:",
			       major, minor);
		}
	}
	if (!extkit_has_metadata_csum(&ctx->fs->sb))
		return;
	ok = extkit_inode_csum_verify(ctx->fs, ino, raw);
	if (ctx->o->json) {
		json_u64(w, "checksum", in->checksum);
		json_bool(w, "checksum_valid", ok);
	} else {
		printf("%-12s 0x%08" PRIx32 " (%s)\n", "Checksum:",
		       in->checksum, ok ? "valid" : "does not match");
	}
}

int dump_stat(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct extkit_inode in;
	uint8_t *raw;
	uint32_t ino;
	int rc;

	if (dump_resolve(ctx, path, &ino))
		return -1;
	raw = malloc(ctx->fs->g.inode_size);
	rc = raw ? extkit_inode_read_raw(ctx->fs, ino, raw) : -ENOMEM;
	if (!rc)
		rc = extkit_inode_read(ctx->fs, ino, &in);
	if (rc < 0) {
		cli_error_rc(path, rc);
		free(raw);
		return rc;
	}
	if (ctx->o->json)
		json_begin_object(&ctx->jw, NULL);
	stat_print(ctx, path, ino, &in);
	stat_times(ctx, raw);
	stat_dev_csum(ctx, ino, &in, raw);
	stat_iblock(ctx, &in);
	stat_map(ctx, &in);
	dump_stat_xattrs(ctx, ino, &in);
	if (ctx->o->json)
		json_end_object(&ctx->jw);
	free(raw);
	return 0;
}

/* ---- blocks ---- */

struct blocks_walk {
	struct dump_ctx *ctx;
	uint64_t emitted;
};

static int blocks_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		     uint32_t count, int flags, void *arg)
{
	struct blocks_walk *bw = arg;
	struct dump_ctx *ctx = bw->ctx;
	uint32_t i;

	if ((flags & EXTKIT_BLOCK_META) && !ctx->o->meta)
		return 0;
	/* A file cannot map more blocks than the filesystem holds. */
	if (count > fs->sb.blocks_count - bw->emitted)
		return -EFSCORRUPTED;
	bw->emitted += count;
	for (i = 0; i < count; i++) {
		if (ctx->o->json) {
			json_u64(&ctx->jw, NULL, pblk + i);
			continue;
		}
		dump_put_blk(ctx, pblk + i);
		putchar(' ');
	}
	return 0;
}

/*
 * One line (or object) per path: the data blocks in logical order. With -m
 * the indirect and extent tree blocks come too, each before the blocks it
 * maps: that is what debugfs' "blocks" prints.
 */
static int blocks_one(struct dump_ctx *ctx, const char *path)
{
	struct blocks_walk bw = { .ctx = ctx };
	struct extkit_inode in;
	uint32_t ino;
	int rc;

	rc = extkit_path_resolve(ctx->fs, path, &ino);
	if (!rc)
		rc = extkit_inode_read(ctx->fs, ino, &in);
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_string(&ctx->jw, "path", path);
		json_begin_array(&ctx->jw, "physical_blocks");
	}
	if (!rc)
		rc = extkit_block_walk(ctx->fs, &in, blocks_fn, &bw);
	/* A failed path still gets its (empty or partial) line or object,
	 * so that the output stays aligned with the arguments. */
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		if (rc < 0)
			json_string(&ctx->jw, "error", extkit_strerror(rc));
		json_end_object(&ctx->jw);
	} else {
		putchar('\n');
	}
	if (rc < 0)
		cli_error_rc(path, rc);
	return rc < 0 ? rc : 0;
}

int dump_blocks(struct dump_ctx *ctx)
{
	int i, rc = 0;

	/* JSON: one shape for one path or several, {"files": [...]} */
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_begin_array(&ctx->jw, "files");
	}
	for (i = 0; i < ctx->o->nargs; i++)
		if (blocks_one(ctx, ctx->o->args[i]) < 0)
			rc = -1;
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	}
	return rc;
}
