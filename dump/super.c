// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump super: the superblock (as dumpe2fs -h prints it, or every
 * field of the kernel's table in JSON). It runs on images extkit cannot
 * otherwise use. The group descriptors are in groups.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "endian.h"
#include "feature.h"
#include "fs.h"
#include "group.h"
#include "super.h"

#include "dump.h"
#include "json.h"

static void format_uuid(const uint8_t *u, char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4],
		 u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
}

/* ---- super ---- */

static const char *const os_names[] = {
	"Linux", "Hurd", "Masix", "FreeBSD", "Lites",
};

static const char *const hash_names[] = {
	"legacy", "half_md4", "tea", "legacy_unsigned",
	"half_md4_unsigned", "tea_unsigned", "siphash",
};

static const char *const errors_names[] = {
	NULL, "Continue", "Remount read-only", "Panic",
};

/* Calls fn for every feature bit set, in dumpe2fs order; unknown bits get
 * e2fsprogs' FEATURE_<C|I|R><bit> names. */
static void for_each_feature(const struct extkit_super *sb,
			     void (*fn)(const char *name, void *arg),
			     void *arg)
{
	const uint32_t masks[3] = {
		sb->feature_compat, sb->feature_incompat,
		sb->feature_ro_compat,
	};
	static const char kind_char[3] = { 'C', 'I', 'R' };
	const char *name;
	char buf[24];
	int k, b;

	for (k = 0; k < 3; k++) {
		for (b = 0; b < 32; b++) {
			if (!(masks[k] & (1u << b)))
				continue;
			name = extkit_feature_name((enum extkit_feature_kind)k,
						   1u << b);
			if (!name) {
				snprintf(buf, sizeof(buf), "FEATURE_%c%d",
					 kind_char[k], b);
				name = buf;
			}
			fn(name, arg);
		}
	}
}

static void feature_text(const char *name, void *arg)
{
	printf(" %s", name);
}

static void feature_json(const char *name, void *arg)
{
	json_string(arg, NULL, name);
}

#define LINE(label, fmt, ...)	printf("%-26s" fmt "\n", label, __VA_ARGS__)

static void super_text_ident(const struct extkit_super *sb)
{
	char uuid[37];

	LINE("Filesystem volume name:", "%s",
	     sb->volume_name[0] ? sb->volume_name : "<none>");
	LINE("Last mounted on:", "%s",
	     sb->last_mounted[0] ? sb->last_mounted : "<not available>");
	format_uuid(sb->uuid, uuid);
	LINE("Filesystem UUID:", "%s", uuid);
	LINE("Filesystem magic number:", "0x%04X", sb->magic);
	LINE("Filesystem revision #:", "%u (%s)", sb->rev_level,
	     sb->rev_level == EXT2_GOOD_OLD_REV ? "original" :
	     sb->rev_level == EXT2_DYNAMIC_REV ? "dynamic" : "unknown");
	printf("%-25s", "Filesystem features:");
	if (!sb->feature_compat && !sb->feature_incompat &&
	    !sb->feature_ro_compat)
		fputs(" (none)", stdout);
	for_each_feature(sb, feature_text, NULL);
	printf("\n%-25s", "Filesystem flags:");
	if (sb->flags & EXT2_FLAGS_SIGNED_HASH)
		fputs(" signed_directory_hash", stdout);
	if (sb->flags & EXT2_FLAGS_UNSIGNED_HASH)
		fputs(" unsigned_directory_hash", stdout);
	if (sb->flags & EXT2_FLAGS_TEST_FILESYS)
		fputs(" test_filesystem", stdout);
	printf("\n%-25s %s%s\n", "Filesystem state:",
	       sb->state & EXT2_VALID_FS ? "clean" : "not clean",
	       sb->state & EXT2_ERROR_FS ? " with errors" : "");
	LINE("Errors behavior:", "%s", dump_lookup_name(errors_names,
	     N_ELEM(errors_names), sb->errors, "Unknown (continue)"));
	LINE("Filesystem OS type:", "%s", dump_lookup_name(os_names,
	     N_ELEM(os_names), sb->creator_os, "(unknown os)"));
}

static void super_text_geom(const struct dump_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	const struct extkit_geom *g = &ctx->fs->g;

	LINE("Inode count:", "%" PRIu32, sb->inodes_count);
	LINE("Block count:", "%" PRIu64, sb->blocks_count);
	LINE("Reserved block count:", "%" PRIu64, sb->r_blocks_count);
	LINE("Free blocks:", "%" PRIu64, sb->free_blocks_count);
	LINE("Free inodes:", "%" PRIu32, sb->free_inodes_count);
	LINE("First block:", "%" PRIu32, sb->first_data_block);
	LINE("Block size:", "%" PRIu32, g->block_size);
	LINE("Group count:", "%" PRIu32, g->group_count);
	if (sb->feature_compat || sb->feature_incompat)
		LINE("Reserved GDT blocks:", "%u", sb->reserved_gdt_blocks);
	if (extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_BIGALLOC)) {
		LINE("Cluster size:", "%" PRIu64,
		     (uint64_t)g->block_size << g->cluster_bits);
		LINE("Clusters per group:", "%" PRIu32,
		     sb->blocks_per_group >> g->cluster_bits);
	}
	LINE("Blocks per group:", "%" PRIu32, sb->blocks_per_group);
	LINE("Inodes per group:", "%" PRIu32, sb->inodes_per_group);
	LINE("Inode blocks per group:", "%" PRIu32, g->itable_blocks);
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_64BIT))
		LINE("Group descriptor size:", "%" PRIu32, g->desc_size);
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_FLEX_BG))
		LINE("Flex block group size:", "%u",
		     1u << (sb->log_groups_per_flex & 31));
}

static void super_text_times(const struct extkit_super *sb)
{
	printf("%-26s", "Filesystem created:");
	dump_put_time(sb->mkfs_time);
	printf("\n%-26s", "Last mount time:");
	dump_put_time(sb->mtime);
	printf("\n%-26s", "Last write time:");
	dump_put_time(sb->wtime);
	printf("\n");
	LINE("Mount count:", "%u", sb->mnt_count);
	LINE("Maximum mount count:", "%d", (int16_t)sb->max_mnt_count);
	printf("%-26s", "Last checked:");
	dump_put_time(sb->lastcheck);
	printf("\n");
	LINE("Check interval:", "%" PRIu32, sb->checkinterval);
	LINE("Reserved blocks uid:", "%u", sb->def_resuid);
	LINE("Reserved blocks gid:", "%u", sb->def_resgid);
}

/* The fields of the features that have some (dumpe2fs' names). */
static void super_text_features(const struct extkit_super *sb)
{
	static const char *const quota_names[] = {
		"User quota inode:", "Group quota inode:",
		"Project quota inode:",
	};

	if (extkit_has_compat(sb, EXT4_FEATURE_COMPAT_SPARSE_SUPER2))
		LINE("Backup block groups:", "%" PRIu32 " %" PRIu32,
		     sb->backup_bgs[0], sb->backup_bgs[1]);
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_MMP)) {
		LINE("MMP block number:", "%" PRIu64, sb->mmp_block);
		LINE("MMP update interval:", "%u", sb->mmp_interval);
	}
	for (int i = 0; i < 3; i++)
		if (sb->quota_inum[i])
			LINE(quota_names[i], "%" PRIu32, sb->quota_inum[i]);
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		LINE("Checksum seed:", "0x%08" PRIx32, sb->checksum_seed);
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_CASEFOLD))
		LINE("Character encoding:", "%s%s",
		     sb->encoding == 1 ? "utf8-12.1" : "unknown",
		     sb->encoding_flags & 1 ? " (strict)" : "");
	if (sb->orphan_file_inum)
		LINE("Orphan file inode:", "%" PRIu32, sb->orphan_file_inum);
}

static void super_text_misc(const struct dump_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	uint8_t seed[16];
	char uuid[37];
	int i;

	LINE("First inode:", "%" PRIu32, ctx->fs->g.first_ino);
	LINE("Inode size:", "%" PRIu32, ctx->fs->g.inode_size);
	if (ctx->fs->g.inode_size > EXT2_GOOD_OLD_INODE_SIZE) {
		LINE("Required extra isize:", "%u", sb->min_extra_isize);
		LINE("Desired extra isize:", "%u", sb->want_extra_isize);
	}
	if (sb->journal_inum)
		LINE("Journal inode:", "%" PRIu32, sb->journal_inum);
	if (sb->last_orphan)
		LINE("First orphan inode:", "%" PRIu32, sb->last_orphan);
	LINE("Default directory hash:", "%s", dump_lookup_name(hash_names,
	     N_ELEM(hash_names), sb->def_hash_version, "unknown"));
	for (i = 0; i < 4; i++)
		put_le32(seed + 4 * i, sb->hash_seed[i]);
	format_uuid(seed, uuid);
	LINE("Directory Hash Seed:", "%s", uuid);
	super_text_features(sb);
	if (extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		LINE("Checksum type:", "%s",
		     sb->checksum_type == 1 ? "crc32c" : "unknown");
		LINE("Checksum:", "0x%08" PRIx32, sb->checksum);
	}
}

/* Derived keys: a table field of the same name is left out for them. */
static const char *const derived_keys[] = {
	"block_size", "group_count", "inode_size", "features",
};

static int is_derived_key(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_ELEM(derived_keys); i++)
		if (!strcmp(name, derived_keys[i]))
			return 1;
	return 0;
}

static void super_json_field(struct dump_ctx *ctx,
			     const struct extkit_super_field *f)
{
	const uint8_t *raw = (const uint8_t *)&ctx->fs->raw_sb + f->offset;
	struct json_writer *w = &ctx->jw;
	char uuid[37];
	unsigned int i;

	switch (f->kind) {
	case EXTKIT_FIELD_NUM:
	case EXTKIT_FIELD_NUM_HI:
		json_u64(w, f->name, extkit_super_field_value(&ctx->fs->raw_sb,
			 f, extkit_has_incompat(&ctx->fs->sb,
						EXT4_FEATURE_INCOMPAT_64BIT)));
		break;
	case EXTKIT_FIELD_UUID:
		format_uuid(raw, uuid);
		json_string(w, f->name, uuid);
		break;
	case EXTKIT_FIELD_STRING:
		json_string_n(w, f->name, raw, strnlen((const char *)raw,
							f->count));
		break;
	case EXTKIT_FIELD_ARRAY32:
	case EXTKIT_FIELD_ARRAY8:
		json_begin_array(w, f->name);
		for (i = 0; i < f->count; i++)
			json_u64(w, NULL, f->kind == EXTKIT_FIELD_ARRAY8 ?
				 raw[i] : get_le32(raw + 4 * i));
		json_end_array(w);
		break;
	default:
		json_null(w, f->name);
	}
}

int dump_super(struct dump_ctx *ctx)
{
	struct json_writer *w = &ctx->jw;
	unsigned int i;

	if (!ctx->o->json) {
		super_text_ident(&ctx->fs->sb);
		super_text_geom(ctx);
		super_text_times(&ctx->fs->sb);
		super_text_misc(ctx);
		return 0;
	}
	json_begin_object(w, NULL);
	for (i = 0; i < extkit_super_field_count; i++)
		if (!is_derived_key(extkit_super_fields[i].name))
			super_json_field(ctx, &extkit_super_fields[i]);
	json_u64(w, "block_size", ctx->fs->g.block_size);
	json_u64(w, "group_count", ctx->fs->g.group_count);
	json_u64(w, "inode_size", ctx->fs->g.inode_size);
	json_begin_array(w, "features");
	for_each_feature(&ctx->fs->sb, feature_json, w);
	json_end_array(w);
	json_end_object(w);
	return 0;
}
