/* SPDX-License-Identifier: GPL-2.0-or-later */
/* callchain.c - see callchain.h. */
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/callchain.h"
#include "common/wct.h"

void wc_callchain_split(const uint64_t *ips, uint32_t nr, struct wc_callchain *cc)
{
	uint64_t ctx = PERF_CONTEXT_KERNEL;

	memset(cc, 0, sizeof(*cc));
	for (uint32_t i = 0; i < nr; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX && !WC_CONTEXT_IS_END(ips[i])) {
			ctx = ips[i];
			if (ctx == PERF_CONTEXT_KERNEL && !cc->nkernel)
				cc->kernel = ips + i + 1;
			else if (ctx == PERF_CONTEXT_USER && !cc->nuser)
				cc->user = ips + i + 1;
			continue;
		}
		if (ctx == PERF_CONTEXT_KERNEL) {
			if (!cc->kernel)
				cc->kernel = ips + i;
			cc->nkernel = (uint32_t)(ips + i + 1 - cc->kernel);
		} else if (ctx == PERF_CONTEXT_USER) {
			if (cc->nuser && WC_CONTEXT_IS_END(cc->user[cc->nuser - 1]))
				continue; /* the marker ends the part */
			if (!cc->user)
				cc->user = ips + i;
			cc->nuser = (uint32_t)(ips + i + 1 - cc->user);
		}
	}
}

enum wc_user_stack wc_callchain_user_kind(const uint64_t *ips, uint32_t nr)
{
	struct wc_callchain cc;
	uint64_t last;

	wc_callchain_split(ips, nr, &cc);
	if (!cc.nuser)
		return WC_USER_NONE;
	last = cc.user[cc.nuser - 1];
	return last == WC_CONTEXT_TRUNCATED	  ? WC_USER_TRUNCATED
	       : last == WC_CONTEXT_UNWIND_FAILED ? WC_USER_FAILED
						  : WC_USER_WHOLE;
}

static bool grow(struct wc_strbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *q;

	if (b->len + need + 1 <= b->cap)
		return true;
	while (cap < b->len + need + 1)
		cap *= 2;
	q = realloc(b->s, cap);
	if (!q) {
		b->oom = true;
		return false;
	}
	if (!b->s)
		q[0] = 0;
	b->s = q;
	b->cap = cap;
	return true;
}

void wc_strbuf_put(struct wc_strbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (!grow(b, n))
		return;
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void wc_strbuf_putf(struct wc_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void wc_strbuf_reset(struct wc_strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

void wc_strbuf_fini(struct wc_strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
