/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blockers - threads that block in libc, each called straight from a named function of its
 * own, for tests/stacks-live.sh: the frame the kernel's frame-pointer walk skips when libc
 * keeps no frame pointer.  Each thread names itself, then loops for the run's length:
 *   bl-sleep   bl_nanosleep():  nanosleep() 2 ms
 *   bl-pipe    bl_pipe_read():  read() of a pipe that bl-feed writes every 2 ms
 *   bl-mutex   bl_mutex_lock(): pthread_mutex_lock() of a mutex that bl-hold keeps 2 ms
 *   bl-cond    bl_cond_wait():  pthread_cond_wait() on a condition bl-feed signals
 *   bl-epoll   bl_epoll_wait(): epoll_wait() on the read end of a pipe nobody writes, 2 ms
 *   bl-fsync   bl_fsync():      a 4 KiB write, then fsync() of a file in DIR
 *   bl-feed    the pipe and condition's feeder, from bl_feed_pipe() (write()) and
 *              bl_feed_cond() (pthread_cond_signal()): the wakers of --waker-stacks' checks
 *   bl-hold    the mutex's holder (not checked)
 * usage: blockers SECONDS DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* Named functions stay themselves: no inlining, cloning or merging of identical bodies. */
#if defined(__GNUC__) && !defined(__clang__)
#define NAMED __attribute__((noinline, noipa))
#else
#define NAMED __attribute__((noinline))
#endif
/* after the libc call, so that it is not a tail call: the named frame stays on the stack */
#define STAY() __asm__ volatile("" ::: "memory")

static double seconds;
static const char *dir;
static uint64_t end_ns;
static int pipe_fd[2], idle_fd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned cond_seq;
static volatile int done;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const struct timespec two_ms = { 0, 2000000 };

NAMED static void bl_nanosleep(void)
{
	nanosleep(&two_ms, NULL);
	STAY();
}

NAMED static void bl_pipe_read(void)
{
	char c;

	if (read(pipe_fd[0], &c, 1) < 0 && errno != EINTR)
		exit(1);
}

NAMED static void bl_mutex_lock(void)
{
	pthread_mutex_lock(&lock);
	STAY();
}

NAMED static void bl_cond_wait(unsigned *seen)
{
	while (cond_seq == *seen && !done)
		pthread_cond_wait(&cond, &cond_lock);
	*seen = cond_seq;
}

NAMED static void bl_epoll_wait(int ep)
{
	struct epoll_event e;

	epoll_wait(ep, &e, 1, 2);
	STAY();
}

NAMED static void bl_fsync(int fd)
{
	fsync(fd);
	STAY();
}

/* The wakers of bl-pipe and bl-cond (bl-feed), named for the waker stacks' checks. */
NAMED static void bl_feed_pipe(void)
{
	if (write(pipe_fd[1], "x", 1) != 1)
		exit(1);
	STAY();
}

NAMED static void bl_feed_cond(void)
{
	pthread_mutex_lock(&cond_lock);
	cond_seq++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&cond_lock);
	STAY();
}

static void *run(void *arg)
{
	const char *name = arg;
	int ep = -1, fd = -1;
	unsigned seen = 0;
	char buf[4096];

	prctl(PR_SET_NAME, name);
	if (!strcmp(name, "bl-epoll")) {
		struct epoll_event e = { .events = EPOLLIN };

		ep = epoll_create1(0);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, idle_fd[0], &e))
			exit(1);
	} else if (!strcmp(name, "bl-fsync")) {
		snprintf(buf, sizeof(buf), "%s/blockers.%d", dir, (int)getpid());
		fd = open(buf, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		if (fd < 0)
			exit(1);
		unlink(buf);
		memset(buf, 'x', sizeof(buf));
	} else if (!strcmp(name, "bl-cond")) {
		pthread_mutex_lock(&cond_lock);
	}
	while (now_ns() < end_ns) {
		if (!strcmp(name, "bl-sleep")) {
			bl_nanosleep();
		} else if (!strcmp(name, "bl-pipe")) {
			bl_pipe_read();
		} else if (!strcmp(name, "bl-mutex")) {
			bl_mutex_lock();
			pthread_mutex_unlock(&lock);
		} else if (!strcmp(name, "bl-cond")) {
			bl_cond_wait(&seen);
		} else if (!strcmp(name, "bl-epoll")) {
			bl_epoll_wait(ep);
		} else if (!strcmp(name, "bl-fsync")) {
			if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
				exit(1);
			bl_fsync(fd);
		} else if (!strcmp(name, "bl-hold")) {
			pthread_mutex_lock(&lock);
			nanosleep(&two_ms, NULL);
			pthread_mutex_unlock(&lock);
			sched_yield(); /* let bl-mutex take it */
		} else {	       /* bl-feed */
			nanosleep(&two_ms, NULL);
			bl_feed_pipe();
			bl_feed_cond();
		}
	}
	if (!strcmp(name, "bl-cond"))
		pthread_mutex_unlock(&cond_lock);
	if (!strcmp(name, "bl-feed")) { /* free the readers for their last check of the time */
		done = 1;
		for (int i = 0; i < 4; i++) {
			if (write(pipe_fd[1], "x", 1) != 1)
				exit(1);
			pthread_mutex_lock(&cond_lock);
			cond_seq++;
			pthread_cond_broadcast(&cond);
			pthread_mutex_unlock(&cond_lock);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "bl-sleep", "bl-pipe",  "bl-mutex", "bl-cond",
					     "bl-epoll", "bl-fsync", "bl-hold",	 "bl-feed" };
	pthread_t t[8];

	if (argc != 3 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: blockers SECONDS DIR\n");
		return 2;
	}
	dir = argv[2];
	if (pipe(pipe_fd) || pipe(idle_fd))
		return 1;
	end_ns = now_ns() + (uint64_t)(seconds * 1e9);
	for (int i = 0; i < 8; i++)
		if (pthread_create(&t[i], NULL, run, (void *)names[i]))
			return 1;
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	return 0;
}
