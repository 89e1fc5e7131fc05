/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist.c - see timehist.h.  The layout of every line follows perf 6.1's builtin-sched.c
 * (timehist_header, timehist_print_sample, timehist_print_wakeup_event,
 * timehist_print_migration_event, timehist_print_summary); the differences on purpose are
 * listed in man/wcanalyze-timehist.1, NOTES.
 *
 * Rows are formatted by hand into a buffer (no printf per field): this is the hot path of a
 * per-event log.  A callchain is named once per (stack id, address space) and kept as text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/callchain.h"
#include "analyzer/grow.h"
#include "analyzer/map64.h"
#include "analyzer/timehist.h"

#define OUT_CAP (256 * 1024)
#define COMM_STR 64

/* Welford's running mean and M2, as perf's util/stat.c update_stats(). */
struct tstat {
	uint64_t n, total, min, max;
	double mean, m2;
};

/* What the wait of a task's off-CPU interval counts as in the --state summary. */
enum { K_SLEEP = 0, K_IOWAIT, K_PREEMPT, K_NEW };

/* Per thread (by index in wc_tasks.threads). */
struct trt {
	uint64_t off_start, off_wake, off_end; /* its last off-CPU interval */
	uint8_t off_kind;
	bool have_off;
	struct tstat run;  /* runs; with idle_hist the idle periods credited to it */
	uint64_t sleep_ns, iowait_ns, preempt_ns, delay_ns;
	uint64_t migrations;
	uint32_t last_stack, last_aspace, last_chain; /* the last chain_of() of its rows */
	char name[COMM_STR];  /* "comm[tid/pid]" as last shown, for that comm and pid */
	char name_comm[16];
	uint32_t name_pid;
	uint8_t name_len;
};

/* Per CPU: the idle task's periods. */
struct tcpu {
	uint64_t idle_since; /* idle switched in then; 0 when not idle or not known */
	uint64_t idle_out;   /* idle last switched out then; 0 when not known */
	uint32_t last_thread; /* idle_hist: index of the thread that left the CPU idle; 0 none */
	uint32_t last_chain;  /* ... its switch-out chain (arena offset + 1; 0 none) */
	bool seen;           /* a switch was seen on it (in the window) */
	struct tstat idle;
	uint64_t idle_cut;   /* idle periods whose switch-out was not traced, in the window */
	uint64_t cut_all;    /* ... in the whole trace */
};

/* idle_hist: idle time per (CPU, callchain text) */
struct chain_hit {
	uint32_t cpu, chain;
	uint64_t hit_ns, count;
};

struct wc_timehist {
	struct wc_timehist_opts o;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct wc_symbolizer *sym;
	FILE *out;
	char *buf;
	size_t len;
	int err;
	int comm_width;      /* grows with the longest task name seen, as perf's */
	uint64_t sec;        /* the seconds of the last time stamp, and their digits */
	char sec_str[24];
	int sec_len;
	bool idle_open;      /* no thread filter: idle rows are shown */
	bool window_set;
	uint64_t t0, t1;     /* the --time window, [t0, t1) */
	uint64_t first_ns, last_ns; /* first and last switch in the window */
	uint32_t ncpus, nvis; /* CPUs tracked; columns of -V */
	struct tcpu *cpus;
	struct trt *trt;
	size_t ntrt;
	struct {
		uint32_t idx, tid;
		uint64_t start, end;
	} pending;           /* the run the state machine closed at the current switch */
	struct wc_map64 chains; /* stack id << 32 | address space -> arena offset + 1, 0 empty */
	char *arena;
	size_t arena_len, arena_cap;
	struct wc_strbuf tmp;
	struct wc_map64 hit_index; /* cpu << 40 | chain -> index in hits */
	struct chain_hit *hits;
	size_t nhits, hits_cap;
};

/* --- output ---------------------------------------------------------------------------- */

static void out_flush(struct wc_timehist *th)
{
	if (th->len && fwrite(th->buf, 1, th->len, th->out) != th->len)
		th->err = -EIO;
	th->len = 0;
}

/* Room for @n more bytes at the end of the buffer (NULL on ENOMEM). */
static char *room(struct wc_timehist *th, size_t n)
{
	if (th->len + n > OUT_CAP)
		out_flush(th);
	if (n > OUT_CAP) { /* a callchain longer than the buffer: write it in its own */
		char *b = realloc(th->buf, n);

		if (!b)
			return NULL;
		th->buf = b;
	}
	return th->buf + th->len;
}

static char *spaces(char *p, int n)
{
	if (n > 0)
		memset(p, ' ', (size_t)n);
	return n > 0 ? p + n : p;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* @s (@n bytes) left-aligned in @w columns (longer: as is) */
static char *left_n(char *p, const char *s, size_t n, int w)
{
	p = put(p, s, n);
	return (int)n < w ? spaces(p, w - (int)n) : p;
}


#define DD(a) a "0" a "1" a "2" a "3" a "4" a "5" a "6" a "7" a "8" a "9"
static const char dd[] = DD("0") DD("1") DD("2") DD("3") DD("4") DD("5") DD("6") DD("7")
	DD("8") DD("9"); /* "00" .. "99" */

/* @v in decimal, right-aligned in @w columns, padded with @pad */
static char *num(char *p, uint64_t v, int w, char pad)
{
	char d[24], *e = d + sizeof(d), *s = e;
	int n;

	while (v >= 100) {
		s -= 2;
		memcpy(s, dd + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		s -= 2;
		memcpy(s, dd + 2 * v, 2);
	} else {
		*--s = (char)('0' + v);
	}
	n = (int)(e - s);
	for (int i = n; i < w; i++)
		*p++ = pad;
	memcpy(p, s, (size_t)n);
	return p + n;
}

/* @v < 1000 in 3 digits */
static char *num3(char *p, unsigned v)
{
	*p++ = (char)('0' + v / 100);
	memcpy(p, dd + 2 * (v % 100), 2);
	return p + 2;
}

/* perf's print_sched_time(): "%*lu.%03lu " of ms and us (truncated); "-" when unknown */
static char *ms(char *p, uint64_t ns, int w, bool known)
{
	uint64_t us = ns / 1000;

	if (!known) {
		p = spaces(p, w + 3);
		*p++ = '-';
		*p++ = ' ';
		return p;
	}
	p = num(p, us / 1000, w, ' ');
	*p++ = '.';
	p = num3(p, (unsigned)(us % 1000));
	*p++ = ' ';
	return p;
}

/* perf's "%15s [%04d] " of timestamp__scnprintf_usec(): seconds.microseconds; the seconds'
 * digits are kept from the row before */
static char *stamp(struct wc_timehist *th, char *p, uint64_t ns, uint32_t cpu)
{
	uint64_t sec = ns / 1000000000;
	unsigned us = (unsigned)(ns / 1000 % 1000000);

	if (sec != th->sec || !th->sec_len) {
		th->sec = sec;
		th->sec_len = (int)(num(th->sec_str, sec, 0, ' ') - th->sec_str);
	}
	if (th->sec_len < 8)
		p = spaces(p, 8 - th->sec_len);
	p = put(p, th->sec_str, (size_t)th->sec_len);
	*p++ = '.';
	p = num3(p, us / 1000);
	p = num3(p, us % 1000);
	p = put(p, " [", 2);
	p = num(p, cpu, 4, '0');
	return put(p, "] ", 2);
}

/* printf into the output: for the header, summary and footer, not the rows */
static void outf(struct wc_timehist *th, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void outf(struct wc_timehist *th, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = n >= 0 ? room(th, (size_t)n + 1) : NULL;
	if (!p) {
		th->err = th->err ? th->err : -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	th->len += (size_t)n;
}

/* ms() as a string in @buf (32 bytes) */
static const char *msf(char *buf, uint64_t ns, int w)
{
	*ms(buf, ns, w, true) = 0;
	return buf;
}

/* "comm[tid/pid]", "comm[tid]" when they are equal or the pid is unknown, as perf's
 * timehist_get_commstr(); the column widens to the longest seen */
static const char *commstr(struct wc_timehist *th, char *dst, const char *comm, uint32_t tid,
			   uint32_t pid)
{
	int n = pid && pid != tid ? snprintf(dst, COMM_STR, "%.16s[%" PRIu32 "/%" PRIu32 "]", comm,
					     tid, pid)
				  : snprintf(dst, COMM_STR, "%.16s[%" PRIu32 "]", comm, tid);

	if (n > th->comm_width)
		th->comm_width = n;
	return dst;
}

static const char *thread_str(struct wc_timehist *th, char *dst, const struct wc_thread *t)
{
	return commstr(th, dst, t->comm[0] ? t->comm : "[unknown]", t->tid, t->pid);
}

/* The -V columns: @mark at @cpu, blanks elsewhere, between spaces. */
static char *visual(const struct wc_timehist *th, char *p, uint32_t cpu, char mark)
{
	*p++ = ' ';
	for (uint32_t i = 0; i < th->nvis; i++)
		*p++ = i == cpu ? mark : ' ';
	*p++ = ' ';
	return p;
}

static const char dashes[] = "-----------------------------------------------------------------"
			     "-------------------------------------------------------------------";

/* perf's timehist_header(): "%15s %6s ", the -V columns, " %-*s", "  %9s" x3, "  state" */
static void header(struct wc_timehist *th)
{
	const char *state[3] = { "  state", "       ", "  -----" };
	int w = th->comm_width, v = (int)th->nvis;
	char *p;

	for (int line = 0; line < 3; line++) {
		outf(th, "%s", line == 0   ? "           time    cpu "
			       : line == 1 ? "                       "
					   : "--------------- ------ ");
		p = th->o.cpu_visual ? room(th, (size_t)v + 2) : NULL;
		if (p) {
			*p++ = ' ';
			for (int i = 0; i < v; i++)
				*p++ = line == 0 ? "0123456789abcdef"[i % 16] : line == 1 ? ' ' : '-';
			*p++ = ' ';
			th->len = (size_t)(p - th->buf);
		}
		if (line < 2)
			outf(th, " %-*s  %9s  %9s  %9s", w, line ? "[tid/pid]" : "task name",
			     line ? "(msec)" : "wait time", line ? "(msec)" : "sch delay",
			     line ? "(msec)" : "run time");
		else
			outf(th, " %.*s  %.9s  %.9s  %.9s", w, dashes, dashes, dashes, dashes);
		outf(th, "%s\n", th->o.state ? state[line] : "");
	}
}

/* --- callchains ------------------------------------------------------------------------ */

/* perf hides the scheduler's own frames (save_task_callchain: schedule, __schedule,
 * preempt_schedule); we hide every preempt_schedule* as well */
static bool hidden(const char *name)
{
	return !strcmp(name, "schedule") || !strcmp(name, "__schedule") ||
	       !strncmp(name, "preempt_schedule", 16);
}

/*
 * The text of callchain @stack_id of a task in address space @aspace: up to max_stack frames
 * leaf first, kernel then user, joined by " <- ".  *@chain is set to its arena offset + 1, or
 * 0 when nothing is shown.  Return: 0 or -ENOMEM.
 */
static int chain_of(struct wc_timehist *th, uint32_t stack_id, uint32_t aspace,
		    uint32_t *chain)
{
	uint64_t key = (uint64_t)stack_id << 32 | aspace, *v;
	struct wc_callchain cc;
	const uint64_t *ips;
	unsigned shown = 0;
	uint32_t nr;
	int inserted;

	*chain = 0;
	if (!th->sym || !stack_id)
		return 0;
	v = wc_map64_get(&th->chains, key);
	if (v) {
		*chain = (uint32_t)*v;
		return 0;
	}
	ips = wc_replay_stack(th->a->replay, stack_id, &nr);
	wc_callchain_split(ips, ips ? nr : 0, &cc);
	wc_strbuf_reset(&th->tmp);
	for (uint32_t i = 0; i < cc.nkernel + cc.nuser && shown < th->o.max_stack; i++) {
		const char *name = i < cc.nkernel
					   ? wc_symbolizer_kernel(th->sym, cc.kernel[i])
					   : wc_symbolizer_user(th->sym, aspace,
								cc.user[i - cc.nkernel]);

		if (!name)
			return -ENOMEM;
		if (i < cc.nkernel && hidden(name))
			continue;
		if (shown++)
			wc_strbuf_put(&th->tmp, " <- ");
		wc_strbuf_put(&th->tmp, name);
	}
	if (th->tmp.oom)
		return -ENOMEM;
	if (shown) {
		uint32_t n = (uint32_t)th->tmp.len;

		/* [u32 length][text NUL], 4-aligned */
		size_t need = th->arena_len + 4 + n + 1 + 3;

		if (need > UINT32_MAX - 1 || wc_grow((void **)&th->arena, &th->arena_cap, need, 1))
			return -ENOMEM;
		memcpy(th->arena + th->arena_len, &n, 4);
		memcpy(th->arena + th->arena_len + 4, th->tmp.s, n + 1);
		*chain = (uint32_t)th->arena_len + 1;
		th->arena_len = need & ~(size_t)3;
	}
	v = wc_map64_put(&th->chains, key, *chain, &inserted);
	return v ? 0 : -ENOMEM;
}

static size_t chain_len(const struct wc_timehist *th, uint32_t chain)
{
	uint32_t n = 0;

	if (chain)
		memcpy(&n, th->arena + chain - 1, 4);
	return n;
}

static const char *chain_text(const struct wc_timehist *th, uint32_t chain)
{
	return th->arena + chain - 1 + 4;
}

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

/* sqrt by Newton's method: the analyzer does not link libm for one summary column */
static double root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double n = (r + x / r) / 2;

		if (n == r)
			break;
		r = n;
	}
	return r;
}

/* perf's rel_stddev_stats(stddev_stats()): the standard error of the mean, in % of it */
static double rel_stddev(const struct tstat *s)
{
	if (s->n < 2 || s->mean <= 0)
		return 0;
	return 100 * root(s->m2 / (double)(s->n - 1) / (double)s->n) / s->mean;
}

/* --- the replay side ------------------------------------------------------------------- */

static void set_window(struct wc_timehist *th)
{
	const struct wc_filter *f = &th->o.filter;

	th->window_set = true;
	th->t0 = 0;
	th->t1 = UINT64_MAX;
	if (f->have_time) {
		th->t0 = th->a->start_ns + (uint64_t)(f->start_s * 1e9);
		if (f->end_s > 0)
			th->t1 = th->a->start_ns + (uint64_t)(f->end_s * 1e9);
	}
}

/* The length of [a, b] inside the window. */
static uint64_t clip(const struct wc_timehist *th, uint64_t a, uint64_t b)
{
	if (a < th->t0)
		a = th->t0;
	if (b > th->t1)
		b = th->t1;
	return b > a ? b - a : 0;
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
	return (size_t)(t - th->a->tasks.threads);
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
	r->off_kind = iv->preempted		       ? K_PREEMPT
		      : iv->state == 'R'	       ? K_NEW
		      : iv->state == 'D'	       ? K_IOWAIT
						       : K_SLEEP;
	return 0;
}

static bool shows(const struct wc_timehist *th, const struct wc_thread *t)
{
	return t && wc_filter_thread(&th->o.filter, th->a, t);
}

/* The values of a switch row; a value not known is shown "-". */
struct row {
	const char *name, *state;
	size_t name_len;
	uint64_t wait, delay, run;
	bool known_wait, known_delay, known_run;
	uint32_t chain;
};

/* A switch row, as perf's timehist_print_sample(). */
static int put_row(struct wc_timehist *th, const struct wc_sched_event *ev, const struct row *r)
{
	const struct wc_timehist_opts *o = &th->o;
	const struct wc_switch *sw = ev->sw;
	char *p = room(th, 512 + 3 * (size_t)th->comm_width + chain_len(th, r->chain));

	if (!p)
		return -ENOMEM;
	p = stamp(th, p, ev->time_ns, ev->cpu);
	if (o->cpu_visual)
		p = visual(th, p, ev->cpu, sw->prev_tid > 0 ? 's' : 'i');
	*p++ = ' ';
	p = left_n(p, r->name, r->name_len, th->comm_width);
	*p++ = ' ';
	p = ms(p, r->wait, 6, r->known_wait);
	p = ms(p, r->delay, 6, r->known_delay);
	p = ms(p, r->run, 6, r->known_run);
	if (o->state) { /* " %5s " */
		size_t n = strlen(r->state);

		p = spaces(p, 6 - (int)n);
		p = put(p, r->state, n);
		*p++ = ' ';
	}
	if (o->next) { /* " %-*s" of "next: comm[tid]" */
		char *q = p;

		p = put(p, " next: ", 7);
		p = put(p, sw->next_comm, strnlen(sw->next_comm, 16));
		*p++ = '[';
		p = num(p, (uint64_t)(sw->next_tid > 0 ? sw->next_tid : 0), 0, ' ');
		*p++ = ']';
		p = spaces(p, th->comm_width + 1 - (int)(p - q));
	}
	if (o->wakeups && !o->next)
		p = spaces(p, 2 + th->comm_width);
	if (sw->prev_tid > 0 && o->callchain) {
		p = spaces(p, 2);
		if (r->chain) {
			*p++ = ' ';
			p = put(p, chain_text(th, r->chain), chain_len(th, r->chain));
		}
	}
	*p++ = '\n';
	th->len = (size_t)(p - th->buf);
	return 0;
}

/* The row of a task switched out; its run, and the interval before it, go to its stats. */
static int task_row(struct wc_timehist *th, const struct wc_sched_event *ev)
{
	const struct wc_switch *sw = ev->sw;
	const uint64_t t = ev->time_ns;
	bool known_run = th->pending.tid == (uint32_t)sw->prev_tid && th->pending.end == t;
	struct wc_thread *thr = known_run ? &th->a->tasks.threads[th->pending.idx]
					  : wc_tasks_find(&th->a->tasks, (uint32_t)sw->prev_tid);
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
	if (t < th->t0 || start >= th->t1)
		return 0;
	if (!shows(th, thr))
		return 0;
	if (th->o.idle_hist && ev->sw->next_tid == 0 && ev->cpu < th->ncpus) {
		/* the task that leaves the CPU idle gets the idle period (perf's last_thread) */
		err = chain_of(th, ev->stack_id, thr->aspace, &chain);
		if (err)
			return err;
		th->cpus[ev->cpu].last_thread = (uint32_t)idx;
		th->cpus[ev->cpu].last_chain = chain;
	}
	if (th->o.idle_hist)
		return 0;
	/* the summary counts the time inside the window; the row shows the whole values */
	if (known_run)
		stat_add(&r->run, clip(th, start, t));
	if (known_off) {
		uint64_t w = clip(th, r->off_start, r->off_end);

		if (r->off_kind == K_PREEMPT)
			r->preempt_ns += w;
		else if (r->off_kind == K_IOWAIT)
			r->iowait_ns += w;
		else if (r->off_kind == K_SLEEP)
			r->sleep_ns += w;
		r->delay_ns += clip(th, r->off_wake, r->off_end);
		wait = r->off_end - r->off_start;
		delay = r->off_end - r->off_wake;
		if (r->off_kind == K_NEW) /* waiting for its first run: all of it sch delay */
			wait = delay;
	}
	if (!th->o.events)
		return 0;
	if (!r->name_len || r->name_pid != thr->pid || memcmp(r->name_comm, thr->comm, 16)) {
		r->name_len = (uint8_t)strlen(thread_str(th, r->name, thr));
		r->name_pid = thr->pid;
		memcpy(r->name_comm, thr->comm, 16);
	}
	if (th->o.callchain && r->last_stack == ev->stack_id && r->last_aspace == thr->aspace) {
		chain = r->last_chain; /* a thread often sleeps where it slept before */
	} else if (th->o.callchain) {
		err = chain_of(th, ev->stack_id, thr->aspace, &chain);
		if (err)
			return err;
		r->last_stack = ev->stack_id;
		r->last_aspace = thr->aspace;
		r->last_chain = chain;
	}
	return put_row(th, ev,
		       &(struct row){ .name = r->name, .name_len = r->name_len, .wait = wait,
				      .delay = delay, .run = t - start, .known_wait = known_off,
				      .known_delay = known_off, .known_run = known_run,
				      .state = sw->state_text, .chain = chain });
}

/* The row of the idle task of a CPU switched out: the idle period that ends. */
static int idle_row(struct wc_timehist *th, const struct wc_sched_event *ev, struct tcpu *c)
{
	const uint64_t t = ev->time_ns;
	bool known_run = c->idle_since != 0, known_wait = known_run && c->idle_out;
	uint64_t start = known_run ? c->idle_since : t, run = 0, wait = 0;
	bool show = th->idle_open;

	if (t < th->t0 || start >= th->t1)
		return 0;
	run = t - start;
	if (known_wait)
		wait = start - c->idle_out;
	if (known_run)
		stat_add(&c->idle, clip(th, start, t));
	if (th->o.idle_hist && c->last_thread) {
		struct trt *r = &th->trt[c->last_thread];

		show = true; /* the last thread passed the filters when it was kept */
		if (known_run) {
			uint64_t in = clip(th, start, t);

			stat_add(&r->run, in);
			if (c->last_chain) {
				uint64_t key = (uint64_t)(ev->cpu) << 40 | c->last_chain, *v;
				int inserted;

				v = wc_map64_put(&th->hit_index, key, th->nhits, &inserted);
				if (!v || (inserted && wc_grow((void **)&th->hits, &th->hits_cap,
							       th->nhits + 1, sizeof(*th->hits))))
					return -ENOMEM;
				if (inserted)
					th->hits[th->nhits++] = (struct chain_hit){ ev->cpu,
										    c->last_chain };
				th->hits[*v].hit_ns += in;
				th->hits[*v].count++;
			}
		}
	}
	if (!th->o.events || !show)
		return 0;
	/* idle never waits for a CPU: its sch delay is 0 (perf 6.1 prints 0 too) */
	return put_row(th, ev,
		       &(struct row){ .name = "<idle>", .name_len = 6, .wait = wait, .run = run,
				      .known_wait = known_wait, .known_delay = true,
				      .known_run = known_run, .state = "I" });
}

static int on_switch(struct wc_timehist *th, const struct wc_sched_event *ev)
{
	const struct wc_switch *sw = ev->sw;
	struct tcpu *c = ev->cpu < th->ncpus ? &th->cpus[ev->cpu] : NULL;
	uint64_t t = ev->time_ns;
	int err = 0;

	if (!c) /* beyond the host's CPUs: sched.c counted it and left it out */
		return 0;
	if (t >= th->t0 && t <= th->t1) {
		if (!th->first_ns)
			th->first_ns = t;
		th->last_ns = t;
		c->seen = true;
	} else if (t > th->t1 && th->last_ns < th->t1 && th->first_ns) {
		th->last_ns = th->t1; /* perf clips the last switch to the window's end */
	}
	/* the idle task of this CPU: a switch out of something else while idle was on means
	 * its switch-out was not traced (CPU 1 of this project's VMs) */
	if (sw->prev_tid != 0 && c->idle_since) {
		c->cut_all++;
		if (t >= th->t0 && t < th->t1)
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
	struct wc_tasks *tk = &th->a->tasks;
	const struct wc_thread *ctx = ev->ctx_tid ? wc_tasks_find(tk, ev->ctx_tid) : NULL;
	const struct wc_thread *obj;
	char cs[COMM_STR], os[COMM_STR];
	const char *cname, *oname;
	int32_t tid = ev->wk ? ev->wk->tid : ev->mig->tid;
	char *p;

	if (ev->mig) {
		obj = tid > 0 ? wc_tasks_find(tk, (uint32_t)tid) : NULL;
		if (obj && ev->time_ns >= th->t0 && ev->time_ns < th->t1) {
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
	if (!th->o.events || ev->time_ns < th->t0 || ev->time_ns >= th->t1)
		return 0;
	obj = tid > 0 ? wc_tasks_find(tk, (uint32_t)tid) : NULL;
	if (!(ev->ctx_tid ? shows(th, ctx) : th->idle_open) && !shows(th, obj))
		return 0;
	if (!ev->ctx_tid)
		cname = "<idle>";
	else if (ctx)
		cname = thread_str(th, cs, ctx);
	else
		cname = commstr(th, cs, "[unknown]", ev->ctx_tid, ev->ctx_pid);
	if (obj)
		oname = thread_str(th, os, obj);
	else
		oname = commstr(th, os, ev->wk ? ev->wk->comm : ev->mig->comm,
				(uint32_t)(tid > 0 ? tid : 0), 0);
	p = room(th, 64 + (size_t)th->nvis);
	if (!p)
		return -ENOMEM;
	p = stamp(th, p, ev->time_ns, ev->cpu);
	if (th->o.cpu_visual)
		p = visual(th, p, ev->cpu, ev->mig ? 'm' : ' ');
	th->len = (size_t)(p - th->buf);
	/* perf: " %-*s " the context, "  %9s  %9s  %9s " blank */
	outf(th, " %-*s %34s%s: %s", th->comm_width, cname, "", ev->wk ? "awakened" : "migrated",
	     oname);
	if (ev->mig)
		outf(th, " cpu %" PRId32 " => %" PRId32, ev->mig->orig_cpu, ev->mig->dest_cpu);
	outf(th, "\n");
	return th->err;
}

static int on_event(void *ctx, const struct wc_sched_event *ev)
{
	struct wc_timehist *th = ctx;
	int err;

	if (!th->window_set)
		set_window(th);
	if (ev->sw)
		err = on_switch(th, ev);
	else if (ev->wk || ev->mig)
		err = other_row(th, ev);
	else
		err = 0;
	return err ? err : th->err;
}

static int on_begin(void *ctx, struct wc_analysis *a)
{
	struct wc_timehist *th = ctx;
	const struct wc_replay_meta *m = wc_replay_meta(a->replay);
	const struct wc_filter *f = &th->o.filter;

	th->a = a;
	if (!a->have_switch)
		return -ENOENT;
	th->ncpus = a->sched.ncpus;
	th->nvis = m->ncpus_configured ? m->ncpus_configured
		   : m->ncpus_online   ? m->ncpus_online
				       : 1;
	th->cpus = calloc(th->ncpus, sizeof(*th->cpus));
	if (!th->cpus)
		return -ENOMEM;
	th->idle_open = !f->pids && !f->tids && !f->comm && (f->all_tasks || !a->tasks.ntarget_pids);
	if (th->o.callchain) {
		th->sym = wc_symbolizer_new(&a->tasks, m->kallsyms, m->kallsyms_len, th->o.paths);
		if (!th->sym)
			return -ENOMEM;
	}
	if (th->o.events)
		header(th);
	return th->err;
}

/* --- the summary ----------------------------------------------------------------------- */

static int cmp_thread(const void *x, const void *y, void *ctx)
{
	const struct wc_thread *t = ctx;
	const struct wc_thread *a = &t[*(const uint32_t *)x], *b = &t[*(const uint32_t *)y];

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static int cmp_hit(const void *x, const void *y)
{
	const struct chain_hit *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->hit_ns != b->hit_ns)
		return a->hit_ns > b->hit_ns ? -1 : 1;
	return a->chain < b->chain ? -1 : 1;
}

/* One task's line of the summary, as perf's print_thread_runtime / print_thread_waittime. */
static void task_line(struct wc_timehist *th, const struct wc_thread *t, const struct trt *r)
{
	const struct tstat *s = &r->run;
	char cs[COMM_STR], a[32], b[32], c[32], d[32], e[32], parent[16] = "-", migr[24] = "-";

	/* perf's thread__ppid(): the FORK record's parent process; for a thread that was
	 * there before the recording, its process when it is not the process leader */
	if (t->ppid)
		snprintf(parent, sizeof(parent), "%" PRIu32, t->ppid);
	else if (t->pid && t->pid != t->tid)
		snprintf(parent, sizeof(parent), "%" PRIu32, t->pid);
	if (th->a->have_migrate)
		snprintf(migr, sizeof(migr), "%" PRIu64, r->migrations);
	outf(th, "%*s   %5s  %9" PRIu64 " %s", th->comm_width, thread_str(th, cs, t), parent, s->n,
	     msf(a, s->total, 8));
	if (th->o.state && !th->o.idle_hist)
		outf(th, "%s %s %s %s\n", msf(b, r->sleep_ns, 6), msf(c, r->iowait_ns, 6),
		     msf(d, r->preempt_ns, 6), msf(e, r->delay_ns, 6));
	else
		outf(th, "%s %s %s  %5.2f   %5s\n", msf(b, s->min, 6), msf(c, (uint64_t)s->mean, 6),
		     msf(d, s->max, 6), rel_stddev(s), migr);
}

/* One CPU's line of the idle stats: perf's, or why there is no idle time to show. */
static void idle_line(struct wc_timehist *th, uint32_t cpu, uint64_t hist)
{
	const struct tcpu *c = &th->cpus[cpu];
	char a[32];

	if (c->idle.n || (c->seen && !c->idle_cut)) {
		outf(th, "    CPU %2" PRIu32 " idle for %s msec  (%6.2f%%)", cpu,
		     msf(a, c->idle.total, 6),
		     hist ? 100.0 * (double)c->idle.total / (double)hist : 0.0);
		if (c->idle_cut)
			outf(th, ", and %" PRIu64 " idle periods not closed", c->idle_cut);
		outf(th, "\n");
	} else if (c->idle_cut) {
		outf(th, "    CPU %2" PRIu32 " idle time unknown: %" PRIu64 " idle periods not closed "
			 "(switch-out not traced)\n", cpu, c->idle_cut);
	} else {
		outf(th, "    CPU %2" PRIu32 " no context switch in the window\n", cpu);
	}
}

/* -I with callchains: the idle time of each CPU by the chain that left it idle. */
static void idle_chains(struct wc_timehist *th)
{
	size_t h = 0;
	char a[32];

	qsort(th->hits, th->nhits, sizeof(*th->hits), cmp_hit);
	outf(th, "\nIdle stats by callchain:\n");
	for (uint32_t cpu = 0; cpu < th->ncpus && cpu < th->nvis; cpu++) {
		outf(th, "  CPU %2" PRIu32 ":%s msec\n", cpu, msf(a, th->cpus[cpu].idle.total, 6));
		outf(th, "  %16s  %8s  %s\n", "Idle time (msec)", "Count", "Callchains");
		outf(th, "  %.16s  %.8s  %.50s\n", dashes, dashes, dashes);
		for (; h < th->nhits && th->hits[h].cpu == cpu; h++)
			outf(th, "  %s %8" PRIu64 "  %s\n", msf(a, th->hits[h].hit_ns, 12),
			     th->hits[h].count, chain_text(th, th->hits[h].chain));
		outf(th, "\n");
	}
}

static int summary(struct wc_timehist *th)
{
	const struct wc_timehist_opts *o = &th->o;
	const struct wc_tasks *tk = &th->a->tasks;
	uint64_t tasks = 0, switches = 0, run_total = 0;
	uint64_t hist = th->last_ns > th->first_ns ? th->last_ns - th->first_ns : 0;
	char cs[COMM_STR], a[32], b[32];
	uint32_t *order;
	size_t n = 0;

	order = malloc((tk->nthreads + 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 1; i < tk->nthreads && i < th->ntrt; i++)
		if (th->trt[i].run.n)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_thread, tk->threads);
	for (size_t i = 0; i < n; i++) /* the widths of all names first: the columns line up */
		thread_str(th, cs, &tk->threads[order[i]]);
	outf(th, "\n%s\n%*s  parent  %s  %s\n", o->idle_hist ? "Idle-time summary"
						: o->state    ? "Wait-time summary"
							      : "Runtime summary",
	     th->comm_width, "comm", o->idle_hist ? "sched-out" : " sched-in",
	     o->idle_hist ? "  idle-time   min-idle    avg-idle    max-idle  stddev  migrations"
	     : o->state	  ? "   run-time      sleep      iowait     preempt       delay"
			  : "   run-time    min-run     avg-run     max-run  stddev  migrations");
	outf(th, "%*s            (count)       (msec)     (msec)      (msec)      (msec)       %s\n",
	     th->comm_width, "", o->state && !o->idle_hist ? "(msec)" : "%");
	outf(th, "%.117s\n", dashes);
	for (size_t i = 0; i < n; i++) {
		const struct trt *r = &th->trt[order[i]];

		tasks++;
		switches += r->run.n;
		run_total += r->run.total;
		task_line(th, &tk->threads[order[i]], r);
	}
	free(order);
	if (!tasks)
		outf(th, "<no still running tasks>\n");
	outf(th, "\nIdle stats:\n");
	for (uint32_t cpu = 0; cpu < th->ncpus && cpu < th->nvis; cpu++) {
		switches += th->cpus[cpu].idle.n;
		idle_line(th, cpu, hist);
	}
	if (o->idle_hist && o->callchain)
		idle_chains(th);
	outf(th, "\n    Total number of unique tasks: %" PRIu64
		 "\nTotal number of context switches: %" PRIu64
		 "\n           Total run time (msec): %s\n    Total scheduling time (msec): %s"
		 " (x %" PRIu32 ")\n",
	     tasks, switches, msf(a, run_total, 2), msf(b, hist, 2), th->nvis);
	return th->err;
}

/* The footer: what was lost, and the edge cases that left values unknown ("-"). */
static void footer(struct wc_timehist *th)
{
	const struct wc_analysis *a = th->a;
	const struct wc_replay_stats *st = wc_replay_stats(a->replay);
	const struct wc_sched_counts *c = &a->sched.counts;
	uint64_t cut = 0;

	for (uint32_t i = 0; i < th->ncpus; i++)
		cut += th->cpus[i].cut_all;
	outf(th,
	     "\nEvents lost: %" PRIu64 ", samples lost: %" PRIu64 ", late: %" PRIu64
	     ", undecodable: %" PRIu64 "; runs of unknown start: %" PRIu64
	     ", off-CPU intervals of unknown start: %" PRIu64 ", switch-ins not traced: %" PRIu64
	     " (inferred %" PRIu64 ", dropped %" PRIu64 "), idle periods not closed: %" PRIu64
	     "%s\n",
	     st->lost_records, st->lost_samples, st->late, a->decode_errors, c->run_start_unknown,
	     c->start_unknown, c->double_switch_out, c->inferred_switch_in, c->unknown_dropped,
	     cut, a->format_errors ? "; tracepoint formats left out (see wcanalyze info)" : "");
}

int wc_timehist_finish(struct wc_timehist *th, struct wc_analysis *a)
{
	int err = 0;

	th->a = a;
	if (!th->cpus) /* begin() never ran: an empty trace */
		return th->err;
	if (!th->window_set)
		set_window(th);
	if (th->o.summary)
		err = summary(th);
	if (!err)
		footer(th);
	out_flush(th);
	if (!err && (th->err || fflush(th->out)))
		err = -EIO;
	return err;
}

int wc_timehist_flush(struct wc_timehist *th)
{
	out_flush(th);
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
	wc_symbolizer_free(th->sym);
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

struct wc_symbolizer *wc_timehist_symbolizer(const struct wc_timehist *th)
{
	return th->sym;
}
