/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-targets.c - wcrec -p stops when its processes have exited (recorder/targets.h): a
 * live process is there, a zombie and a reaped one are gone, a PID with another start time
 * is another process.
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
