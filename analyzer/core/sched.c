/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched.c - see sched.h for the timeline and the rules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "analyzer/core/sched.h"

/* The scheduler state of one thread, by its index in wc_tasks.threads; see sched.h. */
struct wc_sched_thread {
	uint8_t run_state;     /* enum wc_run_state */
	char state;	       /* switch-out state letter, while off-CPU */
	bool preempted;	       /* switched out runnable (R, R+) */
	bool woken;	       /* a wakeup came after the switch-out */
	bool wake_provisional; /* ... or came while it was still on its CPU */
	bool pending_wake;     /* a wakeup came while on-CPU (wake_ns, waker_* hold it) */
	bool in_by_record;     /* on-CPU since a SWITCH_IN record, not a traced switch-in */
	int32_t cpu;	       /* while on-CPU; the wakeup's target CPU while woken; -1 none */
	uint64_t since_ns;     /* switch-in or switch-out time */
	uint64_t wake_ns;
	uint32_t stack_id; /* off-CPU stack */
	uint32_t waker_tid, waker_stack_id;
	/* while off-CPU: its first CPU sample since the switch-out (so it ran: its switch-in
	 * was not traced), the CPU, and the latest moment it was seen not running */
	uint64_t seen_on_ns, seen_off_ns;
	int32_t seen_on_cpu;
	bool seen_on_grid; /* ... and the sample was on the CPU's tick grid */
	/* while off-CPU: the switch-in that its first sched_stat_runtime since the switch-out
	 * gives (event time minus runtime), 0 for none */
	uint64_t runtime_from_ns;
	/* while off-CPU: the first sched_stat delay since the switch-out and its time, 0 none */
	uint64_t stat_ns, stat_delay_ns;
	uint64_t switches_voluntary, switches_involuntary;
};

/* The state of @t, created (UNKNOWN) when new; NULL on ENOMEM. */
static struct wc_sched_thread *state_of(struct wc_sched *s, const struct wc_thread *t)
{
	size_t idx = (size_t)(t - s->tasks->threads);

	if (idx >= s->nthreads) {
		if (wc_grow((void **)&s->threads, &s->threads_cap, idx + 1, sizeof(*s->threads)))
			return NULL;
		for (size_t i = s->nthreads; i <= idx; i++)
			s->threads[i] = (struct wc_sched_thread){ .cpu = -1 };
		s->nthreads = idx + 1;
	}
	return &s->threads[idx];
}

/* The state of @t when it has one (NULL: UNKNOWN, nothing seen). */
static struct wc_sched_thread *find_state(const struct wc_sched *s, const struct wc_thread *t)
{
	size_t idx = (size_t)(t - s->tasks->threads);

	return idx < s->nthreads ? &s->threads[idx] : NULL;
}

int wc_sched_init(struct wc_sched *s, struct wc_tasks *tasks, uint32_t ncpus,
		  const struct wc_sched_sink *sink, void *ctx)
{
	s->tasks = tasks;
	s->ncpus = ncpus ? ncpus : 1;
	s->cpu_curr = calloc(s->ncpus, sizeof(*s->cpu_curr));
	s->cpu_since_ns = calloc(s->ncpus, sizeof(*s->cpu_since_ns));
	s->cpu_sample_ns = calloc(s->ncpus, sizeof(*s->cpu_sample_ns));
	s->cpu_tick_ns = calloc(s->ncpus, sizeof(*s->cpu_tick_ns));
	s->cpu_on_grid = calloc(s->ncpus, sizeof(*s->cpu_on_grid));
	s->sink = sink;
	s->ctx = ctx;
	s->counts = (struct wc_sched_counts){ 0 };
	s->threads = NULL;
	s->nthreads = s->threads_cap = 0;
	return s->cpu_curr && s->cpu_since_ns && s->cpu_sample_ns && s->cpu_tick_ns &&
			       s->cpu_on_grid
		       ? 0
		       : -ENOMEM;
}

void wc_sched_fini(struct wc_sched *s)
{
	free(s->cpu_curr);
	free(s->cpu_since_ns);
	free(s->cpu_sample_ns);
	free(s->cpu_tick_ns);
	free(s->cpu_on_grid);
	free(s->threads);
	s->threads = NULL;
	s->nthreads = s->threads_cap = 0;
	s->cpu_on_grid = NULL;
	s->cpu_curr = NULL;
	s->cpu_since_ns = NULL;
	s->cpu_sample_ns = s->cpu_tick_ns = NULL;
}

static int emit_run(struct wc_sched *s, struct wc_thread *t, int32_t cpu, uint64_t start,
		    uint64_t end)
{
	if (end < start || !s->sink->run)
		return 0;
	return s->sink->run(s->ctx, t, cpu, start, end);
}

/*
 * The off-CPU interval of @st as it stands if it ends at @end: blocked up to the first
 * wakeup (kept within the interval), or all of it without one; none of it when preempted or
 * woken on its way out (see sched.h).  The one rule for closed intervals and open ones.
 */
static struct wc_off_interval interval_to(const struct wc_sched_thread *st, uint64_t end)
{
	struct wc_off_interval iv = {
		.start_ns = st->since_ns,
		.wake_ns = st->since_ns,
		.end_ns = end,
		.state = st->state,
		.preempted = st->preempted,
		.stack_id = st->stack_id,
	};

	if (st->woken) {
		iv.waker_tid = st->waker_tid;
		iv.waker_stack_id = st->waker_stack_id;
		if (!st->preempted && !st->wake_provisional)
			iv.wake_ns = st->wake_ns < st->since_ns ? st->since_ns
				     : st->wake_ns > end	? end
								: st->wake_ns;
	} else if (!st->preempted) {
		iv.no_wakeup = true;
		iv.wake_ns = end;
	}
	return iv;
}

/* Close @t's off-CPU interval at @end (a switch-in on @cpu, traced or inferred). */
static int close_off(struct wc_sched *s, struct wc_thread *t, struct wc_sched_thread *st,
		     uint64_t end, int32_t cpu, bool inferred, uint64_t bound_ns)
{
	struct wc_off_interval iv;

	if (end < st->since_ns)
		return 0;
	iv = interval_to(st, end);
	iv.inferred = inferred;
	iv.inferred_bound_ns = bound_ns;
	iv.cpu = cpu;
	s->counts.no_wakeup += iv.no_wakeup;
	return s->sink->off ? s->sink->off(s->ctx, t, &iv) : 0;
}

/* The off-CPU interval of @t that its sched_stat delay gives (see sched.h), to the sink. */
static int close_by_stat(struct wc_sched *s, struct wc_thread *t, struct wc_sched_thread *st)
{
	struct wc_off_interval iv = {
		.start_ns = st->stat_ns -
			    (st->stat_delay_ns < st->stat_ns ? st->stat_delay_ns : st->stat_ns),
		.wake_ns = st->stat_ns,
		.end_ns = st->stat_ns,
		.state = st->state,
		.from_stat = true,
		.cpu = st->cpu,
		.stack_id = st->stack_id,
	};

	s->counts.stat_intervals++;
	st->stat_ns = 0;
	return s->sink->off ? s->sink->off(s->ctx, t, &iv) : 0;
}

static void go_on(struct wc_sched_thread *st, int32_t cpu, uint64_t time)
{
	st->in_by_record = false;
	st->run_state = WC_TS_ON_CPU;
	st->cpu = cpu;
	st->since_ns = time;
	st->woken = st->wake_provisional = st->pending_wake = false;
	st->seen_on_ns = 0;
	st->runtime_from_ns = 0;
	st->stat_ns = 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* What placed an untraced switch-in. */
enum how { HOW_RULE, HOW_SAMPLES, HOW_RUNTIME };

/* The CPU's last sampling tick before @time (none of them came from @t since it left when
 * @t had no sample since), or 0 when the CPU's ticks cannot be told. */
static uint64_t last_tick(const struct wc_sched *s, uint32_t cpu, uint64_t time)
{
	uint64_t g = s->cpu_sample_ns[cpu], tick = s->cpu_tick_ns[cpu], last;

	if (!tick || !s->cpu_on_grid[cpu] || g > time)
		return 0;
	last = g + (time - g) / tick * tick;
	return last == time ? last - tick : last;
}

/*
 * Where the untraced switch-in of @t, switched out again at @time on @cpu, came: its
 * inferred time, or 0 when it cannot be told (no wakeup, and no samples to bound it).
 *
 *   out       wakeup   last traced switch   tick: not @t   [in: not traced]   out again
 *   -+-----------+-------------+-----------------+---------------x---(sample of @t)--+->
 *    since_ns    tw            ti                lo              |   hi             time
 *
 * The switch-in came after the wakeup (the switch-out itself for a thread preempted, or
 * woken on its way out), after the CPU's last traced switch (which put there the task whose
 * switch to @t was not traced), and after any sample of another task on the CPU.  With a
 * per-CPU timer sampler (cpu-clock), it also came after the last tick with no sample of @t:
 * the tick before its first sample while believed off-CPU, else the CPU's last tick before
 * @time.  It came before that first sample (@time without one).
 *
 * When the CPU was idle as last traced and nothing puts the switch-in later than the
 * wakeup, the idle task took @t at once: the switch-in is at the wakeup, exact within the
 * wake-up latency.  Otherwise an untraced task ran first (PID 1's threads here), or the
 * wakeup itself was not traced (a timer interrupt in the untraced idle task): with the
 * ticks bounding it to one sampling period, the switch-in is taken at the middle of the
 * bounds (off by at most half a period); without them, at the wakeup when there is one
 * (the run then also gets what the untraced task ran), else it is unknown.
 *
 * A sched_stat_runtime of @t since it left (wcrec records them unless --no-runtime) beats
 * all of that: its time minus its runtime is the switch-in.  Its runtime is on the
 * scheduler's task clock, which can leave out interrupt time and the time a vCPU was not
 * running (IRQ_TIME_ACCOUNTING, PARAVIRT_TIME_ACCOUNTING), so the result is still kept
 * within the bounds above.
 */
static uint64_t infer_switch_in(struct wc_sched *s, const struct wc_sched_thread *st, uint64_t time,
				int32_t cpu, enum how *how, uint64_t *bound)
{
	bool woken = st->preempted || (st->woken && st->wake_provisional) ||
		     (st->woken && st->wake_ns >= st->since_ns && st->wake_ns <= time);
	uint64_t tw = st->preempted || st->wake_provisional ? st->since_ns : st->wake_ns;
	uint64_t rule = max_u64(woken ? tw : st->since_ns, s->cpu_since_ns[cpu]);
	uint64_t lo = rule, hi = time, tick;
	bool bounded;

	if (st->seen_on_ns && st->seen_on_cpu == cpu && st->seen_on_ns <= time) {
		hi = st->seen_on_ns;
		lo = max_u64(lo, st->seen_off_ns);
		bounded = st->seen_on_grid;
	} else {
		tick = last_tick(s, (uint32_t)cpu, time);
		lo = max_u64(lo, tick);
		bounded = tick != 0;
	}
	if (lo > hi)
		lo = hi;
	*how = HOW_RULE;
	*bound = hi - lo; /* the switch-in is somewhere in [lo, hi] */
	if (st->runtime_from_ns) {
		*how = HOW_RUNTIME;
		return st->runtime_from_ns < lo	  ? lo
		       : st->runtime_from_ns > hi ? hi
						  : st->runtime_from_ns;
	}
	if (woken && lo == rule && s->cpu_curr[cpu] == 0) {
		*bound = 0; /* exact within the wake-up latency */
		return rule;
	}
	if (bounded) { /* within one tick */
		*how = HOW_SAMPLES;
		*bound = (hi - lo + 1) / 2;
		return lo + (hi - lo) / 2;
	}
	return woken ? lo : 0;
}

/* @t (state @st) leaves @cpu at @time in state @sw->state; *@lost when it was off-CPU
 * already (its switch-in was not traced). */
static int switch_out(struct wc_sched *s, struct wc_thread *t, struct wc_sched_thread *st,
		      uint64_t time, int32_t cpu, const struct wc_switch *sw, uint32_t stack_id,
		      bool *lost)
{
	int err = 0;

	switch (st->run_state) {
	case WC_TS_ON_CPU:
		err = emit_run(s, t, cpu, st->since_ns, time);
		break;
	case WC_TS_OFF_CPU: {
		uint64_t rec = s->cpu_since_ns[cpu];

		if (st->stat_ns) { /* switch-ins not recorded: the sched_stat delay (sched.h) */
			err = close_by_stat(s, t, st);
			break;
		}
		if (s->cpu_curr[cpu] == WC_SCHED_EXITING && rec >= st->since_ns && rec <= time) {
			/* switched in by a record that could not name it (wc_sched_switch_in):
			 * the task leaving the CPU next is the one, and exactly so */
			err = close_off(s, t, st, rec, cpu, false, 0);
			if (!err)
				err = emit_run(s, t, cpu, rec, time);
			break;
		}
		/* The switch-in was not traced: the task switched to it is one whose
		 * switch-outs the kernel did not report (the idle task on CPU 1 of this
		 * project's VMs, and there the threads of PID 1 too).  Inferred, with the
		 * run after it, where it can be; otherwise both are dropped and counted. */
		enum how how;
		uint64_t bound = 0, in = infer_switch_in(s, st, time, cpu, &how, &bound);

		s->counts.double_switch_out++;
		*lost = true;
		if (in) {
			s->counts.inferred_switch_in++;
			s->counts.inferred_by_samples += how == HOW_SAMPLES;
			s->counts.inferred_by_runtime += how == HOW_RUNTIME;
			err = close_off(s, t, st, in, cpu, true, bound);
			if (!err)
				err = emit_run(s, t, cpu, in, time);
		} else {
			s->counts.unknown_dropped++;
		}
		break;
	}
	default:
		s->counts.run_start_unknown++;
		break;
	}
	if (sw->preempted)
		st->switches_involuntary++;
	else
		st->switches_voluntary++;
	bool pending = st->pending_wake && !sw->preempted;

	st->run_state = WC_TS_OFF_CPU;
	st->since_ns = time;
	st->state = sw->state;
	st->preempted = sw->preempted;
	st->stack_id = stack_id;
	st->cpu = cpu;
	st->woken = pending; /* woken on its way out: provisional, see sched.h */
	st->wake_provisional = pending;
	st->pending_wake = false;
	st->seen_on_ns = 0;
	st->runtime_from_ns = 0;
	st->stat_ns = 0;
	return err;
}

/* @t (state @st) comes on @cpu at @time; *@lost when it was on a CPU already (its switch-out
 * was not traced). */
static int switch_in(struct wc_sched *s, struct wc_thread *t, struct wc_sched_thread *st,
		     uint64_t time, int32_t cpu, bool *lost)
{
	int err = 0;

	switch (st->run_state) {
	case WC_TS_OFF_CPU:
		err = close_off(s, t, st, time, cpu, false, 0);
		break;
	case WC_TS_ON_CPU:
		/* a SWITCH_IN record put it on this CPU already: the same switch-in, seen twice
		 * (seen once here, the record 5.7 us before the sched_switch, beside another
		 * recorder): its run goes on from the first */
		if (st->in_by_record && st->cpu == cpu) {
			st->in_by_record = false;
			return 0;
		}
		s->counts.switch_in_running++;
		*lost = true;
		break;
	default:
		s->counts.start_unknown++;
		break;
	}
	go_on(st, cpu, time);
	return err;
}

/* Tell the sink that a switch of @tid was not traced (@kind), after all else of the event. */
static int report_lost(struct wc_sched *s, int32_t tid, enum wc_sched_lost kind)
{
	struct wc_thread *t = wc_tasks_find(s->tasks, (uint32_t)tid);

	return t && s->sink->lost ? s->sink->lost(s->ctx, t, kind) : 0;
}

int wc_sched_carried(struct wc_sched *s, uint32_t tid, uint32_t pid, uint64_t since_ns,
		     uint32_t cpu, const struct wc_switch *sw, uint32_t stack_id)
{
	struct wc_thread *t;
	struct wc_sched_thread *st;

	if (cpu >= s->ncpus) {
		s->counts.bad_cpu++;
		return 0;
	}
	if (!tid || tid == UINT32_MAX || (sw && sw->prev_tid != (int32_t)tid))
		return 0;
	t = wc_tasks_thread(s->tasks, tid, pid, since_ns);
	if (!t || !(st = state_of(s, t)))
		return -ENOMEM;
	if (st->run_state != WC_TS_UNKNOWN)
		return 0;
	s->counts.carried++;
	if (!sw) {
		go_on(st, (int32_t)cpu, since_ns);
		if (since_ns >= s->cpu_since_ns[cpu]) {
			s->cpu_curr[cpu] = tid;
			s->cpu_since_ns[cpu] = since_ns;
		}
		return 0;
	}
	if (sw->prev_comm[0] && !t->comm[0])
		memcpy(t->comm, sw->prev_comm, sizeof(t->comm) - 1);
	st->run_state = WC_TS_OFF_CPU;
	st->since_ns = since_ns;
	st->state = sw->state;
	st->preempted = sw->preempted;
	st->stack_id = stack_id;
	st->cpu = (int32_t)cpu;
	return 0;
}

int wc_sched_switch(struct wc_sched *s, uint64_t time_ns, uint32_t cpu, const struct wc_switch *sw,
		    uint32_t stack_id, uint32_t ctx_pid)
{
	struct wc_thread *t;
	struct wc_sched_thread *st;
	bool out_lost = false, in_lost = false;
	int err;

	s->counts.switches++;
	if (cpu >= s->ncpus) {
		s->counts.bad_cpu++;
		return 0;
	}
	if (sw->prev_tid > 0) {
		t = wc_tasks_thread(s->tasks, (uint32_t)sw->prev_tid, ctx_pid, time_ns);
		if (!t || !(st = state_of(s, t)))
			return -ENOMEM;
		if (sw->prev_comm[0])
			memcpy(t->comm, sw->prev_comm, sizeof(t->comm) - 1);
		err = switch_out(s, t, st, time_ns, (int32_t)cpu, sw, stack_id, &out_lost);
		if (err)
			return err;
	}
	if (sw->next_tid > 0 && !s->per_task) {
		t = wc_tasks_thread(s->tasks, (uint32_t)sw->next_tid, 0, time_ns);
		if (!t || !(st = state_of(s, t)))
			return -ENOMEM;
		if (!t->comm[0])
			memcpy(t->comm, sw->next_comm, sizeof(t->comm) - 1);
		err = switch_in(s, t, st, time_ns, (int32_t)cpu, &in_lost);
		if (err)
			return err;
	}
	s->cpu_curr[cpu] = sw->next_tid > 0 ? (uint32_t)sw->next_tid : 0;
	s->cpu_since_ns[cpu] = time_ns;
	err = out_lost ? report_lost(s, sw->prev_tid, WC_SCHED_LOST_SWITCH_IN) : 0;
	if (!err && in_lost)
		err = report_lost(s, sw->next_tid, WC_SCHED_LOST_SWITCH_OUT);
	return err;
}

int wc_sched_switch_in(struct wc_sched *s, uint64_t time_ns, uint64_t delay_ns, uint32_t cpu,
		       uint32_t tid, uint32_t pid)
{
	uint64_t in = time_ns > delay_ns ? time_ns - delay_ns : 0;
	struct wc_thread *t;
	struct wc_sched_thread *st;
	bool lost = false;
	int err;

	s->counts.switch_in_records++;
	if (cpu >= s->ncpus) {
		s->counts.bad_cpu++;
		return 0;
	}
	/* not before what came before it on the CPU */
	in = max_u64(in, s->cpu_since_ns[cpu]);
	if (tid == WC_SCHED_EXITING) { /* the task switched in is exiting: see sched.h */
		s->cpu_curr[cpu] = WC_SCHED_EXITING;
		s->cpu_since_ns[cpu] = in < time_ns ? in : time_ns;
		return 0;
	}
	if (tid) {
		t = wc_tasks_thread(s->tasks, tid, pid, time_ns);
		if (!t || !(st = state_of(s, t)))
			return -ENOMEM;
		/* already on this CPU (a traced switch-in came first, or records were lost):
		 * its run goes on from where it began */
		if (st->run_state == WC_TS_ON_CPU && st->cpu == (int32_t)cpu)
			return 0; /* nothing to tell */
		/* nor before the thread left, or was woken */
		if (st->run_state == WC_TS_OFF_CPU)
			in = max_u64(in, st->woken && !st->wake_provisional && !st->preempted
						 ? max_u64(st->since_ns, st->wake_ns)
						 : st->since_ns);
		if (in > time_ns)
			in = time_ns;
		err = switch_in(s, t, st, in, (int32_t)cpu, &lost);
		if (err)
			return err;
		st->in_by_record = true;
	}
	s->cpu_curr[cpu] = tid;
	s->cpu_since_ns[cpu] = in < time_ns ? in : time_ns;
	err = lost ? report_lost(s, (int32_t)tid, WC_SCHED_LOST_SWITCH_OUT) : 0;
	return err ? err : tid ? 1 : 0;
}

int wc_sched_exit(struct wc_sched *s, uint64_t time_ns, uint32_t tid, uint32_t pid,
		  struct wc_switch *sw, uint32_t *cpu)
{
	struct wc_thread *t;
	struct wc_sched_thread *st;
	bool lost = false;
	int err;

	if (!s->per_task)
		return 0;
	t = wc_tasks_find(s->tasks, tid);
	st = t ? find_state(s, t) : NULL;
	if (!st || st->run_state != WC_TS_ON_CPU || st->cpu < 0 || time_ns < st->since_ns)
		return 0;
	*sw = (struct wc_switch){ .prev_tid = (int32_t)tid, .next_tid = -1, .state = 'X' };
	if (tid == pid) /* a process's leader stays a zombie for its parent to reap */
		sw->state = 'Z';
	sw->state_text[0] = sw->state;
	memcpy(sw->prev_comm, t->comm, sizeof(sw->prev_comm) - 1);
	*cpu = (uint32_t)st->cpu;
	if (*cpu < s->ncpus && s->cpu_curr[*cpu] == tid) /* what runs next is not recorded */
		s->cpu_curr[*cpu] = 0;
	err = switch_out(s, t, st, time_ns, st->cpu, sw, WC_STACK_NONE, &lost);
	return err ? err : 1;
}

/* A new task's wakeup (sched_wakeup_new): it waits for its first run, sch delay from here. */
static void woken_new(struct wc_sched_thread *st, uint64_t time_ns, const struct wc_wakeup *wk,
		      uint32_t waker_tid, uint32_t waker_stack_id)
{
	st->run_state = WC_TS_OFF_CPU;
	st->since_ns = st->wake_ns = time_ns;
	st->state = 'R';
	st->preempted = false;
	st->woken = true;
	st->wake_provisional = false;
	st->stack_id = 0;
	st->waker_tid = waker_tid;
	st->waker_stack_id = waker_stack_id;
	st->cpu = wk->target_cpu;
}

/* The wakeup of a thread off-CPU, not preempted: its wait for a CPU begins. */
static void woken(struct wc_sched_thread *st, uint64_t time_ns, const struct wc_wakeup *wk,
		  uint32_t waker_tid, uint32_t waker_stack_id)
{
	st->woken = true;
	st->wake_provisional = false;
	st->wake_ns = time_ns;
	st->waker_tid = waker_tid;
	st->waker_stack_id = waker_stack_id;
	if (wk->target_cpu >= 0)
		st->cpu = wk->target_cpu;
}

/* The thread state of @wk->tid, made where new (its comm from @wk).  NULL: -ENOMEM. */
static struct wc_sched_thread *woken_state(struct wc_sched *s, uint64_t time_ns,
					   const struct wc_wakeup *wk)
{
	struct wc_thread *t = wc_tasks_thread(s->tasks, (uint32_t)wk->tid, 0, time_ns);
	struct wc_sched_thread *st = t ? state_of(s, t) : NULL;

	if (st && !t->comm[0])
		memcpy(t->comm, wk->comm, sizeof(t->comm) - 1);
	return st;
}

int wc_sched_wakeup(struct wc_sched *s, uint64_t time_ns, const struct wc_wakeup *wk, bool is_new,
		    uint32_t waker_tid, uint32_t waker_stack_id)
{
	struct wc_sched_thread *st;

	s->counts.wakeups++;
	if (wk->tid <= 0)
		return 0;
	st = woken_state(s, time_ns, wk);
	if (!st)
		return -ENOMEM;
	if (is_new) {
		if (st->run_state == WC_TS_UNKNOWN)
			woken_new(st, time_ns, wk, waker_tid, waker_stack_id);
		return 0;
	}
	switch (st->run_state) {
	case WC_TS_ON_CPU:
		s->counts.wakeup_running++;
		if (!st->pending_wake) {
			st->pending_wake = true;
			st->wake_ns = time_ns;
			st->waker_tid = waker_tid;
			st->waker_stack_id = waker_stack_id;
		}
		return 0;
	case WC_TS_OFF_CPU:
		if (st->preempted) {
			s->counts.wakeup_runnable++;
			return 0;
		}
		if (st->woken && !st->wake_provisional) {
			s->counts.wakeup_repeated++;
			return 0;
		}
		woken(st, time_ns, wk, waker_tid, waker_stack_id);
		return 0;
	default:
		s->counts.wakeup_unknown++;
		return 0;
	}
}

int wc_sched_carried_wakeup(struct wc_sched *s, uint64_t time_ns, const struct wc_wakeup *wk,
			    bool is_new, uint32_t waker_tid, uint32_t waker_stack_id)
{
	struct wc_sched_thread *st;

	if (wk->tid <= 0)
		return 0;
	st = woken_state(s, time_ns, wk);
	if (!st)
		return -ENOMEM;
	if (is_new && st->run_state == WC_TS_UNKNOWN) {
		s->counts.carried++; /* its state: new, waiting for its first run */
		woken_new(st, time_ns, wk, waker_tid, waker_stack_id);
	} else if (!is_new && st->run_state == WC_TS_OFF_CPU && !st->preempted && !st->woken) {
		woken(st, time_ns, wk, waker_tid, waker_stack_id);
		/* woken on its way out: as switch_out() takes a pending wakeup */
		st->wake_provisional = time_ns < st->since_ns;
	}
	return 0;
}

void wc_sched_sample(struct wc_sched *s, struct wc_thread *t, uint64_t time_ns, uint32_t cpu,
		     uint64_t tick_ns)
{
	struct wc_sched_thread *st = t ? find_state(s, t) : NULL;
	uint64_t prev;
	bool on_grid = false;

	if (cpu >= s->ncpus)
		return;
	prev = s->cpu_sample_ns[cpu];
	if (tick_ns && prev && time_ns > prev) {
		uint64_t r = (time_ns - prev) % tick_ns;

		on_grid = r <= tick_ns / 8 || tick_ns - r <= tick_ns / 8;
	}
	if (st && st->run_state == WC_TS_OFF_CPU && !st->seen_on_ns && time_ns >= st->since_ns) {
		/* running, though its switch-in was not traced: it was not running at the
		 * CPU's previous sample (another task's), nor at the tick before this one */
		st->seen_on_ns = time_ns;
		st->seen_off_ns = on_grid ? max_u64(prev, time_ns - tick_ns) : prev;
		st->seen_on_grid = on_grid;
		st->seen_on_cpu = (int32_t)cpu;
	}
	s->cpu_sample_ns[cpu] = time_ns;
	s->cpu_tick_ns[cpu] = tick_ns;
	s->cpu_on_grid[cpu] = on_grid;
}

void wc_sched_context(struct wc_sched *s, uint32_t tid, uint64_t time_ns, uint32_t cpu)
{
	struct wc_thread *t;
	struct wc_sched_thread *st;
	uint64_t tick;

	if (!tid || tid == UINT32_MAX || cpu >= s->ncpus)
		return;
	t = wc_tasks_find(s->tasks, tid);
	st = t ? find_state(s, t) : NULL;
	if (!st || st->run_state != WC_TS_OFF_CPU || st->seen_on_ns || time_ns < st->since_ns)
		return;
	/* running, though its switch-in was not traced; not running at the CPU's last sample
	 * (another task's), nor at the last tick before (none of its samples since it left) */
	tick = last_tick(s, cpu, time_ns);
	st->seen_on_ns = time_ns;
	st->seen_off_ns = tick				     ? tick
			  : s->cpu_sample_ns[cpu] <= time_ns ? s->cpu_sample_ns[cpu]
							     : 0;
	st->seen_on_grid = tick != 0;
	st->seen_on_cpu = (int32_t)cpu;
}

void wc_sched_runtime(struct wc_sched *s, uint32_t tid, uint64_t time_ns, uint64_t runtime_ns)
{
	struct wc_thread *t = wc_tasks_find(s->tasks, tid);
	struct wc_sched_thread *st = t ? find_state(s, t) : NULL;

	if (!st || st->run_state != WC_TS_OFF_CPU || st->runtime_from_ns || time_ns < st->since_ns)
		return;
	/* it ran, though its switch-in was not traced: that came @runtime_ns before (kept
	 * after the switch-out by infer_switch_in()) */
	st->runtime_from_ns = runtime_ns < time_ns ? time_ns - runtime_ns : 1;
}

int wc_sched_stat(struct wc_sched *s, uint64_t time_ns, uint32_t tid, uint64_t delay_ns)
{
	struct wc_thread *t = tid ? wc_tasks_find(s->tasks, tid) : NULL;
	struct wc_sched_thread *st = t ? find_state(s, t) : NULL;

	s->counts.stats++;
	/* perf inject -s drops an event of a tid with no sched_switch kept; so do we, and one
	 * of a tid believed running, or switched out runnable (it did not sleep) */
	if (!st || st->run_state != WC_TS_OFF_CPU || st->preempted || time_ns < st->since_ns) {
		s->counts.stat_unmatched++;
		return 0;
	}
	if (st->stat_ns) {
		s->counts.stat_repeated++;
		return 0;
	}
	st->stat_ns = time_ns ? time_ns : 1;
	st->stat_delay_ns = delay_ns;
	return 0;
}

int wc_sched_finish(struct wc_sched *s, uint64_t end_ns)
{
	struct wc_tasks *tk = s->tasks;
	int err;

	(void)end_ns;
	for (size_t i = 1; i < tk->nthreads && i < s->nthreads; i++) {
		struct wc_sched_thread *st = &s->threads[i];

		if (st->run_state == WC_TS_OFF_CPU && st->stat_ns) {
			/* the sleep ended: its switch-in was not recorded (sched.h) */
			err = close_by_stat(s, &tk->threads[i], st);
			if (err)
				return err;
			st->run_state = WC_TS_UNKNOWN; /* woken: where it is now is not known */
			continue;
		}
		if (tk->threads[i].exited)
			continue;
		if (st->run_state == WC_TS_OFF_CPU)
			s->counts.open_off_at_end++;
		else if (st->run_state == WC_TS_ON_CPU)
			s->counts.open_run_at_end++;
	}
	return 0;
}

enum wc_run_state wc_sched_state(const struct wc_sched *s, const struct wc_thread *t,
				 uint64_t end_ns, struct wc_off_interval *open)
{
	const struct wc_sched_thread *st = find_state(s, t);

	*open = (struct wc_off_interval){ .cpu = -1 };
	if (!st || st->run_state == WC_TS_UNKNOWN)
		return WC_TS_UNKNOWN;
	if (st->run_state == WC_TS_ON_CPU) {
		*open = (struct wc_off_interval){ .start_ns = st->since_ns,
						  .wake_ns = st->since_ns,
						  .end_ns = end_ns,
						  .cpu = st->cpu };
		return WC_TS_ON_CPU;
	}
	*open = interval_to(st, end_ns);
	open->cpu = st->cpu;
	return WC_TS_OFF_CPU;
}

void wc_sched_switches(const struct wc_sched *s, const struct wc_thread *t, uint64_t *voluntary,
		       uint64_t *involuntary)
{
	const struct wc_sched_thread *st = find_state(s, t);

	*voluntary = st ? st->switches_voluntary : 0;
	*involuntary = st ? st->switches_involuntary : 0;
}
