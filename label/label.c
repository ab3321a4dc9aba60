// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-label: print or set the volume label (as e2label does), and print
 * or set the filesystem UUID where the feature set allows it (as tune2fs
 * -U decides). Writes go to the primary superblock and every backup.
 */
#include "config.h"

#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "csum.h"
#include "error.h"
#include "fs.h"
#include "io.h"
#include "ondisk.h"

#include "cli/image.h"
#include "cli/msg.h"
#include "cli/parse.h"

const char cli_prog[] = "extkit-label";

struct label_opts {
	char *target;
	char *new_label;
	int uuid_mode;		/* print or set the UUID instead */
	char *new_uuid;		/* NULL: print */
	int version;
	struct cli_image img;	/* --offset, --partition */
};

/* TARGET [LABEL], or "--uuid TARGET" (popt took TARGET as the value). */
static int take_args(poptContext pc, struct label_opts *o)
{
	char *args[2];

	if (o->uuid_mode && o->new_uuid && !poptPeekArg(pc)) {
		o->target = o->new_uuid;
		o->new_uuid = NULL;
		return 0;
	}
	if (cli_take_args(pc, args, 2, 0))
		return -EINVAL;
	o->target = args[0];
	o->new_label = args[1];
	if (o->uuid_mode && o->new_label) {
		cli_error("--uuid takes no LABEL argument");
		return -EINVAL;
	}
	if (o->new_label)
		cli_fit_label(o->new_label);
	return 0;
}

/* Parses argv into o; returns -1 to go on, else the exit code. */
static int parse_opts(int argc, const char **argv, struct label_opts *o)
{
	struct poptOption table[] = {
		{ "uuid", 'u', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL,
		  &o->new_uuid, 'u',
		  "print the UUID, or set it (a UUID, random, time or clear)",
		  "UUID" },
		{ "version", 'V', POPT_ARG_NONE, &o->version, 0,
		  "print the version and exit", NULL },
		CLI_IMAGE_OPTIONS(&o->img),
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc = poptGetContext(cli_prog, argc, argv, table, 0);
	int rc;

	poptSetOtherOptionHelp(pc, "[OPTIONS] TARGET [LABEL]");
	while ((rc = poptGetNextOpt(pc)) > 0)
		if (rc == 'u')
			o->uuid_mode = 1;
	if (rc < -1) {
		cli_popt_error(pc, rc);
		rc = 1;
	} else if (o->version) {
		cli_version();
		rc = 0;
	} else {
		rc = take_args(pc, o) ? 1 : -1;
	}
	poptFreeContext(pc);
	return rc;
}

static int open_target(const struct label_opts *o, int write,
		       struct extkit_fs **fs)
{
	const char *target = o->target;
	struct extkit_image_loc loc;
	char where[256], why[256], *path;
	int rc;

	if (cli_image_resolve(&o->img, target, &path, &loc))
		return -EINVAL;
	if (write) {
		rc = extkit_io_check_mounted(path, where, sizeof(where));
		if (rc > 0) {
			cli_mounted(target, where, "refusing to change it");
			free(path);
			return -EBUSY;
		}
	}
	/* Printing reads a truncated image as far as it goes (e2label). */
	rc = extkit_fs_open_image(path, &loc, write ? EXTKIT_FS_WRITE |
				  EXTKIT_FS_EXCL : EXTKIT_FS_PARTIAL, fs, why,
				  sizeof(why));
	free(path);
	if (rc)
		cli_error("%s: %s", target, why[0] ? why :
			  extkit_strerror(rc));
	else if ((*fs)->truncated)
		cli_warn_truncated(target, (*fs)->io->size /
				   (*fs)->g.block_size, (*fs)->sb.blocks_count);
	return rc;
}

static int set_label(struct extkit_fs *fs, const char *label)
{
	size_t len = strlen(label);	/* checked by parse_opts() */

	memset(fs->sb.volume_name, 0, sizeof(fs->sb.volume_name));
	memcpy(fs->sb.volume_name, label, len);
	extkit_fs_add_kbytes_written(fs);	/* as tune2fs: only what was
						 * written before the
						 * superblocks */
	return extkit_fs_write_supers(fs);	/* the descriptors keep */
}

/*
 * With metadata_csum every checksum is seeded from the UUID unless
 * metadata_csum_seed keeps the seed in the superblock (s_checksum_seed).
 * As tune2fs can, the old UUID's seed is kept there and the feature set,
 * so that no checksum changes (Linux mounts such a filesystem since 4.4).
 */
static void keep_csum_seed(struct extkit_fs *fs, const char *target)
{
	if (!(fs->sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) ||
	    (fs->sb.feature_incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		return;
	fs->sb.checksum_seed = extkit_csum_seed(&fs->sb);
	fs->sb.feature_incompat |= EXT4_FEATURE_INCOMPAT_CSUM_SEED;
	fprintf(stderr, "%s: %s: metadata_csum_seed set: the checksums keep "
		"the old UUID's seed\n", cli_prog, target);
}

static int set_uuid(struct extkit_fs *fs, const char *arg,
		    const char *target)
{
	uuid_t u;

	if (cli_parse_uuid(arg, u)) {
		cli_error("invalid UUID '%s'", arg);
		return -EINVAL;
	}
	keep_csum_seed(fs, target);
	memcpy(fs->sb.uuid, u, sizeof(fs->sb.uuid));
	extkit_fs_add_kbytes_written(fs);
	return extkit_fs_write_super(fs);
}

/*
 * A write failed after others were done. The primary superblock is
 * written last (extkit_fs_write_super): read it back and say which value
 * it holds, so the user knows what the filesystem now says.
 */
static void report_partial(struct extkit_fs *fs, const struct label_opts *o)
{
	struct ext2_super_block raw;
	const char *what = o->new_label ? "label" : "UUID";
	int is_new;

	if (extkit_io_read_bytes(fs->io, EXT2_SUPERBLOCK_OFFSET, &raw,
				 sizeof(raw))) {
		cli_error("%s: the %s may be changed in part (the primary "
			  "superblock cannot be read back)", o->target, what);
		return;
	}
	if (o->new_label)
		is_new = !memcmp(raw.s_volume_name, fs->sb.volume_name,
				 sizeof(raw.s_volume_name));
	else
		is_new = !memcmp(raw.s_uuid, fs->sb.uuid, sizeof(raw.s_uuid));
	if (is_new)
		cli_error("%s: the %s is changed: the primary superblock, "
			  "written last, holds the new one", o->target, what);
	else
		cli_error("%s: %s not changed: the primary superblock keeps "
			  "the old one (backup copies written before the error "
			  "may hold the new one)", o->target, what);
}

static int run(const struct label_opts *o)
{
	int write = o->new_label || (o->uuid_mode && o->new_uuid);
	struct extkit_fs *fs = NULL;
	int rc = open_target(o, write, &fs);

	if (rc)
		return rc;
	if (o->new_label) {
		rc = set_label(fs, o->new_label);
	} else if (o->uuid_mode && o->new_uuid) {
		rc = set_uuid(fs, o->new_uuid, o->target);
	} else if (o->uuid_mode) {
		char text[37];

		uuid_unparse_lower(fs->sb.uuid, text);
		printf("%s\n", text);
	} else {
		printf("%s\n", fs->sb.volume_name);
	}
	if (rc == 0 && write)
		rc = extkit_io_flush(fs->io);
	if (rc && rc != -EINVAL && rc != -EXTKIT_EUNSUPP) {
		cli_error_rc(o->target, rc);
		if (extkit_io_writes(fs->io))
			report_partial(fs, o);
	}
	extkit_fs_close(fs);
	return rc;
}

int main(int argc, const char **argv)
{
	struct label_opts o;

	int rc;

	memset(&o, 0, sizeof(o));
	rc = parse_opts(argc, argv, &o);
	if (rc < 0)
		rc = run(&o) ? 1 : 0;
	free(o.target);
	free(o.new_label);
	free(o.new_uuid);
	cli_image_free(&o.img);
	return rc;
}
