/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-profile.c - the folded wall-clock profile (profile.h) and the waker profile over
 * hand-built traces (sched-trace.h).  Every expected value is worked out by hand from the
 * trace the test writes: the comment above each test says how.  Times are ns, values us.
 * The waker W = 300 is never switched: it only gives context to wakeups.
 */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/analysis.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"
#include "sched-trace.h"

#define W 300

static struct st_trace tr;

static void init(void)
{
	if (st_begin(&tr)) {
		st_remove(&tr); /* .fini does not run after a failed .init */
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?",
			       getenv("srcdir") ? getenv("srcdir") : ".");
	}
}

static void fini(void)
{
	st_remove(&tr);
}

TestSuite(folded, .init = init, .fini = fini);

/*
 * Thread "worker" 100 and its sibling "worker" 101 (process 100), on a trace that starts at
 * 1 ms.  Stacks are kernel-only, without kallsyms, so each frame prints as [unknown] and a
 * stack of depth N reads ";[unknown]" N times: K1..K3 (depth 1..3) are switch-out stacks,
 * S1 (depth 4) and S2 (depth 5) sample stacks.
 *
 *   worker 100, CPU 0:
 *     1.0 ms  in (first event: start unknown)   samples S1 @1.5, S1 @2.0, S2 @2.5
 *     3.0 ms  out S, K1          run 1.0-3.0 = 2000 us
 *     3.4 ms  W wakes it         blocked 3.0-3.4 = 400 us   [off-cpu S]
 *     3.5 ms  in                 sch delay 3.4-3.5 = 100 us [runqueue]
 *                                 sample S1 @4.0
 *     5.3 ms  out R+, K2         run 3.5-5.3 = 1800 us
 *     5.6 ms  in                 preempted 5.3-5.6 = 300 us [off-cpu R]
 *     5.8 ms  out D, K3          run 5.6-5.8 = 200 us
 *     6.0 ms  W wakes it         blocked 5.8-6.0 = 200 us   [off-cpu D]
 *     6.1 ms  in, runs to the end (open run, not counted); sch delay 6.0-6.1 = 100 us
 *   run time 2000 + 1800 + 200 = 4000 us over 4 samples: S1 (3) 3000 us, S2 (1) 1000 us;
 *   off-CPU 500 + 300 + 300 = 1100 us; on + off = 5100 us = 6.1 ms - 1.0 ms.
 *   worker 101, CPU 1: in at 2.0 ms, out S (no stack) at 2.7 ms and never back: 700 us of
 *   run time and no sample -> "[on-cpu unsampled] 700"; its interval is open at the end.
 */
static void write_profile_trace(void)
{
	uint32_t k1 = st_kstack(&tr, 1), k2 = st_kstack(&tr, 2), k3 = st_kstack(&tr, 3);
	uint32_t s1 = st_kstack(&tr, 4), s2 = st_kstack(&tr, 5);

	st_set_pid(&tr, 101, 100);
	st_comm(&tr, 1000000, 100, 100, "worker");
	st_comm(&tr, 1000000, 100, 101, "worker");
	st_switch(&tr, 1000000, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_sample(&tr, 1500000, 0, 100, s1, 500000);
	st_sample(&tr, 2000000, 0, 100, s1, 500000);
	st_switch(&tr, 2000000, 1, 0, "swapper/1", 0, 101, "worker", 0);
	st_sample(&tr, 2500000, 0, 100, s2, 500000);
	st_switch(&tr, 2700000, 1, 101, "worker", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 3000000, 0, 100, "worker", ST_S, 0, "swapper/0", k1);
	st_wake(&tr, 3400000, 1, W, 100, "worker", 0, 0);
	st_switch(&tr, 3500000, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_sample(&tr, 4000000, 0, 100, s1, 500000);
	st_switch(&tr, 5300000, 0, 100, "worker", ST_RPLUS, 0, "swapper/0", k2);
	st_switch(&tr, 5600000, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_switch(&tr, 5800000, 0, 100, "worker", ST_D, 0, "swapper/0", k3);
	st_wake(&tr, 6000000, 1, W, 100, "worker", 0, 0);
	st_switch(&tr, 6100000, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_round(&tr);
	cr_assert_eq(st_end(&tr, true, 7000000), 0);
}

/*
 * The folded profile of the trace with @o, as text (to free), its kernel frames named by
 * @kallsyms (NULL: none); with @skid, the skid samples (wc_profile_skid()) are set there.
 */
static char *folded_with(const struct wc_profile_opts *o, const char *kallsyms, uint64_t *skid,
			 uint64_t *total, bool *attributed)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	struct wc_analysis *an;
	struct wc_profile *p = wc_profile_new(o);
	struct wc_symbolizer *sym;
	struct wc_out_args args = { .file = "t.wct", .prof = o };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_not_null(p);
	an = wc_analysis_open(tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(an, "%s", oerr);
	cr_assert_eq(wc_analysis_run(an, wc_profile_consumer(p)), 0, "%s", wc_analysis_error(an));
	cr_assert_eq(wc_analysis_facts(an)->start_ns, 1000000);
	sym = wc_symbolizer_new(wc_analysis_tasks(an), kallsyms, kallsyms ? strlen(kallsyms) : 0,
				NULL, NULL);
	cr_assert_not_null(sym);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	args.out = f;
	args.a = an;
	cr_assert_eq(wc_output_run(&wc_output_folded, &args, p, sym, NULL), 0);
	fclose(f);
	if (skid)
		*skid = wc_profile_skid(p, total, attributed);
	wc_symbolizer_free(sym);
	wc_profile_free(p);
	wc_analysis_close(an);
	return text;
}

static char *folded(const struct wc_profile_opts *o)
{
	return folded_with(o, NULL, NULL, NULL, NULL);
}

static void expect_folded(const struct wc_profile_opts *o, const char *want)
{
	char *got = folded(o);

	cr_expect_str_eq(got, want, "got:\n%s\nwanted:\n%s", got, want);
	free(got);
}

#define U ";[unknown]"

/*
 * --mode wall: lines sorted as strings ("[o" < "[r" < "[u"; a line sorts before its
 * extensions), values in us; the numbers are those worked out above write_profile_trace().
 */
Test(folded, wall)
{
	struct wc_profile_opts o = { .mode = WC_MODE_WALL };

	write_profile_trace();
	expect_folded(&o, "worker;[on-cpu unsampled] 700\n"
			  "worker" U ";[off-cpu S] 400\n"
			  "worker" U ";[runqueue] 100\n"
			  "worker" U U ";[off-cpu R] 300\n"
			  "worker" U U U ";[off-cpu D] 200\n"
			  "worker" U U U ";[runqueue] 100\n"
			  "worker" U U U U " 3000\n"
			  "worker" U U U U U " 1000\n");
}

/*
 * --per-thread: keys "worker-100" and "worker-101"; each thread's lines sum to its on + off
 * time: 4000 + 1100 = 5100 us for 100, 700 us (on-CPU only) for 101.
 */
Test(folded, per_thread_sums)
{
	struct wc_profile_opts o = { .mode = WC_MODE_WALL, .per_thread = true };
	uint64_t sum100 = 0, sum101 = 0;
	char *text, *line, *save = NULL;

	write_profile_trace();
	text = folded(&o);
	cr_expect_str_eq(text,
			 "worker-100" U ";[off-cpu S] 400\n"
			 "worker-100" U ";[runqueue] 100\n"
			 "worker-100" U U ";[off-cpu R] 300\n"
			 "worker-100" U U U ";[off-cpu D] 200\n"
			 "worker-100" U U U ";[runqueue] 100\n"
			 "worker-100" U U U U " 3000\n"
			 "worker-100" U U U U U " 1000\n"
			 "worker-101;[on-cpu unsampled] 700\n",
			 "got:\n%s", text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t v = strtoull(strrchr(line, ' ') + 1, NULL, 10);

		if (strncmp(line, "worker-100;", 11) == 0)
			sum100 += v;
		else if (strncmp(line, "worker-101;", 11) == 0)
			sum101 += v;
		else
			cr_expect_fail("unexpected key in %s", line);
	}
	cr_expect_eq(sum100, 5100);
	cr_expect_eq(sum101, 700);
	free(text);
}

/* --mode off: no synthetic leaf, each whole interval under its switch-out stack. */
Test(folded, off)
{
	struct wc_profile_opts o = { .mode = WC_MODE_OFF };

	write_profile_trace();
	expect_folded(&o, "worker" U " 500\n"
			  "worker" U U " 300\n"
			  "worker" U U U " 300\n");
}

/*
 * --state: off mode with "S" keeps the S interval only (500); wall mode with "D" keeps the D
 * interval's two parts (200 + 100) and all the on-CPU lines.
 */
Test(folded, state_filter)
{
	struct wc_profile_opts o = { .mode = WC_MODE_OFF, .filter.states = "S" };

	write_profile_trace();
	expect_folded(&o, "worker" U " 500\n");
	o = (struct wc_profile_opts){ .mode = WC_MODE_WALL, .filter.states = "D" };
	expect_folded(&o, "worker;[on-cpu unsampled] 700\n"
			  "worker" U U U ";[off-cpu D] 200\n"
			  "worker" U U U ";[runqueue] 100\n"
			  "worker" U U U U " 3000\n"
			  "worker" U U U U U " 1000\n");
}

/*
 * -m / -M on interval lengths S 500 us, R 300 us, D 300 us: -m 400 us keeps S; -M 300 us
 * keeps R and D (the bound is inclusive); -m 301 us -M 499 us keeps nothing.
 */
Test(folded, min_max_block)
{
	struct wc_profile_opts o = { .mode = WC_MODE_OFF, .filter.min_block_ns = 400000 };

	write_profile_trace();
	expect_folded(&o, "worker" U " 500\n");
	o = (struct wc_profile_opts){ .mode = WC_MODE_OFF, .filter.max_block_ns = 300000 };
	expect_folded(&o, "worker" U U " 300\n"
			  "worker" U U U " 300\n");
	o = (struct wc_profile_opts){ .mode = WC_MODE_OFF,
				      .filter.min_block_ns = 301000,
				      .filter.max_block_ns = 499000 };
	expect_folded(&o, "");
}

/*
 * --time 0.0025,0.00505: the window [3.5 ms, 6.05 ms] (from the first event at 1 ms).
 *   runs clipped: 1.0-3.0 -> 0; 3.5-5.3 -> 1800; 5.6-5.8 -> 200: 2000 us.  101's run
 *   (2.0-2.7) is outside: no unsampled line.
 *   samples in the window: S1 @4.0 only, so S1 gets all 2000 us.
 *   S interval 3.0-3.5: outside.  R 5.3-5.6: 300.  D 5.8-6.1 woken at 6.0: blocked 200,
 *   sch delay clipped to 6.0-6.05 = 50.
 *   Total 2000 + 300 + 250 = 2550 us = the window's length: worker 100 fills it.
 */
Test(folded, time_window)
{
	struct wc_profile_opts o = {
		.mode = WC_MODE_WALL,
		.filter = { .have_time = true, .start_s = 0.0025, .end_s = 0.00505 }
	};

	write_profile_trace();
	expect_folded(&o, "worker" U U ";[off-cpu R] 300\n"
			  "worker" U U U ";[off-cpu D] 200\n"
			  "worker" U U U ";[runqueue] 50\n"
			  "worker" U U U U " 2000\n");
}

/* A wakeup_new's wait in the wall profile is run-queue time only: no "[off-cpu R]" line. */
Test(folded, wakeup_new_is_runqueue)
{
	struct wc_profile_opts o = { .mode = WC_MODE_WALL };

	/* C (400): forked @1 ms, woken new @1 ms, in @1.25 ms, out S @2 ms and never back:
	 * 250 us of run queue (no stack: "[unknown]"), 750 us unsampled run */
	st_task(&tr, WC_REC_FORK, 1000000, 400, W, 400, W);
	st_comm(&tr, 1000000, 400, 400, "c");
	st_wake_new(&tr, 1000000, 0, W, 400, "c", 1);
	st_switch(&tr, 1250000, 1, 0, "swapper/1", 0, 400, "c", 0);
	st_switch(&tr, 2000000, 1, 400, "c", ST_S, 0, "swapper/1", 0);
	cr_assert_eq(st_end(&tr, true, 3000000), 0);
	expect_folded(&o, "c;[on-cpu unsampled] 750\n"
			  "c" U ";[runqueue] 250\n");
}

/*
 * --waker on write_profile_trace() (no wakeup carries a callchain and the attrs ask for
 * none): the S interval's blocked time 3.0-3.4 ms = 400 us under K1, the D interval's
 * 5.8-6.0 ms = 200 us under K3, both woken by W, named "comm-tid" after "--"; the preempted
 * R interval has no blocked time and no line.  W's comm comes from its COMM record.
 * "-" sorts before "[": the shorter target stack comes first.
 */
Test(folded, waker_without_stacks)
{
	struct wc_profile_opts o = { .mode = WC_MODE_OFF, .waker = true };

	st_comm(&tr, 1000000, W, W, "waker");
	write_profile_trace();
	expect_folded(&o, "worker" U ";--;waker-300 400\n"
			  "worker" U U U ";--;waker-300 200\n");
}

/*
 * A (100, "a") runs from 1.5 ms and sleeps S three times under K1 (depth 1), woken by
 * W ("waker"):
 *   2.0 -> woken 2.3 ms with W's stack K2 (depth 2): blocked 300 us
 *   3.0 -> woken 3.5 ms with no stack:                blocked 500 us
 *   4.0 -> woken 4.2 ms with K2:                      blocked 200 us
 * Some wakeups carry callchains, so waker frames are shown (kernel leaf first), then W's
 * comm: K2 lines merge to 300 + 200 = 500 us; the stackless wakeup gives "--;waker" 500 us.
 * "[" sorts before "w".  -m 400 us filters each blocked time on its own (as offwaketime):
 * only the 500 us one is left.
 */
static void write_waker_trace(void)
{
	uint32_t k1 = st_kstack(&tr, 1), k2 = st_kstack(&tr, 2);

	st_comm(&tr, 1000000, W, W, "waker");
	st_comm(&tr, 1500000, 100, 100, "a");
	st_switch(&tr, 1500000, 0, 0, "swapper/0", 0, 100, "a", 0);
	st_switch(&tr, 2000000, 0, 100, "a", ST_S, 0, "swapper/0", k1);
	st_wake(&tr, 2300000, 1, W, 100, "a", 0, k2);
	st_switch(&tr, 2400000, 0, 0, "swapper/0", 0, 100, "a", 0);
	st_switch(&tr, 3000000, 0, 100, "a", ST_S, 0, "swapper/0", k1);
	st_wake(&tr, 3500000, 1, W, 100, "a", 0, 0);
	st_switch(&tr, 3600000, 0, 0, "swapper/0", 0, 100, "a", 0);
	st_switch(&tr, 4000000, 0, 100, "a", ST_S, 0, "swapper/0", k1);
	st_wake(&tr, 4200000, 1, W, 100, "a", 0, k2);
	st_switch(&tr, 4300000, 0, 0, "swapper/0", 0, 100, "a", 0);
	st_round(&tr);
	cr_assert_eq(st_end(&tr, true, 5000000), 0);
}

Test(folded, waker_with_stacks)
{
	struct wc_profile_opts o = { .mode = WC_MODE_OFF, .waker = true };

	write_waker_trace();
	expect_folded(&o, "a" U ";--" U U ";waker 500\n"
			  "a" U ";--;waker 500\n");
	o = (struct wc_profile_opts){
		.mode = WC_MODE_OFF, .waker = true, .per_thread = true, .annotate = true
	};
	expect_folded(&o, "a-100;[unknown]_[k];--;[unknown]_[k];[unknown]_[k];waker-300 500\n"
			  "a-100;[unknown]_[k];--;waker-300 500\n");
	o = (struct wc_profile_opts){ .mode = WC_MODE_OFF,
				      .waker = true,
				      .filter.min_block_ns = 400000 };
	expect_folded(&o, "a" U ";--;waker 500\n");
}

/*
 * Skid (skid.h): samples that land in finish_task_switch just after their thread's
 * switch-in are the context switch's.  Worker 100 on CPU 0, sampled by cpu-clock (a timer):
 *   1.000 ms  idle -> 100
 *   1.010 ms  sample, leaf finish_task_switch.isra.0, 10 us after the switch-in: skid
 *   1.020 ms  sample, leaf do_work, 20 us after: near the switch-in, but not the switch's
 *   1.500 ms  sample, leaf finish_task_switch.isra.0, 500 us after: past the 50 us window
 *   2.000 ms  out S; trailer at 3 ms
 * The run 1.0-2.0 ms (1000 us) is shared by the three samples: 333333 ns each (333 us).
 * auto (a timer) and scheduler: "worker;[scheduler] 333", "worker;do_work 333", the late
 * one under its stack, 333.  keep: the two finish_task_switch samples under their stack,
 * 666666 ns -> 667.  --no-calibrate: each its period, 1000 us.  Skid: 1 of 3 samples.
 */
static const char skid_kallsyms[] = "ffffffff81000000 T __schedule\n"
				    "ffffffff81000100 t finish_task_switch.isra.0\n"
				    "ffffffff81000200 T do_work\n"
				    "ffffffff81000300 T schedule\n";

Test(folded, skid)
{
	const uint64_t fts[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000108ull, 0xffffffff81000008ull,
				 0xffffffff81000308ull };
	const uint64_t work[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000208ull };
	const char *const want_sched = "worker;[scheduler] 333\n"
				       "worker;do_work 333\n"
				       "worker;schedule;__schedule;finish_task_switch.isra.0 333\n";
	const char *const want_keep = "worker;do_work 333\n"
				      "worker;schedule;__schedule;finish_task_switch.isra.0 667\n";
	const char *const want_raw = "worker;[scheduler] 1000\n"
				     "worker;do_work 1000\n"
				     "worker;schedule;__schedule;finish_task_switch.isra.0 1000\n";
	struct wc_profile_opts o = { .mode = WC_MODE_ON };
	uint32_t k_fts, k_work;
	uint64_t skid, total;
	bool attributed;
	char *got;

	k_fts = st_stack(&tr, fts, 4);
	k_work = st_stack(&tr, work, 2);
	st_comm(&tr, 1000000, 100, 100, "worker");
	st_switch(&tr, 1000000, 0, 0, "swapper/0", 0, 100, "worker", 0);
	st_sample(&tr, 1010000, 0, 100, k_fts, 1000000);
	st_sample(&tr, 1020000, 0, 100, k_work, 1000000);
	st_sample(&tr, 1500000, 0, 100, k_fts, 1000000);
	st_switch(&tr, 2000000, 0, 100, "worker", ST_S, 0, "swapper/0", 0);
	cr_assert_eq(st_end(&tr, true, 3000000), 0);

	for (int k = 0; k < 4; k++) {
		static const enum wc_skid kinds[] = { WC_SKID_AUTO, WC_SKID_SCHEDULER, WC_SKID_KEEP,
						      WC_SKID_AUTO };
		const char *want = k == 2 ? want_keep : k == 3 ? want_raw : want_sched;

		o.skid = kinds[k];
		o.no_calibrate = k == 3;
		got = folded_with(&o, skid_kallsyms, &skid, &total, &attributed);
		cr_expect_str_eq(got, want, "skid %d, got:\n%s\nwanted:\n%s", k, got, want);
		cr_expect_eq(skid, 1, "skid %d: %lu skid samples", k, (unsigned long)skid);
		cr_expect_eq(total, 3);
		cr_expect_eq(attributed, k != 2, "skid %d", k);
		free(got);
	}
}

/* What test_lines() saw: the lines' checks run in the callback, the kinds and ids here. */
struct seen {
	unsigned leaves; /* bit per enum wc_out_leaf */
	unsigned nlines;
	const char *name_of[64]; /* by frame id, the name it was given */
};

/*
 * Each structured line (output.h) against its own folded text: the names joined by ';' are
 * the text; the first frame is the key, named after the thread; the leaf kind agrees with
 * the last frame; a frame id names one name; kernel frames end in "_[k]" (annotate on).
 */
static int check_line(void *ctx, const struct wc_out_line *l)
{
	struct seen *s = ctx;
	char text[1024] = "", key[64];
	const char *last = l->frames[l->nframes - 1].name;
	bool waker = false;

	s->nlines++;
	s->leaves |= 1u << l->leaf;
	cr_assert_gt(l->nframes, 1, "%s", l->folded);
	cr_expect_gt(l->value, 0);
	snprintf(key, sizeof(key), "%s-%u", l->comm, l->tid);
	cr_expect_str_eq(l->frames[0].name, key);
	cr_expect_eq(l->frames[0].flags, WC_FRAME_KEY);
	for (uint32_t i = 0; i < l->nframes; i++) {
		const struct wc_out_frame *f = &l->frames[i];
		size_t n = strlen(f->name);

		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", i ? ";" : "",
			 f->name);
		cr_assert_lt(f->id, 64);
		if (!s->name_of[f->id])
			s->name_of[f->id] = f->name;
		cr_expect_str_eq(s->name_of[f->id], f->name, "frame id %u", f->id);
		cr_expect_eq(!!(f->flags & WC_FRAME_KERNEL),
			     n > 4 && !strcmp(f->name + n - 4, "_[k]"), "%s", f->name);
		cr_expect_eq(!!(f->flags & WC_FRAME_WAKER), waker, "%s", f->name);
		waker = waker || !strcmp(f->name, "--");
	}
	cr_expect_str_eq(text, l->folded);
	switch (l->leaf) {
	case WC_OUT_OFF_STATE:
		cr_expect_eq(strlen(last), 11);
		cr_expect_eq(strncmp(last, "[off-cpu ", 9), 0);
		cr_expect_eq(last[9], l->state);
		break;
	case WC_OUT_RUNQUEUE:
		cr_expect_str_eq(last, "[runqueue]");
		break;
	case WC_OUT_UNSAMPLED:
		cr_expect_str_eq(last, "[on-cpu unsampled]");
		break;
	case WC_OUT_WAKER:
		cr_expect(waker, "%s", l->folded);
		break;
	default:
		cr_expect_eq(l->leaf, WC_OUT_ON_CPU, "%s", l->folded);
		cr_expect(strncmp(last, "[off-cpu ", 9) && strcmp(last, "[runqueue]") &&
				  strcmp(last, "[on-cpu unsampled]"),
			  "%s", l->folded);
	}
	return 0;
}

static struct seen test_lines(const struct wc_profile_opts *o)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	struct wc_profile *p = wc_profile_new(o);
	struct wc_symbolizer *sym;
	struct wc_analysis *an;
	struct seen s = { 0 };

	cr_assert_not_null(p);
	an = wc_analysis_open(tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(an, "%s", oerr);
	cr_assert_eq(wc_analysis_run(an, wc_profile_consumer(p)), 0, "%s", wc_analysis_error(an));
	sym = wc_symbolizer_new(wc_analysis_tasks(an), NULL, 0, NULL, NULL);
	cr_assert_not_null(sym);
	cr_assert_eq(wc_profile_lines(p, an, sym, check_line, &s), 0);
	wc_symbolizer_free(sym);
	wc_profile_free(p);
	wc_analysis_close(an);
	return s;
}

/* The structured lines of the wall profile: one per folded line, every kind of leaf. */
Test(folded, structured_lines)
{
	struct wc_profile_opts o = { .mode = WC_MODE_WALL, .per_thread = true, .annotate = true };
	struct seen s;

	write_profile_trace();
	s = test_lines(&o);
	cr_expect_eq(s.nlines, 8);
	cr_expect_eq(s.leaves, 1u << WC_OUT_ON_CPU | 1u << WC_OUT_UNSAMPLED |
				       1u << WC_OUT_OFF_STATE | 1u << WC_OUT_RUNQUEUE);
}

/* The structured lines of the waker profile: the waker's frames flagged after the "--". */
Test(folded, structured_waker_lines)
{
	struct wc_profile_opts o = {
		.mode = WC_MODE_OFF, .waker = true, .per_thread = true, .annotate = true
	};
	struct seen s;

	write_waker_trace();
	s = test_lines(&o);
	cr_expect_eq(s.nlines, 2);
	cr_expect_eq(s.leaves, 1u << WC_OUT_WAKER);
}
