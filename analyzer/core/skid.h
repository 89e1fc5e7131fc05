/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * skid.h - CPU samples that belong to the context switch, not to the code below it.
 *
 * Without a PMU, wcrec samples on cpu-clock, a per-CPU hrtimer.  The kernel switches tasks
 * with interrupts off (__schedule() takes the runqueue lock with them off, and
 * finish_task_switch() lets them back on), and wcrec's sched_switch events walk a callchain
 * in that stretch; a tick that falls due then is delivered when interrupts come back on, in
 * finish_task_switch(), just after the next task's switch-in.  Its callchain is that task's
 * way into schedule(), so a flame graph blames the code that blocked for time the switch
 * took (figures in wcanalyze(1), NOTES, Scheduler skid).
 *
 * Such a sample is one whose thread was switched in on the sample's CPU at most
 * WC_SKID_WINDOW_NS before it and whose leaf kernel frame is finish_task_switch (any of its
 * compiler clones: finish_task_switch.isra.0, ...).
 */
#ifndef WC_ANALYZER_SKID_H
#define WC_ANALYZER_SKID_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/core/analysis.h"
#include "analyzer/symbols/symbolize.h"

#define WC_SKID_WINDOW_NS 50000 /* after the thread's switch-in on that CPU */

/* The pseudo-frame such a sample stands for in a profile (wcanalyze --skid). */
#define WC_SKID_FRAME "[scheduler]"

/**
 * wc_skid_stack() - is the leaf kernel frame of callchain @stack_id in finish_task_switch?
 * @a:   the analysis whose replay holds the callchain
 * @sym: names the frame
 * Return: true when it is; false for a callchain without kernel frames or an unnamed leaf.
 */
bool wc_skid_stack(const struct wc_analysis *a, struct wc_symbolizer *sym, uint32_t stack_id);

/**
 * wc_skid_count() - the samples of the whole recording that are skid, and the samples they
 * are counted among (those with a thread, the idle task's left out)
 * @a:   after wc_analysis_run()
 * @sym: names the frames
 * @total: set to the samples with a thread
 * Return: the skid samples.
 */
uint64_t wc_skid_count(const struct wc_analysis *a, struct wc_symbolizer *sym, uint64_t *total);

#endif /* WC_ANALYZER_SKID_H */
