/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flamegraph-priv.h - the flame graph's tree, shared by its two halves: flamegraph.c builds
 * it from the lines (and is the SVG row of the output table), flamegraph-svg.c lays it out
 * and writes it.  Nothing outside those two files includes this.
 */
#ifndef WC_ANALYZER_FLAMEGRAPH_PRIV_H
#define WC_ANALYZER_FLAMEGRAPH_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/output/flamegraph.h"
#include "common/map64.h"

enum { F_WAKER = 1, F_DASH2 = 2 }; /* after a "--" frame; a "--" frame */

struct node {
	uint32_t name;	      /* offset in the name pool */
	uint32_t child, next; /* first child, next sibling; 0 none (0 is the root) */
	uint32_t flags;	      /* F_* */
	uint64_t value, off;  /* all time through it; the off-CPU part */
};

struct wc_flamegraph {
	struct wc_flamegraph_opts o;
	char *pool; /* names, NUL-terminated, back to back */
	size_t pool_len, pool_cap;
	uint32_t *intern; /* open addressing: pool offset + 1, 0 empty */
	size_t intern_mask, nnames;
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct wc_map64 kids; /* parent << 32 | name -> node */
	uint32_t *path;	      /* the nodes of the line being added */
	size_t path_cap;
	uint32_t *byid; /* a profile's frame id (output.h) -> pool offset + 1, 0 unknown */
	size_t byid_cap;
	FILE *out;	    /* the output row's (output.h), borrowed */
	char subtitle[512]; /* the output row's: "TRACE, time in UNIT" */
	struct wc_flamegraph_stats st;
	unsigned legend_rows; /* the legend's rows in the last wc_flamegraph_write() */
};

/* fg_hash_str() - the hash of @len bytes of @s: names in the pool, colours of names. */
static inline uint64_t fg_hash_str(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then mixed */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return wc_map64_hash(h);
}

/* fg_off_leaf() - whether a line whose last frame is @leaf (@len bytes) is off-CPU time. */
static inline bool fg_off_leaf(const char *leaf, size_t len)
{
	return (len == 11 && strncmp(leaf, "[off-cpu ", 9) == 0 && leaf[10] == ']') ||
	       (len == 10 && strncmp(leaf, "[runqueue]", 10) == 0);
}

static inline const char *fg_name_of(const struct wc_flamegraph *fg, uint32_t node)
{
	return fg->pool + fg->nodes[node].name;
}

#endif /* WC_ANALYZER_FLAMEGRAPH_PRIV_H */
