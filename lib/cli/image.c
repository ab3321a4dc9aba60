// SPDX-License-Identifier: GPL-2.0-or-later
/* --offset, --partition and TARGET@N (image.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image.h"
#include "msg.h"
#include "parse.h"

/* N of "IMAGE@N" when target ends so and names no file itself while
 * IMAGE does; 0 otherwise (then target is a path as it stands). */
static uint64_t at_partition(const char *target, size_t *plen)
{
	const char *at = strrchr(target, '@');
	struct stat st;
	uint64_t n;
	char *path;
	int exists;

	if (!at || at == target || at[1] < '1' || at[1] > '9' ||
	    strspn(at + 1, "0123456789") != strlen(at + 1) ||
	    cli_parse_u64(at + 1, &n) || !stat(target, &st))
		return 0;
	path = strndup(target, (size_t)(at - target));
	exists = path && !stat(path, &st);
	free(path);
	if (!exists)
		return 0;
	*plen = (size_t)(at - target);
	return n;
}

static int parse_partition(const char *s, uint64_t *n)
{
	if (cli_parse_u64(s, n) || *n < 1 || *n > UINT32_MAX) {
		cli_error("--partition %s: not a partition number (1 or more)",
			  s);
		return 1;
	}
	return 0;
}

int cli_image_resolve(const struct cli_image *img, const char *target,
		      char **path, struct extkit_image_loc *loc)
{
	size_t plen = strlen(target);
	uint64_t at = at_partition(target, &plen), part = 0, off = 0;

	memset(loc, 0, sizeof(*loc));
	if (img->partition && parse_partition(img->partition, &part))
		return 1;
	if (img->offset && cli_parse_size(img->offset, 1, &off)) {
		cli_error("--offset %s: not a size in bytes", img->offset);
		return 1;
	}
	if ((at && part) || ((at || part) && img->offset)) {
		cli_error("%s: give one place: --offset, --partition or "
			  "IMAGE@N", target);
		return 1;
	}
	if (at > UINT32_MAX) {
		cli_error("%s: not a partition number", target);
		return 1;
	}
	loc->partition = (uint32_t)(at ? at : part);
	loc->offset = off;
	*path = strndup(target, plen);
	if (!*path) {
		cli_error("out of memory");
		return 1;
	}
	return 0;
}

void cli_image_free(struct cli_image *img)
{
	free(img->offset);
	free(img->partition);
	img->offset = img->partition = NULL;
}
