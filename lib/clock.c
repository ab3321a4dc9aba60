// SPDX-License-Identifier: GPL-2.0-or-later
/* The one place that reads the time knobs (SOURCE_DATE_EPOCH and friends). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"

static int parse_epoch(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int extkit_clock_now(uint32_t *now, int *fixed, const char **bad_var)
{
	static const char *const vars[] = {
		"SOURCE_DATE_EPOCH", "EXTKIT_FAKE_TIME",
	};
	int dummy;

	if (!fixed)
		fixed = &dummy;
	for (unsigned int i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *s = getenv(vars[i]);

		if (!s || !*s)
			continue;
		*fixed = 1;
		if (parse_epoch(s, now)) {
			if (bad_var)
				*bad_var = vars[i];
			return -EINVAL;
		}
		return 0;
	}
	*fixed = 0;
	*now = (uint32_t)time(NULL);
	return 0;
}
