// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-mkfs options: one popt table (the only description of the
 * options, --help included), then validate_opts() turns the strings into
 * numbers, feature masks, a UUID and a hash seed. Every bad argument is
 * one line on stderr and exit 1; nothing has been opened yet.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <popt.h>
#include <uuid/uuid.h>

#include "clock.h"
#include "ondisk.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "devtable.h"
#include "mkfs.h"
#include "selabel.h"

/* The option strings as popt leaves them; validate_opts() converts. */
struct raw_args {
	char *block_size;
	char *inode_size;
	char *inode_ratio;
	char *inode_count;
	char *label;
	char *uuid;
	char *extended;
	char *type;
	char *usage;
	char *features;		/* every -O joined with commas */
	char *journal_opts;
	char *errors;
	char *revision;
	char *blocks_per_group;
	char *last_mounted;
	char *cluster_size;
	int flex_bg_size;
	double reserved;
	int reserved_given;
};

enum { OPT_FEATURES = 'O', OPT_EXTENDED = 'E', OPT_VERSION = 'V',
       OPT_CHECK = 'c',
       OPT_RESERVED = 'm' };

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int parse_block_size(const char *s, struct mkfs_opts *o)
{
	uint64_t v;

	if (cli_parse_size(s, 1, &v) || !is_pow2(v) ||
	    v < EXT2_MIN_BLOCK_SIZE || v > EXT2_MAX_BLOCK_SIZE) {
		cli_error("invalid block size '%s': a power of two from 1024 to 65536",
			  s);
		return -EINVAL;
	}
	o->block_size = (uint32_t)v;
	return 0;
}

static int parse_inode_size(const char *s, struct mkfs_opts *o)
{
	uint64_t v;

	if (cli_parse_size(s, 1, &v) || !is_pow2(v) ||
	    v < EXT2_GOOD_OLD_INODE_SIZE || v > EXT2_MAX_BLOCK_SIZE) {
		cli_error("invalid inode size '%s': a power of two from 128 to the block size",
			  s);
		return -EINVAL;
	}
	o->inode_size = (uint32_t)v;
	return 0;
}

static int parse_inode_numbers(const struct raw_args *a, struct mkfs_opts *o)
{
	uint64_t v;

	if (a->inode_ratio) {
		if (cli_parse_size(a->inode_ratio, 1, &v) ||
		    v < EXT2_MIN_BLOCK_SIZE ||
		    v > (uint64_t)EXT2_MAX_BLOCK_SIZE * 1024) {
			cli_error("invalid bytes per inode '%s': 1024 to 64M",
				  a->inode_ratio);
			return -EINVAL;
		}
		o->inode_ratio = (uint32_t)v;
	}
	if (a->inode_count) {
		if (cli_parse_size(a->inode_count, 1, &v) || v == 0 ||
		    v > UINT32_MAX) {
			cli_error("invalid inode count '%s': 1 to 4294967295",
				  a->inode_count);
			return -EINVAL;
		}
		o->inode_count = v;
	}
	/* -i with -N: as mke2fs, the count wins. */
	return 0;
}

/* -U: a UUID, random (also without -U), time, clear or null. */
static int pick_uuid(const char *s, struct mkfs_opts *o)
{
	if (cli_parse_uuid(s ? s : "random", o->uuid)) {
		cli_error("invalid UUID '%s'", s);
		return -EINVAL;
	}
	return 0;
}

/* -M: the directory recorded as last mounted on (64 bytes at most). */
static int parse_last_mounted(const char *s, struct mkfs_opts *o)
{
	if (strlen(s) > sizeof(o->last_mounted)) {
		cli_error("-M %s: longer than %zu bytes", s,
			  sizeof(o->last_mounted));
		return -EINVAL;
	}
	strncpy(o->last_mounted, s, sizeof(o->last_mounted));
	return 0;
}

/* -J size=MIB,fast_commit_size=KIB: the journal's size and its
 * fast-commit area (1024 .. 10,240,000 blocks in all is checked with the
 * block size known). size= adds a journal. */
static int parse_journal(const char *s, struct mkfs_opts *o)
{
	char *copy = strdup(s), *save = NULL;
	int rc = copy ? 0 : -ENOMEM;
	uint64_t v;

	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; !rc && tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int fc = !strncmp(tok, "fast_commit_size=", 17);
		const char *val = tok + (fc ? 17 : 5);

		if ((!fc && strncmp(tok, "size=", 5)) ||
		    cli_parse_size(val, 1, &v) || !v ||
		    v > (fc ? UINT32_MAX / 1024 : 10240000)) {
			cli_error("invalid journal options '%s': size=MIB, "
				  "fast_commit_size=KIB", s);
			rc = -EINVAL;
		} else if (fc) {
			o->fc_kib = (uint32_t)v;
		} else {
			o->journal_mb = (uint32_t)v;
			o->journal = 1;
		}
	}
	free(copy);
	return rc;
}

/* -e continue|remount-ro|panic (s_errors 1, 2, 3). */
static int parse_errors(const char *s, struct mkfs_opts *o)
{
	static const char *const names[] = { "continue", "remount-ro",
					     "panic" };

	for (uint16_t i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			o->errors_behavior = i + 1;
			return 0;
		}
	cli_error("invalid error behavior '%s': continue, remount-ro or panic",
		  s);
	return -EINVAL;
}

/* The hash seed: -E, else derived from the UUID when the time is fixed by
 * the environment (reproducible images), else random. */
static void pick_hash_seed(struct mkfs_opts *o)
{
	static const char name[] = "extkit-mkfs directory hash seed";

	if (o->hash_seed_given)
		return;
	if (o->fixed_time)
		uuid_generate_sha1(o->hash_seed, o->uuid, name,
				   sizeof(name) - 1);
	else
		uuid_generate(o->hash_seed);
}

/* -g as mke2fs takes it: a number, a multiple of 8; its range (256 to
 * 8 x the block size) is checked once the block size is known. */
static int parse_blocks_per_group(const char *s, struct mkfs_opts *o)
{
	uint64_t v;

	if (cli_parse_u64(s, &v) || !v || v > UINT32_MAX) {
		cli_error("invalid blocks per group '%s': a number", s);
		return -EINVAL;
	}
	if (v % 8) {
		cli_error("invalid blocks per group %s: a multiple of 8", s);
		return -EINVAL;
	}
	o->blocks_per_group = (uint32_t)v;
	return 0;
}

static int parse_misc(const struct raw_args *a, struct mkfs_opts *o)
{
	const char *bad = NULL;

	if (a->revision && strcmp(a->revision, "0") &&
	    strcmp(a->revision, "1")) {
		cli_error("revision '%s' is not supported (0 or 1)",
			  a->revision);
		return -EINVAL;
	}
	if (a->revision && !strcmp(a->revision, "0"))
		o->revision = 0;
	if (a->flex_bg_size && (a->flex_bg_size < 1 ||
				(a->flex_bg_size & (a->flex_bg_size - 1)) ||
				a->flex_bg_size > (1 << 30))) {
		cli_error("invalid flex_bg size %d: a power of two", a->flex_bg_size);
		return -EINVAL;
	}
	o->flex_bg_size = (uint32_t)a->flex_bg_size;
	if (a->blocks_per_group && parse_blocks_per_group(a->blocks_per_group,
							  o))
		return -EINVAL;
	if (a->reserved_given &&
	    !(a->reserved >= 0.0 && a->reserved <= 50.0)) {
		cli_error("invalid reserved blocks percent %g: 0 to 50",
			  a->reserved);
		return -EINVAL;
	}
	if (a->label)
		cli_fit_label(a->label);
	if (o->quiet && o->verbose) {
		cli_error("-q and -v exclude each other");
		return -EINVAL;
	}
	if (extkit_clock_now(&o->now, &o->fixed_time, &bad)) {
		cli_error("%s is not a number of seconds since 1970", bad);
		return -EINVAL;
	}
	return 0;
}

static int validate_opts(struct raw_args *a, struct mkfs_opts *o)
{
	if (parse_misc(a, o))
		return -EINVAL;
	if (a->block_size && parse_block_size(a->block_size, o))
		return -EINVAL;
	if (a->inode_size && parse_inode_size(a->inode_size, o))
		return -EINVAL;
	if (a->cluster_size && mkfs_parse_cluster_size(a->cluster_size, o))
		return -EINVAL;
	if (parse_inode_numbers(a, o))
		return -EINVAL;
	if (a->reserved_given)
		o->reserved_pct = a->reserved;
	o->reserved_given = a->reserved_given;
	if (a->label)
		strcpy(o->label, a->label);
	if (a->journal_opts && parse_journal(a->journal_opts, o))
		return -EINVAL;
	if (a->errors && parse_errors(a->errors, o))
		return -EINVAL;
	if ((a->features && mkfs_features_check(a->features)) ||
	    (a->type && mkfs_fs_type_check(a->type)))
		return -EINVAL;
	o->fs_type = a->type;
	o->usage_types = a->usage;
	o->features_arg = a->features;
	a->type = a->usage = a->features = NULL;	/* o owns them now */
	if (pick_uuid(a->uuid, o))
		return -EINVAL;
	if (a->extended && mkfs_parse_extended(a->extended, o))
		return -EINVAL;
	o->extended = a->extended;	/* parsed again after the profile */
	a->extended = NULL;
	if (o->creator_os && mkfs_creator_os(o->creator_os) < 0) {
		cli_error("-o %s: unknown operating system (linux, hurd, "
			  "freebsd, lites or a number)", o->creator_os);
		return -EINVAL;
	}
	if (a->last_mounted && parse_last_mounted(a->last_mounted, o))
		return -EINVAL;
	if (o->super_only && o->source) {
		cli_error("-S writes no files: -d cannot go with it");
		return -EINVAL;
	}
	if (mkfs_builder_check(o))
		return -EINVAL;
	pick_hash_seed(o);
	return 0;
}

static void defaults(struct mkfs_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->reserved_pct = 5.0;
	o->lazy_itable_init = -1;
	o->lazy_journal_init = -1;
	o->num_backup_sb = -1;
	o->packed_meta_blocks = -1;
	o->root_perms = -1;
	o->revision = 1;
	o->clamp_mtime = -1;
	o->quota_types = 3;	/* user and group */
}

/* Appends one -O or -E argument (popt's copy, freed here) to the joined
 * list *list. */
static int add_to_list(char **list, char *arg)
{
	size_t old = *list ? strlen(*list) : 0;
	char *p;

	if (!arg)
		return 0;
	p = realloc(*list, old + strlen(arg) + 2);
	if (!p) {
		free(arg);
		return -ENOMEM;
	}
	if (old)
		p[old++] = ',';
	strcpy(p + old, arg);
	*list = p;
	free(arg);
	return 0;
}

/* TARGET and SIZE. */
static int take_positionals(poptContext pc, struct mkfs_opts *o)
{
	char *args[2];

	if (cli_take_args(pc, args, 2, 0))
		return -EINVAL;
	o->target = args[0];
	o->size_arg = args[1];
	return 0;
}

/* Whether a badblocks program is on PATH (mke2fs -c runs it: -c is
 * refused by name without it). */
static int have_badblocks(void)
{
	const char *path = getenv("PATH");
	char file[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		if (n && n + sizeof("/badblocks") <= sizeof(file)) {
			memcpy(file, path, n);
			strcpy(file + n, "/badblocks");
			if (!access(file, X_OK))
				return 1;
		}
		path += n + (path[n] == ':');
	}
	return 0;
}

/* Runs the popt loop; returns -1 to go on or an exit code. */
static int run_popt(poptContext pc, struct raw_args *a, struct mkfs_opts *o)
{
	int rc;

	while ((rc = poptGetNextOpt(pc)) > 0) {
		switch (rc) {
		case OPT_VERSION:
			cli_version();
			return MKFS_EXIT_OK;
		case OPT_RESERVED:
			a->reserved_given = 1;
			break;
		case OPT_CHECK:
			if (!have_badblocks()) {
				cli_error("-c: badblocks is not installed (e2fsprogs)");
				return MKFS_EXIT_FAIL;
			}
			o->check++;
			break;
		case OPT_FEATURES:
			if (add_to_list(&a->features, poptGetOptArg(pc))) {
				cli_error("out of memory");
				return MKFS_EXIT_FAIL;
			}
			break;
		case OPT_EXTENDED:
			if (add_to_list(&a->extended, poptGetOptArg(pc))) {
				cli_error("out of memory");
				return MKFS_EXIT_FAIL;
			}
			break;
		}
	}
	if (rc < -1) {
		cli_popt_error(pc, rc);
		return MKFS_EXIT_FAIL;
	}
	if (take_positionals(pc, o) || validate_opts(a, o))
		return MKFS_EXIT_FAIL;
	return -1;
}

/* popt's copies of the option strings. */
static void raw_args_free(struct raw_args *a)
{
	free(a->block_size);
	free(a->inode_size);
	free(a->inode_ratio);
	free(a->inode_count);
	free(a->uuid);
	free(a->extended);
	free(a->type);
	free(a->features);
	free(a->label);
	free(a->usage);
	free(a->journal_opts);
	free(a->errors);
	free(a->revision);
	free(a->blocks_per_group);
	free(a->last_mounted);
	free(a->cluster_size);
}

int mkfs_parse_args(int argc, const char **argv, struct mkfs_opts *o)
{
	struct raw_args a;
	struct poptOption table[] = {
		{ "block-size", 'b', POPT_ARG_STRING, &a.block_size, 0,
		  "block size in bytes (1024 .. 65536)", "BYTES" },
		{ "inode-size", 'I', POPT_ARG_STRING, &a.inode_size, 0,
		  "inode size in bytes (128 .. block size)", "BYTES" },
		{ "bytes-per-inode", 'i', POPT_ARG_STRING, &a.inode_ratio, 0,
		  "one inode for every BYTES of space", "BYTES" },
		{ "cluster-size", 'C', POPT_ARG_STRING, &a.cluster_size, 0,
		  "cluster size in bytes (bigalloc): 2048 .. 2^29, a power of two",
		  "BYTES" },
		{ "inodes", 'N', POPT_ARG_STRING, &a.inode_count, 0,
		  "number of inodes (at least)", "COUNT" },
		{ "reserved-percent", 'm', POPT_ARG_DOUBLE, &a.reserved,
		  OPT_RESERVED, "blocks reserved for root, percent (5)",
		  "PCT" },
		{ "label", 'L', POPT_ARG_STRING, &a.label, 0,
		  "volume label (16 bytes at most)", "LABEL" },
		{ "uuid", 'U', POPT_ARG_STRING, &a.uuid, 0,
		  "filesystem UUID: a UUID, random, time or clear", "UUID" },
		{ "features", 'O', POPT_ARG_STRING, NULL, OPT_FEATURES,
		  "features to set, ^feature to clear", "LIST" },
		{ "extended", 'E', POPT_ARG_STRING, NULL, OPT_EXTENDED,
		  "extended options: hash_seed=UUID, stride=N, stripe_width=N, resize=BLOCKS, lazy_itable_init[=0|1], lazy_journal_init[=0|1], root_owner[=UID:GID], root_perms=MODE, desc_size=BYTES, revision=0|1, test_fs, no_copy_xattrs, assume_storage_prezeroed[=0|1], num_backup_sb=0|1|2, packed_meta_blocks[=0|1], orphan_file_size=SIZE, quotatype=TYPES, mmp_update_interval=SECONDS, encoding=utf8, encoding_flags=strict, discard, nodiscard, offset=BYTES, android_sparse",
		  "OPTS" },
		{ "type", 't', POPT_ARG_STRING, &a.type, 0,
		  "filesystem type: ext2, ext3 or ext4", "TYPE" },
		{ "usage-type", 'T', POPT_ARG_STRING, &a.usage, 0,
		  "usage types of mke2fs.conf (news, largefile, ...)",
		  "TYPES" },
		{ "blocks-per-group", 'g', POPT_ARG_STRING,
		  &a.blocks_per_group, 0,
		  "blocks in a group: a multiple of 8, 256 .. 8 x block size",
		  "N" },
		{ "flex-bg-size", 'G', POPT_ARG_INT, &a.flex_bg_size, 0,
		  "groups packed in a flex group (flex_bg)", "N" },
		{ "journal", 'j', POPT_ARG_NONE, &o->journal, 0,
		  "add a journal (ext3)", NULL },
		{ "journal-options", 'J', POPT_ARG_STRING, &a.journal_opts, 0,
		  "journal options: size=MIB, fast_commit_size=KIB", "OPTS" },
		{ "errors", 'e', POPT_ARG_STRING, &a.errors, 0,
		  "on errors: continue, remount-ro or panic", "BEHAVIOR" },
		{ "revision", 'r', POPT_ARG_STRING, &a.revision, 0,
		  "filesystem revision: 0 or 1 (1)", "REV" },
		{ "root-directory", 'd', POPT_ARG_STRING, &o->source, 0,
		  "copy a directory tree or an archive into the new filesystem",
		  "SOURCE" },
		{ "device-table", 0, POPT_ARG_STRING, &o->devtab_file, 0,
		  "make and chown the paths of a device table (genext2fs -D, makedevs format)",
		  "FILE" },
		{ "file-contexts", 0, POPT_ARG_STRING, &o->file_contexts, 0,
		  "SELinux labels from a file_contexts file (libselinux)",
		  "FILE" },
		{ "selinux-root", 0, POPT_ARG_STRING, &o->selinux_root, 0,
		  "the path the filesystem is mounted at, for the labels",
		  "PATH" },
		{ "relabel", 0, POPT_ARG_NONE, &o->relabel, 0,
		  "replace the labels the source has", NULL },
		CLI_IMAGE_OPTIONS(&o->image),
		{ "creator-os", 'o', POPT_ARG_STRING, &o->creator_os, 0,
		  "the creator OS: linux, hurd, freebsd, lites", "OS" },
		{ "last-mounted", 'M', POPT_ARG_STRING, &a.last_mounted, 0,
		  "the directory recorded as last mounted on", "DIR" },
		{ "super-only", 'S', POPT_ARG_NONE, &o->super_only, 0,
		  "write the superblocks and descriptors only (recovery)",
		  NULL },
		{ "undo", 'z', POPT_ARG_STRING, &o->undo_file, 0,
		  "save the overwritten blocks to an undo file (e2undo)",
		  "UNDOFILE" },
		{ "force", 'F', POPT_ARG_NONE, &o->force, 0,
		  "overwrite an existing filesystem or partition table",
		  NULL },
		{ "dry-run", 'n', POPT_ARG_NONE, &o->dry_run, 0,
		  "print the layout, write nothing", NULL },
		{ "quiet", 'q', POPT_ARG_NONE, &o->quiet, 0,
		  "print nothing but errors", NULL },
		{ "verbose", 'v', POPT_ARG_NONE, &o->verbose, 0,
		  "print the version and every group", NULL },
		{ NULL, 'c', POPT_ARG_NONE, NULL, OPT_CHECK,
		  "scan the target with badblocks(8) first (-cc: read-write)",
		  NULL },
		{ "bad-blocks-file", 'l', POPT_ARG_STRING, &o->badblocks_file,
		  0, "bad blocks to keep out of use (badblocks(8)'s list)",
		  "FILE" },
		{ NULL, 'D', POPT_ARG_NONE, &o->direct_io, 0,
		  "write with direct I/O (O_DIRECT), past the page cache",
		  NULL },
		{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION,
		  "print the version and exit", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc;
	int rc;

	memset(&a, 0, sizeof(a));
	defaults(o);
	pc = poptGetContext(cli_prog, argc, argv, table, 0);
	poptSetOtherOptionHelp(pc, "[OPTIONS] TARGET [SIZE]");
	rc = run_popt(pc, &a, o);
	raw_args_free(&a);
	poptFreeContext(pc);
	if (rc >= 0)
		mkfs_opts_free(o);
	return rc;
}

void mkfs_opts_free(struct mkfs_opts *o)
{
	free(o->target);
	free(o->size_arg);
	free(o->fs_type);
	free(o->usage_types);
	free(o->features_arg);
	free(o->source);
	free(o->undo_file);
	free(o->badblocks_file);
	o->badblocks_file = NULL;
	free(o->orphan_size);
	free(o->encoding);
	free(o->encoding_flags);
	free(o->extended);
	free(o->creator_os);
	free(o->devtab_file);
	mkfs_devtab_free(o->devtab);
	free(o->file_contexts);
	free(o->selinux_root);
	mkfs_selabel_close(o->selabel);
	cli_image_free(&o->image);
	o->file_contexts = o->selinux_root = NULL;
	o->selabel = NULL;
	o->devtab_file = NULL;
	o->devtab = NULL;
	o->extended = o->creator_os = NULL;
	o->orphan_size = o->encoding = o->encoding_flags = NULL;
	o->source = o->undo_file = NULL;
	o->target = NULL;
	o->size_arg = NULL;
	o->fs_type = o->usage_types = o->features_arg = NULL;
}
