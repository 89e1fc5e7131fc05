/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-targets.c - wcrec -p stops when its processes have exited (recorder/targets.h): a
 * live process is there, a zombie and a reaped one are gone, a PID with another start time
 * is another process; and the descendants -p follows: children and their children, once each,
 * none of an excluded process.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/targets.h"

/* A child that waits for a signal (pause()): kill it to make it exit. */
static pid_t spawn(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(30); /* gone by itself if a failed check leaves it behind */
		pause();
		_exit(0);
	}
	return pid;
}

static void *sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

/* A process whose main thread ends with pthread_exit() and another thread lives on. */
static pid_t spawn_headless(void)
{
	pid_t pid = fork();
	pthread_t th;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(30);
		if (pthread_create(&th, NULL, sleeper, NULL))
			_exit(1);
		pthread_exit(NULL);
	}
	return pid;
}

/* Wait until /proc shows @pid a zombie (it exited, not reaped). */
static void await_zombie(pid_t pid)
{
	siginfo_t si;

	cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
}

Test(targets, live_then_zombie_then_reaped)
{
	struct wc_target t;
	pid_t pid = spawn();

	cr_assert_eq(wc_target_init(&t, pid), 0);
	cr_assert_not(wc_target_gone(&t));
	cr_assert_not(wc_targets_gone(&t, 1));
	kill(pid, SIGKILL);
	await_zombie(pid);
	cr_assert(wc_target_gone(&t), "a zombie is gone");
	cr_assert_eq(wc_target_init(&t, pid), -ESRCH, "a zombie is no target");
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cr_assert(wc_target_gone(&t));
}

Test(targets, all_must_be_gone)
{
	struct wc_target t[2];
	pid_t pid[2] = { spawn(), spawn() };

	cr_assert_eq(wc_target_init(&t[0], pid[0]), 0);
	cr_assert_eq(wc_target_init(&t[1], pid[1]), 0);
	kill(pid[0], SIGKILL);
	cr_assert_eq(waitpid(pid[0], NULL, 0), pid[0]);
	cr_assert_not(wc_targets_gone(t, 2), "one of two is still there");
	kill(pid[1], SIGKILL);
	cr_assert_eq(waitpid(pid[1], NULL, 0), pid[1]);
	cr_assert(wc_targets_gone(t, 2));
	cr_assert_not(wc_targets_gone(t, 0), "no target: never all gone");
}

/* A leader that called pthread_exit() shows Z in /proc/PID/stat; its process is alive. */
Test(targets, zombie_leader_with_threads)
{
	struct wc_target t;
	pid_t pid = spawn_headless();
	char path[64], stat[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 500 && !strstr(stat, ") Z "); i++) { /* until the leader is a zombie */
		usleep(10000);
		f = fopen(path, "r");
		cr_assert_not_null(f);
		cr_assert_not_null(fgets(stat, sizeof(stat), f));
		fclose(f);
	}
	cr_assert_not_null(strstr(stat, ") Z "), "the leader never became a zombie: %s", stat);
	cr_assert_eq(wc_target_init(&t, pid), 0, "a zombie leader with a live thread is a target");
	cr_assert_not(wc_target_gone(&t));
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cr_assert(wc_target_gone(&t));
}

/* The PID of a live process with another start time than noted: a reused PID. */
Test(targets, reused_pid)
{
	struct wc_target t;

	cr_assert_eq(wc_target_init(&t, getpid()), 0);
	cr_assert_not(wc_target_gone(&t));
	t.start_ticks++;
	cr_assert(wc_target_gone(&t));
}

Test(targets, no_such_process)
{
	struct wc_target t;

	cr_assert_eq(wc_target_init(&t, 0x3fffffff), -ESRCH);
}

/* A child that forks a grandchild, both waiting for a signal; the grandchild's pid comes back
 * through @fd.  Killing the child's process group ends both. */
static pid_t spawn_tree(int fd[2])
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pid_t g;

		setpgid(0, 0);
		alarm(30);
		g = fork();
		if (g == 0) {
			alarm(30);
			pause();
			_exit(0);
		}
		if (write(fd[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

static bool has(const pid_t *pids, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == p)
			return true;
	return false;
}

Test(targets, descendants)
{
	pid_t pids[4096], child, grandchild = 0;
	size_t n = 1;
	int fd[2];

	cr_assert_eq(pipe(fd), 0);
	child = spawn_tree(fd);
	cr_assert_eq(read(fd[0], &grandchild, sizeof(grandchild)), (ssize_t)sizeof(grandchild));
	/* from the child: its child only */
	pids[0] = child;
	cr_expect_eq(wc_targets_add_descendants(pids, &n, 4096, 0), 0);
	cr_expect_eq(n, 2);
	cr_expect_eq(pids[1], grandchild);
	/* from ourselves: both, once, and the child already listed is not added again */
	pids[0] = getpid();
	pids[1] = child;
	n = 2;
	cr_expect_eq(wc_targets_add_descendants(pids, &n, 4096, 0), 0);
	cr_expect_eq(n, 3);
	cr_expect(has(pids, n, grandchild));
	/* excluding the child leaves its descendants out too */
	pids[0] = getpid();
	n = 1;
	cr_expect_eq(wc_targets_add_descendants(pids, &n, 4096, child), 0);
	cr_expect_not(has(pids, n, child));
	cr_expect_not(has(pids, n, grandchild));
	/* no room: -E2BIG, with what fitted */
	pids[0] = child;
	n = 1;
	cr_expect_eq(wc_targets_add_descendants(pids, &n, 1, 0), -E2BIG);
	cr_expect_eq(n, 1);
	kill(-child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd[0]);
	close(fd[1]);
}
