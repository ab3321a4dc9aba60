// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Undo log in e2fsprogs' format (struct e2undo_header in ondisk.h), as an
 * io that wraps the target. Each target block (of the undo block size) is
 * saved once, on the first write that touches it: its old bytes are
 * appended to the undo file and described by a key; consecutive blocks
 * share one key, up to E2UNDO_MAX_EXTENT_BLOCKS - 1 blocks. A key block is
 * followed by the data of its keys; the next key block comes after that
 * data, which is where e2undo looks for it.
 *
 * Write-ahead, in batches: a write saves the old contents of the blocks
 * it touches to the undo file (not yet flushed) and is then held in a
 * queue (reads through the undo io see it). When the queue is full, on a
 * flush, a zeroing, finish or close, the key block and the header are
 * written, the undo file is flushed once, and only then are the queued
 * writes passed on to the target, in order. So no target block is
 * overwritten before its old contents are durable, and a repair pays one
 * fsync per batch instead of one per newly saved block.
 * The set of saved blocks is a bitmap allocated in chunks on first use, so
 * memory grows with what was written, not with the device; the queue is
 * bounded by BATCH_WRITES and BATCH_BYTES.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "ondisk.h"
#include "undo.h"

#define CHUNK_BITS	(1u << 15)	/* saved-map bits per chunk (4 KiB) */
#define SUPER_OFFSET	1024
#define SUPER_SIZE	1024
#define HDR_BLOCK	0		/* undo block of the header */
#define SUPER_BLOCK	1		/* undo block of the superblock copy */
#define FIRST_KEY_BLOCK	2
#define BATCH_WRITES	256		/* queued target writes at most */
#define BATCH_BYTES	(4u << 20)	/* and their bytes */

/* A target write held until its batch's undo data is durable. */
struct pending {
	uint64_t off;
	size_t len;
	uint8_t *data;
};

struct undo_priv {
	struct extkit_io *target;
	struct extkit_io *file;
	uint32_t bs;			/* undo block size; 0 until set up */
	uint32_t keys_per_block;
	uint32_t keys_in_block;		/* keys in keyb */
	uint64_t key_blk;		/* undo block that keyb goes to */
	uint64_t next_blk;		/* next free undo block */
	uint64_t num_keys;
	uint64_t saved;			/* blocks saved */
	uint64_t nchunks;
	uint8_t **chunks;		/* saved-block bitmap, by chunk */
	uint8_t *keyb;			/* the current key block */
	uint8_t *data;			/* one block being saved */
	struct pending queue[BATCH_WRITES];
	uint32_t queued;
	size_t queued_bytes;
	int finished;
	int broken;			/* a save failed: refuse writes */
};

static const struct extkit_io_ops undo_ops;

static int valid_block_size(uint64_t bs)
{
	return bs >= E2UNDO_MIN_BLOCK_SIZE && bs <= E2UNDO_MAX_BLOCK_SIZE &&
	       !(bs & (bs - 1));
}

/* Fixes the undo block size (the io's block size, else 1024). */
static int setup(struct extkit_io *io)
{
	struct undo_priv *p = io->priv;
	uint32_t bs = valid_block_size(io->block_size) ? io->block_size :
			E2UNDO_MIN_BLOCK_SIZE;

	if (p->bs)
		return 0;
	p->nchunks = io->size / bs / CHUNK_BITS + 1;
	p->chunks = calloc(p->nchunks, sizeof(*p->chunks));
	p->keyb = calloc(1, bs);
	p->data = malloc(bs);
	if (!p->chunks || !p->keyb || !p->data) {
		free(p->chunks);
		free(p->keyb);
		free(p->data);
		p->chunks = NULL;
		p->keyb = p->data = NULL;
		return -ENOMEM;
	}
	p->bs = bs;
	p->keys_per_block = bs / sizeof(struct e2undo_key) - 1;
	p->key_blk = FIRST_KEY_BLOCK;
	p->next_blk = FIRST_KEY_BLOCK + 1;
	return 0;
}

static int is_saved(const struct undo_priv *p, uint64_t blk)
{
	uint64_t c = blk / CHUNK_BITS;
	uint32_t bit = (uint32_t)(blk % CHUNK_BITS);

	if (c >= p->nchunks || !p->chunks[c])
		return 0;
	return (p->chunks[c][bit / 8] >> (bit % 8)) & 1;
}

static int mark_saved(struct undo_priv *p, uint64_t blk)
{
	uint64_t c = blk / CHUNK_BITS;
	uint32_t bit = (uint32_t)(blk % CHUNK_BITS);

	if (c >= p->nchunks)
		return -EXTKIT_ETRUNC;
	if (!p->chunks[c]) {
		p->chunks[c] = calloc(1, CHUNK_BITS / 8);
		if (!p->chunks[c])
			return -ENOMEM;
	}
	p->chunks[c][bit / 8] |= (uint8_t)(1u << (bit % 8));
	return 0;
}

/* Writes into the undo file, growing it 64 blocks at a time. */
static int file_put(struct undo_priv *p, uint64_t blk, const void *buf,
		    size_t len)
{
	uint64_t off = blk * p->bs;
	int rc;

	if (off + len > p->file->size) {
		uint64_t step = 64 * (uint64_t)p->bs;

		rc = extkit_io_set_size(p->file,
					(off + len + step - 1) / step * step);
		if (rc)
			return rc;
	}
	return extkit_io_write_bytes(p->file, off, buf, len);
}

static struct e2undo_key *key_at(struct undo_priv *p, uint32_t i)
{
	return (struct e2undo_key *)(p->keyb +
		sizeof(struct e2undo_key_block) + i * sizeof(struct e2undo_key));
}

static int write_key_block(struct undo_priv *p)
{
	struct e2undo_key_block *kb = (struct e2undo_key_block *)p->keyb;

	kb->magic = cpu_to_le32(E2UNDO_KEYBLOCK_MAGIC);
	kb->crc = 0;
	kb->crc = cpu_to_le32(extkit_crc32c(~0u, p->keyb, p->bs));
	return file_put(p, p->key_blk, p->keyb, p->bs);
}

/* The last key, if blk (len bytes) continues it. */
static struct e2undo_key *extendable_key(struct undo_priv *p, uint64_t blk,
					 uint32_t len)
{
	struct e2undo_key *k;
	uint32_t size;

	if (!p->keys_in_block)
		return NULL;
	k = key_at(p, p->keys_in_block - 1);
	size = le32(k->size);
	if (size % p->bs || le64(k->fsblk) + size / p->bs != blk ||
	    (uint64_t)size + len >
	    (uint64_t)(E2UNDO_MAX_EXTENT_BLOCKS - 1) * p->bs)
		return NULL;
	return k;
}

/* Appends the old contents of target block blk and records its key. */
static int save_block(struct undo_priv *p, uint64_t blk)
{
	uint64_t off = blk * p->bs;
	uint32_t len = p->target->size - off < p->bs ?
		       (uint32_t)(p->target->size - off) : p->bs;
	struct e2undo_key *k;
	int rc;

	rc = extkit_io_read_bytes(p->target, off, p->data, len);
	if (rc)
		return rc;
	k = extendable_key(p, blk, len);
	if (!k && p->keys_in_block == p->keys_per_block) {
		/* Full: close it; the next one follows the data so far. */
		rc = write_key_block(p);
		if (rc)
			return rc;
		memset(p->keyb, 0, p->bs);
		p->keys_in_block = 0;
		p->key_blk = p->next_blk++;
	}
	rc = file_put(p, p->next_blk, p->data, len);
	if (rc)
		return rc;
	p->next_blk++;
	if (k) {
		k->blk_crc = cpu_to_le32(extkit_crc32c(le32(k->blk_crc),
						       p->data, len));
		k->size = cpu_to_le32(le32(k->size) + len);
	} else {
		k = key_at(p, p->keys_in_block++);
		k->fsblk = cpu_to_le64(blk);
		k->blk_crc = cpu_to_le32(extkit_crc32c(~0u, p->data, len));
		k->size = cpu_to_le32(len);
		p->num_keys++;
	}
	p->saved++;
	return mark_saved(p, blk);
}

/* Header and superblock copy; the copy is the target's superblock now. */
static int write_header(struct undo_priv *p, uint32_t state)
{
	struct e2undo_header hdr;
	uint8_t sb[SUPER_SIZE];
	uint32_t sb_crc;
	int rc;

	memset(sb, 0, sizeof(sb));
	if (p->target->size >= SUPER_OFFSET + SUPER_SIZE) {
		rc = extkit_io_read_bytes(p->target, SUPER_OFFSET, sb,
					  sizeof(sb));
		if (rc)
			return rc;
	}
	sb_crc = extkit_crc32c(~0u, sb, sizeof(sb));
	/* Stored with s_magic inverted, so the copy is not a superblock. */
	sb[offsetof(struct ext2_super_block, s_magic)] ^= 0xff;
	sb[offsetof(struct ext2_super_block, s_magic) + 1] ^= 0xff;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, E2UNDO_MAGIC, sizeof(hdr.magic));
	hdr.num_keys = cpu_to_le64(p->num_keys);
	hdr.super_offset = cpu_to_le64(SUPER_BLOCK);
	hdr.key_offset = cpu_to_le64(FIRST_KEY_BLOCK);
	hdr.block_size = cpu_to_le32(p->bs);
	hdr.fs_block_size = cpu_to_le32(p->bs);
	hdr.sb_crc = cpu_to_le32(sb_crc);
	hdr.state = cpu_to_le32(state);
	hdr.header_crc = cpu_to_le32(extkit_crc32c(~0u, &hdr,
				offsetof(struct e2undo_header, header_crc)));
	rc = file_put(p, HDR_BLOCK, &hdr, sizeof(hdr));
	if (!rc)
		rc = file_put(p, SUPER_BLOCK, sb, sizeof(sb));
	return rc;
}

static int write_indexes(struct undo_priv *p, uint32_t state)
{
	int rc = 0;

	if (p->keys_in_block)
		rc = write_key_block(p);
	if (!rc)
		rc = write_header(p, state);
	return rc;
}

/*
 * Ends the batch: the indexes of what was saved, one flush of the undo
 * file, then the queued target writes. A failure leaves the io broken
 * (every later write refused).
 */
static int commit(struct undo_priv *p)
{
	int rc = 0;
	uint32_t i;

	if (!p->queued)
		return 0;
	rc = write_indexes(p, 0);
	if (!rc)
		rc = extkit_io_flush(p->file);
	for (i = 0; i < p->queued; i++) {
		if (!rc)
			rc = extkit_io_write_bytes(p->target, p->queue[i].off,
						   p->queue[i].data,
						   p->queue[i].len);
		free(p->queue[i].data);
	}
	p->queued = 0;
	p->queued_bytes = 0;
	if (rc)
		p->broken = 1;
	return rc;
}

/* Saves every not yet saved block of [off, off + len); with sync, the
 * saved blocks are made durable at once (else at the batch's commit). */
static int save_range(struct extkit_io *io, uint64_t off, uint64_t len,
		      int sync)
{
	struct undo_priv *p = io->priv;
	uint64_t blk, last, n = 0;
	int rc;

	if (p->finished)
		return -EROFS;
	if (p->broken)
		return -EIO;
	if (!len)
		return 0;
	rc = setup(io);
	if (rc)
		return rc;
	last = (off + len - 1) / p->bs;
	for (blk = off / p->bs; blk <= last && !rc; blk++) {
		if (is_saved(p, blk))
			continue;
		rc = save_block(p, blk);
		n++;
	}
	if (!rc && n && sync)
		rc = write_indexes(p, 0);
	if (!rc && n && sync)
		rc = extkit_io_flush(p->file);
	if (rc)
		p->broken = 1;
	return rc;
}

/* The target's bytes, with the queued writes over them, in order. */
static int undo_read(struct extkit_io *io, uint64_t off, void *buf,
		     size_t len)
{
	struct undo_priv *p = io->priv;
	int rc = extkit_io_read_bytes(p->target, off, buf, len);

	for (uint32_t i = 0; !rc && i < p->queued; i++) {
		const struct pending *q = &p->queue[i];
		uint64_t a = q->off > off ? q->off : off;
		uint64_t b = q->off + q->len < off + len ? q->off + q->len :
			     off + len;

		if (a < b)
			memcpy((uint8_t *)buf + (a - off), q->data + (a - q->off),
			       b - a);
	}
	return rc;
}

/* Saves what the write overwrites, then queues it (see commit). */
static int undo_write(struct extkit_io *io, uint64_t off, const void *buf,
		      size_t len)
{
	struct undo_priv *p = io->priv;
	struct pending *q;
	int rc;

	if ((p->queued == BATCH_WRITES ||
	     p->queued_bytes + len > BATCH_BYTES) && (rc = commit(p)))
		return rc;
	if (len > BATCH_BYTES) {	/* too big to hold: saved and written */
		rc = commit(p);
		if (!rc)
			rc = save_range(io, off, len, 1);
		return rc ? rc : extkit_io_write_bytes(p->target, off, buf,
						       len);
	}
	rc = save_range(io, off, len, 0);
	if (rc)
		return rc;
	q = &p->queue[p->queued];
	q->data = malloc(len ? len : 1);
	if (!q->data)
		return -ENOMEM;
	memcpy(q->data, buf, len);
	q->off = off;
	q->len = len;
	p->queued++;
	p->queued_bytes += len;
	return 0;
}

static int undo_zero(struct extkit_io *io, uint64_t off, uint64_t len)
{
	struct undo_priv *p = io->priv;
	int rc = commit(p);

	if (!rc)
		rc = save_range(io, off, len, 1);
	return rc ? rc : extkit_io_zero_bytes(p->target, off, len);
}

/* e2undo cannot give a file its old size back. */
static int undo_set_size(struct extkit_io *io, uint64_t size)
{
	(void)io;
	(void)size;
	return -EOPNOTSUPP;
}

static int undo_flush(struct extkit_io *io)
{
	struct undo_priv *p = io->priv;
	int rc = commit(p);

	if (!rc)
		rc = extkit_io_flush(p->file);

	return rc ? rc : extkit_io_flush(p->target);
}

static void undo_close(struct extkit_io *io)
{
	struct undo_priv *p = io->priv;

	extkit_undo_finish(io);
	extkit_io_close(p->target);
	extkit_io_close(p->file);
	for (uint64_t c = 0; p->chunks && c < p->nchunks; c++)
		free(p->chunks[c]);
	free(p->chunks);
	free(p->keyb);
	free(p->data);
	free(p);
	free(io);
}

static const struct extkit_io_ops undo_ops = {
	.read_bytes = undo_read,
	.write_bytes = undo_write,
	.zero_bytes = undo_zero,
	.set_size = undo_set_size,
	.flush = undo_flush,
	.close = undo_close,
};

/* Creates path 0600 (it will hold filesystem data) unless it exists. */
static int create_private(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) == 0)
		return S_ISREG(st.st_mode) && st.st_size == 0 ? 0 : -EEXIST;
	if (errno != ENOENT)
		return -errno;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int extkit_undo_create_file(const char *path, struct extkit_io **out)
{
	struct extkit_io *io;
	int rc = create_private(path);

	if (!rc)
		rc = extkit_io_open_unix(path, EXTKIT_IO_WRITE, &io);
	if (rc)
		return rc;
	if (io->size || io->is_blockdev) {
		extkit_io_close(io);
		return -EEXIST;
	}
	*out = io;
	return 0;
}

int extkit_undo_open(struct extkit_io *target, struct extkit_io *file,
		     struct extkit_io **out)
{
	struct extkit_io *io;
	struct undo_priv *p;

	if (!(target->flags & EXTKIT_IO_WRITE) ||
	    !(file->flags & EXTKIT_IO_WRITE))
		return -EROFS;
	io = calloc(1, sizeof(*io));
	p = calloc(1, sizeof(*p));
	if (!io || !p) {
		free(io);
		free(p);
		return -ENOMEM;
	}
	p->target = target;
	p->file = file;
	io->ops = &undo_ops;
	io->size = target->size;
	io->block_size = target->block_size;
	io->flags = target->flags;
	io->is_blockdev = target->is_blockdev;
	io->priv = p;
	*out = io;
	return 0;
}

int extkit_undo_finish(struct extkit_io *io)
{
	struct undo_priv *p;
	uint64_t end;
	int rc;

	if (!io || io->ops != &undo_ops)
		return -EINVAL;
	p = io->priv;
	if (p->finished)
		return 0;
	rc = commit(p);
	p->finished = 1;
	if (!rc)
		rc = setup(io);
	if (!rc)
		rc = write_indexes(p, E2UNDO_STATE_FINISHED);
	end = (uint64_t)p->bs * (p->num_keys ? p->next_blk : SUPER_BLOCK + 1);
	if (!rc)
		rc = extkit_io_set_size(p->file, end);
	if (!rc)
		rc = extkit_io_flush(p->file);
	return rc;
}

uint64_t extkit_undo_saved_blocks(const struct extkit_io *io)
{
	if (!io || io->ops != &undo_ops)
		return 0;
	return ((const struct undo_priv *)io->priv)->saved;
}
