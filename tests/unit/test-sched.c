/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-sched.c - the replay pipeline (analysis.h) and the per-tid scheduler state machine
 * (sched.h) over hand-built traces, one test per edge case; the replay's reordering by
 * ROUND.  The folded profile's tests are in test-profile.c.
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
#include "trace-util.h"

#define A 100
#define B 200
#define W 300

struct run {
	uint32_t tid;
	int32_t cpu;
	uint64_t start, end;
};

struct off {
	uint32_t tid;
	struct wc_off_interval iv;
};

static struct st_trace tr;
static struct wc_analysis a;
static bool opened;
/* a lost switch as sched.c told it, and how many runs and intervals had been told by then */
struct lost {
	uint32_t tid;
	enum wc_sched_lost kind;
	size_t nruns, noffs;
};

static struct run runs[64];
static struct off offs[64];
static struct lost losts[64];
static size_t nruns, noffs, nlosts;

static int on_run(void *ctx, struct wc_thread *t, int32_t cpu, uint64_t start, uint64_t end)
{
	(void)ctx;
	cr_assert_lt(nruns, 64);
	runs[nruns++] = (struct run){ t->tid, cpu, start, end };
	return 0;
}

static int on_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	(void)ctx;
	cr_assert_lt(noffs, 64);
	offs[noffs++] = (struct off){ t->tid, *iv };
	return 0;
}

static int on_lost(void *ctx, struct wc_thread *t, enum wc_sched_lost kind)
{
	(void)ctx;
	cr_assert_lt(nlosts, 64);
	losts[nlosts++] = (struct lost){ t->tid, kind, nruns, noffs };
	return 0;
}

static const struct wc_analysis_consumer recorder = {
	.sink = { .run = on_run, .off = on_off, .lost = on_lost },
};

static void init(void)
{
	nruns = noffs = nlosts = 0;
	opened = false;
	if (st_begin(&tr)) {
		st_remove(&tr); /* .fini does not run after a failed .init */
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?", getenv("srcdir") ? getenv("srcdir") : ".");
	}
}

static void fini(void)
{
	if (opened)
		wc_analysis_close(&a);
	opened = false;
	st_remove(&tr);
}

TestSuite(sched, .init = init, .fini = fini);
TestSuite(replay, .init = init, .fini = fini);

/* Run the pipeline over @path into runs[] / offs[]; @late events are expected dropped. */
static void analyse_file(const char *path, uint64_t late)
{
	cr_assert_eq(wc_analysis_open(&a, path), 0, "%s", a.error);
	opened = true;
	cr_assert_eq(wc_analysis_run(&a, &recorder), 0, "%s", a.error);
	cr_assert_eq(a.decode_errors, 0);
	cr_assert_eq(wc_replay_stats(a.replay)->late, late);
}

/* Close the trace with a trailer at @end_ns and analyse it. */
static void analyse(uint64_t end_ns)
{
	cr_assert_eq(st_end(&tr, true, end_ns), 0);
	analyse_file(tr.path, 0);
}

static void expect_run(size_t i, uint32_t tid, int32_t cpu, uint64_t start, uint64_t end)
{
	cr_assert_lt(i, nruns, "run %zu missing (%zu runs)", i, nruns);
	cr_expect_eq(runs[i].tid, tid, "run %zu tid", i);
	cr_expect_eq(runs[i].cpu, cpu, "run %zu cpu", i);
	cr_expect_eq(runs[i].start, start, "run %zu start %lu", i, (unsigned long)runs[i].start);
	cr_expect_eq(runs[i].end, end, "run %zu end %lu", i, (unsigned long)runs[i].end);
}

/* the off-CPU interval i: its times, state and flags */
static const struct wc_off_interval *expect_off(size_t i, uint32_t tid, uint64_t start,
						uint64_t wake, uint64_t end, char state,
						bool preempted)
{
	const struct wc_off_interval *iv;

	cr_assert_lt(i, noffs, "interval %zu missing (%zu intervals)", i, noffs);
	iv = &offs[i].iv;
	cr_expect_eq(offs[i].tid, tid, "interval %zu tid", i);
	cr_expect_eq(iv->start_ns, start, "interval %zu start %lu", i, (unsigned long)iv->start_ns);
	cr_expect_eq(iv->wake_ns, wake, "interval %zu wake %lu", i, (unsigned long)iv->wake_ns);
	cr_expect_eq(iv->end_ns, end, "interval %zu end %lu", i, (unsigned long)iv->end_ns);
	cr_expect_eq(iv->state, state, "interval %zu state %c", i, iv->state);
	cr_expect_eq(iv->preempted, preempted, "interval %zu preempted", i);
	return iv;
}

/*
 * The counts, all of them: every edge-case counter not named here must be 0.  Order: switches,
 * wakeups, start_unknown, run_start_unknown, double_switch_out, inferred_switch_in,
 * inferred_by_samples, unknown_dropped, switch_in_running, wakeup_running, wakeup_runnable, wakeup_repeated,
 * wakeup_unknown, no_wakeup, open_off_at_end, open_run_at_end, bad_cpu.
 */
static void expect_counts(struct wc_sched_counts want)
{
	const struct wc_sched_counts *c = &a.sched.counts;

#define C(f) cr_expect_eq(c->f, want.f, #f " is %lu, not %lu", (unsigned long)c->f, \
			  (unsigned long)want.f)
	C(switches);
	C(wakeups);
	C(start_unknown);
	C(run_start_unknown);
	C(double_switch_out);
	C(inferred_switch_in);
	C(inferred_by_samples);
	C(unknown_dropped);
	C(switch_in_running);
	C(switch_in_records);
	C(wakeup_running);
	C(wakeup_runnable);
	C(wakeup_repeated);
	C(wakeup_unknown);
	C(no_wakeup);
	C(open_off_at_end);
	C(open_run_at_end);
	C(bad_cpu);
#undef C
}

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
	expect_counts((struct wc_sched_counts){ .switches = 4, .wakeups = 2, .start_unknown = 1,
						.open_off_at_end = 1 });
	/* the thread got its comm from the payloads and its pid from the switch-out context */
	struct wc_thread *t = wc_tasks_find(&a.tasks, A);

	cr_assert_not_null(t);
	cr_expect_str_eq(t->comm, "a");
	cr_expect_eq(t->pid, A);
	uint64_t vol, invol;

	wc_sched_switches(&a.sched, t, &vol, &invol);
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .start_unknown = 2,
						.open_off_at_end = 1, .open_run_at_end = 1 });
	uint64_t vol, invol;

	wc_sched_switches(&a.sched, wc_tasks_find(&a.tasks, A), &vol, &invol);
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 1, .start_unknown = 1,
						.open_run_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 2, .start_unknown = 1,
						.open_off_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 2, .wakeups = 1,
						.run_start_unknown = 1, .open_run_at_end = 1 });
}

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
	expect_counts((struct wc_sched_counts){ .switches = 4, .wakeups = 1, .start_unknown = 1,
						.run_start_unknown = 1, .double_switch_out = 1,
						.inferred_switch_in = 1, .open_off_at_end = 2 });
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
	expect_counts((struct wc_sched_counts){ .switches = 6, .wakeups = 1, .start_unknown = 3,
						.double_switch_out = 2, .inferred_switch_in = 1,
						.unknown_dropped = 1, .open_off_at_end = 1,
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .start_unknown = 2,
						.double_switch_out = 1, .inferred_switch_in = 1,
						.inferred_by_samples = 1, .open_off_at_end = 1,
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .start_unknown = 1,
						.double_switch_out = 1, .inferred_switch_in = 1,
						.inferred_by_samples = 1, .no_wakeup = 1,
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
	expect_counts((struct wc_sched_counts){ .switches = 6, .wakeups = 1, .start_unknown = 2,
						.double_switch_out = 2, .inferred_switch_in = 2,
						.inferred_by_samples = 1, .no_wakeup = 1,
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 1, .start_unknown = 2,
						.double_switch_out = 1, .inferred_switch_in = 1,
						.inferred_by_samples = 1, .wakeup_unknown = 1,
						.open_off_at_end = 1, .open_run_at_end = 1 });
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

	cr_assert_eq(a.runtime_events, 6);
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
	cr_expect_eq(a.sched.counts.inferred_switch_in, 2);
	cr_expect_eq(a.sched.counts.inferred_by_runtime, 2);
	cr_expect_eq(a.sched.counts.inferred_by_samples, 0);
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
	cr_expect_eq(a.sched.cpu_curr[0], 0, "the record of the idle task put it on CPU 0");
	cr_expect_eq(a.sched.cpu_since_ns[0], 2300);
	/* A's first event a switch-in, B's a switch-out; A off at the end, B on */
	expect_counts((struct wc_sched_counts){ .switches = 7, .wakeups = 2, .start_unknown = 1,
						.run_start_unknown = 1, .switch_in_records = 4,
						.no_wakeup = 1, .open_off_at_end = 1,
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
	expect_counts((struct wc_sched_counts){ .switches = 5, .wakeups = 1, .start_unknown = 2,
						.double_switch_out = 1, .inferred_switch_in = 1,
						.switch_in_running = 2, .switch_in_records = 1,
						.open_off_at_end = 1, .open_run_at_end = 1 });
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
	cr_expect_eq(a.sched.counts.inferred_by_runtime, 1);
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 1, .start_unknown = 1,
						.wakeup_running = 1, .open_run_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 2, .start_unknown = 1,
						.wakeup_running = 1, .open_run_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 2, .start_unknown = 1,
						.wakeup_repeated = 1, .open_run_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 1, .start_unknown = 1,
						.wakeup_runnable = 1, .open_run_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 2, .wakeups = 1, .wakeup_unknown = 1,
						.start_unknown = 1, .open_off_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 3, .start_unknown = 1, .no_wakeup = 1,
						.open_run_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 4, .wakeups = 1, .start_unknown = 2,
						.open_off_at_end = 1 });
	cr_expect_eq(wc_analysis_end_ns(&a), 5000);
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
	expect_counts((struct wc_sched_counts){ .switches = 2, .wakeups = 1,
						.open_off_at_end = 1 });
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
	cr_expect_null(wc_tasks_find(&a.tasks, 0));
	cr_expect_eq(a.tasks.nthreads, 2); /* slot 0 unused, then A */
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 1, .start_unknown = 1,
						.open_off_at_end = 1 });
}

/* A switch on a CPU beyond HOST's ncpus_configured (2) is counted and ignored. */
Test(sched, bad_cpu)
{
	st_switch(&tr, 100, 0, 0, "swapper/0", 0, A, "a", 0);
	st_switch(&tr, 500, 5, A, "a", ST_S, 0, "swapper/5", 0);
	analyse(2000);

	cr_expect_eq(nruns, 0);
	expect_counts((struct wc_sched_counts){ .switches = 2, .start_unknown = 1, .bad_cpu = 1,
						.open_run_at_end = 1 });
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
	expect_counts((struct wc_sched_counts){ .switches = 5, .wakeups = 1, .start_unknown = 2,
						.open_off_at_end = 1, .open_run_at_end = 1 });
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

	const struct wc_replay_stats *st = wc_replay_stats(a.replay);

	cr_expect_eq(st->state, WC_READER_TRUNCATED);
	cr_expect_eq(st->end_ns, 0);
	cr_expect_eq(wc_analysis_end_ns(&a), 1700);
	cr_assert_eq(nruns, 1);
	expect_run(0, A, 0, 100, 1000);
	cr_assert_eq(noffs, 1);
	expect_off(0, A, 1000, 1500, 1700, 'S', false);
	expect_counts((struct wc_sched_counts){ .switches = 3, .wakeups = 1, .start_unknown = 1,
						.open_run_at_end = 1 });
}
