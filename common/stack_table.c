/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_table.c - open-addressing hash index over callchains kept in an append-only arena.
 */
#include "stack_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#define MIN_BYTES     (64u << 10)
#define INITIAL_SLOTS 1024u /* a power of two */
#define CHUNK_BYTES   (1u << 20)

struct slot {
	uint64_t hash; /* 0: empty */
	uint32_t id;
	uint32_t nr;
	const uint64_t *ips; /* in the arena */
};

struct chunk {
	struct chunk *next;
	size_t used, cap; /* bytes of data[] */
	uint64_t data[];
};

struct wc_stack_table {
	size_t max_bytes;
	struct slot *slots;
	size_t nslots, nused;
	struct chunk *chunks; /* newest first */
	size_t bytes;	      /* slots and chunks */
	uint32_t next_id;
	struct wc_stack_table_stats stats;
};

static void drop_chunks(struct wc_stack_table *t)
{
	while (t->chunks) {
		struct chunk *c = t->chunks;

		t->chunks = c->next;
		free(c);
	}
}

static int reset(struct wc_stack_table *t, size_t nslots)
{
	struct slot *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	drop_chunks(t);
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	t->nused = 0;
	t->bytes = nslots * sizeof(*slots);
	return 0;
}

struct wc_stack_table *wc_stack_table_new(size_t max_bytes)
{
	struct wc_stack_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max_bytes = max_bytes ? max_bytes : WC_STACK_TABLE_DEFAULT_BYTES;
	if (t->max_bytes < MIN_BYTES)
		t->max_bytes = MIN_BYTES;
	t->next_id = 1;
	if (reset(t, INITIAL_SLOTS)) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

static uint64_t hash_ips(const uint64_t *ips, uint32_t nr)
{
	uint64_t h = XXH3_64bits(ips, (size_t)nr * 8u);

	return h ? h : 1; /* 0 marks an empty slot */
}

static struct slot *find(struct wc_stack_table *t, uint64_t hash, const uint64_t *ips, uint32_t nr)
{
	size_t mask = t->nslots - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct slot *s = &t->slots[i];

		if (!s->hash)
			return s;
		if (s->hash == hash && s->nr == nr && !memcmp(s->ips, ips, (size_t)nr * 8u))
			return s;
	}
}

static int grow(struct wc_stack_table *t)
{
	size_t nslots = t->nslots * 2;
	struct slot *old = t->slots, *slots;
	size_t oldn = t->nslots;

	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	t->nslots = nslots;
	for (size_t i = 0; i < oldn; i++) {
		if (old[i].hash)
			*find(t, old[i].hash, old[i].ips, old[i].nr) = old[i];
	}
	free(old);
	t->bytes += (nslots - oldn) * sizeof(*slots);
	return 0;
}

/* Arena chunks are 1 MiB, or a sixteenth of a small bound. */
static size_t chunk_bytes(const struct wc_stack_table *t)
{
	return t->max_bytes / 16 < CHUNK_BYTES ? t->max_bytes / 16 : CHUNK_BYTES;
}

static const uint64_t *keep(struct wc_stack_table *t, const uint64_t *ips, uint32_t nr)
{
	size_t need = (size_t)nr * 8u;
	struct chunk *c = t->chunks;
	uint64_t *dst;

	if (!c || c->cap - c->used < need) {
		size_t cap = need > chunk_bytes(t) ? need : chunk_bytes(t);

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = t->chunks;
		t->chunks = c;
		t->bytes += sizeof(*c) + cap;
	}
	dst = c->data + c->used / 8;
	memcpy(dst, ips, need);
	c->used += need;
	return dst;
}

int wc_stack_table_add(struct wc_stack_table *t, const uint64_t *ips, uint32_t nr, uint32_t *id,
		       bool *is_new)
{
	static const uint64_t none[1];
	uint64_t hash;
	struct slot *s;
	size_t need;
	int err;

	if (!nr)
		ips = none; /* memcmp and memcpy want a pointer even for 0 bytes */
	hash = hash_ips(ips, nr);

	t->stats.lookups++;
	s = find(t, hash, ips, nr);
	if (s->hash) {
		*id = s->id;
		*is_new = false;
		return 0;
	}
	if (t->next_id == UINT32_MAX)
		return -EOVERFLOW;

	/* what this addition may allocate: a new chunk, and the index doubling */
	need = 0;
	if (!t->chunks || t->chunks->cap - t->chunks->used < (size_t)nr * 8u)
		need += sizeof(struct chunk) + (size_t)nr * 8u + chunk_bytes(t);
	if ((t->nused + 1) * 4 > t->nslots * 3)
		need += t->nslots * sizeof(struct slot) * 2;
	if (t->bytes + need > t->max_bytes) {
		if (INITIAL_SLOTS * sizeof(struct slot) + need > t->max_bytes)
			return -E2BIG;
		err = reset(t, INITIAL_SLOTS);
		if (err)
			return err;
		t->stats.resets++;
		s = find(t, hash, ips, nr);
	}
	if ((t->nused + 1) * 4 > t->nslots * 3) {
		err = grow(t);
		if (err)
			return err;
		s = find(t, hash, ips, nr);
	}
	s->ips = keep(t, ips, nr);
	if (!s->ips && nr)
		return -ENOMEM;
	s->hash = hash;
	s->nr = nr;
	s->id = t->next_id++;
	t->nused++;
	t->stats.distinct++;
	*id = s->id;
	*is_new = true;
	return 0;
}

void wc_stack_table_stats(const struct wc_stack_table *t, struct wc_stack_table_stats *stats)
{
	*stats = t->stats;
	stats->bytes = t->bytes;
}

void wc_stack_table_free(struct wc_stack_table *t)
{
	if (!t)
		return;
	drop_chunks(t);
	free(t->slots);
	free(t);
}
