/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rectypes.c - see rectypes.h. */
#include "rectypes.h"

#define TIMED			WC_RECT_TIMED
#define QUEUED			WC_RECT_QUEUED
#define META			WC_RECT_METADATA
#define ROW(type, nm, size, fl) [type] = { .name = nm, .min_size = size, .flags = fl }

const struct wc_rec_type_info wc_rec_types[WC_REC_TYPE_COUNT] = {
	ROW(WC_REC_HOST, "host", sizeof(struct wc_rec_host), META),
	ROW(WC_REC_CLOCK, "clock", sizeof(struct wc_rec_clock), META),
	ROW(WC_REC_EVENT_ATTR, "event_attr", sizeof(struct wc_rec_event_attr), META),
	ROW(WC_REC_TP_FORMAT, "tp_format", sizeof(struct wc_rec_tp_format), META),
	ROW(WC_REC_KALLSYMS, "kallsyms", sizeof(struct wc_rec_kallsyms), META),
	ROW(WC_REC_COMM, "comm", sizeof(struct wc_rec_comm), TIMED | QUEUED),
	ROW(WC_REC_FORK, "fork", sizeof(struct wc_rec_task), TIMED | QUEUED),
	ROW(WC_REC_EXIT, "exit", sizeof(struct wc_rec_task), TIMED | QUEUED),
	/* a file name of at least one 8-byte unit */
	ROW(WC_REC_MMAP, "mmap", sizeof(struct wc_rec_mmap) + 8, TIMED | QUEUED),
	ROW(WC_REC_STACK, "stack", sizeof(struct wc_rec_stack), 0),
	ROW(WC_REC_TRACEPOINT, "tracepoint", sizeof(struct wc_rec_tracepoint), TIMED | QUEUED),
	ROW(WC_REC_SAMPLE, "sample", sizeof(struct wc_rec_sample), TIMED | QUEUED),
	ROW(WC_REC_LOST, "lost", sizeof(struct wc_rec_lost), TIMED | QUEUED),
	ROW(WC_REC_ROUND, "round", sizeof(struct wc_rec_header), 0),
	ROW(WC_REC_THROTTLE, "throttle", sizeof(struct wc_rec_throttle), TIMED | QUEUED),
	ROW(WC_REC_TRAILER, "trailer", sizeof(struct wc_rec_trailer), TIMED),
	ROW(WC_REC_NOTE, "note", sizeof(struct wc_rec_note), META),
	ROW(WC_REC_PAYLOAD, "payload", sizeof(struct wc_rec_payload), 0),
	ROW(WC_REC_TP_INLINE, "tp_inline", sizeof(struct wc_rec_tp_inline), TIMED | QUEUED),
	ROW(WC_REC_KSYM, "ksym", sizeof(struct wc_rec_ksym), META),
	ROW(WC_REC_SWITCH_IN, "switch_in", sizeof(struct wc_rec_switch_in), TIMED | QUEUED),
	ROW(WC_REC_IMAGE, "image", sizeof(struct wc_rec_image), META),
	ROW(WC_REC_USYM, "usym", sizeof(struct wc_rec_usym), META),
	ROW(WC_REC_CARRIED, "carried", sizeof(struct wc_rec_carried), TIMED | QUEUED),
};
