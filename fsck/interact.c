// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Talking to the person at the terminal, as e2fsck does: an answer is one
 * key (y, n, a for yes to all, Enter or space for the default) read with
 * the terminal out of line mode; Ctrl-C, or the end of input, cancels.
 * Outside a question, SIGINT and SIGTERM only raise a flag: the passes
 * stop at the next safe point (between two complete fixes), so the
 * filesystem is left as consistent as the fixes made so far.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "fsck.h"
#include "interact.h"

static volatile sig_atomic_t cancel_requested;

static void on_signal(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

void fsck_interrupt_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;	/* a signal never fails a write */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void fsck_request_cancel(void)
{
	cancel_requested = 1;
}

int fsck_poll_cancel(struct fsck_ctx *ctx)
{
	if (cancel_requested && !(ctx->flags & FSCK_FL_CANCEL))
		ctx->flags |= FSCK_FL_CANCEL | FSCK_FL_ABORT;
	return !!(ctx->flags & FSCK_FL_CANCEL);
}

/*
 * One key from fd, the terminal in non-canonical mode without echo and
 * without signals (Ctrl-C arrives as the byte 3). Returns the key, or -1
 * at the end of input or on an error.
 */
static int read_key(int fd)
{
	struct termios saved, raw;
	int have_tty = tcgetattr(fd, &saved) == 0;
	unsigned char c;
	ssize_t n;

	if (have_tty) {
		raw = saved;
		raw.c_lflag &= (tcflag_t)~(ICANON | ECHO | ISIG);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(fd, TCSANOW, &raw);
	}
	/* Waits in short slices, so that a signal that came just before
	 * the wait is seen too. */
	n = -1;
	while (!cancel_requested) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, 100);

		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		n = read(fd, &c, 1);
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (have_tty)
		tcsetattr(fd, TCSANOW, &saved);
	return n == 1 ? c : -1;
}

enum fsck_answer fsck_ask_key(int fd, int def)
{
	for (;;) {
		int c = read_key(fd);

		/* EOF, ^C, ^D; and 0: a ^D typed before read_key turned
		 * canonical mode off is left in the input as a NUL byte
		 * (Linux n_tty), which would otherwise wait for ever */
		if (c <= 0 || c == 3 || c == 4 || cancel_requested)
			return FSCK_ANSWER_CANCEL;
		switch (c) {
		case 'y': case 'Y':
			return FSCK_ANSWER_YES;
		case 'n': case 'N':
			return FSCK_ANSWER_NO;
		case 'a': case 'A':
			return FSCK_ANSWER_ALL;
		case '\n': case '\r': case ' ':
			return def ? FSCK_ANSWER_YES : FSCK_ANSWER_NO;
		default:
			break;	/* any other key: still waiting */
		}
	}
}
