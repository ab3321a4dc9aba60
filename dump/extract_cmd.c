// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump extract [PATH] DEST, and --tar FILE: the command. It
 * checks its arguments, opens the sink (a directory, xdisk.c, or a pax
 * archive, xtar.c), runs the tree walk (extract.c) and prints the
 * summary.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/msg.h"

#include "extract.h"
#include "xwalk.h"

int dump_extract(struct dump_ctx *ctx)
{
	const struct dump_opts *o = ctx->o;
	struct xwalk w = { .ctx = ctx, .fs = ctx->fs, .out = stdout };
	const char *path = NULL, *dest = NULL;
	uint32_t ino;
	int rc;

	if (o->json && o->tar && !strcmp(o->tar, "-")) {
		cli_error("extract: --json and --tar - both want stdout");
		return -EINVAL;
	}
	if (!o->tar && o->nargs < 1) {
		cli_error("extract: missing DEST (usage: extract [PATH] "
			  "DEST)");
		return -EINVAL;
	}
	if (o->tar && o->nargs > 1) {
		cli_error("extract: with --tar, only PATH (usage: extract "
			  "[PATH] DEST | --tar FILE [PATH])");
		return -EINVAL;
	}
	path = o->tar ? (o->nargs ? o->args[0] : NULL) :
	       (o->nargs == 2 ? o->args[0] : NULL);
	/* a PATH that is not there creates no DEST and no archive */
	rc = dump_resolve(ctx, path ? path : "/", &ino);
	if (rc)
		return rc;
	if (o->tar) {
		if (!strcmp(o->tar, "-"))
			w.out = stderr;
		rc = xsink_tar_open(&w, o->tar);
	} else {
		dest = o->args[o->nargs - 1];
		rc = xsink_disk_open(&w, dest);
	}
	if (rc)
		return rc;
	rc = xwalk_run(&w, path);
	if (o->tar) {
		/* an archive that could not be written whole is no
		 * partial extraction: it failed */
		if (xsink_tar_close(&w))
			rc = DUMP_EXIT_FAIL;
	} else {
		xsink_disk_close(&w);
	}
	if (rc != DUMP_EXIT_FAIL && o->json)
		xwalk_summary_json(&w, &ctx->jw, rc == DUMP_EXIT_PARTIAL);
	else if (rc != DUMP_EXIT_FAIL)
		xwalk_summary(&w);
	return rc;
}
