// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump htree PATH: the hash tree of an indexed directory, as
 * debugfs' htree_dump prints it: the root's info, then each index block
 * (count, limit, checksum, its entries), and under each entry the node
 * or leaf block it names, each leaf record with its hash. The blocks and
 * their fields come from lib/dxblock.c; the index is walked depth first
 * and never past the depth the kernel accepts, each index block once.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "dirblock.h"
#include "dxblock.h"
#include "error.h"
#include "fs.h"
#include "inode.h"
#include "ondisk.h"
#include "super.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"
#include "names.h"

#define LINE_WIDTH	80	/* leaf records wrap as debugfs wraps them */
#define NAME_SHOWN	(EXT2_NAME_LEN * 4 + 64)

struct htree_walk {
	struct dump_ctx *ctx;
	struct extkit_dir_iter *it;
	struct extkit_dir_format fmt;
	uint32_t ino;
	uint32_t gen;
	uint32_t dir_flags;
	uint8_t version;	/* the root's hash version */
	uint64_t nblocks;
	uint8_t *seen;		/* index blocks already shown */
	int fatal;		/* an error that ends the command (memory) */
};

static void note_rc(struct htree_walk *w, int rc)
{
	if (rc && !w->fatal)
		w->fatal = rc;
}

static int json_mode(const struct htree_walk *w)
{
	return w->ctx->o->json;
}

static struct json_writer *jw(struct htree_walk *w)
{
	return &w->ctx->jw;
}

/* Reads logical block lblk of the directory into buf; reports why not. */
static int read_lblk(struct htree_walk *w, uint64_t lblk, uint8_t *buf,
		     uint64_t *pblk)
{
	int rc;

	*pblk = lblk < w->nblocks ? extkit_dir_iter_pblk(w->it, lblk) : 0;
	if (!*pblk) {
		cli_error("%s: logical block %" PRIu64 " of the directory is "
			  "not mapped", w->ctx->o->args[0], lblk);
		return -ENOENT;
	}
	rc = extkit_fs_read_block(w->ctx->fs, *pblk, buf);
	if (rc) {
		cli_error("%s: reading block %" PRIu64 ": %s",
			  w->ctx->o->args[0], *pblk, extkit_strerror(rc));
	}
	return rc;
}

/* The checksum of a block: stored and computed, or none. */
static void json_csum(struct htree_walk *w, const uint8_t *buf, int has)
{
	uint32_t stored, want;

	if (!has || extkit_dirblock_csum_get(w->ctx->fs, w->ino, w->gen, buf,
					     &stored, &want)) {
		json_null(jw(w), "checksum");
		return;
	}
	json_begin_object(jw(w), "checksum");
	json_u64(jw(w), "stored", stored);
	json_u64(jw(w), "expected", want);
	json_bool(jw(w), "valid", stored == want);
	json_end_object(jw(w));
}

/* ---- leaves ---- */

/* One leaf record as text: debugfs' "INO 0xHASH-MINOR (REC_LEN) NAME". */
static void leaf_text(char *out, size_t size,
		      const struct extkit_dx_leaf_rec *r)
{
	size_t n;

	if (r->hashed)
		n = (size_t)snprintf(out, size, "%" PRIu32 " 0x%08" PRIx32
				     "-%08" PRIx32 " (%" PRIu32 ") ", r->inode,
				     r->hash, r->minor, r->rec_len);
	else
		n = (size_t)snprintf(out, size, "%" PRIu32 " ?-? (%" PRIu32
				     ") ", r->inode, r->rec_len);
	/* as ls shows names: UTF-8 and printable ASCII as they are,
	 * controls, backslashes and stray bytes as \\ooo */
	for (uint32_t i = 0; i < r->name_len && n + 8 < size;) {
		const unsigned char *p = (const unsigned char *)r->name + i;
		size_t k = *p >= 0x80 ?
			   json_utf8_seq_len(p, r->name_len - i) : 0;

		if (k) {
			memcpy(out + n, p, k);
			n += k;
			i += (uint32_t)k;
		} else if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
			n += (size_t)snprintf(out + n, size - n, "\\%03o", *p);
			i++;
		} else {
			out[n++] = (char)*p;
			i++;
		}
	}
	snprintf(out + n, size - n, "   ");
}

static void leaf_put(int *col, const char *s)
{
	int len = (int)strlen(s);

	if (*col + len > LINE_WIDTH) {
		putchar('\n');
		*col = 0;
	}
	fputs(s, stdout);
	*col += len;
}

static void leaf_record_json(struct htree_walk *w, uint32_t off,
			     const struct extkit_dx_leaf_rec *r)
{
	json_begin_object(jw(w), NULL);
	json_u64(jw(w), "offset", off);
	json_u64(jw(w), "inode", r->inode);
	json_u64(jw(w), "rec_len", r->rec_len);
	json_bytes_name(jw(w), "name", r->name, r->name_len);
	if (r->hashed) {
		json_u64(jw(w), "hash", r->hash);
		json_u64(jw(w), "minor_hash", r->minor);
	} else {
		json_null(jw(w), "hash");
		json_null(jw(w), "minor_hash");
	}
	json_end_object(jw(w));
}

static void leaf_tail_text(struct htree_walk *w, const uint8_t *buf,
			   int *col)
{
	char shown[64];
	uint32_t stored = 0, want;

	extkit_dirblock_csum_get(w->ctx->fs, w->ino, w->gen, buf, &stored,
				 &want);
	snprintf(shown, sizeof(shown), "leaf block checksum: 0x%08" PRIx32
		 "  ", stored);
	leaf_put(col, shown);
}

/* The records of a leaf block, each with its hash; the checksum tail
 * (metadata_csum) shows its stored value. */
static int leaf_records(struct htree_walk *w, uint64_t lblk,
			const uint8_t *buf, int *tail, int64_t *corrupt)
{
	struct extkit_dir_cursor c;
	struct extkit_dx_leaf_rec r;
	uint32_t bs = w->fmt.block_size;
	char shown[NAME_SHOWN];
	int col = 0, rc;

	*tail = 0;
	*corrupt = -1;
	extkit_dir_cursor_init(&c, &w->fmt, buf, 0, bs);
	while ((rc = extkit_dir_cursor_next(&c)) != 0) {
		if (rc < 0 && c.problem != EXTKIT_DIRENT_BAD_INODE) {
			*corrupt = c.off;
			if (!json_mode(w))
				printf("Corrupted directory block (%" PRIu64
				       ")!", lblk);
			break;
		}
		if (w->fmt.tail_len && c.off == bs - w->fmt.tail_len &&
		    extkit_dirent_is_tail(buf + c.off)) {
			*tail = 1;
			if (!json_mode(w))
				leaf_tail_text(w, buf, &col);
			continue;
		}
		rc = extkit_dx_leaf_record(w->ctx->fs, &w->fmt, w->dir_flags,
					   w->version, buf, c.off, c.rec_len,
					   &r);
		if (rc)
			return rc;
		if (json_mode(w)) {
			leaf_record_json(w, c.off, &r);
			continue;
		}
		leaf_text(shown, sizeof(shown), &r);
		leaf_put(&col, shown);
	}
	return 0;
}

static void dump_leaf(struct htree_walk *w, uint64_t lblk, uint8_t *buf)
{
	uint64_t pblk;
	int64_t corrupt = -1;
	int tail = 0, bad = read_lblk(w, lblk, buf, &pblk) != 0;

	if (json_mode(w) && bad) {
		json_string(jw(w), "error", pblk ? "block not readable" :
			    "block not mapped");
		return;
	}
	if (json_mode(w)) {
		json_begin_object(jw(w), "leaf");
		json_u64(jw(w), "lblk", lblk);
		json_u64(jw(w), "pblk", pblk);
		json_begin_array(jw(w), "entries");
		note_rc(w, leaf_records(w, lblk, buf, &tail, &corrupt));
		json_end_array(jw(w));
		if (corrupt >= 0)
			json_u64(jw(w), "corrupt_at", (uint64_t)corrupt);
		else
			json_null(jw(w), "corrupt_at");
		json_csum(w, buf, tail);
		json_end_object(jw(w));
		return;
	}
	if (bad)
		return;
	printf("Reading directory block %" PRIu64 ", phys %" PRIu64 "\n",
	       lblk, pblk);
	note_rc(w, leaf_records(w, lblk, buf, &tail, &corrupt));
	putchar('\n');
}

/* ---- index blocks ---- */

static void dump_index(struct htree_walk *w, const struct extkit_dx_index *ix,
		       uint32_t level);

/* Logical block lblk as an interior node at depth level (debugfs'
 * htree_dump_int_block); each node is shown once. */
static void dump_node(struct htree_walk *w, uint64_t lblk, uint32_t level)
{
	struct extkit_dx_index ix;
	uint8_t *buf;
	uint64_t pblk;

	if (lblk < w->nblocks && w->seen[lblk]) {
		if (json_mode(w))
			json_string(jw(w), "error", "index block shown before");
		else
			printf("(index block %" PRIu64 " shown before)\n",
			       lblk);
		return;
	}
	buf = malloc(w->fmt.block_size);
	if (!buf) {
		note_rc(w, -ENOMEM);
		return;
	}
	if (read_lblk(w, lblk, buf, &pblk)) {
		if (json_mode(w))
			json_string(jw(w), "error", pblk ?
				    "block not readable" : "block not mapped");
		free(buf);
		return;
	}
	w->seen[lblk] = 1;
	extkit_dx_node_decode(w->ctx->fs, buf, &ix);
	if (json_mode(w)) {
		json_begin_object(jw(w), "node");
		json_u64(jw(w), "lblk", lblk);
		json_u64(jw(w), "pblk", pblk);
	}
	dump_index(w, &ix, level);
	if (json_mode(w))
		json_end_object(jw(w));
	free(buf);
}

static void index_head_text(struct htree_walk *w,
			    const struct extkit_dx_index *ix)
{
	uint32_t stored, want;

	printf("Number of entries (count): %" PRIu32 "\n", ix->count);
	printf("Number of entries (limit): %" PRIu32 "\n", ix->limit);
	if (ix->has_tail) {
		printf("Checksum: 0x%08" PRIx32, ix->tail_csum);
		if (!extkit_dirblock_csum_get(w->ctx->fs, w->ino, w->gen,
					      ix->buf, &stored, &want) &&
		    want != ix->tail_csum)
			printf(" --- EXPECTED: 0x%08" PRIx32, want);
		putchar('\n');
	}
	for (uint32_t i = 0; i < ix->n; i++) {
		uint32_t h = extkit_dx_entry_hash(ix, i);

		printf("Entry #%" PRIu32 ": Hash 0x%08" PRIx32 "%s, block %"
		       PRIu32 "\n", i, h, (h & 1) ? " (**)" : "",
		       extkit_dx_entry_block(ix, i));
	}
	putchar('\n');
}

static void index_head_json(struct htree_walk *w,
			    const struct extkit_dx_index *ix)
{
	json_u64(jw(w), "count", ix->count);
	json_u64(jw(w), "limit", ix->limit);
	json_csum(w, ix->buf, ix->has_tail);
}

/* The entries of one index block at depth level (0: the bottom, whose
 * entries name leaves), then the block each names. */
static void dump_index(struct htree_walk *w, const struct extkit_dx_index *ix,
		       uint32_t level)
{
	uint8_t *buf = NULL;

	if (json_mode(w))
		index_head_json(w, ix);
	else
		index_head_text(w, ix);
	if (!level)
		buf = malloc(w->fmt.block_size);
	if (!level && !buf) {
		note_rc(w, -ENOMEM);
		return;
	}
	if (json_mode(w))
		json_begin_array(jw(w), "entries");
	for (uint32_t i = 0; i < ix->n; i++) {
		uint32_t h = extkit_dx_entry_hash(ix, i);
		uint32_t blk = extkit_dx_entry_block(ix, i);

		if (json_mode(w)) {
			json_begin_object(jw(w), NULL);
			json_u64(jw(w), "hash", h);
			json_bool(jw(w), "collision", h & 1);
			json_u64(jw(w), "block", blk);
		} else {
			printf("Entry #%" PRIu32 ": Hash 0x%08" PRIx32
			       ", block %" PRIu32 "\n", i, h, blk);
		}
		if (level)
			dump_node(w, blk, level - 1);
		else
			dump_leaf(w, blk, buf);
		if (json_mode(w))
			json_end_object(jw(w));
	}
	if (json_mode(w))
		json_end_array(jw(w));
	else
		printf("---------------------\n");
	free(buf);
}

/* ---- the root ---- */

static void root_info_text(const struct extkit_dx_root_info *ri)
{
	printf("Root node dump:\n");
	printf("\t Reserved zero: %" PRIu32 "\n", ri->reserved_zero);
	printf("\t Hash Version: %u\n", ri->hash_version);
	printf("\t Info length: %u\n", ri->info_length);
	printf("\t Indirect levels: %u\n", ri->indirect_levels);
	printf("\t Flags: %#x\n", ri->flags);
}

static void root_info_json(struct json_writer *j,
			   const struct extkit_dx_root_info *ri)
{
	json_begin_object(j, "root");
	json_u64(j, "reserved_zero", ri->reserved_zero);
	json_u64(j, "hash_version", ri->hash_version);
	json_string(j, "hash_version_name", hash_word(ri->hash_version));
	json_u64(j, "info_length", ri->info_length);
	json_u64(j, "indirect_levels", ri->indirect_levels);
	json_u64(j, "flags", ri->flags);
	json_end_object(j);
}

/* The depth the kernel accepts: indirect levels below 2, or 3 with
 * largedir. A root claiming more is walked only that deep. */
static uint32_t max_levels(const struct extkit_fs *fs)
{
	return extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_LARGEDIR) ?
	       2 : 1;
}

static int dump_root(struct htree_walk *w, const uint8_t *buf,
		     uint64_t pblk)
{
	struct extkit_dx_root_info ri;
	struct extkit_dx_index ix;
	uint32_t levels;
	int rc = extkit_dx_root_decode(w->ctx->fs, buf, &ri, &ix);

	w->version = ri.hash_version;
	levels = ri.indirect_levels;
	if (levels > max_levels(w->ctx->fs)) {
		cli_error("%s: warning: %u indirect levels, more than the %"
			  PRIu32 " the kernel accepts: shown %" PRIu32
			  " deep", w->ctx->o->args[0], ri.indirect_levels,
			  max_levels(w->ctx->fs), max_levels(w->ctx->fs));
		levels = max_levels(w->ctx->fs);
	}
	if (json_mode(w)) {
		char where[DUMP_PATH_MAX];

		json_u64(jw(w), "inode", w->ino);
		dump_json_path(jw(w), "path",
			       dump_known_path(w->ctx, w->ctx->o->args[0],
					       w->ino, where, sizeof(where)));
		root_info_json(jw(w), &ri);
	} else {
		root_info_text(&ri);
	}
	if (rc) {
		cli_error("%s: the root's info length (%u) runs past the "
			  "block", w->ctx->o->args[0], ri.info_length);
		return rc;
	}
	w->seen[0] = 1;
	if (json_mode(w)) {
		json_begin_object(jw(w), "index");
		json_u64(jw(w), "lblk", 0);
		json_u64(jw(w), "pblk", pblk);
	}
	dump_index(w, &ix, levels);
	if (json_mode(w))
		json_end_object(jw(w));
	return 0;
}

/* Opens the directory: it must be one, and indexed. */
static int open_dir(struct htree_walk *w, const char *arg)
{
	const struct extkit_inode *in;
	int rc = dump_resolve(w->ctx, arg, &w->ino);

	if (rc < 0)
		return rc;
	rc = extkit_dir_iter_open(w->ctx->fs, w->ino, 0, &w->it);
	if (rc == -ENOTDIR) {
		cli_error("%s: Not a directory", arg);
		return rc;
	}
	if (rc < 0) {
		cli_error_rc(arg, rc);
		return rc;
	}
	in = extkit_dir_iter_inode(w->it);
	if (!(in->flags & EXT2_INDEX_FL) || extkit_dir_iter_is_inline(w->it)) {
		cli_error("%s: Not a hash-indexed directory", arg);
		return -EINVAL;
	}
	w->gen = in->generation;
	w->dir_flags = in->flags;
	w->nblocks = extkit_dir_iter_nblocks(w->it);
	extkit_dir_format_init(w->ctx->fs, &w->fmt);
	return 0;
}

int dump_htree(struct dump_ctx *ctx)
{
	struct htree_walk w = { .ctx = ctx };
	uint8_t *buf = NULL;
	uint64_t pblk;
	int rc = open_dir(&w, ctx->o->args[0]);

	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	w.seen = calloc(w.nblocks ? w.nblocks : 1, 1);
	buf = malloc(w.fmt.block_size);
	if (!w.seen || !buf) {
		cli_error("%s", extkit_strerror(rc));
		goto out;
	}
	rc = read_lblk(&w, 0, buf, &pblk);
	if (rc)
		goto out;
	if (ctx->o->json)
		json_begin_object(&ctx->jw, NULL);
	rc = dump_root(&w, buf, pblk);
	if (ctx->o->json)
		json_end_object(&ctx->jw);
	if (!rc && w.fatal) {
		rc = w.fatal;
		cli_error("%s", extkit_strerror(rc));
	}
out:
	free(buf);
	free(w.seen);
	extkit_dir_iter_close(w.it);
	return rc < 0 ? rc : 0;
}
