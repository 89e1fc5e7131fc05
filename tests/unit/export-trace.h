/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export-trace.h - the hand-built trace of the export tests (test-export-speedscope.c,
 * test-export-chrome.c), and the helpers that put their documents through the checkers of
 * testdata/export with /usr/bin/python3.
 *
 * The trace (times in ms; the first event is at 1.0 ms, so ts = time - 1.0 ms):
 * process 100: A = 100 "app", B = 101 "worker", N = 102 "worker" (forked at 4.5 ms);
 * W = 300 "waker" only gives context to the wakeups.  Kernel symbols: __schedule at
 * 0x...100, schedule 0x...200, do_poll 0x...300, entry_SYSCALL_64 0x...400, so that the
 * switch-out stacks, leaf first, are K1 = [__schedule], K2 = [__schedule, schedule],
 * K3 = [__schedule, schedule, do_poll]; the waker's stack WK is [do_poll, entry_SYSCALL_64]
 * in the kernel and one user frame, [unknown] (no maps); the sample stacks are
 * S1 = [do_poll, entry_SYSCALL_64] and S2 = [entry_SYSCALL_64].
 *
 *   1.0  CPU 0: idle -> A (A's first event)     1.5  sample of A, S1
 *   2.0  CPU 1: idle -> B (B's first event)
 *   2.5  CPU 1: B out S, K1                      B ran 2.0-2.5 on CPU 1
 *   3.0  CPU 0: A out R+ (preempted), K2         A ran 1.0-3.0 on CPU 0
 *   3.2  W wakes B (target CPU 1), WK            B blocked S 2.5-3.2
 *   3.25 CPU 0: idle -> A                        A preempted 3.0-3.25
 *   3.3  CPU 1: idle -> B                        B runnable 3.2-3.3
 *   3.6  CPU 1: B out D, K3                      B ran 3.3-3.6
 *   4.0  CPU 0: A out S, K1 (never woken: open)  A ran 3.25-4.0
 *   4.1  W wakes B, WK                           B blocked D 3.6-4.1
 *   4.4  CPU 1: idle -> B                        B runnable 4.1-4.4
 *   4.5  fork of N, W wakes N new (target CPU 0) 4.6  sample of B, S2
 *   4.7  CPU 0: idle -> N                        N runnable 4.5-4.7 (its first run)
 *   4.9  CPU 0: N out S, no stack (open)         N ran 4.7-4.9
 *   5.0  CPU 1: B out S, K1 (open)               B ran 4.4-5.0;  trailer at 6.0
 *
 * Each thread's time is covered from its first event to its last switch-out: A 1.0-4.0 =
 * 2000 + 250 + 750 us; B 2.0-5.0 = 500 + 700 + 100 + 300 + 500 + 300 + 600 us; N 4.5-4.9 =
 * 200 + 200 us.
 */
#ifndef WC_TESTS_EXPORT_TRACE_H
#define WC_TESTS_EXPORT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched-trace.h"

/* the tids above, and a millisecond in ns */
#define A  100
#define B  101
#define N  102
#define W  300
#define MS 1000000ull

/* The trace file: et_init() begins it, et_fini() removes it. */
extern struct st_trace et_tr;

/* et_write_trace(): B names itself "renamed" at 3.4 ms (its comm changes). */
extern bool et_rename_b;

/* et_init(), et_fini() - the suites' fixtures: a new trace with its metadata; its removal. */
void et_init(void);
void et_fini(void);

/**
 * et_write_trace() - the events of the trace above, its kernel symbols first, and its trailer
 * @cut_at: not 0: end the first zstd frame after the events up to 3.0 ms (the first ROUND),
 *          so that a copy cut after it is a trace cut in its second frame
 * Return: the bytes written when the first frame ended (0 without @cut_at).
 */
uint64_t et_write_trace(uint64_t cut_at);

/* et_run() - @cmd run by sh; its output (stdout and stderr) in @out (@size bytes, cut to fit).
 * Return: its exit status (128 when it did not exit). */
int et_run(const char *cmd, char *out, size_t size);

/* et_py() - /usr/bin/python3 on $srcdir/testdata/export/SCRIPT ARGS (@fmt, printf-style);
 * its output in @out (8 KiB).  Return: its exit status. */
int et_py(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* et_save() - @text into a new temporary file, whose name goes into @path (char[64]). */
void et_save(const char *text, char *path);

/* et_patch() - replace the first @from in @s by @to, of the same length. */
void et_patch(char *s, const char *from, const char *to);

#endif /* WC_TESTS_EXPORT_TRACE_H */
