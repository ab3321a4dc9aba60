/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fit's measure of a source (fit.c): what the tree needs for each
 * block size and inode size, gathered by one walk of a directory
 * (fitdir.c) or one read of an archive (fitarc.c), then set against
 * each trial size's layout. Every count errs upward; what no size of a
 * block size can hold (a file past the block map's reach, attributes
 * past the inode and one block, a symbolic link past a block) makes that
 * block size impossible.
 */
#ifndef EXTKIT_MKFS_FIT_H
#define EXTKIT_MKFS_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "populate.h"

struct mkfs_opts;

#define FIT_NBS		7	/* block sizes 1 KiB .. 64 KiB */
#define FIT_EXTRA_ISIZE	32u	/* i_extra_isize the inodes get */
#define FIT_NCS		20	/* bigalloc clusters of 1 KiB .. 512 MiB */
#define FIT_NIS		4	/* inode sizes 128 .. 1024 bytes */
#define FIT_CHUNK	1024u	/* blocks of zeros are seen per KiB */
#define FIT_WIN_CHUNKS	(POP_BUF / FIT_CHUNK + 2)
#define FIT_ALIGN	65536u	/* the largest block size */

struct fit_need {
	uint64_t inodes;
	uint64_t ext[FIT_NBS];		/* file blocks with extents */
	uint64_t ind[FIT_NBS];		/* ... with block maps */
	uint64_t dir[FIT_NBS];		/* directory blocks */
	/* attributes, by inode size class and block size, without and
	 * with ea_inode ([0], [1]: the features are known only later) */
	uint64_t ea[2][FIT_NIS][FIT_NBS];	/* attribute blocks */
	uint8_t ea_bad[2][FIT_NIS][FIT_NBS];	/* an entry's too big */
	uint64_t eai[FIT_NIS][FIT_NBS];		/* EA inodes' blocks */
	uint64_t eai_inodes[FIT_NIS][FIT_NBS];	/* ... and EA inodes */
	/* bigalloc: what takes whole clusters. The data clusters by
	 * cluster size (1 KiB << m), extent tree blocks, and the counts of
	 * directories and slow symbolic links (each may leave part of a
	 * cluster empty) */
	uint64_t data_cl[FIT_NCS];
	uint64_t ext_meta[FIT_NBS];
	uint64_t ndirs, nslow;
	uint64_t max_size;		/* the largest regular file */
	uint64_t max_link;		/* the longest symbolic link target */
	struct pop_map seen;		/* files with links, counted once */
	int deref;			/* -E hard_dereference: copies */
	const struct mkfs_opts *o;
	char path[8192];		/* the entry's path in the image */
	size_t plen;
	uint8_t *buf;			/* POP_BUF bytes of a file (fitdir.c) */
	uint8_t nz[FIT_WIN_CHUNKS];	/* its KiBs not all zeros */
};

/* The data runs of one regular file, per block size. */
struct fit_run {
	uint64_t start, end;		/* the run being extended */
	uint64_t nb, ne, ni;		/* data blocks, extents, indirects */
	uint64_t last[6];		/* indirect blocks counted, by kind */
	int open;
};

struct fit_file {
	struct fit_run r[FIT_NBS];
	uint64_t cl[FIT_NCS];		/* clusters of 1 KiB << m touched */
	uint64_t cl_end[FIT_NCS];	/* ... up to this one, counted */
};

/* One attribute as an entry would store it (name without its prefix). */
struct fit_attr {
	uint8_t index;
	uint8_t name_len;
	const char *name;
	uint32_t size;
};

void fit_file_begin(struct fit_file *f);
/* Data blocks [b0, b1) of block size 1024 << i, in increasing order
 * (blocks already counted are not counted again). */
void fit_file_blocks(struct fit_file *f, int i, uint64_t b0, uint64_t b1);
/* Data bytes [data, hole), for every block size. */
void fit_file_bytes(struct fit_file *f, uint64_t data, uint64_t hole);
/*
 * Bytes [ws, we) of a file written in one go (one pop_file_write): the
 * blocks inside them that are all zeros stay holes, the others (and
 * those partly outside) hold data. nz[k]: KiB ws / 1024 + k is not all
 * zeros (fit_scan). The copy writes at most POP_BUF bytes at a time.
 */
void fit_file_window(struct fit_file *f, uint64_t ws, uint64_t we,
		     const uint8_t *nz);
/* Marks in nz (from KiB base) the KiBs of [off, off + len) not zero. */
void fit_scan(uint8_t *nz, uint64_t base, uint64_t off, const uint8_t *buf,
	      size_t len);
void fit_file_end(struct fit_need *nd, struct fit_file *f, uint64_t size);
/* An entry's attributes (sorted here, as the inode builder sorts them). */
void fit_add_attrs(struct fit_need *nd, struct fit_attr *a, size_t n);
/* --file-contexts: the label the copy gives nd->path (mode), as a[*n]
 * (room for one more; *ctx to free with fit_label_free), or none. */
int fit_label(struct fit_need *nd, uint32_t mode, struct fit_attr *a,
	      size_t *n, char **ctx);
void fit_label_free(struct fit_need *nd, char *ctx);
/* A directory whose entries take bytes (fit_name_bytes each, with '.'
 * and '..'). */
void fit_add_dir(struct fit_need *nd, uint64_t bytes);
void fit_add_symlink(struct fit_need *nd, uint64_t len);
uint64_t fit_name_bytes(size_t len);

/* fitdir.c: walks -d's directory into nd. */
int fit_measure_dir(const struct mkfs_opts *o, struct fit_need *nd);
/* fitarc.c: reads -d's archive once into nd (not standard input). */
int fit_measure_archive(const struct mkfs_opts *o, struct fit_need *nd);

#endif /* EXTKIT_MKFS_FIT_H */
