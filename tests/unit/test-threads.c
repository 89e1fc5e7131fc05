/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-threads.c - `wcanalyze threads` (threads.h) over hand-built traces: each thread's
 * lifetime, on-CPU (exact and sampled), off-CPU split by kind, switches, coverage with the
 * uncounted time by reason, top stacks; the --time window, the filters, the sort, the text
 * table and the JSON object.  Threads alive at the start of the recording and the ends of a
 * life are tested in test-threads-life.c; the fixture, the stacks and the helpers are those of
 * threads-util.h.
 *
 * Every expected figure is worked out by hand from the timeline written above each test,
 * with the rules of man/wcanalyze-threads.1: runs are switch-in to switch-out; an S or D
 * interval's blocked part is switch-out to wakeup, its run-queue part wakeup to switch-in; a
 * preempted (R+) interval is R whole; a top stack line counts what its state's column does
 * (the blocked part of S, D and other intervals, the whole of R ones); the lifetime runs from
 * a thread's first switch, sample or sched_wakeup_new to its EXIT, or to the end of the
 * recording (the trailer) for a thread that did not exit, which is in its last run or interval
 * until then.  Times are written in us (x 1000 = ns).  Tids: the waker W = 300 only gives
 * context to wakeups (it is never switched, so it is no row); 0 is idle.  CPUs 0 and 1.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "threads-util.h"
#include "trace-util.h"

TestSuite(threads, .init = tt_init, .fini = tt_fini);

/*
 * Two threads of process 100 on CPU 0: A = "worker" 100, B = "helper" 101.  In us:
 *
 *   1000  idle -> A (A's first event)         samples of A: 1200 spin, 1400 spin2 (same
 *   2000  A out S, stack sleep                  frames as spin), 1600 work; 100 us each
 *   2500  W wakes A
 *   2600  idle -> A
 *   3000  A out R+, stack preempt -> B (B's first event)
 *   3300  B out D, stack io -> A
 *   3500  A out S, stack sleep -> idle
 *   3600  W wakes B;  3800 W wakes A
 *   3900  idle -> B
 *   4000  B out S, stack sleep -> A
 *   4500  A out S -> idle, never woken;  trailer at 5000
 *
 * A: lifetime 1000-5000 = 4000.  Runs 1000-2000, 2600-3000, 3300-3500, 4000-4500:
 *    1000 + 400 + 200 + 500 = 2100.  Intervals: S 2000-2600 woken 2500 (S 500, runq 100);
 *    R 3000-3300 (300); S 3500-4000 woken 3800 (S 300, runq 200); S 4500-5000, open at the
 *    end, no wakeup (S 500).  Off 1900 = S 1300 + R 300 + runq 300; on + off = 4000:
 *    coverage 100 %.  Switch-outs S, R+, S, S: 3 voluntary, 1 involuntary.  3 samples, 300
 *    sampled.  Off stacks: sleep (S) 600 + 500 + 500 = 1600, preempt (R) 300.  On stacks:
 *    spin 2 samples (spin and spin2 merged), work 1.
 * B: lifetime 3000-5000 = 2000.  Runs 3000-3300, 3900-4000: 400.  Interval D 3300-3900 woken
 *    3600: D 300, runq 300; S 4000-5000 open at the end (S 1000).  Off 1600; coverage 100 %.
 *    2 voluntary.  Off stacks sleep (S) 1000, io (D) 600.
 * Sorted by lifetime (wall): A (4000), then B (2000).
 */
static void write_two_threads(void)
{
	st_set_pid(&tt_tr, 101, 100);
	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_sample(&tt_tr, 1200 * US, 0, 100, tt_s_spin, 100 * US);
	st_sample(&tt_tr, 1400 * US, 0, 100, tt_s_spin2, 100 * US);
	st_sample(&tt_tr, 1600 * US, 0, 100, tt_s_work, 100 * US);
	st_switch(&tt_tr, 2000 * US, 0, 100, "worker", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 2500 * US, 1, W, 100, "worker", 0, 0);
	st_switch(&tt_tr, 2600 * US, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_switch(&tt_tr, 3000 * US, 0, 100, "worker", ST_RPLUS, 101, "helper", tt_k_preempt);
	st_switch(&tt_tr, 3300 * US, 0, 101, "helper", ST_D, 100, "worker", tt_k_io);
	st_switch(&tt_tr, 3500 * US, 0, 100, "worker", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 3600 * US, 1, W, 101, "helper", 0, 0);
	st_wake(&tt_tr, 3800 * US, 1, W, 100, "worker", 0, 0);
	st_switch(&tt_tr, 3900 * US, 0, 0, "swapper/0", 0, 101, "helper", 0);
	st_switch(&tt_tr, 4000 * US, 0, 101, "helper", ST_S, 100, "worker", tt_k_sleep);
	st_switch(&tt_tr, 4500 * US, 0, 100, "worker", ST_S, 0, "swapper/0", tt_k_sleep);
	st_round(&tt_tr);
}

Test(threads, two_threads_figures)
{
	struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	write_two_threads();
	r = tt_report(5000, &o, &n);
	cr_assert_eq(n, 2);

	cr_expect_eq(r[0].tid, 100);
	cr_expect_eq(r[0].pid, 100);
	cr_expect_str_eq(r[0].comm, "worker");
	cr_expect_eq(r[0].start_ns, 1000 * US);
	cr_expect_eq(r[0].end_ns, 5000 * US);
	tt_expect_times(&r[0], 4000, 2100, 1900, 1300, 0, 0, 300, 300);
	cr_expect_eq(r[0].runs, 4);
	cr_expect_eq(r[0].intervals, 4);
	cr_expect_eq(r[0].samples, 3);
	cr_expect_eq(r[0].sampled_ns, 300 * US);
	cr_expect_eq(r[0].voluntary, 3);
	cr_expect_eq(r[0].involuntary, 1);
	cr_expect_float_eq(r[0].coverage, 100.0, 1e-9);
	cr_expect_not(r[0].flagged);
	cr_expect_eq(r[0].first_seen, 'i');
	cr_expect_not(r[0].is_new);
	cr_expect_not(r[0].exited);
	tt_expect_gaps(&r[0], 0, 0, 0);
	cr_assert_eq(r[0].noff_top, 2);
	cr_expect_eq(r[0].off_top[0].state, 'S');
	cr_expect_eq(r[0].off_top[0].value, 1300 * US); /* SLEEP-S: the blocked parts */
	cr_expect_str_eq(r[0].off_top[0].text, T_SLEEP);
	cr_expect_eq(r[0].off_top[1].state, 'R');
	cr_expect_eq(r[0].off_top[1].value, 300 * US);
	cr_expect_str_eq(r[0].off_top[1].text, T_PREEMPT);
	cr_assert_eq(r[0].non_top, 2);
	cr_expect_eq(r[0].on_top[0].value, 2);
	cr_expect_str_eq(r[0].on_top[0].text, "do_work;spin_loop");
	cr_expect_eq(r[0].on_top[1].value, 1);
	cr_expect_str_eq(r[0].on_top[1].text, "do_work");

	cr_expect_eq(r[1].tid, 101);
	cr_expect_eq(r[1].pid, 100);
	cr_expect_str_eq(r[1].comm, "helper");
	tt_expect_times(&r[1], 2000, 400, 1600, 1000, 300, 0, 0, 300);
	cr_expect_eq(r[1].voluntary, 2);
	cr_expect_eq(r[1].involuntary, 0);
	cr_expect_float_eq(r[1].coverage, 100.0, 1e-9);
	tt_expect_gaps(&r[1], 0, 0, 0);
	cr_assert_eq(r[1].noff_top, 2);
	cr_expect_eq(r[1].off_top[0].state, 'S');
	cr_expect_eq(r[1].off_top[0].value, 1000 * US);
	cr_expect_str_eq(r[1].off_top[0].text, T_SLEEP);
	cr_expect_eq(r[1].off_top[1].state, 'D');
	cr_expect_eq(r[1].off_top[1].value, 300 * US); /* BLOCK-D: 3300-3600, not the runq */
	cr_expect_str_eq(r[1].off_top[1].text, T_IO);
	cr_expect_eq(r[1].non_top, 0);
}

/* The switch counts are the state machine's own per-thread counters (sched.c). */
Test(threads, switch_counts_match_the_state_machine)
{
	struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	write_two_threads();
	r = tt_report(5000, &o, &n);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		const struct wc_thread *t = wc_tasks_find(wc_analysis_tasks(tt_an), r[i].tid);
		uint64_t vol, invol;

		cr_assert_not_null(t);
		wc_sched_switches(wc_analysis_sched(tt_an), t, &vol, &invol);
		cr_expect_eq(r[i].voluntary, vol, "%u", r[i].tid);
		cr_expect_eq(r[i].involuntary, invol, "%u", r[i].tid);
	}
}

/*
 * The text table of the two threads, in ms; every cell and width by hand:
 *   widths: TID 3, PID 3, COMM 6, LIFETIME 8, ON-CPU 6, SAMPLED 7, OFF-CPU 7, SLEEP-S 7,
 *   BLOCK-D 7, OTHER 5, PREEMPT-R 9, RUNQ-WAKE 9, UNKNOWN 7, VOL 3, INVOL 5, COVER 6
 *   ("100.0%"), two spaces between columns, COMM to the left.
 *   The header's edge cases: both threads' first event is a switch-in (2); both are off-CPU
 *   at the end (2); the duration is from the first event (1000) to the trailer (5000).
 *   The stacks' values are 5 wide ("1.600"); "ms" and "samples" padded to 7.
 */
Test(threads, text_table)
{
	struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const char *want =
		"# OFF-CPU = SLEEP-S + BLOCK-D + OTHER + PREEMPT-R + RUNQ-WAKE; run-queue wait is "
		"PREEMPT-R (whole intervals of preempted threads) + RUNQ-WAKE (wakeup to "
		"switch-in)\n"
		"# LIFETIME = ON-CPU + OFF-CPU + UNKNOWN; a thread alive at the start (from /proc) "
		"or at the end lives from the start or to the end, off-CPU in the state /proc gave "
		"until its first switch-in\n"
		"# lost in recording: 0 events, 0 samples; 0 events late, 0 undecodable, 0 naming "
		"an undefined stack\n"
		"# edge cases: first event a switch-in 2, a switch-out 0; two switch-outs with no "
		"switch-in between 0 (0 inferred, 0 dropped); switch-ins while on a CPU 0; sleeps "
		"with no wakeup 0; open at the end: 2 off-CPU, 0 on-CPU\n"
		"TID  PID  COMM    LIFETIME  ON-CPU  SAMPLED  OFF-CPU  SLEEP-S  BLOCK-D  OTHER  "
		"PREEMPT-R  RUNQ-WAKE  UNKNOWN  VOL  INVOL   COVER\n"
		"100  100  worker     4.000   2.100    0.300    1.900    1.300    0.000  0.000"
		"      0.300      0.300    0.000    3      1  100.0%\n"
		"101  100  helper     2.000   0.400    0.000    1.600    1.000    0.300  0.000"
		"      0.000      0.300    0.000    2      0  100.0%\n"
		"\n"
		"100 worker (pid 100)\n"
		"  off-CPU S 1.300 ms       " T_SLEEP "\n"
		"  off-CPU R 0.300 ms       " T_PREEMPT "\n"
		"  on-CPU        2 samples  do_work;spin_loop\n"
		"  on-CPU        1 sample   do_work\n"
		"\n"
		"101 helper (pid 100)\n"
		"  off-CPU S 1.000 ms       " T_SLEEP "\n"
		"  off-CPU D 0.300 ms       " T_IO "\n";
	char first[256], *text, *rest;
	size_t n;

	write_two_threads();
	tt_report(5000, &o, &n);
	text = tt_output(wc_threads_write_text);
	rest = strchr(text, '\n');
	cr_assert_not_null(rest);
	snprintf(first, sizeof(first),
		 "# %s: 2 threads shown of 2 seen, 0.004000 s recorded; times in ms", tt_tr.path);
	cr_expect(strncmp(text, first, strlen(first)) == 0 && text + strlen(first) == rest,
		  "first line: %.*s", (int)(rest - text), text);
	cr_expect_str_eq(rest + 1, want, "got:\n%s\nwanted:\n%s", rest + 1, want);
	free(text);
}

/* --unit us and ns: the same cells in whole us, or ns. */
Test(threads, units)
{
	struct wc_threads_opts o = { .unit = WC_UNIT_US };
	char *text;
	size_t n;

	write_two_threads();
	tt_report(5000, &o, &n);
	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "\n100  100  worker      4000    2100      300     1900"
					"     1300        0      0        300        300        0"
					"    3      1  100.0%\n"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "  off-CPU S 1300 us       " T_SLEEP "\n"), "%s", text);
	free(text);
	tt_reset();
	o.unit = WC_UNIT_NS;
	tt_report_file(tt_tr.path, &o, &n);
	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "  worker   4000000  2100000   300000  1900000"), "%s",
			   text);
	free(text);
}

/*
 * --time 1.3,2.7 (ms from the first event at 1000 us): the window is 2300-3700 us.
 * A: lifetime 2300-3700 = 1400.  Runs clipped: 1000-2000 -> 0, 2600-3000 -> 400,
 *    3300-3500 -> 200, 4000-4500 -> 0: 600 over 2 runs.  S 2000-2600 woken 2500 -> S
 *    2300-2500 = 200, runq 100; R 300; S 3500-4000 woken 3800 -> S 3500-3700 = 200, runq 0.
 *    Off 800 = S 400 + R 300 + runq 100 in 3 intervals; 1400: coverage 100 %.  No sample in
 *    the window.  Switch-outs in it: R+ at 3000, S at 3500 -> 1 and 1.  Off stacks: sleep
 *    300 + 200 = 500, preempt 300.
 * B: lifetime 3000-3700 = 700.  Run 3000-3300 = 300; D 3300-3900 woken 3600 -> D 300, runq
 *    3600-3700 = 100; run 3900-4000 -> 0.  700: 100 %.  Switch-outs in it: D at 3300 -> 1.
 * The intervals open at the end (from 4500 and 4000) lie after the window.
 */
Test(threads, time_window)
{
	struct wc_threads_opts o = {
		.unit = WC_UNIT_MS,
		.filter = { .have_time = true, .start_s = 0.0013, .end_s = 0.0027 }
	};
	const struct wc_threads_row *r;
	size_t n;

	write_two_threads();
	r = tt_report(5000, &o, &n);
	cr_assert_eq(n, 2);
	cr_expect_eq(r[0].tid, 100);
	cr_expect_eq(r[0].start_ns, 2300 * US);
	cr_expect_eq(r[0].end_ns, 3700 * US);
	tt_expect_times(&r[0], 1400, 600, 800, 400, 0, 0, 300, 100);
	cr_expect_eq(r[0].runs, 2);
	cr_expect_eq(r[0].intervals, 3);
	cr_expect_eq(r[0].samples, 0);
	cr_expect_eq(r[0].voluntary, 1);
	cr_expect_eq(r[0].involuntary, 1);
	tt_expect_gaps(&r[0], 0, 0, 0);
	cr_assert_eq(r[0].noff_top, 2);
	cr_expect_eq(r[0].off_top[0].value, 400 * US); /* S 2300-2500, 3500-3700 */
	cr_expect_eq(r[0].off_top[1].value, 300 * US); /* R 3000-3300 */
	cr_expect_eq(r[0].non_top, 0);
	cr_expect_eq(r[1].tid, 101);
	tt_expect_times(&r[1], 700, 300, 400, 0, 300, 0, 0, 100);
	cr_expect_eq(r[1].voluntary, 1);
	tt_expect_gaps(&r[1], 0, 0, 0);
}

/* A window where A sleeps throughout (2100-2400 us, inside its S interval 2000-2600, woken at
 * 2500): A's lifetime is the window, all S; B has no event and no time there: no row. */
Test(threads, window_inside_one_interval)
{
	struct wc_threads_opts o = {
		.filter = { .have_time = true, .start_s = 0.0011, .end_s = 0.0014 }
	};
	const struct wc_threads_row *r;
	size_t n;

	write_two_threads();
	r = tt_report(5000, &o, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(r[0].tid, 100);
	tt_expect_times(&r[0], 300, 0, 300, 300, 0, 0, 0, 0);
	cr_expect_float_eq(r[0].coverage, 100.0, 1e-9);
	cr_expect_eq(r[0].voluntary + r[0].involuntary, 0);
}

/* -t, -p, --comm: B alone by tid or by comm; both by pid; none for another pid. */
Test(threads, filters)
{
	uint32_t tid = 101, pid = 100, other = 999;
	struct wc_threads_opts o = { .filter = { .tids = &tid, .ntids = 1 } };
	const struct wc_threads_row *r;
	size_t n;

	write_two_threads();
	r = tt_report(5000, &o, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(r[0].tid, 101);
	const char *path = tt_tr.path;
	const struct wc_threads_opts opts[] = {
		{ .filter = { .comm = "helper" } },
		{ .filter = { .pids = &pid, .npids = 1 } },
		{ .filter = { .pids = &other, .npids = 1 } },
	};
	const size_t want[] = { 1, 2, 0 };

	for (size_t i = 0; i < 3; i++) {
		tt_reset();
		r = tt_report_file(path, &opts[i], &n);
		cr_expect_eq(n, want[i], "filter %zu: %zu rows", i, n);
		if (i == 0 && n == 1)
			cr_expect_eq(r[0].tid, 101);
	}
}

/*
 * --comm matches a name the thread had at one of its events: A is "worker" until a COMM
 * record renames it "renamed" at 2800 us (after its events at 1000-2600); --comm worker keeps
 * it, and its row shows the last name.  --comm renamed keeps it too.
 */
Test(threads, comm_filter_any_name)
{
	struct wc_threads_opts o = { .filter = { .comm = "worker" } };
	const struct wc_threads_row *r;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_switch(&tt_tr, 2000 * US, 0, 100, "worker", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 2500 * US, 1, W, 100, "worker", 0, 0);
	st_switch(&tt_tr, 2600 * US, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_comm(&tt_tr, 2800 * US, 100, 100, "renamed");
	st_switch(&tt_tr, 3000 * US, 0, 100, "renamed", ST_S, 0, "swapper/0", tt_k_sleep);
	r = tt_report(4000, &o, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(r[0].comm, "renamed");
	/* runs 1000 + 400; S 2000-2600 (S 500, runq 100), S 3000-4000 open at the end */
	tt_expect_times(&r[0], 3000, 1400, 1600, 1500, 0, 0, 0, 100);
}

/*
 * Coverage below 90 %, and why.  C = 400 on CPU 0:
 *   1000  sample of C (its first event: it is on its CPU, its switch-in unseen)
 *   2000  C out S (stack sleep);  2200 W wakes C;  2400 idle -> C
 *   3000  C out S, and no wakeup
 *   6000  C out S again: no switch-in between, no wakeup to infer it at: interval and run
 *         3000-6000 unknown (dropped)
 *   6500  W wakes C;  6600 idle -> C;  7000 C out S;  trailer 8000
 * Lifetime 1000-8000 = 7000.  Counted: S 2000-2400 (S 200, runq 200); run 2400-3000 (600);
 * S 6000-6600 woken 6500 (S 500, runq 100); run 6600-7000 (400); S 7000-8000 open at the end
 * (S 1000): on 1000, off 2000, coverage 3000 / 7000 = 42.9 %, flagged.  Uncounted: 1000-2000
 * before the first piece, first seen by a sample, no switch lost: start unseen 1000;
 * 3000-6000 switches lost 3000.  Switch-outs 2000, 3000, 6000, 7000, all S: 4 voluntary; one
 * of them (6000) after a switch-out.
 */
Test(threads, coverage_start_unseen_and_switches_lost)
{
	struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	char *text;
	size_t n;

	st_sample(&tt_tr, 1000 * US, 0, 400, tt_s_work, 250 * US);
	st_switch(&tt_tr, 2000 * US, 0, 400, "c", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 2200 * US, 1, W, 400, "c", 0, 0);
	st_switch(&tt_tr, 2400 * US, 0, 0, "swapper/0", 0, 400, "c", 0);
	st_switch(&tt_tr, 3000 * US, 0, 400, "c", ST_S, 0, "swapper/0", tt_k_sleep);
	st_switch(&tt_tr, 6000 * US, 0, 400, "c", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 6500 * US, 1, W, 400, "c", 0, 0);
	st_switch(&tt_tr, 6600 * US, 0, 0, "swapper/0", 0, 400, "c", 0);
	st_switch(&tt_tr, 7000 * US, 0, 400, "c", ST_S, 0, "swapper/0", tt_k_sleep);
	r = tt_report(8000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 7000, 1000, 2000, 1700, 0, 0, 0, 300);
	cr_expect_eq(r[0].first_seen, 's');
	cr_expect_eq(r[0].samples, 1);
	cr_expect_eq(r[0].sampled_ns, 250 * US);
	cr_expect_eq(r[0].voluntary, 4);
	cr_expect_eq(r[0].double_out, 1);
	cr_expect_eq(r[0].inferred, 0);
	cr_expect_eq(r[0].double_in, 0);
	tt_expect_gaps(&r[0], 1000, 3000, 0);
	cr_expect_float_eq(r[0].coverage, 300.0 / 7, 1e-9);
	cr_expect(r[0].flagged);
	cr_expect_eq(r[0].unknown_ns, 4000 * US);
	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "  42.9%!\n"), "%s", text);
	cr_expect_not_null(strstr(text, "\n  ! coverage 42.9%: start unseen 1.000 ms (first seen "
					"by a sample); switches lost 3.000 ms (1 switch-ins not "
					"traced, 0 of them inferred; 0 switch-outs "
					"not traced)\n"),
			   "%s", text);
	free(text);
}

/*
 * A switch-in inferred at a wakeup onto an idle CPU is no loss.  E = 500:
 *   1000  idle -> E on CPU 0;  1500 E out S
 *   1800  W wakes E with target CPU 1, idle then (nothing ever ran there)
 *   2500  E out S on CPU 1 (its switch-in from idle untraced): the switch-in is inferred at
 *         the wakeup, 1800: interval 1500-1800 (S 300, all blocked: the wakeup is its end),
 *         run 1800-2500 (700)
 *   trailer 3000
 * Lifetime 1000-3000 = 2000 = run 500 + S 300 + run 700 + S 500 (open at the end, no
 * wakeup): 100 %, nothing uncounted.
 */
Test(threads, inferred_switch_in_is_counted)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 500, "e", 0);
	st_switch(&tt_tr, 1500 * US, 0, 500, "e", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 1800 * US, 0, W, 500, "e", 1, 0);
	st_switch(&tt_tr, 2500 * US, 1, 500, "e", ST_S, 0, "swapper/1", tt_k_sleep);
	r = tt_report(3000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 2000, 1200, 800, 800, 0, 0, 0, 0);
	cr_expect_eq(r[0].double_out, 1);
	cr_expect_eq(r[0].inferred, 1);
	cr_expect_eq(r[0].inferred_bound_ns, 0); /* at the wakeup onto an idle CPU: exact */
	tt_expect_gaps(&r[0], 0, 0, 0);
	cr_expect_not(r[0].flagged);
}

/*
 * The same, with the switch-in that no sched_switch showed given by a SWITCH_IN record
 * (the kernel's context-switch record) at 2000, written 100 after the switch: a switch-in at
 * 1900, neither a second switch-out nor an inference.  E = 500:
 *   1000  idle -> E on CPU 0;  1500 E out S;  1800 W wakes E;  1900 E in on CPU 1 (record)
 *   2050  idle -> E on CPU 1, traced: the same switch-in seen twice, nothing more
 *   2500  E out S on CPU 1;  trailer 3000
 * Lifetime 2000 = run 500 + S 300 + RUNQ-WAKE 100 + run 600 + S 500 (open at the end): on
 * 1100, off 900 (SLEEP-S 800, RUNQ-WAKE 100), nothing uncounted.
 */
Test(threads, switch_in_record_is_no_double_out)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 500, "e", 0);
	st_switch(&tt_tr, 1500 * US, 0, 500, "e", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 1800 * US, 0, W, 500, "e", 1, 0);
	st_switch_in(&tt_tr, 2000 * US, 100 * US, 1, 500, 0);
	st_switch(&tt_tr, 2050 * US, 1, 0, "swapper/1", 0, 500, "e", 0); /* the same, traced */
	st_switch(&tt_tr, 2500 * US, 1, 500, "e", ST_S, 0, "swapper/1", tt_k_sleep);
	r = tt_report(3000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 2000, 1100, 900, 800, 0, 0, 0, 100);
	cr_expect_eq(r[0].double_out, 0);
	cr_expect_eq(r[0].double_in, 0);
	cr_expect_eq(r[0].inferred, 0);
	tt_expect_gaps(&r[0], 0, 0, 0);
	cr_expect_not(r[0].flagged);
}

/*
 * Two switch-ins with no switch-out between (the switch-out was lost).  E = 600:
 *   1000  idle -> E on CPU 0 (first event);  3000 idle -> E on CPU 1: the run from 1000 is
 *         unknown, the state machine starts a run at 3000
 *   4000  E out R+ on CPU 1;  4500 idle -> E;  5000 E out S;  trailer 6000
 * Lifetime 1000-6000 = 5000: runs 3000-4000, 4500-5000 (1500), R 500 and S 5000-6000 open at
 * the end (1000) counted (3000, 60 %); 1000-3000 switches lost (a switch-out not traced).
 * 1 involuntary, 1 voluntary.
 */
Test(threads, switch_out_lost)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	char *text;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 600, "e", 0);
	st_switch(&tt_tr, 3000 * US, 1, 0, "swapper/1", 0, 600, "e", 0);
	st_switch(&tt_tr, 4000 * US, 1, 600, "e", ST_RPLUS, 0, "swapper/1", tt_k_preempt);
	st_switch(&tt_tr, 4500 * US, 1, 0, "swapper/1", 0, 600, "e", 0);
	st_switch(&tt_tr, 5000 * US, 1, 600, "e", ST_S, 0, "swapper/1", tt_k_sleep);
	r = tt_report(6000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 5000, 1500, 1500, 1000, 0, 0, 500, 0);
	cr_expect_eq(r[0].double_in, 1);
	tt_expect_gaps(&r[0], 0, 2000, 0);
	cr_expect_float_eq(r[0].coverage, 60.0, 1e-9);
	cr_expect(r[0].flagged);
	cr_expect_eq(r[0].involuntary, 1);
	cr_expect_eq(r[0].voluntary, 1);
	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "(0 switch-ins not traced, 0 of them inferred; "
					"1 switch-outs not traced)"),
			   "%s", text);
	free(text);
}

/*
 * Threads seen once.  G = 800 sampled at 1000 (period 100), never switched: it lives to the
 * end (2000), all of it unknown (start unseen, no run or interval): coverage 0 %, flagged.
 * H = 900 switched in at 1500 and never again: on its CPU to the end, 500, 100 %.  By
 * lifetime: G (1000), then H (500).
 */
Test(threads, seen_once)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	char *text;
	size_t n;

	st_sample(&tt_tr, 1000 * US, 0, 800, tt_s_work, 100 * US);
	st_switch(&tt_tr, 1500 * US, 1, 0, "swapper/1", 0, 900, "h", 0);
	r = tt_report(2000, &o, &n);
	cr_assert_eq(n, 2);
	cr_expect_eq(r[0].tid, 800);
	tt_expect_times(&r[0], 1000, 0, 0, 0, 0, 0, 0, 0);
	tt_expect_gaps(&r[0], 1000, 0, 0);
	cr_expect_float_eq(r[0].coverage, 0.0, 1e-9);
	cr_expect(r[0].flagged);
	cr_assert_eq(r[0].non_top, 1);
	cr_expect_str_eq(r[0].on_top[0].text, "do_work");
	cr_expect_eq(r[1].tid, 900);
	tt_expect_times(&r[1], 500, 500, 0, 0, 0, 0, 0, 0);
	tt_expect_gaps(&r[1], 0, 0, 0);
	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "   0.0%!\n"), "%s", text);
	cr_expect_not_null(strstr(text, "! coverage 0.0%: start unseen 1.000 ms (no complete run "
					"or off-CPU interval)\n"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "2 threads shown of 2 seen"), "%s", text);
	free(text);
}

/*
 * Ties: equal off-CPU time sorts by on-CPU time, then by tid.  Threads 30, 20, 10 each sleep
 * 100 us (out S at 1000, woken at 1100 by W, in at 1100); 10 and 20 then run 200 us, 30 runs
 * 100 us, and each exits at its last switch-out.  Order by off-CPU: 10 (off 100, on 200), 20
 * (100, 200), 30 (100, 100).
 */
Test(threads, sort_ties)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS, .sort = WC_SORT_OFF };
	const uint32_t tids[] = { 30, 20, 10 };
	const struct wc_threads_row *r;
	size_t n;

	for (int i = 0; i < 3; i++)
		st_switch(&tt_tr, 1000 * US, (uint32_t)i % 2, tids[i], "t", ST_S, 0, "swapper", 0);
	for (int i = 0; i < 3; i++)
		st_wake(&tt_tr, 1100 * US, 1, W, tids[i], "t", 0, 0);
	for (int i = 0; i < 3; i++)
		st_switch(&tt_tr, 1100 * US, (uint32_t)i % 2, 0, "swapper", 0, tids[i], "t", 0);
	st_switch(&tt_tr, 1200 * US, 0, 30, "t", ST_S, 0, "swapper", 0);
	st_switch(&tt_tr, 1300 * US, 1, 20, "t", ST_S, 0, "swapper", 0);
	st_switch(&tt_tr, 1300 * US, 0, 10, "t", ST_S, 0, "swapper", 0);
	st_task(&tt_tr, WC_REC_EXIT, 1200 * US, 30, 1, 30, 1);
	st_task(&tt_tr, WC_REC_EXIT, 1300 * US, 20, 1, 20, 1);
	st_task(&tt_tr, WC_REC_EXIT, 1300 * US, 10, 1, 10, 1);
	r = tt_report(2000, &o, &n);
	cr_assert_eq(n, 3);
	cr_expect_eq(r[0].tid, 10);
	cr_expect_eq(r[1].tid, 20);
	cr_expect_eq(r[2].tid, 30);
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(r[i].off_ns, 100 * US);
		cr_expect_eq(r[i].on_ns, (i == 2 ? 100 : 200) * US);
	}
}

/*
 * An interval in a state other than S, D and R: an idle kernel thread (I, 0x80 in the 6.18
 * layout) goes under OTHER, and its sch delay under RUNQ-WAKE.  K = 50: in at 1000, out I at
 * 1100, woken at 1600, in at 1650, out I at 1700, trailer 2000.  Lifetime 1000; on 150; off
 * 850 = other 500 + 300 (open at the end, no wakeup) + runq 50.
 */
Test(threads, other_states)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 50, "kworker/0:1", 0);
	st_switch(&tt_tr, 1100 * US, 0, 50, "kworker/0:1", 0x80, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 1600 * US, 1, W, 50, "kworker/0:1", 0, 0);
	st_switch(&tt_tr, 1650 * US, 0, 0, "swapper/0", 0, 50, "kworker/0:1", 0);
	st_switch(&tt_tr, 1700 * US, 0, 50, "kworker/0:1", 0x80, 0, "swapper/0", tt_k_sleep);
	r = tt_report(2000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 1000, 150, 850, 0, 0, 800, 0, 50);
	cr_assert_eq(r[0].noff_top, 1);
	cr_expect_eq(r[0].off_top[0].state, 'I');
	cr_expect_eq(r[0].voluntary, 2);
}

/*
 * The JSON object of the two threads: thread B's object whole, by hand from the figures of
 * write_two_threads() (start and end from the first event, 1000 us: B 2000000-4000000 ns),
 * and the top-level members.
 */
Test(threads, json)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const char *b = "{\"tid\":101,\"pid\":100,\"comm\":\"helper\",\"start_ns\":2000000,"
			"\"end_ns\":4000000,\"lifetime_ns\":2000000,\"first_seen\":\"switch-in\","
			"\"new\":false,\"exited\":false,\"at_start\":false,\"proc_state\":null,"
			"\"on_cpu_ns\":400000,\"runs\":2,"
			"\"samples\":0,\"on_cpu_sampled_ns\":0,\"off_cpu_ns\":1600000,"
			"\"sleep_ns\":1000000,\"uninterruptible_ns\":300000,\"other_ns\":0,"
			"\"preempted_ns\":0,\"runqueue_ns\":300000,\"proc_ns\":0,\"intervals\":2,"
			"\"switches_voluntary\":2,\"switches_involuntary\":0,\"unknown_ns\":0,"
			"\"coverage_pct\":100.000,\"flagged\":false,"
			"\"uncounted_ns\":{\"start_unseen\":0,\"switches_lost\":0,"
			"\"open_at_end\":0},\"untraced\":{\"double_switch_out\":0,"
			"\"inferred_switch_in\":0,\"inferred_bound_ns\":0,\"double_switch_in\":0},"
			"\"top_off_cpu\":[{\"state\":\"S\",\"ns\":1000000,"
			"\"stack\":\"" T_SLEEP "\"},"
			"{\"state\":\"D\",\"ns\":300000,\"stack\":\"" T_IO "\"}],"
			"\"top_on_cpu\":[]}\n]}\n";
	char *text, *p;
	size_t n;

	write_two_threads();
	tt_report(5000, &o, &n);
	text = tt_output(wc_threads_write_json);
	cr_expect_not_null(strstr(text, ",\"truncated\":false,\"duration_ns\":4000000,"
					"\"clock_start_ns\":1000000,\"threads_seen\":2,"
					"\"lost\":{\"events\":0,\"samples\":0},"
					"\"edge_cases\":{\"late\":0,"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "\"start_unknown\":2,"), "%s", text);
	cr_expect_not_null(strstr(text, "\"open_off_at_end\":2,"), "%s", text);
	cr_expect_not_null(strstr(text, "\"top_on_cpu\":[{\"samples\":2,\"stack\":"
					"\"do_work;spin_loop\"},{\"samples\":1,\"stack\":"
					"\"do_work\"}]}"),
			   "%s", text);
	p = strstr(text, "{\"tid\":101,");
	cr_assert_not_null(p, "%s", text);
	cr_expect_str_eq(p, b);
	free(text);
}

/* Comms are JSON strings: quotes and backslashes escaped, control characters as \u00XX, a
 * byte that is not UTF-8 (a comm cut inside a character) as U+FFFD, UTF-8 kept.  Its one
 * off-CPU interval (1100-1300) has no stack: "[unknown]". */
Test(threads, json_strings)
{
	const struct wc_threads_opts o = { 0 };
	char *text;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 70, "a\"b\\c\td\xc3\xa9\xe2\x82", 0);
	st_switch(&tt_tr, 1100 * US, 0, 70, "a\"b\\c\td\xc3\xa9\xe2\x82", ST_S, 0, "swapper/0", 0);
	st_wake(&tt_tr, 1200 * US, 1, W, 70, "x", 0, 0);
	st_switch(&tt_tr, 1300 * US, 0, 0, "swapper/0", 0, 70, "x", 0);
	st_switch(&tt_tr, 1400 * US, 0, 70, "a\"b\\c\td\xc3\xa9\xe2\x82", ST_S, 0, "swapper/0", 0);
	tt_report(2000, &o, &n);
	text = tt_output(wc_threads_write_json);
	cr_expect_not_null(strstr(text, "\"comm\":\"a\\\"b\\\\c\\td\xc3\xa9\\ufffd\\ufffd\","),
			   "%s", text);
	cr_expect_not_null(strstr(text, "\"stack\":\"[unknown]\""), "%s", text);
	free(text);
}

/*
 * A cut trace: frame 1 (the first run and S interval of A, to 2600 us) is whole, the next
 * frame is cut.  The report covers frame 1: A in at 1000, out S at 2000, woken at 2500, in at
 * 2600 (lifetime 1000-2600: run 1000 + S 500 + runq 100), and its header says where the
 * trace is cut.
 */
Test(threads, truncated_trace)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	uint64_t frame1;
	char cut[64], *text;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_switch(&tt_tr, 2000 * US, 0, 100, "worker", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 2500 * US, 1, W, 100, "worker", 0, 0);
	st_switch(&tt_tr, 2600 * US, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_round(&tt_tr);
	frame1 = st_flush(&tt_tr);
	for (int i = 0; i < 50; i++)
		st_switch(&tt_tr, (3000 + 10 * (uint64_t)i) * US, 0, 100, "worker", ST_RPLUS, 100,
			  "worker", tt_k_preempt);
	cr_assert_eq(st_end(&tt_tr, true, 9000 * US), 0);
	cr_assert_eq(tu_copy_prefix(tt_tr.path, frame1 + 20, cut), 0);
	r = tt_report_file(cut, &o, &n);
	unlink(cut);
	cr_expect_eq(wc_replay_stats(wc_analysis_replay(tt_an))->state, WC_READER_TRUNCATED);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 1600, 1000, 600, 500, 0, 0, 0, 100);
	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "\n# TRUNCATED at byte "), "%s", text);
	free(text);
}

/*
 * --sort: three threads that exit at their last switch-out, on CPUs 0 and 1:
 *   X = 10: in 1000, out S 1100, woken 1150, in 1800, out S 1900: life 900, on 200, S 50,
 *           runq 650
 *   Y = 20: in 1000, out D 1500, woken 1600, in 1650, out S 1700: life 700, on 550, D 100,
 *           runq 50
 *   Z = 30: in 1000, out S 1050, woken 2000, in 2000, out S 2100: life 1100, on 150, S 950
 * wall: Z X Y; on: Y X Z; off (Z 950, X 700, Y 150): Z X Y; sleep (Z 950, Y 100, X 50): Z Y X;
 * runq (X 650, Y 50, Z 0): X Y Z; tid: X Y Z.
 */
Test(threads, sort_keys)
{
	static const char *const names[] = { "wall", "on", "off", "sleep", "runq", "tid" };
	static const uint32_t want[][3] = { { 30, 10, 20 }, { 20, 10, 30 }, { 30, 10, 20 },
					    { 30, 20, 10 }, { 10, 20, 30 }, { 10, 20, 30 } };
	struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	const char *path;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 10, "x", 0);
	st_switch(&tt_tr, 1000 * US, 1, 0, "swapper/1", 0, 20, "y", 0);
	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 30, "z", 0);
	st_switch(&tt_tr, 1050 * US, 0, 30, "z", ST_S, 0, "swapper/0", tt_k_sleep);
	st_switch(&tt_tr, 1100 * US, 0, 10, "x", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 1150 * US, 1, W, 10, "x", 0, 0);
	st_switch(&tt_tr, 1500 * US, 1, 20, "y", ST_D, 0, "swapper/1", tt_k_io);
	st_wake(&tt_tr, 1600 * US, 0, W, 20, "y", 1, 0);
	st_switch(&tt_tr, 1650 * US, 1, 0, "swapper/1", 0, 20, "y", 0);
	st_switch(&tt_tr, 1700 * US, 1, 20, "y", ST_S, 0, "swapper/1", tt_k_sleep);
	st_task(&tt_tr, WC_REC_EXIT, 1700 * US, 20, 1, 20, 1);
	st_switch(&tt_tr, 1800 * US, 0, 0, "swapper/0", 0, 10, "x", 0);
	st_switch(&tt_tr, 1900 * US, 0, 10, "x", ST_S, 0, "swapper/0", tt_k_sleep);
	st_task(&tt_tr, WC_REC_EXIT, 1900 * US, 10, 1, 10, 1);
	st_wake(&tt_tr, 2000 * US, 1, W, 30, "z", 0, 0);
	st_switch(&tt_tr, 2000 * US, 0, 0, "swapper/0", 0, 30, "z", 0);
	st_switch(&tt_tr, 2100 * US, 0, 30, "z", ST_S, 0, "swapper/0", tt_k_sleep);
	st_task(&tt_tr, WC_REC_EXIT, 2100 * US, 30, 1, 30, 1);
	r = tt_report(3000, &o, &n);
	path = tt_tr.path;
	for (size_t k = 0; k < 6; k++) {
		enum wc_threads_sort key;

		cr_assert_eq(wc_threads_sort_parse(names[k], &key), 0);
		o.sort = key;
		if (k) {
			tt_reset();
			r = tt_report_file(path, &o, &n);
		}
		cr_assert_eq(n, 3);
		for (int i = 0; i < 3; i++)
			cr_expect_eq(r[i].tid, want[k][i], "--sort %s: row %d is %u", names[k], i,
				     r[i].tid);
		if (k == 0) {
			tt_expect_times(&r[0], 1100, 150, 950, 950, 0, 0, 0, 0);
			tt_expect_times(&r[1], 900, 200, 700, 50, 0, 0, 0, 650);
			tt_expect_times(&r[2], 700, 550, 150, 0, 100, 0, 0, 50);
		}
	}
	cr_expect_eq(wc_threads_sort_parse("cpu", &o.sort), -EINVAL);
}
