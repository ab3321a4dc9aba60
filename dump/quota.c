// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump quota: the quota files (user, group, project) as they are
 * recorded: per id the bytes and inodes in use, the limits and grace
 * expiry times. A file that is not valid is shown with the reason
 * (lib/quota.c checks it); extkit-fsck recounts the usage itself.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "quota.h"

#include "dump.h"

static void ids_json(struct dump_ctx *ctx, struct extkit_dquot **v, size_t n)
{
	json_begin_array(&ctx->jw, "ids");
	for (size_t i = 0; i < n; i++) {
		json_begin_object(&ctx->jw, NULL);
		json_u64(&ctx->jw, "id", v[i]->id);
		json_u64(&ctx->jw, "space", v[i]->curspace);
		json_u64(&ctx->jw, "inodes", v[i]->curinodes);
		json_u64(&ctx->jw, "block_soft_limit", v[i]->bsoftlimit);
		json_u64(&ctx->jw, "block_hard_limit", v[i]->bhardlimit);
		json_u64(&ctx->jw, "inode_soft_limit", v[i]->isoftlimit);
		json_u64(&ctx->jw, "inode_hard_limit", v[i]->ihardlimit);
		dump_json_time(&ctx->jw, "block_grace_expiry",
			       (int64_t)v[i]->btime, 0, 0);
		dump_json_time(&ctx->jw, "inode_grace_expiry",
			       (int64_t)v[i]->itime, 0, 0);
		json_end_object(&ctx->jw);
	}
	json_end_array(&ctx->jw);
}

static void ids_text(struct extkit_dquot **v, size_t n)
{
	printf("  %10s %14s %10s %12s %12s %10s %10s\n", "id", "space",
	       "inodes", "block soft", "block hard", "inode soft",
	       "inode hard");
	for (size_t i = 0; i < n; i++)
		printf("  %10" PRIu32 " %14" PRIu64 " %10" PRIu64 " %12" PRIu64
		       " %12" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
		       v[i]->id, v[i]->curspace, v[i]->curinodes,
		       v[i]->bsoftlimit, v[i]->bhardlimit, v[i]->isoftlimit,
		       v[i]->ihardlimit);
}

static int one_type(struct dump_ctx *ctx, int type, uint32_t ino)
{
	struct extkit_quota_file qf;
	struct extkit_dquot **v = NULL;
	const char *why = NULL;
	int rc = extkit_quota_read(ctx->fs, ino, type, &qf, &why);

	if (!rc)
		rc = extkit_quota_set_sorted(&qf.dq, &v);
	if (rc && !why)
		why = extkit_strerror(rc);
	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_string(&ctx->jw, "type", extkit_quota_type_name(type));
		json_u64(&ctx->jw, "inode", ino);
		json_bool(&ctx->jw, "valid", !rc);
		if (rc) {
			json_string(&ctx->jw, "reason", why);
		} else {
			json_u64(&ctx->jw, "version", qf.version);
			json_u64(&ctx->jw, "block_grace", qf.bgrace);
			json_u64(&ctx->jw, "inode_grace", qf.igrace);
			ids_json(ctx, v, qf.dq.n);
		}
		json_end_object(&ctx->jw);
	} else {
		printf("%c%s quota (inode %" PRIu32 ")", 'A' - 'a' +
		       extkit_quota_type_name(type)[0],
		       extkit_quota_type_name(type) + 1, ino);
		if (rc) {
			printf(": not valid: %s\n", why);
		} else {
			printf(": %zu ids, grace %" PRIu32 " s (blocks), %"
			       PRIu32 " s (inodes)\n", qf.dq.n, qf.bgrace,
			       qf.igrace);
			ids_text(v, qf.dq.n);
		}
	}
	free(v);
	extkit_quota_set_free(&qf.dq);
	return 0;
}

int dump_quota(struct dump_ctx *ctx)
{
	int any = 0;

	if (ctx->o->json) {
		json_begin_object(&ctx->jw, NULL);
		json_begin_array(&ctx->jw, "quota");
	}
	for (int t = 0; t < EXTKIT_QUOTA_TYPES; t++) {
		uint32_t ino = extkit_quota_inum(&ctx->fs->sb, t);

		if (!ino)
			continue;
		any = 1;
		one_type(ctx, t, ino);
	}
	if (ctx->o->json) {
		json_end_array(&ctx->jw);
		json_end_object(&ctx->jw);
	} else if (!any) {
		printf("No quota files (the quota feature is off).\n");
	}
	return 0;
}
