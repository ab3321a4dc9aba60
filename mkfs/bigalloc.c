// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bigalloc's options and geometry as mke2fs decides them: -C (or the
 * profile's cluster_size, else 16 blocks) gives s_log_cluster_size; a
 * group holds 8 x block size clusters (-g counts clusters); the bitmaps
 * and free counts are in clusters. The tables are placed a block at a
 * time, as mke2fs places them on its block-grained bitmap before
 * converting it (place.c), and every allocation after them takes whole
 * clusters.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "cli/msg.h"
#include "ondisk.h"

#include "mkfs.h"

/* mke2fs: more than EXT2_MIN_CLUSTER_SIZE, at most 2^29 bytes */
#define MIN_CLUSTER	1024u
#define MAX_CLUSTER	(1u << 29)

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int mkfs_parse_cluster_size(const char *s, struct mkfs_opts *o)
{
	uint64_t v;

	if (cli_parse_size(s, 1, &v) || !is_pow2(v) || v <= MIN_CLUSTER ||
	    v > MAX_CLUSTER) {
		cli_error("invalid cluster size '%s': a power of two from 2048 to %u",
			  s, MAX_CLUSTER);
		return -EINVAL;
	}
	o->cluster_size = (uint32_t)v;
	return 0;
}

int mkfs_bigalloc_resolve(struct mkfs_opts *o, const struct mkfs_conf *c,
			  const char *const *types)
{
	if (!(o->ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC)) {
		if (o->cluster_size) {
			cli_error("-C: a cluster size needs the bigalloc feature (-O bigalloc)");
			return -EINVAL;
		}
		return 0;
	}
	if (!(o->incompat & EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		cli_error("bigalloc needs the extent feature (-O extent)");
		return -EINVAL;
	}
	if (!o->cluster_size) {
		long v = mkfs_conf_get_int(c, types, "cluster_size", 0);

		if (v < 0 || v > (long)MAX_CLUSTER ||
		    (v && (!is_pow2((uint64_t)v) || v <= (long)MIN_CLUSTER))) {
			cli_error("invalid cluster_size %ld in mke2fs.conf", v);
			return -EINVAL;
		}
		o->cluster_size = (uint32_t)v;
	}
	return 0;
}

int mkfs_bigalloc_geometry(const struct mkfs_opts *o, struct mkfs_layout *l)
{
	uint32_t cs, bits = 0;

	l->cluster_bits = 0;
	if (!(o->ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC))
		return 0;
	cs = o->cluster_size ? o->cluster_size : 16 * l->block_size;
	if (cs < l->block_size) {
		cli_error("the cluster size %u may not be smaller than the block size %u",
			  cs, l->block_size);
		return -EINVAL;
	}
	while ((l->block_size << bits) < cs)
		bits++;
	if (bits > 16) {
		cli_error("the cluster size %u is more than 2^16 blocks of %u bytes",
			  cs, l->block_size);
		return -EINVAL;
	}
	l->cluster_bits = bits;
	if (!o->quiet && bits > 4)
		fprintf(stderr, "\nWarning: bigalloc file systems with a cluster size greater than\n16 times the block size is considered experimental\n");
	return 0;
}
