// SPDX-License-Identifier: GPL-2.0-or-later
/* Runs every unit suite (one per lib module) in one check runner. */
#include "config.h"

#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(io_suite());
	int failed;

	srunner_add_suite(sr, super_suite());
	srunner_add_suite(sr, group_suite());
	srunner_add_suite(sr, inode_suite());
	srunner_add_suite(sr, bmap_suite());
	srunner_add_suite(sr, mapbuild_suite());
	srunner_add_suite(sr, dircompact_suite());
	srunner_add_suite(sr, dir_suite());
	srunner_add_suite(sr, dirspace_suite());
	srunner_add_suite(sr, htree_suite());
	srunner_add_suite(sr, dxblock_suite());
	srunner_add_suite(sr, journal_log_suite());
	srunner_add_suite(sr, bitmap_suite());
	srunner_add_suite(sr, problem_suite());
	srunner_add_suite(sr, undo_suite());
	srunner_add_suite(sr, xattr_suite());
	srunner_add_suite(sr, walk_suite());
	srunner_add_suite(sr, cli_suite());
	srunner_add_suite(sr, xattrbuild_suite());
	srunner_add_suite(sr, journal_new_suite());
	srunner_add_suite(sr, quota_suite());
	srunner_add_suite(sr, csum_suite());
	srunner_add_suite(sr, count_suite());
	srunner_add_suite(sr, istate_suite());
	srunner_add_suite(sr, nameset_suite());
	srunner_add_suite(sr, keysort_suite());
	srunner_add_suite(sr, encmap_suite());
	srunner_add_suite(sr, owners_suite());
	srunner_add_suite(sr, overlay_suite());
	srunner_add_suite(sr, alloc_suite());
	srunner_add_suite(sr, resize_inode_suite());
	srunner_add_suite(sr, journal_suite());
	srunner_add_suite(sr, diradd_suite());
	srunner_add_suite(sr, readahead_suite());
	srunner_add_suite(sr, extent_suite());
	srunner_add_suite(sr, mmp_suite());
	srunner_add_suite(sr, fast_commit_suite());
	srunner_add_suite(sr, dirpath_suite());
	srunner_add_suite(sr, fs_suite());
	srunner_add_suite(sr, dirblock_suite());
	srunner_add_suite(sr, casefold_suite());
	srunner_add_suite(sr, feature_suite());
	srunner_add_suite(sr, clock_suite());
	srunner_add_suite(sr, orphan_file_suite());
	srunner_add_suite(sr, orphan_new_suite());
	srunner_add_suite(sr, window_suite());
	srunner_add_suite(sr, symlink_suite());
	srunner_add_suite(sr, super_fields_suite());
	srunner_add_suite(sr, error_suite());
	srunner_add_suite(sr, inline_suite());
	srunner_add_suite(sr, io_unix_suite());
	srunner_add_suite(sr, xattrlist_suite());
	srunner_add_suite(sr, csum_rewrite_suite());
	srunner_add_suite(sr, csum_rewrite_ea_suite());
	srunner_add_suite(sr, image_suite());
	srunner_add_suite(sr, fc_replay_suite());
	srunner_add_suite(sr, dxadd_suite());
	srunner_add_suite(sr, casefold_ucd_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
