/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny streaming JSON writer: objects, arrays, strings, numbers and
 * booleans, with nesting and comma placement handled here. Every value
 * call takes the key it is stored under; pass NULL inside an array and
 * for the top-level value. Strings are written as valid UTF-8: quotes,
 * backslashes and control characters are escaped, and bytes that are not
 * part of a well-formed UTF-8 sequence come out as \u00XX.
 *
 * Layout: object members one per line, indented by two spaces; arrays of
 * scalars on one line, arrays of containers one element per line.
 */
#ifndef EXTKIT_DUMP_JSON_H
#define EXTKIT_DUMP_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json_level {
	uint32_t count;		/* members written so far */
	unsigned char is_array;
	unsigned char broken;	/* a member started on a new line */
};

struct json_writer {
	FILE *f;
	unsigned int depth;	/* open containers */
	int error;		/* misuse (depth, key) seen: sticky */
	int done;		/* the top-level value is complete */
	struct json_level lv[JSON_MAX_DEPTH];
};

void json_init(struct json_writer *w, FILE *f);

void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);

void json_string(struct json_writer *w, const char *key, const char *s);
void json_string_n(struct json_writer *w, const char *key, const void *s,
		   size_t len);
/* s (len bytes) as a string of lowercase hex digits, two per byte. */
void json_hex(struct json_writer *w, const char *key, const void *s,
	      size_t len);
/*
 * A name as its display string under key (non-NULL) and its exact bytes
 * in hex under key_hex: bytes that are not UTF-8 show as \u00XX, so two
 * names can display alike ("\xc3\xa0" and "\xe0" both as "\u00e0"); the
 * hex tells them apart and gives the bytes back.
 */
void json_bytes_name(struct json_writer *w, const char *key, const void *s,
	       size_t len);
void json_u64(struct json_writer *w, const char *key, uint64_t v);
void json_i64(struct json_writer *w, const char *key, int64_t v);
/* A finite number written with four decimals (a ratio). */
void json_fixed4(struct json_writer *w, const char *key, double v);
void json_bool(struct json_writer *w, const char *key, int v);
void json_null(struct json_writer *w, const char *key);

/*
 * Ends the document with a newline. Returns 0, or -1 if the document was
 * left unbalanced, a call misused the writer, or a write failed.
 */
int json_finish(struct json_writer *w);

/*
 * Length of the well-formed UTF-8 sequence of two or more bytes at p (at
 * most len bytes), or 0 if p does not start one.
 */
size_t json_utf8_seq_len(const void *p, size_t len);

/* Writes s (len bytes) as a quoted JSON string. */
void json_write_string(FILE *f, const void *s, size_t len);

#endif /* EXTKIT_DUMP_JSON_H */
