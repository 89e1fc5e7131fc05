/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c - see profile.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/callchain.h"
#include "analyzer/grow.h"
#include "analyzer/map64.h"
#include "analyzer/names.h"
#include "analyzer/output.h"
#include "analyzer/profile.h"
#include "analyzer/skid.h"

/* Leaves: what ends a line.  Off-CPU state letters are stored as themselves (>= 'A').
 * LEAF_ON_NEAR: on-CPU samples that came just after their thread's switch-in, to be shown
 * as [scheduler] when their stack is the switch's (skid.h), else as LEAF_ON. */
enum { LEAF_ON = 0, LEAF_UNSAMPLED = 1, LEAF_RUNQ = 2, LEAF_OFF = 3, LEAF_ON_NEAR = 4 };

/* In a key of the samples map: the sample is to be attributed as LEAF_ON_NEAR. */
#define NEAR_BIT (1ull << 63)

struct seg {
	uint32_t tid, pid, aspace;
	char comm[17];
	uint64_t run_ns;
	uint64_t nsamples;
	uint64_t key_id;  /* the id of its lines' key frame + 1, 0 not yet (wc_profile_lines()) */
};

/* One waker-profile entry: blocked time of a target segment and stack, by waker. */
struct wk_entry {
	uint32_t tseg, tstack, wseg, wstack; /* wseg 0: the waker is not known as a thread */
	uint32_t wtid;
	uint64_t ns;
};

struct wc_profile {
	struct wc_profile_opts o;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct seg *segs;          /* index 0 unused */
	size_t nsegs, segs_cap;
	struct wc_map64 entries;   /* seg << 40 | leaf << 32 | stack id -> ns */
	struct wc_map64 samples;   /* NEAR_BIT | seg << 32 | stack id -> samples */
	struct wc_map64 near;      /* stack id -> samples just after a switch-in, shown threads */
	uint64_t nsamples;         /* samples of the threads shown */
	uint64_t skid;             /* ... that are skid: wc_profile_lines() counts them */
	bool attributed;           /* some went to LEAF_ON_NEAR */
	struct wc_window win;      /* the --time window */
	bool window_set;
	bool calibrated;           /* calibrate() ran: it must not add the on-CPU time twice */
	struct wk_entry *wk;       /* the waker profile */
	size_t nwk, wk_cap;
	struct wc_map64 wk_index;  /* hash of an entry's key -> index + 1 (probed on clashes) */
	bool waker_stacks;         /* wakeups carry callchains */
	uint64_t user_ns[WC_USER_KINDS]; /* wc_profile_lines(): off-CPU time of the lines, ns, by
					  * how complete their user stacks are */
	struct wc_names names;     /* the frames' names, as in the folded text */
	struct wc_map64 ucache, kcache; /* a symbolizer's name (address) -> id + 1; kcache
					 * for kernel names with "_[k]" added */
	uint64_t state_id[256];    /* the id + 1 of "[off-cpu X]" by X, 0 not yet */
	struct lframe *lf;         /* the frames of the lines made, back to back */
	struct wc_map64 stacks;    /* aspace << 32 | stack id -> index of its header in sc + 1 */
	struct lframe *sc;         /* the frames of each stack named: a header {count}, then them */
	size_t nsc, sc_cap;
	size_t nlf, lf_cap;
};

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
	if (a->tasks.recorder_pid && t->pid == a->tasks.recorder_pid)
		return false;
	if (!f->all_tasks && a->tasks.ntarget_pids && !t->target)
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
	p->win = wc_filter_window(&p->o.filter, p->a->start_ns);
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

static int add(struct wc_profile *p, uint32_t seg, unsigned leaf, uint32_t stack, uint64_t ns)
{
	uint64_t *v;

	if (!ns)
		return 0;
	v = wc_map64_put(&p->entries, (uint64_t)seg << 40 | (uint64_t)leaf << 32 | stack, 0, NULL);
	if (!v)
		return -ENOMEM;
	*v += ns;
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
	struct wk_entry k = { .tstack = iv->stack_id, .wstack = iv->waker_stack_id,
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
	w = iv->waker_tid ? wc_tasks_find(&p->a->tasks, iv->waker_tid) : NULL;
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
		return add(p, seg, LEAF_OFF, iv->stack_id, total);
	if (iv->preempted)
		return add(p, seg, (uint8_t)iv->state < 'A' ? '?' : (uint8_t)iv->state,
			   iv->stack_id, total);
	err = add(p, seg, (uint8_t)iv->state < 'A' ? '?' : (uint8_t)iv->state, iv->stack_id,
		  wc_window_clip(p->win, iv->start_ns, iv->wake_ns));
	if (!err)
		err = add(p, seg, LEAF_RUNQ, iv->stack_id,
			  wc_window_clip(p->win, iv->wake_ns, iv->end_ns));
	return err;
}

static int on_sample(void *ctx, struct wc_thread *t, const struct wc_cpu_sample *s,
		     uint64_t weight_ns)
{
	struct wc_profile *p = ctx;
	bool near = false;
	uint32_t seg;
	uint64_t *v;

	if (!p->window_set)
		set_window(p);
	if (p->o.mode == WC_MODE_OFF || s->time_ns < p->win.t0 || s->time_ns >= p->win.t1 ||
	    !wc_filter_thread(&p->o.filter, p->a, t))
		return 0;
	seg = seg_of(p, t);
	if (!seg)
		return -ENOMEM;
	p->nsamples++;
	if (p->a->sample_after_switch_in) {
		v = wc_map64_put(&p->near, s->stack_id, 0, NULL);
		if (!v)
			return -ENOMEM;
		(*v)++;
		near = p->o.skid == WC_SKID_SCHEDULER ||
		       (p->o.skid == WC_SKID_AUTO && p->a->sample_on_timer);
		p->attributed = p->attributed || near;
	}
	if (p->o.no_calibrate || !p->a->have_switch)
		return add(p, seg, near ? LEAF_ON_NEAR : LEAF_ON, s->stack_id, weight_ns);
	v = wc_map64_put(&p->samples, (near ? NEAR_BIT : 0) | (uint64_t)seg << 32 | s->stack_id,
			 0, NULL);
	if (!v)
		return -ENOMEM;
	(*v)++;
	p->segs[seg].nsamples++;
	return 0;
}

static int on_begin(void *ctx, struct wc_analysis *a)
{
	struct wc_profile *p = ctx;
	const struct wc_replay_meta *m = wc_replay_meta(a->replay);

	p->a = a;
	for (int id = 0; id < WC_REPLAY_MAX_EVENTS; id++)
		if (m->events[id].present && a->role[id] == WC_TP_WAKEUP &&
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
	if (wc_map64_init(&p->entries) || wc_map64_init(&p->samples) ||
	    wc_map64_init(&p->wk_index) || wc_map64_init(&p->near) ||
	    wc_map64_init(&p->ucache) || wc_map64_init(&p->kcache) ||
	    wc_map64_init(&p->stacks)) {
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

/* Share each segment's run time among its sampled stacks (see profile.h). */
static int calibrate(struct wc_profile *p)
{
	if (p->calibrated || p->o.mode == WC_MODE_OFF || p->o.no_calibrate || !p->a ||
	    !p->a->have_switch)
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

		if (add(p, seg, key & NEAR_BIT ? LEAF_ON_NEAR : LEAF_ON, (uint32_t)key, ns))
			return -ENOMEM;
	}
	for (size_t i = 1; i < p->nsegs; i++)
		if (!p->segs[i].nsamples && p->segs[i].run_ns &&
		    add(p, (uint32_t)i, LEAF_UNSAMPLED, 0, p->segs[i].run_ns))
			return -ENOMEM;
	return 0;
}

/* A frame of a line made: its interned name and WC_FRAME_* flags. */
struct lframe {
	uint32_t id, flags;
};

/* A line made: its folded text, its time, its frames (p->lf[first...]). */
struct line {
	char *text;
	uint64_t ns;
	size_t first;
	uint32_t nframes, seg;
	uint8_t leaf;   /* enum wc_out_leaf */
	char state;     /* WC_OUT_OFF_STATE's letter */
};

/* The line being made: its text, where its frames start in p->lf, the first error. */
struct mk {
	struct wc_strbuf b;
	size_t first;
	int err;
};

/*
 * Append frame @name to the line being made: to its text (after a ';' but for the first
 * frame; "_[k]" after a kernel frame under --annotate), its interned id to its frames.
 * @slot: where its id + 1 is cached (0: not yet), or NULL.
 */
static void put_frame(struct wc_profile *p, struct mk *m, const char *name, uint32_t fl,
		      uint64_t *slot)
{
	size_t at;
	int64_t id;

	if (p->nlf > m->first)
		wc_strbuf_put(&m->b, ";");
	at = m->b.len;
	wc_strbuf_put(&m->b, name);
	if ((fl & WC_FRAME_KERNEL) && p->o.annotate)
		wc_strbuf_put(&m->b, "_[k]");
	if (slot && *slot) {
		id = (int64_t)*slot - 1;
	} else {
		id = m->b.oom ? -ENOMEM : wc_names_intern(&p->names, m->b.s + at, m->b.len - at);
		if (id < 0) {
			m->err = (int)id;
			return;
		}
		if (slot)
			*slot = (uint64_t)id + 1;
	}
	if (wc_grow((void **)&p->lf, &p->lf_cap, p->nlf + 1, sizeof(*p->lf))) {
		m->err = -ENOMEM;
		return;
	}
	p->lf[p->nlf++] = (struct lframe){ (uint32_t)id, fl };
}

/* put_frame() of a name whose address stays its own while the profile lives: a symbolizer's
 * (valid until it is freed) or a literal; its id is cached by that address. */
static void put_stable(struct wc_profile *p, struct mk *m, const char *name, uint32_t fl)
{
	bool k = (fl & WC_FRAME_KERNEL) && p->o.annotate;
	uint64_t *slot = wc_map64_put(k ? &p->kcache : &p->ucache, (uintptr_t)name, 0, NULL);

	if (!slot) {
		m->err = -ENOMEM;
		return;
	}
	put_frame(p, m, name, fl, slot);
}

/* The line's key frame: @comm, or "comm-TID" per thread; @slot as put_frame()'s. */
static void put_key(struct wc_profile *p, struct mk *m, const char *comm, uint32_t tid,
		    uint32_t fl, uint64_t *slot)
{
	char key[64];

	if (!p->o.per_thread) {
		put_frame(p, m, comm, fl, slot);
		return;
	}
	snprintf(key, sizeof(key), "%s-%u", comm, tid);
	put_frame(p, m, key, fl, slot);
}

/* A frame named before (@f): its name from the table, no lookup. */
static void put_known(struct wc_profile *p, struct mk *m, struct lframe f)
{
	if (p->nlf > m->first)
		wc_strbuf_put(&m->b, ";");
	wc_strbuf_put(&m->b, wc_names_get(&p->names, f.id));
	if (wc_grow((void **)&p->lf, &p->lf_cap, p->nlf + 1, sizeof(*p->lf))) {
		m->err = -ENOMEM;
		return;
	}
	p->lf[p->nlf++] = f;
}

/*
 * The frames of stack @stack_id in address space @aspace: user frames root first, "-" with
 * --delimiter, kernel frames; named once, then copied from p->sc (by aspace and stack).
 * Return: whether there was any frame.
 */
static bool put_stack(struct wc_profile *p, struct wc_symbolizer *sym, struct mk *m,
		      uint32_t aspace, uint32_t stack_id)
{
	uint64_t *slot = wc_map64_put(&p->stacks, (uint64_t)aspace << 32 | stack_id, 0, NULL);
	uint32_t nr = 0;
	const uint64_t *ips;
	struct wc_callchain cc;
	size_t from = p->nlf, n;

	if (!slot) {
		m->err = -ENOMEM;
		return false;
	}
	if (*slot) {
		size_t h = *slot - 1;

		for (uint32_t i = 1; i <= p->sc[h].id; i++)
			put_known(p, m, p->sc[h + i]);
		return p->sc[h].id > 0;
	}
	ips = wc_replay_stack(p->a->replay, stack_id, &nr);
	wc_callchain_split(ips, nr, &cc);
	if (!p->o.kernel_only)
		for (uint32_t i = cc.nuser; i-- > 0;) {
			const char *name = wc_symbolizer_user(sym, aspace, cc.user[i]);

			put_stable(p, m, name ? name : "[unknown]", WC_FRAME_USER);
		}
	if (p->o.delimiter && !p->o.kernel_only && !p->o.user_only && cc.nuser && cc.nkernel)
		put_stable(p, m, "-", WC_FRAME_SYNTH);
	if (!p->o.user_only)
		for (uint32_t i = cc.nkernel; i-- > 0;) {
			const char *name = wc_symbolizer_kernel(sym, cc.kernel[i]);

			put_stable(p, m, name ? name : "[unknown]", WC_FRAME_KERNEL);
		}
	n = p->nlf - from;
	if (!m->err && !wc_grow((void **)&p->sc, &p->sc_cap, p->nsc + n + 1, sizeof(*p->sc))) {
		p->sc[p->nsc] = (struct lframe){ (uint32_t)n, 0 }; /* a header: the count */
		memcpy(&p->sc[p->nsc + 1], &p->lf[from], n * sizeof(*p->sc));
		*slot = p->nsc + 1;
		p->nsc += n + 1;
	}
	return n > 0;
}

/* Start a line: key;user frames;[-;]kernel frames[;leaf].  Return: its kind of leaf. */
static enum wc_out_leaf line_text(struct wc_profile *p, struct wc_symbolizer *sym, struct mk *m,
				  struct seg *s, unsigned leaf, uint32_t stack_id)
{
	char buf[32];

	wc_strbuf_reset(&m->b);
	m->first = p->nlf;
	put_key(p, m, s->comm[0] ? s->comm : "[unknown]", s->tid, WC_FRAME_KEY, &s->key_id);
	if (leaf == LEAF_ON_NEAR && wc_skid_stack(p->a, sym, stack_id)) {
		put_stable(p, m, WC_SKID_FRAME, WC_FRAME_SYNTH);
		return WC_OUT_SCHEDULER;
	}
	if (!put_stack(p, sym, m, s->aspace, stack_id) && leaf != LEAF_UNSAMPLED)
		put_stable(p, m, "[unknown]", WC_FRAME_SYNTH);
	switch (leaf) {
	case LEAF_ON:
	case LEAF_ON_NEAR:
		return WC_OUT_ON_CPU;
	case LEAF_OFF:
		return WC_OUT_OFF;
	case LEAF_UNSAMPLED:
		put_stable(p, m, "[on-cpu unsampled]", WC_FRAME_SYNTH);
		return WC_OUT_UNSAMPLED;
	case LEAF_RUNQ:
		put_stable(p, m, "[runqueue]", WC_FRAME_SYNTH);
		return WC_OUT_RUNQUEUE;
	default:
		snprintf(buf, sizeof(buf), "[off-cpu %c]", (char)leaf);
		put_frame(p, m, buf, WC_FRAME_SYNTH, &p->state_id[leaf & 0xff]);
		return WC_OUT_OFF_STATE;
	}
}

/* The waker part of a waker-profile line: ;--;kernel frames;user frames;comm (leaf first). */
static void waker_text(struct wc_profile *p, struct wc_symbolizer *sym, struct mk *m,
		       const struct wk_entry *e)
{
	const struct seg *w = e->wseg ? &p->segs[e->wseg] : NULL;
	uint32_t nr = 0;
	const uint64_t *ips = wc_replay_stack(p->a->replay, e->wstack, &nr);
	struct wc_callchain cc;
	const char *comm = w && w->comm[0] ? w->comm : e->wtid ? "[unknown]" : "swapper";
	const uint32_t wk = WC_FRAME_WAKER;
	char key[64];

	put_stable(p, m, "--", WC_FRAME_SYNTH);
	if (!p->waker_stacks) {
		snprintf(key, sizeof(key), "%s-%u", comm, e->wtid);
		put_frame(p, m, key, WC_FRAME_SYNTH | wk, NULL);
		return;
	}
	wc_callchain_split(ips, nr, &cc);
	if (!p->o.user_only)
		for (uint32_t i = 0; i < cc.nkernel; i++) {
			const char *n = wc_symbolizer_kernel(sym, cc.kernel[i]);

			put_stable(p, m, n ? n : "[unknown]", WC_FRAME_KERNEL | wk);
		}
	if (p->o.delimiter && !p->o.kernel_only && !p->o.user_only && cc.nuser && cc.nkernel)
		put_stable(p, m, "-", WC_FRAME_SYNTH | wk);
	if (!p->o.kernel_only && w)
		for (uint32_t i = 0; i < cc.nuser; i++) {
			const char *n = wc_symbolizer_user(sym, w->aspace, cc.user[i]);

			put_stable(p, m, n ? n : "[unknown]", WC_FRAME_USER | wk);
		}
	put_key(p, m, comm, e->wtid, WC_FRAME_SYNTH | wk, NULL);
}

/* How complete the user part of the stack is (wc_callchain_user_kind()). */
static enum wc_user_stack user_kind(const struct wc_analysis *a, uint32_t stack_id)
{
	uint32_t nr = 0;
	const uint64_t *ips = wc_replay_stack(a->replay, stack_id, &nr);

	return ips ? wc_callchain_user_kind(ips, nr) : WC_USER_NONE;
}

static int cmp_line(const void *x, const void *y)
{
	return strcmp(((const struct line *)x)->text, ((const struct line *)y)->text);
}

/* Keep the line made in @m as @l.  Return: 0 or -ENOMEM. */
static int keep(struct wc_profile *p, struct mk *m, struct line *l, uint32_t seg,
		enum wc_out_leaf leaf, char state, uint64_t ns)
{
	if (m->err)
		return m->err;
	if (m->b.oom || !(l->text = strdup(m->b.s)))
		return -ENOMEM;
	l->ns = ns;
	l->first = m->first;
	l->nframes = (uint32_t)(p->nlf - m->first);
	l->seg = seg;
	l->leaf = (uint8_t)leaf;
	l->state = state;
	return 0;
}

/* Make the lines of the waker profile and of the entries in @lines; *@n of them made. */
static int make_lines(struct wc_profile *p, struct wc_symbolizer *sym, struct line *lines,
		      size_t *n)
{
	struct mk m = { 0 };
	int err = 0;

	p->nlf = 0;
	for (size_t i = 0; i < p->nwk && !err; i++) {
		const struct wk_entry *e = &p->wk[i];

		line_text(p, sym, &m, &p->segs[e->tseg], LEAF_OFF, e->tstack);
		waker_text(p, sym, &m, e);
		err = keep(p, &m, &lines[*n], e->tseg, WC_OUT_WAKER, 0, e->ns);
		*n += !err;
	}
	memset(p->user_ns, 0, sizeof(p->user_ns));
	for (size_t i = 0; i <= p->entries.mask && !err; i++) {
		uint64_t key = p->entries.keys[i];
		unsigned leaf = (key >> 32) & 0xff;
		enum wc_out_leaf kind;

		if (key == WC_MAP64_EMPTY)
			continue;
		if (leaf != LEAF_ON && leaf != LEAF_ON_NEAR && leaf != LEAF_UNSAMPLED)
			p->user_ns[user_kind(p->a, (uint32_t)key)] += p->entries.values[i];
		kind = line_text(p, sym, &m, &p->segs[key >> 40], leaf, (uint32_t)key);
		err = keep(p, &m, &lines[*n], (uint32_t)(key >> 40), kind,
			   kind == WC_OUT_OFF_STATE ? (char)leaf : 0, p->entries.values[i]);
		*n += !err;
	}
	wc_strbuf_fini(&m.b);
	return err;
}

/* Hand the sorted @lines to @line, equal ones merged, their values in the unit. */
static int emit(struct wc_profile *p, const struct line *lines, size_t n,
		int (*line)(void *ctx, const struct wc_out_line *l), void *ctx)
{
	uint64_t unit = wc_unit_ns(p->o.unit);
	struct wc_out_frame *fr = NULL;
	size_t fr_cap = 0;
	int err = 0;

	for (size_t i = 0; i < n && !err;) {
		const struct line *l = &lines[i];
		const struct seg *s = &p->segs[l->seg];
		struct wc_out_line o = { .tid = s->tid, .pid = s->pid, .nframes = l->nframes,
					 .leaf = l->leaf, .state = l->state, .folded = l->text };
		uint64_t ns = 0;

		for (; i < n && strcmp(lines[i].text, l->text) == 0; i++)
			ns += lines[i].ns;
		o.value = (ns + unit / 2) / unit;
		if (!o.value)
			continue;
		if (wc_grow((void **)&fr, &fr_cap, l->nframes, sizeof(*fr))) {
			err = -ENOMEM;
			break;
		}
		for (uint32_t f = 0; f < l->nframes; f++) {
			const struct lframe *lf = &p->lf[l->first + f];

			fr[f] = (struct wc_out_frame){ lf->id, lf->flags,
						       wc_names_get(&p->names, lf->id) };
		}
		o.comm = s->comm[0] ? s->comm : "[unknown]";
		o.frames = fr;
		err = line(ctx, &o);
	}
	free(fr);
	return err;
}

int wc_profile_lines(struct wc_profile *p, struct wc_analysis *a, struct wc_symbolizer *sym,
		     int (*line)(void *ctx, const struct wc_out_line *l), void *ctx)
{
	struct line *lines;
	size_t n = 0;
	int err;

	p->a = a;
	if (calibrate(p))
		return -ENOMEM;
	p->skid = 0;
	for (size_t i = 0; i <= p->near.mask; i++)
		if (p->near.keys[i] != WC_MAP64_EMPTY &&
		    wc_skid_stack(a, sym, (uint32_t)p->near.keys[i]))
			p->skid += p->near.values[i];
	lines = calloc(p->entries.count + p->nwk + 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	err = make_lines(p, sym, lines, &n);
	if (!err) {
		qsort(lines, n, sizeof(*lines), cmp_line);
		err = emit(p, lines, n, line, ctx);
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	return err;
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
