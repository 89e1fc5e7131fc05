/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-perf-rec.c - the records of a perf.data's data section, translated into wct records
 * (see source-perf.h).  Each perf record is a perf_event_header (u32 type, u16 misc, u16
 * size, the size with the header) and a body; the kernel's records other than SAMPLE end in
 * the sample_id_all trailer of their event's attr, when it has sample_id_all:
 *
 *   { u32 pid, tid } { u64 time } { u64 id } { u64 stream_id } { u32 cpu, res } { u64 id }
 *   TID              TIME         ID         STREAM_ID         CPU              IDENTIFIER
 *
 * The event of a record is found by its id (p->ids): first in a sample with IDENTIFIER, else
 * at the position every attr agrees on (source-perf.c, id_layout()); last in a trailer.  A
 * record of id 0, as perf synthesizes them, is the first event's, as perf takes it.
 *
 *   perf record          wct records
 *   SAMPLE               SAMPLE (cycles, cpu-clock, task-clock), STACK first when new;
 *                        TRACEPOINT with PAYLOAD and STACK first when new; sched_stat_runtime,
 *                        _sleep, _blocked, _iowait as TP_INLINE; samples of other events
 *                        skipped and counted
 *   COMM FORK EXIT       COMM (the exec flag kept), FORK, EXIT
 *   MMAP MMAP2           MMAP (MMAP2's build-id form trusted where the attr asked for it)
 *   LOST LOST_SAMPLES    LOST
 *   THROTTLE UNTHROTTLE  THROTTLE
 *   FINISHED_ROUND       ROUND
 *   COMPRESSED(2)        the records they hold (source-perf-zstd.c)
 *   others               skipped by size, counted, told in a NOTE at the end
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer/core/source-perf.h"
#include "common/grow.h"

#define WINDOW_BYTES (1u << 20) /* data read from the file at a time, beside a record's room */

/* The attr of sample or trailer id @id (0: the first, as perf's synthesized records). */
static const struct pd_attr *attr_of(struct pd *p, uint64_t id)
{
	const uint64_t *at;

	if (p->nattrs == 1 || !id)
		return &p->attrs[0];
	at = wc_map64_get(&p->ids, id);
	if (!at || *at >= p->nattrs) {
		p->unknown_ids++;
		return NULL;
	}
	return &p->attrs[*at];
}

static uint16_t event_id_of(const struct pd *p, const struct pd_attr *a)
{
	return (uint16_t)(a - p->attrs);
}

/*
 * The sample_id_all trailer of a kernel record whose body takes @body bytes (header
 * included): time, tid, pid, cpu into @s.  Return: its attr, or NULL (unknown id, or no room).
 */
static const struct pd_attr *trailer(struct pd *p, const struct pd_rec *r, size_t body,
				     struct pd_sample *s)
{
	const struct pd_attr *a;
	const uint8_t *d;
	uint64_t st;
	size_t n;

	memset(s, 0, sizeof(*s));
	s->cpu = UINT32_MAX;
	if (p->nattrs == 1 || !p->attrs[0].attr.sample_id_all)
		a = &p->attrs[0];
	else if (r->size < body + 8u * (unsigned)p->id_words_trailer)
		return NULL;
	else
		a = attr_of(p, pd_u64(r->d + r->size - 8 * p->id_words_trailer));
	if (!a || !a->attr.sample_id_all)
		return a;
	st = a->attr.sample_type;
	n = (size_t)__builtin_popcountll(st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
					       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
					       PERF_SAMPLE_IDENTIFIER));
	if (r->size < body + 8 * n)
		return NULL;
	d = r->d + r->size - 8 * n;
	if (st & PERF_SAMPLE_TID) {
		s->pid = pd_u32(d);
		s->tid = pd_u32(d + 4);
		d += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		s->time_ns = pd_u64(d);
		d += 8;
	}
	d += 8 * (!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID));
	if (st & PERF_SAMPLE_CPU)
		s->cpu = pd_u32(d);
	return a;
}

/*
 * Where a record of time *@time_ns goes: an untimed one (0) takes the last time seen, or
 * waits in p->deferred for the first; the first timed one sends those waiting out first.
 * Return: the buffer, or NULL (ENOMEM).
 */
static struct pd_buf *dest(struct pd *p, uint64_t *time_ns)
{
	if (!*time_ns) {
		p->untimed++;
		*time_ns = p->last_ns;
		return p->timed ? &p->out : &p->deferred;
	}
	p->last_ns = *time_ns;
	if (p->timed)
		return &p->out;
	p->timed = true;
	for (size_t at = 0; at < p->deferred.len;) {
		struct wc_rec_header *h = (struct wc_rec_header *)(p->deferred.p + at);

		memcpy(h + 1, time_ns, sizeof(*time_ns));
		at += h->size;
	}
	if (p->deferred.len) {
		if (wc_grow((void **)&p->out.p, &p->out.cap, p->out.len + p->deferred.len, 1))
			return NULL;
		memcpy(p->out.p + p->out.len, p->deferred.p, p->deferred.len);
		p->out.len += p->deferred.len;
		p->deferred.len = 0;
	}
	return &p->out;
}

/* u64s of @d (unaligned) copied into p->words from index @at.  Return: 0 or -ENOMEM. */
static int words(struct pd *p, size_t at, const uint8_t *d, size_t bytes)
{
	size_t n = at + (bytes + 7) / 8;

	if (wc_grow((void **)&p->words, &p->words_cap, n ? n : 1, sizeof(uint64_t)))
		return -ENOMEM;
	if (n > at)
		p->words[n - 1] = 0;
	memcpy(p->words + at, d, bytes);
	return 0;
}

/* The STACK id of a callchain (WC_STACK_NONE when empty), its record queued when new. */
static int stack_id(struct pd *p, const struct pd_sample *s, uint32_t *id)
{
	struct wc_rec_stack *r;
	bool is_new;
	int err;

	*id = WC_STACK_NONE;
	if (!s->nr)
		return 0;
	err = words(p, 0, s->ips, 8 * s->nr);
	if (!err)
		err = wc_stack_table_add(p->stacks, p->words, (uint32_t)s->nr, id, &is_new);
	if (err || !is_new)
		return err;
	r = pd_emit(&p->out, sizeof(*r) + 8 * s->nr, WC_REC_STACK, 0);
	if (!r)
		return -ENOMEM;
	r->id = *id;
	r->nr = (uint32_t)s->nr;
	memcpy(r->ips, p->words, 8 * s->nr);
	return 0;
}

/* The PAYLOAD id of a raw payload of event @ev, its record queued when new. */
static int payload_id(struct pd *p, const struct pd_sample *s, uint16_t ev, uint32_t *id)
{
	struct wc_rec_payload *r;
	bool is_new;
	int err;

	*id = WC_PAYLOAD_NONE;
	if (!s->raw_size)
		return 0;
	err = words(p, 1, s->raw, s->raw_size);
	if (err)
		return err;
	p->words[0] = (uint64_t)ev << 32 | s->raw_size; /* the key: event, size, bytes */
	err = wc_stack_table_add(p->payloads, p->words, 1 + (s->raw_size + 7) / 8, id, &is_new);
	if (err || !is_new)
		return err;
	r = pd_emit(&p->out, sizeof(*r) + s->raw_size, WC_REC_PAYLOAD, 0);
	if (!r)
		return -ENOMEM;
	r->id = *id;
	r->event_id = ev;
	r->size = (uint16_t)s->raw_size;
	memcpy(r->data, s->raw, s->raw_size);
	return 0;
}

/* The read_format values of a sample: u64s.  Return: their count, or SIZE_MAX if unknown. */
static size_t read_words(const struct pd_attr *a, const uint8_t *d, const uint8_t *end)
{
	uint64_t rf = a->attr.read_format;
	size_t times =
		!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t each = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (!(rf & PERF_FORMAT_GROUP))
		return times + each;
	if (end - d < 8 || pd_u64(d) > (uint64_t)(end - d) / 8 / each)
		return SIZE_MAX;
	return 1 + times + each * pd_u64(d);
}

/*
 * A sample's REGS_USER (u64 abi, then a u64 per bit of sample_regs_user unless abi is 0) and
 * STACK_USER (u64 size, size bytes, then u64 dyn_size unless size is 0) from @d, into @s where
 * whole.
 */
static void user_state(const struct pd_attr *a, const uint8_t *d, const uint8_t *end,
		       struct pd_sample *s)
{
	uint64_t st = a->attr.sample_type, n;

	if (st & PERF_SAMPLE_REGS_USER) {
		if (end - d < 8)
			return;
		n = pd_u64(d) ? (uint64_t)__builtin_popcountll(a->attr.sample_regs_user) : 0;
		if (n > (uint64_t)(end - d - 8) / 8)
			return;
		s->regs = n ? d + 8 : NULL;
		d += 8 + 8 * n;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (end - d < 8 || (n = pd_u64(d)) > (uint64_t)(end - d - 8) ||
		    (n && end - d - 8 - (ptrdiff_t)n < 8)) {
			s->regs = NULL;
			return;
		}
		s->ustack = d + 8;
		s->ustack_size = n;
		s->ustack_dyn = n ? pd_u64(d + 8 + n) : 0;
	}
}

/* A SAMPLE's fields up to RAW, and the user registers and stack after it.  Return: its attr,
 * or NULL. */
static const struct pd_attr *parse_sample(struct pd *p, const struct pd_rec *r, struct pd_sample *s)
{
	const uint8_t *d = r->d + 8, *end = r->d + r->size;
	const struct pd_attr *a;
	uint64_t st;
	size_t n;

	memset(s, 0, sizeof(*s));
	n = p->id_words_sample < 0 ? 0 : (size_t)p->id_words_sample;
	if ((size_t)(end - d) < 8 * (n + 1))
		return NULL;
	a = attr_of(p, p->nattrs == 1 ? 0 : pd_u64(d + 8 * n));
	if (!a)
		return NULL;
	st = a->attr.sample_type;
	n = (size_t)__builtin_popcountll(
		st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_PERIOD));
	if ((size_t)(end - d) < 8 * n)
		return NULL;
	d += 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP));
	if (st & PERF_SAMPLE_TID) {
		s->pid = pd_u32(d);
		s->tid = pd_u32(d + 4);
		d += 8;
	}
	s->time_ns = pd_u64(d); /* every attr has TIME (source-perf.c, start()) */
	d += 8 + 8 * (!!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
		      !!(st & PERF_SAMPLE_STREAM_ID));
	s->cpu = UINT32_MAX;
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = pd_u32(d);
		d += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		s->period = pd_u64(d);
		d += 8;
	}
	if (st & PERF_SAMPLE_READ) {
		n = read_words(a, d, end);
		if (n > (size_t)(end - d) / 8)
			return NULL;
		d += 8 * n;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (end - d < 8 || pd_u64(d) > (uint64_t)(end - d - 8) / 8)
			return NULL;
		s->nr = pd_u64(d);
		s->ips = d + 8;
		d += 8 + 8 * s->nr;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (end - d < 4 || pd_u32(d) > (uint64_t)(end - d - 4))
			return NULL;
		s->raw_size = pd_u32(d);
		s->raw = d + 4;
		d += (4 + s->raw_size + 7) / 8 * 8;
	}
	if (!(st & PERF_SAMPLE_BRANCH_STACK)) /* not read: nor what follows it */
		user_state(a, d, end, s);
	return a;
}

/* A SAMPLE: a CPU sample, or a tracepoint event. */
static int on_sample(struct pd *p, const struct pd_rec *r)
{
	struct pd_sample s;
	const struct pd_attr *a = parse_sample(p, r, &s);
	uint32_t sid, pid;
	uint16_t ev;
	int err;

	if (!a || (a->attr.type == PERF_TYPE_TRACEPOINT && s.raw_size > UINT16_MAX)) {
		p->bad_samples++;
		return 0;
	}
	ev = event_id_of(p, a);
	if (a->kind != WC_EVENT_SAMPLE && a->attr.type != PERF_TYPE_TRACEPOINT) {
		p->other_samples++;
		return 0;
	}
	if (!dest(p, &s.time_ns))
		return -ENOMEM;
	if (a->kind == WC_EVENT_RUNTIME || a->kind == WC_EVENT_STAT_SLEEP ||
	    a->kind == WC_EVENT_STAT_BLOCKED || a->kind == WC_EVENT_STAT_IOWAIT) {
		/* one delay each: no payload worth sharing, no stack used (sched.h) */
		size_t size =
			s.raw_size < WC_TP_INLINE_MAX_BYTES ? s.raw_size : WC_TP_INLINE_MAX_BYTES;
		struct wc_rec_tp_inline *t =
			pd_emit(&p->out, sizeof(*t) + size, WC_REC_TP_INLINE, WC_REC_F_TIME);

		if (!t)
			return -ENOMEM;
		*t = (struct wc_rec_tp_inline){ t->h,  s.time_ns, s.tid,	 s.pid,
						s.cpu, ev,	  (uint16_t)size };
		memcpy(t->data, s.raw, size);
		return 0;
	}
	if (p->uw && (a->attr.sample_type & PERF_SAMPLE_STACK_USER))
		pd_unwind_sample(p, &a->attr, &s);
	err = stack_id(p, &s, &sid);
	if (!err && a->kind == WC_EVENT_SAMPLE) {
		struct wc_rec_sample *x =
			pd_emit(&p->out, sizeof(*x), WC_REC_SAMPLE, WC_REC_F_TIME);

		if (!x)
			return -ENOMEM;
		*x = (struct wc_rec_sample){ .h = x->h,
					     .time_ns = s.time_ns,
					     .stack_id = sid,
					     .tid = s.tid,
					     .pid = s.pid,
					     .cpu = s.cpu,
					     .period = s.period,
					     .event_id = ev };
		return 0;
	}
	if (!err)
		err = payload_id(p, &s, ev, &pid);
	if (!err) {
		struct wc_rec_tracepoint *t =
			pd_emit(&p->out, sizeof(*t), WC_REC_TRACEPOINT, WC_REC_F_TIME);

		if (!t)
			return -ENOMEM;
		*t = (struct wc_rec_tracepoint){ t->h,	s.time_ns, pid, sid, s.tid,
						 s.pid, s.cpu,	   ev,	0 };
	}
	return err;
}

/* COMM: u32 pid, tid; the name, NUL-terminated, padded to 8; the trailer. */
static int on_comm(struct pd *p, const struct pd_rec *r)
{
	struct pd_sample s;
	struct pd_buf *b;
	struct wc_rec_comm *c;
	size_t n;

	if (r->size < 24 || !trailer(p, r, 24, &s)) {
		p->bad_samples++;
		return 0;
	}
	if (!(b = dest(p, &s.time_ns)) || !(c = pd_emit(b, sizeof(*c), WC_REC_COMM, WC_REC_F_TIME)))
		return -ENOMEM;
	c->time_ns = s.time_ns;
	c->pid = pd_u32(r->d + 8);
	c->tid = pd_u32(r->d + 12);
	c->flags = (r->misc & PERF_RECORD_MISC_COMM_EXEC ? WC_COMM_EXEC : 0) |
		   (p->timed ? 0 : WC_TASK_SYNTH);
	n = strnlen((const char *)r->d + 16, r->size - 16u);
	memcpy(c->comm, r->d + 16, n < sizeof(c->comm) ? n : sizeof(c->comm));
	if (r->misc & PERF_RECORD_MISC_COMM_EXEC)
		pd_unwind_exec(p, c->pid, s.time_ns);
	return 0;
}

/* FORK and EXIT: u32 pid, ppid, tid, ptid; u64 time; the trailer. */
static int on_task(struct pd *p, const struct pd_rec *r)
{
	struct pd_sample s;
	struct wc_rec_task *t;
	struct pd_buf *b;
	uint64_t time_ns;

	if (r->size < 32 || !trailer(p, r, 32, &s)) {
		p->bad_samples++;
		return 0;
	}
	time_ns = pd_u64(r->d + 24);
	if (!(b = dest(p, &time_ns)))
		return -ENOMEM;
	t = pd_emit(b, sizeof(*t), r->type == PERF_RECORD_FORK ? WC_REC_FORK : WC_REC_EXIT,
		    WC_REC_F_TIME);
	if (!t)
		return -ENOMEM;
	t->time_ns = time_ns;
	t->pid = pd_u32(r->d + 8);
	t->ppid = pd_u32(r->d + 12);
	t->tid = pd_u32(r->d + 16);
	t->ptid = pd_u32(r->d + 20);
	return r->type == PERF_RECORD_FORK ? pd_unwind_fork(p, t->pid, t->ppid) : 0;
}

/*
 * MMAP (u32 pid, tid; u64 addr, len, pgoff; name) and MMAP2 (the same, then u32 maj, min,
 * u64 ino, ino_generation, or u8 build_id_size, 3 bytes, build_id[20]; u32 prot, flags;
 * name).  The build-id form only where the event's attr asked for it: a kernel may set the
 * flag on an inode-form record when another session asks for build-ids.
 */
static int on_mmap(struct pd *p, const struct pd_rec *r)
{
	size_t name_at = r->type == PERF_RECORD_MMAP2 ? 72 : 40, n;
	const struct pd_attr *a;
	struct wc_rec_mmap *m;
	struct pd_sample s;
	struct pd_buf *b;

	if (r->size < name_at + 8 || !(a = trailer(p, r, name_at + 8, &s))) {
		p->bad_samples++;
		return 0;
	}
	n = strnlen((const char *)r->d + name_at, r->size - name_at);
	if (!(b = dest(p, &s.time_ns)) ||
	    !(m = pd_emit(b, sizeof(*m) + n + 1, WC_REC_MMAP, WC_REC_F_TIME)))
		return -ENOMEM;
	m->time_ns = s.time_ns;
	m->pid = pd_u32(r->d + 8);
	m->tid = pd_u32(r->d + 12);
	m->addr = pd_u64(r->d + 16);
	m->len = pd_u64(r->d + 24);
	m->pgoff = pd_u64(r->d + 32);
	m->prot = PROT_READ | (r->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC);
	m->task_flags = p->timed ? 0 : WC_TASK_SYNTH;
	if (r->type == PERF_RECORD_MMAP2) {
		const uint8_t *u = r->d + 40;

		if ((r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && a->attr.build_id) {
			m->build_id_size = u[0] <= WC_BUILD_ID_MAX ? u[0] : WC_BUILD_ID_MAX;
			memcpy(m->build_id, u + 4, m->build_id_size);
		} else {
			m->maj = pd_u32(u);
			m->min = pd_u32(u + 4);
			m->ino = pd_u64(u + 8);
			m->ino_generation = pd_u64(u + 16);
		}
		m->prot = pd_u32(u + 24);
		m->flags = pd_u32(u + 28);
	}
	memcpy(m->filename, r->d + name_at, n);
	if (m->prot & PROT_EXEC)
		return pd_unwind_mmap(p, m->pid, m->addr, m->pgoff, m->filename, m->build_id,
				      m->build_id_size, m->time_ns);
	return 0;
}

/* LOST (u64 id, lost), LOST_SAMPLES (u64 lost), THROTTLE/UNTHROTTLE (u64 time, id, stream). */
static int on_loss(struct pd *p, const struct pd_rec *r)
{
	size_t body = r->type == PERF_RECORD_LOST_SAMPLES ? 16
		      : r->type == PERF_RECORD_LOST	  ? 24
							  : 32;
	struct wc_rec_lost *l;
	struct pd_sample s;
	struct pd_buf *b;

	if (r->size < body || !trailer(p, r, body, &s)) {
		p->bad_samples++;
		return 0;
	}
	if (r->type == PERF_RECORD_THROTTLE || r->type == PERF_RECORD_UNTHROTTLE) {
		uint64_t id = pd_u64(r->d + 16), t = pd_u64(r->d + 8);
		const struct pd_attr *ta = attr_of(p, id);
		struct wc_rec_throttle *x;

		if (!dest(p, &t) ||
		    !(x = pd_emit(&p->out, sizeof(*x), WC_REC_THROTTLE, WC_REC_F_TIME)))
			return -ENOMEM;
		*x = (struct wc_rec_throttle){ x->h, t, s.cpu, ta ? event_id_of(p, ta) : UINT16_MAX,
					       r->type == PERF_RECORD_THROTTLE };
		return 0;
	}
	if (!(b = dest(p, &s.time_ns)) || !(l = pd_emit(b, sizeof(*l), WC_REC_LOST, WC_REC_F_TIME)))
		return -ENOMEM;
	*l = (struct wc_rec_lost){ l->h, s.time_ns, s.cpu,
				   r->type == PERF_RECORD_LOST ? WC_LOST_RECORDS : WC_LOST_SAMPLES,
				   pd_u64(r->d + (r->type == PERF_RECORD_LOST ? 16 : 8)) };
	return 0;
}

int pd_one_record(struct pd *p, const struct pd_rec *r)
{
	if (r->type == PD_REC_HEADER_ATTR)
		return pd_header_attr(p, r->d, r->size, r->off) == -ENOMEM ? -ENOMEM : 0;
	if (r->type == PD_REC_HEADER_FEATURE && !p->finalized)
		return r->size < 16 ? 0
				    : pd_feature(p, (int)pd_u64(r->d + 8), r->d + 16, r->size - 16u,
						 r->off + 16);
	if (!p->finalized && r->type < 64 && pd_finalize(p))
		return 0;
	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(p, r);
	case PERF_RECORD_COMM:
		return on_comm(p, r);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return on_task(p, r);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(p, r);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return on_loss(p, r);
	case PD_REC_FINISHED_ROUND:
		pd_unwind_round(p);
		return pd_emit(&p->out, sizeof(struct wc_rec_header), WC_REC_ROUND, 0) ? 0
										       : -ENOMEM;
	case PD_REC_FINISHED_INIT:
		return 0;
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		return pd_compressed(p, r);
	}
	if (r->type < PD_REC_TYPES)
		p->skipped[r->type]++;
	else
		p->skipped_other++;
	return 0;
}

size_t pd_window(struct pd *p, size_t need)
{
	size_t have = p->in_len - p->in_pos;
	uint64_t left;

	if (have >= need)
		return have;
	if (need + WINDOW_BYTES > p->in_cap) { /* a record, or pipe-mode tracing data */
		uint8_t *in = realloc(p->in, need + WINDOW_BYTES);

		if (!in)
			return pd_fail(p, WC_READER_IO_ERROR, p->in_off,
				       "perf.data: out of memory");
		p->in = in;
		p->in_cap = need + WINDOW_BYTES;
	}
	memmove(p->in, p->in + p->in_pos, have);
	p->in_off += p->in_pos;
	p->in_pos = 0;
	p->in_len = have;
	left = p->data_end - (p->in_off + p->in_len);
	while (left && p->in_len < need) {
		size_t want = p->in_cap - p->in_len < left ? p->in_cap - p->in_len : (size_t)left;
		ssize_t n = p->stream ? read(p->fd, p->in + p->in_len, want)
				      : pread(p->fd, p->in + p->in_len, want,
					      (off_t)(p->in_off + p->in_len));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				pd_fail(p, WC_READER_IO_ERROR, p->in_off + p->in_len,
					"perf.data: read at byte %" PRIu64 ": %s",
					p->in_off + p->in_len, strerror(errno));
			p->data_end = p->in_off + p->in_len;
			break;
		}
		p->in_len += (size_t)n;
		left -= (uint64_t)n;
	}
	return p->in_len;
}

/* A name for a perf record type (tools/perf/util/event.c), for the NOTE of those skipped. */
static const char *type_name(int type, char *other, size_t n)
{
	static const char *const kernel[] = {
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};
	static const char *const user[] = {
		"ATTR",	     "EVENT_TYPE",    "TRACING_DATA", "BUILD_ID",	"FINISHED_ROUND",
		"ID_INDEX",  "AUXTRACE_INFO", "AUXTRACE",     "AUXTRACE_ERROR", "THREAD_MAP",
		"CPU_MAP",   "STAT_CONFIG",   "STAT",	      "STAT_ROUND",	"EVENT_UPDATE",
		"TIME_CONV", "FEATURE",	      "COMPRESSED",   "FINISHED_INIT",	"COMPRESSED2",
	};
	if (type < (int)(sizeof(kernel) / sizeof(kernel[0])) && kernel[type])
		return kernel[type];
	if (type >= 64 && type - 64 < (int)(sizeof(user) / sizeof(user[0])))
		return user[type - 64];
	snprintf(other, n, "of type %d", type);
	return other;
}

/* The NOTE on the user stacks unwound (source-perf-unwind.c).  Return: 0 or -ENOMEM. */
static int unwind_note(struct pd *p)
{
	const uint64_t *r = p->unwind_results; /* by enum wc_unwind_result */
	char text[320];

	snprintf(text, sizeof(text),
		 "%" PRIu64 " to the outermost frame, %" PRIu64
		 " cut short by the stack copy, %" PRIu64 " stopped short, %" PRIu64
		 " with no user state; files used unchecked (no build-id recorded) %" PRIu64
		 ", refused (another build-id) %" PRIu64,
		 r[2], r[3], r[4] + r[5], r[0], p->unwind_unchecked, p->unwind_refused);
	return pd_note(&p->out, "perf_unwind", text);
}

/* The end of the data: what waits goes out, the skipped records are told, the state set. */
static int finish(struct pd *p)
{
	char text[512], other[32];
	size_t n = 0;
	uint64_t t = 1;

	if (!p->finalized && pd_finalize(p))
		return 0;
	if (!p->timed && p->deferred.len && !dest(p, &t))
		return -ENOMEM;
	for (int i = 0; i < PD_REC_TYPES; i++)
		if (p->skipped[i] && n < sizeof(text))
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%" PRIu64 " %s",
					      n ? ", " : "", p->skipped[i],
					      type_name(i, other, sizeof(other)));
	if (p->skipped_other && n < sizeof(text))
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%" PRIu64 " of other types",
				      n ? ", " : "", p->skipped_other);
	if (p->bad_samples + p->unknown_ids + p->other_samples && n < sizeof(text))
		snprintf(text + n, sizeof(text) - n,
			 "%s%" PRIu64 " samples of other events, %" PRIu64
			 " records cut or damaged, "
			 "%" PRIu64 " of unknown ids",
			 n ? "; " : "", p->other_samples, p->bad_samples, p->unknown_ids);
	if ((n || p->bad_samples + p->unknown_ids + p->other_samples) &&
	    pd_note(&p->out, "perf_skipped", text))
		return -ENOMEM;
	if (p->uw && unwind_note(p))
		return -ENOMEM;
	p->bad_samples += p->dec.len != 0; /* a record cut at the end of the zstd stream */
	if (p->data_size && p->data_end < p->data_off + p->data_size)
		pd_fail(p, WC_READER_TRUNCATED, p->data_end,
			"perf.data: the data section ends at byte %" PRIu64
			" of the file, before byte %" PRIu64 " its header gives",
			p->data_end, p->data_off + p->data_size);
	else if (!p->data_size && !p->pipe)
		pd_fail(p, WC_READER_TRUNCATED, p->data_end,
			"perf.data: perf record did not finish its file (a data size of 0): records "
			"read to the end of the file");
	else
		pd_fail(p, WC_READER_CLEAN, p->data_end, "%s", "");
	return 0;
}

/*
 * Pipe mode's HEADER_TRACING_DATA: u32 size, the tracing data after the record, padded to 8.
 * Return: 1 to go on, 0 on failure.
 */
static int tracing_data(struct pd *p, const struct pd_rec *r)
{
	uint32_t size = r->size >= 12 ? pd_u32(r->d + 8) : 0;
	size_t padded = ((size_t)size + 7) & ~(size_t)7;

	if (size > SECTION_MAX_BYTES || pd_window(p, padded) < padded)
		return pd_fail(p, WC_READER_TRUNCATED, r->off,
			       "perf.data: the tracing data of %u bytes after byte %" PRIu64
			       " is cut",
			       size, r->off);
	if (p->finalized || p->have_tracing_data)
		p->skipped[PD_REC_HEADER_TRACING_DATA]++;
	else if (pd_tracing_data(p, p->in + p->in_pos, size, r->off + r->size) == -ENOMEM)
		return pd_fail(p, WC_READER_IO_ERROR, r->off, "perf.data: out of memory");
	p->in_pos += padded;
	return p->state == WC_READER_OK;
}

int pd_records(struct pd *p)
{
	size_t have = pd_window(p, 8);
	struct pd_rec r;
	int err;

	if (p->state != WC_READER_OK)
		return 0;
	if (!have)
		return finish(p) ? pd_fail(p, WC_READER_IO_ERROR, 0, "perf.data: out of memory")
				 : 0;
	r.off = p->in_off + p->in_pos;
	if (have < 8)
		return pd_fail(p, WC_READER_TRUNCATED, r.off,
			       "perf.data: a record header cut at byte %" PRIu64, r.off);
	r.d = p->in + p->in_pos;
	r.type = pd_u32(r.d);
	memcpy(&r.misc, r.d + 4, 2);
	memcpy(&r.size, r.d + 6, 2);
	if (r.size < 8)
		return pd_fail(p, WC_READER_CORRUPT, r.off,
			       "perf.data: a record of type %u and size %u at byte %" PRIu64
			       " (records are 8 bytes or more)",
			       r.type, r.size, r.off);
	if (pd_window(p, r.size) < r.size)
		return p->state != WC_READER_OK
			       ? 0
			       : pd_fail(p, WC_READER_TRUNCATED, r.off,
					 "perf.data: a record of %u bytes at byte %" PRIu64
					 " is cut by the end of the data",
					 r.size, r.off);
	r.d = p->in + p->in_pos;
	p->in_pos += r.size;
	if (r.type == PD_REC_HEADER_TRACING_DATA)
		return tracing_data(p, &r);
	err = pd_one_record(p, &r);
	if (err)
		return pd_fail(p, WC_READER_IO_ERROR, r.off, "perf.data: out of memory");
	return 1;
}

void pd_rec_free(struct pd *p)
{
	pd_zstd_free(p);
	pd_unwind_free(p);
}
