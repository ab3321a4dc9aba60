/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Little-endian conversion helpers: the only place that knows host byte
 * order. Everything on disk is little-endian.
 */
#ifndef EXTKIT_ENDIAN_H
#define EXTKIT_ENDIAN_H

#include <stdint.h>
#include <linux/types.h>

#ifdef WORDS_BIGENDIAN
static inline uint16_t le16(__le16 v) { return __builtin_bswap16(v); }
static inline uint32_t le32(__le32 v) { return __builtin_bswap32(v); }
static inline uint64_t le64(__le64 v) { return __builtin_bswap64(v); }
static inline __le16 cpu_to_le16(uint16_t v) { return __builtin_bswap16(v); }
static inline __le32 cpu_to_le32(uint32_t v) { return __builtin_bswap32(v); }
static inline __le64 cpu_to_le64(uint64_t v) { return __builtin_bswap64(v); }
#else
static inline uint16_t le16(__le16 v) { return v; }
static inline uint32_t le32(__le32 v) { return v; }
static inline uint64_t le64(__le64 v) { return v; }
static inline __le16 cpu_to_le16(uint16_t v) { return v; }
static inline __le32 cpu_to_le32(uint32_t v) { return v; }
static inline __le64 cpu_to_le64(uint64_t v) { return v; }
#endif

/* Unaligned byte-array access, for codecs working on raw buffers. */
static inline uint16_t get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) |
	       ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline void put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

/* Big-endian helpers: jbd2 (the journal) is the one big-endian format. */
static inline uint32_t get_be32(const void *p)
{
	const uint8_t *b = p;

	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) |
	       ((uint32_t)b[2] << 8) | (uint32_t)b[3];
}

static inline uint16_t get_be16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)((b[0] << 8) | b[1]);
}

static inline void put_be32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static inline void put_be16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline uint64_t get_be64(const void *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32((const uint8_t *)p + 4);
}

static inline void put_be64(void *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32((uint8_t *)p + 4, (uint32_t)v);
}

#endif /* EXTKIT_ENDIAN_H */
