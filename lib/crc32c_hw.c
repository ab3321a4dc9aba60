// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crc32c by the SSE4.2 crc32 instruction: eight bytes per instruction,
 * compiled for that target in this function only, and used only after
 * the CPU said it has it. Elsewhere (other architectures, or a compiler
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

__attribute__((target("sse4.2")))
uint32_t extkit_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = crc;

	for (; len && ((uintptr_t)p & 7); len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w));	/* little-endian host */
		c = _mm_crc32_u64(c, w);
	}
	for (; len; len--)
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
