/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist-priv.h - what timehist.c (the replay side: the rows, and the statistics the
 * summary is made of), timehist-write.c (the lines of the rows, the header, the callchains)
 * and timehist-summary.c (the summary and the footer) share; nothing else uses it.
 */
#ifndef WC_ANALYZER_TIMEHIST_PRIV_H
#define WC_ANALYZER_TIMEHIST_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/core/callchain.h"
#include "common/map64.h"
#include "analyzer/reports/timehist.h"

#define COMM_STR 64	      /* "comm[tid/pid]" and its NUL */
#define OUT_CAP	 (256 * 1024) /* bytes of output buffered */

/* Welford's running mean and M2, as perf's util/stat.c update_stats(). */
struct tstat {
	uint64_t n, total, min, max;
	double mean, m2;
};

/* What the wait of a task's off-CPU interval counts as in the --state summary. */
enum { K_SLEEP = 0, K_IOWAIT, K_PREEMPT, K_NEW };

/* Per thread (by index in wc_tasks.threads). */
struct trt {
	uint64_t off_start, off_wake, off_end; /* its last off-CPU interval */
	uint8_t off_kind;
	bool have_off;
	struct tstat run;      /* runs; with idle_hist the idle periods credited to it */
	uint64_t unknown_runs; /* switch-outs whose run's start is unknown (before the trace,
				* or a switch-in not traced and not inferred) */
	uint64_t sleep_ns, iowait_ns, preempt_ns, delay_ns;
	uint64_t migrations;
	uint32_t last_stack, last_aspace, last_chain; /* the last chain_of() of its rows */
	char name[COMM_STR]; /* "comm[tid/pid]" as last shown, for that comm and pid */
	char name_comm[16];
	uint32_t name_pid;
	uint8_t name_len;
};

/* Per CPU: the idle task's periods. */
struct tcpu {
	uint64_t idle_since;  /* idle switched in then; 0 when not idle or not known */
	uint64_t idle_out;    /* idle last switched out then; 0 when not known */
	uint32_t last_thread; /* idle_hist: index of the thread that left the CPU idle; 0 none */
	uint32_t last_chain;  /* ... its switch-out chain (arena offset + 1; 0 none) */
	bool seen;	      /* a switch was seen on it (in the window) */
	struct tstat idle;
	uint64_t idle_unknown; /* switch-outs of idle whose period's start is unknown */
	uint64_t idle_cut;     /* idle periods whose switch-out was not traced, in the window */
	uint64_t cut_all;      /* ... in the whole trace */
};

/* idle_hist: idle time per (CPU, callchain text) */
struct chain_hit {
	uint32_t cpu, chain;
	uint64_t hit_ns, count;
};

struct wc_timehist {
	struct wc_timehist_opts o;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct wc_symbolizer *sym;
	FILE *out;
	char *buf;
	size_t len;
	int err;
	int comm_width; /* grows with the longest task name seen, as perf's */
	uint64_t sec;	/* the seconds of the last time stamp, and their digits */
	char sec_str[24];
	int sec_len;
	bool idle_open; /* no thread filter: idle rows are shown */
	bool window_set;
	struct wc_window win;	    /* the --time window */
	uint64_t first_ns, last_ns; /* first and last switch in the window */
	uint32_t ncpus, nvis;	    /* CPUs tracked; columns of -V */
	struct tcpu *cpus;
	struct trt *trt;
	size_t ntrt;
	struct {
		uint32_t idx, tid;
		uint64_t start, end;
	} pending;		/* the run the state machine closed at the current switch */
	struct wc_map64 chains; /* stack id << 32 | address space -> arena offset + 1, 0 empty */
	char *arena;
	size_t arena_len, arena_cap;
	struct wc_strbuf tmp;
	struct wc_map64 hit_index; /* cpu << 40 | chain -> index in hits */
	struct chain_hit *hits;
	size_t nhits, hits_cap;
};

/* The values of a switch row; a value not known is shown "-". */
struct th_row {
	const char *name, *state;
	size_t name_len;
	uint64_t wait, delay, run;
	bool known_wait, known_delay, known_run;
	uint32_t chain;
};

/* --- timehist-write.c ------------------------------------------------------------------ */

/* 117 dashes and more, for perf's separator lines ("%.117s") */
extern const char th_dashes[];

/* write out the buffered output; a failed write sets th->err to -EIO */
void th_out_flush(struct wc_timehist *th);

/* printf into the output buffer (the header, summary and footer; not the rows); on ENOMEM
 * th->err is set */
void th_outf(struct wc_timehist *th, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* @ns as perf's print_sched_time(): "%*lu.%03lu " of ms and us, in @buf (32 bytes) */
const char *th_msf(char *buf, uint64_t ns, int w);

/* "comm[tid/pid]" of @t in @dst (COMM_STR bytes); widens th->comm_width to it */
const char *th_thread_str(struct wc_timehist *th, char *dst, const struct wc_thread *t);

/* the text of a callchain kept by chain_of() (@chain: its arena offset + 1, not 0) */
const char *th_chain_text(const struct wc_timehist *th, uint32_t chain);

/* perf's timehist_header(): "%15s %6s ", the -V columns, " %-*s", "  %9s" x3, "  state" */
void th_header(struct wc_timehist *th);

/*
 * th_chain_of() - the text of callchain @stack_id of a task in address space @aspace: up to
 * max_stack frames leaf first, kernel then user, joined by " <- ".  *@chain is set to its
 * arena offset + 1, or 0 when nothing is shown.  Return: 0 or -ENOMEM.
 */
int th_chain_of(struct wc_timehist *th, uint32_t stack_id, uint32_t aspace, uint32_t *chain);

/* th_put_row() - the switch row @r of switch @ev, as perf's timehist_print_sample().
 * Return: 0 or -ENOMEM. */
int th_put_row(struct wc_timehist *th, const struct wc_sched_event *ev, const struct th_row *r);

/*
 * th_put_other_row() - the "awakened:" (-w) or "migrated:" (-M) row of @ev: @ctx the task in
 * whose context it fired (NULL: unknown, or idle when ev->ctx_tid is 0), @obj the task woken
 * or migrated, @tid its tid (@obj NULL: not known).  Return: 0, -ENOMEM or th->err.
 */
int th_put_other_row(struct wc_timehist *th, const struct wc_sched_event *ev,
		     const struct wc_thread *ctx, const struct wc_thread *obj, int32_t tid);

/* --- timehist.c ------------------------------------------------------------------------ */

/* the --time window, [t0, t1), in absolute ns: set once, at the first event or at the end */
void th_set_window(struct wc_timehist *th);

/* --- timehist-summary.c ---------------------------------------------------------------- */

/* The summary (-s, -S): per task, per CPU, the totals.  Return: 0, -ENOMEM or th->err. */
int th_summary(struct wc_timehist *th);

/* The footer line: the events lost in recording, the edge cases that left values unknown. */
void th_footer(struct wc_timehist *th);

#endif /* WC_ANALYZER_TIMEHIST_PRIV_H */
