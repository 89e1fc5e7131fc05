/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wakefilter.c - the filter of a per-task recording's wakeup events (pertask.c): those events
 * are per CPU and see every task's wakeups; the kernel evaluates the filter on each and writes
 * only those it keeps (perf_tp_filter_match() in kernel/events/core.c), so that a task outside
 * the target pays the tracepoint and the filter, not a record and the recorder's read of it.
 * The filter is set once (a second PERF_EVENT_IOC_SET_FILTER is refused, EEXIST:
 * ftrace_profile_set_filter() in kernel/trace/trace_events_filter.c), so it names the
 * threads there are and takes every pid handed out after them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "recorder/wakefilter.h"

static size_t digits(uint32_t v)
{
	size_t d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* The bytes of the clause of the run @a..@b (" || F == A" or " || (F >= A && F <= B)"). */
static size_t clause_len(size_t field, uint32_t a, uint32_t b)
{
	if (a == b)
		return 4 + field + 4 + digits(a);
	return 5 + field + 4 + digits(a) + 4 + field + 4 + digits(b) + 1;
}

/*
 * Walk the runs of @tids[0...@n - 1] with gaps of at most @gap merged (a gap: the pids between
 * two runs, plus one): the bytes of the filter without the NUL, and in
 * *@extra the pids the merged runs take beyond @tids.
 */
static size_t filter_len(size_t field, const uint32_t *tids, size_t n, uint32_t above, uint64_t gap,
			 uint64_t *extra)
{
	size_t len = field + 3 + digits(above);
	uint64_t span = 0;

	for (size_t i = 0; i < n;) {
		uint32_t a = tids[i], b = a;

		while (++i < n && (uint64_t)tids[i] - b <= gap)
			b = tids[i];
		len += clause_len(field, a, b);
		span += (uint64_t)b - a + 1;
	}
	*extra = span - n;
	return len;
}

int64_t wc_wake_filter(const char *field, const uint32_t *tids, size_t n, uint32_t above, char *buf,
		       size_t size)
{
	size_t fl = strlen(field), at;
	uint64_t lo = 1, hi = (uint64_t)UINT32_MAX + 1, extra;
	int w;

	while (n > 0 && tids[n - 1] > above) /* taken by the first clause */
		n--;
	/* merging runs shortens the filter but for two lone tids that become a range: search
	 * between no merge and one run, the one run fitting (the least gap found fits) */
	if (filter_len(fl, tids, n, above, lo, &extra) + 1 <= size)
		hi = lo;
	else if (filter_len(fl, tids, n, above, hi, &extra) + 1 > size)
		return -ENOSPC;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (filter_len(fl, tids, n, above, mid, &extra) + 1 <= size)
			hi = mid;
		else
			lo = mid + 1;
	}
	filter_len(fl, tids, n, above, lo, &extra);
	w = snprintf(buf, size, "%s > %" PRIu32, field, above);
	at = (size_t)w;
	for (size_t i = 0; i < n;) {
		uint32_t a = tids[i], b = a;

		while (++i < n && (uint64_t)tids[i] - b <= lo)
			b = tids[i];
		if (a == b)
			w = snprintf(buf + at, size - at, " || %s == %" PRIu32, field, a);
		else
			w = snprintf(buf + at, size - at,
				     " || (%s >= %" PRIu32 " && %s <= %" PRIu32 ")", field, a,
				     field, b);
		at += (size_t)w;
	}
	return (int64_t)extra;
}
