/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callchain.h - a recorded callchain (PERF_SAMPLE_CALLCHAIN layout: leaf first, each part
 * after its PERF_CONTEXT_* marker) split into its kernel and user parts, and a growing
 * string for the reports that name frames.
 */
#ifndef WC_ANALYZER_CALLCHAIN_H
#define WC_ANALYZER_CALLCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The two parts of a callchain, each leaf first; borrowed from the chain split. */
struct wc_callchain {
	const uint64_t *kernel;
	uint32_t nkernel;
	const uint64_t *user;
	uint32_t nuser;
};

/**
 * wc_callchain_split() - the kernel and user frames of @ips (@nr entries, markers included)
 * Frames after PERF_CONTEXT_GUEST* markers belong to neither part and are left out.  A
 * WC_CONTEXT_TRUNCATED or WC_CONTEXT_UNWIND_FAILED marker in the user part stays in it as its
 * outermost frame (the symbolizer names them "[truncated]", "[unwind failed]"); anything after
 * it is left out.
 */
void wc_callchain_split(const uint64_t *ips, uint32_t nr, struct wc_callchain *cc);

/* How complete a callchain's user part is, as the recorder marked it (common/wct.h). */
enum wc_user_stack {
	WC_USER_NONE,	   /* no user part: a kernel thread, or user stacks not recorded */
	WC_USER_WHOLE,	   /* no marker: complete with -g dwarf; with -g fp as far as the frame
			    * pointers and the mending went (recorder/unwind.h) */
	WC_USER_TRUNCATED, /* ends in [truncated]: the stack copy ran out first */
	WC_USER_FAILED,	   /* ends in [unwind failed]: not unwound to its end for another reason */
	WC_USER_KINDS
};

/** wc_callchain_user_kind() - Return: how complete the user part of @ips (@nr entries) is */
enum wc_user_stack wc_callchain_user_kind(const uint64_t *ips, uint32_t nr);

/* A NUL-terminated string that grows; oom is set (and the text kept as it was) on ENOMEM. */
struct wc_strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

/* wc_strbuf_put() - append @s; wc_strbuf_putf() - append printf-style. */
void wc_strbuf_put(struct wc_strbuf *b, const char *s);
void wc_strbuf_putf(struct wc_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* wc_strbuf_reset() - empty it, keeping the memory; wc_strbuf_fini() - free it. */
void wc_strbuf_reset(struct wc_strbuf *b);
void wc_strbuf_fini(struct wc_strbuf *b);

#endif /* WC_ANALYZER_CALLCHAIN_H */
