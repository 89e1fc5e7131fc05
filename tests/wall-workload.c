/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wall-workload - threads whose wall-clock profile is known, for tests/analyze-live.sh:
 *   wl-alternate   5 ms spinning in wl_spin(), then 10 ms sleeping in wl_sleep(), repeated
 *   wl-reader      blocked in wl_read() on a pipe that wl-writer fills every 20 ms; works
 *                  3 ms in wl_consume() on each byte
 *   wl-writer      sleeps 20 ms, works 3 ms in wl_produce(), writes a byte in wl_write()
 *   wl-mutex-a/b   contend on one mutex: lock in wl_lock(), hold it 2 ms spinning in
 *                  wl_hold(), unlock
 * When all are done, main prints what each thread measured of itself, which the test
 * compares with the trace: "thread TID COMM LIFETIME_NS CPU_NS NAMED_CPU_NS": CLOCK_MONOTONIC
 * from its naming, the prctl(PR_SET_NAME) that starts its comm in the trace, to the end of
 * its last role's wait for the others; its CLOCK_THREAD_CPUTIME_ID then, all its CPU time;
 * and the part of it since its naming, the CPU time under its comm (its start before the
 * naming took 2.8 ms of CPU in one ASan run under load: ASan's allocator filling its cache).
 * usage: wall-workload [SECONDS]   (default 1.5)
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Named functions stay themselves: no inlining, cloning or merging of identical bodies. */
#if defined(__GNUC__) && !defined(__clang__)
#define NAMED __attribute__((noinline, noipa))
#else
#define NAMED __attribute__((noinline))
#endif

static double seconds = 1.5;
static int pipe_fd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t done; /* the five roles are over */
static sem_t measured;	       /* a thread has stored its figures */

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Shims between the named functions and libc: see demo/wcdemo.c on frame pointers. */
__attribute__((noinline)) static int via_nanosleep(const struct timespec *ts)
{
	return nanosleep(ts, NULL);
}

__attribute__((noinline)) static ssize_t via_read(int fd, void *buf, size_t n)
{
	return read(fd, buf, n);
}

__attribute__((noinline)) static ssize_t via_write(int fd, const void *buf, size_t n)
{
	return write(fd, buf, n);
}

__attribute__((noinline)) static int via_lock(pthread_mutex_t *m)
{
	return pthread_mutex_lock(m);
}

__attribute__((noinline)) static uint64_t via_cpu_ns(void)
{
	return now_ns(CLOCK_THREAD_CPUTIME_ID);
}

static volatile uint64_t sink;

/* Spin until this thread has used @ns of CPU. */
NAMED static void wl_spin(uint64_t ns)
{
	uint64_t end = via_cpu_ns() + ns, x = sink;

	while (via_cpu_ns() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ull + 1;
	sink = x;
}

NAMED static void wl_hold(uint64_t ns)
{
	uint64_t end = via_cpu_ns() + ns, x = sink;

	while (via_cpu_ns() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ull + 1;
	sink = x;
}

NAMED static void wl_consume(uint64_t ns)
{
	wl_hold(ns);
}

NAMED static void wl_produce(uint64_t ns)
{
	wl_hold(ns);
}

NAMED static void wl_sleep(long ns)
{
	struct timespec ts = { 0, ns };

	via_nanosleep(&ts);
}

NAMED static int wl_read(void)
{
	char c;

	return via_read(pipe_fd[0], &c, 1) == 1 && c != 'q';
}

NAMED static void wl_write(char c)
{
	if (via_write(pipe_fd[1], &c, 1) != 1)
		perror("wall-workload: write");
}

NAMED static void wl_lock(void)
{
	via_lock(&lock);
}

struct role {
	const char *comm;
	void (*body)(uint64_t end_ns);
};

static void alternate(uint64_t end)
{
	while (now_ns(CLOCK_MONOTONIC) < end) {
		wl_spin(5000000);
		wl_sleep(10000000);
	}
}

static void reader(uint64_t end)
{
	(void)end;
	while (wl_read())
		wl_consume(3000000); /* runs of milliseconds: the per-run microseconds by
				      * which the thread CPU clock and the switches can part
				      * stay well under 1% */
}

static void writer(uint64_t end)
{
	while (now_ns(CLOCK_MONOTONIC) < end) {
		wl_sleep(20000000);
		wl_produce(3000000);
		wl_write('x');
	}
	wl_write('q');
}

static void contender(uint64_t end)
{
	while (now_ns(CLOCK_MONOTONIC) < end) {
		wl_lock();
		wl_hold(2000000);
		pthread_mutex_unlock(&lock);
	}
}

static const struct role roles[] = {
	{ "wl-alternate", alternate }, { "wl-reader", reader },	    { "wl-writer", writer },
	{ "wl-mutex-a", contender },   { "wl-mutex-b", contender },
};

/* What each thread measured, printed by main. */
static struct result {
	long tid;
	uint64_t life_ns, cpu_ns, named_cpu_ns;
} results[5];

/*
 * A thread: named, it measures; its role; it waits for the others to be done too, stops
 * measuring, hands its figures to main and leaves by the exit system call itself.  Nothing
 * of its own comes after its measurement but that exit, which the kernel does alone in
 * microseconds: not its printing (main prints); not glibc's thread exit (under ASan it
 * unmaps the thread's stacks, which took up to 190 ms under load); and not the teardown of
 * the address space (exit_mmap, milliseconds), which falls to the last thread of the process
 * to let go of it: main, at its _exit, when the threads are gone.  (When they waited to be
 * ended with the process, that teardown fell on whichever thread exit_group(2) ended last,
 * and its on-CPU time ran 1.3-1.8% past its own CPU clock.)
 */
static void *run(void *arg)
{
	const struct role *r = arg;
	struct result *res = &results[r - roles];
	uint64_t start, cpu_start;

	prctl(PR_SET_NAME, r->comm);
	start = now_ns(CLOCK_MONOTONIC);
	cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
	r->body(now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9));
	pthread_barrier_wait(&done);
	res->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
	res->named_cpu_ns = res->cpu_ns - cpu_start;
	res->life_ns = now_ns(CLOCK_MONOTONIC) - start;
	res->tid = (long)syscall(SYS_gettid);
	sem_post(&measured);
	syscall(SYS_exit, 0); /* this thread only; glibc never learns, and main _exits */
	return NULL;
}

/* Wait, 2 s at most, until main is the process's only thread (/proc/self/status). */
static void wait_alone(void)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 2000; i++) {
		char line[128];
		int threads = 0;
		FILE *f = fopen("/proc/self/status", "r");

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Threads: %d", &threads) == 1)
				break;
		if (f)
			fclose(f);
		if (threads == 1)
			return;
		nanosleep(&ms, NULL);
	}
}

int main(int argc, char **argv)
{
	pthread_t t[5];

	if (argc > 1)
		seconds = atof(argv[1]);
	if (pthread_barrier_init(&done, NULL, 5) || sem_init(&measured, 0, 0)) {
		perror("wall-workload: barrier");
		return 1;
	}
	if (pipe(pipe_fd)) {
		perror("wall-workload: pipe");
		return 1;
	}
	for (int i = 0; i < 5; i++)
		if (pthread_create(&t[i], NULL, run, (void *)&roles[i])) {
			fprintf(stderr, "wall-workload: cannot start a thread\n");
			return 1;
		}
	for (int i = 0; i < 5; i++)
		while (sem_wait(&measured) && errno == EINTR)
			;
	for (int i = 0; i < 5; i++)
		printf("thread %ld %s %llu %llu %llu\n", results[i].tid, roles[i].comm,
		       (unsigned long long)results[i].life_ns,
		       (unsigned long long)results[i].cpu_ns,
		       (unsigned long long)results[i].named_cpu_ns);
	fflush(stdout);
	wait_alone(); /* so that the teardown of the address space is main's (see run()) */
	_exit(0);
}
