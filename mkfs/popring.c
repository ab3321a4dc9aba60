// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d: the reader threads' opens, reads and closes of small files
 * made in batches through an io_uring (liburing), one io_uring_enter
 * for a batch instead of one system call for each. Most of the time of
 * copying many small files goes into entering and leaving the kernel:
 * measured at 100,000 one-block files, the five calls a file (openat,
 * fstat, flistxattr, pread, close) took about twice the CPU of the same
 * work with openat, pread and close batched 64 at a time (bench/
 * populate.sh's header gives the figures). Not the fstat: a statx
 * through the ring always goes to the kernel's io-wq threads, and the
 * hand-off cost more than the call (100k files: CPU 1.39 s against
 * 1.27, context switches 11,000 against 4,000; medians of 5).
 *
 * Only what has a plain system call equivalent goes through the ring,
 * with the same arguments, so the outcome is the same either way; the
 * caller does whatever the ring did not (no ring, a refused setup, a
 * submission cut short) with the plain calls. Without liburing at build
 * time, or with EXTKIT_MKFS_NO_URING set, pop_ring_new returns NULL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "populate.h"

#ifdef HAVE_LIBURING
#include <liburing.h>

struct pop_ring {
	struct io_uring ring;
	int broken;	/* a submission or a wait failed: not used again */
};

/* An operation's result until its completion arrives (none is below
 * -4095, the lowest errno the kernel returns). */
#define NOT_DONE	(-100000)

struct pop_ring *pop_ring_new(const char **why)
{
	struct pop_ring *rg;
	int rc;

	if (getenv("EXTKIT_MKFS_NO_URING")) {
		*why = "EXTKIT_MKFS_NO_URING";
		return NULL;
	}
	rg = calloc(1, sizeof(*rg));
	if (!rg) {
		*why = strerror(ENOMEM);
		return NULL;
	}
	/* a batch of reads takes two entries a file (read, close) */
	rc = io_uring_queue_init(2 * POP_RING_BATCH, &rg->ring, 0);
	if (rc < 0) {		/* ENOSYS, EPERM (seccomp, sysctl), ... */
		*why = strerror(-rc);
		free(rg);
		return NULL;
	}
	*why = NULL;
	return rg;
}

void pop_ring_free(struct pop_ring *rg)
{
	if (!rg)
		return;
	io_uring_queue_exit(&rg->ring);
	free(rg);
}

/*
 * Submits the n entries prepared and waits for their completions,
 * storing each one's result in res[user_data]. The kernel takes
 * submitted entries in order: those past a failed submission never ran
 * and keep NOT_DONE; so do those whose completion a failed wait lost
 * (then *lost is set: whether they ran is unknown). Either failure
 * breaks the ring.
 */
static void run(struct pop_ring *rg, int n, int *res, int *lost)
{
	int sub = 0, got = 0, rc;

	*lost = 0;
	while (sub < n) {
		rc = io_uring_submit(&rg->ring);
		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc <= 0) {
			rg->broken = 1;
			break;
		}
		sub += rc;
	}
	while (got < sub) {
		struct io_uring_cqe *cqe;

		rc = io_uring_wait_cqe(&rg->ring, &cqe);
		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc < 0) {
			rg->broken = 1;
			*lost = 1;
			return;
		}
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&rg->ring, cqe);
		got++;
	}
}

int pop_ring_open(struct pop_ring *rg, int dfd, char (*names)[EXT2_NAME_LEN + 1],
		  int n, int *fds)
{
	int q = 0, lost;

	if (!rg || rg->broken || n > POP_RING_BATCH)
		return -1;
	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe;

		fds[i] = NOT_DONE;
		if (!names[i][0])
			continue;	/* not to be opened */
		sqe = io_uring_get_sqe(&rg->ring);
		io_uring_prep_openat(sqe, dfd, names[i],
				     O_RDONLY | O_NOFOLLOW | O_NOATIME, 0);
		io_uring_sqe_set_data64(sqe, (uint64_t)i);
		q++;
	}
	run(rg, q, fds, &lost);
	/* an open not done, or whose result was lost (its descriptor
	 * then leaks), is made again with openat by the caller */
	for (int i = 0; i < n; i++)
		if (fds[i] < 0)
			fds[i] = -1;
	return 0;
}

int pop_ring_read_close(struct pop_ring *rg, struct pop_ring_io *io, int n)
{
	int res[2 * POP_RING_BATCH], q = 0, lost;

	if (!rg || rg->broken || n > POP_RING_BATCH)
		return -1;
	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe;

		res[2 * i] = res[2 * i + 1] = NOT_DONE;
		if (io[i].len) {
			/* a hard link: the close runs whatever the read did
			 * (a short read would cancel a plain link) */
			sqe = io_uring_get_sqe(&rg->ring);
			io_uring_prep_read(sqe, io[i].fd, io[i].buf,
					   (unsigned)io[i].len, 0);
			io_uring_sqe_set_data64(sqe, (uint64_t)(2 * i));
			io_uring_sqe_set_flags(sqe, IOSQE_IO_HARDLINK);
			q++;
		}
		sqe = io_uring_get_sqe(&rg->ring);
		io_uring_prep_close(sqe, io[i].fd);
		io_uring_sqe_set_data64(sqe, (uint64_t)(2 * i + 1));
		q++;
	}
	run(rg, q, res, &lost);
	for (int i = 0; i < n; i++) {
		int rd = res[2 * i], cl = res[2 * i + 1];

		/* never ran: read and close here; lost: closed or not,
		 * the descriptor is not touched again */
		if (cl == NOT_DONE && !lost) {
			if (io[i].len && rd == NOT_DONE)
				rd = (int)pread(io[i].fd, io[i].buf,
						io[i].len, 0);
			close(io[i].fd);
		}
		io[i].got = rd == NOT_DONE ? -1 : rd;
	}
	return 0;
}

#else /* !HAVE_LIBURING */

struct pop_ring *pop_ring_new(const char **why)
{
	*why = "built without liburing";
	return NULL;
}

void pop_ring_free(struct pop_ring *rg)
{
	(void)rg;
}

int pop_ring_open(struct pop_ring *rg, int dfd, char (*names)[EXT2_NAME_LEN + 1],
		  int n, int *fds)
{
	(void)rg, (void)dfd, (void)names, (void)n, (void)fds;
	return -1;
}

int pop_ring_read_close(struct pop_ring *rg, struct pop_ring_io *io, int n)
{
	(void)rg, (void)io, (void)n;
	return -1;
}

#endif
