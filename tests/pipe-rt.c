/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipe-rt - the round trip of perf bench sched pipe (two processes passing a token through two
 * pipes, one op a round trip) in processes made before what it is measured under starts: it
 * forks at once, then waits until a line can be read from FIFO, then runs LOOPS round trips
 * and prints "USECS usecs/op" as perf bench does, the mean over the loops.  For
 * tests/bench-pertask.sh: a busy task that is no target and was there before the recording
 * (its pids below the per-task wakeup filter's floor, recorder/wakefilter.h), where perf bench
 * forks its second process once it runs.
 * usage: pipe-rt FIFO LOOPS
 * Exit status: 0; 1 when a pipe, the fork or FIFO failed; 2 for bad arguments.
 */
#ifndef _GNU_SOURCE /* configure defines it; a build by hand may not */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One byte through @fd each way, retried on EINTR.  Return: 0, or -1 at the end or an error. */
static int put(int fd)
{
	char c = 'x';
	ssize_t n;

	while ((n = write(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

static int get(int fd)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	int ping[2], pong[2], go, status;
	long loops;
	char *end, line[16];
	struct timespec t0, t1;
	pid_t child;

	if (argc != 3 || (loops = strtol(argv[2], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: pipe-rt FIFO LOOPS\n");
		return 2;
	}
	if (pipe(ping) || pipe(pong)) {
		perror("pipe-rt: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("pipe-rt: fork");
		return 1;
	}
	if (child == 0) { /* the echo: until the parent closes its end */
		close(ping[1]);
		close(pong[0]);
		while (!get(ping[0]) && !put(pong[1]))
			;
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	go = open(argv[1], O_RDONLY);
	if (go < 0 || read(go, line, sizeof(line)) < 0) {
		perror("pipe-rt: FIFO");
		return 1;
	}
	close(go);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < loops; i++)
		if (put(ping[1]) || get(pong[0])) {
			fprintf(stderr, "pipe-rt: the echo process is gone\n");
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(ping[1]);
	waitpid(child, &status, 0);
	printf("%14.3f usecs/op\n",
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 /
		       (double)loops);
	return 0;
}
