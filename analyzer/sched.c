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
	s->sink = sink;
	s->ctx = ctx;
	s->counts = (struct wc_sched_counts){ 0 };
	return s->cpu_curr && s->cpu_since_ns ? 0 : -ENOMEM;
}

void wc_sched_fini(struct wc_sched *s)
{
	free(s->cpu_curr);
	free(s->cpu_since_ns);
	s->cpu_curr = NULL;
	s->cpu_since_ns = NULL;
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
		     bool inferred)
{
	struct wc_off_interval iv = {
		.start_ns = t->since_ns,
		.wake_ns = t->since_ns,
		.end_ns = end,
		.state = t->state,
		.preempted = t->preempted,
		.inferred = inferred,
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
	t->run_state = WC_TS_ON_CPU;
	t->cpu = cpu;
	t->since_ns = time;
	t->woken = t->wake_provisional = t->pending_wake = false;
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
		/*
		 * The switch-in was not traced: the task switched to it is one whose
		 * switch-outs the kernel did not report (the idle task on CPU 1 of this
		 * project's VMs, and there the threads of PID 1 too).  It came after the
		 * wakeup (the switch-out itself for a preempted task, or one woken on its way
		 * out) and after the last traced switch on this CPU, which put that task
		 * there:
		 *
		 *   out        wakeup   last switch on cpu   [in: not traced]      out again
		 *   -+------------+-----------+--------------------+-------------------+->
		 *    |<-blocked-->|<- sch delay, counted as 0 ->|<------ run --------->|
		 *    t0           tw          ti        inferred = max(tw, ti)         time
		 *
		 * The switch-in is inferred at the later of the two, exact when the CPU sat
		 * idle (the switch follows the wakeup within the wake-up latency); the run
		 * gets what the untraced task ran after that.  A sleeper with no wakeup seen
		 * (woken from an interrupt in the untraced idle task) has no lower bound:
		 * the interval and the run are unknown, dropped and counted.
		 */
		uint64_t tw, ti = s->cpu_since_ns[cpu];
		bool bound = t->preempted || (t->woken && t->wake_provisional);

		s->counts.double_switch_out++;
		if (!bound && t->woken && t->wake_ns >= t->since_ns && t->wake_ns <= time)
			bound = true;
		tw = t->preempted || t->wake_provisional ? t->since_ns : t->wake_ns;
		if (bound) {
			uint64_t in = tw > ti ? tw : ti;

			if (in > time)
				in = time;
			s->counts.inferred_switch_in++;
			err = close_off(s, t, in, cpu, true);
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
	return err;
}

static int switch_in(struct wc_sched *s, struct wc_thread *t, uint64_t time, int32_t cpu)
{
	int err = 0;

	switch (t->run_state) {
	case WC_TS_OFF_CPU:
		err = close_off(s, t, time, cpu, false);
		break;
	case WC_TS_ON_CPU:
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
