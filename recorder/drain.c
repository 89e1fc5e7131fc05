/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * drain.c - copy perf ring-buffer records into trace records.
 *
 * The read protocol of a perf ring buffer (include/uapi/linux/perf_event.h, and perf's
 * mmap.c): load data_head with acquire semantics, so that the record bytes the kernel wrote
 * before it are visible; read records from data_tail up to data_head, copying out any that
 * wraps past the end of the buffer; then store data_tail with release semantics, so that the
 * kernel does not overwrite bytes before we are done reading them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/grow.h"
#include "recorder/carry.h"
#include "recorder/events-priv.h"
#include "recorder/metadata.h"
#include "recorder/sample.h"

/* The sample_id trailer of a side-band record: pid, tid, time, cpu, identifier. */
static bool parse_sample_id(const struct perf_event_header *h, uint32_t *pid, uint32_t *tid,
			    uint64_t *time, uint32_t *cpu)
{
	const uint8_t *end = (const uint8_t *)h + h->size;

	if (h->size < sizeof(*h) + SAMPLE_ID_BYTES)
		return false;
	memcpy(pid, end - 32, 4);
	memcpy(tid, end - 28, 4);
	memcpy(time, end - 24, 8);
	memcpy(cpu, end - 16, 4);
	return true;
}

/* A tracepoint whose payload rarely repeats (sched_stat_runtime): its payload inline. */
static int on_inline(struct wc_writer *w, const struct wc_event *e, const struct wc_sample_view *s,
		     struct wc_drain_stats *st)
{
	struct {
		struct wc_rec_tp_inline r;
		uint8_t data[WC_TP_INLINE_MAX_BYTES];
	} x;
	uint32_t size = s->raw_size < WC_TP_INLINE_MAX_BYTES ? s->raw_size : WC_TP_INLINE_MAX_BYTES;

	memset(&x.r, 0, sizeof(x.r));
	x.r.h = (struct wc_rec_header){ WC_ALIGN8((uint32_t)sizeof(x.r) + size), WC_REC_TP_INLINE,
					WC_REC_F_TIME };
	x.r.time_ns = s->time;
	x.r.tid = s->tid;
	x.r.pid = s->pid;
	x.r.cpu = s->cpu;
	x.r.event_id = (uint16_t)e->event_id;
	x.r.size = (uint16_t)size;
	memcpy(x.data, s->raw, size);
	memset(x.data + size, 0, x.r.h.size - sizeof(x.r) - size);
	st->other_tp++;
	return wc_writer_add(w, &x);
}

/*
 * -g dwarf, a stack not unwound: its kernel part, then the user ip alone and
 * WC_CONTEXT_UNWIND_FAILED, in @out.  Return: the entries.
 */
static uint64_t not_unwound(const struct wc_sample_view *s, uint64_t *out)
{
	uint64_t n = 0;

	for (; n < s->nr && s->ips[n] != PERF_CONTEXT_USER; n++)
		out[n] = s->ips[n];
	out[n++] = PERF_CONTEXT_USER;
	out[n++] = s->regs[2];
	out[n++] = WC_CONTEXT_UNWIND_FAILED;
	return n;
}

/*
 * The user part of @s's callchain as it goes into the file: mended, or with -g dwarf unwound,
 * by CFI (wc_unwind_mend()) for a target process (wc_events_set_targets()) with x86-64 registers
 * and a sound copy; else, with -g dwarf (the kernel took no user part), its ip alone cut short
 * (not_unwound()); else the kernel's frame-pointer walk as it is.  A copy that overran its
 * record and registers of another ABI (a 32-bit process) are counted (wc_unwind_stats).
 */
static void user_part(struct wc_events *ev, struct wc_sample_view *s, struct wc_drain_stats *st)
{
	struct wc_unwind_sample smp = { s->pid,	  s->tid,
					s->time,  { s->regs[0], s->regs[1], s->regs[2] },
					s->stack, s->stack_size };
	uint32_t n;

	if (!ev->unwind)
		return;
	if (s->bad_copy)
		ev->bad_copies++;
	if (s->regs_abi == PERF_SAMPLE_REGS_ABI_NONE) /* a kernel thread: no user part */
		return;
	if (s->regs_abi != PERF_SAMPLE_REGS_ABI_64)
		ev->wrong_abi++;
	else if (!s->bad_copy && target_has(ev, s->pid) && (s->nr || ev->dwarf)) {
		st->user_copy_bytes += s->stack_size;
		wc_unwind_mend(ev->unwind, &smp, s->ips, (uint32_t)s->nr, ev->dwarf, ev->mended,
			       &n);
		s->ips = ev->mended;
		s->nr = n;
		return;
	}
	if (ev->dwarf) {
		s->nr = not_unwound(s, ev->mended);
		s->ips = ev->mended;
	}
}

/*
 * Per-task events whose wakeup filter was refreshed (pertask.c refilter()): is this wakeup
 * record, of event @ident (events[@event]), the twin of one that the replaced event or its
 * replacement wrote of the same wakeup?  While both are on, a wakeup both take reaches both
 * (perf_tp_event() in kernel/events/core.c walks the CPU's list of the tracepoint's events),
 * the replacement's first (perf_trace_add() in kernel/trace/trace_event_perf.c puts an event
 * at the head of that list; event ids only grow), one record after the other in this CPU's
 * ring but for what an interrupt writes between: so a record of the replaced event is
 * compared with the ring's last few unmatched records of a later event of the same kind: the
 * same waker, payload and callchain within 20 us is its twin.  A record of the replacement is
 * never one: the replaced event, while it is alone, and its replacement, once alone, write a
 * ping-pong's wakeups microseconds apart, with equal payloads.
 */
static bool twin(struct ring *ring, uint64_t ident, int event, const struct wc_sample_view *s,
		 uint32_t payload_id, uint32_t stack_id)
{
	unsigned n = ring->wake_seen_n < 4 ? ring->wake_seen_n : 4;

	for (unsigned k = 0; k < n; k++) {
		struct wake_seen *p = &ring->wake_seen[k];
		uint64_t d = p->time > s->time ? p->time - s->time : s->time - p->time;

		if (p->ident > ident && p->event == event && p->tid == s->tid &&
		    p->payload_id == payload_id && p->stack_id == stack_id && d <= 20000) {
			p->ident = 0;
			return true;
		}
	}
	ring->wake_seen[ring->wake_seen_n++ % 4] =
		(struct wake_seen){ ident, s->time, s->tid, payload_id, stack_id, event };
	return false;
}

/*
 * Keep sample @h of ring @ring to the end of the pass (ev->deferred): per-task events with the
 * sampling event per CPU, a sample of a thread not known as the target's.  A thread's FORK
 * record is written before it first runs (perf_event_fork() in copy_process()), but it may be
 * written into a ring after this pass read that ring, and before the thread's first sample in
 * a ring read later: one not known at the end of this pass (@pass) is kept to the end of the
 * next (replay_deferred()).  Return: 0 or -ENOMEM.
 */
static int defer(struct wc_events *ev, const struct ring *ring, const struct perf_event_header *h,
		 uint64_t pass)
{
	size_t need = ev->deferred_len + 16 + WC_ALIGN8(h->size);
	uint64_t c = (uint64_t)(ring - ev->rings);

	if (wc_grow((void **)&ev->deferred, &ev->deferred_cap, need, 1))
		return -ENOMEM;
	memcpy(ev->deferred + ev->deferred_len, &c, 8);
	memcpy(ev->deferred + ev->deferred_len + 8, &pass, 8);
	memcpy(ev->deferred + ev->deferred_len + 16, h, h->size);
	ev->deferred_len = need;
	return 0;
}

static int on_sample(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
		     const struct perf_event_header *h, int self_pid, struct wc_drain_stats *st);

/* The samples defer() kept, taken again at the end of a pass: the target's written (its
 * threads' alive or exited since), the others kept to the end of the next pass, then dropped.
 * Return: 0, or an error of the writer or -ENOMEM. */
static int replay_deferred(struct wc_events *ev, struct wc_writer *w, int self_pid,
			   struct wc_drain_stats *st)
{
	uint8_t *old = ev->deferred;
	size_t len = ev->deferred_len, old_cap = ev->deferred_cap;
	int err = 0;

	/* those kept again go into a buffer of their own */
	ev->deferred = ev->deferred_spare;
	ev->deferred_cap = ev->deferred_spare_cap;
	ev->deferred_len = 0;
	ev->replaying = true;
	for (size_t at = 0; at < len && !err;) {
		const struct perf_event_header *h = (const void *)(old + at + 16);
		uint64_t c;

		memcpy(&c, old + at, 8);
		memcpy(&ev->replay_pass, old + at + 8, 8);
		err = on_sample(ev, &ev->rings[c], w, h, self_pid, st);
		at += 16 + WC_ALIGN8(h->size);
	}
	ev->replaying = false;
	ev->deferred_spare = old;
	ev->deferred_spare_cap = old_cap;
	return err;
}

/* Write the SWITCH_IN of target thread @tid on CPU @cpu at @time_ns (ns), exactly (delay 0;
 * its pid 0, not told: wcanalyze has it from the thread's own events).  Return: 0, or -ENOMEM
 * or an error of the writer. */
static int write_direct(struct wc_events *ev, uint32_t cpu, struct wc_writer *w, uint32_t tid,
			uint64_t time_ns, struct wc_drain_stats *st)
{
	struct wc_rec_switch_in r = {
		.h = { sizeof(r), WC_REC_SWITCH_IN, WC_REC_F_TIME },
		.time_ns = time_ns,
		.tid = tid,
		.cpu = cpu,
		.prev_tid = UINT32_MAX - 1, /* not told, as by the records */
		.prev_pid = UINT32_MAX - 1,
	};

	st->switch_ins++;
	st->switch_ins_timed++;
	ev->direct_ins++;
	if (ev->carry && wc_carry_in(ev->carry, tid, 0, cpu, time_ns))
		return -ENOMEM;
	return wc_writer_add(w, &r);
}

/*
 * Per-task events whose context-switch records are off on this CPU, or not read yet since they
 * were turned on (pertask.c wc_pertask_records_on()): the switch into @next at @time_ns, that a
 * sched_switch showed (a target thread's own, or the CPU's switch-in event), is the target's
 * switch-in, written as a SWITCH_IN at that time.  A thread not known as the target's yet (its
 * FORK record may be in a ring drained later) is kept to the end of the next pass
 * (pending_ins()).  Return: 0, or an error of the writer or -ENOMEM.
 */
static int switch_in_direct(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
			    int64_t next, uint64_t time_ns, struct wc_drain_stats *st)
{
	if (!ev->rec_split || ring->rec_seen || next <= 0)
		return 0;
	if (wc_pertask_target_at(ev, (uint32_t)next, time_ns))
		return write_direct(ev, (uint32_t)ring->cpu, w, (uint32_t)next, time_ns, st);
	if (wc_grow((void **)&ev->pend_in, &ev->pend_in_cap, ev->npend_in + 1,
		    sizeof(*ev->pend_in)))
		return -ENOMEM;
	ev->pend_in[ev->npend_in++] =
		(struct pending_in){ time_ns, ev->passes, (uint32_t)next, (uint32_t)ring->cpu };
	return 0;
}

/*
 * The switch-ins switch_in_direct() kept, at the end of a pass: the target's (alive then, or
 * exited since: storm's 1 ms children often have by the end of the pass) written, the others
 * kept one pass more, then dropped.  A FORK record written in a ring after the pass read it,
 * but before the child's first switch in a ring read later, comes in the next pass.  Written a
 * pass late, such a SWITCH_IN is not late for wcanalyze (reorder.h: it hands out at a ROUND
 * only what is not later than the newest time of the ROUND before).  Return: 0 or an error of
 * the writer.
 */
static int pending_ins(struct wc_events *ev, struct wc_writer *w, struct wc_drain_stats *st)
{
	size_t kept = 0;
	int err = 0;

	for (size_t k = 0; k < ev->npend_in && !err; k++) {
		const struct pending_in *p = &ev->pend_in[k];

		if (wc_pertask_target_at(ev, p->tid, p->time_ns))
			err = write_direct(ev, p->cpu, w, p->tid, p->time_ns, st);
		else if (p->pass == ev->passes)
			ev->pend_in[kept++] = *p;
	}
	ev->npend_in = kept;
	return err;
}

/*
 * A record of this CPU's switch-in event (pertask.c open_switch_ins()): a sched_switch into a
 * target thread (or a pid above the filter's floor), in the context of the task leaving the
 * CPU.  It times the switch-in record of the same switch that follows in this ring
 * (on_task_switch()), as a sched_switch of a target thread does; where the CPU's context-switch
 * records are off, the switch-in is written from it (switch_in_direct()).  Layout (sample_type
 * IDENTIFIER | TID | TIME | CPU | RAW): id, pid, tid, time, cpu, res, raw size, raw.
 * Return: 0, or -ENOMEM or an error of the writer.
 */
static int on_switch_in(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
			const struct perf_event_header *h, struct wc_drain_stats *st)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t tid, raw_size;
	uint64_t time;
	int32_t next;

	if (h->size < sizeof(*h) + 36 || ev->next_pid_off < 0)
		return 0;
	memcpy(&tid, p + 12, 4);
	memcpy(&time, p + 16, 8);
	memcpy(&raw_size, p + 32, 4);
	if ((uint64_t)ev->next_pid_off + 4 > raw_size ||
	    36 + (uint64_t)ev->next_pid_off + 4 > h->size - sizeof(*h))
		return 0;
	memcpy(&next, p + 36 + ev->next_pid_off, 4);
	/* the same switch timed by the previous task's own sched_switch, stamped before this
	 * event (and its callchain's work) came: a target thread not named by the filter yet */
	if (ring->switch_prev == (int64_t)tid && ring->switch_next == next &&
	    ring->switch_ns <= time)
		return 0;
	ring->switch_prev = tid;
	ring->switch_next = ring->last_next = next;
	ring->switch_ns = time;
	ring->out_ns = 0;
	ring->curr_before = ring->curr; /* unseen_switch_in(): the previous task's switch-in */
	ring->curr_before_ns = ring->curr_ns;
	ring->curr = next;
	ring->curr_ns = time;
	return switch_in_direct(ev, ring, w, next, time, st);
}

/*
 * Per-task events: target thread @tid, switched out (its sched_switch) or exiting (its EXIT
 * record) at @time_ns on @ring's CPU, had to be switched in there first.  Where the CPU's
 * context-switch records are off (or not read yet) and its records last showed another task
 * switched in, that switch-in went unseen:
 *  - that task a target thread that has exited (its EXIT record read), this one was switched
 *    in by its last switch, which writes no event of the target's (its events are gone by then:
 *    perf_event_exit_task() in do_exit(); the switch-in events leave out the switches from a
 *    target thread): written as switched in at that EXIT, where wcanalyze ends the exiting
 *    thread's last run (or where the CPU's records last showed it switched in, if later), so
 *    a few microseconds early (the rest of do_exit()).  A task that is not the target's may
 *    have run between them unseen, and this SWITCH_IN may come too late for wcanalyze's
 *    ordering (this thread ran for more than a pass): the records are turned on too, so that
 *    it happens once a CPU;
 *  - else the kernel did not trace it (out of CPU 1's idle task on this project's VMs, out of
 *    PID 1's threads): the records are turned on there from now on (pertask.c
 *    wc_pertask_records_on()), and wcanalyze infers this one.
 * Not while the events are being switched on (before ev->enabled_ns), when the switch-in
 * events are on and a target thread's own events not yet.  @next: the task a sched_switch
 * switched to, -1 for an EXIT.  Return: 0, or -ENOMEM or an error of the writer.
 */
static int unseen_switch_in(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
			    uint32_t tid, uint64_t time_ns, int64_t next, struct wc_drain_stats *st)
{
	int64_t curr = ring->curr;
	uint64_t gone_ns, curr_ns = ring->curr_ns;
	int c = (int)(ring - ev->rings), err = 0;

	if (!ev->rec_split || ring->rec_seen)
		return 0;
	/* the switch-in event of this same switch came first (a thread the filter does not
	 * name as a previous task yet): it set curr to @next, and the task before in
	 * curr_before */
	if (next >= 0 && ring->switch_prev == (int64_t)tid && ring->switch_next == next &&
	    ring->curr == next) {
		curr = ring->curr_before;
		curr_ns = ring->curr_before_ns;
	}
	if (curr < 0 || curr == (int64_t)tid || time_ns < ev->enabled_ns)
		return 0;
	if (wc_pertask_exited(ev, (uint32_t)curr, &gone_ns)) {
		uint64_t at = gone_ns > curr_ns ? gone_ns : curr_ns;

		st->switch_ins_after_exit++;
		if (next < 0) { /* exiting in its turn: curr names it now */
			ring->curr = tid;
			ring->curr_ns = at < time_ns ? at : time_ns;
		}
		err = write_direct(ev, (uint32_t)ring->cpu, w, tid, at < time_ns ? at : time_ns,
				   st);
		if (!ring->rec_on) /* an ioctl's failure is counted there */
			wc_pertask_records_on(ev, c, REC_EXIT, time_ns, tid);
		return err;
	}
	if (!ring->rec_on)
		wc_pertask_records_on(ev, c, REC_UNTRACED, time_ns, tid);
	return 0;
}

/* Per-task events: the sched_switch of target thread @s->tid to @next on @ring's CPU.  A
 * thread whose events were on before its FORK record could be written is noted; an unseen
 * switch-in of it is written where it can be (unseen_switch_in()).  Return: 0, or -ENOMEM or
 * an error of the writer. */
static int per_task_switch(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
			   const struct wc_sample_view *s, int32_t next, struct wc_drain_stats *st)
{
	if (wc_pertask_seen(ev, s->tid, s->time))
		return -ENOMEM;
	return unseen_switch_in(ev, ring, w, s->tid, s->time, next < 0 ? 0 : next, st);
}

static int on_sample(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
		     const struct perf_event_header *h, int self_pid, struct wc_drain_stats *st)
{
	struct wc_sample_view s;
	uint64_t ident;
	uint32_t stack_id = WC_STACK_NONE;
	const struct wc_event *e;
	int i, err;

	memcpy(&ident, h + 1, 8);
	if (ev->swin_on && (ident == ring->swin_id[0] || ident == ring->swin_id[1])) {
		st->switch_in_events++;
		return on_switch_in(ev, ring, w, h, st);
	}
	i = id_get(ev, ident);
	if (i < 0)
		return 0;
	e = &ev->events[i];
	if (!wc_sample_parse(h, e->attr->sample_type, &s))
		return 0;
	if (e->kind == WC_EVENT_SAMPLE && (int)s.pid == self_pid) {
		st->skipped_self++;
		return 0;
	}
	if (e->kind == WC_EVENT_SAMPLE && ev->samples_per_cpu &&
	    !wc_pertask_target_at(ev, s.tid, s.time)) {
		if (!ev->replaying || ev->replay_pass == ev->passes)
			return defer(ev, ring, h, ev->replaying ? ev->replay_pass : ev->passes);
		st->samples_other++;
		return 0;
	}
	user_part(ev, &s, st);
	if (s.nr) {
		err = wc_writer_stack(w, ev->stacks, s.ips, (uint32_t)s.nr, &stack_id);
		if (err)
			return err;
	}
	if (e->kind == WC_EVENT_SAMPLE) {
		struct wc_rec_sample r = {
			.h = { sizeof(r), WC_REC_SAMPLE, WC_REC_F_TIME },
			.time_ns = s.time,
			.stack_id = stack_id,
			.tid = s.tid,
			.pid = s.pid,
			.cpu = s.cpu,
			.period = s.period,
			.event_id = (uint16_t)e->event_id,
		};

		st->samples++;
		return wc_writer_add(w, &r);
	}

	if (e->kind == WC_EVENT_RUNTIME) {
		/* a thread's own update (a tick, its switch-out, a read of its own CPU clock);
		 * one of another thread (a read of that thread's CPU clock) is always kept */
		uint32_t pid = 0;
		bool own = ev->rt_pid_off >= 0 && s.raw &&
			   (uint64_t)ev->rt_pid_off + 4 <= s.raw_size &&
			   (memcpy(&pid, s.raw + ev->rt_pid_off, 4), pid == s.tid) && s.tid;

		if (own && ring->rt_kept_tid == s.tid) {
			st->runtime_dropped++;
			return 0;
		}
		if (own)
			ring->rt_kept_tid = s.tid;
		return on_inline(w, e, &s, st);
	}

	struct wc_rec_tracepoint r = {
		.h = { sizeof(r), WC_REC_TRACEPOINT, WC_REC_F_TIME },
		.time_ns = s.time,
		.stack_id = stack_id,
		.tid = s.tid,
		.pid = s.pid,
		.cpu = s.cpu,
		.event_id = (uint16_t)e->event_id,
	};
	uint32_t raw_size = s.raw_size;

	/* the kernel pads raw data to 8 bytes with the u32 size; the format says how much is used
	 */
	if (raw_size > WC_PAYLOAD_MAX_BYTES)
		raw_size = WC_PAYLOAD_MAX_BYTES;
	err = wc_writer_payload(w, ev->payloads, (uint16_t)e->event_id, s.raw, raw_size,
				&r.payload_id);
	if (err)
		return err;
	if (e->kind == WC_EVENT_SWITCH) {
		int32_t next = -1;

		if (ev->next_pid_off >= 0 && s.raw && (uint64_t)ev->next_pid_off + 4 <= raw_size)
			memcpy(&next, s.raw + ev->next_pid_off, 4);
		st->switches++;
		if (ev->per_task && (err = per_task_switch(ev, ring, w, &s, next, st)))
			return err;
		/* the next task: a switch-in (per task, only the CPU's: it is not the target's, or
		 * its switch-in comes as a SWITCH_IN record) */
		if (ev->carry &&
		    ((err = wc_carry_out(ev->carry, s.tid, s.pid, s.cpu, (uint16_t)e->event_id,
					 s.time, s.ips, (uint32_t)s.nr, s.raw, raw_size)) ||
		     (err = wc_carry_in(ev->carry, ev->per_task || next < 0 ? 0 : (uint32_t)next, 0,
					s.cpu, s.time))))
			return err;
		/* the same switch's switch-in event came first: its stamp is the earlier, and it
		 * wrote the switch-in where that is written from the events */
		bool first = ev->swin_on && ring->switch_prev == (int64_t)s.tid &&
			     ring->switch_next == next && ring->switch_ns <= s.time;

		if (!first) {
			ring->switch_ns = s.time;
			ring->curr_ns = s.time;
		}
		ring->switch_prev = s.tid; /* it fires in the context of the task switched out */
		ring->switch_next = ring->last_next = next;
		ring->out_ns = 0;
		ring->rt_kept_tid = 0;
		ring->curr = next;
		if (ev->per_task) {
			err = wc_writer_add(w, &r);
			return err || first ? err : switch_in_direct(ev, ring, w, next, s.time, st);
		}
	} else if (e->kind == WC_EVENT_WAKEUP || e->kind == WC_EVENT_WAKING ||
		   e->kind == WC_EVENT_WAKEUP_NEW) {
		int32_t woken = -1;

		if (ev->wake_refresh_tried && twin(ring, ident, i, &s, r.payload_id, stack_id)) {
			st->wake_twins++;
			return 0;
		}

		if (ev->wake_pid_off >= 0 && s.raw && (uint64_t)ev->wake_pid_off + 4 <= raw_size)
			memcpy(&woken, s.raw + ev->wake_pid_off, 4);
		st->wakeups++;
		/* the wakeup the analyzer takes: sched_waking where both are recorded */
		if (ev->carry && woken > 0 && (e->kind != WC_EVENT_WAKEUP || !ev->has_waking) &&
		    (err = wc_carry_wake(ev->carry, (uint32_t)woken, e->kind == WC_EVENT_WAKEUP_NEW,
					 s.tid, s.pid, s.cpu, (uint16_t)e->event_id, s.time, s.ips,
					 (uint32_t)s.nr, s.raw, raw_size)))
			return err;
	} else
		st->other_tp++;
	return wc_writer_add(w, &r);
}

/*
 * Fill in the build-id of a mapping whose MMAP2 record has none, reading the file (through
 * /proc/PID/root, so a process in another mount namespace gets its own file) once per file
 * identity, as perf record does at the end of a recording on such kernels.
 */
static void fill_build_id(struct wc_events *ev, struct wc_rec_mmap *m, const char *name)
{
	struct wc_bid_key key = { .dev = (uint64_t)m->maj << 32 | m->min,
				  .ino = m->ino,
				  .ino_generation = m->ino_generation };
	struct wc_bid *b;
	char path[4096 + 32];
	int n;

	if (name[0] != '/' || (!m->ino && !m->maj && !m->min))
		return;
	b = wc_bid_cache_get(ev->bids, &key);
	if (!b) /* out of memory: no build-id, as for a file without one */
		return;
	if (!b->len) {
		snprintf(path, sizeof(path), "/proc/%u/root%s", m->pid, name);
		n = wc_elf_build_id(path, b->id, sizeof(b->id));
		if (n == -ENOENT || n == -EACCES)
			n = wc_elf_build_id(name, b->id, sizeof(b->id));
		b->len = n > 0 ? (int8_t)n : -1;
	}
	if (b->len > 0) {
		m->build_id_size = (uint8_t)b->len;
		memcpy(m->build_id, b->id, (size_t)b->len);
	}
}

static int on_mmap2(struct wc_events *ev, struct wc_writer *w, const struct perf_event_header *h)
{
	struct {
		struct wc_rec_mmap r;
		char name[4096 + 8];
	} m;
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t pid, tid, cpu, name_max;
	uint64_t time;
	size_t len;

	if (!parse_sample_id(h, &pid, &tid, &time, &cpu) ||
	    h->size < sizeof(*h) + 64 + SAMPLE_ID_BYTES)
		return 0;
	memset(&m.r, 0, sizeof(m.r));
	m.r.h.type = WC_REC_MMAP;
	m.r.h.flags = WC_REC_F_TIME;
	m.r.time_ns = time;
	memcpy(&m.r.pid, p, 4);
	memcpy(&m.r.tid, p + 4, 4);
	memcpy(&m.r.addr, p + 8, 8);
	memcpy(&m.r.len, p + 16, 8);
	memcpy(&m.r.pgoff, p + 24, 8);
	/*
	 * The flag only where our events asked for build-ids: the kernel sets it in the
	 * record it hands each event in turn and does not clear it, so an event without
	 * attr.build_id that comes after one with it gets the flag over maj/min/ino (seen
	 * with another recorder running: wcdemo's build-id 00000000d487a700000000006...).
	 */
	if (!ev->no_build_id && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		m.r.build_id_size = p[32] <= WC_BUILD_ID_MAX ? p[32] : WC_BUILD_ID_MAX;
		memcpy(m.r.build_id, p + 36, m.r.build_id_size);
	} else {
		memcpy(&m.r.maj, p + 32, 4);
		memcpy(&m.r.min, p + 36, 4);
		memcpy(&m.r.ino, p + 40, 8);
		memcpy(&m.r.ino_generation, p + 48, 8);
	}
	memcpy(&m.r.prot, p + 56, 4);
	memcpy(&m.r.flags, p + 60, 4);
	name_max = h->size - (uint32_t)sizeof(*h) - 64 - SAMPLE_ID_BYTES;
	len = strnlen((const char *)p + 64, name_max < 4096 ? name_max : 4096);
	memcpy(m.name, p + 64, len);
	memset(m.name + len, 0, 8);
	if (!m.r.build_id_size)
		fill_build_id(ev, &m.r, m.name);
	/* a module the unwinder must learn of (not an anonymous one: JIT code has no file) */
	if ((m.r.prot & PROT_EXEC) && m.name[0] == '/' && ev->unwind)
		wc_unwind_forget(ev->unwind, m.r.pid, m.r.time_ns);
	m.r.h.size = WC_ALIGN8(sizeof(m.r) + len + 1);
	return wc_writer_add(w, &m);
}

/* The median of the @n delays of histogram @h (ns: the middle of its bin), 0 when @n < 16. */
static uint32_t median_delay(const uint64_t h[WC_IN_DELAY_BINS], uint64_t n)
{
	uint64_t seen = 0;

	if (n < 16)
		return 0;
	for (int b = 0; b < WC_IN_DELAY_BINS; b++) {
		seen += h[b];
		if (seen * 2 >= n)
			return (uint32_t)(b * WC_IN_DELAY_BIN_NS + WC_IN_DELAY_BIN_NS / 2);
	}
	return 0;
}

/*
 * The delay an untraced switch-in is placed by, ns (wcanalyze ends the off-CPU interval that
 * much before the record): the median delay of the switch-in record after the switch-out
 * record of the switches a sched_switch showed, from the idle task when @from_idle, else from
 * another task.  Those of the switch-in's own CPU (@ring; NULL: none) first, where 16 have been
 * seen: that CPU's, then the other kind of that CPU's, then every CPU's of the same kind, then
 * of the other; 0 when none has 16.
 *
 * The CPU's own come first because the delay is the CPU's.  On this project's VMs, with a
 * thread sleeping 50 or 500 us at a time pinned to CPU 1 and CPU 0 mostly idle, the switches
 * out of CPU 0's idle task took medians of 2.7 to 4.4 us from record to record, and the
 * untraced switch-ins out of CPU 1's idle task 0.3 to 0.7 us from the tracepoint (bpftrace's
 * stamp, its own cost taken off).  With tests/nap pinned to CPU 1 beside the recorder
 * (tests/analyze-live.sh, 1e), placed by every CPU's switches out of idle they came 2.4 and
 * 2.6 us early each; by CPU 1's own switches from a task, 0.58 to 0.79.  A switch from a task
 * writes its switch-out record within that delay, which an untraced one does not: that kind
 * comes out a few hundred ns long.
 */
static uint32_t in_delay(const struct wc_events *ev, const struct ring *ring, int from_idle)
{
	uint32_t d = 0;

	if (ring)
		d = median_delay(ring->in_delay[from_idle], ring->in_delay_n[from_idle]);
	if (!d && ring)
		d = median_delay(ring->in_delay[!from_idle], ring->in_delay_n[!from_idle]);
	if (!d)
		d = median_delay(ev->in_delay[from_idle], ev->in_delay_n[from_idle]);
	if (!d)
		d = median_delay(ev->in_delay[!from_idle], ev->in_delay_n[!from_idle]);
	return d;
}

/* Count delay @d (ns) of a traced switch on @ring's CPU, from the idle task when @from_idle, in
 * that CPU's histogram and in every CPU's (events-priv.h). */
static void count_delay(struct wc_events *ev, struct ring *ring, int from_idle, uint64_t d)
{
	uint64_t bin = d / WC_IN_DELAY_BIN_NS;

	if (bin >= WC_IN_DELAY_BINS)
		bin = WC_IN_DELAY_BINS - 1;
	ev->in_delay[from_idle][bin]++;
	ev->in_delay_n[from_idle]++;
	ring->in_delay[from_idle][bin]++;
	ring->in_delay_n[from_idle]++;
}

/* The switch-in @r tells: its time less its delay, as wcanalyze takes it. */
static uint64_t switched_at(const struct wc_rec_switch_in *r)
{
	return r->time_ns > r->delay_ns ? r->time_ns - r->delay_ns : r->time_ns;
}

/*
 * A context-switch record (PERF_RECORD_SWITCH_CPU_WIDE).  For each switch the kernel writes,
 * in this CPU's ring and in this order: the sched_switch event and the switch-out record in
 * the context of the task switched out (__schedule() and prepare_task_switch() in
 * kernel/sched/core.c), then the switch-in record in the context of the task switched in
 * (finish_task_switch()).  A switch-in record with no sched_switch of its previous task
 * before it is a switch the sched_switch events missed: kept as a SWITCH_IN.  Seen on a
 * 6.18 kernel whose CPU 1 delivers no perf event at all while its idle task runs (no
 * sched_switch out of idle, no cpu-clock sample of idle, no switch-out record), while the
 * switch-in record of the task that follows, written in that task's context, arrives.  The
 * tid of an exiting task is -1 in these records: wcanalyze gives a switch-in of tid -1 to the
 * task that leaves the CPU next (sched.h).
 */
static int on_switch(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
		     const struct perf_event_header *h, struct wc_drain_stats *st)
{
	struct wc_rec_switch_in r = { .h = { sizeof(r), WC_REC_SWITCH_IN, WC_REC_F_TIME } };
	const uint8_t *p = (const uint8_t *)(h + 1);
	int64_t prev = ring->switch_prev;

	if (!parse_sample_id(h, &r.pid, &r.tid, &r.time_ns, &r.cpu) ||
	    h->size < sizeof(*h) + 8 + SAMPLE_ID_BYTES)
		return 0;
	if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if (prev == (int64_t)r.tid && r.time_ns >= ring->switch_ns)
			ring->out_ns = r.time_ns; /* of the switch its sched_switch showed */
		return 0;
	}
	ring->switch_prev = -1;
	memcpy(&r.prev_pid, p, 4);
	memcpy(&r.prev_tid, p + 4, 4);
	/* its sched_switch was traced; a prev of -1 is a task exiting (its pid detached:
	 * perf_event_pid_type() in kernel/events/core.c), the one that sched_switch named */
	if (prev == (int64_t)r.prev_tid || (prev > 0 && r.prev_tid == UINT32_MAX)) {
		if (ring->out_ns && ring->out_ns <= r.time_ns)
			count_delay(ev, ring, prev == 0, r.time_ns - ring->out_ns);
		ring->out_ns = 0;
		return 0;
	}
	ring->out_ns = 0;
	r.delay_ns = in_delay(ev, ring, r.prev_tid == 0);
	ring->rt_kept_tid = 0;
	st->switch_ins++;
	if (ev->carry && wc_carry_in(ev->carry, r.tid, r.pid, r.cpu, switched_at(&r)))
		return -ENOMEM;
	return wc_writer_add(w, &r);
}

/*
 * A context-switch record of per-task events (PERF_RECORD_SWITCH, pertask.c): each switch-in
 * of a target thread becomes a SWITCH_IN.  Where this CPU's last sched_switch switched a
 * target thread out to this one (next_pid), the switch was traced: the record's delay after
 * that sched_switch is exact, and measured (in_delay()) for the others, whose sched_switch
 * fired in the context of a task that is not the target's and reached none of our events.
 */
static int on_task_switch(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
			  const struct perf_event_header *h, struct wc_drain_stats *st)
{
	struct wc_rec_switch_in r = { .h = { sizeof(r), WC_REC_SWITCH_IN, WC_REC_F_TIME } };
	bool traced;

	if (!parse_sample_id(h, &r.pid, &r.tid, &r.time_ns, &r.cpu))
		return 0;
	/* a target thread's own record: one made before the events were on has no FORK */
	if (wc_pertask_seen(ev, r.tid, r.time_ns))
		return -ENOMEM;
	/* the switch-ins from them from now on, once every thread's have been turned on */
	if (r.time_ns >= ring->rec_all_ns)
		ring->rec_seen = true;
	if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if (ring->switch_prev == (int64_t)r.tid && r.time_ns >= ring->switch_ns)
			ring->out_ns = r.time_ns; /* of the switch its sched_switch showed */
		return 0;
	}
	traced = ring->switch_prev >= 0 && ring->switch_next == (int64_t)r.tid && r.tid &&
		 r.time_ns >= ring->switch_ns;
	r.prev_pid = r.prev_tid = UINT32_MAX - 1; /* not told by per-task records */
	if (traced) {
		/* from the sched_switch: exact.  The delay an untraced one is placed by
		 * (in_delay()), from the idle task apart (the switch-in events see those: their tid
		 * is 0), is measured from the switch-out record where the previous task is the
		 * target's (its sched_switch's callchain came before), else from the switch-in
		 * event, which takes none */
		uint64_t from =
			ring->out_ns && ring->out_ns <= r.time_ns ? ring->out_ns : ring->switch_ns;

		count_delay(ev, ring, ring->switch_prev == 0, r.time_ns - from);
		st->switch_ins_timed++;
		r.delay_ns = (uint32_t)(r.time_ns - ring->switch_ns < UINT32_MAX
						? r.time_ns - ring->switch_ns
						: UINT32_MAX);
	} else {
		/* with the switch-in events, the untraced ones are out of the idle task (a CPU
		 * whose idle task's events the kernel drops): the median of those timed, this
		 * CPU's first, out of idle or else from a task (in_delay()), as the per-CPU way's
		 * (on_switch()), rather than the probes' of the start.  Without them, or before 16
		 * are timed, the probes' (probe.c): from idle where the CPU's last target left it
		 * idle, else from another task; where they failed, the median all the same */
		uint32_t measured = in_delay(ev, ring, 1),
			 probed = ring->last_next == 0 ? ring->probe_idle_ns : ring->probe_task_ns;

		r.delay_ns = ev->swin_on && measured ? measured : probed ? probed : measured;
	}
	ring->switch_prev = ring->switch_next = -1;
	ring->out_ns = 0;
	ring->rt_kept_tid = 0;
	ring->curr = r.tid;
	ring->curr_ns = r.time_ns;
	st->switch_ins++;
	if (ev->carry && wc_carry_in(ev->carry, r.tid, r.pid, r.cpu, switched_at(&r)))
		return -ENOMEM;
	return wc_writer_add(w, &r);
}

static int on_comm(struct wc_events *ev, struct wc_writer *w, const struct perf_event_header *h,
		   struct wc_drain_stats *st)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct wc_rec_comm r = { .h = { sizeof(r), WC_REC_COMM, WC_REC_F_TIME } };
	uint32_t pid, tid, cpu;
	uint64_t time;

	if (!parse_sample_id(h, &pid, &tid, &time, &cpu) || h->size < sizeof(*h) + 8 + 32)
		return 0;
	r.time_ns = time;
	memcpy(&r.pid, p, 4);
	memcpy(&r.tid, p + 4, 4);
	strncpy(r.comm, (const char *)p + 8, sizeof(r.comm) - 1);
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		r.flags = WC_COMM_EXEC;
		if (ev->unwind)
			wc_unwind_forget(ev->unwind, r.pid, r.time_ns);
	}
	st->comm++;
	return wc_writer_add(w, &r);
}

/* PERF_RECORD_FORK and PERF_RECORD_EXIT */
static int on_task(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
		   const struct perf_event_header *h, struct wc_drain_stats *st)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct wc_rec_task r = { .h = { sizeof(r),
					h->type == PERF_RECORD_FORK ? WC_REC_FORK : WC_REC_EXIT,
					WC_REC_F_TIME } };

	if (h->size < sizeof(*h) + 24)
		return 0;
	memcpy(&r.pid, p, 4);
	memcpy(&r.ppid, p + 4, 4);
	memcpy(&r.tid, p + 8, 4);
	memcpy(&r.ptid, p + 12, 4);
	memcpy(&r.time_ns, p + 16, 8);
	if (h->type == PERF_RECORD_FORK) {
		st->fork++;
		if (ev->per_task) { /* a target's: only its events see its forks */
			wc_pertask_wake_check(ev, r.tid);
			if (wc_pertask_wake_track(ev, r.tid, false, r.time_ns))
				return -ENOMEM;
		}
	} else {
		int err;

		st->exit++;
		/* written in the exiting thread's context: it was switched in (wcanalyze ends its
		 * last run here) */
		if (ev->per_task && (err = unseen_switch_in(ev, ring, w, r.tid, r.time_ns, -1, st)))
			return err;
		if (ev->per_task && wc_pertask_wake_track(ev, r.tid, true, r.time_ns))
			return -ENOMEM;
		if (ev->carry && wc_carry_exit(ev->carry, r.tid, r.time_ns))
			return -ENOMEM;
	}
	/* a new process: a pid reused; the exit of a process is not its end while any of
	 * its threads still run (a leader's pthread_exit()) */
	if (h->type == PERF_RECORD_FORK && r.pid != r.ppid && r.pid == r.tid && ev->unwind) {
		wc_unwind_forget(ev->unwind, r.pid, r.time_ns);
		if (ev->targets_cap && target_has(ev, r.ppid) && wc_events_target_add(ev, r.pid))
			return -ENOMEM;
	}
	return wc_writer_add(w, &r);
}

/* PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES */
static int on_lost(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
		   const struct perf_event_header *h, struct wc_drain_stats *st)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct wc_rec_lost r = { .h = { sizeof(r), WC_REC_LOST, WC_REC_F_TIME } };
	uint32_t pid, tid, cpu;
	uint64_t time;

	/* what this CPU's ring said before the loss no longer pairs with what follows */
	ring->switch_prev = ring->switch_next = ring->last_next = ring->curr = -1;
	ring->curr_before = -1;
	ev->wake_lost = true; /* a FORK may be lost: pertask.c raises no floor past it */
	ring->out_ns = 0;
	ring->rt_kept_tid = 0;

	if (!parse_sample_id(h, &pid, &tid, &time, &cpu))
		return 0;
	if (ev->unwind) /* an exec or a mapping may have been lost */
		wc_unwind_forget_all(ev->unwind, time);
	r.time_ns = time;
	r.cpu = cpu;
	if (ev->carry && wc_carry_lost(ev->carry, (uint32_t)ring->cpu, time))
		return -ENOMEM;
	if (h->type == PERF_RECORD_LOST) {
		memcpy(&r.count, p + 8, 8);
		r.kind = WC_LOST_RECORDS;
		st->lost_records += r.count;
	} else {
		memcpy(&r.count, p, 8);
		r.kind = WC_LOST_SAMPLES;
		st->lost_samples += r.count;
	}
	return wc_writer_add(w, &r);
}

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE */
static int on_throttle(struct wc_events *ev, struct wc_writer *w, const struct perf_event_header *h,
		       struct wc_drain_stats *st)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct wc_rec_throttle r = { .h = { sizeof(r), WC_REC_THROTTLE, WC_REC_F_TIME } };
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	int i;

	if (!parse_sample_id(h, &pid, &tid, &time, &cpu) || h->size < sizeof(*h) + 24)
		return 0;
	memcpy(&r.time_ns, p, 8);
	memcpy(&id, p + 8, 8);
	i = id_get(ev, id);
	r.cpu = cpu;
	r.event_id = (uint16_t)(i < 0 ? 0xffff : ev->events[i].event_id);
	r.throttled = h->type == PERF_RECORD_THROTTLE;
	st->throttles += r.throttled;
	return wc_writer_add(w, &r);
}

static struct set_slot *set_find(struct set_slot *t, size_t cap, uint64_t key)
{
	for (size_t i = (key * 0x9e3779b97f4a7c15ull) >> 40 & (cap - 1);; i = (i + 1) & (cap - 1))
		if (t[i].key == key || !t[i].key)
			return &t[i];
}

/* The slot of @key, added (id 0) where new.  Return: it, or NULL on ENOMEM. */
static struct set_slot *set_slot(struct wc_events *ev, uint64_t key)
{
	struct set_slot *s;

	if ((ev->nsets + 1) * 2 > ev->sets_cap) {
		size_t cap = ev->sets_cap ? ev->sets_cap * 2 : 1024;
		struct set_slot *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < ev->sets_cap; i++)
			if (ev->sets[i].key)
				*set_find(t, cap, ev->sets[i].key) = ev->sets[i];
		free(ev->sets);
		ev->sets = t;
		ev->sets_cap = cap;
	}
	s = set_find(ev->sets, ev->sets_cap, key);
	if (!s->key) {
		s->key = key;
		ev->nsets++;
	}
	return s;
}

/*
 * Per-task events: is record @h, in ring @c, of a thread's second set of events?  A thread
 * created by a target thread while pertask.c listed the threads inherited its creator's
 * events, and the next pass may have opened it again: both sets fire then.  The first id seen
 * for each (thread, ring, event) is kept.  An EXIT frees the thread's entries for a later
 * thread of the same tid (which has its creator's events).  The per-CPU wakeup events, whose
 * records name the waker, and the per-CPU sampling event are not per task.
 */
static bool second_set(struct wc_events *ev, int c, const struct perf_event_header *h)
{
	const uint8_t *end = (const uint8_t *)h + h->size;
	uint64_t id;
	uint32_t tid;
	struct set_slot *s;
	int i;

	if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 16) {
		memcpy(&id, h + 1, 8);
		memcpy(&tid, (const uint8_t *)(h + 1) + 12, 4);
	} else if (h->type != PERF_RECORD_LOST && h->type != PERF_RECORD_LOST_SAMPLES &&
		   h->type != PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + SAMPLE_ID_BYTES) {
		memcpy(&id, end - 8, 8);
		memcpy(&tid, end - 28, 4);
	} else {
		return false;
	}
	i = id_get(ev, id);
	if (i < 0 && ev->rec_ids.keys && wc_map64_get(&ev->rec_ids, id))
		i = REC_SET_INDEX; /* a thread's context-switch records (pertask.c) */
	if (i < 0 || tid == UINT32_MAX ||
	    (i != REC_SET_INDEX &&
	     (ev->events[i].kind == WC_EVENT_WAKING || ev->events[i].kind == WC_EVENT_WAKEUP ||
	      ev->events[i].kind == WC_EVENT_WAKEUP_NEW ||
	      (ev->events[i].kind == WC_EVENT_SAMPLE && ev->samples_per_cpu))))
		return false;
	s = set_slot(ev, (uint64_t)tid << 24 | (uint64_t)c << 8 | (uint64_t)(i + 1));
	if (!s)
		return false; /* out of memory: kept, as without the check */
	if (!s->id)
		s->id = id;
	if (s->id != id)
		return true;
	if (h->type == PERF_RECORD_EXIT)
		for (int k = 0; k < ev->ncpus; k++)
			for (int j = 0; j <= REC_SET_INDEX; j++) {
				s = set_find(ev->sets, ev->sets_cap,
					     (uint64_t)tid << 24 | (uint64_t)k << 8 |
						     (uint64_t)(j + 1));
				if (s->key)
					s->id = 0;
			}
	return false;
}

int wc_events_on_record(struct wc_events *ev, struct ring *ring, struct wc_writer *w,
			const struct perf_event_header *h, int self_pid, struct wc_drain_stats *st)
{
	if (ev->per_task && second_set(ev, (int)(ring - ev->rings), h)) {
		st->second_sets++;
		return 0;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(ev, ring, w, h, self_pid, st);
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return on_switch(ev, ring, w, h, st);
	case PERF_RECORD_SWITCH:
		return ev->per_task ? on_task_switch(ev, ring, w, h, st) : 0;
	case PERF_RECORD_MMAP2:
		st->mmap++;
		return on_mmap2(ev, w, h);
	case PERF_RECORD_COMM:
		return on_comm(ev, w, h, st);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return on_task(ev, ring, w, h, st);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return on_lost(ev, ring, w, h, st);
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return on_throttle(ev, w, h, st);
	}
	return 0;
}

/*
 * Is the drain behind: a ring more than half full (the poll wakes it at a quarter, the
 * watermark), this one (@r, read up to @tail) or another?  Checked every 64 records: then
 * the unwinder answers from its cache only
 * (wc_unwind_set_busy()), so that the rings are emptied before they overflow.  The other
 * rings' data_head and data_tail are only read: a stale value errs by a few records.
 */
static bool behind(const struct wc_events *ev, const struct ring *r, uint64_t tail)
{
	for (int c = 0; c < ev->ncpus; c++) {
		const struct ring *o = &ev->rings[c];
		uint64_t head = __atomic_load_n(&o->meta->data_head, __ATOMIC_RELAXED);
		uint64_t done = o == r ? tail : o->meta->data_tail;

		if (head - done > o->size / 2)
			return true;
	}
	return false;
}

/* A record stamped after the cut is the next file's.  NMI-context records (cpu-clock samples)
 * may come, within a ring, before an earlier-stamped one: such a record, rarely, moves to the
 * next file with what follows it. */
bool wc_events_after(const struct wc_events *ev, const struct perf_event_header *h,
		     uint64_t until_ns)
{
	uint64_t ident, time = 0;
	uint32_t pid, tid, cpu;
	int i;

	if (!until_ns)
		return false;
	if (h->type != PERF_RECORD_SAMPLE)
		return parse_sample_id(h, &pid, &tid, &time, &cpu) && time > until_ns;
	/* PERF_SAMPLE_IDENTIFIER, then (no PERF_SAMPLE_IP) TID, then TIME: at 16 */
	if (h->size < sizeof(*h) + 24)
		return false;
	memcpy(&ident, h + 1, 8);
	i = id_get(ev, ident);
	if (i < 0 || (ev->events[i].sample_type & PERF_SAMPLE_IP) ||
	    !(ev->events[i].sample_type & PERF_SAMPLE_TIME))
		return false;
	memcpy(&time, (const uint8_t *)(h + 1) + 16, 8);
	return time > until_ns;
}

static int drain_ring(struct wc_events *ev, struct ring *r, struct wc_writer *w, int self_pid,
		      uint64_t until_ns, struct wc_drain_stats *st)
{
	uint32_t n = 0;
	uint64_t head, tail, mask = r->size - 1;
	/* first what a rotation spilled, older (it may spill the rings again: seam.c); when it
	 * reaches @until_ns, the ring's records are later still */
	int err = r->spill_len ? wc_events_drain_spill(ev, r, w, self_pid, until_ns, st) : 0;

	if (err)
		return err < 0 ? err : 0;
	/* acquire: the record bytes below head are visible once head is */
	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	st->ring_bytes = r->size;
	if (head - tail > st->peak_fill) {
		st->peak_fill = head - tail;
		st->peak_fill_cpu = r->cpu;
	}
	while (tail < head && !err) {
		const struct perf_event_header *h = (const void *)(r->data + (tail & mask));
		uint64_t off = tail & mask;
		struct perf_event_header hdr;

		/* the header itself may wrap */
		if (off + sizeof(hdr) > r->size) {
			size_t first = r->size - off;

			memcpy(&hdr, r->data + off, first);
			memcpy((uint8_t *)&hdr + first, r->data, sizeof(hdr) - first);
		} else {
			hdr = *h;
		}
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break; /* cannot happen with a sane kernel; do not loop on it */
		if (off + hdr.size > r->size) {
			size_t first = r->size - off;

			memcpy(ev->copy, r->data + off, first);
			memcpy(ev->copy + first, r->data, hdr.size - first);
			h = (const void *)ev->copy;
		}
		if (wc_events_after(ev, h, until_ns))
			break; /* the next file's: left in the ring */
		if (ev->unwind && !(n++ % 64))
			wc_unwind_set_busy(ev->unwind, behind(ev, r, tail));
		err = wc_events_on_record(ev, r, w, h, self_pid, st);
		tail += hdr.size;
	}
	/* release: we are done reading the bytes below tail before the kernel may reuse them */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return err;
}

int wc_events_drain(struct wc_events *ev, struct wc_writer *w, int self_pid,
		    struct wc_drain_stats *stats)
{
	return wc_events_drain_until(ev, w, self_pid, 0, stats);
}

int wc_events_drain_until(struct wc_events *ev, struct wc_writer *w, int self_pid,
			  uint64_t until_ns, struct wc_drain_stats *stats)
{
	static const struct wc_rec_header round = { sizeof(round), WC_REC_ROUND, 0 };
	int err;

	for (int c = 0; c < ev->ncpus; c++) {
		err = drain_ring(ev, &ev->rings[c], w, self_pid, until_ns, stats);
		if (err)
			return err;
	}
	if (ev->deferred_len && (err = replay_deferred(ev, w, self_pid, stats)))
		return err;
	if (ev->npend_in && (err = pending_ins(ev, w, stats)))
		return err;
	ev->passes++;
	if (ev->unwind)
		wc_unwind_end_round(ev->unwind);
	return wc_writer_add(w, &round);
}
