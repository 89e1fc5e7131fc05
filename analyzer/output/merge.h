/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.h - the profile lines of several analyses (consecutive files of a rotated recording,
 * one file per host) merged into one profile, for any output of the table (output.h).
 *
 *   in   wc_out_merge_file() before each analysis' lines, then its lines through
 *        wc_out_merge_line(), the callback of wc_profile_lines(), their values in ns;
 *   out  wc_out_merge_run(): the merged lines to an output row, in the folded text's order
 *        (strcmp, then thread id), their values in the unit asked for, rounded as one
 *        profile's are (a line under half a unit left out).
 *   rule lines are merged by their text, and with split by their thread id too (a tid names
 *        one thread across consecutive files; across hosts, lines of equal text and tid
 *        merge: --per-file keeps hosts apart).  A merged line has its first line's thread,
 *        comms and frames' files; its ns and counts are summed.
 *   ownership: everything is copied in; the lines handed out are valid for the call.
 */
#ifndef WC_ANALYZER_MERGE_H
#define WC_ANALYZER_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "analyzer/output/output.h"

struct wc_out_merge;

/**
 * wc_out_merge_new() - an empty merge; @split: lines of different threads kept apart
 * (wc_output_ops.split)
 * Return: it, or NULL out of memory.
 */
struct wc_out_merge *wc_out_merge_new(bool split);

/**
 * wc_out_merge_file() - the lines that follow come from an analysis whose frames' dso
 * indices name @dsos (@ndsos of them, tasks.h; copied); with @label (--per-file: a file's
 * name), each of them gets @label as a first frame, before its key
 * Return: 0 or -ENOMEM.
 */
int wc_out_merge_file(struct wc_out_merge *m, const struct wc_dso *dsos, size_t ndsos,
		      const char *label);

/**
 * wc_out_merge_line() - add line @l (its value in ns) to merge @ctx
 * Return: 0 or -ENOMEM.
 */
int wc_out_merge_line(void *ctx, const struct wc_out_line *l);

/**
 * wc_out_merge_run() - feed the merged lines to output @ops, in @unit, and let it write
 * @args: as for wc_output_run(), but args->a NULL and its dsos those of the merge; its span
 *        the caller's
 * @res:  set to what was written (may be NULL)
 * Return: 0, -ENOMEM, or -EIO when the output failed.
 */
int wc_out_merge_run(struct wc_out_merge *m, const struct wc_output_ops *ops,
		     const struct wc_out_args *args, enum wc_unit unit, struct wc_out_result *res);

/* wc_out_merge_free() - free @m (NULL: nothing). */
void wc_out_merge_free(struct wc_out_merge *m);

#endif /* WC_ANALYZER_MERGE_H */
