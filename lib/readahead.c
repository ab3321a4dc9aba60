// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The read windows of an io (readahead.h). A checker interleaves a few
 * streams of reads (pass 2: a directory's inode, then its blocks, then
 * the inode again), so there are a few windows, each following one
 * stream; a read goes to the window holding it, else to the window it
 * continues, else to the least recently used one.
 *
 * A miss reads what was asked and keeps it (the same inode or block is
 * often read again soon). A miss right at the end of a window (a
 * sequential reader: inode tables, a directory's consecutive blocks, the
 * blocks of directories the kernel placed one after the other) reads
 * twice as much as that window's last read, up to the window's size. A
 * read of a quarter of a window or more goes straight to the caller's
 * buffer (no copy). The buffers are allocated on first use, once;
 * nothing grows with the image.
 *
 * With a thread (extkit_io_readahead_thread), a window that grows on
 * also has its next read made ahead, while the caller works on what it
 * holds: one read, into a spare buffer the window swaps in at its next
 * miss. The thread calls the backend's read directly (a pread, safe
 * beside the caller's); what it read is used only if no write was made
 * since it was asked, so reads still return what the image holds. Its
 * buffer is the last window's, parked while the thread runs (a sequential
 * reader uses two streams; the memory stays what it was).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "readahead.h"

#define RA_PAGE		4096u
#define RA_WINDOWS	3

struct ra_window {
	uint8_t *buf;		/* NULL until first used */
	uint64_t off;		/* what buf holds: [off, off + len) */
	size_t len;
	size_t last;		/* size of the last miss read */
	uint64_t used;		/* tick of the last use (LRU) */
};

enum { AH_IDLE, AH_ASKED, AH_DONE, AH_QUIT };

/* The one read the thread makes ahead; under lock but for buf, which is
 * the thread's from AH_ASKED until AH_DONE. */
struct ra_ahead {
	struct extkit_io *io;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state;
	uint8_t *buf;		/* the spare buffer (cap bytes) */
	uint64_t off;		/* the request: [off, off + len) */
	size_t len;
	uint64_t writes;	/* io writes when it was asked */
	int rc;
};

static void ahead_forget(struct ra_ahead *a);

struct extkit_readahead {
	size_t cap;		/* each window's size */
	uint64_t tick;
	struct ra_window w[RA_WINDOWS];
	struct ra_ahead *ahead;	/* NULL: no thread */
};

int extkit_io_set_readahead(struct extkit_io *io, size_t bytes)
{
	struct extkit_readahead *ra;

	extkit_readahead_free(io);
	bytes &= ~(size_t)(RA_PAGE - 1);
	if (!bytes)
		return 0;
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return -ENOMEM;
	ra->cap = bytes;
	io->ra = ra;
	return 0;
}

void extkit_readahead_free(struct extkit_io *io)
{
	if (!io->ra)
		return;
	extkit_io_readahead_thread(io, 0);
	for (int i = 0; i < RA_WINDOWS; i++)
		free(io->ra->w[i].buf);
	free(io->ra);
	io->ra = NULL;
}

void extkit_readahead_drop(struct extkit_io *io, uint64_t off, uint64_t len)
{
	struct extkit_readahead *ra = io->ra;

	if (!ra)
		return;
	if (ra->ahead)
		ahead_forget(ra->ahead);
	for (int i = 0; i < RA_WINDOWS; i++) {
		struct ra_window *w = &ra->w[i];

		if (w->len && (!len || (off < w->off + w->len &&
					w->off < off + len)))
			w->len = 0;
	}
}

static void *ahead_main(void *arg)
{
	struct ra_ahead *a = arg;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (a->state != AH_ASKED && a->state != AH_QUIT)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->state == AH_QUIT)
			break;
		pthread_mutex_unlock(&a->lock);
		a->rc = a->io->ops->read_bytes(a->io, a->off, a->buf, a->len);
		pthread_mutex_lock(&a->lock);
		a->state = AH_DONE;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* Waits for the thread's read to end (caller locked). */
static void ahead_wait(struct ra_ahead *a)
{
	while (a->state == AH_ASKED)
		pthread_cond_wait(&a->cond, &a->lock);
}

/* Before a write or a resize: the read in flight ends (the backend is
 * not read while it changes) and what it got is dropped. */
static void ahead_forget(struct ra_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	ahead_wait(a);
	if (a->state == AH_DONE)
		a->state = AH_IDLE;
	pthread_mutex_unlock(&a->lock);
}

/* The window whose buffer the thread holds while it runs. */
static struct ra_window *parked(struct extkit_readahead *ra)
{
	return &ra->w[RA_WINDOWS - 1];
}

/* Windows a miss may fill: all but the parked one while the thread runs. */
static int windows_in_use(const struct extkit_readahead *ra)
{
	return ra->ahead ? RA_WINDOWS - 1 : RA_WINDOWS;
}

/* Ends the thread; its buffer goes back to the parked window. */
static void ahead_stop(struct extkit_readahead *ra, struct ra_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	ahead_wait(a);
	a->state = AH_QUIT;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	parked(ra)->buf = a->buf;
	free(a);
}

/* Starts the thread with the last window's buffer (the window is
 * forgotten), or a new one when that window never had one. */
static struct ra_ahead *ahead_start(struct extkit_io *io,
				    struct extkit_readahead *ra)
{
	struct ra_ahead *a = calloc(1, sizeof(*a));
	struct ra_window *park = parked(ra);

	if (!a)
		return NULL;
	a->io = io;
	a->buf = park->buf ? park->buf : malloc(ra->cap);
	park->buf = NULL;
	park->len = 0;
	if (!a->buf || pthread_mutex_init(&a->lock, NULL))
		goto fail_buf;
	if (pthread_cond_init(&a->cond, NULL))
		goto fail_lock;
	if (pthread_create(&a->thread, NULL, ahead_main, a))
		goto fail_cond;
	return a;
fail_cond:
	pthread_cond_destroy(&a->cond);
fail_lock:
	pthread_mutex_destroy(&a->lock);
fail_buf:
	park->buf = a->buf;
	free(a);
	return NULL;
}

int extkit_io_readahead_thread(struct extkit_io *io, int on)
{
	struct extkit_readahead *ra = io->ra;

	if (!ra || !on == !ra->ahead)	/* already so */
		return 0;
	if (!on) {
		ahead_stop(ra, ra->ahead);
		ra->ahead = NULL;
		return 0;
	}
	ra->ahead = ahead_start(io, ra);
	return ra->ahead ? 0 : -ENOMEM;
}

/* Asks the thread for [off, off + size) clipped to the image, unless it
 * is busy (the caller went elsewhere and back: no second request). */
static void ahead_post(struct extkit_io *io, uint64_t off, size_t size)
{
	struct ra_ahead *a = io->ra->ahead;

	if (!a || off >= io->size)
		return;
	if (size > io->size - off)
		size = (size_t)(io->size - off);
	pthread_mutex_lock(&a->lock);
	if (a->state != AH_ASKED) {
		a->off = off;
		a->len = size;
		a->writes = io->writes;
		a->state = AH_ASKED;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
}

/* Window w gets the thread's read when it is [off, off + at least len)
 * and no write came since it was asked: the buffers are swapped. */
static int ahead_take(struct extkit_io *io, struct ra_window *w,
		      uint64_t off, size_t len)
{
	struct ra_ahead *a = io->ra->ahead;
	int have;
	uint8_t *t;

	if (!a)
		return 0;
	pthread_mutex_lock(&a->lock);
	if (a->state == AH_ASKED && a->off == off)
		ahead_wait(a);
	have = a->state == AH_DONE && !a->rc && a->off == off &&
	       a->len >= len && a->writes == io->writes;
	if (a->state == AH_DONE)
		a->state = AH_IDLE;
	pthread_mutex_unlock(&a->lock);
	if (!have)
		return 0;
	if (!w->buf) {
		w->buf = malloc(io->ra->cap);
		if (!w->buf)
			return 0;
	}
	t = w->buf;
	w->buf = a->buf;
	a->buf = t;
	w->off = off;
	w->len = a->len;
	w->last = a->len;
	return 1;
}

/* Fills window w with [start, start + size) clipped to the image. */
static int fill(struct extkit_io *io, struct ra_window *w, uint64_t start,
		size_t size)
{
	int rc;

	if (start >= io->size)
		return -1;
	if (size > io->size - start)
		size = (size_t)(io->size - start);
	w->len = 0;
	if (!w->buf) {
		w->buf = malloc(io->ra->cap);
		if (!w->buf)
			return -ENOMEM;
	}
	rc = io->ops->read_bytes(io, start, w->buf, size);
	if (rc)
		return rc;
	w->off = start;
	w->len = size;
	w->last = size;
	return 0;
}

/*
 * Whether off continues window w: right at its end. A reader that skips
 * (pass 2 going from one directory's inode to the next) gets what it
 * asks, not the bytes between: copying bytes costs more than the calls
 * it saves unless nearly all of them are used.
 */
static int continues(const struct ra_window *w, uint64_t off)
{
	return w->len && off == w->off + w->len;
}

/* The window for a miss at off: one it continues, else the LRU one. */
static struct ra_window *pick(struct extkit_readahead *ra, uint64_t off)
{
	struct ra_window *lru = &ra->w[0];

	for (int i = 0; i < windows_in_use(ra); i++) {
		if (continues(&ra->w[i], off))
			return &ra->w[i];
		if (ra->w[i].used < lru->used)
			lru = &ra->w[i];
	}
	return lru;
}

int extkit_io_prefetch(struct extkit_io *io, uint64_t off, size_t len)
{
	struct extkit_readahead *ra = io->ra;
	struct ra_window *w;

	if (!ra || !len || len > ra->cap || off > io->size ||
	    len > io->size - off)
		return 0;
	for (int i = 0; i < RA_WINDOWS; i++) {
		w = &ra->w[i];
		if (w->len && off >= w->off && off - w->off <= w->len &&
		    len <= w->len - (off - w->off))
			return 0;	/* held already */
	}
	w = pick(ra, off);
	w->used = ++ra->tick;
	return fill(io, w, off, len) ? -1 : 0;
}

int extkit_readahead_read(struct extkit_io *io, uint64_t off, void *buf,
			  size_t len)
{
	struct extkit_readahead *ra = io->ra;
	struct ra_window *w;
	size_t size = len;

	for (int i = 0; i < RA_WINDOWS; i++) {
		w = &ra->w[i];
		if (w->len && off >= w->off && off - w->off <= w->len &&
		    len <= w->len - (off - w->off))
			goto hit;
	}
	if (len >= ra->cap / 4)
		return io->ops->read_bytes(io, off, buf, len);
	w = pick(ra, off);
	if (continues(w, off)) {
		/* Onward: twice the last read, within the window; with a
		 * thread, it was made ahead, and the next one is asked. */
		size_t grow = w->last <= ra->cap / 2 ? w->last * 2 : ra->cap;

		if (grow > size)
			size = grow;
		if (!ahead_take(io, w, off, len) && fill(io, w, off, size))
			return io->ops->read_bytes(io, off, buf, len);
		ahead_post(io, w->off + w->len,
			   w->last <= ra->cap / 2 ? w->last * 2 : ra->cap);
		if (off + len > w->off + w->len)
			return io->ops->read_bytes(io, off, buf, len);
		goto hit;
	}
	if (fill(io, w, off, size) || off + len > w->off + w->len)
		return io->ops->read_bytes(io, off, buf, len);
hit:
	w->used = ++ra->tick;
	memcpy(buf, w->buf + (off - w->off), len);
	return 0;
}
