/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events-priv.h - what events.c and drain.c share about the open events; nothing else uses it. */
#ifndef WC_RECORDER_EVENTS_PRIV_H
#define WC_RECORDER_EVENTS_PRIV_H

#include <linux/perf_event.h>
#include <poll.h>

#include "recorder/events.h"

/* sample_id of side-band records (sample_id_all) with our sample_type: pid/tid, time, cpu, id */
#define SAMPLE_ID_BYTES 32
#define BASE_SAMPLE_TYPE                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD)

struct ring {
	int cpu;
	int fd; /* owner of the buffer */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size; /* bytes of data, a power of two */
	int64_t switch_prev; /* the task (tid) a sched_switch of this CPU last switched out, until
			      * the context-switch record of the same switch; -1: none */
};

struct id_slot {
	uint64_t id; /* 0: empty */
	int event;   /* index in events[] */
};

/*
 * Build-ids read from disk when MMAP2 records come without them (kernels before 5.12, or
 * the forced fallback), by file identity; direct-mapped, a collision just reads again.
 */
#define WC_BID_SLOTS 256
struct bid_slot {
	uint64_t ino, ino_generation;
	uint32_t maj, min;
	int8_t len; /* 0: empty slot, -1: the file has no readable build-id */
	uint8_t id[WC_BUILD_ID_MAX];
};

struct wc_events {
	struct wc_event events[WC_MAX_EVENTS];
	struct perf_event_attr attrs[WC_MAX_EVENTS];
	int nevents;
	int *fds; /* ncpus * nevents */
	struct ring *rings;
	int ncpus;
	struct pollfd *pfds;
	struct id_slot *ids;
	size_t nids_slots;
	int clockid;
	bool no_clockid, no_build_id, cycles_fallback;
	bool no_runtime; /* sched_stat_runtime was wanted, and the kernel lacks it */
	bool no_switch_records; /* the kernel has no context-switch records (attr.context_switch) */
	char wakeup_used[48];
	struct wc_stack_table *stacks, *payloads;
	uint8_t *copy; /* a record that wraps around the buffer end */
	struct bid_slot bids[WC_BID_SLOTS];
	char why[256];
};

static inline int id_get(const struct wc_events *ev, uint64_t id)
{
	size_t mask = ev->nids_slots - 1;

	for (size_t i = id & mask;; i = (i + 1) & mask) {
		if (ev->ids[i].id == id)
			return ev->ids[i].event;
		if (!ev->ids[i].id)
			return -1;
	}
}

#endif
