/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c - see replay.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "analyzer/core/reorder.h"
#include "analyzer/core/replay.h"
#include "analyzer/core/source.h"
#include "common/error.h"
#include "common/rectypes.h"

struct ref {
	uint64_t off; /* into the arena: u64 units for stacks, bytes for payloads */
	uint32_t nr;  /* ips, or payload bytes */
	uint16_t defined;
	uint16_t event_id; /* a payload's EVENT_ATTR: the events that may carry it */
};

struct wc_replay {
	struct wc_source *source;
	struct wc_replay_meta meta;
	struct wc_replay_stats stats;
	bool begun;
	/* stacks and payloads by id */
	struct ref *stacks, *payloads;
	size_t nstacks, npayloads; /* slots */
	uint64_t stacks_seen,
		payloads_seen; /* distinct ids defined: the highest, ids being dense */
	char error[256]; /* a record the replay refused, naming its field and where; "" if none */
	uint64_t *ips;
	size_t nips, ips_cap;
	uint8_t *bytes;
	size_t nbytes, bytes_cap;
	struct wc_reorder *queue;
	bool delivered_any;
	/* --max-memory: the resident set checked every MEMORY_CHECK_BYTES of records */
	uint64_t max_memory, unchecked_bytes;
	int statm_fd; /* /proc/self/statm, or -1 */
};

#define MEMORY_CHECK_BYTES (1u << 20)

struct wc_replay *wc_replay_open(const char *path)
{
	struct wc_replay *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->source = wc_source_open(path);
	if (!r->source) {
		int e = errno;

		free(r);
		errno = e;
		return NULL;
	}
	r->meta.clockid = -1;
	r->max_memory = WC_REPLAY_DEFAULT_MAX_MEMORY;
	r->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	r->meta.ksyms = wc_kallsyms_new(NULL, 0);
	r->meta.usyms = wc_usyms_new();
	r->queue = wc_reorder_new();
	if (!r->meta.ksyms || !r->meta.usyms || !r->queue) {
		wc_kallsyms_free(r->meta.ksyms);
		wc_usyms_free(r->meta.usyms);
		wc_reorder_free(r->queue);
		wc_source_free(r->source);
		if (r->statm_fd >= 0)
			close(r->statm_fd);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

/*
 * Ids of STACK and PAYLOAD records are dense from 1 and never reused (wcrec-trace(5)): each
 * record defines the next id.  One beyond that is refused, so that the memory kept by id
 * follows the records in the file, not a number written in one of them; one defined again is
 * refused too, since an event queued before the second definition would be decoded from it.
 * Return: 0, or -WC_ECORRUPT with r->error set.
 */
static int check_id(struct wc_replay *r, const char *what, uint32_t id, uint64_t *seen)
{
	if (id == *seen + 1) {
		(*seen)++;
		return 0;
	}
	if (id <= *seen)
		snprintf(r->error, sizeof(r->error),
			 "corrupt %s record in the frame ending at or before byte %llu: id %u "
			 "defined again (an id is never reused within a file)",
			 what, (unsigned long long)wc_source_offset(r->source), id);
	else
		snprintf(r->error, sizeof(r->error),
			 "corrupt %s record in the frame ending at or before byte %llu: id %u out "
			 "of sequence (ids are dense from 1, and %llu are defined before it)",
			 what, (unsigned long long)wc_source_offset(r->source), id,
			 (unsigned long long)*seen);
	return -WC_ECORRUPT;
}

void wc_replay_set_max_memory(struct wc_replay *r, uint64_t bytes)
{
	r->max_memory = bytes;
}

/* The resident set size of this process in bytes (proc(5), /proc/PID/statm), 0 unknown. */
static uint64_t rss_bytes(int fd)
{
	char buf[128];
	unsigned long long size, resident;
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;

	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Return: 0 while the process is within --max-memory, else -WC_ECORRUPT with r->error set. */
static int check_memory(struct wc_replay *r)
{
	uint64_t rss;

	r->unchecked_bytes = 0;
	if (!r->max_memory)
		return 0;
	rss = rss_bytes(r->statm_fd);
	if (rss <= r->max_memory)
		return 0;
	snprintf(r->error, sizeof(r->error),
		 "over --max-memory (%llu MiB): %llu MiB resident by byte %llu of the file; give "
		 "it more if the trace is real",
		 (unsigned long long)(r->max_memory >> 20), (unsigned long long)(rss >> 20),
		 (unsigned long long)wc_source_offset(r->source));
	return -WC_ECORRUPT;
}

static int keep_ref(struct ref **refs, size_t *n, uint32_t id, uint64_t off, uint32_t nr)
{
	if (id >= *n) {
		size_t cap = *n, old = *n;

		if (wc_grow((void **)refs, &cap, (size_t)id + 1, sizeof(**refs)))
			return -ENOMEM;
		memset(*refs + old, 0, (cap - old) * sizeof(**refs));
		*n = cap;
	}
	(*refs)[id] = (struct ref){ off, nr, 1, 0 };
	return 0;
}

static int keep_stack(struct wc_replay *r, const struct wc_rec_stack *s)
{
	int err;

	if (s->id == WC_STACK_NONE)
		return 0;
	err = check_id(r, "STACK", s->id, &r->stacks_seen);
	if (err)
		return err;
	/* an empty callchain copies nothing (r->ips may still be NULL: no arithmetic on it) */
	if (s->nr && wc_grow((void **)&r->ips, &r->ips_cap, r->nips + s->nr, sizeof(uint64_t)))
		return -ENOMEM;
	if (s->nr)
		memcpy(r->ips + r->nips, s->ips, (size_t)s->nr * sizeof(uint64_t));
	if (keep_ref(&r->stacks, &r->nstacks, s->id, r->nips, s->nr))
		return -ENOMEM;
	r->nips += s->nr;
	return 0;
}

static int keep_payload(struct wc_replay *r, const struct wc_rec_payload *p)
{
	int err;

	if (p->id == WC_PAYLOAD_NONE)
		return 0;
	err = check_id(r, "PAYLOAD", p->id, &r->payloads_seen);
	if (err)
		return err;
	if (p->size && wc_grow((void **)&r->bytes, &r->bytes_cap, r->nbytes + p->size, 1))
		return -ENOMEM;
	if (p->size)
		memcpy(r->bytes + r->nbytes, p->data, p->size);
	if (keep_ref(&r->payloads, &r->npayloads, p->id, r->nbytes, p->size))
		return -ENOMEM;
	r->payloads[p->id].event_id = p->event_id;
	r->nbytes += p->size;
	return 0;
}

/* Copy a NUL-terminated string of at most @max bytes from untrusted @src. */
static const char *take_string(char *dst, size_t dst_size, const char *src, size_t max)
{
	size_t n = strnlen(src, max);

	if (n >= dst_size)
		n = dst_size - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
	return src + (n < max ? strnlen(src, max) + 1 : max);
}

static char *dup_n(const char *s, size_t max)
{
	return strndup(s, strnlen(s, max));
}

/* An IMAGE record: its object, copied, becomes the newest of its name. */
static int keep_image(struct wc_replay_meta *m, const struct wc_rec_image *x)
{
	struct wc_replay_image *im = calloc(1, sizeof(*im));

	if (!im)
		return -ENOMEM;
	im->name = dup_n((const char *)x->data, x->name_len);
	im->len = x->image_len;
	im->data = malloc(im->len ? im->len : 1);
	if (!im->name || !im->data) {
		free(im->name);
		free(im->data);
		free(im);
		return -ENOMEM;
	}
	memcpy(im->data, x->data + x->name_len, im->len);
	im->older = m->images;
	m->images = im;
	return 0;
}

static int keep_meta(struct wc_replay *r, const struct wc_rec_header *h)
{
	struct wc_replay_meta *m = &r->meta;

	switch (h->type) {
	case WC_REC_HOST: {
		const struct wc_rec_host *x = (const void *)h;
		const char *s = x->strings, *end = x->strings + x->strings_len;

		m->have_host = true;
		m->ncpus_online = x->ncpus_online;
		m->ncpus_configured = x->ncpus_configured;
		m->page_size = x->page_size;
		char *fields[] = { m->sysname, m->nodename, m->release,
				   m->version, m->machine,  m->recorder };
		size_t sizes[] = { sizeof(m->sysname), sizeof(m->nodename), sizeof(m->release),
				   sizeof(m->version), sizeof(m->machine),  sizeof(m->recorder) };

		for (int i = 0; i < 6 && s < end; i++)
			s = take_string(fields[i], sizes[i], s, (size_t)(end - s));
		break;
	}
	case WC_REC_CLOCK: {
		const struct wc_rec_clock *c = (const void *)h;

		m->have_clock = true;
		m->clockid = c->clockid;
		m->clock_ns = c->clock_ns;
		m->realtime_ns = c->realtime_ns;
		break;
	}
	case WC_REC_EVENT_ATTR: {
		const struct wc_rec_event_attr *e = (const void *)h;
		struct perf_event_attr a = { 0 };

		if (e->event_id >= WC_REPLAY_MAX_EVENTS)
			break;
		struct wc_replay_event *ev = &m->events[e->event_id];

		memcpy(&a, e->data, e->attr_size < sizeof(a) ? e->attr_size : sizeof(a));
		ev->present = true;
		ev->kind = e->kind;
		ev->attr_type = a.type;
		ev->attr_config = a.config;
		ev->freq = a.freq;
		ev->sample_period_or_freq = a.sample_period;
		ev->sample_type = a.sample_type;
		take_string(ev->name, sizeof(ev->name), (const char *)e->data + e->attr_size,
			    e->name_len);
		break;
	}
	case WC_REC_TP_FORMAT: {
		const struct wc_rec_tp_format *f = (const void *)h;
		struct wc_replay_tp_format *x;
		size_t cap = m->nformats;

		if (wc_grow((void **)&m->formats, &cap, m->nformats + 1, sizeof(*m->formats)))
			return -ENOMEM;
		x = &m->formats[m->nformats];
		x->system = dup_n(f->data, f->system_len);
		x->text = dup_n(f->data + f->system_len, f->text_len);
		if (!x->system || !x->text) {
			free(x->system);
			free(x->text);
			return -ENOMEM;
		}
		m->nformats++;
		break;
	}
	case WC_REC_KALLSYMS: {
		const struct wc_rec_kallsyms *k = (const void *)h;

		free(m->kallsyms);
		m->kallsyms = dup_n(k->text, k->text_len);
		if (!m->kallsyms)
			return -ENOMEM;
		m->kallsyms_len = strlen(m->kallsyms);
		m->kallsyms_restricted = k->flags & WC_KALLSYMS_RESTRICTED;
		m->kallsyms_referenced = k->flags & WC_KALLSYMS_REFERENCED;
		break;
	}
	case WC_REC_KSYM: {
		const struct wc_rec_ksym *k = (const void *)h;
		const char *name = k->strings, *module = name + strlen(name) + 1;
		int err = wc_kallsyms_add(m->ksyms, k->start, k->end, name, module);

		if (err == -EEXIST)
			r->stats.bad_ksyms++;
		else if (err)
			return err;
		break;
	}
	case WC_REC_NOTE: {
		const struct wc_rec_note *n = (const void *)h;
		size_t cap = m->nnotes;

		if (wc_grow((void **)&m->notes, &cap, m->nnotes + 1, sizeof(*m->notes)))
			return -ENOMEM;
		m->notes[m->nnotes].key = dup_n(n->data, n->key_len);
		m->notes[m->nnotes].value = dup_n(n->data + n->key_len, n->value_len);
		if (!m->notes[m->nnotes].key || !m->notes[m->nnotes].value)
			return -ENOMEM;
		m->nnotes++;
		break;
	}
	case WC_REC_IMAGE:
		return keep_image(m, (const void *)h);
	case WC_REC_USYM:
		return wc_usyms_add(m->usyms, (const void *)h);
	}
	return 0;
}

static int deliver(struct wc_replay *r, const struct wc_replay_ops *ops, void *ctx,
		   const struct wc_rec_header *h, uint64_t time)
{
	int err;

	if (!r->begun) {
		r->begun = true;
		if (ops->begin && (err = ops->begin(ctx, &r->meta)))
			return err;
	}
	if (!r->delivered_any) {
		r->stats.first_ns = time;
		r->delivered_any = true;
	}
	r->stats.last_ns = time;
	return ops->event ? ops->event(ctx, h) : 0;
}

struct deliver_ctx {
	struct wc_replay *r;
	const struct wc_replay_ops *ops;
	void *ctx;
};

static int deliver_fn(void *ctx, const struct wc_rec_header *h, uint64_t time)
{
	struct deliver_ctx *d = ctx;

	return deliver(d->r, d->ops, d->ctx, h, time);
}

static int enqueue(struct wc_replay *r, const struct wc_rec_header *h)
{
	uint64_t time;
	int err;

	memcpy(&time, h + 1, sizeof(time));
	err = wc_reorder_push(r->queue, h, time);
	if (err == 1) /* late: dropped */
		r->stats.late++;
	return err < 0 ? err : 0;
}

/* An id of a stack or a payload no record defined. */
static bool undefined(const struct ref *refs, size_t n, uint32_t id)
{
	return id && (id >= n || !refs[id].defined);
}

/*
 * A QUEUED record (rectypes.c): counted, its stack and payload ids checked, then queued.
 * Return: 0 (queued, late or refused for a bad reference), or -ENOMEM.
 */
static int queue_event(struct wc_replay *r, const struct wc_rec_header *h)
{
	switch (h->type) {
	case WC_REC_LOST: {
		const struct wc_rec_lost *l = (const void *)h;

		if (l->kind == WC_LOST_SAMPLES)
			r->stats.lost_samples += l->count;
		else
			r->stats.lost_records += l->count;
		break;
	}
	case WC_REC_TRACEPOINT: {
		const struct wc_rec_tracepoint *t = (const void *)h;

		if (undefined(r->stacks, r->nstacks, t->stack_id) ||
		    undefined(r->payloads, r->npayloads, t->payload_id) ||
		    (t->payload_id && r->payloads[t->payload_id].event_id != t->event_id)) {
			r->stats.bad_refs++;
			return 0;
		}
		break;
	}
	case WC_REC_CARRIED: {
		const struct wc_rec_carried *t = (const void *)h;

		if (undefined(r->stacks, r->nstacks, t->stack_id) ||
		    undefined(r->payloads, r->npayloads, t->payload_id) ||
		    (t->payload_id && r->payloads[t->payload_id].event_id != t->event_id)) {
			r->stats.bad_refs++;
			return 0;
		}
		break;
	}
	case WC_REC_SAMPLE:
		if (undefined(r->stacks, r->nstacks, ((const struct wc_rec_sample *)h)->stack_id)) {
			r->stats.bad_refs++;
			return 0;
		}
		break;
	}
	return enqueue(r, h);
}

/* The records neither QUEUED nor METADATA: definitions by id, ROUND and TRAILER. */
static int control(struct wc_replay *r, const struct wc_rec_header *h, struct deliver_ctx *d)
{
	int err;

	switch (h->type) {
	case WC_REC_STACK:
		return keep_stack(r, (const void *)h);
	case WC_REC_PAYLOAD:
		return keep_payload(r, (const void *)h);
	case WC_REC_ROUND:
		err = wc_reorder_round(r->queue, deliver_fn, d);
		if (d->ops->progress)
			d->ops->progress(d->ctx, wc_source_offset(r->source),
					 wc_source_size(r->source));
		return err;
	case WC_REC_TRAILER: {
		const struct wc_rec_trailer *t = (const void *)h;

		r->stats.end_ns = t->time_ns;
		r->stats.trailer_flags = t->flags;
		return 0;
	}
	}
	return 0; /* a type this version does not know */
}

int wc_replay_run(struct wc_replay *r, const struct wc_replay_ops *ops, void *ctx)
{
	struct deliver_ctx d = { r, ops, ctx };
	const struct wc_rec_header *h;
	int err = 0;

	while (!err && wc_source_next(r->source, &h)) {
		uint32_t flags = wc_rec_type_flags(h->type);

		r->stats.records[h->type < WC_REC_TYPE_COUNT ? h->type : 0]++;
		r->unchecked_bytes += h->size;
		if (r->unchecked_bytes >= MEMORY_CHECK_BYTES && (err = check_memory(r)))
			break;
		if (flags & WC_RECT_QUEUED)
			err = queue_event(r, h);
		else if (flags & WC_RECT_METADATA)
			err = keep_meta(r, h);
		else
			err = control(r, h, &d);
	}
	if (!err)
		err = wc_reorder_flush(r->queue, UINT64_MAX, deliver_fn, &d);
	if (!err && !r->begun) {
		r->begun = true;
		if (ops->begin)
			err = ops->begin(ctx, &r->meta);
	}
	r->stats.state = wc_source_state(r->source);
	r->stats.error_offset = wc_source_error_offset(r->source);
	r->stats.file_size = wc_source_size(r->source);
	return err;
}

static const uint64_t empty_ips[1]; /* what an empty stack or payload points at */

uint32_t wc_replay_stack_ids(const struct wc_replay *r)
{
	return (uint32_t)r->nstacks;
}

const uint64_t *wc_replay_stack(const struct wc_replay *r, uint32_t id, uint32_t *nr)
{
	if (id == WC_STACK_NONE || id >= r->nstacks || !r->stacks[id].defined) {
		*nr = 0;
		return NULL;
	}
	*nr = r->stacks[id].nr;
	/* only empty callchains so far: none stored (no arithmetic on a NULL r->ips) */
	return r->ips ? r->ips + r->stacks[id].off : empty_ips;
}

const void *wc_replay_payload(const struct wc_replay *r, uint32_t id, uint16_t *size)
{
	if (id == WC_PAYLOAD_NONE || id >= r->npayloads || !r->payloads[id].defined) {
		*size = 0;
		return NULL;
	}
	*size = (uint16_t)r->payloads[id].nr;
	return r->bytes ? r->bytes + r->payloads[id].off : (const void *)empty_ips;
}

uint32_t wc_replay_payload_count(const struct wc_replay *r)
{
	return (uint32_t)r->npayloads;
}

const struct wc_replay_meta *wc_replay_meta(const struct wc_replay *r)
{
	return &r->meta;
}

const struct wc_replay_stats *wc_replay_stats(const struct wc_replay *r)
{
	return &r->stats;
}

const char *wc_replay_error(const struct wc_replay *r)
{
	if (r->error[0])
		return r->error;
	return wc_source_error(r->source);
}

bool wc_replay_wall_ns(const struct wc_replay_meta *m, uint64_t time_ns, uint64_t *wall_ns)
{
	if (!m->have_clock)
		return false;
	if (time_ns >= m->clock_ns) {
		if (time_ns - m->clock_ns > UINT64_MAX - m->realtime_ns)
			return false;
		*wall_ns = m->realtime_ns + (time_ns - m->clock_ns);
	} else {
		if (m->clock_ns - time_ns > m->realtime_ns)
			return false;
		*wall_ns = m->realtime_ns - (m->clock_ns - time_ns);
	}
	return true;
}

const struct wc_replay_image *wc_replay_image(const struct wc_replay_meta *m, const char *name)
{
	for (const struct wc_replay_image *im = m->images; im; im = im->older)
		if (!strcmp(im->name, name))
			return im;
	return NULL;
}

const char *wc_replay_note(const struct wc_replay *r, const char *key)
{
	for (size_t i = 0; i < r->meta.nnotes; i++)
		if (strcmp(r->meta.notes[i].key, key) == 0)
			return r->meta.notes[i].value;
	return NULL;
}

int wc_replay_set_symfs(struct wc_replay *r, const char *dir)
{
	return wc_source_set_symfs(r->source, dir);
}

void wc_replay_free(struct wc_replay *r)
{
	if (!r)
		return;
	wc_source_free(r->source);
	if (r->statm_fd >= 0)
		close(r->statm_fd);
	for (size_t i = 0; i < r->meta.nformats; i++) {
		free(r->meta.formats[i].system);
		free(r->meta.formats[i].text);
	}
	free(r->meta.formats);
	for (size_t i = 0; i < r->meta.nnotes; i++) {
		free((char *)r->meta.notes[i].key);
		free((char *)r->meta.notes[i].value);
	}
	free(r->meta.notes);
	while (r->meta.images) {
		struct wc_replay_image *im = r->meta.images;

		r->meta.images = im->older;
		free(im->name);
		free(im->data);
		free(im);
	}
	free(r->meta.kallsyms);
	wc_kallsyms_free(r->meta.ksyms);
	wc_usyms_free(r->meta.usyms);
	free(r->stacks);
	free(r->payloads);
	free(r->ips);
	free(r->bytes);
	wc_reorder_free(r->queue);
	free(r);
}
