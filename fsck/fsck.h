/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extkit-fsck: the context every pass works on, the options, and the
 * helpers the passes share (each declared with the file that holds it).
 * One struct fsck_ctx per run; passes take it explicitly (no globals).
 */
#ifndef EXTKIT_FSCK_H
#define EXTKIT_FSCK_H

#include <stdint.h>
#include <stdio.h>

#include "bitmap.h"
#include "fs.h"
#include "image.h"
#include "inode.h"

#include "count.h"
#include "encmap.h"
#include "istate.h"
#include "problem.h"

/* fsck(8) exit codes. */
#define FSCK_OK			0
#define FSCK_NONDESTRUCT	1
#define FSCK_REBOOT		2
#define FSCK_UNCORRECTED	4
#define FSCK_ERROR		8
#define FSCK_USAGE		16
#define FSCK_CANCELED		32

enum fsck_mode {
	FSCK_MODE_ASK = 0,	/* interactive */
	FSCK_MODE_NO,		/* -n */
	FSCK_MODE_YES,		/* -y */
	FSCK_MODE_PREEN,	/* -p / -a */
};

struct fsck_opts {
	enum fsck_mode mode;
	int mode_count;		/* how many of -n/-y/-p were given */
	int force;		/* -f */
	int verbose;		/* -v */
	int compress_dirs;	/* -D */
	uint64_t sb_block;	/* -b */
	uint32_t block_size;	/* -B */
	int progress_fd;	/* -C, -1 when off */
	const char *extended;	/* -E, journal_only taken out */
	int journal_only;	/* -E journal_only: replay, then stop */
	const char *undo_file;	/* -z */
	const char *target;	/* as given (messages) */
	const char *image;	/* the file or device (TARGET@N's IMAGE) */
	struct extkit_image_loc loc;	/* --offset, --partition, @N */
	/* e2fsck's other options (issue 31) */
	int timing;		/* -t: resource use at the end; -tt: per pass */
	int flush;		/* -F: flush the device's buffers first */
	int debug;		/* -d: problem codes on stderr */
	int check_blocks;	/* -c: badblocks read test; -cc: read-write */
	int keep_bad_blocks;	/* -k: with -c, keep the listed ones */
	const char *bb_file;	/* -l / -L: bad blocks from this file */
	int bb_replace;		/* -L: replace the list, not add to it */
	const char *journal_dev;	/* -j: the external journal */
	int discard;		/* -E discard: free blocks discarded */
};

/* ctx->flags */
#define FSCK_FL_CHANGED		0x01	/* something was written */
#define FSCK_FL_UNCORRECTED	0x02	/* a problem was left alone */
#define FSCK_FL_ABORT		0x04	/* a fatal problem: stop */
#define FSCK_FL_SB_DIRTY	0x08	/* write super + descriptors */
#define FSCK_FL_BACKUP_SB	0x10	/* running on a backup superblock */
#define FSCK_FL_DUPS		0x20	/* pass 1 found shared blocks */
#define FSCK_FL_RECOVERED	0x40	/* orphans released, the journal
					 * replayed, its errno moved, the
					 * dirhash hint added: written,
					 * but not an error (e2fsck exits 0) */
#define FSCK_FL_RESIZE_REBUILD	0x80	/* inode 7 cleared: build it anew */
#define FSCK_FL_CANCEL		0x100	/* Ctrl-C or end of input: stop */
#define FSCK_FL_JOURNAL_CLEARED	0x200	/* the journal inode was dropped */
#define FSCK_FL_RESTART		0x400	/* after pass 2: again from pass 1
					 * (group_flags.c) */
#define FSCK_FL_FIXED		0x800	/* a fix was made (not a silent one) */
#define FSCK_FL_NOT_VALID	0x1000	/* a descriptor held what cannot be:
					 * checked even without -f */
#define FSCK_FL_MADE_VALID	0x2000	/* a filesystem not marked valid (not
					 * unmounted cleanly, say) left valid:
					 * exit 1, as e2fsck */

/* Each read window in front of the image (io.h; three of them: what
 * they hold is copied, so they stay small). Pass 1 reads the inode
 * tables in chunks of its own (CHUNK_BYTES), straight to its buffers. */
#define FSCK_READAHEAD_BYTES	(1u << 17)

/* One directory: its parent found in pass 2 and its '..'. */
struct fsck_dir {
	uint32_t ino;
	uint32_t parent;	/* the directory naming it (0: none yet) */
	uint32_t dotdot;	/* what its '..' says (0: missing) */
	uint32_t mark;		/* pass 3 walk stamp */
	uint32_t flags;		/* FSCK_DIR_* */
};

#define FSCK_DIR_DOTDOT_COUNTED	0x1	/* '..' was counted as a link */
#define FSCK_DIR_DONE		0x2	/* pass 3: reaches the root */

/* Something fsck allocated: pass 5 takes it as on-disk truth. */
struct fsck_alloc_list {
	uint64_t *v;
	size_t n;
	size_t cap;
};

/* One extended attribute block named by some inode (xattr.c). */
struct fsck_ea_rec {
	uint64_t blk;		/* 0: empty slot */
	uint32_t refs;		/* inodes that keep naming it */
	uint32_t uncounted;	/* inline-data symlinks naming it: kept in
				 * use, left out of h_refcount (e2fsck) */
	uint32_t disk_refs;	/* its h_refcount as read */
	uint8_t problem;	/* enum extkit_xattr_problem, 0: valid */
	uint32_t quota;		/* blocks of its EA inodes' values */
	uint64_t moved_to;	/* pass 1B: copied there (it was claimed
				 * by something else too); 0: not moved */
};

/*
 * An EA inode reference accepted before pass 1 reached the EA inode
 * (xattr.c): pass 1 may still clear that inode or change its i_size,
 * so the reference is looked at again at the end of pass 1.
 */
struct fsck_ea_ahead {
	uint64_t blk;		/* the EA block naming it; 0: owner's ibody */
	uint32_t owner;		/* the inode (the block's first namer) */
	uint32_t value_inum;
	uint32_t value_size;	/* e_value_size of the entry */
	uint32_t blocks;	/* ibody: the region's value blocks, counted
				 * in the owner's i_blocks */
};

/* Extended attribute blocks seen: validated once, counted per inode. */
struct fsck_ea_set {
	struct fsck_ea_rec *v;	/* open addressing */
	size_t cap;		/* power of two */
	size_t n;
	int refs_checked;	/* end of pass 1: h_refcount is settled */
	struct fsck_ea_ahead *ahead;	/* references to later inodes */
	size_t n_ahead, cap_ahead;
};

/* What a block map scan found (blocks.c). */
struct fsck_blk_result {
	uint64_t nblocks;	/* data and map blocks kept */
	int64_t last_lblk;	/* last logical data block, -1: none */
	int64_t last_init_lblk;	/* the same, unwritten extents left out */
	uint64_t dups;		/* blocks already claimed */
	uint64_t first_dup;
	uint64_t last_cluster;	/* bigalloc: last cluster counted + 1 */
	int inode_dirty;	/* i_block changed: write the inode */
	int failed;		/* a map could not be read or is corrupt */
	int fragmented;		/* a block not right after the one before */
	uint64_t next_pblk;	/* where the next block would follow */
	int cleared;		/* the map is garbage: clear the inode */
	int to_extents;		/* bigalloc: pass 1E rebuilds the map and
				 * sets i_blocks (pass 1 leaves it) */
	int misaligned;		/* bigalloc: an extent off its cluster
				 * offsets, 1: to realign, -1: declined */
};

struct extkit_dirspace;

/* What pass 1 saw for -v and the summary's non-contiguous share. */
#define FSCK_STATS_DEPTHS	6	/* extent depths 0..4, 5: deeper */
struct fsck_stats {
	uint32_t frag_files;	/* data not in one physical run */
	uint32_t frag_dirs;
	uint32_t ind, dind, tind;	/* indirect maps using each level */
	uint32_t extent_files;
	uint32_t extent_depth[FSCK_STATS_DEPTHS];
	uint32_t fast_symlinks;
	uint32_t large_files;	/* regular files of 2 GiB or more */
	uint64_t bad_blocks;	/* listed in the bad blocks inode */
};

struct fsck_ctx {
	struct fsck_opts *opts;
	struct extkit_fs *fs;
	struct extkit_io *io;
	const char *device;	/* name used in messages: the label, once
				 * a superblock with one is read, else
				 * the target (fsck_name_by_label) */
	char label[17];		/* the label device points to */
	int readonly;
	int undo;		/* io is an undo log over the target (-z) */
	int one_thread;		/* EXTKIT_FSCK_NO_THREADS: no reader threads
				 * (pass 1's tables, pass 2's blocks) */
	int force_threads;	/* EXTKIT_FSCK_THREADS: them on any size */
	unsigned int flags;
	uint64_t open_writes;	/* io writes when fsck_open returned */
	int open_exit;		/* fsck_open refused: the exit code (0:
				 * FSCK_ERROR) */
	uint32_t now;		/* fsck's clock (EXTKIT_FAKE_TIME aware) */
	FILE *tty;		/* interactive answers */
	int yes_to_all;
	int pass;		/* current pass for progress */
	int bar_drawn;		/* -C 0: a progress bar is on the line */
	unsigned int bar_permille;	/* what it shows */

	/* pass 1 results */
	struct fsck_istate istate;	/* used, file type, empty, zero-link,
					 * dup: 4 bits per inode (istate.h) */
	struct fsck_count link_count;	/* i_links_count as found */
	struct fsck_count link_counted;	/* names found in pass 2/3 */
	struct extkit_bitmap inode_used;	/* bit ino - 1 */
	struct extkit_bitmap block_found;	/* bit blk - first_data */
	struct extkit_bitmap block_dup;		/* claimed more than once */
	struct fsck_dir *dirs;		/* sorted by ino */
	uint32_t dir_count;
	uint32_t dir_cap;
	uint64_t dup_blocks;
	struct fsck_ea_set ea;
	/*
	 * The inode pass 1 is checking, as its inode table chunk holds it:
	 * its bytes are the image's as long as the io's write count is
	 * still raw_writes (fsck_inode_raw_cached); raw NULL outside pass 1.
	 */
	struct {
		const uint8_t *raw;
		uint32_t ino;
		uint64_t raw_writes;
	} p1;
	/* ea_inode: references to each EA inode (entries naming it) */
	struct fsck_count ea_inode_refs;
	/* ea_inode: the inodes pass 1 found with EXT4_EA_INODE_FL */
	struct fsck_alloc_list ea_flagged;
	/* encrypted inodes and their policies (encrypt.c) */
	struct fsck_enc enc;

	/* pass 0: per group, the places (bit 0 block bitmap, 1 inode
	 * bitmap, 2 inode table) that were out of place; NULL when none */
	uint8_t *relocate;
#define FSCK_RELOC_ITABLE	0x4
/* the inode table moves with its contents (e2fsck's new_table_block):
 * its field keeps the old place, read (not claimed) by pass 1 */
#define FSCK_RELOC_KEEP_IT	0x8

	/* allocations by fsck itself (blocks, inodes) */
	struct fsck_alloc_list alloc_blocks;
	struct fsck_alloc_list alloc_inodes;
	/* inodes whose indirect blocks hold pass 1's fixes in memory */
	struct fsck_alloc_list ind_fix;
	/* bigalloc: block-mapped inodes pass 1E makes extent files */
	struct fsck_alloc_list to_extents;
	/* directories whose index pass 2 cleared on metadata_csum: their
	 * old index blocks have no leaf tail; rebuilt after the passes */
	struct fsck_alloc_list rehash_dirs;

	/* pass 3 */
	uint32_t lost_found;		/* 0 when none */
	int lost_found_err;		/* its creation failed (not retried) */
	/*
	 * Free-entry map of the directory entries were last added to
	 * (lost+found, as a rule), kept so that reconnecting N files walks
	 * it once, not N times. NULL when none; dropped by any other edit
	 * of that directory's blocks.
	 */
	struct extkit_dirspace *add_space;

	/* statistics for the summary line and -v (stats.c) */
	struct fsck_stats stats;

	/* scratch block buffer */
	uint8_t *blkbuf;
};

/* -t: where a span of the check started (rtrack.c). */
struct fsck_rtrack {
	double real, user, sys;
};

void fsck_rtrack_start(struct fsck_rtrack *t);
/* "[DESC: ]Memory used: Nk, time: real/user/sys" on stdout. */
void fsck_rtrack_print(const char *desc, const struct fsck_rtrack *t);
/* -E discard: after a run that left no error, the free blocks (as the
 * bitmaps on disk say) are discarded (discard.c). */
void fsck_discard_free(struct fsck_ctx *ctx);
/* -l/-L/-c: the bad blocks list (inode 1) updated from a file or from
 * badblocks(8) before pass 1 (bblist.c); 0, or -errno said. */
int fsck_update_bad_blocks(struct fsck_ctx *ctx);

typedef int (*fsck_pass_fn)(struct fsck_ctx *ctx);

int fsck_pass1(struct fsck_ctx *ctx);
int fsck_pass1b(struct fsck_ctx *ctx);
/* After pass 1B: the resize inode built anew when pass 1 found it bad
 * (its lists are written over the reserved GDT blocks, which files
 * sharing them have copied away by then, as e2fsck recreates it last). */
int fsck_pass1_resize(struct fsck_ctx *ctx);
/* Pass 1's fixes of indirect blocks, written once every owner is known:
 * at the end of pass 1 where the block is not shared (skip_shared), and
 * after pass 1B for the rest (fsck_pass1_ind_fixes). */
void fsck_apply_ind_fixes(struct fsck_ctx *ctx, int skip_shared);
int fsck_pass1_ind_fixes(struct fsck_ctx *ctx);
/* Pass 1E (extents_rebuild.c): on bigalloc, each block-mapped file pass 1
 * queued (fsck_queue_to_extents, bigalloc_queue.c, asked there: 1 when
 * queued) becomes an extent file. */
int fsck_pass1e(struct fsck_ctx *ctx);
int fsck_queue_to_extents(struct fsck_ctx *ctx, uint32_t ino,
			  const struct extkit_inode *inode);
int fsck_pass2(struct fsck_ctx *ctx);
int fsck_pass3(struct fsck_ctx *ctx);
int fsck_pass4(struct fsck_ctx *ctx);
int fsck_pass5(struct fsck_ctx *ctx);

/* Opens the image (through the undo log with -z), the filesystem, the
 * journal, and checks the superblock's fields (pass0.c). */
int fsck_open(struct fsck_ctx *ctx);
/* Opens the superblock -b names, or the primary, falling back to a
 * backup (open.c); ctx->fs then. */
int fsck_open_super(struct fsck_ctx *ctx);
/* Messages name the filesystem by its label once one is read (open.c). */
void fsck_name_by_label(struct fsck_ctx *ctx);
/* -z: ctx->io made an undo log over the target (undo.c); 0 or -errno,
 * said. */
int fsck_open_undo(struct fsck_ctx *ctx);
/* MMP: checked (-n) or started; on failure the filesystem is closed and
 * -EBUSY, -EFSCORRUPTED (refused, said) or an I/O error returned (mmp.c). */
int fsck_start_mmp(struct fsck_ctx *ctx);
/*
 * Feature bits no checker knows (features.c): said as e2fsck says it, the
 * exit code set in ctx->open_exit; -EXTKIT_EUNSUPP then, else 0. The raw
 * form looks at the primary superblock before it is opened. Bits with
 * which libext2fs opens the filesystem are refused only once the journal
 * is replayed (replayed: 1), as e2fsck refuses them.
 */
int fsck_refuse_unknown_features(struct fsck_ctx *ctx,
				 const struct extkit_super *sb, int replayed);
int fsck_refuse_unknown_raw(struct fsck_ctx *ctx);
/* Closes ctx->fs and opens it again (after a journal replay; open.c). */
int fsck_reopen(struct fsck_ctx *ctx);
/* Checks the journal and replays it when it needs recovery (journal.c). */
int fsck_journal(struct fsck_ctx *ctx);
/* The journal inode's map copied into the superblock when it is not. */
void fsck_journal_backup(struct fsck_ctx *ctx);
/* After the passes: a journal cleared in pass 0 is made anew, empty, of
 * mke2fs' default size, as e2fsck does (journal.c). */
void fsck_journal_recreate(struct fsck_ctx *ctx);
/* Whether the superblock's free counts are possible (reported if not;
 * pass0.c): a filesystem marked clean is skipped only then. */
int fsck_free_counts_possible(struct fsck_ctx *ctx);
/* Inode counts of sb that disagree, set from group 0's inode bitmap
 * (inode_counts.c): 1 when set (*which names the field the bitmap
 * backs), 0 when they agree, negative when undecidable. */
int fsck_pick_inode_counts(struct fsck_ctx *ctx, struct extkit_super *sb,
			   const char **which);
/* Repairs the unusable primary superblock of a filesystem without a
 * usable backup: inode counts, an impossible block count, the fields of
 * a one-group filesystem; all decided and asked before the one write
 * (super_rebuild.c). 0 when it was rewritten. */
int fsck_rebuild_super(struct fsck_ctx *ctx, const char *why);
/* Superblock fields e2fsck checks beyond validation: revision and
 * features, times in the future (super_check.c). */
void fsck_check_super_more(struct fsck_ctx *ctx);

/* A revision 0 superblock made revision 1 (super_check.c). */
void fsck_update_dynamic_rev(struct fsck_ctx *ctx);
/* Pass 1: inode ino has the extents flag and a valid extent header in
 * i_block, the feature is off: set it, asked first; 1 when set. */
int fsck_extent_feature(struct fsck_ctx *ctx, uint32_t ino,
			const struct extkit_inode *inode);
/* After pass 2: large files need the large_file feature. */
void fsck_check_large_file(struct fsck_ctx *ctx);
/* Pass 0: the descriptors' lazy-init marks (group_flags.c). */
void fsck_check_group_flags(struct fsck_ctx *ctx);
/* resize_inode against meta_bg and s_reserved_gdt_blocks: checked, as
 * e2fsck's check_resize_inode, only once the filesystem is not skipped
 * as clean. */
void fsck_check_resize_features(struct fsck_ctx *ctx);
/* Pass 2: whether the entry (pctx filled) naming ino, not seen in use by
 * pass 1, is to be kept for the restart: its inode was hidden by a lazy-init
 * mark (cleared, if the fix is taken) or a restart is due anyway. */
int fsck_uninit_ref(struct fsck_ctx *ctx, uint32_t ino,
		    struct problem_context *pctx);
/*
 * Deletes or truncates the members of the orphan inode list the kernel
 * left (orphan.c); with -n, or a list that cannot be trusted, only offers
 * to clear its head.
 */
void fsck_release_orphans(struct fsck_ctx *ctx);
/* Releases the inodes an orphan file names (orphan.c): 0, 1 when one
 * was refused or the release stopped, or -errno. */
int fsck_release_orphan_set(struct fsck_ctx *ctx, const uint32_t *inos,
			    uint32_t n);
/*
 * The orphan file (orphan_file.c): with orphan_present, before the clean
 * check, its entries are released and its blocks emptied; after the
 * passes, every block must be an empty one (magic, checksum) and
 * orphan_present clear.
 */
void fsck_orphan_file_release(struct fsck_ctx *ctx);
void fsck_orphan_file_check(struct fsck_ctx *ctx);

/*
 * After the passes and -D: recounts quota usage and checks (with -y
 * rewrites) the quota files (quota.c).
 */
void fsck_quota(struct fsck_ctx *ctx);
/* The quota inodes during the passes (quota_inodes.c). Before pass 1B:
 * a quota inode mapping shared blocks is emptied (asked), its blocks left
 * to their other owners. After pass 4: a cleared quota inode past the
 * reserved ones is counted in use, for fsck_quota to write anew. */
int fsck_quota_drop_shared(struct fsck_ctx *ctx,
			   struct fsck_alloc_list *given_up);
void fsck_quota_keep_inodes(struct fsck_ctx *ctx);

/* Progress line "pass current max device" on -C FD, or with -C 0 a bar
 * on the terminal (progress.c); the bar is wiped before a message. */
void fsck_progress(struct fsck_ctx *ctx, uint64_t cur, uint64_t max);
void fsck_progress_clear(struct fsck_ctx *ctx);

/* -v statistics (stats.c); fsck_note_order is in blockmap.c. */
void fsck_note_order(struct fsck_blk_result *res, uint64_t blk,
		     uint32_t count);
void fsck_stats_inode(struct fsck_ctx *ctx, const struct extkit_inode *inode,
		      const struct fsck_blk_result *res);
void fsck_stats_reserved(struct fsck_ctx *ctx, uint32_t ino,
			 const struct extkit_inode *inode,
			 const struct fsck_blk_result *res);
unsigned int fsck_stats_noncontig_permille(const struct fsck_ctx *ctx);
void fsck_stats_print(const struct fsck_ctx *ctx);

/* Helpers every pass uses: inline here, or in the file each names. */
/*
 * Whether the reader threads pay: a thread and its handoffs cost a few
 * milliseconds, which inode tables under 128 MiB (about 500,000 inodes of
 * 256 bytes) do not win back (bench/fsck.sh, 100k images: 41 ms without
 * them, 50 ms with). Never through an undo log (its reads are not the
 * threads').
 */
static inline int fsck_threads_pay(const struct fsck_ctx *ctx)
{
	const struct extkit_fs *fs = ctx->fs;

	if (ctx->undo || ctx->one_thread)
		return 0;
	return ctx->force_threads ||
	       (uint64_t)fs->g.group_count * fs->g.itable_blocks *
	       fs->g.block_size >= ((uint64_t)128 << 20);
}

static inline int fsck_fixing(const struct fsck_ctx *ctx)
{
	return !ctx->readonly;
}

static inline void fsck_mark_changed(struct fsck_ctx *ctx)
{
	ctx->flags |= FSCK_FL_CHANGED;
}

/* The superblock's writes and the primary's raw read (super_io.c). */
/* Writes the superblock (with every backup and the descriptors when all,
 * else the primary alone), flushes, and says so on a failure. */
int fsck_write_super(struct fsck_ctx *ctx, int all);
/* Before the filesystem is open: reads the primary superblock into raw
 * and decodes it into sb. */
int fsck_read_raw_primary(struct fsck_ctx *ctx, struct ext2_super_block *raw,
			  struct extkit_super *sb);
/* Before the filesystem is open: encodes sb over raw (the primary as
 * read), sets its checksum and writes it in place. */
int fsck_write_raw_primary(struct fsck_ctx *ctx, const struct extkit_super *sb,
			   struct ext2_super_block *raw);
/* The directory list ctx->dirs (dirlist.c): found by inode, or added
 * in order (pass 1 adds in inode order, later callers insert). */
struct fsck_dir *fsck_dir_find(struct fsck_ctx *ctx, uint32_t ino);
int fsck_dir_add(struct fsck_ctx *ctx, uint32_t ino);
/* Writes inode ino, unless -n; a failure is said (inode_io.c). */
int fsck_write_inode(struct fsck_ctx *ctx, uint32_t ino,
		     const struct extkit_inode *inode);
/* Reports pass 1 problem code about inode ino (%N = num, %b = its EA
 * block; inode_fix.c). */
int pass1_report(struct fsck_ctx *ctx, uint32_t code, uint32_t ino,
		 struct extkit_inode *inode, uint64_t num);
/* Marks an inode cleared: dtime set, no links, no flags (a reserved
 * one: no block map), not in use; written (inode_fix.c). */
void fsck_clear_inode(struct fsck_ctx *ctx, uint32_t ino,
		      struct extkit_inode *inode);
/* Appends v to the list; -ENOMEM (alloc_list.c). */
int fsck_alloc_push(struct fsck_alloc_list *l, uint64_t v);

/* The found and duplicate maps (blockmap.c). */
int fsck_block_test(struct fsck_ctx *ctx, uint64_t blk);
/* Claims count blocks from blk; returns how many were claimed already
 * (duplicates now), the first of them in *first_dup (if not NULL). */
uint64_t fsck_block_claim(struct fsck_ctx *ctx, uint64_t blk,
			  uint32_t count, uint64_t *first_dup);
void fsck_block_mark(struct fsck_ctx *ctx, uint64_t blk, uint32_t count);
void fsck_block_unmark(struct fsck_ctx *ctx, uint64_t blk, uint32_t count);
/* Unmarks a block its one remaining owner gives up, whatever pass 1
 * found of its sharing (pass 1B resolved it since). */
void fsck_block_unmark_owned(struct fsck_ctx *ctx, uint64_t blk);
/* Releases every block of inode from block_found (pass 4 deletes;
 * blocks.c). */
int fsck_release_blocks(struct fsck_ctx *ctx,
			const struct extkit_inode *inode);
/*
 * Checks and claims every block inode ino maps (pass 1): illegal block
 * numbers and garbage indirect blocks are reported and, when fixed,
 * cleared in place (the inode's i_block in *inode, indirect blocks on
 * disk). Resize inode: only its double indirect block is claimed.
 */
int fsck_scan_blocks(struct fsck_ctx *ctx, uint32_t ino,
		     struct extkit_inode *inode, struct fsck_blk_result *res);
/* Claims count blocks from blk for a scan: res counts them (nblocks) and
 * notes those already claimed (dups, first_dup). */
void fsck_claim_blocks(struct fsck_ctx *ctx, struct fsck_blk_result *res,
		       uint64_t blk, uint32_t count);
/*
 * Checks and claims the extent tree of inode ino (extents.c), repairing
 * it in place as fsck_scan_blocks() does for block maps; res->cleared
 * when the root is garbage and the inode is to be cleared.
 */
int fsck_scan_extent_tree(struct fsck_ctx *ctx, uint32_t ino,
			  struct extkit_inode *inode,
			  struct fsck_blk_result *res);
struct fsck_dups;
/*
 * Pass 1B for an extent tree (extclone.c): gives inode private copies
 * of the shared blocks it maps that another owner keeps (dups says
 * which), tree blocks included; the tree grows when the new extents do
 * not fit. Changed tree blocks are written; the caller writes the inode.
 */
int fsck_clone_extents(struct fsck_ctx *ctx, struct fsck_dups *dups,
		       uint32_t ino, struct extkit_inode *inode);
/*
 * Copies block from to block to for inode ino; a data block of a
 * directory gets its checksum seeded by ino (its new owner) with
 * metadata_csum (blockcopy.c).
 */
int fsck_copy_block(struct fsck_ctx *ctx, uint64_t from, uint64_t to,
		    uint32_t ino, const struct extkit_inode *inode, int data);
/*
 * Calls fn for every block of a block-mapped inode (level 0 data, 1..3
 * indirect); fn returns the block to use instead (itself to keep it, 0 on
 * failure). Indirect blocks are read after remapping, changed ones written
 * back; the caller writes the inode. -EXTKIT_EUNSUPP for extent trees.
 */
typedef uint64_t (*fsck_remap_fn)(struct fsck_ctx *ctx, uint64_t blk,
				  int level, void *arg);
int fsck_remap_blocks(struct fsck_ctx *ctx, struct extkit_inode *inode,
		      fsck_remap_fn fn, void *arg);
/*
 * The ownership map of the metadata (owners.c, lib/owners.h): place k of
 * group g (0 block bitmap, 1 inode bitmap, 2 inode table) against the
 * blocks its group may use and every other claim.
 */
#define FSCK_PLACES	3
struct extkit_owners;
struct extkit_claim;
uint64_t fsck_place_at(const struct extkit_fs *fs, uint32_t g, int k);
uint64_t fsck_place_len(const struct extkit_fs *fs, int k);
/* Whether blk..+len of kind k lies inside what group g may use. */
int fsck_place_in_range(const struct extkit_fs *fs, uint32_t g, int k,
			uint64_t blk);
/* The map of fs as its descriptors say (sorted); -ENOMEM. */
int fsck_owners_build(struct extkit_fs *fs, struct extkit_owners *o);
/* The claims other than itself that place k of group g overlaps (up to
 * max copied to out); how many in all. */
size_t fsck_place_conflicts(const struct extkit_owners *o,
			    const struct extkit_fs *fs, uint32_t g, int k,
			    struct extkit_claim *out, size_t max);
/* The first group with a bad place, why in buf; -1 when every place is
 * good, -2 without memory for the map. */
int64_t fsck_descs_bad(struct extkit_fs *fs, char *why, size_t size);
/*
 * Group places out of place with no backup descriptor (relocate.c): pass 0
 * predicts or marks them (0) for relocation; the end of pass 1 gives the
 * marked ones new zeroed blocks.
 */
int fsck_check_group_places(struct fsck_ctx *ctx);
int fsck_relocate_group_places(struct fsck_ctx *ctx);
/* Whether group 0's inode table holds no root directory while mkfs'
 * place for it holds one: its descriptor is garbage though it fits. */
int fsck_first_table_garbled(struct fsck_ctx *ctx);
/* Whether the inode table at blk reads as inodes: at least half of its
 * blocks hold only plausible ones (relocate.c). */
int fsck_looks_like_itable(struct fsck_ctx *ctx, uint64_t blk);
/* With no backup descriptors: whether a group's inode table, away from
 * mkfs' place, holds no inodes while mkfs' place does (why says which). */
int fsck_tables_garbled(struct fsck_ctx *ctx, const char **why);
/* Whether blk is group metadata: a superblock copy, descriptors, a bitmap
 * or an inode table (group_meta.c). */
int fsck_block_is_group_meta(const struct fsck_ctx *ctx, uint64_t blk);
/* Whether the indirect block blk holding buf is group metadata read as a
 * map (not a bitmap place holding a valid map: group_meta.c). */
int fsck_ind_is_group_meta(const struct fsck_ctx *ctx, uint64_t blk,
			   const uint8_t *buf);
/* Whether blk is group g's own superblock copy, descriptors, bitmaps or
 * inode table (reserved GDT blocks are not). */
int fsck_group_meta_has(const struct extkit_fs *fs, uint32_t g, uint64_t blk);
/*
 * Checks the resize inode (resize.c): rewrites a wrong map of the reserved
 * GDT blocks; clears an inode 7 that is no resize inode (and *inode),
 * which fsck_rebuild_resize_inode() builds anew at the end of pass 1.
 */
int fsck_check_resize_inode(struct fsck_ctx *ctx,
			    struct extkit_inode *inode);
int fsck_rebuild_resize_inode(struct fsck_ctx *ctx);
/* Whether inode 7 is a valid resize inode in use, the layout of which
 * fixes its i_blocks (pass 1 checks it then). */
int fsck_resize_inode_countable(const struct fsck_ctx *ctx,
				const struct extkit_inode *inode);
/*
 * Extended attribute blocks (xattr.c). Pass 1: checks inode ino's
 * i_file_acl (feature, range, content; a bad block is cleared from the
 * inode) and claims a valid block once however many inodes share it;
 * *ea_blocks the blocks it counts for in i_blocks (the block and its
 * EA inodes' values; 0 when not counted); *ea_dup the block when this
 * inode's claim found it claimed already (data of another inode, group
 * metadata: pass 1B clones it), else 0. fsck_ea_refcounts
 * (end of pass 1) sets each block's h_refcount to the inodes naming it.
 * fsck_ea_release drops one inode's reference (a deleted inode); after
 * pass 1 it also lowers h_refcount on disk, and frees the block at 0.
 * An inline-data symlink's reference keeps the block in use but is not
 * in h_refcount: e2fsck's pass 1 never looks at such a symlink's blocks
 * (it skips check_blocks for it), so it counts the other namers only.
 */
/*
 * The attributes kept in inode ino (after i_extra_isize): validated,
 * the EA inodes they name checked and counted; *ea_blocks gets the
 * blocks of those EA inodes (they count in the inode's i_blocks). A bad
 * area is cleared on disk when the answer is yes: 1 then, else 0.
 */
int fsck_ea_check_ibody(struct fsck_ctx *ctx, uint32_t ino,
			uint64_t *ea_blocks);
/*
 * Reads inode ino's raw bytes (inode_size) into raw: from pass 1's inode
 * table chunk when it holds ino and nothing was written since it was
 * read (the same bytes, without a read), else from the image (inode_io.c).
 */
int fsck_inode_read_raw(struct fsck_ctx *ctx, uint32_t ino, uint8_t *raw);
/* Pass 1's chunk bytes of inode ino when they are current (as above),
 * else NULL; valid while that inode is checked and nothing is written. */
const uint8_t *fsck_inode_raw_cached(const struct fsck_ctx *ctx,
				     uint32_t ino);
/* Pass 4: an EA inode's stored reference count against the entries
 * found; 1 when ino is an EA inode something names (it is attached). */
int fsck_ea_inode_attached(struct fsck_ctx *ctx, uint32_t ino);
void fsck_ea_forget_ibody(struct fsck_ctx *ctx, uint32_t ino);
/*
 * Pass 1: the inline data flag and the system.data attribute of inode
 * ino (inline.c); 1 when the inode was cleared.
 */
/* Both the inline data and the extents flags; 1 if the inode was cleared. */
int fsck_inline_both_flags(struct fsck_ctx *ctx, uint32_t ino,
			   struct extkit_inode *inode, int *dirty);
int fsck_inline_check(struct fsck_ctx *ctx, uint32_t ino,
		      struct extkit_inode *inode, int *dirty);
/*
 * Pass 1, an inode with EXT4_ENCRYPT_FL (encrypt.c): without an
 * encryption context the flag goes (*inode changed, *dirty set); with a
 * corrupt one the inode is cleared (1); else it goes into ctx->enc with
 * its policy. 0, 1 or -ENOMEM.
 */
int fsck_enc_check_inode(struct fsck_ctx *ctx, uint32_t ino,
			 struct extkit_inode *inode, int *dirty);
/* i_size an inline directory must have (60 plus system.data), or 0. */
uint64_t fsck_inline_dir_size(struct fsck_ctx *ctx, uint32_t ino);
int fsck_ea_check_inode(struct fsck_ctx *ctx, uint32_t ino,
			struct extkit_inode *inode, int *dirty,
			uint64_t *ea_blocks, uint64_t *ea_dup);
int fsck_ea_refcounts(struct fsck_ctx *ctx);
/*
 * End of pass 1, before fsck_ea_refcounts: each EA inode reference
 * accepted before pass 1 checked that inode is checked again. When the
 * inode is now cleared or of another size, the owner's attributes go
 * (its i_blocks follows): an EA block naming it goes from every inode
 * naming that block, as if found bad when first read.
 */
int fsck_ea_recheck_ahead(struct fsck_ctx *ctx);
void fsck_ea_release(struct fsck_ctx *ctx,
		     const struct extkit_inode *inode);
void fsck_ea_free(struct fsck_ea_set *set);
/*
 * Pass 1B, an EA block claimed by something else as well (data, a map,
 * group metadata): fsck_ea_shared() gives the number of inodes naming
 * each such block to fn; fsck_ea_copy() copies block from to block to
 * (its checksum seeded by the new number) and moves the record, so
 * that every inode naming from is to name to: fsck_ea_moved_to() says
 * where a block went (0: nowhere).
 */
void fsck_ea_shared(struct fsck_ctx *ctx,
		    void (*fn)(struct fsck_ctx *ctx, uint64_t blk, void *arg),
		    void *arg);
int fsck_ea_copy(struct fsck_ctx *ctx, uint64_t from, uint64_t to);
uint64_t fsck_ea_moved_to(struct fsck_ctx *ctx, uint64_t blk);

/* Allocation from the maps pass 1 built (alloc.c: the backing of the
 * allocation interface over them). */
int fsck_new_block(struct fsck_ctx *ctx, uint64_t goal, uint64_t *blk);
/* count contiguous blocks, from goal on if possible; -ENOSPC if none. */
int fsck_new_run(struct fsck_ctx *ctx, uint64_t goal, uint32_t count,
		 uint64_t *blk);
int fsck_new_inode(struct fsck_ctx *ctx, uint32_t dir, int is_dir,
		   uint32_t *ino);
/* Takes inode ino itself (a new root). */
int fsck_take_inode(struct fsck_ctx *ctx, uint32_t ino, int is_dir);
/* Undo a take whose purpose failed before anything was written. */
void fsck_release_new_block(struct fsck_ctx *ctx, uint64_t blk);
void fsck_release_new_inode(struct fsck_ctx *ctx, uint32_t ino, int is_dir);
struct extkit_allocator;
void fsck_allocator(struct fsck_ctx *ctx, struct extkit_allocator *a);

/* lost+found (lost_found.c). */
int fsck_get_lost_found(struct fsck_ctx *ctx, int create);
/* Only looks: ctx->lost_found set when /lost+found is a usable directory;
 * nothing reported (pass 3 under -n, as e2fsck: a missing one is asked
 * about only when a file must go there). */
void fsck_find_lost_found(struct fsck_ctx *ctx);
int fsck_reconnect(struct fsck_ctx *ctx, uint32_t ino);

/* Directory edits (dir_edit.c). */
int fsck_add_entry(struct fsck_ctx *ctx, uint32_t dir, const char *name,
		   uint32_t name_len, uint32_t ino, uint8_t ftype);
/* Forgets the cached free-entry map (of dir, or of any directory when
 * dir is 0) after an edit that did not go through fsck_add_entry. */
void fsck_drop_add_space(struct fsck_ctx *ctx, uint32_t dir);
int fsck_make_dir(struct fsck_ctx *ctx, uint32_t parent, uint32_t ino,
		  uint16_t mode);
/* The parts of fsck_make_dir, for a maker that settles more between
 * them (lost+found's name): the block of new directory ino, near its
 * inode; then the directory written in it and recorded. */
int fsck_new_dir_block(struct fsck_ctx *ctx, uint32_t ino, uint64_t *blk);
int fsck_write_new_dir(struct fsck_ctx *ctx, uint32_t parent, uint32_t ino,
		       uint16_t mode, uint64_t blk);
/* Writes a fresh block of directory dir (i_generation gen): '.' and '..'
 * (parent non-zero) or one empty record, and the checksum tail. */
int fsck_dir_block_write(struct fsck_ctx *ctx, uint64_t blk, uint32_t dir,
			 uint32_t gen, uint32_t parent);
int fsck_set_dotdot(struct fsck_ctx *ctx, uint32_t dir, uint32_t parent);
/* Removes the first entry of dir naming ino (named name, when given). */
int fsck_unlink_entry(struct fsck_ctx *ctx, uint32_t dir, uint32_t ino,
		      const char *name);
/* Changes inode ino's i_links_count on disk and in link_count by adj. */
int fsck_adjust_links(struct fsck_ctx *ctx, uint32_t ino, int adj);

/* A directory's holes (dir_hole.c). */
/* Maps a new empty directory block at logical block lblk of dir. */
int fsck_dir_fill_hole(struct fsck_ctx *ctx, uint32_t dir, uint64_t lblk);
/* bigalloc: fills hole [start, end) of an extent directory from the
 * clusters of the extents around it; -EXTKIT_EUNSUPP when it needs more. */
int fsck_dir_fill_cluster_gap(struct fsck_ctx *ctx, uint32_t dir,
			      uint64_t start, uint64_t end);

/* Path of directory ino for messages ("???" parts when unknown). */
void fsck_dir_path(struct fsck_ctx *ctx, uint32_t ino, char *out,
		   size_t len);

static inline void fsck_count_link(struct fsck_ctx *ctx, uint32_t ino)
{
	fsck_count_set(&ctx->link_counted, ino,
		       fsck_count_get(&ctx->link_counted, ino) + 1);
}

static inline void fsck_uncount_link(struct fsck_ctx *ctx, uint32_t ino)
{
	uint32_t v = fsck_count_get(&ctx->link_counted, ino);

	if (v)
		fsck_count_set(&ctx->link_counted, ino, v - 1);
}

static inline uint8_t fsck_ftype(const struct fsck_ctx *ctx, uint32_t ino)
{
	return fsck_istate_ftype(&ctx->istate, ino);
}

static inline int fsck_inode_used(const struct fsck_ctx *ctx, uint32_t ino)
{
	return fsck_istate_used(&ctx->istate, ino);
}

#endif /* EXTKIT_FSCK_H */
