/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analysis.h - the replay pipeline every subcommand shares: trace file -> events in time
 * order -> tracepoint decoding (once per distinct payload) -> threads and address spaces ->
 * the scheduler state machine -> a consumer (a profile, a report).
 */
#ifndef WC_ANALYZER_ANALYSIS_H
#define WC_ANALYZER_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/symbols/symbolize.h"
#include "common/map64.h"
#include "analyzer/core/replay.h"
#include "analyzer/core/sched.h"
#include "analyzer/core/tasks.h"
#include "analyzer/core/tpdecode.h"

struct wc_analysis;

/* A scheduler tracepoint as the replay saw it, decoded (the event log of timehist). */
struct wc_sched_event {
	uint64_t time_ns;
	uint32_t cpu;
	uint8_t role;		    /* WC_TP_SWITCH, WC_TP_WAKEUP or WC_TP_MIGRATE; WC_TP_SWITCH_IN
				     * for a SWITCH_IN record: a switch-in of ctx_tid (ctx_pid) that
				     * no sched_switch showed, at time_ns (its delay taken off), with
				     * sw, wk and mig NULL */
	bool wakeup_new;	    /* a sched_wakeup_new */
	const struct wc_switch *sw; /* WC_TP_SWITCH, else NULL */
	const struct wc_wakeup *wk; /* WC_TP_WAKEUP, else NULL */
	const struct wc_migrate *mig; /* WC_TP_MIGRATE, else NULL */
	uint32_t stack_id;	   /* the event's callchain: the context task's (prev for a switch,
				    * the waker for a wakeup); 0 none */
	uint32_t ctx_tid, ctx_pid; /* the task in whose context it fired */
};

/* A CPU sample, decoded: what a report sees of a SAMPLE record. */
struct wc_cpu_sample {
	uint64_t time_ns;
	uint64_t period; /* event count since the previous sample: ns for cpu-clock, task-clock */
	uint32_t cpu;
	uint32_t tid, pid; /* the task on the CPU; never 0 (idle) here */
	uint32_t stack_id; /* its callchain (wc_replay_stack()); 0 none */
	uint16_t event_id; /* the sampling event: wc_replay_meta.events[event_id] */
};

/* What a subcommand plugs in; every member may be NULL. */
struct wc_analysis_consumer {
	void *ctx;
	/* once, when the metadata is known and before the first event */
	int (*begin)(void *ctx, struct wc_analysis *a);
	/* runs and off-CPU intervals from the state machine */
	struct wc_sched_sink sink;
	/* a CPU sample of @t, valid during the call; @weight_ns is its period as time (ns for
	 * cpu-clock and task-clock, 1e9 / frequency for cycles) */
	int (*sample)(void *ctx, struct wc_thread *t, const struct wc_cpu_sample *s,
		      uint64_t weight_ns);
	/* each decoded scheduler tracepoint, after the state machine took it (so the sink
	 * calls for a switch come before its event); pointers valid during the call */
	int (*sched_event)(void *ctx, const struct wc_sched_event *ev);
};

/* Most CPUs a trace may name: CONFIG_NR_CPUS is at most 8192 (arch/x86/Kconfig, MAXSMP). */
#define WC_ANALYSIS_MAX_CPUS 8192
#define WC_STR_(x)	     #x
#define WC_STR(x)	     WC_STR_(x)

/*
 * What the replay found, filled in by wc_analysis_run(): final after it, the running values
 * during a consumer's callbacks.
 */
struct wc_analysis_facts {
	bool have_switch;  /* sched_switch was recorded */
	bool have_wakeup;  /* a wakeup event was recorded */
	bool have_samples; /* a sampling event was recorded */
	bool have_migrate; /* sched_migrate_task was recorded */
	bool have_runtime; /* sched_stat_runtime was recorded (wcrec's default) */
	bool have_stat;	   /* sched_stat_sleep, _blocked or _iowait: the recipe of perf inject -s */
	bool per_task;	   /* a per-task recording (NOTE events "per-task:", wcrec --per-task):
			    * the target's switches only, no CPU's idle time */
	/* the sample being delivered to the consumer came at most WC_SKID_WINDOW_NS after its
	 * thread's switch-in on its CPU (skid.h); valid during the sample callback */
	bool sample_after_switch_in;
	bool sample_on_timer; /* ... and its event is a timer (cpu-clock, task-clock) */
	uint64_t samples, tracepoints, decode_errors; /* events replayed, and undecodable ones */
	uint64_t thread_samples; /* samples of a thread (not of the idle task) */
	uint64_t runtime_events; /* sched_stat_runtime events */
	uint64_t start_ns;	 /* the first event's time (trace clock, ns) */
	uint64_t format_errors;	 /* TP_FORMAT texts that did not parse (no bound event needed
				  * them) */
	char format_error[256];	 /* why the first of them did not */
};

/**
 * wc_analysis_open() - set up a replay of @path, to be set up further (the setters below),
 * then run once (wc_analysis_run()) and read (the accessors below)
 * @path:   the trace file; borrowed, must outlive the analysis
 * @err:    on failure, why ("FILE: No such file or directory"), @errlen bytes at most
 * Return: the analysis, owned by the caller (wc_analysis_close()); NULL with errno set
 * (ENOMEM, or the error of opening @path) and @err written.
 */
struct wc_analysis *wc_analysis_open(const char *path, char *err, size_t errlen);

/*
 * wc_analysis_set_progress() - optional, before wc_analysis_run(): call @fn(@ctx, done, total)
 * at each round of the recording, with the compressed bytes read of the file's @total_bytes.
 */
void wc_analysis_set_progress(struct wc_analysis *a,
			      void (*fn)(void *ctx, uint64_t done_bytes, uint64_t total_bytes),
			      void *ctx);

/*
 * wc_analysis_set_max_memory() - optional, before wc_analysis_run(): the replay's memory
 * limit in bytes (wc_replay_set_max_memory()); 0 WC_REPLAY_DEFAULT_MAX_MEMORY (the default),
 * UINT64_MAX none.
 */
void wc_analysis_set_max_memory(struct wc_analysis *a, uint64_t max_bytes);

/*
 * wc_analysis_set_symbol_paths() - optional, before the replay: where the symbolizer, and a
 * source that reads the recorded files while replaying (perf.data's dwarf stacks), look for
 * them; @paths borrowed, NULL the defaults.
 * Return: 0, or -ENOMEM (the source could not keep --symfs).
 */
int wc_analysis_set_symbol_paths(struct wc_analysis *a, const struct wc_symbol_paths *paths);

/**
 * wc_analysis_run() - replay the whole file into @c
 *
 * A truncated file is analysed up to the cut (wc_replay_stats() says so).  A missing format
 * or field of a recorded scheduler tracepoint stops the run with wc_analysis_error() naming the
 * event and the field. Return: 0, -EINVAL (wc_analysis_error() says why), -ENOMEM, or a consumer's
 * error.
 */
int wc_analysis_run(struct wc_analysis *a, const struct wc_analysis_consumer *c);

/**
 * wc_analysis_symbolizer() - the one symbolizer of the analysis: over its tasks' address
 * spaces (symbolize.h), the trace's kernel symbols and the symbol paths; made on the first call (in
 * a consumer's begin or later: the metadata must be known), freed by wc_analysis_close() Return:
 * the symbolizer, borrowed; NULL when out of memory.
 */
struct wc_symbolizer *wc_analysis_symbolizer(struct wc_analysis *a);

/* wc_analysis_dwarf_stacks() - were the user stacks unwound by CFI alone (wcrec -g dwarf, as
 * the trace's user_stacks note says)? */
bool wc_analysis_dwarf_stacks(const struct wc_analysis *a);

/* wc_analysis_end_ns() - the recording's end: the trailer's time, else the last event's. */
uint64_t wc_analysis_end_ns(const struct wc_analysis *a);

/*
 * wc_analysis_symbolizer_made() - the symbolizer if wc_analysis_symbolizer() made it, else
 * NULL (without making one); borrowed.
 */
struct wc_symbolizer *wc_analysis_symbolizer_made(const struct wc_analysis *a);

/*
 * The accessors: each valid from wc_analysis_open() to wc_analysis_close(), its result
 * borrowed from @a; during wc_analysis_run() they show the state as of the current event.
 */
/* wc_analysis_facts() - the flags and counts of what was replayed. */
const struct wc_analysis_facts *wc_analysis_facts(const struct wc_analysis *a);
/* wc_analysis_path() - the trace file's path, as given to wc_analysis_open(). */
const char *wc_analysis_path(const struct wc_analysis *a);
/* wc_analysis_error() - why wc_analysis_run() failed, "" when it did not say. */
const char *wc_analysis_error(const struct wc_analysis *a);
/*
 * wc_analysis_kernel_build_id() - the recording kernel's build-id, as lowercase hex (NOTE
 * kernel_build_id, wcrec-trace(5)); NULL when the file has none, or one that is not 2 to 40
 * hex digits (not shown, not exported).
 */
const char *wc_analysis_kernel_build_id(const struct wc_analysis *a);
/* wc_analysis_replay() - the replay: its metadata, stacks and stats (replay.h). */
struct wc_replay *wc_analysis_replay(const struct wc_analysis *a);
/* wc_analysis_tasks() - the threads and address spaces (tasks.h). */
const struct wc_tasks *wc_analysis_tasks(const struct wc_analysis *a);
/* wc_analysis_sched() - the scheduler state machine: its counts and per-thread state. */
const struct wc_sched *wc_analysis_sched(const struct wc_analysis *a);
/* wc_analysis_role() - enum wc_tp_role of event @event_id (< WC_REPLAY_MAX_EVENTS), 0 none. */
unsigned int wc_analysis_role(const struct wc_analysis *a, uint16_t event_id);
/* wc_analysis_near_stacks() - stack id -> samples that came WC_SKID_WINDOW_NS or less after
 * their thread's switch-in (skid.h). */
const struct wc_map64 *wc_analysis_near_stacks(const struct wc_analysis *a);

/* wc_analysis_close() - free @a and all it owns (the symbolizer too); NULL is a no-op. */
void wc_analysis_close(struct wc_analysis *a);

#endif /* WC_ANALYZER_ANALYSIS_H */
