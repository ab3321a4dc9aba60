// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command-line values: numbers, sizes, UUIDs, the label limit (parse.h
 * states the rules).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <uuid/uuid.h>

#include "cli/parse.h"

/* The number at the start of s; *end gets what follows it. */
static int parse_number(const char *s, uint64_t *out, char **end)
{
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v;
	char *end;
	int rc = parse_number(s, &v, &end);

	if (rc)
		return rc;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Bytes a size suffix stands for; 0 for an unknown one. */
static uint64_t suffix_bytes(const char *suffix, uint64_t unit)
{
	static const char units[] = "KMGTPE";
	const char *p;

	if (!*suffix)
		return unit;
	if (suffix[1])
		return 0;
	if (*suffix == 's')
		return 512;
	p = strchr(units, toupper((unsigned char)*suffix));
	return p ? 1ULL << (10 * (p - units + 1)) : 0;
}

int cli_parse_size(const char *s, uint64_t unit, uint64_t *out)
{
	uint64_t v, mult;
	char *end;
	int rc = parse_number(s, &v, &end);

	if (rc)
		return rc;
	mult = suffix_bytes(end, unit);
	if (!mult)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

/* The words in any case, as mke2fs and tune2fs take them. */
int cli_parse_uuid(const char *s, uint8_t out[16])
{
	if (!strcasecmp(s, "random"))
		uuid_generate(out);
	else if (!strcasecmp(s, "time"))
		uuid_generate_time(out);
	else if (!strcasecmp(s, "clear") || !strcasecmp(s, "null"))
		uuid_clear(out);
	else if (uuid_parse(s, out))
		return -EINVAL;
	return 0;
}

int cli_label_fits(const char *label)
{
	return strlen(label) <= CLI_LABEL_MAX;
}
