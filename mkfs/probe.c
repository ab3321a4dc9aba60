// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target: what it is, whether it is safe to format, and getting it
 * ready. Refused even with -F: a mounted device (or one with a mounted
 * partition or a holder such as device-mapper), an active swap device or
 * file, and an image file behind a mounted loop device. Refused without
 * -F: anything libblkid recognises (a filesystem, RAID member, swap area
 * or partition table), named with its type, label and UUID.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <blkid.h>

#include "cli/msg.h"

#include "mkfs.h"

#define PATH_LEN	4096

/*
 * The logical sector size: EXTKIT_DEVICE_SECTSIZE if set (for tests, as
 * e2fsprogs' MKE2FS_DEVICE_SECTSIZE), else the device's, else 0.
 */
static uint32_t sector_size(int fd)
{
	const char *env = getenv("EXTKIT_DEVICE_SECTSIZE");
	int ssz = 0;

	if (env && *env)
		return (uint32_t)strtoul(env, NULL, 10);
	if (fd >= 0 && ioctl(fd, BLKSSZGET, &ssz) == 0 && ssz > 0)
		return (uint32_t)ssz;
	return 0;
}

static int inspect_path(const char *path, struct mkfs_target *t)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->sector_size = sector_size(-1);
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		cli_error("%s: %s", path, strerror(errno));
		return -errno;
	}
	t->exists = 1;
	if (S_ISBLK(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);

		t->sector_size = sector_size(fd);
		if (fd >= 0)
			close(fd);
		if (end < 0) {
			cli_error("%s: %s", path, strerror(errno));
			return -errno;
		}
		t->is_blockdev = 1;
		t->rdev = st.st_rdev;
		t->size = (uint64_t)end;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		cli_error("%s is neither a block device nor a regular file",
			  path);
		return -ENOTBLK;
	}
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->size = (uint64_t)st.st_size;
	return 0;
}

/* TARGET@N, --partition, --offset and -E offset= into one place. */
static int resolve_place(struct mkfs_opts *o, struct extkit_image_loc *loc)
{
	char *path;

	if (cli_image_resolve(&o->image, o->target, &path, loc))
		return -EINVAL;
	free(o->target);
	o->target = path;
	if (!o->ext_offset_given)
		return 0;
	if (loc->partition || o->image.offset) {
		cli_error("%s: give one place: -E offset, --offset, "
			  "--partition or IMAGE@N", o->target);
		return -EINVAL;
	}
	loc->offset = o->ext_offset;
	return 0;
}

/* The window of partition n: the table must be there, the entry too. */
static int locate_partition(struct mkfs_target *t, uint32_t n)
{
	char why[256];
	uint64_t start, len;
	int rc;

	if (!t->exists) {
		cli_error("%s: no such file (partition %u of it was asked)",
			  t->path, n);
		return -ENOENT;
	}
	rc = extkit_image_partition(t->path, n, &start, &len, why,
				    sizeof(why));
	if (rc) {
		cli_error("%s: %s", t->path, rc == -ENOENT ? why :
			  strerror(-rc));
		return rc;
	}
	if (start > t->file_size || len > t->file_size - start) {
		cli_error("%s: partition %u (bytes %llu to %llu) passes the "
			  "end of the image (%llu bytes)", t->path, n,
			  (unsigned long long)start,
			  (unsigned long long)(start + len - 1),
			  (unsigned long long)t->file_size);
		return -ENOSPC;
	}
	t->partition = n;
	t->start = start;
	t->size = len;
	return 0;
}

int mkfs_target_inspect(struct mkfs_opts *o, struct mkfs_target *t)
{
	struct extkit_image_loc loc;
	int rc;

	rc = resolve_place(o, &loc);
	if (!rc)
		rc = inspect_path(o->target, t);
	if (rc)
		return rc;
	t->file_size = t->size;
	if (!loc.partition && !loc.offset)
		return 0;
	t->window = 1;
	if (loc.partition)
		return locate_partition(t, loc.partition);
	if (t->is_blockdev && loc.offset >= t->file_size) {
		cli_error("%s: offset %llu is past the end of the device "
			  "(%llu bytes)", t->path,
			  (unsigned long long)loc.offset,
			  (unsigned long long)t->file_size);
		return -EINVAL;
	}
	/* a file grows to hold what is written past its end */
	t->start = loc.offset;
	t->size = t->file_size > loc.offset ? t->file_size - loc.offset : 0;
	return 0;
}

/* Undoes the octal escapes of /proc mount tables (\040 for a space). */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* Whether one mountinfo line mounts device dev; fills where. */
static int line_mounts(const char *line, dev_t dev, char *where)
{
	unsigned int maj, min;
	char source[PATH_LEN];
	const char *sep = strstr(line, " - ");
	struct stat st;

	if (sscanf(line, "%*s %*s %u:%u %*s %4095s", &maj, &min, where) != 3)
		return 0;
	unescape(where);
	if (makedev(maj, min) == dev)
		return 1;
	if (!sep || sscanf(sep, " - %*s %4095s", source) != 1)
		return 0;
	unescape(source);
	return source[0] == '/' && stat(source, &st) == 0 &&
	       S_ISBLK(st.st_mode) && st.st_rdev == dev;
}

/* Whether block device dev is mounted; where gets the mount point. */
static int dev_mounted(dev_t dev, char *where)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0)
		found = line_mounts(line, dev, where);
	free(line);
	fclose(f);
	return found;
}

static int read_dev_file(const char *path, dev_t *dev)
{
	FILE *f = fopen(path, "re");
	unsigned int maj, min;
	int ok;

	if (!f)
		return 0;
	ok = fscanf(f, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (ok)
		*dev = makedev(maj, min);
	return ok;
}

/* Whether /sys/dev/block/M:m/<sub> has an entry (holders, partitions). */
static int has_holder(const char *sysdir)
{
	char path[PATH_LEN + 16];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), "%s/holders", sysdir);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d)))
		found = de->d_name[0] != '.';
	closedir(d);
	return found;
}

/*
 * Whether device dev, or one of its partitions, is mounted or held. Fills
 * why with the reason.
 */
static int dev_busy(dev_t dev, char *why, size_t len)
{
	char sysdir[PATH_LEN], where[PATH_LEN], path[PATH_LEN + 300];
	struct dirent *de;
	DIR *d;
	int busy = 0;

	if (dev_mounted(dev, where)) {
		snprintf(why, len, "is mounted on %s", where);
		return 1;
	}
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (has_holder(sysdir)) {
		snprintf(why, len, "is in use (see %s/holders)", sysdir);
		return 1;
	}
	d = opendir(sysdir);
	while (d && !busy && (de = readdir(d))) {
		dev_t part;

		snprintf(path, sizeof(path), "%s/%s/partition", sysdir,
			 de->d_name);
		if (de->d_name[0] == '.' || access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", sysdir, de->d_name);
		if (!read_dev_file(path, &part))
			continue;
		if (dev_mounted(part, where)) {
			snprintf(why, len, "has partition %s mounted on %s",
				 de->d_name, where);
			busy = 1;
		}
	}
	if (d)
		closedir(d);
	return busy;
}

/* Whether the target is an active swap device or file. */
static int is_swap(const struct mkfs_target *t)
{
	FILE *f = fopen("/proc/swaps", "re");
	char name[PATH_LEN];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fscanf(f, "%4095s %*[^\n]", name) == 1) {
		struct stat st;

		unescape(name);
		if (name[0] != '/' || stat(name, &st))
			continue;
		found = t->is_blockdev ?
			S_ISBLK(st.st_mode) && st.st_rdev == t->rdev :
			st.st_dev == t->dev && st.st_ino == t->ino;
	}
	fclose(f);
	return found;
}

/* Whether a loop device is backed by the image file t. */
static int loop_backs(const char *loopdir, const struct mkfs_target *t)
{
	char path[PATH_LEN + 300], file[PATH_LEN];
	struct stat st;
	FILE *f;
	char *nl;
	int ok;

	snprintf(path, sizeof(path), "%s/loop/backing_file", loopdir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	ok = fgets(file, sizeof(file), f) != NULL;
	fclose(f);
	if (!ok)
		return 0;
	nl = strchr(file, '\n');
	if (nl)
		*nl = '\0';
	return stat(file, &st) == 0 && st.st_dev == t->dev &&
	       st.st_ino == t->ino;
}

/* An image file behind a loop device that is mounted (or held). */
static int file_loop_busy(const struct mkfs_target *t, char *why,
			  size_t len)
{
	char dir[PATH_LEN], reason[PATH_LEN + 64];
	struct dirent *de;
	DIR *d = opendir("/sys/block");
	int busy = 0;

	while (d && !busy && (de = readdir(d))) {
		dev_t dev;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(dir, sizeof(dir), "/sys/block/%s", de->d_name);
		if (!loop_backs(dir, t))
			continue;
		snprintf(reason, sizeof(reason), "%s/dev", dir);
		if (!read_dev_file(reason, &dev))
			continue;
		if (dev_busy(dev, reason, sizeof(reason))) {
			snprintf(why, len, "is the backing file of /dev/%s, which %s",
				 de->d_name, reason);
			busy = 1;
		}
	}
	if (d)
		closedir(d);
	return busy;
}

static void describe(blkid_probe pr, const char *path, char *msg, size_t len)
{
	const char *type = NULL, *label = NULL, *uuid = NULL, *usage = NULL;

	if (!blkid_probe_lookup_value(pr, "TYPE", &type, NULL)) {
		blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
		blkid_probe_lookup_value(pr, "UUID", &uuid, NULL);
		blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
		snprintf(msg, len, "%s contains a%s %s %s%s%s%s%s%s", path,
			 strchr("aeiou", type[0]) ? "n" : "", type,
			 usage && !strcmp(usage, "filesystem") ? "filesystem" :
								 "signature",
			 label ? " labelled '" : "", label ? label : "",
			 label ? "'" : "", uuid ? ", UUID " : "",
			 uuid ? uuid : "");
		return;
	}
	if (!blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL)) {
		blkid_probe_lookup_value(pr, "PTUUID", &uuid, NULL);
		snprintf(msg, len, "%s contains a %s partition table%s%s",
			 path, type, uuid ? ", UUID " : "", uuid ? uuid : "");
		return;
	}
	snprintf(msg, len, "%s contains data libblkid recognises", path);
}

const char *mkfs_target_name(const struct mkfs_target *t, char *buf,
			     size_t len)
{
	if (t->partition)
		snprintf(buf, len, "%s partition %u", t->path, t->partition);
	else if (t->window)
		snprintf(buf, len, "%s at offset %llu", t->path,
			 (unsigned long long)t->start);
	else
		snprintf(buf, len, "%s", t->path);
	return buf;
}

/* libblkid, over the filesystem's window: 1 if something was found (msg
 * says what), 0 if not. */
static int blkid_finds(const struct mkfs_target *t, char *msg, size_t len)
{
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);
	blkid_probe pr = fd < 0 ? NULL : blkid_new_probe();
	char name[PATH_LEN + 64];
	int rc;

	if (!pr || blkid_probe_set_device(pr, fd, (blkid_loff_t)t->start,
					  t->window ? (blkid_loff_t)t->size :
						      0)) {
		snprintf(msg, len, "%s: cannot probe: %s", t->path,
			 strerror(errno ? errno : EIO));
		if (pr)
			blkid_free_probe(pr);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0)
		describe(pr, mkfs_target_name(t, name, sizeof(name)), msg, len);
	else if (rc == -2)
		snprintf(msg, len, "%s contains several conflicting signatures",
			 t->path);
	else if (rc < 0)
		snprintf(msg, len, "%s: libblkid cannot probe it", t->path);
	blkid_free_probe(pr);
	close(fd);
	return rc != 1;
}

int mkfs_target_check(const struct mkfs_opts *o, const struct mkfs_target *t)
{
	char why[2 * PATH_LEN];
	struct stat st;

	/* -d's source is there before anything is made */
	if (o->source && !strcmp(o->source, "-") && !o->dry_run &&
	    isatty(STDIN_FILENO)) {
		cli_error("-d -: standard input is a terminal, not an archive");
		return -EINVAL;
	}
	if (o->source && strcmp(o->source, "-") && stat(o->source, &st) < 0) {
		int err = errno;

		cli_error("-d %s: %s", o->source, strerror(err));
		return -err;
	}
	/* badblocks(8) reads a whole file or device from its block 0 */
	if (o->check && t->window) {
		cli_error("%s: -c runs badblocks over the whole target, not "
			  "a partition or an offset into it: run badblocks on "
			  "the region and give its list with -l", t->path);
		return -EINVAL;
	}
	if (o->super_only && (!t->exists || !t->size)) {
		cli_error("%s: -S rewrites the superblocks of a filesystem "
			  "that is there: %s", t->path, t->exists ?
			  "the target is empty" : "no such file");
		return -ENOENT;
	}
	if (!t->exists)
		return 0;
	if (t->is_blockdev && dev_busy(t->rdev, why, sizeof(why))) {
		cli_error("%s %s; will not make a filesystem here", t->path,
			  why);
		return -EBUSY;
	}
	if (!t->is_blockdev && file_loop_busy(t, why, sizeof(why))) {
		cli_error("%s %s; will not make a filesystem here", t->path,
			  why);
		return -EBUSY;
	}
	if (is_swap(t)) {
		cli_error("%s is an active swap area; will not make a filesystem here",
			  t->path);
		return -EBUSY;
	}
	/* -n writes nothing: it shows what would be made over it */
	if (o->force || o->dry_run || !t->size)
		return 0;
	if (blkid_finds(t, why, sizeof(why))) {
		cli_error("%s; use -F to overwrite it", why);
		return -EEXIST;
	}
	return 0;
}

/*
 * Discards the device's blocks as mke2fs does (unless -E nodiscard): good
 * for SSDs and thin volumes, but no promise of zeros, so the writer still
 * zeroes what must read as zeros. Errors (no discard support) are ignored.
 */
static int discard_device(const struct mkfs_opts *o,
			  const struct mkfs_target *t, uint64_t fs_bytes)
{
	uint64_t range[2] = { t->start, fs_bytes };
	int fd;

	if (o->nodiscard || o->undo_file)
		return 0;
	fd = open(t->path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		cli_error("%s: %s", t->path, errno == EBUSY ?
			  "the device is in use" : strerror(errno));
		return -errno;
	}
	ioctl(fd, BLKDISCARD, range);
	close(fd);
	return 0;
}

/*
 * Creates or resizes an image file, and punches out its old contents so
 * that everything reads as zeros (t->known_zero). A block device is only
 * discarded: the writer zeroes what must read as zeros. With -z neither:
 * what the writer overwrites goes to the undo file first.
 */
int mkfs_target_prepare(const struct mkfs_opts *o, struct mkfs_target *t,
			uint64_t fs_bytes)
{
	int fd, err = 0;
	uint64_t old = t->file_size, end = t->start + fs_bytes;

	/* -S keeps every byte but the superblocks and descriptors */
	if (o->super_only) {
		t->known_zero = 0;
		return 0;
	}
	/* -E assume_storage_prezeroed: the user vouches for zeros */
	t->known_zero = o->prezeroed;
	if (t->is_blockdev)
		return discard_device(o, t, fs_bytes);
	fd = open(t->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		err = errno;
		goto fail;
	}
	/* a file longer than SIZE keeps its length and what is past it;
	 * with an offset, the file grows to hold the filesystem */
	if ((o->size_arg || t->window) && end > old &&
	    ftruncate(fd, (off_t)end) < 0) {
		err = errno;
		goto fail;
	}
	/* nothing of the old file there: all zeros */
	t->known_zero |= old <= t->start;
	/* with -z the old contents stay, to be saved before each write;
	 * nothing outside the window is punched */
	if (old > t->start && !o->undo_file &&
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)t->start,
		      (off_t)((old < end ? old : end) - t->start)) == 0)
		t->known_zero = 1;
	if (close(fd) < 0) {
		fd = -1;
		err = errno;
		goto fail;
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	cli_error("%s: %s", t->path, strerror(err));
	return -err;
}

int mkfs_target_fits(struct mkfs_opts *o, const struct mkfs_target *t,
		     const struct mkfs_layout *l)
{
	uint64_t fs_bytes = l->blocks * l->block_size, need = 0;
	char name[PATH_LEN + 64];
	struct stat st;
	int rc;

	if (!t->window)
		return 0;
	mkfs_target_name(t, name, sizeof(name));
	if ((t->partition || t->is_blockdev) && fs_bytes > t->size) {
		cli_error("%s: size %s (%llu bytes) is larger than the %s "
			  "(%llu bytes)", name, o->size_arg,
			  (unsigned long long)fs_bytes, t->partition ?
			  "partition" : "rest of the device",
			  (unsigned long long)t->size);
		return -ENOSPC;
	}
	/* a tree too large for a partition is found before writing */
	if (!t->partition || !o->source || !strcmp(o->source, "-") ||
	    stat(o->source, &st) ||
	    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		return 0;
	rc = mkfs_fit_check(o, t, fs_bytes, &need);
	if (rc == 1)
		cli_error("%s is too small for -d %s: %llu bytes, and the "
			  "tree needs about %llu", name, o->source,
			  (unsigned long long)fs_bytes,
			  (unsigned long long)need);
	else if (rc < 0)
		cli_error("-d %s: %s", o->source, strerror(-rc));
	return rc ? -ENOSPC : 0;
}
