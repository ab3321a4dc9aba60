// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-label: print or set the volume label (as e2label does), and print
 * or set the filesystem UUID (as tune2fs -U). Writes go to the primary
 * superblock and every backup.
 *
 * A new UUID under metadata_csum (without metadata_csum_seed) changes the
 * seed of nearly every checksum, so every checksummed structure is
 * rewritten, as tune2fs -U does; unlike tune2fs, all-or-nothing:
 *
 *   plan    everything read and checked with the old seed, every new
 *           block built in memory (lib/csum_rewrite.c); a filesystem not
 *           clean, a bad checksum, an unreadable block refuse before any
 *           write;
 *   commit  the new blocks as one jbd2 transaction in the filesystem's
 *           own journal, needs_recovery set, then the journal superblock
 *           pointing at it: the commit point (lib/csum_commit.c);
 *   place   every block written in place, the journal emptied, the flag
 *           cleared.
 *
 * Cut short before the commit point, the old UUID is valid everywhere
 * (needs_recovery may be set over an empty journal); after it, a replay
 * (extkit-label run again, extkit-fsck, e2fsck, the kernel's mount)
 * gives the new UUID everywhere. Without an internal journal, or with
 * one too small for the transaction, it refuses: --keep-csum-seed
 * instead keeps the old seed in the superblock (metadata_csum_seed, a
 * single superblock write; GRUB before 2.12 cannot read such a
 * filesystem), which is also what happens when the feature is on.
 */
#include "config.h"

#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "csum.h"
#include "csum_rewrite.h"
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
	int keep_seed;		/* --keep-csum-seed */
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
		{ "keep-csum-seed", 0, POPT_ARG_NONE, &o->keep_seed, 0,
		  "with metadata_csum: set metadata_csum_seed instead of "
		  "rewriting every checksum", NULL },
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

/*
 * needs_recovery: a rewrite cut short after its commit point (or a
 * journal the kernel left): the journal is replayed first, as e2fsck
 * would, so that the rewrite is finished before anything else; then
 * the filesystem is opened again where it was found.
 */
static int finish_interrupted(const char *target, const char *path,
			      const struct extkit_image_loc *loc,
			      struct extkit_fs **fs, char *why, size_t len)
{
	const char *w = NULL;
	int replayed;
	int rc = extkit_csum_rewrite_finish(fs, &replayed, &w);

	if (rc) {
		extkit_fs_close(*fs);
		*fs = NULL;
		snprintf(why, len, "%s", w ? w : extkit_strerror(rc));
		return rc;
	}
	if (!replayed)
		return 0;
	fprintf(stderr, "%s: %s: journal replayed (an interrupted change "
		"finished)\n", cli_prog, target);
	return extkit_fs_open_image(path, loc, EXTKIT_FS_WRITE |
				    EXTKIT_FS_EXCL, fs, why, len);
}

static int open_target(const struct label_opts *o, int write,
		       struct extkit_fs **fs)
{
	const char *target = o->target;
	struct extkit_image_loc loc;
	char where[256], why[256] = "", *path;
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
	if (!rc && write)
		rc = finish_interrupted(target, path, &loc, fs, why,
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
 * --keep-csum-seed: the old UUID's seed kept in s_checksum_seed and
 * metadata_csum_seed set, so that no checksum changes (Linux mounts such
 * a filesystem since 4.4; GRUB since 2.12).
 */
static void keep_csum_seed(struct extkit_fs *fs, const char *target)
{
	fs->sb.checksum_seed = extkit_csum_seed(&fs->sb);
	fs->sb.feature_incompat |= EXT4_FEATURE_INCOMPAT_CSUM_SEED;
	fprintf(stderr, "%s: %s: metadata_csum_seed set: the checksums keep "
		"the old UUID's seed\n", cli_prog, target);
}

static int needs_rewrite(const struct extkit_fs *fs)
{
	return extkit_has_metadata_csum(&fs->sb) &&
	       !(fs->sb.feature_incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED);
}

/* Every checksum rewritten with the new UUID's seed, all-or-nothing. */
static int rewrite_csums(struct extkit_fs *fs, const uint8_t *u,
			 const char *target)
{
	struct extkit_csum_plan plan;
	const char *why = NULL;
	int rc = extkit_csum_rewrite_plan(fs, u, &plan, &why);

	if (!rc) {
		rc = extkit_csum_rewrite_commit(fs, &plan, &why);
		extkit_csum_plan_free(&plan);
	}
	if (rc && why) {
		cli_error("%s: cannot set the UUID: %s", target, why);
		return -EINVAL;
	}
	if (rc && extkit_io_writes(fs->io)) {
		/* Before the commit point the old UUID holds everywhere,
		 * after it the journal holds the new one: a rerun replays
		 * it, or starts again. */
		cli_error("%s: %s: the UUID change was cut short; run the same "
			  "command again to finish it", target,
			  extkit_strerror(rc));
		return -EINVAL;
	}
	return rc;
}

static int set_uuid(struct extkit_fs *fs, const struct label_opts *o)
{
	uuid_t u;

	if (cli_parse_uuid(o->new_uuid, u)) {
		cli_error("invalid UUID '%s'", o->new_uuid);
		return -EINVAL;
	}
	if (needs_rewrite(fs) && !memcmp(u, fs->sb.uuid, sizeof(u)))
		return 0;	/* already (a rerun after a replay) */
	if (needs_rewrite(fs) && !o->keep_seed)
		return rewrite_csums(fs, u, o->target);
	if (needs_rewrite(fs))
		keep_csum_seed(fs, o->target);
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
		rc = set_uuid(fs, o);
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
