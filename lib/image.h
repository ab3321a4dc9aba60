/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where in an image the filesystem is: the whole file (the default), what
 * follows a byte offset (--offset), or one partition of the image's MBR or
 * GPT table (IMAGE@N, --partition N; libblkid reads the table). Opening
 * one gives an io bounded to that place (io_window.c): nothing before or
 * after it is read or written. And, for an image that holds no ext2/3/4,
 * what libblkid finds there instead ("contains a swap file system").
 */
#ifndef EXTKIT_IMAGE_H
#define EXTKIT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

struct extkit_io;
struct extkit_fs;

struct extkit_image_loc {
	uint64_t offset;	/* bytes before the filesystem */
	uint32_t partition;	/* 1-based table entry; 0: none */
};

/*
 * A window of base from start for len bytes, owning base (io_window.c).
 * -EINVAL if it does not fit in base, -ENOMEM.
 */
int extkit_io_open_window(struct extkit_io *base, uint64_t start,
			  uint64_t len, struct extkit_io **out);

/*
 * The byte range of partition n (1-based) of path's partition table, by
 * libblkid. -ENOENT when there is no table or no such entry, with why
 * ("the gpt table has no partition 3 (it has 2)"); -errno.
 */
int extkit_image_partition(const char *path, uint32_t n, uint64_t *start,
			   uint64_t *len, char *why, size_t whylen);

/*
 * Opens path (extkit_io_open_unix flags) at loc: the whole image when loc
 * is NULL or all zero. On an error, why says what was wrong when it is
 * more than the code (a missing partition, an offset past the end).
 */
int extkit_io_open_image(const char *path, int ioflags,
			 const struct extkit_image_loc *loc,
			 struct extkit_io **out, char *why, size_t whylen);

/*
 * What libblkid recognises at loc in path ("contains a swap file system",
 * "contains a gpt partition table"), into buf. 1 if something was found,
 * 0 if not (or libblkid could not probe).
 */
int extkit_image_describe(const char *path,
			  const struct extkit_image_loc *loc, char *buf,
			  size_t len);

/*
 * extkit_fs_open at loc. On an error, why holds the reason: when there
 * is no ext2/3/4 superblock and libblkid recognises something else, what
 * that is.
 */
int extkit_fs_open_image(const char *path, const struct extkit_image_loc *loc,
			 int flags, struct extkit_fs **out, char *why,
			 size_t whylen);

#endif /* EXTKIT_IMAGE_H */
