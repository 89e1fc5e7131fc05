/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * storm - a burst of short-lived tasks and a counted ping-pong, for tests/pertask-live.sh:
 *   1. (-w FIFO) a heartbeat thread, storm-beat, sleeps 2 ms in a loop while main waits for a
 *      line on FIFO: a recorder attached with -p sees events of the process before it is let
 *      go; the heartbeat ends before the rest
 *   2. storm-ping and storm-pong hand a futex word to each other ROUNDS times each way; both
 *      run on one CPU, so that each FUTEX_WAKE that finds the other queued (its return value,
 *      which each adds up) is one sched_waking of the other (see ping_pong())
 *   3. a burst of STORM_N storm-thread threads and STORM_N storm-child processes, forked as
 *      the threads come; every STORM_CHILD_THREAD_EVERY-th child creates a storm-cthread.
 *      A child execs this program again ("--child"): a thread made after a fork of a
 *      threaded process hung in ASan's allocator (its lock held by a thread not copied).
 *      Each new task sleeps 1 ms and exits: a switch-out at least (its exit's, when it was
 *      preempted inside its nanosleep() and the timer fired meanwhile, else its sleep's).
 * Then OUT gets one line per task created: "thread TID", "child TID", "cthread TID", and
 * "ping TID WOKEN FROM TO" and "pong TID WOKEN FROM TO" (WOKEN: how often the other one's
 * FUTEX_WAKE woke it; FROM, TO: CLOCK_MONOTONIC ns before and after its turns).
 * usage: storm [-w FIFO] OUT [ROUNDS]   (ROUNDS 3000 by default)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ /* Linux 5.14; a kernel before says EINVAL */
#define MADV_POPULATE_READ  22
#define MADV_POPULATE_WRITE 23
#endif

#define STORM_N			 500
#define STORM_CHILD_THREAD_EVERY 5
#define STORM_STACK_BYTES	 (64 * 1024)
#define PP_STACK_BYTES		 (256 * 1024)

static long rounds = 3000;

static long tid_now(void)
{
	return syscall(SYS_gettid);
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* 1. The heartbeat, while main waits on the FIFO. */
static atomic_int beat_stop;

static void *beat(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "storm-beat");
	while (!atomic_load(&beat_stop))
		sleep_ns(2000000);
	return NULL;
}

static int wait_fifo(const char *path)
{
	pthread_t t;
	char line[16];
	int fd, err = pthread_create(&t, NULL, beat, NULL);

	if (err) {
		fprintf(stderr, "storm: pthread_create: %s\n", strerror(err));
		return -1;
	}
	fd = open(path, O_RDONLY); /* until the test opens it to write */
	if (fd < 0 || read(fd, line, sizeof(line)) < 0)
		perror(path);
	if (fd >= 0)
		close(fd);
	atomic_store(&beat_stop, 1);
	pthread_join(t, NULL);
	return fd < 0 ? -1 : 0;
}

/*
 * 2. The ping-pong: turn is 0 when it is ping's, 1 when pong's.  pass() hands it over and
 * wakes the other if it is queued on the word, and returns how many FUTEX_WAKE woke (0 or 1);
 * await() sleeps until the turn is ours.
 * Why each wake counted is one sched_waking of the woken and no other comes: main pins itself
 * to one CPU before it creates the two, which inherit that, and nothing else moves them, so
 * the waker runs only while the other is off the CPU; a thread queued on the word has set its
 * state to TASK_INTERRUPTIBLE before queueing and keeps it until it has run on past its
 * schedule(), so try_to_wake_up() finds the state it wakes and fires sched_waking (on two
 * CPUs a waiter dequeued while still on its way to sleep could be woken with no event).  The
 * stacks are main's, mapped and populated before: a thread's start takes no page of its
 * own that main could be mapping meanwhile (a wait on mmap_lock is a wakeup by main).  The
 * program's and its libraries' file pages are mapped before too (populate_files()): a fault
 * on a page of pp_run()'s code still being read from disk waits on the page's lock, and the
 * reader wakes it (once in CI, under ASan, a task outside the process).  Each
 * also has its sched_wakeup_new, and the wake of main at its exit is main's.  Not every pass
 * wakes: the one woken can preempt its waker before that one queues, and find the turn passed
 * back with nobody to wake (about half of them, here).  Before its first turn and after its
 * last, a thread can be woken by others: its exit under ASan unmaps its own memory and waits
 * on mmap_lock for the other's exit (seen: pong woken by ping); hence FROM and TO.
 */
static atomic_int turn;
static struct pp {
	const char *comm;
	int me;
	long tid, woken_other;
	unsigned long long from_ns, to_ns;
} ping = { "storm-ping", 0, 0, 0, 0, 0 }, pong = { "storm-pong", 1, 0, 0, 0, 0 };

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static long pass(int to)
{
	atomic_store(&turn, to);
	return syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void await(int me)
{
	int v;

	while ((v = atomic_load(&turn)) != me)
		syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void *pp_run(void *arg)
{
	struct pp *p = arg;
	int other = !p->me;

	prctl(PR_SET_NAME, p->comm);
	p->tid = tid_now();
	p->from_ns = mono_ns();
	for (long i = 0; i < rounds; i++) {
		if (p->me == 0) {
			p->woken_other += pass(other);
			await(p->me);
		} else {
			await(p->me);
			p->woken_other += pass(other);
		}
	}
	p->to_ns = mono_ns();
	return NULL;
}

/* Maps every page of the process's file mappings (its code, its data, its libraries'), as a
 * fault in ping_pong() would: MADV_POPULATE_READ / _WRITE (Linux 5.14), else a read of each
 * page.  Best effort: a page left out costs at most a wakeup from outside the ping-pong. */
static void populate_files(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char perms[8], line[512];
	long page = sysconf(_SC_PAGESIZE);

	while (maps && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
		    !strchr(line, '/'))
			continue;
		if (perms[1] == 'w' && perms[3] == 'p' &&
		    !madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE))
			continue;
		if (!madvise((void *)lo, hi - lo, MADV_POPULATE_READ))
			continue;
		for (unsigned long a = lo; a < hi; a += (unsigned long)page)
			(void)*(volatile const char *)a;
	}
	if (maps)
		fclose(maps);
}

static int ping_pong(void)
{
	cpu_set_t all, one;
	pthread_attr_t attr[2];
	pthread_t t[2];
	struct pp *pps[2] = { &ping, &pong };
	int err = 0, cpu;

	if (sched_getaffinity(0, sizeof(all), &all) || (cpu = sched_getcpu()) < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1;
	for (int i = 0; i < 2; i++) {
		void *stack = mmap(NULL, PP_STACK_BYTES, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_POPULATE, -1, 0);

		if (stack == MAP_FAILED)
			return -1;
		pthread_attr_init(&attr[i]);
		pthread_attr_setstack(&attr[i], stack, PP_STACK_BYTES);
	}
	populate_files();
	for (int i = 0; i < 2 && !err; i++)
		err = pthread_create(&t[i], &attr[i], pp_run, pps[i]);
	if (err) {
		fprintf(stderr, "storm: pthread_create: %s\n", strerror(err));
		return -1;
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return sched_setaffinity(0, sizeof(all), &all) ? -1 : 0;
}

/* 3. The storm: each task's tid, the threads' in tids[], the children's through a pipe. */
static long tids[STORM_N];

static void *storm_thread(void *arg)
{
	long *tid = arg;

	prctl(PR_SET_NAME, "storm-thread");
	*tid = tid_now();
	sleep_ns(1000000);
	return NULL;
}

static void *child_thread(void *arg)
{
	long *tid = arg;

	prctl(PR_SET_NAME, "storm-cthread");
	*tid = tid_now();
	sleep_ns(1000000);
	return NULL;
}

/* A forked child, run as "storm --child FD WITH_THREAD" (main()): its line, and its thread's,
 * written at once to FD (under PIPE_BUF).  Does not return. */
static void child(int fd, int with_thread)
{
	char text[64];
	long ctid = 0;
	pthread_t t;
	int n;

	prctl(PR_SET_NAME, "storm-child");
	sleep_ns(1000000);
	if (with_thread && !pthread_create(&t, NULL, child_thread, &ctid))
		pthread_join(t, NULL);
	n = snprintf(text, sizeof(text), "child %ld\n", tid_now());
	if (ctid)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "cthread %ld\n", ctid);
	_exit(write(fd, text, (size_t)n) == n ? 0 : 1);
}

static int storm(FILE *out)
{
	static pthread_t threads[STORM_N];
	pthread_attr_t attr;
	int fds[2], made = 0, failed = 0, status;
	char buf[4096], fd_text[16], *stacks;
	ssize_t n;

	/* the threads' stacks in one mapping: each fork copies one mapping, not STORM_N (a
	 * fork of a process with glibc's stacks took 4 times as long) */
	stacks = mmap(NULL, STORM_N * STORM_STACK_BYTES, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stacks == MAP_FAILED || pipe(fds))
		return -1;
	snprintf(fd_text, sizeof(fd_text), "%d", fds[1]);
	for (int i = 0; i < STORM_N; i++) {
		pid_t pid;

		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, stacks + (size_t)i * STORM_STACK_BYTES,
				      STORM_STACK_BYTES);
		if (pthread_create(&threads[made], &attr, storm_thread, &tids[made]) == 0)
			made++;
		pthread_attr_destroy(&attr);
		pid = fork();
		if (pid == 0) { /* exec: a sanitizer's locks may be held by a thread not copied */
			close(fds[0]);
			execl("/proc/self/exe", "storm", "--child", fd_text,
			      i % STORM_CHILD_THREAD_EVERY == 0 ? "1" : "0", (char *)NULL);
			_exit(127);
		}
		failed += pid < 0;
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0) /* EOF: every child has exited */
		fwrite(buf, 1, (size_t)n, out);
	close(fds[0]);
	while (wait(&status) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	for (int i = 0; i < made; i++) {
		pthread_join(threads[i], NULL);
		fprintf(out, "thread %ld\n", tids[i]);
	}
	if (made < STORM_N || failed)
		fprintf(stderr, "storm: %d of %d threads made, %d children failed\n", made, STORM_N,
			failed);
	return made < STORM_N || failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *fifo = NULL;
	FILE *out;
	int ret;

	if (argc == 4 && !strcmp(argv[1], "--child"))
		child(atoi(argv[2]), !strcmp(argv[3], "1"));
	if (argc > 2 && !strcmp(argv[1], "-w")) {
		fifo = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || argc > 3 || (argc == 3 && (rounds = atol(argv[2])) <= 0)) {
		fprintf(stderr, "usage: storm [-w FIFO] OUT [ROUNDS]\n");
		return 2;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	if (fifo && wait_fifo(fifo))
		return 1;
	ret = ping_pong();
	if (ret)
		perror("storm: ping-pong");
	fprintf(out, "ping %ld %ld %llu %llu\npong %ld %ld %llu %llu\n", ping.tid, pong.woken_other,
		ping.from_ns, ping.to_ns, pong.tid, ping.woken_other, pong.from_ns, pong.to_ns);
	if (!ret)
		ret = storm(out);
	return fclose(out) || ret ? 1 : 0;
}
