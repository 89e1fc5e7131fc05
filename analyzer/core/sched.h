/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched.h - the per-tid scheduler state machine: switch-out to switch-in gives an off-CPU
 * interval, switch-in to switch-out a run; wakeups split off-CPU intervals into blocked time
 * and sch delay.  The terms and rules are those of perf sched timehist
 * (tools/perf/builtin-sched.c, the timeline above timehist_update_runtime_stats) and of BCC
 * offcputime:
 *
 *      switch-out          first wakeup         switch-in        switch-out
 *   ------+--------------------+--------------------+----------------+------>  time
 *         |<-- blocked time -->|<---- sch delay --->|<--- run time ->|
 *         |<-------------- off-CPU interval ------->|
 *
 * A task switched out runnable (state R or R+, preempted) has no blocked time: its whole
 * off-CPU interval is sch delay.  A task woken while still on its CPU (the waker ran on
 * another CPU while the task was on its way into schedule()) gets that wakeup as provisional:
 * it counts only if no wakeup comes after the switch-out, and then the whole interval is sch
 * delay.
 *
 * A recording of a task's own switch-outs only (perf record -e sched:sched_switch
 * -e sched:sched_stat_sleep -e sched:sched_stat_blocked -p PID: a per-task sched_switch fires
 * in prev's context, so the task's switch-ins are never recorded) gets its off-CPU intervals
 * from the sched_stat events instead, as perf inject -s makes them:
 *
 *      switch-out    dequeue         sched_stat_sleep (enqueue)   [switch-in]   switch-out
 *   ------+-------------+-----------------------+--------------------x---------------+---->
 *         |             |<-------- delay ------>|                                     |
 *         |<-- interval: time - delay to time, the switch-out's state and stack -->|
 *
 * The interval is taken when the thread's next event is another switch-out (or the
 * recording ends): a traced switch-in closes the interval as usual and the delay is dropped.
 *
 * Edge cases are counted, never silently dropped (struct wc_sched_counts).
 */
#ifndef WC_ANALYZER_SCHED_H
#define WC_ANALYZER_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/core/tasks.h"
#include "analyzer/core/tpdecode.h"

/* Where a thread is, as the state machine knows it. */
enum wc_run_state { WC_TS_UNKNOWN = 0, WC_TS_ON_CPU, WC_TS_OFF_CPU };

/* A switch of a thread the kernel did not trace, as the state machine saw it. */
enum wc_sched_lost {
	WC_SCHED_LOST_SWITCH_IN = 1, /* switched out while off-CPU (double_switch_out) */
	WC_SCHED_LOST_SWITCH_OUT,    /* switched in while on a CPU (switch_in_running) */
};

/* One closed off-CPU interval of a thread (times in ns on the recording clock). */
struct wc_off_interval {
	uint64_t start_ns;	    /* switch-out */
	uint64_t wake_ns;	    /* end of the blocked part: the first wakeup; start_ns when the
				     * thread was preempted or woken before it was off its CPU */
	uint64_t end_ns;	    /* switch-in */
	char state;		    /* switch-out state letter: S, D, R, I, ... */
	bool preempted;		    /* switched out runnable: the whole interval is sch delay */
	bool inferred;		    /* the switch-in was not traced: inferred from the wakeup, the
				     * CPU's last traced switch and the CPU's samples (sched.c) */
	bool no_wakeup;		    /* no wakeup seen: the whole interval is counted as blocked */
	bool from_stat;		    /* the switch-in was not recorded: the interval is a sched_stat
				     * delay, [end_ns - delay, end_ns], all blocked (see above) */
	uint64_t inferred_bound_ns; /* when inferred: how far the switch-in may be from where it
				     * was put, which the interval and the run after it may be
				     * off by (sched.c infer_switch_in()); 0 otherwise */
	int32_t cpu;		    /* CPU of the switch-in */
	uint32_t stack_id;	    /* the switch-out callchain */
	uint32_t waker_tid, waker_stack_id; /* of the wakeup that ended the blocked part */
};

/* Edge cases, as ../shared/DESIGN.md lists them. */
struct wc_sched_counts {
	uint64_t switches, wakeups;
	uint64_t start_unknown;	     /* first event of a tid is a switch-in: interval not counted */
	uint64_t run_start_unknown;  /* first event of a tid is a switch-out: run not counted */
	uint64_t double_switch_out;  /* two switch-outs with no switch-in between */
	uint64_t inferred_switch_in; /* ... of which the switch-in was inferred (sched.c) */
	uint64_t inferred_by_samples; /* ... of those, placed between two sampling ticks */
	uint64_t inferred_by_runtime; /* ... of those, placed by sched_stat_runtime */
	uint64_t unknown_dropped;     /* ... of which the interval was unknown and dropped */
	uint64_t switch_in_running;   /* a switch-in of a tid already on a CPU (lost events) */
	uint64_t switch_in_records;   /* switch-ins from SWITCH_IN records (no sched_switch) */
	uint64_t wakeup_running;      /* a wakeup of a tid still on a CPU: provisional */
	uint64_t wakeup_runnable;     /* a wakeup of a preempted tid: ignored */
	uint64_t wakeup_repeated;     /* a second wakeup while off-CPU: ignored */
	uint64_t wakeup_unknown;      /* a wakeup of a tid never seen switching out */
	uint64_t no_wakeup;	      /* an S/D interval with no wakeup seen */
	uint64_t open_off_at_end;     /* off-CPU when the recording ended: not counted */
	uint64_t open_run_at_end;     /* on-CPU when the recording ended: not counted */
	uint64_t bad_cpu;	      /* events with a CPU number beyond the recorded count */
	uint64_t stats;		      /* sched_stat_sleep, _blocked (or _iowait) events */
	uint64_t stat_intervals;      /* ... that gave an interval: no switch-in recorded */
	uint64_t stat_unmatched;      /* ... of a tid not switched out as last seen: ignored */
	uint64_t stat_repeated;	      /* ... a second one since the switch-out: ignored */
	uint64_t carried;	      /* threads whose state at the file's start was carried */
};

struct wc_sched_sink {
	/* a run of @t on @cpu from @start_ns to @end_ns */
	int (*run)(void *ctx, struct wc_thread *t, int32_t cpu, uint64_t start_ns, uint64_t end_ns);
	/* a closed off-CPU interval of @t */
	int (*off)(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv);
	/* a switch of @t was not traced (@kind), as counted in struct wc_sched_counts; told
	 * after the event's runs and intervals, of both threads of a sched_switch */
	int (*lost)(void *ctx, struct wc_thread *t, enum wc_sched_lost kind);
};

struct wc_sched_thread; /* one thread's state, sched.c's own */

/* The tid of a context-switch record whose task is exiting: the kernel writes -1 once the
 * task's pid is detached (perf_event_pid_type() in kernel/events/core.c).  As cpu_curr, the
 * CPU runs that task, switched in at cpu_since_ns: the next sched_switch out of the CPU names
 * it. */
#define WC_SCHED_EXITING UINT32_MAX

struct wc_sched {
	struct wc_tasks *tasks;
	uint32_t *cpu_curr;	 /* tid on each CPU as last traced; 0 idle, WC_SCHED_EXITING */
	uint64_t *cpu_since_ns;	 /* time of each CPU's last traced switch */
	uint64_t *cpu_sample_ns; /* time of each CPU's last sample, of any task */
	uint64_t *cpu_tick_ns;	 /* ... and its period when the sampler is a per-CPU timer */
	bool *cpu_on_grid;	 /* ... and it came a whole number of periods after the one
				  * before (within an eighth): the ticks can be told from it */
	uint32_t ncpus;
	bool per_task; /* a per-task recording (wct.h, SWITCH_IN): switch-ins from SWITCH_IN
			* records alone, a sched_switch's next task left alone */
	struct wc_sched_thread *threads; /* by index in wc_tasks.threads; past the end: unknown */
	size_t nthreads, threads_cap;
	struct wc_sched_counts counts;
	const struct wc_sched_sink *sink;
	void *ctx;
};

/**
 * wc_sched_init() - a state machine over @tasks for CPUs 0..@ncpus-1, reporting to @sink
 * Return: 0 or -ENOMEM.
 */
int wc_sched_init(struct wc_sched *s, struct wc_tasks *tasks, uint32_t ncpus,
		  const struct wc_sched_sink *sink, void *ctx);
void wc_sched_fini(struct wc_sched *s);

/**
 * wc_sched_carried() - thread @tid (process @pid, 0 unknown) as the earlier files of a rotated
 * recording left it when this one began (a CARRIED record, wct.h): with @sw, off-CPU since
 * that sched_switch at @since_ns on @cpu, @stack_id its callchain; without, on @cpu since its
 * switch-in at @since_ns.  Not a switch: not counted as one.  Only the first state a thread
 * gets: ignored for a thread seen already.
 * Return: 0 or -ENOMEM.
 */
int wc_sched_carried(struct wc_sched *s, uint32_t tid, uint32_t pid, uint64_t since_ns,
		     uint32_t cpu, const struct wc_switch *sw, uint32_t stack_id);

/**
 * wc_sched_carried_wakeup() - the wakeup at @time_ns (ns) of @wk->tid, which had not run since
 * when this file began (a CARRIED record with WC_CARRIED_WAKEUP, wct.h), as wc_sched_wakeup()
 * takes one, but only for a thread that wc_sched_carried() left off-CPU (not preempted) and
 * not woken (a wakeup before its switch-out: provisional, as one on its way out is), or
 * (@is_new: a sched_wakeup_new) a thread not seen yet (counted as carried); not counted as a
 * wakeup of this file.
 * Return: 0 or -ENOMEM.
 */
int wc_sched_carried_wakeup(struct wc_sched *s, uint64_t time_ns, const struct wc_wakeup *wk,
			    bool is_new, uint32_t waker_tid, uint32_t waker_stack_id);

/**
 * wc_sched_switch() - a sched_switch at @time_ns on @cpu
 * @sw: decoded payload
 * @stack_id: the event's callchain, which is prev's (the event fires in prev's context)
 * @ctx_pid: the process of the task in whose context the event fired (prev), 0 if unknown
 * Return: 0, -ENOMEM, or a sink's error.
 */
int wc_sched_switch(struct wc_sched *s, uint64_t time_ns, uint32_t cpu, const struct wc_switch *sw,
		    uint32_t stack_id, uint32_t ctx_pid);

/**
 * wc_sched_switch_in() - a switch-in of @tid (of process @pid) on @cpu that no sched_switch
 * showed, from a SWITCH_IN record: the kernel's context-switch record, written at @time_ns,
 * @delay_ns after the switch as the recorder estimated it (wct.h)
 *
 * The switch-in is taken at @time_ns - @delay_ns, but not before the CPU's last traced switch,
 * nor before the thread's switch-out or its wakeup, nor after @time_ns.  It closes the
 * thread's off-CPU interval there, as a traced switch-in does: the interval is not inferred.
 * A thread already on @cpu stays as it is (its run goes on from where it began), and a traced
 * switch-in of it on @cpu that comes next is taken as the same one.  The task switched out
 * (the record's prev) is left as it is: its switch-out state is not known.  A record of an
 * exiting task (@tid WC_SCHED_EXITING) names no thread: the CPU's next sched_switch out, of a
 * thread off-CPU since before the record, is taken as switched in at the record.
 * Return: 1 when @tid was switched in (s->cpu_since_ns[@cpu] holds where), 0 when nothing
 * changed for it, -ENOMEM, or a sink's error.
 */
int wc_sched_switch_in(struct wc_sched *s, uint64_t time_ns, uint64_t delay_ns, uint32_t cpu,
		       uint32_t tid, uint32_t pid);

/**
 * wc_sched_exit() - the EXIT record of thread @tid (process @pid) at @time_ns.  In a per-task
 * recording the kernel drops a task's events as it exits (perf_event_exit_task() in do_exit(),
 * kernel/exit.c), before its last switch-out, into state X (Z for a process's leader, left
 * for its parent to reap): that run ends here, a voluntary switch, told as the sched_switch
 * the kernel would have written (*@sw: next_tid -1, no stack; *@cpu its CPU).  A no-op in a
 * per-CPU recording, whose sched_switch of it comes after the EXIT, and for a thread not on a
 * CPU.
 * Return: 1 when a run ended (*@sw, *@cpu set), 0, -ENOMEM, or a sink's error.
 */
int wc_sched_exit(struct wc_sched *s, uint64_t time_ns, uint32_t tid, uint32_t pid,
		  struct wc_switch *sw, uint32_t *cpu);

/**
 * wc_sched_wakeup() - a sched_waking or sched_wakeup of @wk->tid at @time_ns, or with
 * @is_new a sched_wakeup_new (the new task's wait for its first run is sch delay)
 * @waker_tid, @waker_stack_id: the task in whose context it fired, and its callchain
 * Return: 0 or -ENOMEM.
 */
int wc_sched_wakeup(struct wc_sched *s, uint64_t time_ns, const struct wc_wakeup *wk, bool is_new,
		    uint32_t waker_tid, uint32_t waker_stack_id);

/**
 * wc_sched_sample() - a CPU sample at @time_ns on @cpu of @t (NULL: the idle task, or no
 * task)
 * @tick_ns: the sample's period in ns when the sampler is a per-CPU timer (cpu-clock or
 * task-clock recorded per CPU, as wcrec does: its hrtimer fires every @tick_ns whatever
 * runs, so a tick with no sample of a task is a moment that task was not running); 0 for
 * other events (cycles), whose samples only say that the task was running then
 *
 * A sample of a thread believed off-CPU means its switch-in was not traced; the samples
 * bound where the switch-in is inferred (sched.c).
 */
void wc_sched_sample(struct wc_sched *s, struct wc_thread *t, uint64_t time_ns, uint32_t cpu,
		     uint64_t tick_ns);

/**
 * wc_sched_context() - an event fired in the context of @tid on @cpu at @time_ns (the waker
 * of a wakeup: the task running there, or the one an interrupt came in): it was running
 * then.  Like a sample of a thread believed off-CPU, it bounds an untraced switch-in.
 */
void wc_sched_context(struct wc_sched *s, uint32_t tid, uint64_t time_ns, uint32_t cpu);

/**
 * wc_sched_runtime() - a sched_stat_runtime at @time_ns: @tid ran @runtime_ns (on the
 * scheduler's task clock) since its exec_start was last updated
 *
 * The first such event of a thread believed off-CPU means its switch-in was not traced, and
 * places it: the kernel sets exec_start at the switch-in (set_next_entity() in
 * kernel/sched/fair.c) and moves it forward at each update, so that first update came
 * @runtime_ns after the switch-in.  The later ones add nothing.
 */
void wc_sched_runtime(struct wc_sched *s, uint32_t tid, uint64_t time_ns, uint64_t runtime_ns);

/**
 * wc_sched_stat() - a sched_stat_sleep, sched_stat_blocked or sched_stat_iowait at @time_ns:
 * @tid, enqueued then, had slept or blocked @delay_ns (struct wc_stat)
 *
 * Kept for @tid's off-CPU interval when @tid is off-CPU since a switch-out in a sleeping
 * state: that interval becomes [@time_ns - @delay_ns, @time_ns] if no switch-in of @tid comes
 * before its next switch-out (see above).  perf inject -s (perf_inject__sched_stat() in
 * tools/perf/builtin-inject.c) likewise gives each sched_stat event of a tid the stack of its
 * last sched_switch and the event's delay as the period.  The caller passes one delay per
 * sleep: sched_stat_iowait repeats sched_stat_blocked's.
 * Return: 0 or -ENOMEM.
 */
int wc_sched_stat(struct wc_sched *s, uint64_t time_ns, uint32_t tid, uint64_t delay_ns);

/**
 * wc_sched_finish() - the recording ended at @end_ns: the intervals of sched_stat delays
 * still kept go to the sink; count what is still open
 * Return: 0 or a sink's error.
 */
int wc_sched_finish(struct wc_sched *s, uint64_t end_ns);

/**
 * wc_sched_state() - where @t is now, and the run or off-CPU interval it is in, as if it
 * ended at @end_ns
 * @open: set: for WC_TS_ON_CPU, start_ns is the switch-in and cpu the CPU; for WC_TS_OFF_CPU,
 * the interval as a switch-in at @end_ns would close it (blocked part, state, stack; the
 * edge cases are not counted); zeroed (cpu -1) for WC_TS_UNKNOWN
 * Return: enum wc_run_state.
 */
enum wc_run_state wc_sched_state(const struct wc_sched *s, const struct wc_thread *t,
				 uint64_t end_ns, struct wc_off_interval *open);

/**
 * wc_sched_switches() - the switch-outs of @t so far: *@voluntary (blocked: S, D, ...) and
 * *@involuntary (preempted: R, R+)
 */
void wc_sched_switches(const struct wc_sched *s, const struct wc_thread *t, uint64_t *voluntary,
		       uint64_t *involuntary);

#endif /* WC_ANALYZER_SCHED_H */
