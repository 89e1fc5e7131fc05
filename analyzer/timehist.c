/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist.c - see timehist.h.  The layout of every line follows perf 6.1's builtin-sched.c
 * (timehist_header, timehist_print_sample, timehist_print_wakeup_event,
 * timehist_print_migration_event, timehist_print_summary); the differences on purpose are
 * listed in man/wcanalyze-timehist.1, NOTES.
 *
 * Rows are formatted by hand into a buffer (no printf per field): this is the hot path of a
 * per-event log.  A callchain is named once per (stack id, address space) and kept as text.
 * The statistics for the summary are gathered here, as the rows are; timehist-summary.c
 * writes the summary and the footer from them.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/callchain.h"
#include "analyzer/grow.h"
#include "analyzer/timehist-priv.h"

#define OUT_CAP (256 * 1024)

/* --- output ---------------------------------------------------------------------------- */

void th_out_flush(struct wc_timehist *th)
{
	if (th->len && fwrite(th->buf, 1, th->len, th->out) != th->len)
		th->err = -EIO;
	th->len = 0;
}

/* Room for @n more bytes at the end of the buffer (NULL on ENOMEM). */
static char *room(struct wc_timehist *th, size_t n)
{
	if (th->len + n > OUT_CAP)
		th_out_flush(th);
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
void th_outf(struct wc_timehist *th, const char *fmt, ...)
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
const char *th_msf(char *buf, uint64_t ns, int w)
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

const char *th_thread_str(struct wc_timehist *th, char *dst, const struct wc_thread *t)
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

const char th_dashes[] = "-----------------------------------------------------------------"
			 "-------------------------------------------------------------------";

/* perf's timehist_header(): "%15s %6s ", the -V columns, " %-*s", "  %9s" x3, "  state" */
static void header(struct wc_timehist *th)
{
	const char *state[3] = { "  state", "       ", "  -----" };
	int w = th->comm_width, v = (int)th->nvis;
	char *p;

	for (int line = 0; line < 3; line++) {
		th_outf(th, "%s",
			line == 0   ? "           time    cpu "
			: line == 1 ? "                       "
				    : "--------------- ------ ");
		p = th->o.cpu_visual ? room(th, (size_t)v + 2) : NULL;
		if (p) {
			*p++ = ' ';
			for (int i = 0; i < v; i++)
				*p++ = line == 0   ? "0123456789abcdef"[i % 16]
				       : line == 1 ? ' '
						   : '-';
			*p++ = ' ';
			th->len = (size_t)(p - th->buf);
		}
		if (line < 2)
			th_outf(th, " %-*s  %9s  %9s  %9s", w, line ? "[tid/pid]" : "task name",
				line ? "(msec)" : "wait time", line ? "(msec)" : "sch delay",
				line ? "(msec)" : "run time");
		else
			th_outf(th, " %.*s  %.9s  %.9s  %.9s", w, th_dashes, th_dashes, th_dashes,
				th_dashes);
		th_outf(th, "%s\n", th->o.state ? state[line] : "");
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

const char *th_chain_text(const struct wc_timehist *th, uint32_t chain)
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

/* --- the replay side ------------------------------------------------------------------- */

void th_set_window(struct wc_timehist *th)
{
	th->window_set = true;
	th->win = wc_filter_window(&th->o.filter, th->a->start_ns);
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
			p = put(p, th_chain_text(th, r->chain), chain_len(th, r->chain));
		}
	}
	*p++ = '\n';
	th->len = (size_t)(p - th->buf);
	return 0;
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

	err = chain_of(th, ev->stack_id, thr->aspace, &chain);
	if (err)
		return err;
	th->cpus[ev->cpu].last_thread = (uint32_t)idx;
	th->cpus[ev->cpu].last_chain = chain;
	if (!th->o.events)
		return 0;
	row_name(th, r, thr);
	return put_row(th, ev,
		       &(struct row){ .name = r->name, .name_len = r->name_len, .known_wait = true,
				      .known_delay = true, .known_run = true,
				      .state = ev->sw->state_text, .chain = chain });
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
	struct wc_tasks *tk = &th->a->tasks;
	const struct wc_thread *ctx = ev->ctx_tid ? wc_tasks_find(tk, ev->ctx_tid) : NULL;
	const struct wc_thread *obj;
	char cs[COMM_STR], os[COMM_STR];
	const char *cname, *oname;
	int32_t tid = ev->wk ? ev->wk->tid : ev->mig->tid;
	char *p;

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
	if (!ev->ctx_tid)
		cname = "<idle>";
	else if (ctx)
		cname = th_thread_str(th, cs, ctx);
	else
		cname = commstr(th, cs, "[unknown]", ev->ctx_tid, ev->ctx_pid);
	if (obj)
		oname = th_thread_str(th, os, obj);
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
	th_outf(th, " %-*s %34s%s: %s", th->comm_width, cname, "", ev->wk ? "awakened" : "migrated",
		oname);
	if (ev->mig)
		th_outf(th, " cpu %" PRId32 " => %" PRId32, ev->mig->orig_cpu, ev->mig->dest_cpu);
	th_outf(th, "\n");
	return th->err;
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
		if (m->events[id].present && a->role[id] == WC_TP_SWITCH &&
		    (m->events[id].sample_type & PERF_SAMPLE_CALLCHAIN))
			return true;
	return false;
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
	if (th->o.callchain && !switch_callchains(a, m))
		th->o.callchain = false; /* nothing to show: no column for it, as perf */
	if (th->o.callchain) {
		th->sym = wc_analysis_symbolizer(a);
		if (!th->sym)
			return -ENOMEM;
	}
	if (th->o.events)
		header(th);
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
