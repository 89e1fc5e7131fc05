/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist.h - `wcanalyze hist`: log2 histograms of off-CPU interval lengths (BCC cpudist -O),
 * run-queue latency (BCC runqlat) and on-CPU run lengths (BCC cpudist), of all the threads
 * together, per process (-P) or per thread (-L), printed in the layout of BCC libbpf-tools'
 * print_log2_hist() (libbpf-tools/trace_helpers.c), or as JSON.
 *
 * What each kind measures, on one thread's timeline (struct wc_off_interval, sched.h):
 *
 *   switch-out           wakeup              switch-in            switch-out
 *    ----+------------------+--------------------+---------------------+---->  time
 *        start_ns           wake_ns              end_ns
 *        |<---------- off (cpudist -O) --------->|<--- on (cpudist) -->|
 *                           |<- runq (runqlat) ->|
 *
 *   off   end_ns - start_ns of every off-CPU interval, whatever its state: cpudist -O stores
 *         the time at the switch-out (prev) and takes the difference at the switch-in (next).
 *   runq  end_ns - wake_ns: runqlat stores the time at the wakeup, or at the switch-out of a
 *         task switched out runnable (preempted, R), and at sched_wakeup_new; for a preempted
 *         task wake_ns is start_ns, so its whole interval counts.
 *   on    switch-in to switch-out of every run (the runs of the state machine's run sink).
 *
 * A value is the length in the unit, truncated as BCC truncates (ns / 1000 for usecs), and
 * goes to slot log2l(value): floor(log2(value)), 0 for 0 (libbpf-tools/bits.bpf.h).  Slot i
 * covers [2^i, 2^(i+1) - 1] and slot 0 [0, 1]; BCC prints them so.
 */
#ifndef WC_ANALYZER_HIST_H
#define WC_ANALYZER_HIST_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/reports/profile.h"

#define WC_HIST_SLOTS 64 /* log2 slots of a u64: no value is capped (BCC caps at 26 or 36) */

enum wc_hist_kind { WC_HIST_OFF = 0, WC_HIST_RUNQ, WC_HIST_ON };
enum wc_hist_per { WC_HIST_ALL = 0, WC_HIST_PROCESS, WC_HIST_THREAD };

struct wc_hist_opts {
	enum wc_hist_kind kind;
	enum wc_hist_per per;
	enum wc_unit unit; /* us, ms or ns: the values' unit, "usecs", "msecs", "nsecs" */
	/*
	 * Which threads (wc_filter_thread()); with have_time, the values whose interval or run
	 * ends (switch-in, or switch-out for a run) inside [start, end), whole, as a BCC tool
	 * run for that time counts them at the end; states: off and runq by the interval's
	 * switch-out state, on by the state of the switch-out that ends the run; min/max
	 * block: off only, on the whole interval in ns.
	 */
	struct wc_filter filter;
};

/* What the histograms hold and what they left out, of the threads and times that pass. */
struct wc_hist_counts {
	uint64_t counted;   /* values in the histograms */
	uint64_t inferred;  /* intervals closed by a switch-in that was not traced but inferred
			     * (sched.c); off and on count them (on the run after it); runq leaves
			     * them out: their latency was not measured */
	uint64_t no_wakeup; /* runq: sleeps with no wakeup seen, no latency: left out */
	uint64_t new_task;  /* first waits of new tasks, sched_wakeup_new to the first switch-in:
			     * runq counts them (runqlat does); off leaves them out (no
			     * switch-out) */
};

struct wc_hist;

/**
 * wc_hist_new() - empty histograms of @o's kind
 * @o: copied; its filter's lists and strings are borrowed and must outlive the histograms
 * Return: the histograms, or NULL with errno ENOMEM.
 */
struct wc_hist *wc_hist_new(const struct wc_hist_opts *o);

/* wc_hist_free() - free @h; NULL is a no-op. */
void wc_hist_free(struct wc_hist *h);

/* wc_hist_consumer() - what to pass to wc_analysis_run(); owned by @h. */
const struct wc_analysis_consumer *wc_hist_consumer(struct wc_hist *h);

/* wc_hist_counts() - what the run so far counted and left out; owned by @h. */
const struct wc_hist_counts *wc_hist_counts(const struct wc_hist *h);

/**
 * wc_hist_write_text() - the report on @out: a line saying what is measured, a blank line,
 * the histograms as BCC prints them (with -P/-L each after "\npid = PID COMM\n" or
 * "\ntid = TID COMM\n", by increasing PID or TID), a blank line and a line of counts (what
 * was counted and left out, events lost, the trace's edge cases)
 * @a: the analysis that was run with @h
 * Return: 0, -ENOMEM, or -EIO when @out failed.
 */
int wc_hist_write_text(struct wc_hist *h, const struct wc_analysis *a, FILE *out);

/**
 * wc_hist_write_json() - the same as one JSON object on @out (see man/wcanalyze-hist.1):
 * file, kind, unit, per, truncated, histograms (pid or tid, comm, count, sum_ns and the
 * buckets low, high, count as the text rows) and counts
 * Return: 0, -ENOMEM, or -EIO when @out failed.
 */
int wc_hist_write_json(struct wc_hist *h, const struct wc_analysis *a, FILE *out);

/**
 * wc_hist_slot() - the log2 slot of @value: floor(log2(@value)), 0 for 0 and 1, as
 * log2l() of libbpf-tools/bits.bpf.h.  Return: 0..63.
 */
unsigned int wc_hist_slot(uint64_t value);

/**
 * wc_hist_print_log2() - @vals (@nvals slots, at most WC_HIST_SLOTS) on @out, byte for byte
 * as print_log2_hist() of libbpf-tools/trace_helpers.c prints them: nothing when all are 0;
 * else the header "     @val_type               : count    distribution" and the slots up to
 * the last non-zero one, "%10llu -> %-10llu : %-8llu |" with a bar of 40 characters; past
 * slot 32, the wider layout (20 characters a bound, a bar of 20).
 * BCC's counts are unsigned int and its bar arithmetic overflows above 107374182; here they
 * are 64-bit and exact.
 * Return: 0, or -EIO when @out failed.
 */
int wc_hist_print_log2(FILE *out, const uint64_t *vals, int nvals, const char *val_type);

#endif /* WC_ANALYZER_HIST_H */
