/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads.c - see threads.h for the terms and the timeline; the output is threads-print.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/map64.h"
#include "analyzer/reports/threads-priv.h"

static void set_window(struct wc_threads *T)
{
	uint64_t start = wc_analysis_facts(T->a)->start_ns;

	T->window_set = true;
	T->win = wc_filter_window(&T->o.filter, start);
	if (T->win.t0 < start) /* a rotated file's carried interval or run: from the start */
		T->win.t0 = start;
}

static uint64_t clamp(const struct wc_threads *T, uint64_t x)
{
	return x < T->win.t0 ? T->win.t0 : x > T->win.t1 ? T->win.t1 : x;
}

static bool in_window(const struct wc_threads *T, uint64_t s, uint64_t e)
{
	return s < T->win.t1 && e >= T->win.t0 && (e > T->win.t0 || s == e);
}

/* The accumulator of @t, created zeroed; NULL on ENOMEM. */
static struct acc *acc_of(struct wc_threads *T, const struct wc_thread *t)
{
	size_t idx = (size_t)(t - wc_analysis_tasks(T->a)->threads);

	if (!T->window_set)
		set_window(T);
	if (idx >= T->naccs) {
		if (wc_grow((void **)&T->accs, &T->accs_cap, idx + 1, sizeof(*T->accs)))
			return NULL;
		memset(T->accs + T->naccs, 0, (idx + 1 - T->naccs) * sizeof(*T->accs));
		T->naccs = idx + 1;
	}
	return &T->accs[idx];
}

/* An event of the thread at @time: it bounds the lifetime. */
static void note(struct wc_threads *T, struct acc *c, const struct wc_thread *t, uint64_t time,
		 char kind)
{
	if (!c->seen) {
		c->seen = true;
		c->first_ns = time;
		c->r.first_seen = kind;
	}
	if (time > c->last_ns)
		c->last_ns = time;
	if (T->o.filter.comm && !c->comm_matched && strcmp(t->comm, T->o.filter.comm) == 0)
		c->comm_matched = true;
}

/* Where the lifetime of @t starts: the recording's start when it was alive then (from /proc),
 * else its first event. */
static uint64_t life_start(const struct wc_threads *T, const struct acc *c,
			   const struct wc_thread *t)
{
	if (t->at_start && wc_analysis_facts(T->a)->have_switch)
		return wc_analysis_facts(T->a)->start_ns;
	return c->first_ns;
}

/*
 * A counted run or interval [s, e]: the time between the previous one (or the lifetime's
 * start) and this one is uncounted: by lost or untraced switches when any was seen, or after
 * an earlier piece; else by an unseen start (first seen by a sample, on its CPU).
 *
 *   first event        run          interval            run
 *      |<- start ->|==========|<- switches ->|==========|=====|
 *                  ^ cursor moves to the end of each piece, clipped to the window
 */
static void piece(struct wc_threads *T, struct acc *c, const struct wc_thread *t, uint64_t s,
		  uint64_t e)
{
	uint64_t cs = clamp(T, s), ce = clamp(T, e);

	if (!c->seen)
		note(T, c, t, s, 'i'); /* not expected: a piece starts at an event seen */
	if (!c->cursor_set) {
		c->cursor_ns = clamp(T, life_start(T, c, t));
		c->cursor_set = true;
	}
	if (ce > cs) {
		if (cs > c->cursor_ns)
			c->r.gap_ns[c->had_piece || c->loss_pending ? WC_GAP_SWITCHES
								    : WC_GAP_START] +=
				cs - c->cursor_ns;
		if (ce > c->cursor_ns)
			c->cursor_ns = ce;
	}
	c->had_piece = true;
	c->loss_pending = false;
}

/* The segment of @t now (a new one after an exec changed its address space); 0 on ENOMEM. */
static uint32_t seg_of(struct wc_threads *T, struct acc *c, const struct wc_thread *t)
{
	if (c->seg && T->segs[c->seg].aspace == t->aspace)
		return c->seg;
	if (T->nsegs >= (1u << 24) - 1 ||
	    wc_grow((void **)&T->segs, &T->segs_cap, T->nsegs + 2, sizeof(*T->segs)))
		return 0;
	if (!T->nsegs)
		T->nsegs = 1;
	T->segs[T->nsegs] = (struct seg){ (uint32_t)(c - T->accs), t->aspace };
	c->seg = (uint32_t)T->nsegs++;
	return c->seg;
}

static int add_stack(struct wc_threads *T, struct acc *c, const struct wc_thread *t, unsigned leaf,
		     uint32_t stack_id, uint64_t value)
{
	uint32_t seg = seg_of(T, c, t);
	uint64_t *v;

	if (!seg)
		return -ENOMEM;
	v = wc_map64_put(&T->stacks, (uint64_t)seg << 40 | (uint64_t)leaf << 32 | stack_id, 0,
			 NULL);
	if (!v)
		return -ENOMEM;
	*v += value;
	return 0;
}

static int on_run(void *ctx, struct wc_thread *t, int32_t cpu, uint64_t start, uint64_t end)
{
	struct wc_threads *T = ctx;
	struct acc *c = acc_of(T, t);

	(void)cpu;
	if (!c)
		return -ENOMEM;
	piece(T, c, t, start, end);
	c->r.on_ns += wc_window_clip(T->win, start, end);
	if (in_window(T, start, end))
		c->r.runs++;
	return 0;
}

/* Count the off-CPU interval @iv of @t (with @stack_id's stack, PROC_STACK for one whose state
 * came from /proc) as far as it lies in the window. */
static int count_off(struct wc_threads *T, struct acc *c, const struct wc_thread *t,
		     const struct wc_off_interval *iv, uint32_t stack_id)
{
	uint64_t total, blocked = 0;
	char state;

	piece(T, c, t, iv->start_ns, iv->end_ns);
	if (iv->inferred)
		c->r.inferred++;
	if (!in_window(T, iv->start_ns, iv->end_ns))
		return 0;
	if (iv->inferred)
		c->r.inferred_bound_ns += iv->inferred_bound_ns;
	c->r.intervals++;
	total = wc_window_clip(T->win, iv->start_ns, iv->end_ns);
	c->r.off_ns += total;
	state = (uint8_t)iv->state < 'A' ? '?' : iv->state;
	if (iv->preempted) {
		c->r.preempted_ns += total;
		blocked = total; /* its stack line counts all of it, as PREEMPT-R */
	} else {
		blocked = wc_window_clip(T->win, iv->start_ns, iv->wake_ns);
		if (state == 'S')
			c->r.sleep_ns += blocked;
		else if (state == 'D')
			c->r.uninterruptible_ns += blocked;
		else
			c->r.other_ns += blocked;
		c->r.runqueue_ns += total - blocked;
	}
	if (stack_id == PROC_STACK)
		c->r.proc_ns += total;
	/* a stack line counts what its state's column does: the blocked part (SLEEP-S, BLOCK-D,
	 * OTHER) or the preempted wait (PREEMPT-R); the run-queue wait after a wakeup is
	 * RUNQ-WAKE's, on no stack line */
	return blocked ? add_stack(T, c, t, (uint8_t)state, stack_id, blocked) : 0;
}

static int on_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	struct wc_threads *T = ctx;
	struct acc *c = acc_of(T, t);

	if (!c)
		return -ENOMEM;
	return count_off(T, c, t, iv, iv->stack_id);
}

/*
 * The time of a thread alive at the start before its first switch-in, up to @end (that
 * switch-in, its first wakeup when the switch-in was not traced, or its lifetime's end when
 * it never switched): off-CPU, in the state /proc gave then (runnable R counts as
 * preempted), blocked up to the first wakeup seen.  Its stack is unknown: no switch-out was
 * seen.
 */
static int lead(struct wc_threads *T, struct acc *c, const struct wc_thread *t, uint64_t end)
{
	uint64_t s = wc_analysis_facts(T->a)->start_ns;
	char st = t->start_state ? t->start_state : '?';
	struct wc_off_interval iv = {
		.start_ns = s,
		.wake_ns = end,
		.end_ns = end,
		.state = st,
		.preempted = st == 'R',
	};

	if (end < s)
		return 0;
	if (c->lead_wake_ns >= s && c->lead_wake_ns < end)
		iv.wake_ns = c->lead_wake_ns;
	c->r.proc_state = t->start_state;
	return count_off(T, c, t, &iv, PROC_STACK);
}

/* A thread alive at the end: the run or the off-CPU interval it was in then, up to @end, as
 * the state machine has it (sched.c wc_sched_state()). */
static int tail(struct wc_threads *T, struct acc *c, const struct wc_thread *t, uint64_t end)
{
	struct wc_off_interval iv;
	enum wc_run_state rs = wc_sched_state(wc_analysis_sched(T->a), t, end, &iv);

	if (rs == WC_TS_UNKNOWN || end < iv.start_ns)
		return 0;
	if (rs == WC_TS_ON_CPU) {
		piece(T, c, t, iv.start_ns, end);
		c->r.on_ns += wc_window_clip(T->win, iv.start_ns, end);
		if (in_window(T, iv.start_ns, end))
			c->r.runs++;
		return 0;
	}
	return count_off(T, c, t, &iv, iv.stack_id);
}

static int on_sample(void *ctx, struct wc_thread *t, const struct wc_cpu_sample *s,
		     uint64_t weight_ns)
{
	struct wc_threads *T = ctx;
	struct acc *c = acc_of(T, t);

	if (!c)
		return -ENOMEM;
	note(T, c, t, s->time_ns, 's');
	if (s->time_ns < T->win.t0 || s->time_ns >= T->win.t1)
		return 0;
	c->r.samples++;
	c->r.sampled_ns += weight_ns;
	return add_stack(T, c, t, 0, s->stack_id, 1);
}

/* The switches and sched_wakeup_new, after the state machine took them. */
/* A wakeup: the first of a thread alive at the start (it ends the blocked part of the time
 * before its first switch-in, lead()), or a new thread's sched_wakeup_new (an event of it). */
static int on_wakeup(struct wc_threads *T, const struct wc_sched_event *ev)
{
	struct wc_thread *t = wc_tasks_find(wc_analysis_tasks(T->a), (uint32_t)ev->wk->tid);
	struct acc *c;

	if (!t || (!ev->wakeup_new && !t->at_start))
		return 0;
	c = acc_of(T, t);
	if (!c)
		return -ENOMEM;
	if (!ev->wakeup_new) {
		if (!c->first_switch && !c->lead_wake_ns)
			c->lead_wake_ns = ev->time_ns;
		return 0;
	}
	if (!c->seen)
		c->r.is_new = true;
	note(T, c, t, ev->time_ns, 'n');
	return 0;
}

/* @tid switched in at @time: by a sched_switch, or by a SWITCH_IN record */
static int switched_in(struct wc_threads *T, uint32_t tid, uint64_t time)
{
	struct wc_thread *t = wc_tasks_find(wc_analysis_tasks(T->a), tid);
	struct acc *c;
	bool fresh;

	if (!t)
		return 0;
	c = acc_of(T, t);
	if (!c)
		return -ENOMEM;
	fresh = !c->seen;
	note(T, c, t, time, 'i');
	if (!c->first_switch) {
		c->first_switch = 'i';
		if (fresh && t->at_start)
			return lead(T, c, t, time);
	}
	return 0;
}

/* A switch of @t was not traced (sched.c): the time up to its next run or interval is
 * uncounted by lost switches. */
static int on_lost(void *ctx, struct wc_thread *t, enum wc_sched_lost kind)
{
	struct wc_threads *T = ctx;
	struct acc *c = acc_of(T, t);

	if (!c)
		return -ENOMEM;
	if (kind == WC_SCHED_LOST_SWITCH_IN)
		c->r.double_out++;
	else
		c->r.double_in++;
	c->loss_pending = true;
	return 0;
}

static int on_sched_event(void *ctx, const struct wc_sched_event *ev)
{
	struct wc_threads *T = ctx;
	const struct wc_tasks *tk = wc_analysis_tasks(T->a);
	struct wc_thread *t;
	struct acc *c;

	if (ev->role == WC_TP_WAKEUP && ev->wk->tid > 0)
		return on_wakeup(T, ev);
	if (ev->role == WC_TP_SWITCH_IN && ev->cpu < wc_analysis_sched(T->a)->ncpus)
		return switched_in(T, ev->ctx_tid, ev->time_ns);
	if (ev->role != WC_TP_SWITCH || ev->cpu >= wc_analysis_sched(T->a)->ncpus)
		return 0;
	if (ev->sw->prev_tid > 0 && (t = wc_tasks_find(tk, (uint32_t)ev->sw->prev_tid))) {
		bool fresh;

		c = acc_of(T, t);
		if (!c)
			return -ENOMEM;
		fresh = !c->seen;
		note(T, c, t, ev->time_ns, 'o');
		if (!c->first_switch) {
			c->first_switch = 'o';
			/* asleep from the start until its wakeup; then it ran, its switch-in not
			 * traced (CPU 1's switches out of idle here): that part stays unknown */
			if (fresh && t->at_start && c->lead_wake_ns) {
				int err = lead(T, c, t, c->lead_wake_ns);

				if (err)
					return err;
			}
		}
		if (ev->time_ns >= T->win.t0 && ev->time_ns < T->win.t1) {
			if (ev->sw->preempted)
				c->r.involuntary++;
			else
				c->r.voluntary++;
		}
	}
	if (ev->sw->next_tid > 0)
		return switched_in(T, (uint32_t)ev->sw->next_tid, ev->time_ns);
	return 0;
}

static int on_begin(void *ctx, struct wc_analysis *a)
{
	struct wc_threads *T = ctx;

	T->a = a;
	return 0;
}

struct wc_threads *wc_threads_new(const struct wc_threads_opts *o)
{
	struct wc_threads *T = calloc(1, sizeof(*T));

	if (!T)
		return NULL;
	T->o = *o;
	T->consumer = (struct wc_analysis_consumer){
		.ctx = T,
		.begin = on_begin,
		.sink = { .run = on_run, .off = on_off, .lost = on_lost },
		.sample = on_sample,
		.sched_event = on_sched_event,
	};
	if (wc_map64_init(&T->stacks)) {
		wc_threads_free(T);
		errno = ENOMEM;
		return NULL;
	}
	return T;
}

static void free_stacks(struct wc_threads_row *r)
{
	for (size_t i = 0; i < r->noff_top; i++)
		free(r->off_top[i].text);
	for (size_t i = 0; i < r->non_top; i++)
		free(r->on_top[i].text);
	r->noff_top = r->non_top = 0;
}

void wc_threads_free(struct wc_threads *T)
{
	if (!T)
		return;
	for (size_t i = 0; i < T->nrows; i++)
		free_stacks(&T->rows[i]);
	free(T->rows);
	free(T->accs);
	free(T->segs);
	wc_map64_fini(&T->stacks);
	free(T);
}

const struct wc_analysis_consumer *wc_threads_consumer(struct wc_threads *T)
{
	return &T->consumer;
}

const struct wc_threads_row *wc_threads_rows(const struct wc_threads *T, size_t *n)
{
	*n = T->nrows;
	return T->rows;
}

const char *wc_threads_gap_name(enum wc_threads_gap g)
{
	switch (g) {
	case WC_GAP_START:
		return "start unseen";
	case WC_GAP_SWITCHES:
		return "switches lost";
	default:
		return "open at the end";
	}
}

/* ---- the end: rows, sorted, with their stacks ---- */

static bool shown(struct wc_threads *T, const struct acc *c, const struct wc_thread *t)
{
	struct wc_filter f = T->o.filter;

	if (!c->seen && !(t->at_start && wc_analysis_facts(T->a)->have_switch))
		return false;
	if (f.comm && !c->comm_matched && strcmp(t->comm, f.comm) != 0)
		return false;
	f.comm = NULL;
	return wc_filter_thread(&f, T->a, t);
}

/*
 * Lifetime, and what is known of its ends: a thread alive at the end is in its last run or
 * interval up to the recording's end; one alive at the start with no switch at all is in the
 * state /proc gave all along.  Then the uncounted time at the end, coverage.  A thread whose
 * last switch-out was its death (X, Z) ends there even without its EXIT (lost).
 */
static int close_row(struct wc_threads *T, struct acc *c, const struct wc_thread *t)
{
	struct wc_threads_row *r = &c->r;
	uint64_t end = c->last_ns;
	bool proc_only = !c->seen;
	struct wc_off_interval now;
	enum wc_run_state rs = wc_sched_state(wc_analysis_sched(T->a), t, 0, &now);
	bool dead = t->exited || (rs == WC_TS_OFF_CPU && (now.state == 'X' || now.state == 'Z'));
	int err = 0;
	const struct wc_analysis_facts *fa = wc_analysis_facts(T->a);

	if (t->exited && t->last_ns > end)
		end = t->last_ns;
	if (!dead && fa->have_switch)
		end = wc_analysis_end_ns(T->a);
	if (proc_only) {
		c->seen = true;
		c->first_ns = fa->start_ns;
		r->first_seen = 'p';
	}
	if (fa->have_switch && rs != WC_TS_UNKNOWN)
		err = dead ? 0 : tail(T, c, t, end);
	else if (fa->have_switch && t->at_start && proc_only)
		err = lead(T, c, t, end);
	r->tid = t->tid;
	r->pid = t->pid;
	memcpy(r->comm, t->comm, sizeof(r->comm));
	r->exited = t->exited;
	r->at_start = t->at_start && fa->have_switch;
	r->on_cpu_at_end = rs == WC_TS_ON_CPU;
	r->start_ns = clamp(T, life_start(T, c, t));
	r->end_ns = clamp(T, end);
	r->lifetime_ns = r->end_ns - r->start_ns;
	if (!c->cursor_set)
		c->cursor_ns = r->start_ns;
	if (r->end_ns > c->cursor_ns)
		r->gap_ns[c->loss_pending ? WC_GAP_SWITCHES
			  : c->had_piece  ? WC_GAP_END
					  : WC_GAP_START] += r->end_ns - c->cursor_ns;
	c->cursor_ns = r->end_ns;
	for (int g = 0; g < WC_GAP_COUNT; g++)
		r->unknown_ns += r->gap_ns[g];
	/* without sched_switch (wcrec --no-sched) there is nothing to cover a lifetime with */
	r->coverage = r->lifetime_ns && fa->have_switch
			      ? 100.0 * (double)(r->on_ns + r->off_ns) / (double)r->lifetime_ns
			      : -1;
	r->flagged = r->coverage >= 0 && (r->coverage < WC_THREADS_COVERAGE_LOW ||
					  r->coverage > WC_THREADS_COVERAGE_HIGH);
	return err;
}

int wc_threads_sort_parse(const char *name, enum wc_threads_sort *out)
{
	static const char *const names[] = { "wall", "on", "off", "sleep", "runq", "tid" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i])) {
			*out = (enum wc_threads_sort)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* A shown thread, for sorting: its key is the sort's figure (0 for WC_SORT_TID). */
struct pick {
	const struct wc_threads_row *r;
	size_t idx;
	uint64_t key;
};

static uint64_t sort_key(const struct wc_threads_row *r, enum wc_threads_sort k)
{
	switch (k) {
	case WC_SORT_ON:
		return r->on_ns;
	case WC_SORT_OFF:
		return r->off_ns;
	case WC_SORT_SLEEP:
		return r->sleep_ns + r->uninterruptible_ns + r->other_ns;
	case WC_SORT_RUNQ:
		return r->preempted_ns + r->runqueue_ns;
	case WC_SORT_TID:
		return 0;
	default:
		return r->lifetime_ns;
	}
}

/* By key (largest first), then on-CPU time (largest first), tid, start. */
static int cmp_pick(const void *x, const void *y)
{
	const struct pick *p = x, *q = y;
	const struct wc_threads_row *a = p->r, *b = q->r;

	if (p->key != q->key)
		return p->key > q->key ? -1 : 1;
	if (a->on_ns != b->on_ns)
		return a->on_ns > b->on_ns ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* By tid, then start. */
static int cmp_pick_tid(const void *x, const void *y)
{
	const struct wc_threads_row *a = ((const struct pick *)x)->r;
	const struct wc_threads_row *b = ((const struct pick *)y)->r;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

int wc_threads_finish(struct wc_threads *T, struct wc_analysis *a, struct wc_symbolizer *sym)
{
	struct pick *picks;
	size_t n = 0;

	if (T->finished)
		return 0;
	T->a = a;
	if (!T->window_set)
		set_window(T);
	if (wc_analysis_tasks(a)->nthreads > 1 &&
	    !acc_of(T, &wc_analysis_tasks(a)->threads[wc_analysis_tasks(a)->nthreads - 1]))
		return -ENOMEM; /* one for every thread: those alive at the start with no event too
				 */
	picks = calloc(T->naccs + 1, sizeof(*picks));
	if (!picks)
		return -ENOMEM;
	for (size_t i = 0; i < T->naccs; i++) {
		struct acc *c = &T->accs[i];
		const struct wc_thread *t;
		int err;

		c->row = -1;
		if (i == 0 || i >= wc_analysis_tasks(a)->nthreads)
			continue;
		t = &wc_analysis_tasks(a)->threads[i];
		if (wc_analysis_facts(a)->per_task && !t->target)
			continue; /* a per-task file knows other tasks only as wakers and woken */
		if (c->seen || (t->at_start && wc_analysis_facts(a)->have_switch))
			T->seen_threads++;
		if (!shown(T, c, t))
			continue;
		err = close_row(T, c, t);
		if (err) {
			free(picks);
			return err;
		}
		if (c->r.lifetime_ns || c->r.on_ns || c->r.off_ns || c->r.samples)
			picks[n++] = (struct pick){ &c->r, i, sort_key(&c->r, T->o.sort) };
	}
	qsort(picks, n, sizeof(*picks), T->o.sort == WC_SORT_TID ? cmp_pick_tid : cmp_pick);
	T->rows = calloc(n + 1, sizeof(*T->rows));
	if (!T->rows) {
		free(picks);
		return -ENOMEM;
	}
	for (size_t r = 0; r < n; r++) {
		T->rows[r] = *picks[r].r;
		T->accs[picks[r].idx].row = (int32_t)r;
	}
	T->nrows = n;
	free(picks);
	T->finished = true;
	return threads_top_stacks(T, sym);
}
