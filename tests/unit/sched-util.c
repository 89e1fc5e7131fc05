/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched-util.c - see sched-util.h. */
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
#include "sched-util.h"

struct st_trace tr;
struct wc_analysis *a;
bool opened;

struct run runs[64];
struct off offs[64];
struct lost losts[64];
size_t nruns, noffs, nlosts;

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

void sched_init(void)
{
	nruns = noffs = nlosts = 0;
	opened = false;
	if (st_begin(&tr)) {
		st_remove(&tr); /* .fini does not run after a failed .init */
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?",
			       getenv("srcdir") ? getenv("srcdir") : ".");
	}
}

void sched_fini(void)
{
	if (opened)
		wc_analysis_close(a);
	opened = false;
	st_remove(&tr);
}

/* Run the pipeline over @path into runs[] / offs[]; @late events are expected dropped. */
void analyse_file(const char *path, uint64_t late)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	a = wc_analysis_open(path, oerr, sizeof(oerr));
	cr_assert_not_null(a, "%s", oerr);
	opened = true;
	cr_assert_eq(wc_analysis_run(a, &recorder), 0, "%s", wc_analysis_error(a));
	cr_assert_eq(wc_analysis_facts(a)->decode_errors, 0);
	cr_assert_eq(wc_replay_stats(wc_analysis_replay(a))->late, late);
}

/* Close the trace with a trailer at @end_ns and analyse it. */
void analyse(uint64_t end_ns)
{
	cr_assert_eq(st_end(&tr, true, end_ns), 0);
	analyse_file(tr.path, 0);
}

void expect_run(size_t i, uint32_t tid, int32_t cpu, uint64_t start, uint64_t end)
{
	cr_assert_lt(i, nruns, "run %zu missing (%zu runs)", i, nruns);
	cr_expect_eq(runs[i].tid, tid, "run %zu tid", i);
	cr_expect_eq(runs[i].cpu, cpu, "run %zu cpu", i);
	cr_expect_eq(runs[i].start, start, "run %zu start %lu", i, (unsigned long)runs[i].start);
	cr_expect_eq(runs[i].end, end, "run %zu end %lu", i, (unsigned long)runs[i].end);
}

/* the off-CPU interval i: its times, state and flags */
const struct wc_off_interval *expect_off(size_t i, uint32_t tid, uint64_t start, uint64_t wake,
					 uint64_t end, char state, bool preempted)
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
 * inferred_by_samples, unknown_dropped, switch_in_running, wakeup_running, wakeup_runnable,
 * wakeup_repeated, wakeup_unknown, no_wakeup, open_off_at_end, open_run_at_end, bad_cpu, stats,
 * stat_intervals, stat_unmatched, stat_repeated.
 */
void expect_counts(struct wc_sched_counts want)
{
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;

#define C(f)                                                                                       \
	cr_expect_eq(c->f, want.f, #f " is %lu, not %lu", (unsigned long)c->f,                     \
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
	C(stats);
	C(stat_intervals);
	C(stat_unmatched);
	C(stat_repeated);
	C(carried);
#undef C
}
