// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What extkit-mkfs prints on stdout: the layout of the new filesystem, a
 * summary, and with -v every group. (Errors: lib/cli, one line each.)
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include <uuid/uuid.h>

#include "feature.h"
#include "group.h"
#include "cli/msg.h"

#include "mkfs.h"

static void print_features(const struct extkit_super *sb)
{
	const uint32_t masks[3] = {
		[EXTKIT_COMPAT] = sb->feature_compat,
		[EXTKIT_INCOMPAT] = sb->feature_incompat,
		[EXTKIT_RO_COMPAT] = sb->feature_ro_compat,
	};

	fputs("features:          ", stdout);
	for (int k = 0; k < 3; k++)
		for (int b = 0; b < 32; b++)
			if (masks[k] & (1u << b))
				printf(" %s", extkit_feature_name(
					(enum extkit_feature_kind)k, 1u << b));
	putchar('\n');
}

static void print_backups(const struct extkit_fs *fs)
{
	int n = 0;

	fputs("superblock backups:", stdout);
	for (uint32_t g = 1; g < fs->g.group_count; g++) {
		if (!extkit_super_group_has_backup(&fs->sb, g))
			continue;
		if (n++ % 8 == 0)
			fputs(n > 1 ? "\n                   " : "", stdout);
		printf(" %" PRIu64, extkit_group_first_block(&fs->sb, g));
	}
	puts(n ? "" : " none");
}

static void print_ids(const struct mkfs_opts *o, const struct extkit_fs *fs)
{
	char uuid[37], seed[37];

	uuid_unparse(o->uuid, uuid);
	uuid_unparse(o->hash_seed, seed);
	printf("label:              %s\n", o->label[0] ? o->label : "<none>");
	printf("UUID:               %s\n", uuid);
	printf("hash seed:          %s (half_md4, %s)\n", seed,
	       fs->sb.flags & EXT2_FLAGS_UNSIGNED_HASH ? "unsigned" :
							  "signed");
}

static void print_summary(const struct mkfs_opts *o,
			  const struct mkfs_target *t,
			  const struct mkfs_layout *l,
			  const struct extkit_fs *fs)
{
	char name[4200];

	printf("target:             %s (%s, %s)\n",
	       mkfs_target_name(t, name, sizeof(name)),
	       t->is_blockdev ? "block device" : "image file",
	       t->exists ? "exists" : "new");
	printf("size class:         %s\n", l->size_class);
	printf("block size:         %u\n", l->block_size);
	if (l->cluster_bits)
		printf("cluster size:       %u (%u blocks)\n",
		       l->block_size << l->cluster_bits, 1u << l->cluster_bits);
	printf("blocks:             %" PRIu64 " (%" PRIu64 " reserved)\n",
	       l->blocks, l->r_blocks);
	/* The ratio made, not the one asked: groups round the count up,
	 * and -N overrides -i. */
	printf("inodes:             %u of %u bytes (one per %" PRIu64
	       " bytes)\n", fs->sb.inodes_count, l->inode_size,
	       fs->sb.inodes_count ? l->blocks * l->block_size /
				     fs->sb.inodes_count : 0);
	if (l->cluster_bits)
		printf("groups:             %u of %u blocks (%u clusters) and %u inodes\n",
		       l->groups, l->blocks_per_group,
		       l->blocks_per_group >> l->cluster_bits,
		       l->inodes_per_group);
	else
		printf("groups:             %u of %u blocks and %u inodes\n",
		       l->groups, l->blocks_per_group, l->inodes_per_group);
	printf("inode table:        %u blocks per group\n", l->itable_blocks);
	printf("descriptor blocks:  %u (+%u reserved for growth)\n",
	       l->desc_blocks, l->rsv_gdt);
	print_features(&fs->sb);
	if (l->journal_blocks)
		printf("journal:            %u blocks (inode 8)\n",
		       l->journal_blocks + l->fc_blocks);
	print_ids(o, fs);
	print_backups(fs);
	printf("free:               %" PRIu64 " blocks, %u inodes%s\n",
	       fs->sb.free_blocks_count, fs->sb.free_inodes_count,
	       l->journal_blocks ? " (before the journal)" : "");
}

static void print_group(const struct mkfs_layout *l,
			const struct extkit_fs *fs, uint32_t g)
{
	const struct extkit_group *gd = &fs->groups[g];
	uint64_t start = extkit_group_first_block(&fs->sb, g);
	uint64_t end = start + extkit_group_block_count(&fs->sb, g) - 1;

	printf("group %u: blocks %" PRIu64 "-%" PRIu64, g, start, end);
	/* 1 KiB bigalloc: group 0 starts at block 0, the superblock at 1 */
	start += extkit_group_boot_block(&fs->sb, &fs->g, g);
	if (extkit_super_group_has_backup(&fs->sb, g)) {
		printf(", superblock %" PRIu64 ", descriptors %" PRIu64
		       "-%" PRIu64, start, start + 1, start + l->desc_blocks);
		if (l->rsv_gdt)
			printf(", reserved %" PRIu64 "-%" PRIu64,
			       start + 1 + l->desc_blocks,
			       start + l->desc_blocks + l->rsv_gdt);
	}
	printf(", bitmaps %" PRIu64 " %" PRIu64 ", inode table %" PRIu64
	       "-%" PRIu64 ", %u free %s, %u free inodes\n",
	       gd->block_bitmap, gd->inode_bitmap, gd->inode_table,
	       gd->inode_table + l->itable_blocks - 1, gd->free_blocks,
	       l->cluster_bits ? "clusters" : "blocks", gd->free_inodes);
}

void mkfs_report(const struct mkfs_opts *o, const struct mkfs_target *t,
		 const struct mkfs_layout *l, const struct extkit_fs *fs)
{
	if (o->quiet)
		return;
	if (o->verbose)
		cli_version();
	print_summary(o, t, l, fs);
	if (o->verbose)
		for (uint32_t g = 0; g < l->groups; g++)
			print_group(l, fs, g);
	if (o->dry_run)
		puts("dry run: nothing written");
}
