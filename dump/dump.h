/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extkit-dump: read-only views of an ext2/ext4 image, as text or JSON.
 * The options parsed from the command line, the context every command
 * runs in, the commands (super.c, dirs.c, files.c, frag.c) and the output
 * helpers they share (output.c).
 */
#ifndef EXTKIT_DUMP_H
#define EXTKIT_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"
#include "inode.h"
#include "cli/image.h"
#include "json.h"

#define DUMP_EXIT_OK	0
#define DUMP_EXIT_FAIL	1	/* bad argument, bad image, failed command */

/* Command options (which commands accept them: see the command table). */
#define DUMP_OPT_LONG	0x1	/* ls -l */
#define DUMP_OPT_META	0x2	/* blocks -m */
#define DUMP_OPT_TAR	0x4	/* extract --tar FILE */
#define DUMP_OPT_PRESERVE	0x8	/* dump -p */
#define DUMP_OPT_PARSE	0x10	/* ls -p */
#define DUMP_OPT_LOG	0x20	/* logdump -a -b -c -i -n -O -S */

struct dump_opts {
	int json;		/* --json */
	int hex;		/* -x: block numbers in hex */
	int version;		/* -V */
	int long_list;		/* ls -l */
	int parse_list;		/* ls -p: debugfs' /ino/mode/uid/gid/... */
	int meta;		/* blocks -m: indirect/extent tree blocks too */
	const char *tar;	/* extract --tar FILE ("-": stdout) */
	int preserve;		/* dump -p: owner, mode and times too */
	struct {		/* logdump, as debugfs' options */
		int all;	/* -a: every tag and revoke record */
		int contents;	/* -c: hex dumps of logged blocks */
		int old;	/* -O: past the log's end, old records too */
		int super;	/* -S: the journal superblock first */
		char *block;	/* -b BLOCK: where that block is logged */
		char *inode;	/* -i PATH: where that inode is logged */
		char *count;	/* -n N: with -O, N transactions */
	} log;
	struct cli_image img;	/* --offset, --partition */
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

#define N_ELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* output.c: text output shared by the commands (messages: lib/cli) */
void dump_put_blk(const struct dump_ctx *ctx, uint64_t blk);
void dump_put_time(int64_t t);
void dump_json_time(struct json_writer *w, const char *key, int64_t sec,
		    uint32_t nsec, int has_nsec);
void dump_format_uuid(const uint8_t *u, char out[37]);
#define DUMP_PATH_MAX	4097
const char *dump_known_path(struct dump_ctx *ctx, const char *arg,
			    uint32_t ino, char *buf, size_t size);
void dump_json_path(struct json_writer *w, const char *key, const char *path);
/* stat: the inline data and the extended attributes of inode ino. */
void dump_stat_xattrs(struct dump_ctx *ctx, uint32_t ino,
		      const struct extkit_inode *in);
void dump_put_name(const char *s, size_t len);
const char *dump_lookup_name(const char *const *names, unsigned int n,
			     unsigned int v, const char *dflt);
int dump_resolve(struct dump_ctx *ctx, const char *path, uint32_t *ino);

/*
 * The commands. Each prints its view of ctx->fs (text, or JSON through
 * ctx->jw) and returns 0 or a negative error, already reported.
 */
int dump_super(struct dump_ctx *ctx);	/* super.c */
/* journal.c: the journal's lines of dumpe2fs -h, or "journal" */
void dump_journal(struct dump_ctx *ctx);
/* journal.c: those lines, or the "journal" object, of a loaded journal */
struct extkit_journal;
void dump_journal_text(const struct extkit_fs *fs,
		       const struct extkit_journal *j);
void dump_journal_json(struct json_writer *w, const struct extkit_fs *fs,
		       const struct extkit_journal *j);
int dump_groups(struct dump_ctx *ctx);
/* groups.c: group g's block bitmap as the kernel reads it (uninit: free
 * but for the group's own metadata), bit i for blocks first + i * ratio;
 * NULL when it cannot be read. The caller frees it. */
uint8_t *dump_group_block_map(struct dump_ctx *ctx, uint32_t g,
			      uint64_t *nbits, uint32_t *ratio);
int dump_freefrag(struct dump_ctx *ctx);	/* freefrag.c */
int dump_lsdel(struct dump_ctx *ctx);	/* lsdel.c */
int dump_htree(struct dump_ctx *ctx);	/* htree.c */
int dump_logdump(struct dump_ctx *ctx);	/* logdump.c */
int dump_ls(struct dump_ctx *ctx);	/* dirs.c */
int dump_dirblock(struct dump_ctx *ctx);
int dump_stat(struct dump_ctx *ctx);	/* files.c */
int dump_blocks(struct dump_ctx *ctx);
int dump_quota(struct dump_ctx *ctx);	/* quota.c */

#endif /* EXTKIT_DUMP_H */
