/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nap - a thread that sleeps US microseconds at a time (clock_nanosleep on CLOCK_MONOTONIC) for
 * SECONDS, each nap after a little work (about 20 us), then prints "nap TID NAPS".  Pinned to a
 * CPU that is otherwise idle, each of its switch-ins is one out of that CPU's idle task: for
 * tests/analyze-live.sh, where CPU 1's are untraced and placed by the delay the recorder
 * measures, many short intervals making a wrong delay show.
 * usage: nap US SECONDS
 * Exit status: 0; 2 for bad arguments.
 */
#ifndef _GNU_SOURCE /* configure defines it; a build by hand may not */
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC now, ns. */
static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	char *end1, *end2;
	long us = argc == 3 ? strtol(argv[1], &end1, 10) : 0;
	double secs = argc == 3 ? strtod(argv[2], &end2) : 0;
	long long stop, naps = 0;
	struct timespec d;

	if (argc != 3 || *end1 || *end2 || us <= 0 || us >= 1000000 ||
	    !(secs > 0 && secs <= 3600)) {
		fprintf(stderr, "usage: nap US SECONDS (0 < US < 1000000, 0 < SECONDS <= 3600)\n");
		return 2;
	}
	d.tv_sec = 0;
	d.tv_nsec = us * 1000;
	stop = now_ns() + (long long)(secs * 1e9);
	while (now_ns() < stop) {
		volatile unsigned x = 0;

		for (unsigned i = 0; i < 20000; i++)
			x += i;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
		naps++;
	}
	printf("nap %d %lld\n", (int)gettid(), naps);
	return 0;
}
