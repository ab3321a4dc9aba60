/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extkit-mkfs --device-table: a device table in the genext2fs/makedevs
 * format, read and checked whole before anything is written, its ranges
 * expanded, kept sorted by (directory, name) so that -d finds the nodes
 * to add to a directory and the entry of a path by binary search.
 */
#ifndef EXTKIT_MKFS_DEVTABLE_H
#define EXTKIT_MKFS_DEVTABLE_H

#include <stddef.h>
#include <stdint.h>

/* One path of the table (a range gives one entry per node). */
struct devtab_ent {
	char *path;		/* without the leading '/'; "" the root */
	uint32_t plen;		/* bytes of its directory's path */
	uint32_t mode;		/* type and permission bits */
	uint32_t uid;
	uint32_t gid;
	uint32_t major;
	uint32_t minor;
	uint32_t line;		/* where the table gave it (the last line) */
	int used;		/* met in the source, or made */
};

struct mkfs_devtab {
	char *file;
	struct devtab_ent *e;
	size_t n;
};

/* Reads and checks the whole table; a bad line is named on stderr. */
int mkfs_devtab_load(const char *file, struct mkfs_devtab **out);
void mkfs_devtab_free(struct mkfs_devtab *dt);
/* The entry of path (len bytes, no leading '/'), or NULL. */
struct devtab_ent *mkfs_devtab_find(struct mkfs_devtab *dt, const char *path,
				    size_t len);
/* The entries directly in directory dir (len bytes): *first, and how
 * many (they follow each other). */
size_t mkfs_devtab_children(const struct mkfs_devtab *dt, const char *dir,
			    size_t len, size_t *first);
/* The entry's last name. */
static inline const char *devtab_name(const struct devtab_ent *e)
{
	return e->path + e->plen + (e->plen > 0);
}
/* The file type letter of a mode, for messages. */
char mkfs_devtab_type_char(uint32_t mode);

#endif /* EXTKIT_MKFS_DEVTABLE_H */
