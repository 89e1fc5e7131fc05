/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads.h - `wcanalyze threads`: per thread, where its wall-clock time went, and how much of
 * it the trace accounts for.
 *
 * For one thread, with the terms of sched.h (perf sched timehist's, builtin-sched.c):
 *
 *   recording's start, if alive then (/proc)              its EXIT, else the recording's end
 *   or its first event (or sched_wakeup_new)                                              |
 *      |<------------------------------ lifetime ------------------------------------->|
 *      | /proc state | run | off-CPU S interval           | run | preempted | run | S ...  |
 *      |             |     |<- blocked: S ->|<- runq ---->|     |<- R ----->|     |        |
 *
 *   on-CPU exact  = sum of the runs, switch-in to switch-out (the last one to the end when the
 *                   thread is on a CPU then)
 *   off-CPU       = S + D + other + R + runq:
 *                   S, D, other: the blocked part (switch-out to wakeup) of the intervals
 *                   that began in state S, D, or another letter (I, T, t, P, X, ...);
 *                   R: the whole interval of a preempted thread (switched out runnable);
 *                   runq: wakeup to switch-in of the other intervals.
 *                   R and runq are both run-queue wait; each interval is counted once.
 *                   An interval still open at the end counts up to the end.  A thread alive
 *                   at the start whose first switch is a switch-in was off-CPU until then, in
 *                   the state wcrec read from /proc/PID/task/TID/stat at the start (blocked
 *                   up to its first wakeup; R counts as preempted); one with no event at all
 *                   was so all along.  That time's stack is "[state from /proc at the start]".
 *   coverage      = (on-CPU exact + off-CPU) / lifetime
 *   sampled       = sum of the thread's CPU samples' periods (samples x period)
 *
 * A thread's events are the sched_switch events it is prev or next of, its CPU samples and
 * its sched_wakeup_new.  Time the thread lived but that no counted run or interval covers is
 * "uncounted" (UNKNOWN), by reason: before its first run or interval (start unseen), between
 * two of them (switches lost or not traced), after the last (open at the end: a thread that
 * exited with its last switch-out not seen).  A trace without sched_switch (wcrec --no-sched)
 * gives lifetimes from the first event to the last only.
 *
 * Everything is aggregated during the replay; symbols are resolved once, at the end, for the
 * threads shown.
 */
#ifndef WC_ANALYZER_THREADS_H
#define WC_ANALYZER_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"

#define WC_THREADS_TOP 3 /* stacks of each kind shown per thread */

/* Coverage outside [LOW, HIGH] flags the thread (per cent). */
#define WC_THREADS_COVERAGE_LOW	 90.0
#define WC_THREADS_COVERAGE_HIGH 110.0

/* The order of the rows (--sort): largest first by the figure named, tid ascending for
 * WC_SORT_TID; ties by on-CPU time (largest first), then tid. */
enum wc_threads_sort {
	WC_SORT_WALL = 0, /* lifetime (the default) */
	WC_SORT_ON,	  /* on-CPU, exact */
	WC_SORT_OFF,	  /* off-CPU */
	WC_SORT_SLEEP,	  /* SLEEP-S + BLOCK-D + OTHER: the blocked part */
	WC_SORT_RUNQ,	  /* PREEMPT-R + RUNQ-WAKE: run-queue wait */
	WC_SORT_TID,
};

struct wc_threads_opts {
	struct wc_filter filter; /* threads and --time; the off-CPU bounds are not used */
	enum wc_unit unit;	 /* of the text table */
	enum wc_threads_sort sort;
};

/**
 * wc_threads_sort_parse() - the key of a --sort argument
 * @name: "wall", "on", "off", "sleep", "runq" or "tid"
 * Return: 0 with *@out set, or -EINVAL for another name.
 */
int wc_threads_sort_parse(const char *name, enum wc_threads_sort *out);

/* One of a thread's top stacks. */
struct wc_threads_stack {
	char *text;	/* frames root first joined by ';', as folded lines are; owned */
	char state;	/* off-CPU: the switch-out state letter ('?' unknown); on-CPU: 0 */
	uint64_t value; /* off-CPU: ns of whole intervals; on-CPU: samples */
};

/* Why part of a lifetime is not counted. */
enum wc_threads_gap { WC_GAP_START = 0, WC_GAP_SWITCHES, WC_GAP_END, WC_GAP_COUNT };

/* One thread's figures; times in ns, within the --time window when one is given. */
struct wc_threads_row {
	uint32_t tid, pid;
	char comm[17];		   /* at the end of the recording (the last name it had) */
	bool exited;		   /* its EXIT record was seen */
	bool is_new;		   /* created during the recording (sched_wakeup_new seen) */
	bool on_cpu_at_end;	   /* its last switch seen put it on a CPU */
	uint64_t start_ns, end_ns; /* the lifetime, absolute times on the recording clock */
	uint64_t lifetime_ns;
	uint64_t on_ns; /* exact: sum of the runs */
	uint64_t runs;
	uint64_t samples, sampled_ns; /* CPU samples and the sum of their periods */
	uint64_t off_ns;	      /* sleep + uninterruptible + other + preempted + runqueue */
	uint64_t sleep_ns;	      /* blocked part of S intervals */
	uint64_t uninterruptible_ns;  /* blocked part of D intervals */
	uint64_t other_ns;	      /* blocked part of intervals in any other state */
	uint64_t preempted_ns;	      /* whole intervals of a preempted thread (R) */
	uint64_t runqueue_ns;	      /* wakeup to switch-in of the non-preempted intervals */
	uint64_t intervals;	      /* off-CPU intervals counted */
	uint64_t voluntary, involuntary; /* switch-outs not runnable / runnable (preempted) */
	uint64_t gap_ns[WC_GAP_COUNT];	 /* uncounted time by reason */
	uint64_t double_out;		 /* switch-outs with no switch-in traced between (sched.c's
					  * double_switch_out, of this thread) */
	uint64_t inferred;		 /* ... of which the switch-in was inferred at the wakeup */
	uint64_t inferred_bound_ns;	 /* how far those switch-ins may be, in all, from where they
					  * were put: ON-CPU and OFF-CPU may each be off by this */
	uint64_t double_in;  /* switch-ins while already on a CPU (switch-out lost; sched.c's
			      * switch_in_running, of this thread) */
	char first_seen;     /* what opened the lifetime: 'i' switch-in, 'o' switch-out,
			      * 's' a sample, 'n' sched_wakeup_new, 'p' /proc at the start */
	bool at_start;	     /* alive when the recording started (/proc) */
	char proc_state;     /* its state then, from /proc; 0 unknown */
	uint64_t proc_ns;    /* off-CPU time before its first switch-in, in the state /proc
			      * gave at the start (part of off_ns) */
	uint64_t unknown_ns; /* lifetime not counted: the sum of gap_ns */
	double coverage;     /* per cent; < 0 when the lifetime is 0 or the trace has no
			      * sched_switch */
	bool flagged;	     /* coverage outside the bounds above */
	struct wc_threads_stack off_top[WC_THREADS_TOP], on_top[WC_THREADS_TOP];
	size_t noff_top, non_top;
};

struct wc_threads;

/**
 * wc_threads_new() - an empty report
 * @o: copied; its filter's lists are borrowed for the report's life
 * Return: the report, or NULL with errno ENOMEM.
 */
struct wc_threads *wc_threads_new(const struct wc_threads_opts *o);

/* wc_threads_free() - free @t and its rows; NULL is a no-op. */
void wc_threads_free(struct wc_threads *t);

/* wc_threads_consumer() - what to pass to wc_analysis_run(); owned by @t. */
const struct wc_analysis_consumer *wc_threads_consumer(struct wc_threads *t);

/**
 * wc_threads_finish() - build the rows after the run: the threads that pass the filter and
 * have time in the recording (or window), in the order of the options' sort key, each with its
 * top off-CPU stacks by time and on-CPU stacks by samples
 * @a:   the analysis that was run with @t's consumer
 * @sym: names the frames
 * Calling it again does nothing.
 * Return: 0 or -ENOMEM.
 */
int wc_threads_finish(struct wc_threads *t, struct wc_analysis *a, struct wc_symbolizer *sym);

/**
 * wc_threads_rows() - the rows wc_threads_finish() built
 * @n: set to their count
 * Return: the rows, owned by @t (NULL when there are none).
 */
const struct wc_threads_row *wc_threads_rows(const struct wc_threads *t, size_t *n);

/**
 * wc_threads_write_text() - the report as a table on @out: header lines with the file, the
 * unit, the lost-event and edge-case counts; one aligned row per thread; then per thread its
 * top stacks and, when flagged, why (man/wcanalyze-threads.1, OUTPUT FORMAT)
 * Return: 0, -ENOMEM, or -EIO when @out failed.
 */
int wc_threads_write_text(struct wc_threads *t, struct wc_analysis *a, struct wc_symbolizer *sym,
			  FILE *out);

/**
 * wc_threads_write_json() - the report as one JSON object on @out (schema in
 * man/wcanalyze-threads.1): the file, lost-event and edge-case counts, and "threads", one
 * object per row, times in ns
 * Return: 0, -ENOMEM, or -EIO when @out failed.
 */
int wc_threads_write_json(struct wc_threads *t, struct wc_analysis *a, struct wc_symbolizer *sym,
			  FILE *out);

/* wc_threads_gap_name() - "start unseen", "switches lost", "open at the end". */
const char *wc_threads_gap_name(enum wc_threads_gap g);

#endif /* WC_ANALYZER_THREADS_H */
