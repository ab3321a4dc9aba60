// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-mkfs options for image builders (issue 35), apart from the
 * general ones of options.c: -E hard_dereference and clamp_mtime, and
 * the checks made once every option is read (the device table loaded).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/msg.h"

#include "devtable.h"
#include "mkfs.h"
#include "selabel.h"

/* An archive, "-" included (a missing source is refused later). */
static int source_is_archive(const char *source)
{
	struct stat st;

	if (!strcmp(source, "-"))
		return 1;
	return !stat(source, &st) && !S_ISDIR(st.st_mode);
}

int mkfs_builder_ext(const char *tok, const char *val, struct mkfs_opts *o)
{
	if (!strcmp(tok, "hard_dereference") && !val) {
		o->hard_deref = 1;
		return 0;
	}
	if (!strcmp(tok, "clamp_mtime")) {
		if (val && strcmp(val, "0") && strcmp(val, "1")) {
			cli_error("-E clamp_mtime: 0 or 1, not '%s'", val);
			return -EINVAL;
		}
		o->clamp_mtime = !val || val[0] == '1';
		return 0;
	}
	if (!strcmp(tok, "fit_slack") && val) {
		char *end;
		unsigned long v = strtoul(val, &end, 10);

		if (!*val || *end || v > 1000) {
			cli_error("-E fit_slack: a percentage, 0 to 1000, not "
				  "'%s'", val);
			return -EINVAL;
		}
		o->fit_slack = (uint32_t)v;
		return 0;
	}
	return 1;
}

/* --file-contexts: opened now, so a bad file stops the run before
 * anything is written. */
static int check_labels(struct mkfs_opts *o)
{
	const char *why = NULL;

	if (!o->file_contexts) {
		if (o->selinux_root || o->relabel) {
			cli_error("--selinux-root and --relabel go with "
				  "--file-contexts");
			return -EINVAL;
		}
		return 0;
	}
	if (!o->source) {
		cli_error("--file-contexts goes with -d");
		return -EINVAL;
	}
	o->selabel = mkfs_selabel_open(o->file_contexts, &why);
	if (!o->selabel) {
		cli_error("--file-contexts %s: %s", o->file_contexts,
			  why ? why : "cannot be read");
		return -EINVAL;
	}
	return 0;
}

int mkfs_builder_check(struct mkfs_opts *o)
{
	if (o->clamp_mtime < 0) {
		o->clamp_mtime = o->fixed_time;
	} else if (o->clamp_mtime && !o->fixed_time) {
		cli_error("-E clamp_mtime: SOURCE_DATE_EPOCH is not set");
		return -EINVAL;
	}
	if (o->hard_deref && o->source && source_is_archive(o->source)) {
		cli_error("-E hard_dereference: with a directory as -d's "
			  "source only (an archive stores a hard link's data "
			  "once)");
		return -EINVAL;
	}
	if (o->devtab_file && o->super_only) {
		cli_error("-S writes no files: --device-table cannot go "
			  "with it");
		return -EINVAL;
	}
	if (o->devtab_file && mkfs_devtab_load(o->devtab_file, &o->devtab))
		return -EINVAL;
	return check_labels(o);
}
