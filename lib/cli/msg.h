/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the tools say on stderr (lib/cli, linked by the tools only;
 * libextkit never prints): every line is "PROGRAM: message". The usage
 * text itself is popt's, from each tool's option table (--help); a bad
 * argument is one line, and the tool picks its exit status.
 */
#ifndef EXTKIT_CLI_MSG_H
#define EXTKIT_CLI_MSG_H

#include <popt.h>
#include <stdint.h>

/* The program name, defined once by each tool (its main file). */
extern const char cli_prog[];

/* "PROGRAM: <fmt>" and a newline, on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "PROGRAM: what: <extkit_strerror(err)>". */
void cli_error_rc(const char *what, int err);
/* "PROGRAM: warning: TARGET holds only HAVE of the filesystem's BLOCKS
 * blocks (truncated?); what lies past its end cannot be read". */
void cli_warn_truncated(const char *target, uint64_t have, uint64_t blocks);

/* After the popt loop ended in rc < -1: the option and popt's reason. */
void cli_popt_error(poptContext pc, int rc);

/* "PROGRAM VERSION" on stdout (-V, --version). */
void cli_version(void);

/* "PROGRAM: target is mounted on where; refusal" ("?" for no where). */
void cli_mounted(const char *target, const char *where,
		 const char *refusal);

/*
 * Takes the positional arguments TARGET and up to n - 1 more into out[0]
 * .. out[n - 1] (copies, NULL when absent; popt frees its own with the
 * context). With rest, words past n stay in pc; without, one is refused.
 * 0, or -EINVAL / -ENOMEM after saying why (nothing is left in out).
 */
int cli_take_args(poptContext pc, char **out, int n, int rest);

/* A label longer than the superblock holds is cut to its first 16 bytes
 * with a warning, as e2label and mke2fs do. */
void cli_fit_label(char *label);

#endif /* EXTKIT_CLI_MSG_H */
