/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkfs -d: the pieces both sources share -- inodes (popinode.c, through
 * the inode table window of popitab.c), file data and block maps
 * (popdata.c), directories laid out in one go (popdir.c), hard link
 * counts (popmap.c), state and messages (popcore.c) --
 * and the two sources: a directory tree (populate.c, one directory at a
 * time, names sorted) and an archive (archive.c, libarchive, one
 * streaming pass, directories laid out at the end).
 */
#ifndef EXTKIT_MKFS_POPULATE_H
#define EXTKIT_MKFS_POPULATE_H

#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "dirbuild.h"
#include "fsbuild.h"
#include "inode.h"
#include "xattrbuild.h"

#include "mkfs.h"

/* A small open-addressing map from a pair of keys to an inode number. */
struct pop_map {
	uint64_t *k1;
	uint64_t *k2;
	uint32_t *val;
	uint64_t cap;
	uint64_t n;
};

int pop_map_get(const struct pop_map *m, uint64_t k1, uint64_t k2,
		uint32_t *val);
int pop_map_put(struct pop_map *m, uint64_t k1, uint64_t k2, uint32_t val);
void pop_map_free(struct pop_map *m);

/* What an entry of the source says of itself. */
struct pop_meta {
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	struct timespec atime;
	struct timespec mtime;
	struct timespec ctime;
	uint32_t rdev_major;
	uint32_t rdev_minor;
	uint64_t disk_bytes;	/* allocated in the source; 0: unknown */
	struct extkit_xattr_item *x;
	size_t nx;
};

/* A regular file's data being written (holes are never allocated). */
struct pop_file {
	uint64_t size;
	uint64_t nblocks;
	uint64_t *pblks;	/* 0: a hole */
	uint64_t run_next;	/* blocks taken but not yet used */
	uint64_t run_left;	/* (clusters on bigalloc) */
	uint64_t cl_lc;		/* bigalloc: the logical cluster mapped */
	uint64_t cl_pb;		/* last, at this physical cluster (0: none) */
	int no_holes;		/* blocks of zeros written too (EA inodes) */
};

#define POP_FDS		64

struct pop {
	const struct mkfs_opts *o;
	struct extkit_fs *fs;
	struct extkit_fsbuild fb;
	int extents;
	uint32_t ino_goal;
	uint64_t blk_goal;
	uint8_t *raw;		/* one inode */
	uint8_t *ea;		/* one EA block */
	uint8_t *itw;		/* a window of one group's inode table: */
	uint32_t itw_max;	/* blocks it can hold */
	uint32_t itw_g;		/* itw_n blocks of group itw_g's table */
	uint32_t itw_idx;	/* from block itw_idx */
	uint32_t itw_n;
	uint32_t itw_lo;	/* blocks [itw_lo, itw_hi) changed */
	uint32_t itw_hi;
	uint8_t *itb;		/* one table block outside the window */
	uint32_t itb_g;
	uint32_t itb_idx;
	int itb_ok;
	int itb_dirty;
	struct extkit_bitmap itab_done;	/* table blocks written */
	uint32_t ino_before;	/* the last inode in use before populate */
	uint8_t *buf;		/* data blocks going out, POP_BUF bytes: */
	uint64_t out_first;	/* out_n contiguous blocks from out_first */
	uint64_t out_n;
	uint8_t *rbuf;		/* blocks coming in, POP_BUF bytes */
	struct pop_map links;	/* inode -> names, for inodes with > 1 */
	struct pop_map srcino;	/* source (dev, ino) -> inode */
	char *path;		/* the entry being copied, for messages */
	size_t plen;
	char why[320];		/* a failure's own words, over the errno's */
	uint64_t total;		/* progress: entries (or archive bytes) */
	uint64_t done;
	int bar;
	int bar_shown;
	int cwd_fd;		/* the source directory made current */
	int fds[POP_FDS];	/* files copied, to close (populate.c) */
	int nfds;
	int no_reserve;		/* EXTKIT_MKFS_NO_DIR_RESERVE (benchmarks) */
	struct pop_reader *rd;	/* the source read ahead (popread.c) */
	struct pop_writer *wr;	/* file data's writer (popwrite.c), or NULL */
	uint64_t cached;	/* bytes written through the page cache */
	uint64_t direct_after;	/* POP_CACHED (tests: EXTKIT_TEST_DIRECT_AFTER) */
	uint64_t lpf_block;	/* mkfs's lost+found, until claimed */
	uint32_t lpf_blocks;
	size_t src_len;		/* the source's name, at the start of path */
};

#define POP_BUF		(1u << 20)
/* Data and inode table bytes written through the page cache before the
 * writer takes over (popwrite.c): below it the cache is as fast or
 * faster (20k one-block files, 80 MB: 0.27 s wall with O_DIRECT from
 * the start, 0.20 s without), above it the cache costs more and more
 * (1M files, 4 GB: 71 s against 18-23 s). */
#define POP_CACHED	(256ull << 20)
/* Whether the next write goes to the writer (O_DIRECT). */
int pop_direct_now(const struct pop *p);
/* An error already reported (with the path): say nothing more. */
#define POP_EREPORTED	ECANCELED
/* The attributes (with the inline data) do not fit: nothing written. */
#define POP_ENOFIT	EMSGSIZE

int pop_init(struct pop *p, const struct mkfs_opts *o, struct extkit_fs *fs,
	     const struct mkfs_layout *l);
void pop_fini(struct pop *p);
/* Raw inodes, through a window of the inode table (fresh: a new inode,
 * the window moves there) and one block beside it; put sets the
 * checksum; flush writes what changed. */
int pop_inode_get(struct pop *p, uint32_t ino, uint8_t *raw);
int pop_inode_put(struct pop *p, uint32_t ino, uint8_t *raw, int fresh);
int pop_inode_flush(struct pop *p);
/* Takes a new inode (near the last one). */
int pop_new_inode(struct pop *p, int is_dir, uint32_t *ino);
/* A run of n new inodes to come: from the next inode table block when
 * it does not fit in the current one. */
void pop_align_goal(struct pop *p, uint64_t n);
/* Writes inode ino from meta; in carries the map, size and flags. */
int pop_write_inode(struct pop *p, uint32_t ino, const struct pop_meta *m,
		    struct extkit_inode *in, uint16_t links);
/* The same with one more attribute (system.data), not from the source;
 * -POP_ENOFIT (nothing written) when the attributes do not fit. */
int pop_write_inode_x(struct pop *p, uint32_t ino, const struct pop_meta *m,
		      struct extkit_inode *in, uint16_t links,
		      const struct extkit_xattr_item *extra);
/* Whether m's attributes and extra would fit (1) or not (0); with
 * inode_only, all of them in the inode. */
int pop_xattrs_fit(struct pop *p, const struct pop_meta *m,
		   const struct extkit_xattr_item *extra, int inode_only);
/* Takes up to want blocks from goal on (the next blocks go after them). */
int pop_take_blocks(struct pop *p, uint64_t goal, uint64_t want,
		    uint64_t *start, uint64_t *got);
/* The same in whole clusters (blocks without bigalloc): *got clusters
 * from block *start. */
int pop_take_clusters(struct pop *p, uint64_t goal, uint64_t want,
		      uint64_t *start, uint64_t *got);
/*
 * Blocks for logical blocks 0 .. n-1 of a new map into pblks, near goal:
 * runs of contiguous blocks; on bigalloc whole clusters, block i at
 * offset i % ratio of its cluster, or with spread one block a cluster
 * (each at a cluster's start: tree blocks, attribute blocks).
 */
int pop_take_map(struct pop *p, uint64_t goal, uint64_t n, uint64_t *pblks,
		 int spread);
/* Builds and writes the map of nblocks blocks at pblks (0: a hole) into
 * in; total: the blocks it covers, data and map. */
int pop_build_map(struct pop *p, uint32_t ino, uint64_t nblocks,
		  const uint64_t *pblks, struct extkit_inode *in,
		  uint64_t *total);
/* Regular file data: begin, write (in increasing offsets), end. */
int pop_file_begin(struct pop *p, struct pop_file *f, uint64_t size);
int pop_file_write(struct pop *p, struct pop_file *f, uint64_t off,
		   const void *buf, size_t len);
int pop_file_end(struct pop *p, struct pop_file *f, uint32_t ino,
		 struct extkit_inode *in);
void pop_file_free(struct pop_file *f);
/* Writes the file data still gathered (runs of files go out at once). */
int pop_data_flush(struct pop *p);
/* A symbolic link: fast when the target fits in i_block. */
int pop_symlink(struct pop *p, uint32_t ino, const struct pop_meta *m,
		const char *target, size_t len);
/* A device, FIFO or socket. */
int pop_special(struct pop *p, uint32_t ino, const struct pop_meta *m);
/* Lays out directory ino (db: its entries, '.' and '..' set), writes
 * its blocks and map into the inode already written. */
int pop_dir_finish(struct pop *p, uint32_t ino, struct extkit_dirbuild *db);
/* Inode 11 copied from the source: mkfs's lost+found blocks go back. */
int pop_claim_lpf(struct pop *p);
/* One more name for inode ino (hard links). */
int pop_link_add(struct pop *p, uint32_t ino);
/* Writes the link counts of inodes with more than one name. */
int pop_links_write(struct pop *p);
/* Progress: one more entry copied; done of p->total copied (entries,
 * or bytes of an archive read). */
void pop_progress(struct pop *p);
void pop_progress_to(struct pop *p, uint64_t done);
/* Path buffer: push a name, pop back to a length. */
int pop_path_push(struct pop *p, const char *name, size_t len);
/* Why an entry could not be copied, for an error code. */
const char *pop_reason(int rc);
/* The error message for the entry being copied. */
void pop_error(const struct pop *p, const char *why);

/* popinline.c: inline_data and EA inodes. */
/* The empty system.data a directory starts with. */
extern const struct extkit_xattr_item pop_inline_item;
/* Whether inode ino may keep its data inline (inline_data; not the
 * root or lost+found, as mke2fs). */
int pop_inline_ok(const struct pop *p, uint32_t ino);
/* Whether regular file m (m->size bytes) goes inline with its
 * attributes; with inode_only (a symbolic link), all of them in the
 * inode. */
int pop_inline_fits(struct pop *p, const struct pop_meta *m, int inode_only);
/* Writes regular file ino inline: data holds its m->size bytes. */
int pop_inline_file(struct pop *p, uint32_t ino, const struct pop_meta *m,
		    const uint8_t *data);
/* Directory ino inline when db's entries fit (1, written), else its
 * empty system.data dropped (0: lay it out in blocks). */
int pop_inline_dir(struct pop *p, uint32_t ino, struct extkit_dirbuild *db,
		   uint16_t links);
/* Makes the EA inode of item it: sets its value_inum and value_hash. */
int pop_ea_inode(struct pop *p, struct extkit_xattr_item *it);

/* popxattr.c: the source's extended attributes of an entry. */
struct xlist {
	char *names;
	uint8_t *values;
	struct extkit_xattr_item *items;
	size_t n;
};

/* Where the attributes of an entry are read from: the file opened for
 * its data, else its name in the current directory (see enter). */
struct xsrc {
	int fd;
	const char *path;
};

int pop_read_xattrs(const struct xsrc *s, const char *shown,
		    struct xlist *x);
void pop_xlist_release(struct xlist *x);

/* popread.c: the children of a directory read ahead on reader threads,
 * one record each, in the order of the names (see popread.c). */
struct pop_rec {
	struct stat st;
	int stat_ok;		/* st is the entry's lstat */
	int opened;		/* a regular file opened: fd, unless closed */
	int fd;			/* kept open for the builder, or -1 */
	int no_xattrs;		/* the file has no extended attributes */
	int have_data;		/* data holds the file's st_size bytes */
	uint8_t *data;
	int ready;		/* filled, not yet given back (popread.c) */
};

struct pop_reader;
/* A reader thread, or NULL (no thread: the builder reads itself). */
struct pop_reader *pop_reader_new(void);
void pop_reader_free(struct pop_reader *rd);
/* Why the readers read with plain system calls (popring.c), or NULL:
 * through their rings. */
const char *pop_reader_no_ring(const struct pop_reader *rd);
/* Starts reading the children of dfd, db's names in order; they must
 * not move until pop_reader_end. */
void pop_reader_start(struct pop_reader *rd, int dfd,
		      const struct extkit_dirbuild *db);
/* The next child's record (waits for it); put gives it back, closing
 * the descriptor unless taken (set to -1). */
struct pop_rec *pop_reader_get(struct pop_reader *rd);
void pop_reader_put(struct pop_reader *rd, struct pop_rec *r);
/* Takes the descriptor of record r (-1: none) from the reader. */
int pop_reader_take_fd(struct pop_reader *rd, struct pop_rec *r);
/* Stops the job (records not used are dropped); the reader is idle. */
void pop_reader_end(struct pop_reader *rd);

/* popring.c: a reader thread's batched opens, reads and closes */
#define POP_RING_BATCH	32	/* files a batch */
struct pop_ring;
/* A ring, or NULL and why not (no liburing, refused, not wanted). */
struct pop_ring *pop_ring_new(const char **why);
void pop_ring_free(struct pop_ring *rg);
/* Opens names[i] (not the empty ones) as openat(dfd, names[i],
 * O_RDONLY | O_NOFOLLOW | O_NOATIME): fds[i], or -1 when not opened
 * (the caller tries with openat, to know why). -1: the ring cannot. */
int pop_ring_open(struct pop_ring *rg, int dfd,
		  char (*names)[EXT2_NAME_LEN + 1], int n, int *fds);
/* For each: pread(fd, buf, len, 0) unless len is 0, then close(fd);
 * got: what the read returned (-1: failed or unknown). The descriptors
 * are closed (or lost) whatever the outcome. -1: the ring cannot (no
 * descriptor touched). */
struct pop_ring_io {
	int fd;
	void *buf;
	size_t len;
	ssize_t got;
};
int pop_ring_read_close(struct pop_ring *rg, struct pop_ring_io *io, int n);

/* popwrite.c: file data written with O_DIRECT by a writer thread. */
struct pop_writer;
/* A writer for io's target, or NULL: the data then goes through io. */
struct pop_writer *pop_writer_new(struct extkit_io *io, uint32_t block_size);
/* A free buffer of POP_BUF bytes, page-aligned (waits for one). */
uint8_t *pop_writer_buf(struct pop_writer *w);
/* Queues bytes [from, from + len) of buf (block-aligned) to byte off of
 * the target; the buffer goes to the writer. Returns the first failure
 * of the writes before. */
int pop_writer_queue(struct pop_writer *w, uint8_t *buf, size_t from,
		     size_t len, uint64_t off);
/* Waits until everything queued is written: 0 or the first failure. */
int pop_writer_wait(struct pop_writer *w);
/* What the writer did: 0 nothing, 1 O_DIRECT writes, -1 O_DIRECT
 * refused (then plain writes). */
int pop_writer_direct(struct pop_writer *w);
/* Writes what is queued, stops the thread, frees its buffers. */
void pop_writer_free(struct pop_writer *w);

/* popdevtab.c: --device-table (devtable.h) while copying. The entry
 * being copied is p->path; its path in the new filesystem drops the
 * first src_len bytes. */
struct devtab_ent;
/* A name the table adds to a directory (not in the source), until its
 * inode is taken. */
#define POP_DT_NEW	UINT32_MAX
/* The table's mode and owner for the entry (the type must match). */
int pop_dt_meta(struct pop *p, struct pop_meta *m);
/* The same for inode ino, already written (e: the entry, or NULL for
 * the path being copied). */
int pop_dt_set_inode(struct pop *p, uint32_t ino, struct devtab_ent *e);
/* What a path the table adds is made of. */
void pop_dt_meta_new(const struct pop *p, const struct devtab_ent *e,
		     struct pop_meta *m);
int pop_dt_stat(struct pop *p, struct stat *st);
/* Adds to db (sorted by name; the directory being copied) the names the
 * table gives it and the source lacks (ino POP_DT_NEW); sorts again. */
int pop_dt_add_names(struct pop *p, struct extkit_dirbuild *db);
/* Every path of the table was met or made; else an error naming it. */
int pop_dt_check_used(struct pop *p);

/* poplabel.c: --file-contexts. The entry being copied (p->path, as for
 * the device table) gets its label: lb holds the items m points to then,
 * until pop_label_free. */
struct pop_label {
	struct extkit_xattr_item *items;
	char *ctx;
};
int pop_label(struct pop *p, struct pop_meta *m, struct pop_label *lb);
/* The same for img, the inode's path in the image (an archive's). */
int pop_label_at(struct pop *p, const char *img, struct pop_meta *m,
		 struct pop_label *lb);
void pop_label_free(struct pop *p, struct pop_label *lb);
/* mkfs's lost+found, when the source has none. */
int pop_label_lpf(struct pop *p);

/* archive.c (source NULL: no archive, the device table alone) */
int pop_archive(struct pop *p, const char *source);

/* populate.c: the entry point mkfs_write calls (before the superblock). */
int mkfs_populate(const struct mkfs_opts *o, const struct mkfs_layout *l,
		  struct extkit_fs *fs);

#endif /* EXTKIT_MKFS_POPULATE_H */
