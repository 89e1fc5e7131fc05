/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flamegraph-svg.c - the flame graph's tree (flamegraph-priv.h) laid out and written as SVG;
 * see flamegraph.h.
 *
 * Writing lays the tree out in pre-order, the siblings of each node sorted, then prints the
 * frames in that order: the embedded script relies on it (a frame's subtree is the run of
 * frames after it that are deeper).
 *
 * The geometry is flamegraph.pl's (its defaults: font 12 px Verdana, 0.59 of the font size
 * per character, frames 16 px high with 1 px of padding, 10 px side margins, 36 px above
 * for the title and 34 px below for the details line):
 *
 *   x1 = xpad + start * (width - 2 * xpad) / total          start: the time of the frames
 *   x2 = xpad + (start + value) * (width - 2 * xpad) / total  to its left on its row
 *   y1 = height - ypad2 - (depth + 1) * 16 + 1,  y2 = height - ypad2 - depth * 16
 *        (icicle: y1 = top + depth * 16,  y2 = top + (depth + 1) * 16 - 1)
 *
 * A node's own time (the lines that end at it) comes first in its span, its children after
 * it in name order, a name compared as if followed by ';': the order of flamegraph.pl's sort
 * of whole lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/flamegraph-js.h"
#include "analyzer/output/flamegraph-priv.h"
#include "common/grow.h"

#define XPAD	     10
#define FRAME_H	     16
#define FRAME_PAD    1
#define FONT_PX	     12
#define FONT_W	     0.59
#define YPAD1	     (FONT_PX * 3)	/* above the frames: the title */
#define YPAD2	     (FONT_PX * 2 + 10) /* below: the details line */
#define YPAD3	     (FONT_PX * 2)	/* a row under the title: subtitle, legend */
#define SEARCH_COLOR "#e600e6"		/* flamegraph.pl's rgb(230,0,230) */
#define MAX_DIGITS   4

/* A frame to draw: a node, or a run of narrow siblings merged (nmerged >= 2). */
struct frame {
	uint32_t node;	  /* the node, or the first node of the run */
	uint32_t nmerged; /* 0: a node */
	uint32_t depth;
	uint32_t digits; /* decimals of its x and width */
	uint64_t start, value;
};

/* The length of @s without a flamegraph.pl annotation (_[k], _[w], _[i], _[j]) at its end. */
static size_t shown_len(const char *s)
{
	size_t n = strlen(s);

	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kwij", s[n - 2]))
		return n - 4;
	return n;
}

/* ---- colours ---- */

static char *rgb(char buf[8], double r, double g, double b)
{
	snprintf(buf, 8, "#%02x%02x%02x", (unsigned)r & 0xff, (unsigned)g & 0xff,
		 (unsigned)b & 0xff);
	return buf;
}

/*
 * The fixed colours of the synthetic leaves: the states apart at a glance, all cool but the
 * unsampled on-CPU time (warm, pale); flamegraph.pl's greys for "-" and "--"; the last entry
 * is any other state (I, T, t, P, ...).
 */
static const struct {
	const char *name, *color;
} fixed[] = {
	{ "[off-cpu S]", "#465af5" },	     /* sleeping: blue */
	{ "[off-cpu D]", "#6a40c8" },	     /* uninterruptible, I/O: indigo */
	{ "[off-cpu R]", "#b05ae0" },	     /* preempted: violet */
	{ "[runqueue]", "#d296f5" },	     /* waiting for a CPU: lilac */
	{ "[on-cpu unsampled]", "#f5d296" }, /* ran, no sample: sand */
	{ "-", "#c8c8c8" },
	{ "--", "#a0a0a0" },
	{ "[off-cpu other]", "#788ca0" }, /* slate */
};
enum { FIX_DASH = 5, FIX_OTHER = 7, NFIXED = 8 };
#define MERGED_COLOR "#d8d8d8"

/* The index of @name in fixed[], or -1. */
static int fixed_index(const char *name)
{
	for (int i = 0; i < FIX_OTHER; i++)
		if (strcmp(name, fixed[i].name) == 0)
			return i;
	return fg_off_leaf(name, strlen(name)) ? FIX_OTHER : -1;
}

/* The kinds of plain frames, each a band of a palette (and an entry of the legend). */
enum band { B_ON, B_ON_K, B_OFF, B_OFF_K, B_WAKER, B_WAKER_K, NBANDS };

static enum band band_of(enum wc_fg_palette pal, bool kernel, bool off, bool waker)
{
	if (pal == WC_FG_WAKEUP || (pal == WC_FG_CHAIN && waker))
		return kernel ? B_WAKER_K : B_WAKER;
	if (off)
		return kernel ? B_OFF_K : B_OFF;
	return kernel ? B_ON_K : B_ON;
}

/*
 * flamegraph.pl's palettes (sub color) with its formulas, each split in two bands so that
 * kernel frames differ from user frames, three numbers in [0, 1) hashed from the name:
 *   hot user    r 205-255, g   0-110, b 0-55  (its hot: red to orange)
 *   hot kernel  r 205-255, g 160-230, b 0-55  (its hot: orange to yellow)
 *   blue user   r = g 80-140, b 205-255       (its blue)
 *   sky kernel  r 60-110, g 150-200, b 215-255
 *   io user     r = g 80-140, b 190-245       (its io)
 *   aqua user   r 50-110, g = b 165-220       (its aqua, the wakeup and chain waker colour)
 *   aqua kernel r 120-170, g 200-240, b 190-230
 *   pale user / kernel: beige / light yellow (io: on-CPU frames step back)
 */
static char *band_color(enum wc_fg_palette pal, enum band b, double v1, double v2, double v3,
			char buf[8])
{
	switch (b) {
	case B_WAKER:
		return rgb(buf, 50 + 60 * v1, 165 + 55 * v1, 165 + 55 * v1);
	case B_WAKER_K:
		return rgb(buf, 120 + 50 * v1, 200 + 40 * v1, 190 + 40 * v1);
	case B_OFF:
		if (pal == WC_FG_IO)
			return rgb(buf, 80 + 60 * v1, 80 + 60 * v1, 190 + 55 * v2);
		return rgb(buf, 80 + 60 * v1, 80 + 60 * v1, 205 + 50 * v1);
	case B_OFF_K:
		return rgb(buf, 60 + 50 * v1, 150 + 50 * v1, 215 + 40 * v1);
	case B_ON_K:
		if (pal == WC_FG_IO)
			return rgb(buf, 230 + 25 * v1, 225 + 25 * v1, 160 + 30 * v1);
		return rgb(buf, 205 + 50 * v3, 160 + 70 * v1, 55 * v2);
	default:
		if (pal == WC_FG_IO)
			return rgb(buf, 225 + 30 * v1, 200 + 30 * v1, 170 + 30 * v1);
		return rgb(buf, 205 + 50 * v3, 110 * v1, 55 * v2);
	}
}

static bool is_kernel(const char *name)
{
	size_t len = shown_len(name);

	return len != strlen(name) && name[len + 2] == 'k';
}

char *wc_fg_color(enum wc_fg_palette pal, const char *name, bool off, bool waker, char buf[8])
{
	size_t len = shown_len(name);
	uint64_t h = fg_hash_str(name, len);
	int fix = fixed_index(name);

	if (fix >= 0) {
		memcpy(buf, fixed[fix].color, 8);
		return buf;
	}
	return band_color(pal, band_of(pal, is_kernel(name), off, waker),
			  (double)(h & 0xffff) / 65536, (double)(h >> 16 & 0xffff) / 65536,
			  (double)(h >> 32 & 0xffff) / 65536, buf);
}

/* ---- layout ---- */

/* flamegraph.pl's order of siblings: its sort of the lines, where a name ends with ';'. */
static int cmp_names(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = *a ? (unsigned char)*a : ';', y = *b ? (unsigned char)*b : ';';

		if (x != y)
			return x < y ? -1 : 1;
		if (!*a || !*b)
			return 0;
	}
}

static int cmp_kids(const void *x, const void *y, void *fg)
{
	return cmp_names(fg_name_of(fg, *(const uint32_t *)x),
			 fg_name_of(fg, *(const uint32_t *)y));
}

struct layout {
	struct frame *frames; /* pre-order */
	size_t nframes, frames_cap;
	struct frame *stack;
	size_t nstack, stack_cap;
	uint32_t *kids;
	size_t kids_cap;
	double px_per_unit, min_value;
};

/* The decimals that keep a zoom into a parent @parent_px wide within half a pixel. */
static uint32_t digits_for(double parent_px, double avail_px)
{
	uint32_t d = 1;
	double scale = 10;

	for (; d < MAX_DIGITS && parent_px * scale < avail_px; d++)
		scale *= 10;
	return d;
}

static int push(struct layout *l, const struct frame *f)
{
	if (wc_grow((void **)&l->stack, &l->stack_cap, l->nstack + 1, sizeof(*l->stack)))
		return -ENOMEM;
	l->stack[l->nstack++] = *f;
	return 0;
}

/* The drawn children of @f, pushed in reverse order so that the first is popped first. */
static int push_children(struct wc_flamegraph *fg, struct layout *l, const struct frame *f,
			 double avail_px)
{
	const struct node *n = &fg->nodes[f->node];
	size_t nk = 0, base = l->nstack, run = 0;
	uint64_t start = f->start, kids_sum = 0, run_start = 0, run_value = 0;
	struct frame c = { .depth = f->depth + 1,
			   .digits = digits_for((double)f->value * l->px_per_unit, avail_px) };

	for (uint32_t k = n->child; k; k = fg->nodes[k].next) {
		if (wc_grow((void **)&l->kids, &l->kids_cap, nk + 1, sizeof(*l->kids)))
			return -ENOMEM;
		l->kids[nk++] = k;
		kids_sum += fg->nodes[k].value;
	}
	qsort_r(l->kids, nk, sizeof(*l->kids), cmp_kids, fg);
	start += n->value - kids_sum; /* its own time first */
	for (size_t i = 0; i <= nk; i++) {
		const struct node *k = i < nk ? &fg->nodes[l->kids[i]] : NULL;
		bool narrow = k && (double)k->value < l->min_value;

		if (run && !narrow) { /* a run of narrow siblings ends: one frame if wide enough */
			if ((double)run_value >= l->min_value) {
				c.node = l->kids[i - run];
				c.nmerged = (uint32_t)run;
				c.start = run_start;
				c.value = run_value;
				if (push(l, &c))
					return -ENOMEM;
			}
			run = 0;
			run_value = 0;
		}
		if (!k)
			break;
		if (narrow) {
			if (!run++)
				run_start = start;
			run_value += k->value;
		} else {
			c.node = l->kids[i];
			c.nmerged = 0;
			c.start = start;
			c.value = k->value;
			if (push(l, &c))
				return -ENOMEM;
		}
		start += k->value;
	}
	for (size_t i = base, j = l->nstack; i + 1 < j; i++, j--) {
		struct frame t = l->stack[i];

		l->stack[i] = l->stack[j - 1];
		l->stack[j - 1] = t;
	}
	return 0;
}

static int lay_out(struct wc_flamegraph *fg, struct layout *l)
{
	double avail = (double)fg->o.width_px - 2 * XPAD;
	uint64_t total = fg->nodes[0].value;
	struct frame root = { .node = 0, .digits = 1, .value = total };

	l->px_per_unit = avail / (double)total;
	l->min_value = fg->o.minwidth_pct ? (double)total * fg->o.minwidth / 100
					  : fg->o.minwidth / l->px_per_unit;
	if (push(l, &root))
		return -ENOMEM;
	while (l->nstack) {
		struct frame f = l->stack[--l->nstack];

		if (wc_grow((void **)&l->frames, &l->frames_cap, l->nframes + 1, sizeof(f)))
			return -ENOMEM;
		l->frames[l->nframes++] = f;
		if (f.depth > fg->st.depth_max)
			fg->st.depth_max = f.depth;
		if (f.nmerged) {
			fg->st.merged++;
			continue;
		}
		if (push_children(fg, l, &f, avail))
			return -ENOMEM;
	}
	return 0;
}

/* ---- output ---- */

/* The byte length of the UTF-8 sequence at @s, or 0 when it is not valid UTF-8. */
static size_t utf8_len(const unsigned char *s, size_t max)
{
	size_t n = s[0] < 0x80		   ? 1
		   : (s[0] & 0xe0) == 0xc0 ? 2
		   : (s[0] & 0xf0) == 0xe0 ? 3
		   : (s[0] & 0xf8) == 0xf0 ? 4
					   : 0;

	if (!n || n > max || (n == 2 && s[0] < 0xc2))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * @len bytes of @s on @out as XML character data: & < > " escaped (as flamegraph.pl does),
 * control characters and bytes that are not UTF-8 written as '?', so the document parses.
 */
static void put_xml(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(p + i, len - i);

		if (!n || (p[i] < 0x20)) {
			fputc('?', out);
			i += n ? n : 1;
			continue;
		}
		switch (p[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fwrite(p + i, 1, n, out);
		}
		i += n;
	}
}

/* @v with a comma every three digits, as flamegraph.pl writes counts. */
static char *commas(uint64_t v, char buf[32])
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%llu", (unsigned long long)v), j = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = d[i];
	}
	buf[j] = 0;
	return buf;
}

/* The label of a frame @px wide: the name cut to fit, ".." at the cut; its byte length. */
static size_t label_len(const char *name, size_t len, double px, bool *dots)
{
	long chars = (long)(px / (FONT_PX * FONT_W)), n = 0;
	size_t i = 0, cut = 0;

	*dots = false;
	if (chars < 3)
		return 0;
	while (i < len) { /* count characters, cutting after chars - 2 of them */
		size_t c = utf8_len((const unsigned char *)name + i, len - i);

		if (++n == chars - 1)
			cut = i;
		i += c ? c : 1;
	}
	if (n <= chars)
		return len;
	*dots = true;
	return cut;
}

/* Where the frames start: under the title, the subtitle and the legend's rows (one at least). */
static int top_px(const struct wc_flamegraph *fg)
{
	unsigned rows = fg->legend_rows ? fg->legend_rows : 1;

	return YPAD1 + (fg->o.subtitle ? YPAD3 : 0) + (fg->o.legend ? YPAD3 * (int)rows : 0);
}

static void write_frame(struct wc_flamegraph *fg, FILE *out, const struct frame *f,
			double px_per_unit, unsigned height)
{
	const struct node *n = &fg->nodes[f->node];
	const char *name = f->depth ? fg_name_of(fg, f->node) : "all";
	size_t len = shown_len(name), lab;
	double x1 = XPAD + (double)f->start * px_per_unit;
	double x2 = XPAD + (double)(f->start + f->value) * px_per_unit;
	char sx1[48], sx2[48], num[32], color[8], merged[48];
	int y1 = fg->o.inverted ? (int)(top_px(fg) + f->depth * FRAME_H)
				: (int)(height - YPAD2 - (f->depth + 1) * FRAME_H + FRAME_PAD);
	bool dots;

	if (f->nmerged) {
		snprintf(merged, sizeof(merged), "[merged: %u frames]", f->nmerged);
		name = merged;
		len = strlen(name);
		memcpy(color, MERGED_COLOR, 8);
	} else {
		wc_fg_color(fg->o.palette, name, 2 * n->off > n->value, n->flags & F_WAKER, color);
	}
	snprintf(sx1, sizeof(sx1), "%.*f", (int)f->digits, x1);
	snprintf(sx2, sizeof(sx2), "%.*f", (int)f->digits, x2);
	fputs("<g><title>", out);
	put_xml(out, name, len);
	fprintf(out, " (%s %s, ", commas(f->value, num), fg->o.countname);
	if (f->depth)
		fprintf(out, "%.2f%%)", 100.0 * (double)f->value / (double)fg->st.total);
	else
		fputs("100%)", out);
	fprintf(out, "</title><rect x=\"%s\" y=\"%d\" width=\"%.*f\" height=\"%d\" fill=\"%s\"/>",
		sx1, y1, (int)f->digits, strtod(sx2, NULL) - strtod(sx1, NULL), FRAME_H - FRAME_PAD,
		color);
	lab = label_len(name, len, x2 - x1, &dots);
	if (lab || dots) {
		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x1 + 3,
			y1 + 3 + (FRAME_H - FRAME_PAD) / 2.0);
		put_xml(out, name, lab);
		fputs(dots ? "..</text>" : "</text>", out);
	}
	fputs("</g>\n", out);
}

/* Legend entries: the bands, the fixed colours, merged frames. */
enum { L_FIXED = NBANDS, L_MERGED = NBANDS + NFIXED, NLEGEND };

/* The legend entry of frame @f, or -1 (the "-" and "--" delimiters). */
static int legend_of(const struct wc_flamegraph *fg, const struct frame *f)
{
	const struct node *n = &fg->nodes[f->node];
	const char *name = f->depth ? fg_name_of(fg, f->node) : "all";
	int fix = fixed_index(name);

	if (f->nmerged)
		return L_MERGED;
	if (fix == FIX_DASH || fix == FIX_DASH + 1)
		return -1;
	if (fix >= 0)
		return L_FIXED + fix;
	return (int)band_of(fg->o.palette, is_kernel(name), 2 * n->off > n->value,
			    n->flags & F_WAKER);
}

/* The legend: its entries in the order of enum band, fixed[], merged, and their rows. */
struct legend {
	const char *label[NLEGEND];
	char color[NLEGEND][8];
	unsigned row[NLEGEND];
	double row_px[NLEGEND]; /* the width of each row */
	unsigned n, rows;
};

/* The width of a legend entry: a 12 px swatch, 4 px, its label. */
static double entry_px(const char *label)
{
	return 16 + (double)strlen(label) * FONT_PX * FONT_W;
}

/*
 * The legend of the kinds of frame drawn (@mask: bit i for entry i), the bands in their
 * middle colour, laid out in rows as wide as the frames (the width less the side margins):
 * an entry goes on the row of the one before it when it fits there after a 14 px gap, else
 * it starts a new row.
 */
static void legend_lay_out(const struct wc_flamegraph *fg, unsigned mask, struct legend *lg)
{
	static const char *const bands[NBANDS] = {
		"on-CPU", "on-CPU, kernel", "off-CPU", "off-CPU, kernel", "waker", "waker, kernel",
	};
	double avail = (double)fg->o.width_px - 2 * XPAD;

	lg->n = 0;
	lg->rows = 0;
	for (int i = 0; i < NLEGEND; i++) {
		unsigned n = lg->n;
		double w;

		if (!(mask & 1u << i))
			continue;
		if (i < NBANDS) {
			lg->label[n] = bands[i];
			if (fg->o.palette == WC_FG_WAKEUP && i >= B_WAKER)
				lg->label[n] = i == B_WAKER ? "user" : "kernel";
			band_color(fg->o.palette, (enum band)i, 0.5, 0.5, 0.5, lg->color[n]);
		} else if (i < L_MERGED) {
			lg->label[n] = fixed[i - L_FIXED].name;
			memcpy(lg->color[n], fixed[i - L_FIXED].color, 8);
		} else {
			lg->label[n] = "[merged]";
			memcpy(lg->color[n], MERGED_COLOR, 8);
		}
		w = entry_px(lg->label[n]);
		if (lg->rows && lg->row_px[lg->rows - 1] + 14 + w <= avail) {
			lg->row_px[lg->rows - 1] += 14 + w;
		} else {
			lg->row_px[lg->rows] = w;
			lg->rows++;
		}
		lg->row[n] = lg->rows - 1;
		lg->n++;
	}
}

/*
 * The legend's rows, the first centred at @y, the next ones YPAD3 lower: a 12 px swatch and
 * a label for each entry, each row centred (from the left margin when it is wider).
 */
static void write_legend(const struct wc_flamegraph *fg, FILE *out, const struct legend *lg, int y)
{
	double x = 0;

	fputs("<g id=\"legend\">", out);
	for (unsigned i = 0; i < lg->n; i++) {
		int ry = y + (int)lg->row[i] * YPAD3;

		if (!i || lg->row[i] != lg->row[i - 1]) {
			x = ((double)fg->o.width_px - lg->row_px[lg->row[i]]) / 2;
			x = x < XPAD ? XPAD : x;
		}
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%d\">",
			x, ry - 10, lg->color[i], x + 16, ry);
		put_xml(out, lg->label[i], strlen(lg->label[i]));
		fputs("</text>", out);
		x += entry_px(lg->label[i]) + 14;
	}
	fputs("</g>\n", out);
}

static void put_attr_js(FILE *out, const char *s)
{
	for (; *s; s++) { /* inside a JS string in CDATA: only what could end either */
		if (*s == '\\' || *s == '\'' || *s == ']' || (unsigned char)*s < 0x20)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
}

static void write_head(struct wc_flamegraph *fg, FILE *out, unsigned height,
		       const struct legend *lg)
{
	unsigned w = fg->o.width_px;
	bool blue = fg->o.palette != WC_FG_HOT;
	const char *title = fg->o.title	     ? fg->o.title
			    : fg->o.inverted ? "Icicle Graph"
					     : "Flame Graph";

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" onload=\"init(evt)\" "
		"viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		"<!-- Flame graph by wcanalyze flamegraph, after Brendan Gregg's flamegraph.pl "
		"(https://github.com/brendangregg/FlameGraph). Click a frame to zoom, Search or "
		"Ctrl-F to search (a regular expression), Ctrl-I to ignore case. -->\n"
		"<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/>"
		"<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient></defs>\n"
		"<style type=\"text/css\">\n"
		"text { font-family:Verdana, sans-serif; font-size:%dpx; fill:#000000; }\n"
		"#title { text-anchor:middle; font-size:%dpx; }\n"
		"#subtitle { text-anchor:middle; fill:#a0a0a0; }\n"
		"#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		"#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		"#unzoom { cursor:pointer; }\n"
		"#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		"#frames rect { rx:2px; ry:2px; }\n"
		".hide { display:none; }\n"
		".parent { opacity:0.5; }\n"
		"</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var fg = { W: %u, xpad: %d, fh: %d, fs: %d, fw: %g, bottom: %d, top: %d, "
		"inverted: %d, sc: '%s', nametype: 'Function: ', unit: '",
		w, height, w, height, blue ? "#e0e0ff" : "#eeeeb0", FONT_PX, FONT_PX + 5, w, XPAD,
		FRAME_H, FONT_PX, FONT_W, (int)height - YPAD2 + FRAME_PAD, top_px(fg),
		fg->o.inverted, SEARCH_COLOR);
	put_attr_js(out, fg->o.countname);
	fputs("' };\n", out);
	fputs(wc_flamegraph_js, out);
	fprintf(out,
		"]]></script>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n"
		"<text id=\"title\" x=\"%u\" y=\"%d\">",
		w, height, w / 2, FONT_PX * 2);
	put_xml(out, title, strlen(title));
	fputs("</text>\n", out);
	if (fg->o.subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%u\" y=\"%d\">", w / 2, FONT_PX * 4);
		put_xml(out, fg->o.subtitle, strlen(fg->o.subtitle));
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"unzoom\" x=\"%d\" y=\"%d\" class=\"hide\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n"
		"<text id=\"ignorecase\" x=\"%u\" y=\"%d\">ic</text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
		XPAD, height - YPAD2 / 2, XPAD, FONT_PX * 2, w - XPAD - 100, FONT_PX * 2,
		w - XPAD - 16, FONT_PX * 2, w - XPAD - 100, height - YPAD2 / 2);
	if (fg->o.legend)
		write_legend(fg, out, lg, FONT_PX * 4 + (fg->o.subtitle ? YPAD3 : 0));
}

/* An empty graph: flamegraph.pl's error SVG, with our message. */
static void write_empty(struct wc_flamegraph *fg, FILE *out)
{
	unsigned w = fg->o.width_px, h = FONT_PX * 5;

	fg->st.height_px = h;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<text x=\"%u\" y=\"%d\" text-anchor=\"middle\" "
		"font-family=\"Verdana, sans-serif\" font-size=\"%d\">"
		"No stacks: the profile is empty.</text>\n</svg>\n",
		w, h, w, h, w / 2, FONT_PX * 2, FONT_PX);
}

int wc_flamegraph_write(struct wc_flamegraph *fg, FILE *out)
{
	struct layout l = { 0 };
	struct legend lg = { 0 };
	unsigned height, legend = 0;
	int err = 0;

	memset(&fg->st, 0, sizeof(fg->st));
	fg->legend_rows = 0;
	fg->st.nodes = fg->nnodes;
	fg->st.total = fg->nodes[0].value;
	if (!fg->st.total) {
		write_empty(fg, out);
		goto out;
	}
	err = lay_out(fg, &l);
	if (err)
		goto out;
	fg->st.frames = l.nframes;
	fg->st.hidden = fg->nnodes - (l.nframes - fg->st.merged);
	for (size_t i = 0; fg->o.legend && i < l.nframes; i++) {
		int e = legend_of(fg, &l.frames[i]);

		legend |= e >= 0 ? 1u << e : 0;
	}
	legend_lay_out(fg, legend, &lg);
	fg->legend_rows = lg.rows;
	height = (fg->st.depth_max + 1) * FRAME_H + (unsigned)top_px(fg) + YPAD2;
	fg->st.height_px = height;
	write_head(fg, out, height, &lg);
	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < l.nframes; i++)
		write_frame(fg, out, &l.frames[i], l.px_per_unit, height);
	fputs("</g>\n</svg>\n", out);
out:
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	free(l.frames);
	free(l.stack);
	free(l.kids);
	return err;
}
