// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump super: the internal journal's superblock, as the last lines
 * of dumpe2fs -h (features, size, transaction and fast-commit lengths,
 * sequence, start, checksum), or the "journal" object of the JSON. The
 * journal is read through lib/journal.c; one that cannot be read is left
 * out (null in JSON), as dumpe2fs leaves it out.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "jbd2_ondisk.h"
#include "journal.h"
#include "super.h"

#include "dump.h"
#include "json.h"
#include "names.h"

#define LINE(label, fmt, ...)	printf("%-26s" fmt "\n", label, __VA_ARGS__)

struct journal_view {
	uint32_t fc;		/* fast-commit blocks */
	uint32_t max_trans;	/* log blocks: maxlen less fast commits */
	uint64_t kib;		/* total size */
	const char *csum;	/* checksum type name; NULL: none */
	int csum_v23;		/* checksum v2 or v3: s_checksum is used */
};

/* The figures as dumpe2fs derives them: a filesystem with fast_commit
 * (or a journal with the feature) has a fast-commit area at the end. */
static void view(const struct extkit_fs *fs, const struct extkit_journal *j,
		 struct journal_view *v)
{
	int fc = extkit_has_compat(&fs->sb, EXT4_FEATURE_COMPAT_FAST_COMMIT) ||
		 (j->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT);

	v->fc = fc ? extkit_journal_fc_blocks(j) : 0;
	v->max_trans = j->maxlen > v->fc ? j->maxlen - v->fc : 0;
	v->kib = (uint64_t)(j->blocksize / 1024) * j->maxlen;
	v->csum_v23 = !!(j->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
					JBD2_FEATURE_INCOMPAT_CSUM_V3));
	v->csum = NULL;
	if (j->compat & JBD2_FEATURE_COMPAT_CHECKSUM)
		v->csum = "crc32";
	if (v->csum_v23)
		v->csum = j->checksum_type == JBD2_CRC32C_CHKSUM ? "crc32c" :
			  "unknown";
}

void dump_journal_text(const struct extkit_fs *fs,
		       const struct extkit_journal *j)
{
	struct journal_view v;

	view(fs, j, &v);
	printf("%-25s", "Journal features:");
	if (!j->compat && !j->incompat && !j->ro_compat)
		fputs(" (none)", stdout);
	bit_names_text_if(&jbd2_compat_names, j->compat);
	bit_names_text_if(&jbd2_incompat_names, j->incompat);
	bit_names_text_if(&jbd2_ro_compat_names, j->ro_compat);
	putchar('\n');
	if (v.kib < 8192)
		LINE("Total journal size:", "%" PRIu64 "k", v.kib);
	else
		LINE("Total journal size:", "%" PRIu64 "M", v.kib >> 10);
	if (j->blocksize != fs->g.block_size)
		LINE("Journal block size:", "%" PRIu32, j->blocksize);
	LINE("Total journal blocks:", "%" PRIu32, j->maxlen);
	LINE("Max transaction length:", "%" PRIu32, v.max_trans);
	LINE("Fast commit length:", "%" PRIu32, v.fc);
	if (j->first != 1)
		LINE("Journal first block:", "%" PRIu32, j->first);
	LINE("Journal sequence:", "0x%08" PRIx32, j->sequence);
	LINE("Journal start:", "%" PRIu32, j->start);
	if (j->nr_users != 1)
		LINE("Journal number of users:", "%" PRIu32, j->nr_users);
	if (v.csum)
		LINE("Journal checksum type:", "%s", v.csum);
	if (v.csum_v23)
		LINE("Journal checksum:", "0x%08" PRIx32, j->checksum);
	if (j->errno_)
		LINE("Journal errno:", "%d", (int)j->errno_);
}

void dump_journal_json(struct json_writer *w, const struct extkit_fs *fs,
		       const struct extkit_journal *j)
{
	struct journal_view v;

	view(fs, j, &v);
	json_begin_object(w, "journal");
	json_u64(w, "inode", j->ino);
	json_u64(w, "version", j->version);
	json_u64(w, "feature_compat", j->compat);
	json_u64(w, "feature_incompat", j->incompat);
	json_u64(w, "feature_ro_compat", j->ro_compat);
	json_begin_array(w, "features");
	bit_names_each(&jbd2_compat_names, j->compat, json_name, w);
	bit_names_each(&jbd2_incompat_names, j->incompat, json_name, w);
	bit_names_each(&jbd2_ro_compat_names, j->ro_compat, json_name, w);
	json_end_array(w);
	json_u64(w, "block_size", j->blocksize);
	json_u64(w, "size_bytes", (uint64_t)j->blocksize * j->maxlen);
	json_u64(w, "total_blocks", j->maxlen);
	json_u64(w, "max_transaction_blocks", v.max_trans);
	json_u64(w, "fast_commit_blocks", v.fc);
	json_u64(w, "first", j->first);
	json_u64(w, "sequence", j->sequence);
	json_u64(w, "start", j->start);
	json_u64(w, "nr_users", j->nr_users);
	json_i64(w, "errno", j->errno_);
	json_u64(w, "checksum_type", j->checksum_type);
	if (v.csum)
		json_string(w, "checksum_type_name", v.csum);
	else
		json_null(w, "checksum_type_name");
	json_u64(w, "checksum", j->checksum);
	json_end_object(w);
}

void dump_journal(struct dump_ctx *ctx)
{
	enum extkit_journal_problem problem = EXTKIT_JOURNAL_OK;
	struct extkit_journal *j = NULL;
	const char *why = NULL;

	if (ctx->fs->sb.journal_inum &&
	    extkit_has_compat(&ctx->fs->sb, EXT3_FEATURE_COMPAT_HAS_JOURNAL) &&
	    extkit_journal_load(ctx->fs, &j, &problem, &why) < 0)
		j = NULL;
	/* Without a journal superblock there is nothing to show. */
	if (j && (problem == EXTKIT_JOURNAL_BAD_INODE ||
		  problem == EXTKIT_JOURNAL_BAD_MAGIC ||
		  problem == EXTKIT_JOURNAL_UNSUPP_VERSION)) {
		extkit_journal_free(j);
		j = NULL;
	}
	if (ctx->o->json && j)
		dump_journal_json(&ctx->jw, ctx->fs, j);
	else if (ctx->o->json)
		json_null(&ctx->jw, "journal");
	else if (j)
		dump_journal_text(ctx->fs, j);
	extkit_journal_free(j);
}
