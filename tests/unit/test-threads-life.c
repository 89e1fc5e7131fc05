/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-threads-life.c - `wcanalyze threads` (threads.h) over hand-built traces: where a
 * thread's life starts and ends.  Threads alive at the start of the recording (wcrec's /proc
 * snapshot), alone, in a --time window and with their switch-in untraced; a thread created in
 * the recording; what ends a life (an EXIT before or after the last switch, a switch-out in
 * state X, the end of the recording with a run still open) and what does not start one (a
 * zombie in /proc).  The figures and the output of threads seen whole are tested in
 * test-threads.c; the fixture, the stacks and the helpers are those of threads-util.h.
 *
 * Every expected figure is worked out by hand from the timeline written above each test,
 * with the rules of man/wcanalyze-threads.1: runs are switch-in to switch-out; an S or D
 * interval's blocked part is switch-out to wakeup, its run-queue part wakeup to switch-in; a
 * preempted (R+) interval is R whole; a top stack line counts what its state's column does
 * (the blocked part of S, D and other intervals, the whole of R ones); the lifetime runs from
 * a thread's first switch, sample or sched_wakeup_new (the recording's start for a thread
 * alive then, by a COMM from /proc) to its EXIT, or to the end of the recording (the trailer)
 * for a thread that did not exit, which is in its last run or interval until then.  Times are
 * written in us (x 1000 = ns).  Tids: the waker W = 300 only gives context to wakeups (it is
 * never switched, so it is no row); 0 is idle.  CPUs 0 and 1.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "threads-util.h"

TestSuite(threads, .init = tt_init, .fini = tt_fini);

/*
 * Threads alive at the start, from wcrec's /proc snapshot (COMMs with WC_TASK_SYNTH at 500,
 * the recording's first record, so its start), on CPUs 0 and 1:
 *   100 "server" S: 1000 W wakes it;  1200 idle -> 100;  1700 100 out S (sleep) -> idle
 *   101 "bio" S and 102 "flush" D: no event at all
 *   103 "gone" S: the recorder's EXIT at 600 (gone from /proc by the time events were on)
 *   104 "busy" R: 1500 out R+ on CPU 1 (its first event: a switch-out) -> idle;
 *       1600 idle -> 104, on its CPU to the end
 *   trailer 3000
 * 100: lifetime 500-3000 = 2500: S 500-1000 and runq 1000-1200 in the state /proc gave (700),
 *      run 1200-1700 (500), S 1700-3000 open at the end (1300).  On 500, off 2000 = S 1800 +
 *      runq 200, 100 %.  Off stacks: sleep S 1300, the /proc state S 500 (a stack line
 *      counts the blocked part, as SLEEP-S; the run-queue wait after the wakeup, on none).
 * 101: 2500 all S from /proc; 102: 2500 all D from /proc; 103: 500-600, 100 S from /proc.
 * 104: 2500: 500-1500 unknown (start unseen, first seen by a switch-out), R 1500-1600 (100),
 *      on 1600-3000 (1400): 60 %, flagged.
 * By lifetime, ties by on-CPU, then tid: 104, 100, 101, 102, 103.
 */
static void write_at_start(void)
{
	st_proc_comm(&tt_tr, 500 * US, 100, 100, "server", 'S');
	st_proc_comm(&tt_tr, 500 * US, 100, 101, "bio", 'S');
	st_proc_comm(&tt_tr, 500 * US, 100, 102, "flush", 'D');
	st_proc_comm(&tt_tr, 500 * US, 100, 103, "gone", 'S');
	st_proc_comm(&tt_tr, 500 * US, 100, 104, "busy", 'R');
	st_task(&tt_tr, WC_REC_EXIT, 600 * US, 100, 0, 103, 0);
	st_wake(&tt_tr, 1000 * US, 1, W, 100, "server", 0, 0);
	st_switch(&tt_tr, 1200 * US, 0, 0, "swapper/0", 0, 100, "server", 0);
	st_switch(&tt_tr, 1500 * US, 1, 104, "busy", ST_RPLUS, 0, "swapper/1", tt_k_preempt);
	st_switch(&tt_tr, 1600 * US, 1, 0, "swapper/1", 0, 104, "busy", 0);
	st_switch(&tt_tr, 1700 * US, 0, 100, "server", ST_S, 0, "swapper/0", tt_k_sleep);
	st_round(&tt_tr);
}

#define T_PROC "[state from /proc at the start]"

Test(threads, alive_at_the_start)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	char *text;
	size_t n;

	write_at_start();
	r = tt_report(3000, &o, &n);
	cr_assert_eq(n, 5);
	cr_expect_eq(r[0].tid, 104);
	cr_expect_eq(r[1].tid, 100);
	cr_expect_eq(r[2].tid, 101);
	cr_expect_eq(r[3].tid, 102);
	cr_expect_eq(r[4].tid, 103);

	cr_expect_eq(r[1].start_ns, 500 * US);
	cr_expect_eq(r[1].end_ns, 3000 * US);
	tt_expect_times(&r[1], 2500, 500, 2000, 1800, 0, 0, 0, 200);
	tt_expect_gaps(&r[1], 0, 0, 0);
	cr_expect(r[1].at_start);
	cr_expect_eq(r[1].proc_state, 'S');
	cr_expect_eq(r[1].proc_ns, 700 * US);
	cr_expect_eq(r[1].first_seen, 'i');
	cr_assert_eq(r[1].noff_top, 2);
	cr_expect_str_eq(r[1].off_top[0].text, T_SLEEP);
	cr_expect_eq(r[1].off_top[0].value, 1300 * US);
	cr_expect_str_eq(r[1].off_top[1].text, T_PROC);
	cr_expect_eq(r[1].off_top[1].state, 'S');
	cr_expect_eq(r[1].off_top[1].value, 500 * US);

	tt_expect_times(&r[2], 2500, 0, 2500, 2500, 0, 0, 0, 0);
	cr_expect_eq(r[2].first_seen, 'p');
	cr_expect_eq(r[2].proc_ns, 2500 * US);
	cr_expect_float_eq(r[2].coverage, 100.0, 1e-9);
	cr_assert_eq(r[2].noff_top, 1);
	cr_expect_str_eq(r[2].off_top[0].text, T_PROC);
	tt_expect_times(&r[3], 2500, 0, 2500, 0, 2500, 0, 0, 0);
	tt_expect_times(&r[4], 100, 0, 100, 100, 0, 0, 0, 0);
	cr_expect(r[4].exited);

	tt_expect_times(&r[0], 2500, 1400, 100, 0, 0, 0, 100, 0);
	tt_expect_gaps(&r[0], 1000, 0, 0);
	cr_expect_eq(r[0].proc_ns, 0);
	cr_expect_float_eq(r[0].coverage, 60.0, 1e-9);
	cr_expect(r[0].flagged);

	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "5 threads shown of 5 seen"), "%s", text);
	cr_expect_not_null(strstr(text, "\n101 bio (pid 100)\n"
					"  off-CPU S 2.500 ms       " T_PROC "\n"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "! coverage 60.0%: start unseen 1.000 ms (first seen by a "
					"switch-out)\n"),
			   "%s", text);
	free(text);
	text = tt_output(wc_threads_write_json);
	cr_expect_not_null(strstr(text, "{\"tid\":101,\"pid\":100,\"comm\":\"bio\",\"start_ns\":0,"
					"\"end_ns\":2500000,\"lifetime_ns\":2500000,"
					"\"first_seen\":\"proc\",\"new\":false,\"exited\":false,"
					"\"at_start\":true,\"proc_state\":\"S\","),
			   "%s", text);
	free(text);
}

/*
 * --time 1.0,2.0 (ms from the start at 500): the window 1500-2500.  100: run 1500-1700 (200),
 * S 1700-2500 of the interval open at the end (800): lifetime 1000, 100 % (the interval that
 * is still open when the recording ends is clipped, not dropped).  101 and 102: the window, in
 * their /proc state.  104: R 1500-1600, on 1600-2500.  103 exited before it: no row.
 */
Test(threads, alive_at_the_start_in_a_window)
{
	const struct wc_threads_opts o = {
		.unit = WC_UNIT_MS,
		.filter = { .have_time = true, .start_s = 0.0010, .end_s = 0.0020 }
	};
	const struct wc_threads_row *r;
	size_t n;

	write_at_start();
	r = tt_report(3000, &o, &n);
	cr_assert_eq(n, 4);
	cr_expect_eq(r[0].tid, 104);
	tt_expect_times(&r[0], 1000, 900, 100, 0, 0, 0, 100, 0);
	cr_expect_eq(r[1].tid, 100);
	tt_expect_times(&r[1], 1000, 200, 800, 800, 0, 0, 0, 0);
	tt_expect_gaps(&r[1], 0, 0, 0);
	cr_expect_eq(r[1].proc_ns, 0);
	cr_expect_eq(r[2].tid, 101);
	tt_expect_times(&r[2], 1000, 0, 1000, 1000, 0, 0, 0, 0);
	cr_expect_eq(r[3].tid, 102);
	tt_expect_times(&r[3], 1000, 0, 1000, 0, 1000, 0, 0, 0);
}

/*
 * A thread alive at the start whose switch-in is not traced (CPU 1's switches out of idle on
 * this project's VMs): 600 "sh", S in /proc at 500; W wakes it at 1000; its switch-in on
 * CPU 1 is not traced; it is preempted there at 1100 (R+, its first switch), back at 1200,
 * out S at 1300; trailer 2000.  Asleep from the start to the wakeup (S 500, from /proc);
 * 1000-1100 unknown (switches lost: it ran, but from when is not known); R 100, run 100,
 * S 1300-2000 (700).  Lifetime 1500: counted 1400, 93.3 %.
 */
Test(threads, alive_at_the_start_switch_in_untraced)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	st_proc_comm(&tt_tr, 500 * US, 600, 600, "sh", 'S');
	st_wake(&tt_tr, 1000 * US, 0, W, 600, "sh", 1, 0);
	st_switch(&tt_tr, 1100 * US, 1, 600, "sh", ST_RPLUS, 0, "swapper/1", tt_k_preempt);
	st_switch(&tt_tr, 1200 * US, 1, 0, "swapper/1", 0, 600, "sh", 0);
	st_switch(&tt_tr, 1300 * US, 1, 600, "sh", ST_S, 0, "swapper/1", tt_k_sleep);
	r = tt_report(2000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 1500, 100, 1300, 1200, 0, 0, 100, 0);
	tt_expect_gaps(&r[0], 0, 100, 0);
	cr_expect_eq(r[0].proc_ns, 500 * US);
	cr_expect_eq(r[0].proc_state, 'S');
}

/* Thread 500 "d", forked at 1000 and woken new at 1100: runs 1500-2000 on CPU 1, sleeps (S)
 * until its wakeup at 2100, runs from 2300; its EXIT at 2800 (what follows is the test's). */
static void new_thread_to_exit(void)
{
	st_task(&tt_tr, WC_REC_FORK, 1000 * US, 500, W, 500, W);
	st_wake_new(&tt_tr, 1100 * US, 0, W, 500, "d", 1);
	st_switch(&tt_tr, 1500 * US, 1, 0, "swapper/1", 0, 500, "d", 0);
	st_switch(&tt_tr, 2000 * US, 1, 500, "d", ST_S, 0, "swapper/1", tt_k_sleep);
	st_wake(&tt_tr, 2100 * US, 0, W, 500, "d", 1, 0);
	st_switch(&tt_tr, 2300 * US, 1, 0, "swapper/1", 0, 500, "d", 0);
	st_task(&tt_tr, WC_REC_EXIT, 2800 * US, 500, W, 500, W);
}

/*
 * A thread created and ended in the recording.  D = 500, forked by W:
 *   1000  FORK;  1100 sched_wakeup_new of D (target CPU 1)
 *   1500  idle -> D on CPU 1;  2000 D out S;  2100 W wakes D;  2300 idle -> D
 *   2800  EXIT of D;  2900 D out in state X (its last switch-out comes after its EXIT)
 *   trailer 3000
 * Lifetime from the wakeup_new (1100) to the later of the EXIT and the last switch (2900):
 * 1800.  The wait for the first run, 1100-1500, is run-queue time (400); runs 1500-2000 and
 * 2300-2900 (1100); S 2000-2300 woken 2100 (S 100, runq 200).  Off 700; 1800: 100 %.
 * Switch-outs S and X: 2 voluntary.  It is new and exited; nothing is open at the end.
 */
Test(threads, new_thread_from_wakeup_new_to_exit)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	new_thread_to_exit();
	st_switch(&tt_tr, 2900 * US, 1, 500, "d", 0x10 /* X */, 0, "swapper/1", 0);
	r = tt_report(3000, &o, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(r[0].tid, 500);
	cr_expect_eq(r[0].start_ns, 1100 * US);
	cr_expect_eq(r[0].end_ns, 2900 * US);
	tt_expect_times(&r[0], 1800, 1100, 700, 100, 0, 0, 0, 600);
	cr_expect(r[0].is_new);
	cr_expect(r[0].exited);
	cr_expect_eq(r[0].first_seen, 'n');
	cr_expect_eq(r[0].voluntary, 2);
	cr_expect_eq(r[0].involuntary, 0);
	tt_expect_gaps(&r[0], 0, 0, 0);
	cr_expect_eq(wc_analysis_sched(tt_an)->counts.open_off_at_end, 0);
}

/*
 * An EXIT after the thread's last event ends the lifetime: D = 500 as above to its switch-in
 * at 2300, then its EXIT at 2800 and no switch-out (lost).  Lifetime 1100-2800 = 1700; the
 * run from 2300 is never closed: 500 open at the end, on its CPU.  Counted: runq 400, run
 * 500, S 100, runq 200 = 1200.
 */
Test(threads, exit_after_the_last_event)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	new_thread_to_exit();
	r = tt_report(3000, &o, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(r[0].end_ns, 2800 * US);
	tt_expect_times(&r[0], 1700, 500, 700, 100, 0, 0, 0, 600);
	tt_expect_gaps(&r[0], 0, 0, 500);
	cr_expect(r[0].exited);
	cr_expect(r[0].on_cpu_at_end);
}

/*
 * Open at the end: F = 700's last run is still open when the recording ends, and samples of
 * it come later.  1000 F out S (first event); 1200 W wakes F; 1300 idle -> F; samples at 1500
 * and 7500; trailer 8000.  Lifetime 1000-8000 = 7000: S 200 + runq 100, then on its CPU from
 * 1300 to the end (6700): coverage 100 %, nothing uncounted.  Sampled 2 x 100.  An EXIT at
 * 7600 instead (its switch-out lost) ends the lifetime there and leaves the run uncounted:
 * 1300-7600 open at the end (6300), coverage 300 / 6600.
 */
Test(threads, open_at_the_end)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	char *text;
	size_t n;

	st_switch(&tt_tr, 1000 * US, 0, 700, "f", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 1200 * US, 1, W, 700, "f", 0, 0);
	st_switch(&tt_tr, 1300 * US, 0, 0, "swapper/0", 0, 700, "f", 0);
	st_sample(&tt_tr, 1500 * US, 0, 700, tt_s_spin, 100 * US);
	st_sample(&tt_tr, 7500 * US, 0, 700, tt_s_spin, 100 * US);
	r = tt_report(8000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 7000, 6700, 300, 200, 0, 0, 0, 100);
	cr_expect_eq(r[0].sampled_ns, 200 * US);
	cr_expect(r[0].on_cpu_at_end);
	tt_expect_gaps(&r[0], 0, 0, 0);
	cr_expect_float_eq(r[0].coverage, 100.0, 1e-9);
	tt_reset();
	st_remove(&tt_tr);
	cr_assert_eq(st_begin(&tt_tr), 0);
	tt_make_stacks();
	st_switch(&tt_tr, 1000 * US, 0, 700, "f", ST_S, 0, "swapper/0", tt_k_sleep);
	st_wake(&tt_tr, 1200 * US, 1, W, 700, "f", 0, 0);
	st_switch(&tt_tr, 1300 * US, 0, 0, "swapper/0", 0, 700, "f", 0);
	st_sample(&tt_tr, 1500 * US, 0, 700, tt_s_spin, 100 * US);
	st_sample(&tt_tr, 7500 * US, 0, 700, tt_s_spin, 100 * US);
	st_task(&tt_tr, WC_REC_EXIT, 7600 * US, 700, 1, 700, 1);
	r = tt_report(8000, &o, &n);
	cr_assert_eq(n, 1);
	tt_expect_times(&r[0], 6600, 0, 300, 200, 0, 0, 0, 100);
	tt_expect_gaps(&r[0], 0, 0, 6300);
	cr_expect_float_eq(r[0].coverage, 100.0 * 300 / 6600, 1e-9);
	text = tt_output(wc_threads_write_text);
	cr_expect_not_null(strstr(text, "  ! coverage 4.5%: open at the end 6.300 ms (on-CPU when "
					"last seen: it exited, its last switch not traced)\n"),
			   "%s", text);
	free(text);
}

/*
 * What ends a life, and what does not start one:
 *   200 "zombie": in wcrec's /proc snapshot at 500 in state Z: not alive, no row.
 *   400 "dying": in at 1000 on CPU 0, out X (its death) at 1200 and no EXIT (lost): its life
 *       ends at 1200, not at the end of the recording: lifetime 200, all on-CPU, 100 %.
 *   500 "newborn": FORK at 1300, sched_wakeup_new at 1400, never run before the trailer at
 *       3000: waiting for its first run to the end, 1600 of RUNQ-WAKE, 100 %.
 * By lifetime: newborn, dying.
 */
Test(threads, ends_of_a_life)
{
	const struct wc_threads_opts o = { .unit = WC_UNIT_MS };
	const struct wc_threads_row *r;
	size_t n;

	st_proc_comm(&tt_tr, 500 * US, 200, 200, "zombie", 'Z');
	st_switch(&tt_tr, 1000 * US, 0, 0, "swapper/0", 0, 400, "dying", 0);
	st_switch(&tt_tr, 1200 * US, 0, 400, "dying", 0x10 /* X */, 0, "swapper/0", 0);
	st_task(&tt_tr, WC_REC_FORK, 1300 * US, 500, W, 500, W);
	st_wake_new(&tt_tr, 1400 * US, 1, W, 500, "newborn", 0);
	r = tt_report(3000, &o, &n);
	cr_assert_eq(n, 2);
	cr_expect_eq(r[0].tid, 500);
	tt_expect_times(&r[0], 1600, 0, 1600, 0, 0, 0, 0, 1600);
	tt_expect_gaps(&r[0], 0, 0, 0);
	cr_expect(r[0].is_new);
	cr_expect_eq(r[1].tid, 400);
	tt_expect_times(&r[1], 200, 200, 0, 0, 0, 0, 0, 0);
	tt_expect_gaps(&r[1], 0, 0, 0);
	cr_expect_not(r[1].exited);
}
