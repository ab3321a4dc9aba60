// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump: read-only views of an ext2/ext4 image. Commands: super
 * (the default), groups, ls, stat, blocks, dirblock, frag, quota; each
 * prints text or, with --json, one JSON document. Every on-disk structure is
 * read through the library; a malformed image ends in a one-line error
 * and exit 1. This file holds the command line and the dispatch; the
 * output helpers the commands share are output.c's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <popt.h>

#include "dir.h"
#include "error.h"
#include "fs.h"
#include "io.h"
#include "cli/msg.h"

#include "check.h"
#include "dump.h"
#include "extract.h"
#include "frag.h"
#include "json.h"
#include "xattrcmd.h"

const char cli_prog[] = "extkit-dump";

static int cmd_frag(struct dump_ctx *ctx)
{
	return dump_frag(ctx, ctx->o->nargs ? ctx->o->args[0] : NULL);
}

/* ---- command line ---- */

static const struct dump_cmd commands[] = {
	{ "super", dump_super, 0, 0, 0, "" },
	{ "groups", dump_groups, 0, 0, 0, "" },
	{ "ls", dump_ls, 0, 1, DUMP_OPT_LONG | DUMP_OPT_PARSE, "[PATH]" },
	{ "stat", dump_stat, 1, 1, 0, "PATH|<INO>" },
	{ "blocks", dump_blocks, 1, -1, DUMP_OPT_META, "PATH..." },
	{ "dirblock", dump_dirblock, 2, 2, 0, "PATH N" },
	{ "frag", cmd_frag, 0, 1, 0, "[PATH]" },
	{ "quota", dump_quota, 0, 0, 0, "" },
	{ "freefrag", dump_freefrag, 0, 0, 0, "" },
	{ "lsdel", dump_lsdel, 0, 0, 0, "" },
	{ "extract", dump_extract, 0, 2, DUMP_OPT_TAR,
	  "[PATH] DEST | --tar FILE [PATH]" },
	{ "cat", dump_cat, 1, 1, 0, "PATH" },
	{ "dump", dump_dump, 2, 2, DUMP_OPT_PRESERVE, "PATH FILE" },
	{ "bmap", dump_bmap, 2, 2, 0, "PATH LBLK" },
	{ "ncheck", dump_ncheck, 1, -1, 0, "INO..." },
	{ "icheck", dump_icheck, 1, -1, 0, "BLOCK..." },
	{ "imap", dump_imap, 1, 1, 0, "PATH|<INO>" },
	{ "xattr", dump_xattr, 1, 2, 0, "PATH [NAME]" },
	{ "htree", dump_htree, 1, 1, 0, "PATH|<INO>" },
	{ "logdump", dump_logdump, 0, 0, DUMP_OPT_LOG,
	  "[-acOS] [-b BLOCK] [-i PATH] [-n N]" },
};

static const struct dump_cmd *find_command(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_ELEM(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Runs a popt loop over pc; 0, or 1 after reporting a bad option. */
static int popt_loop(poptContext pc, struct dump_opts *o)
{
	int rc;

	while ((rc = poptGetNextOpt(pc)) > 0) {
		if (rc == 'V')
			o->version = 1;
	}
	if (rc < -1) {
		cli_popt_error(pc, rc);
		return 1;
	}
	return 0;
}

#define COMMON_OPTIONS(o)						\
	{ "json", '\0', POPT_ARG_NONE, &(o)->json, 0,			\
	  "print one JSON document", NULL },				\
	{ "hex", 'x', POPT_ARG_NONE, &(o)->hex, 0,			\
	  "print block numbers in hex", NULL },				\
	{ "version", 'V', POPT_ARG_NONE, NULL, 'V',			\
	  "print the version and exit", NULL },				\
	CLI_IMAGE_OPTIONS(&(o)->img)

#define LOGDUMP_OPTIONS(l)						\
	{ "all", 'a', POPT_ARG_NONE, &(l)->all, DUMP_OPT_LOG,		\
	  "logdump: every tag and revoke record", NULL },		\
	{ "block", 'b', POPT_ARG_STRING, &(l)->block, DUMP_OPT_LOG,	\
	  "logdump: where BLOCK is logged, and its bit in the logged "	\
	  "bitmaps", "BLOCK" },						\
	{ "contents", 'c', POPT_ARG_NONE, &(l)->contents, DUMP_OPT_LOG,	\
	  "logdump: hex dumps of the logged blocks shown", NULL },	\
	{ "inode", 'i', POPT_ARG_STRING, &(l)->inode, DUMP_OPT_LOG,	\
	  "logdump: where the inode's block is logged, and the "	\
	  "logged inode", "PATH" },					\
	{ "count", 'n', POPT_ARG_STRING, &(l)->count, DUMP_OPT_LOG,	\
	  "logdump -O: stop after N transactions", "N" },		\
	{ "old", 'O', POPT_ARG_NONE, &(l)->old, DUMP_OPT_LOG,		\
	  "logdump: go on past the log's end (old transactions)", NULL },\
	{ "super", 'S', POPT_ARG_NONE, &(l)->super, DUMP_OPT_LOG,	\
	  "logdump: the journal superblock first", NULL }

/* Whether any logdump option was given. */
static int log_opts_given(const struct dump_opts *o)
{
	return o->log.all || o->log.contents || o->log.old || o->log.super ||
	       o->log.block || o->log.inode || o->log.count;
}

static int is_cmd_option(int val)
{
	const int all = DUMP_OPT_LONG | DUMP_OPT_META | DUMP_OPT_TAR |
			DUMP_OPT_PRESERVE | DUMP_OPT_PARSE | DUMP_OPT_LOG;

	return val > 0 && !(val & ~all);
}

/*
 * Parses the command's own options (and the common ones, which may also
 * follow the command) from argv, whose argv[0] is the command name.
 */
static int parse_command(struct dump_opts *o, const struct dump_cmd *cmd,
			 int argc, const char **argv)
{
	/* Each command option's val is the DUMP_OPT_* bit that accepts it. */
	struct poptOption table[] = {
		COMMON_OPTIONS(o),
		{ "long", 'l', POPT_ARG_NONE, &o->long_list, DUMP_OPT_LONG,
		  "ls: also print mode, links, owner, size, type, mtime and "
		  "symlink targets, in aligned columns", NULL },
		{ "parsable", '\0', POPT_ARG_NONE, &o->parse_list,
		  DUMP_OPT_PARSE, "ls -p: /inode/mode/uid/gid/name/size/ "
		  "lines, as debugfs ls -p", NULL },
		{ "meta", 'm', POPT_ARG_NONE, &o->meta, DUMP_OPT_META,
		  "blocks: include indirect and extent tree blocks", NULL },
		{ "tar", '\0', POPT_ARG_STRING, &o->tar, DUMP_OPT_TAR,
		  "extract: write a pax archive to FILE (- for stdout)",
		  "FILE" },
		{ "preserve", 'p', POPT_ARG_NONE, &o->preserve,
		  DUMP_OPT_PRESERVE | DUMP_OPT_PARSE, "dump: also set owner, "
		  "mode and times (ls: --parsable)", NULL },
		LOGDUMP_OPTIONS(&o->log),
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	const char *arg;
	poptContext pc;
	int rc;

	/* Every command parses -l and -m; --help shows only its own. */
	for (struct poptOption *p = table; p->longName || p->arg; p++)
		if (is_cmd_option(p->val) && !(cmd->opts & p->val))
			p->argInfo |= POPT_ARGFLAG_DOC_HIDDEN;
	pc = poptGetContext(cli_prog, argc, argv, table, 0);
	poptSetOtherOptionHelp(pc, cmd->args_help);
	rc = popt_loop(pc, o);
	/* -p is debugfs' letter for both: ls -p lists, dump -p preserves */
	if (o->preserve && (cmd->opts & DUMP_OPT_PARSE)) {
		o->preserve = 0;
		o->parse_list = 1;
	}
	if (!rc && ((o->long_list && !(cmd->opts & DUMP_OPT_LONG)) ||
		    (o->parse_list && !(cmd->opts & DUMP_OPT_PARSE)) ||
		    (o->meta && !(cmd->opts & DUMP_OPT_META)) ||
		    (o->tar && !(cmd->opts & DUMP_OPT_TAR)) ||
		    (o->preserve && !(cmd->opts & DUMP_OPT_PRESERVE)) ||
		    (log_opts_given(o) && !(cmd->opts & DUMP_OPT_LOG)))) {
		cli_error("%s: option %s not accepted", cmd->name,
			  o->long_list ? "-l" : o->parse_list ? "ls -p" :
			  o->meta ? "-m" :
			  o->tar ? "--tar" : o->preserve ? "-p" :
			  "-a/-b/-c/-i/-n/-O/-S (logdump's)");
		rc = 1;
	}
	/* popt owns what it hands out: keep copies past poptFreeContext(). */
	while (!rc && (arg = poptGetArg(pc)) != NULL) {
		o->args[o->nargs] = strdup(arg);
		if (!o->args[o->nargs++]) {
			cli_error("out of memory");
			rc = 1;
		}
	}
	poptFreeContext(pc);
	return rc;
}

static int check_arg_count(const struct dump_cmd *cmd, int nargs)
{
	const char *sep = *cmd->args_help ? " " : "";

	/* The usage shown comes from the command table. */
	if (nargs < cmd->min_args) {
		cli_error("%s: missing argument (usage: %s%s%s)", cmd->name,
			  cmd->name, sep, cmd->args_help);
		return 1;
	}
	if (cmd->max_args >= 0 && nargs > cmd->max_args) {
		cli_error("%s: too many arguments (usage: %s%s%s)", cmd->name,
			  cmd->name, sep, cmd->args_help);
		return 1;
	}
	return 0;
}

/*
 * The words after TARGET: [COMMAND] [ARGS], options anywhere among them.
 * The first word that is not an option names the command; without one
 * the command is "super". o->args (owned by the caller) receives the
 * positional arguments.
 */
static int parse_rest(struct dump_opts *o, const char **rest,
		      const struct dump_cmd **cmdp)
{
	const struct dump_cmd *cmd;
	const char **argv;
	char name[64];
	int argc = 1, n = 0, c, rc;

	while (rest && rest[n])
		n++;
	for (c = 0; c < n && rest[c][0] == '-' && strcmp(rest[c], "--"); c++)
		;
	argv = calloc((size_t)n + 2, sizeof(*argv));
	o->args = calloc((size_t)n + 1, sizeof(*o->args));
	if (!argv || !o->args) {
		free(argv);
		cli_error("out of memory");
		return 1;
	}
	argv[0] = c < n && rest[c][0] != '-' ? rest[c] : "super";
	for (int i = 0; i < n; i++)
		if (i != c || argv[0] != rest[c])
			argv[argc++] = rest[i];
	o->command = argv[0];
	cmd = find_command(argv[0]);
	if (!cmd) {
		cli_error("%s: unknown command (see --help)", argv[0]);
		free(argv);
		return 1;
	}
	*cmdp = cmd;
	/* popt's --help shows argv[0] as the program name */
	snprintf(name, sizeof(name), "%s TARGET %s", cli_prog, cmd->name);
	argv[0] = name;
	rc = parse_command(o, cmd, argc, argv);
	free(argv);
	if (rc || o->version)
		return rc;
	return check_arg_count(cmd, o->nargs);
}

/* "TARGET [COMMAND [ARGS]]" and the commands, from the command table. */
static void commands_help(char *buf, size_t size)
{
	size_t len, line = 0;
	unsigned int i;

	len = (size_t)snprintf(buf, size, "TARGET [COMMAND [ARGS]]\n"
			       "Commands (super is the default):");
	for (i = 0; i < N_ELEM(commands) && len < size; i++) {
		const struct dump_cmd *c = &commands[i];

		if (len - line > 50) {
			len += (size_t)snprintf(buf + len, size - len, "\n ");
			line = len;
		}
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len,
				" %s%s%s%s%s%s", i ? "| " : "", c->name,
				c->opts & DUMP_OPT_LONG ? " [-l|-p]" : "",
				c->opts & DUMP_OPT_META ? " [-m]" : "",
				*c->args_help ? " " : "", c->args_help);
	}
}

static int parse_args(struct dump_opts *o, int argc, const char **argv,
		      const struct dump_cmd **cmdp)
{
	struct poptOption table[] = {
		COMMON_OPTIONS(o),
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	char help[1024], *target = NULL;
	poptContext pc;
	int rc;

	pc = poptGetContext(cli_prog, argc, argv, table,
			    POPT_CONTEXT_POSIXMEHARDER);
	commands_help(help, sizeof(help));
	poptSetOtherOptionHelp(pc, help);
	rc = popt_loop(pc, o);
	if (!rc && !o->version) {
		rc = cli_take_args(pc, &target, 1, 1) ? 1 : 0;
		o->target = target;
	}
	if (!rc && !o->version)
		rc = parse_rest(o, poptGetArgs(pc), cmdp);
	poptFreeContext(pc);
	return rc;
}

/* What is shown may not be the whole or current truth: say so first. */
static void warn_target(const char *target, const struct extkit_fs *fs)
{
	char where[256] = "";

	if (fs->truncated)
		cli_warn_truncated(target, fs->io->size / fs->g.block_size,
				   fs->sb.blocks_count);
	if (extkit_io_check_mounted(target, where, sizeof(where)) > 0)
		fprintf(stderr, "%s: warning: %s is mounted on %s; what is "
			"shown may be stale (the kernel may hold unwritten "
			"changes)\n", cli_prog, target,
			where[0] ? where : "?");
}

/*
 * Runs the command. JSON is a contract: the document is built in memory
 * and printed only when the command succeeded, so that a failure leaves
 * stdout empty and says why on stderr.
 */
static int run_command(struct dump_ctx *ctx, const struct dump_cmd *cmd)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *mem = NULL;
	int rc;

	if (ctx->o->json) {
		mem = open_memstream(&doc, &len);
		if (!mem) {
			cli_error("%s", extkit_strerror(-ENOMEM));
			return -ENOMEM;
		}
	}
	json_init(&ctx->jw, mem ? mem : stdout);
	rc = cmd->run(ctx);
	if (mem) {
		if (json_finish(&ctx->jw) && rc >= 0) {
			cli_error("%s: internal error: malformed JSON output",
				  ctx->o->target);
			rc = -1;
		}
		if (fclose(mem) && rc >= 0)
			rc = -ENOMEM;
		if (rc >= 0 && len)
			fwrite(doc, 1, len, stdout);
		free(doc);
	}
	return rc;
}

static int run(struct dump_opts *o, const struct dump_cmd *cmd)
{
	struct dump_ctx ctx = { .o = o };
	struct extkit_image_loc loc;
	char why[256], *path = NULL;
	int flags = 0;
	int rc;

	/* super and groups show what is there even if extkit cannot use it;
	 * a truncated image is read as far as it goes, as dumpe2fs does. */
	if (cmd->run == dump_super || cmd->run == dump_groups)
		flags |= EXTKIT_FS_FORCE;
	flags |= EXTKIT_FS_PARTIAL;
	if (cli_image_resolve(&o->img, o->target, &path, &loc))
		return DUMP_EXIT_FAIL;
	rc = extkit_fs_open_image(path, &loc, flags, &ctx.fs, why,
				  sizeof(why));
	if (rc < 0) {
		cli_error("%s: %s", o->target, why[0] ? why :
			  extkit_strerror(rc));
		free(path);
		return DUMP_EXIT_FAIL;
	}
	warn_target(path, ctx.fs);
	free(path);
	/* Walks of many directories (frag, ls) read in larger requests;
	 * without the window (no memory) they only read smaller ones. */
	extkit_io_set_readahead(ctx.fs->io, 1u << 18);
	rc = run_command(&ctx, cmd);
	extkit_fs_close(ctx.fs);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("stdout: write error");
		rc = -1;
	}
	/* extract says partial with a positive status */
	return rc < 0 ? DUMP_EXIT_FAIL : rc;
}

int main(int argc, char **argv)
{
	const struct dump_cmd *cmd = NULL;
	struct dump_opts o = { 0 };
	int rc;

	rc = parse_args(&o, argc, (const char **)argv, &cmd);
	if (!rc && o.version)
		cli_version();
	else if (!rc)
		rc = run(&o, cmd);
	else
		rc = DUMP_EXIT_FAIL;
	while (o.nargs > 0)
		free((char *)o.args[--o.nargs]);
	free(o.args);
	free((char *)o.target);
	free((char *)o.tar);
	free(o.log.block);
	free(o.log.inode);
	free(o.log.count);
	cli_image_free(&o.img);
	return rc;
}
