/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-sched-carried.c - CARRIED records (wct.h): a rotated recording's file starts with the
 * state its threads were left in by the file before, and the interval or run under way at
 * the seam counts, whole, where it ends (sched.h wc_sched_carried()).
 *
 * Every expected value is worked out by hand from the trace the test writes: the comment
 * above each test says how.  Times are ns; each file starts at 5000, the time of its CARRIED
 * records.  Tids: A = 100, B = 200, the waker W = 300; 0 is idle.  CPUs 0 and 1.
 */
#include <criterion/criterion.h>

#include "analyzer/core/analysis.h"
#include "analyzer/core/sched.h"
#include "sched-trace.h"
#include "sched-util.h"

TestSuite(carried, .init = sched_init, .fini = sched_fini);

/*
 * 1. A sleep across the seam.  A was switched out in S on CPU 0 at 1000 (the file before),
 * with stack K; W wakes it at 6000 from CPU 1; idle -> A on CPU 0 at 6500; A out in S at 7000.
 *   interval: [1000, 6000, 6500], S, stack K, CPU 0, woken: whole, from the switch-out before
 *   the file's start, as one recording of both files would count it;
 *   run: A [6500, 7000] on CPU 0;
 *   counts: 2 switches, 1 wakeup, 1 carried, none of unknown start; A off-CPU at the end;
 *   the file starts at 5000 (the CARRIED record), not at 1000.
 */
Test(carried, sleep_across_the_seam)
{
	uint32_t k = st_kstack(&tr, 2);

	st_carried(&tr, 5000, 1000, 0, A, "a", ST_S, k, false);
	st_wake(&tr, 6000, 1, W, A, "a", 0, 0);
	st_switch(&tr, 6500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 7000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(8000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 6000, 6500, 'S', false);

	cr_expect_eq(iv->stack_id, k);
	cr_expect_eq(iv->cpu, 0);
	cr_expect(!iv->no_wakeup);
	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 6500, 7000);
	expect_counts((struct wc_sched_counts){
		.switches = 2, .wakeups = 1, .carried = 1, .open_off_at_end = 1 });
	cr_expect_eq(wc_analysis_facts(a)->start_ns, 5000);
}

/*
 * 2. A run across the seam.  B came on CPU 1 at 2000 (the file before) and is still there;
 * B out in S at 5500.
 *   run: B [2000, 5500] on CPU 1, whole; no run of unknown start;
 *   counts: 1 switch, 1 carried; B off-CPU at the end.
 */
Test(carried, run_across_the_seam)
{
	st_carried(&tr, 5000, 2000, 1, B, "b", 0, 0, true);
	st_switch(&tr, 5500, 1, B, "b", ST_S, 0, "swapper/1", 0);
	analyse(6000);

	cr_assert_eq(nruns, 1);
	expect_run(0, B, 1, 2000, 5500);
	cr_expect_eq(noffs, 0);
	expect_counts(
		(struct wc_sched_counts){ .switches = 1, .carried = 1, .open_off_at_end = 1 });
}

/*
 * 3. Preempted across the seam: A switched out R+ on CPU 0 at 4000, back on CPU 0 at 5200
 * (from idle), out in S at 5300.
 *   interval: [4000, 4000, 5200] preempted (all of it run-queue wait, no wakeup to wait for);
 *   run: A [5200, 5300] on CPU 0.
 */
Test(carried, preempted_across_the_seam)
{
	st_carried(&tr, 5000, 4000, 0, A, "a", ST_RPLUS, 0, false);
	st_switch(&tr, 5200, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 5300, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(6000);

	cr_assert_eq(noffs, 1);
	expect_off(0, A, 4000, 4000, 5200, 'R', true);
	expect_run(0, A, 0, 5200, 5300);
	expect_counts(
		(struct wc_sched_counts){ .switches = 2, .carried = 1, .open_off_at_end = 1 });
}

/*
 * 4. Without the record, the same events as 1: A's first event is its switch-in at 6500, so
 * the interval's start is unknown and nothing of it counts; 1 start unknown, 0 carried.
 * (What the seam lost before CARRIED records: the control of test 1.)
 */
Test(carried, without_the_record)
{
	st_wake(&tr, 6000, 1, W, A, "a", 0, 0);
	st_switch(&tr, 6500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 7000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(8000);

	cr_expect_eq(noffs, 0);
	expect_run(0, A, 0, 6500, 7000);
	expect_counts((struct wc_sched_counts){ .switches = 2,
						.wakeups = 1,
						.start_unknown = 1,
						.wakeup_unknown = 1,
						.open_off_at_end = 1 });
}

/*
 * 5. A record for a thread seen already is ignored: A on CPU 0 at 4900 by a sched_switch (its
 * first event: 1 start unknown), a CARRIED record at 5000 says A off since 1000 (a crafted
 * file: a recorder writes them before the events); A out in S at 6000.
 *   run: A [4900, 6000]; no interval; 0 carried.
 */
Test(carried, ignored_for_a_thread_seen)
{
	st_switch(&tr, 4900, 0, 0, "swapper/0", 0, A, "a", 0);
	st_carried(&tr, 5000, 1000, 0, A, "a", ST_S, 0, false);
	st_switch(&tr, 6000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(7000);

	cr_expect_eq(noffs, 0);
	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 4900, 6000);
	expect_counts((struct wc_sched_counts){
		.switches = 2, .start_unknown = 1, .open_off_at_end = 1 });
}

/*
 * 6. A record whose switch comes after its own time (hostile) is refused and counted as
 * undecodable: A "off since 9000" at 5000, then A's switch-in at 9500 is of unknown start.
 */
Test(carried, since_after_the_start_refused)
{
	char why[256];

	st_carried(&tr, 5000, 9000, 0, A, "a", ST_S, 0, false);
	st_switch(&tr, 9500, 0, 0, "swapper/0", 0, A, "a", 0);
	cr_assert_eq(st_end(&tr, true, 10000), 0);
	a = wc_analysis_open(tr.path, why, sizeof(why)); /* not analyse(): it wants 0 undecodable */
	cr_assert_not_null(a, "%s", why);
	opened = true;
	cr_assert_eq(wc_analysis_run(a, NULL), 0, "%s", wc_analysis_error(a));

	cr_expect_eq(wc_analysis_facts(a)->decode_errors, 1);
	expect_counts((struct wc_sched_counts){
		.switches = 1, .start_unknown = 1, .open_run_at_end = 1 });
}

/*
 * 7. Woken across the seam: A switched out in S on CPU 0 at 1000 (stack K), woken at 4000 by W
 * from CPU 1 (waker stack J), both in the file before; idle -> A on CPU 0 at 6500; A out in S
 * at 7000.
 *   interval: [1000, 4000, 6500], S, woken by W under J: 3000 blocked, 2500 of run-queue
 *   wait, as one recording of both files would split it;
 *   counts: 2 switches, no wakeup of this file, 1 carried (A), no S interval without a
 *   wakeup.
 */
Test(carried, woken_across_the_seam)
{
	uint32_t k = st_kstack(&tr, 2), j = st_kstack(&tr, 3);

	st_carried(&tr, 5000, 1000, 0, A, "a", ST_S, k, false);
	st_carried_wake(&tr, 5000, 4000, 1, W, A, "a", j, false);
	st_switch(&tr, 6500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 7000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(8000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 4000, 6500, 'S', false);

	cr_expect(!iv->no_wakeup);
	cr_expect_eq(iv->waker_tid, W);
	cr_expect_eq(iv->waker_stack_id, j);
	cr_expect_eq(iv->stack_id, k);
	expect_counts(
		(struct wc_sched_counts){ .switches = 2, .carried = 1, .open_off_at_end = 1 });
}

/*
 * 8. The control of 7: the same without the carried wakeup.  The interval [1000, 6500] is
 * blocked whole, no wakeup seen (what a seam did before wakeups were carried).
 */
Test(carried, woken_across_the_seam_without_the_wakeup)
{
	st_carried(&tr, 5000, 1000, 0, A, "a", ST_S, 0, false);
	st_switch(&tr, 6500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 7000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(8000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 6500, 6500, 'S', false);

	cr_expect(iv->no_wakeup);
	expect_counts((struct wc_sched_counts){
		.switches = 2, .carried = 1, .no_wakeup = 1, .open_off_at_end = 1 });
}

/*
 * 9. A new task across the seam: A's sched_wakeup_new at 4000 by W on CPU 1 (the file before),
 * A's first run on CPU 1 from 6000 (from idle), out in S at 6500.
 *   interval: [4000, 4000, 6000], R, woken by W: its wait for its first run (sch delay);
 *   run: A [6000, 6500]; counts: 2 switches, 1 carried, no start unknown.
 */
Test(carried, new_task_across_the_seam)
{
	st_carried_wake(&tr, 5000, 4000, 1, W, A, "a", 0, true);
	st_switch(&tr, 6000, 1, 0, "swapper/1", 0, A, "a", 0);
	st_switch(&tr, 6500, 1, A, "a", ST_S, 0, "swapper/1", 0);
	analyse(7000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 4000, 4000, 6000, 'R', false);

	cr_expect_eq(iv->waker_tid, W);
	expect_run(0, A, 1, 6000, 6500);
	expect_counts(
		(struct wc_sched_counts){ .switches = 2, .carried = 1, .open_off_at_end = 1 });
}

/*
 * 10. A carried wakeup of a thread with no carried state (not new: a sched_waking) changes
 * nothing: A's switch-in at 6500 is of unknown start, as in 4.
 */
Test(carried, wakeup_without_a_state_ignored)
{
	st_carried_wake(&tr, 5000, 4000, 1, W, A, "a", 0, false);
	st_switch(&tr, 6500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 7000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(8000);

	cr_expect_eq(noffs, 0);
	expect_counts((struct wc_sched_counts){
		.switches = 2, .start_unknown = 1, .open_off_at_end = 1 });
}

/*
 * 11. Woken on its way out, across the seam: A off in S since 1000 on CPU 0, its carried
 * wakeup at 900 by W (before its switch-out: it was still on its CPU); A on CPU 0 at 6500.
 *   interval: [1000, 1000, 6500]: the wakeup is provisional, no other came after the
 *   switch-out, so all of it is sch delay (sched.h), with W as its waker; as in 12.
 */
Test(carried, woken_on_its_way_out_across_the_seam)
{
	st_carried(&tr, 5000, 1000, 0, A, "a", ST_S, 0, false);
	st_carried_wake(&tr, 5000, 900, 1, W, A, "a", 0, false);
	st_switch(&tr, 6500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 7000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(8000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1000, 6500, 'S', false);

	cr_expect(!iv->no_wakeup);
	cr_expect_eq(iv->waker_tid, W);
}

/*
 * 12. The same in one recording, the control of 11: A on CPU 0 at 500, W wakes it at 900
 * from CPU 1 while it is still there, A out in S at 1000, on CPU 0 again at 6500.
 *   interval: [1000, 1000, 6500], woken by W, as 11.
 */
Test(carried, woken_on_its_way_out_in_one_recording)
{
	st_switch(&tr, 500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_wake(&tr, 900, 1, W, A, "a", 0, 0);
	st_switch(&tr, 1000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	st_switch(&tr, 6500, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 7000, 0, A, "a", ST_S, 0, "swapper/0", 0);
	analyse(8000);

	cr_assert_eq(noffs, 1);
	const struct wc_off_interval *iv = expect_off(0, A, 1000, 1000, 6500, 'S', false);

	cr_expect(!iv->no_wakeup);
	cr_expect_eq(iv->waker_tid, W);
}
