// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump logdump: the journal's log, as debugfs' logdump prints it:
 * from s_start, each block's sequence and type, each descriptor's tags
 * (the filesystem block each logged block goes to), each revoke block's
 * records, then the fast-commit area's tags. Options as debugfs': -a all
 * tags, -b BLOCK and -i PATH where a block or an inode's block is
 * logged, -c hex dumps, -O old transactions past the end, -n N of them,
 * -S the journal superblock first. The blocks are read and decoded by
 * lib/journal_log.c; the walk never leaves the log and ends after one
 * lap, whatever the blocks say.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_log.h"
#include "ondisk.h"
#include "super.h"
#include "cli/msg.h"
#include "cli/parse.h"

#include "dump.h"
#include "json.h"
#include "names.h"

#define NO_BLOCK	UINT64_MAX

struct logdump {
	struct dump_ctx *ctx;
	struct extkit_journal *j;
	uint32_t first, last;	/* the log: [first, last) */
	uint8_t *buf;		/* the header block */
	uint8_t *data;		/* a logged block */
	int all, contents, old, descriptors;
	int64_t max_counts;	/* -n, or -1 */
	int64_t counts;		/* commits seen */
	uint64_t block_to_dump;		/* -b, or NO_BLOCK */
	uint64_t bitmap_to_dump;	/* its group's block bitmap */
	uint64_t bit;			/* its bit there */
	uint64_t inode_block;		/* -i: the inode's block */
	uint32_t inode_to_dump, inode_off;
	uint32_t transaction;
	uint32_t blocknr;
	uint64_t walked;	/* log blocks stepped over */
	int wrapped;
	int no_magic_seen;
	const char *end_reason;	/* JSON: why the walk ended */
	uint32_t end_block;
	uint32_t end_found;
};

static int json_mode(const struct logdump *l)
{
	return l->ctx->o->json;
}

static struct json_writer *jw(struct logdump *l)
{
	return &l->ctx->jw;
}

static const char *type_name(uint32_t type)
{
	switch (type) {
	case JBD2_DESCRIPTOR_BLOCK:
		return "descriptor block";
	case JBD2_COMMIT_BLOCK:
		return "commit block";
	case JBD2_SUPERBLOCK_V1:
		return "V1 superblock";
	case JBD2_SUPERBLOCK_V2:
		return "V2 superblock";
	case JBD2_REVOKE_BLOCK:
		return "revoke table";
	}
	return "unrecognised type";
}

/* The next log block: past the last one the log wraps to its first. */
static uint32_t step(struct logdump *l, uint32_t b)
{
	l->walked++;
	if (++b >= l->last) {
		b = l->first;
		l->wrapped = 1;
	}
	return b;
}

static int read_log(struct logdump *l, uint32_t b, uint8_t *buf)
{
	int rc = extkit_jlog_read(l->j, b, buf);

	if (rc)
		cli_error("%s: journal block %" PRIu32 ": %s",
			  l->ctx->o->target, b, rc == -EFSCORRUPTED ?
			  "past the journal's end" : extkit_strerror(rc));
	return rc;
}

/* ---- text: what debugfs prints of a logged block ---- */

static void hexdump(const uint8_t *buf, uint32_t size)
{
	for (uint32_t i = 0; i < size; i += 16) {
		printf("    %04" PRIx32 ":  ", i);
		/* 32-bit words as a little-endian host prints them */
		for (uint32_t k = 0; k < 16; k += 4)
			printf("%08" PRIx32 " ", (uint32_t)buf[i + k] |
			       (uint32_t)buf[i + k + 1] << 8 |
			       (uint32_t)buf[i + k + 2] << 16 |
			       (uint32_t)buf[i + k + 3] << 24);
		for (uint32_t k = 0; k < 16; k++)
			putchar(buf[i + k] < ' ' || buf[i + k] >= 127 ? '.' :
				buf[i + k]);
		putchar('\n');
	}
}

static const char *mode_type(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "directory";
	case S_IFREG:
		return "regular";
	case S_IFLNK:
		return "symlink";
	case S_IFBLK:
		return "block special";
	case S_IFCHR:
		return "character special";
	case S_IFIFO:
		return "FIFO";
	case S_IFSOCK:
		return "socket";
	}
	return "bad type";
}

static void put_itime(const char *name, uint32_t t)
{
	printf("    %s: 0x%08" PRIx32 " -- ", name, t);
	dump_put_time((int32_t)t);
	putchar('\n');
}

/* debugfs' "Blocks:" line: runs of i_block's direct pointers, then the
 * indirect ones. */
static void iblock_text(const struct extkit_inode *in)
{
	static const char *const ind[3] = { "IND", "DIND", "TIND" };
	int start = -1;
	uint32_t first = 0, prev = 0;

	printf("    Blocks:  ");
	for (int i = 0; i <= EXT2_NDIR_BLOCKS; i++) {
		uint32_t b = i < EXT2_NDIR_BLOCKS ? in->block[i] : 0;

		if (i < EXT2_NDIR_BLOCKS && start >= 0 && b == prev + 1) {
			prev = b;
			continue;
		}
		if (start >= 0 && first)
			printf("(%d+%d): %" PRIu32 " ", start, i - start,
			       first);
		start = i;
		first = prev = b;
	}
	for (int i = 0; i < 3; i++)
		if (in->block[EXT2_NDIR_BLOCKS + i])
			printf("(%s): %" PRIu32 " ", ind[i],
			       in->block[EXT2_NDIR_BLOCKS + i]);
	putchar('\n');
}

/* The logged copy of the inode -i names, from the logged block. */
static void inode_text(struct logdump *l)
{
	uint32_t isz = l->ctx->fs->g.inode_size;
	struct extkit_inode in;

	printf("    (inode block for inode %" PRIu32 "):\n", l->inode_to_dump);
	if (l->inode_off + isz > l->j->blocksize)
		return;
	extkit_inode_decode(l->data + l->inode_off, isz, &in);
	printf("    Inode: %" PRIu32 "   Type: %s    Mode:  0%03o   Flags: "
	       "0x%" PRIx32 "\n", l->inode_to_dump, mode_type(in.mode),
	       in.mode & 07777, in.flags);
	printf("    Generation: %" PRIu32 "    Version: 0x%08" PRIx32 "\n",
	       in.generation, in.version);
	printf("    User: %5" PRIu32 "   Group: %5" PRIu32 "   Size: %" PRIu64
	       "\n", in.uid, in.gid, in.size);
	printf("    File ACL: %" PRIu64 "\n", in.file_acl);
	printf("    Links: %u   Blockcount: %" PRIu64 "\n", in.links_count,
	       in.blocks);
	put_itime("ctime", in.ctime);
	put_itime("atime", in.atime);
	put_itime("mtime", in.mtime);
	if (in.dtime)
		put_itime("dtime", in.dtime);
	iblock_text(&in);
}

static void bitmap_text(struct logdump *l)
{
	int set = extkit_bitmap_disk_count(l->data, l->bit, 1) != 0;

	printf("    (block bitmap for block %" PRIu64 ": block is %s)\n",
	       l->block_to_dump, set ? "SET" : "CLEAR");
}

/* A tag of a descriptor: fs block blk logged at journal block jblk. */
static void tag_text(struct logdump *l, const struct extkit_jlog_tag *t,
		     uint32_t jblk)
{
	int wanted = t->blk == l->block_to_dump ||
		     t->blk == l->bitmap_to_dump || t->blk == l->inode_block;

	if (!l->all && !wanted)
		return;
	printf("  FS block %" PRIu64 " logged at ", t->blk);
	if (!l->all)
		printf("sequence %" PRIu32 ", ", l->transaction);
	printf("journal block %" PRIu32 " (flags 0x%" PRIx32 ")\n", jblk,
	       t->flags);
	if (!(l->contents && l->all) && !wanted)
		return;
	if (read_log(l, jblk, l->data))
		return;
	if (t->blk == l->bitmap_to_dump)
		bitmap_text(l);
	if (t->blk == l->inode_block)
		inode_text(l);
	if (l->contents)
		hexdump(l->data, l->j->blocksize);
}

/* ---- JSON: every block of the log ---- */

static void tag_json(struct logdump *l, const struct extkit_jlog_tag *t,
		     uint32_t jblk)
{
	static const char *const flag[4] = {
		"escaped", "same_uuid", "deleted", "last_tag",
	};
	int ok = -1;

	/* a tag's checksum covers the logged block (csum v2/v3) */
	if ((l->j->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
			       JBD2_FEATURE_INCOMPAT_CSUM_V3)) &&
	    !extkit_jlog_read(l->j, jblk, l->data))
		ok = extkit_jlog_tag_csum_ok(l->j, t, l->data,
					     l->transaction);
	json_begin_object(jw(l), NULL);
	json_u64(jw(l), "fs_block", t->blk);
	json_u64(jw(l), "journal_block", jblk);
	json_u64(jw(l), "flags", t->flags);
	json_begin_array(jw(l), "flag_names");
	for (int i = 0; i < 4; i++)
		if (t->flags & (1u << i))
			json_string(jw(l), NULL, flag[i]);
	json_end_array(jw(l));
	if (ok < 0)
		json_null(jw(l), "checksum_valid");
	else
		json_bool(jw(l), "checksum_valid", ok);
	json_end_object(jw(l));
}

/* The fields every block of the log has in JSON. */
static void block_json_head(struct logdump *l, uint32_t type, uint32_t seq,
			    int csum_ok)
{
	json_u64(jw(l), "block", l->blocknr);
	json_u64(jw(l), "sequence", seq);
	json_u64(jw(l), "type", type);
	json_string(jw(l), "type_name", type_name(type));
	if (csum_ok < 0)
		json_null(jw(l), "checksum_valid");
	else
		json_bool(jw(l), "checksum_valid", csum_ok);
}

/* ---- the walk ---- */

/* A descriptor at l->blocknr: its tags, each naming the next log block;
 * the walk goes on past them. */
static void descriptor(struct logdump *l)
{
	struct extkit_jlog_tags it;
	struct extkit_jlog_tag t;
	uint32_t jblk;

	if (l->all && !json_mode(l))
		printf("Dumping descriptor block, sequence %" PRIu32 ", at "
		       "block %" PRIu32 ":\n", l->transaction, l->blocknr);
	if (json_mode(l))
		json_begin_array(jw(l), "tags");
	jblk = step(l, l->blocknr);
	extkit_jlog_tags_init(&it, l->j, l->buf);
	while (extkit_jlog_tags_next(&it, &t)) {
		if (json_mode(l))
			tag_json(l, &t, jblk);
		else
			tag_text(l, &t, jblk);
		jblk = step(l, jblk);
	}
	if (json_mode(l))
		json_end_array(jw(l));
	l->blocknr = jblk;
}

static void revoke(struct logdump *l)
{
	struct extkit_jlog_revokes it;
	uint64_t blk;

	extkit_jlog_revokes_init(&it, l->j, l->buf);
	if (json_mode(l)) {
		json_bool(jw(l), "revoke_count_valid",
			  extkit_jlog_revokes_fit(&it));
		json_begin_array(jw(l), "revoked");
		while (extkit_jlog_revokes_next(&it, &blk))
			json_u64(jw(l), NULL, blk);
		json_end_array(jw(l));
		return;
	}
	if (l->all)
		printf("Dumping revoke block, sequence %" PRIu32 ", at block %"
		       PRIu32 ":\n", l->transaction, l->blocknr);
	if (!extkit_jlog_revokes_fit(&it))
		printf("Revoke block's r_count invalid: %" PRIu32 "\n",
		       it.count);
	while (extkit_jlog_revokes_next(&it, &blk)) {
		if (!l->all && blk != l->block_to_dump)
			continue;
		printf("  Revoke FS block %" PRIu64, blk);
		if (l->all)
			putchar('\n');
		else
			printf(" at block %" PRIu32 ", sequence %" PRIu32 "\n",
			       l->blocknr, l->transaction);
	}
}

static void commit_json(struct logdump *l)
{
	struct extkit_jlog_commit c;

	extkit_jlog_commit_decode(l->buf, &c);
	dump_json_time(jw(l), "commit_time", (int64_t)c.sec, c.nsec, 1);
}

/* The checksum a log block of this type carries: 1 good, 0 bad, -1
 * none (no csum v2/v3, or a type without one). */
static int block_csum(struct logdump *l, uint32_t type)
{
	if (!(l->j->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
				JBD2_FEATURE_INCOMPAT_CSUM_V3)))
		return -1;
	if (type == JBD2_DESCRIPTOR_BLOCK || type == JBD2_REVOKE_BLOCK)
		return extkit_jlog_tail_ok(l->j, l->buf);
	if (type == JBD2_COMMIT_BLOCK)
		return extkit_jlog_commit_ok(l->j, l->buf);
	return -1;
}

/* One block of the log with a header: 0 to go on, 1 at its end. */
static int log_block(struct logdump *l, uint32_t type, uint32_t seq)
{
	int ok = block_csum(l, type);

	if (json_mode(l)) {
		json_begin_object(jw(l), NULL);
		block_json_head(l, type, seq, ok);
	} else if (l->descriptors) {
		printf("Found expected sequence %" PRIu32 ", type %" PRIu32
		       " (%s) at block %" PRIu32 "\n", seq, type,
		       type_name(type), l->blocknr);
		if (ok == 0)
			printf("  (the block's checksum does not match)\n");
	}
	switch (type) {
	case JBD2_DESCRIPTOR_BLOCK:
		descriptor(l);
		break;
	case JBD2_COMMIT_BLOCK:
		if (json_mode(l))
			commit_json(l);
		l->counts++;
		l->transaction++;
		l->blocknr = step(l, l->blocknr);
		break;
	case JBD2_REVOKE_BLOCK:
		revoke(l);
		l->blocknr = step(l, l->blocknr);
		break;
	default:
		if (!json_mode(l))
			printf("Unexpected block type %" PRIu32 " at block %"
			       PRIu32 ".\n", type, l->blocknr);
	}
	if (json_mode(l))
		json_end_object(jw(l));
	return type != JBD2_DESCRIPTOR_BLOCK && type != JBD2_COMMIT_BLOCK &&
	       type != JBD2_REVOKE_BLOCK;
}

/* Why the walk ended, for the JSON (written after the blocks). */
static void end_json(struct logdump *l, const char *why, uint32_t found)
{
	l->end_reason = why;
	l->end_block = l->blocknr;
	l->end_found = found;
}

static void end_json_write(struct logdump *l)
{
	if (!l->end_reason) {
		json_null(jw(l), "end");
		return;
	}
	json_begin_object(jw(l), "end");
	json_u64(jw(l), "block", l->end_block);
	json_string(jw(l), "reason", l->end_reason);
	if (!strcmp(l->end_reason, "sequence"))
		json_u64(jw(l), "found_sequence", l->end_found);
	else
		json_null(jw(l), "found_sequence");
	json_end_object(jw(l));
}

/* A block without the magic: the end, unless -O -n looks on. */
static int no_magic(struct logdump *l)
{
	if (!l->no_magic_seen && !json_mode(l))
		printf("No magic number at block %" PRIu32 ": end of "
		       "journal.\n", l->blocknr);
	l->no_magic_seen = 1;
	if (l->old && l->max_counts != -1) {
		l->blocknr = step(l, l->blocknr);
		return 0;
	}
	if (json_mode(l))
		end_json(l, "no_magic", 0);
	return 1;
}

/* Reads the block at l->blocknr; 0 to go on, 1 at the end of the walk. */
static int walk_one(struct logdump *l, uint32_t first_blk)
{
	uint64_t loglen = l->last - l->first;
	uint32_t type, seq;

	if (l->old && l->max_counts != -1 && l->counts >= l->max_counts) {
		if (json_mode(l))
			end_json(l, "count", 0);
		return 1;
	}
	if (l->blocknr == first_blk && l->old && l->wrapped) {
		if (json_mode(l))
			end_json(l, "wrapped", 0);
		else
			printf("Dump all %" PRId64 " journal records.\n",
			       l->counts);
		return 1;
	}
	/* a log whose blocks never end it: one lap, then stop */
	if (l->walked > loglen) {
		if (json_mode(l))
			end_json(l, "wrapped", 0);
		else
			printf("The walk went round the whole log at block %"
			       PRIu32 ": end of journal.\n", l->blocknr);
		return 1;
	}
	if (read_log(l, l->blocknr, l->buf)) {
		if (json_mode(l))
			end_json(l, "read_error", 0);
		return 1;
	}
	if (!extkit_jlog_header(l->buf, &type, &seq))
		return no_magic(l);
	if (seq != l->transaction) {
		if (!json_mode(l))
			printf("Found sequence %" PRIu32 " (not %" PRIu32
			       ") at block %" PRIu32 ": end of journal.\n",
			       seq, l->transaction, l->blocknr);
		if (!l->old) {
			if (json_mode(l))
				end_json(l, "sequence", seq);
			return 1;
		}
	}
	if (log_block(l, type, seq)) {
		if (json_mode(l))
			end_json(l, "type", 0);
		return 1;
	}
	return 0;
}

static void walk_log(struct logdump *l)
{
	uint32_t first_blk;

	l->transaction = l->j->sequence;
	l->blocknr = l->j->start;
	if (json_mode(l)) {
		json_u64(jw(l), "start", l->j->start);
		json_u64(jw(l), "sequence", l->j->sequence);
	} else {
		printf("Journal starts at block %" PRIu32 ", transaction %"
		       PRIu32 "\n", l->blocknr, l->transaction);
	}
	if (json_mode(l))
		json_begin_array(jw(l), "blocks");
	if (!l->blocknr && l->old)
		l->blocknr = l->first;
	if (l->blocknr && (l->blocknr < l->first || l->blocknr >= l->last)) {
		cli_error("%s: the log start %" PRIu32 " is outside the log "
			  "(blocks %" PRIu32 " to %" PRIu32 ")",
			  l->ctx->o->target, l->blocknr, l->first,
			  l->last - 1);
		l->blocknr = 0;
	}
	first_blk = l->blocknr;
	while (l->blocknr && !walk_one(l, first_blk))
		;
	if (json_mode(l)) {
		json_end_array(jw(l));
		end_json_write(l);
	}
}

/* ---- the fast-commit area ---- */

static const char *fc_tag_name(uint16_t tag)
{
	static const char *const names[] = {
		[EXT4_FC_TAG_ADD_RANGE] = "ADD_RANGE",
		[EXT4_FC_TAG_DEL_RANGE] = "DEL_RANGE",
		[EXT4_FC_TAG_CREAT] = "CREAT_DENTRY",
		[EXT4_FC_TAG_LINK] = "ADD_ENTRY",
		[EXT4_FC_TAG_UNLINK] = "DEL_ENTRY",
		[EXT4_FC_TAG_INODE] = "INODE",
		[EXT4_FC_TAG_PAD] = "PAD",
		[EXT4_FC_TAG_TAIL] = "TAIL",
		[EXT4_FC_TAG_HEAD] = "HEAD",
	};

	return dump_lookup_name(names, N_ELEM(names), tag, "ERROR");
}

static void fc_tag_text(const struct extkit_jlog_fc_tag *t)
{
	const char *name = fc_tag_name(t->tag);

	switch (t->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		printf("tag %s, inode %" PRIu32 ", lblk %" PRIu32 ", pblk %"
		       PRIu64 ", len %" PRIu32 "\n", name, t->ino, t->lblk,
		       t->pblk, t->count);
		break;
	case EXT4_FC_TAG_DEL_RANGE:
		printf("tag %s, inode %" PRIu32 ", lblk %" PRIu32 ", len %"
		       PRIu32 "\n", name, t->ino, t->lblk, t->count);
		break;
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
	case EXT4_FC_TAG_CREAT:
		printf("tag %s, parent %" PRIu32 ", ino %" PRIu32 ", name \"",
		       name, t->parent, t->ino);
		dump_put_name(t->name, t->name_len);
		printf("\"\n");
		break;
	case EXT4_FC_TAG_INODE:
		printf("tag %s, inode %" PRIu32 "\n", name, t->ino);
		break;
	case EXT4_FC_TAG_PAD:
		printf("tag %s\n", name);
		break;
	case EXT4_FC_TAG_TAIL:
		printf("tag %s, tid %" PRIu32 "\n", name, t->tid);
		break;
	case EXT4_FC_TAG_HEAD:
		printf("\n*** Fast Commit Area ***\n");
		printf("tag %s, features 0x%" PRIx32 ", tid %" PRIu32 "\n",
		       name, t->features, t->tid);
		break;
	}
}

static void fc_tag_json(struct logdump *l, uint32_t b, uint32_t off,
			const struct extkit_jlog_fc_tag *t)
{
	json_begin_object(jw(l), NULL);
	json_u64(jw(l), "block", b);
	json_u64(jw(l), "offset", off);
	json_u64(jw(l), "tag", t->tag);
	json_string(jw(l), "tag_name", fc_tag_name(t->tag));
	json_u64(jw(l), "length", t->len);
	json_bool(jw(l), "length_valid", t->len_ok);
	json_u64(jw(l), "inode", t->ino);
	json_u64(jw(l), "parent", t->parent);
	json_u64(jw(l), "lblk", t->lblk);
	json_u64(jw(l), "pblk", t->pblk);
	json_u64(jw(l), "count", t->count);
	json_u64(jw(l), "tid", t->tid);
	json_u64(jw(l), "features", t->features);
	if (t->name) {
		json_bytes_name(jw(l), "name", t->name, t->name_len);
	} else {
		json_null(jw(l), "name");
		json_null(jw(l), "name_hex");
	}
	json_end_object(jw(l));
}

/* Whether a tag ends the area: an unknown one or one of a bad length
 * (debugfs stops after such a block), or, without -O, a head or tail of
 * an older transaction. */
static int fc_tag_ends(const struct logdump *l,
		       const struct extkit_jlog_fc_tag *t)
{
	if (!t->len_ok)
		return 1;
	if (t->tag == EXT4_FC_TAG_HEAD || t->tag == EXT4_FC_TAG_TAIL)
		return !l->old && t->tid < l->transaction;
	return 0;
}

/* One block of the area: 1 when the area ends there. */
static int fc_block(struct logdump *l, uint32_t b)
{
	struct extkit_jlog_fc_tag t;
	uint32_t off = 0, at;
	int rc;

	for (;;) {
		at = off;
		rc = extkit_jlog_fc_next(l->j, l->buf, &off, &t);
		if (rc <= 0)
			return rc < 0;
		if (json_mode(l))
			fc_tag_json(l, b, at, &t);
		else if (t.len_ok)
			fc_tag_text(&t);
		if (fc_tag_ends(l, &t))
			return 1;
	}
}

/* The fast-commit area after the log, when the journal has one. */
static void walk_fc(struct logdump *l)
{
	uint32_t len = l->j->maxlen < l->j->nblocks ? l->j->maxlen :
		       l->j->nblocks;

	if (json_mode(l))
		json_begin_array(jw(l), "fast_commit");
	if (l->j->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		for (uint32_t b = l->last + 1; b < len; b++) {
			if (read_log(l, b, l->buf) || fc_block(l, b))
				break;
		}
	}
	if (json_mode(l))
		json_end_array(jw(l));
}

/* ---- options and set-up ---- */

/* -b BLOCK: the block, and where its bit lives (its group's bitmap). */
static int set_block(struct logdump *l, const char *arg)
{
	const struct extkit_fs *fs = l->ctx->fs;
	uint64_t blk, rel, g;

	if (cli_parse_u64(arg, &blk)) {
		cli_error("logdump: bad block number - %s", arg);
		return -EINVAL;
	}
	l->block_to_dump = blk;
	if (blk < fs->sb.first_data_block || blk >= fs->sb.blocks_count)
		return 0;	/* no bitmap bit: still looked for */
	rel = (blk - fs->sb.first_data_block) / fs->g.cluster_ratio;
	g = rel / fs->sb.clusters_per_group;
	if (g >= fs->g.group_count)
		return 0;
	l->bitmap_to_dump = fs->groups[g].block_bitmap;
	l->bit = rel % fs->sb.clusters_per_group;
	return 0;
}

/* -i PATH: where the inode lies; said first, as debugfs does. */
static int set_inode(struct logdump *l, const char *arg)
{
	struct extkit_fs *fs = l->ctx->fs;
	uint64_t blk;
	uint32_t off;
	int rc = dump_resolve(l->ctx, arg, &l->inode_to_dump);

	if (rc < 0)
		return rc;
	rc = extkit_inode_locate(fs, l->inode_to_dump, &blk, &off);
	if (rc < 0) {
		cli_error_rc(arg, rc);
		return rc;
	}
	l->inode_block = blk;
	l->inode_off = off;
	printf("Inode %" PRIu32 " is at group %" PRIu32 ", block %" PRIu64
	       ", offset %" PRIu32 "\n", l->inode_to_dump,
	       (l->inode_to_dump - 1) / fs->sb.inodes_per_group, blk, off);
	return 0;
}

static int set_options(struct logdump *l)
{
	const struct dump_opts *o = l->ctx->o;
	uint64_t n;

	l->all = o->log.all;
	l->contents = o->log.contents;
	l->old = o->log.old;
	l->descriptors = !o->log.block && !o->log.inode;
	l->max_counts = -1;
	l->block_to_dump = l->bitmap_to_dump = l->inode_block = NO_BLOCK;
	if (o->json && (o->log.block || o->log.inode || o->log.contents ||
			o->log.super || o->log.all)) {
		cli_error("logdump: -a, -b, -c, -i and -S shape the text; the "
			  "JSON lists every block");
		return -EINVAL;
	}
	if (o->log.count) {
		if (cli_parse_u64(o->log.count, &n) || n > INT64_MAX) {
			cli_error("logdump: bad log counts number - %s",
				  o->log.count);
			return -EINVAL;
		}
		l->max_counts = (int64_t)n;
	}
	if (o->log.block && set_block(l, o->log.block))
		return -EINVAL;
	if (o->log.inode)
		return set_inode(l, o->log.inode);
	return 0;
}

/*
 * Loads the journal. A journal superblock without the magic, or of
 * another block size, is said as debugfs says it (the walk cannot go
 * on); anything else the journal's checks find is walked anyway, as
 * far as its log bounds make sense.
 */
static int load(struct logdump *l, enum extkit_journal_problem *problem)
{
	struct extkit_fs *fs = l->ctx->fs;
	const char *why = NULL;
	int rc;

	if (!fs->sb.journal_inum ||
	    !extkit_has_compat(&fs->sb, EXT3_FEATURE_COMPAT_HAS_JOURNAL)) {
		cli_error("%s: %s", l->ctx->o->target,
			  extkit_journal_is_external(fs) ? "the journal is on "
			  "another device (not read)" :
			  "filesystem has no journal");
		return -ENOENT;
	}
	rc = extkit_journal_load(fs, &l->j, problem, &why);
	if (rc < 0) {
		cli_error("%s: the journal: %s", l->ctx->o->target,
			  extkit_strerror(rc));
		return rc;
	}
	if (!l->j) {
		cli_error("%s: the journal cannot be read: %s",
			  l->ctx->o->target, why ? why : "?");
		return -EFSCORRUPTED;
	}
	if (why && *problem != EXTKIT_JOURNAL_BAD_MAGIC)
		cli_error("%s: warning: the journal: %s", l->ctx->o->target,
			  why);
	return 0;
}

/* Why the log cannot be walked (debugfs' words where it has them), or
 * NULL. */
static const char *unwalkable(struct logdump *l,
			      enum extkit_journal_problem problem, char *buf,
			      size_t size)
{
	if (problem == EXTKIT_JOURNAL_BAD_MAGIC)
		return "Journal superblock magic number invalid!";
	if (problem == EXTKIT_JOURNAL_UNSUPP_VERSION)
		return "Journal superblock version unknown.";
	if (l->j->blocksize != l->ctx->fs->g.block_size) {
		snprintf(buf, size, "Journal block size invalid: %" PRIu32
			 " (%" PRIu32 ")", l->j->blocksize,
			 l->ctx->fs->g.block_size);
		return buf;
	}
	if (extkit_jlog_bounds(l->j, &l->first, &l->last)) {
		snprintf(buf, size, "Journal log bounds invalid: first block %"
			 PRIu32 ", length %" PRIu32 ".", l->j->first,
			 l->j->maxlen);
		return buf;
	}
	return NULL;
}

static void run(struct logdump *l, enum extkit_journal_problem problem)
{
	char msg[128];
	const char *bad;

	if (l->ctx->o->log.super && problem != EXTKIT_JOURNAL_BAD_MAGIC &&
	    problem != EXTKIT_JOURNAL_UNSUPP_VERSION) {
		dump_journal_text(l->ctx->fs, l->j);
		putchar('\n');
	}
	bad = unwalkable(l, problem, msg, sizeof(msg));
	if (json_mode(l)) {
		json_begin_object(jw(l), NULL);
		if (bad)
			json_null(jw(l), "journal");
		else
			dump_journal_json(jw(l), l->ctx->fs, l->j);
		if (bad)
			json_string(jw(l), "error", bad);
		else
			json_null(jw(l), "error");
	} else if (bad) {
		printf("%s\n", bad);
	}
	if (!bad) {
		walk_log(l);
		walk_fc(l);
	} else if (json_mode(l)) {
		/* the same keys, empty */
		json_null(jw(l), "start");
		json_null(jw(l), "sequence");
		json_begin_array(jw(l), "blocks");
		json_end_array(jw(l));
		json_null(jw(l), "end");
		json_begin_array(jw(l), "fast_commit");
		json_end_array(jw(l));
	}
	if (json_mode(l))
		json_end_object(jw(l));
}

int dump_logdump(struct dump_ctx *ctx)
{
	struct logdump l = { .ctx = ctx };
	enum extkit_journal_problem problem = EXTKIT_JOURNAL_OK;
	int rc = set_options(&l);

	if (!rc)
		rc = load(&l, &problem);
	if (rc)
		goto out;
	l.buf = malloc(ctx->fs->g.block_size);
	l.data = malloc(ctx->fs->g.block_size);
	if (!l.buf || !l.data) {
		rc = -ENOMEM;
		cli_error("%s", extkit_strerror(rc));
		goto out;
	}
	run(&l, problem);
out:
	free(l.buf);
	free(l.data);
	extkit_journal_free(l.j);
	return rc;
}
