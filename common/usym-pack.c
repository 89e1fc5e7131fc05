/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usym-pack.c - see usym-pack.h. */
#include "common/usym-pack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/wct.h"

size_t wc_uleb_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

int wc_uleb_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	for (unsigned shift = 0; q < end && shift < 7 * WC_ULEB_MAX; shift += 7) {
		uint8_t b = *q++;

		/* the tenth byte holds bit 63 alone */
		if (shift == 63 && b > 1)
			return -EINVAL;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*v = x;
			return 0;
		}
	}
	return -EINVAL;
}

int wc_usym_history_add(struct wc_usym_history *h, const char *names, size_t n)
{
	size_t keep = h->len;

	/* drop all but the prefix's bytes once there are twice as many */
	if (h->len + n > 2 * WC_USYM_PREFIX_MAX && h->len > WC_USYM_PREFIX_MAX) {
		keep = WC_USYM_PREFIX_MAX;
		memmove(h->p, h->p + h->len - keep, keep);
		h->len = keep;
	}
	if (keep + n > h->cap) {
		size_t cap = keep + n > 2 * WC_USYM_PREFIX_MAX ? keep + n : 2 * WC_USYM_PREFIX_MAX;
		char *q = realloc(h->p, cap);

		if (!q)
			return -ENOMEM;
		h->p = q;
		h->cap = cap;
	}
	if (n)
		memcpy(h->p + h->len, names, n);
	h->len += n;
	return 0;
}

const char *wc_usym_history_prefix(const struct wc_usym_history *h, size_t *len)
{
	size_t n = h->len < WC_USYM_PREFIX_MAX ? h->len : WC_USYM_PREFIX_MAX;

	*len = n;
	return n ? h->p + h->len - n : NULL;
}

void wc_usym_history_fini(struct wc_usym_history *h)
{
	free(h->p);
	*h = (struct wc_usym_history){ NULL, 0, 0 };
}
