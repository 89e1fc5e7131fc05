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

/* snprintf() into @buf at *@at (nothing written where @buf is NULL), *@at advanced by the
 * length the text has either way. */
#define PUT(buf, size, at, ...)                                                                    \
	(*(at) +=                                                                                  \
	 (size_t)snprintf((buf) ? (buf) + *(at) : NULL, (buf) ? (size) - *(at) : 0, __VA_ARGS__))

/*
 * The filter of the runs of @tids[0...@n - 1] with gaps of at most @gap merged (a gap: the pids
 * between two runs, plus one), into @buf (@size bytes; NULL: only measured): @prev NULL, the
 * wakeups' ("F > ABOVE || F == A || (F >= A && F <= B) ..."); else the switch-ins' (see
 * wc_switch_in_filter()), @field the next task's and @prev the previous one's.  Return: its
 * length without the NUL; in *@extra the pids the merged runs take beyond @tids.
 */
static size_t render(const char *field, const char *prev, const uint32_t *tids, size_t n,
		     size_t n_all, uint32_t above, uint64_t gap, char *buf, size_t size,
		     uint64_t *extra)
{
	size_t at = 0;
	uint64_t span = 0;

	PUT(buf, size, &at, "%s%s > %" PRIu32, prev ? "(" : "", field, above);
	for (int part = 0; part < (prev ? 2 : 1); part++) {
		if (part) /* the previous task not one of the target's: its own events time it */
			PUT(buf, size, &at, ")");
		for (size_t i = 0; i < (part ? n_all : n);) {
			uint32_t a = tids[i], b = a;

			while (++i < (part ? n_all : n) && (uint64_t)tids[i] - b <= gap)
				b = tids[i];
			if (!part && a == b)
				PUT(buf, size, &at, " || %s == %" PRIu32, field, a);
			else if (!part)
				PUT(buf, size, &at, " || (%s >= %" PRIu32 " && %s <= %" PRIu32 ")",
				    field, a, field, b);
			else if (a == b)
				PUT(buf, size, &at, " && %s != %" PRIu32, prev, a);
			else
				PUT(buf, size, &at, " && (%s < %" PRIu32 " || %s > %" PRIu32 ")",
				    prev, a, prev, b);
			if (!part)
				span += (uint64_t)b - a + 1;
		}
	}
	*extra = span - n;
	return at;
}

/* wc_wake_filter() and wc_switch_in_filter(): @prev as render()'s. */
static int64_t filter(const char *field, const char *prev, const uint32_t *tids, size_t n,
		      uint32_t above, char *buf, size_t size)
{
	uint64_t lo = 1, hi = (uint64_t)UINT32_MAX + 1, extra;
	size_t n_all = prev ? n : 0; /* the switch-ins': every tid is a previous task left out */

	while (n > 0 && tids[n - 1] > above) /* taken by the first clause */
		n--;
	/* merging runs shortens the filter but for two lone tids that become a range: search
	 * between no merge and one run, the one run fitting (the least gap found fits) */
	if (render(field, prev, tids, n, n_all, above, lo, NULL, 0, &extra) + 1 <= size)
		hi = lo;
	else if (render(field, prev, tids, n, n_all, above, hi, NULL, 0, &extra) + 1 > size)
		return -ENOSPC;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (render(field, prev, tids, n, n_all, above, mid, NULL, 0, &extra) + 1 <= size)
			hi = mid;
		else
			lo = mid + 1;
	}
	render(field, prev, tids, n, n_all, above, lo, buf, size, &extra);
	return (int64_t)extra;
}

int64_t wc_wake_filter(const char *field, const uint32_t *tids, size_t n, uint32_t above, char *buf,
		       size_t size)
{
	return filter(field, NULL, tids, n, above, buf, size);
}

int64_t wc_switch_in_filter(const uint32_t *tids, size_t n, uint32_t above, char *buf, size_t size)
{
	return filter("next_pid", "prev_pid", tids, n, above, buf, size);
}
