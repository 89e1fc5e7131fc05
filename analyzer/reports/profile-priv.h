/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile-priv.h - the profile's state, shared by its two halves: profile.c aggregates it
 * during the replay (the consumer), profile-lines.c names its lines for the outputs
 * (wc_profile_lines(), output.h).  Nothing else includes this.
 */
#ifndef WC_ANALYZER_PROFILE_PRIV_H
#define WC_ANALYZER_PROFILE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "common/map64.h"
#include "analyzer/output/names.h"
#include "analyzer/reports/profile.h"

/* Leaves: what ends a line.  Off-CPU state letters are stored as themselves (>= 'A').
 * LEAF_ON_NEAR: on-CPU samples that came just after their thread's switch-in, to be shown
 * as [scheduler] when their stack is the switch's (skid.h), else as LEAF_ON. */
enum { LEAF_ON = 0, LEAF_UNSAMPLED = 1, LEAF_RUNQ = 2, LEAF_OFF = 3, LEAF_ON_NEAR = 4 };

/* In a key of the samples map: the sample is to be attributed as LEAF_ON_NEAR. */
#define NEAR_BIT (1ull << 63)

struct seg {
	uint32_t tid, pid, aspace;
	char comm[17];
	uint64_t run_ns;
	uint64_t nsamples;
	uint64_t key_id; /* the id of its lines' key frame + 1, 0 not yet (wc_profile_lines()) */
};

/* One waker-profile entry: blocked time of a target segment and stack, by waker. */
struct wk_entry {
	uint32_t tseg, tstack, wseg, wstack; /* wseg 0: the waker is not known as a thread */
	uint32_t wtid;
	uint64_t ns;
	uint64_t n; /* the intervals */
};

struct wc_profile {
	struct wc_profile_opts o;
	struct wc_analysis_consumer consumer;
	struct wc_analysis *a;
	struct seg *segs; /* index 0 unused */
	size_t nsegs, segs_cap;
	struct wc_map64 entries; /* seg << 40 | leaf << 32 | stack id -> ns */
	struct wc_map64 counts;	 /* the same keys -> samples or off-CPU intervals */
	struct wc_map64 samples; /* NEAR_BIT | seg << 32 | stack id -> samples */
	struct wc_map64 near;	 /* stack id -> samples just after a switch-in, shown threads */
	uint64_t nsamples;	 /* samples of the threads shown */
	uint64_t skid;		 /* ... that are skid: wc_profile_lines() counts them */
	bool attributed;	 /* some went to LEAF_ON_NEAR */
	struct wc_window win;	 /* the --time window */
	bool window_set;
	bool calibrated;     /* calibrate() ran: it must not add the on-CPU time twice */
	struct wk_entry *wk; /* the waker profile */
	size_t nwk, wk_cap;
	struct wc_map64 wk_index; /* hash of an entry's key -> index + 1 (probed on clashes) */
	bool waker_stacks;	  /* wakeups carry callchains */
	uint64_t user_ns[WC_USER_KINDS]; /* wc_profile_lines(): off-CPU time of the lines, ns, by
					  * how complete their user stacks are */
	struct wc_names names;		 /* the frames' names, as in the folded text */
	struct wc_map64 ucache, kcache;	 /* a symbolizer's name (address) -> id + 1; kcache
					  * for kernel names with "_[k]" added */
	uint64_t state_id[256];		 /* the id + 1 of "[off-cpu X]" by X, 0 not yet */
	struct lframe *lf;		 /* the frames of the lines made, back to back */
	struct wc_map64 stacks; /* aspace << 32 | stack id -> index of its header in sc + 1 */
	struct lframe *sc;	/* the frames of each stack named: a header {count}, then them */
	size_t nsc, sc_cap;
	size_t nlf, lf_cap;
};

/* A frame of a line made: its interned name, WC_FRAME_* flags, mapped file (output.h). */
struct lframe {
	uint32_t id, flags, dso;
};

/* wc_profile_calibrate() - once, before the lines: share each segment's run time among its
 * sampled stacks (profile.h).  Return: 0 or -ENOMEM. */
int wc_profile_calibrate(struct wc_profile *p);

#endif /* WC_ANALYZER_PROFILE_PRIV_H */
