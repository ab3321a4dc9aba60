/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the blocks of an htree as they are stored, for viewers
 * (extkit-dump htree): the root's dx_root_info, the count/limit pair,
 * the dx_entries and the dx_tail of a root or interior node, and the
 * hash of a leaf record (computed, or stored in the record in an
 * encrypted and casefolded directory). Nothing here judges the tree:
 * htree.c verifies it. Every read stays inside the block, whatever the
 * stored counts say.
 */
#ifndef EXTKIT_DXBLOCK_H
#define EXTKIT_DXBLOCK_H

#include <stdint.h>

#include "dir.h"
#include "fs.h"

/* The dx_root_info of block 0, as stored. */
struct extkit_dx_root_info {
	uint32_t reserved_zero;
	uint8_t hash_version;
	uint8_t info_length;
	uint8_t indirect_levels;
	uint8_t flags;		/* unused_flags */
};

/* The index part of a root or interior node. */
struct extkit_dx_index {
	const uint8_t *buf;
	uint32_t base;		/* offset of the count/limit pair */
	uint32_t count;		/* as stored */
	uint32_t limit;		/* as stored */
	uint32_t n;		/* entries readable: count, cut at the block
				 * end */
	/* metadata_csum and the limit leaves exactly a dx_tail after the
	 * limit's entries (the test debugfs makes) */
	int has_tail;
	uint32_t tail_csum;	/* dt_checksum as stored */
};

/*
 * Decodes the root (block 0 of an indexed directory): its info, and its
 * entries, which start info_length bytes after the info. -EFSCORRUPTED
 * when the count/limit pair would lie past the block.
 */
int extkit_dx_root_decode(const struct extkit_fs *fs, const uint8_t *buf,
			  struct extkit_dx_root_info *info,
			  struct extkit_dx_index *ix);
/* Decodes an interior node (count/limit at byte 8). */
void extkit_dx_node_decode(const struct extkit_fs *fs, const uint8_t *buf,
			   struct extkit_dx_index *ix);
/* Entry i (< ix->n): its hash (0 for entry 0, whose hash field holds
 * the count/limit pair) and the logical block it names. */
uint32_t extkit_dx_entry_hash(const struct extkit_dx_index *ix, uint32_t i);
uint32_t extkit_dx_entry_block(const struct extkit_dx_index *ix, uint32_t i);

/*
 * Whether the leaf records of a directory with inode flags dir_flags
 * carry their hash after the name (the kernel's ext4_hash_in_dirent:
 * an encrypted and casefolded directory, whose hash is keyed).
 */
int extkit_dx_hash_in_dirent(const struct extkit_fs *fs, uint32_t dir_flags);

/* One record of a leaf block, with its hash. */
struct extkit_dx_leaf_rec {
	uint32_t inode;
	uint32_t rec_len;
	uint32_t name_len;
	const char *name;	/* in the block, not NUL-terminated */
	int hashed;		/* hash and minor are known */
	uint32_t hash;
	uint32_t minor;
};

/*
 * Decodes the record at off of leaf block buf (already validated, its
 * decoded rec_len given) in a directory with inode flags dir_flags under
 * root version root_version. The hash is read from the record when the
 * directory stores it there, else computed from the name (htree.h);
 * hashed is 0 for a stored hash the record has no room for, or a
 * version with no known function (siphash without a stored hash).
 * Returns 0, or -ENOMEM.
 */
int extkit_dx_leaf_record(const struct extkit_fs *fs,
			  const struct extkit_dir_format *fmt,
			  uint32_t dir_flags, unsigned int root_version,
			  const uint8_t *buf, uint32_t off, uint32_t rec_len,
			  struct extkit_dx_leaf_rec *r);

#endif /* EXTKIT_DXBLOCK_H */
