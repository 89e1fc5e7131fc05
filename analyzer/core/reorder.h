/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reorder.h - the reorder queue: timed records in, the same records out in time order.
 *
 * As perf's ordered-events.c: the recorder writes a ROUND after each pass over all CPUs, and
 * at a ROUND every queued record not later than the newest time seen at the ROUND before is
 * handed out, sorted by time (ties in push order).  The queue thus holds about two passes
 * of records.  A record older than one already handed out is late: it is counted and
 * dropped.  The queue copies what is pushed; records handed out are borrowed for the
 * duration of the callback.
 */
#ifndef WC_ANALYZER_REORDER_H
#define WC_ANALYZER_REORDER_H

#include <stdint.h>

#include "common/wct.h"

struct wc_reorder;

/*
 * The receiver of wc_reorder_round() and wc_reorder_flush(): @rec is borrowed for the call,
 * @time_ns its time.  A non-zero return stops the flush and is returned by it.
 */
typedef int (*wc_reorder_fn)(void *ctx, const struct wc_rec_header *rec, uint64_t time_ns);

/** wc_reorder_new() - an empty queue.  Return: the queue, or NULL with errno ENOMEM. */
struct wc_reorder *wc_reorder_new(void);

/**
 * wc_reorder_push() - queue a copy of @rec (h->size bytes) at @time_ns
 * Return: 0 queued, 1 late (older than a record already handed out: dropped and counted),
 * or -ENOMEM (nothing queued).
 */
int wc_reorder_push(struct wc_reorder *q, const struct wc_rec_header *rec, uint64_t time_ns);

/**
 * wc_reorder_round() - a ROUND: hand @fn every record not later than the newest time
 * pushed before the previous ROUND, in time order, and remember the newest time so far
 * Return: 0, -ENOMEM, or the first non-zero return of @fn.
 */
int wc_reorder_round(struct wc_reorder *q, wc_reorder_fn fn, void *ctx);

/**
 * wc_reorder_flush() - hand @fn every queued record with time <= @limit_ns, in time order
 * (UINT64_MAX: all of them, at the end of the input)
 * Return: 0, -ENOMEM, or the first non-zero return of @fn.
 */
int wc_reorder_flush(struct wc_reorder *q, uint64_t limit_ns, wc_reorder_fn fn, void *ctx);

/* wc_reorder_late() - records dropped so far for being late. */
uint64_t wc_reorder_late(const struct wc_reorder *q);

/* wc_reorder_free() - free the queue and the records it holds; NULL is a no-op. */
void wc_reorder_free(struct wc_reorder *q);

#endif /* WC_ANALYZER_REORDER_H */
