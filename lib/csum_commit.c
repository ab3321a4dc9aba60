// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a checksum-rewrite plan all-or-nothing through the
 * filesystem's own journal, and finishing an interrupted one
 * (csum_rewrite.h has the order of the writes and why).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "csum_rewrite.h"
#include "endian.h"
#include "error.h"
#include "io.h"
#include "journal.h"
#include "journal_write.h"
#include "inode.h"
#include "walk.h"
#include "ondisk.h"

/* The plan block holding the primary superblock, or NULL. */
static const struct extkit_plan_block *
primary_block(const struct extkit_fs *fs, const struct extkit_csum_plan *p)
{
	uint64_t blk = EXT2_SUPERBLOCK_OFFSET / fs->g.block_size;

	for (uint64_t i = 0; i < p->n; i++)
		if (p->blocks[i].blk == blk)
			return &p->blocks[i];
	return NULL;
}

/* needs_recovery set or cleared in a raw superblock, checksum redone. */
static void set_recover(struct ext2_super_block *raw, int on)
{
	uint32_t f = le32(raw->s_feature_incompat);

	f = on ? f | EXT3_FEATURE_INCOMPAT_RECOVER
	       : f & ~(uint32_t)EXT3_FEATURE_INCOMPAT_RECOVER;
	raw->s_feature_incompat = cpu_to_le32(f);
	if (le32(raw->s_feature_ro_compat) &
	    EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		raw->s_checksum = cpu_to_le32(extkit_super_csum(raw));
}

/* The primary superblock on disk with needs_recovery set or cleared. */
static int mark_recover(struct extkit_fs *fs, int on)
{
	struct ext2_super_block raw;
	int rc = extkit_io_read_bytes(fs->io, EXT2_SUPERBLOCK_OFFSET, &raw,
				      sizeof(raw));

	if (rc)
		return rc;
	set_recover(&raw, on);
	rc = extkit_io_write_bytes(fs->io, EXT2_SUPERBLOCK_OFFSET, &raw,
				   sizeof(raw));
	return rc ? rc : extkit_io_flush(fs->io);
}

static int load_journal(struct extkit_fs *fs, struct extkit_journal **j,
			const char **why)
{
	enum extkit_journal_problem problem;
	const char *detail = NULL;
	int rc;

	*j = NULL;
	if (!extkit_has_compat(&fs->sb, EXT3_FEATURE_COMPAT_HAS_JOURNAL) ||
	    !fs->sb.journal_inum) {
		*why = "no internal journal to make the rewrite atomic "
		       "(use --keep-csum-seed, or add one: tune2fs -j)";
		return -ENOSPC;
	}
	rc = extkit_journal_load(fs, j, &problem, &detail);
	if (!rc && problem != EXTKIT_JOURNAL_OK) {
		extkit_journal_free(*j);
		*j = NULL;
		*why = "the journal is damaged: run extkit-fsck first";
		return -EFSCORRUPTED;
	}
	return rc;
}

/*
 * The blocks a replay needs to read with the superblock's seed: the
 * journal inode's inode table block and its extent tree blocks (e2fsck
 * refuses, and clears, a journal whose inode fails its checksum; its
 * superblock backup of the map cannot describe an extent tree to it).
 * They are written last, just before the primary superblock.
 */
struct crit {
	uint64_t blk[64];
	unsigned int n;
};

static int crit_fn(struct extkit_fs *fs, struct extkit_walk_ent *ent,
		   void *arg)
{
	struct crit *c = arg;

	(void)fs;
	if ((ent->flags & EXTKIT_WALK_META) &&
	    !(ent->flags & EXTKIT_WALK_LEAVE) && c->n < 64)
		c->blk[c->n++] = ent->pblk;
	return 0;
}

static int journal_blocks(struct extkit_fs *fs, struct crit *c)
{
	struct extkit_walk wk = { .ino = fs->sb.journal_inum,
				  .flags = EXTKIT_WALK_DRY, .fn = crit_fn,
				  .arg = c };
	struct extkit_inode in;
	uint32_t off;
	int rc;

	c->n = 1;
	rc = extkit_inode_locate(fs, fs->sb.journal_inum, &c->blk[0], &off);
	if (!rc)
		rc = extkit_inode_read(fs, fs->sb.journal_inum, &in);
	if (!rc && (in.flags & EXT4_EXTENTS_FL))
		rc = extkit_walk(fs, &in, &wk);
	return rc < 0 ? rc : 0;
}

static int is_crit(const struct crit *c, uint64_t blk)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (c->blk[i] == blk)
			return 1;
	return 0;
}

/* The in-place writes: the journal's own blocks then the primary
 * superblock (new UUID, still needs_recovery) last. */
static int checkpoint(struct extkit_fs *fs, const struct extkit_csum_plan *p,
		      const struct extkit_plan_block *primary,
		      const uint8_t *marked)
{
	struct crit c;
	int rc = journal_blocks(fs, &c);

	for (uint64_t i = 0; !rc && i < p->n; i++)
		if (&p->blocks[i] != primary && !is_crit(&c, p->blocks[i].blk))
			rc = extkit_fs_write_block(fs, p->blocks[i].blk,
						   p->blocks[i].data);
	if (!rc)
		rc = extkit_io_flush(fs->io);
	for (uint64_t i = 0; !rc && i < p->n; i++)
		if (&p->blocks[i] != primary && is_crit(&c, p->blocks[i].blk))
			rc = extkit_fs_write_block(fs, p->blocks[i].blk,
						   p->blocks[i].data);
	if (!rc)
		rc = extkit_fs_write_block(fs, primary->blk, marked);
	return rc ? rc : extkit_io_flush(fs->io);
}

static int commit(struct extkit_fs *fs, struct extkit_journal *j,
		  const struct extkit_csum_plan *p,
		  const struct extkit_plan_block *primary, uint8_t *marked)
{
	uint32_t tid = j->sequence;
	int rc;

	if ((rc = extkit_journal_write_transaction(j, p->blocks, p->n)) ||
	    (rc = extkit_io_flush(fs->io)) || (rc = mark_recover(fs, 1)))
		return rc;
	j->start = j->first;			/* the commit point */
	if ((rc = extkit_journal_write_super(j)) ||
	    (rc = extkit_io_flush(fs->io)))
		return rc;
	if ((rc = checkpoint(fs, p, primary, marked)))
		return rc;
	j->start = 0;
	j->sequence = tid + 1;
	if ((rc = extkit_journal_write_super(j)) ||
	    (rc = extkit_io_flush(fs->io)))
		return rc;
	rc = extkit_fs_write_block(fs, primary->blk, primary->data);
	return rc ? rc : extkit_io_flush(fs->io);
}

int extkit_csum_rewrite_commit(struct extkit_fs *fs,
			       const struct extkit_csum_plan *plan,
			       const char **why)
{
	const struct extkit_plan_block *primary = primary_block(fs, plan);
	size_t in = EXT2_SUPERBLOCK_OFFSET % fs->g.block_size;
	struct extkit_journal *j;
	uint8_t *marked;
	int rc;

	if (!primary)
		return -EINVAL;
	rc = load_journal(fs, &j, why);
	if (rc)
		return rc;
	if (j->start) {
		*why = "the journal is not empty: run extkit-fsck first";
		rc = -EFSCORRUPTED;
	} else if (!extkit_journal_transaction_blocks(j, plan->n)) {
		*why = "the journal's format cannot take the rewrite "
		       "(use --keep-csum-seed)";
		rc = -ENOSPC;
	} else if (extkit_journal_transaction_blocks(j, plan->n) >
		   (uint64_t)j->last - j->first) {
		*why = "the journal is too small to hold the rewrite in one "
		       "transaction (use --keep-csum-seed, or a larger "
		       "journal)";
		rc = -ENOSPC;
	}
	marked = rc ? NULL : malloc(fs->g.block_size);
	if (!rc && !marked)
		rc = -ENOMEM;
	if (!rc) {
		memcpy(marked, primary->data, fs->g.block_size);
		set_recover((struct ext2_super_block *)(marked + in), 1);
		rc = commit(fs, j, plan, primary, marked);
	}
	free(marked);
	extkit_journal_free(j);
	return rc;
}

/* Whether a transaction of n blocks can be written in a log of log. */
static int fits(const struct extkit_journal *j, uint64_t n, uint64_t log)
{
	uint64_t t = extkit_journal_transaction_blocks(j, n);

	return t && t <= log;
}

int extkit_csum_rewrite_room(struct extkit_fs *fs, uint64_t *blocks,
			     const char **why)
{
	struct extkit_journal *j;
	uint64_t log, n;
	int rc = load_journal(fs, &j, why);

	if (rc)
		return rc;
	log = j->last > j->first ? j->last - j->first : 0;
	/* the largest n whose transaction fits: down in steps of n / 64
	 * until one fits, then up one at a time over what they skipped */
	n = log;
	while (n && !fits(j, n, log))
		n = n > 64 ? n - n / 64 : n - 1;
	while (n && n < log && fits(j, n + 1, log))
		n++;
	if (!extkit_journal_transaction_blocks(j, 1)) {
		*why = "the journal's format cannot take the rewrite "
		       "(use --keep-csum-seed)";
		rc = -ENOSPC;
	}
	extkit_journal_free(j);
	*blocks = n;
	return rc;
}

int extkit_csum_rewrite_finish(struct extkit_fs **fs, int *replayed,
			       const char **why)
{
	struct extkit_journal_replay res;
	struct extkit_journal *j;
	int rc;

	*replayed = 0;
	if (!extkit_has_incompat(&(*fs)->sb, EXT3_FEATURE_INCOMPAT_RECOVER))
		return 0;
	rc = load_journal(*fs, &j, why);
	if (rc)
		return rc;
	memset(&res, 0, sizeof(res));
	rc = extkit_journal_recover(j, 0, &res);
	extkit_journal_free(j);
	if (!rc && (res.error || res.fast_commit)) {
		*why = "the journal cannot be replayed here: run extkit-fsck";
		return -EFSCORRUPTED;
	}
	if (!rc)
		rc = extkit_io_flush((*fs)->io);
	if (!rc)
		rc = mark_recover(*fs, 0);
	if (rc)
		return rc;
	*replayed = 1;
	extkit_fs_close(*fs);
	*fs = NULL;
	return 0;
}
