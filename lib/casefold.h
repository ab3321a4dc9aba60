/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * casefold: names in directories with the casefold flag (EXT4_CASEFOLD_FL,
 * under INCOMPAT_CASEFOLD) are looked up and hashed folded, as the
 * kernel's utf8-12.1 encoding folds them (fs/unicode): canonical
 * decomposition (NFD), full case folding, Default_Ignorable code points
 * dropped. The folding itself is libunistring's u8_casefold (NFD); its
 * tables are newer than 12.1, so code points Unicode 12.1 did not assign
 * are kept out of its way and left as they are, as the kernel's table
 * leaves them. A name that is not well-formed UTF-8 does not fold: the
 * caller then uses its bytes, as the kernel does (ext4fs_dirhash,
 * ext4_ci_compare).
 */
#ifndef EXTKIT_CASEFOLD_H
#define EXTKIT_CASEFOLD_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

/* s_encoding: the one encoding the kernel knows */
#define EXTKIT_ENC_UTF8_12_1		1
/* s_encoding_flags: refuse names that do not normalize */
#define EXTKIT_ENC_STRICT_MODE_FL	0x0001

/* The longest folded name (the kernel folds into PATH_MAX bytes). */
#define EXTKIT_CASEFOLD_MAX	4096

struct extkit_cp_range {
	uint32_t first;
	uint32_t last;
};

/* Generated tables (casefold_ucd.c, by casefold_gen.py), sorted. */
extern const struct extkit_cp_range extkit_utf8_12_1_assigned[];
extern const unsigned int extkit_utf8_12_1_assigned_count;
extern const struct extkit_cp_range extkit_utf8_12_1_ignorable[];
extern const unsigned int extkit_utf8_12_1_ignorable_count;

/* Whether Unicode 12.1 assigned code point cp (surrogates: no). */
int extkit_utf8_12_1_is_assigned(uint32_t cp);

/*
 * Folds name (len bytes) into out (outsz bytes); a stray continuation
 * byte after an ASCII one is passed through, as the kernel does. Returns the
 * folded length, or -EINVAL when the name does not fold under utf8-12.1
 * (ill-formed UTF-8, surrogates included, a continuation byte first,
 * or a fold longer than outsz
 * or EXTKIT_CASEFOLD_MAX), -ENOMEM.
 */
int extkit_casefold(const char *name, uint32_t len, char *out,
		    size_t outsz);

/*
 * Where the first ill-formed UTF-8 sequence of name starts (surrogates
 * included: the kernel's utf8_validate refuses them), or -1 when the
 * whole name is well formed.
 */
int extkit_utf8_invalid_at(const char *name, uint32_t len);

/*
 * Whether name, in a directory with inode flags dir_flags, has no hash
 * the kernel and e2fsprogs agree on: the directory is casefolded and the
 * name holds an ill-formed sequence other than a stray continuation byte
 * (which both pass through, see extkit_casefold) and does not start with
 * a continuation byte (which both hash as bytes). The kernel hashes such
 * a name as its bytes once utf8_casefold refuses it; e2fsprogs 1.47 gets
 * an error (e2fsck -D then leaves the directory unindexed, its pass 2
 * keeps the previous entry's hash). A directory holding one is kept
 * linear.
 */
int extkit_casefold_name_unhashable(const struct extkit_fs *fs,
				    uint32_t dir_flags, const char *name,
				    uint32_t len);

/*
 * Whether the names of a directory with inode flags dir_flags are
 * folded: the casefold feature, the flag, a known encoding, and not an
 * encrypted directory (whose names are ciphertext: the kernel folds them
 * only with the key, and stores the hash in the entry).
 */
int extkit_dir_is_casefolded(const struct extkit_fs *fs, uint32_t dir_flags);

/*
 * Whether two names are the same name in a casefolded directory: equal
 * folds, or, when either does not fold, equal bytes (ext4_ci_compare).
 */
int extkit_casefold_name_eq(const char *a, uint32_t alen, const char *b,
			    uint32_t blen);

#endif /* EXTKIT_CASEFOLD_H */
