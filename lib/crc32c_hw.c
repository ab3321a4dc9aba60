// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crc32c by the SSE4.2 crc32 instruction: eight bytes per instruction,
 * three chains at once, compiled for that target in these functions
 * only, and used only after the CPU said it has it. Elsewhere (other architectures, or a compiler
 * without the target attribute) it is never available and csum.c keeps
 * its tables.
 */
#include "config.h"

#include <string.h>

#include "crc32c_hw.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>

int extkit_crc32c_hw_available(void)
{
	return __builtin_cpu_supports("sse4.2");
}

/*
 * Three lanes. The instruction takes three cycles to give its result but
 * can start one every cycle, so one chain of it runs at a third of its
 * speed: a stretch of 3 * LANE bytes is done as three independent crcs
 * (the first from crc, the others from 0), joined by linearity:
 *   crc(c, A B C) = shift(shift(crc(c, A)) ^ crc(0, B)) ^ crc(0, C)
 * where shift(x) = crc(x, LANE zero bytes), a linear map of x's 32 bits
 * kept as four tables of 256 (one per byte of x). The tables are made
 * once, from the instruction itself.
 */
#define LANE	80u	/* bytes per lane: a 256-byte inode is one stretch */

static uint32_t shift_tab[4][256];
static int shift_ready;

__attribute__((target("sse4.2")))
static uint32_t crc_words(uint64_t c, const unsigned char *p, size_t len)
{
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w));	/* little-endian host */
		c = _mm_crc32_u64(c, w);
	}
	return (uint32_t)c;
}

__attribute__((target("sse4.2")))
static void make_shift_tab(void)
{
	static const unsigned char zeros[LANE];
	uint32_t basis[32];

	for (int bit = 0; bit < 32; bit++)
		basis[bit] = crc_words(1u << bit, zeros, LANE);
	for (int k = 0; k < 4; k++)
		for (int b = 0; b < 256; b++) {
			uint32_t v = 0;

			for (int j = 0; j < 8; j++)
				if (b & (1 << j))
					v ^= basis[8 * k + j];
			shift_tab[k][b] = v;
		}
	shift_ready = 1;
}

static uint32_t shift(uint32_t x)
{
	return shift_tab[0][x & 0xff] ^ shift_tab[1][(x >> 8) & 0xff] ^
	       shift_tab[2][(x >> 16) & 0xff] ^ shift_tab[3][x >> 24];
}

__attribute__((target("sse4.2")))
uint32_t extkit_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = crc;

	for (; len && ((uintptr_t)p & 7); len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	if (len >= 3 * LANE && !shift_ready)
		make_shift_tab();
	for (; len >= 3 * LANE; len -= 3 * LANE, p += 3 * LANE) {
		uint64_t b = 0, d = 0;

		for (size_t i = 0; i < LANE; i += 8) {
			uint64_t wa, wb, wd;

			memcpy(&wa, p + i, 8);
			memcpy(&wb, p + LANE + i, 8);
			memcpy(&wd, p + 2 * LANE + i, 8);
			c = _mm_crc32_u64(c, wa);
			b = _mm_crc32_u64(b, wb);
			d = _mm_crc32_u64(d, wd);
		}
		c = shift(shift((uint32_t)c) ^ (uint32_t)b) ^ (uint32_t)d;
	}
	c = crc_words(c, p, len);
	p += len & ~(size_t)7;
	for (len &= 7; len; len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return (uint32_t)c;
}
#else
int extkit_crc32c_hw_available(void)
{
	return 0;
}

uint32_t extkit_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	(void)buf;
	(void)len;
	return crc;
}
#endif
