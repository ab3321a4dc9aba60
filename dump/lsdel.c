// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump lsdel: deleted inodes that still map blocks the bitmaps
 * call free (what could be recovered), as debugfs' lsdel lists them:
 * an inode with a deletion time whose block map (data and map blocks)
 * names at least one free block and nothing outside the filesystem, or
 * one with inline data; sorted by deletion time.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bmap.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"

struct deleted {
	uint32_t ino, uid;
	uint16_t mode;
	uint64_t size;
	int32_t dtime;
	uint64_t free_blocks, blocks;
};

struct lsdel {
	struct dump_ctx *ctx;
	uint8_t **maps;		/* block bitmaps by group, read on demand */
	uint32_t *ratios;
	uint64_t *nbits;
	struct deleted cur;
	int bad;
};

/* 1 if block blk is in use by its group's bitmap (or unreadable). */
static int block_used(struct lsdel *l, uint64_t blk)
{
	const struct extkit_super *sb = &l->ctx->fs->sb;
	uint32_t g = extkit_group_of_block(sb, blk);
	uint64_t bit;

	if (!l->maps[g]) {
		l->maps[g] = dump_group_block_map(l->ctx, g, &l->nbits[g],
						  &l->ratios[g]);
		if (!l->maps[g])
			return 1;
	}
	bit = extkit_group_block_index(sb, blk) / l->ratios[g];
	return bit >= l->nbits[g] || (l->maps[g][bit / 8] >> (bit % 8) & 1);
}

static int count_fn(struct extkit_fs *fs, uint64_t lblk, uint64_t pblk,
		    uint32_t count, int flags, void *arg)
{
	struct lsdel *l = arg;

	(void)lblk;
	(void)flags;
	for (uint32_t i = 0; i < count; i++) {
		l->cur.blocks++;
		if (pblk + i < fs->sb.first_data_block ||
		    pblk + i >= fs->sb.blocks_count) {
			l->bad = 1;
			return 1;
		}
		if (!block_used(l, pblk + i))
			l->cur.free_blocks++;
	}
	return 0;
}

/* Whether inode ino is a deleted inode to list; fills l->cur. */
static int is_listed(struct lsdel *l, uint32_t ino,
		     const struct extkit_inode *in)
{
	int rc = 0;

	if (!in->dtime)
		return 0;
	l->cur = (struct deleted){ .ino = ino, .uid = in->uid,
				   .mode = in->mode, .size = in->size,
				   .dtime = (int32_t)in->dtime };
	l->bad = 0;
	if (extkit_inode_has_block_map(in))
		rc = extkit_block_walk(l->ctx->fs, in, count_fn, l);
	if (rc < 0)
		return 0;
	return (l->cur.free_blocks && !l->bad) ||
	       (in->flags & EXT4_INLINE_DATA_FL);
}

static int by_dtime(const void *a, const void *b)
{
	const struct deleted *x = a, *y = b;

	return (x->dtime > y->dtime) - (x->dtime < y->dtime);
}

static void print(struct dump_ctx *ctx, const struct deleted *d, size_t n)
{
	struct json_writer *w = &ctx->jw;

	if (ctx->o->json) {
		json_begin_object(w, NULL);
		json_begin_array(w, "deleted");
	} else {
		printf(" Inode  Owner  Mode    Size      Blocks   Time "
		       "deleted\n");
	}
	for (size_t i = 0; i < n; i++) {
		if (!ctx->o->json) {
			printf("%6" PRIu32 " %6" PRIu32 " %6o %6" PRIu64
			       " %6" PRIu64 "/%6" PRIu64 " ", d[i].ino,
			       d[i].uid, d[i].mode, d[i].size,
			       d[i].free_blocks, d[i].blocks);
			dump_put_time(d[i].dtime);
			putchar('\n');
			continue;
		}
		json_begin_object(w, NULL);
		json_u64(w, "inode", d[i].ino);
		json_u64(w, "uid", d[i].uid);
		json_u64(w, "mode", d[i].mode);
		json_u64(w, "size", d[i].size);
		json_u64(w, "free_blocks", d[i].free_blocks);
		json_u64(w, "blocks", d[i].blocks);
		dump_json_time(w, "dtime", d[i].dtime, 0, 0);
		json_end_object(w);
	}
	if (ctx->o->json) {
		json_end_array(w);
		json_end_object(w);
	} else {
		printf("%zu deleted inodes found.\n", n);
	}
}

int dump_lsdel(struct dump_ctx *ctx)
{
	uint32_t ng = ctx->fs->g.group_count;
	uint32_t ipg = ctx->fs->sb.inodes_per_group;
	struct lsdel l = { .ctx = ctx };
	struct deleted *d = NULL, *nd;
	size_t n = 0, cap = 0;
	int rc = 0;

	l.maps = calloc(ng, sizeof(*l.maps));
	l.ratios = calloc(ng, sizeof(*l.ratios));
	l.nbits = calloc(ng, sizeof(*l.nbits));
	if (!l.maps || !l.ratios || !l.nbits)
		rc = -ENOMEM;
	for (uint32_t g = 0; !rc && g < ng; g++) {
		/* an uninitialised inode table holds no inode, as debugfs */
		if (ctx->fs->groups[g].flags & EXT4_BG_INODE_UNINIT)
			continue;
		for (uint32_t i = 0; !rc && i < ipg; i++) {
			uint32_t ino = g * ipg + i + 1;
			struct extkit_inode in;

			if (extkit_inode_read(ctx->fs, ino, &in) ||
			    !is_listed(&l, ino, &in))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				nd = realloc(d, cap * sizeof(*d));
				if (!nd) {
					rc = -ENOMEM;
					break;
				}
				d = nd;
			}
			d[n++] = l.cur;
		}
	}
	if (!rc) {
		if (n)
			qsort(d, n, sizeof(*d), by_dtime);
		print(ctx, d, n);
	} else {
		cli_error("%s: %s", ctx->o->target, extkit_strerror(rc));
	}
	for (uint32_t g = 0; l.maps && g < ng; g++)
		free(l.maps[g]);
	free(l.maps);
	free(l.ratios);
	free(l.nbits);
	free(d);
	return rc;
}
