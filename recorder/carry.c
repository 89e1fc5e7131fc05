/* SPDX-License-Identifier: GPL-2.0-or-later */
/* carry.c - the threads' state at a rotation (see carry.h). */
#include "recorder/carry.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/map64.h"
#include "common/wct.h"

/* An event kept: its time, context, callchain and payload. */
struct kept {
	uint64_t ns;	   /* 0: none seen */
	uint32_t tid, pid; /* the task in whose context it fired */
	uint32_t cpu;
	uint16_t event_id;
	uint16_t size; /* payload bytes, after the ips in buf */
	uint32_t nr;   /* ips in buf */
	uint8_t *buf;  /* nr ips, then the payload; owned */
	size_t cap;    /* bytes of buf */
};

struct thread {
	struct kept out;  /* its last switch-out (out.ns 0: none seen) */
	struct kept wake; /* its last wakeup (the waker's context) */
	bool wake_new;	  /* that wakeup is a sched_wakeup_new */
	uint64_t in_ns;	  /* its last switch-in, 0: none seen */
	uint64_t exit_ns; /* its EXIT, 0: none seen */
	bool gone;	  /* /proc did not list it before the file's last drain */
	uint32_t tid, pid;
	uint32_t in_cpu; /* the CPU of the switch-in */
};

struct wc_carry {
	struct wc_map64 index; /* tid -> its index in threads */
	struct thread *threads;
	size_t n, cap;
	uint64_t *last_in; /* per CPU, its latest switch-in (idle's included) or LOST record */
	size_t ncpus;
	uint64_t last_ns;  /* the latest time of any record seen */
	bool targets_only; /* a per-task recording: wakeups of the target's threads only */
};

#define MAX_CPUS 8192 /* a switch-in on a CPU beyond: not carried on-CPU */

struct wc_carry *wc_carry_new(void)
{
	struct wc_carry *c = calloc(1, sizeof(*c));

	if (c && wc_map64_init(&c->index)) {
		free(c);
		return NULL;
	}
	return c;
}

/* The entry of @tid, created empty.  Return: it, or NULL on ENOMEM. */
static struct thread *thread_of(struct wc_carry *c, uint32_t tid)
{
	int inserted;
	uint64_t *i;

	if (wc_grow((void **)&c->threads, &c->cap, c->n + 1, sizeof(*c->threads)))
		return NULL;
	i = wc_map64_put(&c->index, tid, c->n, &inserted);
	if (!i)
		return NULL;
	if (inserted)
		c->threads[c->n++] = (struct thread){ .tid = tid };
	return &c->threads[*i];
}

/* Copy an event into @k: @ips (@nr entries), then @payload (@size bytes).
 * Return: 0 or -ENOMEM. */
static int keep(struct kept *k, uint32_t tid, uint32_t pid, uint32_t cpu, uint16_t event_id,
		uint64_t time_ns, const uint64_t *ips, uint32_t nr, const void *payload,
		uint32_t size)
{
	size_t need = (size_t)nr * sizeof(*ips) + size;

	if (need > k->cap) {
		uint8_t *b = realloc(k->buf, need);

		if (!b)
			return -ENOMEM;
		k->buf = b;
		k->cap = need;
	}
	if (nr)
		memcpy(k->buf, ips, (size_t)nr * sizeof(*ips));
	if (size)
		memcpy(k->buf + (size_t)nr * sizeof(*ips), payload, size);
	k->ns = time_ns;
	k->tid = tid;
	k->pid = pid;
	k->cpu = cpu;
	k->event_id = event_id;
	k->nr = nr;
	k->size = (uint16_t)size;
	return 0;
}

int wc_carry_out(struct wc_carry *c, uint32_t tid, uint32_t pid, uint32_t cpu, uint16_t event_id,
		 uint64_t time_ns, const uint64_t *ips, uint32_t nr, const void *payload,
		 uint32_t size)
{
	struct thread *t;

	if (time_ns > c->last_ns)
		c->last_ns = time_ns;
	if (!tid || tid == UINT32_MAX || size > UINT16_MAX)
		return 0; /* the idle task; an exiting task's last switch; a payload no writer keeps
			   */
	t = thread_of(c, tid);
	if (!t)
		return -ENOMEM;
	if (time_ns < t->out.ns)
		return 0; /* drained after a later one, from another CPU's ring */
	t->pid = pid;
	return keep(&t->out, tid, pid, cpu, event_id, time_ns, ips, nr, payload, size);
}

void wc_carry_targets_only(struct wc_carry *c)
{
	c->targets_only = true;
}

/* The entry of @tid when there is one, else NULL. */
static struct thread *known(struct wc_carry *c, uint32_t tid)
{
	uint64_t *i = wc_map64_get(&c->index, tid);

	return i ? &c->threads[*i] : NULL;
}

int wc_carry_wake(struct wc_carry *c, uint32_t woken, bool is_new, uint32_t tid, uint32_t pid,
		  uint32_t cpu, uint16_t event_id, uint64_t time_ns, const uint64_t *ips,
		  uint32_t nr, const void *payload, uint32_t size)
{
	struct thread *t;

	if (time_ns > c->last_ns)
		c->last_ns = time_ns;
	if (!woken || woken >= INT32_MAX || size > UINT16_MAX)
		return 0;
	/* per task: a target thread has switched (its own events), a new one is made by one */
	if (c->targets_only && !known(c, is_new ? tid : woken))
		return 0;
	t = thread_of(c, woken);
	if (!t)
		return -ENOMEM;
	if (time_ns < t->wake.ns)
		return 0;
	if (is_new && t->exit_ns && time_ns > t->exit_ns)
		t->exit_ns = 0; /* its tid taken again by a new thread */
	t->wake_new = is_new;
	return keep(&t->wake, tid, pid, cpu, event_id, time_ns, ips, nr, payload, size);
}

/* Note a switch-in (or a LOST record) on @cpu at @time_ns.  Return: 0 or -ENOMEM. */
static int cpu_event(struct wc_carry *c, uint32_t cpu, uint64_t time_ns)
{
	if (cpu >= MAX_CPUS)
		return 0;
	if (cpu >= c->ncpus) {
		uint64_t *l = realloc(c->last_in, (cpu + 1) * sizeof(*l));

		if (!l)
			return -ENOMEM;
		memset(l + c->ncpus, 0, (cpu + 1 - c->ncpus) * sizeof(*l));
		c->last_in = l;
		c->ncpus = cpu + 1;
	}
	if (time_ns > c->last_in[cpu])
		c->last_in[cpu] = time_ns;
	return 0;
}

int wc_carry_in(struct wc_carry *c, uint32_t tid, uint32_t pid, uint32_t cpu, uint64_t time_ns)
{
	struct thread *t;

	if (time_ns > c->last_ns)
		c->last_ns = time_ns;
	if (cpu_event(c, cpu, time_ns))
		return -ENOMEM;
	if (!tid || tid == UINT32_MAX)
		return 0;
	t = thread_of(c, tid);
	if (!t)
		return -ENOMEM;
	if (time_ns > t->in_ns) {
		t->in_ns = time_ns;
		t->in_cpu = cpu;
		if (pid && pid != UINT32_MAX && pid != UINT32_MAX - 1)
			t->pid = pid;
	}
	if (t->exit_ns && time_ns > t->exit_ns)
		t->exit_ns = 0; /* its tid taken again by a new thread */
	return 0;
}

int wc_carry_lost(struct wc_carry *c, uint32_t cpu, uint64_t time_ns)
{
	return cpu_event(c, cpu, time_ns);
}

int wc_carry_exit(struct wc_carry *c, uint32_t tid, uint64_t time_ns)
{
	struct thread *t;

	if (!tid || tid == UINT32_MAX)
		return 0;
	t = thread_of(c, tid); /* its switches may come later, from another CPU's ring */
	if (!t)
		return -ENOMEM;
	if (time_ns > t->in_ns && time_ns >= t->wake.ns) /* not a new thread's of the same tid,
							     seen switched in or woken after */
		t->exit_ns = time_ns ? time_ns : 1;
	return 0;
}

/* Does /proc list @t (its pid known, or as a process: /proc has every tid)? */
static bool listed(const struct thread *t)
{
	char path[64];

	if (t->pid)
		snprintf(path, sizeof(path), "/proc/%u/task/%u", t->pid, t->tid);
	else
		snprintf(path, sizeof(path), "/proc/%u", t->tid);
	return access(path, F_OK) == 0;
}

void wc_carry_check(struct wc_carry *c)
{
	for (size_t i = 0; i < c->n; i++)
		c->threads[i].gone = !listed(&c->threads[i]);
}

/* Is @t alive: no EXIT seen, and listed by /proc before the last drain? */
static bool alive(const struct thread *t)
{
	return !t->exit_ns && !t->gone;
}

/* Is @t a new task not run yet: its sched_wakeup_new later than anything else of its tid? */
static bool fresh(const struct thread *t)
{
	return t->wake_new && t->wake.ns > t->in_ns && t->wake.ns > t->out.ns && alive(t);
}

/* Is @t off-CPU (since its last switch-out), and carried? */
static bool off_cpu(const struct thread *t)
{
	return t->out.ns && t->out.ns >= t->in_ns && alive(t) && !fresh(t);
}

/* Is @t on a CPU (since its last switch-in), and the last switch-in of that CPU (no later
 * one, of another thread or the idle task, and no LOST record since)? */
static bool on_cpu(const struct wc_carry *c, const struct thread *t)
{
	return t->in_ns > t->out.ns && t->in_cpu < c->ncpus && c->last_in[t->in_cpu] == t->in_ns &&
	       alive(t) && !fresh(t);
}

/* Is @t woken and waiting for its CPU: new and not run yet, or off-CPU and woken since its
 * last switch-in (after its switch-out, or on its way out: one recording takes that wakeup
 * too, provisionally)? */
static bool woken(const struct thread *t)
{
	return fresh(t) || (off_cpu(t) && !t->wake_new && t->wake.ns > t->in_ns);
}

/* Free what @t holds. */
static void forget(struct thread *t)
{
	free(t->out.buf);
	free(t->wake.buf);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Write the CARRIED record of @k (flags @flags, time @time_ns), its callchain and payload
 * first, into *@r.  Return: 0 or the error. */
static int write_kept(const struct kept *k, struct wc_writer *w, struct wc_stack_table *stacks,
		      struct wc_stack_table *payloads, struct wc_rec_carried *r)
{
	const uint64_t *ips = (const uint64_t *)(const void *)k->buf; /* malloc's alignment */
	int err = 0;

	r->event_id = k->event_id;
	if (k->nr)
		err = wc_writer_stack(w, stacks, ips, k->nr, &r->stack_id);
	if (!err && k->size) /* k->buf is NULL without a payload */
		err = wc_writer_payload(w, payloads, k->event_id, k->buf + (size_t)k->nr * 8,
					k->size, &r->payload_id);
	return err ? err : wc_writer_add(w, r);
}

/* Write @t's CARRIED records: its state (none for a new task not run yet), then its wakeup
 * where it waits for its CPU; *@n counts them.  Return: 0 or the error. */
static int write_one(const struct thread *t, struct wc_writer *w, struct wc_stack_table *stacks,
		     struct wc_stack_table *payloads, uint64_t start_ns, size_t *n)
{
	bool on = t->in_ns > t->out.ns;
	uint64_t since = on ? t->in_ns : t->out.ns;
	struct wc_rec_carried r = {
		.h = { sizeof(r), WC_REC_CARRIED, WC_REC_F_TIME },
		.time_ns = start_ns > since ? start_ns : since,
		.since_ns = since,
		.tid = t->tid,
		.pid = t->pid,
		.cpu = on ? t->in_cpu : t->out.cpu,
		.flags = on ? WC_CARRIED_ON_CPU : 0,
	};
	int err = 0;

	if (!fresh(t) && (on || t->out.ns)) {
		err = on ? wc_writer_add(w, &r) : write_kept(&t->out, w, stacks, payloads, &r);
		*n += !err;
	}
	if (err || !woken(t))
		return err;
	r = (struct wc_rec_carried){
		.h = { sizeof(r), WC_REC_CARRIED, WC_REC_F_TIME },
		.time_ns = start_ns > t->wake.ns ? start_ns : t->wake.ns,
		.since_ns = t->wake.ns,
		.tid = t->wake.tid,
		.pid = t->wake.pid,
		.cpu = t->wake.cpu,
		.flags = WC_CARRIED_WAKEUP,
	};
	err = write_kept(&t->wake, w, stacks, payloads, &r);
	*n += !err;
	return err;
}

int wc_carry_write(struct wc_carry *c, struct wc_writer *w, struct wc_stack_table *stacks,
		   struct wc_stack_table *payloads, uint64_t start_ns, size_t *n)
{
	size_t kept = 0;
	int err = 0;

	*n = 0;
	if (!start_ns) /* events not on the clock of now (a kernel without use_clockid) */
		start_ns = c->last_ns;
	for (size_t i = 0; i < c->n; i++) {
		if (off_cpu(&c->threads[i]) || on_cpu(c, &c->threads[i]) || woken(&c->threads[i]))
			c->threads[kept++] = c->threads[i];
		else
			forget(&c->threads[i]);
	}
	c->n = kept;
	if (c->n)
		qsort(c->threads, c->n, sizeof(*c->threads), cmp_tid);
	wc_map64_fini(&c->index);
	if (wc_map64_init(&c->index))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < c->n; i++) {
		err = wc_map64_put(&c->index, c->threads[i].tid, i, NULL) ? 0 : -ENOMEM;
		if (!err)
			err = write_one(&c->threads[i], w, stacks, payloads, start_ns, n);
	}
	return err;
}

void wc_carry_free(struct wc_carry *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		forget(&c->threads[i]);
	free(c->threads);
	free(c->last_in);
	wc_map64_fini(&c->index);
	free(c);
}
