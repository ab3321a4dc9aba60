// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -E, the extended options (see the man page): each comma-separated
 * word checked and stored in the options. Both the command line
 * (options.c) and mke2fs.conf's "options" relation (profile.c) go
 * through mkfs_parse_extended.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uuid/uuid.h>

#include "ondisk.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "mkfs.h"

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A decimal number in [lo, hi] after "name=" in tok; a bad one is named
 * with its value and the range. */
static int ext_number(const char *tok, const char *val, uint64_t lo,
		      uint64_t hi, uint64_t *out)
{
	if (cli_parse_size(val, 1, out) || *out < lo || *out > hi) {
		cli_error("-E: invalid value '%s' for '%s': %" PRIu64
			  " to %" PRIu64, val, tok, lo, hi);
		return -EINVAL;
	}
	return 0;
}

/* root_owner[=uid:gid]: without a value, the caller's ids (as mke2fs). */
static int ext_root_owner(const char *tok, const char *val,
			  struct mkfs_opts *o)
{
	unsigned long uid, gid;
	char end;

	o->root_owner_given = 1;
	if (!val) {
		o->root_uid = (uint32_t)getuid();
		o->root_gid = (uint32_t)getgid();
		return 0;
	}
	if (sscanf(val, "%lu:%lu%c", &uid, &gid, &end) != 2 ||
	    uid > UINT32_MAX || gid > UINT32_MAX) {
		cli_error("invalid extended option '%s': root_owner=UID:GID",
			  tok);
		return -EINVAL;
	}
	o->root_uid = (uint32_t)uid;
	o->root_gid = (uint32_t)gid;
	return 0;
}

static int ext_flag(const char *tok, const char *val, int *out)
{
	uint64_t v = 1;

	if (val && ext_number(tok, val, 0, 1, &v))
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* quotatype=usrquota:grpquota:prjquota (or usr, grp, prj; ':' or ','
 * between them), as mke2fs: the types given, no others. */
static int ext_quotatype(const char *val, struct mkfs_opts *o)
{
	static const char *const names[3][2] = {
		{ "usr", "usrquota" }, { "grp", "grpquota" },
		{ "prj", "prjquota" },
	};
	const char *p = val;

	o->quota_types = 0;
	while (*p) {
		size_t n = strcspn(p, ":");
		int t;

		for (t = 0; t < 3; t++)
			if ((strlen(names[t][0]) == n &&
			     !strncmp(p, names[t][0], n)) ||
			    (strlen(names[t][1]) == n &&
			     !strncmp(p, names[t][1], n)))
				break;
		if (t == 3) {
			cli_error("-E quotatype: unknown quota type at '%s' "
				  "(usrquota, grpquota, prjquota)", p);
			return -EINVAL;
		}
		o->quota_types |= 1u << t;
		p += n + (p[n] == ':');
	}
	if (!o->quota_types) {
		cli_error("-E quotatype: no quota type given");
		return -EINVAL;
	}
	return 0;
}

static int ext_one(char *tok, struct mkfs_opts *o)
{
	char *val = strchr(tok, '=');
	uint64_t v;
	int rc;

	if (val)
		*val++ = '\0';
	if (!strcmp(tok, "discard") || !strcmp(tok, "nodiscard")) {
		o->nodiscard = tok[0] == 'n';
		o->discard_given = 1;
		return 0;
	}
	if (!strcmp(tok, "hash_seed") && val) {
		if (uuid_parse(val, o->hash_seed)) {
			cli_error("invalid hash seed '%s'", val);
			return -EINVAL;
		}
		o->hash_seed_given = 1;
		return 0;
	}
	if ((!strcmp(tok, "stride") || !strcmp(tok, "stripe_width") ||
	     !strcmp(tok, "stripe-width")) && val) {
		/* s_raid_stride is 16 bits, s_raid_stripe_width 32 */
		if (ext_number(tok, val, 1, strcmp(tok, "stride") ?
			       UINT32_MAX : 0xffff, &v))
			return -EINVAL;
		if (!strcmp(tok, "stride"))
			o->stride = (uint32_t)v;
		else
			o->stripe_width = (uint32_t)v;
		return 0;
	}
	if (!strcmp(tok, "resize") && val)
		return ext_number(tok, val, 1, UINT64_MAX, &o->resize_blocks);
	if (!strcmp(tok, "lazy_itable_init"))
		return ext_flag(tok, val, &o->lazy_itable_init);
	if (!strcmp(tok, "lazy_journal_init")) {
		o->lazy_journal_init_given = 1;
		return ext_flag(tok, val, &o->lazy_journal_init);
	}
	if (!strcmp(tok, "num_backup_sb") && val) {
		if (ext_number(tok, val, 0, 2, &v))
			return -EINVAL;
		o->num_backup_sb = (int)v;
		return 0;
	}
	if (!strcmp(tok, "packed_meta_blocks"))
		return ext_flag(tok, val, &o->packed_meta_blocks);
	if (!strcmp(tok, "root_owner"))
		return ext_root_owner(tok, val, o);
	if (!strcmp(tok, "orphan_file_size") && val) {
		/* blocks, or K, M, G, T, s: converted with the block size */
		free(o->orphan_size);
		o->orphan_size = strdup(val);
		return o->orphan_size ? 0 : -ENOMEM;
	}
	if (!strcmp(tok, "quotatype") && val)
		return ext_quotatype(val, o);
	if ((!strcmp(tok, "encoding") || !strcmp(tok, "encoding_flags")) &&
	    val) {
		char **dst = tok[8] ? &o->encoding_flags : &o->encoding;

		free(*dst);
		*dst = strdup(val);
		return *dst ? 0 : -ENOMEM;
	}
	if ((!strcmp(tok, "desc_size") || !strcmp(tok, "desc-size")) && val) {
		/* 64 .. 1024, a power of two; 64bit is checked later */
		if (ext_number(tok, val, 64, 1024, &v))
			return -EINVAL;
		if (!is_pow2(v)) {
			cli_error("-E desc_size: %s is not a power of two from "
				  "64 to 1024", val);
			return -EINVAL;
		}
		o->desc_size = (uint32_t)v;
		return 0;
	}
	if (!strcmp(tok, "android_sparse") && !val) {
		o->android_sparse = 1;
		return 0;
	}
	if (!strcmp(tok, "offset") && val) {
		/* mke2fs: bytes, decimal, 0x hex or 0 octal (probe.c) */
		char *end;

		errno = 0;
		o->ext_offset = strtoull(val, &end, 0);
		if (errno || end == val || *end || *val == '-') {
			cli_error("-E offset: invalid offset '%s'", val);
			return -EINVAL;
		}
		o->ext_offset_given = 1;
		return 0;
	}
	if (!strcmp(tok, "revision") && val) {
		/* 1.47.4's spelling of -r (which it keeps for 1 only) */
		if (strcmp(val, "0") && strcmp(val, "1")) {
			cli_error("revision '%s' is not supported (0 or 1)",
				  val);
			return -EINVAL;
		}
		o->revision = val[0] - '0';
		return 0;
	}
	if (!strcmp(tok, "test_fs")) {
		o->test_fs = 1;
		return 0;
	}
	if (!strcmp(tok, "no_copy_xattrs")) {
		o->no_copy_xattrs = 1;
		return 0;
	}
	if (!strcmp(tok, "assume_storage_prezeroed"))
		return ext_flag(tok, val, &o->prezeroed);
	if (!strcmp(tok, "root_perms") && val) {
		char *end;
		unsigned long m = strtoul(val, &end, 8);

		if (!*val || *end || m > 07777) {
			cli_error("-E root_perms: invalid octal mode '%s'", val);
			return -EINVAL;
		}
		o->root_perms = (int)m;
		return 0;
	}
	if (!strcmp(tok, "mmp_update_interval") && val) {
		/* seconds; mke2fs refuses more than 300 */
		if (ext_number(tok, val, 0, 300, &v))
			return -EINVAL;
		o->mmp_interval = (uint32_t)v;
		return 0;
	}
	rc = mkfs_builder_ext(tok, val, o);	/* buildopt.c */
	if (rc <= 0)
		return rc;
	cli_error("-E: unknown extended option '%s%s%s' (known: hash_seed=, "
		  "stride=, stripe_width=, resize=, lazy_itable_init, "
		  "lazy_journal_init, num_backup_sb=, packed_meta_blocks, "
		  "root_owner, root_perms=, desc_size=, revision=, orphan_file_size=, quotatype=, "
		  "mmp_update_interval=, encoding=, encoding_flags=, test_fs, "
		  "no_copy_xattrs, assume_storage_prezeroed, discard, "
		  "nodiscard)", tok,
		  val ? "=" : "",
		  val ? val : "");
	return -EINVAL;
}

/* -E: comma-separated extended options (see the man page). */
int mkfs_parse_extended(const char *list, struct mkfs_opts *o)
{
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : -ENOMEM;

	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL;
	     !rc && tok; tok = strtok_r(NULL, ",", &save))
		rc = ext_one(tok, o);
	free(copy);
	return rc;
}
