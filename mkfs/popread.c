// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d from a directory: the source read ahead on POP_READERS threads.
 * Most of the cost of copying many small files is the system calls made
 * for each (openat, fstat, pread, flistxattr, close); the readers make
 * them for the children of the directory being copied, in the sorted
 * order the builder numbers them, a ring of POP_RING records ahead --
 * each reader the next record no other has taken, so the calls spread
 * over the cores -- and the builder only encodes.
 *
 * The readers only prepare: they never print and never decide. Whatever
 * they could not do (a failed call, a file changed under them, attributes
 * to read) is left undone in the record, and the builder does it the
 * way it does without a reader -- so the image and the messages do not
 * depend on the readers, nor on the timing of the threads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ondisk.h"

#include "populate.h"

#define POP_RING	256		/* records read ahead */
#ifndef POP_READERS
#define POP_READERS	2		/* threads */
#endif
#define POP_SMALL	(32u << 10)	/* files read whole by the reader */
/* A thread that waits is woken once POP_BATCH records are ready for it
 * (or the job is done): not once for each, which would cost two context
 * switches a file when one thread keeps up with the other. */
#define POP_BATCH	64
/* Descriptors the ring may hold for the builder (large files, files with
 * attributes): past it the readers close them and the builder opens the
 * file again, so a low open file limit is no worse than without them. */
#define POP_HELD	32

struct pop_reader;
struct pop_reader_thread {
	struct pop_reader *rd;
	struct pop_ring *ring;	/* its own, or NULL: plain system calls */
	pthread_t id;
};

struct pop_reader {
	struct pop_reader_thread thread[POP_READERS];
	int nthreads;
	const char *no_ring;	/* why the readers have no ring, or NULL */
	pthread_mutex_t mu;
	pthread_cond_t wake_reader;
	pthread_cond_t wake_builder;
	struct pop_rec ring[POP_RING];
	/* the job: the children of directory dfd, names in db order */
	int dfd;
	const struct extkit_dirbuild *db;
	uint64_t n;
	uint64_t claimed;	/* records taken by a reader to fill */
	uint64_t made;		/* records filled, all of them before it */
	uint64_t used;		/* records given back (the builder's) */
	int job;		/* a job is set */
	int cancel;		/* the builder stopped early */
	int quit;
	int busy;		/* readers filling a record, out of the lock */
	int reader_waits;	/* readers waiting for free records or a job */
	uint64_t builder_waits;	/* for the records before this (0: none) */
	atomic_int held;	/* descriptors in records not yet used */
};

/* Whether the records before w are all filled, or will never be (with
 * the lock held). */
static int made_up_to(const struct pop_reader *rd, uint64_t w)
{
	return rd->cancel || rd->made >= w || rd->made == rd->n;
}

/* Opens a regular file as open_data does (populate.c), without the
 * retry after EMFILE: that is the builder's to do. */
static int open_file(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOATIME);

	if (fd < 0 && errno == EPERM)
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
	return fd;
}

/* Reads a small file whole into r->data; 0 when not done. */
static int read_small(struct pop_rec *r)
{
	size_t size = (size_t)r->st.st_size;
	ssize_t n;

	/* a sparse file goes through the builder's SEEK_DATA walk */
	if (size > POP_SMALL || (uint64_t)r->st.st_blocks * 512 < size)
		return 0;
	if (!r->data) {
		r->data = malloc(POP_SMALL);
		if (!r->data)
			return 0;
	}
	n = pread(r->fd, r->data, size, 0);
	return n >= 0 && (size_t)n == size;
}

/*
 * Takes r's lstat and, for a regular file, opens it (fd: opened through
 * the ring already, or -1). readdir said it is a regular file (ftype):
 * opened first, then its fstat -- the same as
 * its lstat, O_NOFOLLOW having refused a symbolic link -- so the name is
 * looked up once. Anything else: its lstat, then opened when regular.
 */
static void stat_open(int dfd, const char *name, uint8_t ftype, int fd,
		      struct pop_rec *r)
{
	if (ftype == EXT2_FT_REG_FILE) {
		r->fd = fd >= 0 ? fd : open_file(dfd, name);
		if (r->fd >= 0) {
			r->stat_ok = !fstat(r->fd, &r->st);
			if (r->stat_ok && S_ISREG(r->st.st_mode))
				return;
			close(r->fd);	/* replaced since readdir */
			r->fd = -1;
		}
	}
	r->stat_ok = !fstatat(dfd, name, &r->st, AT_SYMLINK_NOFOLLOW);
	if (r->stat_ok && S_ISREG(r->st.st_mode))
		r->fd = open_file(dfd, name);
}

/* Opens and stats r (fd: the file opened already, or -1), and whether
 * it has attributes. */
static void prepare_open(int dfd, const char *name, uint8_t ftype, int fd,
			 struct pop_rec *r)
{
	ssize_t nx;

	r->fd = -1;
	r->opened = 0;
	r->have_data = 0;
	r->no_xattrs = 0;
	stat_open(dfd, name, ftype, fd, r);
	if (r->fd < 0)
		return;		/* the builder tries again, and says why */
	r->opened = 1;
	nx = flistxattr(r->fd, NULL, 0);
	r->no_xattrs = nx == 0 || (nx < 0 && errno == ENOTSUP);
}

/* Reads r's data when small, and closes its descriptor or keeps it for
 * the builder. */
static void prepare_finish(struct pop_reader *rd, struct pop_rec *r)
{
	if (r->fd < 0)
		return;
	if (r->st.st_size > 0)
		r->have_data = read_small(r);
	/* nothing left for the descriptor: close it here */
	if (r->no_xattrs && (r->have_data || r->st.st_size == 0)) {
		close(r->fd);
		r->fd = -1;
	} else if (atomic_fetch_add(&rd->held, 1) >= POP_HELD) {
		atomic_fetch_sub(&rd->held, 1);
		close(r->fd);	/* too many held: the builder opens it */
		r->fd = -1;
		r->opened = 0;
		r->have_data = 0;
	}
}

/* Whether r is a small file without attributes: read whole and closed
 * (read_small's test). */
static int small_plain(const struct pop_rec *r)
{
	size_t size = (size_t)r->st.st_size;

	return r->fd >= 0 && r->no_xattrs && size <= POP_SMALL &&
	       (uint64_t)r->st.st_blocks * 512 >= size;
}

/*
 * Fills the n records of a batch through the ring: the regular files
 * (by readdir's type) opened in one submission; then each one's fstat
 * and flistxattr, which have no equivalent there; then the small files
 * without attributes read whole and closed, and the empty ones closed,
 * in another. Whatever else (or all, when the ring cannot) is done as
 * without the ring, so the records are the same.
 */
static void prepare_batch(struct pop_reader *rd, struct pop_ring *rg,
			  int dfd, char (*names)[EXT2_NAME_LEN + 1],
			  const uint8_t *ftype, struct pop_rec **r, int n)
{
	char want[POP_RING_BATCH][EXT2_NAME_LEN + 1];
	int fds[POP_RING_BATCH], k = 0, ring_ok;
	struct pop_ring_io io[POP_RING_BATCH];
	struct pop_rec *in_io[POP_RING_BATCH];

	for (int i = 0; i < n; i++) {
		want[i][0] = 0;
		if (ftype[i] == EXT2_FT_REG_FILE)
			memcpy(want[i], names[i], strlen(names[i]) + 1);
	}
	if (pop_ring_open(rg, dfd, want, n, fds))
		for (int i = 0; i < n; i++)
			fds[i] = -1;
	for (int i = 0; i < n; i++) {
		prepare_open(dfd, names[i], ftype[i], fds[i], r[i]);
		if (!small_plain(r[i]))
			continue;
		if (r[i]->st.st_size > 0 && !r[i]->data &&
		    !(r[i]->data = malloc(POP_SMALL)))
			continue;
		io[k] = (struct pop_ring_io){
			.fd = r[i]->fd, .buf = r[i]->data,
			.len = (size_t)r[i]->st.st_size,
		};
		in_io[k++] = r[i];
	}
	ring_ok = k && !pop_ring_read_close(rg, io, k);
	for (int j = 0; ring_ok && j < k; j++) {
		struct pop_rec *x = in_io[j];

		x->fd = -1;
		x->have_data = x->st.st_size > 0 && io[j].got >= 0 &&
			       (size_t)io[j].got == (size_t)x->st.st_size;
		/* closed unread: the builder opens it again */
		if (x->st.st_size > 0 && !x->have_data)
			x->opened = 0;
	}
	for (int i = 0; i < n; i++)
		prepare_finish(rd, r[i]);	/* not through the ring */
}

/* The builder is done with r's descriptor (taken or closed). */
static void drop_fd(struct pop_reader *rd, struct pop_rec *r, int close_it)
{
	if (r->fd < 0)
		return;
	if (close_it)
		close(r->fd);
	r->fd = -1;
	atomic_fetch_sub(&rd->held, 1);
}

int pop_reader_take_fd(struct pop_reader *rd, struct pop_rec *r)
{
	int fd = r->fd;

	drop_fd(rd, r, 0);
	return fd;
}

/* Whether a record waits for a reader (with the lock held). */
static int can_fill(const struct pop_reader *rd)
{
	return rd->job && !rd->cancel && rd->claimed < rd->n &&
	       rd->claimed - rd->used < POP_RING;
}

/* The records a reader takes at once (with the lock held): a batch for
 * the ring, else one. */
static int batch_size(const struct pop_reader *rd, const struct pop_ring *rg)
{
	uint64_t k = rg ? POP_RING_BATCH : 1;

	if (k > rd->n - rd->claimed)
		k = rd->n - rd->claimed;
	if (k > POP_RING - (rd->claimed - rd->used))
		k = POP_RING - (rd->claimed - rd->used);
	return (int)k;
}

/*
 * Each reader takes the next records not taken (a batch with a ring),
 * whichever they are: one reader held up (its core taken by another
 * process) holds up one batch, while the other goes on with the next.
 */
static void *reader_main(void *arg)
{
	struct pop_reader_thread *t = arg;
	struct pop_reader *rd = t->rd;
	char names[POP_RING_BATCH][EXT2_NAME_LEN + 1];
	uint8_t ftype[POP_RING_BATCH];
	struct pop_rec *r[POP_RING_BATCH];

	pthread_mutex_lock(&rd->mu);
	for (;;) {
		while (!rd->quit && !can_fill(rd)) {
			rd->reader_waits++;
			pthread_cond_wait(&rd->wake_reader, &rd->mu);
			rd->reader_waits--;
		}
		if (rd->quit)
			break;
		{
			int n = batch_size(rd, t->ring);
			int dfd = rd->dfd;

			for (int j = 0; j < n; j++) {
				uint64_t i = rd->claimed++;
				const struct extkit_dirbuild_entry *e =
					&rd->db->e[i];

				/* the names do not move while the job lasts */
				memcpy(names[j], rd->db->names + e->name_off,
				       e->len);
				names[j][e->len] = 0;
				ftype[j] = e->ftype;
				r[j] = &rd->ring[i % POP_RING];
			}
			rd->busy++;
			pthread_mutex_unlock(&rd->mu);
			prepare_batch(rd, t->ring, dfd, names, ftype, r, n);
			pthread_mutex_lock(&rd->mu);
			rd->busy--;
			for (int j = 0; j < n; j++)
				r[j]->ready = 1;
			while (rd->made < rd->claimed &&
			       rd->ring[rd->made % POP_RING].ready)
				rd->made++;
		}
		/* the builder waits for a batch, or for the end of the job
		 * (cancel: for busy to fall to 0) */
		if (rd->builder_waits && made_up_to(rd, rd->builder_waits) &&
		    (!rd->cancel || !rd->busy))
			pthread_cond_signal(&rd->wake_builder);
	}
	pthread_mutex_unlock(&rd->mu);
	return NULL;
}

static void reader_stop(struct pop_reader *rd)
{
	pthread_mutex_lock(&rd->mu);
	rd->quit = 1;
	pthread_cond_broadcast(&rd->wake_reader);
	pthread_mutex_unlock(&rd->mu);
	for (int j = 0; j < rd->nthreads; j++)
		pthread_join(rd->thread[j].id, NULL);
}

static void reader_destroy(struct pop_reader *rd)
{
	for (int i = 0; i < POP_RING; i++)
		free(rd->ring[i].data);
	for (int j = 0; j < POP_READERS; j++)
		pop_ring_free(rd->thread[j].ring);
	pthread_cond_destroy(&rd->wake_reader);
	pthread_cond_destroy(&rd->wake_builder);
	pthread_mutex_destroy(&rd->mu);
	free(rd);
}

struct pop_reader *pop_reader_new(void)
{
	struct pop_reader *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return NULL;
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->wake_reader, NULL);
	pthread_cond_init(&rd->wake_builder, NULL);
	for (int i = 0; i < POP_RING; i++)
		rd->ring[i].fd = -1;
	for (int j = 0; j < POP_READERS; j++) {
		struct pop_reader_thread *t = &rd->thread[rd->nthreads];
		const char *why = NULL;

		t->rd = rd;
		t->ring = pop_ring_new(&why);
		if (!t->ring)
			rd->no_ring = why;
		if (pthread_create(&t->id, NULL, reader_main, t)) {
			pop_ring_free(t->ring);
			t->ring = NULL;
			break;
		}
		rd->nthreads++;
	}
	if (!rd->nthreads) {	/* one is enough */
		reader_destroy(rd);
		return NULL;
	}
	return rd;
}

const char *pop_reader_no_ring(const struct pop_reader *rd)
{
	return rd->no_ring;
}

void pop_reader_free(struct pop_reader *rd)
{
	if (!rd)
		return;
	reader_stop(rd);
	reader_destroy(rd);
}

void pop_reader_start(struct pop_reader *rd, int dfd,
		      const struct extkit_dirbuild *db)
{
	pthread_mutex_lock(&rd->mu);
	rd->dfd = dfd;
	rd->db = db;
	rd->n = db->n;
	rd->claimed = 0;
	rd->made = 0;
	rd->used = 0;
	rd->cancel = 0;
	rd->job = 1;
	if (rd->reader_waits)
		pthread_cond_broadcast(&rd->wake_reader);
	pthread_mutex_unlock(&rd->mu);
}

struct pop_rec *pop_reader_get(struct pop_reader *rd)
{
	struct pop_rec *r;

	pthread_mutex_lock(&rd->mu);
	while (rd->made == rd->used) {
		rd->builder_waits = rd->used + POP_BATCH;
		pthread_cond_wait(&rd->wake_builder, &rd->mu);
		rd->builder_waits = 0;
	}
	r = &rd->ring[rd->used % POP_RING];
	pthread_mutex_unlock(&rd->mu);
	return r;
}

void pop_reader_put(struct pop_reader *rd, struct pop_rec *r)
{
	drop_fd(rd, r, 1);	/* not taken: a hard link met before */
	pthread_mutex_lock(&rd->mu);
	r->ready = 0;
	rd->used++;
	/* wake the readers when a batch of records is free */
	if (rd->reader_waits && rd->used % POP_BATCH == 0)
		pthread_cond_broadcast(&rd->wake_reader);
	pthread_mutex_unlock(&rd->mu);
}

void pop_reader_end(struct pop_reader *rd)
{
	pthread_mutex_lock(&rd->mu);
	rd->cancel = 1;
	while (rd->busy) {
		rd->builder_waits = 1;
		pthread_cond_wait(&rd->wake_builder, &rd->mu);
		rd->builder_waits = 0;
	}
	rd->job = 0;
	/* records read but not used (the builder stopped on an error) */
	for (uint64_t i = rd->used; i < rd->claimed; i++) {
		drop_fd(rd, &rd->ring[i % POP_RING], 1);
		rd->ring[i % POP_RING].ready = 0;
	}
	pthread_mutex_unlock(&rd->mu);
}
