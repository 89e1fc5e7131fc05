/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-sched-edges.c - the scheduler state machine (sched.h) where the trace misses switches:
 * double switch-outs and the switch-ins inferred for them, the tick grid, sched_stat_runtime,
 * SWITCH_IN records and lost switches told (test-sched.c: the plain cases and the replay).
 *
 * Every expected value is worked out by hand from the trace the test writes: the comment
 * above each assertion block says how.  Times are ns.  Tids: A = 100, B = 200, the waker
 * W = 300 (never switched: it only gives context to wakeups), 0 is idle.  CPUs 0 and 1.
 */
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/core/analysis.h"
#include "analyzer/reports/profile.h"
#include "analyzer/core/replay.h"
#include "analyzer/symbols/symbolize.h"
#include "sched-trace.h"
#include "sched-util.h"
#include "trace-util.h"

TestSuite(sched, .init = sched_init, .fini = sched_fini);

/*
 * 6. Double switch-out, woken onto an idle CPU.  CPU 1 goes idle first (B out S at 200, B's
 * first event).  A: in on CPU 0 at 100, out S at 1000; W wakes A at 1500 with target CPU 1,
 * idle then; A's switch-in on CPU 1 is not traced; A out S on CPU 1 at 2000.
 *   The switch-in is inferred at the later of the wakeup (1500) and CPU 1's last traced
 *   switch (200): interval [1000, 1500, 1500], inferred, CPU 1 (where it switched out), no
 *   sch delay; then a run [1500, 2000] on CPU 1.
 *   runs: A [100, 1000] CPU 0, A [1500, 2000] CPU 1.
 */
Test(sched, double_switch_out_inferred)
{
	uint32_t k1 = st_kstack(&tr, 1);

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 200, 1, B, "b", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", k1);
	st_wake(&tr, 1500, 0, W, A, "a", 1, 0);
	st_switch(&tr, 2000, 1, A, "a", ST_S, 0, "swapper/1", 0);
	analyse(3000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 1, 1500, 2000);
	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1500, 1500, 'S', false);

	cr_expect(iv->inferred);
	cr_expect_eq(iv->inferred_bound_ns, 0, "taken at the wakeup onto an idle CPU: exact");
	cr_expect_not(iv->no_wakeup);
	cr_expect_eq(iv->cpu, 1);
	cr_expect_eq(iv->stack_id, k1);
	cr_expect_eq(iv->waker_tid, W);
	/* B: first event a switch-out, off at the end; A: off at the end */
	expect_counts((struct wc_sched_counts){ .switches = 4,
						.wakeups = 1,
						.start_unknown = 1,
						.run_start_unknown = 1,
						.double_switch_out = 1,
						.inferred_switch_in = 1,
						.open_off_at_end = 2 });
}

/*
 * 7. Double switch-out on a busy CPU, then one with no wakeup.  CPU 1 runs B from 200 (B's
 * first event).  A: in on CPU 0 at 100, out S at 1000; W wakes A at 1500; at 1700 B is
 * preempted on CPU 1 by C (400, first event); A is next seen switching out S on CPU 1 at
 * 2000, to B: C's switch to A was not traced.  A's switch-in came after its wakeup (1500)
 * and after CPU 1's last traced switch (1700): it is inferred at 1700, so A's interval is
 * [1000, 1500, 1700] (blocked 500, sch delay 200), inferred, CPU 1, and its run [1700, 2000].
 * B's preemption closes at 2000: [1700, 1700, 2000] R.  Then A out S again at 3000 on CPU 0
 * with no wakeup at all: no lower bound, the interval and the run are dropped.
 *   runs: A [100, 1000] CPU 0, B [200, 1700] CPU 1, A [1700, 2000] CPU 1.
 */
Test(sched, double_switch_out_busy_cpu_and_dropped)
{
	const uint32_t C = 400;

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 200, 1, 0, "swapper/1", 0, B, "b", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1500, 0, W, A, "a", 0, 0);
	st_switch(&tr, 1700, 1, B, "b", ST_RPLUS, C, "c", 0);
	st_switch(&tr, 2000, 1, A, "a", ST_S, B, "b", 0);
	st_switch(&tr, 3000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(4000);

	cr_assert_eq(nruns, 3);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, B, 1, 200, 1700);
	expect_run(2, A, 1, 1700, 2000);
	cr_assert_eq(noffs, 2);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1500, 1700, 'S', false);

	cr_expect(iv->inferred);
	/* somewhere in [1700, 2000]: after the last traced switch, before the switch-out */
	cr_expect_eq(iv->inferred_bound_ns, 300);
	cr_expect_eq(iv->cpu, 1);
	cr_expect_eq(iv->waker_tid, W);
	cr_expect_not(expect_off(1, B, 1700, 1700, 2000, 'R', true)->inferred);
	/* A, B and C start with a switch-in; C and B run at the end, A is off */
	expect_counts((struct wc_sched_counts){ .switches = 6,
						.wakeups = 1,
						.start_unknown = 3,
						.double_switch_out = 2,
						.inferred_switch_in = 1,
						.unknown_dropped = 1,
						.open_off_at_end = 1,
						.open_run_at_end = 2 });
}

/*
 * 7b. Double switch-out of a preempted task: A (CPU 0) is preempted by C at 1000 (C's first
 * event); C's switch back to A is not traced; A is next seen going out S at 1600.  A was
 * runnable from 1000 and CPU 0's last traced switch is at 1000: the switch-in is inferred at
 * 1000, a zero-length R interval, and A's run is [1000, 1600] (C's run after 1000 is what
 * this estimate gets wrong; the whole of [1000, 1600] stays accounted for).
 */
Test(sched, double_switch_out_preempted)
{
	const uint32_t C = 400;

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_RPLUS, C, "c", 0);
	st_switch(&tr, 1600, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(2000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 0, 1000, 1600);
	cr_assert_eq(noffs, 1);
	cr_expect(expect_off(0, A, 1000, 1000, 1000, 'R', true)->inferred);
}

/*
 * 7c. The same, with cpu-clock samples every 1000 ns on CPU 0 (the untraced task is one of
 * PID 1's threads here, whose samples are not recorded either): A's sample at 500, then no
 * sample at the ticks of 1500 and 2500, then A's at 3500, its first since it was preempted.
 * So A was not running at 2500 and was at 3500: the switch-in is in (2500, 3500], taken at
 * the middle, 3000.  Interval [1000, 1000, 3000] R, inferred; runs [100, 1000], [3000, 3800].
 */
Test(sched, double_switch_out_between_ticks)
{
	const uint32_t C = 400;

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_sample(&tr, 500, 0, A, 0, 1000);
	st_switch(&tr, 1000, 0, A, "a", ST_RPLUS, C, "c", 0);
	st_sample(&tr, 3500, 0, A, 0, 1000);
	st_switch(&tr, 3800, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(4000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 0, 3000, 3800);
	cr_assert_eq(noffs, 1);
	cr_expect(expect_off(0, A, 1000, 1000, 3000, 'R', true)->inferred);
	/* in (2500, 3500], taken at its middle: off by at most 500 */
	cr_expect_eq(expect_off(0, A, 1000, 1000, 3000, 'R', true)->inferred_bound_ns, 500);
	/* A and C start with a switch-in (A's is its first event); C runs at the end, A is off */
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.start_unknown = 2,
						.double_switch_out = 1,
						.inferred_switch_in = 1,
						.inferred_by_samples = 1,
						.open_off_at_end = 1,
						.open_run_at_end = 1 });
}

/*
 * 7d. No wakeup seen, but samples: A, sampled at 550 (period 1000), goes out S on CPU 1 at
 * 1000, to idle; the timer that wakes it fires in CPU 1's untraced idle task, and idle's
 * switch to A is not traced.  A's first sample since, at 9550, nine periods after the one
 * before (so on the CPU's ticks), says it ran then and not at the tick of 8550: the
 * switch-in is taken at 9050, the middle.  Interval [1000, 9050, 9050] S, no wakeup (all
 * blocked), inferred, CPU 1; run [9050, 9900].  Without the samples it would be dropped (7);
 * with 9050 instead of 9550 (not on the ticks of 550) too, as the ticks cannot be told.
 */
Test(sched, no_wakeup_between_ticks)
{
	st_switch(&tr, 100, 1, 0, "swapper/1", 0, A, "a", 0);
	st_sample(&tr, 550, 1, A, 0, 1000);
	st_switch(&tr, 1000, 1, A, "a", ST_S, 0, "swapper/1", 0);
	st_sample(&tr, 9550, 1, A, 0, 1000);
	st_switch(&tr, 9900, 1, A, "a", ST_S, 0, "swapper/1", 0);
	analyse(10000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 1, 100, 1000);
	expect_run(1, A, 1, 9050, 9900);
	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 9050, 9050, 'S', false);

	cr_expect(iv->inferred);
	cr_expect(iv->no_wakeup);
	cr_expect_eq(iv->cpu, 1);
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.start_unknown = 1,
						.double_switch_out = 1,
						.inferred_switch_in = 1,
						.inferred_by_samples = 1,
						.no_wakeup = 1,
						.open_off_at_end = 1 });
}

/*
 * 7e. No wakeup and no sample of A, but the CPU's ticks: B runs on CPU 1 from 50 and is
 * sampled at 60 and 1060 (period 1000), then goes out S at 1200 to idle.  A goes out S on
 * CPU 0 at 1000; a timer wakes it in CPU 1's untraced idle task; A goes out S on CPU 1 at
 * 4300 with no sample: it ran less than a tick, after the last tick before 4300, 4060 (1060
 * + 3 x 1000), when it was not sampled.  Switch-in taken at 4180, the middle of (4060, 4300].
 * A's intervals: [1000, 4180, 4180] S no wakeup, inferred, CPU 1; runs A [100, 1000] CPU 0,
 * B [50, 1200] CPU 1, A [4180, 4300] CPU 1.
 * Then on CPU 1 with a traced wakeup: W wakes A at 5500, the last tick before A's switch-out
 * at 5900 is 5060: nothing puts the switch-in after the wakeup on the idle CPU, so it is at
 * the wakeup, exact as in 6: [4300, 5500, 5500] S, inferred (not between ticks); run [5500,
 * 5900].
 */
Test(sched, no_wakeup_tick_grid)
{
	st_switch(&tr, 50, 1, 0, "swapper/1", 0, B, "b", 0);
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_sample(&tr, 60, 1, B, 0, 1000);
	st_sample(&tr, 1060, 1, B, 0, 1000);
	st_switch(&tr, 1200, 1, B, "b", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 4300, 1, A, "a", ST_S, 0, "swapper/1", 0);
	st_wake(&tr, 5500, 0, W, A, "a", 1, 0);
	st_switch(&tr, 5900, 1, A, "a", ST_S, 0, "swapper/1", 0);
	analyse(6000);

	cr_assert_eq(nruns, 4);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, B, 1, 50, 1200);
	expect_run(2, A, 1, 4180, 4300);
	expect_run(3, A, 1, 5500, 5900);
	cr_assert_eq(noffs, 2);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 4180, 4180, 'S', false);

	cr_expect(iv->inferred);
	cr_expect(iv->no_wakeup);
	iv = expect_off(1, A, 4300, 5500, 5500, 'S', false);
	cr_expect(iv->inferred);
	cr_expect_not(iv->no_wakeup);
	cr_expect_eq(iv->waker_tid, W);
	expect_counts((struct wc_sched_counts){ .switches = 6,
						.wakeups = 1,
						.start_unknown = 2,
						.double_switch_out = 2,
						.inferred_switch_in = 2,
						.inferred_by_samples = 1,
						.no_wakeup = 1,
						.open_off_at_end = 2 });
}

/*
 * 7f. A wakeup the thread makes says it runs: A, sampled on CPU 0 at 200 and 600 (period 400,
 * so the CPU's ticks are 200 + k x 400), is preempted by C at 900; C's switch back is not
 * traced.  A wakes B at 2700 on CPU 0 (A's context): it runs then, and was not at the tick of
 * 2600, unsampled.  Switch-in at 2650, the middle of (2600, 2700]; A goes out S at 2900.
 *   runs A [100, 900], [2650, 2900] on CPU 0; interval [900, 900, 2650] R, inferred.
 */
Test(sched, double_switch_out_bounded_by_own_wakeup)
{
	const uint32_t C = 400;

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_sample(&tr, 200, 0, A, 0, 400);
	st_sample(&tr, 600, 0, A, 0, 400);
	st_switch(&tr, 900, 0, A, "a", ST_RPLUS, C, "c", 0);
	st_wake(&tr, 2700, 0, A, B, "b", 0, 0);
	st_switch(&tr, 2900, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(3000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 900);
	expect_run(1, A, 0, 2650, 2900);
	cr_assert_eq(noffs, 1);
	cr_expect(expect_off(0, A, 900, 900, 2650, 'R', true)->inferred);
	/* A and C start with a switch-in; B is woken never having switched out; C runs at
	 * the end, A is off */
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.wakeups = 1,
						.start_unknown = 2,
						.double_switch_out = 1,
						.inferred_switch_in = 1,
						.inferred_by_samples = 1,
						.wakeup_unknown = 1,
						.open_off_at_end = 1,
						.open_run_at_end = 1 });
}

/*
 * 7g. sched_stat_runtime places an untraced switch-in.  As in 7 (busy CPU), A goes out S on
 * CPU 0 at 1000, W wakes it at 1500, B is preempted on CPU 1 by C at 1700, and A is next seen
 * switching out S on CPU 1 at 4000: C's switch to A was not traced.  A sched_stat_runtime
 * of A at 3000 (fired on CPU 1 in A's context) says A ran 800 since its exec_start was set
 * at the switch-in: in = 3000 - 800 = 2200, not 1700 as the rule of 7 would have it.  A
 * second one at 3900 (500 more) adds nothing.  One of C at 1900, on CPU 1, is of another
 * thread.  A: [1000, 1500, 2200] S, inferred, CPU 1; run [2200, 4000].
 * Then A is preempted on CPU 1 at 5000 (R+, to C) and next seen going out S at 7000; its
 * sched_stat_runtime at 6000 says 2500: 3500, before the switch-out at 5000, so the
 * switch-in is put at the earliest it can be, the CPU's last traced switch, 5000:
 * [5000, 5000, 5000] R; run [5000, 7000].  A runtime of A while it runs (at 4500, and the
 * update just before each switch-out, at 6990) changes nothing.
 */
Test(sched, double_switch_out_runtime)
{
	const uint32_t C = 400;

	cr_assert_eq(st_begin_runtime(&tr), 0);
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 200, 1, 0, "swapper/1", 0, B, "b", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1500, 0, W, A, "a", 1, 0);
	st_switch(&tr, 1700, 1, B, "b", ST_RPLUS, C, "c", 0);
	st_runtime(&tr, 1900, 1, C, C, "c", 200);
	st_runtime(&tr, 3000, 1, A, A, "a", 800);
	st_runtime(&tr, 3900, 1, A, A, "a", 500);
	st_switch(&tr, 4000, 1, A, "a", ST_S, C, "c", 0);
	st_switch(&tr, 4100, 1, C, "c", ST_S, A, "a", 0);
	st_runtime(&tr, 4500, 1, A, A, "a", 400);
	st_switch(&tr, 5000, 1, A, "a", ST_RPLUS, C, "c", 0);
	st_runtime(&tr, 6000, 1, A, A, "a", 2500);
	st_runtime(&tr, 6990, 1, A, A, "a", 990);
	st_switch(&tr, 7000, 1, A, "a", ST_S, 0, "swapper/1", 0);
	analyse(8000);

	cr_assert_eq(wc_analysis_facts(a)->runtime_events, 6);
	/* runs in the order they close: A [100, 1000]; B [200, 1700]; A [2200, 4000] (inferred);
	 * C [4000, 4100] (C's run from 1700 was cut by its own untraced switch-out); A [4100,
	 * 5000] (traced); A [5000, 7000] (inferred) */
	cr_assert_eq(nruns, 6);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, B, 1, 200, 1700);
	expect_run(2, A, 1, 2200, 4000);
	expect_run(3, C, 1, 4000, 4100);
	expect_run(4, A, 1, 4100, 5000);
	expect_run(5, A, 1, 5000, 7000);
	/* off, in the order they close: A [1000, 1500, 2200] S inferred; A [4000, 4100, 4100]:
	 * no wakeup seen (C's switch to A is traced, the wakeup is not), all blocked; C [4100,
	 * 5000, 5000], the same; A [5000, 5000, 5000] R, inferred */
	cr_assert_eq(noffs, 4);
	cr_expect(expect_off(0, A, 1000, 1500, 2200, 'S', false)->inferred);
	cr_expect_not(expect_off(1, A, 4000, 4100, 4100, 'S', false)->inferred);
	expect_off(2, C, 4100, 5000, 5000, 'S', false);
	cr_expect(expect_off(3, A, 5000, 5000, 5000, 'R', true)->inferred);
	/* the runtime is on the task clock, which can drift: the bounds it is kept in,
	 * [1700, 4000] and [5000, 7000], are how far off it may be */
	cr_expect_eq(expect_off(0, A, 1000, 1500, 2200, 'S', false)->inferred_bound_ns, 2300);
	cr_expect_eq(expect_off(3, A, 5000, 5000, 5000, 'R', true)->inferred_bound_ns, 2000);
	cr_expect_eq(wc_analysis_sched(a)->counts.inferred_switch_in, 2);
	cr_expect_eq(wc_analysis_sched(a)->counts.inferred_by_runtime, 2);
	cr_expect_eq(wc_analysis_sched(a)->counts.inferred_by_samples, 0);
}

/*
 * 7g'. The same trace as double_switch_out_inferred, but with the switch-in that no
 * sched_switch showed given by a SWITCH_IN record (the kernel's context-switch record) at
 * 1900, written 100 after the switch: the switch-in is at 1800, later than the wakeup, and
 * A's interval ends there, not inferred, sch delay 300.
 *   A: in on CPU 0 at 100, out S at 1000, woken at 1500, in on CPU 1 at 1800 (record), out S
 *   at 2000: interval [1000, 1500, 1800] S, CPU 1, not inferred; runs [100, 1000] CPU 0,
 *   [1800, 2000] CPU 1.
 *   B (first event: out S on CPU 1 at 200) in on CPU 0 at 2100, traced: [200, 2100, 2100], no
 *   wakeup seen; a record of B at 2200 (a task already on that CPU) changes nothing: B's run
 *   goes on from 2100.  A record of the idle task (tid 0) on CPU 0 at 2300 is no task's, but
 *   CPU 0 is idle from then.
 *   A, woken at 2500, has a record on CPU 1 at 2600 saying 1000 back (1600): not before the
 *   wakeup, so at 2500: [2000, 2500, 2500]; then a traced idle -> A on CPU 1 at 2650 is the
 *   same switch-in seen twice: A's run is [2500, 2700], until A goes out S at 2700.
 */
Test(sched, switch_in_record)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 200, 1, B, "b", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1500, 0, W, A, "a", 1, 0);
	st_switch_in(&tr, 1900, 100, 1, A, 0);
	st_switch(&tr, 2000, 1, A, "a", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 2100, 0, 0, "swapper/0", 0, B, "b", 0);
	st_switch_in(&tr, 2200, 5000, 0, B, 0);
	st_switch_in(&tr, 2300, 0, 0, 0, B);
	st_wake(&tr, 2500, 0, W, A, "a", 1, 0);
	st_switch_in(&tr, 2600, 1000, 1, A, 0);
	st_switch(&tr, 2650, 1, 0, "swapper/1", 0, A, "a", 0);
	st_switch(&tr, 2700, 1, A, "a", ST_S, 0, "swapper/1", 0);
	analyse(3000);

	cr_assert_eq(nruns, 3);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 1, 1800, 2000);
	expect_run(2, A, 1, 2500, 2700);
	cr_assert_eq(noffs, 3);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1500, 1800, 'S', false);

	cr_expect_not(iv->inferred);
	cr_expect_eq(iv->inferred_bound_ns, 0);
	cr_expect_eq(iv->cpu, 1);
	cr_expect_eq(iv->waker_tid, W);
	cr_expect(expect_off(1, B, 200, 2100, 2100, 'S', false)->no_wakeup);
	cr_expect_not(expect_off(2, A, 2000, 2500, 2500, 'S', false)->inferred);
	cr_expect_eq(wc_analysis_sched(a)->cpu_curr[0], 0,
		     "the record of the idle task put it on CPU 0");
	cr_expect_eq(wc_analysis_sched(a)->cpu_since_ns[0], 2300);
	/* A's first event a switch-in, B's a switch-out; A off at the end, B on */
	expect_counts((struct wc_sched_counts){ .switches = 7,
						.wakeups = 2,
						.start_unknown = 1,
						.run_start_unknown = 1,
						.switch_in_records = 4,
						.no_wakeup = 1,
						.open_off_at_end = 1,
						.open_run_at_end = 1 });
}

/*
 * 7f2. A SWITCH_IN record of an exiting task names no tid (the kernel writes -1 once the pid is
 * detached): seen in a CI run here, where a thread of PID 1 (whose switches this VM never
 * traces) ran between an exiting thread's preemption and its last switch-out.  A: in on CPU 0
 * at 100, preempted at 1000 (R+, to B; B's switch-out to A not traced); the record of A's
 * switch-in at 1500 names tid -1, with prev B; A out for good (X) at 1800.  A's switch-in is
 * the record's, exactly: interval [1000, 1000, 1500] R, not inferred; run [1500, 1800].  No
 * thread -1, no double switch-out.
 */
Test(sched, switch_in_record_of_an_exiting_task)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_RPLUS, B, "b", 0);
	st_switch_in(&tr, 1500, 0, 0, UINT32_MAX, B);
	st_switch(&tr, 1800, 0, A, "a", 0x10 /* X */, 0, "swapper/0", 0);
	analyse(3000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 0, 1500, 1800);
	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1000, 1500, 'R', true);

	cr_expect_not(iv->inferred);
	cr_expect_eq(iv->cpu, 0);
	cr_expect_null(wc_tasks_find(wc_analysis_tasks(a), UINT32_MAX), "no thread of tid -1");
	cr_expect_eq(nlosts, 0);
	/* A's and B's first events switch-ins; A off at the end (X), B on (its switch-out to A
	 * untraced) */
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.start_unknown = 2,
						.switch_in_records = 1,
						.open_off_at_end = 1,
						.open_run_at_end = 1 });
}

/*
 * 7g. Lost switches are told to the sink, per thread, after the event's runs and intervals.
 * A: in on CPU 0 at 100, out S at 1000, woken at 1500 onto CPU 1, out S again on CPU 1 at
 * 2000: its switch-in was not traced (inferred at the wakeup, exact: CPU 1 idle), so its
 * interval [1000, 1500, 1500] and run [1500, 2000] come first, then WC_SCHED_LOST_SWITCH_IN.
 * B: in on CPU 0 at 2100, in again on CPU 1 at 2200 with no switch-out between:
 * WC_SCHED_LOST_SWITCH_OUT; then a SWITCH_IN record puts it on CPU 0 at 2300 while it is on
 * CPU 1 (another CPU: not the same switch-in): WC_SCHED_LOST_SWITCH_OUT again.
 */
Test(sched, lost_switches_told)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1500, 0, W, A, "a", 1, 0);
	st_switch(&tr, 2000, 1, A, "a", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 2100, 0, 0, "swapper/0", 0, B, "b", 0);
	st_switch(&tr, 2200, 1, 0, "swapper/1", 0, B, "b", 0);
	st_switch_in(&tr, 2300, 0, 0, B, B);
	analyse(3000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 1, 1500, 2000);
	cr_assert_eq(noffs, 1);
	cr_expect(expect_off(0, A, 1000, 1500, 1500, 'S', false)->inferred);
	cr_assert_eq(nlosts, 3);
	cr_expect_eq(losts[0].tid, A);
	cr_expect_eq(losts[0].kind, WC_SCHED_LOST_SWITCH_IN);
	cr_expect_eq(losts[0].nruns, 2, "told after the inferred run");
	cr_expect_eq(losts[0].noffs, 1, "told after the inferred interval");
	for (size_t i = 1; i < 3; i++) {
		cr_expect_eq(losts[i].tid, B);
		cr_expect_eq(losts[i].kind, WC_SCHED_LOST_SWITCH_OUT);
	}
	expect_counts((struct wc_sched_counts){ .switches = 5,
						.wakeups = 1,
						.start_unknown = 2,
						.double_switch_out = 1,
						.inferred_switch_in = 1,
						.switch_in_running = 2,
						.switch_in_records = 1,
						.open_off_at_end = 1,
						.open_run_at_end = 1 });
}

/*
 * 7h. sched_stat_runtime kept within the samples' bounds.  A, sampled on CPU 0 at 500
 * (period 1000), is preempted by C at 1000; C's switch back is not traced; A is sampled at
 * 3500 and goes out S at 3800.  The ticks put the switch-in in [2500, 3500] (C was sampled
 * at 1500 and 2500).  A runtime of A at 3700 of 1500 would put it at 2200, before the tick
 * at 2500 when A was not running: it is kept at 2500.  A: [1000, 1000, 2500] R, inferred;
 * run [2500, 3800].
 */
Test(sched, runtime_within_ticks)
{
	const uint32_t C = 400;

	cr_assert_eq(st_begin_runtime(&tr), 0);
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_sample(&tr, 500, 0, A, 0, 1000);
	st_switch(&tr, 1000, 0, A, "a", ST_RPLUS, C, "c", 0);
	st_sample(&tr, 1500, 0, C, 0, 1000);
	st_sample(&tr, 2500, 0, C, 0, 1000);
	st_sample(&tr, 3500, 0, A, 0, 1000);
	st_runtime(&tr, 3700, 0, A, A, "a", 1500);
	st_switch(&tr, 3800, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(4000);

	cr_assert_eq(nruns, 2);
	expect_run(1, A, 0, 2500, 3800);
	cr_expect(expect_off(0, A, 1000, 1000, 2500, 'R', true)->inferred);
	cr_expect_eq(expect_off(0, A, 1000, 1000, 2500, 'R', true)->inferred_bound_ns, 1000);
	cr_expect_eq(wc_analysis_sched(a)->counts.inferred_by_runtime, 1);
}

/*
 * 7i. The sched_stat recipe (perf record -p: A's own switch-outs only, its switch-ins never
 * recorded; sched.h).  A goes out S at 1000 on CPU 0 (its first event) under stack k1; a
 * sched_stat_sleep of A fires at 3000 in W's context, delay 1900; A goes out S again at 4000
 * on CPU 1 under k2: the interval is the delay, [1100, 3000, 3000], S, k1, all blocked, not a
 * double switch-out.  Another sleep of A ends at 5000 (delay 900), a second event of it at 5200
 * is ignored, one of B (never switched out) too; the recording ends at 6000 with A's interval
 * kept: [4100, 5000, 5000], S, k2, not open at the end.
 */
Test(sched, stat_without_switch_ins)
{
	uint32_t k1 = st_kstack(&tr, 1), k2 = st_kstack(&tr, 2);

	cr_assert_eq(st_begin_stat(&tr), 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", k1);
	st_stat(&tr, 3000, 1, W, A, "a", 1900);
	st_switch(&tr, 4000, 1, A, "a", ST_S, 0, "swapper/1", k2);
	st_stat(&tr, 5000, 0, W, A, "a", 900);
	st_stat(&tr, 5200, 0, W, A, "a", 50);
	st_stat(&tr, 5300, 0, W, B, "b", 70);
	analyse(6000);

	cr_assert_eq(nruns, 0);
	cr_assert_eq(noffs, 2);
	const struct wc_off_interval *iv = expect_off(0, A, 1100, 3000, 3000, 'S', false);

	cr_expect(iv->from_stat);
	cr_expect_not(iv->inferred);
	cr_expect_eq(iv->stack_id, k1);
	iv = expect_off(1, A, 4100, 5000, 5000, 'S', false);
	cr_expect(iv->from_stat);
	cr_expect_eq(iv->stack_id, k2);
	expect_counts((struct wc_sched_counts){ .switches = 2,
						.run_start_unknown = 1,
						.stats = 4,
						.stat_intervals = 2,
						.stat_unmatched = 1,
						.stat_repeated = 1 });
}

/*
 * 7j. A recorded switch-in beats the delay: A in at 100 on CPU 0, out S at 1000; its
 * sched_stat_sleep at 1800 (delay 790); A in at 2000 (traced), out S at 2500.  The interval is
 * switch-out to switch-in, [1000, 2000], no wakeup event (all blocked), not from the stat.
 */
Test(sched, stat_with_switch_in)
{
	cr_assert_eq(st_begin_stat(&tr), 0);
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_stat(&tr, 1800, 0, W, A, "a", 790);
	st_switch(&tr, 2000, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 2500, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(3000);

	cr_assert_eq(noffs, 1);
	cr_expect_not(expect_off(0, A, 1000, 2000, 2000, 'S', false)->from_stat);
	expect_counts((struct wc_sched_counts){ .switches = 4,
						.start_unknown = 1,
						.stats = 1,
						.no_wakeup = 1,
						.open_off_at_end = 1 });
}
