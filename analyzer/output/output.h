/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.h - the profile outputs: one table of formats, each fed the wall-clock profile's
 * lines as structures, never as text to parse back.
 *
 * The seam:
 *   in   a struct wc_out_line per distinct line of the profile (profile.h), in the folded
 *        text's order (strcmp of the lines, equal lines merged): the thread it is keyed by,
 *        its frames root first as interned ids with their names and kind flags, what kind of
 *        leaf ends it, its value in the profile's unit, and its folded text;
 *   out  the format's document on the FILE of struct wc_out_args.
 *   ownership: everything a line points to is borrowed for the call to ops->line() (names:
 *        until the profile is freed); the FILE and the strings of the args are the caller's;
 *        the state a row's begin() makes is freed by its end(), called once whatever failed.
 *
 * Adding an output format is one file plus one table row: write NAME.c with static
 * begin/line/end functions and one `const struct wc_output_ops wc_output_NAME`, declare it
 * below, add it to wc_outputs[] in output.c and the file to Makefile.am.  `wcanalyze export
 * --format NAME` takes it then; a subcommand of its own is a cmd-*.c that calls
 * wc_output_run() with it.
 */
#ifndef WC_ANALYZER_OUTPUT_H
#define WC_ANALYZER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"

struct wc_dso;
struct wc_flamegraph_opts;

/* What a frame is (struct wc_out_frame.flags). */
enum {
	WC_FRAME_KERNEL = 1, /* a kernel function (its name ends in "_[k]" with --annotate) */
	WC_FRAME_USER = 2,   /* a user function, or the [truncated] / [unwind failed] marker */
	WC_FRAME_INLINE = 4, /* a user call inlined into the frame before it (root side) or, on the
			      * waker's side, after it (--inline) */
	WC_FRAME_KEY = 8,    /* the line's key: "comm", or "comm-TID" per thread */
	WC_FRAME_SYNTH = 16, /* made by the profile: [unknown], "-", "--", a leaf, a waker key */
	WC_FRAME_WAKER = 32, /* on the waker's side of a "--" frame (the "--" not included) */
};

struct wc_out_frame {
	uint32_t id;	  /* the interned name: equal ids, equal names, within one profile */
	uint32_t flags;	  /* WC_FRAME_* */
	const char *name; /* as in the folded text (with "_[k]" under --annotate), NUL-terminated */
	uint32_t dso;	  /* a user frame's mapped file, index in wc_out_args.dsos + 1;
			   * 0: none known, or not a user frame.  Lines merged by their text
			   * have the first one's. */
};

/* What ends a line. */
enum wc_out_leaf {
	WC_OUT_ON_CPU,	  /* on-CPU time of a sampled stack */
	WC_OUT_SCHEDULER, /* on-CPU skid shown as comm;[scheduler] (skid.h) */
	WC_OUT_UNSAMPLED, /* run time of a thread never sampled: [on-cpu unsampled] */
	WC_OUT_OFF_STATE, /* blocked time, last frame "[off-cpu X]" (X: the state) */
	WC_OUT_RUNQUEUE,  /* run-queue latency: [runqueue] */
	WC_OUT_OFF,	  /* off-CPU time with no leaf frame (--mode off) */
	WC_OUT_WAKER,	  /* blocked time by waker (--waker): the waker's frames end it */
};

struct wc_out_line {
	uint32_t tid, pid;		   /* the thread the line is keyed by */
	const char *comm;		   /* its comm then ("[unknown]" when none) */
	const char *thread_comm;	   /* the thread's last comm, NULL when none is known */
	const char *proc_comm;		   /* its process leader's last comm, NULL: none known */
	const struct wc_out_frame *frames; /* root first: the key frame, then the stack */
	uint32_t nframes;
	enum wc_out_leaf leaf;
	char state;	    /* WC_OUT_OFF_STATE: the switch-out state letter */
	uint64_t value;	    /* in the profile's unit, never 0 */
	uint64_t count;	    /* the CPU samples it holds (on-CPU lines; 0 for [on-cpu
			     * unsampled]), or its off-CPU intervals */
	const char *folded; /* the frames' names joined by ';', no value */
};

/* The span of time a profile covers: the recording's, or its --time window's. */
struct wc_out_span {
	uint64_t wall_ns;     /* its start, ns since the Epoch (CLOCK_REALTIME); 0: unknown */
	uint64_t duration_ns; /* its length */
};

/* What an output knows before its first line. */
struct wc_out_args {
	FILE *out;		   /* borrowed */
	struct wc_analysis *a;	   /* the analysis that was run with the profile (NULL:
				    * several merged, merge.h) */
	const char *file;	   /* the trace's path (several: a phrase naming them) */
	const struct wc_dso *dsos; /* the mapped files the frames' dso index; NULL:
				    * wc_output_run() takes the analysis's (tasks.h) */
	size_t ndsos;
	struct wc_out_span span;	    /* pprof's times; all 0: wc_output_run() takes the
					     * analysis's (wc_out_span_of()) */
	const struct wc_profile_opts *prof; /* the profile's options: unit, mode, waker */
	bool fleet;			    /* pprof: no pid and tid labels (--fleet) */
	/* pprof: the kernel's build-id, hex (wc_analysis_kernel_build_id()); "": unknown, or
	 * several files of different kernels; "" with args->a: wc_output_run() takes its */
	char kernel_build_id[2 * WC_BUILD_ID_MAX + 1];
	const struct wc_flamegraph_opts
		*svg; /* the SVG's options (NULL: the defaults); its title
		       * (NULL: by mode), subtitle, legend, countname and off_cpu are the row's */
};

/* What an output wrote (struct wc_output_ops.end). */
struct wc_out_result {
	size_t lines; /* lines fed to it */
	size_t items; /* its own unit: speedscope's profiles, the SVG's total (0: empty) */
};

/* One output format: a row of wc_outputs[]. */
struct wc_output_ops {
	const char *name; /* `export --format NAME` */
	const char *help; /* one line for the usage */
	bool per_thread;  /* it wants lines keyed "comm-TID" (wc_profile_opts.per_thread) */
	bool annotate;	  /* it wants kernel frames named "_[k]" (but with -U) */
	bool split;	  /* it wants the lines of each thread apart (split_threads) */
	bool ns;	  /* it wants its values in ns, whatever --unit says */
	/* begin() - make the state in *@state.  Return: 0 or -errno (-ENOMEM). */
	int (*begin)(const struct wc_out_args *args, void **state);
	/* line() - one line, in order.  Return: 0 or -errno; non-zero stops the lines. */
	int (*line)(void *state, const struct wc_out_line *l);
	/* end() - write the document when @write (0 lines: an empty one), then free @state.
	 * Return: 0, -ENOMEM, or -EIO when the output failed. */
	int (*end)(void *state, bool write, struct wc_out_result *res);
};

extern const struct wc_output_ops wc_output_folded, wc_output_svg, wc_output_speedscope,
	wc_output_pprof;

/* The table, NULL-terminated, in the order the usage lists them. */
extern const struct wc_output_ops *const wc_outputs[];

/* wc_output_find() - the row named @name.  Return: it, or NULL. */
const struct wc_output_ops *wc_output_find(const char *name);

/**
 * wc_out_span_of() - the span of the recording analysed in @a, or of the --time window of
 * @o within it (profile.h): its start as wall-clock time from the trace's CLOCK record
 * (0 when the trace has none) and its length in ns
 */
struct wc_out_span wc_out_span_of(struct wc_analysis *a, const struct wc_profile_opts *o);

/**
 * wc_output_begin() - @ops's state in *@state for the lines to come, as wc_output_run() makes
 * it: the args' dsos and span taken from args->a when not set
 * Return: 0 or -errno (-ENOMEM); on error nothing to end.
 */
int wc_output_begin(const struct wc_output_ops *ops, const struct wc_out_args *args, void **state);

/**
 * wc_output_run() - feed the lines of profile @p to output @ops and let it write
 * @p:    a profile run through args->a; its options should have the row's per_thread and
 *        annotate wishes
 * @sym:  to name the frames
 * @res:  set to what was written (may be NULL)
 * Return: 0, -ENOMEM, or -EIO when the output failed.
 */
int wc_output_run(const struct wc_output_ops *ops, const struct wc_out_args *args,
		  struct wc_profile *p, struct wc_symbolizer *sym, struct wc_out_result *res);

#endif /* WC_ANALYZER_OUTPUT_H */
