/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-perf-tracing.c - perf's tracing data (the TRACING_DATA feature; HEADER_TRACING_DATA
 * in pipe mode): the tracepoint format files of the recording host, as
 * tools/perf/util/trace-event-info.c writes them:
 *
 *   "\027\010\104tracing"  version "0.6\0"  u8 big_endian  u8 long_size  u32 page_size
 *   "header_page\0"  u64 size  text          "header_event\0"  u64 size  text
 *   u32 n  { u64 size  text }*n                                   ftrace's own formats
 *   u32 systems  { "system\0"  u32 n  { u64 size  text }*n }*     the events' formats
 *   u32 size  kallsyms text;  u32 size  printk formats;  (0.6) u64 size  saved cmdlines
 *
 * Each event format becomes a TP_FORMAT record; its "ID: n" line names the tracepoint attrs
 * of that config still unnamed.  Nothing after the event formats is used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/source-perf.h"

#define TRACING_MAGIC "\027\010\104tracing"

/* A cursor over the section; a read past its end sets bad. */
struct cur {
	const uint8_t *d, *end;
	bool bad;
};

static const char *take_str(struct cur *c)
{
	const char *s = (const char *)c->d;
	size_t n = strnlen(s, (size_t)(c->end - c->d));

	if (c->bad || n == (size_t)(c->end - c->d)) {
		c->bad = true;
		return "";
	}
	c->d += n + 1;
	return s;
}

static uint64_t take_n(struct cur *c, size_t bytes)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->d) < bytes) {
		c->bad = true;
		return 0;
	}
	v = bytes == 8 ? pd_u64(c->d) : bytes == 4 ? pd_u32(c->d) : *c->d;
	c->d += bytes;
	return v;
}

/* Skip @len bytes; return where they start (NULL past the end). */
static const uint8_t *take_bytes(struct cur *c, uint64_t len)
{
	const uint8_t *at = c->d;

	if (c->bad || (uint64_t)(c->end - c->d) < len) {
		c->bad = true;
		return NULL;
	}
	c->d += len;
	return at;
}

/* The value of the "ID: " line of a format text of @len bytes, or -1. */
static long long format_id(const char *text, size_t len)
{
	for (size_t i = 0; i + 4 < len; i++)
		if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "ID: ", 4))
			return strtoll(text + i + 4, NULL, 10);
	return -1;
}

/* The "name: " line's value, into @name. */
static void format_name(const char *text, size_t len, char *name, size_t n)
{
	name[0] = 0;
	for (size_t i = 0; i + 6 < len; i++)
		if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "name: ", 6)) {
			const char *s = text + i + 6;
			size_t k = 0;

			while (s + k < text + len && s[k] != '\n' && s[k])
				k++;
			snprintf(name, n, "%.*s", (int)k, s);
			return;
		}
}

/* One event format of @system: a TP_FORMAT record, and the attrs it names. */
static int one_format(struct pd *p, const char *system, const uint8_t *text, uint64_t len)
{
	size_t sl = strlen(system) + 1, tl = strnlen((const char *)text, len);
	struct wc_rec_tp_format *r =
		pd_emit(&p->out, sizeof(*r) + sl + tl + 1, WC_REC_TP_FORMAT, 0);
	long long id = format_id((const char *)text, tl);
	char name[48];

	if (!r)
		return -ENOMEM;
	r->system_len = (uint32_t)sl;
	r->text_len = (uint32_t)(tl + 1);
	memcpy(r->data, system, sl);
	memcpy(r->data + sl, text, tl);
	format_name((const char *)text, tl, name, sizeof(name));
	for (unsigned i = 0; id >= 0 && name[0] && i < p->nattrs; i++) {
		struct pd_attr *a = &p->attrs[i];

		if (a->attr.type == PERF_TYPE_TRACEPOINT && a->attr.config == (uint64_t)id &&
		    !a->name[0])
			snprintf(a->name, sizeof(a->name), "%s:%s", system, name);
	}
	return 0;
}

int pd_tracing_data(struct pd *p, const uint8_t *d, uint64_t len, uint64_t off)
{
	struct cur c = { d, d + len, false };
	uint32_t nsys;
	int err = 0;

	if (len < 10 || memcmp(d, TRACING_MAGIC, 10))
		return pd_fail(p, WC_READER_CORRUPT, off,
			       "perf.data: the tracing data at byte %" PRIu64 " has no magic", off),
		       -EINVAL;
	c.d += 10;
	take_str(&c); /* version */
	if (take_n(&c, 1) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		c.bad = true;
	take_n(&c, 1); /* long size */
	take_n(&c, 4); /* page size */
	for (int i = 0; i < 2 && !c.bad; i++) {
		take_str(&c); /* "header_page", "header_event" */
		take_bytes(&c, take_n(&c, 8));
	}
	for (uint32_t n = (uint32_t)take_n(&c, 4); n && !c.bad; n--)
		take_bytes(&c, take_n(&c, 8));
	nsys = (uint32_t)take_n(&c, 4);
	for (uint32_t s = 0; s < nsys && !c.bad && !err; s++) {
		const char *system = take_str(&c);

		for (uint32_t n = (uint32_t)take_n(&c, 4); n && !c.bad && !err; n--) {
			uint64_t tlen = take_n(&c, 8);
			const uint8_t *text = take_bytes(&c, tlen);

			if (text)
				err = one_format(p, system, text, tlen);
		}
	}
	if (err)
		return err;
	p->have_tracing_data = true;
	if (c.bad)
		return pd_fail(p, WC_READER_CORRUPT, off + (uint64_t)(c.d - d),
			       "perf.data: the tracing data (%" PRIu64 " bytes at byte %" PRIu64
			       ") is cut or damaged near byte %" PRIu64,
			       len, off, off + (uint64_t)(c.d - d)),
		       -EINVAL;
	return 0;
}
