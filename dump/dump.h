/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extkit-dump: read-only views of an ext2/ext4 image, as text or JSON.
 * The options parsed from the command line, and the context every
 * command runs in.
 */
#ifndef EXTKIT_DUMP_H
#define EXTKIT_DUMP_H

#include <stdint.h>

#include "fs.h"
#include "json.h"

#define DUMP_EXIT_OK	0
#define DUMP_EXIT_FAIL	1	/* bad argument, bad image, failed command */

/* Command options (which commands accept them: see the command table). */
#define DUMP_OPT_LONG	0x1	/* ls -l */
#define DUMP_OPT_META	0x2	/* blocks -m */

struct dump_opts {
	int json;		/* --json */
	int hex;		/* -x: block numbers in hex */
	int version;		/* -V */
	int long_list;		/* ls -l */
	int meta;		/* blocks -m: indirect/extent tree blocks too */
	const char *target;
	const char *command;
	const char **args;	/* the command's positional arguments */
	int nargs;
};

struct dump_ctx {
	const struct dump_opts *o;
	struct extkit_fs *fs;
	struct json_writer jw;
};

struct dump_cmd {
	const char *name;
	int (*run)(struct dump_ctx *ctx);
	int min_args;
	int max_args;		/* -1: no limit */
	int opts;		/* DUMP_OPT_* accepted */
	const char *args_help;
};

#endif /* EXTKIT_DUMP_H */
