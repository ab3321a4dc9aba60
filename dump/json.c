// SPDX-License-Identifier: GPL-2.0-or-later
/* A tiny streaming JSON writer (see json.h for the layout rules). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_init(struct json_writer *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

/*
 * Length of the well-formed UTF-8 sequence at s (at most len bytes), or 0
 * if the byte at s does not start one (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF).
 */
size_t json_utf8_seq_len(const void *p, size_t len)
{
	const unsigned char *s = p;
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n, i;

	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3;
		if (s[0] == 0xE0)
			lo = 0xA0;
		else if (s[0] == 0xED)
			hi = 0x9F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4;
		if (s[0] == 0xF0)
			lo = 0x90;
		else if (s[0] == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

static void put_escaped_byte(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", f);
		break;
	case '\\':
		fputs("\\\\", f);
		break;
	case '\b':
		fputs("\\b", f);
		break;
	case '\f':
		fputs("\\f", f);
		break;
	case '\n':
		fputs("\\n", f);
		break;
	case '\r':
		fputs("\\r", f);
		break;
	case '\t':
		fputs("\\t", f);
		break;
	default:
		if (c < 0x20 || c == 0x7F || c >= 0x80)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

void json_write_string(FILE *f, const void *s, size_t len)
{
	const unsigned char *p = s;
	size_t i = 0, n;

	fputc('"', f);
	while (i < len) {
		if (p[i] >= 0x80) {
			n = json_utf8_seq_len(p + i, len - i);
			if (n) {
				fwrite(p + i, 1, n, f);
				i += n;
				continue;
			}
		}
		put_escaped_byte(f, p[i]);
		i++;
	}
	fputc('"', f);
}

static void indent(struct json_writer *w)
{
	unsigned int i;

	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/*
 * Writes what goes before a value: the comma, the line break or space,
 * and the key. Returns -1 (and marks the writer) on misuse.
 */
static int prefix(struct json_writer *w, const char *key, int container)
{
	struct json_level *lv;

	if (w->error)
		return -1;
	if (w->depth == 0) {
		if (w->done || key)
			w->error = 1;
		return w->error ? -1 : 0;
	}
	lv = &w->lv[w->depth - 1];
	if (lv->is_array == (key != NULL)) {
		w->error = 1;
		return -1;
	}
	if (lv->count++)
		fputc(',', w->f);
	if (!lv->is_array || container) {
		indent(w);
		lv->broken = 1;
	} else if (lv->count > 1) {
		fputc(' ', w->f);
	}
	if (key) {
		json_write_string(w->f, key, strlen(key));
		fputs(": ", w->f);
	}
	return 0;
}

static void value_done(struct json_writer *w)
{
	if (w->depth == 0)
		w->done = 1;
}

static void begin(struct json_writer *w, const char *key, int is_array)
{
	if (prefix(w, key, 1))
		return;
	if (w->depth >= JSON_MAX_DEPTH) {
		w->error = 1;
		return;
	}
	fputc(is_array ? '[' : '{', w->f);
	memset(&w->lv[w->depth], 0, sizeof(w->lv[0]));
	w->lv[w->depth].is_array = (unsigned char)is_array;
	w->depth++;
}

static void end(struct json_writer *w, int is_array)
{
	if (w->error)
		return;
	if (w->depth == 0 || w->lv[w->depth - 1].is_array != is_array) {
		w->error = 1;
		return;
	}
	w->depth--;
	if (w->lv[w->depth].broken)
		indent(w);
	fputc(is_array ? ']' : '}', w->f);
	value_done(w);
}

void json_begin_object(struct json_writer *w, const char *key)
{
	begin(w, key, 0);
}

void json_end_object(struct json_writer *w)
{
	end(w, 0);
}

void json_begin_array(struct json_writer *w, const char *key)
{
	begin(w, key, 1);
}

void json_end_array(struct json_writer *w)
{
	end(w, 1);
}

void json_string_n(struct json_writer *w, const char *key, const void *s,
		   size_t len)
{
	if (prefix(w, key, 0))
		return;
	json_write_string(w->f, s, len);
	value_done(w);
}

void json_string(struct json_writer *w, const char *key, const char *s)
{
	if (!s) {
		json_null(w, key);
		return;
	}
	json_string_n(w, key, s, strlen(s));
}

void json_hex(struct json_writer *w, const char *key, const void *s,
	      size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = s;
	char *h = malloc(2 * len + 1);

	if (!h) {
		w->error = 1;
		return;
	}
	for (size_t i = 0; i < len; i++) {
		h[2 * i] = hex[b[i] >> 4];
		h[2 * i + 1] = hex[b[i] & 15];
	}
	json_string_n(w, key, h, 2 * len);
	free(h);
}

void json_bytes_name(struct json_writer *w, const char *key, const void *s,
	       size_t len)
{
	char k[64];

	json_string_n(w, key, s, len);
	snprintf(k, sizeof(k), "%s_hex", key);
	json_hex(w, k, s, len);
}

void json_u64(struct json_writer *w, const char *key, uint64_t v)
{
	if (prefix(w, key, 0))
		return;
	fprintf(w->f, "%" PRIu64, v);
	value_done(w);
}

/* A finite number with four decimals (ratios such as fragmentation). */
void json_fixed4(struct json_writer *w, const char *key, double v)
{
	if (!isfinite(v)) {	/* JSON has no NaN or infinity */
		json_null(w, key);
		return;
	}
	if (prefix(w, key, 0))
		return;
	fprintf(w->f, "%.4f", v);
	value_done(w);
}

void json_i64(struct json_writer *w, const char *key, int64_t v)
{
	if (prefix(w, key, 0))
		return;
	fprintf(w->f, "%" PRId64, v);
	value_done(w);
}

void json_bool(struct json_writer *w, const char *key, int v)
{
	if (prefix(w, key, 0))
		return;
	fputs(v ? "true" : "false", w->f);
	value_done(w);
}

void json_null(struct json_writer *w, const char *key)
{
	if (prefix(w, key, 0))
		return;
	fputs("null", w->f);
	value_done(w);
}

int json_finish(struct json_writer *w)
{
	if (w->depth || !w->done)
		w->error = 1;
	fputc('\n', w->f);
	if (fflush(w->f) || ferror(w->f))
		return -1;
	return w->error ? -1 : 0;
}
