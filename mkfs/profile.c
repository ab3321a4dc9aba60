// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What mke2fs.conf and the options make of a run, as mke2fs's PRS()
 * decides it: the filesystem type (-t, else ext3 with -j, else ext2),
 * the usage types (-T, else the size class), the fs_types list (type
 * then usage types), and from it the features (base_features, each
 * type's features in order, default_features, then -O), block size,
 * inode ratio and size, flex_bg size, lazy init, reserved ratio.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "casefold.h"
#include "feature.h"
#include "journal_new.h"
#include "ondisk.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "mkfs.h"

#define MIB		(1024ULL * 1024)
#define TIB		(MIB * MIB)
#define MAX_TYPES	8

/* Features extkit-mkfs can make. */
#define MKFS_COMPAT_SUPP	(EXT2_FEATURE_COMPAT_EXT_ATTR |		\
				 EXT2_FEATURE_COMPAT_RESIZE_INODE |	\
				 EXT2_FEATURE_COMPAT_DIR_INDEX |	\
				 EXT3_FEATURE_COMPAT_HAS_JOURNAL |	\
				 EXT4_FEATURE_COMPAT_SPARSE_SUPER2 |	\
				 EXT4_FEATURE_COMPAT_ORPHAN_FILE |	\
				 EXT4_FEATURE_COMPAT_STABLE_INODES |	\
				 EXT4_FEATURE_COMPAT_FAST_COMMIT)
#define MKFS_INCOMPAT_SUPP	(EXT2_FEATURE_INCOMPAT_FILETYPE |	\
				 EXT4_FEATURE_INCOMPAT_EXTENTS |	\
				 EXT4_FEATURE_INCOMPAT_64BIT |		\
				 EXT4_FEATURE_INCOMPAT_FLEX_BG |	\
				 EXT2_FEATURE_INCOMPAT_META_BG |	\
				 EXT4_FEATURE_INCOMPAT_CSUM_SEED |	\
				 EXT4_FEATURE_INCOMPAT_LARGEDIR |	\
				 EXT4_FEATURE_INCOMPAT_ENCRYPT |	\
				 EXT4_FEATURE_INCOMPAT_MMP |		\
				 EXT4_FEATURE_INCOMPAT_CASEFOLD |	\
				 EXT4_FEATURE_INCOMPAT_EA_INODE |	\
				 EXT4_FEATURE_INCOMPAT_INLINE_DATA)
#define MKFS_RO_COMPAT_SUPP	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |	\
				 EXT2_FEATURE_RO_COMPAT_LARGE_FILE |	\
				 EXT4_FEATURE_RO_COMPAT_HUGE_FILE |	\
				 EXT4_FEATURE_RO_COMPAT_DIR_NLINK |	\
				 EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |	\
				 EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |	\
				 EXT4_FEATURE_RO_COMPAT_GDT_CSUM |	\
				 EXT4_FEATURE_RO_COMPAT_VERITY |	\
				 EXT4_FEATURE_RO_COMPAT_QUOTA |	\
				 EXT4_FEATURE_RO_COMPAT_PROJECT |	\
				 EXT4_FEATURE_RO_COMPAT_BIGALLOC)

/* The size classes of mke2fs (misc/mke2fs.c parse_fs_type). */
static const char *size_type_of(uint64_t bytes)
{
	if (bytes < 3 * MIB)
		return "floppy";
	if (bytes < 512 * MIB)
		return "small";
	if (bytes < 4 * TIB)
		return "default";
	if (bytes < 16 * TIB)
		return "big";
	return "huge";
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
		cli_error("feature '%s' is not supported by extkit-mkfs",
			  name);
		return -EINVAL;
	}
	if (clear)
		*masks[kind] &= ~bit;
	else
		*masks[kind] |= bit;
	return 0;
}

/* A feature list: names separated by commas or blanks, '^' clears;
 * "none" clears every feature (as mke2fs). */
static int edit_features(const char *list, struct mkfs_opts *o)
{
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : -ENOMEM;

	for (char *tok = copy ? strtok_r(copy, ", \t", &save) : NULL;
	     !rc && tok; tok = strtok_r(NULL, ", \t", &save)) {
		int clear = tok[0] == '^' || tok[0] == '-';

		if (!strcmp(tok, "none"))
			o->compat = o->incompat = o->ro_compat = 0;
		else
			rc = set_feature(o, tok + clear, clear);
	}
	free(copy);
	return rc;
}

int mkfs_creator_os(const char *name)
{
	static const char *const names[] = { "linux", "hurd", "masix",
					     "freebsd", "lites" };
	uint64_t v;

	if (!cli_parse_u64(name, &v))
		return v <= 4 ? (int)v : -1;
	if (!strcasecmp(name, "gnu"))
		return EXT2_OS_HURD;
	for (int i = 0; i < 5; i++)
		if (i != 2 && !strcasecmp(name, names[i]))
			return i;
	return -1;
}

int mkfs_features_check(const char *list)
{
	struct mkfs_opts scratch;

	memset(&scratch, 0, sizeof(scratch));
	return edit_features(list, &scratch);
}

int mkfs_fs_type_check(const char *type)
{
	if (!strcmp(type, "ext2") || !strcmp(type, "ext3") ||
	    !strcmp(type, "ext4"))
		return 0;
	cli_error("filesystem type '%s' is not supported (ext2, ext3 or ext4)",
		  type);
	return -EINVAL;
}

/* The fs_types list: the filesystem type, then each usage type. */
static int build_types(const struct mkfs_opts *o, const struct mkfs_conf *c,
		       const char *size_type, const char **types,
		       char **usage_copy)
{
	const char *ext = o->fs_type;
	char *save = NULL;
	int n = 0;

	if (!ext && o->creator_os &&
	    mkfs_creator_os(o->creator_os) == EXT2_OS_HURD)
		ext = "ext2";	/* mke2fs's type for the Hurd */
	if (!ext)
		ext = mkfs_conf_stanza_get(c, "", "fs_type");
	if (!ext)
		ext = o->journal ? "ext3" : "ext2";
	if (mkfs_fs_type_check(ext))
		return -EINVAL;
	types[n++] = ext;
	*usage_copy = strdup(o->usage_types ? o->usage_types : size_type);
	if (!*usage_copy)
		return -ENOMEM;
	for (char *t = strtok_r(*usage_copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (!mkfs_conf_has_type(c, t)) {
			if (o->usage_types)
				fprintf(stderr, "%s: warning: usage type '%s' is not in mke2fs.conf\n",
					cli_prog, t);
			continue;
		}
		if (n < MAX_TYPES)
			types[n++] = t;
	}
	if (o->creator_os && mkfs_creator_os(o->creator_os) == EXT2_OS_HURD &&
	    n < MAX_TYPES)
		types[n++] = "hurd";
	types[n] = NULL;
	return 0;
}

/* Features the Hurd does not support, as mke2fs lists them. */
static const struct { int word; uint32_t bit; const char *name; } no_hurd[] = {
	{ 1, EXT2_FEATURE_INCOMPAT_FILETYPE, "filetype" },
	{ 2, EXT4_FEATURE_RO_COMPAT_HUGE_FILE, "huge_file" },
	{ 2, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, "metadata_csum" },
	{ 1, EXT4_FEATURE_INCOMPAT_EA_INODE, "ea_inode" },
	{ 1, EXT4_FEATURE_INCOMPAT_CASEFOLD, "casefold" },
};

static uint32_t *feature_word(struct mkfs_opts *o, int word)
{
	return word == 1 ? &o->incompat : &o->ro_compat;
}

static void hurd_mask(struct mkfs_opts *o)
{
	for (size_t i = 0; i < sizeof(no_hurd) / sizeof(no_hurd[0]); i++)
		*feature_word(o, no_hurd[i].word) &= ~no_hurd[i].bit;
}

static int hurd_refuse(struct mkfs_opts *o)
{
	for (size_t i = 0; i < sizeof(no_hurd) / sizeof(no_hurd[0]); i++)
		if (*feature_word(o, no_hurd[i].word) & no_hurd[i].bit) {
			cli_error("the Hurd does not support the %s feature",
				  no_hurd[i].name);
			return -EINVAL;
		}
	return 0;
}

static int resolve_features(struct mkfs_opts *o, const struct mkfs_conf *c,
			    const char *const *types)
{
	const char *base = mkfs_conf_get(c, types, "base_features");
	int hurd = o->creator_os &&
		   mkfs_creator_os(o->creator_os) == EXT2_OS_HURD;
	uint32_t profile_orphan, profile_seed;
	const char *v;
	int rc;

	o->compat = o->incompat = o->ro_compat = 0;
	rc = edit_features(base ? base :
			   "sparse_super,large_file,filetype,resize_inode,dir_index",
			   o);
	for (int i = 0; !rc && types[i]; i++) {
		v = mkfs_conf_stanza_get(c, types[i], "features");
		if (v)
			rc = edit_features(v, o);
	}
	if (hurd)	/* what the Hurd lacks, off before the user's */
		hurd_mask(o);
	v = mkfs_conf_get(c, types, "default_features");
	if (!rc && v)
		rc = edit_features(v, o);
	if (!rc && o->journal)
		o->compat |= EXT3_FEATURE_COMPAT_HAS_JOURNAL;
	profile_orphan = o->compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE;
	profile_seed = o->incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED;
	if (!rc && o->features_arg)
		rc = edit_features(o->features_arg, o);
	if (!rc && o->encoding)	/* -E encoding= sets casefold, as mke2fs */
		o->incompat |= EXT4_FEATURE_INCOMPAT_CASEFOLD;
	/* mke2fs drops the profile's orphan_file without a journal and its
	 * metadata_csum_seed without metadata_csum, silently (-O ^has_journal
	 * or ^metadata_csum on ext4); asked by -O, they are errors */
	if (profile_orphan && !(o->compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))
		o->compat &= ~EXT4_FEATURE_COMPAT_ORPHAN_FILE;
	if (profile_seed &&
	    !(o->ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		o->incompat &= ~EXT4_FEATURE_INCOMPAT_CSUM_SEED;
	if (!rc && hurd)
		rc = hurd_refuse(o);
	return rc;
}

/*
 * Revision 0 (-r 0) has no feature words at all (s_feature_* exist only
 * from revision 1): every feature of the profile is dropped, as mke2fs
 * drops them, but a feature or journal asked for by name is an error.
 */
static int drop_features_rev0(struct mkfs_opts *o)
{
	struct mkfs_opts asked;

	memset(&asked, 0, sizeof(asked));
	if (o->features_arg && edit_features(o->features_arg, &asked))
		return -EINVAL;
	if (asked.compat || asked.incompat || asked.ro_compat) {
		cli_error("features are not supported on revision 0 "
			  "filesystems");
		return -EINVAL;
	}
	if (o->journal || o->journal_mb) {
		cli_error("journals are not supported on revision 0 "
			  "filesystems");
		return -EINVAL;
	}
	o->compat = o->incompat = o->ro_compat = 0;
	return 0;
}

/* The rules of the features ext4 added, as mke2fs has them. */
static int check_features_ext4(struct mkfs_opts *o)
{
	if ((o->incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	    !(o->ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		cli_error("metadata_csum_seed needs metadata_csum");
		return -EINVAL;
	}
	if ((o->compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    !(o->compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL)) {
		cli_error("orphan_file needs a journal (has_journal)");
		return -EINVAL;
	}
	if ((o->ro_compat & EXT4_FEATURE_RO_COMPAT_VERITY) &&
	    !(o->incompat & EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		cli_error("verity needs the extent feature (-O extent)");
		return -EINVAL;
	}
	/* project quota: prjquota in -E quotatype sets the feature, the
	 * feature adds the type; inodes need room for the project id */
	if (o->quota_types & 4)
		o->ro_compat |= EXT4_FEATURE_RO_COMPAT_PROJECT;
	if (o->ro_compat & EXT4_FEATURE_RO_COMPAT_PROJECT) {
		o->quota_types |= 4;
		if (o->inode_size == EXT2_GOOD_OLD_INODE_SIZE) {
			cli_error("128-byte inodes are too small for project quota");
			return -EINVAL;
		}
	}
	/* metadata_csum supersedes uninit_bg: mke2fs drops uninit_bg */
	if (o->ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		o->ro_compat &= ~EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
	return 0;
}

/* Feature rules mke2fs enforces or applies. */
static int check_features(struct mkfs_opts *o)
{
	if (o->desc_size && !(o->incompat & EXT4_FEATURE_INCOMPAT_64BIT)) {
		cli_error("-E desc_size needs the 64bit feature (-O 64bit)");
		return -EINVAL;
	}
	if ((o->compat & EXT2_FEATURE_COMPAT_RESIZE_INODE) &&
	    !(o->ro_compat & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER)) {
		cli_error("resize_inode needs sparse_super");
		return -EINVAL;
	}
	if ((o->incompat & EXT4_FEATURE_INCOMPAT_64BIT) &&
	    !(o->incompat & EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		cli_error("64bit needs the extent feature (-O extent)");
		return -EINVAL;
	}
	if ((o->incompat & EXT2_FEATURE_INCOMPAT_META_BG) &&
	    (o->compat & EXT2_FEATURE_COMPAT_RESIZE_INODE)) {
		if (o->features_arg && strstr(o->features_arg, "meta_bg") &&
		    strstr(o->features_arg, "resize_inode") &&
		    !strstr(o->features_arg, "^resize_inode")) {
			cli_error("resize_inode and meta_bg exclude each other");
			return -EINVAL;
		}
		o->compat &= ~EXT2_FEATURE_COMPAT_RESIZE_INODE;
	}
	if (o->flex_bg_size && !(o->incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG)) {
		cli_error("-G needs the flex_bg feature");
		return -EINVAL;
	}
	if (o->journal_mb && !(o->compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))
		o->compat |= EXT3_FEATURE_COMPAT_HAS_JOURNAL;
	return check_features_ext4(o);
}

/* Sizes and switches from the profile, unless an option gave them. */
static void resolve_numbers(struct mkfs_opts *o, const struct mkfs_conf *c,
			    const char *const *types)
{
	long bs = mkfs_conf_get_int(c, types, "blocksize", 4096);

	if (bs <= 0)		/* -1: the page size, at least -bs */
		bs = sysconf(_SC_PAGESIZE) < -bs ? -bs :
		     sysconf(_SC_PAGESIZE);
	o->def_block_size = (uint32_t)bs;
	o->def_inode_ratio = (uint32_t)mkfs_conf_get_int(c, types,
							 "inode_ratio", 8192);
	o->def_inode_size = (uint32_t)mkfs_conf_get_int(c, types,
							"inode_size", 128);
	/* project quota: at least 256 bytes unless -I said otherwise */
	if ((o->ro_compat & EXT4_FEATURE_RO_COMPAT_PROJECT) &&
	    o->def_inode_size < 2 * EXT2_GOOD_OLD_INODE_SIZE)
		o->def_inode_size = 2 * EXT2_GOOD_OLD_INODE_SIZE;
	/* mke2fs's warning goes by the size asked (-I or the profile),
	 * revision 0 or not; the profile can turn it off (hurd) */
	o->warn_y2038 = (o->inode_size ? o->inode_size : o->def_inode_size) ==
			EXT2_GOOD_OLD_INODE_SIZE &&
			mkfs_conf_get_bool(c, types, "warn_y2038_dates", 1);
	if (o->revision == 0)	/* fixed at 128 bytes before revision 1 */
		o->inode_size = o->def_inode_size = EXT2_GOOD_OLD_INODE_SIZE;
	if (!o->flex_bg_size)
		o->flex_bg_size = (uint32_t)mkfs_conf_get_int(c, types,
							      "flex_bg_size",
							      16);
	if (o->lazy_itable_init < 0)
		o->lazy_itable_init = mkfs_conf_get_bool(c, types,
			"lazy_itable_init",
			access("/sys/fs/ext4/features/lazy_itable_init",
			       R_OK) == 0);
	if (o->lazy_journal_init < 0)
		o->lazy_journal_init = mkfs_conf_get_bool(c, types,
			"lazy_journal_init", 0);
	if (o->num_backup_sb < 0)
		o->num_backup_sb = (int)mkfs_conf_get_int(c, types,
							  "num_backup_sb", 2);
	if (o->num_backup_sb < 0 || o->num_backup_sb > 2)
		o->num_backup_sb = 2;
	if (o->packed_meta_blocks < 0)
		o->packed_meta_blocks = mkfs_conf_get_bool(c, types,
			"packed_meta_blocks", 0);
	/* zeros promised: nothing to zero now or later (mke2fs) */
	if (o->prezeroed)
		o->lazy_itable_init = o->lazy_journal_init = 1;
	if (!o->reserved_given) {
		const char *r = mkfs_conf_get(c, types, "reserved_ratio");

		if (r)
			o->reserved_pct = strtod(r, NULL);
	}
}

/* utf8 (or its full name utf8-12.1), the only encoding there is. */
static int encoding_of(const char *name, uint16_t *enc)
{
	if (strcmp(name, "utf8") && strcmp(name, "utf8-12.1")) {
		cli_error("unknown filename encoding '%s' (utf8)", name);
		return -EINVAL;
	}
	*enc = EXTKIT_ENC_UTF8_12_1;
	return 0;
}

/* Encoding flags: names joined by '-', each maybe "no"-prefixed
 * (strict, nostrict), over utf8's default of none. */
static int encoding_flags_of(const char *list, uint16_t *flags)
{
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : -ENOMEM;

	for (char *f = copy ? strtok_r(copy, "-", &save) : NULL; !rc && f;
	     f = strtok_r(NULL, "-", &save)) {
		int neg = !strncmp(f, "no", 2);

		if (strcmp(f + 2 * neg, "strict")) {
			cli_error("unknown encoding flag '%s' (strict, nostrict)",
				  f);
			rc = -EINVAL;
		} else if (neg) {
			*flags &= (uint16_t)~EXTKIT_ENC_STRICT_MODE_FL;
		} else {
			*flags |= EXTKIT_ENC_STRICT_MODE_FL;
		}
	}
	free(copy);
	return rc;
}

/* casefold's encoding and flags: -E, else the profile's "encoding" and
 * "encoding_flags", else utf8 with no flags (mke2fs). */
static int resolve_encoding(struct mkfs_opts *o, const struct mkfs_conf *c,
			    const char *const *types)
{
	const char *en = o->encoding, *ef = o->encoding_flags;

	if (!(o->incompat & EXT4_FEATURE_INCOMPAT_CASEFOLD)) {
		if (!ef)
			return 0;
		cli_error("encoding_flags needs an encoding (-E encoding=utf8)");
		return -EINVAL;
	}
	if (!en)
		en = mkfs_conf_get(c, types, "encoding");
	if (!ef && !o->encoding)
		ef = mkfs_conf_get(c, types, "encoding_flags");
	o->s_encoding_flags = 0;
	if (encoding_of(en ? en : "utf8", &o->s_encoding))
		return -EINVAL;
	return ef ? encoding_flags_of(ef, &o->s_encoding_flags) : 0;
}

/* default_mntopts: mount option names, ^ to clear (e2p's table). */
static int parse_mntopts(const char *list, uint32_t *out)
{
	static const struct { const char *name; uint32_t bit; } t[] = {
		{ "debug", 0x1 }, { "bsdgroups", 0x2 }, { "user_xattr", 0x4 },
		{ "acl", 0x8 }, { "uid16", 0x10 }, { "journal_data", 0x20 },
		{ "journal_data_ordered", 0x40 },
		{ "journal_data_writeback", 0x60 }, { "nobarrier", 0x100 },
		{ "block_validity", 0x200 }, { "discard", 0x400 },
		{ "nodelalloc", 0x800 },
	};
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : -ENOMEM;

	for (char *tok = copy ? strtok_r(copy, ", \t", &save) : NULL;
	     !rc && tok; tok = strtok_r(NULL, ", \t", &save)) {
		int clear = tok[0] == '^';
		size_t i;

		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			if (!strcmp(tok + clear, t[i].name))
				break;
		if (i == sizeof(t) / sizeof(t[0])) {
			cli_error("mke2fs.conf: default_mntopts: unknown mount "
				  "option '%s'", tok + clear);
			rc = -EINVAL;
		} else if (clear) {
			*out &= ~t[i].bit;
		} else {
			*out |= t[i].bit;
		}
	}
	free(copy);
	return rc;
}

/*
 * The other relations mke2fs reads for the types: discard (unless -E
 * said), errors (unless -e said; a bad value is ignored, as mke2fs),
 * hash_alg, enable_periodic_fsck and default_mntopts.
 */
static int profile_misc(struct mkfs_opts *o, const struct mkfs_conf *c,
			const char *const *types)
{
	static const char *const errs[] = { "continue", "remount-ro",
					    "panic" };
	static const char *const hashes[] = { "legacy", "half_md4", "tea" };
	const char *v;

	if (!o->discard_given)
		o->nodiscard = !mkfs_conf_get_bool(c, types, "discard", 1);
	v = o->errors_behavior ? NULL : mkfs_conf_get(c, types, "errors");
	for (uint16_t i = 0; v && i < 3; i++)
		if (!strcmp(v, errs[i])) {
			o->errors_behavior = i + 1;
			v = NULL;
		}
	if (v)
		fprintf(stderr, "%s: mke2fs.conf: errors = %s: not continue, "
			"remount-ro or panic; ignored\n", cli_prog, v);
	o->hash_alg = 1;
	v = mkfs_conf_get(c, types, "hash_alg");
	for (uint8_t i = 0; v && i < 3; i++)
		if (!strcmp(v, hashes[i]))
			o->hash_alg = i;
	o->periodic_fsck = mkfs_conf_get_bool(c, types,
					      "enable_periodic_fsck", 0);
	v = mkfs_conf_get(c, types, "default_mntopts");
	o->mntopts = 0;
	return parse_mntopts(v ? v : "acl,user_xattr", &o->mntopts);
}

/* [defaults] creator_os when -o did not say (mke2fs reads it there). */
static int profile_creator_os(struct mkfs_opts *o, const struct mkfs_conf *c)
{
	const char *v = o->creator_os ? NULL :
			mkfs_conf_stanza_get(c, "", "creator_os");

	if (!v)
		return 0;
	if (mkfs_creator_os(v) < 0) {
		cli_error("mke2fs.conf: creator_os = %s: unknown operating "
			  "system", v);
		return -EINVAL;
	}
	o->creator_os = strdup(v);
	return o->creator_os ? 0 : -ENOMEM;
}

/*
 * Each type's options relation holds extended options, as -E takes them,
 * read in the types' order; -E comes after, so it has the last word (as
 * mke2fs parses them).
 */
static int profile_options(struct mkfs_opts *o, const struct mkfs_conf *c,
			   const char *const *types)
{
	int rc = 0, any = 0;

	for (int i = 0; !rc && types[i]; i++) {
		const char *v = mkfs_conf_stanza_get(c, types[i], "options");

		if (v && *v) {
			rc = mkfs_parse_extended(v, o);
			any = 1;
		}
	}
	if (!rc && any && o->extended)
		rc = mkfs_parse_extended(o->extended, o);
	return rc;
}

int mkfs_profile_apply(struct mkfs_opts *o, uint64_t size_bytes)
{
	const char *types[MAX_TYPES + 1];
	char *usage = NULL;
	struct mkfs_conf c;
	int rc = mkfs_conf_load(&c);

	o->size_type = size_type_of(size_bytes);
	if (!rc)
		rc = profile_creator_os(o, &c);
	if (!rc)
		rc = build_types(o, &c, o->size_type, types, &usage);
	if (!rc)
		rc = profile_misc(o, &c, types);
	if (!rc)
		rc = profile_options(o, &c, types);
	if (!rc)
		rc = resolve_features(o, &c, types);
	if (!rc && o->revision == 0)
		rc = drop_features_rev0(o);
	if (!rc)
		rc = check_features(o);
	if (!rc)
		rc = resolve_encoding(o, &c, types);
	if (!rc)
		resolve_numbers(o, &c, types);
	if (!rc)
		rc = mkfs_bigalloc_resolve(o, &c, types);
	if (rc == -ENOMEM)
		cli_error("out of memory");
	free(usage);
	mkfs_conf_free(&c);
	return rc;
}
