/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tpdecode-fields.c - sched tracepoint payloads decoded by the fields tpdecode.c bound: read
 * with bounds checks; prev_state rendered by the format's own print fmt, once per distinct
 * value, into a small open-addressing cache.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpdecode-priv.h"

static uint64_t get_u(const uint8_t *p, uint32_t size)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		return p[0];
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

static void put_u(uint8_t *p, uint32_t size, uint64_t v)
{
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (size) {
	case 1:
		p[0] = (uint8_t)v;
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* A numeric field, sign-extended when the format says it is signed. */
static int64_t get_num(const struct fref *f, const uint8_t *data)
{
	uint64_t v = get_u(data + f->offset, f->size);

	if (f->is_signed && f->size < 8) {
		uint64_t sign = 1ull << (8 * f->size - 1);

		v = (v ^ sign) - sign;
	}
	return (int64_t)v;
}

static int32_t get_i32(const struct fref *f, const uint8_t *data, int32_t absent)
{
	return f->present ? (int32_t)get_num(f, data) : absent;
}

/* A comm, at most 16 characters, NUL-terminated; the payload holds size bytes. */
static int get_comm(const struct fref *f, const uint8_t *data, size_t size,
		    char out[WC_TP_COMM_BYTES])
{
	size_t off = f->offset, len = f->size, n;

	if (f->dynamic) {
		uint32_t loc = (uint32_t)get_u(data + f->offset, 4);

		off = loc & 0xffffu;
		len = loc >> 16;
		if (f->relative)
			off += (size_t)f->offset + f->size;
		if (off > size || len > size - off)
			return -EINVAL;
	}
	n = strnlen((const char *)data + off,
		    len < WC_TP_COMM_BYTES - 1 ? len : WC_TP_COMM_BYTES - 1);
	memcpy(out, data + off, n);
	out[n] = '\0';
	return 0;
}

static const char *event_str(const struct binding *b, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s", b->event->system, b->event->name);
	return buf;
}

/* Name the first field the payload does not hold. Return: -EINVAL. */
static int short_payload(struct wc_tpdecode *d, const struct binding *b, size_t size)
{
	char ev[128];

	for (size_t i = 0; i < b->nfields; i++) {
		const struct fref *f = &b->f[i];

		if (f->present && (size_t)f->offset + f->size > size) {
			tpd_err(d, "%s: payload of %zu bytes ends before field %s (bytes %u to %u)",
				event_str(b, ev, sizeof(ev)), size, f->name, f->offset,
				f->offset + f->size);
			return -EINVAL;
		}
	}
	tpd_err(d, "%s: payload of %zu bytes is too short", event_str(b, ev, sizeof(ev)), size);
	return -EINVAL;
}

static int bad_string(struct wc_tpdecode *d, const struct binding *b, const struct fref *f,
		      size_t size)
{
	char ev[128];

	tpd_err(d, "%s: string of field %s lies outside the payload of %zu bytes",
		event_str(b, ev, sizeof(ev)), f->name, size);
	return -EINVAL;
}

/* The binding of @event_id for @role, its payload checked for size. */
static int lookup(struct wc_tpdecode *d, uint16_t event_id, enum wc_tp_role role, const void *data,
		  size_t size, struct binding **bp)
{
	struct binding *b = event_id < d->nids ? d->by_id[event_id] : NULL;
	char ev[128];

	if (!b) {
		tpd_err(d, "event id %u is not bound", event_id);
		return -ENOENT;
	}
	if (b->role != role) {
		tpd_err(d, "%s: event id %u is bound as a %s event, not %s",
			event_str(b, ev, sizeof(ev)), event_id, tpd_role_name(b->role),
			tpd_role_name(role));
		return -EINVAL;
	}
	if (!data)
		size = 0;
	if (size < b->need_bytes)
		return short_payload(d, b, size);
	*bp = b;
	return 0;
}

static bool is_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Fill @s from what the print fmt printed (NULL: it could not print). */
static void parse_state(const char *printed, struct state_slot *s)
{
	const char *p = printed ? strstr(printed, STATE_KEY) : NULL;
	size_t n = 0;

	if (p) {
		p += strlen(STATE_KEY);
		n = strcspn(p, " \t\n");
	}
	if (!n) {
		strcpy(s->text, "?");
		s->state = '?';
		s->preempted = false;
		return;
	}
	s->preempted = p[0] == 'R' || memchr(p, '+', n) != NULL;
	s->state = is_letter(p[0]) ? p[0] : '?';
	if (n > WC_TP_STATE_BYTES - 1)
		n = WC_TP_STATE_BYTES - 1;
	memcpy(s->text, p, n);
	s->text[n] = '\0';
}

/*
 * Render @raw with the event's print fmt: a payload that is all zero (empty comms, pid 0)
 * but for common_type and prev_state.  Return: true when the result may be cached.
 */
static bool render_state(struct wc_tpdecode *d, struct binding *b, uint64_t raw,
			 struct state_slot *s)
{
	const struct fref *st = &b->f[SW_PREV_STATE];
	struct tep_record rec;

	s->raw = raw;
	if (!b->can_render) {
		parse_state(NULL, s);
		return true;
	}
	memset(b->scratch, 0, b->scratch_bytes);
	put_u(b->scratch + b->type.offset, b->type.size, (uint64_t)b->event->id);
	put_u(b->scratch + st->offset, st->size, raw);
	memset(&rec, 0, sizeof(rec));
	rec.data = b->scratch;
	rec.size = (int)b->scratch_bytes;
	rec.record_size = rec.size;
	rec.ref_count = 1;
	/* The print machinery finds the event by common_type: make sure it finds this one. */
	if (tep_find_event_by_record(d->tep, &rec) != b->event) {
		parse_state(NULL, s);
		return true;
	}
	trace_seq_reset(&d->seq);
	tep_print_event(d->tep, &d->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&d->seq);
	if (d->seq.state != TRACE_SEQ__GOOD) {
		parse_state(NULL, s);
		tpd_seq_release(&d->seq); /* try a fresh buffer next time */
		trace_seq_init(&d->seq);
		return false;
	}
	parse_state(d->seq.buffer, s);
	return true;
}

static uint32_t slot_hash(uint64_t raw)
{
	return (uint32_t)((raw * 0x9e3779b97f4a7c15ull) >> 32);
}

/* Move the cache to nslots slots. Return: 0 or -ENOMEM (the cache stays as it was). */
static int rehash(struct binding *b, uint32_t nslots)
{
	struct state_slot *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->nslots; i++) {
		uint32_t j;

		if (!b->slots[i].used)
			continue;
		for (j = slot_hash(b->slots[i].raw) & (nslots - 1); slots[j].used;
		     j = (j + 1) & (nslots - 1))
			;
		slots[j] = b->slots[i];
	}
	free(b->slots);
	b->slots = slots;
	b->nslots = nslots;
	return 0;
}

/* The rendering of @raw: from the cache, or made now (in *tmp when it cannot be kept). */
static const struct state_slot *state_of(struct wc_tpdecode *d, struct binding *b, uint64_t raw,
					 struct state_slot *tmp)
{
	uint32_t i = 0;

	if (b->nslots) {
		for (i = slot_hash(raw) & (b->nslots - 1); b->slots[i].used;
		     i = (i + 1) & (b->nslots - 1))
			if (b->slots[i].raw == raw)
				return &b->slots[i];
	}
	if (!render_state(d, b, raw, tmp) || b->nused >= CACHE_MAX_USED)
		return tmp;
	if (4 * (b->nused + 1) > 3 * b->nslots) {
		if (rehash(b, b->nslots ? 2 * b->nslots : CACHE_MIN_SLOTS))
			return tmp;
		for (i = slot_hash(raw) & (b->nslots - 1); b->slots[i].used;
		     i = (i + 1) & (b->nslots - 1))
			;
	}
	b->slots[i] = *tmp;
	b->slots[i].used = true;
	b->nused++;
	return &b->slots[i];
}

int wc_tpdecode_decode_switch(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			      size_t size, struct wc_switch *out)
{
	const struct state_slot *st;
	struct state_slot tmp;
	struct binding *b;
	const uint8_t *p = data;
	int ret = lookup(d, event_id, WC_TP_SWITCH, data, size, &b);

	if (ret)
		return ret;
	if (get_comm(&b->f[SW_PREV_COMM], p, size, out->prev_comm))
		return bad_string(d, b, &b->f[SW_PREV_COMM], size);
	if (get_comm(&b->f[SW_NEXT_COMM], p, size, out->next_comm))
		return bad_string(d, b, &b->f[SW_NEXT_COMM], size);
	out->prev_tid = get_i32(&b->f[SW_PREV_PID], p, -1);
	out->next_tid = get_i32(&b->f[SW_NEXT_PID], p, -1);
	out->prev_prio = get_i32(&b->f[SW_PREV_PRIO], p, -1);
	out->next_prio = get_i32(&b->f[SW_NEXT_PRIO], p, -1);
	out->prev_state_raw = get_u(p + b->f[SW_PREV_STATE].offset, b->f[SW_PREV_STATE].size);
	st = state_of(d, b, out->prev_state_raw, &tmp);
	out->state = st->state;
	out->preempted = st->preempted;
	memcpy(out->state_text, st->text, sizeof(out->state_text));
	return 0;
}

int wc_tpdecode_decode_wakeup(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			      size_t size, struct wc_wakeup *out)
{
	struct binding *b;
	const uint8_t *p = data;
	int ret = lookup(d, event_id, WC_TP_WAKEUP, data, size, &b);

	if (ret)
		return ret;
	if (get_comm(&b->f[WK_COMM], p, size, out->comm))
		return bad_string(d, b, &b->f[WK_COMM], size);
	out->tid = get_i32(&b->f[WK_PID], p, -1);
	out->prio = get_i32(&b->f[WK_PRIO], p, -1);
	out->success = get_i32(&b->f[WK_SUCCESS], p, 1);
	out->target_cpu = get_i32(&b->f[WK_TARGET_CPU], p, -1);
	return 0;
}

int wc_tpdecode_decode_migrate(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			       size_t size, struct wc_migrate *out)
{
	struct binding *b;
	const uint8_t *p = data;
	int ret = lookup(d, event_id, WC_TP_MIGRATE, data, size, &b);

	if (ret)
		return ret;
	if (get_comm(&b->f[MG_COMM], p, size, out->comm))
		return bad_string(d, b, &b->f[MG_COMM], size);
	out->tid = get_i32(&b->f[MG_PID], p, -1);
	out->prio = get_i32(&b->f[MG_PRIO], p, -1);
	out->orig_cpu = get_i32(&b->f[MG_ORIG_CPU], p, -1);
	out->dest_cpu = get_i32(&b->f[MG_DEST_CPU], p, -1);
	return 0;
}

int wc_tpdecode_decode_runtime(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			       size_t size, struct wc_runtime *out)
{
	struct binding *b;
	const uint8_t *p = data;
	int ret = lookup(d, event_id, WC_TP_RUNTIME, data, size, &b);

	if (ret)
		return ret;
	out->tid = get_i32(&b->f[RT_PID], p, -1);
	out->runtime_ns = get_u(p + b->f[RT_RUNTIME].offset, b->f[RT_RUNTIME].size);
	return 0;
}

int wc_tpdecode_decode_stat(struct wc_tpdecode *d, uint16_t event_id, const void *data, size_t size,
			    struct wc_stat *out)
{
	struct binding *b;
	const uint8_t *p = data;
	int ret = lookup(d, event_id, WC_TP_STAT, data, size, &b);

	if (ret)
		return ret;
	out->tid = get_i32(&b->f[ST_PID], p, -1);
	out->delay_ns = get_u(p + b->f[ST_DELAY].offset, b->f[ST_DELAY].size);
	return 0;
}
