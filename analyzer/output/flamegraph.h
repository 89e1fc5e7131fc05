/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flamegraph.h - a profile's lines (output.h; this is its "svg" row), or folded stacks, to
 * a self-contained interactive SVG flame graph, laid out as Brendan Gregg's flamegraph.pl
 * does (github.com/brendangregg/FlameGraph): one <g> per frame with a <title> (the tooltip:
 * "name (1,234 us, 5.00%)"), a <rect> and a <text> label, the root "all" at the bottom (at
 * the top with @inverted, an icicle graph), siblings in the order flamegraph.pl gives them
 * (its sort of the folded lines: a caller's own time on the left of its callees), so that
 * the same folded input gives frames at the same x and of the same width as flamegraph.pl's.
 * An embedded script (no network) zooms on a click, resets the zoom, searches with highlight
 * and the matched share, and shows a frame's title at the bottom when the pointer is over it.
 *
 * Where we differ from flamegraph.pl on purpose:
 *  - frames narrower than the minimum width are not only dropped: each run of two or more
 *    adjacent narrow siblings that is itself at least that wide is drawn as one grey
 *    "[merged: N frames]" frame, so that their time stays visible;
 *  - x and widths have the decimals a zoom into the parent needs (1 to 4), not always 1;
 *  - colours: a wall-clock palette (warm on-CPU, cool off-CPU, one fixed colour per
 *    off-CPU state leaf, kernel frames "_[k]" in their own band), hashed per name with our
 *    own hash (flamegraph.pl uses perl's rand() seeded with the name), and on request a
 *    legend under the title with a swatch for each kind of frame drawn, in as many rows as
 *    the width needs;
 *  - no DOCTYPE (a validating XML tool would fetch the SVG 1.1 DTD from the network) and no
 *    standalone="yes" (the document is valid against that DTD given locally, as xmllint
 *    --dtdvalid reads it), the rects' rounded corners in the style sheet, empty labels left
 *    out: a smaller file;
 *  - the search matches the frame name only (flamegraph.pl matches the whole title) and the
 *    matched share is of the total time, from the frames' values, nested matches once.
 */
#ifndef WC_ANALYZER_FLAMEGRAPH_H
#define WC_ANALYZER_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --colors: flamegraph.pl's palette names, read for a wall-clock profile (flamegraph.h). */
enum wc_fg_palette {
	WC_FG_HOT = 0, /* on-CPU warm (flamegraph.pl's hot), off-CPU blue */
	WC_FG_IO,      /* off-CPU in flamegraph.pl's io blues, on-CPU pale: blocking stands out */
	WC_FG_WAKEUP,  /* every plain frame aqua, as flamegraph.pl's wakeup */
	WC_FG_CHAIN,   /* frames after a "--" frame (wakers) aqua, others as hot */
};

struct wc_flamegraph_opts {
	const char *title;     /* NULL: "Flame Graph", or "Icicle Graph" when inverted */
	const char *subtitle;  /* a second line under the title, or NULL */
	const char *countname; /* the unit of the values in the tooltips ("us"); NULL "samples" */
	unsigned width_px;     /* the image's width; 0: 1200 */
	double minwidth;       /* narrower frames are merged or dropped; < 0: 0.1 (px) */
	bool minwidth_pct;     /* @minwidth is a percentage of the total, not pixels */
	bool inverted;	       /* icicle graph: the root at the top */
	bool off_cpu;	       /* a line without a state leaf is off-CPU time (--mode off) */
	bool legend;	       /* rows under the title: a swatch for each kind of frame drawn */
	enum wc_fg_palette palette;
};

/* What the last wc_flamegraph_write() drew. */
struct wc_flamegraph_stats {
	size_t nodes;	    /* distinct frames (root included) in the tree */
	size_t frames;	    /* <g> frames drawn, merged ones included */
	size_t merged;	    /* "[merged: N frames]" frames among them */
	size_t hidden;	    /* tree frames not drawn as themselves (dropped, or merged) */
	unsigned depth_max; /* the deepest frame drawn (the root is 0) */
	uint64_t total;	    /* the sum of the values */
	unsigned height_px; /* the image's height */
};

struct wc_flamegraph;
struct wc_out_line;

/**
 * wc_flamegraph_new() - an empty flame graph
 * @o: copied; the strings are borrowed until wc_flamegraph_free()
 * Return: it, or NULL with errno ENOMEM, or EINVAL for a width under 100 or over 100000
 * pixels or a minimum width that is not a number >= 0.
 */
struct wc_flamegraph *wc_flamegraph_new(const struct wc_flamegraph_opts *o);

/* wc_flamegraph_free() - free @fg; NULL is a no-op. */
void wc_flamegraph_free(struct wc_flamegraph *fg);

/**
 * wc_flamegraph_add() - add one folded stack, its value added to every frame on its path
 * @stack: frames joined by ';', root first, no value ("comm;main;read_[k];[off-cpu S]");
 *         copied.  A frame named "_[k]" at its end is a kernel frame (the suffix is not
 *         shown); a last frame "[off-cpu X]" or "[runqueue]" makes the line off-CPU time.
 * @value: in the unit of the graph (countname); 0 adds nothing
 * Return: 0, -ENOMEM, or -EOVERFLOW when the total would pass 2^63.
 */
int wc_flamegraph_add(struct wc_flamegraph *fg, const char *stack, uint64_t value);

/**
 * wc_flamegraph_add_line() - add one line of a profile (output.h), its value added to every
 * frame on its path; frames are told apart by their names (interned once per frame id, so
 * the lines should all come from one profile), kernel frames by their "_[k]" suffix as in
 * wc_flamegraph_add(); a line whose leaf is an off-CPU state or the run queue is off-CPU time
 * @l: borrowed for the call
 * Return: 0, -ENOMEM, or -EOVERFLOW when the total would pass 2^63.
 */
int wc_flamegraph_add_line(struct wc_flamegraph *fg, const struct wc_out_line *l);

/**
 * wc_flamegraph_add_folded() - add one line of folded text, "STACK VALUE" (the value after
 * the last run of spaces, an unsigned integer), as flamegraph.pl reads it
 * Return: 0, -EINVAL for a line without a value (nothing added), or as wc_flamegraph_add().
 */
int wc_flamegraph_add_folded(struct wc_flamegraph *fg, const char *line);

/**
 * wc_flamegraph_write() - the SVG document on @out
 * An empty graph gives an SVG with the message "no samples" (flamegraph.pl's error SVG).
 * Return: 0, -ENOMEM, or -EIO when writing to @out failed.
 */
int wc_flamegraph_write(struct wc_flamegraph *fg, FILE *out);

/* wc_flamegraph_stats() - the counts of the last wc_flamegraph_write() (zero before). */
void wc_flamegraph_stats(const struct wc_flamegraph *fg, struct wc_flamegraph_stats *st);

/**
 * wc_fg_color() - the fill of a frame, "#rrggbb" in @buf (8 bytes)
 * @name:   the frame's name as added (with its "_[k]" suffix, if any)
 * @off:    the frame's time is mostly off-CPU
 * @waker:  the frame comes after a "--" frame on its stack (chain graphs)
 * Exposed for the tests.  Return: @buf.
 */
char *wc_fg_color(enum wc_fg_palette pal, const char *name, bool off, bool waker, char buf[8]);

#endif /* WC_ANALYZER_FLAMEGRAPH_H */
