/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events-priv.h - what events.c and drain.c share about the open events; nothing else uses it. */
#ifndef WC_RECORDER_EVENTS_PRIV_H
#define WC_RECORDER_EVENTS_PRIV_H

#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>

#include "common/map64.h"
#include "recorder/buildid.h"
#include "recorder/events.h"
#include "recorder/unwind.h"

/* sample_id of side-band records (sample_id_all) with our sample_type: pid/tid, time, cpu, id */
#define SAMPLE_ID_BYTES 32
#define BASE_SAMPLE_TYPE                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD)

/*
 * How long after its switch-out record the kernel writes the switch-in record of the same
 * switch (the context switch lies between): a histogram over the switches a sched_switch
 * showed too, per CPU (struct ring) and over all CPUs (struct wc_events), [0] of those from
 * another task, [1] of those from the idle task; bins of WC_IN_DELAY_BIN_NS, the last one for
 * all longer.  The switch-out record is written after the sched_switch event
 * (prepare_task_switch() in kernel/sched/core.c), so after our own event's work on it (its
 * callchain): where the kernel drops that event, the switch-out record (dropped too) would have
 * come at about the time of the switch.
 */
#define WC_IN_DELAY_BINS   128
#define WC_IN_DELAY_BIN_NS 125

struct ring {
	int cpu;
	int fd; /* owner of the buffer */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;	     /* bytes of data, a power of two */
	int64_t switch_prev; /* the task (tid) a sched_switch of this CPU last switched out, until
			      * the context-switch record of the same switch; -1: none */
	uint64_t switch_ns;  /* ... and that sched_switch's time */
	uint64_t out_ns;     /* the time of the switch-out record of the same switch, 0: none */
	/* the thread whose sched_stat_runtime this CPU kept since its last switch (traced, or
	 * from a SWITCH_IN record), 0: none.  Only the first of a run places an untraced
	 * switch-in (wcanalyze's sched.c), so the later ones of the same thread are dropped, and
	 * a thread that reads its own CPU clock in a loop (each read updates its runtime) does
	 * not flood the file: at most one per run of each thread. */
	uint32_t rt_kept_tid;
	size_t poll_k; /* per-task events: the index in task_fds of the one polled */
	/* per-task events: the next_pid of the sched_switch of switch_prev, -1 unknown */
	int64_t switch_next;
	int64_t last_next; /* ... and of the last one, -1 unknown: 0 when the CPU went idle */
	/* drain.c twin(): this ring's last wakeup records not yet matched with a twin (the same
	 * wakeup written by the wakeup event being replaced and by its replacement) */
	struct wake_seen {
		uint64_t ident, time;
		uint32_t tid, payload_id, stack_id;
		int event;
	} wake_seen[4];
	unsigned wake_seen_n;
	/* per-task events with the wakeup filter: this CPU's sched_switch, per CPU, filtered on
	 * next_pid like the wakeups (pertask.c open_switch_ins()): its records, which only time
	 * the target's switch-ins (drain.c on_switch_in()), are those of ids swin_id[] (the
	 * event's, and the one it replaced); descriptor swin_fd, -1 none */
	int swin_fd;
	uint64_t swin_id[2];
	uint32_t probe_idle_ns,
		probe_task_ns;	     /* probe.c: the switch-in records' delay after a
				      * switch from idle, from another process; 0 unknown */
	bool probed, probe_untraced; /* probe.c: it ran here; a switch into its process that no
				      * sched_switch showed */
	/* per-task events, their context-switch records on demand (pertask.c
	 * wc_pertask_records_on()): on on this CPU (rec_fds enabled), and why (enum rec_why),
	 * from when (the time of the record that showed the need, ns; 0 the start) and the
	 * thread it named; rec_seen: a context-switch record of this CPU has been read, so the
	 * switch-ins are taken from them from here on, else from the sched_switch events
	 * (drain.c switch_in_direct()) */
	bool rec_on, rec_seen;
	int rec_why;
	uint64_t rec_from_ns;
	uint32_t rec_tid;
	uint64_t rec_all_ns; /* ... every thread's turned on by then (the events' clock, ns; 0
			      * at the start, or without use_clockid) */
	int rec_errno;	     /* ... an ioctl that failed (its errno), 0 none */
	int64_t curr_before; /* drain.c: curr before the last switch-in event's record (-1
			      * unknown), and curr_ns then */
	uint64_t curr_before_ns;
	/* drain.c: the task this CPU's records last showed switched in (a sched_switch's next
	 * task, a switch-in record's), and when; -1 unknown (the start, a LOST record) */
	int64_t curr;
	uint64_t curr_ns;
	/* drain.c: this CPU's delays of the switch-in records (see above) */
	uint64_t in_delay[2][WC_IN_DELAY_BINS];
	uint64_t in_delay_n[2];
	/* seam.c: records moved out of the ring while a rotation held the drain, older than
	 * what the ring holds; drained first (bytes; owned) */
	uint8_t *spill;
	size_t spill_len, spill_cap;
};

/* seam.c: at most this many bytes spilled per ring during one rotation */
#define WC_SPILL_MAX (512ull << 20)

struct set_slot {
	uint64_t key; /* tid << 24 | ring << 8 | event + 1; 0: empty */
	uint64_t id;  /* 0: the thread exited */
};

struct id_slot {
	uint64_t id; /* 0: empty */
	int event;   /* index in events[] */
};

struct wc_events {
	struct wc_event events[WC_MAX_EVENTS];
	struct perf_event_attr attrs[WC_MAX_EVENTS];
	int nevents;
	int *fds; /* ncpus * nevents */
	struct ring *rings;
	int ncpus;
	struct pollfd *pfds;
	struct id_slot *ids;
	size_t nids_slots, nids;
	int clockid;
	bool no_clockid, no_build_id, cycles_fallback;
	bool no_runtime;	 /* sched_stat_runtime was wanted, and the kernel lacks it */
	bool no_switch_records;	 /* no context-switch records (attr.context_switch) are taken: */
	bool switch_records_off; /* ... because of --no-switch-records, not for want of them */
	bool no_user_copy; /* the kernel refused PERF_SAMPLE_REGS_USER / STACK_USER (before 3.7) */
	struct wc_unwind *unwind; /* NULL: no user stack copied */
	unsigned user_copy;	  /* ... else its size, bytes */
	bool dwarf;	  /* -g dwarf: the user part by CFI alone (wc_unwind_mend()'s whole) */
	uint64_t *mended; /* room for a mended callchain */
	uint64_t bad_copies, wrong_abi; /* stacks not unwound: drain.c user_part() */
	uint32_t *targets; /* wc_events_set_targets(): an open-addressed set of pids, 0 empty */
	size_t ntargets, targets_cap; /* ... its count and size (a power of two); cap 0: all */
	int rt_pid_off; /* offset of sched_stat_runtime's pid in its payload (4 bytes), -1: unknown
			 */
	char wakeup_used[48];
	/* per-task events (pertask.c): the target's threads' own events, inherited by the threads
	 * and processes they create; ring c's buffer is that of the first event opened on it */
	bool per_task;
	bool samples_per_cpu; /* ... but for the sampling event (pertask.c wc_pertask_choose()) */
	long page;	      /* bytes */
	int *task_fds;	      /* every per-task event's descriptor */
	int *task_fd_ring;    /* ... and the index of its ring */
	size_t ntask_fds, task_fds_cap, task_fd_ring_cap;
	struct wc_map64 task_tids; /* tid -> 1: the threads opened (keys NULL until the first) */
	uint64_t tasks_gone;	   /* threads gone before their events could be opened */
	int next_pid_off; /* offset of sched_switch's next_pid in its payload, -1 unknown */
	int wake_pid_off; /* offset of the wakeup events' pid (the woken), -1 unknown */
	bool has_waking;  /* sched_waking is recorded (with sched_wakeup or alone) */
	/* per-task events: the wakeup events' kernel filter (pertask.c filter_wakeups()): on,
	 * the pids above wake_above taken whole, the tids at or below it named; wake_extra: the
	 * other tasks' pids it takes (runs merged to fit); else why not ("" no filter wanted) */
	bool wake_filtered;
	uint32_t wake_above;
	uint64_t wake_extra;
	struct wc_map64 wake_named;   /* the tids the filter names (keys NULL: none) */
	struct wc_map64 wake_targets; /* tid -> the time of its last FORK or EXIT (ns) << 1 | 1
				       * while alive: the target's threads, opened or seen in
				       * their events, named by the next filter (refresh) */
	/* wc_events_refresh_wakeups(): the last pid handed out as read at wake_cand_ns (0 none
	 * yet), the next check's time, the period (ns), the filters set since the first, and
	 * failures (refreshing stops at the first) */
	uint32_t wake_cand;
	uint64_t wake_cand_ns, wake_check_ns, wake_period_ns;
	uint64_t wake_refreshes;
	bool wake_refresh_failed;
	bool wake_refresh_tried; /* a replacement was opened: drain.c twin() on */
	bool swin_on;		 /* the rings' switch-in events are open (ring.swin_fd) */
	/* the target's threads made alive in wake_targets (wc_pertask_wake_track()), that
	 * count when the switch-in events' filter was last made, the earliest time (ns) of a
	 * refresh of those alone (new threads to name as previous tasks), its period (ns), the
	 * refreshes so made, and a failure (they stop at the first) */
	uint64_t wake_added, swin_added, swin_check_ns, swin_period_ns, swin_refreshes;
	bool swin_refresh_failed;
	char swin_why[96];	/* ... else why not ("" not wanted) */
	bool wake_lost;		/* a ring lost records since the last check (a FORK may be
				 * among them): the floor is not raised past that period */
	uint64_t *wake_old_ids; /* the ids of the events closed at the last refresh, forgotten at
				 * the next (their records drained by then) */
	size_t nwake_old_ids;
	uint64_t wake_missed;	 /* target threads at or below wake_above the filter does not name
				  * (made after a wrap of the pids): their wakeups filtered out */
	bool wake_soon;		 /* ... one since the last check: check for a wrap now */
	uint64_t wake_near_wrap; /* checks that found the pids near pid_max (near_wrap()) */
	bool wake_no_wrap_check; /* WCREC_NO_WRAP_CHECK: near_wrap() not asked (tests) */
	char wake_why[96];
	struct set_slot *sets; /* drain.c second_set(): (thread, ring, event) to its first id */
	size_t nsets, sets_cap;
	char per_cpu_why[160]; /* a targeted recording on per-CPU events: why ("" none) */
	struct wc_stack_table *stacks, *payloads;
	struct wc_carry *carry; /* --rotate: the threads' state, carried into the next file */
	pthread_t spill_thread; /* seam.c: the thread spilling the rings during a rotation */
	bool spilling;		/* ... running */
	int spill_stop;		/* ... told to stop (atomic) */
	uint8_t *copy;		/* a record that wraps around the buffer end */
	/* drain.c defer(): samples per CPU of a thread not known as the target's yet, kept to
	 * the end of the pass (a new thread's FORK record may be in a ring drained later): its
	 * records back to back, each after the index of its ring and the pass that read it (two
	 * u64s); bytes, owned */
	uint8_t *deferred;
	size_t deferred_len, deferred_cap;
	uint8_t *deferred_spare; /* ... the buffer replay_deferred() fills next (owned) */
	size_t deferred_spare_cap;
	bool replaying;	      /* ... being taken again: those not the target's yet are kept once
			       * more (those deferred in the pass that ends), else dropped */
	uint64_t replay_pass; /* ... the pass that deferred the one being taken again */
	struct wc_bid_cache *bids; /* build-ids read from disk when MMAP2 records lack them */
	uint64_t in_delay[2][WC_IN_DELAY_BINS];
	uint64_t in_delay_n[2];
	/* per-task events: the context-switch records in an event of their own on each thread
	 * and CPU (rec_attr, a dummy), opened disabled and enabled on a CPU only where its
	 * switches into the target are not all traced (pertask.c wc_pertask_records_on());
	 * false: with the side band of the sched_switch events, on every CPU (as before
	 * December 2026, and WCREC_FORCE_SWITCH_RECORDS) */
	bool rec_split;
	int rec_track; /* ... the index of the event whose side band they were split from */
	struct perf_event_attr rec_attr;
	int *rec_fds;		 /* its descriptors */
	struct wc_map64 rec_ids; /* ... their ids -> 1 (drain.c second_set(); keys NULL: none) */
	int *rec_fd_ring;	 /* ... and the index of each one's ring */
	size_t nrec_fds, rec_fds_cap, rec_fd_ring_cap;
	/* drain.c: switch-ins taken from a sched_switch (a target thread's own, or a switch-in
	 * event's) into a thread not known as the target's yet, kept to the end of the pass, as
	 * the samples in deferred are; and the count of switch-ins so written */
	struct pending_in {
		uint64_t time_ns, pass; /* ... and the pass that read it (passes) */
		uint32_t tid, cpu;
	} * pend_in;
	size_t npend_in, pend_in_cap;
	uint64_t passes; /* drain passes over the rings ended */
	uint64_t direct_ins;
	bool enabled;	     /* wc_events_enable(, true) was called, and not (, false) since */
	bool started;	     /* ... it was called once */
	uint64_t enabled_ns; /* ... the time it returned (the events' clock, ns; 0 without
			      * use_clockid) */
	char why[256];
};

/* drain.c second_set(): the event index that stands for the context-switch records' dummy
 * event (ev->rec_ids), past every event's */
#define REC_SET_INDEX WC_MAX_EVENTS

/* Why ring.rec_on (pertask.c wc_pertask_records_on()). */
enum rec_why {
	REC_OFF,
	REC_PROBE,    /* the probe saw a switch into it that no sched_switch showed */
	REC_UNTRACED, /* a target thread switched out twice with no switch-in seen between */
	REC_UNPROBED, /* the probe did not run on this CPU, or failed */
	REC_NO_SWIN,  /* no switch-in events (ev->swin_why): switches from other tasks unseen */
	REC_EXIT,     /* a switch-in after an exiting target thread's last switch, not seen */
};

/* pertask.c: turn ring @c's context-switch records on (ev->rec_split), for reason @why (enum
 * rec_why), from the time @time_ns (0: the start) of the record that showed the need, which
 * named thread @tid.  Return: 0, or a negative errno of the ioctl (the others still tried). */
int wc_pertask_records_on(struct wc_events *ev, int c, int why, uint64_t time_ns, uint32_t tid);

/* CLOCK_MONOTONIC now, ns: the events' clock with use_clockid. */
static inline uint64_t mono_now_ns(void)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Is @pid a target whose user stacks are unwound (wc_events_set_targets())? */
static inline bool target_has(const struct wc_events *ev, uint32_t pid)
{
	size_t mask = ev->targets_cap - 1;

	if (!ev->targets_cap)
		return true;
	for (size_t i = (pid * 0x9e3779b1u) & mask;; i = (i + 1) & mask) {
		if (ev->targets[i] == pid)
			return true;
		if (!ev->targets[i])
			return false;
	}
}

/* Add @pid to the targets.  Return: 0 or -ENOMEM. */
int wc_events_target_add(struct wc_events *ev, uint32_t pid);

/* events.c for pertask.c: open one event (@a) on task @pid (-1: all) and @cpu, with the
 * fallbacks of older kernels; note its id (-ENOMEM when the table cannot grow).  Return: the
 * descriptor, or -1 with errno set. */
int wc_events_open_one(struct wc_events *ev, struct perf_event_attr *a, int pid, int cpu);
int wc_events_id_put(struct wc_events *ev, int fd, int event);
/* events.c: forget event id @id (its event closed and its records drained). */
void wc_events_id_remove(struct wc_events *ev, uint64_t id);

/* events.c for pertask.c: map @fd as ring @c's buffer, or have it write into the mapped one.
 * Return: 0 or a positive errno (ev->why set when the map failed). */
int wc_events_ring_attach(struct wc_events *ev, int c, int fd, unsigned pages, long page);

/* pertask.c: per-task events for a targeted recording (o->task_pids), unless the kernel lacks
 * what they need (ev->per_task, or ev->per_cpu_why set). */
void wc_pertask_choose(struct wc_events *ev, const struct wc_events_opts *o);

/* pertask.c: open the per-task events, or fall back to per-CPU ones where the kernel refuses
 * them (ev->per_task cleared).  Return: 0, or a positive errno (*@why set where there is more
 * to say). */
int wc_pertask_open(struct wc_events *ev, const struct wc_events_opts *o, const char **why);

/* pertask.c: open the events on every thread of the processes @pids not opened yet
 * (wc_events_add_tasks()).  Return: the threads opened, or a negative errno. */
int wc_pertask_add(struct wc_events *ev, const struct wc_events_opts *o, const int *pids, int n);

/* probe.c: measure each ring's probe_idle_ns and probe_task_ns (probe.c).  Return: 0 or a
 * negative errno (those of the CPUs not measured left 0). */
int wc_probe_in_delays(struct wc_events *ev, const struct wc_events_opts *o);

/* pertask.c: target thread @tid has events (opened, or seen forked): count it in
 * ev->wake_missed where the wakeup filter leaves its wakeups out. */
void wc_pertask_wake_check(struct wc_events *ev, uint32_t tid);

/* pertask.c: target thread @tid forked (@gone false) or exited (@gone true) at @time_ns (0:
 * listed at the start): the next wakeup filter names it or not (ev->wake_targets), the later
 * of its FORK and EXIT deciding (the rings are drained one after the other).  Return: 0 or
 * -ENOMEM. */
int wc_pertask_wake_track(struct wc_events *ev, uint32_t tid, bool gone, uint64_t time_ns);

/* pertask.c: @tid is the current task of a per-task event's record: one of the target's
 * threads (made before the events were on, or its FORK lost, when not known yet): tracked as
 * forked at @time_ns where new.  Return: 0 or -ENOMEM. */
int wc_pertask_seen(struct wc_events *ev, uint32_t tid, uint64_t time_ns);

/* pertask.c: was @tid a target thread at @time_ns (ns): alive, or exited since (its EXIT
 * record's time later)? */
bool wc_pertask_target_at(const struct wc_events *ev, uint32_t tid, uint64_t time_ns);
/* pertask.c: has target thread @tid exited (its EXIT record read, no FORK since)?  Then
 * *@time_ns is the EXIT's time. */
bool wc_pertask_exited(const struct wc_events *ev, uint32_t tid, uint64_t *time_ns);

/* pertask.c: ring @c's polled event hung up (its task gone): poll another of its events. */
void wc_pertask_hung_up(struct wc_events *ev, int c);

/* pertask.c: close the per-task events, and forget their threads.  Their ids stay known. */
void wc_pertask_close(struct wc_events *ev);

/* drain.c for seam.c: one record @h of ring @ring into the writer.  Return: 0 or the error. */
int wc_events_on_record(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
			const struct perf_event_header *h, int self_pid, struct wc_drain_stats *st);

/* drain.c for seam.c: is record @h stamped after @until_ns (0: no limit)?  A record without a
 * time is not. */
bool wc_events_after(const struct wc_events *ev, const struct perf_event_header *h,
		     uint64_t until_ns);

/* seam.c for drain.c: the records ring @r spilled, into the writer, before the ring's own; up
 * to the first stamped after @until_ns (0: all), the rest kept.  Return: 0 (all written), 1
 * (stopped at @until_ns), or the writer's error. */
int wc_events_drain_spill(struct wc_events *ev, struct ring *r, struct wc_writer *w, int self_pid,
			  uint64_t until_ns, struct wc_drain_stats *st);

static inline int id_get(const struct wc_events *ev, uint64_t id)
{
	size_t mask = ev->nids_slots - 1;

	for (size_t i = id & mask;; i = (i + 1) & mask) {
		if (ev->ids[i].id == id)
			return ev->ids[i].event;
		if (!ev->ids[i].id)
			return -1;
	}
}

#endif
