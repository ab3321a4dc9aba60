// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump frag [PATH]: the free-entry figures of one directory, or of
 * every directory found in the inode tables (totals, and the directories
 * with the most reclaimable blocks). Figures come from dirspace.c; the
 * keys are those of DESIGN.md "Free-entry fragmentation".
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "dircompact.h"
#include "dir.h"
#include "dirspace.h"
#include "error.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "dump.h"
#include "frag.h"
#include "json.h"

#define FRAG_TOP	10

static const char *const hist_keys[EXTKIT_HOLE_BUCKETS] = {
	"12_15", "16_23", "24_31", "32_63", "64_127", "128_255", "256_511",
	"512_1023", "1024_up", "empty_blocks"
};

struct frag_dir {
	uint32_t ino;
	struct extkit_dirspace_stats st;
};

static void stats_add(struct extkit_dirspace_stats *t,
		      const struct extkit_dirspace_stats *s)
{
	unsigned int i;

	t->blocks += s->blocks;
	t->entries += s->entries;
	t->live_bytes += s->live_bytes;
	t->free_bytes += s->free_bytes;
	t->overhead_bytes += s->overhead_bytes;
	t->holes += s->holes;
	if (s->largest_hole > t->largest_hole)
		t->largest_hole = s->largest_hole;
	for (i = 0; i < EXTKIT_HOLE_BUCKETS; i++)
		t->hist[i] += s->hist[i];
	t->small_hole_bytes += s->small_hole_bytes;
	t->blocks_needed += s->blocks_needed;
	t->reclaimable_blocks += s->reclaimable_blocks;
	t->corrupt += s->corrupt;
}

static void json_stats(struct json_writer *w,
		       const struct extkit_dirspace_stats *st)
{
	unsigned int i;

	json_fixed4(w, "free_share", extkit_dirspace_free_share(st));
	json_u64(w, "dir_blocks", st->blocks);
	json_u64(w, "entries", st->entries);
	json_u64(w, "live_bytes", st->live_bytes);
	json_u64(w, "free_bytes", st->free_bytes);
	json_u64(w, "overhead_bytes", st->overhead_bytes);
	json_u64(w, "holes", st->holes);
	json_u64(w, "largest_hole", st->largest_hole);
	json_begin_object(w, "hole_histogram");
	for (i = 0; i < EXTKIT_HOLE_BUCKETS; i++)
		json_u64(w, hist_keys[i], st->hist[i]);
	json_end_object(w);
	json_u64(w, "blocks_needed", st->blocks_needed);
	json_u64(w, "reclaimable_blocks", st->reclaimable_blocks);
	json_fixed4(w, "small_hole_share",
		    extkit_dirspace_small_hole_share(st));
}

static void text_stats(const struct extkit_dirspace_stats *st)
{
	unsigned int i;

	/* What a reader wants first: how empty it is, what -D gives back. */
	printf("  free:               %.1f%% (%" PRIu64 " bytes)\n",
	       100.0 * extkit_dirspace_free_share(st), st->free_bytes);
	printf("  compaction frees:   %" PRIu64 " of %" PRIu64 " blocks\n",
	       st->reclaimable_blocks, st->blocks);
	printf("  blocks:             %" PRIu64 "\n", st->blocks);
	printf("  entries:            %" PRIu64 "\n", st->entries);
	printf("  live bytes:         %" PRIu64 "\n", st->live_bytes);
	printf("  free bytes:         %" PRIu64 "\n", st->free_bytes);
	printf("  overhead bytes:     %" PRIu64 "\n", st->overhead_bytes);
	printf("  holes:              %" PRIu64 "\n", st->holes);
	printf("  largest hole:       %" PRIu32 "\n", st->largest_hole);
	printf("  hole histogram:    ");
	for (i = 0; i < EXTKIT_HOLE_BUCKETS; i++)
		printf(" %s:%" PRIu64, extkit_hole_bucket_label(i),
		       st->hist[i]);
	printf("\n");
	printf("  blocks needed:      %" PRIu64 "\n", st->blocks_needed);
	printf("  reclaimable blocks: %" PRIu64 "\n", st->reclaimable_blocks);
	printf("  small-hole share:   %.4f (free bytes in holes under 24 "
	       "bytes)\n", extkit_dirspace_small_hole_share(st));
	if (st->corrupt)
		printf("  corrupt records:    %" PRIu64 "\n", st->corrupt);
}

static int frag_one(struct dump_ctx *ctx, const char *path)
{
	struct extkit_dirspace_stats st;
	struct extkit_compact_result res;
	char where[DUMP_PATH_MAX];
	uint32_t ino;
	int rc, refused = 0;

	rc = extkit_path_resolve(ctx->fs, path, &ino);
	if (!rc)
		rc = extkit_dirspace_scan(ctx->fs, ino, &st);
	if (rc) {
		cli_error_rc(path, rc);
		return rc;
	}
	/* Blocks to give back that compaction could not: say why. */
	if (st.reclaimable_blocks)
		refused = extkit_dir_compact_check(ctx->fs, ino, &res);
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		dump_json_path(&ctx->jw, "path", dump_known_path(ctx, path,
			       ino, where, sizeof(where)));
		json_u64(&ctx->jw, "inode", ino);
		json_stats(&ctx->jw, &st);
		if (refused)
			json_string(&ctx->jw, "compaction_refused",
				    extkit_strerror(refused));
		json_end_object(&ctx->jw);
		return 0;
	}
	printf("Directory %s (inode %" PRIu32 ")%s\n", path, ino,
	       st.indexed ? ", indexed" : "");
	text_stats(&st);
	if (refused)
		printf("  compaction refused: %s\n", extkit_strerror(refused));
	return 0;
}

/* ---- every directory ---- */

struct frag_walk {
	struct dump_ctx *ctx;
	struct extkit_dirspace_stats total;
	uint64_t dirs;
	uint64_t failed;
	uint32_t lost_found;	/* its empty blocks are a reserve */
	uint64_t lf_reserved;
	struct frag_dir *top;	/* directories with reclaimable blocks */
	uint64_t ntop;
	uint64_t cap;
	uint8_t *bitmap;
	uint8_t *itable;	/* one inode table block */
};

static int frag_note(struct frag_walk *w, uint32_t ino)
{
	struct extkit_dirspace_stats st;
	struct frag_dir *nt;
	char what[32];
	int rc = extkit_dirspace_scan(w->ctx->fs, ino, &st);

	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		snprintf(what, sizeof(what), "<%" PRIu32 ">", ino);
		cli_error_rc(what, rc);
		w->failed++;
		return 0;
	}
	w->dirs++;
	if (ino == w->lost_found) {
		/* kept for fsck's reconnections, as e2fsck -D keeps it */
		w->lf_reserved = st.reclaimable_blocks;
		st.reclaimable_blocks = 0;
		st.blocks_needed = st.blocks;
	}
	stats_add(&w->total, &st);
	if (!st.reclaimable_blocks)
		return 0;
	if (w->ntop == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		nt = realloc(w->top, w->cap * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		w->top = nt;
	}
	w->top[w->ntop].ino = ino;
	w->top[w->ntop++].st = st;
	return 0;
}

static int inode_in_use(const uint8_t *bitmap, uint32_t i)
{
	return (bitmap[i / 8] >> (i % 8)) & 1;
}

/* Scans the used directory inodes of group g. */
static int frag_group(struct frag_walk *w, uint32_t g)
{
	struct extkit_fs *fs = w->ctx->fs;
	const struct extkit_group *gd = &fs->groups[g];
	uint32_t ipg = fs->sb.inodes_per_group, isz = fs->g.inode_size;
	uint32_t bs = fs->g.block_size, used = ipg, i;
	uint64_t loaded = UINT64_MAX, blk;
	struct extkit_inode inode;
	int rc;

	if (gd->flags & EXT4_BG_INODE_UNINIT)
		return 0;
	if (extkit_has_group_csum(&fs->sb) && gd->itable_unused <= ipg)
		used = ipg - gd->itable_unused;
	rc = extkit_fs_read_block(fs, gd->inode_bitmap, w->bitmap);
	for (i = 0; !rc && i < used; i++) {
		if (!inode_in_use(w->bitmap, i))
			continue;
		blk = gd->inode_table + (uint64_t)i * isz / bs;
		if (blk != loaded) {
			rc = extkit_fs_read_block(fs, blk, w->itable);
			loaded = blk;
		}
		if (rc)
			break;
		extkit_inode_decode(w->itable + (uint64_t)i * isz % bs, isz,
				    &inode);
		if (!extkit_inode_is_dir(&inode) || !inode.links_count ||
		    inode.dtime)
			continue;
		rc = frag_note(w, g * ipg + i + 1);
	}
	return rc;
}

static int cmp_reclaim(const void *a, const void *b)
{
	const struct frag_dir *x = a, *y = b;

	if (x->st.reclaimable_blocks != y->st.reclaimable_blocks)
		return x->st.reclaimable_blocks < y->st.reclaimable_blocks ?
		       1 : -1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* A directory's path, or "<N>" (NULL in JSON) when its ancestors do not
 * lead to it. */
static const char *dir_name(struct frag_walk *w, uint32_t ino, char *buf,
			    size_t size)
{
	if (!extkit_dir_path_of(w->ctx->fs, ino, buf, size))
		return buf;
	snprintf(buf, size, "<%" PRIu32 ">", ino);
	return w->ctx->o->json ? NULL : buf;
}

static void frag_all_json(struct frag_walk *w, uint64_t ntop)
{
	struct json_writer *jw = &w->ctx->jw;
	char path[4097];
	uint64_t i;

	json_begin_object(jw, NULL);
	json_u64(jw, "directories", w->dirs);
	json_stats(jw, &w->total);
	json_u64(jw, "lost_found_reserved_blocks", w->lf_reserved);
	json_begin_array(jw, "top_directories");
	for (i = 0; i < ntop; i++) {
		json_begin_object(jw, NULL);
		dump_json_path(jw, "path", dir_name(w, w->top[i].ino, path,
						    sizeof(path)));
		json_u64(jw, "inode", w->top[i].ino);
		json_stats(jw, &w->top[i].st);
		json_end_object(jw);
	}
	json_end_array(jw);
	json_end_object(jw);
}

static void frag_all_text(struct frag_walk *w, uint64_t ntop)
{
	const struct extkit_dirspace_stats *st;
	char path[4097];
	uint64_t i;

	printf("Directories: %" PRIu64 "\n", w->dirs);
	text_stats(&w->total);
	if (w->lf_reserved)
		printf("  lost+found keeps %" PRIu64 " empty blocks for fsck "
		       "(not counted as reclaimable)\n", w->lf_reserved);
	if (!ntop) {
		printf("No directory has reclaimable blocks.\n");
		return;
	}
	printf("Top directories by reclaimable blocks:\n");
	printf("  %10s %10s %10s %10s %7s  %s\n", "blocks", "needed",
	       "reclaim", "entries", "free", "directory");
	for (i = 0; i < ntop; i++) {
		st = &w->top[i].st;
		dir_name(w, w->top[i].ino, path, sizeof(path));
		printf("  %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %6.1f%%  %s\n", st->blocks, st->blocks_needed,
		       st->reclaimable_blocks, st->entries,
		       100.0 * extkit_dirspace_free_share(st), path);
	}
}

static int frag_all(struct dump_ctx *ctx)
{
	struct frag_walk w = { .ctx = ctx };
	uint32_t g;
	int rc = -ENOMEM;

	w.bitmap = malloc(ctx->fs->g.block_size);
	w.itable = malloc(ctx->fs->g.block_size);
	if (!w.bitmap || !w.itable)
		goto out;
	rc = 0;
	if (extkit_dir_lookup(ctx->fs, EXT2_ROOT_INO, "lost+found", 10,
			      &w.lost_found))
		w.lost_found = 0;
	for (g = 0; !rc && g < ctx->fs->g.group_count; g++)
		rc = frag_group(&w, g);
	if (rc) {
		cli_error_rc(ctx->o->target, rc);
		goto out;
	}
	if (w.ntop)
		qsort(w.top, w.ntop, sizeof(*w.top), cmp_reclaim);
	if (ctx->o->json)
		frag_all_json(&w, w.ntop < FRAG_TOP ? w.ntop : FRAG_TOP);
	else
		frag_all_text(&w, w.ntop < FRAG_TOP ? w.ntop : FRAG_TOP);
	if (w.failed)
		rc = -EFSCORRUPTED;
out:
	free(w.top);
	free(w.bitmap);
	free(w.itable);
	return rc;
}

int dump_frag(struct dump_ctx *ctx, const char *path)
{
	if (path)
		return frag_one(ctx, path);
	return frag_all(ctx);
}
