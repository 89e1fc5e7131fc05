/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-timehist.c - `wcanalyze timehist` over hand-built traces, its output compared byte for
 * byte with testdata/timehist/NAME.expected; exit statuses and bad options.
 *
 * The expected files were worked out by hand: the values from the timelines below (times in
 * microseconds after the base; a row's wait time is its task's last off-CPU interval,
 * switch-out to switch-in, its sch delay the part from the first wakeup to the switch-in, its
 * run time switch-in to switch-out), the layout from perf 6.1's printf formats in
 * tools/perf/builtin-sched.c (timehist_header, timehist_print_sample, print_sched_time:
 * "%*lu.%03lu " of ms and us, truncated; timehist_print_summary).  The stddev column is
 * perf's: 100 * sqrt(sum((x - mean)^2) / (n - 1) / n) / mean.  The files were typed out from
 * these values with those printf formats, by a formatter apart from this program, and
 * checked against perf 6.1's output on real recordings for the layout (header lines and
 * column widths byte for byte, but -V, which has one column per CPU here; NOTES).
 *
 * Trace 1, "basic" (base 1 s; A = a[100], B = b[200/100] a thread of A's process, C = c[400];
 * W = 300 only wakes):
 *     CPU 0                                  CPU 1
 *     100  idle -> A                         200  idle -> C
 *                                            700  C out S (futex) -> idle
 *    1100  A out S (nanosleep) -> B
 *    1500  W wakes A                        1800  W wakes C (target CPU 1)
 *    2100  B out R+ (preempted) -> A        2500  C out S -> idle: its switch-in, out of
 *    2600  A out D (futex) -> B                   idle, was not traced; inferred at the
 *    3000  W wakes A                              wakeup, 1800 (the CPU was idle)
 *    3300  B out S -> idle
 *    3400  idle -> A
 *    4000  A out S -> idle
 *    4200  W wakes B
 *    4500  idle -> B
 *    5000  B out S -> idle                  (trailer at 6000)
 *
 *   rows:  time  task   wait   delay   run    why
 *          100   idle   -      0       -      idle's switch-in before the trace
 *          200   idle   -      0       -      (CPU 1)
 *          700   C      -      -       0.500  200 -> 700; C's first event a switch-in
 *         1100   A      -      -       1.000  100 -> 1100
 *         2100   B      -      -       1.000  1100 -> 2100
 *         2500   C      1.100  0.000   0.700  out 700, woken and in at 1800, run 1800 -> 2500
 *         2600   A      1.000  0.600   0.500  out 1100, woken 1500, in 2100
 *         3300   B      0.500  0.500   0.700  preempted 2100 -> 2600: all sch delay
 *         3400   idle   3.200  0       0.100  idle out 100 .. in 3300; idle 3300 -> 3400
 *         4000   A      0.800  0.400   0.600  out 2600 (D), woken 3000, in 3400
 *         4500   idle   0.600  0       0.500  out 3400 .. in 4000; 4000 -> 4500
 *         5000   B      1.200  0.300   0.500  out 3300, woken 4200, in 4500
 *   summary: A runs 1.000 0.500 0.600: total 2.100, mean 0.700, stddev% 21.82; sleep 1.000
 *   (after S), iowait 0.800 (after D), delay 1.000.  B 1.000 0.700 0.500: 2.200, mean
 *   0.733, 19.81%; preempt 0.500, sleep 1.200, delay 0.800.  C 0.500 0.700: 1.200, 16.67%;
 *   sleep 1.100.  CPU 0 idle 0.100 + 0.500 = 0.600 of 5000 - 100 = 4.900 ms: 12.24%; CPU 1's
 *   idle period from 700 is cut by C's switch-out at 2500.  Context switches: 3 + 3 + 2 runs
 *   and 2 idle periods, and each CPU's first idle period, whose start is before the trace
 *   (perf counts every switch-out, timehist_update_runtime_stats): 12.  Footer: A, B and C
 *   start with a switch-in (3), one switch-in not traced, inferred; one idle period not
 *   closed.
 *   -I: idle 3300 -> 3400 goes to B (it left CPU 0 idle), 4000 -> 4500 to A, both with the
 *   nanosleep chain: 0.600 in 2 periods.
 *   --time 0.0026,0.0046: from the first event (100) the window is [2700, 4700): rows whose
 *   run overlaps it, with their whole values; the summary clips: A 3400 -> 4000 = 0.600, B
 *   2700 -> 3300 = 0.600 and 4500 -> 4700 = 0.200 (stddev 50.00%); CPU 0 idle 0.600 of
 *   4700 - 3300 = 1.400 ms (the last switch, 5000, clipped to the end as perf does): 42.86%.
 *
 * Trace 2, "options" (base 2 s; P = parent[1000], N = n[500] new, T = worker-thread-1[2000001/
 * 2000000], whose name is 32 characters: the name column widens from 30 when it comes):
 *        5  CPU 0 idle -> P
 *       10  P: sched_wakeup_new of N (target CPU 1)
 *       20  CPU 1 idle -> N
 *      300  CPU 1 N out S -> idle: new task's wait 10 -> 20, all sch delay: 0.010 0.010 0.280
 *      400  CPU 0, P's context: N migrates CPU 1 -> 0
 *      500  P wakes N (target 0)
 *      600  CPU 0 P out S -> N: P's run 5 -> 600, 0.595
 *      700  CPU 0 N out R+ -> T: out 300, woken 500, in 600: 0.300 0.100, run 0.100
 *      900  CPU 0 T out S -> N: run 0.200 (the row at the new width)
 *      950  CPU 0, N's context: T migrates 0 -> 1
 *     1000  CPU 0 N out S -> idle: preempted 700 -> 900: 0.200 0.200, run 0.100
 *   summary: N 0.280 0.100 0.100: 0.480, mean 0.160, 37.50%, 1 migration; P 0.595; T 0.200,
 *   1 migration; no idle period both began and ended (0.000, 0.00%); 995 us scheduling time.
 *
 * Trace 3, "exit" (base 3 s; L = leader[3000], M = worker[3001/3000] a thread of L's process
 * that exits, Q = other[3100]):
 *     CPU 0                                  CPU 1
 *       10  idle -> M                          20  idle -> Q
 *      200  M out S (futex) -> L              300  Q out S (nanosleep) -> idle
 *      350  L wakes M
 *      400  L out R+ (preempted) -> M
 *      450  EXIT of M
 *      460  M out X (dead) -> L
 *      600  L out S (nanosleep) -> idle         (trailer at 1000)
 *   rows: 10, 20 idle (- 0.000 -); 200 M - - 0.190; 300 Q - - 0.280; 400 L - - 0.200;
 *   460 M 0.200 0.050 0.060 (out 200, woken 350, in 400); 600 L 0.060 0.060 0.140 (preempted).
 *   summary: L and Q still there, M under "Terminated tasks:" (perf 6.1 lists the threads it
 *   saw exit apart, after the others; print_thread_runtime's line): L 0.200 0.140: 0.340,
 *   mean 0.170, 100 * 30 / 170 = 17.65%; Q 0.280; M 0.190 0.060: 0.250, mean 0.125, 100 * 65 /
 *   125 = 52.00%, parent 3000 (its process: no FORK record).  No idle period closed: 0.000 on
 *   both CPUs, of 600 - 10 = 0.590 ms.  5 runs; 0.870 ms run.  Footer: M, Q and L start with a
 *   switch-in (3).
 *
 * -I (perf's timehist_skip_sample: only the switches to and from idle): the idle rows, and a
 * row for each task switched out to idle, 0.000 in its three columns (perf keeps no times of
 * tasks with -I), with its callchain.
 *
 * A trace whose sched_switch EVENT_ATTR has no PERF_SAMPLE_CALLCHAIN in its sample_type (wcrec
 * -g none; suite timehist_nochain): perf says "Samples do not have callchains" and turns -g
 * off, so its rows end with the last column's space, with none of the two spaces before a
 * callchain, and -I has no "Idle stats by callchain".
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/cli/cli.h"
#include "sched-trace.h"
#include "trace-util.h"

#define A  100
#define B  200
#define C  400
#define W  300
#define P  1000
#define N  500
#define T  2000001
#define TP 2000000
#define L  3000
#define M  3001
#define Q  3100

#define ST_X 0x10ull /* EXIT_DEAD in the 6.18 layout: "X" */

#define K 0xffffffff81000000ull /* _stext of the kallsyms below */

static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81001000 T __schedule\n"
			       "ffffffff81002000 T schedule\n"
			       "ffffffff81003000 T do_nanosleep\n"
			       "ffffffff81004000 T hrtimer_nanosleep\n"
			       "ffffffff81005000 T __x64_sys_nanosleep\n"
			       "ffffffff81006000 T do_syscall_64\n"
			       "ffffffff81007000 T entry_SYSCALL_64\n"
			       "ffffffff81008000 T preempt_schedule_irq\n"
			       "ffffffff81009000 T irqentry_exit\n"
			       "ffffffff8100a000 T asm_sysvec_apic_timer_interrupt\n"
			       "ffffffff8100b000 T futex_wait\n"
			       "ffffffff8100c000 D some_data\n";

#define F(n) (K + 0x1000ull * (n) + 0x10) /* an address inside the n-th function */

static struct st_trace tr;
static uint32_t ks, kp, kf; /* nanosleep, preempted, futex chains */

static void begin(unsigned flags)
{
	if (st_begin_flags(&tr, flags)) {
		st_remove(&tr);
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?",
			       getenv("srcdir") ? getenv("srcdir") : ".");
	}
	st_kallsyms(&tr, kallsyms);
	const uint64_t sleep[] = {
		PERF_CONTEXT_KERNEL, F(1),     F(2),	F(3), F(4), F(5), F(6), F(7),
		PERF_CONTEXT_USER,   0x401000, 0x402000
	};
	const uint64_t preempt[] = { PERF_CONTEXT_KERNEL, F(1),	   F(8), F(9), F(10),
				     PERF_CONTEXT_USER,	  0x401234 };
	const uint64_t futex[] = { PERF_CONTEXT_KERNEL, F(1), F(2), F(11) };

	ks = kp = kf = 0;
	if (flags & ST_NO_SWITCH_CALLCHAIN) /* wcrec -g none: no STACK records, ids 0 */
		return;
	ks = st_stack(&tr, sleep, 11);
	kp = st_stack(&tr, preempt, 7);
	kf = st_stack(&tr, futex, 4);
}

static void init(void)
{
	begin(0);
}

static void init_nochain(void)
{
	begin(ST_NO_SWITCH_CALLCHAIN);
}

static void fini(void)
{
	st_remove(&tr);
}

TestSuite(timehist, .init = init, .fini = fini);
TestSuite(timehist_nochain, .init = init_nochain, .fini = fini);

#define US1(us) (1000000000ull + (uint64_t)(us)*1000)
#define US2(us) (2000000000ull + (uint64_t)(us)*1000)
#define US3(us) (3000000000ull + (uint64_t)(us)*1000)

/* Trace 1 (see the top). */
static void basic(void)
{
	st_set_pid(&tr, B, A);
	st_switch(&tr, US1(100), 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, US1(200), 1, 0, "swapper/1", 0, C, "c", 0);
	st_switch(&tr, US1(700), 1, C, "c", ST_S, 0, "swapper/1", kf);
	st_switch(&tr, US1(1100), 0, A, "a", ST_S, B, "b", ks);
	st_wake(&tr, US1(1500), 1, W, A, "a", 0, 0);
	st_wake(&tr, US1(1800), 1, W, C, "c", 1, 0);
	st_switch(&tr, US1(2100), 0, B, "b", ST_RPLUS, A, "a", kp);
	st_switch(&tr, US1(2500), 1, C, "c", ST_S, 0, "swapper/1", kf);
	st_switch(&tr, US1(2600), 0, A, "a", ST_D, B, "b", kf);
	st_wake(&tr, US1(3000), 1, W, A, "a", 0, 0);
	st_switch(&tr, US1(3300), 0, B, "b", ST_S, 0, "swapper/0", ks);
	st_switch(&tr, US1(3400), 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, US1(4000), 0, A, "a", ST_S, 0, "swapper/0", ks);
	st_wake(&tr, US1(4200), 1, W, B, "b", 0, 0);
	st_switch(&tr, US1(4500), 0, 0, "swapper/0", 0, B, "b", 0);
	st_switch(&tr, US1(5000), 0, B, "b", ST_S, 0, "swapper/0", ks);
	cr_assert_eq(st_end(&tr, true, US1(6000)), 0);
}

/* Trace 2 (see the top). */
static void options(void)
{
	cr_assert_eq(st_begin_migrate(&tr), 0);
	st_set_pid(&tr, T, TP);
	st_switch(&tr, US2(5), 0, 0, "swapper/0", 0, P, "parent", 0);
	st_wake_new(&tr, US2(10), 0, P, N, "n", 1);
	st_switch(&tr, US2(20), 1, 0, "swapper/1", 0, N, "n", 0);
	st_switch(&tr, US2(300), 1, N, "n", ST_S, 0, "swapper/1", ks);
	st_migrate(&tr, US2(400), 0, P, N, "n", 1, 0);
	st_wake(&tr, US2(500), 0, P, N, "n", 0, 0);
	st_switch(&tr, US2(600), 0, P, "parent", ST_S, N, "n", kf);
	st_switch(&tr, US2(700), 0, N, "n", ST_RPLUS, T, "worker-thread-1", kp);
	st_switch(&tr, US2(900), 0, T, "worker-thread-1", ST_S, N, "n", kf);
	st_migrate(&tr, US2(950), 0, N, T, "worker-thread-1", 0, 1);
	st_switch(&tr, US2(1000), 0, N, "n", ST_S, 0, "swapper/0", ks);
	cr_assert_eq(st_end(&tr, true, US2(2000)), 0);
}

/* Trace 3 (see the top). */
static void exits(void)
{
	st_set_pid(&tr, M, L);
	st_switch(&tr, US3(10), 0, 0, "swapper/0", 0, M, "worker", 0);
	st_switch(&tr, US3(20), 1, 0, "swapper/1", 0, Q, "other", 0);
	st_switch(&tr, US3(200), 0, M, "worker", ST_S, L, "leader", kf);
	st_switch(&tr, US3(300), 1, Q, "other", ST_S, 0, "swapper/1", ks);
	st_wake(&tr, US3(350), 0, L, M, "worker", 0, 0);
	st_switch(&tr, US3(400), 0, L, "leader", ST_RPLUS, M, "worker", kp);
	st_task(&tr, WC_REC_EXIT, US3(450), L, 1, M, 1);
	st_switch(&tr, US3(460), 0, M, "worker", ST_X, L, "leader", kf);
	st_switch(&tr, US3(600), 0, L, "leader", ST_S, 0, "swapper/0", ks);
	cr_assert_eq(st_end(&tr, true, US3(1000)), 0);
}

/*
 * `wcanalyze timehist ARGS FILE` with its stdout in *@out (malloc'd) and its stderr in *@err
 * (may be NULL).  Return: the exit status.
 */
static int run(const char *args, const char *path, char **out, char **err)
{
	char buf[512], *argv[32];
	int argc = 0, rc, saved[2];
	FILE *f[2];

	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = "timehist";
	for (char *s = strtok(buf, " "); s && argc < 30; s = strtok(NULL, " "))
		argv[argc++] = s;
	argv[argc++] = (char *)path;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++) {
		f[i] = tmpfile();
		cr_assert_not_null(f[i]);
		saved[i] = dup(i + 1);
		dup2(fileno(f[i]), i + 1);
	}
	rc = wc_cmd_timehist(argc, argv);
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++) {
		char **dst = i ? err : out;
		long n;

		dup2(saved[i], i + 1);
		close(saved[i]);
		n = ftell(f[i]);
		rewind(f[i]);
		if (dst) {
			*dst = calloc(1, (size_t)n + 1);
			cr_assert_eq(fread(*dst, 1, (size_t)n, f[i]), (size_t)n);
		}
		fclose(f[i]);
	}
	return rc;
}

static char *read_expected(const char *name)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	char *text;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/testdata/timehist/%s.expected", srcdir ? srcdir : ".",
		 name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/* The output of `timehist ARGS` on the trace equals testdata/timehist/NAME.expected. */
static void expect_output(const char *args, const char *name)
{
	char *out, *err, *want = read_expected(name);
	int rc = run(args, tr.path, &out, &err);

	cr_expect_eq(rc, 0, "timehist %s: exit %d (%s)", args, rc, err);
	if (strcmp(out, want)) {
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "/tmp/timehist-%s.actual", name);
		f = fopen(path, "w");
		if (f) {
			fputs(out, f);
			fclose(f);
		}
		cr_expect_fail("timehist %s differs from %s.expected: diff -u "
			       "testdata/timehist/%s.expected %s",
			       args, name, name, path);
	}
	free(out);
	free(err);
	free(want);
}

Test(timehist, rows)
{
	basic();
	expect_output("", "basic");
}

Test(timehist, with_summary)
{
	basic();
	expect_output("-S", "basic-summary");
}

Test(timehist, wait_time_summary)
{
	basic();
	expect_output("-s --state", "basic-state");
}

Test(timehist, idle_hist)
{
	basic();
	expect_output("-I -S", "idle-hist");
}

Test(timehist, time_window)
{
	basic();
	expect_output("--time 0.0026,0.0046 -S --max-stack 2", "window");
}

Test(timehist, pid_filter_no_callchain)
{
	basic();
	expect_output("-p 100 -G", "filter");
}

Test(timehist, options)
{
	options();
	expect_output("-V --state -n -w -M", "options");
}

Test(timehist, migrations_summary)
{
	options();
	expect_output("-M -s", "options-summary");
}

/* A thread that exited is listed apart, under "Terminated tasks:", as perf 6.1 does. */
Test(timehist, terminated_tasks)
{
	exits();
	expect_output("-S", "exit-summary");
}

/* No callchains in the trace: no room left for them at the end of the rows (perf's -g off). */
Test(timehist_nochain, rows)
{
	basic();
	expect_output("", "nochain");
}

/* ... and with -I, the task rows end there too, and there is no idle time by callchain. */
Test(timehist_nochain, idle_hist)
{
	basic();
	expect_output("-I -S", "nochain-idle-hist");
}

/* -s prints no rows: -w and -n make no sense with it (perf refuses them too) */
Test(timehist, bad_options)
{
	static const char *const bad[] = {
		"-s -w", "-s -n", "--max-stack x", "--max-stack -1", "--bogus", "--time 3,1", "-p x"
	};
	char *out, *err;

	basic();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = run(bad[i], tr.path, &out, &err);

		cr_expect_eq(rc, 2, "timehist %s: exit %d, not 2", bad[i], rc);
		cr_expect_str_empty(out, "timehist %s wrote to stdout", bad[i]);
		cr_expect(strchr(err, '\n') && !strchr(err, '\n')[1],
			  "timehist %s: not one line "
			  "on stderr: %s",
			  bad[i], err);
		free(out);
		free(err);
	}
}

/* A trace cut inside its last frame: the rows before the cut, a warning, exit 3. */
Test(timehist, truncated)
{
	char *out, *err, cut[64];
	struct stat sb;

	basic();
	cr_assert_eq(stat(tr.path, &sb), 0);
	cr_assert_eq(tu_copy_prefix(tr.path, (uint64_t)sb.st_size - 40, cut), 0);
	int rc = run("", cut, &out, &err);

	unlink(cut);
	cr_expect_eq(rc, 3, "exit %d, not 3 (%s)", rc, err);
	cr_expect(strstr(err, "cut at byte"), "no warning naming the cut: %s", err);
	free(out);
	free(err);
}

/* Not a trace (300 bytes of text): one line on stderr naming it, no rows, exit 1. */
Test(timehist, not_a_trace)
{
	char path[] = "/tmp/wct-timehist-XXXXXX", *out, *err;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(write(fd, "not a trace file, not at all.\n", 30), 30);
	close(fd);
	int rc = run("", path, &out, &err);

	unlink(path);
	cr_expect_eq(rc, 1, "exit %d, not 1", rc);
	/* the message is the core's (cli.c), as for every subcommand */
	cr_expect(strstr(err, path) && !strchr(err, '\n')[1], "not one line naming it: %s", err);
	cr_expect_str_empty(out, "rows for a file that is not a trace");
	free(out);
	free(err);
}

/*
 * A thread there before the recording: its first event is a switch-out (at 100 us after the
 * base, its run's start unknown), then it runs 300 -> 800.  perf counts a sched-in for every
 * switch-out (builtin-sched.c, timehist_update_runtime_stats calls update_stats with or
 * without a run time): 2 sched-ins; the run times are those of the known run only, 0.500 ms.
 */
Test(timehist, run_of_unknown_start_is_a_sched_in)
{
	char *out, *line;
	unsigned long long n;
	double run_ms;

	st_switch(&tr, US3(100), 0, 42, "old", ST_S, 0, "swapper/0", 0);
	st_switch(&tr, US3(300), 0, 0, "swapper/0", 0, 42, "old", 0);
	st_switch(&tr, US3(800), 0, 42, "old", ST_S, 0, "swapper/0", 0);
	cr_assert_eq(st_end(&tr, true, US3(1000)), 0);
	cr_assert_eq(run("-s", tr.path, &out, NULL), 0);
	line = strstr(out, "old[42]");
	cr_assert_not_null(line, "%s", out);
	cr_assert_eq(sscanf(line, "old[42] - %llu %lf", &n, &run_ms), 2, "%s", line);
	cr_expect_eq(n, 2, "sched-in %llu, not 2: %s", n, out);
	cr_expect_float_eq(run_ms, 0.5, 1e-9, "run time %f ms: %s", run_ms, out);
	cr_expect(strstr(out, "Total number of context switches: 3\n"), "%s", out);
	free(out);
}

/*
 * Parents of tasks there before the recording, as perf's synthesized FORK records give them
 * (tools/perf/util/synthetic-events.c: the PPid of /proc/PID/status for a process leader, its
 * process for another thread): a 1.4 snapshot's leader 50 whose parent is 7 shows 7, its
 * thread 51 shows 50; a 1.3 snapshot's leader 60 (no parent recorded) shows "-".
 */
Test(timehist, parents_from_proc)
{
	char *out, *line;

	st_proc_comm_parent(&tr, US3(0), 50, 50, "lead", 'S', 7);
	st_proc_comm_parent(&tr, US3(0), 50, 51, "helper", 'S', 7);
	st_proc_comm(&tr, US3(0), 60, 60, "old", 'S');
	st_switch(&tr, US3(100), 0, 0, "swapper/0", 0, 50, "lead", 0);
	st_switch(&tr, US3(200), 0, 50, "lead", ST_S, 51, "helper", 0);
	st_switch(&tr, US3(300), 0, 51, "helper", ST_S, 60, "old", 0);
	st_switch(&tr, US3(400), 0, 60, "old", ST_S, 0, "swapper/0", 0);
	cr_assert_eq(st_end(&tr, true, US3(1000)), 0);
	cr_assert_eq(run("-s", tr.path, &out, NULL), 0);
	line = strstr(out, "lead[50]");
	cr_expect(line && !strncmp(line, "lead[50]       7 ", 17), "%s", out);
	line = strstr(out, "helper[51/50]");
	cr_expect(line && !strncmp(line, "helper[51/50]      50 ", 22), "%s", out);
	line = strstr(out, "old[60]");
	cr_expect(line && !strncmp(line, "old[60]       - ", 16), "%s", out);
	free(out);
}
