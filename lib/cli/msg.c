// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tools' messages on stderr (msg.h): one printer, one wording for
 * what several tools say (a missing TARGET, a mounted target, a label
 * too long, a bad option).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#include "cli/msg.h"
#include "cli/parse.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warn_truncated(const char *target, uint64_t have, uint64_t blocks)
{
	fprintf(stderr, "%s: warning: %s holds only %" PRIu64 " of the "
		"filesystem's %" PRIu64 " blocks (truncated?); what lies past "
		"its end cannot be read\n", cli_prog, target, have, blocks);
}

void cli_error_rc(const char *what, int err)
{
	cli_error("%s: %s", what, extkit_strerror(err));
}

void cli_popt_error(poptContext pc, int rc)
{
	cli_error("%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
		  poptStrerror(rc));
}

void cli_version(void)
{
	printf("%s %s\n", cli_prog, PACKAGE_VERSION);
}

void cli_mounted(const char *target, const char *where,
		 const char *refusal)
{
	cli_error("%s is mounted on %s; %s", target,
		  where && *where ? where : "?", refusal);
}

int cli_take_args(poptContext pc, char **out, int n, int rest)
{
	const char *arg;
	int i, rc = -EINVAL;

	memset(out, 0, (size_t)n * sizeof(*out));
	for (i = 0; i < n && (arg = poptGetArg(pc)) != NULL; i++) {
		out[i] = strdup(arg);
		if (!out[i]) {
			cli_error("out of memory");
			rc = -ENOMEM;
			goto fail;
		}
	}
	if (!out[0]) {
		cli_error("no TARGET given (see --help)");
		goto fail;
	}
	if (!rest && poptPeekArg(pc)) {
		cli_error("unexpected argument '%s'", poptPeekArg(pc));
		goto fail;
	}
	return 0;
fail:
	for (i = 0; i < n; i++) {
		free(out[i]);
		out[i] = NULL;
	}
	return rc;
}

void cli_fit_label(char *label)
{
	if (cli_label_fits(label))
		return;
	fprintf(stderr, "%s: warning: label '%s' is longer than %d bytes; "
		"truncated to ", cli_prog, label, CLI_LABEL_MAX);
	label[CLI_LABEL_MAX] = '\0';
	fprintf(stderr, "'%s'\n", label);
}
