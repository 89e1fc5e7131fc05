/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.c - see hist.h for what each kind measures and how a value finds its slot. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/reports/hist.h"
#include "analyzer/output/json.h"

/* One thread's histogram; the output merges them by process or thread id, or all. */
struct entry {
	uint32_t thread; /* index in wc_tasks.threads */
	char comm[17];	 /* the thread's comm at its first value, as BCC keeps hist.comm */
	uint64_t count, sum_ns;
	uint64_t slots[WC_HIST_SLOTS];
};

/* A run held until its switch-out's state is known (--state with --kind on). */
struct pending {
	bool valid, inferred;
	uint32_t thread, tid;
	uint64_t start_ns, end_ns;
};

struct wc_hist {
	struct wc_hist_opts o;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct entry *entries; /* index 0 unused: wc_thread.seg 0 means none */
	size_t nentries, cap;
	struct wc_hist_counts counts;
	uint64_t unit_ns;
	struct wc_window win; /* the --time window */
	bool window_set;
	/* the last interval closed by an inferred switch-in: the run sink's next call for the
	 * same thread, starting at its end, is the run that follows it (sched.c switch_out) */
	uint32_t inferred_thread;
	uint64_t inferred_end_ns;
	struct pending pending;
};

unsigned int wc_hist_slot(uint64_t value)
{
	return value ? 63u - (unsigned int)__builtin_clzll(value) : 0;
}

/* The bounds print_log2_hist() prints for slot @i: [2^i, 2^(i+1) - 1], and 0 -> 1 for slot 0. */
static uint64_t slot_low(int i)
{
	return i ? (uint64_t)1 << i : 0;
}

static uint64_t slot_high(int i)
{
	return i == 63 ? UINT64_MAX : ((uint64_t)1 << (i + 1)) - 1;
}

/* print_stars() of trace_helpers.c: @val's share of @val_max in @width characters. */
static void stars(FILE *out, uint64_t val, uint64_t val_max, int width)
{
	int n = (int)((unsigned __int128)(val < val_max ? val : val_max) * (unsigned)width /
		      val_max);

	for (int i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', out);
}

int wc_hist_print_log2(FILE *out, const uint64_t *vals, int nvals, const char *val_type)
{
	int idx_max = -1, i;
	uint64_t val_max = 0;

	if (nvals > WC_HIST_SLOTS)
		nvals = WC_HIST_SLOTS;
	for (i = 0; i < nvals; i++) {
		if (vals[i])
			idx_max = i;
		if (vals[i] > val_max)
			val_max = vals[i];
	}
	if (idx_max < 0)
		return 0;
	bool narrow = idx_max <= 32;
	int width = narrow ? 10 : 20;

	fprintf(out, "%*s%-*s : count    distribution\n", narrow ? 5 : 15, "", narrow ? 19 : 29,
		val_type);
	for (i = 0; i <= idx_max; i++) {
		fprintf(out, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |", width, slot_low(i),
			width, slot_high(i), vals[i]);
		stars(out, vals[i], val_max, narrow ? 40 : 20);
		fputs("|\n", out);
	}
	return ferror(out) ? -EIO : 0;
}

static void set_window(struct wc_hist *h)
{
	h->window_set = true;
	h->win = wc_filter_window(&h->o.filter, wc_analysis_facts(h->a)->start_ns);
}

/* Whether @t's value ending at @end_ns counts: the thread filters and the time window. */
static bool keep(struct wc_hist *h, const struct wc_thread *t, uint64_t end_ns)
{
	if (!h->window_set)
		set_window(h);
	return end_ns >= h->win.t0 && end_ns < h->win.t1 && wc_filter_thread(&h->o.filter, h->a, t);
}

static bool state_kept(const struct wc_hist *h, char state)
{
	return !h->o.filter.states || (state && strchr(h->o.filter.states, state));
}

static uint32_t thread_index(const struct wc_hist *h, const struct wc_thread *t)
{
	return (uint32_t)(t - wc_analysis_tasks(h->a)->threads);
}

/* Add @len_ns, a value of thread @idx, to its histogram. */
static int add(struct wc_hist *h, uint32_t idx, uint64_t len_ns)
{
	struct wc_thread *t = &wc_analysis_tasks(h->a)->threads[idx];
	struct entry *e;

	if (!t->seg || t->seg >= h->nentries || h->entries[t->seg].thread != idx) {
		size_t cap = h->cap;

		if (cap == h->nentries) {
			cap = cap ? cap * 2 : 64;
			e = cap <= UINT32_MAX ? realloc(h->entries, cap * sizeof(*e)) : NULL;
			if (!e)
				return -ENOMEM;
			h->entries = e;
			h->cap = cap;
			if (!h->nentries) /* keep index 0 unused */
				h->nentries = 1;
		}
		e = &h->entries[h->nentries];
		memset(e, 0, sizeof(*e));
		e->thread = idx;
		memcpy(e->comm, t->comm, sizeof(e->comm));
		t->seg = (uint32_t)h->nentries++;
	}
	e = &h->entries[t->seg];
	e->slots[wc_hist_slot(len_ns / h->unit_ns)]++;
	e->count++;
	e->sum_ns += len_ns;
	h->counts.counted++;
	return 0;
}

/*
 * A new task's first wait, sched_wakeup_new to its first switch-in: sched.c opens it in state
 * 'R' without the preempted flag, which no switch-out gives (a switch-out in R is preempted).
 */
static bool new_task_wait(const struct wc_off_interval *iv)
{
	return iv->state == 'R' && !iv->preempted;
}

static int on_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	struct wc_hist *h = ctx;
	const struct wc_filter *f = &h->o.filter;
	uint64_t len = iv->end_ns - iv->start_ns;

	if (h->o.kind == WC_HIST_ON) {
		if (iv->inferred) {
			h->inferred_thread = thread_index(h, t);
			h->inferred_end_ns = iv->end_ns;
		}
		return 0;
	}
	if (!keep(h, t, iv->end_ns) || !state_kept(h, iv->state))
		return 0;
	if (h->o.kind == WC_HIST_OFF) {
		if (len < f->min_block_ns || (f->max_block_ns && len > f->max_block_ns))
			return 0;
		if (new_task_wait(iv)) {
			h->counts.new_task++;
			return 0;
		}
		if (iv->inferred)
			h->counts.inferred++;
		return add(h, thread_index(h, t), len);
	}
	/* runq: wakeup (or switch-out, preempted) to switch-in */
	if (iv->inferred) {
		h->counts.inferred++;
		return 0;
	}
	if (iv->no_wakeup) {
		h->counts.no_wakeup++;
		return 0;
	}
	if (new_task_wait(iv))
		h->counts.new_task++;
	return add(h, thread_index(h, t), iv->end_ns - iv->wake_ns);
}

static int add_run(struct wc_hist *h, uint32_t idx, bool inferred, uint64_t start, uint64_t end)
{
	if (inferred)
		h->counts.inferred++;
	return add(h, idx, end - start);
}

static int on_run(void *ctx, struct wc_thread *t, int32_t cpu, uint64_t start, uint64_t end)
{
	struct wc_hist *h = ctx;
	uint32_t idx;
	bool inferred;

	(void)cpu;
	if (h->o.kind != WC_HIST_ON)
		return 0;
	idx = thread_index(h, t);
	inferred = h->inferred_thread == idx && h->inferred_end_ns == start;
	h->inferred_thread = 0;
	if (!keep(h, t, end))
		return 0;
	if (!h->o.filter.states)
		return add_run(h, idx, inferred, start, end);
	/* the state of the switch-out that ends the run comes with its sched_event, next */
	h->pending = (struct pending){ true, inferred, idx, t->tid, start, end };
	return 0;
}

static int on_sched_event(void *ctx, const struct wc_sched_event *ev)
{
	struct wc_hist *h = ctx;
	struct pending p = h->pending;

	if (!p.valid || ev->role != WC_TP_SWITCH || ev->sw->prev_tid != (int32_t)p.tid)
		return 0;
	h->pending.valid = false;
	return state_kept(h, ev->sw->state) ? add_run(h, p.thread, p.inferred, p.start_ns, p.end_ns)
					    : 0;
}

static int on_begin(void *ctx, struct wc_analysis *a)
{
	struct wc_hist *h = ctx;

	h->a = a;
	return 0;
}

struct wc_hist *wc_hist_new(const struct wc_hist_opts *o)
{
	struct wc_hist *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->o = *o;
	h->unit_ns = wc_unit_ns(o->unit);
	h->consumer = (struct wc_analysis_consumer){
		.ctx = h,
		.begin = on_begin,
		.sink = { .run = on_run, .off = on_off },
		/* only --state with --kind on needs every event */
		.sched_event = o->kind == WC_HIST_ON && o->filter.states ? on_sched_event : NULL,
	};
	return h;
}

void wc_hist_free(struct wc_hist *h)
{
	if (!h)
		return;
	free(h->entries);
	free(h);
}

const struct wc_analysis_consumer *wc_hist_consumer(struct wc_hist *h)
{
	return &h->consumer;
}

const struct wc_hist_counts *wc_hist_counts(const struct wc_hist *h)
{
	return &h->counts;
}

/* ---- output ---- */

/* The histograms merged for the output: one, or one per process or thread id. */
struct group {
	uint32_t key;
	const struct entry *first; /* the first entry made: its comm names the group, as the
				    * comm of the task that made BCC's hist entry does */
	uint64_t count, sum_ns;
	uint64_t slots[WC_HIST_SLOTS];
};

struct sort_ent {
	uint32_t key;
	uint32_t entry; /* entries are made in the order of the replay */
};

static int cmp_sort_ent(const void *x, const void *y)
{
	const struct sort_ent *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

static uint32_t key_of(const struct wc_hist *h, const struct wc_analysis *a, const struct entry *e)
{
	const struct wc_thread *t = &wc_analysis_tasks(a)->threads[e->thread];

	switch (h->o.per) {
	case WC_HIST_PROCESS:
		return t->pid ? t->pid : t->tid; /* a thread whose process was never named */
	case WC_HIST_THREAD:
		return t->tid;
	default:
		return 0;
	}
}

/* The groups, by increasing key, in *@out (to free); their number in *@n.  0 or -ENOMEM. */
static int make_groups(const struct wc_hist *h, const struct wc_analysis *a, struct group **out,
		       size_t *n)
{
	size_t ne = h->nentries ? h->nentries - 1 : 0, ng = 0;
	struct sort_ent *s = calloc(ne + 1, sizeof(*s));
	struct group *g = calloc(ne + 1, sizeof(*g));

	if (!s || !g) {
		free(s);
		free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ne; i++)
		s[i] = (struct sort_ent){ key_of(h, a, &h->entries[i + 1]), (uint32_t)(i + 1) };
	qsort(s, ne, sizeof(*s), cmp_sort_ent);
	for (size_t i = 0; i < ne; i++) {
		const struct entry *e = &h->entries[s[i].entry];

		if (!ng || g[ng - 1].key != s[i].key) {
			g[ng].key = s[i].key;
			g[ng++].first = e;
		}
		struct group *x = &g[ng - 1];

		x->count += e->count;
		x->sum_ns += e->sum_ns;
		for (int k = 0; k < WC_HIST_SLOTS; k++)
			x->slots[k] += e->slots[k];
	}
	free(s);
	*out = g;
	*n = ng;
	return 0;
}

static const char *val_type(const struct wc_hist *h)
{
	return h->o.unit == WC_UNIT_MS ? "msecs" : h->o.unit == WC_UNIT_NS ? "nsecs" : "usecs";
}

static const char *const kind_names[] = { "off", "runq", "on" };

static const char *const headlines[] = {
	"Off-CPU interval lengths in %s (cpudist -O): switch-out to switch-in.\n",
	"Run queue latency in %s (runqlat): wakeup, or switch-out when preempted, to "
	"switch-in.\n",
	"On-CPU run lengths in %s (cpudist): switch-in to switch-out.\n",
};

/*
 * The line of counts that ends the text report: what was counted and left out (of the
 * threads and times that pass the filters), then the trace's losses and edge cases.
 */
static void footer(const struct wc_hist *h, const struct wc_analysis *a, FILE *out)
{
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	const struct wc_hist_counts *n = &h->counts;

	switch (h->o.kind) {
	case WC_HIST_OFF:
		fprintf(out,
			"intervals counted %" PRIu64 " (inferred switch-in %" PRIu64 "), "
			"left out: new-task waits %" PRIu64,
			n->counted, n->inferred, n->new_task);
		break;
	case WC_HIST_RUNQ:
		fprintf(out,
			"latencies counted %" PRIu64 " (new-task waits %" PRIu64 "), "
			"left out: no wakeup %" PRIu64 ", inferred switch-in %" PRIu64,
			n->counted, n->new_task, n->no_wakeup, n->inferred);
		break;
	case WC_HIST_ON:
		fprintf(out, "runs counted %" PRIu64 " (inferred switch-in %" PRIu64 ")",
			n->counted, n->inferred);
		break;
	}
	fprintf(out,
		"; trace: lost events %" PRIu64 ", lost samples %" PRIu64 ", late %" PRIu64
		", undecodable %" PRIu64 ", bad references %" PRIu64 ", bad CPU %" PRIu64,
		st->lost_records, st->lost_samples, st->late, wc_analysis_facts(a)->decode_errors,
		st->bad_refs, c->bad_cpu);
	if (h->o.kind == WC_HIST_ON)
		fprintf(out,
			"; runs not seen whole: start unknown %" PRIu64 ", unknown %" PRIu64
			", open at end %" PRIu64 ", switch-in while on a CPU %" PRIu64 "\n",
			c->run_start_unknown, c->unknown_dropped, c->open_run_at_end,
			c->switch_in_running);
	else
		fprintf(out,
			"; intervals not seen whole: start unknown %" PRIu64 ", unknown %" PRIu64
			", open at end %" PRIu64 "\n",
			c->start_unknown, c->unknown_dropped, c->open_off_at_end);
}

int wc_hist_write_text(struct wc_hist *h, const struct wc_analysis *a, FILE *out)
{
	struct group *g;
	size_t ng;
	int err = make_groups(h, a, &g, &ng);

	if (err)
		return err;
	fprintf(out, headlines[h->o.kind], wc_analysis_path(a));
	fputc('\n', out);
	for (size_t i = 0; i < ng && !err; i++) {
		if (h->o.per != WC_HIST_ALL)
			fprintf(out, "\n%s = %" PRIu32 " %s\n",
				h->o.per == WC_HIST_PROCESS ? "pid" : "tid", g[i].key,
				g[i].first->comm[0] ? g[i].first->comm : "[unknown]");
		err = wc_hist_print_log2(out, g[i].slots, WC_HIST_SLOTS, val_type(h));
	}
	free(g);
	fputc('\n', out);
	footer(h, a, out);
	return err || fflush(out) || ferror(out) ? -EIO : 0;
}

/* @s as a JSON string (json.h: bytes outside UTF-8, as a comm cut mid-character, as U+FFFD) */
static void json_string(FILE *out, const char *s)
{
	wc_json_write_string(out, s, strlen(s));
}

int wc_hist_write_json(struct wc_hist *h, const struct wc_analysis *a, FILE *out)
{
	static const char *const pers[] = { "all", "process", "thread" };
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	const struct wc_hist_counts *n = &h->counts;
	struct group *g;
	size_t ng;
	int err = make_groups(h, a, &g, &ng);

	if (err)
		return err;
	fputs("{\n  \"file\": ", out);
	json_string(out, wc_analysis_path(a));
	fprintf(out,
		",\n  \"kind\": \"%s\",\n  \"unit\": \"%s\",\n  \"per\": \"%s\",\n"
		"  \"truncated\": %s,\n  \"histograms\": [",
		kind_names[h->o.kind], val_type(h), pers[h->o.per],
		st->state == WC_READER_TRUNCATED ? "true" : "false");
	for (size_t i = 0; i < ng; i++) {
		int idx_max = -1;

		for (int k = 0; k < WC_HIST_SLOTS; k++)
			if (g[i].slots[k])
				idx_max = k;
		fprintf(out, "%s\n    {", i ? "," : "");
		if (h->o.per != WC_HIST_ALL) {
			fprintf(out, "\"%s\": %" PRIu32 ", \"comm\": ",
				h->o.per == WC_HIST_PROCESS ? "pid" : "tid", g[i].key);
			json_string(out, g[i].first->comm[0] ? g[i].first->comm : "[unknown]");
			fputs(", ", out);
		}
		fprintf(out, "\"count\": %" PRIu64 ", \"sum_ns\": %" PRIu64 ", \"buckets\": [",
			g[i].count, g[i].sum_ns);
		for (int k = 0; k <= idx_max; k++)
			fprintf(out,
				"%s\n      {\"low\": %" PRIu64 ", \"high\": %" PRIu64
				", \"count\": %" PRIu64 "}",
				k ? "," : "", slot_low(k), slot_high(k), g[i].slots[k]);
		fputs("\n    ]}", out);
	}
	free(g);
	fprintf(out,
		"%s],\n  \"counts\": {\"counted\": %" PRIu64 ", \"inferred\": %" PRIu64
		", \"no_wakeup\": %" PRIu64 ", \"new_task\": %" PRIu64 ",\n",
		ng ? "\n  " : "", n->counted, n->inferred, n->no_wakeup, n->new_task);
	fprintf(out,
		"    \"lost_events\": %" PRIu64 ", \"lost_samples\": %" PRIu64
		", \"late\": %" PRIu64 ", \"undecodable\": %" PRIu64 ", \"bad_refs\": %" PRIu64
		", \"bad_cpu\": %" PRIu64 ",\n",
		st->lost_records, st->lost_samples, st->late, wc_analysis_facts(a)->decode_errors,
		st->bad_refs, c->bad_cpu);
	fprintf(out,
		"    \"start_unknown\": %" PRIu64 ", \"run_start_unknown\": %" PRIu64
		", \"unknown_dropped\": %" PRIu64 ", \"open_off_at_end\": %" PRIu64
		", \"open_run_at_end\": %" PRIu64 ", \"switch_in_running\": %" PRIu64
		", \"switch_in_records\": %" PRIu64 "}\n}\n",
		c->start_unknown, c->run_start_unknown, c->unknown_dropped, c->open_off_at_end,
		c->open_run_at_end, c->switch_in_running, c->switch_in_records);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
