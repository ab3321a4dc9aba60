/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of on-disk codes and flag bits, as dump shows them beside the raw
 * numbers: file types, inode flags, superblock state, error behaviour,
 * flags and default mount options, group descriptor flags, journal
 * features. Flag names are dumpe2fs' and debugfs' where they have one.
 */
#ifndef EXTKIT_DUMP_NAMES_H
#define EXTKIT_DUMP_NAMES_H

#include <stdint.h>

#include "feature.h"
#include "json.h"

struct bit_name {
	uint32_t mask;
	const char *name;
};

struct bit_names {
	const struct bit_name *v;
	unsigned int n;
	const char *unknown;	/* a bit without name (%u: its number) */
};

extern const struct bit_names inode_flag_names;
extern const struct bit_names super_state_names;
extern const struct bit_names super_flag_names;
extern const struct bit_names mount_opt_names;
extern const struct bit_names group_flag_names;
extern const struct bit_names jbd2_compat_names;
extern const struct bit_names jbd2_incompat_names;
extern const struct bit_names jbd2_ro_compat_names;

/*
 * Calls fn with the name of every bit of v, lowest first, by the table
 * (a mask of several bits names a value of those bits, as the journal
 * mode of the mount options); bits without a name get the unknown format.
 */
void bit_names_each(const struct bit_names *t, uint32_t v,
		    void (*fn)(const char *name, void *arg), void *arg);
/* fn for bit_names_each: adds the name to the JSON array open in arg. */
void json_name(const char *name, void *arg);
/* The names of v, each after a space (nothing when there is none). */
void bit_names_text_if(const struct bit_names *t, uint32_t v);
/* The names of v as a JSON array under key. */
void bit_names_json(struct json_writer *w, const char *key,
		    const struct bit_names *t, uint32_t v);
/* The names of v, each after a space; " (none)" when there is none. */
void bit_names_text(const struct bit_names *t, uint32_t v);

/* Calls fn with the name of every feature bit of mask, lowest first
 * (e2fsprogs' FEATURE_<C|I|R><bit> for a bit without a name). */
void feature_names_each(enum extkit_feature_kind kind, uint32_t mask,
			void (*fn)(const char *name, void *arg), void *arg);

/* The word for a directory entry's file_type code (EXT2_FT_*). */
const char *ftype_word(unsigned int ftype);
/* s_errors, s_creator_os, s_def_hash_version as words. */
const char *errors_word(unsigned int v);
const char *os_word(unsigned int v);
const char *hash_word(unsigned int v);

#endif /* EXTKIT_DUMP_NAMES_H */
