/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg-util.h - what the flame graph tests (test-flamegraph.c, test-output.c) share. */
#ifndef WC_TESTS_SVG_UTIL_H
#define WC_TESTS_SVG_UTIL_H

struct wc_flamegraph;

/* svg_render() - the SVG of @fg as a string, owned by the caller (free()); a failed write
 * fails the test. */
char *svg_render(struct wc_flamegraph *fg);

#endif /* WC_TESTS_SVG_UTIL_H */
