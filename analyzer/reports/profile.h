/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.h - the wall-clock profile: off-CPU intervals and on-CPU time of the same threads,
 * aggregated during the replay by (thread segment, stack id, leaf) and handed to the outputs
 * (output.h) as lines, each the frames of a folded stack (FlameGraph's and BCC's format:
 * "frame;frame;...;frame VALUE", root first) with what they are.
 *
 * On-CPU time: with scheduler events, each thread's exact run time (switch-in to switch-out)
 * is shared among its sampled stacks in proportion to their samples, so its on-CPU lines sum
 * to its run time; a thread that ran but was never sampled gets one "[on-cpu unsampled]"
 * line.  Without scheduler events, or with calibrate off, a sample weighs its period.
 * A thread segment is a thread under one comm and one address space: an exec starts a new one.
 *
 * With the waker option the profile is BCC offwaketime's instead: each S or D interval's
 * blocked time (switch-out to the wakeup that ended it) keyed by the target's off-CPU stack
 * and the waker's stack at the wakeup, written in FlameGraph's `--colors chain` layout:
 *   target comm;target user frames;target kernel frames;--;waker kernel frames (leaf to
 *   root);waker user frames (leaf to root);waker comm VALUE
 * A trace recorded without wakeup callchains gives the waker's "comm-tid" after "--".
 */
#ifndef WC_ANALYZER_PROFILE_H
#define WC_ANALYZER_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/core/callchain.h"
#include "analyzer/symbols/symbolize.h"

enum wc_profile_mode { WC_MODE_WALL = 0, WC_MODE_OFF, WC_MODE_ON };
enum wc_unit { WC_UNIT_US = 0, WC_UNIT_MS, WC_UNIT_NS };

/* Which threads and intervals count; shared by the analysis subcommands. */
struct wc_filter {
	const uint32_t *pids, *tids; /* NULL: any */
	size_t npids, ntids;
	const char *comm; /* NULL: any */
	bool have_time;
	double start_s, end_s; /* seconds from the recording's first event */
	const char *states;    /* switch-out state letters to keep ("SD"); NULL: all */
	uint64_t min_block_ns, max_block_ns; /* off-CPU interval length bounds; max 0: none */
	bool all_tasks;			     /* ignore the recording's target (COMMAND, -p) */
};

/* What becomes of the on-CPU samples that belong to the context switch (skid.h). */
enum wc_skid {
	WC_SKID_AUTO = 0,  /* [scheduler] when the sampling event is a timer (no PMU), else keep */
	WC_SKID_SCHEDULER, /* their line is comm;[scheduler], whatever the event */
	WC_SKID_KEEP,	   /* their own stacks */
};

struct wc_profile_opts {
	enum wc_profile_mode mode;
	enum wc_skid skid;
	struct wc_filter filter;
	bool per_thread;   /* key by "comm-tid" instead of comm */
	bool no_calibrate; /* on-CPU time from sample periods even with scheduler events */
	bool user_only, kernel_only;
	bool delimiter;	    /* a "-" frame between user and kernel frames */
	bool annotate;	    /* kernel frames get "_[k]" */
	bool waker;	    /* offwaketime: blocked time by target and waker stacks */
	bool split_threads; /* lines of different threads stay apart though their text is equal */
	enum wc_unit unit;
};

struct wc_profile;
struct wc_out_line;

/* wc_profile_new() - an empty profile.  Return: it, or NULL with errno ENOMEM. */
struct wc_profile *wc_profile_new(const struct wc_profile_opts *o);
void wc_profile_free(struct wc_profile *p);

/* wc_profile_consumer() - what to pass to wc_analysis_run(); owned by @p. */
const struct wc_analysis_consumer *wc_profile_consumer(struct wc_profile *p);

/**
 * wc_profile_skid() - after wc_profile_lines(): the on-CPU samples of
 * the threads shown that are skid (skid.h), and all their on-CPU samples
 * @attributed: set to whether the skid went to [scheduler] lines
 * Return: the skid samples; *@total their count among.
 */
uint64_t wc_profile_skid(const struct wc_profile *p, uint64_t *total, bool *attributed);

/**
 * wc_profile_lines() - the profile's lines, sorted by their folded text, equal lines merged
 * (with split_threads, those of one thread only: sorted by text, then thread id), to @line
 * (output.h: the seam between the profile and its outputs)
 * @line: called once per distinct line whose value in the profile's unit is not 0, with the
 *        line as a structure (its thread, its frames root first as interned ids, names and
 *        flags, its kind of leaf, its value, and its folded text without the value); all of
 *        it borrowed for the call, the names until the profile is freed; a non-zero return
 *        stops the walk and is returned
 * Lines whose value rounds to 0 in the unit are left out.
 * Return: 0, -ENOMEM, or what @line returned.
 */
int wc_profile_lines(struct wc_profile *p, struct wc_analysis *a, struct wc_symbolizer *sym,
		     int (*line)(void *ctx, const struct wc_out_line *l), void *ctx);

/**
 * wc_profile_user_kinds() - after wc_profile_lines(): the off-CPU time of
 * the profile's lines (blocked and run-queue; not the waker profile's), ns, in @ns by how
 * complete their user stacks are (enum wc_user_stack: none, whole, [truncated], [unwind
 * failed])
 */
void wc_profile_user_kinds(const struct wc_profile *p, uint64_t ns[WC_USER_KINDS]);

/**
 * wc_profile_waker_stacks() - after the run, whether the trace had callchains on wakeups
 * (wcrec --waker-stacks); without them the waker profile names wakers by comm and tid only.
 */
bool wc_profile_waker_stacks(const struct wc_profile *p);

/* A --time window on the trace's clock: [t0, t1), ns; [0, UINT64_MAX) without one. */
struct wc_window {
	uint64_t t0, t1;
};

/**
 * wc_filter_window() - @f's --time window for a recording whose first event is at @start_ns:
 * from start_s seconds after it to end_s seconds after it (end_s <= 0: to the end)
 */
struct wc_window wc_filter_window(const struct wc_filter *f, uint64_t start_ns);

/* wc_window_clip() - the length of [@a, @b) inside @w, ns; 0 when none of it is. */
static inline uint64_t wc_window_clip(struct wc_window w, uint64_t a, uint64_t b)
{
	if (a < w.t0)
		a = w.t0;
	if (b > w.t1)
		b = w.t1;
	return b > a ? b - a : 0;
}

/* wc_filter_thread() - whether @t passes @f (and the target rule) in analysis @a. */
bool wc_filter_thread(const struct wc_filter *f, const struct wc_analysis *a,
		      const struct wc_thread *t);

/* wc_unit_ns() - ns in one @u; wc_unit_name() - "us", "ms", "ns". */
uint64_t wc_unit_ns(enum wc_unit u);
const char *wc_unit_name(enum wc_unit u);

#endif /* WC_ANALYZER_PROFILE_H */
