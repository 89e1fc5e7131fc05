/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads.c - see threads.h for the terms and the timeline. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/callchain.h"
#include "analyzer/grow.h"
#include "analyzer/map64.h"
#include "analyzer/threads.h"

enum { SHADOW_UNKNOWN = 0, SHADOW_ON, SHADOW_OFF };

/* What the replay told us of one thread (by its index in wc_tasks.threads). */
struct acc {
	struct wc_threads_row r; /* the sums; lifetime, coverage and stacks at the end */
	uint64_t first_ns, last_ns; /* the thread's events, unclipped */
	uint64_t cursor_ns;      /* end of the last counted run or interval, clipped */
	uint32_t seg;            /* current segment (address space), 0 none yet */
	int32_t row;             /* index in the rows, -1 not shown */
	uint8_t shadow;          /* on or off CPU, by the switches seen */
	bool seen, cursor_set, had_piece, comm_matched;
	bool loss_pending;       /* a switch was not traced since the last piece */
};

/* A thread in one address space: stacks are named against it. */
struct seg {
	uint32_t idx;    /* the thread */
	uint32_t aspace;
};

struct wc_threads {
	struct wc_threads_opts o;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct acc *accs;
	size_t naccs, accs_cap;
	struct seg *segs;        /* index 0 unused */
	size_t nsegs, segs_cap;
	struct wc_map64 stacks;  /* seg << 40 | leaf << 32 | stack id -> ns (off) or samples (on) */
	uint64_t t0, t1;         /* the window, absolute ns */
	bool window_set, finished;
	struct wc_threads_row *rows;
	size_t nrows;
	uint64_t seen_threads;   /* threads with an event, before the filter */
};

static void set_window(struct wc_threads *T)
{
	uint64_t s = T->a->start_ns;

	T->window_set = true;
	T->t0 = 0;
	T->t1 = UINT64_MAX;
	if (T->o.filter.have_time) {
		T->t0 = s + (uint64_t)(T->o.filter.start_s * 1e9);
		if (T->o.filter.end_s > 0)
			T->t1 = s + (uint64_t)(T->o.filter.end_s * 1e9);
	}
}

static uint64_t clamp(const struct wc_threads *T, uint64_t x)
{
	return x < T->t0 ? T->t0 : x > T->t1 ? T->t1 : x;
}

/* The length of [s, e) inside the window. */
static uint64_t clip(const struct wc_threads *T, uint64_t s, uint64_t e)
{
	s = clamp(T, s);
	e = clamp(T, e);
	return e > s ? e - s : 0;
}

static bool in_window(const struct wc_threads *T, uint64_t s, uint64_t e)
{
	return s < T->t1 && e >= T->t0 && (e > T->t0 || s == e);
}

/* The accumulator of @t, created zeroed; NULL on ENOMEM. */
static struct acc *acc_of(struct wc_threads *T, const struct wc_thread *t)
{
	size_t idx = (size_t)(t - T->a->tasks.threads);

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
		c->cursor_ns = clamp(T, c->first_ns);
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

static int add_stack(struct wc_threads *T, struct acc *c, const struct wc_thread *t,
		     unsigned leaf, uint32_t stack_id, uint64_t value)
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
	c->r.on_ns += clip(T, start, end);
	if (in_window(T, start, end))
		c->r.runs++;
	return 0;
}

static int on_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	struct wc_threads *T = ctx;
	struct acc *c = acc_of(T, t);
	uint64_t total, blocked;
	char state;

	if (!c)
		return -ENOMEM;
	piece(T, c, t, iv->start_ns, iv->end_ns);
	if (iv->inferred)
		c->r.inferred++;
	if (!in_window(T, iv->start_ns, iv->end_ns))
		return 0;
	c->r.intervals++;
	total = clip(T, iv->start_ns, iv->end_ns);
	c->r.off_ns += total;
	state = (uint8_t)iv->state < 'A' ? '?' : iv->state;
	if (iv->preempted) {
		c->r.preempted_ns += total;
	} else {
		blocked = clip(T, iv->start_ns, iv->wake_ns);
		if (state == 'S')
			c->r.sleep_ns += blocked;
		else if (state == 'D')
			c->r.uninterruptible_ns += blocked;
		else
			c->r.other_ns += blocked;
		c->r.runqueue_ns += total - blocked;
	}
	return total ? add_stack(T, c, t, (uint8_t)state, iv->stack_id, total) : 0;
}

static int on_sample(void *ctx, struct wc_thread *t, const struct wc_rec_sample *s,
		     uint64_t weight_ns)
{
	struct wc_threads *T = ctx;
	struct acc *c = acc_of(T, t);

	if (!c)
		return -ENOMEM;
	note(T, c, t, s->time_ns, 's');
	if (s->time_ns < T->t0 || s->time_ns >= T->t1)
		return 0;
	c->r.samples++;
	c->r.sampled_ns += weight_ns;
	return add_stack(T, c, t, 0, s->stack_id, 1);
}

/* The switches and sched_wakeup_new, after the state machine took them. */
static int on_sched_event(void *ctx, const struct wc_sched_event *ev)
{
	struct wc_threads *T = ctx;
	struct wc_tasks *tk = &T->a->tasks;
	struct wc_thread *t;
	struct acc *c;

	if (ev->role == WC_TP_WAKEUP && ev->wakeup_new && ev->wk->tid > 0) {
		t = wc_tasks_find(tk, (uint32_t)ev->wk->tid);
		c = t ? acc_of(T, t) : NULL;
		if (!t)
			return 0;
		if (!c)
			return -ENOMEM;
		if (!c->seen)
			c->r.is_new = true;
		if (c->shadow == SHADOW_UNKNOWN)
			c->shadow = SHADOW_OFF;
		note(T, c, t, ev->time_ns, 'n');
		return 0;
	}
	if (ev->role != WC_TP_SWITCH || ev->cpu >= T->a->sched.ncpus)
		return 0;
	if (ev->sw->prev_tid > 0 && (t = wc_tasks_find(tk, (uint32_t)ev->sw->prev_tid))) {
		c = acc_of(T, t);
		if (!c)
			return -ENOMEM;
		note(T, c, t, ev->time_ns, 'o');
		if (c->shadow == SHADOW_OFF) {
			c->r.double_out++;
			c->loss_pending = true;
		}
		c->shadow = SHADOW_OFF;
		if (ev->time_ns >= T->t0 && ev->time_ns < T->t1) {
			if (ev->sw->preempted)
				c->r.involuntary++;
			else
				c->r.voluntary++;
		}
	}
	if (ev->sw->next_tid > 0 && (t = wc_tasks_find(tk, (uint32_t)ev->sw->next_tid))) {
		c = acc_of(T, t);
		if (!c)
			return -ENOMEM;
		note(T, c, t, ev->time_ns, 'i');
		if (c->shadow == SHADOW_ON) {
			c->r.double_in++;
			c->loss_pending = true;
		}
		c->shadow = SHADOW_ON;
	}
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
		.sink = { .run = on_run, .off = on_off },
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

	if (!c->seen)
		return false;
	if (f.comm && !c->comm_matched && strcmp(t->comm, f.comm) != 0)
		return false;
	f.comm = NULL;
	return wc_filter_thread(&f, T->a, t);
}

/* Lifetime, the uncounted time at its end, coverage. */
static void close_row(struct wc_threads *T, struct acc *c, const struct wc_thread *t)
{
	struct wc_threads_row *r = &c->r;
	uint64_t end = c->last_ns;

	if (t->exited && t->last_ns > end)
		end = t->last_ns;
	r->tid = t->tid;
	r->pid = t->pid;
	memcpy(r->comm, t->comm, sizeof(r->comm));
	r->exited = t->exited;
	r->on_cpu_at_end = c->shadow == SHADOW_ON;
	r->start_ns = clamp(T, c->first_ns);
	r->end_ns = clamp(T, end);
	r->lifetime_ns = r->end_ns - r->start_ns;
	if (!c->cursor_set)
		c->cursor_ns = r->start_ns;
	if (r->end_ns > c->cursor_ns)
		r->gap_ns[c->loss_pending ? WC_GAP_SWITCHES
			  : c->had_piece  ? WC_GAP_END
					  : WC_GAP_START] += r->end_ns - c->cursor_ns;
	c->cursor_ns = r->end_ns;
	/* without sched_switch (wcrec --no-sched) there is nothing to cover a lifetime with */
	r->coverage = r->lifetime_ns && T->a->have_switch
			      ? 100.0 * (double)(r->on_ns + r->off_ns) / (double)r->lifetime_ns
			      : -1;
	r->flagged = r->coverage >= 0 && (r->coverage < WC_THREADS_COVERAGE_LOW ||
					  r->coverage > WC_THREADS_COVERAGE_HIGH);
}

static int cmp_row(const void *x, const void *y)
{
	const struct wc_threads_row *a = x, *b = y;

	if (a->off_ns != b->off_ns)
		return a->off_ns > b->off_ns ? -1 : 1;
	if (a->on_ns != b->on_ns)
		return a->on_ns > b->on_ns ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* One stack of a row before merging by text. */
struct sent {
	uint32_t row, aspace, stack_id;
	uint8_t leaf;   /* 0 on-CPU, else the off-CPU state letter */
	uint64_t value;
	char *text;
};

/* Frames root first, user then kernel, joined by ';' ("[unknown]" when none). */
static int stack_text(struct wc_threads *T, struct wc_symbolizer *sym, struct wc_strbuf *b,
		      uint32_t aspace, uint32_t stack_id)
{
	uint32_t nr = 0;
	const uint64_t *ips = wc_replay_stack(T->a->replay, stack_id, &nr);
	struct wc_callchain cc;
	const char *n;

	wc_strbuf_reset(b);
	wc_callchain_split(ips, nr, &cc);
	for (uint32_t i = cc.nuser; i-- > 0;) {
		if (!(n = wc_symbolizer_user(sym, aspace, cc.user[i])))
			return -ENOMEM;
		wc_strbuf_put(b, b->len ? ";" : "");
		wc_strbuf_put(b, n);
	}
	for (uint32_t i = cc.nkernel; i-- > 0;) {
		if (!(n = wc_symbolizer_kernel(sym, cc.kernel[i])))
			return -ENOMEM;
		wc_strbuf_put(b, b->len ? ";" : "");
		wc_strbuf_put(b, n);
	}
	if (!b->len)
		wc_strbuf_put(b, "[unknown]");
	return b->oom ? -ENOMEM : 0;
}

/* By kind (off-CPU first) and text, to merge equal lines. */
static int cmp_text(const void *x, const void *y)
{
	const struct sent *a = x, *b = y;

	if ((a->leaf == 0) != (b->leaf == 0))
		return a->leaf ? -1 : 1;
	if (a->leaf != b->leaf)
		return a->leaf < b->leaf ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* By kind, then value (largest first), then text. */
static int cmp_value(const void *x, const void *y)
{
	const struct sent *a = x, *b = y;

	if ((a->leaf == 0) != (b->leaf == 0))
		return a->leaf ? -1 : 1;
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	if (a->leaf != b->leaf)
		return a->leaf < b->leaf ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* The top stacks of row @r from its @n entries @e (texts are taken or freed). */
static int top_stacks(struct wc_threads *T, struct wc_symbolizer *sym, struct wc_strbuf *b,
		      struct wc_threads_row *r, struct sent *e, size_t n)
{
	size_t m = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		err = stack_text(T, sym, b, e[i].aspace, e[i].stack_id);
		if (err || !(e[i].text = strdup(b->s))) {
			err = -ENOMEM;
			n = i;
			goto out;
		}
	}
	qsort(e, n, sizeof(*e), cmp_text);
	for (size_t i = 0; i < n; i++) { /* merge equal (kind, state, text) into e[m] */
		if (m && e[m - 1].leaf == e[i].leaf && strcmp(e[m - 1].text, e[i].text) == 0) {
			e[m - 1].value += e[i].value;
			free(e[i].text);
			continue;
		}
		e[m++] = e[i];
	}
	n = m;
	qsort(e, n, sizeof(*e), cmp_value);
	for (size_t i = 0; i < n; i++) {
		struct wc_threads_stack *s = NULL;

		if (e[i].leaf && r->noff_top < WC_THREADS_TOP)
			s = &r->off_top[r->noff_top++];
		else if (!e[i].leaf && r->non_top < WC_THREADS_TOP)
			s = &r->on_top[r->non_top++];
		if (!s)
			continue;
		*s = (struct wc_threads_stack){ e[i].text, (char)e[i].leaf, e[i].value };
		e[i].text = NULL;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(e[i].text);
	return err;
}

/* Every shown row's stacks: gather the map's entries by row, then name and rank them. */
static int all_stacks(struct wc_threads *T, struct wc_symbolizer *sym)
{
	struct sent *e = calloc(T->stacks.count + 1, sizeof(*e)), *sorted = NULL;
	size_t *start = calloc(T->nrows + 2, sizeof(*start)), n = 0;
	struct wc_strbuf b = { 0 };
	int err = 0;

	if (!e || !start) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i <= T->stacks.mask; i++) {
		uint64_t key = T->stacks.keys[i];
		const struct seg *s;
		int32_t row;

		if (key == WC_MAP64_EMPTY)
			continue;
		s = &T->segs[key >> 40];
		row = T->accs[s->idx].row;
		if (row < 0)
			continue;
		e[n++] = (struct sent){ (uint32_t)row, s->aspace, (uint32_t)key,
					(uint8_t)(key >> 32), T->stacks.values[i], NULL };
		start[row + 1]++;
	}
	/* counting sort by row */
	for (size_t r = 0; r < T->nrows; r++)
		start[r + 1] += start[r];
	sorted = calloc(n + 1, sizeof(*sorted));
	if (!sorted) {
		err = -ENOMEM;
		goto out;
	}
	{
		size_t *next = calloc(T->nrows + 1, sizeof(*next));

		if (!next) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(next, start, T->nrows * sizeof(*next));
		for (size_t i = 0; i < n; i++)
			sorted[next[e[i].row]++] = e[i];
		free(next);
	}
	for (size_t r = 0; r < T->nrows && !err; r++)
		err = top_stacks(T, sym, &b, &T->rows[r], sorted + start[r],
				 start[r + 1] - start[r]);
out:
	wc_strbuf_fini(&b);
	free(sorted);
	free(start);
	free(e);
	return err;
}

/* A shown thread, for sorting. */
struct pick {
	const struct wc_threads_row *r;
	size_t idx;
};

static int cmp_pick(const void *x, const void *y)
{
	return cmp_row(((const struct pick *)x)->r, ((const struct pick *)y)->r);
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
	picks = calloc(T->naccs + 1, sizeof(*picks));
	if (!picks)
		return -ENOMEM;
	for (size_t i = 0; i < T->naccs; i++) {
		struct acc *c = &T->accs[i];
		const struct wc_thread *t;

		c->row = -1;
		if (i == 0 || i >= a->tasks.nthreads)
			continue;
		t = &a->tasks.threads[i];
		if (c->seen)
			T->seen_threads++;
		if (!shown(T, c, t))
			continue;
		close_row(T, c, t);
		if (c->r.lifetime_ns || c->r.on_ns || c->r.off_ns || c->r.samples)
			picks[n++] = (struct pick){ &c->r, i };
	}
	qsort(picks, n, sizeof(*picks), cmp_pick);
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
	return all_stacks(T, sym);
}

/* ---- output ---- */

/* @ns in @u: integer us or ns, ms with three decimals (rounded to the us). */
static void fmt_time(char *buf, size_t len, uint64_t ns, enum wc_unit u)
{
	uint64_t us = (ns + 500) / 1000;

	if (u == WC_UNIT_NS)
		snprintf(buf, len, "%" PRIu64, ns);
	else if (u == WC_UNIT_US)
		snprintf(buf, len, "%" PRIu64, us);
	else
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
}

static const char *first_seen_name(char k)
{
	switch (k) {
	case 'i':
		return "switch-in";
	case 'o':
		return "switch-out";
	case 's':
		return "sample";
	case 'n':
		return "wakeup_new";
	default:
		return "none";
	}
}

enum { NCOLS = 15, CELL = 32 };

static const char *const heads[NCOLS] = {
	"TID",	   "PID",     "COMM",	   "LIFETIME",	"ON-CPU", "SAMPLED", "OFF-CPU", "SLEEP-S",
	"BLOCK-D", "OTHER", "PREEMPT-R", "RUNQ-WAKE", "VOL",	  "INVOL",   "COVER",
};

static void row_cells(const struct wc_threads_row *r, enum wc_unit u, char cell[NCOLS][CELL])
{
	const uint64_t t[] = { r->lifetime_ns, r->on_ns,	r->sampled_ns,
			       r->off_ns,      r->sleep_ns,	r->uninterruptible_ns,
			       r->other_ns,    r->preempted_ns, r->runqueue_ns };

	snprintf(cell[0], CELL, "%u", r->tid);
	snprintf(cell[1], CELL, "%u", r->pid);
	snprintf(cell[2], CELL, "%s", r->comm[0] ? r->comm : "[unknown]");
	for (int i = 0; i < 9; i++)
		fmt_time(cell[3 + i], CELL, t[i], u);
	snprintf(cell[12], CELL, "%" PRIu64, r->voluntary);
	snprintf(cell[13], CELL, "%" PRIu64, r->involuntary);
	if (r->coverage < 0)
		snprintf(cell[14], CELL, "-");
	else
		snprintf(cell[14], CELL, "%.1f%%%s", r->coverage, r->flagged ? "!" : "");
}

static void print_cells(FILE *out, char cell[NCOLS][CELL], const int *w)
{
	for (int i = 0; i < NCOLS; i++)
		fprintf(out, i == 2 ? "  %-*s" : i ? "  %*s" : "%*s", w[i], cell[i]);
	fputc('\n', out);
}

/* Why a flagged row's coverage is what it is, on one line. */
static void print_reasons(FILE *out, const struct wc_threads_row *r, const struct wc_analysis *a,
			  enum wc_unit u)
{
	const struct wc_replay_stats *st = wc_replay_stats(a->replay);
	const char *sep = "";
	char v[CELL];

	fprintf(out, "  ! coverage %.1f%%:", r->coverage);
	if (r->coverage > WC_THREADS_COVERAGE_HIGH) {
		fprintf(out, " counted time exceeds the lifetime (events out of order)");
		sep = ";";
	}
	for (int g = 0; g < WC_GAP_COUNT; g++) {
		if (!r->gap_ns[g])
			continue;
		fmt_time(v, sizeof(v), r->gap_ns[g], u);
		fprintf(out, "%s %s %s %s", sep, wc_threads_gap_name(g), v, wc_unit_name(u));
		sep = ";";
		if (g == WC_GAP_START && !r->runs && !r->intervals)
			fprintf(out, " (no complete run or off-CPU interval)");
		else if (g == WC_GAP_START)
			fprintf(out, " (first seen by a %s)", first_seen_name(r->first_seen));
		else if (g == WC_GAP_SWITCHES)
			fprintf(out,
				" (%" PRIu64 " switch-ins not traced, %" PRIu64
				" of them inferred; %" PRIu64
				" switch-outs not traced)",
				r->double_out, r->inferred, r->double_in);
		else
			fprintf(out, " (%s when the recording ended)",
				r->on_cpu_at_end ? "on-CPU" : "off-CPU");
	}
	if (st->lost_records || st->lost_samples)
		fprintf(out, "%s %" PRIu64 " events and %" PRIu64 " samples lost in recording", sep,
			st->lost_records, st->lost_samples);
	fputc('\n', out);
}

static void print_header(FILE *out, struct wc_threads *T, const struct wc_analysis *a)
{
	const struct wc_replay_stats *st = wc_replay_stats(a->replay);
	const struct wc_sched_counts *c = &a->sched.counts;
	uint64_t end = wc_analysis_end_ns(a);
	double dur = a->start_ns && end > a->start_ns ? (double)(end - a->start_ns) / 1e9 : 0;

	fprintf(out, "# %s: %zu threads shown of %" PRIu64 " seen, %.6f s recorded", a->path,
		T->nrows, T->seen_threads, dur);
	if (T->o.filter.have_time)
		fprintf(out, ", window %.6f-%.6f s", (double)(T->t0 - a->start_ns) / 1e9,
			T->t1 == UINT64_MAX ? dur : (double)(T->t1 - a->start_ns) / 1e9);
	fprintf(out, "; times in %s\n", wc_unit_name(T->o.unit));
	if (st->state == WC_READER_TRUNCATED)
		fprintf(out, "# TRUNCATED at byte %" PRIu64 ": analysed up to the cut\n",
			st->error_offset);
	if (!a->have_switch)
		fprintf(out, "# no sched_switch in the trace (wcrec --no-sched): on-CPU time from "
			     "samples only, no off-CPU time, no coverage\n");
	fprintf(out, "# OFF-CPU = SLEEP-S + BLOCK-D + OTHER + PREEMPT-R + RUNQ-WAKE; run-queue "
		     "wait is PREEMPT-R (whole intervals of preempted threads) + RUNQ-WAKE (wakeup "
		     "to switch-in)\n");
	fprintf(out,
		"# lost in recording: %" PRIu64 " events, %" PRIu64 " samples; %" PRIu64
		" events late, %" PRIu64 " undecodable, %" PRIu64 " naming an undefined stack\n",
		st->lost_records, st->lost_samples, st->late, a->decode_errors, st->bad_refs);
	if (a->format_errors)
		fprintf(out, "# %" PRIu64 " tracepoint formats left out: %s\n", a->format_errors,
			a->format_error);
	fprintf(out,
		"# edge cases: first event a switch-in %" PRIu64 ", a switch-out %" PRIu64
		"; two switch-outs with no switch-in between %" PRIu64 " (%" PRIu64
		" inferred, %" PRIu64 " dropped); switch-ins while on a CPU %" PRIu64
		"; sleeps with no wakeup %" PRIu64 "; open at the end: %" PRIu64
		" off-CPU, %" PRIu64 " on-CPU\n",
		c->start_unknown, c->run_start_unknown, c->double_switch_out, c->inferred_switch_in,
		c->unknown_dropped, c->switch_in_running, c->no_wakeup, c->open_off_at_end,
		c->open_run_at_end);
}

static void print_stacks(FILE *out, const struct wc_threads_row *r, enum wc_unit u)
{
	char v[WC_THREADS_TOP * 2][CELL];
	int w = 0, k = 0;

	for (size_t i = 0; i < r->noff_top; i++)
		fmt_time(v[k++], CELL, r->off_top[i].value, u);
	for (size_t i = 0; i < r->non_top; i++)
		snprintf(v[k++], CELL, "%" PRIu64, r->on_top[i].value);
	for (int i = 0; i < k; i++)
		if ((int)strlen(v[i]) > w)
			w = (int)strlen(v[i]);
	k = 0;
	for (size_t i = 0; i < r->noff_top; i++)
		fprintf(out, "  off-CPU %c %*s %-7s  %s\n", r->off_top[i].state, w, v[k++],
			wc_unit_name(u), r->off_top[i].text);
	for (size_t i = 0; i < r->non_top; i++)
		fprintf(out, "  on-CPU    %*s %-7s  %s\n", w, v[k++],
			r->on_top[i].value == 1 ? "sample" : "samples", r->on_top[i].text);
}

int wc_threads_write_text(struct wc_threads *T, struct wc_analysis *a, struct wc_symbolizer *sym,
			  FILE *out)
{
	char(*cells)[NCOLS][CELL];
	int w[NCOLS], err = wc_threads_finish(T, a, sym);

	if (err)
		return err;
	cells = calloc(T->nrows + 1, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	for (int i = 0; i < NCOLS; i++) {
		snprintf(cells[0][i], CELL, "%s", heads[i]);
		w[i] = (int)strlen(heads[i]);
	}
	for (size_t r = 0; r < T->nrows; r++) {
		row_cells(&T->rows[r], T->o.unit, cells[r + 1]);
		for (int i = 0; i < NCOLS; i++)
			if ((int)strlen(cells[r + 1][i]) > w[i])
				w[i] = (int)strlen(cells[r + 1][i]);
	}
	print_header(out, T, a);
	for (size_t r = 0; r <= T->nrows; r++)
		print_cells(out, cells[r], w);
	free(cells);
	for (size_t r = 0; r < T->nrows; r++) {
		const struct wc_threads_row *row = &T->rows[r];

		if (!row->noff_top && !row->non_top && !row->flagged)
			continue;
		fprintf(out, "\n%u %s (pid %u)\n", row->tid, row->comm[0] ? row->comm : "[unknown]",
			row->pid);
		print_stacks(out, row, T->o.unit);
		if (row->flagged)
			print_reasons(out, row, a, T->o.unit);
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* @s as a JSON string: UTF-8 kept, control characters escaped, bytes that are not UTF-8
 * replaced by U+FFFD (a comm cut at 15 bytes may end inside a character). */
static void json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2
			: (*p & 0xf8) == 0xf0 ? 3 : -1;
		int ok = n >= 0;

		for (int i = 1; ok && i <= n; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (!ok) {
			fputs("\\ufffd", out);
			p++;
		} else if (n) {
			fwrite(p, 1, (size_t)n + 1, out);
			p += n + 1;
		} else {
			if (*p == '"' || *p == '\\')
				fprintf(out, "\\%c", *p);
			else if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
			p++;
		}
	}
	fputc('"', out);
}

/* ,"@key":@v */
static void jnum(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, ",\"%s\":%" PRIu64, key, v);
}

static void json_row(FILE *out, const struct wc_threads_row *r, const struct wc_analysis *a)
{
	fprintf(out, "{\"tid\":%u", r->tid);
	jnum(out, "pid", r->pid);
	fprintf(out, ",\"comm\":");
	json_str(out, r->comm);
	jnum(out, "start_ns", r->start_ns - a->start_ns);
	jnum(out, "end_ns", r->end_ns - a->start_ns);
	jnum(out, "lifetime_ns", r->lifetime_ns);
	fprintf(out, ",\"first_seen\":\"%s\",\"new\":%s,\"exited\":%s",
		first_seen_name(r->first_seen), r->is_new ? "true" : "false",
		r->exited ? "true" : "false");
	jnum(out, "on_cpu_ns", r->on_ns);
	jnum(out, "runs", r->runs);
	jnum(out, "samples", r->samples);
	jnum(out, "on_cpu_sampled_ns", r->sampled_ns);
	jnum(out, "off_cpu_ns", r->off_ns);
	jnum(out, "sleep_ns", r->sleep_ns);
	jnum(out, "uninterruptible_ns", r->uninterruptible_ns);
	jnum(out, "other_ns", r->other_ns);
	jnum(out, "preempted_ns", r->preempted_ns);
	jnum(out, "runqueue_ns", r->runqueue_ns);
	jnum(out, "intervals", r->intervals);
	jnum(out, "switches_voluntary", r->voluntary);
	jnum(out, "switches_involuntary", r->involuntary);
	if (r->coverage < 0)
		fprintf(out, ",\"coverage_pct\":null");
	else
		fprintf(out, ",\"coverage_pct\":%.3f", r->coverage);
	fprintf(out, ",\"flagged\":%s", r->flagged ? "true" : "false");
	fprintf(out, ",\"uncounted_ns\":{\"start_unseen\":%" PRIu64, r->gap_ns[WC_GAP_START]);
	jnum(out, "switches_lost", r->gap_ns[WC_GAP_SWITCHES]);
	jnum(out, "open_at_end", r->gap_ns[WC_GAP_END]);
	fprintf(out, "},\"untraced\":{\"double_switch_out\":%" PRIu64, r->double_out);
	jnum(out, "inferred_switch_in", r->inferred);
	jnum(out, "double_switch_in", r->double_in);
	fprintf(out, "},\"top_off_cpu\":[");
	for (size_t i = 0; i < r->noff_top; i++) {
		fprintf(out, "%s{\"state\":\"%c\"", i ? "," : "", r->off_top[i].state);
		jnum(out, "ns", r->off_top[i].value);
		fprintf(out, ",\"stack\":");
		json_str(out, r->off_top[i].text);
		fputc('}', out);
	}
	fprintf(out, "],\"top_on_cpu\":[");
	for (size_t i = 0; i < r->non_top; i++) {
		fprintf(out, "%s{\"samples\":%" PRIu64 ",\"stack\":", i ? "," : "",
			r->on_top[i].value);
		json_str(out, r->on_top[i].text);
		fputc('}', out);
	}
	fprintf(out, "]}");
}

int wc_threads_write_json(struct wc_threads *T, struct wc_analysis *a, struct wc_symbolizer *sym,
			  FILE *out)
{
	const struct wc_replay_stats *st = wc_replay_stats(a->replay);
	const struct wc_sched_counts *c = &a->sched.counts;
	uint64_t end = wc_analysis_end_ns(a);
	int err = wc_threads_finish(T, a, sym);

	if (err)
		return err;
	if (end < a->start_ns)
		end = a->start_ns;
	fprintf(out, "{\"file\":");
	json_str(out, a->path);
	fprintf(out, ",\"truncated\":%s", st->state == WC_READER_TRUNCATED ? "true" : "false");
	jnum(out, "duration_ns", end - a->start_ns);
	if (T->o.filter.have_time)
		fprintf(out, ",\"window_ns\":[%" PRIu64 ",%" PRIu64 "]", T->t0 - a->start_ns,
			(T->t1 == UINT64_MAX ? end : T->t1) - a->start_ns);
	jnum(out, "threads_seen", T->seen_threads);
	fprintf(out, ",\"lost\":{\"events\":%" PRIu64, st->lost_records);
	jnum(out, "samples", st->lost_samples);
	fprintf(out, "},\"edge_cases\":{\"late\":%" PRIu64, st->late);
	jnum(out, "undecodable", a->decode_errors);
	jnum(out, "undefined_refs", st->bad_refs);
	jnum(out, "start_unknown", c->start_unknown);
	jnum(out, "run_start_unknown", c->run_start_unknown);
	jnum(out, "double_switch_out", c->double_switch_out);
	jnum(out, "inferred_switch_in", c->inferred_switch_in);
	jnum(out, "unknown_dropped", c->unknown_dropped);
	jnum(out, "switch_in_running", c->switch_in_running);
	jnum(out, "wakeup_running", c->wakeup_running);
	jnum(out, "wakeup_runnable", c->wakeup_runnable);
	jnum(out, "wakeup_repeated", c->wakeup_repeated);
	jnum(out, "wakeup_unknown", c->wakeup_unknown);
	jnum(out, "no_wakeup", c->no_wakeup);
	jnum(out, "open_off_at_end", c->open_off_at_end);
	jnum(out, "open_run_at_end", c->open_run_at_end);
	jnum(out, "bad_cpu", c->bad_cpu);
	fprintf(out, "},\"threads\":[");
	for (size_t r = 0; r < T->nrows; r++) {
		fputs(r ? ",\n" : "\n", out);
		json_row(out, &T->rows[r], a);
	}
	fprintf(out, "\n]}\n");
	return fflush(out) || ferror(out) ? -EIO : 0;
}
