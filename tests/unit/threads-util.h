/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads-util.h - the fixture and helpers of the `wcanalyze threads` tests (test-threads.c,
 * test-threads-life.c): one hand-built trace per test (sched-trace.h) with the stacks below,
 * its report with the kernel symbols of those stacks, its output, and the figures of a row
 * checked in us.
 *
 * Kernel symbols, as /proc/kallsyms lists them: __schedule at 0xffffffff81000000, schedule
 * ...100, do_nanosleep ...200, io_schedule ...300, preempt_schedule_irq ...400, spin_loop
 * ...500, do_work ...600, entry_SYSCALL_64 ...700 (and some_data ...800, a data symbol).
 * Stacks, leaf first: the switch-out stacks tt_k_sleep, tt_k_io and tt_k_preempt (their texts,
 * root first, T_SLEEP, T_IO and T_PREEMPT); the sample stacks tt_s_spin = [spin_loop,
 * do_work], tt_s_spin2 (other addresses in the same two functions: the same text) and
 * tt_s_work = [do_work].
 */
#ifndef WC_TESTS_THREADS_UTIL_H
#define WC_TESTS_THREADS_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/symbols/symbolize.h"
#include "analyzer/reports/threads.h"
#include "sched-trace.h"

/* the waker, which only gives context to wakeups (it is never switched), and a us in ns */
#define W  300
#define US 1000ull /* ns */

/* the texts of the switch-out stacks, root first */
#define T_SLEEP	  "entry_SYSCALL_64;do_nanosleep;schedule;__schedule"
#define T_IO	  "entry_SYSCALL_64;io_schedule;__schedule"
#define T_PREEMPT "spin_loop;preempt_schedule_irq;__schedule"

/* The trace of the test: tt_init() begins it, tt_fini() removes it. */
extern struct st_trace tt_tr;

/* The analysis of the last report: valid from tt_report() or tt_report_file() to tt_reset()
 * or tt_fini(). */
extern struct wc_analysis *tt_an;

/* The stack ids of the stacks above in tt_tr, set by tt_make_stacks(). */
extern uint32_t tt_k_sleep, tt_k_io, tt_k_preempt, tt_s_spin, tt_s_spin2, tt_s_work;

/*
 * tt_init() - the suite's .init: a new trace in tt_tr with its metadata (st_begin()) and the
 * stacks (tt_make_stacks()), and no report yet.  Fails the test when the metadata cannot be
 * written (no testdata/formats/linux-6.18 under $srcdir).
 */
void tt_init(void);

/* tt_fini() - the suite's .fini: free the last report (if any) and remove tt_tr's file. */
void tt_fini(void);

/*
 * tt_make_stacks() - write the STACK records of the six stacks above into tt_tr and set their
 * ids; after st_begin(), before the events that name them.
 */
void tt_make_stacks(void);

/*
 * tt_report_file() - analyse the trace at @path with @o and finish the report with the kernel
 * symbols above; asserts that each step succeeds and that no event was undecodable.
 * Return: the rows, *@n of them, valid until tt_reset() or tt_fini().
 */
const struct wc_threads_row *tt_report_file(const char *path, const struct wc_threads_opts *o,
					    size_t *n);

/*
 * tt_report() - close tt_tr with a trailer at @end_us (us) and tt_report_file() it.
 * Return: as tt_report_file().
 */
const struct wc_threads_row *tt_report(uint64_t end_us, const struct wc_threads_opts *o, size_t *n);

/* tt_reset() - free the last report, to run another over the same file (which stays). */
void tt_reset(void);

/*
 * tt_output() - after a report, what @write (wc_threads_write_text or wc_threads_write_json)
 * prints of it; asserts that it succeeds.  Return: the text, which the caller frees.
 */
char *tt_output(int (*write)(struct wc_threads *, struct wc_analysis *, struct wc_symbolizer *,
			     FILE *));

/*
 * tt_expect_times() - expect @r's lifetime (@life), on-CPU (@on), off-CPU (@off) and the
 * off-CPU columns SLEEP-S (@s), BLOCK-D (@d), OTHER (@other), PREEMPT-R (@pre) and RUNQ-WAKE
 * (@runq), all in us; and that the columns sum to the off-CPU total.
 */
void tt_expect_times(const struct wc_threads_row *r, uint64_t life, uint64_t on, uint64_t off,
		     uint64_t s, uint64_t d, uint64_t other, uint64_t pre, uint64_t runq);

/*
 * tt_expect_gaps() - expect @r's uncounted time by reason, in us: start unseen (@start),
 * switches lost (@switches), open at the end (@end); and that on-CPU + off-CPU + uncounted
 * make the lifetime.
 */
void tt_expect_gaps(const struct wc_threads_row *r, uint64_t start, uint64_t switches,
		    uint64_t end);

#endif /* WC_TESTS_THREADS_UTIL_H */
