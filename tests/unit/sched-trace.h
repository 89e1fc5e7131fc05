/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched-trace.h - hand-built scheduler traces for the analyzer tests: the metadata a 6.x
 * recording has (HOST with 2 CPUs, CLOCK, EVENT_ATTRs, the real linux-6.18 TP_FORMAT texts
 * from $srcdir/testdata/formats), then sched_switch / sched_waking / sched_wakeup_new
 * TRACEPOINTs with payloads laid out at that format's offsets, SAMPLEs, task records and
 * ROUNDs, written with the common/ writer.  Times are ns.
 */
#ifndef WC_TESTS_SCHED_TRACE_H
#define WC_TESTS_SCHED_TRACE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/stack_table.h"
#include "common/writer.h"

/* event ids of the EVENT_ATTRs st_begin() writes */
#define ST_EV_SWITCH	 1 /* sched:sched_switch */
#define ST_EV_WAKING	 2 /* sched:sched_waking */
#define ST_EV_WAKEUP_NEW 3 /* sched:sched_wakeup_new */
#define ST_EV_CLOCK	 4 /* cpu-clock */

/* prev_state values of the 6.18 layout (TASK_REPORT_MAX = 0x100 marks preemption) */
#define ST_S	 0x1ull
#define ST_D	 0x2ull
#define ST_RPLUS 0x100ull

struct st_trace {
	char path[64];
	int fd;
	struct wc_writer *w;
	struct wc_stack_table *stacks, *payloads;
	uint32_t pid_of[16][2]; /* tid -> pid where they differ (else pid = tid) */
	int err;		/* the first error */
};

/*
 * st_begin() - a new temporary file with the metadata written; the sched_switch EVENT_ATTR's
 * sample_type is ST_SWITCH_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN (its events carry callchains,
 * as wcrec's by default), the other EVENT_ATTRs' is 0.  Return: 0 or -errno.
 */
int st_begin(struct st_trace *t);

/* the sample_type bits of wcrec's sched_switch but PERF_SAMPLE_CALLCHAIN */
#define ST_SWITCH_SAMPLE_TYPE                                                                      \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

/* st_begin_flags(): the sched_switch EVENT_ATTR without PERF_SAMPLE_CALLCHAIN (wcrec -g none) */
#define ST_NO_SWITCH_CALLCHAIN 0x1u

/* st_begin_flags() - st_begin() with ST_* flags.  Return: 0 or -errno. */
int st_begin_flags(struct st_trace *t, unsigned flags);

/* st_set_pid() - events in the context of @tid carry @pid from now on */
void st_set_pid(struct st_trace *t, uint32_t tid, uint32_t pid);

/* st_stack() - the id of a callchain (a STACK record is written when it is new) */
uint32_t st_stack(struct st_trace *t, const uint64_t *ips, uint32_t nr);

/* st_kstack() - the id of a kernel-only callchain of @depth frames, its marker first */
uint32_t st_kstack(struct st_trace *t, uint32_t depth);

/* st_switch() - a sched_switch on @cpu: @prev (0 idle) out in @prev_state, @next in */
void st_switch(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t prev,
	       const char *prev_comm, uint64_t prev_state, uint32_t next, const char *next_comm,
	       uint32_t stack_id);

/* st_wake() - a sched_waking of @tid fired on @cpu in @waker's context */
void st_wake(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t waker, uint32_t tid,
	     const char *comm, int32_t target_cpu, uint32_t stack_id);

/* st_wake_new() - a sched_wakeup_new of @tid, as st_wake() */
void st_wake_new(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t waker, uint32_t tid,
		 const char *comm, int32_t target_cpu);

/* st_sample() - a cpu-clock sample of @tid with @period_ns */
void st_sample(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t tid, uint32_t stack_id,
	       uint64_t period_ns);

/* st_comm() - a COMM record (no exec) */
void st_comm(struct st_trace *t, uint64_t time_ns, uint32_t pid, uint32_t tid, const char *comm);

/* A COMM as wcrec's start snapshot writes it: WC_TASK_SYNTH, and @state read from /proc
 * (48 bytes, as 1.3 wrote it). */
void st_proc_comm(struct st_trace *t, uint64_t time_ns, uint32_t pid, uint32_t tid,
		  const char *comm, char state);

/* ... as 1.4 writes it, 56 bytes with the process's parent @ppid. */
void st_proc_comm_parent(struct st_trace *t, uint64_t time_ns, uint32_t pid, uint32_t tid,
			 const char *comm, char state, uint32_t ppid);

/* st_task() - a FORK or EXIT record */
void st_task(struct st_trace *t, uint16_t type, uint64_t time_ns, uint32_t pid, uint32_t ppid,
	     uint32_t tid, uint32_t ptid);

/* st_round() - a ROUND record */
void st_round(struct st_trace *t);

/* st_flush() - end the frame.  Return: bytes written to the file so far. */
uint64_t st_flush(struct st_trace *t);

/*
 * st_end() - with @trailer, close the writer with a trailer at @end_ns, else only flush;
 * then close the file.  Return: 0 or the first error of any call.
 */
int st_end(struct st_trace *t, bool trailer, uint64_t end_ns);

/* st_remove() - unlink the file (if any) and free what is left */
void st_remove(struct st_trace *t);

/*
 * Helpers for the timehist tests (appended; the ones above are unchanged).
 */

/* event id of the EVENT_ATTR st_begin_migrate() writes */
#define ST_EV_MIGRATE 5 /* sched:sched_migrate_task */

/*
 * st_begin_migrate() - right after st_begin(), before any event: the EVENT_ATTR and the 6.18
 * TP_FORMAT of sched:sched_migrate_task, for st_migrate().  Return: 0 or -errno.
 */
int st_begin_migrate(struct st_trace *t);

/* st_migrate() - a sched_migrate_task of @tid (@comm) from @orig_cpu to @dest_cpu, fired on
 * @cpu in @ctx's context (0: idle) */
void st_migrate(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t ctx, uint32_t tid,
		const char *comm, int32_t orig_cpu, int32_t dest_cpu);

/* st_kallsyms() - a KALLSYMS record holding @text, /proc/kallsyms lines; before any event */
void st_kallsyms(struct st_trace *t, const char *text);

/* event id of the EVENT_ATTR st_begin_runtime() writes */
#define ST_EV_RUNTIME 6 /* sched:sched_stat_runtime */

/*
 * st_begin_runtime() - right after st_begin(), before any event: the EVENT_ATTR and the 6.18
 * TP_FORMAT of sched:sched_stat_runtime, for st_runtime().  Return: 0 or -errno.
 */
int st_begin_runtime(struct st_trace *t);

/* st_runtime() - a sched_stat_runtime of @tid (@comm), @runtime_ns, fired on @cpu in @ctx's
 * context, in a TP_INLINE record as wcrec writes it */
void st_runtime(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t ctx, uint32_t tid,
		const char *comm, uint64_t runtime_ns);

/* event id of the EVENT_ATTR st_begin_stat() writes */
#define ST_EV_STAT 7 /* sched:sched_stat_sleep */

/*
 * st_begin_stat() - right after st_begin(), before any event: the EVENT_ATTR and the 6.1
 * TP_FORMAT of sched:sched_stat_sleep, for st_stat().  Return: 0 or -errno.
 */
int st_begin_stat(struct st_trace *t);

/* st_stat() - a sched_stat_sleep of @tid (@comm): it slept @delay_ns up to @time_ns, fired on
 * @cpu in @ctx's context; inline, as the perf.data source writes them */
void st_stat(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t ctx, uint32_t tid,
	     const char *comm, uint64_t delay_ns);

/* st_switch_in() - a SWITCH_IN record: @tid switched in on @cpu after @prev (0: idle), a switch
 * no sched_switch showed, as wcrec writes it from a context-switch record written @delay_ns
 * after the switch */
void st_switch_in(struct st_trace *t, uint64_t time_ns, uint32_t delay_ns, uint32_t cpu,
		  uint32_t tid, uint32_t prev);

/* st_carried() - a CARRIED record at @time_ns (the file's start), as wcrec --rotate writes one:
 * @tid off-CPU since @since_ns on @cpu, switched out in @prev_state with callchain @stack_id
 * (the payload of that sched_switch, to idle); or with @on, on @cpu since @since_ns */
void st_carried(struct st_trace *t, uint64_t time_ns, uint64_t since_ns, uint32_t cpu, uint32_t tid,
		const char *comm, uint64_t prev_state, uint32_t stack_id, bool on);

/* st_carried_wake() - a CARRIED wakeup at @time_ns: @tid woken at @since_ns by @waker on @cpu
 * (also its target CPU), with the waker's callchain @stack_id; @is_new: a sched_wakeup_new */
void st_carried_wake(struct st_trace *t, uint64_t time_ns, uint64_t since_ns, uint32_t cpu,
		     uint32_t waker, uint32_t tid, const char *comm, uint32_t stack_id,
		     bool is_new);

#endif /* WC_TESTS_SCHED_TRACE_H */
