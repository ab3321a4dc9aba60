// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory paths for messages: "/a/b" from the parents pass 2 found (or
 * a directory's own '..' before that), "???" for a part that cannot be
 * named. Only problem messages use it, so it may read directories.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dir.h"
#include "ondisk.h"

#include "fsck.h"

#define PATH_DEPTH_MAX	32

/* Name of entry ino in directory dir into out; 0 or -ENOENT. */
static int name_in(struct fsck_ctx *ctx, uint32_t dir, uint32_t ino,
		   char *out, size_t len)
{
	struct extkit_dir_iter *it;
	struct extkit_dirent ent;
	int rc, found = 0;

	if (extkit_dir_iter_open(ctx->fs, dir, 0, &it))
		return -ENOENT;
	while ((rc = extkit_dir_iter_next(it, &ent)) != 0) {
		if (rc < 0 || ent.kind != EXTKIT_DE_LIVE || ent.inode != ino)
			continue;
		if ((ent.name_len == 1 && ent.name[0] == '.') ||
		    (ent.name_len == 2 && !memcmp(ent.name, "..", 2)))
			continue;
		snprintf(out, len, "%.*s", (int)ent.name_len, ent.name);
		found = 1;
		break;
	}
	extkit_dir_iter_close(it);
	return found ? 0 : -ENOENT;
}

/* The parent pass 2 found, or what '..' says: pass 2's record, or
 * before pass 2 reached the directory (pass 1B's report) its own
 * '..' entry. */
static uint32_t parent_of(struct fsck_ctx *ctx, uint32_t ino)
{
	struct fsck_dir *d;
	uint32_t dotdot = 0;

	if (!ctx->dirs)
		return 0;
	d = fsck_dir_find(ctx, ino);
	if (!d)
		return 0;
	if (d->parent || d->dotdot)
		return d->parent ? d->parent : d->dotdot;
	if (extkit_dir_lookup(ctx->fs, ino, "..", 2, &dotdot))
		return 0;
	return dotdot;
}

/* Prepends "/part" to the path being built right to left in buf. */
static size_t prepend(char *buf, size_t pos, const char *part)
{
	size_t n = strlen(part);

	if (n + 1 > pos)
		return pos;
	pos -= n;
	memcpy(buf + pos, part, n);
	buf[--pos] = '/';
	return pos;
}

void fsck_dir_path(struct fsck_ctx *ctx, uint32_t ino, char *out, size_t len)
{
	char buf[1024], name[EXT2_NAME_LEN + 1];
	size_t pos = sizeof(buf) - 1;
	uint32_t cur = ino;

	buf[pos] = '\0';
	if (ino == EXT2_ROOT_INO) {
		snprintf(out, len, "/");
		return;
	}
	for (int depth = 0; cur != EXT2_ROOT_INO; depth++) {
		uint32_t parent = parent_of(ctx, cur);

		if (depth >= PATH_DEPTH_MAX || !parent ||
		    parent > ctx->fs->sb.inodes_count ||
		    name_in(ctx, parent, cur, name, sizeof(name))) {
			pos = prepend(buf, pos, "???");
			break;
		}
		pos = prepend(buf, pos, name);
		cur = parent;
	}
	snprintf(out, len, "%s", buf + pos);
}
