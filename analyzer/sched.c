/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched.c - see sched.h for the timeline and the rules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/sched.h"

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

/* Close @t's off-CPU interval at @end (a switch-in on @cpu, traced or inferred). */
static int close_off(struct wc_sched *s, struct wc_thread *t, uint64_t end, int32_t cpu,
		     bool inferred, uint64_t bound_ns)
{
	struct wc_off_interval iv = {
		.start_ns = t->since_ns,
		.wake_ns = t->since_ns,
		.end_ns = end,
		.state = t->state,
		.preempted = t->preempted,
		.inferred = inferred,
		.inferred_bound_ns = bound_ns,
		.cpu = cpu,
		.stack_id = t->stack_id,
	};

	if (end < t->since_ns)
		return 0;
	if (t->woken) {
		iv.waker_tid = t->waker_tid;
		iv.waker_stack_id = t->waker_stack_id;
		if (!t->preempted && !t->wake_provisional)
			iv.wake_ns = t->wake_ns < t->since_ns ? t->since_ns
				     : t->wake_ns > end	    ? end
							    : t->wake_ns;
	} else if (!t->preempted) {
		iv.no_wakeup = true;
		iv.wake_ns = end;
		s->counts.no_wakeup++;
	}
	return s->sink->off ? s->sink->off(s->ctx, t, &iv) : 0;
}

static void go_on(struct wc_thread *t, int32_t cpu, uint64_t time)
{
	t->in_by_record = false;
	t->run_state = WC_TS_ON_CPU;
	t->cpu = cpu;
	t->since_ns = time;
	t->woken = t->wake_provisional = t->pending_wake = false;
	t->seen_on_ns = 0;
	t->runtime_from_ns = 0;
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
static uint64_t infer_switch_in(struct wc_sched *s, const struct wc_thread *t, uint64_t time,
				int32_t cpu, enum how *how, uint64_t *bound)
{
	bool woken = t->preempted || (t->woken && t->wake_provisional) ||
		     (t->woken && t->wake_ns >= t->since_ns && t->wake_ns <= time);
	uint64_t tw = t->preempted || t->wake_provisional ? t->since_ns : t->wake_ns;
	uint64_t rule = max_u64(woken ? tw : t->since_ns, s->cpu_since_ns[cpu]);
	uint64_t lo = rule, hi = time, tick;
	bool bounded;

	if (t->seen_on_ns && t->seen_on_cpu == cpu && t->seen_on_ns <= time) {
		hi = t->seen_on_ns;
		lo = max_u64(lo, t->seen_off_ns);
		bounded = t->seen_on_grid;
	} else {
		tick = last_tick(s, (uint32_t)cpu, time);
		lo = max_u64(lo, tick);
		bounded = tick != 0;
	}
	if (lo > hi)
		lo = hi;
	*how = HOW_RULE;
	*bound = hi - lo; /* the switch-in is somewhere in [lo, hi] */
	if (t->runtime_from_ns) {
		*how = HOW_RUNTIME;
		return t->runtime_from_ns < lo ? lo : t->runtime_from_ns > hi ? hi : t->runtime_from_ns;
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

/* @prev leaves @cpu at @time in state @sw->state. */
static int switch_out(struct wc_sched *s, struct wc_thread *t, uint64_t time, int32_t cpu,
		      const struct wc_switch *sw, uint32_t stack_id)
{
	int err = 0;

	switch (t->run_state) {
	case WC_TS_ON_CPU:
		err = emit_run(s, t, cpu, t->since_ns, time);
		break;
	case WC_TS_OFF_CPU: {
		/* The switch-in was not traced: the task switched to it is one whose
		 * switch-outs the kernel did not report (the idle task on CPU 1 of this
		 * project's VMs, and there the threads of PID 1 too).  Inferred, with the
		 * run after it, where it can be; otherwise both are dropped and counted. */
		enum how how;
		uint64_t bound = 0, in = infer_switch_in(s, t, time, cpu, &how, &bound);

		s->counts.double_switch_out++;
		if (in) {
			s->counts.inferred_switch_in++;
			s->counts.inferred_by_samples += how == HOW_SAMPLES;
			s->counts.inferred_by_runtime += how == HOW_RUNTIME;
			err = close_off(s, t, in, cpu, true, bound);
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
		t->switches_involuntary++;
	else
		t->switches_voluntary++;
	bool pending = t->pending_wake && !sw->preempted;

	t->run_state = WC_TS_OFF_CPU;
	t->since_ns = time;
	t->state = sw->state;
	t->preempted = sw->preempted;
	t->stack_id = stack_id;
	t->cpu = cpu;
	t->woken = pending; /* woken on its way out: provisional, see sched.h */
	t->wake_provisional = pending;
	t->pending_wake = false;
	t->seen_on_ns = 0;
	t->runtime_from_ns = 0;
	return err;
}

static int switch_in(struct wc_sched *s, struct wc_thread *t, uint64_t time, int32_t cpu)
{
	int err = 0;

	switch (t->run_state) {
	case WC_TS_OFF_CPU:
		err = close_off(s, t, time, cpu, false, 0);
		break;
	case WC_TS_ON_CPU:
		/* a SWITCH_IN record put it on this CPU already: the same switch-in, seen twice
		 * (seen once here, the record 5.7 us before the sched_switch, beside another
		 * recorder): its run goes on from the first */
		if (t->in_by_record && t->cpu == cpu) {
			t->in_by_record = false;
			return 0;
		}
		s->counts.switch_in_running++;
		break;
	default:
		s->counts.start_unknown++;
		break;
	}
	go_on(t, cpu, time);
	return err;
}

int wc_sched_switch(struct wc_sched *s, uint64_t time_ns, uint32_t cpu,
		    const struct wc_switch *sw, uint32_t stack_id, uint32_t ctx_pid)
{
	struct wc_thread *t;
	int err;

	s->counts.switches++;
	if (cpu >= s->ncpus) {
		s->counts.bad_cpu++;
		return 0;
	}
	if (sw->prev_tid > 0) {
		t = wc_tasks_thread(s->tasks, (uint32_t)sw->prev_tid, ctx_pid, time_ns);
		if (!t)
			return -ENOMEM;
		if (sw->prev_comm[0])
			memcpy(t->comm, sw->prev_comm, sizeof(t->comm) - 1);
		err = switch_out(s, t, time_ns, (int32_t)cpu, sw, stack_id);
		if (err)
			return err;
	}
	if (sw->next_tid > 0) {
		t = wc_tasks_thread(s->tasks, (uint32_t)sw->next_tid, 0, time_ns);
		if (!t)
			return -ENOMEM;
		if (!t->comm[0])
			memcpy(t->comm, sw->next_comm, sizeof(t->comm) - 1);
		err = switch_in(s, t, time_ns, (int32_t)cpu);
		if (err)
			return err;
	}
	s->cpu_curr[cpu] = sw->next_tid > 0 ? (uint32_t)sw->next_tid : 0;
	s->cpu_since_ns[cpu] = time_ns;
	return 0;
}

int wc_sched_switch_in(struct wc_sched *s, uint64_t time_ns, uint64_t delay_ns, uint32_t cpu,
		       uint32_t tid, uint32_t pid)
{
	uint64_t in = time_ns > delay_ns ? time_ns - delay_ns : 0;
	struct wc_thread *t;
	int err;

	s->counts.switch_in_records++;
	if (cpu >= s->ncpus) {
		s->counts.bad_cpu++;
		return 0;
	}
	/* not before what came before it on the CPU */
	in = max_u64(in, s->cpu_since_ns[cpu]);
	if (tid) {
		t = wc_tasks_thread(s->tasks, tid, pid, time_ns);
		if (!t)
			return -ENOMEM;
		/* already on this CPU (a traced switch-in came first, or records were lost):
		 * its run goes on from where it began */
		if (t->run_state == WC_TS_ON_CPU && t->cpu == (int32_t)cpu)
			return 0; /* nothing to tell */
		/* nor before the thread left, or was woken */
		if (t->run_state == WC_TS_OFF_CPU)
			in = max_u64(in, t->woken && !t->wake_provisional && !t->preempted
						 ? max_u64(t->since_ns, t->wake_ns)
						 : t->since_ns);
		if (in > time_ns)
			in = time_ns;
		err = switch_in(s, t, in, (int32_t)cpu);
		if (err)
			return err;
		t->in_by_record = true;
	}
	s->cpu_curr[cpu] = tid;
	s->cpu_since_ns[cpu] = in < time_ns ? in : time_ns;
	return tid ? 1 : 0;
}

int wc_sched_wakeup(struct wc_sched *s, uint64_t time_ns, const struct wc_wakeup *wk,
		    bool is_new, uint32_t waker_tid, uint32_t waker_stack_id)
{
	struct wc_thread *t;

	s->counts.wakeups++;
	if (wk->tid <= 0)
		return 0;
	t = wc_tasks_thread(s->tasks, (uint32_t)wk->tid, 0, time_ns);
	if (!t)
		return -ENOMEM;
	if (!t->comm[0])
		memcpy(t->comm, wk->comm, sizeof(t->comm) - 1);
	if (is_new) { /* a new task waits for its first run: sch delay from here */
		if (t->run_state == WC_TS_UNKNOWN) {
			t->run_state = WC_TS_OFF_CPU;
			t->since_ns = t->wake_ns = time_ns;
			t->state = 'R';
			t->preempted = false;
			t->woken = true;
			t->wake_provisional = false;
			t->stack_id = 0;
			t->waker_tid = waker_tid;
			t->waker_stack_id = waker_stack_id;
			t->cpu = wk->target_cpu;
		}
		return 0;
	}
	switch (t->run_state) {
	case WC_TS_ON_CPU:
		s->counts.wakeup_running++;
		if (!t->pending_wake) {
			t->pending_wake = true;
			t->wake_ns = time_ns;
			t->waker_tid = waker_tid;
			t->waker_stack_id = waker_stack_id;
		}
		return 0;
	case WC_TS_OFF_CPU:
		if (t->preempted) {
			s->counts.wakeup_runnable++;
			return 0;
		}
		if (t->woken && !t->wake_provisional) {
			s->counts.wakeup_repeated++;
			return 0;
		}
		t->woken = true;
		t->wake_provisional = false;
		t->wake_ns = time_ns;
		t->waker_tid = waker_tid;
		t->waker_stack_id = waker_stack_id;
		if (wk->target_cpu >= 0)
			t->cpu = wk->target_cpu;
		return 0;
	default:
		s->counts.wakeup_unknown++;
		return 0;
	}
}

void wc_sched_sample(struct wc_sched *s, struct wc_thread *t, uint64_t time_ns, uint32_t cpu,
		     uint64_t tick_ns)
{
	uint64_t prev;
	bool on_grid = false;

	if (cpu >= s->ncpus)
		return;
	prev = s->cpu_sample_ns[cpu];
	if (tick_ns && prev && time_ns > prev) {
		uint64_t r = (time_ns - prev) % tick_ns;

		on_grid = r <= tick_ns / 8 || tick_ns - r <= tick_ns / 8;
	}
	if (t && t->run_state == WC_TS_OFF_CPU && !t->seen_on_ns && time_ns >= t->since_ns) {
		/* running, though its switch-in was not traced: it was not running at the
		 * CPU's previous sample (another task's), nor at the tick before this one */
		t->seen_on_ns = time_ns;
		t->seen_off_ns = on_grid ? max_u64(prev, time_ns - tick_ns) : prev;
		t->seen_on_grid = on_grid;
		t->seen_on_cpu = (int32_t)cpu;
	}
	s->cpu_sample_ns[cpu] = time_ns;
	s->cpu_tick_ns[cpu] = tick_ns;
	s->cpu_on_grid[cpu] = on_grid;
}

void wc_sched_context(struct wc_sched *s, uint32_t tid, uint64_t time_ns, uint32_t cpu)
{
	struct wc_thread *t;
	uint64_t tick;

	if (!tid || tid == UINT32_MAX || cpu >= s->ncpus)
		return;
	t = wc_tasks_find(s->tasks, tid);
	if (!t || t->run_state != WC_TS_OFF_CPU || t->seen_on_ns || time_ns < t->since_ns)
		return;
	/* running, though its switch-in was not traced; not running at the CPU's last sample
	 * (another task's), nor at the last tick before (none of its samples since it left) */
	tick = last_tick(s, cpu, time_ns);
	t->seen_on_ns = time_ns;
	t->seen_off_ns = tick ? tick : s->cpu_sample_ns[cpu] <= time_ns ? s->cpu_sample_ns[cpu] : 0;
	t->seen_on_grid = tick != 0;
	t->seen_on_cpu = (int32_t)cpu;
}

void wc_sched_runtime(struct wc_sched *s, uint32_t tid, uint64_t time_ns, uint64_t runtime_ns)
{
	struct wc_thread *t = wc_tasks_find(s->tasks, tid);

	if (!t || t->run_state != WC_TS_OFF_CPU || t->runtime_from_ns || time_ns < t->since_ns)
		return;
	/* it ran, though its switch-in was not traced: that came @runtime_ns before (kept
	 * after the switch-out by infer_switch_in()) */
	t->runtime_from_ns = runtime_ns < time_ns ? time_ns - runtime_ns : 1;
}

void wc_sched_finish(struct wc_sched *s, uint64_t end_ns)
{
	struct wc_tasks *tk = s->tasks;

	(void)end_ns;
	for (size_t i = 1; i < tk->nthreads; i++) {
		const struct wc_thread *t = &tk->threads[i];

		if (t->exited)
			continue;
		if (t->run_state == WC_TS_OFF_CPU)
			s->counts.open_off_at_end++;
		else if (t->run_state == WC_TS_ON_CPU)
			s->counts.open_run_at_end++;
	}
}
