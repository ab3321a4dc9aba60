// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: file data written past the page cache, on a writer thread.
 *
 * File data is written once and never read back, so copying it into the
 * page cache only for the kernel to write it out later is CPU spent for
 * nothing: at 100,000 one-block files that copy
 * (copy_folio_from_iter_atomic) was a third of the samples, and at 1M
 * files (4 GB of data) close to half. Here the builder fills a buffer
 * and hands it to a thread that writes it with O_DIRECT on a second
 * descriptor of the target (extkit_io_direct_fd), while the builder goes
 * on with the next buffer (WRITER_BUFS of POP_BUF bytes in all); the
 * disk then works beside the builder and the final flush has nothing of
 * the data left to write. The inode table window (popitab.c) goes out
 * the same way; what reads table blocks back waits for the writer first
 * (pop_writer_wait), as a buffered read does not see queued writes.
 * The first POP_CACHED bytes still go through the page cache, the
 * writer taking over after them (pop_direct_now): for a small tree the
 * cache is faster, its writes returning before the disk has them.
 *
 * Used when the io gives such a descriptor (an image file or a device,
 * not behind an undo file) and the block size is a multiple of both the
 * page size and 4096, so that every run of blocks, and each buffer
 * (page-aligned), suits a device of sectors up to 4 KiB and no page of
 * the cache holds both data written here and metadata written through
 * the io. A write refused with EINVAL (a filesystem without O_DIRECT, or
 * asking another alignment) is made again without O_DIRECT, and so are
 * all later ones, unless the io itself is direct (-D: EXTKIT_IO_DIRECT):
 * then the write fails. Otherwise, or with EXTKIT_MKFS_NO_DIRECT set,
 * the data goes through the io (page cache, or O_DIRECT with -D) as
 * before. The bytes are the same either way; only who copies them
 * differs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "io.h"

#include "populate.h"

/* two being filled (file data, the inode table window), the others
 * queued */
#define WRITER_BUFS	6

struct wjob {
	uint8_t *buf;
	size_t from;	/* bytes buf[from, from + len) */
	size_t len;
	uint64_t off;	/* to byte off of the target */
};

struct pop_writer {
	struct extkit_io *io;	/* counts the bytes (main thread only) */
	int fd;
	int direct;		/* fd still has O_DIRECT */
	int must_direct;	/* -D: no going back to the page cache */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a job queued, done, or stop */
	uint8_t *bufs[WRITER_BUFS];
	uint8_t *idle[WRITER_BUFS];	/* buffers free to fill */
	int nidle;
	struct wjob q[WRITER_BUFS];	/* jobs to write, in order */
	int qhead;
	int qn;
	int busy;		/* the thread is writing a job */
	uint64_t jobs;		/* jobs written */
	int stop;
	int err;		/* the first failure; later jobs not written */
};

/* pwrite of the whole job, again without O_DIRECT when refused. */
static int write_job(struct pop_writer *w, const struct wjob *j)
{
	const uint8_t *p = j->buf + j->from;
	uint64_t off = j->off;
	size_t len = j->len;

	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)off);

#ifdef EXTKIT_TEST_HOOKS
		/* tests: O_DIRECT refused, as by a filesystem without it */
		if (n >= 0 && w->direct && getenv("EXTKIT_TEST_DIRECT_EINVAL"))
			n = -1, errno = EINVAL;
#endif
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EINVAL && w->direct && !w->must_direct) {
			int fl = fcntl(w->fd, F_GETFL);

			if (fl < 0 || fcntl(w->fd, F_SETFL, fl & ~O_DIRECT))
				return -EINVAL;
			pthread_mutex_lock(&w->mu);
			w->direct = 0;
			pthread_mutex_unlock(&w->mu);
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct pop_writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct wjob j;
		int rc = 0;

		while (!w->qn && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->qn)
			break;
		j = w->q[w->qhead];
		w->qhead = (w->qhead + 1) % WRITER_BUFS;
		w->qn--;
		w->busy = 1;
		pthread_mutex_unlock(&w->mu);
		if (!w->err)	/* read unlocked: only this thread sets it */
			rc = write_job(w, &j);
		pthread_mutex_lock(&w->mu);
		if (rc && !w->err)
			w->err = rc;
		w->idle[w->nidle++] = j.buf;
		w->busy = 0;
		w->jobs++;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static int usable(struct extkit_io *io, uint32_t block_size)
{
	long page = sysconf(_SC_PAGESIZE);

	if (getenv("EXTKIT_MKFS_NO_DIRECT") || page <= 0)
		return 0;
	return block_size % 4096 == 0 && block_size % (uint32_t)page == 0 &&
	       POP_BUF % (uint32_t)page == 0 && io != NULL;
}

int pop_direct_now(const struct pop *p)
{
	return p->wr && p->cached >= p->direct_after;
}

struct pop_writer *pop_writer_new(struct extkit_io *io, uint32_t block_size)
{
	struct pop_writer *w;
	long page = sysconf(_SC_PAGESIZE);
	int fd, i;

	if (!usable(io, block_size))
		return NULL;
	fd = extkit_io_direct_fd(io);
	if (fd < 0)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return NULL;
	}
	w->io = io;
	w->fd = fd;
	w->direct = 1;
	w->must_direct = !!(io->flags & EXTKIT_IO_DIRECT);
	for (i = 0; i < WRITER_BUFS; i++) {
		if (posix_memalign((void **)&w->bufs[i], (size_t)page, POP_BUF))
			break;
		w->idle[w->nidle++] = w->bufs[i];
	}
	if (i < WRITER_BUFS || pthread_mutex_init(&w->mu, NULL))
		goto fail;
	if (pthread_cond_init(&w->cv, NULL)) {
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	return w;
fail:
	for (i = 0; i < WRITER_BUFS; i++)
		free(w->bufs[i]);
	close(fd);
	free(w);
	return NULL;
}

uint8_t *pop_writer_buf(struct pop_writer *w)
{
	uint8_t *buf;

	pthread_mutex_lock(&w->mu);
	while (!w->nidle)
		pthread_cond_wait(&w->cv, &w->mu);
	buf = w->idle[--w->nidle];
	pthread_mutex_unlock(&w->mu);
	return buf;
}

int pop_writer_queue(struct pop_writer *w, uint8_t *buf, size_t from,
		     size_t len, uint64_t off)
{
	int rc;

	extkit_io_add_written(w->io, len);
	pthread_mutex_lock(&w->mu);
	/* at most WRITER_BUFS buffers exist: the queue has room */
	w->q[(w->qhead + w->qn) % WRITER_BUFS] =
		(struct wjob){ .buf = buf, .from = from, .len = len,
			       .off = off };
	w->qn++;
	rc = w->err;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return rc;
}

int pop_writer_wait(struct pop_writer *w)
{
	int rc;

	pthread_mutex_lock(&w->mu);
	while (w->qn || w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	rc = w->err;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

int pop_writer_direct(struct pop_writer *w)
{
	int r;

	pthread_mutex_lock(&w->mu);
	r = !w->direct ? -1 : w->jobs ? 1 : 0;
	pthread_mutex_unlock(&w->mu);
	return r;
}

void pop_writer_free(struct pop_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;	/* the thread writes what is queued, then ends */
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	for (int i = 0; i < WRITER_BUFS; i++)
		free(w->bufs[i]);
	close(w->fd);
	free(w);
}
