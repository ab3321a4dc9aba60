/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Getting files out of an image: the data of one file as runs (xdata.c),
 * the extract command (extract_cmd.c), its tree walk (extract.c) and
 * its two sinks, a directory (xdisk.c) and a pax archive (xtar.c), and
 * cat/dump (cat.c).
 */
#ifndef EXTKIT_DUMP_EXTRACT_H
#define EXTKIT_DUMP_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"
#include "inode.h"

#include "dump.h"

/*
 * Called for each piece of data of a file, in increasing order of off,
 * never past i_size: len bytes at byte offset off, in buf (NULL when the
 * walk only maps: dump_data_map). Non-zero stops the walk with that
 * value.
 */
typedef int (*dump_data_fn)(void *arg, uint64_t off, const uint8_t *buf,
			    size_t len);

/*
 * The data of inode ino (in: decoded): inline data as one piece, mapped
 * blocks run by run; holes and unwritten extents are not visited. Reads
 * are bounded by what the map holds, whatever i_size claims. Returns 0,
 * fn's stop value, or a negative error (a corrupt map, a read).
 */
int dump_data_walk(struct extkit_fs *fs, uint32_t ino,
		   const struct extkit_inode *in, dump_data_fn fn, void *arg);
/* The same without reading: buf is NULL. */
int dump_data_map(struct extkit_fs *fs, uint32_t ino,
		  const struct extkit_inode *in, dump_data_fn fn, void *arg);

/*
 * Writes the file's data into fd at the same offsets (holes stay holes)
 * and sets its size; -EFBIG when the size cannot be set.
 */
int dump_data_to_fd(struct extkit_fs *fs, uint32_t ino,
		    const struct extkit_inode *in, int fd);

/* Exit status of extract when something reachable did not come out. */
#define DUMP_EXIT_PARTIAL	2

int dump_extract(struct dump_ctx *ctx);	/* extract_cmd.c */
int dump_cat(struct dump_ctx *ctx);	/* cat.c */
int dump_dump(struct dump_ctx *ctx);

#endif /* EXTKIT_DUMP_EXTRACT_H */
