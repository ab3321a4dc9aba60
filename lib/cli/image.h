/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whole-disk images on every tool's command line: --offset BYTES,
 * --partition N, and TARGET written IMAGE@N. A tool puts
 * CLI_IMAGE_OPTIONS in its popt table and turns its target into a path
 * and an extkit_image_loc with cli_image_resolve.
 */
#ifndef EXTKIT_CLI_IMAGE_H
#define EXTKIT_CLI_IMAGE_H

#include "../image.h"

struct cli_image {
	char *offset;		/* --offset, as given */
	char *partition;	/* --partition, as given */
};

#define CLI_IMAGE_OPTIONS(img)						\
	{ "offset", '\0', POPT_ARG_STRING, &(img)->offset, 0,		\
	  "the filesystem starts BYTES into the image (suffixes K, M, G, "\
	  "s for 512-byte sectors)", "BYTES" },				\
	{ "partition", '\0', POPT_ARG_STRING, &(img)->partition, 0,	\
	  "the filesystem is partition N of the image's MBR or GPT table "\
	  "(also TARGET@N)", "N" }

/*
 * The path and place of target: "IMAGE@N" is partition N of IMAGE when
 * no file is named target itself and IMAGE exists. *path is allocated.
 * Says what is wrong (cli_error) and returns 1 on a bad value or two
 * places given at once; 0 on success.
 */
int cli_image_resolve(const struct cli_image *img, const char *target,
		      char **path, struct extkit_image_loc *loc);

/* Frees what popt allocated for the options. */
void cli_image_free(struct cli_image *img);

#endif /* EXTKIT_CLI_IMAGE_H */
