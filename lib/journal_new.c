// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A new, empty internal journal (see journal_new.h).
 *
 * Where mke2fs puts it (e2fsprogs lib/ext2fs/mkjournal.c, fallocate.c):
 *  - with extents, from the first block of the group near the middle of
 *    the filesystem holding the most free blocks (with flex_bg, from the
 *    first flex group at or below the middle one that has free blocks),
 *    the first free blocks at or after that goal; the extent leaf block,
 *    when the root's four slots are not enough, goes just before the data
 *    (the first free block at or after data start - 1);
 *  - with a block map, from the start of inode 8's (flex) group, so from
 *    the filesystem's start, each block the first free one after the
 *    previous, indirect blocks in the order a walk meets them.
 * With from_start (mke2fs -E packed_meta_blocks) the goal is the first
 * data block, extents or not.
 * The jbd2 superblock (journal.rst): v2, s_first 1, s_sequence 1, one
 * user, the filesystem's UUID; all big-endian.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "clock.h"
#include "csum.h"
#include "endian.h"
#include "error.h"
#include "extent.h"
#include "inode.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_new.h"
#include "mapbuild.h"
#include "ondisk.h"

uint32_t extkit_journal_default_blocks(uint64_t fs_blocks,
				       unsigned block_size)
{
	static const struct { uint64_t below; uint32_t blocks; } steps[] = {
		{ 2048, 0 },
		{ 32768, 1024 },
		{ 256 * 1024, 4096 },
		{ 512 * 1024, 8192 },
		{ 4096 * 1024, 16384 },
		{ 8192 * 1024, 32768 },
		{ 16384 * 1024, 65536 },
		{ 32768 * 1024, 131072 },
	};

	(void)block_size;	/* 1.47 counts blocks, not bytes */
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (fs_blocks < steps[i].below)
			return steps[i].blocks;
	return 262144;
}

/*
 * The plan: every block the journal takes, decided before writing. The
 * data as runs (a journal is a few runs of up to 2^18 blocks; an array
 * of a block number per block cost a third of a 1 TiB mkfs in page
 * faults); a block map also wants the blocks one by one.
 */
struct jplan {
	uint64_t n;		/* journal blocks (data) */
	struct extkit_blk_run *runs;	/* their physical blocks, logical */
	size_t nruns;			/* order, maximal runs */
	uint64_t *data;		/* block map only: block by block */
	uint64_t nmeta;		/* tree (extent or indirect) blocks */
	uint64_t *meta;
	struct extkit_mapbuild mb;
	struct extkit_inode inode;
	uint8_t *jsb;		/* the journal superblock block */
};

static uint32_t group_of(const struct extkit_fs *fs, uint64_t blk)
{
	return extkit_group_of_block(&fs->sb, blk);
}

/* mke2fs's goal with extents: a group near the middle (see the top). */
static uint64_t midpoint_goal(const struct extkit_fs *fs)
{
	uint32_t n = fs->g.group_count, flex = 1u << fs->sb.log_groups_per_flex;
	uint32_t g, start, end, best;

	g = group_of(fs, fs->sb.first_data_block +
		     (fs->sb.blocks_count - fs->sb.first_data_block) / 2);
	if (fs->sb.log_groups_per_flex && g > flex) {
		g &= ~(flex - 1);
		while (g < n && fs->groups[g].free_blocks == 0)
			g++;
		if (g == n)
			g = 0;
		start = g;
	} else {
		start = g ? g - 1 : g;
	}
	end = g + 1 < n ? g + 1 : g;
	best = start;
	for (uint32_t i = start + 1; i <= end; i++)
		if (fs->groups[i].free_blocks > fs->groups[best].free_blocks)
			best = i;
	return extkit_group_first_block(&fs->sb, best);
}

static int uses_extents(const struct extkit_fs *fs)
{
	return extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_EXTENTS);
}

static int cmp_run(const void *a, const void *b)
{
	const struct extkit_blk_run *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The runs of data blocks 0 .. n-1 (and of the extra block, when not 0),
 * sorted by start, for searches that must pass over them: blocks planned
 * but not yet marked. Freed by the caller.
 */
static struct extkit_blk_run *data_runs(const struct jplan *jp, uint64_t n,
					uint64_t extra, size_t *nruns)
{
	struct extkit_blk_run *r = malloc((jp->nruns + 1) * sizeof(*r));
	size_t k = 0;

	if (!r)
		return NULL;
	for (size_t i = 0; n && i < jp->nruns; i++) {
		r[k] = jp->runs[i];
		if (r[k].len > n)
			r[k].len = n;
		n -= r[k++].len;
	}
	if (extra) {
		r[k].start = extra;
		r[k++].len = 1;
	}
	qsort(r, k, sizeof(*r), cmp_run);
	*nruns = k;
	return r;
}

/* The maximal runs of blocks blk[0 .. n-1] into jp->runs. */
static int runs_of_blocks(struct jplan *jp, const uint64_t *blk, uint64_t n)
{
	size_t k = 0, cap = 1;

	for (uint64_t i = 1; i < n; i++)
		cap += blk[i] != blk[i - 1] + 1;
	jp->runs = malloc(cap * sizeof(*jp->runs));
	if (!jp->runs)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		if (k && jp->runs[k - 1].start + jp->runs[k - 1].len ==
			 blk[i]) {
			jp->runs[k - 1].len++;
			continue;
		}
		jp->runs[k].start = blk[i];
		jp->runs[k++].len = 1;
	}
	jp->nruns = k;
	return 0;
}

/*
 * Extent tree blocks: the first free blocks at or after data start - 1
 * that are not journal data.
 */
static int place_extent_meta(struct extkit_fs *fs, struct jplan *jp)
{
	size_t nr;
	struct extkit_blk_run *runs = data_runs(jp, jp->n, 0, &nr);
	int rc = runs ? 0 : -ENOMEM;

	if (!rc)
		rc = extkit_alloc_find_skip(fs, jp->runs[0].start - 1, runs,
					    nr, jp->nmeta, jp->meta);
	free(runs);
	return rc;
}

/* Indirect blocks a walk meets just before data block i (apb block
 * numbers per indirect block): at 12 the indirect block, at each new
 * double / triple indirect range its chain of blocks. */
static unsigned meta_before(uint64_t i, uint64_t apb)
{
	uint64_t base2 = EXT2_NDIR_BLOCKS + apb, base3 = base2 + apb * apb;

	if (i == EXT2_NDIR_BLOCKS)
		return 1;
	if (i == base2)
		return 2;
	if (i > base2 && i < base3)
		return (i - base2) % apb == 0;
	if (i == base3)
		return 3;
	if (i > base3) {
		if ((i - base3) % (apb * apb) == 0)
			return 2;
		return (i - base3) % apb == 0;
	}
	return 0;
}

/*
 * A block map: data and indirect blocks share one run, walk order. The
 * blocks are found into the data array, grown to hold both, and sorted
 * out in place (the read index never falls behind the write index).
 */
static int place_block_map(struct extkit_fs *fs, uint64_t goal,
			   struct jplan *jp)
{
	uint64_t apb = fs->g.addr_per_block, k = 0, m = 0;
	uint64_t *all;
	int rc;

	for (uint64_t i = 0; i < jp->n; i++)	/* plan reads the numbers */
		jp->data[i] = 1;
	rc = extkit_mapbuild_plan(fs, &jp->mb);
	if (rc)
		return rc;
	jp->nmeta = jp->mb.nmeta;
	jp->meta = calloc(jp->nmeta + 1, sizeof(*jp->meta));
	all = realloc(jp->data, (jp->n + jp->nmeta) * sizeof(*all));
	if (all)
		jp->data = all;
	jp->mb.pblks = jp->data;
	rc = jp->meta && all ? 0 : -ENOMEM;
	if (!rc)
		rc = extkit_alloc_find(fs, goal, jp->n + jp->nmeta, all);
	for (uint64_t i = 0; !rc && i < jp->n; i++) {
		for (unsigned j = meta_before(i, apb); j; j--)
			jp->meta[m++] = all[k++];
		jp->data[i] = all[k++];
	}
	if (!rc && m != jp->nmeta)
		rc = -EFSCORRUPTED;	/* the walk order disagrees */
	if (!rc)
		rc = runs_of_blocks(jp, jp->data, jp->n);
	return rc ? rc : extkit_mapbuild_plan(fs, &jp->mb);
}

/* Blocks in the first nruns extents (of at most 32768 contiguous
 * blocks) of the data. */
static uint64_t first_runs_len(const struct jplan *jp, unsigned nruns)
{
	uint64_t i = 0;

	for (size_t r = 0; r < jp->nruns && nruns; r++) {
		uint64_t len = jp->runs[r].len;

		for (; len && nruns; nruns--) {
			uint64_t e = len < 32768 ? len : 32768;

			i += e;
			len -= e;
		}
	}
	return i;
}

/* Keeps the first m data blocks of the plan. */
static void cut_runs(struct jplan *jp, uint64_t m)
{
	size_t r = 0;

	for (; r < jp->nruns && m; r++) {
		if (jp->runs[r].len > m)
			jp->runs[r].len = m;
		m -= jp->runs[r].len;
	}
	jp->nruns = r;
}

/* Appends runs more[0 .. n-1], the first joining the last when they
 * are contiguous (the runs stay maximal). */
static int append_runs(struct jplan *jp, const struct extkit_blk_run *more,
		       size_t n)
{
	struct extkit_blk_run *r = realloc(jp->runs, (jp->nruns + n + 1) *
					   sizeof(*r));

	if (!r)
		return -ENOMEM;
	jp->runs = r;
	r += jp->nruns;		/* just past the last run */
	if (n && jp->nruns && r[-1].start + r[-1].len == more[0].start) {
		r[-1].len += more[0].len;
		more++;
		n--;
	}
	memcpy(r, more, n * sizeof(*r));
	jp->nruns += n;
	return 0;
}

/* The last block of the plan's first m data blocks (m > 0). */
static uint64_t block_before(const struct jplan *jp, uint64_t m)
{
	size_t r = 0;

	while (m > jp->runs[r].len)
		m -= jp->runs[r++].len;
	return jp->runs[r].start + m - 1;
}

/*
 * One leaf block, placed as e2fsprogs' fallocate places it: the root is
 * split when the fifth extent goes in, its blocks already taken; the
 * leaf is the first free block at or after data start - 1 that is not
 * one of them, and the data after the fifth extent continues from the
 * first free block after it, the leaf (and the data before) skipped.
 */
static int place_one_leaf(struct extkit_fs *fs, struct jplan *jp)
{
	uint64_t m = first_runs_len(jp, EXTKIT_EXTENT_ROOT_MAX + 1);
	size_t nr;
	struct extkit_blk_run *runs = data_runs(jp, m, 0, &nr);
	int rc = runs ? 0 : -ENOMEM;

	struct extkit_blk_run *more = NULL;
	size_t nmore = 0;
	uint64_t after;

	if (!rc)
		rc = extkit_alloc_find_skip(fs, jp->runs[0].start - 1, runs,
					    nr, 1, jp->meta);
	free(runs);
	if (rc || m == jp->n)
		return rc;
	runs = data_runs(jp, m, jp->meta[0], &nr);
	rc = runs ? 0 : -ENOMEM;
	after = block_before(jp, m) + 1;
	if (!rc)
		rc = extkit_alloc_find_runs(fs, after, runs, nr, jp->n - m,
					    &more, &nmore);
	free(runs);
	cut_runs(jp, m);
	if (!rc)
		rc = append_runs(jp, more, nmore);
	free(more);
	jp->mb.runs = jp->runs;
	jp->mb.nruns = jp->nruns;
	return rc;
}

static int place_extents(struct extkit_fs *fs, uint64_t goal,
			 struct jplan *jp)
{
	int rc = extkit_alloc_find_runs(fs, goal, NULL, 0, jp->n, &jp->runs,
					&jp->nruns);

	jp->mb.runs = jp->runs;
	jp->mb.nruns = jp->nruns;
	if (!rc)
		rc = extkit_mapbuild_plan(fs, &jp->mb);
	if (rc)
		return rc;
	jp->nmeta = jp->mb.nmeta;
	jp->meta = calloc(jp->nmeta + 1, sizeof(*jp->meta));
	if (!jp->meta)
		return -ENOMEM;
	if (jp->nmeta != 1)
		return jp->nmeta ? place_extent_meta(fs, jp) : 0;
	rc = place_one_leaf(fs, jp);
	if (!rc)
		rc = extkit_mapbuild_plan(fs, &jp->mb);
	return rc || jp->mb.nmeta == 1 ? rc : -EFSCORRUPTED;
}

/* The jbd2 superblock (all fields big-endian). */
static void build_jsb(const struct extkit_fs *fs,
		      const struct extkit_journal_params *p, uint8_t *blk)
{
	struct jbd2_superblock *j = (struct jbd2_superblock *)blk;
	uint32_t incompat = 0;

	put_be32(&j->s_header.h_magic, JBD2_MAGIC_NUMBER);
	put_be32(&j->s_header.h_blocktype, JBD2_SUPERBLOCK_V2);
	put_be32(&j->s_blocksize, fs->g.block_size);
	put_be32(&j->s_maxlen, p->blocks);
	put_be32(&j->s_first, 1);
	put_be32(&j->s_sequence, 1);
	put_be32(&j->s_nr_users, 1);
	put_be32(&j->s_num_fc_blks, p->fc_blocks);
	memcpy(j->s_uuid, fs->sb.uuid, sizeof(j->s_uuid));
	if (!p->csum)
		return;
	if (extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_64BIT))
		incompat |= JBD2_FEATURE_INCOMPAT_64BIT;
	if (extkit_has_metadata_csum(&fs->sb)) {
		incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V3;
		j->s_checksum_type = JBD2_CRC32C_CHKSUM;
	}
	put_be32(&j->s_feature_incompat, incompat);
	/* s_checksum: crc32c(~0) over the 1024 bytes, the field zero */
	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		put_be32(&j->s_checksum, extkit_crc32c(~0u, j, sizeof(*j)));
}

static int build(struct extkit_fs *fs, const struct extkit_journal_params *p,
		 struct jplan *jp)
{
	struct extkit_inode *in = &jp->inode;
	uint32_t now = p->now;
	int rc = 0;

	if (!now)
		rc = extkit_clock_now(&now, NULL, &(const char *){ NULL });
	jp->mb.meta = jp->meta;
	jp->mb.bufs = calloc(jp->nmeta + 1, fs->g.block_size);
	jp->jsb = calloc(1, fs->g.block_size);
	if (rc || !jp->mb.bufs || !jp->jsb)
		return rc ? rc : -ENOMEM;
	memset(in, 0, sizeof(*in));
	in->mode = S_IFREG | 0600;
	in->links_count = 1;
	in->atime = in->ctime = in->mtime = in->crtime = now;
	if (fs->g.inode_size > EXT2_GOOD_OLD_INODE_SIZE)
		in->extra_isize = fs->sb.want_extra_isize;
	in->size = jp->n * fs->g.block_size;
	extkit_mapbuild_fill(fs, &jp->mb, in);
	/* bigalloc: data in whole clusters, a cluster per map block */
	extkit_inode_set_fs_blocks(fs, in,
				   ((jp->n + fs->g.cluster_ratio - 1) &
				    ~(uint64_t)(fs->g.cluster_ratio - 1)) +
				   (uint64_t)jp->nmeta * fs->g.cluster_ratio);
	build_jsb(fs, p, jp->jsb);
	return 0;
}

static int plan(struct extkit_fs *fs, const struct extkit_journal_params *p,
		struct jplan *jp)
{
	struct extkit_inode old;
	uint64_t goal;
	int rc;

	if (p->blocks < JBD2_MIN_JOURNAL_BLOCKS)
		return -EINVAL;
	rc = extkit_inode_read(fs, EXT2_JOURNAL_INO, &old);
	if (rc)
		return rc;
	if (old.blocks)
		return -EEXIST;
	jp->n = p->blocks;
	jp->mb.extents = uses_extents(fs);
	jp->mb.nblocks = jp->n;
	if (!jp->mb.extents) {
		jp->data = malloc(jp->n * sizeof(*jp->data));
		if (!jp->data)
			return -ENOMEM;
		jp->mb.pblks = jp->data;
	}
	goal = p->from_start ? fs->sb.first_data_block : p->goal;
	if (!goal && !p->from_start)
		goal = jp->mb.extents ? midpoint_goal(fs) :
		       fs->sb.first_data_block;
	rc = jp->mb.extents ? place_extents(fs, goal, jp) :
	     place_block_map(fs, goal, jp);
	return rc ? rc : build(fs, p, jp);
}

/* Marks blocks blk[0 .. n-1] in use, a run of consecutive ones at a
 * time (no copy, no sort). */
static int mark_blocks(struct extkit_fs *fs, const uint64_t *blk, uint64_t n)
{
	int rc = 0;

	for (uint64_t i = 0, len; !rc && i < n; i += len) {
		for (len = 1; i + len < n && blk[i + len] == blk[i] + len;
		     len++)
			;
		rc = extkit_alloc_mark(fs, blk[i], len);
	}
	return rc;
}

/* Marks every block of the plan in use. */
static int mark_all(struct extkit_fs *fs, const struct jplan *jp)
{
	int rc = 0;

	for (size_t r = 0; !rc && r < jp->nruns; r++)
		rc = extkit_alloc_mark(fs, jp->runs[r].start, jp->runs[r].len);
	return rc ? rc : mark_blocks(fs, jp->meta, jp->nmeta);
}

#define ZERO_CHUNK	(1u << 20)	/* bytes per plain write of zeroes */

/* Plain writes of zeroes over [off, off + len). */
static int write_zero_run(struct extkit_fs *fs, uint64_t off, uint64_t len,
			  const uint8_t *zeroes)
{
	int rc = 0;

	while (!rc && len) {
		size_t n = len < ZERO_CHUNK ? (size_t)len : ZERO_CHUNK;

		rc = extkit_io_write_bytes(fs->io, off, zeroes, n);
		off += n;
		len -= n;
	}
	return rc;
}

/* Zeroes over the log: every data block but the superblock, by runs. */
static int zero_log(struct extkit_fs *fs, const struct jplan *jp,
		    int write_zeroes)
{
	uint64_t bs = fs->g.block_size;
	uint8_t *zeroes = write_zeroes ? calloc(1, ZERO_CHUNK) : NULL;
	int rc = write_zeroes && !zeroes ? -ENOMEM : 0;

	for (size_t r = 0; !rc && r < jp->nruns; r++) {
		uint64_t start = jp->runs[r].start, len = jp->runs[r].len;

		if (!r) {	/* the journal superblock */
			start++;
			len--;
		}
		if (!len)
			continue;
		if (zeroes)
			rc = write_zero_run(fs, start * bs, len * bs, zeroes);
		else
			rc = extkit_io_zero_bytes(fs->io, start * bs, len * bs);
	}
	free(zeroes);
	return rc;
}

/* s_journal_inum, has_journal, and i_block and i_size kept in the
 * superblock (s_jnl_blocks[0..14], [15] i_size_high, [16] i_size). */
static void set_super(struct extkit_fs *fs, const struct jplan *jp)
{
	struct ext2_super_block *raw = &fs->raw_sb;

	fs->sb.journal_inum = EXT2_JOURNAL_INO;
	fs->sb.feature_compat |= EXT3_FEATURE_COMPAT_HAS_JOURNAL;
	if (jp->inode.size >= (1ULL << 31))
		fs->sb.feature_ro_compat |= EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	extkit_super_encode(&fs->sb, raw);
	extkit_journal_backup_store(fs, &jp->inode);
	memset(raw->s_journal_uuid, 0, sizeof(raw->s_journal_uuid));
	raw->s_journal_dev = 0;
	/* mke2fs 1.47 counts the journal's clusters in the overhead */
	if (raw->s_overhead_clusters)
		raw->s_overhead_clusters = cpu_to_le32(
			le32(raw->s_overhead_clusters) +
			(uint32_t)((jp->n + fs->g.cluster_ratio - 1) >>
				   fs->g.cluster_bits));
}

static int write_plan(struct extkit_fs *fs,
		      const struct extkit_journal_params *p,
		      const struct jplan *jp)
{
	int rc = mark_all(fs, jp);

	if (!rc)
		rc = extkit_mapbuild_write(fs, EXT2_JOURNAL_INO, 0, &jp->mb);
	if (!rc)
		rc = extkit_fs_write_block(fs, jp->runs[0].start, jp->jsb);
	if (!rc && p->zero_log)
		rc = zero_log(fs, jp, p->write_zeroes);
	if (!rc)
		rc = extkit_inode_write(fs, EXT2_JOURNAL_INO, &jp->inode);
	if (rc)
		return rc;
	set_super(fs, jp);
	return p->defer_super ? 0 : extkit_fs_write_super(fs);
}

int extkit_journal_create(struct extkit_fs *fs,
			  const struct extkit_journal_params *p)
{
	struct jplan jp;
	int rc;

	memset(&jp, 0, sizeof(jp));
	rc = plan(fs, p, &jp);
	if (!rc)
		rc = write_plan(fs, p, &jp);
	free(jp.runs);
	free(jp.data);
	free(jp.meta);
	free(jp.mb.bufs);
	free(jp.jsb);
	return rc;
}
