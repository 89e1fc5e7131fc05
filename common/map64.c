/* SPDX-License-Identifier: GPL-2.0-or-later */
/* map64.c - see map64.h.  Linear probing, grown to keep the load under one half. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/map64.h"

static int alloc_slots(struct wc_map64 *m, size_t slots)
{
	m->keys = malloc(slots * sizeof(*m->keys));
	m->values = malloc(slots * sizeof(*m->values));
	if (!m->keys || !m->values) {
		free(m->keys);
		free(m->values);
		m->keys = m->values = NULL;
		return -ENOMEM;
	}
	memset(m->keys, 0xff, slots * sizeof(*m->keys)); /* all WC_MAP64_EMPTY */
	m->mask = slots - 1;
	m->count = 0;
	return 0;
}

int wc_map64_init(struct wc_map64 *m)
{
	return alloc_slots(m, 64);
}

void wc_map64_fini(struct wc_map64 *m)
{
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

uint64_t *wc_map64_get(const struct wc_map64 *m, uint64_t key)
{
	if (!m->keys)
		return NULL;
	for (size_t i = wc_map64_hash(key) & m->mask;; i = (i + 1) & m->mask) {
		if (m->keys[i] == key)
			return &m->values[i];
		if (m->keys[i] == WC_MAP64_EMPTY)
			return NULL;
	}
}

static int grow(struct wc_map64 *m)
{
	struct wc_map64 old = *m;

	if (alloc_slots(m, (old.mask + 1) * 2)) {
		*m = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i <= old.mask; i++) {
		if (old.keys[i] == WC_MAP64_EMPTY)
			continue;
		size_t j = wc_map64_hash(old.keys[i]) & m->mask;

		while (m->keys[j] != WC_MAP64_EMPTY)
			j = (j + 1) & m->mask;
		m->keys[j] = old.keys[i];
		m->values[j] = old.values[i];
		m->count++;
	}
	free(old.keys);
	free(old.values);
	return 0;
}

uint64_t *wc_map64_put(struct wc_map64 *m, uint64_t key, uint64_t init, int *inserted)
{
	size_t i;

	if (inserted)
		*inserted = 0;
	if (key == WC_MAP64_EMPTY || (!m->keys && alloc_slots(m, 64)))
		return NULL;
	for (i = wc_map64_hash(key) & m->mask;; i = (i + 1) & m->mask) {
		if (m->keys[i] == key)
			return &m->values[i];
		if (m->keys[i] == WC_MAP64_EMPTY)
			break;
	}
	if ((m->count + 1) * 2 > m->mask + 1) {
		if (grow(m))
			return NULL;
		for (i = wc_map64_hash(key) & m->mask; m->keys[i] != WC_MAP64_EMPTY;
		     i = (i + 1) & m->mask)
			;
	}
	m->keys[i] = key;
	m->values[i] = init;
	m->count++;
	if (inserted)
		*inserted = 1;
	return &m->values[i];
}
