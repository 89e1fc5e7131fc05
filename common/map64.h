/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map64.h - an open-addressing hash map from u64 keys to u64 values, for the analyzer's
 * per-tid, per-address and per-stack tables.  Keys are any u64 but WC_MAP64_EMPTY.
 */
#ifndef WC_ANALYZER_MAP64_H
#define WC_ANALYZER_MAP64_H

#include <stddef.h>
#include <stdint.h>

#define WC_MAP64_EMPTY UINT64_MAX /* the one key that cannot be stored */

struct wc_map64 {
	uint64_t *keys;
	uint64_t *values;
	size_t mask;  /* slots - 1; slots is a power of two */
	size_t count; /* keys stored */
};

/* wc_map64_init() - an empty map.  Return: 0 or -ENOMEM. */
int wc_map64_init(struct wc_map64 *m);

/* wc_map64_fini() - free the map's memory; the map may be initialised again. */
void wc_map64_fini(struct wc_map64 *m);

/*
 * wc_map64_get() - the value of @key.
 * Return: a pointer to the value (valid until the next insertion), or NULL when absent.
 */
uint64_t *wc_map64_get(const struct wc_map64 *m, uint64_t key);

/*
 * wc_map64_put() - the value slot of @key, inserted with @init when absent.
 * @inserted: set to 1 when the key was new, else 0 (may be NULL).
 * Return: a pointer to the value (valid until the next insertion), or NULL on ENOMEM.
 */
uint64_t *wc_map64_put(struct wc_map64 *m, uint64_t key, uint64_t init, int *inserted);

/* wc_map64_hash() - the mixing function (splitmix64's finaliser), for callers' own tables. */
static inline uint64_t wc_map64_hash(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#endif /* WC_ANALYZER_MAP64_H */
