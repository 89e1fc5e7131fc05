/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tpdecode.h - decode sched tracepoint payloads with libtraceevent, from the format texts a
 * trace carries (TP_FORMAT records), never from this machine's tracefs.
 *
 * Usage: wc_tpdecode_new(), then wc_tpdecode_add_format() for each TP_FORMAT record, then
 * wc_tpdecode_bind() for each EVENT_ATTR of a sched tracepoint (every field is looked up by
 * name once, there), then wc_tpdecode_decode_*() per event.  Payloads are untrusted: a
 * decoder never reads outside [data, data + size).  They are in this machine's byte order
 * (a .wct file is little-endian).
 *
 * The state a task was switched out in comes from the format's own print fmt: the first time
 * a prev_state value is seen, the decoder renders a payload holding that value (empty comms,
 * zero pids) with libtraceevent's print machinery and keeps what it printed after
 * "prev_state=" (cached per value: a trace holds few distinct ones).  So "R+", "S", "D|K", "I"
 * mean what the recording kernel meant, whatever its __print_flags table and preemption
 * marker ('+' from TASK_STATE_MAX on 3.2+, TASK_REPORT_MAX on 4.14+); no table is built in.
 *
 * A decoder is not thread-safe: decoding fills that cache.  Use one per thread.
 */
#ifndef WC_TPDECODE_H
#define WC_TPDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wc_tpdecode;

/* What a bound event is decoded as. */
enum wc_tp_role {
	WC_TP_SWITCH = 1,    /* sched_switch */
	WC_TP_WAKEUP = 2,    /* sched_wakeup, sched_waking, sched_wakeup_new: one layout */
	WC_TP_MIGRATE = 3,   /* sched_migrate_task */
	WC_TP_RUNTIME = 4,   /* sched_stat_runtime */
	WC_TP_SWITCH_IN = 5, /* not a tracepoint: a SWITCH_IN record (struct wc_sched_event) */
	WC_TP_STAT = 6,	     /* sched_stat_sleep, sched_stat_blocked, sched_stat_iowait */
};

#define WC_TP_COMM_BYTES  17 /* TASK_COMM_LEN (16) characters and a NUL */
#define WC_TP_STATE_BYTES 8  /* state text, NUL included; a longer rendering is cut */

/* A sched_switch event. */
struct wc_switch {
	int32_t prev_tid, next_tid; /* the kernel's pid fields: thread ids; 0 is idle */
	int32_t prev_prio, next_prio;
	char prev_comm[WC_TP_COMM_BYTES], next_comm[WC_TP_COMM_BYTES]; /* NUL-terminated */
	char state;	/* first letter of state_text ('S', 'D', 'R', 'I', ...), '?' if none */
	bool preempted; /* state_text starts with 'R' or holds '+': prev stayed runnable, so
			 * its whole off-CPU interval is run-queue delay */
	uint64_t prev_state_raw;	    /* the field as recorded, zero-extended */
	char state_text[WC_TP_STATE_BYTES]; /* as the print fmt renders it: "R+", "S", "D|K";
					     * "?" when the print fmt could not be used */
};

/* A sched_wakeup, sched_waking or sched_wakeup_new event: the task woken, not the waker. */
struct wc_wakeup {
	int32_t tid;
	int32_t prio;
	int32_t target_cpu; /* -1 when the layout has no target_cpu (nor cpu) field */
	int32_t success;    /* 1 when the layout has no success field (recent kernels) */
	char comm[WC_TP_COMM_BYTES];
};

/* A sched_migrate_task event. */
struct wc_migrate {
	int32_t tid;
	int32_t prio;
	int32_t orig_cpu, dest_cpu;
	char comm[WC_TP_COMM_BYTES];
};

/*
 * A sched_stat_runtime event (kernel/sched/fair.c update_curr(), also called for rt and
 * deadline tasks): @tid ran @runtime_ns on the scheduler's task clock since the last update of
 * its exec_start, which its switch-in set.  It fires in whatever context updated the task
 * (its own, a tick's, or a remote wakeup's holding its run queue's lock).
 */
struct wc_runtime {
	int32_t tid;
	uint64_t runtime_ns;
};

/*
 * A sched_stat_sleep, sched_stat_blocked or sched_stat_iowait event (kernel/sched/stats.c
 * __update_stats_enqueue_sleeper(), with schedstats on): @tid, enqueued at the event's time as
 * it is woken, had slept (S: sleep) or blocked (D: blocked; iowait repeats blocked's delay
 * when the task waited for I/O) @delay_ns since its dequeue at the switch-out, on its run
 * queue's clock.  It fires in the waker's context (or an interrupt's), not @tid's.
 */
struct wc_stat {
	int32_t tid;
	uint64_t delay_ns;
};

/**
 * wc_tpdecode_new() - an empty decoder, owning a libtraceevent handle with no plugins loaded
 *
 * Return: the decoder, or NULL with errno set (ENOMEM).
 */
struct wc_tpdecode *wc_tpdecode_new(void);

/** wc_tpdecode_free() - free the decoder; NULL is a no-op */
void wc_tpdecode_free(struct wc_tpdecode *d);

/**
 * wc_tpdecode_add_format() - parse one tracepoint format text
 * @system: the event's system ("sched"), NUL-terminated
 * @text:   the content of tracefs events/SYSTEM/NAME/format, NUL-terminated; copied
 *
 * The text must have the layout tracefs writes (see tplint.h): libtraceevent 1.7 crashes on
 * some malformed texts, so those never reach it.  A format whose fields parse but whose print
 * fmt libtraceevent cannot use (an unknown helper function, say), or should not render (hex
 * dumps, arrays, bitmasks: read for lengths it does not check) is accepted: its fields
 * decode, and a sched_switch bound to it reports state '?'.
 *
 * Return: 0; -EINVAL when the text is malformed or libtraceevent cannot parse its name, ID or
 * fields, or its print fmt reads a field it does not declare; -EEXIST when an event of that
 * system and name, or with that ID, was added before; -ENOMEM.  On error wc_tpdecode_error()
 * says why.  A refused format only makes the binds of its event fail (-ENOENT).
 */
int wc_tpdecode_add_format(struct wc_tpdecode *d, const char *system, const char *text);

/**
 * wc_tpdecode_bind() - decode the events of a trace's event id as one parsed event
 * @event_id:   EVENT_ATTR id of the trace
 * @event_name: "system:name", e.g. "sched:sched_switch"
 * @role:       how the payloads are decoded
 *
 * Every field the role needs is looked up by name here, once: SWITCH needs prev_comm,
 * prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio; WAKEUP needs comm, pid,
 * prio and uses success and target_cpu (or the pre-2.6.32 name cpu) when present; MIGRATE
 * needs comm, pid, prio, orig_cpu, dest_cpu; RUNTIME needs pid and runtime; STAT needs pid and
 * delay.  Numeric fields may
 * have any size of 1, 2, 4 or 8 bytes and either sign; comms may be char arrays or __data_loc /
 * __rel_loc strings.
 *
 * Return: 0; -ENOENT when no format of that event was added; -EINVAL when a needed field is
 * missing or has a shape the decoder cannot read, the name has no ':', or the role is
 * unknown; -EEXIST when the id is bound already; -ENOMEM.  On error wc_tpdecode_error()
 * names the event and the field: "sched:sched_switch: no field prev_state".
 */
int wc_tpdecode_bind(struct wc_tpdecode *d, uint16_t event_id, const char *event_name,
		     enum wc_tp_role role);

/**
 * wc_tpdecode_decode_switch() - decode a sched_switch payload
 * @event_id: id bound with WC_TP_SWITCH
 * @data:     the payload as recorded (common fields first), size bytes, read only
 * @out:      filled on success; undefined on error
 *
 * Not const on @d: the first payload with a new prev_state value renders it (a few
 * microseconds) and caches the result; later ones cost a hash lookup.
 *
 * Return: 0; -ENOENT when the id is not bound; -EINVAL when it is bound to another role, or
 * the payload ends before a field (or a __data_loc string points outside it).  On error
 * wc_tpdecode_error() says why.
 */
int wc_tpdecode_decode_switch(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			      size_t size, struct wc_switch *out);

/** wc_tpdecode_decode_wakeup() - as wc_tpdecode_decode_switch(), for a WC_TP_WAKEUP id */
int wc_tpdecode_decode_wakeup(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			      size_t size, struct wc_wakeup *out);

/** wc_tpdecode_decode_migrate() - as wc_tpdecode_decode_switch(), for a WC_TP_MIGRATE id */
int wc_tpdecode_decode_migrate(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			       size_t size, struct wc_migrate *out);

/** wc_tpdecode_decode_runtime() - as wc_tpdecode_decode_switch(), for a WC_TP_RUNTIME id */
int wc_tpdecode_decode_runtime(struct wc_tpdecode *d, uint16_t event_id, const void *data,
			       size_t size, struct wc_runtime *out);

/** wc_tpdecode_decode_stat() - as wc_tpdecode_decode_switch(), for a WC_TP_STAT id */
int wc_tpdecode_decode_stat(struct wc_tpdecode *d, uint16_t event_id, const void *data, size_t size,
			    struct wc_stat *out);

/**
 * wc_tpdecode_role_of_kind() - the role for an EVENT_ATTR kind (enum wc_event_kind)
 *
 * Return: WC_TP_SWITCH, WC_TP_WAKEUP (wakeup, waking, wakeup_new), WC_TP_MIGRATE,
 * WC_TP_RUNTIME, WC_TP_STAT (sched_stat_sleep, _blocked, _iowait), or 0 for kinds this module
 * does not decode.
 */
int wc_tpdecode_role_of_kind(uint32_t kind);

/**
 * wc_tpdecode_error() - one line on the last error, naming the event and the field
 *
 * Return: a string owned by the decoder, valid until its next call; "" before any error.
 */
const char *wc_tpdecode_error(const struct wc_tpdecode *d);

#endif /* WC_TPDECODE_H */
