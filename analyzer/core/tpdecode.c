/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tpdecode.c - sched tracepoint formats through libtraceevent: format texts checked and
 * parsed, the fields of each bound event id looked up once; the payloads are decoded by
 * tpdecode-fields.c.
 */
#include "tpdecode-priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wct.h"
#include "tplint.h"

/* What a role reads, in the order of its indexes (SW_*, WK_*, MG_*, RT_*: tpdecode-priv.h). */
struct want {
	const char *name;
	const char *alt; /* older name of the same field, or NULL */
	enum field_kind kind;
	bool optional;
};

static const struct want switch_wants[SW_COUNT] = {
	[SW_PREV_COMM] = { "prev_comm", NULL, F_STR, false },
	[SW_PREV_PID] = { "prev_pid", NULL, F_NUM, false },
	[SW_PREV_PRIO] = { "prev_prio", NULL, F_NUM, false },
	[SW_PREV_STATE] = { "prev_state", NULL, F_NUM, false },
	[SW_NEXT_COMM] = { "next_comm", NULL, F_STR, false },
	[SW_NEXT_PID] = { "next_pid", NULL, F_NUM, false },
	[SW_NEXT_PRIO] = { "next_prio", NULL, F_NUM, false },
};

static const struct want wakeup_wants[WK_COUNT] = {
	[WK_COMM] = { "comm", NULL, F_STR, false },
	[WK_PID] = { "pid", NULL, F_NUM, false },
	[WK_PRIO] = { "prio", NULL, F_NUM, false },
	[WK_SUCCESS] = { "success", NULL, F_NUM, true },
	[WK_TARGET_CPU] = { "target_cpu", "cpu", F_NUM, true }, /* "cpu" before 2.6.32 */
};

static const struct want migrate_wants[MG_COUNT] = {
	[MG_COMM] = { "comm", NULL, F_STR, false },
	[MG_PID] = { "pid", NULL, F_NUM, false },
	[MG_PRIO] = { "prio", NULL, F_NUM, false },
	[MG_ORIG_CPU] = { "orig_cpu", NULL, F_NUM, false },
	[MG_DEST_CPU] = { "dest_cpu", NULL, F_NUM, false },
};

static const struct want runtime_wants[RT_COUNT] = {
	[RT_PID] = { "pid", NULL, F_NUM, false },
	[RT_RUNTIME] = { "runtime", NULL, F_NUM, false },
};

static const struct want stat_wants[ST_COUNT] = {
	[ST_PID] = { "pid", NULL, F_NUM, false },
	[ST_DELAY] = { "delay", NULL, F_NUM, false },
};

static const struct {
	const char *name;
	const struct want *wants;
	size_t count;
} roles[] = {
	[WC_TP_SWITCH] = { "switch", switch_wants, SW_COUNT },
	[WC_TP_WAKEUP] = { "wakeup", wakeup_wants, WK_COUNT },
	[WC_TP_MIGRATE] = { "migrate", migrate_wants, MG_COUNT },
	[WC_TP_RUNTIME] = { "runtime", runtime_wants, RT_COUNT },
	[WC_TP_STAT] = { "stat", stat_wants, ST_COUNT },
};

void tpd_err(struct wc_tpdecode *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
}

const char *tpd_role_name(enum wc_tp_role role)
{
	return roles[role].name;
}

/* trace_seq_destroy() leaves the buffer alone once a realloc failed: free it either way. */
void tpd_seq_release(struct trace_seq *s)
{
	if (s->state == TRACE_SEQ__GOOD)
		trace_seq_destroy(s);
	else
		free(s->buffer);
	s->buffer = NULL;
}

static void free_binding(struct binding *b)
{
	if (!b)
		return;
	free(b->scratch);
	free(b->slots);
	free(b);
}

struct wc_tpdecode *wc_tpdecode_new(void)
{
	struct wc_tpdecode *d = calloc(1, sizeof(*d));

	if (!d)
		goto out_nomem;
	d->tep = tep_alloc();
	if (!d->tep)
		goto out_free;
	trace_seq_init(&d->seq);
	if (d->seq.state != TRACE_SEQ__GOOD)
		goto out_free_tep;
	return d;

out_free_tep:
	tep_free(d->tep);
out_free:
	free(d);
out_nomem:
	errno = ENOMEM;
	return NULL;
}

void wc_tpdecode_free(struct wc_tpdecode *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->nids; i++)
		free_binding(d->by_id[i]);
	free(d->by_id);
	tpd_seq_release(&d->seq);
	tep_free(d->tep);
	free(d);
}

const char *wc_tpdecode_error(const struct wc_tpdecode *d)
{
	return d->err;
}

int wc_tpdecode_role_of_kind(uint32_t kind)
{
	switch (kind) {
	case WC_EVENT_SWITCH:
		return WC_TP_SWITCH;
	case WC_EVENT_WAKEUP:
	case WC_EVENT_WAKING:
	case WC_EVENT_WAKEUP_NEW:
		return WC_TP_WAKEUP;
	case WC_EVENT_MIGRATE:
		return WC_TP_MIGRATE;
	case WC_EVENT_RUNTIME:
		return WC_TP_RUNTIME;
	case WC_EVENT_STAT_SLEEP:
	case WC_EVENT_STAT_BLOCKED:
	case WC_EVENT_STAT_IOWAIT:
		return WC_TP_STAT;
	default:
		return 0;
	}
}

/*
 * Parse @text into @tep.  libtraceevent keeps an event whose fields or print fmt failed to
 * parse (flagged TEP_EVENT_FL_FAILED, return 0), and on a failed insertion returns an error
 * with *event pointing at freed memory; sort the cases out here.
 */
static int parse_into(struct tep_handle *tep, const char *system, const char *text,
		      struct tep_event **event)
{
	enum tep_errno ret;

	*event = NULL;
	ret = tep_parse_format(tep, event, text, strlen(text), system);
	if (ret != 0) {
		if (*event) {
			*event = NULL;
			return -ENOMEM; /* parsed, then not inserted */
		}
		return -EINVAL;
	}
	return *event ? 0 : -EINVAL;
}

/* The print fmt is usable: it was parsed (the fields were, since they come first). */
static bool print_ok(const struct tep_event *ev)
{
	return !(ev->flags & TEP_EVENT_FL_FAILED);
}

/*
 * libtraceevent 1.7 follows a NULL field when __print_flags() reads a field it did not find:
 * parse the fields alone first (an empty print fmt), then look each REC->NAME up in them.
 * Return: 0, -EINVAL or -ENOMEM.
 */
static int check_refs(struct wc_tpdecode *d, const char *system, const char *text)
{
	static const char empty[] = "\nprint fmt: \"\"\n";
	const char *pf = strstr(text, "\nprint fmt:"), *cursor = NULL, *name;
	struct tep_handle *probe = tep_alloc();
	size_t head = pf ? (size_t)(pf - text) : strlen(text), len;
	char *fields = malloc(head + sizeof(empty)), ref[64];
	struct tep_event *ev = NULL;
	int ret = -ENOMEM;

	if (!probe || !fields) {
		tpd_err(d, "%s: out of memory", system);
		goto out;
	}
	memcpy(fields, text, head);
	memcpy(fields + head, empty, sizeof(empty));
	ret = parse_into(probe, system, fields, &ev);
	if (!ret && !print_ok(ev))
		ret = -EINVAL;
	if (ret) {
		tpd_err(d, "%s: libtraceevent cannot parse the fields of this format", system);
		goto out;
	}
	while ((name = wc_tplint_next_ref(text, &cursor, &len))) {
		if (len < sizeof(ref)) {
			memcpy(ref, name, len);
			ref[len] = '\0';
			if (tep_find_any_field(ev, ref))
				continue;
		}
		tpd_err(d, "%s:%s: the print fmt reads REC->%.*s, which is not a field", system,
			ev->name, (int)len, name);
		ret = -EINVAL;
		break;
	}
out:
	tep_free(probe);
	free(fields);
	return ret;
}

/* May @ev, parsed in a throw-away handle, join d->tep? Return: 0, -EINVAL or -EEXIST. */
static int admit(struct wc_tpdecode *d, const char *system, const struct tep_event *ev)
{
	const struct tep_event *other;

	if (!print_ok(ev) && !ev->print_fmt.format) {
		tpd_err(d, "%s:%s: libtraceevent cannot parse the fields of this format", system,
			ev->name);
		return -EINVAL;
	}
	if (tep_find_event_by_name(d->tep, system, ev->name)) {
		tpd_err(d, "%s:%s: format added twice", system, ev->name);
		return -EEXIST;
	}
	other = tep_get_events_count(d->tep) ? tep_find_event(d->tep, ev->id) : NULL;
	if (other) {
		tpd_err(d, "%s:%s: ID %d is already the ID of %s:%s", system, ev->name, ev->id,
			other->system, other->name);
		return -EEXIST;
	}
	return 0;
}

int wc_tpdecode_add_format(struct wc_tpdecode *d, const char *system, const char *text)
{
	struct tep_handle *probe;
	struct tep_event *ev;
	const char *why;
	int ret;

	if (!system || !*system || !text) {
		tpd_err(d, "add_format: no system name or no format text");
		return -EINVAL;
	}
	why = wc_tplint_format(text);
	if (why) {
		tpd_err(d, "%s: not a format text: %s", system, why);
		return -EINVAL;
	}
	ret = check_refs(d, system, text);
	if (ret)
		return ret;
	/*
	 * Parse into a throw-away handle first: libtraceevent cannot remove an event, and a
	 * refused one must not sit in d->tep, where the print machinery finds events by ID.
	 */
	probe = tep_alloc();
	if (!probe) {
		tpd_err(d, "%s: out of memory", system);
		return -ENOMEM;
	}
	ret = parse_into(probe, system, text, &ev);
	if (ret == -EINVAL)
		tpd_err(d, "%s: libtraceevent cannot parse this format text", system);
	else if (ret)
		tpd_err(d, "%s: out of memory", system);
	else
		ret = admit(d, system, ev);
	tep_free(probe);
	if (ret)
		return ret;

	ret = parse_into(d->tep, system, text, &ev);
	if (ret)
		tpd_err(d, "%s: libtraceevent failed on a second parse (%s)", system,
			ret == -ENOMEM ? "out of memory" : "cannot parse");
	return ret;
}

/* libtraceevent reports no sign for formats older than 2.6.33 (no "signed:"): guess it. */
static bool type_is_signed(const char *type)
{
	if (!type || strstr(type, "unsigned") || !strcmp(type, "bool") || !strcmp(type, "_Bool"))
		return false;
	if (!strncmp(type, "__u", 3) || (type[0] == 'u' && type[1] >= '0' && type[1] <= '9'))
		return false;
	return true;
}

static bool event_has_sign_info(struct tep_event *ev)
{
	for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if (f->flags & TEP_FIELD_IS_SIGNED)
			return true;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (f->flags & TEP_FIELD_IS_SIGNED)
			return true;
	return false;
}

/* Check a field's shape against what the decoder reads. Return: NULL, or why not. */
static const char *take_field(struct tep_format_field *tf, enum field_kind kind, bool sign_info,
			      struct fref *out)
{
	if (tf->offset < 0 || tf->size <= 0 ||
	    (uint64_t)tf->offset + (uint64_t)tf->size > FIELD_END_MAX)
		return "has an impossible offset or size";
	out->name = tf->name;
	out->offset = (uint32_t)tf->offset;
	out->size = (uint32_t)tf->size;
	out->present = true;
	if (kind == F_NUM) {
		if (tf->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
			return "is not a number";
		if (tf->size != 1 && tf->size != 2 && tf->size != 4 && tf->size != 8)
			return "is a number of an unsupported size";
		out->is_signed = sign_info ? (tf->flags & TEP_FIELD_IS_SIGNED) != 0
					   : type_is_signed(tf->type);
		return NULL;
	}
	if (tf->flags & TEP_FIELD_IS_DYNAMIC) {
		if (tf->size != 4)
			return "is a __data_loc string whose locator is not 4 bytes";
		out->dynamic = true;
		out->relative = (tf->flags & TEP_FIELD_IS_RELATIVE) != 0;
		return NULL;
	}
	if (!(tf->flags & TEP_FIELD_IS_ARRAY))
		return "is not a string";
	return NULL;
}

/*
 * Print fmt arguments the decoder lets libtraceevent render: fields it found, literals,
 * casts, operators, __print_flags(), __print_symbolic(), __get_str() - what sched_switch has
 * used since 2.6.32.  Hex dumps, arrays, bitmasks and cpumasks are left out: libtraceevent
 * 1.7 reads them for lengths the format gives without checking them against the record, and
 * follows a NULL field in __get_cpumask().
 */
static bool safe_args(const struct tep_print_arg *a, int depth)
{
	if (depth > 64)
		return false;
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_NULL:
		case TEP_PRINT_ATOM:
		case TEP_PRINT_STRING: /* __get_str(): libtraceevent bounds-checks the locator */
			break;
		case TEP_PRINT_FIELD:
			if (!a->field.field)
				return false;
			break;
		case TEP_PRINT_TYPE:
			if (!safe_args(a->typecast.item, depth + 1))
				return false;
			break;
		case TEP_PRINT_FLAGS:
			if (!a->flags.field || !safe_args(a->flags.field, depth + 1))
				return false;
			break;
		case TEP_PRINT_SYMBOL:
			if (!a->symbol.field || !safe_args(a->symbol.field, depth + 1))
				return false;
			break;
		case TEP_PRINT_OP:
			if (!safe_args(a->op.left, depth + 1) || !safe_args(a->op.right, depth + 1))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Get the synthetic payload ready: the whole record layout, zeroed, common_type set later. */
static int prepare_render(struct binding *b)
{
	struct tep_event *ev = b->event;
	struct tep_format_field *type = tep_find_common_field(ev, "common_type");
	uint64_t end = 0;

	if (!print_ok(ev) || !safe_args(ev->print_fmt.args, 0) || !type || type->offset < 0 ||
	    (type->size != 1 && type->size != 2 && type->size != 4 && type->size != 8))
		return 0; /* can_render stays false: states decode as '?' */
	for (int pass = 0; pass < 2; pass++) {
		struct tep_format_field *f = pass ? ev->format.fields : ev->format.common_fields;

		for (; f; f = f->next) {
			if (f->offset < 0 || f->size < 0)
				return 0;
			/* libtraceevent loads 2- and 4-byte numbers (and locators) in place */
			if ((f->size == 2 || f->size == 4) && f->offset % f->size &&
			    !(f->flags & TEP_FIELD_IS_ARRAY))
				return 0;
			if ((uint64_t)f->offset + (uint64_t)f->size > end)
				end = (uint64_t)f->offset + (uint64_t)f->size;
		}
	}
	if (end > FIELD_END_MAX)
		return 0;
	b->scratch_bytes = (uint32_t)end;
	b->scratch = calloc(1, end ? end : 1);
	if (!b->scratch)
		return -ENOMEM;
	b->type.offset = (uint32_t)type->offset;
	b->type.size = (uint32_t)type->size;
	b->can_render = true;
	return 0;
}

static int grow_ids(struct wc_tpdecode *d, uint16_t event_id)
{
	uint32_t n = (uint32_t)event_id + 1;
	struct binding **by_id;

	if (n <= d->nids)
		return 0;
	if (n < 2 * d->nids)
		n = 2 * d->nids < 65536u ? 2 * d->nids : 65536u;
	by_id = realloc(d->by_id, n * sizeof(*by_id));
	if (!by_id)
		return -ENOMEM;
	memset(by_id + d->nids, 0, (n - d->nids) * sizeof(*by_id));
	d->by_id = by_id;
	d->nids = n;
	return 0;
}

int wc_tpdecode_bind(struct wc_tpdecode *d, uint16_t event_id, const char *event_name,
		     enum wc_tp_role role)
{
	const char *colon = event_name ? strchr(event_name, ':') : NULL;
	struct binding *b = NULL;
	struct tep_event *ev;
	char *system = NULL;
	bool sign_info;
	int ret;

	if (!colon || colon == event_name || !colon[1]) {
		tpd_err(d, "event id %u: \"%s\" is not system:name", event_id,
			event_name ? event_name : "(null)");
		return -EINVAL;
	}
	if ((int)role < WC_TP_SWITCH || (int)role > WC_TP_STAT || !roles[role].wants) {
		tpd_err(d, "%s: unknown role %d", event_name, (int)role);
		return -EINVAL;
	}
	if (event_id < d->nids && d->by_id[event_id]) {
		tpd_err(d, "%s: event id %u is bound already, to %s:%s", event_name, event_id,
			d->by_id[event_id]->event->system, d->by_id[event_id]->event->name);
		return -EEXIST;
	}
	system = strndup(event_name, (size_t)(colon - event_name));
	if (!system)
		goto out_nomem;
	ev = tep_find_event_by_name(d->tep, system, colon + 1);
	if (!ev) {
		tpd_err(d, "%s: no format", event_name);
		ret = -ENOENT;
		goto out_free;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		goto out_nomem;
	b->role = role;
	b->event = ev;
	b->nfields = roles[role].count;
	sign_info = event_has_sign_info(ev);
	for (size_t i = 0; i < b->nfields; i++) {
		const struct want *w = &roles[role].wants[i];
		struct tep_format_field *tf = tep_find_field(ev, w->name);
		const char *why;
		uint32_t end;

		if (!tf && w->alt)
			tf = tep_find_field(ev, w->alt);
		if (!tf) {
			if (w->optional)
				continue;
			tpd_err(d, "%s: no field %s", event_name, w->name);
			ret = -EINVAL;
			goto out_free;
		}
		why = take_field(tf, w->kind, sign_info, &b->f[i]);
		if (why) {
			tpd_err(d, "%s: field %s %s", event_name, tf->name, why);
			ret = -EINVAL;
			goto out_free;
		}
		end = b->f[i].offset + b->f[i].size;
		if (end > b->need_bytes)
			b->need_bytes = end;
	}
	if (role == WC_TP_SWITCH && prepare_render(b))
		goto out_nomem;
	if (grow_ids(d, event_id))
		goto out_nomem;
	d->by_id[event_id] = b;
	free(system);
	return 0;

out_nomem:
	tpd_err(d, "%s: out of memory", event_name);
	ret = -ENOMEM;
out_free:
	free_binding(b);
	free(system);
	return ret;
}
