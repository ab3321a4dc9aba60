// SPDX-License-Identifier: GPL-2.0-or-later
/* A new orphan file (see orphan_new.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "endian.h"
#include "error.h"
#include "inode.h"
#include "io.h"
#include "mapbuild.h"
#include "orphan_file.h"
#include "orphan_new.h"

uint32_t extkit_orphan_default_blocks(uint64_t fs_blocks)
{
	if (fs_blocks < 128 * 1024)
		return 32;
	if (fs_blocks < 2 * 1024 * 1024)
		return (uint32_t)(fs_blocks / 4096);
	return EXTKIT_ORPHAN_MAX_BLOCKS;
}

struct oplan {
	struct extkit_mapbuild mb;
	uint64_t *data;		/* n data blocks */
	uint64_t *meta;		/* mb.nmeta tree blocks */
	uint64_t n;
};

/* Indirect blocks an appending walk allocates just before data block i
 * (at most 512 blocks: never the triple-indirect range). */
static unsigned meta_before(uint64_t i, uint64_t apb)
{
	uint64_t base2 = EXT2_NDIR_BLOCKS + apb;

	if (i == EXT2_NDIR_BLOCKS)
		return 1;
	if (i == base2)
		return 2;
	return i > base2 && (i - base2) % apb == 0;
}

/* A block map: data and indirect blocks in walk order, one search. */
static int place_block_map(struct extkit_fs *fs, struct oplan *op)
{
	uint64_t total = op->n + op->mb.nmeta, k = 0, m = 0;
	uint64_t *all = malloc(total * sizeof(*all));
	int rc = all ? 0 : -ENOMEM;

	if (!rc)
		rc = extkit_alloc_find(fs, fs->sb.first_data_block, total,
				       all);
	for (uint64_t i = 0; !rc && i < op->n; i++) {
		for (unsigned j = meta_before(i, fs->g.addr_per_block); j; j--)
			op->meta[m++] = all[k++];
		op->data[i] = all[k++];
	}
	if (!rc && m != op->mb.nmeta)
		rc = -EFSCORRUPTED;	/* the walk order disagrees */
	free(all);
	return rc;
}

/* Extents: the data first; tree blocks (more than four runs) after. */
static int place_extents(struct extkit_fs *fs, struct oplan *op)
{
	struct extkit_blk_run *skip;
	uint64_t nm;
	size_t ns = 0;
	int rc = extkit_alloc_find(fs, fs->sb.first_data_block, op->n,
				   op->data);

	if (rc)
		return rc;
	rc = extkit_mapbuild_plan(fs, &op->mb);
	nm = op->mb.nmeta;
	if (rc || !nm)
		return rc;
	op->meta = calloc(nm, sizeof(*op->meta));
	skip = malloc(op->n * sizeof(*skip));
	rc = op->meta && skip ? 0 : -ENOMEM;
	for (uint64_t i = 0; !rc && i < op->n; i++) {
		if (ns && skip[ns - 1].start + skip[ns - 1].len == op->data[i]) {
			skip[ns - 1].len++;
			continue;
		}
		skip[ns].start = op->data[i];
		skip[ns++].len = 1;
	}
	if (!rc)
		rc = extkit_alloc_find_skip(fs, op->data[op->n - 1], skip, ns,
					    nm, op->meta);
	free(skip);
	return rc;
}

static int plan(struct extkit_fs *fs, struct oplan *op)
{
	int rc;

	op->mb.extents = extkit_has_incompat(&fs->sb,
					     EXT4_FEATURE_INCOMPAT_EXTENTS);
	op->mb.nblocks = op->n;
	op->data = malloc(op->n * sizeof(*op->data));
	if (!op->data)
		return -ENOMEM;
	for (uint64_t i = 0; i < op->n; i++)	/* plan reads the numbers */
		op->data[i] = fs->sb.first_data_block + 1 + i;
	op->mb.pblks = op->data;
	if (op->mb.extents)
		return place_extents(fs, op);
	rc = extkit_mapbuild_plan(fs, &op->mb);
	if (!rc && op->mb.nmeta) {
		op->meta = calloc(op->mb.nmeta, sizeof(*op->meta));
		rc = op->meta ? 0 : -ENOMEM;
	}
	return rc ? rc : place_block_map(fs, op);
}

static void build_inode(const struct extkit_fs *fs, struct oplan *op,
			uint32_t now, struct extkit_inode *in)
{
	memset(in, 0, sizeof(*in));
	in->mode = S_IFREG | 0600;
	in->links_count = 1;
	in->atime = in->ctime = in->mtime = in->crtime = now;
	if (fs->g.inode_size > EXT2_GOOD_OLD_INODE_SIZE)
		in->extra_isize = 32;	/* as ext2fs_write_new_inode */
	in->size = op->n * fs->g.block_size;
	op->mb.meta = op->meta;
	extkit_mapbuild_fill(fs, &op->mb, in);
	/* bigalloc: data in whole clusters, a cluster per map block */
	extkit_inode_set_fs_blocks(fs, in,
				   ((op->n + fs->g.cluster_ratio - 1) &
				    ~(uint64_t)(fs->g.cluster_ratio - 1)) +
				   (uint64_t)op->mb.nmeta * fs->g.cluster_ratio);
}

/* Marks the blocks in use, a run of consecutive ones at a time. */
static int mark(struct extkit_fs *fs, const uint64_t *blk, uint64_t n)
{
	int rc = 0;

	for (uint64_t i = 0, j; !rc && i < n; i = j) {
		for (j = i + 1; j < n && blk[j] == blk[j - 1] + 1; j++)
			;
		rc = extkit_alloc_mark(fs, blk[i], j - i);
	}
	return rc;
}

static int write_blocks(struct extkit_fs *fs, uint32_t ino,
			const struct oplan *op)
{
	uint8_t *buf = malloc(fs->g.block_size);
	int rc = buf ? 0 : -ENOMEM;

	for (uint64_t i = 0; !rc && i < op->n; i++) {
		extkit_orphan_block_init(fs, ino, 0, op->data[i], buf);
		rc = extkit_io_write_blocks(fs->io, op->data[i], 1, buf);
	}
	free(buf);
	return rc;
}

int extkit_orphan_file_create(struct extkit_fs *fs, uint32_t ino,
			      uint32_t nblocks, uint32_t now)
{
	struct oplan op;
	struct extkit_inode in;
	int rc;

	if (!nblocks || nblocks > EXTKIT_ORPHAN_MAX_BLOCKS)
		return -EINVAL;
	memset(&op, 0, sizeof(op));
	op.n = nblocks;
	rc = plan(fs, &op);
	if (!rc) {
		op.mb.bufs = calloc(op.mb.nmeta + 1, fs->g.block_size);
		rc = op.mb.bufs ? 0 : -ENOMEM;
	}
	if (!rc) {
		build_inode(fs, &op, now, &in);
		rc = mark(fs, op.data, op.n);
	}
	if (!rc)
		rc = mark(fs, op.meta, op.mb.nmeta);
	if (!rc)
		rc = extkit_mapbuild_write(fs, ino, 0, &op.mb);
	if (!rc)
		rc = write_blocks(fs, ino, &op);
	if (!rc)
		rc = extkit_inode_write(fs, ino, &in);
	if (!rc) {
		/* the encoder keeps the raw field: set both */
		fs->sb.orphan_file_inum = ino;
		fs->raw_sb.s_orphan_file_inum = cpu_to_le32(ino);
		fs->sb.feature_compat |= EXT4_FEATURE_COMPAT_ORPHAN_FILE;
	}
	free(op.mb.bufs);
	free(op.data);
	free(op.meta);
	return rc;
}
