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
 * WC_CONTEXT_TRUNCATED marker in the user part stays in it as its outermost frame (the
 * symbolizer names it "[truncated]"); anything after it is left out.
 */
void wc_callchain_split(const uint64_t *ips, uint32_t nr, struct wc_callchain *cc);

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
