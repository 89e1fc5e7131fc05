/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wakefilter.h - the kernel-side filter of a per-task recording's wakeup events. */
#ifndef WC_RECORDER_WAKEFILTER_H
#define WC_RECORDER_WAKEFILTER_H

#include <stddef.h>
#include <stdint.h>

/**
 * wc_wake_filter() - the tracepoint filter that keeps the wakeups of a target's threads
 * @field: the name of the woken task's field in the wakeup events' format ("pid")
 * @tids: the target's threads listed when the events were opened, ascending, no duplicates
 * @n: how many
 * @above: the last pid the kernel had handed out (/proc/sys/kernel/ns_last_pid) before the
 *	   target's threads were listed: a thread or process created since has a pid above it
 *	   (alloc_pid() in kernel/pid.c hands them out in increasing order until they wrap at
 *	   pid_max)
 * @buf: out: the filter, NUL-terminated, as PERF_EVENT_IOC_SET_FILTER takes it
 * @size: bytes of @buf; the kernel copies at most a page less one byte (strndup_user() in
 *	  perf_event_set_filter(), kernel/events/core.c)
 *
 * The filter is "FIELD > ABOVE || FIELD == T || (FIELD >= A && FIELD <= B) ...": each run of
 * consecutive tids at or below @above one clause, those above @above taken by the first.
 * Where that does not fit in @size, the runs closest together are merged (the smallest gaps
 * first) until it does: the filter then also takes the wakeups of a few tasks that are not the
 * target's, which wcanalyze leaves out, as it does in a per-CPU recording.
 *
 * Return: the number of pids the filter takes that are not in @tids (0 unless runs were
 * merged; pids above @above not counted), or -ENOSPC when @size cannot hold even one clause
 * and the first.
 */
int64_t wc_wake_filter(const char *field, const uint32_t *tids, size_t n, uint32_t above, char *buf,
		       size_t size);

/**
 * wc_switch_in_filter() - the tracepoint filter of sched_switch that keeps the switches into a
 * target's threads from a task that is not one of them
 * @tids, @n, @above, @buf, @size: as wc_wake_filter()'s
 *
 * "(next_pid > ABOVE || next_pid == T || (next_pid >= A && next_pid <= B) ...) &&
 * prev_pid != T && (prev_pid < A || prev_pid > B) ...": the next task one that
 * wc_wake_filter() would take, the previous one none of @tids, those above ABOVE too (a switch
 * from a target thread is timed by that thread's own events; one from another pid above ABOVE
 * is kept: the kernel makes threads of its own, kworkers, which switch into the target's).
 * Runs merged to fit as there (the previous task's runs as the next's, and so the same
 * other tasks, whose switches into the target's are then timed by the measured delay).
 *
 * Return: as wc_wake_filter()'s.
 */
int64_t wc_switch_in_filter(const uint32_t *tids, size_t n, uint32_t above, char *buf, size_t size);

#endif
