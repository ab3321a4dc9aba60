// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-inode state in four bits, rare states in bitmaps (istate.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "istate.h"

int fsck_istate_init(struct fsck_istate *s, uint32_t n)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->v = calloc((size_t)(n >> 1) + 1, 1);
	s->page_written = calloc((size_t)(n >> IST_PAGE_SHIFT) + 1, 1);
	if (!s->v || !s->page_written) {
		fsck_istate_free(s);
		return -ENOMEM;
	}
	s->n = n;
	/* zeroed and (above malloc's mmap threshold) never touched while
	 * no bit is set: no resident memory on a sound filesystem */
	rc = extkit_bitmap_init(&s->zero_link, n);
	if (!rc)
		rc = extkit_bitmap_init(&s->dup, n);
	if (rc)
		fsck_istate_free(s);
	return rc;
}

void fsck_istate_free(struct fsck_istate *s)
{
	free(s->v);
	free(s->page_written);
	extkit_bitmap_free(&s->zero_link);
	extkit_bitmap_free(&s->dup);
	memset(s, 0, sizeof(*s));
}

/* Codes equal to code among the 16 nibbles of w: a nibble of w ^ the
 * code repeated is zero where they are equal. */
static unsigned int nibbles_equal(uint64_t w, unsigned int code)
{
	const uint64_t ones = 0x1111111111111111ull;
	uint64_t x = w ^ (ones * code);

	x |= x >> 2;
	x |= x >> 1;
	return (unsigned int)__builtin_popcountll(~x & ones);
}

uint32_t fsck_istate_count_code(const struct fsck_istate *s, uint32_t first,
				uint32_t count, unsigned int code)
{
	uint64_t ino = first, end = (uint64_t)first + count;
	uint32_t n = 0;

	if (end > (uint64_t)s->n + 1)
		end = (uint64_t)s->n + 1;
	while (ino < end) {
		uint64_t page_end = ((ino >> IST_PAGE_SHIFT) + 1) <<
				    IST_PAGE_SHIFT;

		if (page_end > end)
			page_end = end;
		if (!s->page_written[ino >> IST_PAGE_SHIFT]) {
			ino = page_end;
			continue;
		}
		/* one at a time to a 16-inode boundary, then a word at a
		 * time (inode ino is nibble ino of v; the count does not
		 * depend on their order in the word), then the rest */
		for (; ino < page_end && (ino & 15); ino++)
			n += fsck_istate_code(s, (uint32_t)ino) == code;
		for (; ino + 16 <= page_end; ino += 16) {
			uint64_t w;

			memcpy(&w, s->v + (ino >> 1), sizeof(w));
			n += nibbles_equal(w, code);
		}
		for (; ino < page_end; ino++)
			n += fsck_istate_code(s, (uint32_t)ino) == code;
	}
	return n;
}
