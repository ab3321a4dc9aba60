// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feature bits no checker knows: a filesystem with one set, in any of the
 * three feature words, is refused before anything is checked or written
 * (no orphan release, no pass), as e2fsck refuses it ("unsupported
 * feature(s)", exit 8) and the kernel refuses to mount it writable.
 * Where libext2fs opens it (the unknown bits are compat ones, or
 * ro_compat ones under -n), e2fsck first takes the MMP block and checks
 * and replays the journal, and refuses after: so does extkit-fsck.
 * Otherwise it is refused before the journal or the MMP block is touched. An unknown bit may change what every
 * structure means, so no repair can be trusted on it, whatever word it
 * sits in.
 *
 * The exit code is e2fsck's: 8, with 4 added (and its "still has errors"
 * line) when e2fsck got as far as opening the filesystem before it
 * refused: libext2fs opens it when no unknown bit is incompat, and no
 * unknown bit is ro_compat or the check is read-only (-n).
 */
#include "config.h"

#include <stdio.h>

#include "csum.h"
#include "error.h"
#include "feature.h"
#include "super.h"
#include "cli/msg.h"

#include "fsck.h"

/* Lists the unknown bits of one word on stderr. */
static void print_unknown(enum extkit_feature_kind kind, uint32_t mask)
{
	char buf[EXTKIT_FEATURE_SPELL_MAX];

	for (unsigned int b = 0; b < 32; b++)
		if (mask & (1u << b))
			fprintf(stderr, " %s",
				extkit_feature_spell(kind, 1u << b, buf));
}

int fsck_refuse_unknown_features(struct fsck_ctx *ctx,
				 const struct extkit_super *sb, int replayed)
{
	uint32_t compat = sb->feature_compat & ~EXTKIT_COMPAT_CHECK_SUPP;
	uint32_t incompat = sb->feature_incompat & ~EXTKIT_INCOMPAT_CHECK_SUPP;
	uint32_t ro = sb->feature_ro_compat & ~EXTKIT_RO_COMPAT_CHECK_SUPP;
	const char *name = ctx->opts->target;
	int opens = !incompat && (!ro || ctx->readonly);

	if (!compat && !incompat && !ro)
		return 0;
	/* a filesystem libext2fs opens has its journal checked and
	 * replayed before e2fsck refuses it: the superblock it then
	 * looks at is the replayed one */
	if (opens && !replayed)
		return 0;
	fflush(stdout);
	fprintf(stderr, "%s has unsupported feature(s):", name);
	print_unknown(EXTKIT_COMPAT, compat);
	print_unknown(EXTKIT_INCOMPAT, incompat);
	print_unknown(EXTKIT_RO_COMPAT, ro);
	fprintf(stderr, "\n");
	cli_error("Get a newer version of extkit-fsck!");
	ctx->open_exit = FSCK_ERROR;
	if (opens) {
		printf("\n%s: ********** WARNING: Filesystem still has errors "
		       "**********\n\n", name);
		ctx->open_exit |= FSCK_UNCORRECTED;
	}
	ctx->flags |= FSCK_FL_ABORT;
	return -EXTKIT_EUNSUPP;
}

/*
 * Before the library opens the filesystem (it refuses unknown incompat
 * bits with its own words): the primary superblock as read, when it is
 * one a checker would use, its magic right and its checksum good. A
 * primary that fails them is left to the fallback, and the superblock
 * the run ends up with is looked at again (fsck_open).
 */
int fsck_refuse_unknown_raw(struct fsck_ctx *ctx)
{
	struct ext2_super_block raw;
	struct extkit_super sb;

	if (fsck_read_raw_primary(ctx, &raw, &sb) ||
	    sb.magic != EXT2_SUPER_MAGIC)
		return 0;
	if ((sb.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    !extkit_super_csum_ok(&raw))
		return 0;
	return fsck_refuse_unknown_features(ctx, &sb, 0);
}
