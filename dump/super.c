// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump super: the superblock, as dumpe2fs -h prints it (line for
 * line, the journal's lines from journal.c last), or in JSON every field
 * of the kernel's table under its name, lo/hi halves combined, with the
 * names of flags and codes and ISO 8601 times beside the numbers. It runs
 * on images extkit cannot otherwise use. The group descriptors are in
 * groups.c.
 */
#include "config.h"

#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "endian.h"
#include "feature.h"
#include "casefold.h"
#include "fs.h"
#include "group.h"
#include "mmp.h"
#include "super.h"

#include "dump.h"
#include "json.h"
#include "names.h"

/* ---- fields by their kernel name (lib/super_fields.c) ---- */

static const struct extkit_super_field *field(const char *name)
{
	for (unsigned int i = 0; i < extkit_super_field_count; i++)
		if (!strcmp(extkit_super_fields[i].name, name))
			return &extkit_super_fields[i];
	return NULL;
}

static const uint8_t *field_raw(const struct dump_ctx *ctx, const char *name)
{
	return (const uint8_t *)&ctx->fs->raw_sb + field(name)->offset;
}

static uint64_t num(const struct dump_ctx *ctx, const char *name)
{
	return extkit_super_field_value(&ctx->fs->raw_sb, field(name),
		extkit_has_incompat(&ctx->fs->sb,
				    EXT4_FEATURE_INCOMPAT_64BIT));
}

/* The time fields: 32 bits, and 8 more in the field named NAME_hi. */
static const char *const time_keys[] = {
	"mtime", "wtime", "lastcheck", "mkfs_time", "first_error_time",
	"last_error_time",
};

static int is_time_key(const char *name, size_t len)
{
	for (unsigned int i = 0; i < N_ELEM(time_keys); i++)
		if (strlen(time_keys[i]) == len &&
		    !strncmp(time_keys[i], name, len))
			return 1;
	return 0;
}

static int64_t time_of(const struct dump_ctx *ctx, const char *name)
{
	char hi[32];

	snprintf(hi, sizeof(hi), "%s_hi", name);
	return (int64_t)(num(ctx, name) | num(ctx, hi) << 32);
}

static int is_null_uuid(const uint8_t *u)
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return 0;
	return 1;
}

/* ---- text, in dumpe2fs -h's order ---- */

#define LINE(label, fmt, ...)	printf("%-26s" fmt "\n", label, __VA_ARGS__)

static void put_feature(const char *name, void *arg)
{
	if (arg)
		json_string(arg, NULL, name);
	else
		printf(" %s", name);
}

static void each_feature(const struct extkit_super *sb, void *arg);

static void super_text_ident(const struct dump_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	char uuid[37];

	LINE("Filesystem volume name:", "%s",
	     sb->volume_name[0] ? sb->volume_name : "<none>");
	LINE("Last mounted on:", "%s",
	     sb->last_mounted[0] ? sb->last_mounted : "<not available>");
	/* raw fields: a revision 0 superblock may still hold them */
	dump_format_uuid(field_raw(ctx, "uuid"), uuid);
	LINE("Filesystem UUID:", "%s", uuid);
	LINE("Filesystem magic number:", "0x%04X", sb->magic);
	LINE("Filesystem revision #:", "%u (%s)", sb->rev_level,
	     sb->rev_level == EXT2_GOOD_OLD_REV ? "original" :
	     sb->rev_level == EXT2_DYNAMIC_REV ? "dynamic" : "unknown");
	printf("%-25s", "Filesystem features:");
	if (!sb->feature_compat && !sb->feature_incompat &&
	    !sb->feature_ro_compat)
		fputs(" (none)", stdout);
	each_feature(sb, NULL);
	if (num(ctx, "flags")) {
		printf("\n%-25s", "Filesystem flags:");
		bit_names_text(&super_flag_names, (uint32_t)num(ctx, "flags"));
	}
	printf("\n%-25s", "Default mount options:");
	bit_names_text(&mount_opt_names, sb->default_mount_opts);
	printf("\n%-25s %s%s\n", "Filesystem state:",
	       sb->state & EXT2_VALID_FS ? "clean" : "not clean",
	       sb->state & EXT2_ERROR_FS ? " with errors" : "");
	LINE("Errors behavior:", "%s",
	     sb->errors == 1 ? "Continue" : sb->errors == 2 ?
	     "Remount read-only" : sb->errors == 3 ? "Panic" :
	     "Unknown (continue)");
	LINE("Filesystem OS type:", "%s", os_word(sb->creator_os));
}

static void super_text_geom(const struct dump_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	const struct extkit_geom *g = &ctx->fs->g;
	int big = extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_BIGALLOC);

	LINE("Inode count:", "%" PRIu32, sb->inodes_count);
	LINE("Block count:", "%" PRIu64, sb->blocks_count);
	LINE("Reserved block count:", "%" PRIu64, sb->r_blocks_count);
	if (num(ctx, "overhead_clusters"))
		LINE("Overhead clusters:", "%" PRIu64,
		     num(ctx, "overhead_clusters"));
	LINE("Free blocks:", "%" PRIu64, sb->free_blocks_count);
	LINE("Free inodes:", "%" PRIu32, sb->free_inodes_count);
	LINE("First block:", "%" PRIu32, sb->first_data_block);
	LINE("Block size:", "%" PRIu32, g->block_size);
	LINE(big ? "Cluster size:" : "Fragment size:", "%" PRIu64,
	     (uint64_t)1024 << (sb->log_cluster_size & 31));
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_64BIT))
		LINE("Group descriptor size:", "%u", sb->desc_size);
	if (sb->reserved_gdt_blocks)
		LINE("Reserved GDT blocks:", "%u", sb->reserved_gdt_blocks);
	LINE("Blocks per group:", "%" PRIu32, sb->blocks_per_group);
	LINE(big ? "Clusters per group:" : "Fragments per group:", "%" PRIu32,
	     sb->clusters_per_group);
	LINE("Inodes per group:", "%" PRIu32, sb->inodes_per_group);
	LINE("Inode blocks per group:", "%" PRIu32, g->itable_blocks);
	if (num(ctx, "raid_stride"))
		LINE("RAID stride:", "%" PRIu64, num(ctx, "raid_stride"));
	if (num(ctx, "raid_stripe_width"))
		LINE("RAID stripe width:", "%" PRIu64,
		     num(ctx, "raid_stripe_width"));
	if (sb->first_meta_bg)
		LINE("First meta block group:", "%" PRIu32, sb->first_meta_bg);
	if (sb->log_groups_per_flex)
		LINE("Flex block group size:", "%u",
		     1u << (sb->log_groups_per_flex & 31));
}

static void put_time_line(const char *label, int64_t t)
{
	printf("%-26s", label);
	dump_put_time(t);
	putchar('\n');
}

/* A check interval in words, as dumpe2fs: "2 months, 1 week, 3:00:00". */
static void put_interval(uint32_t secs)
{
	static const struct { uint32_t s; const char *unit; } units[] = {
		{ 86400 * 30, "month" }, { 86400 * 7, "week" },
		{ 86400, "day" },
	};
	int n = 0;

	if (!secs) {
		fputs("<none>", stdout);
		return;
	}
	for (unsigned int i = 0; i < N_ELEM(units); i++) {
		uint32_t k = secs / units[i].s;

		if (!k)
			continue;
		secs -= k * units[i].s;
		printf("%s%u %s%s", n++ ? ", " : "", k, units[i].unit,
		       k > 1 ? "s" : "");
	}
	if (secs)
		printf("%s%u:%02u:%02u", n ? ", " : "", secs / 3600,
		       secs / 60 % 60, secs % 60);
}

/* s_kbytes_written rounded to the largest unit below 8192 of it. */
static void put_kbytes(uint64_t kb)
{
	static const char *const units[] = { "kB", "MB", "GB", "TB", "PB" };
	unsigned int u = 0;

	while (u < 4 && kb >= (uint64_t)1 << (13 + 10 * u))
		u++;
	printf("%" PRIu64 " %s\n", u ? (kb + ((uint64_t)1 << (10 * u - 1)))
	       >> (10 * u) : kb, units[u]);
}

static void put_owner(const char *label, unsigned int id, int group)
{
	const struct passwd *pw = group ? NULL : getpwuid(id);
	const struct group *gr = group ? getgrgid(id) : NULL;
	const char *name = group ? (gr ? gr->gr_name : NULL) :
				   (pw ? pw->pw_name : NULL);

	LINE(label, "%u (%s %s)", id, group ? "group" : "user",
	     name ? name : "unknown");
}

static void super_text_times(const struct dump_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;

	if (num(ctx, "mkfs_time"))
		put_time_line("Filesystem created:", time_of(ctx, "mkfs_time"));
	printf("%-26s", "Last mount time:");
	if (time_of(ctx, "mtime"))
		dump_put_time(time_of(ctx, "mtime"));
	else
		fputs("n/a", stdout);
	putchar('\n');
	put_time_line("Last write time:", time_of(ctx, "wtime"));
	LINE("Mount count:", "%u", sb->mnt_count);
	LINE("Maximum mount count:", "%d", (int16_t)sb->max_mnt_count);
	put_time_line("Last checked:", time_of(ctx, "lastcheck"));
	printf("%-26s%" PRIu32 " (", "Check interval:", sb->checkinterval);
	put_interval(sb->checkinterval);
	printf(")\n");
	if (sb->checkinterval)
		put_time_line("Next check after:", time_of(ctx, "lastcheck") +
			      sb->checkinterval);
	if (num(ctx, "kbytes_written")) {
		printf("%-26s", "Lifetime writes:");
		put_kbytes(num(ctx, "kbytes_written"));
	}
	put_owner("Reserved blocks uid:", sb->def_resuid, 0);
	put_owner("Reserved blocks gid:", sb->def_resgid, 1);
}

static void super_text_inodes(const struct dump_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	char uuid[37];

	if (sb->rev_level >= EXT2_DYNAMIC_REV) {
		LINE("First inode:", "%" PRIu32, sb->first_ino);
		LINE("Inode size:", "%u", sb->inode_size);
		if (sb->min_extra_isize)
			LINE("Required extra isize:", "%u",
			     sb->min_extra_isize);
		if (sb->want_extra_isize)
			LINE("Desired extra isize:", "%u",
			     sb->want_extra_isize);
	}
	if (!is_null_uuid(field_raw(ctx, "journal_uuid"))) {
		dump_format_uuid(field_raw(ctx, "journal_uuid"), uuid);
		LINE("Journal UUID:", "%s", uuid);
	}
	if (sb->journal_inum)
		LINE("Journal inode:", "%" PRIu32, sb->journal_inum);
	if (num(ctx, "journal_dev"))
		LINE("Journal device:", "0x%04" PRIx64,
		     num(ctx, "journal_dev"));
	if (sb->last_orphan)
		LINE("First orphan inode:", "%" PRIu32, sb->last_orphan);
	if (extkit_has_compat(sb, EXT2_FEATURE_COMPAT_DIR_INDEX) ||
	    num(ctx, "def_hash_version"))
		LINE("Default directory hash:", "%s",
		     hash_word((unsigned int)num(ctx, "def_hash_version")));
	if (!is_null_uuid(field_raw(ctx, "hash_seed"))) {
		dump_format_uuid(field_raw(ctx, "hash_seed"), uuid);
		LINE("Directory Hash Seed:", "%s", uuid);
	}
	if (num(ctx, "jnl_backup_type") == 1)
		LINE("Journal backup:", "%s", "inode blocks");
	else if (num(ctx, "jnl_backup_type"))
		LINE("Journal backup:", "type %" PRIu64,
		     num(ctx, "jnl_backup_type"));
}

/*
 * s_encoding as dumpe2fs names it (e2p_encoding2str); dumpe2fs shows no
 * s_encoding_flags, so the text does not either (the JSON document has
 * both fields, raw).
 */
static void super_text_encoding(const struct dump_ctx *ctx,
				const struct extkit_super *sb)
{
	if (sb->encoding == EXTKIT_ENC_UTF8_12_1)
		LINE("Character encoding:", "%s", "utf8-12.1");
	else
		LINE("Character encoding:", "UNKNOWN_ENCODING_%u",
		     sb->encoding);
}

/* "First error ..." or "Last error ...", when that time is set. */
static void super_text_error(const struct dump_ctx *ctx, const char *which,
			     const char *Which)
{
	char key[40], label[40];

	snprintf(key, sizeof(key), "%s_error_time", which);
	if (!num(ctx, key))
		return;
	snprintf(label, sizeof(label), "%s error time:", Which);
	put_time_line(label, time_of(ctx, key));
	snprintf(key, sizeof(key), "%s_error_func", which);
	snprintf(label, sizeof(label), "%s error function:", Which);
	LINE(label, "%.32s", (const char *)field_raw(ctx, key));
	snprintf(key, sizeof(key), "%s_error_line", which);
	snprintf(label, sizeof(label), "%s error line #:", Which);
	LINE(label, "%" PRIu64, num(ctx, key));
	snprintf(key, sizeof(key), "%s_error_ino", which);
	snprintf(label, sizeof(label), "%s error inode #:", Which);
	LINE(label, "%" PRIu64, num(ctx, key));
	snprintf(key, sizeof(key), "%s_error_block", which);
	snprintf(label, sizeof(label), "%s error block #:", Which);
	LINE(label, "%" PRIu64, num(ctx, key));
	snprintf(key, sizeof(key), "%s_error_errcode", which);
	snprintf(label, sizeof(label), "%s error err:", Which);
	if (num(ctx, key))
		LINE(label, "%" PRIu64, num(ctx, key));
}

static void super_text_features(const struct dump_ctx *ctx)
{
	static const char *const quota_labels[] = {
		"User quota inode:", "Group quota inode:",
		"Project quota inode:",
	};
	const struct extkit_super *sb = &ctx->fs->sb;

	if (extkit_has_compat(sb, EXT4_FEATURE_COMPAT_SPARSE_SUPER2))
		LINE("Backup block groups:", "%" PRIu32 " %" PRIu32,
		     sb->backup_bgs[0], sb->backup_bgs[1]);
	if (num(ctx, "error_count"))
		LINE("FS Error count:", "%" PRIu64, num(ctx, "error_count"));
	super_text_error(ctx, "first", "First");
	super_text_error(ctx, "last", "Last");
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_MMP)) {
		LINE("MMP block number:", "%" PRIu64, sb->mmp_block);
		LINE("MMP update interval:", "%u", sb->mmp_interval);
	}
	for (int i = 0; i < 3; i++)
		if (sb->quota_inum[i])
			LINE(quota_labels[i], "%" PRIu32, sb->quota_inum[i]);
	if (extkit_has_ro_compat(sb, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		LINE("Checksum type:", "%s",
		     sb->checksum_type == 1 ? "crc32c" : "unknown");
		LINE("Checksum:", "0x%08" PRIx32, sb->checksum);
	}
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		LINE("Checksum seed:", "0x%08" PRIx32, sb->checksum_seed);
	if (extkit_has_incompat(sb, EXT4_FEATURE_INCOMPAT_CASEFOLD))
		super_text_encoding(ctx, sb);
	if (extkit_has_compat(sb, EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		LINE("Orphan file inode:", "%" PRIu32, sb->orphan_file_inum);
}

/* The MMP block, as dumpe2fs -h shows it after the journal; JSON: "mmp",
 * null without the feature or when the block is not an MMP block. */
static void super_mmp(struct dump_ctx *ctx)
{
	struct json_writer *w = &ctx->jw;
	struct extkit_mmp m;
	int have = extkit_has_incompat(&ctx->fs->sb,
				       EXT4_FEATURE_INCOMPAT_MMP) &&
		   !extkit_mmp_read(ctx->fs, &m);

	if (ctx->o->json && !have) {
		json_null(w, "mmp");
	} else if (ctx->o->json) {
		json_begin_object(w, "mmp");
		json_u64(w, "magic", m.magic);
		json_u64(w, "seq", m.seq);
		dump_json_time(w, "time", (int64_t)m.time, 0, 0);
		json_string(w, "nodename", m.nodename);
		json_string(w, "bdevname", m.bdevname);
		json_u64(w, "check_interval", m.check_interval);
		json_end_object(w);
	} else if (have) {
		printf("MMP_block:\n    mmp_magic: 0x%" PRIx32 "\n"
		       "    mmp_check_interval: %u\n"
		       "    mmp_sequence: %#08" PRIx32 "\n"
		       "    mmp_update_date: ", m.magic, m.check_interval,
		       m.seq);
		dump_put_time((int64_t)m.time);
		printf("\n    mmp_update_time: %" PRIu64 "\n"
		       "    mmp_node_name: %s\n    mmp_device_name: %s\n",
		       m.time, m.nodename, m.bdevname);
	}
}

/* ---- JSON ---- */

/* Keys the loop below leaves out: derived ones written after it, and
 * the high halves of the times (combined into the time). */
static int is_skipped_key(const char *name)
{
	static const char *const derived[] = {
		"inode_size", "hash_seed",
	};
	size_t len = strlen(name);

	for (unsigned int i = 0; i < N_ELEM(derived); i++)
		if (!strcmp(name, derived[i]))
			return 1;
	return len > 3 && !strcmp(name + len - 3, "_hi") &&
	       is_time_key(name, len - 3);
}

static void super_json_field(struct dump_ctx *ctx,
			     const struct extkit_super_field *f)
{
	const uint8_t *raw = field_raw(ctx, f->name);
	struct json_writer *w = &ctx->jw;
	char uuid[37];
	unsigned int i;

	if (is_time_key(f->name, strlen(f->name))) {
		dump_json_time(w, f->name, time_of(ctx, f->name), 0, 0);
		return;
	}
	switch (f->kind) {
	case EXTKIT_FIELD_NUM:
	case EXTKIT_FIELD_NUM_HI:
		/* signed on disk: -1 (65535) is "no limit", as the text */
		if (!strcmp(f->name, "max_mnt_count"))
			json_i64(w, f->name, (int16_t)num(ctx, f->name));
		else
			json_u64(w, f->name, num(ctx, f->name));
		break;
	case EXTKIT_FIELD_UUID:
		dump_format_uuid(raw, uuid);
		json_string(w, f->name, uuid);
		break;
	case EXTKIT_FIELD_STRING:
		json_string_n(w, f->name, raw, strnlen((const char *)raw,
							f->count));
		break;
	default:	/* ARRAY32, ARRAY8 */
		json_begin_array(w, f->name);
		for (i = 0; i < f->count; i++)
			json_u64(w, NULL, extkit_super_field_element(
					 &ctx->fs->raw_sb, f, i));
		json_end_array(w);
	}
}

static void feature_names_json(struct json_writer *w, const char *key,
			       enum extkit_feature_kind kind, uint32_t mask)
{
	json_begin_array(w, key);
	feature_names_each(kind, mask, put_feature, w);
	json_end_array(w);
}

static void each_feature(const struct extkit_super *sb, void *arg)
{
	feature_names_each(EXTKIT_COMPAT, sb->feature_compat, put_feature,
			   arg);
	feature_names_each(EXTKIT_INCOMPAT, sb->feature_incompat,
			   put_feature, arg);
	feature_names_each(EXTKIT_RO_COMPAT, sb->feature_ro_compat,
			   put_feature, arg);
}

/* The names beside the numbers, and the values derived from them. */
static void super_json_decoded(struct dump_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	struct json_writer *w = &ctx->jw;
	char uuid[37];

	dump_format_uuid(field_raw(ctx, "hash_seed"), uuid);
	json_string(w, "hash_seed", uuid);
	bit_names_json(w, "state_names", &super_state_names, sb->state);
	json_string(w, "errors_name", errors_word(sb->errors));
	json_string(w, "creator_os_name", os_word(sb->creator_os));
	json_string(w, "def_hash_version_name",
		    hash_word(sb->def_hash_version));
	bit_names_json(w, "flag_names", &super_flag_names, sb->flags);
	bit_names_json(w, "default_mount_opts_names", &mount_opt_names,
		       sb->default_mount_opts);
	feature_names_json(w, "feature_compat_names", EXTKIT_COMPAT,
			   sb->feature_compat);
	feature_names_json(w, "feature_incompat_names",
			   EXTKIT_INCOMPAT, sb->feature_incompat);
	feature_names_json(w, "feature_ro_compat_names",
			   EXTKIT_RO_COMPAT, sb->feature_ro_compat);
	json_begin_array(w, "features");
	each_feature(sb, w);
	json_end_array(w);
	json_u64(w, "block_size", ctx->fs->g.block_size);
	json_u64(w, "cluster_size",
		 (uint64_t)1024 << (sb->log_cluster_size & 31));
	json_u64(w, "group_count", ctx->fs->g.group_count);
	json_u64(w, "inode_size", ctx->fs->g.inode_size);
	json_u64(w, "inode_blocks_per_group", ctx->fs->g.itable_blocks);
}

int dump_super(struct dump_ctx *ctx)
{
	struct json_writer *w = &ctx->jw;
	unsigned int i;

	if (!ctx->o->json) {
		super_text_ident(ctx);
		super_text_geom(ctx);
		super_text_times(ctx);
		super_text_inodes(ctx);
		super_text_features(ctx);
		dump_journal(ctx);
		super_mmp(ctx);
		return 0;
	}
	json_begin_object(w, NULL);
	for (i = 0; i < extkit_super_field_count; i++)
		if (!is_skipped_key(extkit_super_fields[i].name))
			super_json_field(ctx, &extkit_super_fields[i]);
	super_json_decoded(ctx);
	dump_journal(ctx);
	super_mmp(ctx);
	json_end_object(w);
	return 0;
}
