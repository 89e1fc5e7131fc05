/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist.h - the event log of `perf sched timehist` (tools/perf/builtin-sched.c) and its
 * summaries, written while the trace is replayed.
 *
 * One row per sched_switch, describing the task switched out (prev) at time t:
 *
 *     switch-out       first wakeup          switch-in                switch-out (t)
 *   ------+-----------------+---------------------+------------------------+---> time
 *         |<------------- wait time ------------->|<------ run time ------>|
 *                           |<---- sch delay ---->|
 *
 * wait time is the whole off-CPU interval before the run (perf's dt_wait: blocked time and
 * sch delay), sch delay its part from the first wakeup to the switch-in (all of it for a task
 * preempted, state R), run time the run that ends at t.  The interval and the run come from
 * the scheduler state machine (sched.h): a value it could not know (the switch-in before the
 * recording, or on a CPU whose switches out of idle are not traced) is "-", never 0.
 * The idle task gets a row per CPU when it is switched out: its run is the idle period, its
 * wait the time since idle was last switched out on that CPU, its sch delay 0.
 *
 * With the summary, per task: runs (sched-in count), run time total, min, mean, max and the
 * relative standard error of the mean as perf computes it (util/stat.c: 100 * sqrt(M2 / (n -
 * 1) / n) / mean), migrations; with state, run time and the wait split by the state of the
 * switch-out that began it (sleep: S and other sleeps, iowait: D, preempt: R) and the sch
 * delay; the tasks that exited (an EXIT record) after the others, under "Terminated tasks:" as
 * perf 6.1 lists them; then per CPU the idle time, and totals.  With idle_hist, the rows are
 * perf's -I rows (the idle task's, and those of the tasks switched out to idle, with no times);
 * each idle period is credited to the task whose switch-out left the CPU idle, and the
 * summary is of those.
 */
#ifndef WC_ANALYZER_TIMEHIST_H
#define WC_ANALYZER_TIMEHIST_H

#include <stdbool.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"

struct wc_timehist_opts {
	struct wc_filter filter; /* threads and --time window; states and bounds unused */
	bool events;		 /* the event rows (perf: all but -s) */
	bool summary;		 /* the summary after them (-s, -S) */
	bool wakeups;		 /* -w: a row per wakeup */
	bool migrations;	 /* -M: a row per sched_migrate_task */
	bool next;		 /* -n: the task switched in */
	bool cpu_visual;	 /* -V: a column per CPU */
	bool state;		 /* --state: the switch-out state; the summary of wait times */
	bool idle_hist;	    /* -I: the switches to and from idle only; idle time credited to the
			     * task that left the CPU idle */
	bool callchain;	    /* the switch-out callchain on each row (perf's -g, default on); off
			     * when the trace's switch events have none (their attr's sample_type) */
	unsigned max_stack; /* frames of it shown, after schedule and the like are hidden */
};

struct wc_timehist;

/**
 * wc_timehist_new() - a timehist report writing to @out
 * @o: options, copied (the filter's lists and @o->paths stay borrowed)
 * Return: the report, or NULL with errno ENOMEM.
 */
struct wc_timehist *wc_timehist_new(const struct wc_timehist_opts *o, FILE *out);

/** wc_timehist_free() - free @th and its symbolizer; NULL is a no-op */
void wc_timehist_free(struct wc_timehist *th);

/**
 * wc_timehist_consumer() - what to pass to wc_analysis_run(); owned by @th
 *
 * Its begin() writes the header and returns -ENOENT when the trace has no sched_switch
 * (nothing to report: wc_analysis.have_switch says so); the rows are written as the events
 * come.  The other errors are -ENOMEM, and -EIO when @out failed.
 */
const struct wc_analysis_consumer *wc_timehist_consumer(struct wc_timehist *th);

/**
 * wc_timehist_finish() - after the replay, the summary (when asked) and the footer line:
 * the events lost in recording and the edge cases that left values unknown
 * @a: the analysis that was run with this report
 * Return: 0, -ENOMEM, or -EIO when the output failed (also for a failure during the rows).
 */
int wc_timehist_finish(struct wc_timehist *th, struct wc_analysis *a);

/**
 * wc_timehist_flush() - write out the rows still buffered, without summary nor footer (for a
 * trace found damaged: what came before the damage)
 * Return: 0, or -EIO when the output failed.
 */
int wc_timehist_flush(struct wc_timehist *th);

#endif /* WC_ANALYZER_TIMEHIST_H */
