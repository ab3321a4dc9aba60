/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc32c with the CPU's crc32 instruction (SSE4.2 on x86-64), for
 * csum.c, which keeps the portable table version and picks this one
 * when the CPU has it. Same raw reflected form: no inversion inside.
 */
#ifndef EXTKIT_CRC32C_HW_H
#define EXTKIT_CRC32C_HW_H

#include <stddef.h>
#include <stdint.h>

/* 1 when this CPU runs extkit_crc32c_hw (checked at run time). */
int extkit_crc32c_hw_available(void);
/* Only when extkit_crc32c_hw_available() said 1. */
uint32_t extkit_crc32c_hw(uint32_t crc, const void *buf, size_t len);

#endif /* EXTKIT_CRC32C_HW_H */
