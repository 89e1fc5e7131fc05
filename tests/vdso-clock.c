/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vdso-clock - one thread that reads CLOCK_MONOTONIC in a loop from a named function,
 * vc_read_clock(), for tests/vdso-live.sh: libc's clock_gettime() calls the vdso's, so most of
 * its samples lie in the [vdso] mapping, under vc_read_clock.
 * usage: vdso-clock SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The named function stays itself: no inlining, cloning or merging of identical bodies. */
#if defined(__GNUC__) && !defined(__clang__)
#define NAMED __attribute__((noinline, noipa))
#else
#define NAMED __attribute__((noinline))
#endif

/* Read CLOCK_MONOTONIC until @end_ns.  Return: the number of readings. */
NAMED static uint64_t vc_read_clock(uint64_t end_ns)
{
	struct timespec ts = { 0, 0 };
	uint64_t n = 0, now = 0;

	while (now < end_ns) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	double seconds;

	if (argc != 2 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: vdso-clock SECONDS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%llu readings\n",
	       (unsigned long long)vc_read_clock((uint64_t)ts.tv_sec * 1000000000u +
						 (uint64_t)ts.tv_nsec + (uint64_t)(seconds * 1e9)));
	return 0;
}
