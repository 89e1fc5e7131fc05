/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.c - see names.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/map64.h"
#include "analyzer/output/names.h"

static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then mixed */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return wc_map64_hash(h);
}

static int rehash(struct wc_names *nm)
{
	size_t n = nm->nslots ? nm->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < nm->n; i++) {
		size_t at = hash_str(nm->v[i], strlen(nm->v[i])) & (n - 1);

		while (slots[at])
			at = (at + 1) & (n - 1);
		slots[at] = (uint32_t)i + 1;
	}
	free(nm->slots);
	nm->slots = slots;
	nm->nslots = n;
	return 0;
}

int64_t wc_names_intern(struct wc_names *nm, const char *s, size_t len)
{
	size_t at;

	if ((nm->n + 1) * 2 > nm->nslots && rehash(nm))
		return -ENOMEM;
	for (at = hash_str(s, len) & (nm->nslots - 1); nm->slots[at];
	     at = (at + 1) & (nm->nslots - 1)) {
		const char *t = nm->v[nm->slots[at] - 1];

		if (strncmp(t, s, len) == 0 && t[len] == 0)
			return nm->slots[at] - 1;
	}
	if (nm->n >= UINT32_MAX - 2)
		return -EOVERFLOW;
	if (wc_grow((void **)&nm->v, &nm->cap, nm->n + 1, sizeof(*nm->v)))
		return -ENOMEM;
	nm->v[nm->n] = strndup(s, len);
	if (!nm->v[nm->n])
		return -ENOMEM;
	nm->slots[at] = (uint32_t)++nm->n;
	return (int64_t)nm->n - 1;
}

void wc_names_fini(struct wc_names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	free(nm->slots);
	memset(nm, 0, sizeof(*nm));
}
