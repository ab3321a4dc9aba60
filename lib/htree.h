/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * htree (dir_index): the name hashes (legacy, half_md4, tea; signed or
 * unsigned, seeded by s_hash_seed), the index geometry (entries per root
 * and per node), building an index over hash-sorted leaf blocks, and
 * verifying an existing one.
 */
#ifndef EXTKIT_HTREE_H
#define EXTKIT_HTREE_H

#include <stdint.h>

#include "fs.h"
#include "ondisk.h"

/* The largest hash a name may have (0x7fffffff << 1 is the EOF mark). */
#define EXTKIT_HTREE_EOF	0xfffffffeu

/*
 * Hash of name under version (DX_HASH_*, unsigned variants 3..5) and seed
 * (4 words; all zero or NULL: the default seed). -EINVAL for an unknown
 * version (siphash needs casefolding, not supported).
 */
int extkit_dx_hash(unsigned int version, const uint32_t *seed,
		   const char *name, uint32_t len, uint32_t *hash,
		   uint32_t *minor);

/*
 * The version names of a directory are hashed with: root's version (0..2)
 * made unsigned (3..5) when s_flags says so.
 */
unsigned int extkit_htree_version(const struct extkit_fs *fs,
				  unsigned int root_version);
/*
 * Hash (and minor hash, when minor is not NULL) of name in a directory
 * of fs whose inode flags are dir_flags, under its root's version: the
 * filesystem's seed and signedness, the name folded first in a
 * casefolded directory (casefold.h; a name that does not fold is hashed
 * as it is, as the kernel does). Siphash (casefold with encrypt) is
 * keyed by the encryption key: -EINVAL, the entry stores its hash.
 */
int extkit_htree_hash(const struct extkit_fs *fs, uint32_t dir_flags,
		      unsigned int root_version, const char *name,
		      uint32_t len, uint32_t *hash, uint32_t *minor);

/* dx_entries in a root block and in an interior node. */
uint32_t extkit_htree_root_limit(const struct extkit_fs *fs);
uint32_t extkit_htree_node_limit(const struct extkit_fs *fs);

/*
 * Index blocks an htree over leaves leaf blocks needs below the root
 * (0 when the root alone indexes them) and its depth (indirect_levels).
 * -EFBIG when even the deepest allowed index cannot hold them.
 */
int extkit_htree_index_blocks(const struct extkit_fs *fs, uint64_t leaves,
			      uint64_t *nodes, uint32_t *levels);

/*
 * Building an index: the caller has laid out the leaves in logical blocks
 * first_leaf .. first_leaf + nleaves - 1 with hashes ascending;
 * start_hash[i] is the lowest hash of leaf i (bit 0 set when it continues
 * a run of equal hashes from leaf i - 1; start_hash[0] is ignored). The
 * builder writes the root (block 0, whose '.' and '..' inode numbers it
 * takes from dot/dotdot) and the node blocks into the buffers it is given:
 * root gets block 0, nodes[k] the node at logical block node_lblk + k.
 */
struct extkit_htree_layout {
	uint32_t dot_ino;
	uint32_t dotdot_ino;
	uint8_t hash_version;		/* as stored: 0..2 */
	uint64_t first_leaf;
	uint64_t nleaves;
	const uint32_t *start_hash;
	uint64_t node_lblk;
	uint64_t nnodes;
	uint32_t levels;
};

int extkit_htree_build(const struct extkit_fs *fs,
		       const struct extkit_htree_layout *lay, uint8_t *root,
		       uint8_t *nodes);

/* What extkit_htree_verify found. */
struct extkit_htree_report {
	uint32_t levels;
	uint64_t nodes;
	uint64_t leaves;
	uint64_t entries;	/* live entries in leaves */
	uint64_t bad_hash;	/* entries outside their leaf's hash range */
	uint64_t bad_index;	/* index entries out of their range, or
				 * naming no block or one twice */
	/* index blocks e2fsck clears on sight (PR_2_HTREE_BAD_LIMIT,
	 * _BAD_COUNT, _HASH_ORDER): a wrong limit or count, entries out of
	 * hash order within the block */
	uint64_t bad_node;
	/* names with no agreed hash (extkit_casefold_name_unhashable) and
	 * no hashable name before them in their leaf */
	uint64_t unhashable;
	uint8_t hash_version;	/* as the root stores it */
};

/* Whether a root may store hash version v (legacy, half_md4, tea or
 * siphash: the kernel refuses any other). */
static inline int extkit_htree_version_known(unsigned int v)
{
	return v == DX_HASH_LEGACY || v == DX_HASH_HALF_MD4 ||
	       v == DX_HASH_TEA || v == DX_HASH_SIPHASH;
}

/*
 * Checks directory ino's index: sorted index entries, leaves in range,
 * every entry's hash within the range the index assigns to its leaf.
 * 0 and a report (whose bad_* counts tell), -ENODATA for a directory
 * without an index, or a negative error.
 */
int extkit_htree_verify(struct extkit_fs *fs, uint32_t ino,
			struct extkit_htree_report *rep);

#endif /* EXTKIT_HTREE_H */
