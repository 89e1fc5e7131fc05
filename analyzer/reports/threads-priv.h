/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads-priv.h - what threads.c (the replay side and the rows), threads-stacks.c (the rows'
 * top stacks) and threads-print.c (the table and the JSON) share; nothing else uses it.
 */
#ifndef WC_ANALYZER_THREADS_PRIV_H
#define WC_ANALYZER_THREADS_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "common/map64.h"
#include "analyzer/reports/threads.h"

/* What the replay told us of one thread (by its index in wc_tasks.threads). */
struct acc {
	struct wc_threads_row r;    /* the sums; lifetime, coverage and stacks at the end */
	uint64_t first_ns, last_ns; /* the thread's events, unclipped */
	uint64_t cursor_ns;	    /* end of the last counted run or interval, clipped */
	uint32_t seg;		    /* current segment (address space), 0 none yet */
	int32_t row;		    /* index in the rows, -1 not shown */
	bool seen, cursor_set, had_piece, comm_matched;
	bool loss_pending;     /* a switch was not traced since the last piece */
	char first_switch;     /* 'i' or 'o': its first switch seen, 0 none yet */
	uint64_t lead_wake_ns; /* its first wakeup before any switch, 0 none */
};

/* The stack id of the time before a thread's first switch-in, named by its /proc state. */
#define PROC_STACK UINT32_MAX

/* A thread in one address space: stacks are named against it. */
struct seg {
	uint32_t idx; /* the thread */
	uint32_t aspace;
};

struct wc_threads {
	struct wc_threads_opts o;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct acc *accs;
	size_t naccs, accs_cap;
	struct seg *segs; /* index 0 unused */
	size_t nsegs, segs_cap;
	struct wc_map64 stacks; /* seg << 40 | leaf << 32 | stack id -> ns (off) or samples (on) */
	struct wc_window win;	/* the --time window */
	bool window_set, finished;
	struct wc_threads_row *rows;
	size_t nrows;
	uint64_t seen_threads; /* threads with an event or alive at the start, before the
				* filter */
};

/**
 * threads_top_stacks() - every shown row's top stacks (T->rows, each row's T->accs[].row set):
 * the entries of T->stacks gathered by row, named with @sym, merged by text and ranked
 * Return: 0 or -ENOMEM.
 */
int threads_top_stacks(struct wc_threads *T, struct wc_symbolizer *sym);

#endif /* WC_ANALYZER_THREADS_PRIV_H */
