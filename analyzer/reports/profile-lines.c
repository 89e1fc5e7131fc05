/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile-lines.c - the profile's lines for the outputs (wc_profile_lines(), profile.h and
 * output.h): each aggregated entry named (frames interned once, their text built as the
 * folded line), the lines sorted by that text, equal ones merged, handed out as structures.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/callchain.h"
#include "common/grow.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile-priv.h"
#include "analyzer/core/skid.h"

/* A line made: its folded text, its time and count, its frames (p->lf[first...]). */
struct line {
	char *text;
	uint64_t ns, count;
	uint32_t tid; /* its segment's, when the lines of threads are kept apart; else 0 */
	size_t first;
	uint32_t nframes, seg;
	uint8_t leaf; /* enum wc_out_leaf */
	char state;   /* WC_OUT_OFF_STATE's letter */
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
	p->lf[p->nlf++] = (struct lframe){ (uint32_t)id, fl, 0 };
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
static void put_key(struct wc_profile *p, struct mk *m, const char *comm, uint32_t tid, uint32_t fl,
		    uint64_t *slot)
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
	ips = wc_replay_stack(wc_analysis_replay(p->a), stack_id, &nr);
	wc_callchain_split(ips, nr, &cc);
	if (!p->o.kernel_only)
		for (uint32_t i = cc.nuser; i-- > 0;) {
			const char *f[WC_INLINE_MAX_DEPTH + 1];
			size_t nf = wc_symbolizer_user_frames(sym, aspace, cc.user[i], f,
							      WC_INLINE_MAX_DEPTH + 1);
			const struct wc_map *map =
				wc_tasks_lookup_map(wc_analysis_tasks(p->a), aspace, cc.user[i]);
			size_t at = p->nlf;

			if (!nf) /* out of memory */
				put_stable(p, m, "[unknown]", WC_FRAME_USER);
			for (size_t k = nf;
			     k-- > 0;) /* the function, then the calls inlined into it */
				put_stable(p, m, f[k],
					   WC_FRAME_USER | (k + 1 < nf ? WC_FRAME_INLINE : 0));
			for (; map && at < p->nlf; at++)
				p->lf[at].dso = map->dso + 1;
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
	const uint64_t *ips = wc_replay_stack(wc_analysis_replay(p->a), e->wstack, &nr);
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
			const char *f[WC_INLINE_MAX_DEPTH + 1];
			size_t nf = wc_symbolizer_user_frames(sym, w->aspace, cc.user[i], f,
							      WC_INLINE_MAX_DEPTH + 1);

			if (!nf) /* out of memory */
				put_stable(p, m, "[unknown]", WC_FRAME_USER | wk);
			for (size_t k = 0; k < nf; k++) /* leaf first: the inlined calls first */
				put_stable(p, m, f[k],
					   WC_FRAME_USER | wk | (k + 1 < nf ? WC_FRAME_INLINE : 0));
		}
	put_key(p, m, comm, e->wtid, WC_FRAME_SYNTH | wk, NULL);
}

/* How complete the user part of the stack is (wc_callchain_user_kind()). */
static enum wc_user_stack user_kind(const struct wc_analysis *a, uint32_t stack_id)
{
	uint32_t nr = 0;
	const uint64_t *ips = wc_replay_stack(wc_analysis_replay(a), stack_id, &nr);

	return ips ? wc_callchain_user_kind(ips, nr) : WC_USER_NONE;
}

/* By text, then thread (split_threads; else the tids are all 0). */
static int cmp_line(const void *x, const void *y)
{
	const struct line *a = x, *b = y;
	int c = strcmp(a->text, b->text);

	return c ? c : a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Keep the line made in @m as @l, @ns from @count samples or intervals.  Return: 0 or -ENOMEM. */
static int keep(struct wc_profile *p, struct mk *m, struct line *l, uint32_t seg,
		enum wc_out_leaf leaf, char state, uint64_t ns, uint64_t count)
{
	if (m->err)
		return m->err;
	if (m->b.oom || !(l->text = strdup(m->b.s)))
		return -ENOMEM;
	l->ns = ns;
	l->count = count;
	l->tid = p->o.split_threads ? p->segs[seg].tid : 0;
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
		err = keep(p, &m, &lines[*n], e->tseg, WC_OUT_WAKER, 0, e->ns, e->n);
		*n += !err;
	}
	memset(p->user_ns, 0, sizeof(p->user_ns));
	for (size_t i = 0; i <= p->entries.mask && !err; i++) {
		uint64_t key = p->entries.keys[i];
		unsigned leaf = (key >> 32) & 0xff;
		const uint64_t *count;
		enum wc_out_leaf kind;

		if (key == WC_MAP64_EMPTY)
			continue;
		if (leaf != LEAF_ON && leaf != LEAF_ON_NEAR && leaf != LEAF_UNSAMPLED)
			p->user_ns[user_kind(p->a, (uint32_t)key)] += p->entries.values[i];
		kind = line_text(p, sym, &m, &p->segs[key >> 40], leaf, (uint32_t)key);
		count = wc_map64_get(&p->counts, key);
		err = keep(p, &m, &lines[*n], (uint32_t)(key >> 40), kind,
			   kind == WC_OUT_OFF_STATE ? (char)leaf : 0, p->entries.values[i],
			   count ? *count : 0);
		*n += !err;
	}
	wc_strbuf_fini(&m.b);
	return err;
}

/* The last comm of thread @tid as the tasks know it, or NULL. */
static const char *comm_of(struct wc_analysis *a, uint32_t tid)
{
	const struct wc_thread *t = tid ? wc_tasks_find(wc_analysis_tasks(a), tid) : NULL;

	return t && t->comm[0] ? t->comm : NULL;
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
		struct wc_out_line o = { .tid = s->tid,
					 .pid = s->pid,
					 .nframes = l->nframes,
					 .leaf = l->leaf,
					 .state = l->state,
					 .folded = l->text };
		uint64_t ns = 0;

		for (; i < n && cmp_line(&lines[i], l) == 0; i++) {
			ns += lines[i].ns;
			o.count += lines[i].count;
		}
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
						       wc_names_get(&p->names, lf->id), lf->dso };
		}
		o.comm = s->comm[0] ? s->comm : "[unknown]";
		o.thread_comm = comm_of(p->a, s->tid);
		o.proc_comm = comm_of(p->a, s->pid);
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
	if (wc_profile_calibrate(p))
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
