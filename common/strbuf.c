/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strbuf.c - see strbuf.h. */
#include "common/strbuf.h"

#include <stdlib.h>
#include <string.h>

uint32_t wc_strbuf_add(struct wc_strbuf *b, const char *s, size_t n)
{
	uint32_t off = (uint32_t)b->len;

	if (b->len + n + 1 >= WC_STRBUF_FAIL)
		return WC_STRBUF_FAIL;
	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * b->cap > b->len + n + 1 ? 2 * b->cap : b->len + n + 4096;
		char *p = realloc(b->p, cap);

		if (!p)
			return WC_STRBUF_FAIL;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->p[b->len + n] = '\0';
	b->len += n + 1;
	return off;
}
