// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump groups: each group descriptor as dumpe2fs prints it (where
 * its superblock copy, descriptors and reserved GDT blocks are, its
 * bitmaps with their checksums, its inode table, counts, flags, and the
 * free block and inode ranges its bitmaps hold), or the same in JSON.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "csum.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"
#include "super.h"

#include "dump.h"
#include "json.h"
#include "names.h"

static const char *const bg_flag_names[] = {
	"INODE_UNINIT", "BLOCK_UNINIT", "ITABLE_ZEROED",
};

/* Where group g keeps metadata other than its bitmaps and table. */
struct group_places {
	int has_sb;		/* a superblock copy, at block sb */
	uint64_t sb;
	uint64_t desc, ndesc;	/* descriptor blocks */
	int meta_desc;		/* the one block of a meta_bg group */
	uint64_t resv, nresv;	/* reserved GDT blocks */
};

/*
 * Without meta_bg, a group with a superblock copy has the whole table and
 * the reserved GDT blocks after it. With meta_bg, the first s_first_meta_bg
 * descriptor blocks stay there; each later one lives in the first, second
 * and last group of its meta group, after any superblock copy.
 */
static void group_places(const struct extkit_fs *fs, uint32_t g,
			 struct group_places *p)
{
	const struct extkit_super *sb = &fs->sb;
	uint64_t first = extkit_group_first_block(sb, g);
	uint32_t per = fs->g.block_size / fs->g.desc_size;
	int has_sb = extkit_super_group_has_backup(sb, g);
	int meta = extkit_has_incompat(sb, EXT2_FEATURE_INCOMPAT_META_BG);
	uint64_t old = meta ? sb->first_meta_bg : fs->g.gdt_blocks;
	uint32_t mg = g / per, idx = g % per;

	*p = (struct group_places){ 0 };
	if (has_sb) {
		p->has_sb = 1;
		p->sb = g ? first : sb->first_data_block;
		p->desc = p->sb + 1;
		p->ndesc = old;
		p->resv = p->desc + old;
		p->nresv = sb->reserved_gdt_blocks;
	}
	if (meta && mg >= sb->first_meta_bg &&
	    (idx == 0 || idx == 1 || idx == per - 1)) {
		p->desc = first + (has_sb ? 1 : 0);
		p->ndesc = 1;
		p->meta_desc = 1;
	}
}

/* Bit i of the group's bitmap (clusters for blocks), -1 when unread. */
struct group_bits {
	uint8_t *map;
	uint64_t nbits;
};

static void read_bits(struct dump_ctx *ctx, uint64_t blk, int uninit,
		      uint64_t nbits, struct group_bits *b)
{
	b->nbits = nbits;
	b->map = calloc(1, ctx->fs->g.block_size);
	if (!b->map)
		return;
	/* An uninitialised bitmap is all free but for the group's own
	 * metadata, which the caller marks. */
	if (!uninit && extkit_fs_read_block(ctx->fs, blk, b->map)) {
		free(b->map);
		b->map = NULL;
	}
}

static void mark_used(struct group_bits *b, uint64_t first, uint64_t blk,
		      uint64_t n, uint32_t ratio)
{
	for (uint64_t x = blk; x < blk + n; x++) {
		uint64_t bit;

		if (x < first)
			continue;
		bit = (x - first) / ratio;
		if (bit < b->nbits)
			b->map[bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
}

/* The free runs of b as "a-b, c, ...": start + bit * ratio, in blocks or
 * inode numbers. to_json: an array of {first, last} objects instead (the
 * one form of a range in the JSON). */
static void put_ranges(struct dump_ctx *ctx, const struct group_bits *b,
		       uint64_t start, uint32_t ratio, const char *key)
{
	int n = 0;

	if (key)
		json_begin_array(&ctx->jw, key);
	for (uint64_t i = 0; b->map && i < b->nbits; i++) {
		uint64_t j = i;

		if (b->map[i / 8] & (1u << (i % 8)))
			continue;
		while (j + 1 < b->nbits && !(b->map[(j + 1) / 8] &
					     (1u << ((j + 1) % 8))))
			j++;
		if (key) {
			json_begin_object(&ctx->jw, NULL);
			json_u64(&ctx->jw, "first", start + i * ratio);
			json_u64(&ctx->jw, "last",
				 start + (j + 1) * ratio - 1);
			json_end_object(&ctx->jw);
		} else {
			printf("%s", n++ ? ", " : "");
			dump_put_blk(ctx, start + i * ratio);
			if (j > i || ratio > 1) {
				putchar('-');
				dump_put_blk(ctx, start + (j + 1) * ratio - 1);
			}
		}
		i = j;
	}
	if (key)
		json_end_array(&ctx->jw);
}

struct group_view {
	const struct extkit_group *gd;
	uint32_t g;
	uint64_t first;		/* first block */
	uint32_t count;		/* blocks */
	uint32_t ratio;		/* blocks per bitmap bit (bigalloc) */
	struct group_places p;
	struct group_bits blocks, inodes;
};

static void view_open(struct dump_ctx *ctx, uint32_t g, struct group_view *v)
{
	const struct extkit_fs *fs = ctx->fs;
	const struct extkit_group *gd = &fs->groups[g];
	uint32_t itb = fs->g.itable_blocks;

	v->gd = gd;
	v->g = g;
	v->first = extkit_group_first_block(&fs->sb, g);
	v->count = extkit_group_block_count(&fs->sb, g);
	v->ratio = 1u << (fs->sb.log_cluster_size > fs->sb.log_block_size &&
			  fs->sb.log_cluster_size - fs->sb.log_block_size < 16
			  ? fs->sb.log_cluster_size - fs->sb.log_block_size
			  : 0);
	group_places(fs, g, &v->p);
	read_bits(ctx, gd->block_bitmap, gd->flags & EXT4_BG_BLOCK_UNINIT,
		  (v->count + v->ratio - 1) / v->ratio, &v->blocks);
	if (v->blocks.map && (gd->flags & EXT4_BG_BLOCK_UNINIT)) {
		mark_used(&v->blocks, v->first, v->p.sb, v->p.has_sb ? 1 : 0,
			  v->ratio);
		mark_used(&v->blocks, v->first, v->p.desc, v->p.ndesc,
			  v->ratio);
		mark_used(&v->blocks, v->first, v->p.resv, v->p.nresv,
			  v->ratio);
		mark_used(&v->blocks, v->first, gd->block_bitmap, 1, v->ratio);
		mark_used(&v->blocks, v->first, gd->inode_bitmap, 1, v->ratio);
		mark_used(&v->blocks, v->first, gd->inode_table, itb,
			  v->ratio);
	}
	read_bits(ctx, gd->inode_bitmap, gd->flags & EXT4_BG_INODE_UNINIT,
		  fs->sb.inodes_per_group, &v->inodes);
}

static void view_close(struct group_view *v)
{
	free(v->blocks.map);
	free(v->inodes.map);
}

uint8_t *dump_group_block_map(struct dump_ctx *ctx, uint32_t g,
			      uint64_t *nbits, uint32_t *ratio)
{
	struct group_view v;

	view_open(ctx, g, &v);
	free(v.inodes.map);
	*nbits = v.blocks.nbits;
	*ratio = v.ratio;
	return v.blocks.map;
}

static void put_range_text(const struct dump_ctx *ctx, const char *what,
			   uint64_t first, uint64_t n)
{
	printf("%s", what);
	dump_put_blk(ctx, first);
	putchar('-');
	dump_put_blk(ctx, first + n - 1);
}

/* Where blk lies relative to its group, as dumpe2fs shows it: "(+N)"
 * inside this group (nothing for a table starting the group), "(bg #G +
 * N)" in another one with flex_bg. */
static void put_rel(const struct dump_ctx *ctx, const struct group_view *v,
		    uint64_t blk, int table)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	uint64_t g;

	if (blk >= v->first && blk < v->first + v->count) {
		if (!(table && blk == v->first))
			printf(" (+%" PRIu64 ")", blk - v->first);
		return;
	}
	if (!extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_FLEX_BG) ||
	    blk < sb->first_data_block || blk >= sb->blocks_count)
		return;
	g = extkit_group_of_block(sb, blk);
	printf(" (bg #%" PRIu64 " + %" PRIu64 ")", g,
	       blk - extkit_group_first_block(sb, (uint32_t)g));
}

static void group_text(struct dump_ctx *ctx, const struct group_view *v)
{
	const struct extkit_fs *fs = ctx->fs;
	const struct extkit_group *gd = v->gd;
	int md = extkit_has_ro_compat(&fs->sb,
				      EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	unsigned int i, n = 0;

	printf("Group %" PRIu32 ": (Blocks ", v->g);
	dump_put_blk(ctx, v->first);
	putchar('-');
	dump_put_blk(ctx, v->first + v->count - 1);
	printf(")");
	if (extkit_has_group_csum(&fs->sb))
		printf(" csum 0x%04x", gd->checksum);
	for (i = 0; i < N_ELEM(bg_flag_names); i++)
		if (gd->flags & (1u << i))
			printf("%s%s", n++ ? ", " : " [", bg_flag_names[i]);
	printf("%s\n", n ? "]" : "");
	if (v->p.has_sb) {
		printf("  %s superblock at ", v->g ? "Backup" : "Primary");
		dump_put_blk(ctx, v->p.sb);
	}
	if (v->p.meta_desc) {
		printf("%sGroup descriptor at ", v->p.has_sb ? ", " : "  ");
		dump_put_blk(ctx, v->p.desc);
	} else if (v->p.ndesc) {
		put_range_text(ctx, ", Group descriptors at ", v->p.desc,
			       v->p.ndesc);
	}
	if (v->p.has_sb || v->p.ndesc)
		putchar('\n');
	if (v->p.nresv) {
		put_range_text(ctx, "  Reserved GDT blocks at ", v->p.resv,
			       v->p.nresv);
		putchar('\n');
	}
	printf("  Block bitmap at ");
	dump_put_blk(ctx, gd->block_bitmap);
	put_rel(ctx, v, gd->block_bitmap, 0);
	if (md)
		printf(", csum 0x%08x", gd->block_bitmap_csum);
	printf("\n  Inode bitmap at ");
	dump_put_blk(ctx, gd->inode_bitmap);
	put_rel(ctx, v, gd->inode_bitmap, 0);
	if (md)
		printf(", csum 0x%08x", gd->inode_bitmap_csum);
	put_range_text(ctx, "\n  Inode table at ", gd->inode_table,
		       fs->g.itable_blocks);
	put_rel(ctx, v, gd->inode_table, 1);
	printf("\n  %" PRIu32 " free blocks, %" PRIu32 " free inodes, %"
	       PRIu32 " directories", gd->free_blocks, gd->free_inodes,
	       gd->used_dirs);
	if (gd->itable_unused)	/* as dumpe2fs: only when there are some */
		printf(", %" PRIu32 " unused inodes", gd->itable_unused);
	putchar('\n');
	printf("  Free blocks: ");
	put_ranges(ctx, &v->blocks, v->first, v->ratio, NULL);
	printf("\n  Free inodes: ");
	put_ranges(ctx, &v->inodes, (uint64_t)v->g * fs->sb.inodes_per_group
		   + 1, 1, NULL);
	putchar('\n');
}

static void json_range(struct json_writer *w, const char *key, uint64_t first,
		       uint64_t n)
{
	json_begin_object(w, key);
	json_u64(w, "first", first);
	json_u64(w, "last", first + n - 1);
	json_end_object(w);
}

static void group_json(struct dump_ctx *ctx, const struct group_view *v)
{
	const struct extkit_group *gd = v->gd;
	struct json_writer *w = &ctx->jw;

	json_begin_object(w, NULL);
	json_u64(w, "group", v->g);
	json_u64(w, "first_block", v->first);
	json_u64(w, "last_block", v->first + v->count - 1);
	json_bool(w, "has_super", v->p.has_sb);
	if (v->p.has_sb)
		json_u64(w, "superblock", v->p.sb);
	if (v->p.ndesc)
		json_range(w, "descriptor_blocks", v->p.desc, v->p.ndesc);
	if (v->p.nresv)
		json_range(w, "reserved_gdt_blocks", v->p.resv, v->p.nresv);
	json_u64(w, "block_bitmap", gd->block_bitmap);
	json_u64(w, "block_bitmap_csum", gd->block_bitmap_csum);
	json_u64(w, "inode_bitmap", gd->inode_bitmap);
	json_u64(w, "inode_bitmap_csum", gd->inode_bitmap_csum);
	json_u64(w, "inode_table", gd->inode_table);
	json_range(w, "inode_table_blocks", gd->inode_table,
		   ctx->fs->g.itable_blocks);
	json_u64(w, "free_blocks_count", gd->free_blocks);
	json_u64(w, "free_inodes_count", gd->free_inodes);
	json_u64(w, "used_dirs_count", gd->used_dirs);
	json_u64(w, "itable_unused", gd->itable_unused);
	json_u64(w, "flags", gd->flags);
	bit_names_json(w, "flag_names", &group_flag_names, gd->flags);
	json_u64(w, "checksum", gd->checksum);
	put_ranges(ctx, &v->blocks, v->first, v->ratio, "free_block_ranges");
	put_ranges(ctx, &v->inodes, (uint64_t)v->g *
		   ctx->fs->sb.inodes_per_group + 1, 1, "free_inode_ranges");
	json_end_object(w);
}

int dump_groups(struct dump_ctx *ctx)
{
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_begin_array(&ctx->jw, "groups");
	}
	for (uint32_t g = 0; g < ctx->fs->g.group_count; g++) {
		struct group_view v;

		view_open(ctx, g, &v);
		if (ctx->o->json)
			group_json(ctx, &v);
		else
			group_text(ctx, &v);
		view_close(&v);
	}
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	}
	return 0;
}
