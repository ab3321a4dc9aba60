// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d SOURCE without SIZE for a new file: the smallest filesystem
 * that holds the tree, found before anything is written. The source is
 * measured once (a directory walked by fitdir.c, an archive read by
 * fitarc.c, both into fitneed.c's counts): for every block size, the blocks its files take (data
 * without holes, extent or indirect blocks, symbolic link blocks) and
 * its directories take (entries packed into blocks, htree index
 * blocks); for every inode size, the attribute blocks; the inodes. Then
 * sizes are tried by bisection, each through the same layout code the
 * run uses (in a child process, so that nothing of the trials stays): a
 * size holds the tree when its free blocks and inodes cover the need
 * and its block size can hold every file. Each estimate errs upward, so
 * the size found holds the tree; -E fit_slack=PCT adds room. On bigalloc
 * what each takes is counted in whole clusters (the data by the clusters
 * its blocks touch, for every cluster size, as the size decides the
 * geometry).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ondisk.h"
#include "xattrbuild.h"
#include "cli/msg.h"

#include "devtable.h"
#include "fit.h"
#include "selabel.h"


/* The largest file of block size bs (with extents or block maps); past
 * 2^32 sectors i_blocks needs huge_file. */
static uint64_t file_max(uint64_t bs, int extents, int huge)
{
	uint64_t p = bs / 4, blocks = extents ? 0xFFFFFFFFull :
		     EXT2_NDIR_BLOCKS + p + p * p + p * p * p;
	uint64_t sectors = 0xFFFFFFFFull / (bs / 512);

	if (!huge && blocks > sectors)
		blocks = sectors - (extents ? 0 : 2 + p + p * p);
	return blocks * bs;
}

/* What a device table may add: an inode per path, a block per new
 * directory, and a block more in each directory it adds names to; with
 * --file-contexts, an attribute block for each and for lost+found. */
static void add_devtab(struct fit_need *nd, const struct mkfs_devtab *dt)
{
	uint64_t label = nd->o->selabel ? 1 + (dt ? dt->n : 0) : 0;

	for (size_t i = 0; dt && i < dt->n; i++) {
		int d = S_ISDIR(dt->e[i].mode);

		nd->inodes++;
		for (int b = 0; b < FIT_NBS; b++)
			nd->dir[b] += d + (i == 0 || dt->e[i].plen !=
					   dt->e[i - 1].plen);
		nd->ndirs += d + (i == 0 || dt->e[i].plen != dt->e[i - 1].plen);
	}
	for (int c = 0; c < FIT_NIS; c++)
		for (int b = 0; b < FIT_NBS; b++) {
			nd->ea[0][c][b] += label;
			nd->ea[1][c][b] += label;
		}
}

/* ---- the search ---- */

/*
 * bigalloc (2^k blocks a cluster, block size 1 KiB << i): the blocks the
 * tree takes in whole clusters. Data by its clusters; an extent tree
 * block, a slow symbolic link and an EA block a cluster each; a
 * directory or an EA inode value its blocks and at most a cluster less
 * one more.
 */
static uint64_t cluster_need(const struct fit_need *nd, int i, uint32_t k,
			     int c, int eai)
{
	uint64_t r1 = (1ull << k) - 1, n;
	int m = i + (int)k < FIT_NCS ? i + (int)k : FIT_NCS - 1;

	n = (nd->data_cl[m] + nd->ext_meta[i] + nd->nslow +
	     nd->ea[eai][c][i]) << k;
	n += nd->dir[i] + nd->ndirs * r1;
	if (eai)
		n += nd->eai[c][i] + nd->eai_inodes[c][i] * r1;
	return n;
}

/* The inode size class: in-inode attributes only with the i_extra_isize
 * fit_add_attrs assumed, else none (class 0, which errs upward). */
static int inode_class(const struct mkfs_layout *l, const struct extkit_fs *fs)
{
	int c = 1;

	if (l->inode_size <= EXT2_GOOD_OLD_INODE_SIZE ||
	    fs->sb.want_extra_isize != FIT_EXTRA_ISIZE)
		return 0;
	while (c < FIT_NIS - 1 && (128u << (c + 1)) <= l->inode_size)
		c++;
	return c;
}

/* Whether size bytes hold the need (run in a child: 0 yes, 1 no). */
static int holds(struct mkfs_opts *o, const struct mkfs_target *t,
		 const struct fit_need *nd, uint64_t size)
{
	char arg[32];
	struct mkfs_layout l;
	struct extkit_fs fs;
	uint64_t need;
	int i = 0, c, ext, eai;

	snprintf(arg, sizeof(arg), "%lluk", (unsigned long long)(size >> 10));
	o->size_arg = arg;
	if (mkfs_layout_compute(o, t, &l) || mkfs_fs_init(o, &l, &fs))
		return 1;
	while ((1024u << i) < l.block_size && i < FIT_NBS - 1)
		i++;
	c = inode_class(&l, &fs);
	eai = extkit_has_incompat(&fs.sb, EXT4_FEATURE_INCOMPAT_EA_INODE);
	ext = extkit_has_incompat(&fs.sb, EXT4_FEATURE_INCOMPAT_EXTENTS);
	if (nd->ea_bad[eai][c][i] || nd->max_link >= l.block_size ||
	    nd->max_size > file_max(l.block_size, ext, !!(o->ro_compat &
					EXT4_FEATURE_RO_COMPAT_HUGE_FILE)))
		return o->block_size ? 2 : 1;	/* no size of this block
						 * size will do */
	need = (ext ? nd->ext[i] : nd->ind[i]) + nd->dir[i] +
	       nd->ea[eai][c][i] + (eai ? nd->eai[c][i] : 0);
	if (l.cluster_bits)
		need = cluster_need(nd, i, l.cluster_bits, c, eai);
	/* each group's metadata (or a backup) may break one file's run: an
	 * extent more, which may take that file past the four in its inode
	 * (a leaf block, or with an index block, two) */
	need += ext ? (2ull * l.groups) << l.cluster_bits : 0;
	/* written after the free counts: the journal, the orphan file,
	 * and a margin for the quota files */
	need += (uint64_t)l.journal_blocks + l.fc_blocks + l.orphan_blocks +
		(o->ro_compat & EXT4_FEATURE_RO_COMPAT_QUOTA ? 16 : 0) +
		3 * (((uint64_t)1 << l.cluster_bits) - 1);
	return fs.sb.free_blocks_count >= need &&
	       fs.sb.free_inodes_count >= nd->inodes +
					   (eai ? nd->eai_inodes[c][i] : 0) ?
	       0 : 1;
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
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return -EFBIG;	/* -b's block size cannot hold the source */
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

/* Measures -d's source into nd: a directory, or an archive file. */
static int measure(const struct mkfs_opts *o, const struct mkfs_target *t,
		   struct fit_need *nd)
{
	struct stat st;
	int rc;

	memset(nd, 0, sizeof(*nd));
	nd->deref = o->hard_deref;
	nd->o = o;
	if (!o->source || !strcmp(o->source, "-") || stat(o->source, &st) ||
	    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
		cli_error("%s does not exist; give a SIZE to create it (the "
			  "size is found from -d's source only for a "
			  "directory or an archive file)", t->path);
		return -EINVAL;
	}
	rc = S_ISDIR(st.st_mode) ? fit_measure_dir(o, nd) :
				   fit_measure_archive(o, nd);
	if (!rc)
		add_devtab(nd, o->devtab);
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
	if (rc == -EFBIG && o->block_size)
		cli_error("-d %s: no size found: a file, attribute set or "
			  "symbolic link is too large for %u-byte blocks",
			  o->source, o->block_size);
	else if (rc)
		cli_error("-d %s: no size found: %s", o->source,
			  strerror(-rc));
	if (rc)
		goto out;
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
