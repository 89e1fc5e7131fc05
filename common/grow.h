/* SPDX-License-Identifier: GPL-2.0-or-later */
/* grow.h - growing the analyzer's arrays. */
#ifndef WC_ANALYZER_GROW_H
#define WC_ANALYZER_GROW_H

#include <errno.h>
#include <stdlib.h>

/**
 * wc_grow() - make room for @need elements of @elem bytes in *@p, whose capacity is *@cap
 * elements, doubling from 16; the contents are kept and *@p and *@cap updated.
 * Return: 0, or -ENOMEM with *@p and *@cap unchanged.
 */
static inline int wc_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

#endif /* WC_ANALYZER_GROW_H */
