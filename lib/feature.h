/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Feature flag names as e2fsprogs spells them, and the supported sets. */
#ifndef EXTKIT_FEATURE_H
#define EXTKIT_FEATURE_H

#include <stdint.h>

#include "ondisk.h"

enum extkit_feature_kind {
	EXTKIT_COMPAT = 0,
	EXTKIT_INCOMPAT = 1,
	EXTKIT_RO_COMPAT = 2,
};

/* Incompat features extkit reads; anything else is refused on open. */
#define EXTKIT_INCOMPAT_READ_SUPP					\
	(EXT2_FEATURE_INCOMPAT_FILETYPE | EXT3_FEATURE_INCOMPAT_RECOVER | \
	 EXT2_FEATURE_INCOMPAT_META_BG | EXT4_FEATURE_INCOMPAT_EXTENTS | \
	 EXT4_FEATURE_INCOMPAT_64BIT | EXT4_FEATURE_INCOMPAT_MMP |	\
	 EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_EA_INODE | \
	 EXT4_FEATURE_INCOMPAT_CSUM_SEED | EXT4_FEATURE_INCOMPAT_LARGEDIR | \
	 EXT4_FEATURE_INCOMPAT_ENCRYPT | EXT4_FEATURE_INCOMPAT_CASEFOLD | \
	 EXT4_FEATURE_INCOMPAT_INLINE_DATA)

/*
 * The features a checker of the format knows how to check: e2fsprogs'
 * supported sets (lib/ext2fs/ext2fs.h, 1.47.4). A filesystem with any
 * other bit set, in any of the three words, is one no checker may write
 * to (e2fsck refuses it with "unsupported feature(s)").
 */
#define EXTKIT_COMPAT_CHECK_SUPP					\
	(EXT2_FEATURE_COMPAT_DIR_PREALLOC |				\
	 EXT2_FEATURE_COMPAT_IMAGIC_INODES |				\
	 EXT3_FEATURE_COMPAT_HAS_JOURNAL | EXT2_FEATURE_COMPAT_EXT_ATTR | \
	 EXT2_FEATURE_COMPAT_RESIZE_INODE | EXT2_FEATURE_COMPAT_DIR_INDEX | \
	 EXT4_FEATURE_COMPAT_SPARSE_SUPER2 |				\
	 EXT4_FEATURE_COMPAT_FAST_COMMIT |				\
	 EXT4_FEATURE_COMPAT_STABLE_INODES | EXT4_FEATURE_COMPAT_ORPHAN_FILE)
#define EXTKIT_INCOMPAT_CHECK_SUPP					\
	(EXTKIT_INCOMPAT_READ_SUPP | EXT3_FEATURE_INCOMPAT_JOURNAL_DEV)
#define EXTKIT_RO_COMPAT_CHECK_SUPP					\
	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |				\
	 EXT2_FEATURE_RO_COMPAT_LARGE_FILE |				\
	 EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_GDT_CSUM | \
	 EXT4_FEATURE_RO_COMPAT_DIR_NLINK |				\
	 EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |				\
	 EXT4_FEATURE_RO_COMPAT_QUOTA | EXT4_FEATURE_RO_COMPAT_BIGALLOC | \
	 EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |				\
	 EXT4_FEATURE_RO_COMPAT_READONLY | EXT4_FEATURE_RO_COMPAT_PROJECT | \
	 EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS |				\
	 EXT4_FEATURE_RO_COMPAT_VERITY |				\
	 EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT)

/* Name of one feature bit; NULL for a bit without a name. */
const char *extkit_feature_name(enum extkit_feature_kind kind, uint32_t bit);
/*
 * Name of one feature bit as e2fsprogs prints it: its name, or
 * FEATURE_<C|I|R><bit number> for a bit without one (written into buf,
 * at least EXTKIT_FEATURE_SPELL_MAX bytes).
 */
#define EXTKIT_FEATURE_SPELL_MAX 24
const char *extkit_feature_spell(enum extkit_feature_kind kind, uint32_t bit,
				 char *buf);
/* Looks a name up (case-insensitive, aliases accepted); 0 or -ENOENT. */
int extkit_feature_lookup(const char *name, enum extkit_feature_kind *kind,
			  uint32_t *bit);

#endif /* EXTKIT_FEATURE_H */
