/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist-write.c - the lines of timehist as perf 6.1's builtin-sched.c writes them
 * (timehist_header, timehist_print_sample, timehist_print_wakeup_event,
 * timehist_print_migration_event): formatted by hand into a buffer (no printf per field),
 * since this is the hot path of a per-event log; callchains named once per (stack id,
 * address space) and kept as text.  timehist.c decides which rows there are and with what.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/callchain.h"
#include "common/grow.h"
#include "analyzer/reports/timehist-priv.h"

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
static const char dd[] = DD("0") DD("1") DD("2") DD("3") DD("4") DD("5") DD("6") DD("7") DD("8")
	DD("9"); /* "00" .. "99" */

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
	int n = pid && pid != tid
			? snprintf(dst, COMM_STR, "%.16s[%" PRIu32 "/%" PRIu32 "]", comm, tid, pid)
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

void th_header(struct wc_timehist *th)
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
int th_chain_of(struct wc_timehist *th, uint32_t stack_id, uint32_t aspace, uint32_t *chain)
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
	ips = wc_replay_stack(wc_analysis_replay(th->a), stack_id, &nr);
	wc_callchain_split(ips, ips ? nr : 0, &cc);
	wc_strbuf_reset(&th->tmp);
	for (uint32_t i = 0; i < cc.nkernel + cc.nuser && shown < th->o.max_stack; i++) {
		const char *f[WC_INLINE_MAX_DEPTH + 1];
		size_t nf = i < cc.nkernel
				    ? (f[0] = wc_symbolizer_kernel(th->sym, cc.kernel[i])) != NULL
				    : wc_symbolizer_user_frames(th->sym, aspace,
								cc.user[i - cc.nkernel], f,
								WC_INLINE_MAX_DEPTH + 1);

		if (!nf)
			return -ENOMEM;
		if (i < cc.nkernel && hidden(f[0]))
			continue;
		for (size_t k = 0; k < nf && shown < th->o.max_stack; k++) { /* inlined first */
			if (shown++)
				wc_strbuf_put(&th->tmp, " <- ");
			wc_strbuf_put(&th->tmp, f[k]);
		}
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

/* --- rows ------------------------------------------------------------------------------ */

int th_put_row(struct wc_timehist *th, const struct wc_sched_event *ev, const struct th_row *r)
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
		if (sw->next_tid < 0) { /* not recorded: a per-task file's exit (wc_sched_exit()) */
			*p++ = '-';
		} else {
			p = put(p, sw->next_comm, strnlen(sw->next_comm, 16));
			*p++ = '[';
			p = num(p, (uint64_t)sw->next_tid, 0, ' ');
			*p++ = ']';
		}
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

int th_put_other_row(struct wc_timehist *th, const struct wc_sched_event *ev,
		     const struct wc_thread *ctx, const struct wc_thread *obj, int32_t tid)
{
	char cs[COMM_STR], os[COMM_STR];
	const char *cname, *oname;
	char *p;

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
