/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libarchive, loaded (dlopen) only when -d names an archive. Linked in,
 * it and what it needs (libxml2, ICU, libstdc++, the compressors: 17
 * libraries) were relocated at every start of extkit-mkfs, most of its
 * run time on a small filesystem. The pointers have the types archive.h
 * declares, so every call is checked as a direct one would be.
 */
#ifndef EXTKIT_MKFS_ARCHIVE_DL_H
#define EXTKIT_MKFS_ARCHIVE_DL_H

#include <archive.h>
#include <archive_entry.h>

struct archive_api {
	__typeof__(archive_read_new) *archive_read_new;
	__typeof__(archive_read_free) *archive_read_free;
	__typeof__(archive_read_support_filter_all)
		*archive_read_support_filter_all;
	__typeof__(archive_read_support_format_all)
		*archive_read_support_format_all;
	__typeof__(archive_read_open_filename) *archive_read_open_filename;
	__typeof__(archive_read_next_header) *archive_read_next_header;
	__typeof__(archive_read_data_block) *archive_read_data_block;
	__typeof__(archive_error_string) *archive_error_string;
	__typeof__(archive_filter_bytes) *archive_filter_bytes;
	__typeof__(archive_entry_pathname) *archive_entry_pathname;
	__typeof__(archive_entry_hardlink) *archive_entry_hardlink;
	__typeof__(archive_entry_symlink) *archive_entry_symlink;
	__typeof__(archive_entry_mode) *archive_entry_mode;
	__typeof__(archive_entry_uid) *archive_entry_uid;
	__typeof__(archive_entry_gid) *archive_entry_gid;
	__typeof__(archive_entry_size) *archive_entry_size;
	__typeof__(archive_entry_size_is_set) *archive_entry_size_is_set;
	__typeof__(archive_entry_atime) *archive_entry_atime;
	__typeof__(archive_entry_atime_nsec) *archive_entry_atime_nsec;
	__typeof__(archive_entry_atime_is_set) *archive_entry_atime_is_set;
	__typeof__(archive_entry_mtime) *archive_entry_mtime;
	__typeof__(archive_entry_mtime_nsec) *archive_entry_mtime_nsec;
	__typeof__(archive_entry_ctime) *archive_entry_ctime;
	__typeof__(archive_entry_ctime_nsec) *archive_entry_ctime_nsec;
	__typeof__(archive_entry_ctime_is_set) *archive_entry_ctime_is_set;
	__typeof__(archive_entry_rdevmajor) *archive_entry_rdevmajor;
	__typeof__(archive_entry_rdevminor) *archive_entry_rdevminor;
	__typeof__(archive_entry_acl_reset) *archive_entry_acl_reset;
	__typeof__(archive_entry_acl_next) *archive_entry_acl_next;
	__typeof__(archive_entry_xattr_reset) *archive_entry_xattr_reset;
	__typeof__(archive_entry_xattr_next) *archive_entry_xattr_next;
};

/*
 * Loads libarchive (LIBARCHIVE_SONAME, found at configure time) once and
 * returns its functions, or NULL with *why saying what failed (dlerror's
 * text: the library or a function missing).
 */
const struct archive_api *archive_api_load(const char **why);

#endif /* EXTKIT_MKFS_ARCHIVE_DL_H */
