/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sample.c - see sample.h. */
#include "recorder/sample.h"

#include <string.h>

#define BASE_BYTES 40 /* identifier, pid/tid, time, cpu/res, period */

/* Take @n bytes at *@p into @dst if they lie before @end.  Return: whether they did. */
static bool take(const uint8_t **p, const uint8_t *end, void *dst, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(dst, *p, n);
	*p += n;
	return true;
}

/* The user registers and stack copy at @p (parse_sample()); false where they overran @end. */
static bool parse_user(const uint8_t *p, const uint8_t *end, uint64_t sample_type,
		       struct wc_sample_view *s)
{
	if (sample_type & PERF_SAMPLE_REGS_USER) {
		if (!take(&p, end, &s->regs_abi, 8) ||
		    (s->regs_abi && !take(&p, end, s->regs, sizeof(s->regs)))) {
			s->regs_abi = PERF_SAMPLE_REGS_ABI_NONE;
			return false;
		}
	}
	if (sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn_size = 0;

		if (!take(&p, end, &size, 8) || size > (uint64_t)(end - p))
			return false;
		s->stack = p;
		p += size;
		if (size && (!take(&p, end, &dyn_size, 8) || dyn_size > size))
			return false;
		s->stack_size = dyn_size;
	}
	return true;
}

bool wc_sample_parse(const struct perf_event_header *h, uint64_t sample_type,
		     struct wc_sample_view *s)
{
	const uint8_t *p = (const uint8_t *)(h + 1), *end = (const uint8_t *)h + h->size;
	uint32_t res;

	memset(s, 0, sizeof(*s));
	if (h->size < sizeof(*h) + BASE_BYTES)
		return false;
	take(&p, end, &s->identifier, 8);
	take(&p, end, &s->pid, 4);
	take(&p, end, &s->tid, 4);
	take(&p, end, &s->time, 8);
	take(&p, end, &s->cpu, 4);
	take(&p, end, &res, 4);
	take(&p, end, &s->period, 8);
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (!take(&p, end, &s->nr, 8) || s->nr > (uint64_t)(end - p) / 8)
			return false;
		s->ips = (const uint64_t *)(const void *)p;
		p += s->nr * 8;
	}
	if (sample_type & PERF_SAMPLE_RAW) {
		if (!take(&p, end, &s->raw_size, 4) || s->raw_size > (uint64_t)(end - p))
			return false;
		s->raw = p;
		p += s->raw_size;
	}
	if (!parse_user(p, end, sample_type, s)) {
		s->stack = NULL;
		s->stack_size = 0;
		s->bad_copy = (sample_type & PERF_SAMPLE_STACK_USER) != 0;
	}
	return true;
}
