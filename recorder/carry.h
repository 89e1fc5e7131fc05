/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * carry.h - the state of the threads at a rotation (wcrec --rotate), carried into the next
 * file as CARRIED records (wct.h), so that an off-CPU interval or a run under way at the seam
 * counts, whole, in the file where it ends, as in one uninterrupted recording.
 *
 *   in   the drain's switch-outs (sched_switch: its prev task, callchain and payload), its
 *        switch-ins (sched_switch's next task, SWITCH_IN records), its wakeups (the woken
 *        task, the waker, its callchain and the payload) and its EXIT records, in
 *        the drain's order: the rings one after the other, so not in time order; each thread
 *        keeps the time of its last switch-out and of its last switch-in, and is off-CPU where
 *        the first is the later;
 *   out  wc_carry_write(): a CARRIED record per thread off-CPU, with its switch-out's
 *        callchain and payload written anew (the next file's tables start empty), and per
 *        thread on a CPU whose switch-in is that CPU's last (no later one of another task or
 *        of idle, no LOST record after it); after an off-CPU one, the thread's wakeup when
 *        one came after its last switch-in (woken after its switch-out, or on its way out:
 *        not yet run, its wait in the run queue goes on), and alone the sched_wakeup_new of
 *        a new task that has not run yet (later than all else of its tid);
 *   rule a thread whose EXIT was seen, or that /proc no longer listed before the file's last
 *        drain (wc_carry_check(): its EXIT was lost), is not carried (its last switch-out was
 *        its death: it never comes back); not /proc after that drain, which would drop a
 *        thread that exits after the file's last event, its EXIT in the next file's events
 *        (CI's rotate-live under load: the metadata of the next file took long enough for
 *        a workload to end meanwhile); the table forgets at each rotation
 *        every thread it does not carry, so it holds the threads that switched in one file
 *        and those carried into it.
 */
#ifndef WC_RECORDER_CARRY_H
#define WC_RECORDER_CARRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/stack_table.h"
#include "common/writer.h"

struct wc_carry;

/** wc_carry_new() - an empty table.  Return: it, or NULL out of memory. */
struct wc_carry *wc_carry_new(void);

/**
 * wc_carry_out() - thread @tid (process @pid) left @cpu at @time_ns (ns, the recording's
 * clock), by a sched_switch of event @event_id whose payload is @payload (@size bytes) and
 * callchain @ips (@nr entries, as written: mended); all copied.  Kept only when later than
 * the thread's last switch-out seen.
 * Return: 0 or -ENOMEM.
 */
int wc_carry_out(struct wc_carry *c, uint32_t tid, uint32_t pid, uint32_t cpu, uint16_t event_id,
		 uint64_t time_ns, const uint64_t *ips, uint32_t nr, const void *payload,
		 uint32_t size);

/**
 * wc_carry_in() - thread @tid (process @pid, 0 unknown) came on @cpu at @time_ns; @tid 0: the
 * idle task, or a task outside the recording (a per-task recording's sched_switch to another
 * process), which only makes that CPU's earlier switch-ins not the last
 * Return: 0 or -ENOMEM.
 */
int wc_carry_in(struct wc_carry *c, uint32_t tid, uint32_t pid, uint32_t cpu, uint64_t time_ns);

/**
 * wc_carry_targets_only() - a per-task recording: its wakeup events are per CPU, every task's
 * (pertask.c); keep the wakeups of the threads that have an entry (the target's: their own
 * switch events made it) and the sched_wakeup_new of the threads one of them creates
 */
void wc_carry_targets_only(struct wc_carry *c);

/**
 * wc_carry_wake() - thread @woken was woken at @time_ns (ns) on @cpu by a wakeup event
 * (@event_id; @is_new: sched_wakeup_new) that fired in the context of thread @tid (process
 * @pid), with that thread's callchain @ips (@nr entries, as written) and the payload
 * @payload (@size bytes); all copied.  Kept only when later than the thread's last wakeup.
 * Return: 0 or -ENOMEM.
 */
int wc_carry_wake(struct wc_carry *c, uint32_t woken, bool is_new, uint32_t tid, uint32_t pid,
		  uint32_t cpu, uint16_t event_id, uint64_t time_ns, const uint64_t *ips,
		  uint32_t nr, const void *payload, uint32_t size);

/**
 * wc_carry_exit() - thread @tid exited at @time_ns (its EXIT record): not carried, unless a
 * switch-in of it comes later (a new thread of the same tid)
 * Return: 0 or -ENOMEM.
 */
int wc_carry_exit(struct wc_carry *c, uint32_t tid, uint64_t time_ns);

/**
 * wc_carry_lost() - a LOST record of @cpu's ring at @time_ns: the thread switched in last
 * there may have left unseen, so none is carried as running there until its next switch-in
 * Return: 0 or -ENOMEM.
 */
int wc_carry_lost(struct wc_carry *c, uint32_t cpu, uint64_t time_ns);

/**
 * wc_carry_check() - before the last drain into a file: note which threads /proc lists no
 * longer (gone before that drain: their EXIT, if not lost, is in this file or before)
 */
void wc_carry_check(struct wc_carry *c);

/**
 * wc_carry_write() - at the start of a new file (@start_ns, ns; 0: the events are not on the
 * clock it was read on, take the latest time seen), after its metadata: a
 * CARRIED record for each thread carried, in tid order, an off-CPU one's STACK and PAYLOAD
 * records through @stacks and @payloads (the file's tables); then forget the others.
 * @n: set to the records written
 * Return: 0, -ENOMEM, or the writer's error.
 */
int wc_carry_write(struct wc_carry *c, struct wc_writer *w, struct wc_stack_table *stacks,
		   struct wc_stack_table *payloads, uint64_t start_ns, size_t *n);

/** wc_carry_free() - free @c; NULL is a no-op. */
void wc_carry_free(struct wc_carry *c);

#endif /* WC_RECORDER_CARRY_H */
