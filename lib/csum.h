/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checksums: crc32c (metadata_csum) and crc16 (gdt_csum / uninit_bg).
 * Both are the raw reflected forms, no inversion inside: callers pass the
 * seed the format asks for (~0 for the superblock), as the kernel does.
 */
#ifndef EXTKIT_CSUM_H
#define EXTKIT_CSUM_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

uint32_t extkit_crc32c(uint32_t crc, const void *buf, size_t len);
uint16_t extkit_crc16(uint16_t crc, const void *buf, size_t len);

/* s_checksum_seed with metadata_csum_seed, else crc32c(~0, s_uuid). */
uint32_t extkit_csum_seed(const struct extkit_super *sb);
/* s_checksum: crc32c(~0) over the superblock up to the field. */
uint32_t extkit_super_csum(const struct ext2_super_block *raw);
/* bg_checksum of descriptor g in raw form (crc16 or crc32c & 0xffff). */
uint16_t extkit_group_csum(const struct extkit_fs *fs, uint32_t g,
			   const void *raw_desc);
/* Whether descriptors carry a checksum (gdt_csum or metadata_csum). */
int extkit_has_group_csum(const struct extkit_super *sb);

#endif /* EXTKIT_CSUM_H */
