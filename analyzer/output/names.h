/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.h - interned strings: each distinct string stored once and named by a dense id
 * (0, 1, 2, ... in the order they were first seen), so that frames compare by id.
 *   in   strings (bytes and a length; no NUL needed), copied;
 *   out  ids, and each id's string, NUL-terminated, owned by the table, valid until
 *        wc_names_fini() (not moved when the table grows).
 */
#ifndef WC_ANALYZER_NAMES_H
#define WC_ANALYZER_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct wc_names {
	char **v; /* by id */
	size_t n, cap;
	uint32_t *slots; /* open addressing: id + 1, 0 empty */
	size_t nslots;	 /* a power of two, more than twice n */
};

/**
 * wc_names_intern() - the id of @s (@len bytes), added when new
 * Return: the id, or -ENOMEM (-EOVERFLOW past 2^32 - 2 names).
 */
int64_t wc_names_intern(struct wc_names *nm, const char *s, size_t len);

/* wc_names_get() - the string of @id (< nm->n). */
static inline const char *wc_names_get(const struct wc_names *nm, uint32_t id)
{
	return nm->v[id];
}

/* wc_names_fini() - free the strings and the table; a zeroed table is a no-op. */
void wc_names_fini(struct wc_names *nm);

#endif /* WC_ANALYZER_NAMES_H */
