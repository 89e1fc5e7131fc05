/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched-util.h - what the scheduler tests (test-sched.c, test-sched-edges.c) share: a
 * hand-built trace per test, the pipeline run over it into runs[] / offs[] / losts[], and the
 * checks of what sched.c told.  Times are ns.  Tids: A = 100, B = 200, the waker W = 300.
 */
#ifndef WC_TESTS_SCHED_UTIL_H
#define WC_TESTS_SCHED_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/core/analysis.h"
#include "sched-trace.h"

#define A 100
#define B 200
#define W 300

struct run {
	uint32_t tid;
	int32_t cpu;
	uint64_t start, end;
};

struct off {
	uint32_t tid;
	struct wc_off_interval iv;
};

/* a lost switch as sched.c told it, and how many runs and intervals had been told by then */
struct lost {
	uint32_t tid;
	enum wc_sched_lost kind;
	size_t nruns, noffs;
};

extern struct st_trace tr;    /* the trace the test writes */
extern struct wc_analysis *a; /* the analysis over it */
extern bool opened;
extern struct run runs[64];
extern struct off offs[64];
extern struct lost losts[64];
extern size_t nruns, noffs, nlosts;

/* the suites' .init and .fini: a trace begun with its metadata; the analysis closed */
void sched_init(void);
void sched_fini(void);
void analyse_file(const char *path, uint64_t late);
void analyse(uint64_t end_ns);
void expect_run(size_t i, uint32_t tid, int32_t cpu, uint64_t start, uint64_t end);
const struct wc_off_interval *expect_off(size_t i, uint32_t tid, uint64_t start, uint64_t wake,
					 uint64_t end, char state, bool preempted);
void expect_counts(struct wc_sched_counts want);

#endif /* WC_TESTS_SCHED_UTIL_H */
