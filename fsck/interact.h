/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Questions on the terminal and cancellation (interact.c).
 */
#ifndef EXTKIT_FSCK_INTERACT_H
#define EXTKIT_FSCK_INTERACT_H

struct fsck_ctx;

enum fsck_answer {
	FSCK_ANSWER_NO = 0,
	FSCK_ANSWER_YES,
	FSCK_ANSWER_ALL,	/* yes, and yes to every later question */
	FSCK_ANSWER_CANCEL,	/* Ctrl-C or end of input: stop the check */
};

/* SIGINT/SIGTERM request a cancel instead of killing the run. */
void fsck_interrupt_setup(void);
void fsck_request_cancel(void);
/* Turns a pending request into FSCK_FL_CANCEL | FSCK_FL_ABORT on ctx (a
 * safe point); returns whether the run is cancelled. */
int fsck_poll_cancel(struct fsck_ctx *ctx);
/* Reads one answer key from the terminal fd; def is the default. */
enum fsck_answer fsck_ask_key(int fd, int def);

#endif /* EXTKIT_FSCK_INTERACT_H */
