// SPDX-License-Identifier: GPL-2.0-or-later
/* Feature names, spelled as e2fsprogs' lib/e2p prints and parses them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <strings.h>

#include "feature.h"

struct feature {
	enum extkit_feature_kind kind;
	uint32_t bit;
	const char *name;
};

/* The first name of a bit is the one printed; later ones are aliases. */
static const struct feature features[] = {
	{ EXTKIT_COMPAT, EXT2_FEATURE_COMPAT_DIR_PREALLOC, "dir_prealloc" },
	{ EXTKIT_COMPAT, EXT2_FEATURE_COMPAT_IMAGIC_INODES, "imagic_inodes" },
	{ EXTKIT_COMPAT, EXT3_FEATURE_COMPAT_HAS_JOURNAL, "has_journal" },
	{ EXTKIT_COMPAT, EXT2_FEATURE_COMPAT_EXT_ATTR, "ext_attr" },
	{ EXTKIT_COMPAT, EXT2_FEATURE_COMPAT_RESIZE_INODE, "resize_inode" },
	{ EXTKIT_COMPAT, EXT2_FEATURE_COMPAT_DIR_INDEX, "dir_index" },
	{ EXTKIT_COMPAT, EXT2_FEATURE_COMPAT_LAZY_BG, "lazy_bg" },
	{ EXTKIT_COMPAT, EXT2_FEATURE_COMPAT_EXCLUDE_BITMAP,
	  "snapshot_bitmap" },
	{ EXTKIT_COMPAT, EXT4_FEATURE_COMPAT_SPARSE_SUPER2, "sparse_super2" },
	{ EXTKIT_COMPAT, EXT4_FEATURE_COMPAT_FAST_COMMIT, "fast_commit" },
	{ EXTKIT_COMPAT, EXT4_FEATURE_COMPAT_STABLE_INODES, "stable_inodes" },
	{ EXTKIT_COMPAT, EXT4_FEATURE_COMPAT_ORPHAN_FILE, "orphan_file" },
	{ EXTKIT_RO_COMPAT, EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER,
	  "sparse_super" },
	{ EXTKIT_RO_COMPAT, EXT2_FEATURE_RO_COMPAT_LARGE_FILE, "large_file" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_HUGE_FILE, "huge_file" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, "uninit_bg" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, "uninit_groups" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_DIR_NLINK, "dir_nlink" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE,
	  "extra_isize" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_QUOTA, "quota" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_BIGALLOC, "bigalloc" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM,
	  "metadata_csum" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_REPLICA, "replica" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_READONLY, "read-only" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_PROJECT, "project" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS,
	  "shared_blocks" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_VERITY, "verity" },
	{ EXTKIT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT,
	  "orphan_present" },
	{ EXTKIT_INCOMPAT, EXT2_FEATURE_INCOMPAT_COMPRESSION, "compression" },
	{ EXTKIT_INCOMPAT, EXT2_FEATURE_INCOMPAT_FILETYPE, "filetype" },
	{ EXTKIT_INCOMPAT, EXT3_FEATURE_INCOMPAT_RECOVER, "needs_recovery" },
	{ EXTKIT_INCOMPAT, EXT3_FEATURE_INCOMPAT_JOURNAL_DEV, "journal_dev" },
	{ EXTKIT_INCOMPAT, EXT2_FEATURE_INCOMPAT_META_BG, "meta_bg" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EXTENTS, "extent" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EXTENTS, "extents" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_64BIT, "64bit" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_MMP, "mmp" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_FLEX_BG, "flex_bg" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EA_INODE, "ea_inode" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_DIRDATA, "dirdata" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_CSUM_SEED,
	  "metadata_csum_seed" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_LARGEDIR, "large_dir" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_INLINE_DATA, "inline_data" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_ENCRYPT, "encrypt" },
	{ EXTKIT_INCOMPAT, EXT4_FEATURE_INCOMPAT_CASEFOLD, "casefold" },
};

#define FEATURE_COUNT (sizeof(features) / sizeof(features[0]))

const char *extkit_feature_name(enum extkit_feature_kind kind, uint32_t bit)
{
	for (unsigned int i = 0; i < FEATURE_COUNT; i++)
		if (features[i].kind == kind && features[i].bit == bit)
			return features[i].name;
	return NULL;
}

const char *extkit_feature_spell(enum extkit_feature_kind kind, uint32_t bit,
				 char *buf)
{
	static const char kind_char[3] = { 'C', 'I', 'R' };
	const char *name = extkit_feature_name(kind, bit);
	int n = 0;

	if (name)
		return name;
	while (n < 31 && !(bit & (1u << n)))
		n++;
	snprintf(buf, EXTKIT_FEATURE_SPELL_MAX, "FEATURE_%c%d",
		 kind_char[(unsigned int)kind % 3], n);
	return buf;
}

int extkit_feature_lookup(const char *name, enum extkit_feature_kind *kind,
			  uint32_t *bit)
{
	for (unsigned int i = 0; i < FEATURE_COUNT; i++) {
		if (strcasecmp(features[i].name, name) == 0) {
			*kind = features[i].kind;
			*bit = features[i].bit;
			return 0;
		}
	}
	return -ENOENT;
}
