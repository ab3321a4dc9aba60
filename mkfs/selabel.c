// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SELinux labels through libselinux (see selabel.h), loaded on demand:
 * selabel_open with the file_contexts backend and the file given,
 * selabel_lookup for each path and mode, freecon, selabel_close. Their
 * prototypes are libselinux's stable ABI (selinux/label.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "selabel.h"

#define SELINUX_SONAME		"libselinux.so.1"
#define SELABEL_CTX_FILE	0	/* selinux/label.h */
#define SELABEL_OPT_PATH	3

struct selinux_opt {
	int type;
	const char *value;
};

struct mkfs_selabel {
	void *dl;
	void *handle;
	void *(*open)(unsigned int backend, const struct selinux_opt *opts,
		      unsigned int nopts);
	int (*lookup)(void *handle, char **con, const char *key, int type);
	void (*close)(void *handle);
	void (*freecon)(char *con);
};

static int sym(struct mkfs_selabel *s, const char *name, void **out)
{
	*out = dlsym(s->dl, name);
	return *out ? 0 : -1;
}

struct mkfs_selabel *mkfs_selabel_open(const char *file, const char **why)
{
	struct mkfs_selabel *s = calloc(1, sizeof(*s));
	struct selinux_opt opt = { SELABEL_OPT_PATH, file };

	if (!s) {
		*why = "out of memory";
		return NULL;
	}
	s->dl = dlopen(SELINUX_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!s->dl || sym(s, "selabel_open", (void **)&s->open) ||
	    sym(s, "selabel_lookup", (void **)&s->lookup) ||
	    sym(s, "selabel_close", (void **)&s->close) ||
	    sym(s, "freecon", (void **)&s->freecon)) {
		*why = dlerror();
		if (s->dl)
			dlclose(s->dl);
		free(s);
		return NULL;
	}
	s->handle = s->open(SELABEL_CTX_FILE, &opt, 1);
	if (!s->handle) {
		*why = "libselinux cannot read it (selabel_open failed)";
		dlclose(s->dl);
		free(s);
		return NULL;
	}
	return s;
}

int mkfs_selabel_lookup(struct mkfs_selabel *s, const char *path,
			uint32_t mode, char **ctx)
{
	*ctx = NULL;
	errno = 0;
	if (s->lookup(s->handle, ctx, path, (int)mode) == 0 && *ctx)
		return 0;
	return errno == ENOENT || !errno ? -ENOENT : -errno;
}

void mkfs_selabel_free(struct mkfs_selabel *s, char *ctx)
{
	if (ctx)
		s->freecon(ctx);
}

void mkfs_selabel_close(struct mkfs_selabel *s)
{
	if (!s)
		return;
	s->close(s->handle);
	dlclose(s->dl);
	free(s);
}
