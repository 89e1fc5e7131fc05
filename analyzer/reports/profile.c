/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c - see profile.h: the aggregation during the replay (profile-lines.c: the lines). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/reports/profile-priv.h"

uint64_t wc_unit_ns(enum wc_unit u)
{
	return u == WC_UNIT_MS ? 1000000 : u == WC_UNIT_NS ? 1 : 1000;
}

const char *wc_unit_name(enum wc_unit u)
{
	return u == WC_UNIT_MS ? "ms" : u == WC_UNIT_NS ? "ns" : "us";
}

static bool in_list(const uint32_t *list, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

struct wc_window wc_filter_window(const struct wc_filter *f, uint64_t start_ns)
{
	struct wc_window w = { 0, UINT64_MAX };

	if (f->have_time) {
		w.t0 = start_ns + (uint64_t)(f->start_s * 1e9);
		if (f->end_s > 0)
			w.t1 = start_ns + (uint64_t)(f->end_s * 1e9);
	}
	return w;
}

bool wc_filter_thread(const struct wc_filter *f, const struct wc_analysis *a,
		      const struct wc_thread *t)
{
	if (wc_analysis_tasks(a)->recorder_pid && t->pid == wc_analysis_tasks(a)->recorder_pid)
		return false;
	if (!f->all_tasks && wc_analysis_tasks(a)->ntarget_pids && !t->target)
		return false;
	if (f->pids && !in_list(f->pids, f->npids, t->pid))
		return false;
	if (f->tids && !in_list(f->tids, f->ntids, t->tid))
		return false;
	if (f->comm && strcmp(f->comm, t->comm) != 0)
		return false;
	return true;
}

static void set_window(struct wc_profile *p)
{
	p->window_set = true;
	p->win = wc_filter_window(&p->o.filter, wc_analysis_facts(p->a)->start_ns);
}

/* The current segment of @t: a new one when its comm or address space changed. */
static uint32_t seg_of(struct wc_profile *p, struct wc_thread *t)
{
	struct seg *s = t->seg && t->seg < p->nsegs ? &p->segs[t->seg] : NULL;

	if (s && s->tid == t->tid && s->aspace == t->aspace && strcmp(s->comm, t->comm) == 0) {
		s->pid = t->pid;
		return t->seg;
	}
	if (p->nsegs == p->segs_cap) {
		size_t cap = p->segs_cap ? p->segs_cap * 2 : 1024;
		struct seg *n = realloc(p->segs, cap * sizeof(*n));

		if (!n || cap >= (1u << 24))
			return 0;
		p->segs = n;
		p->segs_cap = cap;
		if (!p->nsegs)
			p->nsegs = 1;
	}
	s = &p->segs[p->nsegs];
	memset(s, 0, sizeof(*s));
	s->tid = t->tid;
	s->pid = t->pid;
	s->aspace = t->aspace;
	memcpy(s->comm, t->comm, sizeof(s->comm));
	t->seg = (uint32_t)p->nsegs++;
	return t->seg;
}

/* @ns more of entry (@seg, @leaf, @stack), from @n more samples or intervals. */
static int add(struct wc_profile *p, uint32_t seg, unsigned leaf, uint32_t stack, uint64_t ns,
	       uint64_t n)
{
	uint64_t key = (uint64_t)seg << 40 | (uint64_t)leaf << 32 | stack, *v;

	if (!ns)
		return 0;
	v = wc_map64_put(&p->entries, key, 0, NULL);
	if (!v)
		return -ENOMEM;
	*v += ns;
	v = wc_map64_put(&p->counts, key, 0, NULL);
	if (!v)
		return -ENOMEM;
	*v += n;
	return 0;
}

static int on_run(void *ctx, struct wc_thread *t, int32_t cpu, uint64_t start, uint64_t end)
{
	struct wc_profile *p = ctx;
	uint32_t seg;

	(void)cpu;
	if (!p->window_set)
		set_window(p);
	if (p->o.mode == WC_MODE_OFF || !wc_filter_thread(&p->o.filter, p->a, t))
		return 0;
	seg = seg_of(p, t);
	if (!seg)
		return -ENOMEM;
	p->segs[seg].run_ns += wc_window_clip(p->win, start, end);
	return 0;
}

static int add_waker(struct wc_profile *p, struct wc_thread *t, const struct wc_off_interval *iv)
{
	const struct wc_filter *f = &p->o.filter;
	struct wc_thread *w;
	struct wk_entry k = { .tstack = iv->stack_id,
			      .wstack = iv->waker_stack_id,
			      .wtid = iv->waker_tid };
	uint64_t blocked, h, *v;

	if (iv->waker_stack_id)
		p->waker_stacks = true;
	/* offwaketime's value: the time blocked, from switch-out to the wakeup */
	if (iv->preempted || iv->no_wakeup || iv->wake_ns <= iv->start_ns)
		return 0;
	blocked = wc_window_clip(p->win, iv->start_ns, iv->wake_ns);
	if (!blocked || blocked < f->min_block_ns || (f->max_block_ns && blocked > f->max_block_ns))
		return 0;
	k.tseg = seg_of(p, t);
	if (!k.tseg)
		return -ENOMEM;
	w = iv->waker_tid ? wc_tasks_find(wc_analysis_tasks(p->a), iv->waker_tid) : NULL;
	if (w && !(k.wseg = seg_of(p, w)))
		return -ENOMEM;
	h = ((uint64_t)k.tseg << 32 | k.tstack) * 0x9e3779b97f4a7c15ull ^
	    ((uint64_t)k.wseg << 32 | k.wstack) * 0xc2b2ae3d27d4eb4full ^ k.wtid;
	for (;; h++) {
		h &= ~(1ull << 63); /* never WC_MAP64_EMPTY */
		v = wc_map64_put(&p->wk_index, h, 0, NULL);
		if (!v)
			return -ENOMEM;
		if (!*v)
			break;
		struct wk_entry *e = &p->wk[*v - 1];

		if (e->tseg == k.tseg && e->tstack == k.tstack && e->wseg == k.wseg &&
		    e->wstack == k.wstack && e->wtid == k.wtid) {
			e->ns += blocked;
			e->n++;
			return 0;
		}
	}
	if (p->nwk == p->wk_cap) {
		size_t cap = p->wk_cap ? p->wk_cap * 2 : 256;
		struct wk_entry *n = realloc(p->wk, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->wk = n;
		p->wk_cap = cap;
	}
	k.ns = blocked;
	k.n = 1;
	p->wk[p->nwk++] = k;
	*v = p->nwk;
	return 0;
}

static int on_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	struct wc_profile *p = ctx;
	const struct wc_filter *f = &p->o.filter;
	uint64_t total;
	uint32_t seg;
	int err;

	if (!p->window_set)
		set_window(p);
	if (p->o.mode == WC_MODE_ON || !wc_filter_thread(f, p->a, t))
		return 0;
	if (f->states && (!iv->state || !strchr(f->states, iv->state)))
		return 0;
	if (p->o.waker)
		return add_waker(p, t, iv);
	total = wc_window_clip(p->win, iv->start_ns, iv->end_ns);
	if (!total || total < f->min_block_ns || (f->max_block_ns && total > f->max_block_ns))
		return 0;
	seg = seg_of(p, t);
	if (!seg)
		return -ENOMEM;
	if (p->o.mode == WC_MODE_OFF)
		return add(p, seg, LEAF_OFF, iv->stack_id, total, 1);
	if (iv->preempted)
		return add(p, seg, (uint8_t)iv->state < 'A' ? '?' : (uint8_t)iv->state,
			   iv->stack_id, total, 1);
	err = add(p, seg, (uint8_t)iv->state < 'A' ? '?' : (uint8_t)iv->state, iv->stack_id,
		  wc_window_clip(p->win, iv->start_ns, iv->wake_ns), 1);
	if (!err)
		err = add(p, seg, LEAF_RUNQ, iv->stack_id,
			  wc_window_clip(p->win, iv->wake_ns, iv->end_ns), 1);
	return err;
}

static int on_sample(void *ctx, struct wc_thread *t, const struct wc_cpu_sample *s,
		     uint64_t weight_ns)
{
	struct wc_profile *p = ctx;
	bool near = false;
	uint32_t seg;
	uint64_t *v;
	const struct wc_analysis_facts *fa = wc_analysis_facts(p->a);

	if (!p->window_set)
		set_window(p);
	if (p->o.mode == WC_MODE_OFF || s->time_ns < p->win.t0 || s->time_ns >= p->win.t1 ||
	    !wc_filter_thread(&p->o.filter, p->a, t))
		return 0;
	seg = seg_of(p, t);
	if (!seg)
		return -ENOMEM;
	p->nsamples++;
	if (fa->sample_after_switch_in) {
		v = wc_map64_put(&p->near, s->stack_id, 0, NULL);
		if (!v)
			return -ENOMEM;
		(*v)++;
		near = p->o.skid == WC_SKID_SCHEDULER ||
		       (p->o.skid == WC_SKID_AUTO && fa->sample_on_timer);
		p->attributed = p->attributed || near;
	}
	if (p->o.no_calibrate || !fa->have_switch)
		return add(p, seg, near ? LEAF_ON_NEAR : LEAF_ON, s->stack_id, weight_ns, 1);
	v = wc_map64_put(&p->samples, (near ? NEAR_BIT : 0) | (uint64_t)seg << 32 | s->stack_id, 0,
			 NULL);
	if (!v)
		return -ENOMEM;
	(*v)++;
	p->segs[seg].nsamples++;
	return 0;
}

static int on_begin(void *ctx, struct wc_analysis *a)
{
	struct wc_profile *p = ctx;
	const struct wc_replay_meta *m = wc_replay_meta(wc_analysis_replay(a));

	p->a = a;
	for (int id = 0; id < WC_REPLAY_MAX_EVENTS; id++)
		if (m->events[id].present && wc_analysis_role(a, id) == WC_TP_WAKEUP &&
		    (m->events[id].sample_type & PERF_SAMPLE_CALLCHAIN))
			p->waker_stacks = true;
	return 0;
}

bool wc_profile_waker_stacks(const struct wc_profile *p)
{
	return p->waker_stacks;
}

struct wc_profile *wc_profile_new(const struct wc_profile_opts *o)
{
	struct wc_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	p->consumer = (struct wc_analysis_consumer){
		.ctx = p,
		.begin = on_begin,
		.sink = { .run = on_run, .off = on_off },
		.sample = on_sample,
	};
	if (wc_map64_init(&p->entries) || wc_map64_init(&p->counts) || wc_map64_init(&p->samples) ||
	    wc_map64_init(&p->wk_index) || wc_map64_init(&p->near) || wc_map64_init(&p->ucache) ||
	    wc_map64_init(&p->kcache) || wc_map64_init(&p->stacks)) {
		wc_profile_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void wc_profile_free(struct wc_profile *p)
{
	if (!p)
		return;
	wc_map64_fini(&p->entries);
	wc_map64_fini(&p->counts);
	wc_map64_fini(&p->samples);
	wc_map64_fini(&p->wk_index);
	wc_map64_fini(&p->near);
	wc_map64_fini(&p->ucache);
	wc_map64_fini(&p->kcache);
	wc_map64_fini(&p->stacks);
	free(p->sc);
	wc_names_fini(&p->names);
	free(p->lf);
	free(p->wk);
	free(p->segs);
	free(p);
}

const struct wc_analysis_consumer *wc_profile_consumer(struct wc_profile *p)
{
	return &p->consumer;
}

int wc_profile_calibrate(struct wc_profile *p)
{
	if (p->calibrated || p->o.mode == WC_MODE_OFF || p->o.no_calibrate || !p->a ||
	    !wc_analysis_facts(p->a)->have_switch)
		return 0;
	p->calibrated = true;
	for (size_t i = 0; i <= p->samples.mask; i++) {
		uint64_t key = p->samples.keys[i];

		if (key == WC_MAP64_EMPTY)
			continue;
		uint32_t seg = (uint32_t)((key & ~NEAR_BIT) >> 32);
		const struct seg *s = &p->segs[seg];
		uint64_t ns = (uint64_t)((unsigned __int128)s->run_ns * p->samples.values[i] /
					 s->nsamples);

		if (add(p, seg, key & NEAR_BIT ? LEAF_ON_NEAR : LEAF_ON, (uint32_t)key, ns,
			p->samples.values[i]))
			return -ENOMEM;
	}
	for (size_t i = 1; i < p->nsegs; i++)
		if (!p->segs[i].nsamples && p->segs[i].run_ns &&
		    add(p, (uint32_t)i, LEAF_UNSAMPLED, 0, p->segs[i].run_ns, 0))
			return -ENOMEM;
	return 0;
}

void wc_profile_user_kinds(const struct wc_profile *p, uint64_t ns[WC_USER_KINDS])
{
	memcpy(ns, p->user_ns, sizeof(p->user_ns));
}

uint64_t wc_profile_skid(const struct wc_profile *p, uint64_t *total, bool *attributed)
{
	*total = p->nsamples;
	*attributed = p->attributed && p->skid;
	return p->skid;
}
