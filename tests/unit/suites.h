/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The unit suites, one per lib module, registered in check-all.c. */
#ifndef EXTKIT_TEST_SUITES_H
#define EXTKIT_TEST_SUITES_H

#include <check.h>

Suite *io_suite(void);
Suite *super_suite(void);
Suite *group_suite(void);
Suite *inode_suite(void);
Suite *bmap_suite(void);
Suite *mapbuild_suite(void);
Suite *dircompact_suite(void);
Suite *dir_suite(void);
Suite *dirspace_suite(void);
Suite *htree_suite(void);
Suite *dxblock_suite(void);
Suite *journal_log_suite(void);
Suite *bitmap_suite(void);
Suite *problem_suite(void);
Suite *undo_suite(void);
Suite *xattr_suite(void);
Suite *walk_suite(void);
Suite *cli_suite(void);
Suite *xattrbuild_suite(void);
Suite *journal_new_suite(void);
Suite *quota_suite(void);
Suite *csum_suite(void);
Suite *count_suite(void);
Suite *istate_suite(void);
Suite *nameset_suite(void);
Suite *keysort_suite(void);
Suite *encmap_suite(void);
Suite *owners_suite(void);
Suite *overlay_suite(void);
Suite *alloc_suite(void);
Suite *resize_inode_suite(void);
/* issue 32: the lib modules that had no suite */
Suite *journal_suite(void);
Suite *diradd_suite(void);
Suite *readahead_suite(void);
Suite *extent_suite(void);
Suite *mmp_suite(void);
Suite *fast_commit_suite(void);
Suite *dirpath_suite(void);
Suite *fs_suite(void);
Suite *dirblock_suite(void);
Suite *casefold_suite(void);
Suite *feature_suite(void);
Suite *clock_suite(void);
Suite *orphan_file_suite(void);
Suite *orphan_new_suite(void);
Suite *window_suite(void);
Suite *symlink_suite(void);
Suite *super_fields_suite(void);
Suite *error_suite(void);
Suite *inline_suite(void);
Suite *io_unix_suite(void);
Suite *xattrlist_suite(void);
Suite *csum_rewrite_suite(void);
Suite *csum_rewrite_ea_suite(void);
Suite *image_suite(void);
Suite *fc_replay_suite(void);
Suite *dxadd_suite(void);
Suite *casefold_ucd_suite(void);

#endif /* EXTKIT_TEST_SUITES_H */
