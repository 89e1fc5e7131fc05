/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcdemo - a small workload whose wall-clock profile is known: one thread sleeps in
 * demo_sleep(), one spins in demo_spin(), two play ping-pong over pipes in demo_ping() and
 * demo_pong().
 * usage: wcdemo [SECONDS]   (default 3)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static int ping_pipe[2], pong_pipe[2];

/*
 * Frame-pointer callchains lose the direct caller of a function built without frame
 * pointers, as Debian's libc is: in the kernel's walk, the return address read from the
 * frame register names the caller's caller.  The named functions below therefore reach libc
 * through these one-line shims: a shim is the frame that is lost, and the named function
 * stays on the stack, as in an application with deeper call paths.  (perf -g behaves the
 * same; see NOTES in wcrec(1).)  Built with -fno-optimize-sibling-calls so shims stay frames.
 */
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

__attribute__((noinline)) static void demo_sleep(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 }; /* 10 ms */

	via_nanosleep(&ts);
}

static volatile unsigned long spin_result;

__attribute__((noinline)) static void demo_spin(void)
{
	unsigned long x = spin_result + 1;

	for (unsigned long i = 0; i < 1000000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	spin_result = x;
}

__attribute__((noinline)) static void demo_ping(void)
{
	char c = 'x';

	if (via_write(ping_pipe[1], &c, 1) != 1 || via_read(pong_pipe[0], &c, 1) != 1)
		stop = 1;
}

__attribute__((noinline)) static void demo_pong(void)
{
	char c;

	if (via_read(ping_pipe[0], &c, 1) != 1 || via_write(pong_pipe[1], &c, 1) != 1)
		stop = 1;
}

/* Each thread takes a name (its comm) and repeats one step until told to stop. */
struct role {
	const char *comm;
	void (*step)(void);
};

static void *run_role(void *arg)
{
	const struct role *r = arg;

	prctl(PR_SET_NAME, r->comm);
	while (!stop)
		r->step();
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	static const struct role roles[] = {
		{ "demo-sleeper", demo_sleep },
		{ "demo-spinner", demo_spin },
		{ "demo-ping", demo_ping },
		{ "demo-pong", demo_pong },
	};
	pthread_t t[4];

	if (pipe(ping_pipe) || pipe(pong_pipe)) {
		perror("wcdemo: pipe");
		return 1;
	}
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, run_role, (void *)&roles[i])) {
			fprintf(stderr, "wcdemo: cannot start a thread\n");
			return 1;
		}
	nanosleep(&ts, NULL);
	stop = 1;
	/* unblock the ping-pong pair */
	close(ping_pipe[1]);
	close(pong_pipe[1]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("wcdemo: ran %.1f s\n", seconds);
	return 0;
}
