// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extkit-dump's output helpers, shared by the commands (dump.h): block
 * numbers, times, UUIDs and names as text or JSON, table lookups, and
 * a PATH argument resolved to its inode.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dir.h"
#include "error.h"
#include "fs.h"
#include "cli/msg.h"

#include "dump.h"
#include "json.h"

/* A block number as text: decimal, or hex with -x (as dumpe2fs -x). */
void dump_put_blk(const struct dump_ctx *ctx, uint64_t blk)
{
	if (ctx->o->hex)
		printf("0x%04" PRIx64, blk);
	else
		printf("%" PRIu64, blk);
}

/* Prints a time stamp as ctime() does (local time, no newline). */
void dump_put_time(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[64];

	if (!localtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm)) {
		fputs("(invalid)", stdout);
		return;
	}
	fputs(buf, stdout);
}

/*
 * A time in JSON: "key" in seconds since the epoch, "key_iso" in ISO 8601
 * UTC (with nine decimals when the nanoseconds are known), and with them
 * "key_nsec". A time that is 0 (never set: a live inode's dtime, a
 * filesystem never mounted) has "key_iso" null, not 1970.
 */
void dump_json_time(struct json_writer *w, const char *key, int64_t sec,
		    uint32_t nsec, int has_nsec)
{
	char k[48], iso[64];
	time_t tt = (time_t)sec;
	struct tm tm;
	size_t n;

	json_i64(w, key, sec);
	snprintf(k, sizeof(k), "%s_iso", key);
	if ((sec == 0 && nsec == 0) || !gmtime_r(&tt, &tm) ||
	    !(n = strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm))) {
		json_null(w, k);
	} else {
		snprintf(iso + n, sizeof(iso) - n, has_nsec ? ".%09" PRIu32
			 "Z" : "Z", nsec);
		json_string(w, k, iso);
	}
	if (has_nsec) {
		snprintf(k, sizeof(k), "%s_nsec", key);
		json_u64(w, k, nsec);
	}
}

void dump_format_uuid(const uint8_t *u, char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4],
		 u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
}

/*
 * Writes a name for text output: well-formed UTF-8 and printable ASCII as
 * they are; controls, backslash and stray bytes as \ooo (octal).
 */
void dump_put_name(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = p[i] >= 0x80 ? json_utf8_seq_len(p + i, len - i) : 0;
		if (n) {
			fwrite(p + i, 1, n, stdout);
			i += n;
		} else if (p[i] < 0x20 || p[i] >= 0x7F || p[i] == '\\') {
			printf("\\%03o", p[i++]);
		} else {
			putchar(p[i++]);
		}
	}
}

const char *dump_lookup_name(const char *const *names, unsigned int n,
			     unsigned int v, const char *dflt)
{
	return v < n && names[v] ? names[v] : dflt;
}

/* Resolves path to an inode number; reports a failure. */
int dump_resolve(struct dump_ctx *ctx, const char *path, uint32_t *ino)
{
	int rc = extkit_path_resolve(ctx->fs, path, ino);

	if (rc < 0)
		cli_error_rc(path, rc);
	return rc;
}

/*
 * The path to show for arg, resolved to ino: arg itself when it is a path
 * from the root, else the path of directory ino; NULL when unknown (a
 * file named by <N>, a directory its parent does not name).
 */
const char *dump_known_path(struct dump_ctx *ctx, const char *arg,
			    uint32_t ino, char *buf, size_t size)
{
	if (arg[0] == '/')
		return arg;
	if (extkit_dir_path_of(ctx->fs, ino, buf, size))
		return NULL;
	return buf;
}

/* A path in JSON: a string, or null when it is not known. */
void dump_json_path(struct json_writer *w, const char *key, const char *path)
{
	if (path)
		json_string(w, key, path);
	else
		json_null(w, key);
}
