// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-fsck: options, the pass driver and the end of run (superblock
 * write-back, summary, exit code). The passes run from an array over one
 * context; each lives in its own file (pass0.c .. pass5.c).
 *
 * Output: the check's report (pass headers, problems, summary) goes to
 * stdout as e2fsck prints it; operational errors (cannot open, bad
 * arguments) go to stderr as one line "extkit-fsck: ...".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <popt.h>

#include "clock.h"
#include "csum.h"
#include "error.h"
#include "fs.h"
#include "io.h"
#include "ondisk.h"
#include "super.h"
#include "undo.h"
#include "cli/image.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "fsck.h"
#include "interact.h"
#include "rehash.h"
#include "problem.h"

const char cli_prog[] = "extkit-fsck";

/*
 * The passes in order. num: the pass a step belongs to for -C, whose
 * readers (fsck(8), systemd-fsck) know e2fsck's passes 1 to 5 only: the
 * steps after pass 1 (1B, the indirect-block fixes, 1E) are part of it.
 */
struct pass_def {
	fsck_pass_fn fn;
	int num;
	const char *header;	/* NULL: no header (a step of pass num) */
};

static const struct pass_def passes[] = {
	{ fsck_pass1, 1, "Pass 1: Checking inodes, blocks, and sizes" },
	{ fsck_pass1b, 1, NULL },
	{ fsck_pass1_resize, 1, NULL },
	{ fsck_pass1_ind_fixes, 1, NULL },
	{ fsck_pass1e, 1, NULL },
	{ fsck_pass2, 2, "Pass 2: Checking directory structure" },
	{ fsck_pass3, 3, "Pass 3: Checking directory connectivity" },
	{ fsck_pass4, 4, "Pass 4: Checking reference counts" },
	{ fsck_pass5, 5, "Pass 5: Checking group summary information" },
};

/* ---- options ---- */

enum {
	OPT_NO = 1, OPT_YES, OPT_PREEN, OPT_VERSION, OPT_TIME, OPT_CHECK,
	OPT_BB_ADD, OPT_BB_REPLACE,
};

static int parse_blocksize(const char *s, uint32_t *out)
{
	uint64_t v;

	if (cli_parse_u64(s, &v) || v < 1024 || v > 65536 || (v & (v - 1)))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static void set_mode(struct fsck_opts *o, enum fsck_mode m)
{
	if (o->mode_count && o->mode != m)
		o->mode_count++;
	else if (!o->mode_count)
		o->mode_count = 1;
	o->mode = m;
}

/*
 * -E journal_only (replay the journal, then stop, as e2fsck) and
 * discard/nodiscard are taken out of the extended options; the rest is
 * left to -D's parser.
 */
static void take_journal_only(struct fsck_opts *o)
{
	char *ext = (char *)o->extended, *out, *tok, *save = NULL;
	size_t n = 0;

	if (!ext)
		return;
	out = calloc(strlen(ext) + 1, 1);
	if (!out)
		return;
	for (tok = strtok_r(ext, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "journal_only") == 0) {
			o->journal_only = 1;
			continue;
		}
		if (strcmp(tok, "discard") == 0 ||
		    strcmp(tok, "nodiscard") == 0) {
			o->discard = tok[0] == 'd';
			continue;
		}
		n += (size_t)sprintf(out + n, "%s%s", n ? "," : "", tok);
	}
	free(ext);
	o->extended = out;
}

/*
 * Checks what popt cannot: exclusions and numeric arguments. Returns 0,
 * or -1 after saying what is wrong.
 */
static int validate_opts(struct fsck_opts *o, const char *sb, const char *bs,
			 const char *cfd)
{
	const char *why = NULL;
	uint64_t v = 0;

	if (o->mode_count > 1)
		why = "only one of the options -p/-a, -n or -y may be given";
	else if (o->check_blocks && o->bb_file)
		why = "the -c and the -l/-L options may not be both used at "
		      "the same time";
	else if (sb && (cli_parse_u64(sb, &o->sb_block) || o->sb_block == 0))
		why = "invalid superblock number for -b";
	else if (bs && parse_blocksize(bs, &o->block_size))
		why = "invalid block size for -B (1024..65536, a power of two)";
	else if (cfd && (cli_parse_u64(cfd, &v) || v > 1024))
		why = "invalid file descriptor for -C";
	else if ((take_journal_only(o), 0) ||
		 fsck_rehash_parse_extended(o->extended, NULL)) {
		/* Name the option and its value, and what is known. */
		cli_error("-E: invalid extended option '%s' (known: "
			  "journal_only, compact_threshold=N with N in 0..100, "
			  "discard, nodiscard)", o->extended);
		return -1;
	}
	if (why) {
		cli_error("%s", why);
		return -1;
	}
	if (cfd)
		o->progress_fd = (int)v;
	return 0;
}

static void parse_args(int argc, const char **argv, struct fsck_opts *o)
{
	char *sb = NULL, *bs = NULL, *cfd = NULL, *target = NULL, *image = NULL;
	struct cli_image img = { 0 };
	struct poptOption table[] = {
		{ NULL, 'n', POPT_ARG_NONE, NULL, OPT_NO,
		  "check only: open read-only and answer no", NULL },
		{ NULL, 'y', POPT_ARG_NONE, NULL, OPT_YES,
		  "answer yes to every question", NULL },
		{ NULL, 'p', POPT_ARG_NONE, NULL, OPT_PREEN,
		  "preen: fix what is safe without asking", NULL },
		{ NULL, 'a', POPT_ARG_NONE, NULL, OPT_PREEN,
		  "same as -p", NULL },
		{ NULL, 'r', POPT_ARG_NONE, NULL, 0,
		  "repair interactively (the default; accepted as e2fsck "
		  "accepts it)", NULL },
		{ NULL, 'f', POPT_ARG_NONE, &o->force, 0,
		  "check even if the filesystem is marked clean", NULL },
		{ NULL, 'v', POPT_ARG_NONE, &o->verbose, 0,
		  "verbose", NULL },
		{ NULL, 'b', POPT_ARG_STRING, &sb, 0,
		  "use the backup superblock at this block", "SUPERBLOCK" },
		{ NULL, 'B', POPT_ARG_STRING, &bs, 0,
		  "block size to look for the superblock with", "BLOCKSIZE" },
		{ NULL, 'C', POPT_ARG_STRING, &cfd, 0,
		  "write progress lines to file descriptor FD", "FD" },
		{ NULL, 'D', POPT_ARG_NONE, &o->compress_dirs, 0,
		  "compact and re-index directories", NULL },
		{ NULL, 'E', POPT_ARG_STRING, &o->extended, 0,
		  "extended options: journal_only (replay the journal, then "
		  "stop), discard / nodiscard (discard the free blocks after "
		  "a check that left no error), compact_threshold=N (-D: "
		  "directories at least N% reclaimable)", "OPTIONS" },
		{ NULL, 'z', POPT_ARG_STRING, &o->undo_file, 0,
		  "save the overwritten blocks to an undo file", "UNDOFILE" },
		{ NULL, 't', POPT_ARG_NONE, NULL, OPT_TIME,
		  "print time and memory used (-tt: per pass too)", NULL },
		{ NULL, 'F', POPT_ARG_NONE, &o->flush, 0,
		  "flush the device's buffers before the check", NULL },
		{ NULL, 'c', POPT_ARG_NONE, NULL, OPT_CHECK,
		  "look for bad blocks with badblocks(8) (-cc: read-write "
		  "test) and add them to the bad blocks list", NULL },
		{ NULL, 'k', POPT_ARG_NONE, &o->keep_bad_blocks, 0,
		  "with -c, keep the bad blocks already listed", NULL },
		{ NULL, 'l', POPT_ARG_STRING, NULL, OPT_BB_ADD,
		  "add the blocks listed in FILE to the bad blocks list",
		  "FILE" },
		{ NULL, 'L', POPT_ARG_STRING, NULL, OPT_BB_REPLACE,
		  "make the blocks listed in FILE the bad blocks list",
		  "FILE" },
		{ NULL, 'j', POPT_ARG_STRING, &o->journal_dev, 0,
		  "the external journal's device", "JOURNAL" },
		{ NULL, 'd', POPT_ARG_NONE, &o->debug, 0,
		  "debug: each problem's code on stderr", NULL },
		{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION,
		  "print the version and exit", NULL },
		CLI_IMAGE_OPTIONS(&img),
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc;
	int rc, ok = 0;

	pc = poptGetContext(cli_prog, argc, argv, table, 0);
	poptSetOtherOptionHelp(pc, "[OPTIONS] TARGET");
	while ((rc = poptGetNextOpt(pc)) > 0) {
		if (rc == OPT_NO)
			set_mode(o, FSCK_MODE_NO);
		else if (rc == OPT_YES)
			set_mode(o, FSCK_MODE_YES);
		else if (rc == OPT_PREEN)
			set_mode(o, FSCK_MODE_PREEN);
		else if (rc == OPT_TIME)
			o->timing++;
		else if (rc == OPT_CHECK)
			o->check_blocks++;
		else if (rc == OPT_BB_ADD || rc == OPT_BB_REPLACE) {
			free((char *)o->bb_file);
			o->bb_file = poptGetOptArg(pc);
			o->bb_replace = rc == OPT_BB_REPLACE;
		}
		else if (rc == OPT_VERSION) {
			cli_version();
			exit(FSCK_OK);
		}
	}
	if (rc < -1)
		cli_popt_error(pc, rc);
	else if (!cli_take_args(pc, &target, 1, 0))
		ok = !validate_opts(o, sb, bs, cfd) &&
		     !cli_image_resolve(&img, target, &image, &o->loc);
	o->target = target;
	o->image = image;
	cli_image_free(&img);
	if (ok && o->check_blocks && (o->loc.offset || o->loc.partition)) {
		cli_error("-c tests the whole device: it cannot be combined "
			  "with --offset, --partition or @N");
		ok = 0;
	}
	free(sb);
	free(bs);
	free(cfd);
	poptFreeContext(pc);
	if (!ok)
		exit(FSCK_USAGE);
}

/* ---- setup and teardown ---- */

static uint32_t fsck_clock(void)
{
	const char *bad = NULL;
	uint32_t now;

	if (extkit_clock_now(&now, NULL, &bad)) {
		cli_error("%s is not a valid time", bad ? bad : "the clock");
		exit(FSCK_USAGE);
	}
	return now;
}

static int alloc_maps(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t ninodes = fs->sb.inodes_count;
	uint64_t nblocks = fs->sb.blocks_count - fs->sb.first_data_block;
	int rc;

	ctx->blkbuf = malloc(fs->g.block_size);
	if (!ctx->blkbuf)
		return -ENOMEM;
	rc = fsck_istate_init(&ctx->istate, (uint32_t)ninodes);
	if (!rc)
		rc = fsck_count_init(&ctx->link_count, (uint32_t)ninodes);
	if (!rc)
		rc = fsck_count_init(&ctx->link_counted, (uint32_t)ninodes);
	if (!rc && extkit_has_incompat(&ctx->fs->sb,
				       EXT4_FEATURE_INCOMPAT_EA_INODE))
		rc = fsck_count_init(&ctx->ea_inode_refs, (uint32_t)ninodes);
	if (rc)
		return rc;
	rc = extkit_bitmap_init(&ctx->inode_used, ninodes);
	if (!rc)
		rc = extkit_bitmap_init(&ctx->block_found, nblocks);
	if (!rc)
		rc = extkit_bitmap_init(&ctx->block_dup, nblocks);
	return rc;
}

static void free_ctx(struct fsck_ctx *ctx)
{
	fsck_drop_add_space(ctx, 0);
	fsck_istate_free(&ctx->istate);
	free(ctx->relocate);
	fsck_count_free(&ctx->link_count);
	fsck_count_free(&ctx->link_counted);
	fsck_count_free(&ctx->ea_inode_refs);
	free(ctx->ea_flagged.v);
	free(ctx->blkbuf);
	free(ctx->dirs);
	free(ctx->alloc_blocks.v);
	free(ctx->alloc_inodes.v);
	free(ctx->ind_fix.v);
	free(ctx->to_extents.v);
	free(ctx->rehash_dirs.v);
	extkit_bitmap_free(&ctx->inode_used);
	extkit_bitmap_free(&ctx->block_found);
	extkit_bitmap_free(&ctx->block_dup);
	fsck_ea_free(&ctx->ea);
	fsck_enc_free(&ctx->enc);
	if (ctx->fs)
		extkit_fs_close(ctx->fs);
	if (ctx->io)
		extkit_io_close(ctx->io);
	if (ctx->tty && ctx->tty != stdin)
		fclose(ctx->tty);
}

/* "clean, N/M files, B/C blocks" when the check was skipped. */
static void print_clean_line(struct fsck_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;

	printf("%s: clean, %" PRIu32 "/%" PRIu32 " files, %" PRIu64 "/%"
	       PRIu64 " blocks\n", ctx->device,
	       sb->inodes_count - sb->free_inodes_count, sb->inodes_count,
	       sb->blocks_count - sb->free_blocks_count, sb->blocks_count);
}

/* After a check: e2fsck's summary line, or with -v its statistics. */
static void print_summary(struct fsck_ctx *ctx)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	unsigned int pm = fsck_stats_noncontig_permille(ctx);

	if (ctx->opts->verbose) {
		fsck_stats_print(ctx);
		return;
	}
	printf("%s: %" PRIu32 "/%" PRIu32 " files (%u.%u%% non-contiguous), "
	       "%" PRIu64 "/%" PRIu64 " blocks\n", ctx->device,
	       sb->inodes_count - sb->free_inodes_count, sb->inodes_count,
	       pm / 10, pm % 10,
	       sb->blocks_count - sb->free_blocks_count, sb->blocks_count);
}

/* A last check time ahead of the clock by less than this is taken as
 * the clock's error, not the filesystem's (e2fsck's accept_time_fudge). */
#define FSCK_TIME_FUDGE 86400

/*
 * Why a filesystem not marked clean, or marked clean but due, is checked
 * without -f, as e2fsck says it (its check_if_skip): errors recorded (or
 * a group descriptor that cannot be: group_flags.c), not unmounted cleanly, s_mnt_count
 * reached s_max_mnt_count (a signed field: -1 or 0 turns the count off),
 * s_lastcheck in the future, or s_checkinterval seconds gone since it.
 * NULL when it is not due; *arg: the count or the days, for the reasons
 * that name one.
 */
static const char *check_due(const struct fsck_ctx *ctx, uint32_t *arg)
{
	const struct extkit_super *sb = &ctx->fs->sb;
	int16_t max = (int16_t)sb->max_mnt_count;
	int64_t last = sb->lastcheck, now = ctx->now;

	if (last > now)
		last -= FSCK_TIME_FUDGE;
	if ((sb->state & EXT2_ERROR_FS) || (ctx->flags & FSCK_FL_NOT_VALID))
		return "contains a file system with errors";
	if (!(sb->state & EXT2_VALID_FS))
		return "was not cleanly unmounted";
	if (max > 0 && sb->mnt_count >= (uint16_t)max) {
		*arg = sb->mnt_count;
		return "has been mounted %u times without being checked";
	}
	if (sb->checkinterval && now < last)
		return "has filesystem last checked time in the future";
	if (sb->checkinterval && now - last >= sb->checkinterval) {
		*arg = (uint32_t)((now - (int64_t)sb->lastcheck) / 86400);
		return "has gone %u days without being checked";
	}
	return NULL;
}

/* Without -f a filesystem marked clean and not due is not checked
 * (e2fsck's rule); when it is due, the reason is printed. */
static int is_clean(struct fsck_ctx *ctx)
{
	const char *why;
	uint32_t arg = 0;

	/* a new bad blocks list is checked in full (e2fsck's rule) */
	if (ctx->opts->force || ctx->opts->bb_file ||
	    ctx->opts->check_blocks ||
	    (ctx->flags & (FSCK_FL_BACKUP_SB | FSCK_FL_FIXED)))
		return 0;
	why = check_due(ctx, &arg);
	if (why) {
		printf("%s ", ctx->device);
		printf(why, arg);
		printf(", check forced.\n");
		return 0;
	}
	return fsck_free_counts_possible(ctx);
}

static void run_passes(struct fsck_ctx *ctx)
{
	struct fsck_rtrack track;

	for (unsigned int i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
		int rc;

		if (fsck_poll_cancel(ctx))
			return;
		if (passes[i].header)
			fsck_rtrack_start(&track);
		ctx->pass = passes[i].num;
		if (passes[i].header && ctx->opts->mode != FSCK_MODE_PREEN)
			printf("%s\n", passes[i].header);
		rc = passes[i].fn(ctx);
		/* the pass is done (its steps say nothing: pass 1 did) */
		if (!(ctx->flags & FSCK_FL_ABORT) && passes[i].header)
			fsck_progress(ctx, 1, 1);
		fsck_progress_clear(ctx);
		/* -tt: each pass, its steps included (e2fsck's "Pass N") */
		if (ctx->opts->timing > 1 &&
		    (i + 1 == sizeof(passes) / sizeof(passes[0]) ||
		     passes[i + 1].header)) {
			char desc[16];

			snprintf(desc, sizeof(desc), "Pass %d", passes[i].num);
			fsck_rtrack_print(desc, &track);
		}
		if (rc < 0) {
			cli_error("%s", extkit_strerror(rc));
			ctx->flags |= FSCK_FL_ABORT;
		}
		if (ctx->flags & FSCK_FL_ABORT)
			return;
		if ((ctx->flags & FSCK_FL_RESTART) && passes[i].fn == fsck_pass2)
			return;
	}
}

/*
 * Pass 2 cleared a lazy-init mark that hid inodes in use (group_flags.c):
 * what the passes found is dropped and they run again from pass 1, as
 * e2fsck restarts. The fixes already written stay; so do fsck's own
 * allocations (pass 1 finds them owned now) and the directories listed
 * for a rebuild.
 */
static int restart_passes(struct fsck_ctx *ctx)
{
	fsck_drop_add_space(ctx, 0);
	fsck_istate_free(&ctx->istate);
	free(ctx->blkbuf);
	ctx->blkbuf = NULL;
	fsck_count_free(&ctx->link_count);
	fsck_count_free(&ctx->link_counted);
	fsck_count_free(&ctx->ea_inode_refs);
	ctx->ea_flagged.n = 0;
	extkit_bitmap_free(&ctx->inode_used);
	extkit_bitmap_free(&ctx->block_found);
	extkit_bitmap_free(&ctx->block_dup);
	fsck_ea_free(&ctx->ea);
	fsck_enc_free(&ctx->enc);
	free(ctx->dirs);
	ctx->dirs = NULL;
	ctx->dir_count = ctx->dir_cap = 0;
	ctx->dup_blocks = 0;
	ctx->lost_found = 0;
	ctx->lost_found_err = 0;
	memset(&ctx->stats, 0, sizeof(ctx->stats));
	ctx->flags &= ~(unsigned int)(FSCK_FL_RESTART | FSCK_FL_DUPS);
	if (ctx->opts->mode != FSCK_MODE_PREEN)
		printf("Restarting the check from pass 1...\n");
	return alloc_maps(ctx);
}

/* Marks the filesystem checked and writes the superblock back. */
static int finish_fs(struct fsck_ctx *ctx)
{
	struct extkit_super *sb = &ctx->fs->sb;

	if (ctx->readonly)
		return 0;
	if (ctx->flags & FSCK_FL_UNCORRECTED) {
		sb->state &= (uint16_t)~EXT2_VALID_FS;
		sb->state |= EXT2_ERROR_FS;
	} else {
		if (!(sb->state & EXT2_VALID_FS))
			ctx->flags |= FSCK_FL_MADE_VALID;
		sb->state |= EXT2_VALID_FS;
		sb->state &= (uint16_t)~EXT2_ERROR_FS;
	}
	sb->lastcheck = ctx->now;
	sb->mnt_count = 0;
	extkit_fs_add_kbytes_written(ctx->fs);	/* as e2fsck's close */
	return fsck_write_super(ctx, !!(ctx->flags & (FSCK_FL_CHANGED |
						    FSCK_FL_SB_DIRTY)));
}

/*
 * The io layer counts every write that reached the target: anything
 * written after fsck_open (by a fix, or by an operation that then failed)
 * makes the run one that changed the filesystem, whatever the passes
 * recorded. Writes during fsck_open (released orphans, fixed inode
 * counts) are flagged there.
 */
static void note_writes(struct fsck_ctx *ctx)
{
	if (extkit_io_writes(ctx->io) > ctx->open_writes)
		ctx->flags |= FSCK_FL_CHANGED;
}

/*
 * Ctrl-C or the end of input stopped the run at a safe point: every fix
 * made so far is complete. When any was written, the filesystem is marked
 * not clean (a later check must finish the work). The exit code is
 * e2fsck's: 32, whatever was written, with 4 added (and its "still has
 * errors" line) when a problem was left uncorrected before the cancel or
 * the filesystem is marked as having errors.
 */
static int report_cancel(struct fsck_ctx *ctx)
{
	int changed = !!(ctx->flags & FSCK_FL_CHANGED);
	int errors = (ctx->flags & FSCK_FL_UNCORRECTED) ||
		     (ctx->fs && (ctx->fs->sb.state & EXT2_ERROR_FS));

	if (!ctx->readonly && ctx->fs && changed) {
		ctx->fs->sb.state &= (uint16_t)~EXT2_VALID_FS;
		if (extkit_fs_write_primary_super(ctx->fs))
			cli_error("%s: writing the superblock failed",
				  ctx->opts->target);
	}
	if (!ctx->readonly && ctx->fs)
		extkit_io_flush(ctx->io);
	printf("%s: check canceled.\n", ctx->device);
	if (changed || (ctx->flags & FSCK_FL_RECOVERED))
		printf("\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n",
		       ctx->device);
	if (errors)
		printf("\n%s: ********** WARNING: Filesystem still has errors "
		       "**********\n\n", ctx->device);
	return FSCK_CANCELED | (errors ? FSCK_UNCORRECTED : 0);
}

/* An operational error stopped the run: says whether the filesystem was
 * written before it (e2fsck adds exit code 1 then). */
static int report_abort(struct fsck_ctx *ctx)
{
	note_writes(ctx);
	if (ctx->flags & FSCK_FL_CANCEL)
		return report_cancel(ctx);
	if (!ctx->readonly && ctx->fs)
		extkit_io_flush(ctx->io);
	if (ctx->flags & (FSCK_FL_CHANGED | FSCK_FL_RECOVERED)) {
		printf("\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n",
		       ctx->device);
	}
	printf("%s: ***** check aborted *****\n", ctx->device);
	return FSCK_ERROR |
	       (ctx->flags & FSCK_FL_CHANGED ? FSCK_NONDESTRUCT : 0);
}

static int report_end(struct fsck_ctx *ctx)
{
	int exit_code = FSCK_OK;

	if (ctx->flags & (FSCK_FL_CHANGED | FSCK_FL_MADE_VALID))
		exit_code = FSCK_NONDESTRUCT;
	if (ctx->opts->mode != FSCK_MODE_PREEN) {
		if (ctx->flags & (FSCK_FL_CHANGED | FSCK_FL_RECOVERED))
			printf("\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n",
			       ctx->device);
		if (ctx->flags & FSCK_FL_UNCORRECTED)
			printf("\n%s: ********** WARNING: Filesystem still has "
			       "errors **********\n\n", ctx->device);
	}
	if (ctx->flags & FSCK_FL_UNCORRECTED)
		exit_code = FSCK_UNCORRECTED;
	print_summary(ctx);
	return exit_code;
}

static int check_target(struct fsck_ctx *ctx)
{
	char where[256] = "";
	int rc = extkit_io_check_mounted(ctx->opts->image, where,
					 sizeof(where));

	if (rc > 0 && !ctx->readonly) {
		cli_mounted(ctx->opts->target, where, "refusing to repair "
			    "it (use -n to check read-only)");
		return FSCK_ERROR;
	}
	if (rc > 0)	/* -n: checked, but the kernel may hold changes */
		cli_mounted(ctx->opts->target, where, "warning: the check may "
			    "report errors that are only changes the kernel "
			    "has not written yet");
	if (ctx->opts->mode == FSCK_MODE_ASK) {
		if (!isatty(0) || !isatty(1)) {
			cli_error("need terminal for interactive repairs");
			return FSCK_ERROR;
		}
		ctx->tty = stdin;
	}
	return 0;
}

/*
 * A filesystem skipped as clean shows the free counts of its group
 * descriptors, which the kernel keeps (not the superblock's, stale after
 * a journal replay), and gets them written, as e2fsck does. Returns
 * whether the primary superblock is to be written.
 */
static int sync_free_counts(struct fsck_ctx *ctx)
{
	struct extkit_fs *fs = ctx->fs;
	uint64_t blocks = 0, inodes = 0;

	for (uint32_t g = 0; g < fs->g.group_count; g++) {
		blocks += fs->groups[g].free_blocks;
		inodes += fs->groups[g].free_inodes;
	}
	if (ctx->readonly || blocks > fs->sb.blocks_count ||
	    inodes > fs->sb.inodes_count ||
	    (blocks == fs->sb.free_blocks_count &&
	     inodes == fs->sb.free_inodes_count))
		return 0;
	fs->sb.free_blocks_count = blocks;
	fs->sb.free_inodes_count = (uint32_t)inodes;
	return 1;
}

/*
 * -E journal_only without -f: the journal was replayed (or needed
 * nothing); what fsck_open changed in the superblock is written and the
 * run ends there, exit 0, as e2fsck does.
 */
static int journal_only_end(struct fsck_ctx *ctx)
{
	if ((ctx->flags & FSCK_FL_SB_DIRTY) && !ctx->readonly &&
	    (extkit_fs_write_super(ctx->fs) || extkit_io_flush(ctx->io)))
		return FSCK_ERROR;
	return FSCK_OK;
}

static int run(struct fsck_ctx *ctx)
{
	int rc;

	rc = check_target(ctx);
	if (rc)
		return rc;
	rc = fsck_open(ctx);
	if (rc && ctx->open_exit)	/* refused before any write */
		return ctx->open_exit;
	if (rc)	/* released orphans may have been written first */
		return extkit_io_writes(ctx->io) ? report_abort(ctx) :
						   FSCK_ERROR;
	ctx->open_writes = extkit_io_writes(ctx->io);
	if (ctx->opts->journal_only && !ctx->opts->force)
		return journal_only_end(ctx);
	if (is_clean(ctx)) {
		/* Released orphans (pass 0) still need their counts. */
		if ((ctx->flags & FSCK_FL_SB_DIRTY) && !ctx->readonly &&
		    (extkit_fs_write_super(ctx->fs) ||
		     extkit_io_flush(ctx->io)))
			return FSCK_ERROR;
		if (sync_free_counts(ctx) &&
		    (extkit_fs_write_primary_super(ctx->fs) ||
		     extkit_io_flush(ctx->io)))
			return FSCK_ERROR;
		print_clean_line(ctx);
		return FSCK_OK;
	}
	fsck_check_resize_features(ctx);
	if (fsck_update_bad_blocks(ctx))
		return report_abort(ctx);
	rc = alloc_maps(ctx);
	if (rc) {
		cli_error("%s", extkit_strerror(rc));
		return FSCK_ERROR;
	}
	run_passes(ctx);
	/* each restart clears a mark for good: a few are plenty */
	for (int restarts = 0; (ctx->flags & FSCK_FL_RESTART) &&
	     !(ctx->flags & FSCK_FL_ABORT) && restarts < 4; restarts++) {
		rc = restart_passes(ctx);
		if (rc) {
			cli_error("%s", extkit_strerror(rc));
			return FSCK_ERROR;
		}
		run_passes(ctx);
	}
	if (ctx->flags & FSCK_FL_ABORT)
		return report_abort(ctx);
	fsck_drop_add_space(ctx, 0);	/* -D rewrites directories */
	if (fsck_poll_cancel(ctx))
		return report_abort(ctx);
	note_writes(ctx);	/* the fixes' writes */
	if (ctx->opts->compress_dirs ? fsck_rehash(ctx) :
	    fsck_rehash_listed(ctx))
		return report_abort(ctx);
	/* -D's own writes are no fix (fsck_rehash says what it wrote) */
	if (ctx->opts->compress_dirs)
		ctx->open_writes = extkit_io_writes(ctx->io);
	fsck_journal_recreate(ctx);
	fsck_journal_backup(ctx);
	fsck_orphan_file_check(ctx);
	fsck_quota(ctx);
	note_writes(ctx);
	if (finish_fs(ctx))
		return FSCK_ERROR |
		       (ctx->flags & FSCK_FL_CHANGED ? FSCK_NONDESTRUCT : 0);
	fsck_discard_free(ctx);	/* -E discard */
	return report_end(ctx);
}

/*
 * Completes the undo file after the last write (the filesystem handle
 * writes nothing when closed): e2undo checks that the superblock it holds
 * is the filesystem's current one. Done on aborted runs too.
 */
static int finish_undo(struct fsck_ctx *ctx, int rc)
{
	int err;

	if (!ctx->undo)
		return rc;
	if (ctx->fs) {
		extkit_fs_close(ctx->fs);
		ctx->fs = NULL;
	}
	err = extkit_undo_finish(ctx->io);
	if (err) {
		cli_error("%s: writing the undo file: %s",
			  ctx->opts->undo_file, extkit_strerror(err));
		return rc | FSCK_ERROR;
	}
	return rc;
}

/*
 * What e2fsck refuses as an operational error (exit 8), not a usage one:
 * -n with an option that writes (-D, -c, -l/-L). NULL when none.
 */
static const char *incompatible_with_n(const struct fsck_opts *o)
{
	if (o->mode != FSCK_MODE_NO)
		return NULL;
	if (o->compress_dirs)
		return "The -n and -D options are incompatible.";
	if (o->check_blocks)
		return "The -n and -c options are incompatible.";
	if (o->bb_file)
		return "The -n and -l/-L options are incompatible.";
	return NULL;
}

/*
 * -F: the device's buffers flushed before the check, as e2fsck does
 * (fsync, and on a block device BLKFLSBUF). 0, or -1 after saying why.
 */
static int flush_target(const char *target)
{
	int fd = open(target, O_RDONLY), rc = 0;
	struct stat st;

	if (fd < 0 || fsync(fd) < 0 ||
	    (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) &&
	     ioctl(fd, BLKFLSBUF, 0) < 0)) {
		cli_error("%s: while trying to flush: %s", target,
			  strerror(errno));
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The run, from the options parsed to the exit code. */
static int check(struct fsck_ctx *ctx)
{
	struct fsck_opts *opts = ctx->opts;
	struct fsck_rtrack track;
	int rc;

	if (incompatible_with_n(opts)) {
		cli_error("%s", incompatible_with_n(opts));
		return FSCK_ERROR;
	}
	if (opts->mode == FSCK_MODE_NO)
		opts->discard = 0;	/* e2fsck: no discard read-only */
	if (opts->flush && flush_target(opts->image))
		return FSCK_ERROR;
	if (opts->journal_dev && access(opts->journal_dev, R_OK)) {
		cli_error("-j: unable to resolve '%s': %s", opts->journal_dev,
			  strerror(errno));
		return FSCK_ERROR;
	}
	fsck_rtrack_start(&track);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fsck_interrupt_setup();
	ctx->device = opts->target;
	ctx->readonly = opts->mode == FSCK_MODE_NO;
	ctx->now = fsck_clock();
	ctx->one_thread = getenv("EXTKIT_FSCK_NO_THREADS") != NULL;
	ctx->force_threads = getenv("EXTKIT_FSCK_THREADS") != NULL;
	rc = run(ctx);
	rc = finish_undo(ctx, rc);
	if (opts->timing)
		fsck_rtrack_print(NULL, &track);
	fflush(stdout);
	free_ctx(ctx);
	return rc;
}

int main(int argc, const char **argv)
{
	struct fsck_opts opts = { .progress_fd = -1 };
	struct fsck_ctx ctx = { .opts = &opts };
	int rc;

	parse_args(argc, argv, &opts);
	rc = check(&ctx);
	free((char *)opts.target);
	free((char *)opts.image);
	free((char *)opts.extended);
	free((char *)opts.undo_file);
	free((char *)opts.bb_file);
	free((char *)opts.journal_dev);
	return rc;
}
