/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist.c - see timehist.h.  The layout of every line follows perf 6.1's builtin-sched.c
 * (timehist_header, timehist_print_sample, timehist_print_wakeup_event,
 * timehist_print_migration_event, timehist_print_summary); the differences on purpose are
 * listed in man/wcanalyze-timehist.1, NOTES.
 *
 * Here: which rows there are, with what values, from the state machine's runs and intervals;
 * timehist-write.c formats them.  The statistics for the summary are gathered here, as the
 * rows are; timehist-summary.c writes the summary and the footer from them.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/callchain.h"
#include "common/grow.h"
#include "analyzer/reports/timehist-priv.h"

/* --- statistics ------------------------------------------------------------------------ */

static void stat_add(struct tstat *s, uint64_t v)
{
	double delta;

	if (!s->n)
		s->min = UINT64_MAX;
	s->n++;
	s->total += v;
	delta = (double)v - s->mean;
	s->mean += delta / (double)s->n;
	s->m2 += delta * ((double)v - s->mean);
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
}

/* --- the replay side ------------------------------------------------------------------- */

void th_set_window(struct wc_timehist *th)
{
	th->window_set = true;
	th->win = wc_filter_window(&th->o.filter, wc_analysis_facts(th->a)->start_ns);
}

static struct trt *trt_of(struct wc_timehist *th, size_t idx)
{
	if (idx >= th->ntrt) {
		size_t n = th->ntrt ? th->ntrt : 1024;

		while (n <= idx)
			n *= 2;
		struct trt *r = realloc(th->trt, n * sizeof(*r));

		if (!r)
			return NULL;
		memset(r + th->ntrt, 0, (n - th->ntrt) * sizeof(*r));
		th->trt = r;
		th->ntrt = n;
	}
	return &th->trt[idx];
}

static size_t index_of(const struct wc_timehist *th, const struct wc_thread *t)
{
	return (size_t)(t - wc_analysis_tasks(th->a)->threads);
}

static int on_run(void *ctx, struct wc_thread *t, int32_t cpu, uint64_t start, uint64_t end)
{
	struct wc_timehist *th = ctx;

	(void)cpu;
	th->pending.idx = (uint32_t)index_of(th, t);
	th->pending.tid = t->tid;
	th->pending.start = start;
	th->pending.end = end;
	return 0;
}

static int on_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	struct wc_timehist *th = ctx;
	struct trt *r = trt_of(th, index_of(th, t));

	if (!r)
		return -ENOMEM;
	r->off_start = iv->start_ns;
	r->off_wake = iv->wake_ns;
	r->off_end = iv->end_ns;
	r->have_off = true;
	/* sched.c gives a new task's wait for its first run (from sched_wakeup_new) state R
	 * without preemption: no switch-out began it */
	r->off_kind = iv->preempted	 ? K_PREEMPT
		      : iv->state == 'R' ? K_NEW
		      : iv->state == 'D' ? K_IOWAIT
					 : K_SLEEP;
	return 0;
}

static bool shows(const struct wc_timehist *th, const struct wc_thread *t)
{
	return t && wc_filter_thread(&th->o.filter, th->a, t);
}

/* "comm[tid/pid]" of @thr for its rows, kept in @r while its comm and pid stay */
static void row_name(struct wc_timehist *th, struct trt *r, const struct wc_thread *thr)
{
	if (!r->name_len || r->name_pid != thr->pid || strncmp(r->name_comm, thr->comm, 16)) {
		r->name_len = (uint8_t)strlen(th_thread_str(th, r->name, thr));
		r->name_pid = thr->pid;
		memcpy(r->name_comm, thr->comm, 16); /* compared up to its NUL: the rest is unset */
	}
}

/*
 * -I: the switch-out of a task that leaves the CPU idle.  The idle period that follows is
 * credited to the task (perf's last_thread), by this switch-out's callchain; the row is
 * perf's: it keeps no times of tasks with -I, so the three columns are 0.000.
 */
static int idle_hist_task_row(struct wc_timehist *th, const struct wc_sched_event *ev,
			      struct wc_thread *thr, size_t idx, struct trt *r)
{
	uint32_t chain = 0;
	int err;

	err = th_chain_of(th, ev->stack_id, thr->aspace, &chain);
	if (err)
		return err;
	th->cpus[ev->cpu].last_thread = (uint32_t)idx;
	th->cpus[ev->cpu].last_chain = chain;
	if (!th->o.events)
		return 0;
	row_name(th, r, thr);
	return th_put_row(th, ev,
			  &(struct th_row){ .name = r->name,
					    .name_len = r->name_len,
					    .known_wait = true,
					    .known_delay = true,
					    .known_run = true,
					    .state = ev->sw->state_text,
					    .chain = chain });
}

/* The row of a task switched out; its run, and the interval before it, go to its stats. */
static int task_row(struct wc_timehist *th, const struct wc_sched_event *ev)
{
	const struct wc_switch *sw = ev->sw;
	const uint64_t t = ev->time_ns;
	bool known_run = th->pending.tid == (uint32_t)sw->prev_tid && th->pending.end == t;
	struct wc_thread *thr =
		known_run ? &wc_analysis_tasks(th->a)->threads[th->pending.idx]
			  : wc_tasks_find(wc_analysis_tasks(th->a), (uint32_t)sw->prev_tid);
	bool known_off;
	uint64_t start, wait = 0, delay = 0;
	uint32_t chain = 0;
	struct trt *r;
	size_t idx;
	int err;

	if (!thr)
		return 0;
	idx = index_of(th, thr);
	r = trt_of(th, idx);
	if (!r)
		return -ENOMEM;
	start = known_run ? th->pending.start : t;
	known_off = known_run && r->have_off && r->off_end == start;
	if (t < th->win.t0 || start >= th->win.t1)
		return 0;
	if (!shows(th, thr))
		return 0;
	if (th->o.idle_hist) /* perf: only the switches to and from idle (timehist_skip_sample) */
		return ev->sw->next_tid == 0 ? idle_hist_task_row(th, ev, thr, idx, r) : 0;
	/* the summary counts the time inside the window; the row shows the whole values.  A
	 * run of unknown start is a sched-in all the same, as perf counts every switch-out
	 * (builtin-sched.c, timehist_update_runtime_stats), but has no time to add. */
	if (known_run)
		stat_add(&r->run, wc_window_clip(th->win, start, t));
	else
		r->unknown_runs++;
	if (known_off) {
		uint64_t w = wc_window_clip(th->win, r->off_start, r->off_end);

		if (r->off_kind == K_PREEMPT)
			r->preempt_ns += w;
		else if (r->off_kind == K_IOWAIT)
			r->iowait_ns += w;
		else if (r->off_kind == K_SLEEP)
			r->sleep_ns += w;
		r->delay_ns += wc_window_clip(th->win, r->off_wake, r->off_end);
		wait = r->off_end - r->off_start;
		delay = r->off_end - r->off_wake;
		if (r->off_kind == K_NEW) /* waiting for its first run: all of it sch delay */
			wait = delay;
	}
	if (!th->o.events)
		return 0;
	row_name(th, r, thr);
	if (th->o.callchain && r->last_stack == ev->stack_id && r->last_aspace == thr->aspace) {
		chain = r->last_chain; /* a thread often sleeps where it slept before */
	} else if (th->o.callchain) {
		err = th_chain_of(th, ev->stack_id, thr->aspace, &chain);
		if (err)
			return err;
		r->last_stack = ev->stack_id;
		r->last_aspace = thr->aspace;
		r->last_chain = chain;
	}
	return th_put_row(th, ev,
			  &(struct th_row){ .name = r->name,
					    .name_len = r->name_len,
					    .wait = wait,
					    .delay = delay,
					    .run = t - start,
					    .known_wait = known_off,
					    .known_delay = known_off,
					    .known_run = known_run,
					    .state = sw->state_text,
					    .chain = chain });
}

/* The row of the idle task of a CPU switched out: the idle period that ends. */
static int idle_row(struct wc_timehist *th, const struct wc_sched_event *ev, struct tcpu *c)
{
	const uint64_t t = ev->time_ns;
	bool known_run = c->idle_since != 0, known_wait = known_run && c->idle_out;
	uint64_t start = known_run ? c->idle_since : t, run = 0, wait = 0;
	bool show = th->idle_open;

	if (t < th->win.t0 || start >= th->win.t1)
		return 0;
	run = t - start;
	if (known_wait)
		wait = start - c->idle_out;
	if (known_run)
		stat_add(&c->idle, wc_window_clip(th->win, start, t));
	else
		c->idle_unknown++; /* a context switch all the same, as for a task */
	if (th->o.idle_hist && c->last_thread) {
		struct trt *r = &th->trt[c->last_thread];

		show = true; /* the last thread passed the filters when it was kept */
		if (known_run) {
			uint64_t in = wc_window_clip(th->win, start, t);

			stat_add(&r->run, in);
			if (c->last_chain) {
				uint64_t key = (uint64_t)(ev->cpu) << 40 | c->last_chain, *v;
				int inserted;

				v = wc_map64_put(&th->hit_index, key, th->nhits, &inserted);
				if (!v || (inserted && wc_grow((void **)&th->hits, &th->hits_cap,
							       th->nhits + 1, sizeof(*th->hits))))
					return -ENOMEM;
				if (inserted)
					th->hits[th->nhits++] =
						(struct chain_hit){ ev->cpu, c->last_chain };
				th->hits[*v].hit_ns += in;
				th->hits[*v].count++;
			}
		}
	}
	if (!th->o.events || !show)
		return 0;
	/* idle never waits for a CPU: its sch delay is 0 (perf 6.1 prints 0 too) */
	return th_put_row(th, ev,
			  &(struct th_row){ .name = "<idle>",
					    .name_len = 6,
					    .wait = wait,
					    .run = run,
					    .known_wait = known_wait,
					    .known_delay = true,
					    .known_run = known_run,
					    .state = "I" });
}

static int on_switch(struct wc_timehist *th, const struct wc_sched_event *ev)
{
	const struct wc_switch *sw = ev->sw;
	struct tcpu *c = ev->cpu < th->ncpus ? &th->cpus[ev->cpu] : NULL;
	uint64_t t = ev->time_ns;
	int err = 0;

	if (!c) /* beyond the host's CPUs: sched.c counted it and left it out */
		return 0;
	if (t >= th->win.t0 && t <= th->win.t1) {
		if (!th->first_ns)
			th->first_ns = t;
		th->last_ns = t;
		c->seen = true;
	} else if (t > th->win.t1 && th->last_ns < th->win.t1 && th->first_ns) {
		th->last_ns = th->win.t1; /* perf clips the last switch to the window's end */
	}
	/* the idle task of this CPU: a switch out of something else while idle was on means
	 * its switch-out was not traced (CPU 1 of this project's VMs) */
	if (sw->prev_tid != 0 && c->idle_since) {
		c->cut_all++;
		if (t >= th->win.t0 && t < th->win.t1)
			c->idle_cut++;
		c->idle_since = 0;
		c->idle_out = 0;
		c->last_thread = 0;
	}
	if (sw->prev_tid > 0)
		err = task_row(th, ev);
	else
		err = idle_row(th, ev, c);
	if (err)
		return err;
	if (sw->prev_tid == 0)
		c->idle_out = t;
	if (sw->prev_tid == 0 || sw->next_tid != 0)
		c->last_thread = 0;
	c->idle_since = sw->next_tid == 0 ? t : 0;
	return 0;
}

/* -w: "awakened:" rows; -M: "migrated:" rows.  Shown unless both tasks are filtered out. */
static int other_row(struct wc_timehist *th, const struct wc_sched_event *ev)
{
	const struct wc_tasks *tk = wc_analysis_tasks(th->a);
	const struct wc_thread *ctx = ev->ctx_tid ? wc_tasks_find(tk, ev->ctx_tid) : NULL;
	const struct wc_thread *obj;
	int32_t tid = ev->wk ? ev->wk->tid : ev->mig->tid;

	if (ev->mig) {
		obj = tid > 0 ? wc_tasks_find(tk, (uint32_t)tid) : NULL;
		if (obj && ev->time_ns >= th->win.t0 && ev->time_ns < th->win.t1) {
			struct trt *r = trt_of(th, index_of(th, obj));

			if (!r)
				return -ENOMEM;
			r->migrations++;
		}
		if (!th->o.migrations)
			return 0;
	} else if (!th->o.wakeups) {
		return 0;
	}
	if (th->o.idle_hist) /* perf: only switches to and from idle (timehist_skip_sample) */
		return 0;
	if (!th->o.events || ev->time_ns < th->win.t0 || ev->time_ns >= th->win.t1)
		return 0;
	obj = tid > 0 ? wc_tasks_find(tk, (uint32_t)tid) : NULL;
	if (!(ev->ctx_tid ? shows(th, ctx) : th->idle_open) && !shows(th, obj))
		return 0;
	return th_put_other_row(th, ev, ctx, obj, tid);
}

static int on_event(void *ctx, const struct wc_sched_event *ev)
{
	struct wc_timehist *th = ctx;
	int err;

	if (!th->window_set)
		th_set_window(th);
	if (ev->sw)
		err = on_switch(th, ev);
	else if (ev->wk || ev->mig)
		err = other_row(th, ev);
	else
		err = 0;
	return err ? err : th->err;
}

/*
 * Whether the switch events carry callchains (their EVENT_ATTR's sample_type): without, perf
 * turns its -g off ("Samples do not have callchains", timehist_check_attr) and the rows end
 * after the last column, with none of the two spaces before the callchain.
 */
static bool switch_callchains(const struct wc_analysis *a, const struct wc_replay_meta *m)
{
	for (int id = 0; id < WC_REPLAY_MAX_EVENTS; id++)
		if (m->events[id].present && wc_analysis_role(a, id) == WC_TP_SWITCH &&
		    (m->events[id].sample_type & PERF_SAMPLE_CALLCHAIN))
			return true;
	return false;
}

static int on_begin(void *ctx, struct wc_analysis *a)
{
	struct wc_timehist *th = ctx;
	const struct wc_replay_meta *m = wc_replay_meta(wc_analysis_replay(a));
	const struct wc_filter *f = &th->o.filter;

	th->a = a;
	if (!wc_analysis_facts(a)->have_switch)
		return -ENOENT;
	th->ncpus = wc_analysis_sched(a)->ncpus;
	th->nvis = m->ncpus_configured ? m->ncpus_configured
		   : m->ncpus_online   ? m->ncpus_online
				       : 1;
	th->cpus = calloc(th->ncpus, sizeof(*th->cpus));
	if (!th->cpus)
		return -ENOMEM;
	th->idle_open = !f->pids && !f->tids && !f->comm &&
			(f->all_tasks || !wc_analysis_tasks(a)->ntarget_pids);
	if (th->o.callchain && !switch_callchains(a, m))
		th->o.callchain = false; /* nothing to show: no column for it, as perf */
	if (th->o.callchain) {
		th->sym = wc_analysis_symbolizer(a);
		if (!th->sym)
			return -ENOMEM;
	}
	if (th->o.events)
		th_header(th);
	return th->err;
}

int wc_timehist_flush(struct wc_timehist *th)
{
	th_out_flush(th);
	return th->err || fflush(th->out) ? -EIO : 0;
}

/* --- object ---------------------------------------------------------------------------- */

struct wc_timehist *wc_timehist_new(const struct wc_timehist_opts *o, FILE *out)
{
	struct wc_timehist *th = calloc(1, sizeof(*th));

	if (!th)
		goto fail;
	th->o = *o;
	th->out = out;
	th->comm_width = 30;
	th->buf = malloc(OUT_CAP);
	if (!th->buf || wc_map64_init(&th->chains) || wc_map64_init(&th->hit_index))
		goto fail;
	th->consumer = (struct wc_analysis_consumer){
		.ctx = th,
		.begin = on_begin,
		.sink = { .run = on_run, .off = on_off },
		.sched_event = on_event,
	};
	th->pending.idx = UINT32_MAX;
	return th;
fail:
	wc_timehist_free(th);
	errno = ENOMEM;
	return NULL;
}

void wc_timehist_free(struct wc_timehist *th)
{
	if (!th)
		return;
	wc_map64_fini(&th->chains);
	wc_map64_fini(&th->hit_index);
	wc_strbuf_fini(&th->tmp);
	free(th->buf);
	free(th->cpus);
	free(th->trt);
	free(th->arena);
	free(th->hits);
	free(th);
}

const struct wc_analysis_consumer *wc_timehist_consumer(struct wc_timehist *th)
{
	return &th->consumer;
}
