// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 0's judgment of the group descriptors against the ownership map
 * (lib/owners.c), before anything else believes them.
 *
 * Every metadata place is claimed in one map: the superblock copies,
 * descriptor and reserved GDT blocks, each group's bitmaps and inode
 * table, and what the superblock and reserved inodes name (MMP block,
 * the resize inode's double indirect block, the journal, the orphan
 * file, the quota files). A group place is bad when it lies outside the
 * blocks its group may use (the group, or the filesystem with flex_bg),
 * runs past the end, or overlaps any other claim: a superblock copy, a
 * reserved GDT block, another group's place (e2fsck's ext2fs_check_desc
 * sees these too), or the journal's blocks (which it does not).
 *
 * The map is built from the descriptors as they are. The reserved
 * inodes are read through group 0's table only once the places without
 * them are sound (a table that overlaps the superblock copies would
 * yield garbage claims). open.c asks whether the descriptors are
 * usable (a backup is taken when they are not); relocate.c asks which
 * place of two that overlap is the wrong one.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "error.h"
#include "fs.h"
#include "group.h"
#include "ondisk.h"
#include "owners.h"

#include "fsck.h"

static const char *const place_names[FSCK_PLACES] = {
	"block bitmap", "inode bitmap", "inode table",
};

uint64_t fsck_place_at(const struct extkit_fs *fs, uint32_t g, int k)
{
	const struct extkit_group *gd = &fs->groups[g];

	return k == 0 ? gd->block_bitmap : k == 1 ? gd->inode_bitmap :
			gd->inode_table;
}

uint64_t fsck_place_len(const struct extkit_fs *fs, int k)
{
	return k == 2 ? fs->g.itable_blocks : 1;
}

int fsck_place_in_range(const struct extkit_fs *fs, uint32_t g, int k,
			uint64_t blk)
{
	uint64_t lo = fs->sb.first_data_block, hi = fs->sb.blocks_count;
	uint64_t len = fsck_place_len(fs, k);

	if (!extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_FLEX_BG)) {
		lo = extkit_group_first_block(&fs->sb, g);
		hi = lo + extkit_group_block_count(&fs->sb, g);
	}
	return blk >= lo && blk + len <= hi && blk + len > blk;
}

/* Whether the places of the group holding inode ino are sound: its
 * inode table, read for the reserved inodes, overlaps nothing. */
static int table_sound(const struct extkit_owners *o,
		       const struct extkit_fs *fs, uint32_t ino)
{
	uint32_t g = (ino - 1) / fs->sb.inodes_per_group;
	struct extkit_claim self = {
		.start = fs->groups[g].inode_table,
		.len = fs->g.itable_blocks, .group = g,
		.kind = EXTKIT_OWN_INODE_TABLE,
	};

	return fsck_place_in_range(fs, g, 2, self.start) &&
	       !extkit_owners_find(o, self.start, self.len, &self, NULL, 0);
}

int fsck_owners_build(struct extkit_fs *fs, struct extkit_owners *o)
{
	int rc;

	extkit_owners_init(o);
	rc = extkit_owners_add_fixed(o, fs);
	if (!rc)
		rc = extkit_owners_add_groups(o, fs);
	if (!rc)
		rc = extkit_owners_sort(o);
	if (!rc && fs->g.group_count && table_sound(o, fs, EXT2_ROOT_INO))
		rc = extkit_owners_add_inodes(o, fs);
	if (!rc)
		rc = extkit_owners_sort(o);
	if (rc)
		extkit_owners_free(o);
	return rc;
}

size_t fsck_place_conflicts(const struct extkit_owners *o,
			    const struct extkit_fs *fs, uint32_t g, int k,
			    struct extkit_claim *out, size_t max)
{
	struct extkit_claim self = {
		.start = fsck_place_at(fs, g, k), .len = fsck_place_len(fs, k),
		.group = g, .kind = (uint8_t)(EXTKIT_OWN_BLOCK_BITMAP + k),
	};

	return extkit_owners_find(o, self.start, self.len, &self, out, max);
}

/* "group 3's block bitmap (block 6) overlaps group 0's reserved GDT
 * blocks" into buf. */
static void describe(char *buf, size_t size, const struct extkit_fs *fs,
		     uint32_t g, int k, const struct extkit_claim *with)
{
	uint64_t at = fsck_place_at(fs, g, k);
	int n = snprintf(buf, size, "group %" PRIu32 "'s %s (block %" PRIu64
			 ") ", g, place_names[k], at);

	if (n < 0 || (size_t)n >= size)
		return;
	if (!with) {
		snprintf(buf + n, size - (size_t)n, "%s",
			 at >= fs->sb.blocks_count ? "is past the end of the "
			 "filesystem" : "is outside the blocks its group may "
			 "use");
	} else if (with->kind <= EXTKIT_OWN_INODE_TABLE) {
		snprintf(buf + n, size - (size_t)n, "overlaps group %" PRIu32
			 "'s %s", with->group, extkit_owner_name(with->kind));
	} else {
		snprintf(buf + n, size - (size_t)n, "overlaps the %s",
			 extkit_owner_name(with->kind));
	}
}

int64_t fsck_descs_bad(struct extkit_fs *fs, char *why, size_t size)
{
	struct extkit_owners o;
	struct extkit_claim with;

	if (fsck_owners_build(fs, &o)) {
		snprintf(why, size, "out of memory for the ownership map");
		return -2;
	}
	for (uint32_t g = 0; g < fs->g.group_count; g++)
		for (int k = 0; k < FSCK_PLACES; k++) {
			const struct extkit_claim *w = &with;

			if (fsck_place_in_range(fs, g, k,
						fsck_place_at(fs, g, k))) {
				if (!fsck_place_conflicts(&o, fs, g, k, &with,
							  1))
					continue;
			} else {
				w = NULL;
			}
			describe(why, size, fs, g, k, w);
			extkit_owners_free(&o);
			return g;
		}
	extkit_owners_free(&o);
	return -1;
}
