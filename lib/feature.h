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

/* Name of one feature bit; NULL for a bit without a name. */
const char *extkit_feature_name(enum extkit_feature_kind kind, uint32_t bit);
/* Looks a name up (case-insensitive, aliases accepted); 0 or -ENOENT. */
int extkit_feature_lookup(const char *name, enum extkit_feature_kind *kind,
			  uint32_t *bit);

#endif /* EXTKIT_FEATURE_H */
