// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A filesystem inside a whole-disk image: by offset or by partition
 * (libblkid's partition probing), and the name of what is there when it
 * is not ext2/3/4 (libblkid's superblock probing). See image.h.
 */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "image.h"
#include "io.h"

static int loc_is_whole(const struct extkit_image_loc *loc)
{
	return !loc || (!loc->offset && !loc->partition);
}

static const char *table_type(blkid_partlist ls)
{
	blkid_parttable t = blkid_partlist_get_table(ls);
	const char *type = t ? blkid_parttable_get_type(t) : NULL;

	return type ? type : "partition";
}

int extkit_image_partition(const char *path, uint32_t n, uint64_t *start,
			   uint64_t *len, char *why, size_t whylen)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	blkid_partlist ls;
	blkid_partition p;
	int rc = -ENOENT;

	if (!pr)
		return errno ? -errno : -EIO;
	blkid_probe_enable_partitions(pr, 1);
	ls = blkid_probe_get_partitions(pr);
	if (!ls) {
		snprintf(why, whylen, "no partition table found");
	} else if (!(p = blkid_partlist_get_partition_by_partno(ls, (int)n))) {
		snprintf(why, whylen, "the %s table has no partition %" PRIu32
			 " (it has %d)", table_type(ls), n,
			 blkid_partlist_numof_partitions(ls));
	} else if (blkid_partition_get_start(p) < 0 ||
		   blkid_partition_get_size(p) <= 0) {
		snprintf(why, whylen, "partition %" PRIu32 " is empty", n);
	} else {
		*start = (uint64_t)blkid_partition_get_start(p) * 512;
		*len = (uint64_t)blkid_partition_get_size(p) * 512;
		rc = 0;
	}
	blkid_free_probe(pr);
	return rc;
}

/* The byte range loc names in an image of size bytes. */
static int loc_range(const char *path, const struct extkit_image_loc *loc,
		     uint64_t size, uint64_t *start, uint64_t *len, char *why,
		     size_t whylen)
{
	int rc;

	if (!loc->partition) {
		if (loc->offset >= size) {
			snprintf(why, whylen, "offset %" PRIu64 " is past the "
				 "end of the image (%" PRIu64 " bytes)",
				 loc->offset, size);
			return -EINVAL;
		}
		*start = loc->offset;
		*len = size - loc->offset;
		return 0;
	}
	rc = extkit_image_partition(path, loc->partition, start, len, why,
				    whylen);
	if (rc)
		return rc;
	if (*start > size || *len > size - *start) {
		snprintf(why, whylen, "partition %" PRIu32 " (bytes %" PRIu64
			 "-%" PRIu64 ") passes the end of the image (%"
			 PRIu64 " bytes)", loc->partition, *start,
			 *start + *len - 1, size);
		return -EXTKIT_ETRUNC;
	}
	return 0;
}

int extkit_io_open_image(const char *path, int ioflags,
			 const struct extkit_image_loc *loc,
			 struct extkit_io **out, char *why, size_t whylen)
{
	struct extkit_io *base, *win;
	uint64_t start, len;
	int rc;

	if (whylen)
		why[0] = '\0';
	rc = extkit_io_open_unix(path, ioflags, &base);
	if (rc || loc_is_whole(loc)) {
		*out = rc ? NULL : base;
		return rc;
	}
	rc = loc_range(path, loc, base->size, &start, &len, why, whylen);
	if (!rc)
		rc = extkit_io_open_window(base, start, len, &win);
	if (rc) {
		extkit_io_close(base);
		return rc;
	}
	*out = win;
	return 0;
}

static int describe_probe(blkid_probe pr, char *buf, size_t len)
{
	const char *type = NULL;

	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	if (blkid_do_safeprobe(pr) != 0)
		return 0;
	/* an ext2/3/4 libblkid accepts but extkit does not (a bad field)
	 * is no other type: the caller's own reason stands */
	if (!blkid_probe_lookup_value(pr, "TYPE", &type, NULL))
		return strncmp(type, "ext", 3) ? snprintf(buf, len,
			"contains a %s file system", type) > 0 : 0;
	if (!blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL)) {
		snprintf(buf, len, "contains a %s partition table (pick a "
			 "partition: IMAGE@N or --partition N)", type);
		return 1;
	}
	return 0;
}

int extkit_image_describe(const char *path,
			  const struct extkit_image_loc *loc, char *buf,
			  size_t len)
{
	struct extkit_image_loc whole = { 0 };
	uint64_t start = 0, size = 0;
	char why[160];
	blkid_probe pr;
	int fd, found = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	if (!loc)
		loc = &whole;
	if (loc_range(path, loc, size, &start, &size, why, sizeof(why)) ||
	    !(pr = blkid_new_probe())) {
		close(fd);
		return 0;
	}
	if (!blkid_probe_set_device(pr, fd, (blkid_loff_t)start,
				    (blkid_loff_t)size))
		found = describe_probe(pr, buf, len);
	blkid_free_probe(pr);
	close(fd);
	return found;
}

int extkit_fs_open_image(const char *path, const struct extkit_image_loc *loc,
			 int flags, struct extkit_fs **out, char *why,
			 size_t whylen)
{
	const char *reason = NULL;
	struct extkit_io *io;
	int ioflags = 0;
	int rc;

	if (flags & EXTKIT_FS_WRITE)
		ioflags |= EXTKIT_IO_WRITE;
	if (flags & EXTKIT_FS_EXCL)
		ioflags |= EXTKIT_IO_EXCL;
	rc = extkit_io_open_image(path, ioflags, loc, &io, why, whylen);
	if (rc)
		return rc;
	rc = extkit_fs_open_io(io, flags, 0, 0, out, &reason);
	if (rc) {
		extkit_io_close(io);
		if (rc != -EXTKIT_ENOTEXT ||
		    !extkit_image_describe(path, loc, why, whylen))
			snprintf(why, whylen, "%s", reason ? reason :
				 extkit_strerror(rc));
		return rc;
	}
	(*out)->owns_io = 1;
	(*out)->device_name = strdup(path);
	return 0;
}
