/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reorder.c - see reorder.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "analyzer/core/reorder.h"

struct qent {
	uint64_t time, seq;
	size_t off; /* bytes into the arena */
};

struct wc_reorder {
	struct qent *q, *qtmp;
	size_t nq, q_cap, qtmp_cap;
	uint8_t *arena, *arena2; /* the queued records; the second one for compaction */
	size_t arena_used, arena_cap, arena2_cap;
	uint64_t seq, max_time, round_limit, last_out; /* times in ns */
	bool delivered_any;
	uint64_t late;
};

struct wc_reorder *wc_reorder_new(void)
{
	return calloc(1, sizeof(struct wc_reorder));
}

static inline bool qless(const struct qent *x, const struct qent *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/*
 * Sort q[0..n) by (time, seq) with a natural merge sort: the queue is a few runs already in
 * order (each CPU's ring is in time order, and a pass appends one run per CPU), so merging
 * runs costs about n per level and there are few levels.  @tmp holds n entries.
 */
static void sort_queue(struct qent *q, struct qent *tmp, size_t n)
{
	while (n > 1) {
		size_t i = 0, out = 0, runs = 0;

		while (i < n) {
			size_t a = i, b, e;

			for (b = a + 1; b < n && !qless(&q[b], &q[b - 1]); b++)
				;
			for (e = b; e < n && (e == b || !qless(&q[e], &q[e - 1])); e++)
				;
			size_t x = a, y = b;

			while (x < b && y < e)
				tmp[out++] = qless(&q[y], &q[x]) ? q[y++] : q[x++];
			while (x < b)
				tmp[out++] = q[x++];
			while (y < e)
				tmp[out++] = q[y++];
			i = e;
			runs++;
		}
		memcpy(q, tmp, n * sizeof(*q));
		if (runs == 1)
			break;
	}
}

/* Move the records from q[from] on to the second arena, then swap the arenas. */
static int compact(struct wc_reorder *q, size_t from)
{
	size_t keep = 0, used = 0;

	if (wc_grow((void **)&q->arena2, &q->arena2_cap, q->arena_used, 1))
		return -ENOMEM;
	for (size_t i = from; i < q->nq; i++) {
		const struct wc_rec_header *h = (const void *)(q->arena + q->q[i].off);

		memcpy(q->arena2 + used, h, h->size);
		q->q[keep] = q->q[i];
		q->q[keep++].off = used;
		used += h->size;
	}
	uint8_t *t = q->arena;
	size_t tc = q->arena_cap;

	q->arena = q->arena2;
	q->arena_cap = q->arena2_cap;
	q->arena2 = t;
	q->arena2_cap = tc;
	q->arena_used = used;
	q->nq = keep;
	return 0;
}

int wc_reorder_flush(struct wc_reorder *q, uint64_t limit_ns, wc_reorder_fn fn, void *ctx)
{
	size_t i;
	int err;

	if (!q->nq)
		return 0;
	if (wc_grow((void **)&q->qtmp, &q->qtmp_cap, q->nq, sizeof(*q->qtmp)))
		return -ENOMEM;
	sort_queue(q->q, q->qtmp, q->nq);
	for (i = 0; i < q->nq && q->q[i].time <= limit_ns; i++) {
		q->delivered_any = true;
		q->last_out = q->q[i].time;
		err = fn(ctx, (const void *)(q->arena + q->q[i].off), q->q[i].time);
		if (err)
			return err;
	}
	if (i == q->nq) {
		q->nq = 0;
		q->arena_used = 0;
		return 0;
	}
	return compact(q, i);
}

int wc_reorder_round(struct wc_reorder *q, wc_reorder_fn fn, void *ctx)
{
	int err = wc_reorder_flush(q, q->round_limit, fn, ctx);

	q->round_limit = q->max_time;
	return err;
}

int wc_reorder_push(struct wc_reorder *q, const struct wc_rec_header *rec, uint64_t time_ns)
{
	if (q->delivered_any && time_ns < q->last_out) {
		q->late++;
		return 1;
	}
	if (wc_grow((void **)&q->q, &q->q_cap, q->nq + 1, sizeof(*q->q)) ||
	    wc_grow((void **)&q->arena, &q->arena_cap, q->arena_used + rec->size, 1))
		return -ENOMEM;
	memcpy(q->arena + q->arena_used, rec, rec->size);
	q->q[q->nq++] = (struct qent){ time_ns, q->seq++, q->arena_used };
	q->arena_used += rec->size;
	if (time_ns > q->max_time)
		q->max_time = time_ns;
	return 0;
}

uint64_t wc_reorder_late(const struct wc_reorder *q)
{
	return q->late;
}

void wc_reorder_free(struct wc_reorder *q)
{
	if (!q)
		return;
	free(q->q);
	free(q->qtmp);
	free(q->arena);
	free(q->arena2);
	free(q);
}
