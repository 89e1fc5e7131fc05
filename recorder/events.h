/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.h - open the perf events wcrec records, one ring buffer per CPU, and drain them
 * into the trace writer.
 */
#ifndef WC_RECORDER_EVENTS_H
#define WC_RECORDER_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "common/stack_table.h"
#include "common/wct.h"
#include "common/writer.h"

#define WC_MAX_EVENTS 8

/* What to open. */
struct wc_events_opts {
	const char *tracefs; /* tracing directory (wc_tracefs_find) */
	bool samples, sched; /* record CPU samples, scheduler tracepoints */
	int sample_event;    /* enum wc_sample_event: -e, or WC_SAMPLE_DEFAULT */
	unsigned freq_hz;    /* sampling frequency */
	bool callchains;     /* -g fp */
	bool kernel_stacks, user_stacks;
	bool waker_stacks;  /* callchains on wakeup events too */
	unsigned user_copy; /* bytes of user stack copied with each callchain, to mend its
			     * top by CFI (recorder/unwind.h); 0: none.  A multiple of 8 */
	bool dwarf;	    /* -g dwarf: user stacks by CFI alone, from a user_copy-byte copy */
	int wakeup;	    /* WC_WAKEUP_* */
	bool migrations;    /* sched_migrate_task too */
	int runtime;	    /* sched_stat_runtime too, without callchains: 0 no, 1 where
			     * the kernel has it and lacks context-switch records (which
			     * place the switch-ins it leaves untraced better), 2 or fail */
	unsigned pages;	    /* ring buffer data pages per CPU, a power of two */
	const int *cpus;    /* CPUs to record */
	int ncpus;
	bool force_no_clockid;	/* test hook: act as on a kernel without use_clockid */
	bool force_no_build_id; /* test hook: act as on a kernel without MMAP2 build-ids */
	bool force_no_cycles;	/* test hook: act as on a machine without a PMU cycles event */
	bool force_no_runtime;	/* test hook: act as on a kernel without sched_stat_runtime */
	bool force_no_switch_records; /* test hook: act as on a kernel without context-switch
				       * records (before Linux 4.3) */
	bool no_switch_records;	      /* --no-switch-records: do without them */
	const int *task_pids;	      /* a targeted recording (-p, COMMAND): these processes'
				       * threads, per task (pertask.c); NULL: every task, per CPU */
	int ntask_pids;
	bool force_per_cpu; /* test hook: per-CPU events for a targeted recording, as on a
			     * kernel without per-task context-switch records */
	/* per-task events: the last pid handed out before the target's threads were listed
	 * (/proc/sys/kernel/ns_last_pid), for the wakeup events' filter (wakefilter.h) */
	bool have_pid_floor;
	uint32_t pid_floor;
	bool force_no_wake_filter;	/* test hook: act as on a kernel that refuses the filter */
	bool no_wrap_check;		/* test hook: the filter not opened up near pid_max */
	unsigned wake_refresh_ms;	/* test hook: the filter's refresh period (0: 1 s) */
	int switch_in_refresh_ms;	/* test hook: the least time between refreshes of the
					 * switch-in events alone (0: none; -1: 20 ms, or the above) */
	bool force_task_samples;	/* test hook: per-task samples, not per-CPU ones */
	bool force_no_switch_in_events; /* test hook: no per-CPU switch-in events (pertask.c) */
	bool force_switch_records;	/* test hook: per-task context-switch records on every
					 * CPU from the start, not on demand (pertask.c) */
};

/* The sampling events of -e. */
enum wc_sample_event {
	WC_SAMPLE_DEFAULT, /* cycles where the PMU has it, else cpu-clock */
	WC_SAMPLE_CYCLES,
	WC_SAMPLE_CPU_CLOCK,
	WC_SAMPLE_TASK_CLOCK,
};

/**
 * wc_events_sample_parse() - the sampling event named @name: "cycles", "cpu-clock" or
 * "task-clock"
 * Return: its enum wc_sample_event, or -EINVAL for another name.
 */
int wc_events_sample_parse(const char *name);

#define WC_WAKEUP_AUTO	 0 /* sched_waking where the kernel has it, else sched_wakeup */
#define WC_WAKEUP_WAKING 1
#define WC_WAKEUP_WAKEUP 2
#define WC_WAKEUP_BOTH	 3

struct wc_event {
	uint32_t event_id; /* in the file */
	uint32_t kind;	   /* enum wc_event_kind */
	char name[64];
	char system[32], tp_name[32]; /* tracepoints */
	uint64_t sample_type;
	struct perf_event_attr *attr;
};

struct wc_events;

/* Counts kept while draining. */
struct wc_drain_stats {
	uint64_t samples, switches, wakeups, other_tp;
	uint64_t comm, fork, exit, mmap, lost_records, lost_samples, throttles;
	uint64_t skipped_self;		/* CPU samples of wcrec itself, left out */
	uint64_t switch_ins;		/* SWITCH_IN records: switch-ins no sched_switch showed
					 * (per CPU); per task, every switch-in of the target */
	uint64_t second_sets;		/* per-task: records of a thread's second set of events (one
					 * inherited, one opened while the threads were listed): dropped */
	uint64_t switch_ins_timed;	/* per-task: SWITCH_IN records timed by a sched_switch (the
					 * target's own, or a switch-in event's: pertask.c) */
	uint64_t switch_in_events;	/* per-task: records of the switch-in events read */
	uint64_t switch_ins_after_exit; /* per-task, context-switch records off: switch-ins by
					 * the last switch of an exiting target thread (drain.c
					 * unseen_switch_in()) */
	uint64_t wake_twins;	  /* per-task: wakeups written twice while the wakeup filter was
				   * refreshed (drain.c twin()): dropped */
	uint64_t samples_other;	  /* per-task, samples per CPU: those of other tasks, dropped */
	uint64_t runtime_dropped; /* sched_stat_runtime after the first of a thread's run (drain.c)
				   */
	uint64_t user_copy_bytes; /* bytes of user stack the kernel copied (dyn_size) */
	uint64_t peak_fill;	  /* most bytes found waiting in one CPU's ring at a drain */
	uint64_t ring_bytes;	  /* the size of each CPU's ring (data pages), bytes */
	int peak_fill_cpu;	  /* the CPU of peak_fill */
};

/**
 * wc_events_open() - open every event on every CPU asked, disabled, sharing one ring
 * buffer per CPU
 * @why: on failure, set to a one-line explanation in static storage (valid until the next
 *       call that fails); NULL where errno says it all
 *
 * Return: the events, or NULL with errno set (EACCES/EPERM from perf_event_open: see
 * perf_event_paranoid; ENOENT: an event the kernel lacks; EINVAL: a bad option).
 */
struct wc_events *wc_events_open(const struct wc_events_opts *opts, const char **why);

/**
 * wc_events_add_tasks() - per-task events (struct wc_events_opts.task_pids) on the threads of
 * processes @pids not opened yet (-p: the descendants found after wc_events_open()); called
 * before wc_events_enable().  A no-op for per-CPU events.
 * Return: the threads opened, or a negative errno (-EAGAIN: threads kept appearing).
 */
int wc_events_add_tasks(struct wc_events *ev, const struct wc_events_opts *o, const int *pids,
			int n);

/**
 * wc_events_refresh_wakeups() - per-task events whose wakeup events are filtered: once a
 * period (1 s), replace them with events whose filter takes only the pids handed out since the
 * last period's check and the target's threads (seen forking, not exited) by name, so that the
 * tasks created meanwhile outside the target stop paying a record for each wakeup; called
 * after a drain.  A no-op otherwise.
 * Return: 0, or a negative errno (the events kept, no refresh tried again).
 */
int wc_events_refresh_wakeups(struct wc_events *ev);

/**
 * wc_events_track_tasks() - per-task events, once enabled: the threads of processes @pids
 * (@n) made while the events were still off, which wrote no FORK record, counted among the
 * target's for the wakeup filter's refreshes and the samples kept.  A no-op for per-CPU events.
 * Return: 0 or -ENOMEM.
 */
int wc_events_track_tasks(struct wc_events *ev, const int *pids, int n);

/** wc_events_wake_refreshes() - how many times the wakeup filter was refreshed. */
uint64_t wc_events_wake_refreshes(const struct wc_events *ev);
/** wc_events_wake_near_wrap() - how many of the filter's checks found the last pid handed out
 * near /proc/sys/kernel/pid_max, and had the filter take every pid (pertask.c near_wrap()). */
uint64_t wc_events_wake_near_wrap(const struct wc_events *ev);

/**
 * wc_events_switch_in_refreshes() - how many times the switch-in events alone were replaced to
 * name the target's new threads (pertask.c refilter_switch_ins()).
 */
uint64_t wc_events_switch_in_refreshes(const struct wc_events *ev);

/**
 * wc_events_records_text() - per-task events whose context-switch records are turned on per CPU
 * where needed: which CPUs had them, from when (the file's clock, s) and why, and the count of
 * switch-ins taken from the sched_switch events instead, as one line.
 * Return: it (malloc'd, the caller frees it), or NULL where the records are not per CPU on
 * demand (per-CPU events, or WCREC_FORCE_SWITCH_RECORDS: on every CPU from the start) or
 * memory ran out.
 */
char *wc_events_records_text(const struct wc_events *ev);

/**
 * wc_events_wake_missed() - per-task events: the target's threads whose wakeups the wakeup
 * events' kernel filter leaves out: made with a pid at or below the filter's floor that it
 * does not name (after the pids wrapped at pid_max), counted as the drain sees their FORK
 * Return: how many (0 without a filter).
 */
uint64_t wc_events_wake_missed(const struct wc_events *ev);

/** wc_events_per_task() - are the events per task (pertask.c), not per CPU? */
bool wc_events_per_task(const struct wc_events *ev);

/** wc_events_clockid() - clockid of event times (CLOCK_MONOTONIC), or -1 for perf's clock */
int wc_events_clockid(const struct wc_events *ev);

/** wc_events_sample_name() - name of the sampling event used ("cpu-clock"), or NULL */
const char *wc_events_sample_name(const struct wc_events *ev);

/**
 * wc_events_write_meta() - write an EVENT_ATTR for each event opened
 *
 * Return: 0 or the writer's error.
 */
int wc_events_write_meta(struct wc_events *ev, struct wc_writer *w);

/**
 * wc_events_write_formats() - write the TP_FORMAT of each tracepoint opened, from the
 * tracing directory, and a NOTE for the wakeup events used and each fallback taken
 *
 * Return: 0, or the error of reading tracefs or of the writer.
 */
int wc_events_write_formats(struct wc_events *ev, struct wc_writer *w, const char *tracefs);

/**
 * wc_events_new_file() - forget the callchains and payloads written so far (wcrec --rotate):
 * the next file defines each again where it first uses it
 * Return: 0 or -ENOMEM (the old tables kept).
 */
int wc_events_new_file(struct wc_events *ev);

/**
 * wc_events_carry_on() - keep, from now on, each thread's last switch-out, to carry the
 * threads off-CPU at a rotation into the next file (wcrec --rotate; recorder/carry.h)
 * Return: 0 or -ENOMEM.
 */
int wc_events_carry_on(struct wc_events *ev);

/**
 * wc_events_carry_check() - before the last drain into a file that a rotation ends: note the
 * threads /proc no longer lists, which are not carried (recorder/carry.h)
 */
void wc_events_carry_check(struct wc_events *ev);

/**
 * wc_events_spill_start() - while a rotation keeps the recorder from draining (the last file
 * closed, the next one's metadata written: about 200 ms here), a thread moves what the rings
 * hold into memory every 2 ms, so that they do not fill; the next drain writes it first
 * (at most 512 MiB per CPU; past that the ring fills and the kernel counts its losses)
 * Return: 0, or a negative errno (no thread: the rings wait, as before).
 */
int wc_events_spill_start(struct wc_events *ev);

/** wc_events_spill_stop() - stop that thread and wait for it; a no-op when none runs */
void wc_events_spill_stop(struct wc_events *ev);

/**
 * wc_events_write_carried() - after wc_events_new_file() and the new file's metadata: a
 * CARRIED record (wct.h) for each thread off-CPU or running at @start_ns (ns, the file's start;
 * 0: the latest event's time), an off-CPU one's with its switch-out's callchain and payload;
 * none without wc_events_carry_on()
 * @n: set to the records written
 * Return: 0, -ENOMEM, or the writer's error.
 */
int wc_events_write_carried(struct wc_events *ev, struct wc_writer *w, uint64_t start_ns,
			    size_t *n);

/**
 * wc_events_write_end_notes() - at the end of a recording, a NOTE "user_stacks_mended" with
 * the counts of the mending of user callchains (recorder/unwind.h), where there was any
 *
 * Return: 0 or the writer's error.
 */
int wc_events_write_end_notes(struct wc_events *ev, struct wc_writer *w);

/**
 * wc_events_fallback() - was this fallback taken: "clockid", "build-id", "cycles", "runtime",
 * "switch" (no context-switch records) or "user-copy" (no user registers and stack copies)?
 */
bool wc_events_fallback(const struct wc_events *ev, const char *what);

/** wc_events_enable() - start (or, with on = false, stop) counting.  Return: 0 or -errno. */
int wc_events_enable(struct wc_events *ev, bool on);

/**
 * wc_events_poll() - wait until a ring buffer reaches its watermark, or timeout_ms
 * Return: > 0 when there is data, 0 on timeout, -errno (-EINTR on a signal).
 */
int wc_events_poll(struct wc_events *ev, int timeout_ms);

/**
 * wc_events_drain() - copy every record waiting in every ring buffer into the writer, then
 * write a ROUND
 * @self_pid: CPU samples of this process are left out (wcrec's own work)
 *
 * Return: 0 or the writer's error (-ENOSPC, ...).
 */
int wc_events_drain(struct wc_events *ev, struct wc_writer *w, int self_pid,
		    struct wc_drain_stats *stats);

/**
 * wc_events_drain_until() - as wc_events_drain(), but each ring only up to its first record
 * stamped after @until_ns (ns, the events' clock; 0: no limit), the rest left for the next
 * drain: wcrec --rotate ends a file at one time on every CPU, where a whole drain of one ring
 * after another would cut each CPU's events at the moment its ring was read (one ASan run:
 * 12 ms apart, a thread's events on CPU 0 in the next file before those on CPU 1 in this one)
 * Return: as wc_events_drain().
 */
int wc_events_drain_until(struct wc_events *ev, struct wc_writer *w, int self_pid,
			  uint64_t until_ns, struct wc_drain_stats *stats);

/**
 * wc_events_set_targets() - mend (or, with -g dwarf, unwind) the user stacks of these @n
 * processes and of those they fork while recording only; the others keep the kernel's
 * frame-pointer walk (-g fp) or their ip alone, [truncated] (-g dwarf).  Without a call, every
 * process's.  A targeted recording (-p, COMMAND) records every CPU's events; this keeps the
 * recorder's unwinding work to its target.
 *
 * Return: 0 or -ENOMEM.
 */
int wc_events_set_targets(struct wc_events *ev, const int *pids, int n);

/**
 * wc_events_unwind_stats() - figures of the mending of user callchains (recorder/unwind.h);
 * all zero when no user stack is copied
 */
struct wc_unwind_stats;
void wc_events_unwind_stats(const struct wc_events *ev, struct wc_unwind_stats *stats);

/** wc_events_free() - close and unmap everything; NULL is a no-op */
void wc_events_free(struct wc_events *ev);

#endif /* WC_RECORDER_EVENTS_H */
