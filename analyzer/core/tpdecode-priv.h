/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tpdecode-priv.h - what tpdecode.c (format texts parsed, event ids bound to their fields)
 * and tpdecode-fields.c (payloads decoded by the bound fields) share; nothing else uses it.
 */
#ifndef WC_ANALYZER_TPDECODE_PRIV_H
#define WC_ANALYZER_TPDECODE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "analyzer/core/tpdecode.h"

#define ERR_BYTES	256
#define FIELD_END_MAX	(1u << 20) /* bytes; a field ending beyond this is refused */
#define CACHE_MIN_SLOTS 16u	   /* a power of two */
#define CACHE_MAX_USED	4096u	   /* distinct prev_state values cached per event id */
#define MAX_FIELDS	7
#define STATE_KEY	"prev_state="

enum field_kind { F_NUM, F_STR };

enum {
	SW_PREV_COMM,
	SW_PREV_PID,
	SW_PREV_PRIO,
	SW_PREV_STATE,
	SW_NEXT_COMM,
	SW_NEXT_PID,
	SW_NEXT_PRIO,
	SW_COUNT
};
enum { WK_COMM, WK_PID, WK_PRIO, WK_SUCCESS, WK_TARGET_CPU, WK_COUNT };
enum { MG_COMM, MG_PID, MG_PRIO, MG_ORIG_CPU, MG_DEST_CPU, MG_COUNT };
enum { RT_PID, RT_RUNTIME, RT_COUNT };
enum { ST_PID, ST_DELAY, ST_COUNT };

/* A field as the decoder reads it; all positions in bytes from the payload start. */
struct fref {
	const char *name; /* libtraceevent's string, valid as long as the handle */
	uint32_t offset, size;
	bool present;
	bool is_signed;
	bool dynamic;  /* __data_loc: a u32 (length << 16 | offset) pointing at the string */
	bool relative; /* __rel_loc: that offset counts from the end of the u32 */
};

/* One cached rendering of a prev_state value. */
struct state_slot {
	uint64_t raw;
	bool used;
	bool preempted;
	char state;
	char text[WC_TP_STATE_BYTES];
};

struct binding {
	enum wc_tp_role role;
	struct tep_event *event;
	struct fref f[MAX_FIELDS];
	size_t nfields;
	uint32_t need_bytes; /* payload bytes the fixed parts of the fields span */
	/* WC_TP_SWITCH only: */
	bool can_render;  /* print fmt parsed, common_type known */
	struct fref type; /* common_type, written into the synthetic payload */
	uint8_t *scratch; /* synthetic payload, scratch_bytes: the whole record layout */
	uint32_t scratch_bytes;
	struct state_slot *slots; /* nslots (a power of two) or NULL */
	uint32_t nslots, nused;
};

struct wc_tpdecode {
	struct tep_handle *tep; /* holds only formats add_format() accepted */
	struct trace_seq seq;	/* rendering buffer */
	struct binding **by_id; /* indexed by event id, nids entries, NULL when unbound */
	uint32_t nids;
	char err[ERR_BYTES];
};

/* tpd_err() - set the message wc_tpdecode_error() returns next (printf format). */
void tpd_err(struct wc_tpdecode *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tpd_seq_release() - free @s's buffer, also after a failed realloc (trace_seq_destroy() does
 * not then); @s is left unusable until trace_seq_init(). */
void tpd_seq_release(struct trace_seq *s);

/* tpd_role_name() - "switch", "wakeup", "migrate", "runtime" or "stat". */
const char *tpd_role_name(enum wc_tp_role role);

#endif /* WC_ANALYZER_TPDECODE_PRIV_H */
