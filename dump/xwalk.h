/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extract's tree walk (extract.c) and the sinks it feeds: a directory
 * (xdisk.c) or a pax archive (xtar.c), both opened by the command
 * (extract_cmd.c). The walk decides what is safe and
 * what comes out (names, loops, hard links, depth) and reports; a sink
 * only creates what it is handed, under the handle of its parent.
 */
#ifndef EXTKIT_DUMP_XWALK_H
#define EXTKIT_DUMP_XWALK_H

#include <stdint.h>
#include <time.h>

#include "fs.h"
#include "inode.h"
#include "xattrlist.h"

#include "dump.h"
#include "json.h"

/* Directories below the extraction root, and the longest path. */
#define XWALK_MAX_DEPTH	512
#define XWALK_PATH_CAP	((XWALK_MAX_DEPTH + 2) * 256)

/* What came out and what did not. */
struct xstats {
	uint64_t files, dirs, hardlinks, symlinks, specials, bytes;
	/* skipped: each unsafe or damaged entry is also reported by path */
	uint64_t unsafe, damaged, encrypted, sockets, exists;
	/* not applied (not permitted): one summary line */
	uint64_t owners, xattrs, devices, modes, times, other_xattrs;
};

/* One entry handed to a sink. */
struct xent {
	uint32_t ino;
	const struct extkit_inode *in;
	const uint8_t *raw;		/* the raw inode */
	const char *name;		/* one safe component; NULL: the root */
	const char *path;		/* from the extraction root, "" for it */
	struct timespec atime, mtime, ctime;
};

struct xwalk;

struct xsink_ops {
	/* A directory: *dh its handle, for its children and dir_end. */
	int (*dir_begin)(struct xwalk *w, void *parent, const struct xent *e,
			 void **dh);
	/* After its children: metadata, then the handle is released. */
	void (*dir_end)(struct xwalk *w, void *dh, const struct xent *e);
	/* A file, a symlink, a device or a FIFO. */
	int (*leaf)(struct xwalk *w, void *parent, const struct xent *e);
	/* Another name of the inode first put at path first. */
	int (*hardlink)(struct xwalk *w, void *parent, const struct xent *e,
			const char *first);
};

struct xwalk {
	struct dump_ctx *ctx;
	struct extkit_fs *fs;
	const struct xsink_ops *ops;
	void *sink;
	struct xstats st;
	FILE *out;		/* the summary: stdout, stderr for tar to - */
};

/* Reports path (escaped) and a message on stderr. */
void xwalk_report(struct xwalk *w, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Counts and reports an entry that did not come out whole. */
void xwalk_damaged(struct xwalk *w, const char *path, const char *what,
		   int err);

/*
 * Walks the tree at ctx's PATH argument (the root without one) into the
 * sink. Returns DUMP_EXIT_OK, DUMP_EXIT_PARTIAL or DUMP_EXIT_FAIL.
 */
int xwalk_run(struct xwalk *w, const char *path);
/* Prints the summary lines of w->st. */
void xwalk_summary(struct xwalk *w);
void xwalk_summary_json(struct xwalk *w, struct json_writer *j, int partial);

/*
 * The name of one attribute as the system calls spell it ("user.x"), in
 * name (256 bytes); its value in the form they take (ACLs converted) in
 * buf (EXTKIT_XATTR_MAX_VALUE * 2 + 4 bytes). 0; 1 for system.data,
 * which is no attribute but the inline data (copied as the contents);
 * -ENOTSUP for one that is not copied (unknown indexes); -EFSCORRUPTED
 * for a malformed ACL.
 */
int xattr_for_syscall(const struct extkit_xattr_value *v, char *name,
		      uint8_t *buf, size_t *len);
#define XATTR_BUF_SIZE	(2 * 65536 + 8)

int xsink_disk_open(struct xwalk *w, const char *dest);
void xsink_disk_close(struct xwalk *w);
int xsink_tar_open(struct xwalk *w, const char *file);
int xsink_tar_close(struct xwalk *w);

#endif /* EXTKIT_DUMP_XWALK_H */
