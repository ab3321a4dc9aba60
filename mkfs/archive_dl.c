// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libarchive loaded on demand (see archive_dl.h). The library stays
 * loaded until exit: archive.c keeps its handles to the end of the run.
 */
#include "config.h"

#include <dlfcn.h>
#include <stddef.h>

#include "archive_dl.h"

static struct archive_api api;

/* Each function: its name and where its address goes. */
#define FN(name) { #name, offsetof(struct archive_api, name) }
static const struct {
	const char *name;
	size_t off;
} fns[] = {
	FN(archive_read_new), FN(archive_read_free),
	FN(archive_read_support_filter_all),
	FN(archive_read_support_format_all),
	FN(archive_read_open_filename), FN(archive_read_next_header),
	FN(archive_read_data_block), FN(archive_error_string),
	FN(archive_filter_bytes), FN(archive_entry_pathname),
	FN(archive_entry_hardlink), FN(archive_entry_symlink),
	FN(archive_entry_mode), FN(archive_entry_uid), FN(archive_entry_gid),
	FN(archive_entry_size), FN(archive_entry_size_is_set),
	FN(archive_entry_atime), FN(archive_entry_atime_nsec),
	FN(archive_entry_atime_is_set), FN(archive_entry_mtime),
	FN(archive_entry_mtime_nsec), FN(archive_entry_ctime),
	FN(archive_entry_ctime_nsec), FN(archive_entry_ctime_is_set),
	FN(archive_entry_rdevmajor), FN(archive_entry_rdevminor),
	FN(archive_entry_acl_reset), FN(archive_entry_acl_next),
	FN(archive_entry_xattr_reset), FN(archive_entry_xattr_next),
};
#undef FN

_Static_assert(sizeof(fns) / sizeof(fns[0]) * sizeof(void (*)(void)) ==
	       sizeof(struct archive_api),
	       "every function of struct archive_api is in fns");

const struct archive_api *archive_api_load(const char **why)
{
	static int loaded;
	void *h;

	if (loaded)
		return &api;
	h = dlopen(LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*why = dlerror();
		return NULL;
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *f = dlsym(h, fns[i].name);

		if (!f) {
			*why = dlerror();
			dlclose(h);
			return NULL;
		}
		/* POSIX: a data pointer from dlsym converts to a function
		 * pointer of the symbol's type */
		*(void **)((char *)&api + fns[i].off) = f;
	}
	loaded = 1;
	return &api;
}
