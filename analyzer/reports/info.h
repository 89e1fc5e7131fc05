/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info.h - `wcanalyze info`: what a trace holds, and the edge cases its replay met. */
#ifndef WC_ANALYZER_INFO_H
#define WC_ANALYZER_INFO_H

#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/core/callchain.h"
#include "analyzer/symbols/symbolize.h"

/* What the info report gathers as the trace is replayed (wc_info_consumer()). */
struct wc_info_acc {
	const struct wc_analysis *a;
	/* off-CPU time of closed intervals, ns, by how complete their switch-out's user stack
	 * is (enum wc_user_stack) */
	uint64_t user_ns[WC_USER_KINDS];
};

/**
 * wc_info_consumer() - set @c to gather into @acc (zeroed by the caller, and kept while @c is
 * used) during wc_analysis_run()
 */
void wc_info_consumer(struct wc_info_acc *acc, struct wc_analysis_consumer *c);

/**
 * wc_info_span_write() - "FROM UNTIL\n" on @out: the Unix seconds (UTC, CLOCK_REALTIME) of the
 * recording's start, rounded down, and of its end, rounded up, as Pyroscope's /ingest takes
 * them (from, until)
 * Return: 0, or -ENODATA when the trace does not map its clock to wall time (nothing written).
 */
int wc_info_span_write(const struct wc_analysis *a, FILE *out);

/**
 * wc_info_write() - the info report of analysis @a (run already) on @out
 * @acc: what the run gathered (wc_info_consumer()); NULL leaves its lines out
 * @sym: names kernel frames for the skid line (skid.h); NULL leaves the line out
 * Return: 0, or -EIO when @out failed.
 */
int wc_info_write(const struct wc_analysis *a, const struct wc_info_acc *acc,
		  struct wc_symbolizer *sym, FILE *out);

/**
 * wc_info_warn_counts() - one line on @err when events were lost, late or undecodable, or
 * off-CPU intervals were dropped, and one when tracepoint formats were left out; nothing
 * otherwise
 */
void wc_info_warn_counts(const struct wc_analysis *a, FILE *err);

/**
 * wc_info_counts_line() - one line on @err, always: events lost in recording, late and
 * undecodable, switch-ins not traced, inferred and dropped ("warning:" when any count but the
 * inferred ones is not 0); and one when tracepoint formats were left out.  For outputs with
 * no room for a footer (folded lines).
 */
void wc_info_counts_line(const struct wc_analysis *a, FILE *err);

/**
 * wc_info_note_stat() - one line on @out, after @prefix, when off-CPU intervals came from
 * sched_stat delays because their switch-ins were not recorded (sched.h); nothing otherwise
 */
void wc_info_note_stat(const struct wc_analysis *a, const char *prefix, FILE *out);

#endif /* WC_ANALYZER_INFO_H */
