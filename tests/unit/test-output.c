/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-output.c - the output table (output.h): its rows, and the svg row's lines as
 * structures against the same lines as folded text.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/flamegraph.h"
#include "analyzer/output/output.h"
#include "tests/unit/svg-util.h"

/* How many times @needle is in @s. */
static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)) != NULL; s += strlen(needle))
		n++;
	return n;
}

/* Every row has a distinct name, a help line and its three functions; each is found. */
Test(output, table)
{
	size_t n = 0;

	for (; wc_outputs[n]; n++) {
		const struct wc_output_ops *r = wc_outputs[n];

		cr_expect(r->name && r->help && r->begin && r->line && r->end, "row %zu", n);
		cr_expect_eq(wc_output_find(r->name), r, "%s", r->name);
	}
	cr_expect_eq(n, 4);
	cr_expect_eq(wc_output_find("speedscope"), &wc_output_speedscope);
	cr_expect(wc_output_speedscope.per_thread);
	cr_expect_eq(wc_output_find("pprof"), &wc_output_pprof);
	cr_expect(wc_output_pprof.split && wc_output_pprof.ns && !wc_output_pprof.per_thread);
	cr_expect(wc_output_svg.annotate);
	cr_expect_null(wc_output_find("chrome")); /* not a profile: a replay consumer */
	cr_expect_null(wc_output_find(""));
}

/*
 * A profile's structured lines (output.h) draw the same SVG as their folded text: frames by
 * id (a name given once per id), kernel frames by their "_[k]" name, off-CPU time by the
 * leaf kind instead of the last frame's name; the waker's frames after "--" in the chain
 * colours.  Ids here are 0 "app", 1 "main", 2 "read_[k]", 3 "[off-cpu S]", 4 "[runqueue]",
 * 5 "compute", 6 "--", 7 "waker".
 */
Test(output, svg_lines_as_structures)
{
	static const char *const names[] = { "app",	   "main",    "read_[k]", "[off-cpu S]",
					     "[runqueue]", "compute", "--",	  "waker" };
	static const struct {
		uint32_t ids[6], n;
		enum wc_out_leaf leaf;
		uint64_t value;
	} lines[] = {
		{ { 0, 1, 2, 3 }, 4, WC_OUT_OFF_STATE, 400 },
		{ { 0, 1, 2, 4 }, 4, WC_OUT_RUNQUEUE, 100 },
		{ { 0, 1, 5 }, 3, WC_OUT_ON_CPU, 580 },
		{ { 0, 1, 2, 6, 7 }, 5, WC_OUT_WAKER, 100 },
	};
	struct wc_flamegraph_opts o = {
		.minwidth = -1, .legend = true, .countname = "us", .palette = WC_FG_CHAIN
	};
	struct wc_flamegraph *a = wc_flamegraph_new(&o), *b = wc_flamegraph_new(&o);
	char *sa, *sb;

	cr_assert(a && b);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct wc_out_frame fr[6];
		struct wc_out_line l = { .frames = fr,
					 .nframes = lines[i].n,
					 .leaf = lines[i].leaf,
					 .value = lines[i].value };
		char text[256] = "";

		for (uint32_t f = 0; f < lines[i].n; f++) {
			fr[f] = (struct wc_out_frame){ .id = lines[i].ids[f],
						       .name = names[lines[i].ids[f]] };
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s",
				 f ? ";" : "", fr[f].name);
		}
		l.state = lines[i].leaf == WC_OUT_OFF_STATE ? 'S' : 0;
		l.folded = text;
		cr_assert_eq(wc_flamegraph_add_line(a, &l), 0);
		cr_assert_eq(wc_flamegraph_add(b, text, lines[i].value), 0);
	}
	sa = svg_render(a);
	sb = svg_render(b);
	cr_expect_str_eq(sa, sb);
	cr_expect_eq(count(sa, "<g><title>"), 9); /* all, app, main, read, compute, S, runqueue,
						   * --, waker */
	free(sa);
	free(sb);
	wc_flamegraph_free(a);
	wc_flamegraph_free(b);
}
