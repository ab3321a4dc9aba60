// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump: read-only views of an ext2/ext4 image. Commands: super
 * (the default), groups, ls, stat, blocks, dirblock; each prints text or,
 * with --json, one JSON document. Every on-disk structure is read through
 * the library; a malformed image ends in a one-line error and exit 1.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <popt.h>

#include "bmap.h"
#include "dir.h"
#include "endian.h"
#include "error.h"
#include "feature.h"
#include "fs.h"
#include "group.h"
#include "inode.h"
#include "super.h"

#include "dump.h"
#include "frag.h"
#include "json.h"

#define PROG	"extkit-dump"

static void report(const char *what, const char *reason)
{
	fprintf(stderr, PROG ": %s: %s\n", what, reason);
}

static void report_err(const char *what, int err)
{
	report(what, extkit_strerror(err));
}

/* A block number as text: decimal, or hex with -x (as dumpe2fs -x). */
static void put_blk(const struct dump_ctx *ctx, uint64_t blk)
{
	if (ctx->o->hex)
		printf("0x%04" PRIx64, blk);
	else
		printf("%" PRIu64, blk);
}

static void format_uuid(const uint8_t *u, char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4],
		 u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
}

/* Prints a time stamp as ctime() does, or "n/a" for 0. */
static void put_time(uint32_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[64];

	if (!t || !localtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm)) {
		fputs(t ? "(invalid)" : "n/a", stdout);
		return;
	}
	fputs(buf, stdout);
}

/*
 * Writes a name for text output: well-formed UTF-8 and printable ASCII as
 * they are; controls, backslash and stray bytes as \ooo (octal).
 */
static void put_name(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = p[i] >= 0x80 ? json_utf8_seq_len(p + i, len - i) : 0;
		if (n) {
			fwrite(p + i, 1, n, stdout);
			i += n;
		} else if (p[i] < 0x20 || p[i] >= 0x7F || p[i] == '\\') {
			printf("\\%03o", p[i++]);
		} else {
			putchar(p[i++]);
		}
	}
}

static const char *lookup_name(const char *const *names, unsigned int n,
			       unsigned int v, const char *dflt)
{
	return v < n && names[v] ? names[v] : dflt;
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

#define N_ELEM(a)	(sizeof(a) / sizeof((a)[0]))

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
	LINE("Errors behavior:", "%s", lookup_name(errors_names,
	     N_ELEM(errors_names), sb->errors, "Unknown (continue)"));
	LINE("Filesystem OS type:", "%s", lookup_name(os_names,
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
	put_time(sb->mkfs_time);
	printf("\n%-26s", "Last mount time:");
	put_time(sb->mtime);
	printf("\n%-26s", "Last write time:");
	put_time(sb->wtime);
	printf("\n");
	LINE("Mount count:", "%u", sb->mnt_count);
	LINE("Maximum mount count:", "%d", (int16_t)sb->max_mnt_count);
	printf("%-26s", "Last checked:");
	put_time(sb->lastcheck);
	printf("\n");
	LINE("Check interval:", "%" PRIu32, sb->checkinterval);
	LINE("Reserved blocks uid:", "%u", sb->def_resuid);
	LINE("Reserved blocks gid:", "%u", sb->def_resgid);
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
	LINE("Default directory hash:", "%s", lookup_name(hash_names,
	     N_ELEM(hash_names), sb->def_hash_version, "unknown"));
	for (i = 0; i < 4; i++)
		put_le32(seed + 4 * i, sb->hash_seed[i]);
	format_uuid(seed, uuid);
	LINE("Directory Hash Seed:", "%s", uuid);
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

static int cmd_super(struct dump_ctx *ctx)
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

/* ---- groups ---- */

static const char *const bg_flag_names[] = {
	"INODE_UNINIT", "BLOCK_UNINIT", "ITABLE_ZEROED",
};

static void group_text(const struct dump_ctx *ctx, uint32_t g)
{
	const struct extkit_group *gd = &ctx->fs->groups[g];
	uint64_t first = extkit_group_first_block(&ctx->fs->sb, g);
	uint32_t count = extkit_group_block_count(&ctx->fs->sb, g);
	unsigned int i, n = 0;

	printf("Group %" PRIu32 ": (Blocks ", g);
	put_blk(ctx, first);
	putchar('-');
	put_blk(ctx, first + count - 1);
	printf(")");
	for (i = 0; i < N_ELEM(bg_flag_names); i++)
		if (gd->flags & (1u << i))
			printf("%s%s", n++ ? ", " : " [", bg_flag_names[i]);
	printf("%s\n", n ? "]" : "");
	if (extkit_super_group_has_backup(&ctx->fs->sb, g)) {
		printf("  %s superblock at ", g ? "Backup" : "Primary");
		put_blk(ctx, g ? first : ctx->fs->sb.first_data_block);
		putchar('\n');
	}
	printf("  Block bitmap at ");
	put_blk(ctx, gd->block_bitmap);
	printf(", Inode bitmap at ");
	put_blk(ctx, gd->inode_bitmap);
	printf("\n  Inode table at ");
	put_blk(ctx, gd->inode_table);
	putchar('-');
	put_blk(ctx, gd->inode_table + ctx->fs->g.itable_blocks - 1);
	printf("\n  %" PRIu32 " free blocks, %" PRIu32 " free inodes, %"
	       PRIu32 " directories, %" PRIu32 " unused inodes\n",
	       gd->free_blocks, gd->free_inodes, gd->used_dirs,
	       gd->itable_unused);
}

static void group_json(struct dump_ctx *ctx, uint32_t g)
{
	const struct extkit_group *gd = &ctx->fs->groups[g];
	uint64_t first = extkit_group_first_block(&ctx->fs->sb, g);
	struct json_writer *w = &ctx->jw;
	unsigned int i;

	json_begin_object(w, NULL);
	json_u64(w, "group", g);
	json_u64(w, "first_block", first);
	json_u64(w, "last_block",
		 first + extkit_group_block_count(&ctx->fs->sb, g) - 1);
	json_bool(w, "has_super",
		  extkit_super_group_has_backup(&ctx->fs->sb, g));
	json_u64(w, "block_bitmap", gd->block_bitmap);
	json_u64(w, "inode_bitmap", gd->inode_bitmap);
	json_u64(w, "inode_table", gd->inode_table);
	json_u64(w, "free_blocks_count", gd->free_blocks);
	json_u64(w, "free_inodes_count", gd->free_inodes);
	json_u64(w, "used_dirs_count", gd->used_dirs);
	json_u64(w, "itable_unused", gd->itable_unused);
	json_u64(w, "flags", gd->flags);
	json_begin_array(w, "flag_names");
	for (i = 0; i < N_ELEM(bg_flag_names); i++)
		if (gd->flags & (1u << i))
			json_string(w, NULL, bg_flag_names[i]);
	json_end_array(w);
	json_u64(w, "checksum", gd->checksum);
	json_end_object(w);
}

static int cmd_groups(struct dump_ctx *ctx)
{
	uint32_t g;

	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_begin_array(&ctx->jw, "groups");
	}
	for (g = 0; g < ctx->fs->g.group_count; g++) {
		if (ctx->o->json)
			group_json(ctx, g);
		else
			group_text(ctx, g);
	}
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	}
	return 0;
}

/* ---- ls ---- */

static int resolve(struct dump_ctx *ctx, const char *path, uint32_t *ino)
{
	int rc = extkit_path_resolve(ctx->fs, path, ino);

	if (rc < 0)
		report_err(path, rc);
	return rc;
}

/* Remembers the first corrupt record of a walk, to report it once. */
struct corrupt_note {
	int seen;
	struct extkit_dirent ent;
};

static void note_corrupt(struct corrupt_note *cn,
			 const struct extkit_dirent *ent)
{
	if (ent->kind != EXTKIT_DE_CORRUPT || cn->seen)
		return;
	cn->seen = 1;
	cn->ent = *ent;
}

static int report_corrupt(const struct corrupt_note *cn, const char *path)
{
	if (!cn->seen)
		return 0;
	fprintf(stderr, PROG ": %s: corrupt entry in block %" PRIu64
		" (physical %" PRIu64 ") at offset %" PRIu32 ": %s\n", path,
		cn->ent.lblk, cn->ent.pblk, cn->ent.offset,
		extkit_dirent_problem_str(cn->ent.problem));
	return -EFSCORRUPTED;
}

static void ls_entry_long_json(struct dump_ctx *ctx,
			       const struct extkit_inode *in, int have)
{
	struct json_writer *w = &ctx->jw;
	char t[2] = { 0, 0 };

	if (!have) {
		json_null(w, "mode");
		return;
	}
	t[0] = extkit_ftype_char(extkit_mode_to_ftype(in->mode));
	json_u64(w, "mode", in->mode);
	json_u64(w, "links_count", in->links_count);
	json_u64(w, "uid", in->uid);
	json_u64(w, "gid", in->gid);
	json_u64(w, "size", in->size);
	json_string(w, "type", t);
}

static void ls_entry(struct dump_ctx *ctx, const struct extkit_dirent *ent)
{
	struct extkit_inode in;
	int have = 0;

	if (ctx->o->long_list)
		have = extkit_inode_read(ctx->fs, ent->inode, &in) == 0;
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_u64(&ctx->jw, "inode", ent->inode);
		json_string_n(&ctx->jw, "name", ent->name, ent->name_len);
		json_u64(&ctx->jw, "rec_len", ent->rec_len);
		json_u64(&ctx->jw, "name_len", ent->name_len);
		json_u64(&ctx->jw, "file_type", ent->file_type);
		if (ctx->o->long_list)
			ls_entry_long_json(ctx, &in, have);
		json_end_object(&ctx->jw);
		return;
	}
	printf("%" PRIu32 " ", ent->inode);
	if (have)
		printf("%06o %u %" PRIu32 " %" PRIu32 " %" PRIu64 " %c ",
		       in.mode, in.links_count, in.uid, in.gid, in.size,
		       extkit_ftype_char(extkit_mode_to_ftype(in.mode)));
	else if (ctx->o->long_list)
		printf("? ? ? ? ? %c ", extkit_ftype_char(ent->file_type));
	put_name(ent->name, ent->name_len);
	putchar('\n');
}

static int cmd_ls(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct corrupt_note cn = { 0 };
	struct extkit_dir_iter it;
	struct extkit_dirent ent;
	uint32_t ino;
	int rc;

	if (resolve(ctx, path, &ino))
		return -1;
	rc = extkit_dir_iter_init(&it, ctx->fs, ino, 0);
	if (rc < 0) {
		report_err(path, rc);
		return rc;
	}
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_string(&ctx->jw, "path", path);
		json_begin_array(&ctx->jw, "entries");
	}
	while ((rc = extkit_dir_iter_next(&it, &ent)) > 0) {
		note_corrupt(&cn, &ent);
		if (ent.kind == EXTKIT_DE_LIVE)
			ls_entry(ctx, &ent);
	}
	extkit_dir_iter_end(&it);
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	}
	if (rc < 0) {
		report_err(path, rc);
		return rc;
	}
	return report_corrupt(&cn, path);
}

/* ---- stat ---- */

static const char *type_name(uint16_t mode)
{
	static const char *const names[] = {
		[EXT2_FT_UNKNOWN] = "unknown", [EXT2_FT_REG_FILE] = "regular",
		[EXT2_FT_DIR] = "directory", [EXT2_FT_CHRDEV] = "chardev",
		[EXT2_FT_BLKDEV] = "blockdev", [EXT2_FT_FIFO] = "fifo",
		[EXT2_FT_SOCK] = "socket", [EXT2_FT_SYMLINK] = "symlink",
	};

	return lookup_name(names, N_ELEM(names), extkit_mode_to_ftype(mode),
			   "unknown");
}

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

enum stat_fmt { FMT_DEC, FMT_OCT, FMT_HEX, FMT_TIME };

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
	if (n->fmt == FMT_TIME && n->v) {
		fputs(" -- ", stdout);
		put_time((uint32_t)n->v);
	}
	putchar('\n');
}

static void stat_print(struct dump_ctx *ctx, uint32_t ino,
		       const struct extkit_inode *in)
{
	const struct stat_num nums[] = {
		{ "mode", "Mode", in->mode, FMT_OCT },
		{ "uid", "User", in->uid, FMT_DEC },
		{ "gid", "Group", in->gid, FMT_DEC },
		{ "size", "Size", in->size, FMT_DEC },
		{ "links_count", "Links", in->links_count, FMT_DEC },
		{ "blocks", "Blockcount", in->blocks, FMT_DEC },
		{ "flags", "Flags", in->flags, FMT_HEX },
		{ "generation", "Generation", in->generation, FMT_DEC },
		{ "version", "Version", in->version, FMT_DEC },
		{ "file_acl", "File ACL", in->file_acl, FMT_DEC },
		{ "extra_isize", "Extra isize", in->extra_isize, FMT_DEC },
		{ "projid", "Project", in->projid, FMT_DEC },
		{ "atime", "atime", in->atime, FMT_TIME },
		{ "ctime", "ctime", in->ctime, FMT_TIME },
		{ "mtime", "mtime", in->mtime, FMT_TIME },
		{ "dtime", "dtime", in->dtime, FMT_TIME },
		{ "crtime", "crtime", in->crtime, FMT_TIME },
	};
	struct json_writer *w = &ctx->jw;
	unsigned int i;

	if (!ctx->o->json) {
		printf("%-12s %" PRIu32 "\n%-12s %s\n", "Inode:", ino,
		       "Type:", type_name(in->mode));
		for (i = 0; i < N_ELEM(nums); i++)
			stat_num_text(&nums[i]);
		printf("%-12s %s\n", "Block map:", map_kind(in));
		return;
	}
	json_u64(w, "inode", ino);
	json_string(w, "type", type_name(in->mode));
	for (i = 0; i < N_ELEM(nums); i++)
		json_u64(w, nums[i].key, nums[i].v);
	json_string(w, "block_map", map_kind(in));
}

/* i_block as numbers, or a fast symlink's target as text. */
static void stat_iblock(struct dump_ctx *ctx, const struct extkit_inode *in)
{
	char target[sizeof(in->block) + 1];
	unsigned int i;

	if (!strcmp(map_kind(in), "fast_symlink")) {
		for (i = 0; i < EXT2_N_BLOCKS; i++)
			put_le32(target + 4 * i, in->block[i]);
		target[sizeof(in->block)] = 0;
		i = (unsigned int)strnlen(target, in->size < sizeof(in->block)
					  ? in->size : sizeof(in->block));
		if (ctx->o->json) {
			json_string_n(&ctx->jw, "fast_link_target", target, i);
			return;
		}
		printf("%-12s ", "Fast link:");
		put_name(target, i);
		putchar('\n');
		return;
	}
	if (ctx->o->json)
		json_begin_array(&ctx->jw, "block");
	else
		printf("%-12s", "i_block:");
	for (i = 0; i < EXT2_N_BLOCKS; i++) {
		if (ctx->o->json) {
			json_u64(&ctx->jw, NULL, in->block[i]);
			continue;
		}
		putchar(' ');
		put_blk(ctx, in->block[i]);
	}
	if (ctx->o->json)
		json_end_array(&ctx->jw);
	else
		putchar('\n');
}

static int cmd_stat(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct extkit_inode in;
	uint32_t ino;
	int rc;

	if (resolve(ctx, path, &ino))
		return -1;
	rc = extkit_inode_read(ctx->fs, ino, &in);
	if (rc < 0) {
		report_err(path, rc);
		return rc;
	}
	if (ctx->o->json)
		json_begin_object(&ctx->jw, NULL);
	stat_print(ctx, ino, &in);
	stat_iblock(ctx, &in);
	if (ctx->o->json)
		json_end_object(&ctx->jw);
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
		put_blk(ctx, pblk + i);
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
		if (ctx->o->nargs > 1) {
			json_begin_object(&ctx->jw, NULL);
			json_string(&ctx->jw, "path", path);
		}
		json_begin_array(&ctx->jw, "blocks");
	}
	if (!rc)
		rc = extkit_block_walk(ctx->fs, &in, blocks_fn, &bw);
	/* A failed path still gets its (empty or partial) line or object,
	 * so that the output stays aligned with the arguments. */
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		if (rc < 0)
			json_string(&ctx->jw, "error", extkit_strerror(rc));
		if (ctx->o->nargs > 1)
			json_end_object(&ctx->jw);
	} else {
		putchar('\n');
	}
	if (rc < 0)
		report_err(path, rc);
	return rc < 0 ? rc : 0;
}

static int cmd_blocks(struct dump_ctx *ctx)
{
	int i, rc = 0;

	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		if (ctx->o->nargs > 1)
			json_begin_array(&ctx->jw, "files");
		else
			json_string(&ctx->jw, "path", ctx->o->args[0]);
	}
	for (i = 0; i < ctx->o->nargs; i++)
		if (blocks_one(ctx, ctx->o->args[i]) < 0)
			rc = -1;
	if (ctx->o->json) {
		if (ctx->o->nargs > 1)
			json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	}
	return rc;
}

/* ---- dirblock ---- */

static const char *const kind_names[] = {
	[EXTKIT_DE_LIVE] = "live", [EXTKIT_DE_EMPTY] = "empty",
	[EXTKIT_DE_TAIL] = "tail", [EXTKIT_DE_DX_NODE] = "dx_node",
	[EXTKIT_DE_CORRUPT] = "corrupt", [EXTKIT_DE_HOLE] = "hole",
};

static int has_name(const struct extkit_dirent *e)
{
	return e->kind == EXTKIT_DE_LIVE || e->kind == EXTKIT_DE_EMPTY;
}

static void record_json(struct json_writer *w, const struct extkit_dirent *e)
{
	json_begin_object(w, NULL);
	json_u64(w, "offset", e->offset);
	json_u64(w, "inode", e->inode);
	json_u64(w, "rec_len", e->rec_len);
	json_u64(w, "name_len", e->name_len);
	json_u64(w, "file_type", e->file_type);
	if (has_name(e))
		json_string_n(w, "name", e->name, e->name_len);
	json_u64(w, "slack", e->slack);
	if (e->dx_overhead)
		json_u64(w, "dx_overhead", e->dx_overhead);
	json_string(w, "kind", lookup_name(kind_names, N_ELEM(kind_names),
					   e->kind, "unknown"));
	if (e->kind == EXTKIT_DE_CORRUPT)
		json_string(w, "reason",
			    extkit_dirent_problem_str(e->problem));
	json_end_object(w);
}

static void record_text(const struct extkit_dirent *e)
{
	const char *kind = lookup_name(kind_names, N_ELEM(kind_names),
				       e->kind, "unknown");

	printf("%6" PRIu32 " %10" PRIu32 " %7" PRIu32 " %8" PRIu32 " %4u %6"
	       PRIu32 " %s", e->offset, e->inode, e->rec_len, e->name_len,
	       e->file_type, e->slack, kind);
	if (has_name(e)) {
		printf("%*s", 8 - (int)strlen(kind), "");
		put_name(e->name, e->name_len);
	}
	if (e->kind == EXTKIT_DE_CORRUPT)
		printf(" (%s)", extkit_dirent_problem_str(e->problem));
	if (e->dx_overhead)
		printf(" [htree index: %" PRIu32 " bytes]", e->dx_overhead);
	putchar('\n');
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static void dirblock_head(struct dump_ctx *ctx, const char *path,
			  uint64_t n, const struct extkit_dirent *e)
{
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_string(&ctx->jw, "path", path);
		json_u64(&ctx->jw, "block", n);
		json_u64(&ctx->jw, "physical", e ? e->pblk : 0);
		json_begin_array(&ctx->jw, "records");
		return;
	}
	printf("%s: block %" PRIu64 " (physical ", path, n);
	put_blk(ctx, e ? e->pblk : 0);
	printf(")\n%6s %10s %7s %8s %4s %6s %-7s %s\n", "offset", "inode",
	       "rec_len", "name_len", "type", "slack", "kind", "name");
}

static int dirblock_walk(struct dump_ctx *ctx, struct extkit_dir_iter *it,
			 const char *path, uint64_t n)
{
	struct extkit_dirent ent;
	int head = 0;
	int rc;

	while ((rc = extkit_dir_iter_next(it, &ent)) > 0) {
		if (ent.lblk < n)
			continue;
		if (ent.lblk > n)
			break;
		if (!head++)
			dirblock_head(ctx, path, n, &ent);
		if (ctx->o->json)
			record_json(&ctx->jw, &ent);
		else
			record_text(&ent);
	}
	if (!head && rc >= 0)
		dirblock_head(ctx, path, n, NULL);
	if (head || rc >= 0) {
		if (ctx->o->json) {
			json_end_array(&ctx->jw);
			json_end_object(&ctx->jw);
		}
	}
	if (rc < 0)
		report_err(path, rc);
	return rc < 0 ? rc : 0;
}

static int cmd_dirblock(struct dump_ctx *ctx)
{
	const char *path = ctx->o->args[0];
	struct extkit_dir_iter it;
	uint32_t ino;
	uint64_t n;
	int rc;

	if (parse_u64(ctx->o->args[1], &n)) {
		report(ctx->o->args[1], "not a block number");
		return -1;
	}
	if (resolve(ctx, path, &ino))
		return -1;
	rc = extkit_dir_iter_init(&it, ctx->fs, ino, EXTKIT_DIR_ITER_HOLES);
	if (rc < 0) {
		report_err(path, rc);
		return rc;
	}
	if (n >= it.nblocks) {
		fprintf(stderr, PROG ": %s: block %" PRIu64 " is past the end"
			" of the directory (%" PRIu64 " blocks)\n", path, n,
			it.nblocks);
		rc = -1;
	} else {
		rc = dirblock_walk(ctx, &it, path, n);
	}
	extkit_dir_iter_end(&it);
	return rc;
}

static int cmd_frag(struct dump_ctx *ctx)
{
	return dump_frag(ctx, ctx->o->nargs ? ctx->o->args[0] : NULL);
}

/* ---- command line ---- */

static const struct dump_cmd commands[] = {
	{ "super", cmd_super, 0, 0, 0, "" },
	{ "groups", cmd_groups, 0, 0, 0, "" },
	{ "ls", cmd_ls, 1, 1, DUMP_OPT_LONG, "PATH" },
	{ "stat", cmd_stat, 1, 1, 0, "PATH|<INO>" },
	{ "blocks", cmd_blocks, 1, -1, DUMP_OPT_META, "PATH..." },
	{ "dirblock", cmd_dirblock, 2, 2, 0, "PATH N" },
	{ "frag", cmd_frag, 0, 1, 0, "[PATH]" },
};

static const struct dump_cmd *find_command(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_ELEM(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Runs a popt loop over pc; 0, or 1 after reporting a bad option. */
static int popt_loop(poptContext pc, struct dump_opts *o)
{
	int rc;

	while ((rc = poptGetNextOpt(pc)) > 0) {
		if (rc == 'V')
			o->version = 1;
	}
	if (rc < -1) {
		report(poptBadOption(pc, POPT_BADOPTION_NOALIAS),
		       poptStrerror(rc));
		return 1;
	}
	return 0;
}

#define COMMON_OPTIONS(o)						\
	{ "json", '\0', POPT_ARG_NONE, &(o)->json, 0,			\
	  "print one JSON document", NULL },				\
	{ "hex", 'x', POPT_ARG_NONE, &(o)->hex, 0,			\
	  "print block numbers in hex", NULL },				\
	{ "version", 'V', POPT_ARG_NONE, NULL, 'V',			\
	  "print the version and exit", NULL }

/*
 * Parses the command's own options (and the common ones, which may also
 * follow the command) from argv, whose argv[0] is the command name.
 */
static int parse_command(struct dump_opts *o, const struct dump_cmd *cmd,
			 int argc, const char **argv)
{
	struct poptOption table[] = {
		COMMON_OPTIONS(o),
		{ "long", 'l', POPT_ARG_NONE, &o->long_list, 0,
		  "ls: also print mode, links, owner, size and type", NULL },
		{ "meta", 'm', POPT_ARG_NONE, &o->meta, 0,
		  "blocks: include indirect and extent tree blocks", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	const char *arg;
	poptContext pc;
	int rc;

	if (!(cmd->opts & DUMP_OPT_LONG))
		table[3].argInfo |= POPT_ARGFLAG_DOC_HIDDEN;
	if (!(cmd->opts & DUMP_OPT_META))
		table[4].argInfo |= POPT_ARGFLAG_DOC_HIDDEN;
	pc = poptGetContext(PROG, argc, argv, table, 0);
	poptSetOtherOptionHelp(pc, cmd->args_help);
	rc = popt_loop(pc, o);
	if (!rc && ((o->long_list && !(cmd->opts & DUMP_OPT_LONG)) ||
		    (o->meta && !(cmd->opts & DUMP_OPT_META)))) {
		fprintf(stderr, PROG ": %s: option %s not accepted\n",
			cmd->name, o->long_list ? "-l" : "-m");
		rc = 1;
	}
	/* popt owns what it hands out: keep copies past poptFreeContext(). */
	while (!rc && (arg = poptGetArg(pc)) != NULL) {
		o->args[o->nargs] = strdup(arg);
		if (!o->args[o->nargs++]) {
			report(PROG, "out of memory");
			rc = 1;
		}
	}
	poptFreeContext(pc);
	return rc;
}

static int check_arg_count(const struct dump_cmd *cmd, int nargs)
{
	const char *sep = *cmd->args_help ? " " : "";

	if (nargs < cmd->min_args) {
		fprintf(stderr, PROG ": %s: missing argument (usage: %s%s%s)"
			"\n", cmd->name, cmd->name, sep, cmd->args_help);
		return 1;
	}
	if (cmd->max_args >= 0 && nargs > cmd->max_args) {
		fprintf(stderr, PROG ": %s: too many arguments (usage: %s%s%s)"
			"\n", cmd->name, cmd->name, sep, cmd->args_help);
		return 1;
	}
	return 0;
}

/*
 * The words after TARGET: [COMMAND] [ARGS], options anywhere among them.
 * The first word that is not an option names the command; without one
 * the command is "super". o->args (owned by the caller) receives the
 * positional arguments.
 */
static int parse_rest(struct dump_opts *o, const char **rest,
		      const struct dump_cmd **cmdp)
{
	const struct dump_cmd *cmd;
	const char **argv;
	char name[64];
	int argc = 1, n = 0, c, rc;

	while (rest && rest[n])
		n++;
	for (c = 0; c < n && rest[c][0] == '-' && strcmp(rest[c], "--"); c++)
		;
	argv = calloc((size_t)n + 2, sizeof(*argv));
	o->args = calloc((size_t)n + 1, sizeof(*o->args));
	if (!argv || !o->args) {
		free(argv);
		report(PROG, "out of memory");
		return 1;
	}
	argv[0] = c < n && rest[c][0] != '-' ? rest[c] : "super";
	for (int i = 0; i < n; i++)
		if (i != c || argv[0] != rest[c])
			argv[argc++] = rest[i];
	o->command = argv[0];
	cmd = find_command(argv[0]);
	if (!cmd) {
		report(argv[0], "unknown command (see --help)");
		free(argv);
		return 1;
	}
	*cmdp = cmd;
	/* popt's --help shows argv[0] as the program name */
	snprintf(name, sizeof(name), PROG " TARGET %s", cmd->name);
	argv[0] = name;
	rc = parse_command(o, cmd, argc, argv);
	free(argv);
	if (rc || o->version)
		return rc;
	return check_arg_count(cmd, o->nargs);
}

/* "TARGET [COMMAND [ARGS]]" and the commands, from the command table. */
static void commands_help(char *buf, size_t size)
{
	size_t len, line = 0;
	unsigned int i;

	len = (size_t)snprintf(buf, size, "TARGET [COMMAND [ARGS]]\n"
			       "Commands (super is the default):");
	for (i = 0; i < N_ELEM(commands) && len < size; i++) {
		const struct dump_cmd *c = &commands[i];

		if (len - line > 50) {
			len += (size_t)snprintf(buf + len, size - len, "\n ");
			line = len;
		}
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len,
				" %s%s%s%s%s%s", i ? "| " : "", c->name,
				c->opts & DUMP_OPT_LONG ? " [-l]" : "",
				c->opts & DUMP_OPT_META ? " [-m]" : "",
				*c->args_help ? " " : "", c->args_help);
	}
}

static int parse_args(struct dump_opts *o, int argc, const char **argv,
		      const struct dump_cmd **cmdp)
{
	struct poptOption table[] = {
		COMMON_OPTIONS(o),
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	char help[512];
	poptContext pc;
	int rc;

	pc = poptGetContext(PROG, argc, argv, table,
			    POPT_CONTEXT_POSIXMEHARDER);
	commands_help(help, sizeof(help));
	poptSetOtherOptionHelp(pc, help);
	rc = popt_loop(pc, o);
	if (!rc && !o->version) {
		o->target = poptGetArg(pc);
		if (!o->target) {
			report("TARGET", "missing (try --help)");
			rc = 1;
		} else if (!(o->target = strdup(o->target))) {
			report(PROG, "out of memory");
			rc = 1;
		}
	}
	if (!rc && !o->version)
		rc = parse_rest(o, poptGetArgs(pc), cmdp);
	poptFreeContext(pc);
	return rc;
}

static int run(struct dump_opts *o, const struct dump_cmd *cmd)
{
	struct dump_ctx ctx = { .o = o };
	const char *why = NULL;
	int flags = 0;
	int rc;

	/* super and groups show what is there even if extkit cannot use it. */
	if (cmd->run == cmd_super || cmd->run == cmd_groups)
		flags |= EXTKIT_FS_FORCE;
	rc = extkit_fs_open(o->target, flags, &ctx.fs, &why);
	if (rc < 0) {
		report(o->target, why ? why : extkit_strerror(rc));
		return DUMP_EXIT_FAIL;
	}
	json_init(&ctx.jw, stdout);
	rc = cmd->run(&ctx);
	if (o->json && json_finish(&ctx.jw) && rc >= 0) {
		report(o->target, "internal error: malformed JSON output");
		rc = -1;
	}
	extkit_fs_close(ctx.fs);
	if (fflush(stdout) || ferror(stdout)) {
		report("stdout", "write error");
		rc = -1;
	}
	return rc < 0 ? DUMP_EXIT_FAIL : DUMP_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct dump_cmd *cmd = NULL;
	struct dump_opts o = { 0 };
	int rc;

	rc = parse_args(&o, argc, (const char **)argv, &cmd);
	if (!rc && o.version)
		printf(PROG " %s\n", PACKAGE_VERSION);
	else if (!rc)
		rc = run(&o, cmd);
	while (o.nargs > 0)
		free((char *)o.args[--o.nargs]);
	free(o.args);
	free((char *)o.target);
	return rc ? DUMP_EXIT_FAIL : DUMP_EXIT_OK;
}
