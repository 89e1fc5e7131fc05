/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * targets.h - the processes of `wcrec -p` (those named and, unless --no-children, their
 * descendants at the start), and whether they are all gone: wcrec stops then, as `perf
 * record -p` does (perf's per-task events hang up when their task exits).
 *
 * A process counts as gone once /proc/PID/stat is gone, shows it dead (X) or a zombie (Z)
 * with no other thread left (a leader that called pthread_exit() shows Z while its threads
 * run), or shows another start time than at wc_target_init() (the PID reused by a new
 * process).  Any other failure to read /proc (EMFILE, ENOMEM) leaves it there.
 *
 * And the COMMAND of `wcrec -- COMMAND`: forked at once, held before execvp() on a start pipe
 * until the events are enabled, so that its first instruction is recorded.
 */
#ifndef WC_RECORDER_TARGETS_H
#define WC_RECORDER_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct wc_target {
	pid_t pid;
	unsigned long long start_ticks; /* starttime of proc(5), clock ticks after boot */
};

/**
 * wc_target_init() - note @pid and its start time, from /proc/@pid/stat
 * Return: 0, or -ESRCH when there is no such process or it is gone already (as above).
 */
int wc_target_init(struct wc_target *t, pid_t pid);

/** wc_target_gone() - has the process of @t exited since wc_target_init()?  (See above.) */
bool wc_target_gone(const struct wc_target *t);

/** wc_targets_gone() - are all @n processes of @t gone?  False for @n == 0. */
bool wc_targets_gone(const struct wc_target *t, size_t n);

/**
 * wc_targets_add_descendants() - append to @pids the processes descended from them now: their
 * children, the children's children, ..., by the parent of each process in /proc/PID/stat
 * (proc(5), field 4); a process already listed is not added twice
 * @pids: the targets; the descendants are added after the @n given
 * @n:    in: the targets; out: with the descendants
 * @cap:  entries @pids has room for
 * @exclude: a process left out, with its descendants (the recorder itself: `wcrec -p $$`
 *        names the shell that started it), or 0
 * Processes born or gone while /proc is read may be missed or added.
 * Return: 0, -E2BIG when more than @cap would be needed (@pids then holds the first @cap),
 * -ENOMEM, or the error of opening /proc.
 */
int wc_targets_add_descendants(pid_t *pids, size_t *n, size_t cap, pid_t exclude);

/* A COMMAND started by wc_command_start(). */
struct wc_command {
	pid_t pid; /* the child, -1 when none was started */
	int go_fd; /* the start pipe's write end, -1 once written or closed */
};

/**
 * wc_command_start() - fork a child that waits on a start pipe, then execs @argv
 * @cmd:  set; @cmd->pid is -1 on failure
 * @argv: the command and its arguments, NULL-terminated (execvp(3): searched in PATH)
 * @prog: the name the child puts before its message when execvp() fails: "PROG: cannot run
 *        COMMAND: ERROR"
 * @what: on failure, set to the call that failed: "pipe" or "fork"
 *
 * The child restores SIGINT and SIGTERM to their defaults, and exits 127 when the pipe closes
 * before wc_command_go() or when execvp() fails.  The caller reaps it (waitpid(2)).
 * Return: 0, or -errno of pipe2(2) or fork(2).
 */
int wc_command_start(struct wc_command *cmd, char *const argv[], const char *prog,
		     const char **what);

/**
 * wc_command_go() - let the child of wc_command_start() exec its command, and close the pipe
 * Return: 0, or -errno of write(2) (the pipe is left open then: see wc_command_cancel()).
 */
int wc_command_go(struct wc_command *cmd);

/**
 * wc_command_cancel() - close the start pipe if it is still open: a child not yet let go
 * exits 127 without running its command.  A no-op after wc_command_go().
 */
void wc_command_cancel(struct wc_command *cmd);

#endif /* WC_RECORDER_TARGETS_H */
