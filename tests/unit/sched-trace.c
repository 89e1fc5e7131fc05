/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched-trace.c - see sched-trace.h. */
#include "sched-trace.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/wct.h"

static uint64_t buf[65536 / 8]; /* one record, 8-aligned */

static void add(struct st_trace *t, uint32_t size)
{
	struct wc_rec_header *h = (void *)buf;
	int err;

	h->size = WC_ALIGN8(size);
	if (t->err || !t->w)
		return;
	err = wc_writer_add(t->w, buf);
	if (err)
		t->err = err;
}

/* the format text of sched event @name, read from $srcdir/testdata/formats/linux-6.18 */
static char *read_format_of(const char *kernel, const char *name)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	char *text;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/testdata/formats/%s/%s.format", srcdir ? srcdir : ".",
		 kernel, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	text = calloc(1, 65536);
	n = text ? (long)fread(text, 1, 65535, f) : 0;
	fclose(f);
	if (n <= 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void put_strings(char *dst, uint32_t *len, const char *s)
{
	size_t l = strlen(s) + 1;

	memcpy(dst + *len, s, l);
	*len += (uint32_t)l;
}

static void event_attr_st(struct st_trace *t, uint32_t id, uint32_t kind, const char *name,
			  uint32_t type, uint64_t config, uint64_t period, uint64_t sample_type)
{
	struct wc_rec_event_attr *x = (void *)buf;
	struct perf_event_attr a = { 0 };

	memset(buf, 0, sizeof(buf));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.sample_period = period;
	a.sample_type = sample_type;
	x->h.type = WC_REC_EVENT_ATTR;
	x->event_id = id;
	x->kind = kind;
	x->attr_size = sizeof(a);
	memcpy(x->data, &a, sizeof(a));
	x->name_len = (uint32_t)strlen(name) + 1;
	memcpy(x->data + x->attr_size, name, x->name_len);
	add(t, sizeof(*x) + x->attr_size + x->name_len);
}

/* an EVENT_ATTR with no sample_type bits (what the tests wrote before it had any) */
static void event_attr(struct st_trace *t, uint32_t id, uint32_t kind, const char *name,
		       uint32_t type, uint64_t config, uint64_t period)
{
	event_attr_st(t, id, kind, name, type, config, period, 0);
}

static char *read_format(const char *name)
{
	return read_format_of("linux-6.18", name);
}

static int tp_format_of(struct st_trace *t, char *text)
{
	struct wc_rec_tp_format *x = (void *)buf;

	if (!text)
		return -ENOENT;
	memset(buf, 0, sizeof(buf));
	x->h.type = WC_REC_TP_FORMAT;
	x->system_len = 6;
	memcpy(x->data, "sched", 6);
	x->text_len = (uint32_t)strlen(text) + 1;
	memcpy(x->data + 6, text, x->text_len);
	free(text);
	add(t, sizeof(*x) + x->system_len + x->text_len);
	return 0;
}

static int tp_format(struct st_trace *t, const char *name)
{
	return tp_format_of(t, read_format(name));
}

int st_begin(struct st_trace *t)
{
	return st_begin_flags(t, 0);
}

int st_begin_flags(struct st_trace *t, unsigned flags)
{
	struct wc_rec_host *h = (void *)buf;
	struct wc_rec_clock *c = (void *)buf;
	const char *tps[] = { "sched_switch", "sched_waking", "sched_wakeup_new" };

	memset(t, 0, sizeof(*t));
	strcpy(t->path, "/tmp/wct-sched-XXXXXX");
	t->fd = mkstemp(t->path);
	if (t->fd < 0) {
		t->path[0] = 0;
		return -errno;
	}
	t->w = wc_writer_new(t->fd, NULL);
	t->stacks = wc_stack_table_new(0);
	t->payloads = wc_stack_table_new(0);
	if (!t->w || !t->stacks || !t->payloads)
		return -ENOMEM;

	memset(buf, 0, sizeof(buf));
	h->h.type = WC_REC_HOST;
	h->ncpus_online = 2;
	h->ncpus_configured = 2;
	h->page_size = 4096;
	put_strings(h->strings, &h->strings_len, "Linux");
	put_strings(h->strings, &h->strings_len, "testhost");
	put_strings(h->strings, &h->strings_len, "6.18.44");
	put_strings(h->strings, &h->strings_len, "#1 SMP");
	put_strings(h->strings, &h->strings_len, "x86_64");
	put_strings(h->strings, &h->strings_len, "wcrec test");
	add(t, sizeof(*h) + h->strings_len);

	memset(buf, 0, sizeof(buf));
	c->h.type = WC_REC_CLOCK;
	c->clockid = 1;
	c->clock_ns = 1;
	c->realtime_ns = 1700000000000000000ull;
	add(t, sizeof(*c));

	/* config: the IDs of the 6.18 format files */
	event_attr_st(t, ST_EV_SWITCH, WC_EVENT_SWITCH, "sched:sched_switch", PERF_TYPE_TRACEPOINT,
		      372, 1,
		      ST_SWITCH_SAMPLE_TYPE |
			      (flags & ST_NO_SWITCH_CALLCHAIN ? 0 : PERF_SAMPLE_CALLCHAIN));
	event_attr(t, ST_EV_WAKING, WC_EVENT_WAKING, "sched:sched_waking", PERF_TYPE_TRACEPOINT,
		   375, 1);
	event_attr(t, ST_EV_WAKEUP_NEW, WC_EVENT_WAKEUP_NEW, "sched:sched_wakeup_new",
		   PERF_TYPE_TRACEPOINT, 373, 1);
	event_attr(t, ST_EV_CLOCK, WC_EVENT_SAMPLE, "cpu-clock", PERF_TYPE_SOFTWARE,
		   PERF_COUNT_SW_CPU_CLOCK, 1000000);
	for (int i = 0; i < 3; i++)
		if (tp_format(t, tps[i]) && !t->err)
			t->err = -ENOENT;
	return t->err;
}

void st_set_pid(struct st_trace *t, uint32_t tid, uint32_t pid)
{
	for (int i = 0; i < 16; i++) {
		if (!t->pid_of[i][0] || t->pid_of[i][0] == tid) {
			t->pid_of[i][0] = tid;
			t->pid_of[i][1] = pid;
			return;
		}
	}
}

static uint32_t pid_of(const struct st_trace *t, uint32_t tid)
{
	for (int i = 0; i < 16; i++)
		if (t->pid_of[i][0] == tid)
			return t->pid_of[i][1];
	return tid;
}

uint32_t st_stack(struct st_trace *t, const uint64_t *ips, uint32_t nr)
{
	uint32_t id = 0;
	int err;

	if (t->err || !t->w)
		return 0;
	err = wc_writer_stack(t->w, t->stacks, ips, nr, &id);
	if (err)
		t->err = err;
	return id;
}

uint32_t st_kstack(struct st_trace *t, uint32_t depth)
{
	uint64_t ips[16] = { PERF_CONTEXT_KERNEL };

	for (uint32_t i = 0; i < depth && i < 15; i++)
		ips[i + 1] = 0xffffffff81000000ull + 0x100 * (i + 1) + depth;
	return st_stack(t, ips, depth + 1);
}

static uint32_t payload(struct st_trace *t, uint16_t event_id, const void *data, uint32_t size)
{
	uint32_t id = 0;
	int err;

	if (t->err || !t->w)
		return 0;
	err = wc_writer_payload(t->w, t->payloads, event_id, data, size, &id);
	if (err)
		t->err = err;
	return id;
}

static void tracepoint(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t ctx_tid,
		       uint16_t event_id, uint32_t payload_id, uint32_t stack_id)
{
	struct wc_rec_tracepoint *x = (void *)buf;

	memset(x, 0, sizeof(*x));
	x->h.type = WC_REC_TRACEPOINT;
	x->h.flags = WC_REC_F_TIME;
	x->time_ns = time_ns;
	x->payload_id = payload_id;
	x->stack_id = stack_id;
	x->tid = ctx_tid;
	x->pid = ctx_tid ? pid_of(t, ctx_tid) : 0;
	x->cpu = cpu;
	x->event_id = event_id;
	add(t, sizeof(*x));
}

static void put_int(uint8_t *p, size_t off, int64_t v, size_t size)
{
	memcpy(p + off, &v, size); /* little-endian: the low bytes */
}

/*
 * sched_switch of linux-6.18: common_type u16 @0, common_flags @2, common_preempt_count @3,
 * common_pid int @4, prev_comm[16] @8, prev_pid @24, prev_prio @28, prev_state long @32,
 * next_comm[16] @40, next_pid @56, next_prio @60; 64 bytes.
 */
/* The id of a sched_switch payload: @prev out in @prev_state, @next in. */
static uint32_t switch_payload(struct st_trace *t, uint32_t prev, const char *prev_comm,
			       uint64_t prev_state, uint32_t next, const char *next_comm)
{
	uint8_t p[64] = { 0 };

	put_int(p, 0, 372, 2);
	put_int(p, 4, prev, 4);
	strncpy((char *)p + 8, prev_comm, 15);
	put_int(p, 24, prev, 4);
	put_int(p, 28, 120, 4);
	put_int(p, 32, (int64_t)prev_state, 8);
	strncpy((char *)p + 40, next_comm, 15);
	put_int(p, 56, next, 4);
	put_int(p, 60, 120, 4);
	return payload(t, ST_EV_SWITCH, p, sizeof(p));
}

void st_switch(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t prev,
	       const char *prev_comm, uint64_t prev_state, uint32_t next, const char *next_comm,
	       uint32_t stack_id)
{
	uint32_t id = switch_payload(t, prev, prev_comm, prev_state, next, next_comm);

	tracepoint(t, time_ns, cpu, prev, ST_EV_SWITCH, id, stack_id);
}

/*
 * sched_waking and sched_wakeup_new of linux-6.18: common fields as above, comm[16] @8,
 * pid @24, prio @28, target_cpu @32; 36 bytes (the kernel's raw record pads to 40).
 */
/* The payload of a wakeup event of @tid (sched_wakeup_template's fields).  Return: its id. */
static uint32_t wake_payload(struct st_trace *t, uint16_t event_id, uint16_t type, uint32_t waker,
			     uint32_t tid, const char *comm, int32_t target_cpu)
{
	uint8_t p[40] = { 0 };

	put_int(p, 0, type, 2);
	put_int(p, 4, waker, 4);
	strncpy((char *)p + 8, comm, 15);
	put_int(p, 24, tid, 4);
	put_int(p, 28, 120, 4);
	put_int(p, 32, target_cpu, 4);
	return payload(t, event_id, p, sizeof(p));
}

static void wake(struct st_trace *t, uint16_t event_id, uint16_t type, uint64_t time_ns,
		 uint32_t cpu, uint32_t waker, uint32_t tid, const char *comm, int32_t target_cpu,
		 uint32_t stack_id)
{
	tracepoint(t, time_ns, cpu, waker, event_id,
		   wake_payload(t, event_id, type, waker, tid, comm, target_cpu), stack_id);
}

void st_wake(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t waker, uint32_t tid,
	     const char *comm, int32_t target_cpu, uint32_t stack_id)
{
	wake(t, ST_EV_WAKING, 375, time_ns, cpu, waker, tid, comm, target_cpu, stack_id);
}

void st_wake_new(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t waker, uint32_t tid,
		 const char *comm, int32_t target_cpu)
{
	wake(t, ST_EV_WAKEUP_NEW, 373, time_ns, cpu, waker, tid, comm, target_cpu, 0);
}

void st_sample(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t tid, uint32_t stack_id,
	       uint64_t period_ns)
{
	struct wc_rec_sample *x = (void *)buf;

	memset(x, 0, sizeof(*x));
	x->h.type = WC_REC_SAMPLE;
	x->h.flags = WC_REC_F_TIME;
	x->time_ns = time_ns;
	x->stack_id = stack_id;
	x->tid = tid;
	x->pid = tid ? pid_of(t, tid) : 0;
	x->cpu = cpu;
	x->period = period_ns;
	x->event_id = ST_EV_CLOCK;
	add(t, sizeof(*x));
}

/* A COMM record with @flags and @state; @ppid is written (in a 56-byte record, 1.4) when
 * @size says so. */
static void comm_record(struct st_trace *t, uint64_t time_ns, uint32_t pid, uint32_t tid,
			const char *comm, uint32_t flags, char state, uint32_t ppid, uint32_t size)
{
	struct wc_rec_comm_proc *xp = (void *)buf;
	struct wc_rec_comm *x = &xp->c;

	memset(buf, 0, sizeof(*xp));
	xp->ppid = ppid;
	x->h.type = WC_REC_COMM;
	x->h.flags = WC_REC_F_TIME;
	x->time_ns = time_ns;
	x->pid = pid;
	x->tid = tid;
	x->flags = flags;
	x->state = state;
	strncpy(x->comm, comm, 15);
	add(t, size);
}

void st_comm(struct st_trace *t, uint64_t time_ns, uint32_t pid, uint32_t tid, const char *comm)
{
	comm_record(t, time_ns, pid, tid, comm, 0, 0, 0, sizeof(struct wc_rec_comm));
}

void st_proc_comm(struct st_trace *t, uint64_t time_ns, uint32_t pid, uint32_t tid,
		  const char *comm, char state)
{
	comm_record(t, time_ns, pid, tid, comm, WC_TASK_SYNTH, state, 0,
		    sizeof(struct wc_rec_comm));
}

void st_proc_comm_parent(struct st_trace *t, uint64_t time_ns, uint32_t pid, uint32_t tid,
			 const char *comm, char state, uint32_t ppid)
{
	comm_record(t, time_ns, pid, tid, comm, WC_TASK_SYNTH, state, ppid,
		    sizeof(struct wc_rec_comm_proc));
}

void st_task(struct st_trace *t, uint16_t type, uint64_t time_ns, uint32_t pid, uint32_t ppid,
	     uint32_t tid, uint32_t ptid)
{
	struct wc_rec_task *x = (void *)buf;

	memset(x, 0, sizeof(*x));
	x->h.type = type;
	x->h.flags = WC_REC_F_TIME;
	x->time_ns = time_ns;
	x->pid = pid;
	x->ppid = ppid;
	x->tid = tid;
	x->ptid = ptid;
	add(t, sizeof(*x));
}

void st_round(struct st_trace *t)
{
	struct wc_rec_header *h = (void *)buf;

	h->type = WC_REC_ROUND;
	h->flags = 0;
	add(t, sizeof(*h));
}

uint64_t st_flush(struct st_trace *t)
{
	struct wc_writer_stats st;
	int err;

	if (t->err || !t->w)
		return 0;
	err = wc_writer_flush(t->w);
	if (err)
		t->err = err;
	wc_writer_stats(t->w, &st);
	return st.bytes_written;
}

int st_end(struct st_trace *t, bool trailer, uint64_t end_ns)
{
	int err = 0;

	if (t->w && !t->err)
		err = trailer ? wc_writer_close(t->w, end_ns, 0) : wc_writer_flush(t->w);
	if (err && !t->err)
		t->err = err;
	wc_writer_free(t->w);
	t->w = NULL;
	wc_stack_table_free(t->stacks);
	wc_stack_table_free(t->payloads);
	t->stacks = t->payloads = NULL;
	if (t->fd > 0)
		close(t->fd);
	t->fd = -1;
	return t->err;
}

void st_remove(struct st_trace *t)
{
	st_end(t, false, 0);
	if (t->path[0])
		unlink(t->path);
	t->path[0] = 0;
}

/* --- helpers for the timehist tests ---------------------------------------------------- */

int st_begin_migrate(struct st_trace *t)
{
	/* config: the ID of the 6.18 format file */
	event_attr(t, ST_EV_MIGRATE, WC_EVENT_MIGRATE, "sched:sched_migrate_task",
		   PERF_TYPE_TRACEPOINT, 371, 1);
	if (tp_format(t, "sched_migrate_task") && !t->err)
		t->err = -ENOENT;
	return t->err;
}

/*
 * sched_migrate_task of linux-6.18: common fields as sched_switch's, __data_loc comm @8 (the
 * string's offset in the low 16 bits, its length with the NUL in the high 16), pid @12,
 * prio @16, orig_cpu @20, dest_cpu @24; the string follows at 28.
 */
void st_migrate(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t ctx, uint32_t tid,
		const char *comm, int32_t orig_cpu, int32_t dest_cpu)
{
	uint8_t p[48] = { 0 };
	size_t n = strnlen(comm, 15) + 1;

	put_int(p, 0, 371, 2);
	put_int(p, 4, ctx, 4);
	put_int(p, 8, (int64_t)(n << 16 | 28), 4);
	put_int(p, 12, tid, 4);
	put_int(p, 16, 120, 4);
	put_int(p, 20, orig_cpu, 4);
	put_int(p, 24, dest_cpu, 4);
	memcpy(p + 28, comm, n - 1);
	tracepoint(t, time_ns, cpu, ctx, ST_EV_MIGRATE,
		   payload(t, ST_EV_MIGRATE, p, (uint32_t)(28 + n + 7) / 8 * 8), 0);
}

void st_kallsyms(struct st_trace *t, const char *text)
{
	struct wc_rec_kallsyms *x = (void *)buf;
	size_t n = strlen(text) + 1;

	if (sizeof(*x) + n > sizeof(buf)) {
		if (!t->err)
			t->err = -E2BIG;
		return;
	}
	memset(buf, 0, sizeof(*x) + n + 8);
	x->h.type = WC_REC_KALLSYMS;
	x->text_len = (uint32_t)n;
	memcpy(x->text, text, n);
	add(t, (uint32_t)(sizeof(*x) + n));
}

int st_begin_runtime(struct st_trace *t)
{
	/* config: the ID of the 6.18 format file */
	event_attr(t, ST_EV_RUNTIME, WC_EVENT_RUNTIME, "sched:sched_stat_runtime",
		   PERF_TYPE_TRACEPOINT, 363, 1);
	if (tp_format(t, "sched_stat_runtime") && !t->err)
		t->err = -ENOENT;
	return t->err;
}

/*
 * sched_stat_runtime of linux-6.18: common fields as sched_switch's, __data_loc comm @8, pid
 * @12, runtime u64 @16; the string follows at 24.  Written inline, as wcrec does.
 */
/* The TP_INLINE record of event_id in buf, zeroed, with size payload bytes, in the context of
 * thread ctx (0: idle) on cpu; its payload is the caller's to fill. */
static struct wc_rec_tp_inline *tp_inline(struct st_trace *t, uint64_t time_ns, uint32_t cpu,
					  uint32_t ctx, uint16_t event_id, size_t size)
{
	struct wc_rec_tp_inline *x = (void *)buf;

	memset(buf, 0, sizeof(*x) + size);
	x->h.type = WC_REC_TP_INLINE;
	x->h.flags = WC_REC_F_TIME;
	x->time_ns = time_ns;
	x->tid = ctx;
	x->pid = ctx ? pid_of(t, ctx) : 0;
	x->cpu = cpu;
	x->event_id = event_id;
	x->size = (uint16_t)size;
	return x;
}

void st_runtime(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t ctx, uint32_t tid,
		const char *comm, uint64_t runtime_ns)
{
	size_t n = strnlen(comm, 15) + 1, size = (24 + n + 7) / 8 * 8;
	struct wc_rec_tp_inline *x = tp_inline(t, time_ns, cpu, ctx, ST_EV_RUNTIME, size);

	put_int(x->data, 0, 363, 2);
	put_int(x->data, 4, ctx, 4);
	put_int(x->data, 8, (int64_t)(n << 16 | 24), 4);
	put_int(x->data, 12, tid, 4);
	put_int(x->data, 16, (int64_t)runtime_ns, 8);
	memcpy(x->data + 24, comm, n - 1);
	add(t, sizeof(*x) + size);
}

void st_switch_in(struct st_trace *t, uint64_t time_ns, uint32_t delay_ns, uint32_t cpu,
		  uint32_t tid, uint32_t prev)
{
	struct wc_rec_switch_in *x = (void *)buf;

	memset(x, 0, sizeof(*x));
	x->h.type = WC_REC_SWITCH_IN;
	x->h.flags = WC_REC_F_TIME;
	x->time_ns = time_ns;
	x->tid = tid;
	x->pid = pid_of(t, tid);
	x->cpu = cpu;
	x->prev_tid = prev;
	x->prev_pid = prev ? pid_of(t, prev) : 0;
	x->delay_ns = delay_ns;
	add(t, sizeof(*x));
}

int st_begin_stat(struct st_trace *t)
{
	/* config: the ID of the 6.1 format file (testdata/formats/linux-6.1: no schedstats on
	 * 6.18 here, and the layout has not changed since) */
	event_attr(t, ST_EV_STAT, WC_EVENT_STAT_SLEEP, "sched:sched_stat_sleep",
		   PERF_TYPE_TRACEPOINT, 305, 1);
	if (tp_format_of(t, read_format_of("linux-6.1", "sched_stat_sleep")) && !t->err)
		t->err = -ENOENT;
	return t->err;
}

/* sched_stat_sleep of linux-6.1: common fields, comm[16] @8, pid @24, delay u64 @32. */
void st_stat(struct st_trace *t, uint64_t time_ns, uint32_t cpu, uint32_t ctx, uint32_t tid,
	     const char *comm, uint64_t delay_ns)
{
	struct wc_rec_tp_inline *x = tp_inline(t, time_ns, cpu, ctx, ST_EV_STAT, 40);

	put_int(x->data, 0, 305, 2);
	put_int(x->data, 4, ctx, 4);
	memcpy(x->data + 8, comm, strnlen(comm, 15));
	put_int(x->data, 24, tid, 4);
	put_int(x->data, 32, (int64_t)delay_ns, 8);
	add(t, sizeof(*x) + 40);
}

/* A CARRIED record with these fields. */
static void carried(struct st_trace *t, uint64_t time_ns, uint64_t since_ns, uint32_t cpu,
		    uint32_t tid, uint32_t payload_id, uint32_t stack_id, uint16_t event_id,
		    uint16_t flags)
{
	struct wc_rec_carried *x = (void *)buf;

	memset(x, 0, sizeof(*x));
	x->h.type = WC_REC_CARRIED;
	x->h.flags = WC_REC_F_TIME;
	x->time_ns = time_ns;
	x->since_ns = since_ns;
	x->payload_id = payload_id;
	x->stack_id = stack_id;
	x->tid = tid;
	x->pid = tid ? pid_of(t, tid) : 0;
	x->cpu = cpu;
	x->event_id = event_id;
	x->flags = flags;
	add(t, sizeof(*x));
}

void st_carried(struct st_trace *t, uint64_t time_ns, uint64_t since_ns, uint32_t cpu, uint32_t tid,
		const char *comm, uint64_t prev_state, uint32_t stack_id, bool on)
{
	if (on)
		carried(t, time_ns, since_ns, cpu, tid, 0, 0, 0, WC_CARRIED_ON_CPU);
	else
		carried(t, time_ns, since_ns, cpu, tid,
			switch_payload(t, tid, comm, prev_state, 0, "swapper"), stack_id,
			ST_EV_SWITCH, 0);
}

void st_carried_wake(struct st_trace *t, uint64_t time_ns, uint64_t since_ns, uint32_t cpu,
		     uint32_t waker, uint32_t tid, const char *comm, uint32_t stack_id, bool is_new)
{
	uint16_t ev = is_new ? ST_EV_WAKEUP_NEW : ST_EV_WAKING;

	carried(t, time_ns, since_ns, cpu, waker,
		wake_payload(t, ev, is_new ? 373 : 375, waker, tid, comm, (int32_t)cpu), stack_id,
		ev, WC_CARRIED_WAKEUP);
}
