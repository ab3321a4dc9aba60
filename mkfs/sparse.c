// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -E android_sparse (mke2fs 1.47.4's option): the target is written as an
 * Android sparse image (the format of img2simg and fastboot) instead of a
 * raw filesystem. The filesystem is made as usual in a raw, sparse file
 * beside the target; libsparse then reads it (holes become "don't care"
 * chunks, runs of one 32-bit value fill chunks) and writes the target,
 * and the raw file is removed. libsparse is loaded with dlopen when the
 * option is given (Debian: android-libsparse), so extkit-mkfs builds and
 * runs without it.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/msg.h"

#include "mkfs.h"

/* The four functions of libsparse's sparse/sparse.h used here. */
struct sparse_file;
struct sparse_api {
	struct sparse_file *(*file_new)(unsigned int block_size, int64_t len);
	int (*file_read)(struct sparse_file *s, int fd, bool sparse, bool crc);
	int (*file_write)(struct sparse_file *s, int fd, bool gz, bool sparse,
			  bool crc);
	void (*file_destroy)(struct sparse_file *s);
};

static int load(struct sparse_api *api)
{
	static const char *const names[] = { LIBSPARSE_PATH, "libsparse.so.0" };
	void *h = NULL;

	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		cli_error("-E android_sparse needs libsparse (Debian: "
			  "android-libsparse): %s", dlerror());
		return -ENOENT;
	}
	*(void **)&api->file_new = dlsym(h, "sparse_file_new");
	*(void **)&api->file_read = dlsym(h, "sparse_file_read");
	*(void **)&api->file_write = dlsym(h, "sparse_file_write");
	*(void **)&api->file_destroy = dlsym(h, "sparse_file_destroy");
	if (!api->file_new || !api->file_read || !api->file_write ||
	    !api->file_destroy) {
		cli_error("-E android_sparse: libsparse lacks %s", dlerror());
		dlclose(h);
		return -ENOENT;
	}
	return 0;
}

int mkfs_sparse_check(const struct mkfs_opts *o, const struct mkfs_target *t)
{
	struct sparse_api api;

	if (!o->android_sparse)
		return 0;
	if (t->is_blockdev || t->window) {
		cli_error("-E android_sparse writes an image file, not %s",
			  t->is_blockdev ? "a block device" :
					   "a region of a disk image");
		return -EINVAL;
	}
	if (!o->size_arg) {
		cli_error("-E android_sparse: give a SIZE (an existing sparse "
			  "image is replaced, not read for its size)");
		return -EINVAL;
	}
	if (o->direct_io) {
		cli_error("-D: not with -E android_sparse (libsparse writes "
			  "the sparse image through the page cache)");
		return -EINVAL;
	}
	if (o->undo_file || o->super_only) {
		cli_error("-E android_sparse writes a new image: not with %s",
			  o->undo_file ? "-z" : "-S");
		return -EINVAL;
	}
	return o->dry_run ? 0 : load(&api);
}

int mkfs_sparse_temp(const char *target, char **raw)
{
	size_t len = strlen(target) + sizeof(".raw.XXXXXX");
	int fd;

	*raw = malloc(len);
	if (!*raw)
		return -ENOMEM;
	snprintf(*raw, len, "%s.raw.XXXXXX", target);
	fd = mkstemp(*raw);
	if (fd < 0) {
		int err = errno;

		cli_error("%s: %s", *raw, strerror(err));
		free(*raw);
		*raw = NULL;
		return -err;
	}
	close(fd);
	return 0;
}

int mkfs_sparse_write(const char *raw, const char *target,
		      uint32_t block_size, uint64_t bytes)
{
	struct sparse_api api;
	struct sparse_file *s;
	int in, out = -1, rc;

	rc = load(&api);
	if (rc)
		return rc;
	in = open(raw, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		rc = -errno;
		cli_error("%s: %s", raw, strerror(errno));
		return rc;
	}
	s = api.file_new(block_size, (int64_t)bytes);
	rc = !s ? -ENOMEM : api.file_read(s, in, false, false) ? -EIO : 0;
	if (rc)
		cli_error("%s: libsparse cannot read the image", raw);
	if (!rc) {
		out = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0666);
		if (out < 0 || api.file_write(s, out, false, true, false) ||
		    fsync(out) < 0) {
			rc = -(errno ? errno : EIO);
			cli_error("%s: writing the sparse image: %s", target,
				  strerror(-rc));
		}
	}
	if (out >= 0 && close(out) < 0 && !rc) {
		rc = -errno;
		cli_error("%s: %s", target, strerror(errno));
	}
	if (s)
		api.file_destroy(s);
	close(in);
	return rc;
}
