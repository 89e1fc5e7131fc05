/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.h - the two JSON exports of `wcanalyze export` (man/wcanalyze-export.1):
 *
 *  - speedscope's file format (https://www.speedscope.app/file-format-schema.json, from
 *    src/lib/file-format-spec.ts of jlfwong/speedscope): the wall-clock profile of
 *    profile.h, one "sampled" profile per thread whose samples are the thread's folded
 *    lines (root first, indices into shared.frames) and whose weights are their values in
 *    the profile's unit;
 *  - Chrome's trace-event JSON (the "JSON Object Format" of the Trace Event Format document,
 *    read by Perfetto UI and chrome://tracing): per thread, one complete ("ph":"X") slice per
 *    run and per part of each off-CPU interval (blocked time named by its state, sch delay
 *    "Runnable", a preempted interval "Preempted R"), with the off-CPU stack and the waker in
 *    args, and the process and thread names as metadata ("ph":"M") events.  Timestamps and
 *    durations are microseconds from the recording's first event, with three decimals (ns).
 */
#ifndef WC_ANALYZER_EXPORT_H
#define WC_ANALYZER_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"

/**
 * wc_speedscope_write() - profile @p as one speedscope JSON document on @out
 * @p:    a profile made with per_thread set (its lines are keyed "comm-TID"), run through @a
 * @sym:  to name the frames
 * @unit: the profile's unit (wc_profile_opts.unit), speedscope's "microseconds" and so on
 * @name: the document's name (the trace's file name), shown by speedscope
 * @nprofiles: set to the number of thread profiles written (may be NULL)
 *
 * One profile per thread, named "comm-TID (pid PID)" after its last comm, holding the lines
 * of all its comms (folded --per-thread splits a thread at a change of comm); profiles are
 * sorted by process id and thread id; each has startValue 0 and endValue the sum of its
 * weights, as speedscope's importer takes the profile's length from them.
 * Return: 0, -ENOMEM, or -EIO when @out failed.
 */
int wc_speedscope_write(struct wc_profile *p, struct wc_analysis *a, struct wc_symbolizer *sym,
			enum wc_unit unit, const char *name, FILE *out, size_t *nprofiles);

/* What the Chrome export shows. */
struct wc_chrome_opts {
	struct wc_filter filter;     /* threads, --time window, states and interval lengths */
	bool user_only, kernel_only; /* the frames of the stacks in args */
	bool annotate;		     /* kernel frames get "_[k]" */
};

struct wc_chrome;

/**
 * wc_chrome_new() - a Chrome trace-event writer on @out (borrowed)
 *
 * The events are written while the trace is replayed (wc_chrome_consumer()), each stack
 * named once per distinct (address space, stack) and kept as JSON text; wc_chrome_finish()
 * adds the metadata events and closes the document.
 * Return: the writer, or NULL with errno ENOMEM.
 */
struct wc_chrome *wc_chrome_new(const struct wc_chrome_opts *o, FILE *out);

/* wc_chrome_free() - free @c (NULL: nothing); the output is left as it is. */
void wc_chrome_free(struct wc_chrome *c);

/* wc_chrome_consumer() - what to pass to wc_analysis_run(); owned by @c. */
const struct wc_analysis_consumer *wc_chrome_consumer(struct wc_chrome *c);

/**
 * wc_chrome_finish() - after the replay: the process_name and thread_name events of the
 * threads that have slices, the recording's details in otherData, the end of the document
 * Return: 0, -ENOMEM, or -EIO when the output failed.
 */
int wc_chrome_finish(struct wc_chrome *c);

/**
 * wc_chrome_next_file() - between two traces of one document: the names of the threads the
 * trace just replayed gave slices, and the next trace's pids and tids raised by @id_base
 * (--per-file keeps the traces' threads apart: 0 puts a tid of both on one track, as for the
 * files of a rotated recording) and its processes named "comm (@label)" (@label borrowed
 * until the next call; NULL: "comm").  The next trace's slices lie after the first trace's
 * first event by the difference of their wall clocks (wc_chrome_misplaced() counts the
 * traces that begin before it, or have no wall clock: put at its start).
 * Return: 0, or -ENOMEM.
 */
int wc_chrome_next_file(struct wc_chrome *c, uint32_t id_base, const char *label);

/* wc_chrome_misplaced() - traces put at the first trace's start (wc_chrome_next_file()). */
uint64_t wc_chrome_misplaced(const struct wc_chrome *c);

/* wc_chrome_slices() - the number of slices ("ph":"X" events) written so far. */
uint64_t wc_chrome_slices(const struct wc_chrome *c);

/**
 * wc_chrome_window_end() - where a --time window starting at @start_s (seconds from the
 * recording's first event) ends to hold at most @max_slices of the slices written, counted by
 * their starts in steps of 10 ms (longer for a trace past 655 s: 65536 steps at most); the
 * step that holds @start_s counts as a whole, and past the last step, the end of the last
 * one.  Should the counts be missing (out of memory) or the window make no sense, the slices
 * are taken as spread evenly up to @end_s.
 * Return: the end, seconds from the recording's first event; at least the end of the step
 * that holds @start_s, even when that step alone holds more than @max_slices.
 */
double wc_chrome_window_end(const struct wc_chrome *c, double start_s, double end_s,
			    uint64_t max_slices);

/* wc_chrome_threads() - the number of threads with at least one slice. */
uint64_t wc_chrome_threads(const struct wc_chrome *c);

#endif /* WC_ANALYZER_EXPORT_H */
