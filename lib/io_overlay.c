// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Overlay io (io_overlay.h): written units in an open-addressing hash
 * table keyed by unit number, grown at half full; a unit written in part
 * is first read whole from the target.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "io_overlay.h"

struct ovl {
	struct extkit_io *target;
	uint32_t unit;
	struct extkit_plan_block *slot;	/* data NULL: empty */
	uint64_t cap;			/* power of two */
	uint64_t used;
};

static uint64_t hash(uint64_t b)
{
	b ^= b >> 33;
	b *= 0xff51afd7ed558ccdULL;
	return b ^ (b >> 33);
}

static struct extkit_plan_block *find(struct ovl *o, uint64_t blk)
{
	uint64_t i = hash(blk) & (o->cap - 1);

	while (o->slot[i].data && o->slot[i].blk != blk)
		i = (i + 1) & (o->cap - 1);
	return &o->slot[i];
}

static int grow(struct ovl *o)
{
	struct extkit_plan_block *old = o->slot;
	uint64_t oldcap = o->cap;

	o->cap = oldcap ? oldcap * 2 : 1024;
	o->slot = calloc(o->cap, sizeof(*o->slot));
	if (!o->slot) {
		o->slot = old;
		o->cap = oldcap;
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < oldcap; i++)
		if (old[i].data)
			*find(o, old[i].blk) = old[i];
	free(old);
	return 0;
}

/* The unit blk in memory, read from the target on first use. */
static int unit_get(struct ovl *o, uint64_t blk, int create, uint8_t **out)
{
	struct extkit_plan_block *s;
	int rc;

	*out = NULL;
	if (o->cap) {
		s = find(o, blk);
		if (s->data || !create) {
			*out = s->data;
			return 0;
		}
	}
	if ((o->used + 1) * 2 > o->cap && (rc = grow(o)))
		return rc;
	s = find(o, blk);
	s->data = malloc(o->unit);
	if (!s->data)
		return -ENOMEM;
	rc = extkit_io_read_bytes(o->target, blk * o->unit, s->data, o->unit);
	if (rc) {
		free(s->data);
		s->data = NULL;
		return rc;
	}
	s->blk = blk;
	o->used++;
	*out = s->data;
	return 0;
}

static int ovl_rw(struct extkit_io *io, uint64_t off, uint8_t *rd,
		  const uint8_t *wr, size_t len)
{
	struct ovl *o = io->priv;

	while (len) {
		uint64_t blk = off / o->unit;
		size_t in = off % o->unit, n = o->unit - in;
		uint8_t *u;
		int rc;

		if (n > len)
			n = len;
		rc = unit_get(o, blk, wr != NULL, &u);
		if (rc)
			return rc;
		if (wr)
			memcpy(u + in, wr, n), wr += n;
		else if (u)
			memcpy(rd, u + in, n), rd += n;
		else if ((rc = extkit_io_read_bytes(o->target, off, rd, n)))
			return rc;
		else
			rd += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int ovl_read(struct extkit_io *io, uint64_t off, void *buf, size_t len)
{
	return ovl_rw(io, off, buf, NULL, len);
}

static int ovl_write(struct extkit_io *io, uint64_t off, const void *buf,
		     size_t len)
{
	return ovl_rw(io, off, NULL, buf, len);
}

static int ovl_zero(struct extkit_io *io, uint64_t off, uint64_t len)
{
	(void)io, (void)off, (void)len;
	return -EOPNOTSUPP;
}

static int ovl_set_size(struct extkit_io *io, uint64_t size)
{
	(void)io, (void)size;
	return -EOPNOTSUPP;
}

static int ovl_flush(struct extkit_io *io)
{
	(void)io;
	return 0;
}

static void ovl_close(struct extkit_io *io)
{
	struct ovl *o = io->priv;

	for (uint64_t i = 0; i < o->cap; i++)
		free(o->slot[i].data);
	free(o->slot);
	free(o);
	free(io);
}

static const struct extkit_io_ops ovl_ops = {
	.read_bytes = ovl_read,
	.write_bytes = ovl_write,
	.zero_bytes = ovl_zero,
	.set_size = ovl_set_size,
	.flush = ovl_flush,
	.close = ovl_close,
};

int extkit_overlay_open(struct extkit_io *target, uint32_t unit,
			struct extkit_io **out)
{
	struct extkit_io *io = calloc(1, sizeof(*io));
	struct ovl *o = calloc(1, sizeof(*o));

	if (!io || !o) {
		free(io);
		free(o);
		return -ENOMEM;
	}
	o->target = target;
	o->unit = unit;
	io->ops = &ovl_ops;
	io->size = target->size;
	io->block_size = target->block_size;
	io->flags = target->flags | EXTKIT_IO_VOLATILE;
	io->priv = o;
	*out = io;
	return 0;
}

static int cmp_blk(const void *a, const void *b)
{
	const struct extkit_plan_block *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

int extkit_overlay_blocks(struct extkit_io *io, struct extkit_plan_block **out,
			  uint64_t *n)
{
	struct ovl *o = io->priv;
	struct extkit_plan_block *p = malloc((o->used ? o->used : 1) *
					     sizeof(*p));
	uint64_t k = 0;

	if (!p)
		return -ENOMEM;
	for (uint64_t i = 0; i < o->cap; i++)
		if (o->slot[i].data)
			p[k++] = o->slot[i];
	memset(o->slot, 0, o->cap * sizeof(*o->slot));
	o->used = 0;
	qsort(p, k, sizeof(*p), cmp_blk);
	*out = p;
	*n = k;
	return 0;
}

uint64_t extkit_overlay_count(const struct extkit_io *io)
{
	const struct ovl *o = io->priv;

	return o->used;
}

void extkit_plan_free(struct extkit_plan_block *p, uint64_t n)
{
	for (uint64_t i = 0; p && i < n; i++)
		free(p[i].data);
	free(p);
}
