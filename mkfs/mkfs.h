/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extkit-mkfs internals: the parsed options, the target, the computed
 * layout, and one function per step of a run (options.c, probe.c,
 * layout.c, report.c, write.c, resize.c).
 */
#ifndef EXTKIT_MKFS_H
#define EXTKIT_MKFS_H

#include <stdint.h>
#include <sys/types.h>

#include "fs.h"
#include "cli/image.h"
#include "cli/parse.h"

/* Exit codes: 0 done, 1 for anything else (bad argument, refusal, error). */
#define MKFS_EXIT_OK	0
#define MKFS_EXIT_FAIL	1

struct mkfs_opts {
	char *target;
	char *size_arg;			/* SIZE, NULL when absent */
	uint32_t block_size;		/* -b; 0: from the size class */
	uint32_t inode_size;		/* -I; 0: 256 */
	uint32_t cluster_size;		/* -C (bigalloc); 0: the profile's
					 * cluster_size, else 16 blocks */
	uint32_t inode_ratio;		/* -i; 0: from the size class */
	uint64_t inode_count;		/* -N; 0: from the inode ratio */
	double reserved_pct;		/* -m */
	char label[CLI_LABEL_MAX + 1];	/* -L, NUL-terminated */
	int force;			/* -F */
	int dry_run;			/* -n */
	int quiet;			/* -q */
	int verbose;			/* -v */
	/* Resolved from -O, -U, -E and the environment. */
	uint32_t compat;
	uint32_t incompat;
	uint32_t ro_compat;
	uint8_t uuid[16];
	uint8_t hash_seed[16];
	int hash_seed_given;		/* -E hash_seed= */
	int nodiscard;			/* -E nodiscard */
	char *source;			/* -d: a directory or an archive */
	char *undo_file;		/* -z: old contents saved there */
	int direct_io;			/* -D: the target is O_DIRECT */
	char *badblocks_file;		/* -l FILE */
	int check;			/* -c: 1 badblocks read-only, 2 (-cc)
					 * read-write */
	uint32_t now;
	int fixed_time;			/* the time came from the environment */
	/* ext3/ext4 (issue 14): as given, then completed by profile.c */
	char *fs_type;			/* -t */
	char *usage_types;		/* -T */
	char *features_arg;		/* every -O, joined with commas */
	int journal;			/* -j */
	uint32_t journal_mb;		/* -J size=; 0: the default */
	uint32_t fc_kib;		/* -J fast_commit_size=; 0: default */
	uint32_t flex_bg_size;		/* -G; profile flex_bg_size */
	uint32_t blocks_per_group;	/* -g; 0: 8 x block size */
	int lazy_itable_init;		/* -E; -1: from the profile */
	int lazy_journal_init;		/* -E; -1: from the profile */
	int lazy_journal_init_given;	/* by -E, not the profile */
	int num_backup_sb;		/* sparse_super2: 0 .. 2; -1 unset */
	int packed_meta_blocks;		/* -E; -1: from the profile */
	uint32_t stride, stripe_width;	/* -E stride=, stripe_width= */
	uint64_t resize_blocks;		/* -E resize=; 0: 1024 times */
	int root_owner_given;		/* -E root_owner[=uid:gid] */
	uint32_t root_uid, root_gid;
	uint16_t errors_behavior;	/* -e; 0: continue (1) */
	char *orphan_size;		/* -E orphan_file_size= as given */
	uint32_t mmp_interval;		/* -E mmp_update_interval=; 0: 5 s */
	char *encoding;			/* -E encoding= (sets casefold) */
	char *encoding_flags;		/* -E encoding_flags= */
	uint16_t s_encoding;		/* resolved with casefold */
	uint16_t s_encoding_flags;
	unsigned int quota_types;	/* -E quotatype=: bits 0 user, 1
					 * group, 2 project; user and group
					 * by default */
	int reserved_given;		/* -m */
	int revision;			/* -r: 0 (original) or 1 (dynamic) */
	const char *size_type;		/* floppy small default big huge */
	uint32_t def_block_size;	/* from the profile */
	uint32_t def_inode_ratio;
	uint32_t def_inode_size;
	int warn_y2038;			/* 128-byte inodes: mke2fs's warning */
	/* mke2fs 1.47.4's other options (issue 33) */
	char *extended;			/* every -E as given, parsed again
					 * after the profile's options */
	char *creator_os;		/* -o, else the profile's */
	char last_mounted[64];		/* -M, NUL-padded */
	int test_fs;			/* -E test_fs */
	int root_perms;			/* -E root_perms= (octal); -1 */
	int no_copy_xattrs;		/* -E no_copy_xattrs */
	int prezeroed;			/* -E assume_storage_prezeroed */
	int super_only;			/* -S: superblocks and descriptors */
	uint32_t desc_size;		/* -E desc_size= (64bit); 0: 64 */
	int discard_given;		/* -E discard or nodiscard */
	/* from the profile (profile.c) */
	uint8_t hash_alg;		/* hash_alg: 0 legacy, 1 half_md4,
					 * 2 tea */
	uint32_t mntopts;		/* default_mntopts */
	int periodic_fsck;		/* enable_periodic_fsck */
	/* image builders (issue 35): devtable.c, ... */
	char *devtab_file;		/* --device-table */
	struct mkfs_devtab *devtab;	/* read and checked */
	int hard_deref;			/* -E hard_dereference */
	int clamp_mtime;		/* -E clamp_mtime; -1: when the time
					 * is fixed (SOURCE_DATE_EPOCH) */
	uint32_t fit_slack;		/* -E fit_slack=PCT */
	char *file_contexts;		/* --file-contexts */
	char *selinux_root;		/* --selinux-root */
	int relabel;			/* --relabel */
	struct mkfs_selabel *selabel;	/* opened (selabel.c) */
	/* whole-disk images (issues 33, 35): probe.c */
	struct cli_image image;		/* --offset, --partition */
	uint64_t ext_offset;		/* -E offset= */
	int ext_offset_given;
	int android_sparse;		/* -E android_sparse: sparse.c */
};

/* buildopt.c: -E options for image builders (1: not one of them), and
 * the checks once all options are read. */
int mkfs_builder_ext(const char *tok, const char *val, struct mkfs_opts *o);
int mkfs_builder_check(struct mkfs_opts *o);

/* Whether the new filesystem is filled (-d, --device-table). */
static inline int mkfs_populating(const struct mkfs_opts *o)
{
	return o->source || o->devtab_file;
}

struct mkfs_target {
	const char *path;
	int exists;
	int is_blockdev;
	uint64_t size;			/* bytes now; 0 when missing */
	dev_t rdev;			/* block devices */
	uint32_t sector_size;		/* logical sector size; 0 unknown */
	dev_t dev;			/* regular files: st_dev and st_ino */
	ino_t ino;
	int known_zero;			/* every byte of the fs reads zero */
	/* -E offset=, --offset, --partition, TARGET@N: the filesystem is
	 * the window from start, and size above is the window's (for an
	 * offset: what the file or device has past it) */
	int window;
	uint32_t partition;		/* 1-based; 0: none */
	uint64_t start;			/* bytes before the filesystem */
	uint64_t file_size;		/* the whole file or device */
};

struct mkfs_layout {
	const char *size_class;		/* floppy small default big huge */
	uint64_t size_bytes;		/* size the geometry was taken from */
	int size_from_target;		/* no SIZE: the file or device size */
	uint32_t block_size;
	uint32_t cluster_bits;		/* log2 blocks per cluster (bigalloc) */
	uint64_t overhead_clusters;	/* bigalloc: clusters the tables and
					 * group copies touch (place.c) */
	uint32_t inode_size;
	uint32_t inode_ratio;
	uint64_t blocks;
	uint64_t r_blocks;
	uint32_t first_data_block;
	uint32_t blocks_per_group;
	uint32_t groups;
	uint32_t desc_blocks;
	uint32_t rsv_gdt;		/* reserved GDT blocks (resize_inode) */
	uint32_t inodes_per_group;
	uint32_t itable_blocks;
	uint32_t lpf_blocks;		/* blocks of lost+found */
	uint64_t root_block;
	uint64_t lpf_block;		/* first of lpf_blocks */
	uint64_t dind_block;		/* resize inode; 0 without */
	uint32_t desc_size;		/* 32, or 64 with 64bit */
	uint32_t journal_blocks;	/* 0: no journal; fast commits apart */
	uint32_t fc_blocks;		/* fast-commit area after the log */
	uint32_t backup_bgs[2];		/* sparse_super2's backup groups */
	uint32_t stride;		/* -E stride= (table placement) */
	uint32_t last_ino;		/* last inode mkfs takes (11 ..) */
	uint32_t orphan_ino;		/* the orphan file; 0: none */
	uint32_t prj_ino;		/* project quota; 0: none */
	uint32_t orphan_blocks;
	int packed;			/* packed_meta_blocks with flex_bg:
					 * the tables at the start */
	int journal_at_start;		/* packed_meta_blocks, flex_bg or not */
	struct mkfs_place *place;	/* where tables went (place.c) */
	uint64_t *bad;			/* -l: bad blocks, sorted, once each */
	uint32_t nbad;
	uint64_t bad_ind;		/* inode 1's indirect block; 0: none */
};

/* options.c: returns -1 to go on, else the exit code (help, bad usage). */
int mkfs_parse_args(int argc, const char **argv, struct mkfs_opts *o);
void mkfs_opts_free(struct mkfs_opts *o);

/* conf.c: mke2fs.conf (MKE2FS_CONFIG, /etc/mke2fs.conf, built in) */
struct mkfs_conf_rel {
	char *stanza;			/* "" for [defaults] */
	char *key;
	char *value;
};

struct mkfs_conf {
	struct mkfs_conf_rel *rel;
	size_t n, cap;
};

int mkfs_conf_load(struct mkfs_conf *c);
void mkfs_conf_free(struct mkfs_conf *c);
int mkfs_conf_has_type(const struct mkfs_conf *c, const char *type);
const char *mkfs_conf_stanza_get(const struct mkfs_conf *c,
				 const char *stanza, const char *key);
/* Looked up along types (NULL-terminated, last first), then [defaults]. */
const char *mkfs_conf_get(const struct mkfs_conf *c,
			  const char *const *types, const char *key);
long mkfs_conf_get_int(const struct mkfs_conf *c, const char *const *types,
		       const char *key, long def);
int mkfs_conf_get_bool(const struct mkfs_conf *c, const char *const *types,
		       const char *key, int def);

/* profile.c: features and defaults for a filesystem of size_bytes. */
int mkfs_profile_apply(struct mkfs_opts *o, uint64_t size_bytes);
/* extended.c: -E, from the command line or a profile's options
 * relation. */
int mkfs_parse_extended(const char *list, struct mkfs_opts *o);
/* bigalloc.c: -C, and the cluster size and its rules after the profile. */
int mkfs_parse_cluster_size(const char *s, struct mkfs_opts *o);
struct mkfs_conf;
int mkfs_bigalloc_resolve(struct mkfs_opts *o, const struct mkfs_conf *c,
			  const char *const *types);
struct mkfs_layout;
/* The cluster size for l->block_size: l->cluster_bits (0 without
 * bigalloc), checked; mke2fs's warning past 16 blocks. */
int mkfs_bigalloc_geometry(const struct mkfs_opts *o, struct mkfs_layout *l);
/* profile.c: -o, s_creator_os for a name or number; -1 when unknown. */
int mkfs_creator_os(const char *name);
/* profile.c: early checks of -O and -t (names, what extkit-mkfs can
 * make). */
int mkfs_features_check(const char *list);
int mkfs_fs_type_check(const char *type);

/* fit.c: no SIZE for a new file with -d DIR: the smallest that holds
 * the tree (plus -E fit_slack), as o->size_arg. */
int mkfs_fit(struct mkfs_opts *o, const struct mkfs_target *t);
/* Whether -d's directory fits in size bytes (the fit's estimate): 0 yes,
 * 1 no (*need: the size the fit finds), -errno. */
int mkfs_fit_check(struct mkfs_opts *o, const struct mkfs_target *t,
		   uint64_t size, uint64_t *need);

/* sparse.c: -E android_sparse. The check (an image file, a SIZE,
 * libsparse there), a raw file beside the target, and the raw file
 * written to the target as an Android sparse image. */
int mkfs_sparse_check(const struct mkfs_opts *o,
		      const struct mkfs_target *t);
int mkfs_sparse_temp(const char *target, char **raw);
int mkfs_sparse_write(const char *raw, const char *target,
		      uint32_t block_size, uint64_t bytes);

/* probe.c */
int mkfs_target_inspect(struct mkfs_opts *o, struct mkfs_target *t);
/* How the target is named in messages: "disk.img partition 2". */
const char *mkfs_target_name(const struct mkfs_target *t, char *buf,
			     size_t len);
/* A partition or window holds the layout: a SIZE larger than the
 * partition, or a tree (-d) too large for it, is an error here, before
 * anything is written. */
int mkfs_target_fits(struct mkfs_opts *o, const struct mkfs_target *t,
		     const struct mkfs_layout *l);
int mkfs_target_check(const struct mkfs_opts *o,
		      const struct mkfs_target *t);
int mkfs_target_prepare(const struct mkfs_opts *o, struct mkfs_target *t,
			uint64_t fs_bytes);

/* layout.c: fills the layout, then the superblock and geometry of fs. */
int mkfs_layout_compute(struct mkfs_opts *o, const struct mkfs_target *t,
			struct mkfs_layout *l);
int mkfs_fs_init(const struct mkfs_opts *o, struct mkfs_layout *l,
		 struct extkit_fs *fs);
void mkfs_fs_release(struct extkit_fs *fs, struct mkfs_layout *l);

/* place.c: tables, root, lost+found and the resize block, as mke2fs
 * places them; group free counts. */
struct extkit_bitmap;
struct mkfs_place;
int mkfs_place(struct mkfs_layout *l, struct extkit_fs *fs);
/* Number of groups other than 0 holding a superblock backup (the copies
 * of the reserved GDT blocks the resize inode lists). */
uint32_t mkfs_backup_count(const struct extkit_fs *fs);
void mkfs_place_free(struct mkfs_place *p);
/* Whether group g took a flex_bg table block (no BLOCK_UNINIT). */
int mkfs_place_flex_used(const struct mkfs_place *p, uint32_t g);
/* Whether group g's block bitmap is all zeroes (nothing used, no
 * padding). */
int mkfs_place_group_empty(const struct mkfs_place *p, uint32_t g);
/* Whether groups g and h have the same block bitmap. */
int mkfs_place_bitmap_same(const struct mkfs_place *p, uint32_t g,
			   uint32_t h);
/* The block bitmap of group g (bm of 8 * block size bits). */
void mkfs_place_group_bitmap(const struct mkfs_place *p, uint32_t g,
			     struct extkit_bitmap *bm);

/* report.c */
void mkfs_report(const struct mkfs_opts *o, const struct mkfs_target *t,
		 const struct mkfs_layout *l, const struct extkit_fs *fs);

/* write.c */
int mkfs_write(const struct mkfs_opts *o, const struct mkfs_target *t,
	       const struct mkfs_layout *l, struct extkit_fs *fs);

/* quota.c: the quota inodes, from the inodes in use now. */
int mkfs_quota_write(const struct mkfs_opts *o, const struct mkfs_layout *l,
		     struct extkit_fs *fs);

/* badblocks.c: -l FILE read into l->bad, checked (after the layout). */
int mkfs_badblocks_read(const struct mkfs_opts *o, struct mkfs_layout *l);
/* mke2fs's warning for each superblock backup with a bad block in its
 * superblock or descriptors (those are used already). */
void mkfs_badblocks_warn(const struct mkfs_layout *l,
			 const struct extkit_fs *fs);
/* Whether group g holds one of the bad blocks (its bitmap is written). */
int mkfs_badblocks_in_group(const struct mkfs_layout *l,
			    const struct extkit_fs *fs, uint32_t g);


#endif /* EXTKIT_MKFS_H */
