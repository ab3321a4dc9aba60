// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -z UNDOFILE: every write of the run goes through an undo log
 * (lib/undo.c) that e2undo replays. Set up before the first write, so an
 * undo file that cannot be created leaves the target untouched; -n
 * writes nothing and needs none.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "error.h"
#include "io.h"
#include "undo.h"
#include "cli/msg.h"

#include "fsck.h"

int fsck_open_undo(struct fsck_ctx *ctx)
{
	const char *path = ctx->opts->undo_file;
	struct extkit_io *file, *io;
	int rc;

	if (ctx->readonly) {
		cli_error("-n changes nothing: no undo file written");
		return 0;
	}
	rc = extkit_undo_create_file(path, &file);
	if (rc == -EEXIST) {
		cli_error("%s: undo file exists and is not empty; remove it "
			  "or name another file", path);
		return rc;
	}
	if (rc) {
		cli_error("%s: cannot create the undo file: %s", path,
			  extkit_strerror(rc));
		return rc;
	}
	rc = extkit_undo_open(ctx->io, file, &io);
	if (rc) {
		extkit_io_close(file);
		cli_error_rc(path, rc);
		return rc;
	}
	ctx->io = io;
	ctx->undo = 1;
	printf("Saving overwritten blocks; to undo this run:\n"
	       "    e2undo %s %s\n\n", path, ctx->opts->target);
	return 0;
}
