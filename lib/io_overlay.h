/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Overlay io: an io over another whose writes stay in memory, in units of
 * a fixed size (the filesystem block size), and whose reads see them. A
 * writer runs through it to build the whole set of blocks it would write
 * (a plan) without touching the target; extkit_overlay_blocks then hands
 * the set over, sorted by block, to be written as the writer decides
 * (csum_rewrite.c: one journal transaction, then in place).
 */
#ifndef EXTKIT_IO_OVERLAY_H
#define EXTKIT_IO_OVERLAY_H

#include <stdint.h>

#include "io.h"

/* One block of a plan: its number (in units of the overlay) and bytes. */
struct extkit_plan_block {
	uint64_t blk;
	uint8_t *data;
};

/*
 * Opens an overlay over target (not taken over: closing the overlay
 * leaves target open) in units of unit bytes (a power of two, at least
 * 1024). Zeroing and resizing are refused.
 */
int extkit_overlay_open(struct extkit_io *target, uint32_t unit,
			struct extkit_io **out);
/*
 * Takes the blocks written so far out of the overlay, sorted by number:
 * *out (an array of *n, each data a unit long) belongs to the caller
 * (extkit_plan_free); the overlay is left empty.
 */
int extkit_overlay_blocks(struct extkit_io *io, struct extkit_plan_block **out,
			  uint64_t *n);
/* Blocks the overlay holds. */
uint64_t extkit_overlay_count(const struct extkit_io *io);
void extkit_plan_free(struct extkit_plan_block *p, uint64_t n);

#endif /* EXTKIT_IO_OVERLAY_H */
