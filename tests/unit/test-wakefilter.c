/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-wakefilter.c - the wakeup events' kernel filter of a per-task recording
 * (recorder/wakefilter.h): the text for a few threads, worked out by hand; and, for lists too
 * long to name one by one, what the filter takes, read back by a small evaluator of its
 * grammar: every thread listed, every pid above the floor, and as many others as it says.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/wakefilter.h"

/* The runs the filter @f names after its first clause ("pid > N"), into @a/@b (@max). */
static size_t parse_runs(const char *f, uint32_t *above, uint32_t *a, uint32_t *b, size_t max)
{
	size_t n = 0;
	const char *p = f;
	int used;

	cr_assert_eq(sscanf(p, "pid > %" SCNu32 "%n", above, &used), 1, "%s", f);
	p += used;
	while (*p) {
		cr_assert_lt(n, max);
		if (sscanf(p, " || pid == %" SCNu32 "%n", &a[n], &used) == 1) {
			b[n] = a[n];
		} else {
			cr_assert_eq(sscanf(p, " || (pid >= %" SCNu32 " && pid <= %" SCNu32 ")%n",
					    &a[n], &b[n], &used),
				     2, "at '%.40s'", p);
			cr_assert_lt(a[n], b[n]);
		}
		p += used;
		n++;
	}
	return n;
}

/* Does the filter with these runs and @above take @pid? */
static bool takes(uint32_t above, const uint32_t *a, const uint32_t *b, size_t n, uint32_t pid)
{
	if (pid > above)
		return true;
	for (size_t i = 0; i < n; i++)
		if (pid >= a[i] && pid <= b[i])
			return true;
	return false;
}

Test(wakefilter, none_listed)
{
	char buf[64];

	cr_assert_eq(wc_wake_filter("pid", NULL, 0, 4242, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "pid > 4242");
}

Test(wakefilter, runs_and_single_tids)
{
	uint32_t tids[] = { 5, 7, 8, 9, 150 };
	char buf[128];

	/* 150 is above the floor: the first clause takes it */
	cr_assert_eq(wc_wake_filter("pid", tids, 5, 100, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "pid > 100 || pid == 5 || (pid >= 7 && pid <= 9)");
}

Test(wakefilter, exact_fit)
{
	uint32_t tids[] = { 5, 9 };
	char buf[64];

	/* "pid > 100 || pid == 5 || pid == 9": 33 bytes and the NUL */
	cr_assert_eq(wc_wake_filter("pid", tids, 2, 100, buf, 34), 0);
	cr_assert_str_eq(buf, "pid > 100 || pid == 5 || pid == 9");
	/* a byte less: merged into one run, which is longer (36 with the NUL): no room */
	cr_assert_eq(wc_wake_filter("pid", tids, 2, 100, buf, 33), -ENOSPC);
}

Test(wakefilter, merged_when_shorter)
{
	uint32_t tids[] = { 5, 9, 13 };
	char buf[64];

	/* one by one: 9 + 12 + 12 + 13 bytes and the NUL (47); 5..9 and 13: 49; 5..13: 37 */
	cr_assert_eq(wc_wake_filter("pid", tids, 3, 100, buf, 47), 0);
	cr_assert_str_eq(buf, "pid > 100 || pid == 5 || pid == 9 || pid == 13");
	/* in 40 bytes only the one run fits: 6, 7, 8, 10, 11 and 12 taken too */
	cr_assert_eq(wc_wake_filter("pid", tids, 3, 100, buf, 40), 6);
	cr_assert_str_eq(buf, "pid > 100 || (pid >= 5 && pid <= 13)");
}

Test(wakefilter, no_room)
{
	char buf[8];

	cr_assert_eq(wc_wake_filter("pid", NULL, 0, 100, buf, sizeof(buf)), -ENOSPC);
}

/* Many scattered threads in a page: merged, and every one still taken. */
Test(wakefilter, merged_to_fit)
{
	enum { N = 3000 };
	static uint32_t tids[N], a[N], b[N];
	static char buf[4096];
	uint32_t v = 300, got;
	uint64_t taken = 0;
	int64_t extra;
	size_t n;

	srand(7);
	for (int i = 0; i < N; i++) { /* gaps of 1 to 400: runs and lone threads */
		v += 1 + (uint32_t)(rand() % (i % 3 ? 2 : 400));
		tids[i] = v;
	}
	extra = wc_wake_filter("pid", tids, N, v + 10, buf, sizeof(buf));
	cr_assert_gt(extra, 0);
	cr_assert_lt(strlen(buf), sizeof(buf));
	n = parse_runs(buf, &got, a, b, N);
	cr_assert_eq(got, v + 10);
	for (int i = 0; i < N; i++)
		cr_assert(takes(got, a, b, n, tids[i]), "tid %u left out", tids[i]);
	for (uint32_t pid = 1; pid <= got; pid++)
		taken += takes(got, a, b, n, pid);
	cr_assert_eq(taken, (uint64_t)N + (uint64_t)extra);
	cr_assert(takes(got, a, b, n, got + 1) && takes(got, a, b, n, UINT32_MAX));
	cr_assert(!takes(got, a, b, n, 1) && !takes(got, a, b, n, tids[0] - 1));
}

Test(wakefilter, switch_ins)
{
	uint32_t tids[] = { 5, 7, 8, 150 };
	char buf[256];

	/* the next task one the wakeups' filter takes; the previous one none of the tids, 150
	 * (above the floor) too */
	cr_assert_eq(wc_switch_in_filter(tids, 4, 100, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf,
			 "(next_pid > 100 || next_pid == 5 || (next_pid >= 7 && next_pid <= 8))"
			 " && prev_pid != 5 && (prev_pid < 7 || prev_pid > 8) && prev_pid != 150");
	cr_assert_eq(wc_switch_in_filter(NULL, 0, 100, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "(next_pid > 100)");
}
