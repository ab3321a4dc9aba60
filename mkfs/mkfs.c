// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-mkfs: formats an image file or a block device as ext2, ext3 or
 * ext4 (revision 1, or 0 with -r 0). The run: options -> target (what it
 * is, is it safe) -> layout (the mke2fs geometry) -> report -> prepare
 * the target -> write. Nothing is written before every check has
 * passed, and nothing at all with -n.
 */
#include "config.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "io.h"
#include "ondisk.h"
#include "undo.h"
#include "cli/msg.h"

#include "mkfs.h"

const char cli_prog[] = "extkit-mkfs";

/*
 * Opens the target for writing; with -z, behind an undo io that saves
 * what each write overwrites (in undo blocks of the filesystem's block
 * size, as mke2fs -z) to the undo file, which must be new or empty.
 */
static int open_target(const struct mkfs_opts *o, struct mkfs_target *t,
		       const struct mkfs_layout *l, struct extkit_io **out)
{
	struct extkit_io *io, *file, *undo;
	int rc;

	rc = extkit_io_open_unix(t->path, EXTKIT_IO_WRITE | EXTKIT_IO_EXCL |
				 (o->direct_io ? EXTKIT_IO_DIRECT : 0), &io);
	if (rc == -EINVAL && o->direct_io) {
		cli_error("%s: -D: the %s refuses direct I/O (O_DIRECT): %s",
			  t->path, t->is_blockdev ? "device" :
			  "filesystem holding it", extkit_strerror(rc));
		return rc;
	}
	if (rc) {
		cli_error("%s: %s", t->path, rc == -EBUSY ?
			  "the device is in use" : extkit_strerror(rc));
		return rc;
	}
	if (t->window) {
		struct extkit_io *win;

		/* the partition, or what follows the offset */
		rc = extkit_io_open_window(io, t->start, t->partition ?
					   t->size : io->size - t->start,
					   &win);
		if (rc) {
			cli_error("%s: %s", t->path, extkit_strerror(rc));
			extkit_io_close(io);
			return rc;
		}
		io = win;
	}
	io->block_size = l->block_size;
	if (!o->undo_file) {
		*out = io;
		return 0;
	}
	rc = extkit_undo_create_file(o->undo_file, &file);
	if (!rc) {
		rc = extkit_undo_open(io, file, &undo);
		if (rc)
			extkit_io_close(file);
	}
	if (rc) {
		cli_error("%s: %s", o->undo_file, rc == -EEXIST ?
			  "undo file exists and is not empty; remove it or "
			  "name another file" : extkit_strerror(rc));
		extkit_io_close(io);
		return rc;
	}
	if (!o->quiet && t->start)
		printf("Saving overwritten blocks; to undo this run:\n"
		       "    e2undo -o %llu %s %s\n\n",
		       (unsigned long long)t->start, o->undo_file, t->path);
	else if (!o->quiet)
		printf("Saving overwritten blocks; to undo this run:\n"
		       "    e2undo %s %s\n\n", o->undo_file, t->path);
	*out = undo;
	return 0;
}

static int format(const struct mkfs_opts *o, struct mkfs_target *t,
		  const struct mkfs_layout *l, struct extkit_fs *fs)
{
	uint64_t fs_bytes = l->blocks * l->block_size;
	struct extkit_io *io;
	int rc;

	rc = mkfs_target_prepare(o, t, fs_bytes);
	if (rc)
		return rc;
	rc = open_target(o, t, l, &io);
	if (rc)
		return rc;
	if (io->size < fs_bytes) {
		cli_error("%s: only %llu bytes, %llu needed", t->path,
			  (unsigned long long)io->size,
			  (unsigned long long)fs_bytes);
		extkit_io_close(io);
		return -ENOSPC;
	}
	fs->io = io;
	rc = mkfs_write(o, t, l, fs);
	if (rc && mkfs_populating(o))	/* no superblock of a former filesystem */
		extkit_io_zero_bytes(io, EXT2_SUPERBLOCK_OFFSET,
				     EXT2_SUPERBLOCK_SIZE);
	if (rc && rc != -ECANCELED)	/* -d said what and where */
		cli_error("%s: writing failed: %s", t->path,
			  extkit_strerror(rc));
	fs->io = NULL;
	if (o->undo_file) {
		int err = extkit_undo_finish(io);

		if (err)
			cli_error("%s: writing the undo file: %s", o->undo_file,
				  extkit_strerror(err));
		rc = rc ? rc : err;
	}
	extkit_io_close(io);
	return rc;
}

/* -E android_sparse: made in a raw file, written as a sparse image. */
static int format_sparse(const struct mkfs_opts *o, struct mkfs_target *t,
			 const struct mkfs_layout *l, struct extkit_fs *fs)
{
	struct mkfs_target raw = *t;
	char *path;
	int rc;

	rc = mkfs_sparse_temp(t->path, &path);
	if (rc)
		return rc;
	raw.path = path;
	raw.exists = 1;		/* removed here, whatever happens */
	raw.size = raw.file_size = 0;
	rc = format(o, &raw, l, fs);
	if (!rc)
		rc = mkfs_sparse_write(path, t->path, l->block_size,
				       l->blocks * l->block_size);
	if (unlink(path) < 0 && !rc) {
		cli_error("%s: removing it: %s", path, strerror(errno));
		rc = -errno;
	}
	free(path);
	return rc;
}

/* A file this run made is not left behind half made. */
static void remove_new_file(const struct mkfs_target *t)
{
	if (!t->exists && unlink(t->path) < 0 && errno != ENOENT)
		cli_error("%s: removing it: %s", t->path, strerror(errno));
}

int main(int argc, char **argv)
{
	struct mkfs_opts o;
	struct mkfs_target t;
	struct mkfs_layout l;
	struct extkit_fs fs;
	int rc;

	rc = mkfs_parse_args(argc, (const char **)argv, &o);
	if (rc >= 0)
		return rc;
	if (mkfs_target_inspect(&o, &t) || mkfs_target_check(&o, &t) ||
	    (o.source && !o.size_arg && !t.exists && mkfs_fit(&o, &t)) ||
	    mkfs_layout_compute(&o, &t, &l) ||
	    mkfs_target_fits(&o, &t, &l) || mkfs_sparse_check(&o, &t) ||
	    mkfs_fs_init(&o, &l, &fs)) {
		mkfs_opts_free(&o);
		return MKFS_EXIT_FAIL;
	}
	if (o.warn_y2038)	/* on stdout even with -q, as mke2fs */
		printf("128-byte inodes cannot handle dates beyond 2038 and "
		       "are deprecated\n");
	mkfs_report(&o, &t, &l, &fs);
	rc = 0;
	if (!o.dry_run)
		rc = o.android_sparse ? format_sparse(&o, &t, &l, &fs) :
					format(&o, &t, &l, &fs);
	if (rc)
		remove_new_file(&t);
	mkfs_fs_release(&fs, &l);
	mkfs_opts_free(&o);
	if (fflush(stdout) == EOF && !rc) {
		cli_error("writing the report failed");
		rc = -EIO;
	}
	return rc ? MKFS_EXIT_FAIL : MKFS_EXIT_OK;
}
