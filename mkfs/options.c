// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-mkfs options: one popt table (the only description of the
 * options, --help included), then validate_opts() turns the strings into
 * numbers, feature masks, a UUID and a hash seed. Every bad argument is
 * one line on stderr and exit 1; nothing has been opened yet.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <popt.h>
#include <uuid/uuid.h>

#include "clock.h"
#include "feature.h"
#include "ondisk.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "mkfs.h"

/* Features extkit-mkfs can create (ext2 revision 1). */
#define MKFS_COMPAT_SUPP	(EXT2_FEATURE_COMPAT_EXT_ATTR |		\
				 EXT2_FEATURE_COMPAT_RESIZE_INODE |	\
				 EXT2_FEATURE_COMPAT_DIR_INDEX)
#define MKFS_INCOMPAT_SUPP	EXT2_FEATURE_INCOMPAT_FILETYPE
#define MKFS_RO_COMPAT_SUPP	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |	\
				 EXT2_FEATURE_RO_COMPAT_LARGE_FILE)

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
	char *features;		/* every -O joined with commas */
	double reserved;
	int reserved_given;
};

enum { OPT_FEATURES = 'O', OPT_VERSION = 'V', OPT_RESERVED = 'm' };

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
	if (a->inode_ratio && a->inode_count) {
		cli_error("-i and -N exclude each other");
		return -EINVAL;
	}
	return 0;
}

static int set_feature(struct mkfs_opts *o, const char *name, int clear)
{
	static const uint32_t supp[3] = {
		[EXTKIT_COMPAT] = MKFS_COMPAT_SUPP,
		[EXTKIT_INCOMPAT] = MKFS_INCOMPAT_SUPP,
		[EXTKIT_RO_COMPAT] = MKFS_RO_COMPAT_SUPP,
	};
	uint32_t *masks[3] = {
		[EXTKIT_COMPAT] = &o->compat,
		[EXTKIT_INCOMPAT] = &o->incompat,
		[EXTKIT_RO_COMPAT] = &o->ro_compat,
	};
	enum extkit_feature_kind kind;
	uint32_t bit;

	if (extkit_feature_lookup(name, &kind, &bit)) {
		cli_error("unknown feature '%s'", name);
		return -EINVAL;
	}
	if (!(supp[kind] & bit)) {
		if (clear)
			return 0;
		cli_error("feature '%s' is not supported (ext2 only)", name);
		return -EINVAL;
	}
	if (clear)
		*masks[kind] &= ~bit;
	else
		*masks[kind] |= bit;
	return 0;
}

/* -O list: names separated by commas or blanks, '^' clears; "none"
 * clears every feature (as mke2fs). */
static int parse_features(char *list, struct mkfs_opts *o)
{
	char *save = NULL;

	for (char *tok = strtok_r(list, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		int clear = tok[0] == '^' || tok[0] == '-';

		if (!strcmp(tok, "none")) {
			o->compat = o->incompat = o->ro_compat = 0;
			continue;
		}
		if (set_feature(o, tok + clear, clear))
			return -EINVAL;
	}
	if ((o->compat & EXT2_FEATURE_COMPAT_RESIZE_INODE) &&
	    !(o->ro_compat & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER)) {
		cli_error("resize_inode needs sparse_super");
		return -EINVAL;
	}
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

/* -E root_owner[=UID:GID]: without a value, the user running mkfs. */
static int parse_root_owner(const char *v, struct mkfs_opts *o)
{
	unsigned long uid, gid;
	char *end;

	o->root_owner_set = 1;
	if (!v) {
		o->root_uid = (uint32_t)getuid();
		o->root_gid = (uint32_t)getgid();
		return 0;
	}
	errno = 0;
	uid = strtoul(v, &end, 10);
	if (end == v || *end != ':' || errno || uid > UINT32_MAX)
		goto bad;
	v = end + 1;
	gid = strtoul(v, &end, 10);
	if (end == v || *end || errno || gid > UINT32_MAX)
		goto bad;
	o->root_uid = (uint32_t)uid;
	o->root_gid = (uint32_t)gid;
	return 0;
bad:
	cli_error("invalid root_owner '%s': UID:GID", v);
	return -EINVAL;
}

/* -E: comma-separated: hash_seed=UUID, discard, nodiscard,
 * root_owner[=UID:GID]. */
static int parse_extended(char *list, struct mkfs_opts *o)
{
	char *save = NULL;

	for (char *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "discard") || !strcmp(tok, "nodiscard")) {
			o->nodiscard = tok[0] == 'n';
			continue;
		}
		if (!strncmp(tok, "hash_seed=", 10)) {
			if (uuid_parse(tok + 10, o->hash_seed)) {
				cli_error("invalid hash seed '%s'", tok + 10);
				return -EINVAL;
			}
			o->hash_seed_given = 1;
			continue;
		}
		if (!strncmp(tok, "root_owner", 10) &&
		    (tok[10] == '=' || !tok[10])) {
			if (parse_root_owner(tok[10] ? tok + 11 : NULL, o))
				return -EINVAL;
			continue;
		}
		cli_error("unknown extended option '%s'", tok);
		return -EINVAL;
	}
	return 0;
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

static int parse_misc(const struct raw_args *a, struct mkfs_opts *o)
{
	const char *bad = NULL;

	if (a->type && strcmp(a->type, "ext2")) {
		cli_error("filesystem type '%s' is not supported (ext2 only)",
			  a->type);
		return -EINVAL;
	}
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
	if (parse_inode_numbers(a, o))
		return -EINVAL;
	if (a->reserved_given)
		o->reserved_pct = a->reserved;
	if (a->label)
		strcpy(o->label, a->label);
	if (a->features && parse_features(a->features, o))
		return -EINVAL;
	if (pick_uuid(a->uuid, o))
		return -EINVAL;
	if (a->extended && parse_extended(a->extended, o))
		return -EINVAL;
	pick_hash_seed(o);
	return 0;
}

static void defaults(struct mkfs_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->reserved_pct = 5.0;
	o->compat = EXT2_FEATURE_COMPAT_EXT_ATTR |
		    EXT2_FEATURE_COMPAT_DIR_INDEX;
	o->incompat = EXT2_FEATURE_INCOMPAT_FILETYPE;
	o->ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |
		       EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
}

/* Appends one -O argument (popt's copy, freed here) to the joined list. */
static int add_features(struct raw_args *a, char *arg)
{
	size_t old = a->features ? strlen(a->features) : 0;
	char *p;

	if (!arg)
		return 0;
	p = realloc(a->features, old + strlen(arg) + 2);
	if (!p) {
		free(arg);
		return -ENOMEM;
	}
	if (old)
		p[old++] = ',';
	strcpy(p + old, arg);
	a->features = p;
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
		case OPT_FEATURES:
			if (add_features(a, poptGetOptArg(pc))) {
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
		{ "extended", 'E', POPT_ARG_STRING, &a.extended, 0,
		  "extended options: hash_seed=UUID, discard, nodiscard, "
		  "root_owner[=UID:GID]",
		  "OPTS" },
		{ "type", 't', POPT_ARG_STRING, &a.type, 0,
		  "filesystem type (ext2)", "TYPE" },
		{ "root-directory", 'd', POPT_ARG_STRING, &o->source, 0,
		  "copy a directory tree or an archive into the new filesystem",
		  "SOURCE" },
		{ "force", 'F', POPT_ARG_NONE, &o->force, 0,
		  "overwrite an existing filesystem or partition table",
		  NULL },
		{ "dry-run", 'n', POPT_ARG_NONE, &o->dry_run, 0,
		  "print the layout, write nothing", NULL },
		{ "quiet", 'q', POPT_ARG_NONE, &o->quiet, 0,
		  "print nothing but errors", NULL },
		{ "verbose", 'v', POPT_ARG_NONE, &o->verbose, 0,
		  "print the version and every group", NULL },
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
	free(o->source);
	o->source = NULL;
	o->target = NULL;
	o->size_arg = NULL;
}
