/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-flamegraph.c - the SVG flame graph (flamegraph.h) from folded lines, and `wcanalyze
 * flamegraph` (cmd-flamegraph.c) on a hand-built trace.
 *
 * Most graphs here total 1180 units at the default width of 1200 px: 1180 px for the frames
 * (10 px margins), so one unit is one pixel and a frame starting at unit S with value V has
 * x = 10 + S and width = V; the expectations follow from flamegraph.pl's layout rules (a
 * frame's own time on the left of its callees, callees in name order).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/cli/cli.h"
#include "analyzer/output/flamegraph.h"
#include "common/wct.h"
#include "sched-trace.h"
#include "tests/unit/svg-util.h"

/* One <g> frame of an SVG, as parsed back. */
struct pf {
	char title[512];
	double x, w;
	int y;
	char fill[8];
	char text[512]; /* "" when there is no <text> */
};

#define MAXF 64

static struct pf pf[MAXF];
static size_t npf;

/* Parse the frames of @svg into pf[] (at most MAXF; the count of all in npf). */
static void parse(const char *svg)
{
	const char *p = strstr(svg, "<g id=\"frames\">");

	npf = 0;
	cr_assert_not_null(p, "no frames group");
	while ((p = strstr(p, "<g><title>")) != NULL) {
		struct pf f = { 0 };
		const char *e = strstr(p, "</title>"), *t;
		int n;

		cr_assert_not_null(e);
		p += 10;
		memcpy(f.title, p, (size_t)(e - p) < 511 ? (size_t)(e - p) : 511);
		n = sscanf(e,
			   "</title><rect x=\"%lf\" y=\"%d\" width=\"%lf\" height=\"15\" "
			   "fill=\"%7[#0-9a-f]\"/>",
			   &f.x, &f.y, &f.w, f.fill);
		cr_assert_eq(n, 4, "frame %zu: %.120s", npf, e);
		t = strstr(e, "/>") + 2;
		if (strncmp(t, "<text", 5) == 0) {
			const char *s = strchr(t, '>') + 1, *z = strstr(s, "</text>");

			memcpy(f.text, s, (size_t)(z - s) < 511 ? (size_t)(z - s) : 511);
		}
		if (npf < MAXF)
			pf[npf] = f;
		npf++;
		p = e;
	}
}

/* A graph of the folded @lines (NULL-terminated) with @o, rendered and parsed. */
static char *graph(const struct wc_flamegraph_opts *o, const char *const *lines,
		   struct wc_flamegraph_stats *st)
{
	struct wc_flamegraph *fg = wc_flamegraph_new(o);
	char *svg;

	cr_assert_not_null(fg);
	for (; *lines; lines++)
		cr_assert_eq(wc_flamegraph_add_folded(fg, *lines), 0, "%s", *lines);
	svg = svg_render(fg);
	if (st)
		wc_flamegraph_stats(fg, st);
	wc_flamegraph_free(fg);
	parse(svg);
	return svg;
}

static void expect_frame(size_t i, const char *title, double x, double w, int y)
{
	cr_assert_lt(i, npf, "frame %zu missing", i);
	cr_expect_str_eq(pf[i].title, title, "frame %zu", i);
	cr_expect_float_eq(pf[i].x, x, 0.001, "frame %zu (%s) x %f", i, title, pf[i].x);
	cr_expect_float_eq(pf[i].w, w, 0.001, "frame %zu (%s) width %f", i, title, pf[i].w);
	cr_expect_eq(pf[i].y, y, "frame %zu (%s) y %d", i, title, pf[i].y);
}

static void rgb_of(const char *hex, int *r, int *g, int *b)
{
	cr_assert_eq(sscanf(hex, "#%2x%2x%2x", (unsigned *)r, (unsigned *)g, (unsigned *)b), 3,
		     "%s", hex);
}

/*
 * "a;b 300", "a;b;c 200", "a;d 680": 1180 units, 1 px each.  Pre-order: all, a, b, c, d.
 * b (500) starts at 0 with its own 300 first, so its callee c is at 10 + 300 = 310; d
 * follows b at 10 + 500.  Depths 0..3; the height is (3 + 1) * 16 + 36 + 34 = 134, so
 * y = 134 - 34 - (depth + 1) * 16 + 1: 85, 69, 53, 37.
 */
Test(flamegraph, layout)
{
	const char *lines[] = { "a;d 680", "a;b;c 200", "a;b 300", NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	struct wc_flamegraph_stats st;
	char *svg = graph(&o, lines, &st);

	cr_assert_eq(npf, 5);
	expect_frame(0, "all (1,180 samples, 100%)", 10, 1180, 85);
	expect_frame(1, "a (1,180 samples, 100.00%)", 10, 1180, 69);
	expect_frame(2, "b (500 samples, 42.37%)", 10, 500, 53);
	expect_frame(3, "c (200 samples, 16.95%)", 310, 200, 37);
	expect_frame(4, "d (680 samples, 57.63%)", 510, 680, 53);
	cr_expect_str_eq(pf[3].text, "c");
	cr_expect_eq(st.frames, 5);
	cr_expect_eq(st.nodes, 5);
	cr_expect_eq(st.depth_max, 3);
	cr_expect_eq(st.height_px, 134);
	cr_expect_eq(st.total, 1180);
	cr_expect_not_null(strstr(svg, "<svg version=\"1.1\" width=\"1200\" height=\"134\""));
	cr_expect_not_null(strstr(svg, ">Flame Graph</text>"));
	free(svg);
}

/*
 * --inverted: the root on top, under the 36 px of the title: y = 36 + depth * 16; the
 * title says Icicle Graph.  A subtitle adds 24 px above the frames.
 */
Test(flamegraph, inverted)
{
	const char *lines[] = { "a;b 1180", NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1, .inverted = true };
	char *svg = graph(&o, lines, NULL);

	cr_assert_eq(npf, 3);
	cr_expect_eq(pf[0].y, 36);
	cr_expect_eq(pf[1].y, 52);
	cr_expect_eq(pf[2].y, 68);
	cr_expect_not_null(strstr(svg, ">Icicle Graph</text>"));
	free(svg);
	o.subtitle = "sub";
	svg = graph(&o, lines, NULL);
	cr_expect_eq(pf[0].y, 60);
	cr_expect_not_null(strstr(svg, "<text id=\"subtitle\" x=\"600\" y=\"48\">sub</text>"));
	free(svg);
}

/*
 * Siblings in flamegraph.pl's order, its sort of the lines "p;NAME;..." where ';' follows
 * the name: "f.isra.0" ('.' < ';') < "f" < "f_b" ('_' > ';') < "g".  Values 100, 200, 300,
 * 580: x = 10, 110, 310, 610.
 */
Test(flamegraph, sibling_order)
{
	const char *lines[] = { "p;g 580", "p;f_b 300", "p;f;x 200", "p;f.isra.0 100", NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	char *svg = graph(&o, lines, NULL);

	cr_assert_eq(npf, 7);
	expect_frame(2, "f.isra.0 (100 samples, 8.47%)", 10, 100, pf[2].y);
	expect_frame(3, "f (200 samples, 16.95%)", 110, 200, pf[2].y);
	expect_frame(4, "x (200 samples, 16.95%)", 110, 200, pf[2].y - 16);
	expect_frame(5, "f_b (300 samples, 25.42%)", 310, 300, pf[2].y);
	expect_frame(6, "g (580 samples, 49.15%)", 610, 580, pf[2].y);
	free(svg);
}

/*
 * Narrow frames, --minwidth 5 (px = units here): under r, a (1002) is drawn; m1..m3 (2 each)
 * are narrow and adjacent: one "[merged: 3 frames]" of 6 at 10 + 1002; q (168) at 1018; z (4)
 * alone is dropped; q's callees x1, x2 (1 each) make a run of 2 < 5: dropped.
 * Nodes: all r a m1 m2 m3 q x1 x2 z = 10; drawn all r a merged q = 5; hidden 6.
 * The same with --minwidth 0.5% (5.9 units).
 */
Test(flamegraph, merge_narrow)
{
	const char *lines[] = { "r;a 1002", "r;m1 2",	"r;m2 2", "r;m3 2", "r;q 166",
				"r;q;x1 1", "r;q;x2 1", "r;z 4",  NULL };
	struct wc_flamegraph_opts o = { .minwidth = 5 };
	struct wc_flamegraph_stats st;
	char *svg;

	for (int pass = 0; pass < 2; pass++) {
		svg = graph(&o, lines, &st);
		cr_assert_eq(npf, 5, "pass %d: %zu frames", pass, npf);
		expect_frame(2, "a (1,002 samples, 84.92%)", 10, 1002, pf[2].y);
		expect_frame(3, "[merged: 3 frames] (6 samples, 0.51%)", 1012, 6, pf[2].y);
		expect_frame(4, "q (168 samples, 14.24%)", 1018, 168, pf[2].y);
		cr_expect_str_eq(pf[3].fill, "#d8d8d8");
		cr_expect_eq(st.nodes, 10);
		cr_expect_eq(st.frames, 5);
		cr_expect_eq(st.merged, 1);
		cr_expect_eq(st.hidden, 6);
		cr_expect_eq(st.depth_max, 2);
		free(svg);
		o = (struct wc_flamegraph_opts){ .minwidth = 0.5, .minwidth_pct = true };
	}
}

/*
 * x and width get the decimals a zoom into the parent needs: under a 1 px parent (1 unit of
 * 1180), 1180 / 1 -> 4 decimals (the maximum); the children of the root, 1.
 * "a 1179", "b;c 1": b is 1 px wide, c is drawn with 4 decimals.
 */
Test(flamegraph, digits)
{
	const char *lines[] = { "a 1179", "b;c 1", NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	char *svg = graph(&o, lines, NULL);

	cr_expect_not_null(strstr(svg, "<title>b (1 samples, 0.08%)</title><rect x=\"1189.0\""));
	cr_expect_not_null(strstr(svg, "<title>c (1 samples, 0.08%)</title><rect x=\"1189.0000\""
				       " y=\"37\" width=\"1.0000\""));
	free(svg);
}

/*
 * Escaping: & < > " in names, titles and labels, as flamegraph.pl; control characters and
 * bytes that are not UTF-8 become '?'; UTF-8 stays.  The --title is escaped too.
 */
Test(flamegraph, escaping)
{
	const char *lines[] = { "a&b;<init>;\"q\";x>y 590", "caf\xc3\xa9;bad\xff\x01z 590", NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1, .title = "<script>&\"" };
	char *svg = graph(&o, lines, NULL);

	cr_assert_eq(npf, 7);
	cr_expect_str_eq(pf[1].title, "a&amp;b (590 samples, 50.00%)");
	cr_expect_str_eq(pf[1].text, "a&amp;b");
	cr_expect_str_eq(pf[2].title, "&lt;init&gt; (590 samples, 50.00%)");
	cr_expect_str_eq(pf[2].text, "&lt;init&gt;");
	cr_expect_str_eq(pf[3].title, "&quot;q&quot; (590 samples, 50.00%)");
	cr_expect_str_eq(pf[4].title, "x&gt;y (590 samples, 50.00%)");
	cr_expect_str_eq(pf[5].title, "caf\xc3\xa9 (590 samples, 50.00%)");
	cr_expect_str_eq(pf[6].title, "bad??z (590 samples, 50.00%)");
	cr_expect_not_null(strstr(svg, ">&lt;script&gt;&amp;&quot;</text>"));
	cr_expect_null(strstr(svg, "<script>&"));
	free(svg);
}

/*
 * Labels, flamegraph.pl's rule: floor(width / (12 * 0.59)) characters fit; under 3 none,
 * else the name, or its first (fit - 2) characters and "..".  A 50 px frame: 7 fit:
 * "abcdefghij" -> "abcde.."; "abcdefg" fits whole.  20 px: 2 fit, no <text>.  UTF-8 is cut
 * between characters ("éééééééééé" -> 5 of them and "..").
 */
#define E "\xc3\xa9" /* é */
Test(flamegraph, labels)
{
	const char *lines[] = { "abcdefghij 50",	   "abcdefg 50", "b 20",
				E E E E E E E E E E " 50", "z 1010",	 NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	char *svg = graph(&o, lines, NULL);

	cr_assert_eq(npf, 6);
	cr_expect_str_eq(pf[1].text, "abcdefg");
	cr_expect_str_eq(pf[2].text, "abcde..");
	cr_expect_str_eq(pf[3].text, "");
	cr_expect_str_eq(pf[4].text, "z");
	cr_expect_str_eq(pf[5].text, E E E E E "..");
	free(svg);
}
#undef E

/* Counts get commas as flamegraph.pl writes them; the unit is the countname. */
Test(flamegraph, counts)
{
	const char *lines[] = { "a 1234567", NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1, .countname = "us" };
	char *svg = graph(&o, lines, NULL);

	cr_expect_str_eq(pf[0].title, "all (1,234,567 us, 100%)");
	cr_expect_str_eq(pf[1].title, "a (1,234,567 us, 100.00%)");
	free(svg);
}

/* The palettes' bands (the formulas above wc_fg_color()), over many names. */
Test(flamegraph, color_bands)
{
	char name[32], kname[40], buf[8], buf2[8];
	int r, g, b, distinct = 0;
	char first[8] = "";

	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "func_%d", i * 7919);
		snprintf(kname, sizeof(kname), "%s_[k]", name);
		rgb_of(wc_fg_color(WC_FG_HOT, name, false, false, buf), &r, &g, &b);
		cr_expect(r >= 205 && r <= 255 && g <= 110 && b <= 55, "hot user %s", buf);
		if (!first[0])
			memcpy(first, buf, 8);
		distinct += strcmp(first, buf) != 0;
		cr_expect_str_eq(wc_fg_color(WC_FG_HOT, name, false, false, buf2), buf,
				 "stable per name");
		rgb_of(wc_fg_color(WC_FG_HOT, kname, false, false, buf), &r, &g, &b);
		cr_expect(r >= 205 && g >= 160 && g <= 230 && b <= 55, "hot kernel %s", buf);
		rgb_of(wc_fg_color(WC_FG_HOT, name, true, false, buf), &r, &g, &b);
		cr_expect(r == g && r >= 80 && r <= 140 && b >= 205, "off user %s", buf);
		rgb_of(wc_fg_color(WC_FG_HOT, kname, true, false, buf), &r, &g, &b);
		cr_expect(r >= 60 && r <= 110 && g >= 150 && g <= 200 && b >= 215, "off kernel %s",
			  buf);
		rgb_of(wc_fg_color(WC_FG_IO, name, true, false, buf), &r, &g, &b);
		cr_expect(r == g && r >= 80 && r <= 140 && b >= 190 && b <= 245, "io %s", buf);
		rgb_of(wc_fg_color(WC_FG_IO, name, false, false, buf), &r, &g, &b);
		cr_expect(r >= 225 && g >= 200 && b >= 170, "io on-CPU pale %s", buf);
		rgb_of(wc_fg_color(WC_FG_WAKEUP, name, false, false, buf), &r, &g, &b);
		cr_expect(r >= 50 && r <= 110 && g == b && g >= 165, "wakeup aqua %s", buf);
		rgb_of(wc_fg_color(WC_FG_CHAIN, name, true, true, buf), &r, &g, &b);
		cr_expect(r >= 50 && r <= 110 && g == b && g >= 165, "chain waker aqua %s", buf);
		rgb_of(wc_fg_color(WC_FG_CHAIN, name, true, false, buf), &r, &g, &b);
		cr_expect(r == g && b >= 205, "chain off-CPU blue %s", buf);
	}
	cr_expect_gt(distinct, 150, "hashed colours vary with the name");
}

/* The synthetic leaves have one colour each, whatever the palette; "-" and "--" grey. */
Test(flamegraph, fixed_colors)
{
	static const char *const leaves[][2] = {
		{ "[off-cpu S]", "#465af5" }, { "[off-cpu D]", "#6a40c8" },
		{ "[off-cpu R]", "#b05ae0" }, { "[runqueue]", "#d296f5" },
		{ "[off-cpu I]", "#788ca0" }, { "[on-cpu unsampled]", "#f5d296" },
		{ "-", "#c8c8c8" },	      { "--", "#a0a0a0" },
	};
	char buf[8];

	for (int p = WC_FG_HOT; p <= WC_FG_CHAIN; p++)
		for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
			cr_expect_str_eq(wc_fg_color(p, leaves[i][0], true, p == WC_FG_CHAIN, buf),
					 leaves[i][1], "palette %d %s", p, leaves[i][0]);
}

/*
 * Wall mode: a frame is cool when more than half of its time is off-CPU.  c (on-CPU 700)
 * warm; s and its leaf (off-CPU 400) cool; m has 700 on + 400 off: warm; n has 30 on and
 * 50 off-CPU (runqueue): cool.  With off_cpu (--mode off) every plain line is off-CPU.
 * Kernel frames keep the _[k] for the colour only.
 */
Test(flamegraph, wall_kinds)
{
	const char *lines[] = { "m;c 700", "m;s_[k];[off-cpu S] 400", "n 30", "n;[runqueue] 50",
				NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	int r, g, b;
	char *svg = graph(&o, lines, NULL);

	cr_assert_eq(npf, 7);
	cr_expect_str_eq(pf[1].title, "m (1,100 samples, 93.22%)");
	rgb_of(pf[1].fill, &r, &g, &b);
	cr_expect(r >= 205 && b <= 55, "m warm %s", pf[1].fill);
	rgb_of(pf[2].fill, &r, &g, &b);
	cr_expect(r >= 205 && b <= 55, "c warm %s", pf[2].fill);
	cr_expect_str_eq(pf[3].title, "s (400 samples, 33.90%)");
	rgb_of(pf[3].fill, &r, &g, &b);
	cr_expect(b >= 215 && g >= 150 && r <= 110, "s kernel off-CPU sky %s", pf[3].fill);
	cr_expect_str_eq(pf[4].fill, "#465af5");
	rgb_of(pf[5].fill, &r, &g, &b);
	cr_expect(r == g && b >= 205, "n cool %s", pf[5].fill);
	cr_expect_null(strstr(svg, "_[k]"));
	free(svg);
	o.off_cpu = true;
	svg = graph(&o, lines, NULL);
	rgb_of(pf[2].fill, &r, &g, &b);
	cr_expect(r == g && b >= 205, "off_cpu: c cool %s", pf[2].fill);
	free(svg);
}

/* Chain graphs: frames after a "--" frame are wakers (aqua), the "--" itself grey. */
Test(flamegraph, chain)
{
	const char *lines[] = { "t;read;--;waker;wake_up 1180", NULL };
	struct wc_flamegraph_opts o = { .minwidth = -1, .palette = WC_FG_CHAIN, .off_cpu = true };
	int r, g, b;
	char *svg = graph(&o, lines, NULL);

	cr_assert_eq(npf, 6);
	rgb_of(pf[2].fill, &r, &g, &b);
	cr_expect(r == g && b >= 205, "read blue %s", pf[2].fill);
	cr_expect_str_eq(pf[3].fill, "#a0a0a0");
	for (int i = 4; i < 6; i++) {
		rgb_of(pf[i].fill, &r, &g, &b);
		cr_expect(g == b && g >= 165 && r <= 110, "waker %d aqua %s", i, pf[i].fill);
	}
	cr_expect_not_null(strstr(svg, "stop-color=\"#e0e0ff\""), "blue background");
	free(svg);
}

/* Folded lines as flamegraph.pl reads them: the value after the last space. */
Test(flamegraph, add_folded)
{
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	struct wc_flamegraph *fg = wc_flamegraph_new(&o);
	struct wc_flamegraph_stats st;
	char *svg;

	cr_assert_not_null(fg);
	cr_expect_eq(wc_flamegraph_add_folded(fg, "a;b c 12\n"), 0);
	cr_expect_eq(wc_flamegraph_add_folded(fg, "a;b c  8  \r\n"), 0);
	cr_expect_eq(wc_flamegraph_add_folded(fg, "a;b c"), -EINVAL);
	cr_expect_eq(wc_flamegraph_add_folded(fg, "12"), -EINVAL);
	cr_expect_eq(wc_flamegraph_add_folded(fg, "a 1x"), -EINVAL);
	cr_expect_eq(wc_flamegraph_add_folded(fg, "a 0"), 0);
	cr_expect_eq(wc_flamegraph_add_folded(fg, "a 99999999999999999999"), -EINVAL);
	cr_expect_eq(wc_flamegraph_add(fg, "a", UINT64_MAX / 2), -EOVERFLOW);
	svg = svg_render(fg);
	wc_flamegraph_stats(fg, &st);
	parse(svg);
	cr_expect_eq(st.total, 20);
	cr_assert_eq(npf, 3);
	cr_expect_str_eq(pf[2].title, "b c (20 samples, 100.00%)");
	free(svg);
	wc_flamegraph_free(fg);
}

/* Nothing to draw: flamegraph.pl's message SVG; the options are checked. */
Test(flamegraph, empty_and_bad_options)
{
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	struct wc_flamegraph *fg = wc_flamegraph_new(&o);
	char *svg;

	cr_assert_not_null(fg);
	svg = svg_render(fg);
	cr_expect_not_null(strstr(svg, "No stacks"));
	cr_expect_null(strstr(svg, "<g id=\"frames\">"));
	free(svg);
	wc_flamegraph_free(fg);
	o.width_px = 99;
	cr_expect_null(wc_flamegraph_new(&o));
	cr_expect_eq(errno, EINVAL);
	o.width_px = 0;
	o.minwidth = 0.0 / 0.0;
	cr_expect_null(wc_flamegraph_new(&o));
	wc_flamegraph_free(NULL);
}

/*
 * A stack 20,000 frames deep: every frame drawn (each 1180 px), depth 20000, height
 * 20001 * 16 + 70; no recursion in the layout or the output.
 */
Test(flamegraph, deep_stack)
{
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	struct wc_flamegraph *fg = wc_flamegraph_new(&o);
	struct wc_flamegraph_stats st;
	size_t len = 0;
	char *stack = malloc(20000 * 8), *svg;

	cr_assert_not_null(fg);
	cr_assert_not_null(stack);
	for (int i = 0; i < 20000; i++)
		len += (size_t)sprintf(stack + len, "%sf%d", i ? ";" : "", i % 1000);
	cr_assert_eq(wc_flamegraph_add(fg, stack, 5), 0);
	svg = svg_render(fg);
	wc_flamegraph_stats(fg, &st);
	cr_expect_eq(st.frames, 20001);
	cr_expect_eq(st.depth_max, 20000);
	cr_expect_eq(st.height_px, 20001 * 16 + 70);
	cr_expect_not_null(strstr(svg, "<title>f999 (5 samples, 100.00%)</title><rect x=\"10.0\" "
				       "y=\"37\" "));
	free(svg);
	free(stack);
	wc_flamegraph_free(fg);
}

/*
 * 100,000 distinct stacks "p;gI;hJ 1" (I < 1000, J < 100): 100000 units, 0.0118 px each;
 * the 0.1 px minimum is 8.47 units.  Each gI (100 units, 1.18 px) is drawn; its 100 callees
 * (1 unit each) are one run of narrow frames, 100 units: one merged frame each.
 * Frames: all, p, 1000 g, 1000 merged = 2002; nodes 1 + 1 + 1000 + 100000.  At about 130
 * bytes a frame, well under 1 MB.  (Time: tests/flamegraph-browser.sh --bench.)
 */
Test(flamegraph, many_stacks)
{
	struct wc_flamegraph_opts o = { .minwidth = -1, .countname = "us" };
	struct wc_flamegraph *fg = wc_flamegraph_new(&o);
	struct wc_flamegraph_stats st;
	char line[64], *svg;

	cr_assert_not_null(fg);
	for (int i = 0; i < 1000; i++)
		for (int j = 0; j < 100; j++) {
			snprintf(line, sizeof(line), "p;g%d;h%d", i, j);
			cr_assert_eq(wc_flamegraph_add(fg, line, 1), 0);
		}
	svg = svg_render(fg);
	wc_flamegraph_stats(fg, &st);
	cr_expect_eq(st.nodes, 101002);
	cr_expect_eq(st.frames, 2002);
	cr_expect_eq(st.merged, 1000);
	cr_expect_eq(st.hidden, 100000);
	cr_expect_lt(strlen(svg), 1000000, "%zu bytes", strlen(svg));
	cr_expect_not_null(strstr(svg, "<title>[merged: 100 frames] (100 us, 0.10%)</title>"));
	free(svg);
	wc_flamegraph_free(fg);
}

/* ---- `wcanalyze flamegraph` on a hand-built trace ---- */

/*
 * Kernel symbols work, do_syscall_64, io_schedule (0x100 apart; an end marker after them);
 * callchains (leaf first) WORK = work < do_syscall_64, IO = io_schedule < do_syscall_64.
 *   srv 100, CPU 0 (ms):  1.0 in (first event)   samples WORK @1.5, @2.0
 *                         3.0 out D, IO           run 2000 us
 *                         3.8 woken               blocked 800 us [off-cpu D]
 *                         4.0 in                  sch delay 200 us [runqueue]; sample WORK @4.5
 *                         5.0 out S, IO           run 1000 us; open at the end
 *   run time 3000 us, all under WORK (3 samples).  Folded, annotated:
 *     srv;do_syscall_64_[k];io_schedule_[k];[off-cpu D] 800
 *     srv;do_syscall_64_[k];io_schedule_[k];[runqueue] 200
 *     srv;do_syscall_64_[k];work_[k] 3000          total 4000 us
 */
static struct st_trace tr;
static char out_path[64];

static void write_kallsyms(void)
{
	static uint64_t rec[256];
	struct wc_rec_kallsyms *k = (void *)rec;
	const char *text = "ffffffff81000000 T work\nffffffff81000100 T do_syscall_64\n"
			   "ffffffff81000200 T io_schedule\nffffffff81000300 T _etext\n";

	memset(rec, 0, sizeof(rec));
	k->h.type = WC_REC_KALLSYMS;
	k->text_len = (uint32_t)strlen(text) + 1;
	memcpy(k->text, text, k->text_len);
	k->h.size = WC_ALIGN8((uint32_t)(sizeof(*k) + k->text_len));
	cr_assert_eq(wc_writer_add(tr.w, rec), 0);
}

static void cmd_init(void)
{
	const uint64_t base = 0xffffffff81000000ull;
	uint64_t work[] = { PERF_CONTEXT_KERNEL, base + 0x10, base + 0x110 };
	uint64_t io[] = { PERF_CONTEXT_KERNEL, base + 0x210, base + 0x110 };
	uint32_t w, i;
	int fd;

	if (st_begin(&tr)) {
		st_remove(&tr);
		cr_assert_fail("cannot write the metadata: no testdata/formats under srcdir=%s?",
			       getenv("srcdir") ? getenv("srcdir") : ".");
	}
	write_kallsyms();
	w = st_stack(&tr, work, 3);
	i = st_stack(&tr, io, 3);
	st_comm(&tr, 1000000, 100, 100, "srv");
	st_switch(&tr, 1000000, 0, 0, "swapper/0", 0, 100, "srv", 0);
	st_sample(&tr, 1500000, 0, 100, w, 500000);
	st_sample(&tr, 2000000, 0, 100, w, 500000);
	st_switch(&tr, 3000000, 0, 100, "srv", ST_D, 0, "swapper/0", i);
	st_wake(&tr, 3800000, 1, 300, 100, "srv", 0, 0);
	st_switch(&tr, 4000000, 0, 0, "swapper/0", 0, 100, "srv", 0);
	st_sample(&tr, 4500000, 0, 100, w, 500000);
	st_switch(&tr, 5000000, 0, 100, "srv", ST_S, 0, "swapper/0", i);
	st_round(&tr);
	cr_assert_eq(st_end(&tr, true, 6000000), 0);
	strcpy(out_path, "/tmp/wc-fg-XXXXXX");
	fd = mkstemp(out_path);
	cr_assert_geq(fd, 0);
	close(fd);
}

static void cmd_fini(void)
{
	st_remove(&tr);
	unlink(out_path);
}

TestSuite(cmd, .init = cmd_init, .fini = cmd_fini);

/* wc_cmd_flamegraph() with @args (NULL-terminated, FILE added at the end); its status. */
static int run_cmd(const char **args, bool file)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = "flamegraph";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	if (file)
		argv[argc++] = tr.path;
	argv[argc] = NULL;
	return wc_cmd_flamegraph(argc, argv);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0, len = 0, n;

	cr_assert_not_null(f);
	do {
		cr_assert_not_null(text = realloc(text, cap += 65536));
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	text[len] = 0;
	fclose(f);
	return text;
}

/*
 * --width 1000: 980 px for 4000 us, 0.245 px/us.  io_schedule (1000 us) at x 10, 245 px
 * wide; work (3000 us) after it at 255, 735 px.  The title is escaped, no _[k] is shown,
 * the subtitle names the trace and the unit.
 */
Test(cmd, wall)
{
	const char *args[] = { "-o", out_path, "--title", "T<&>", "--width", "1000", NULL };
	char *svg;

	cr_assert_eq(run_cmd(args, true), 0);
	svg = slurp(out_path);
	parse(svg);
	cr_assert_eq(npf, 7, "%zu frames", npf);
	expect_frame(0, "all (4,000 us, 100%)", 10, 980, pf[0].y);
	expect_frame(1, "srv (4,000 us, 100.00%)", 10, 980, pf[0].y - 16);
	expect_frame(2, "do_syscall_64 (4,000 us, 100.00%)", 10, 980, pf[0].y - 32);
	expect_frame(3, "io_schedule (1,000 us, 25.00%)", 10, 245, pf[0].y - 48);
	expect_frame(4, "[off-cpu D] (800 us, 20.00%)", 10, 196, pf[0].y - 64);
	expect_frame(5, "[runqueue] (200 us, 5.00%)", 206, 49, pf[0].y - 64);
	expect_frame(6, "work (3,000 us, 75.00%)", 255, 735, pf[0].y - 48);
	cr_expect_str_eq(pf[4].fill, "#6a40c8");
	cr_expect_not_null(strstr(svg, "width=\"1000\""));
	cr_expect_not_null(
		strstr(svg, "<text id=\"title\" x=\"500\" y=\"24\">T&lt;&amp;&gt;</text>"));
	cr_expect_not_null(strstr(svg, ", time in us</text>"));
	cr_expect_not_null(strstr(svg, tr.path));
	cr_expect_null(strstr(svg, "_[k]"));
	free(svg);
}

/* --mode off: each interval whole under its switch-out stack, cool; the title says so. */
Test(cmd, mode_off)
{
	const char *args[] = { "-o", out_path, "--mode", "off", NULL };
	int r, g, b;
	char *svg;

	cr_assert_eq(run_cmd(args, true), 0);
	svg = slurp(out_path);
	parse(svg);
	cr_assert_eq(npf, 4, "%zu frames", npf);
	cr_expect_str_eq(pf[3].title, "io_schedule (1,000 us, 100.00%)");
	rgb_of(pf[3].fill, &r, &g, &b);
	cr_expect(b >= 215 && g >= 150, "kernel off-CPU sky %s", pf[3].fill);
	cr_expect_not_null(strstr(svg, ">Off-CPU Time Flame Graph</text>"));
	free(svg);
}

/*
 * -U: no kernel frame; --inverted --unit ms: the icicle title, values in ms; the root under
 * the title, the subtitle and the legend: y = 36 + 24 + 24.
 */
Test(cmd, user_only_inverted_ms)
{
	const char *args[] = { "-o", out_path, "-U", "--inverted", "--unit", "ms", NULL };
	char *svg;

	cr_assert_eq(run_cmd(args, true), 0);
	svg = slurp(out_path);
	parse(svg);
	cr_expect_null(strstr(svg, "do_syscall_64"));
	cr_expect_str_eq(pf[0].title, "all (4 ms, 100%)");
	cr_expect_eq(pf[0].y, 84);
	cr_expect_not_null(strstr(svg, ">Wall-clock Icicle Graph</text>"));
	free(svg);
}

/* Bad options exit 2, a missing trace or an unwritable output 1, and leave no file. */
Test(cmd, errors)
{
	const char *w[] = { "--width", "50", NULL }, *c[] = { "--colors", "pink", NULL };
	const char *m[] = { "--minwidth", "abc", NULL }, *m2[] = { "--minwidth", "5%x", NULL };
	const char *none[] = { NULL }, *missing[] = { "/nonexistent/t.wct", NULL };
	const char *out[] = { "-o", "/nonexistent/dir/x.svg", NULL };
	const char *io[] = { "-o", out_path, "--colors", "io", "--minwidth", "1%", NULL };
	char *svg;

	cr_expect_eq(run_cmd(w, true), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(c, true), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(m, true), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(m2, true), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(none, false), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(missing, false), WC_EXIT_BAD_FILE);
	cr_expect_eq(run_cmd(out, true), WC_EXIT_BAD_FILE);
	cr_expect_eq(access("/nonexistent/dir/x.svg", F_OK), -1);
	cr_expect_eq(run_cmd(io, true), 0);
	svg = slurp(out_path);
	cr_expect_not_null(strstr(svg, "stop-color=\"#e0e0ff\""), "io: the blue background");
	free(svg);
}

/*
 * The legend: one swatch per kind of frame drawn, in the order of the bands, the leaves,
 * merged.  Here: m and c on-CPU user, s off-CPU kernel, [off-cpu S], [runqueue], and the
 * run of x1..x3 (1 unit each, 3 >= 2 px) merged at --minwidth 2; no D, R, unsampled, waker.
 * The legend takes a row: the frames start 24 px lower when inverted (36 + 24).
 */
Test(flamegraph, legend)
{
	const char *lines[] = { "m;c 700", "m;s_[k];[off-cpu S] 400",
				"n 27",	   "n;[runqueue] 50",
				"m;x1 1",  "m;x2 1",
				"m;x3 1",  NULL };
	struct wc_flamegraph_opts o = { .minwidth = 2, .legend = true, .inverted = true };
	char *svg = graph(&o, lines, NULL), *g = strstr(svg, "<g id=\"legend\">"), *end;
	const char *want[] = { ">on-CPU<",	">off-CPU<",	">off-CPU, kernel<",
			       ">[off-cpu S]<", ">[runqueue]<", ">[merged]<" };
	const char * not [] = { ">on-CPU, kernel<",	">[off-cpu D]<", ">[off-cpu R]<",
				">[on-cpu unsampled]<", ">waker<",	 ">-<" };

	cr_assert_not_null(g);
	end = strstr(g, "</g>");
	cr_assert_not_null(end);
	*end = 0;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *at = strstr(g, want[i]);

		cr_expect_not_null(at, "%s in %s", want[i], g);
		if (at && i)
			cr_expect_lt(strstr(g, want[i - 1]), at, "%s after %s", want[i],
				     want[i - 1]);
	}
	for (size_t i = 0; i < sizeof(not ) / sizeof(not [0]); i++)
		cr_expect_null(strstr(g, not [i]), "%s in %s", not [i], g);
	cr_expect_not_null(strstr(g, "fill=\"#465af5\"/><text x=\""));
	cr_expect_eq(pf[0].y, 60);
	free(svg);
}

/*
 * A legend wider than the frames wraps into rows.  The entries of the legend test at 400 px
 * (380 px for the frames), each 16 px + 7.08 px a character, 14 px apart: on-CPU 58.48,
 * off-CPU 65.56, "off-CPU, kernel" 122.2 make a row of 274.24 px, and [off-cpu S] (93.88)
 * would take it to 382.12: it starts a second row with [runqueue] 86.8 and [merged] 72.64,
 * 281.32 px.  Each row is centred: x (400 - 274.24) / 2 = 62.9 (the third entry at
 * 62.88 + 72.48 + 79.56 = 214.9), then (400 - 281.32) / 2 = 59.3; rows at y 48 and 72 (the
 * rects 10 px higher).  The x run (3 units of 1180, 0.97 px) is merged at --minwidth 0.5.
 * The frames start two rows down: 36 + 2 * 24 = 84 inverted; the image is (3 + 1) * 16 +
 * 84 + 34 = 182 px high.
 */
Test(flamegraph, legend_rows)
{
	const char *lines[] = { "m;c 700", "m;s_[k];[off-cpu S] 400",
				"n 27",	   "n;[runqueue] 50",
				"m;x1 1",  "m;x2 1",
				"m;x3 1",  NULL };
	struct wc_flamegraph_opts o = {
		.minwidth = 0.5, .legend = true, .inverted = true, .width_px = 400
	};
	struct wc_flamegraph_stats st;
	char *svg = graph(&o, lines, &st);

	cr_expect_not_null(strstr(svg, "<g id=\"legend\"><rect x=\"62.9\" y=\"38\" width=\"12\" "
				       "height=\"12\" fill=\"#e6371b\"/><text x=\"78.9\" y=\"48\">"
				       "on-CPU</text>"),
			   "first row");
	cr_expect_not_null(strstr(svg, "<rect x=\"214.9\" y=\"38\" width=\"12\" "
				       "height=\"12\" fill=\"#55afeb\"/><text x=\"230.9\" "
				       "y=\"48\">off-CPU, kernel"),
			   "third entry on the first row");
	cr_expect_not_null(strstr(svg, "<rect x=\"59.3\" y=\"62\" width=\"12\" height=\"12\" "
				       "fill=\"#465af5\"/><text x=\"75.3\" y=\"72\">[off-cpu S]"),
			   "second row");
	cr_expect_not_null(strstr(svg, "y=\"72\">[merged]</text></g>"), "[merged] last, row 2");
	cr_expect_eq(pf[0].y, 84);
	cr_expect_eq(st.height_px, 182);
	cr_expect_not_null(strstr(svg, "<svg version=\"1.1\" width=\"400\" height=\"182\""));
	cr_expect_not_null(strstr(svg, "top: 84,"), "the script's top: %.200s",
			   strstr(svg, "var fg"));
	free(svg);
}
