// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d SOURCE: the entry point, and a directory tree as the source.
 * A directory is copied in one go: its names are read and sorted (so the
 * image does not depend on readdir order), each child gets the next free
 * inode in name order (the children of a directory take one run of
 * inodes) and, unless it is a directory, is copied there and then; the
 * directory's blocks are laid out and written, then the subdirectories
 * are copied in name order, recursively. Memory: the names of the
 * directories on the current path, and the source inodes with more than
 * one link.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "error.h"
#include "ondisk.h"

#include "populate.h"

#define LPF_NAME	"lost+found"
#define POP_BAR_MIN	2000	/* entries: fewer show no progress bar */

/* A child of the directory being copied. */
struct kid {
	uint32_t name_off;
	uint8_t len;
	uint32_t ino;
	int fresh;		/* first name of a new inode: copy it */
	int made;		/* from the device table, not the source */
};

static void meta_from_stat(const struct pop *p, const struct stat *st,
			   struct pop_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->mode = st->st_mode;
	m->uid = st->st_uid;
	m->gid = st->st_gid;
	m->size = (uint64_t)st->st_size;
	m->atime = st->st_atim;
	m->mtime = st->st_mtim;
	m->ctime = st->st_ctim;
	m->rdev_major = major(st->st_rdev);
	m->rdev_minor = minor(st->st_rdev);
	m->disk_bytes = (uint64_t)st->st_blocks * 512;
	(void)p;
}

/* ---- regular files: data segments found with SEEK_DATA/SEEK_HOLE ---- */

static int copy_segment(struct pop *p, struct pop_file *f, int fd,
			uint64_t from, uint64_t to)
{
	while (from < to) {
		size_t want = to - from < POP_BUF ? to - from : POP_BUF;
		ssize_t n = pread(fd, p->rbuf, want, (off_t)from);
		int rc;

		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* shrank while being copied */
		rc = pop_file_write(p, f, from, p->rbuf, (size_t)n);
		if (rc)
			return rc;
		from += (uint64_t)n;
	}
	return 0;
}

static int copy_data(struct pop *p, struct pop_file *f, int fd,
		     uint64_t disk_bytes)
{
	uint32_t bs = p->fs->g.block_size;
	off_t data = 0, hole;
	int rc = 0;

	if (disk_bytes >= f->size)	/* no holes: one segment */
		return copy_segment(p, f, fd, 0, f->size);
	while (!rc && (uint64_t)data < f->size) {
		data = lseek(fd, data, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? 0 : -errno;
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		/* whole blocks of the new filesystem: no block is shared by
		 * two segments (the source's blocks may be smaller) */
		data -= data % (off_t)bs;
		hole += (off_t)((bs - (uint64_t)hole % bs) % bs);
		if ((uint64_t)hole > f->size)
			hole = (off_t)f->size;
		rc = copy_segment(p, f, fd, (uint64_t)data, (uint64_t)hole);
		data = hole;
	}
	return rc;
}

/*
 * Closing the files copied: their descriptors are kept (at most POP_FDS)
 * and closed together, one close_range for each run of numbers -- they
 * mostly come one after the other -- instead of a close each.
 */
static void close_kept(struct pop *p)
{
	int i = 0, j, fd;

	for (i = 1; i < p->nfds; i++) {	/* sorted: almost already */
		fd = p->fds[i];
		for (j = i; j > 0 && p->fds[j - 1] > fd; j--)
			p->fds[j] = p->fds[j - 1];
		p->fds[j] = fd;
	}
	i = 0;
	while (i < p->nfds) {
		for (j = i + 1; j < p->nfds && p->fds[j] == p->fds[j - 1] + 1;
		     j++)
			;
#ifdef SYS_close_range
		if (j - i > 1 && !syscall(SYS_close_range, p->fds[i],
					  p->fds[j - 1], 0)) {
			i = j;
			continue;
		}
#endif
		for (; i < j; i++)
			close(p->fds[i]);
	}
	p->nfds = 0;
}

static void close_later(struct pop *p, int fd)
{
	if (p->nfds == POP_FDS)
		close_kept(p);
	p->fds[p->nfds++] = fd;
}

/* Opens a regular file of the source for its data (and attributes). */
static int open_data(struct pop *p, int dfd, const char *name, int *fd)
{
	*fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOATIME);
	if (*fd < 0 && errno == EPERM)
		*fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
	if (*fd < 0 && errno == EMFILE && p->nfds) {
		close_kept(p);
		return open_data(p, dfd, name, fd);
	}
	return *fd < 0 ? -errno : 0;
}

/* The whole of a small file (inline data): 1, or -EIO when it is shorter
 * than its size said. */
static int read_small(int fd, uint8_t *buf, uint64_t size)
{
	uint64_t got = 0;

	while (got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)got);

		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* shrank while being copied */
		got += (uint64_t)n;
	}
	return 1;
}

/* A regular file; fd: opened with open_data, -1 when it is empty; data:
 * its m->size bytes when the reader read them, else NULL. */
static int copy_file(struct pop *p, int fd, const uint8_t *data, uint32_t ino,
		     struct pop_meta *m)
{
	struct extkit_inode in = { 0 };
	struct pop_file f = { 0 };
	int rc;

	if (pop_inline_ok(p, ino)) {
		rc = pop_inline_fits(p, m, 0);
		if (rc > 0 && !data && m->size)
			rc = read_small(fd, p->rbuf, m->size);
		if (rc > 0)
			return pop_inline_file(p, ino, m, data ? data :
					       p->rbuf);
		if (rc < 0)
			return rc;
	}
	if (!m->size)
		return pop_write_inode(p, ino, m, &in, 1);
	rc = pop_file_begin(p, &f, m->size);
	if (!rc && data)
		rc = pop_file_write(p, &f, 0, data, (size_t)m->size);
	else if (!rc)
		rc = copy_data(p, &f, fd, m->disk_bytes);
	if (!rc)
		rc = pop_file_end(p, &f, ino, &in);
	pop_file_free(&f);
	return rc ? rc : pop_write_inode(p, ino, m, &in, 1);
}

static int copy_link(struct pop *p, int dfd, const char *name, uint32_t ino,
		     const struct pop_meta *m)
{
	char *target = (char *)p->rbuf;
	ssize_t n = readlinkat(dfd, name, target, POP_BUF);

	if (n < 0)
		return -errno;
	return pop_symlink(p, ino, m, target, (size_t)n);
}

/* ---- directories ---- */

/* Opens a directory of the source without touching its access time (the
 * next run would copy the new one): O_NOATIME where allowed. */
static int open_dir(int dfd, const char *name, int flags)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOATIME | flags);

	if (fd < 0 && errno == EPERM)	/* not the owner, not privileged */
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | flags);
	return fd;
}

static int copy_dir(struct pop *p, int dfd, uint32_t ino, uint32_t parent);

/* Writes the directory's own inode (its blocks come with copy_dir). */
static int dir_inode(struct pop *p, uint32_t ino, const struct pop_meta *m)
{
	struct extkit_inode in = { 0 };

	return pop_write_inode(p, ino, m, &in, 2);
}

/*
 * Makes dfd the current directory, so that the attribute calls (which
 * have no *at form) look up one name, not the whole path each time.
 */
static int enter(struct pop *p, int dfd)
{
	if (p->cwd_fd == dfd)
		return 0;
	if (fchdir(dfd))
		return -errno;
	p->cwd_fd = dfd;
	return 0;
}

/* Opens the file and reads its attributes, or takes what the reader
 * made of them (r: its record, or NULL). */
static int open_entry(struct pop *p, int dfd, const char *name,
		      const struct stat *st, struct pop_rec *r,
		      struct xsrc *xs, struct xlist *x)
{
	int rc;

	memset(x, 0, sizeof(*x));
	if (r && r->opened) {
		xs->fd = pop_reader_take_fd(p->rd, r);
		return r->no_xattrs ? 0 : pop_read_xattrs(xs, p->path, x);
	}
	/* a file with data is opened first: its attributes come through
	 * the descriptor, without another look-up of the name */
	if (S_ISREG(st->st_mode) && st->st_size > 0)
		rc = open_data(p, dfd, name, &xs->fd);
	else
		rc = enter(p, dfd);
	return rc ? rc : pop_read_xattrs(xs, p->path, x);
}

/* Copies one entry (st: its lstat, or NULL to take it here; r: what the
 * reader made of it, or NULL), and the subtree of a directory. */
static int copy_one(struct pop *p, int dfd, const struct kid *k,
		    const char *name, uint32_t parent_ino,
		    const struct stat *st_in, struct pop_rec *r)
{
	struct xsrc xs = { .fd = -1, .path = name };
	struct pop_label lb = { 0 };
	struct pop_meta m;
	struct xlist x;
	struct stat st;
	int rc = 0, sub;

	memset(&x, 0, sizeof(x));
	if (st_in)
		st = *st_in;
	else if (k->made)
		rc = pop_dt_stat(p, &st);
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (rc)
		return rc;
	meta_from_stat(p, &st, &m);
	if (!k->made)
		rc = open_entry(p, dfd, name, &st, r, &xs, &x);
	m.x = x.items;
	m.nx = x.n;
	if (!rc)
		rc = pop_dt_meta(p, &m);
	if (!rc)
		rc = pop_label(p, &m, &lb);
	if (rc)
		goto out;
	if (S_ISREG(st.st_mode))
		rc = copy_file(p, xs.fd, r && r->have_data ? r->data : NULL,
			       k->ino, &m);
	else if (S_ISLNK(st.st_mode))
		rc = copy_link(p, dfd, name, k->ino, &m);
	else if (S_ISDIR(st.st_mode))
		rc = dir_inode(p, k->ino, &m);
	else
		rc = pop_special(p, k->ino, &m);
	pop_progress(p);
	if (rc || !S_ISDIR(st.st_mode))
		goto out;
	sub = k->made ? -1 :
	      open_dir(dfd, name, O_NOFOLLOW);
	if (sub < 0 && !k->made) {
		rc = -errno;
		goto out;
	}
	rc = copy_dir(p, sub, k->ino, parent_ino);
	if (sub >= 0 && p->cwd_fd == sub)
		p->cwd_fd = -1;	/* its number may come back for another */
	if (sub >= 0)
		close(sub);
out:
	if (xs.fd >= 0)
		close_later(p, xs.fd);
	pop_label_free(p, &lb);
	pop_xlist_release(&x);
	return rc;
}

static int read_names(struct pop *p, int dfd, struct extkit_dirbuild *db)
{
	int fd = dup(dfd);
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);	/* the offset is shared with dfd's other dups */
	errno = 0;
	while (!rc && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* readdir's type: a hint for the reader (popread.c) */
		rc = extkit_dirbuild_add(db, de->d_name, (uint32_t)len, 0,
					 de->d_type == DT_REG ?
					 EXT2_FT_REG_FILE : EXT2_FT_UNKNOWN);
		if (rc == -ENAMETOOLONG) {
			pop_path_push(p, de->d_name, len);
			pop_error(p, "name longer than 255 bytes");
			rc = -POP_EREPORTED;
		}
	}
	if (!rc && errno)
		rc = -errno;
	closedir(d);
	return rc;
}

/* Whether name is lost+found in the root: it keeps inode 11. */
static int is_lpf(uint32_t dir, const char *name, uint32_t len)
{
	return dir == EXT2_ROOT_INO && len == sizeof(LPF_NAME) - 1 &&
	       !memcmp(name, LPF_NAME, len);
}

/* Gives each child its inode: a new one, or the one an earlier name of
 * the same source inode got (hard links). */
static int number_kid(struct pop *p, int dfd, uint32_t dir,
		      struct extkit_dirbuild_entry *e, const char *name,
		      const struct pop_rec *r, struct kid *k,
		      struct stat *st_out)
{
	struct stat st;
	uint32_t have;
	int rc, isdir;

	k->made = e->ino == POP_DT_NEW;
	if (k->made) {
		rc = pop_dt_stat(p, &st);
		if (rc)
			return rc;
	} else if (r && r->stat_ok)
		st = r->st;
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	*st_out = st;
	isdir = S_ISDIR(st.st_mode);
	e->ftype = extkit_mode_to_ftype((uint16_t)st.st_mode);
	k->fresh = 1;
	if (isdir && is_lpf(dir, e->name, e->len)) {
		k->ino = EXT2_GOOD_OLD_FIRST_INO;
		return pop_claim_lpf(p);
	} else if (!isdir && st.st_nlink > 1 && !p->o->hard_deref &&
		   pop_map_get(&p->srcino, st.st_dev, st.st_ino, &have)) {
		k->ino = have;
		k->fresh = 0;
		pop_progress(p);	/* one more name: done */
		rc = pop_link_add(p, have);
		return rc ? rc : pop_dt_set_inode(p, have, NULL);
	} else {
		rc = pop_new_inode(p, isdir, &k->ino);
		if (rc)
			return rc;
		if (!isdir && st.st_nlink > 1 && !p->o->hard_deref)
			return pop_map_put(&p->srcino, st.st_dev, st.st_ino,
					   k->ino);
	}
	return 0;
}

/*
 * Numbers the children and copies those that are not directories right
 * away (their stat at hand); directories are copied once the directory's
 * own blocks are out (copy_kids). So a directory's children take one run
 * of inodes: the directory reserves exactly what it needs.
 */
static int number_kids(struct pop *p, int dfd, uint32_t dir,
		       struct extkit_dirbuild *db, struct kid *kids)
{
	char name[EXT2_NAME_LEN + 1];
	size_t base = p->plen;
	struct stat st;
	int rc = 0;

	pop_align_goal(p, db->n);
	for (uint64_t i = 0; !rc && i < db->n; i++) {
		struct extkit_dirbuild_entry *e = &db->e[i];
		struct pop_rec *r = p->rd && dfd >= 0 ?
				     pop_reader_get(p->rd) : NULL;

		kids[i].name_off = e->name_off;
		kids[i].len = e->len;
		memcpy(name, e->name, e->len);
		name[e->len] = 0;
		rc = pop_path_push(p, e->name, e->len);
		if (!rc)
			rc = number_kid(p, dfd, dir, e, name, r, &kids[i],
					&st);
		e->ino = kids[i].ino;
		/* without the reservation (a benchmark's baseline), a
		 * subdirectory's tree is numbered before the next name,
		 * depth first, as mke2fs -d does */
		if (!rc && kids[i].fresh &&
		    (!S_ISDIR(st.st_mode) || p->no_reserve)) {
			rc = copy_one(p, dfd, &kids[i], name, dir, &st, r);
			kids[i].fresh = 0;
		}
		if (r)
			pop_reader_put(p->rd, r);
		if (rc && rc != -POP_EREPORTED)
			pop_error(p, pop_reason(rc));
		if (rc)
			return -POP_EREPORTED;
		p->plen = base;
		p->path[base] = 0;
	}
	return 0;
}

/* The root without a lost+found of its own keeps mkfs's. */
static int add_lpf(struct extkit_dirbuild *db)
{
	for (uint64_t i = 0; i < db->n; i++)
		if (is_lpf(EXT2_ROOT_INO, db->names + db->e[i].name_off,
			   db->e[i].len))
			return 0;
	return 1;
}

static int copy_kids(struct pop *p, int dfd, uint32_t ino,
		     struct extkit_dirbuild *db, struct kid *kids, uint64_t n)
{
	char name[EXT2_NAME_LEN + 1];
	size_t base = p->plen;
	int rc = 0;

	for (uint64_t i = 0; !rc && i < n; i++) {
		if (!kids[i].fresh)
			continue;
		memcpy(name, db->names + kids[i].name_off, kids[i].len);
		name[kids[i].len] = 0;
		rc = pop_path_push(p, name, kids[i].len);
		if (!rc)
			rc = copy_one(p, dfd, &kids[i], name, ino, NULL,
				      NULL);
		if (rc && rc != -POP_EREPORTED) {
			pop_error(p, pop_reason(rc));
			rc = -POP_EREPORTED;
		}
		p->plen = base;
		p->path[base] = 0;
	}
	return rc;
}

static int copy_dir(struct pop *p, int dfd, uint32_t ino, uint32_t parent)
{
	struct extkit_dirbuild db;
	struct kid *kids = NULL;
	uint64_t n;
	int rc, lpf = 0;

	extkit_dirbuild_init(&db, p->fs);
	rc = dfd >= 0 ? read_names(p, dfd, &db) : 0;	/* -1: made */
	if (!rc)
		rc = extkit_dirbuild_sort_names(&db);
	if (!rc)
		rc = pop_dt_add_names(p, &db);
	if (rc)
		goto out;
	n = db.n;
	kids = calloc(n ? n : 1, sizeof(*kids));
	if (!kids) {
		rc = -ENOMEM;
		goto out;
	}
	if (p->rd && dfd >= 0)
		pop_reader_start(p->rd, dfd, &db);
	rc = number_kids(p, dfd, ino, &db, kids);
	if (p->rd && dfd >= 0)
		pop_reader_end(p->rd);
	if (!rc && ino == EXT2_ROOT_INO && (lpf = add_lpf(&db)))
		rc = extkit_dirbuild_add(&db, LPF_NAME, sizeof(LPF_NAME) - 1,
					 EXT2_GOOD_OLD_FIRST_INO, EXT2_FT_DIR);
	db.dot = ino;
	db.dotdot = parent;
	if (!rc)
		rc = pop_dir_finish(p, ino, &db);
	if (!rc)
		rc = copy_kids(p, dfd, ino, &db, kids, n);
out:
	if (rc && rc != -POP_EREPORTED) {
		pop_error(p, pop_reason(rc));
		rc = -POP_EREPORTED;
	}
	free(kids);
	extkit_dirbuild_free(&db);
	return rc;
}

/* Entries under dfd, for the progress bar (readdir only). */
static uint64_t count_tree(int dfd)
{
	int fd = dup(dfd);
	uint64_t n = 0;
	struct dirent *de;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		sub = open_dir(dfd, de->d_name, O_NOFOLLOW);
		if (sub >= 0) {
			n += count_tree(sub);
			close(sub);
		}
	}
	closedir(d);
	return n;
}

#ifdef EXTKIT_TEST_HOOKS
/* For the tests (EXTKIT_TEST_SAY_READER): which way the source is read. */
static void say_reader(const struct pop_reader *rd)
{
	const char *why = rd ? pop_reader_no_ring(rd) : NULL;

	if (!getenv("EXTKIT_TEST_SAY_READER"))
		return;
	if (!rd)
		fprintf(stderr, "reader: builder only\n");
	else if (why)
		fprintf(stderr, "reader: system calls (%s)\n", why);
	else
		fprintf(stderr, "reader: io_uring\n");
}
#endif

static int copy_tree(struct pop *p, const char *source)
{
	struct pop_label lb = { 0 };
	struct pop_meta m;
	struct xlist x;
	struct stat st;
	int dfd, rc, cwd;

	cwd = open(".", O_PATH | O_DIRECTORY);
	if (cwd < 0) {
		pop_error(p, strerror(errno));
		return -POP_EREPORTED;
	}
	p->cwd_fd = -1;
	dfd = open_dir(AT_FDCWD, source, 0);
	if (dfd < 0 || fstat(dfd, &st)) {
		pop_error(p, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		close(cwd);
		return -POP_EREPORTED;
	}
	/* EXTKIT_MKFS_NO_READER: one thread (benchmarks and tests); and
	 * without the reservation a subdirectory is copied while its
	 * parent's children are being read */
	if (!getenv("EXTKIT_MKFS_NO_READER") && !p->no_reserve)
		p->rd = pop_reader_new();
#ifdef EXTKIT_TEST_HOOKS
	say_reader(p->rd);
#endif
	if (p->bar) {
		p->total = count_tree(dfd);
		p->bar = p->total > POP_BAR_MIN;
	}
	meta_from_stat(p, &st, &m);
	rc = pop_read_xattrs(&(struct xsrc){ .fd = dfd }, p->path, &x);
	m.x = x.items;
	m.nx = x.n;
	if (!rc)
		rc = pop_dt_meta(p, &m);
	if (p->o->root_owner_given) {
		m.uid = p->o->root_uid;
		m.gid = p->o->root_gid;
	}
	if (p->o->root_perms >= 0)
		m.mode = S_IFDIR | (uint32_t)p->o->root_perms;
	if (!rc)
		rc = pop_label(p, &m, &lb);
	if (!rc)
		rc = dir_inode(p, EXT2_ROOT_INO, &m);
	pop_label_free(p, &lb);
	pop_xlist_release(&x);
	if (!rc)
		rc = copy_dir(p, dfd, EXT2_ROOT_INO, EXT2_ROOT_INO);
	else
		pop_error(p, extkit_strerror(rc));
	if (!rc && pop_label_lpf(p)) {
		pop_error(p, "labelling lost+found");
		rc = -POP_EREPORTED;
	}
	if (!rc) {
		rc = pop_dt_check_used(p);
		if (rc)
			pop_error(p, "");
	}
	pop_reader_free(p->rd);
	p->rd = NULL;
	close_kept(p);
	close(dfd);
	if (fchdir(cwd) && !rc) {
		pop_error(p, strerror(errno));
		rc = -POP_EREPORTED;
	}
	close(cwd);
	return rc ? -POP_EREPORTED : 0;
}

int mkfs_populate(const struct mkfs_opts *o, const struct mkfs_layout *l,
		  struct extkit_fs *fs)
{
	struct pop p;
	struct stat st;
	int rc = pop_init(&p, o, fs, l);

	if (!rc)
		/* its block, its cluster on bigalloc */
		rc = extkit_fsbuild_release_clusters(&p.fb, l->root_block, 1);
	if (!rc && o->source)
		rc = pop_path_push(&p, o->source, strlen(o->source));
	p.src_len = p.plen;
	if (rc) {
		pop_fini(&p);
		return rc;
	}
	p.bar = !o->quiet && isatty(STDERR_FILENO);
	if (!o->source) {	/* the device table alone */
		rc = pop_archive(&p, NULL);
	} else if (!strcmp(o->source, "-")) {
		rc = pop_archive(&p, o->source);
	} else if (stat(o->source, &st)) {
		pop_error(&p, strerror(errno));
		rc = -POP_EREPORTED;
	} else if (S_ISDIR(st.st_mode)) {
		rc = copy_tree(&p, o->source);
	} else {
		rc = pop_archive(&p, o->source);
	}
	if (p.bar_shown)
		fputc('\n', stderr);
	if (!rc)
		rc = pop_data_flush(&p);
	if (!rc)
		rc = pop_links_write(&p);
	if (!rc)
		rc = pop_inode_flush(&p);
	if (!rc && p.wr)	/* all out before the superblock */
		rc = pop_writer_wait(p.wr);
#ifdef EXTKIT_TEST_HOOKS
	if (!rc && getenv("EXTKIT_TEST_SAY_WRITER"))
		fprintf(stderr, "writer: %s\n", !p.wr ? "page cache" :
			pop_writer_direct(p.wr) > 0 ? "O_DIRECT" :
			pop_writer_direct(p.wr) < 0 ? "O_DIRECT refused" :
			"page cache");
#endif
	if (!rc)
		rc = extkit_fsbuild_flush(&p.fb);
	pop_fini(&p);
	return rc;
}
