/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-reorder.c - the reorder queue: records out in time order within rounds, ties in push
 * order, late ones dropped and counted, the copies intact across compactions.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "analyzer/core/reorder.h"

/* a timed record of 24 bytes: header, time, and a tag to tell ties apart */
struct rec {
	struct wc_rec_header h;
	uint64_t time_ns;
	uint64_t tag;
};

static struct wc_reorder *q;
static uint64_t out_time[64], out_tag[64];
static size_t nout;

static void init(void)
{
	q = wc_reorder_new();
	cr_assert_not_null(q);
	nout = 0;
}

static void fini(void)
{
	wc_reorder_free(q);
	q = NULL;
}

TestSuite(reorder, .init = init, .fini = fini);

static int take(void *ctx, const struct wc_rec_header *h, uint64_t time_ns)
{
	const struct rec *r = (const void *)h;

	(void)ctx;
	cr_assert_eq(h->size, sizeof(struct rec));
	cr_assert_eq(r->time_ns, time_ns);
	cr_assert_lt(nout, 64);
	out_time[nout] = time_ns;
	out_tag[nout++] = r->tag;
	return 0;
}

static int push(uint64_t time_ns, uint64_t tag)
{
	struct rec r = { { sizeof(r), WC_REC_SAMPLE, WC_REC_F_TIME }, time_ns, tag };

	return wc_reorder_push(q, &r.h, time_ns);
}

Test(reorder, flush_sorts_with_ties_in_push_order)
{
	uint64_t times[] = { 30, 10, 20, 10, 40, 20 };

	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(push(times[i], i), 0);
	cr_assert_eq(wc_reorder_flush(q, UINT64_MAX, take, NULL), 0);
	cr_assert_eq(nout, 6);
	uint64_t want_time[] = { 10, 10, 20, 20, 30, 40 }, want_tag[] = { 1, 3, 2, 5, 0, 4 };

	for (size_t i = 0; i < 6; i++) {
		cr_expect_eq(out_time[i], want_time[i], "at %zu", i);
		cr_expect_eq(out_tag[i], want_tag[i], "at %zu", i);
	}
}

Test(reorder, a_round_hands_out_up_to_the_previous_rounds_newest)
{
	push(10, 0);
	push(50, 1);
	cr_assert_eq(wc_reorder_round(q, take, NULL), 0); /* limit 0: nothing yet */
	cr_assert_eq(nout, 0);
	push(40, 2);
	push(60, 3);
	cr_assert_eq(wc_reorder_round(q, take, NULL), 0); /* limit 50 */
	cr_assert_eq(nout, 3);
	cr_expect_eq(out_tag[0], 0);
	cr_expect_eq(out_tag[1], 2);
	cr_expect_eq(out_tag[2], 1);
	push(70, 4);
	cr_assert_eq(wc_reorder_flush(q, UINT64_MAX, take, NULL), 0);
	cr_assert_eq(nout, 5);
	cr_expect_eq(out_tag[3], 3); /* kept across the compaction */
	cr_expect_eq(out_tag[4], 4);
}

Test(reorder, late_records_are_dropped_and_counted)
{
	push(100, 0);
	cr_assert_eq(wc_reorder_flush(q, UINT64_MAX, take, NULL), 0);
	cr_assert_eq(push(99, 1), 1);
	cr_assert_eq(push(100, 2), 0); /* the same time is not late */
	cr_assert_eq(wc_reorder_late(q), 1);
	cr_assert_eq(wc_reorder_flush(q, UINT64_MAX, take, NULL), 0);
	cr_assert_eq(nout, 2);
	cr_expect_eq(out_tag[1], 2);
}

static int stop(void *ctx, const struct wc_rec_header *h, uint64_t time_ns)
{
	(void)ctx;
	(void)h;
	return time_ns == 20 ? -42 : 0;
}

Test(reorder, a_receivers_error_stops_the_flush)
{
	push(10, 0);
	push(20, 1);
	push(30, 2);
	cr_assert_eq(wc_reorder_flush(q, UINT64_MAX, stop, NULL), -42);
}

Test(reorder, free_null_is_a_no_op)
{
	wc_reorder_free(NULL);
}
