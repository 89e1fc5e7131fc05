/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-sched.c - the replay pipeline (analysis.h) and the per-tid scheduler state machine
 * (sched.h) over hand-built traces, one test per edge case; the replay's reordering by
 * ROUND.  Double switch-outs, the tick grid, sched_stat_runtime, SWITCH_IN records and lost
 * switches are in test-sched-edges.c; the folded profile's tests in test-profile.c.
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
TestSuite(replay, .init = sched_init, .fini = sched_fini);

/*
 * 1. A simple sleep.  CPU 0: idle -> A at 100 (A's first event: start unknown), A out in S at
 * 1000 with stack K, W wakes A at 1500 on CPU 1 with stack WK, idle -> A at 1700, A out in S
 * at 2500, W wakes A at 2600 and nothing more: A is off-CPU at the end.
 *   runs: A [100, 1000] and [1700, 2500] on CPU 0;
 *   interval: out 1000, blocked until the wakeup at 1500, sch delay to the switch-in at 1700;
 *   state S, not preempted, not inferred, a wakeup was seen; waker W with stack WK; CPU 0.
 */
Test(sched, simple_sleep)
{
	uint32_t k = st_kstack(&tr, 2), wk = st_kstack(&tr, 3);

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", k);
	st_wake(&tr, 1500, 1, W, A, "a", 0, wk);
	st_switch(&tr, 1700, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 2500, 0, A, "a", ST_S, 0, "swapper/0", k);
	st_wake(&tr, 2600, 1, W, A, "a", 0, wk);
	analyse(3000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 0, 1700, 2500);
	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1500, 1700, 'S', false);

	cr_expect_not(iv->inferred);
	cr_expect_not(iv->no_wakeup);
	cr_expect_eq(iv->cpu, 0);
	cr_expect_eq(iv->stack_id, k);
	cr_expect_eq(iv->waker_tid, W);
	cr_expect_eq(iv->waker_stack_id, wk);
	/* 4 switches, 2 wakeups; the first switch-in is A's first event; A ends off-CPU */
	expect_counts((struct wc_sched_counts){
		.switches = 4, .wakeups = 2, .start_unknown = 1, .open_off_at_end = 1 });
	/* the thread got its comm from the payloads and its pid from the switch-out context */
	struct wc_thread *t = wc_tasks_find(wc_analysis_tasks(a), A);

	cr_assert_not_null(t);
	cr_expect_str_eq(t->comm, "a");
	cr_expect_eq(t->pid, A);
	uint64_t vol, invol;

	wc_sched_switches(wc_analysis_sched(a), t, &vol, &invol);
	cr_expect_eq(vol, 2);
	cr_expect_eq(invol, 0);
}

/*
 * 2. Preempted.  idle -> A at 100, A out R+ (prev_state 0x100) at 1000 with B coming in, B out
 * S at 1400 and A back in at 1400 on CPU 0.
 *   A's interval [1000, 1400]: state R, preempted, all sch delay: wake_ns == start_ns;
 *   no waker; not counted as no_wakeup (that is for sleeps).
 *   runs: A [100, 1000], B [1000, 1400].  A ends on-CPU, B off-CPU.
 */
Test(sched, preempted)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_RPLUS, B, "b", 0);
	st_switch(&tr, 1400, 0, B, "b", ST_S, A, "a", 0);
	analyse(2000);

	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, B, 0, 1000, 1400);
	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1000, 1400, 'R', true);

	cr_expect_not(iv->no_wakeup);
	cr_expect_not(iv->inferred);
	cr_expect_eq(iv->waker_tid, 0);
	/* A's and B's first events are switch-ins */
	expect_counts((struct wc_sched_counts){
		.switches = 3, .start_unknown = 2, .open_off_at_end = 1, .open_run_at_end = 1 });
	uint64_t vol, invol;

	wc_sched_switches(wc_analysis_sched(a), wc_tasks_find(wc_analysis_tasks(a), A), &vol,
			  &invol);
	cr_expect_eq(invol, 1);
}

/*
 * 3. D state.  idle -> A at 100, A out D (0x2) at 1000, W wakes A at 1200 (CPU 1), idle -> A
 * at 1300 on CPU 1 and A stays there.
 *   interval [1000, 1200, 1300], state D, not preempted, CPU 1; run A [100, 1000] on CPU 0.
 */
Test(sched, d_state)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_D, 0, "swapper/0", 0);
	st_wake(&tr, 1200, 1, W, A, "a", 1, 0);
	st_switch(&tr, 1300, 1, 0, "swapper/1", 0, A, "a", 0);
	analyse(2000);

	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 100, 1000);
	cr_assert_eq(noffs, 1);
	cr_expect_eq(expect_off(0, A, 1000, 1200, 1300, 'D', false)->cpu, 1);
	expect_counts((struct wc_sched_counts){
		.switches = 3, .wakeups = 1, .start_unknown = 1, .open_run_at_end = 1 });
}

/*
 * 4. A's first event is a switch-in (at 500): when it went off-CPU is unknown, so no interval;
 * the run from there to its switch-out at 900 is known.  It then sleeps to the end.
 */
Test(sched, first_event_switch_in)
{
	st_switch(&tr, 500, 1, 0, "swapper/1", 0, A, "a", 0);
	st_switch(&tr, 900, 1, A, "a", ST_S, 0, "swapper/1", 0);
	analyse(2000);

	cr_expect_eq(noffs, 0);
	cr_assert_eq(nruns, 1);
	expect_run(0, A, 1, 500, 900);
	expect_counts((struct wc_sched_counts){
		.switches = 2, .start_unknown = 1, .open_off_at_end = 1 });
}

/*
 * 5. A's first event is a switch-out (S at 1000): the run before it has no start, so no run;
 * the interval after it is whole: woken at 1100, in at 1400 -> [1000, 1100, 1400].  A runs
 * on to the end (not counted).
 */
Test(sched, first_event_switch_out)
{
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1100, 1, W, A, "a", 0, 0);
	st_switch(&tr, 1400, 0, 0, "swapper/0", 0, A, "a", 0);
	analyse(2000);

	cr_expect_eq(nruns, 0);
	cr_assert_eq(noffs, 1);
	expect_off(0, A, 1000, 1100, 1400, 'S', false);
	expect_counts((struct wc_sched_counts){
		.switches = 2, .wakeups = 1, .run_start_unknown = 1, .open_run_at_end = 1 });
}

/*
 * 8a. Woken while still on its CPU: A runs on CPU 0 from 100; W (on CPU 1) wakes A at 990;
 * A out S at 1000; no later wakeup; in at 1400.  The wakeup is provisional and is used: the
 * whole interval is sch delay, [1000, 1000, 1400], waker W; not a no_wakeup.
 */
Test(sched, wakeup_running_provisional)
{
	uint32_t wk = st_kstack(&tr, 2);

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_wake(&tr, 990, 1, W, A, "a", 0, wk);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_switch(&tr, 1400, 0, 0, "swapper/0", 0, A, "a", 0);
	analyse(2000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1000, 1400, 'S', false);

	cr_expect_not(iv->no_wakeup);
	cr_expect_eq(iv->waker_tid, W);
	cr_expect_eq(iv->waker_stack_id, wk);
	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 100, 1000);
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.wakeups = 1,
						.start_unknown = 1,
						.wakeup_running = 1,
						.open_run_at_end = 1 });
}

/*
 * 8b. As 8a, but another wakeup comes at 1200, after the switch-out, from tid 301: that one
 * ends the blocked part: [1000, 1200, 1400], waker 301.  It is not a repeated wakeup.
 */
Test(sched, wakeup_running_then_later_wakeup)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_wake(&tr, 990, 1, W, A, "a", 0, 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1200, 1, 301, A, "a", 0, 0);
	st_switch(&tr, 1400, 0, 0, "swapper/0", 0, A, "a", 0);
	analyse(2000);

	cr_assert_eq(noffs, 1);
	cr_expect_eq(expect_off(0, A, 1000, 1200, 1400, 'S', false)->waker_tid, 301);
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.wakeups = 2,
						.start_unknown = 1,
						.wakeup_running = 1,
						.open_run_at_end = 1 });
}

/*
 * 9. Repeated wakeups while off-CPU: A out S at 1000, woken at 1200 by W and at 1300 by 301,
 * in at 1500.  The first is kept: [1000, 1200, 1500], waker W; one repeated wakeup.
 */
Test(sched, wakeup_repeated)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1200, 1, W, A, "a", 0, 0);
	st_wake(&tr, 1300, 1, 301, A, "a", 0, 0);
	st_switch(&tr, 1500, 0, 0, "swapper/0", 0, A, "a", 0);
	analyse(2000);

	cr_assert_eq(noffs, 1);
	cr_expect_eq(expect_off(0, A, 1000, 1200, 1500, 'S', false)->waker_tid, W);
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.wakeups = 2,
						.start_unknown = 1,
						.wakeup_repeated = 1,
						.open_run_at_end = 1 });
}

/*
 * 10. A wakeup of a preempted task: A out R+ at 1000, W wakes it at 1200, in at 1500.  The
 * wakeup is ignored: [1000, 1000, 1500], R, preempted, no waker.
 */
Test(sched, wakeup_runnable)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_RPLUS, 0, "swapper/0", 0);
	st_wake(&tr, 1200, 1, W, A, "a", 0, 0);
	st_switch(&tr, 1500, 0, 0, "swapper/0", 0, A, "a", 0);
	analyse(2000);

	cr_assert_eq(noffs, 1);
	cr_expect_eq(expect_off(0, A, 1000, 1000, 1500, 'R', true)->waker_tid, 0);
	expect_counts((struct wc_sched_counts){ .switches = 3,
						.wakeups = 1,
						.start_unknown = 1,
						.wakeup_runnable = 1,
						.open_run_at_end = 1 });
}

/*
 * 11. A wakeup before A was ever seen: W wakes A at 500 (A's first event).  It changes
 * nothing: A's switch-in at 600 is still a start unknown; run [600, 1000]; no interval.
 */
Test(sched, wakeup_unknown)
{
	st_wake(&tr, 500, 1, W, A, "a", 0, 0);
	st_switch(&tr, 600, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(2000);

	cr_expect_eq(noffs, 0);
	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 600, 1000);
	expect_counts((struct wc_sched_counts){ .switches = 2,
						.wakeups = 1,
						.wakeup_unknown = 1,
						.start_unknown = 1,
						.open_off_at_end = 1 });
}

/*
 * 12. A sleep with no wakeup seen: A out S at 1000, in at 1600.  The whole interval is
 * blocked: [1000, 1600, 1600], no_wakeup set and counted.
 */
Test(sched, no_wakeup)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_switch(&tr, 1600, 0, 0, "swapper/0", 0, A, "a", 0);
	analyse(2000);

	cr_assert_eq(noffs, 1);
	cr_expect(expect_off(0, A, 1000, 1600, 1600, 'S', false)->no_wakeup);
	expect_counts((struct wc_sched_counts){
		.switches = 3, .start_unknown = 1, .no_wakeup = 1, .open_run_at_end = 1 });
}

/*
 * 13. The recording ends while A is off-CPU: out S at 1000, woken at 1200, never back in
 * before the trailer at 5000.  No interval; open_off_at_end.  B exits while off-CPU (out S
 * at 300, EXIT at 400): an exited thread is not open at the end.
 */
Test(sched, open_off_at_end)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 200, 1, 0, "swapper/1", 0, B, "b", 0);
	st_switch(&tr, 300, 1, B, "b", ST_S, 0, "swapper/1", 0);
	st_task(&tr, WC_REC_EXIT, 400, B, B, B, B);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1200, 1, W, A, "a", 0, 0);
	analyse(5000);

	cr_expect_eq(noffs, 0);
	cr_assert_eq(nruns, 2);
	expect_run(0, B, 1, 200, 300);
	expect_run(1, A, 0, 100, 1000);
	expect_counts((struct wc_sched_counts){
		.switches = 4, .wakeups = 1, .start_unknown = 2, .open_off_at_end = 1 });
	cr_expect_eq(wc_analysis_end_ns(a), 5000);
}

/*
 * 14. sched_wakeup_new: W forks C (tid 400) at 990 and wakes it new at 1000 onto CPU 1; C's
 * first switch-in is at 1250 on CPU 1, its switch-out S at 2000.
 *   C's first wait is all sch delay: [1000, 1000, 1250], state R, not preempted (so the
 *   profile puts it on the run queue), not a no_wakeup, waker W, no stack; then run
 *   [1250, 2000] on CPU 1.  No start_unknown: C was seen being born.
 */
Test(sched, wakeup_new)
{
	st_task(&tr, WC_REC_FORK, 990, 400, W, 400, W);
	st_wake_new(&tr, 1000, 0, W, 400, "c", 1);
	st_switch(&tr, 1250, 1, 0, "swapper/1", 0, 400, "c", 0);
	st_switch(&tr, 2000, 1, 400, "c", ST_S, 0, "swapper/1", 0);
	analyse(3000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, 400, 1000, 1000, 1250, 'R', false);

	cr_expect_not(iv->no_wakeup);
	cr_expect_not(iv->inferred);
	cr_expect_eq(iv->waker_tid, W);
	cr_expect_eq(iv->stack_id, 0);
	cr_expect_eq(iv->cpu, 1);
	cr_assert_eq(nruns, 1);
	expect_run(0, 400, 1, 1250, 2000);
	expect_counts(
		(struct wc_sched_counts){ .switches = 2, .wakeups = 1, .open_off_at_end = 1 });
}

/*
 * 15. Idle is never a task: switches between idle and idle on both CPUs, idle in and out
 * around A, a sample of tid 0, a wakeup of tid 0.  Only A's run [100, 1000] comes out, and
 * tasks has no tid 0.
 */
Test(sched, idle_not_a_task)
{
	st_switch(&tr, 50, 1, 0, "swapper/1", 0, 0, "swapper/1", 0);
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_sample(&tr, 500, 1, 0, 0, 1000000);
	st_wake(&tr, 600, 1, W, 0, "swapper/1", 1, 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(2000);

	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 100, 1000);
	cr_expect_eq(noffs, 0);
	cr_expect_null(wc_tasks_find(wc_analysis_tasks(a), 0));
	cr_expect_eq(wc_analysis_tasks(a)->nthreads, 2); /* slot 0 unused, then A */
	expect_counts((struct wc_sched_counts){
		.switches = 3, .wakeups = 1, .start_unknown = 1, .open_off_at_end = 1 });
}

/* A switch on a CPU beyond HOST's ncpus_configured (2) is counted and ignored. */
Test(sched, bad_cpu)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 500, 5, A, "a", ST_S, 0, "swapper/5", 0);
	analyse(2000);

	cr_expect_eq(nruns, 0);
	expect_counts((struct wc_sched_counts){
		.switches = 2, .start_unknown = 1, .bad_cpu = 1, .open_run_at_end = 1 });
}

/* ---- the replay: reordering by ROUND, late events, a cut file ---- */

struct order {
	uint32_t tid[32];
	uint64_t time[32];
	size_t n;
};

static int order_event(void *ctx, const struct wc_rec_header *h)
{
	struct order *o = ctx;
	const struct wc_rec_sample *s = (const void *)h;

	cr_assert_eq(h->type, WC_REC_SAMPLE);
	cr_assert_lt(o->n, 32);
	o->tid[o->n] = s->tid;
	o->time[o->n++] = s->time_ns;
	return 0;
}

/*
 * SAMPLEs (tid = a label) written out of order around three ROUNDs:
 *   t1@300 t2@100 ROUND  t3@250 t4@400 t5@150 ROUND  t6@290 t7@350 t8@320 ROUND  t10@500 t9@500
 * ROUND 1 hands out what is <= the newest time at the ROUND before (none: 0): nothing; the
 * limit becomes 300.  ROUND 2 hands out <= 300, sorted: t2@100 t5@150 t3@250 t1@300; the
 * limit becomes 400.  t6@290 is older than t1@300, already handed out: late, dropped.
 * ROUND 3 hands out <= 400: t8@320 t7@350 t4@400.  The end hands out the rest, the tie in
 * file order: t10 then t9.
 */
Test(replay, reorder_by_round)
{
	static const uint32_t want_tid[] = { 2, 5, 3, 1, 8, 7, 4, 10, 9 };
	static const uint64_t want_time[] = { 100, 150, 250, 300, 320, 350, 400, 500, 500 };
	struct wc_replay_ops ops = { .event = order_event };
	struct order o = { .n = 0 };
	struct wc_replay *r;

	st_sample(&tr, 300, 0, 1, 0, 1);
	st_sample(&tr, 100, 1, 2, 0, 1);
	st_round(&tr);
	st_sample(&tr, 250, 0, 3, 0, 1);
	st_sample(&tr, 400, 0, 4, 0, 1);
	st_sample(&tr, 150, 1, 5, 0, 1);
	st_round(&tr);
	st_sample(&tr, 290, 1, 6, 0, 1);
	st_sample(&tr, 350, 0, 7, 0, 1);
	st_sample(&tr, 320, 1, 8, 0, 1);
	st_round(&tr);
	st_sample(&tr, 500, 0, 10, 0, 1);
	st_sample(&tr, 500, 1, 9, 0, 1);
	cr_assert_eq(st_end(&tr, true, 600), 0);

	r = wc_replay_open(tr.path);
	cr_assert_not_null(r);
	cr_assert_eq(wc_replay_run(r, &ops, &o), 0);
	cr_expect_eq(o.n, 9);
	for (size_t i = 0; i < o.n && i < 9; i++) {
		cr_expect_eq(o.tid[i], want_tid[i], "event %zu is t%u@%lu, not t%u", i, o.tid[i],
			     (unsigned long)o.time[i], want_tid[i]);
		cr_expect_eq(o.time[i], want_time[i]);
	}
	const struct wc_replay_stats *st = wc_replay_stats(r);

	cr_expect_eq(st->late, 1);
	cr_expect_eq(st->records[WC_REC_SAMPLE], 10);
	cr_expect_eq(st->records[WC_REC_ROUND], 3);
	cr_expect_eq(st->first_ns, 100);
	cr_expect_eq(st->last_ns, 500);
	cr_expect_eq(st->end_ns, 600);
	cr_expect_eq(st->state, WC_READER_CLEAN);
	wc_replay_free(r);
}

/*
 * The same through the scheduler: each CPU's events are written as the recorder drains its
 * ring, CPU 1 before CPU 0 in each pass:
 *   pass 1: CPU 1: idle -> B @150;  CPU 0: idle -> A @100;                       ROUND
 *   pass 2: CPU 1: W wakes A @1500; CPU 0: A out S @1000, idle -> A @1700;      ROUND
 *   pass 3: (nothing);                                                          ROUND
 *   pass 4: CPU 1: B out S @1600 (older than 1700, handed out at ROUND 3);
 *           CPU 0: A out S @2500
 * ROUND 1 hands out nothing (limit 0), ROUND 2 up to 150 (B in, A in, sorted: A @100 first),
 * ROUND 3 up to 1700: A out @1000, the wakeup @1500, A in @1700 - in time order, so the
 * wakeup comes after the switch-out and splits the interval: [1000, 1500, 1700].  Written
 * order would have made it a wakeup of a running A.  B out @1600 is late: dropped, so B
 * never leaves its CPU (open run at the end) and has no run.  A out @2500: run [1700, 2500].
 */
Test(replay, reorder_into_sched)
{
	st_switch(&tr, 150, 1, 0, "swapper/1", 0, B, "b", 0);
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_round(&tr);
	st_wake(&tr, 1500, 1, W, A, "a", 0, 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_switch(&tr, 1700, 0, 0, "swapper/0", 0, A, "a", 0);
	st_round(&tr);
	st_round(&tr);
	st_switch(&tr, 1600, 1, B, "b", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 2500, 0, A, "a", ST_S, 0, "swapper/0", 0);
	cr_assert_eq(st_end(&tr, true, 3000), 0);
	analyse_file(tr.path, 1);

	cr_assert_eq(noffs, 1);
	expect_off(0, A, 1000, 1500, 1700, 'S', false);
	cr_assert_eq(nruns, 2);
	expect_run(0, A, 0, 100, 1000);
	expect_run(1, A, 0, 1700, 2500);
	expect_counts((struct wc_sched_counts){ .switches = 5,
						.wakeups = 1,
						.start_unknown = 2,
						.open_off_at_end = 1,
						.open_run_at_end = 1 });
}

/*
 * A file cut in the middle of its second frame.  Frame 1: idle -> A @100, A out S @1000,
 * woken @1500, A in @1700.  Frame 2: A out S @2500, woken @3000, A in @3200, trailer @4000.
 * Cut half-way into frame 2: frame 1 is analysed whole - run [100, 1000], interval
 * [1000, 1500, 1700], A on its CPU at the end - and the replay says TRUNCATED; with no
 * trailer, the end is the last event handed out, 1700.
 */
Test(replay, truncated_file)
{
	char cut[64] = "";
	uint64_t frame1_end, size;
	struct stat sb;

	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 1500, 1, W, A, "a", 0, 0);
	st_switch(&tr, 1700, 0, 0, "swapper/0", 0, A, "a", 0);
	st_round(&tr);
	frame1_end = st_flush(&tr);
	st_switch(&tr, 2500, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 3000, 1, W, A, "a", 0, 0);
	st_switch(&tr, 3200, 0, 0, "swapper/0", 0, A, "a", 0);
	cr_assert_eq(st_end(&tr, true, 4000), 0);
	cr_assert_eq(stat(tr.path, &sb), 0);
	size = (uint64_t)sb.st_size;
	cr_assert_gt(size, frame1_end + 16);
	cr_assert_eq(tu_copy_prefix(tr.path, frame1_end + (size - frame1_end) / 2, cut), 0);
	analyse_file(cut, 0);
	unlink(cut);

	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));

	cr_expect_eq(st->state, WC_READER_TRUNCATED);
	cr_expect_eq(st->end_ns, 0);
	cr_expect_eq(wc_analysis_end_ns(a), 1700);
	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 100, 1000);
	cr_assert_eq(noffs, 1);
	expect_off(0, A, 1000, 1500, 1700, 'S', false);
	expect_counts((struct wc_sched_counts){
		.switches = 3, .wakeups = 1, .start_unknown = 1, .open_run_at_end = 1 });
}
