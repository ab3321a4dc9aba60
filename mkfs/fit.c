// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d DIR without SIZE for a new file: the smallest filesystem that
 * holds the tree, found before anything is written. The tree is walked
 * once (status, data segments, attribute sizes): for every block size,
 * the blocks its files take (data without holes, extent or indirect
 * blocks, symbolic link blocks, attribute blocks, with ea_inode the EA
 * inodes of values too large for a block) and its directories
 * take (entries packed into blocks, htree index blocks), and the inodes.
 * Then sizes are tried by bisection, each through the same layout code
 * the run uses (in a child process, so that nothing of the trials stays):
 * a size holds the tree when its free blocks and inodes cover the need.
 * Each estimate errs upward, so the size found holds the tree; -E
 * fit_slack=PCT adds room. On bigalloc what each takes is counted in
 * whole clusters (the data by the clusters its segments touch, for every
 * cluster size, as the size decides the geometry).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ondisk.h"
#include "cli/msg.h"

#include "devtable.h"
#include "populate.h"

#define FIT_NBS		7		/* block sizes 1 KiB .. 64 KiB */
#define FIT_NCS		20		/* clusters of 1 KiB .. 512 MiB */
#define FIT_EXT_MAX	32768u		/* blocks of one initialized extent */
#define FIT_IN_INODE	88u		/* attribute bytes in a 256-byte inode */

struct fit_need {
	uint64_t inodes;
	uint64_t ext[FIT_NBS];		/* file blocks with extents */
	uint64_t ind[FIT_NBS];		/* ... with block maps */
	uint64_t dir[FIT_NBS];		/* directory blocks */
	uint64_t ea128;			/* attribute blocks, 128-byte inodes */
	uint64_t ea256;			/* ... larger inodes */
	uint64_t eai_inodes;		/* EA inodes (ea_inode) at most */
	uint64_t eai[FIT_NBS];		/* ... and their blocks */
	/* bigalloc: what takes whole clusters. Data clusters by cluster
	 * size (1 KiB << m); extent tree blocks; directories, slow
	 * symbolic links and EA inode values (each may leave a cluster
	 * part empty) */
	uint64_t data_cl[FIT_NCS];
	uint64_t ext_meta[FIT_NBS];
	uint64_t ndirs;
	uint64_t nslow;
	uint64_t eai_vals[FIT_NBS];
	struct pop_map seen;		/* (dev, ino) of files with links */
	int deref;			/* -E hard_dereference: copies */
	const char *why;
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/*
 * Indirect blocks of a block-mapped file: for each level, the blocks
 * covering its data blocks, counted once (segments come in increasing
 * offsets). last[k]: the last block counted of kind k, + 1.
 */
struct ind_state {
	uint64_t last[6];
};

static uint64_t ind_range(struct ind_state *s, int kind, uint64_t lo,
			  uint64_t hi)
{
	uint64_t from = lo + 1 > s->last[kind] ? lo + 1 : s->last[kind];

	if (hi + 1 < from)
		return 0;
	s->last[kind] = hi + 2;
	return hi + 1 - from + 1;
}

static uint64_t ind_blocks(struct ind_state *s, uint64_t b0, uint64_t b1,
			   uint64_t bs)
{
	uint64_t p = bs / 4, n = 0, d = EXT2_NDIR_BLOCKS;

	if (b1 <= d)
		return 0;
	b0 = b0 > d ? b0 - d : 0;
	b1 -= d;
	if (b0 < p)				/* single */
		n += ind_range(s, 0, 0, 0);
	if (b1 > p) {				/* double */
		uint64_t lo = b0 > p ? b0 - p : 0;
		uint64_t hi = b1 - p < p * p ? b1 - p : p * p;

		if (lo < hi)
			n += ind_range(s, 1, 0, 0) +
			     ind_range(s, 2, lo / p, (hi - 1) / p);
	}
	if (b1 > p + p * p) {			/* triple */
		uint64_t lo = b0 > p + p * p ? b0 - p - p * p : 0;
		uint64_t hi = b1 - p - p * p;

		n += ind_range(s, 3, 0, 0) +
		     ind_range(s, 4, lo / (p * p), (hi - 1) / (p * p)) +
		     ind_range(s, 5, lo / p, (hi - 1) / p);
	}
	return n;
}

/* Extent tree blocks for n extents (the inode holds four). */
static uint64_t ext_blocks(uint64_t n, uint64_t bs)
{
	uint64_t per = (bs - 12) / 12, leaves;

	if (n <= 4)
		return 0;
	leaves = div_up(n, per);
	return leaves + (leaves > 4 ? div_up(leaves, per) : 0);
}

/* The clusters of cs bytes bytes [data, hole) of a file touch, those
 * before *last (+ 1: counted for the file already) left out. */
static void add_clusters(uint64_t *n, uint64_t *last, off_t data, off_t hole,
			 uint64_t cs)
{
	uint64_t c0 = (uint64_t)data / cs, c1 = div_up((uint64_t)hole, cs);

	if (c0 < *last)
		c0 = *last;
	if (c1 > c0) {
		*n += c1 - c0;
		*last = c1;
	}
}

static void add_file(struct fit_need *nd, int fd, const struct stat *st)
{
	uint64_t size = (uint64_t)st->st_size;
	uint64_t nb[FIT_NBS] = { 0 }, ne[FIT_NBS] = { 0 };
	uint64_t ni[FIT_NBS] = { 0 };
	struct ind_state is[FIT_NBS];
	uint64_t last_cl[FIT_NCS] = { 0 };
	off_t data = 0, hole = (off_t)size;

	memset(is, 0, sizeof(is));

	for (;;) {
		if (fd >= 0 && (uint64_t)st->st_blocks * 512 < size) {
			data = lseek(fd, data, SEEK_DATA);
			if (data < 0)
				break;
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0)
				hole = (off_t)size;
		}
		for (int i = 0; i < FIT_NBS; i++) {
			uint64_t bs = 1024u << i;
			uint64_t n = div_up((uint64_t)hole, bs) -
				     (uint64_t)data / bs;

			nb[i] += n;
			ni[i] += ind_blocks(&is[i], (uint64_t)data / bs,
					    div_up((uint64_t)hole, bs), bs);
			/* a run breaks at its longest, and at a group */
			ne[i] += div_up(n, FIT_EXT_MAX) + n / (8 * bs) + 1;
		}
		for (int m = 0; m < FIT_NCS; m++)	/* whole clusters */
			add_clusters(&nd->data_cl[m], &last_cl[m], data, hole,
				     1024ull << m);
		if (fd < 0 || (uint64_t)st->st_blocks * 512 >= size ||
		    (uint64_t)hole >= size)
			break;
		data = hole;
	}
	for (int i = 0; i < FIT_NBS; i++) {
		uint64_t bs = 1024u << i;

		nd->ext[i] += nb[i] + ext_blocks(ne[i], bs);
		nd->ext_meta[i] += ext_blocks(ne[i], bs);
		nd->ind[i] += nb[i] + ni[i];
	}
}

/* A value that may go in an EA inode of its own (with ea_inode): one
 * over what an EA block holds (extkit_xattr_large_value). */
static void add_ea_inode(struct fit_need *nd, uint64_t v)
{
	if (v <= 1024 - 56)
		return;
	nd->eai_inodes++;
	for (int i = 0; i < FIT_NBS; i++)
		if (v > (1024u << i) - 56) {
			nd->eai[i] += div_up(v, 1024u << i);
			nd->eai_vals[i]++;
		}
}

/* Attribute bytes of an entry as ext4 stores them (prefix dropped). */
static uint64_t xattr_bytes(struct fit_need *nd, int dfd, const char *name)
{
	char list[65536];
	ssize_t n;
	uint64_t sum = 0;

	(void)dfd;	/* the current directory */
	n = llistxattr(name, list, sizeof(list));
	for (ssize_t off = 0; n > 0 && off < n;) {
		const char *x = list + off, *dot = strchr(x, '.');
		size_t len = strlen(x);
		ssize_t v = lgetxattr(name, x, NULL, 0);

		if (v > 0)
			add_ea_inode(nd, (uint64_t)v);

		sum += 16 + ((len - (dot ? (size_t)(dot - x) + 1 : 0) + 3) &
			     ~3u) + (v > 0 ? ((uint64_t)v + 3) & ~3ull : 0);
		off += (ssize_t)len + 1;
	}
	return sum;
}

static void add_xattrs(struct fit_need *nd, uint64_t bytes)
{
	if (!bytes)
		return;
	nd->ea128++;
	if (bytes > FIT_IN_INODE)
		nd->ea256++;
}

/* Directory blocks for entries of total bytes (8 + name, rounded). */
static void add_dir(struct fit_need *nd, uint64_t bytes)
{
	nd->ndirs++;
	for (int i = 0; i < FIT_NBS; i++) {
		uint64_t bs = 1024u << i, use = bs - 12, leaves;

		if (bytes <= use) {
			nd->dir[i]++;
			continue;
		}
		/* htree: leaves split by hash are 3/4 full at worst */
		leaves = div_up(bytes * 4, use * 3) + 1;
		nd->dir[i] += 1 + leaves +
			      (leaves > (bs - 32) / 8 ?
			       div_up(leaves, (bs - 16) / 8) : 0);
	}
}

static int walk(struct fit_need *nd, int dfd);

static int one(struct fit_need *nd, int dfd, const char *name,
	       uint64_t *dirbytes)
{
	struct stat st;
	uint32_t have;
	int fd, rc = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	*dirbytes += 8 + ((strlen(name) + 3) & ~(size_t)3);
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1 && !nd->deref) {
		if (pop_map_get(&nd->seen, st.st_dev, st.st_ino, &have))
			return 0;
		rc = pop_map_put(&nd->seen, st.st_dev, st.st_ino, 1);
		if (rc)
			return rc;
	}
	nd->inodes++;
	if (fchdir(dfd))
		return -errno;
	add_xattrs(nd, xattr_bytes(nd, dfd, name));
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOATIME);
		if (fd < 0)
			fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
		add_file(nd, fd, &st);
		if (fd >= 0)
			close(fd);
	} else if (S_ISLNK(st.st_mode) && st.st_size >= 60) {
		for (int i = 0; i < FIT_NBS; i++)
			nd->ext[i]++, nd->ind[i]++;
		nd->nslow++;
	} else if (S_ISDIR(st.st_mode)) {
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_NOATIME);
		if (fd < 0)
			fd = openat(dfd, name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			return -errno;
		rc = walk(nd, fd);
		close(fd);
	}
	return rc;
}

/* The entries of directory dfd (closed by the caller), recursively. */
static int walk(struct fit_need *nd, int dfd)
{
	uint64_t bytes = 24;	/* '.' and '..' */
	int fd = dup(dfd), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (!rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		rc = one(nd, dfd, de->d_name, &bytes);
	}
	closedir(d);
	if (!rc)
		add_dir(nd, bytes + 20);	/* lost+found, in the root */
	return rc;
}

/* What a device table may add: an inode per path, a block per new
 * directory, and a block more in each directory it adds names to. */
static void add_devtab(struct fit_need *nd, const struct mkfs_devtab *dt)
{
	for (size_t i = 0; dt && i < dt->n; i++) {
		int d = S_ISDIR(dt->e[i].mode);

		nd->inodes++;
		for (int b = 0; b < FIT_NBS; b++)
			nd->dir[b] += d + (i == 0 || dt->e[i].plen !=
					   dt->e[i - 1].plen);
		nd->ndirs += d + (i == 0 || dt->e[i].plen != dt->e[i - 1].plen);
	}
}

/*
 * bigalloc (2^k blocks a cluster, block size 1 KiB << i): the blocks
 * the tree takes in whole clusters. Data by its clusters; a tree block,
 * a slow symbolic link, an EA block a cluster each; a directory or an
 * EA inode value its blocks and at most a cluster less one more.
 */
static uint64_t cluster_need(const struct fit_need *nd, int i, uint32_t k,
			     int big_inode, int ea_inode)
{
	uint64_t r1 = (1ull << k) - 1, n;
	int m = i + (int)k < FIT_NCS ? i + (int)k : FIT_NCS - 1;

	n = (nd->data_cl[m] + nd->ext_meta[i] + nd->nslow +
	     (big_inode ? nd->ea256 : nd->ea128)) << k;
	return n + nd->dir[i] + nd->ndirs * r1 +
	       (ea_inode ? nd->eai_vals[i] * r1 : 0);
}

/* Whether size bytes hold the need (run in a child: 0 yes, 1 no). */
static int holds(struct mkfs_opts *o, const struct mkfs_target *t,
		 const struct fit_need *nd, uint64_t size)
{
	char arg[32];
	struct mkfs_layout l;
	struct extkit_fs fs;
	uint64_t need, inodes = nd->inodes;
	int i = 0;

	snprintf(arg, sizeof(arg), "%lluk", (unsigned long long)(size >> 10));
	o->size_arg = arg;
	if (mkfs_layout_compute(o, t, &l) || mkfs_fs_init(o, &l, &fs))
		return 1;
	while ((1024u << i) < l.block_size && i < FIT_NBS - 1)
		i++;
	need = (o->incompat & EXT4_FEATURE_INCOMPAT_EXTENTS ? nd->ext[i] :
		nd->ind[i]) + nd->dir[i] +
	       (l.inode_size > EXT2_GOOD_OLD_INODE_SIZE ? nd->ea256 :
		nd->ea128);
	if (l.cluster_bits)
		need = cluster_need(nd, i, l.cluster_bits,
			l.inode_size > EXT2_GOOD_OLD_INODE_SIZE,
			!!(o->incompat & EXT4_FEATURE_INCOMPAT_EA_INODE));
	/* written after the free counts: the journal, the orphan file,
	 * and a margin for the quota files (in whole clusters) */
	need += (uint64_t)l.journal_blocks + l.fc_blocks + l.orphan_blocks +
		(o->ro_compat & EXT4_FEATURE_RO_COMPAT_QUOTA ? 16 : 0) +
		3 * (((uint64_t)1 << l.cluster_bits) - 1);
	if (o->incompat & EXT4_FEATURE_INCOMPAT_EA_INODE) {
		need += nd->eai[i];
		inodes += nd->eai_inodes;
	}
	return fs.sb.free_blocks_count >= need &&
	       fs.sb.free_inodes_count >= inodes ? 0 : 1;
}

static int try_size(struct mkfs_opts *o, const struct mkfs_target *t,
		    const struct fit_need *nd, uint64_t size)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {	/* the trials say nothing */
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		_exit(holds(o, t, nd, size));
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int search(struct mkfs_opts *o, const struct mkfs_target *t,
		  const struct fit_need *nd, uint64_t *out)
{
	uint64_t lo = 64 << 10, hi = lo;	/* KiB-aligned sizes */
	int r;

	while ((r = try_size(o, t, nd, hi)) == 0) {
		lo = hi;
		if (hi > (1ull << 60))
			return -EFBIG;
		hi *= 2;
	}
	if (r < 0)
		return r;
	/* lo fails (or is the floor), hi holds */
	while (hi - lo > 1024) {
		uint64_t mid = (lo + (hi - lo) / 2) & ~1023ull;

		if (mid <= lo)
			break;
		r = try_size(o, t, nd, mid);
		if (r < 0)
			return r;
		if (r)
			hi = mid;
		else
			lo = mid;
	}
	*out = hi;
	return 0;
}

/* Walks -d's directory into nd (a clear error when it is not one). */
static int measure(const struct mkfs_opts *o, const struct mkfs_target *t,
		   struct fit_need *nd)
{
	struct stat st;
	int dfd, cwd, rc;

	memset(nd, 0, sizeof(*nd));
	nd->deref = o->hard_deref;
	if (!o->source || !strcmp(o->source, "-") || stat(o->source, &st) ||
	    !S_ISDIR(st.st_mode)) {
		cli_error("%s does not exist; give a SIZE to create it (the "
			  "size is found from -d's source only for a "
			  "directory)", t->path);
		return -EINVAL;
	}
	cwd = open(".", O_PATH | O_DIRECTORY);
	dfd = open(o->source, O_RDONLY | O_DIRECTORY | O_NOATIME);
	if (dfd < 0)
		dfd = open(o->source, O_RDONLY | O_DIRECTORY);
	if (cwd < 0 || dfd < 0) {
		cli_error("-d %s: %s", o->source, strerror(errno));
		rc = -errno;
		goto out;
	}
	rc = walk(nd, dfd);
	if (fchdir(cwd) && !rc)
		rc = -errno;
	if (rc)
		cli_error("-d %s: measuring the tree: %s", o->source,
			  strerror(-rc));
	else
		add_devtab(nd, o->devtab);
out:
	if (dfd >= 0)
		close(dfd);
	if (cwd >= 0)
		close(cwd);
	return rc;
}

int mkfs_fit(struct mkfs_opts *o, const struct mkfs_target *t)
{
	struct fit_need nd;
	uint64_t size;
	char buf[32];
	int rc;

	rc = measure(o, t, &nd);
	if (rc)
		goto out;
	rc = search(o, t, &nd, &size);
	if (rc) {
		cli_error("-d %s: no size found: %s", o->source,
			  strerror(-rc));
		goto out;
	}
	size += size / 100 * o->fit_slack +
		(size % 100) * o->fit_slack / 100;
	snprintf(buf, sizeof(buf), "%lluk", (unsigned long long)(size >> 10));
	o->size_arg = strdup(buf);
	if (!o->size_arg)
		rc = -ENOMEM;
out:
	pop_map_free(&nd.seen);
	return rc;
}

int mkfs_fit_check(struct mkfs_opts *o, const struct mkfs_target *t,
		   uint64_t size, uint64_t *need)
{
	struct fit_need nd;
	int rc;

	rc = measure(o, t, &nd);
	if (!rc)
		rc = try_size(o, t, &nd, size);
	if (rc == 0) {		/* does not hold: how much would */
		rc = search(o, t, &nd, need);
		rc = rc ? rc : 1;
	} else if (rc == 1) {
		rc = 0;
	}
	pop_map_free(&nd.seen);
	return rc;
}
