/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export-chrome.c - runs and off-CPU intervals as Chrome trace-event JSON (see export.h).
 *
 * The format is the "JSON Object Format" of Google's Trace Event Format document, as
 * chrome://tracing (catapult's trace viewer) and Perfetto UI read it:
 *
 *   {"traceEvents":[
 *   {"ph":"X","ts":1000.000,"dur":2000.000,"pid":100,"tid":101,"name":"Running",
 *    "cat":"on-cpu","args":{"cpu":0}},
 *   {"ph":"X","ts":3000.000,"dur":400.000,"pid":100,"tid":101,"name":"Sleeping S",
 *    "cat":"off-cpu","args":{"state":"S","stack":[...],"waker_tid":300,...}},
 *   ...,
 *   {"ph":"M","name":"thread_name","pid":100,"tid":101,"args":{"name":"worker"}}
 *   ],
 *   "otherData":{...}}
 *
 * one event per line (line-oriented tools and diffs work on it).
 *
 * One thread's time, as sched.h splits it:
 *
 *      switch-in       switch-out           first wakeup       switch-in
 *   -------+---------------+--------------------+------------------+------>  time
 *          |<- Running  -->|<--- Sleeping S --->|<--- Runnable --->|
 *                          |   (blocked time)   |   (sch delay)    |
 *
 * and a thread switched out preempted has one "Preempted R" slice from its switch-out to its
 * switch-in.  The slices of a thread thus tile its time, from its first known switch-in or
 * switch-out to its last, but for the edge cases sched.h counts and drops.
 *
 * Choices made for the readers (Perfetto's JSON importer, src/trace_processor/importers/json):
 *  - "ph" and "ts" come first in each event: older importers find them by scanning the event's
 *    members in order, and fail on an array or a \u escape met before them;
 *  - ts is the exact decimal of microseconds with three digits (ns); dur is chosen so that
 *    ts + dur in binary floating point does not pass the next slice's ts (put_dur());
 *  - no "displayTimeUnit": Perfetto takes "ns" there as the unit of ts, not of the display;
 *  - the metadata events come last, when the names are final; "otherData", which Perfetto
 *    knows, is the only other top-level member: it stops reading at one it does not know.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/core/callchain.h"
#include "analyzer/output/export.h"
#include "common/grow.h"
#include "analyzer/output/json.h"
#include "common/map64.h"

/* Per thread (index in wc_tasks.threads): the pid its slices carry, fixed at the first. */
struct tinfo {
	uint32_t pid;
	bool seen;
};

struct text {
	char *s;
	size_t len;
};

struct wc_chrome {
	struct wc_chrome_opts o;
	FILE *out;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct wc_symbolizer *sym;
	struct wc_json j;
	bool started; /* the document's head is written */
	bool window_set;
	struct wc_window win; /* the --time window */
	struct tinfo *threads;
	size_t threads_cap;
	uint64_t nslices, nthreads;
	uint64_t *by_time; /* slices by start, in steps of bucket_ns from the first event */
	size_t nby_time, by_time_cap;
	uint64_t bucket_ns; /* SLICE_BUCKET_NS, doubled each time the steps pass SLICE_BUCKETS */
	bool by_time_oom;   /* then wc_chrome_window_end() assumes an even spread */
	struct wc_map64 stacks; /* aspace << 32 | stack id -> index in texts */
	struct text *texts;
	size_t ntexts, texts_cap;
	struct wc_strbuf name;
	/* several traces (wc_chrome_next_file()): */
	int files;	    /* traces begun */
	uint64_t offset_ns; /* this trace's first event after the first trace's, ns */
	uint64_t zero_wall; /* the first trace's first event, ns of CLOCK_REALTIME; 0 unknown */
	uint32_t id_base;   /* added to this trace's pids and tids (--per-file) */
	const char *label;  /* this trace's name in its processes' names, or NULL */
	uint64_t misplaced; /* traces that began before the first: put at its start */
	char *first_path, *host, *kernel; /* the first trace's, for otherData */
};

static void start_doc(struct wc_chrome *c)
{
	if (c->started)
		return;
	c->started = true;
	wc_json_init(&c->j, c->out);
	wc_json_object(&c->j);
	wc_json_key(&c->j, "traceEvents");
	wc_json_array(&c->j);
}

static int on_begin(void *ctx, struct wc_analysis *a)
{
	struct wc_chrome *c = ctx;

	c->files++;
	c->a = a;
	c->sym = wc_analysis_symbolizer(a);
	if (!c->sym)
		return -ENOMEM;
	start_doc(c);
	return 0;
}

/* At this trace's first event: its --time window, and where it lies after the first trace
 * (by the wall clock of each; at the first's start when either has none). */
static void set_window(struct wc_chrome *c)
{
	const struct wc_replay_meta *m = wc_replay_meta(wc_analysis_replay(c->a));
	uint64_t start = wc_analysis_facts(c->a)->start_ns, wall = 0;

	c->window_set = true;
	c->win = wc_filter_window(&c->o.filter, start);
	if (c->win.t0 < start) /* a rotated file's carried interval or run: from the start */
		c->win.t0 = start;
	if (!start || !wc_replay_wall_ns(m, start, &wall))
		wall = 0;
	c->offset_ns = 0;
	if (c->files <= 1) {
		c->zero_wall = wall;
		free(c->first_path);
		free(c->host);
		free(c->kernel);
		c->first_path = strdup(wc_analysis_path(c->a));
		c->host = m->have_host ? strdup(m->nodename) : NULL;
		c->kernel = m->have_host ? strdup(m->release) : NULL;
	} else if (wall && c->zero_wall && wall >= c->zero_wall) {
		c->offset_ns = wall - c->zero_wall;
	} else {
		c->misplaced++;
	}
}

/* The thread's entry, created on its first slice; NULL on ENOMEM. */
static struct tinfo *tinfo_of(struct wc_chrome *c, const struct wc_thread *t)
{
	size_t i = (size_t)(t - wc_analysis_tasks(c->a)->threads);
	size_t old = c->threads_cap;
	struct tinfo *ti;

	if (i >= wc_analysis_tasks(c->a)->nthreads) /* never: the sinks get threads of a->tasks */
		return NULL;
	if (wc_grow((void **)&c->threads, &c->threads_cap, i + 1, sizeof(*c->threads)))
		return NULL;
	if (c->threads_cap > old)
		memset(c->threads + old, 0, (c->threads_cap - old) * sizeof(*c->threads));
	ti = &c->threads[i];
	if (!ti->seen) {
		ti->seen = true;
		/* a thread whose process is not known gets a process of its own */
		ti->pid = (t->pid ? t->pid : t->tid) + c->id_base;
		c->nthreads++;
	}
	return ti;
}

/* ns from the recording's first event (of the first trace, with several). */
static uint64_t rel(const struct wc_chrome *c, uint64_t ns)
{
	uint64_t start = wc_analysis_facts(c->a)->start_ns;

	return (ns > start ? ns - start : 0) + c->offset_ns;
}

/* The steps of wc_chrome_window_end(): 10 ms, doubled (pairs merged) whenever a slice would
 * need more than SLICE_BUCKETS of them, so that the memory does not follow a time stamp. */
#define SLICE_BUCKET_NS 10000000ull
#define SLICE_BUCKETS	65536

/* Count a slice that starts at @start in its step of by_time. */
static void count_by_time(struct wc_chrome *c, uint64_t start)
{
	uint64_t t = rel(c, start);
	size_t i;

	if (c->by_time_oom)
		return;
	if (!c->bucket_ns)
		c->bucket_ns = SLICE_BUCKET_NS;
	while (t / c->bucket_ns >= SLICE_BUCKETS) {
		for (size_t k = 0; k < c->nby_time; k += 2)
			c->by_time[k / 2] =
				c->by_time[k] + (k + 1 < c->nby_time ? c->by_time[k + 1] : 0);
		for (size_t k = (c->nby_time + 1) / 2; k < c->nby_time; k++)
			c->by_time[k] = 0;
		c->nby_time = (c->nby_time + 1) / 2;
		c->bucket_ns *= 2;
	}
	i = (size_t)(t / c->bucket_ns);
	if (i >= c->nby_time) {
		size_t old = c->by_time_cap;

		if (wc_grow((void **)&c->by_time, &c->by_time_cap, i + 1, sizeof(*c->by_time))) {
			c->by_time_oom = true;
			return;
		}
		memset(c->by_time + old, 0, (c->by_time_cap - old) * sizeof(*c->by_time));
		c->nby_time = i + 1;
	}
	c->by_time[i]++;
}

/* The next double below positive, finite @d. */
static double step_down(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	bits--;
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/*
 * The duration of [@start, @end).  JavaScript viewers (chrome://tracing, DevTools) add
 * ts + dur in binary floating point, and a result past the next slice's ts makes that slice
 * start a hair inside this one: it is drawn nested in it.  So dur is a double d with
 * double(ts) + d <= double(end), ts and end read as the exact decimals written for them:
 * the exact decimal with three digits when it does (nearly 9 times in 10), else the largest
 * double not above end - ts, written as the shortest text that reads back as it
 * ("6.670999999999822" from 1749.005 to 1755.676, where 6.671 would overshoot).  It is
 * within an ulp of the exact value, so Perfetto, which rounds ts and dur to whole ns, gets
 * the exact ns either way.
 */
static void put_dur(struct wc_chrome *c, uint64_t start, uint64_t end)
{
	uint64_t s = rel(c, start), e = rel(c, end);
	double ts = (double)s / 1000, te = (double)e / 1000, d = (double)(e - s) / 1000;
	double bb, err;
	char text[40];

	if (ts + d <= te) {
		wc_json_fixed(&c->j, (int64_t)(e - s), 3);
		return;
	}
	/* te - ts rounded down: d + err is te - ts exactly (Knuth's TwoSum), so a negative
	 * err means d is above it */
	d = te - ts;
	bb = d - te;
	err = (te - (d - bb)) + (-ts - bb);
	if (err < 0)
		d = step_down(d);
	for (int p = 15; p <= 17; p++) {
		snprintf(text, sizeof(text), "%.*g", p, d);
		if (strtod(text, NULL) == d)
			break;
	}
	wc_json_raw(&c->j, text, strlen(text));
}

/*
 * The head of one complete event [@start, @end) of @t, with "args" opened: the caller writes
 * the members of args and closes both.
 */
static void slice(struct wc_chrome *c, const struct tinfo *ti, const struct wc_thread *t,
		  const char *name, const char *cat, uint64_t start, uint64_t end)
{
	struct wc_json *j = &c->j;

	wc_json_newline(j);
	wc_json_object(j);
	wc_json_key(j, "ph");
	wc_json_str(j, "X");
	wc_json_key(j, "ts");
	wc_json_fixed(j, (int64_t)rel(c, start), 3);
	wc_json_key(j, "dur");
	put_dur(c, start, end);
	wc_json_key(j, "pid");
	wc_json_u64(j, ti->pid);
	wc_json_key(j, "tid");
	wc_json_u64(j, (uint64_t)t->tid + c->id_base);
	wc_json_key(j, "name");
	wc_json_str(j, name);
	wc_json_key(j, "cat");
	wc_json_str(j, cat);
	wc_json_key(j, "args");
	wc_json_object(j);
	c->nslices++;
	count_by_time(c, start);
}

/* [@a, @b) cut to the window; false when nothing of it is left. */
static bool clip(const struct wc_chrome *c, uint64_t *a, uint64_t *b)
{
	if (*a < c->win.t0)
		*a = c->win.t0;
	if (*b > c->win.t1)
		*b = c->win.t1;
	return *b > *a;
}

static int on_run(void *ctx, struct wc_thread *t, int32_t cpu, uint64_t start, uint64_t end)
{
	struct wc_chrome *c = ctx;
	struct tinfo *ti;

	if (!c->window_set)
		set_window(c);
	if (!wc_filter_thread(&c->o.filter, c->a, t) || !clip(c, &start, &end))
		return 0;
	ti = tinfo_of(c, t);
	if (!ti)
		return -ENOMEM;
	slice(c, ti, t, "Running", "on-cpu", start, end);
	wc_json_key(&c->j, "cpu");
	wc_json_i64(&c->j, cpu);
	wc_json_end(&c->j);
	wc_json_end(&c->j);
	return 0;
}

/*
 * The JSON array of the frames of stack @id in address space @aspace, leaf first, kernel
 * frames before user frames, as perf script and a debugger print a backtrace; built once per
 * distinct pair.  Return: the text (owned by @c), or NULL on ENOMEM.
 */
static const struct text *stack_json(struct wc_chrome *c, uint32_t aspace, uint32_t id)
{
	uint64_t key = (uint64_t)aspace << 32 | id, *v = wc_map64_get(&c->stacks, key);
	uint32_t nr = 0;
	const uint64_t *ips;
	struct wc_callchain cc;
	struct wc_json sj;
	struct text t = { 0 };
	FILE *m;
	int err;

	if (v)
		return &c->texts[*v];
	if (wc_grow((void **)&c->texts, &c->texts_cap, c->ntexts + 1, sizeof(*c->texts)))
		return NULL;
	m = open_memstream(&t.s, &t.len);
	if (!m)
		return NULL;
	ips = wc_replay_stack(wc_analysis_replay(c->a), id, &nr);
	wc_callchain_split(ips, nr, &cc);
	wc_json_init(&sj, m);
	wc_json_array(&sj);
	for (uint32_t i = 0; !c->o.user_only && i < cc.nkernel; i++) {
		const char *n = wc_symbolizer_kernel(c->sym, cc.kernel[i]);

		wc_strbuf_reset(&c->name);
		wc_strbuf_put(&c->name, n ? n : "[unknown]");
		if (c->o.annotate)
			wc_strbuf_put(&c->name, "_[k]");
		if (c->name.oom)
			break;
		wc_json_str(&sj, c->name.s);
	}
	for (uint32_t i = 0; !c->o.kernel_only && i < cc.nuser; i++) {
		const char *f[WC_INLINE_MAX_DEPTH + 1];
		size_t nf = wc_symbolizer_user_frames(c->sym, aspace, cc.user[i], f,
						      WC_INLINE_MAX_DEPTH + 1);

		if (!nf) /* out of memory */
			wc_json_str(&sj, "[unknown]");
		for (size_t k = 0; k < nf; k++) /* leaf first: the inlined calls first */
			wc_json_str(&sj, f[k]);
	}
	wc_json_end(&sj);
	err = sj.err;
	if (fclose(m) || err || c->name.oom || !wc_map64_put(&c->stacks, key, c->ntexts, NULL)) {
		free(t.s);
		return NULL;
	}
	c->texts[c->ntexts] = t;
	return &c->texts[c->ntexts++];
}

/* The slice name of an off-CPU interval's blocked part, by its switch-out state letter. */
static const char *state_name(char state)
{
	switch (state) {
	case 'S':
		return "Sleeping S";
	case 'D':
		return "Uninterruptible D";
	case 'R':
		return "Runnable"; /* a new task's wait for its first run: no blocked part */
	case 'I':
		return "Idle I";
	case 'T':
		return "Stopped T";
	case 't':
		return "Traced t";
	case 'P':
		return "Parked P";
	case 'X':
		return "Dead X";
	case 'Z':
		return "Zombie Z";
	default:
		return NULL;
	}
}

/*
 * The args of an off-CPU interval's slice: state, stack, waker and its stack, flags.  The
 * stacks (@with_stack) go on the first slice of the interval only: the second is next to it,
 * and the stacks are most of the file's size.
 */
static int off_args(struct wc_chrome *c, const struct wc_thread *t,
		    const struct wc_off_interval *iv, bool with_stack, bool switch_in)
{
	struct wc_json *j = &c->j;
	char state[2] = { iv->state >= 0x21 && iv->state < 0x7f ? iv->state : '?', 0 };
	const struct text *s;

	wc_json_key(j, "state");
	wc_json_str(j, state);
	if (with_stack && iv->stack_id) {
		s = stack_json(c, t->aspace, iv->stack_id);
		if (!s)
			return -ENOMEM;
		wc_json_key(j, "stack");
		wc_json_raw(j, s->s, s->len);
	}
	if (!iv->preempted && !iv->no_wakeup) {
		const struct wc_thread *w =
			iv->waker_tid ? wc_tasks_find(wc_analysis_tasks(c->a), iv->waker_tid)
				      : NULL;

		wc_json_key(j, "waker_tid");
		wc_json_u64(j, iv->waker_tid);
		wc_json_key(j, "waker");
		/* the idle task (interrupts on an idle CPU) as perf sched timehist names it */
		wc_json_str(j, !iv->waker_tid ? "<idle>" : w && w->comm[0] ? w->comm : "[unknown]");
		if (with_stack && iv->waker_stack_id) {
			s = stack_json(c, w ? w->aspace : 0, iv->waker_stack_id);
			if (!s)
				return -ENOMEM;
			wc_json_key(j, "waker_stack");
			wc_json_raw(j, s->s, s->len);
		}
	}
	if (iv->no_wakeup) {
		wc_json_key(j, "no_wakeup");
		wc_json_bool(j, true);
	}
	if (switch_in) {
		wc_json_key(j, "cpu");
		wc_json_i64(j, iv->cpu);
		if (iv->inferred) {
			wc_json_key(j, "switch_in_inferred");
			wc_json_bool(j, true);
		}
	}
	return 0;
}

/* One part [@start, @end) of an off-CPU interval; *@first: no part written yet. */
static int off_slice(struct wc_chrome *c, const struct tinfo *ti, const struct wc_thread *t,
		     const struct wc_off_interval *iv, const char *name, uint64_t start,
		     uint64_t end, bool switch_in, bool *first)
{
	int err;

	if (!clip(c, &start, &end))
		return 0;
	slice(c, ti, t, name, "off-cpu", start, end);
	err = off_args(c, t, iv, *first, switch_in);
	*first = false;
	wc_json_end(&c->j);
	wc_json_end(&c->j);
	return err;
}

static int on_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	struct wc_chrome *c = ctx;
	const struct wc_filter *f = &c->o.filter;
	uint64_t a = iv->start_ns, b = iv->end_ns, total;
	const char *name;
	char other[16];
	struct tinfo *ti;
	bool first = true;
	int err;

	if (!c->window_set)
		set_window(c);
	if (!wc_filter_thread(f, c->a, t) ||
	    (f->states && (!iv->state || !strchr(f->states, iv->state))))
		return 0;
	/* the length bounds of folded -m/-M: the whole interval within the window */
	total = clip(c, &a, &b) ? b - a : 0;
	if (!total || total < f->min_block_ns || (f->max_block_ns && total > f->max_block_ns))
		return 0;
	ti = tinfo_of(c, t);
	if (!ti)
		return -ENOMEM;
	if (iv->preempted)
		return off_slice(c, ti, t, iv, "Preempted R", iv->start_ns, iv->end_ns, true,
				 &first);
	name = state_name(iv->state);
	if (!name) {
		snprintf(other, sizeof(other), "Off-CPU %c",
			 iv->state >= 0x21 && iv->state < 0x7f ? iv->state : '?');
		name = other;
	}
	err = off_slice(c, ti, t, iv, name, iv->start_ns, iv->wake_ns, false, &first);
	if (!err)
		err = off_slice(c, ti, t, iv, "Runnable", iv->wake_ns, iv->end_ns, true, &first);
	return err;
}

struct wc_chrome *wc_chrome_new(const struct wc_chrome_opts *o, FILE *out)
{
	struct wc_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->o = *o;
	c->out = out;
	c->consumer = (struct wc_analysis_consumer){
		.ctx = c,
		.begin = on_begin,
		.sink = { .run = on_run, .off = on_off },
	};
	if (wc_map64_init(&c->stacks)) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void wc_chrome_free(struct wc_chrome *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntexts; i++)
		free(c->texts[i].s);
	free(c->texts);
	free(c->threads);
	free(c->by_time);
	wc_map64_fini(&c->stacks);
	wc_strbuf_fini(&c->name);
	free(c->first_path);
	free(c->host);
	free(c->kernel);
	free(c);
}

const struct wc_analysis_consumer *wc_chrome_consumer(struct wc_chrome *c)
{
	return &c->consumer;
}

uint64_t wc_chrome_slices(const struct wc_chrome *c)
{
	return c->nslices;
}

double wc_chrome_window_end(const struct wc_chrome *c, double start_s, double end_s,
			    uint64_t max_slices)
{
	double step = (double)(c->bucket_ns ? c->bucket_ns : SLICE_BUCKET_NS) / 1e9;
	uint64_t n = 0;
	size_t i, i0;

	if (c->by_time_oom || !c->nslices || !(start_s >= 0 && start_s < end_s)) /* evenly */
		return start_s + (end_s - start_s) * (double)max_slices /
					 (double)(c->nslices ? c->nslices : 1);
	/* from the step that holds the start, counted whole */
	i0 = (size_t)(start_s / step);
	for (i = i0; i < c->nby_time; i++) {
		if (n + c->by_time[i] > max_slices)
			break;
		n += c->by_time[i];
	}
	return (double)(i > i0 ? i : i0 + 1) * step;
}

uint64_t wc_chrome_threads(const struct wc_chrome *c)
{
	return c->nthreads;
}

static void metadata(struct wc_chrome *c, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	struct wc_json *j = &c->j;

	wc_json_newline(j);
	wc_json_object(j);
	wc_json_key(j, "ph");
	wc_json_str(j, "M");
	wc_json_key(j, "name");
	wc_json_str(j, what);
	wc_json_key(j, "pid");
	wc_json_u64(j, pid);
	wc_json_key(j, "tid");
	wc_json_u64(j, tid);
	wc_json_key(j, "args");
	wc_json_object(j);
	wc_json_key(j, "name");
	wc_json_str(j, name);
	wc_json_end(j);
	wc_json_end(j);
}

/* The process and thread names, for the threads that have slices. */
static int names(struct wc_chrome *c)
{
	const struct wc_tasks *tk = wc_analysis_tasks(c->a);
	struct wc_map64 done;
	size_t n = c->threads_cap < tk->nthreads ? c->threads_cap : tk->nthreads;
	int err = 0;

	if (wc_map64_init(&done))
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		const struct wc_thread *t = &tk->threads[i], *leader;
		uint32_t pid = c->threads[i].pid;
		int inserted = 0;

		if (!c->threads[i].seen)
			continue;
		if (!wc_map64_put(&done, pid, 0, &inserted)) {
			err = -ENOMEM;
			break;
		}
		if (inserted) {
			leader = wc_tasks_find(tk, pid - c->id_base);
			if (!leader || !leader->comm[0])
				leader = t;
			wc_strbuf_reset(&c->name);
			wc_strbuf_put(&c->name, leader->comm[0] ? leader->comm : "[unknown]");
			if (c->label)
				wc_strbuf_putf(&c->name, " (%s)", c->label);
			if (c->name.oom) {
				err = -ENOMEM;
				break;
			}
			metadata(c, "process_name", pid, pid, c->name.s);
		}
		metadata(c, "thread_name", pid, t->tid + c->id_base,
			 t->comm[0] ? t->comm : "[unknown]");
	}
	wc_map64_fini(&done);
	return err;
}

/* What the trace is (the first, with several), for whoever reads the file later. */
static void other_data(struct wc_chrome *c)
{
	struct wc_json *j = &c->j;
	uint64_t ns = c->zero_wall;
	char when[64];

	wc_json_newline(j);
	wc_json_key(j, "otherData");
	wc_json_object(j);
	wc_json_key(j, "exporter");
	wc_json_str(j, "wcanalyze " PACKAGE_VERSION);
	wc_json_key(j, "trace");
	wc_json_str(j, c->first_path ? c->first_path : "");
	if (c->files > 1) {
		wc_json_key(j, "traces");
		wc_json_u64(j, (uint64_t)c->files);
	}
	if (c->host && c->kernel) {
		wc_json_key(j, "host");
		wc_json_str(j, c->host);
		wc_json_key(j, "kernel");
		wc_json_str(j, c->kernel);
	}
	/* ts 0 on the wall clock: the recording's first event */
	if (ns) {
		time_t sec = (time_t)(ns / 1000000000);
		struct tm tm;

		if (gmtime_r(&sec, &tm) && strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm)) {
			snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%06dZ",
				 (int)(ns % 1000000000 / 1000));
			wc_json_key(j, "ts_zero_utc");
			wc_json_str(j, when);
		}
	}
	wc_json_key(j, "ts_unit");
	wc_json_str(j, c->files > 1 ? "microseconds from the first trace's first event"
				    : "microseconds from the recording's first event");
	wc_json_end(j);
}

int wc_chrome_next_file(struct wc_chrome *c, uint32_t id_base, const char *label)
{
	int err = c->a ? names(c) : 0;

	for (size_t i = 0; i < c->ntexts; i++)
		free(c->texts[i].s);
	c->ntexts = 0;
	wc_map64_fini(&c->stacks);
	if (c->threads_cap)
		memset(c->threads, 0, c->threads_cap * sizeof(*c->threads));
	c->a = NULL;
	c->sym = NULL;
	c->window_set = false;
	c->id_base = id_base;
	c->label = label;
	return err ? err : wc_map64_init(&c->stacks) ? -ENOMEM : 0;
}

uint64_t wc_chrome_misplaced(const struct wc_chrome *c)
{
	return c->misplaced;
}

int wc_chrome_finish(struct wc_chrome *c)
{
	int err = 0;

	start_doc(c);
	if (c->a)
		err = names(c);
	wc_json_newline(&c->j);
	wc_json_end(&c->j); /* traceEvents */
	if (c->files)
		other_data(c);
	wc_json_end(&c->j);
	if (err)
		return err;
	err = wc_json_finish(&c->j);
	return err == -EINVAL ? -EIO : err; /* -EINVAL: this file's nesting; never expected */
}
