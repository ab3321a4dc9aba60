// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -t: the resources a check used, as e2fsck reports them (its
 * print_resource_track): "Memory used: ..., time: real/user/system" at
 * the end, and with -tt after each pass too, the line led by the pass.
 * Memory is the peak resident size (getrusage); times in seconds.
 */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "fsck.h"

static double seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void fsck_rtrack_start(struct fsck_rtrack *t)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	t->real = now_real();
	t->user = seconds(&r.ru_utime);
	t->sys = seconds(&r.ru_stime);
}

void fsck_rtrack_print(const char *desc, const struct fsck_rtrack *t)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	if (desc)
		printf("%s: ", desc);
	printf("Memory used: %ldk, time: %5.2f/%5.2f/%5.2f\n", r.ru_maxrss,
	       now_real() - t->real, seconds(&r.ru_utime) - t->user,
	       seconds(&r.ru_stime) - t->sys);
}
