/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command-line values shared by the tools (lib/cli, not libextkit):
 * numbers, sizes, UUIDs and the label limit. Pure functions: they print
 * nothing; the caller says what was wrong (msg.h).
 *
 * The number rule, the same in every tool and for every option: an
 * unsigned integer read as e2fsprogs reads one (strtoull base 0):
 * decimal, hexadecimal after "0x" or "0X", octal after a leading "0".
 * The text starts with a digit (no sign, no blank) and holds nothing
 * but the number; a value past 2^64 - 1 is -ERANGE.
 */
#ifndef EXTKIT_CLI_PARSE_H
#define EXTKIT_CLI_PARSE_H

#include <stdint.h>

/* A volume label holds at most this many bytes (s_volume_name). */
#define CLI_LABEL_MAX	16

/* A number by the rule above: 0, -EINVAL or -ERANGE. */
int cli_parse_u64(const char *s, uint64_t *out);

/*
 * A size as mke2fs reads one: a number by the rule above, then at most
 * one suffix: K, M, G, T, P or E (either case, powers of 1024) or s
 * (512-byte sectors); a bare number counts units of unit bytes. In a hex
 * number the letters a-f are digits, not suffixes. 0, -EINVAL or -ERANGE.
 */
int cli_parse_size(const char *s, uint64_t unit, uint64_t *out);

/*
 * A UUID argument: a UUID in text form, "random", "time", or "clear" /
 * "null" (all zeros), as mke2fs -U and tune2fs -U take it. 0 or -EINVAL.
 */
int cli_parse_uuid(const char *s, uint8_t out[16]);

/* Whether label fits in a superblock's volume name. */
int cli_label_fits(const char *label);

#endif /* EXTKIT_CLI_PARSE_H */
