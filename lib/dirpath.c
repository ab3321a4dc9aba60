// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directories, by name: lookup in one directory and path resolution
 * (declared in dir.h), both over the directory iterator.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bmap.h"
#include "casefold.h"
#include "dir.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"

#define PATH_MAX_LEN		4096u
#define PATH_MAX_FOLLOWS	40
#define FAST_LINK_MAX		(EXT2_N_BLOCKS * 4u)

/* Whether entry ent is name (folded in fold, flen bytes, when the
 * directory is casefolded and the name folds; else flen < 0). */
static int name_matches(const struct extkit_dirent *ent, const char *name,
			uint32_t name_len, int casefolded, const char *fold,
			int flen, char *tmp)
{
	int n;

	if (ent->name_len == name_len && !memcmp(ent->name, name, name_len))
		return 1;
	if (!casefolded || flen < 0)
		return 0;
	/* as ext4_ci_compare: folds agree, or bytes when one does not fold */
	n = extkit_casefold(ent->name, ent->name_len, tmp,
			    EXTKIT_CASEFOLD_MAX);
	return n == flen && !memcmp(tmp, fold, (size_t)n);
}

int extkit_dir_lookup(struct extkit_fs *fs, uint32_t dir, const char *name,
		      uint32_t name_len, uint32_t *ino)
{
	struct extkit_dir_iter it;
	struct extkit_dirent ent;
	char *fold = NULL, *scratch = NULL;
	int corrupt = 0, casefolded, flen = -1;
	int rc;

	if (name_len == 0)
		return -EINVAL;
	if (name_len > EXT2_NAME_LEN)
		return -ENAMETOOLONG;
	rc = extkit_dir_iter_init(&it, fs, dir, 0);
	if (rc)
		return rc;
	casefolded = extkit_dir_is_casefolded(fs, it.inode.flags);
	if (casefolded) {
		fold = malloc(2 * EXTKIT_CASEFOLD_MAX);
		if (!fold) {
			extkit_dir_iter_end(&it);
			return -ENOMEM;
		}
		flen = extkit_casefold(name, name_len, fold,
				       EXTKIT_CASEFOLD_MAX);
		scratch = fold + EXTKIT_CASEFOLD_MAX;
	}
	while ((rc = extkit_dir_iter_next(&it, &ent)) > 0) {
		if (ent.kind == EXTKIT_DE_LIVE &&
		    name_matches(&ent, name, name_len, casefolded, fold, flen,
				 scratch)) {
			*ino = ent.inode;
			break;
		}
		corrupt |= ent.kind == EXTKIT_DE_CORRUPT;
	}
	free(fold);
	extkit_dir_iter_end(&it);
	if (rc < 0)
		return rc;
	if (rc)
		return 0;
	/* Not found, but part of the directory could not be read. */
	return corrupt ? -EFSCORRUPTED : -ENOENT;
}

/* A walk in progress: path holds what is left to resolve from pos on. */
struct path_walk {
	struct extkit_fs *fs;
	char *path;		/* PATH_MAX_LEN + 1 bytes */
	char *tmp;		/* scratch of the same size */
	size_t pos;
	uint32_t cur;		/* directory the next component is in */
	int follows;
};

/*
 * A first component "<N>" (N in 1 .. inodes_count) names inode N, as in
 * debugfs. Anything else, or "/<N>", is an ordinary name.
 */
static void path_inode_prefix(struct path_walk *w)
{
	const char *p = w->path;
	size_t clen = strcspn(p, "/"), i;
	uint64_t n = 0;

	if (clen < 3 || p[0] != '<' || p[clen - 1] != '>')
		return;
	for (i = 1; i < clen - 1; i++) {
		if (p[i] < '0' || p[i] > '9')
			return;
		n = n * 10 + (uint64_t)(p[i] - '0');
		if (n > w->fs->sb.inodes_count)
			return;
	}
	if (n == 0)
		return;
	w->cur = (uint32_t)n;
	w->pos = clen;
}

/* Reads a symlink's target into out (PATH_MAX_LEN + 1 bytes). */
static int path_read_link(struct extkit_fs *fs,
			  const struct extkit_inode *inode, char *out,
			  size_t *len)
{
	uint64_t size = inode->size, pblk;
	uint8_t *blk;
	uint32_t i;
	int rc;

	if (size == 0)
		return -ENOENT;
	if (size >= PATH_MAX_LEN)
		return -ENAMETOOLONG;
	if (inode->flags & EXT4_INLINE_DATA_FL)
		return -EXTKIT_EUNSUPP;
	if (size < FAST_LINK_MAX && !(inode->flags & EXT4_EXTENTS_FL)) {
		for (i = 0; i < EXT2_N_BLOCKS; i++)
			put_le32(out + 4 * i, inode->block[i]);
	} else {
		if (size > fs->g.block_size)
			return -EFSCORRUPTED;
		rc = extkit_bmap(fs, inode, 0, &pblk);
		if (rc)
			return rc;
		if (!pblk)
			return -EFSCORRUPTED;
		blk = malloc(fs->g.block_size);
		if (!blk)
			return -ENOMEM;
		rc = extkit_fs_read_block(fs, pblk, blk);
		if (!rc)
			memcpy(out, blk, (size_t)size);
		free(blk);
		if (rc)
			return rc;
	}
	*len = strnlen(out, (size_t)size);
	return *len ? 0 : -ENOENT;
}

/*
 * Steps into inode ino, met in the middle of the path. A symlink's target
 * replaces it: relative to the current directory, or from the root.
 */
static int path_step(struct path_walk *w, uint32_t ino)
{
	struct extkit_inode inode;
	size_t tlen, rest;
	char *swap;
	int rc;

	rc = extkit_inode_read(w->fs, ino, &inode);
	if (rc)
		return rc;
	if (!S_ISLNK(inode.mode)) {
		w->cur = ino;
		return 0;
	}
	if (++w->follows > PATH_MAX_FOLLOWS)
		return -ELOOP;
	rc = path_read_link(w->fs, &inode, w->tmp, &tlen);
	if (rc)
		return rc;
	rest = strlen(w->path + w->pos);
	if (tlen + rest > PATH_MAX_LEN)
		return -ENAMETOOLONG;
	memcpy(w->tmp + tlen, w->path + w->pos, rest + 1);
	if (w->tmp[0] == '/')
		w->cur = EXT2_ROOT_INO;
	swap = w->path;
	w->path = w->tmp;
	w->tmp = swap;
	w->pos = 0;
	return 0;
}

static int path_walk_run(struct path_walk *w, uint32_t *ino)
{
	const char *p, *comp;
	size_t clen;
	uint32_t next;
	int rc;

	for (;;) {
		p = w->path + w->pos;
		while (*p == '/')
			p++;
		if (!*p) {
			*ino = w->cur;
			return 0;
		}
		comp = p;
		clen = strcspn(p, "/");
		if (clen > EXT2_NAME_LEN)
			return -ENAMETOOLONG;
		p += clen;
		w->pos = (size_t)(p - w->path);
		rc = extkit_dir_lookup(w->fs, w->cur, comp, (uint32_t)clen,
				       &next);
		if (rc)
			return rc;
		while (*p == '/')
			p++;
		if (!*p) {
			*ino = next;
			return 0;
		}
		rc = path_step(w, next);
		if (rc)
			return rc;
	}
}

int extkit_path_resolve(struct extkit_fs *fs, const char *path,
			uint32_t *ino)
{
	struct path_walk w = { .fs = fs, .cur = EXT2_ROOT_INO };
	size_t len;
	char *mem;
	int rc;

	if (!path)
		return -EINVAL;
	len = strlen(path);
	if (len == 0)
		return -ENOENT;
	if (len > PATH_MAX_LEN)
		return -ENAMETOOLONG;
	mem = malloc(2 * (PATH_MAX_LEN + 1));
	if (!mem)
		return -ENOMEM;
	w.path = mem;
	w.tmp = mem + PATH_MAX_LEN + 1;
	memcpy(w.path, path, len + 1);
	if (path[0] != '/')
		path_inode_prefix(&w);
	rc = path_walk_run(&w, ino);
	free(mem);
	return rc;
}

/* The name dir gives child (not "." or ".."), copied into name. */
static int name_in_parent(struct extkit_fs *fs, uint32_t dir, uint32_t child,
			  char *name, size_t size)
{
	struct extkit_dir_iter it;
	struct extkit_dirent ent;
	int rc;

	rc = extkit_dir_iter_init(&it, fs, dir, 0);
	if (rc)
		return rc;
	while ((rc = extkit_dir_iter_next(&it, &ent)) > 0) {
		if (ent.kind != EXTKIT_DE_LIVE || ent.inode != child ||
		    (ent.name_len == 1 && ent.name[0] == '.') ||
		    (ent.name_len == 2 && !memcmp(ent.name, "..", 2)))
			continue;
		if ((size_t)ent.name_len >= size) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(name, ent.name, ent.name_len);
		name[ent.name_len] = '\0';
		break;
	}
	extkit_dir_iter_end(&it);
	if (rc < 0)
		return rc;
	return rc ? 0 : -ENOENT;
}

/*
 * A directory's path from the root, found by climbing '..' and looking
 * each name up in the parent: one walk of each ancestor, bounded by the
 * path length (a '..' loop ends there).
 */
int extkit_dir_path_of(struct extkit_fs *fs, uint32_t dir, char *buf,
		       size_t size)
{
	char name[EXT2_NAME_LEN + 1];
	size_t len = 0;
	uint32_t cur = dir;
	int rc;

	if (size < 2)
		return -ERANGE;
	buf[0] = '\0';
	while (cur != EXT2_ROOT_INO) {
		uint32_t parent;
		size_t n;

		rc = extkit_dir_lookup(fs, cur, "..", 2, &parent);
		if (!rc)
			rc = name_in_parent(fs, parent, cur, name,
					    sizeof(name));
		if (rc)
			return rc;
		n = strlen(name);
		if (len + n + 1 >= size || len + n + 1 > PATH_MAX_LEN)
			return -ENAMETOOLONG;
		memmove(buf + n + 1, buf, len + 1);
		buf[0] = '/';
		memcpy(buf + 1, name, n);
		len += n + 1;
		cur = parent;
	}
	if (!len)
		strcpy(buf, "/");
	return 0;
}
