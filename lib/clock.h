/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The time written into new metadata: SOURCE_DATE_EPOCH when set, else
 * EXTKIT_FAKE_TIME, else the system clock (the order e2fsprogs uses for
 * reproducible builds and its test suite).
 */
#ifndef EXTKIT_CLOCK_H
#define EXTKIT_CLOCK_H

#include <stdint.h>

/*
 * Stores the time in *now and whether it came from the environment in
 * *fixed (may be NULL). A variable that is set but not a decimal number of
 * seconds in 0 .. 2^32-1 gives -EINVAL, and *bad_var names it.
 */
int extkit_clock_now(uint32_t *now, int *fixed, const char **bad_var);

#endif /* EXTKIT_CLOCK_H */
