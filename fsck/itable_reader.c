// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode table reader of pass 1 (itable_reader.h). Two buffers: the
 * one the caller checks, and the one the thread fills. One request at a
 * time, under a mutex: post hands a range to the thread, get waits for
 * it. The thread calls the io backend's read directly (a pread: safe
 * beside the caller's reads) and, with metadata_csum, verifies the
 * inode checksums of what it read (from its own copy of the superblock
 * and geometry); it touches nothing else.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "csum.h"
#include "fs.h"
#include "itable_reader.h"

enum { R_IDLE, R_ASKED, R_DONE, R_QUIT };

struct itable_reader {
	struct extkit_io *io;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state;
	uint8_t *buf[2];	/* [0] the caller's, [1] the thread's */
	uint8_t *ok[2];		/* their inodes' checksum verdicts */
	const struct extkit_fs *fs;	/* checksums to verify (&snap), or
					 * NULL */
	struct extkit_fs snap;	/* the superblock and geometry, copied: the
				 * caller may edit its own (pass 1 sets
				 * feature bits the checksums do not use) */
	size_t cap;
	uint64_t off;		/* the request */
	size_t len;
	uint32_t first_ino;	/* the request's first inode, and how many */
	uint32_t ninodes;	/* are to be verified */
	uint64_t writes;	/* io writes when it was posted */
	int rc;
};

/* The checksum verdict of every inode the request asked for. */
static void verify_chunk(struct itable_reader *r)
{
	uint32_t isz = r->fs->g.inode_size;

	for (uint32_t i = 0; i < r->ninodes; i++)
		r->ok[1][i] = (uint8_t)extkit_inode_csum_verify(r->fs,
					r->first_ino + i,
					r->buf[1] + (size_t)i * isz);
}

static void *reader_main(void *arg)
{
	struct itable_reader *r = arg;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (r->state != R_ASKED && r->state != R_QUIT)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->state == R_QUIT)
			break;
		pthread_mutex_unlock(&r->lock);
		r->rc = r->io->ops->read_bytes(r->io, r->off, r->buf[1],
					       r->len);
		if (!r->rc && r->fs)
			verify_chunk(r);
		pthread_mutex_lock(&r->lock);
		r->state = R_DONE;
		pthread_cond_broadcast(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct itable_reader *itable_reader_new(struct extkit_io *io, size_t bytes,
				       const struct extkit_fs *fs)
{
	struct itable_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->io = io;
	r->cap = bytes;
	r->buf[0] = malloc(bytes);
	r->buf[1] = malloc(bytes);
	if (!r->buf[0] || !r->buf[1])
		goto fail;
	if (fs && extkit_has_metadata_csum(&fs->sb)) {
		r->snap.sb = fs->sb;
		r->snap.g = fs->g;
		r->fs = &r->snap;
		r->ok[0] = malloc(bytes / fs->g.inode_size + 1);
		r->ok[1] = malloc(bytes / fs->g.inode_size + 1);
		if (!r->ok[0] || !r->ok[1])
			goto fail;
		extkit_crc32c_prepare();	/* before the thread uses it */
	}
	if (pthread_mutex_init(&r->lock, NULL))
		goto fail;
	if (pthread_cond_init(&r->cond, NULL)) {
		pthread_mutex_destroy(&r->lock);
		goto fail;
	}
	if (pthread_create(&r->thread, NULL, reader_main, r)) {
		pthread_cond_destroy(&r->cond);
		pthread_mutex_destroy(&r->lock);
		goto fail;
	}
	return r;
fail:
	free(r->buf[0]);
	free(r->buf[1]);
	free(r->ok[0]);
	free(r->ok[1]);
	free(r);
	return NULL;
}

/* Waits for the thread to finish what it was asked (caller locked). */
static void wait_idle(struct itable_reader *r)
{
	while (r->state == R_ASKED)
		pthread_cond_wait(&r->cond, &r->lock);
}

void itable_reader_post(struct itable_reader *r, uint64_t blk,
			uint32_t count, uint32_t first_ino, uint32_t ninodes)
{
	uint64_t bs = r->io->block_size, off;
	size_t len;

	if (!bs || !count || count > r->cap / bs || blk > r->io->size / bs)
		return;		/* the plain read will say what is wrong */
	off = blk * bs;
	len = (size_t)count * bs;
	if (len > r->io->size - off)
		return;
	pthread_mutex_lock(&r->lock);
	wait_idle(r);
	r->off = off;
	r->len = len;
	r->first_ino = first_ino;
	r->ninodes = r->fs && (uint64_t)ninodes * r->fs->g.inode_size <= len ?
		     ninodes : 0;
	r->writes = extkit_io_writes(r->io);
	r->state = R_ASKED;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

int itable_reader_get(struct itable_reader *r, uint64_t blk, uint32_t count,
		      uint32_t first_ino, uint32_t ninodes, uint8_t **bufp,
		      const uint8_t **okp)
{
	uint64_t bs = r->io->block_size;
	int have = 0, verified = 0;

	pthread_mutex_lock(&r->lock);
	wait_idle(r);
	if (r->state == R_DONE) {
		have = !r->rc && bs && blk <= r->io->size / bs &&
		       r->off == blk * bs &&
		       r->len == (size_t)count * bs &&
		       r->writes == extkit_io_writes(r->io);
		verified = have && r->ninodes && r->first_ino == first_ino &&
			   r->ninodes == ninodes;
		r->state = R_IDLE;
	}
	pthread_mutex_unlock(&r->lock);
	*okp = NULL;
	if (have) {
		uint8_t *t = r->buf[0];

		r->buf[0] = r->buf[1];
		r->buf[1] = t;
		t = r->ok[0];
		r->ok[0] = r->ok[1];
		r->ok[1] = t;
		*bufp = r->buf[0];
		if (verified)
			*okp = r->ok[0];
		return 0;
	}
	*bufp = r->buf[0];
	if (!bs || count > r->cap / bs)
		return -EINVAL;
	return extkit_io_read_blocks(r->io, blk, count, r->buf[0]);
}

void itable_reader_free(struct itable_reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	wait_idle(r);
	r->state = R_QUIT;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r->buf[0]);
	free(r->buf[1]);
	free(r->ok[0]);
	free(r->ok[1]);
	free(r);
}
