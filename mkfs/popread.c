// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d from a directory: the source read ahead on a second thread.
 * Most of the cost of copying many small files is the system calls made
 * for each (fstatat, openat, pread, flistxattr, close); the reader makes
 * them for the children of the directory being copied, in the sorted
 * order the builder numbers them, a ring of POP_RING records ahead, so
 * the builder only encodes.
 *
 * The reader only prepares: it never prints and never decides. Whatever
 * it could not do (a failed call, a file changed under it, attributes
 * to read) is left undone in the record, and the builder does it the
 * way it does without a reader -- so the image and the messages do not
 * depend on the reader, nor on the timing of the two threads.
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

#include "populate.h"

#define POP_RING	256		/* records read ahead */
#define POP_SMALL	(32u << 10)	/* files read whole by the reader */
/* A thread that waits is woken once POP_BATCH records are ready for it
 * (or the job is done): not once for each, which would cost two context
 * switches a file when one thread keeps up with the other. */
#define POP_BATCH	64
/* Descriptors the ring may hold for the builder (large files, files with
 * attributes): past it the reader closes them and the builder opens the
 * file again, so a low open file limit is no worse than without it. */
#define POP_HELD	32

struct pop_reader {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake_reader;
	pthread_cond_t wake_builder;
	struct pop_rec ring[POP_RING];
	/* the job: the children of directory dfd, names in db order */
	int dfd;
	const struct extkit_dirbuild *db;
	uint64_t n;
	uint64_t made;		/* records filled (the reader's count) */
	uint64_t used;		/* records given back (the builder's) */
	int job;		/* a job is set and not finished */
	int cancel;		/* the builder stopped early */
	int quit;
	atomic_int held;	/* descriptors in records not yet used */
	int reader_waits;	/* for free records or a job */
	uint64_t builder_waits;	/* for made to reach this (0: not waiting) */
};

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

/* Fills record r for name: its lstat; for a regular file, its open
 * descriptor, its data when small and whether it has attributes. */
static void prepare(struct pop_reader *rd, int dfd, const char *name,
		    struct pop_rec *r)
{
	ssize_t nx;

	r->stat_ok = !fstatat(dfd, name, &r->st, AT_SYMLINK_NOFOLLOW);
	r->fd = -1;
	r->opened = 0;
	r->have_data = 0;
	r->no_xattrs = 0;
	if (!r->stat_ok || !S_ISREG(r->st.st_mode))
		return;
	r->fd = open_file(dfd, name);
	if (r->fd < 0)
		return;		/* the builder tries again, and says why */
	r->opened = 1;
	nx = flistxattr(r->fd, NULL, 0);
	r->no_xattrs = nx == 0 || (nx < 0 && errno == ENOTSUP);
	if (r->st.st_size > 0)
		r->have_data = read_small(r);
	/* nothing left for the descriptor: close it here */
	if (r->no_xattrs && (r->have_data || r->st.st_size == 0)) {
		close(r->fd);
		r->fd = -1;
	} else if (atomic_load(&rd->held) >= POP_HELD) {
		close(r->fd);	/* too many held: the builder opens it */
		r->fd = -1;
		r->opened = 0;
		r->have_data = 0;
	} else {
		atomic_fetch_add(&rd->held, 1);
	}
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

static void *reader_main(void *arg)
{
	struct pop_reader *rd = arg;
	char name[EXT2_NAME_LEN + 1];

	pthread_mutex_lock(&rd->mu);
	for (;;) {
		while (!rd->quit && (!rd->job || rd->cancel ||
		       rd->made == rd->n || rd->made - rd->used == POP_RING)) {
			if (rd->job && (rd->cancel || rd->made == rd->n)) {
				rd->job = 0;	/* done: tell the builder */
				pthread_cond_signal(&rd->wake_builder);
			}
			rd->reader_waits = 1;
			pthread_cond_wait(&rd->wake_reader, &rd->mu);
			rd->reader_waits = 0;
		}
		if (rd->quit)
			break;
		{
			const struct extkit_dirbuild_entry *e =
				&rd->db->e[rd->made];
			struct pop_rec *r = &rd->ring[rd->made % POP_RING];
			int dfd = rd->dfd;

			/* the names do not move while the job lasts */
			memcpy(name, rd->db->names + e->name_off, e->len);
			name[e->len] = 0;
			pthread_mutex_unlock(&rd->mu);
			prepare(rd, dfd, name, r);
			pthread_mutex_lock(&rd->mu);
		}
		rd->made++;
		if (rd->builder_waits && (rd->made >= rd->builder_waits ||
					  rd->made == rd->n))
			pthread_cond_signal(&rd->wake_builder);
	}
	pthread_mutex_unlock(&rd->mu);
	return NULL;
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
	if (pthread_create(&rd->thread, NULL, reader_main, rd)) {
		pthread_cond_destroy(&rd->wake_reader);
		pthread_cond_destroy(&rd->wake_builder);
		pthread_mutex_destroy(&rd->mu);
		free(rd);
		return NULL;
	}
	return rd;
}

void pop_reader_free(struct pop_reader *rd)
{
	if (!rd)
		return;
	pthread_mutex_lock(&rd->mu);
	rd->quit = 1;
	pthread_cond_signal(&rd->wake_reader);
	pthread_mutex_unlock(&rd->mu);
	pthread_join(rd->thread, NULL);
	for (int i = 0; i < POP_RING; i++)
		free(rd->ring[i].data);
	pthread_cond_destroy(&rd->wake_reader);
	pthread_cond_destroy(&rd->wake_builder);
	pthread_mutex_destroy(&rd->mu);
	free(rd);
}

void pop_reader_start(struct pop_reader *rd, int dfd,
		      const struct extkit_dirbuild *db)
{
	pthread_mutex_lock(&rd->mu);
	rd->dfd = dfd;
	rd->db = db;
	rd->n = db->n;
	rd->made = 0;
	rd->used = 0;
	rd->cancel = 0;
	rd->job = 1;
	if (rd->reader_waits)
		pthread_cond_signal(&rd->wake_reader);
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
	rd->used++;
	if (rd->reader_waits && rd->made - rd->used <= POP_RING - POP_BATCH)
		pthread_cond_signal(&rd->wake_reader);
	pthread_mutex_unlock(&rd->mu);
}

void pop_reader_end(struct pop_reader *rd)
{
	pthread_mutex_lock(&rd->mu);
	rd->cancel = 1;
	if (rd->reader_waits)
		pthread_cond_signal(&rd->wake_reader);
	while (rd->job) {
		rd->builder_waits = rd->made + 1;
		pthread_cond_wait(&rd->wake_builder, &rd->mu);
		rd->builder_waits = 0;
	}
	/* records read but not used (the builder stopped on an error) */
	for (; rd->used < rd->made; rd->used++) {
		drop_fd(rd, &rd->ring[rd->used % POP_RING], 1);
	}
	pthread_mutex_unlock(&rd->mu);
}
