/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flamegraph.c - see flamegraph.h: the flame graph's tree, built from the profile's lines
 * (output.h) or from folded text, and the SVG row of the output table.  flamegraph-svg.c
 * lays the tree out and writes it.
 *
 * The stacks go into a tree (one node per distinct path, children found through a hash map
 * of (parent, name)), names interned once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/flamegraph-priv.h"
#include "common/grow.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"

/* ---- names ---- */

static int intern_grow(struct wc_flamegraph *fg)
{
	size_t slots = fg->intern ? (fg->intern_mask + 1) * 2 : 1024;
	uint32_t *t = calloc(slots, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; fg->intern && i <= fg->intern_mask; i++) {
		const char *s;
		size_t j;

		if (!fg->intern[i])
			continue;
		s = fg->pool + fg->intern[i] - 1;
		for (j = fg_hash_str(s, strlen(s)) & (slots - 1); t[j]; j = (j + 1) & (slots - 1))
			;
		t[j] = fg->intern[i];
	}
	free(fg->intern);
	fg->intern = t;
	fg->intern_mask = slots - 1;
	return 0;
}

/* The pool offset of @s (@len bytes), added when new; -ENOMEM or -EOVERFLOW. */
static int64_t intern(struct wc_flamegraph *fg, const char *s, size_t len)
{
	size_t j;

	if ((fg->nnames + 1) * 2 > fg->intern_mask + 1 || !fg->intern)
		if (intern_grow(fg))
			return -ENOMEM;
	for (j = fg_hash_str(s, len) & fg->intern_mask; fg->intern[j];
	     j = (j + 1) & fg->intern_mask) {
		const char *t = fg->pool + fg->intern[j] - 1;

		if (strncmp(t, s, len) == 0 && t[len] == 0)
			return fg->intern[j] - 1;
	}
	if (fg->pool_len + len + 1 >= UINT32_MAX)
		return -EOVERFLOW;
	if (wc_grow((void **)&fg->pool, &fg->pool_cap, fg->pool_len + len + 1, 1))
		return -ENOMEM;
	memcpy(fg->pool + fg->pool_len, s, len);
	fg->pool[fg->pool_len + len] = 0;
	fg->intern[j] = (uint32_t)fg->pool_len + 1;
	fg->pool_len += len + 1;
	fg->nnames++;
	return fg->intern[j] - 1;
}

/* ---- the tree ---- */

struct wc_flamegraph *wc_flamegraph_new(const struct wc_flamegraph_opts *o)
{
	struct wc_flamegraph *fg;

	if ((o->width_px && (o->width_px < 100 || o->width_px > 100000)) ||
	    o->minwidth != o->minwidth || (o->minwidth_pct && o->minwidth < 0)) {
		errno = EINVAL;
		return NULL;
	}
	fg = calloc(1, sizeof(*fg));
	if (!fg)
		return NULL;
	fg->o = *o;
	if (!fg->o.width_px)
		fg->o.width_px = 1200;
	if (fg->o.minwidth < 0)
		fg->o.minwidth = 0.1;
	if (!fg->o.countname)
		fg->o.countname = "samples";
	if (wc_map64_init(&fg->kids) || intern(fg, "all", 3) < 0 ||
	    wc_grow((void **)&fg->nodes, &fg->nodes_cap, 1, sizeof(*fg->nodes))) {
		wc_flamegraph_free(fg);
		errno = ENOMEM;
		return NULL;
	}
	memset(&fg->nodes[0], 0, sizeof(fg->nodes[0]));
	fg->nnodes = 1;
	return fg;
}

void wc_flamegraph_free(struct wc_flamegraph *fg)
{
	if (!fg)
		return;
	wc_map64_fini(&fg->kids);
	free(fg->pool);
	free(fg->intern);
	free(fg->nodes);
	free(fg->path);
	free(fg->byid);
	free(fg);
}

/* The child of @parent named @name (a pool offset), made when new; 0 on an error (*err). */
static uint32_t child(struct wc_flamegraph *fg, uint32_t parent, int64_t name, int *err)
{
	struct node *p, *c;
	const char *s;
	uint64_t *slot;
	int inserted;

	if (name < 0) {
		*err = (int)name;
		return 0;
	}
	s = fg->pool + name;
	if (fg->nnodes >= UINT32_MAX) {
		*err = -EOVERFLOW;
		return 0;
	}
	slot = wc_map64_put(&fg->kids, (uint64_t)parent << 32 | (uint64_t)name, fg->nnodes,
			    &inserted);
	if (!slot || (inserted && wc_grow((void **)&fg->nodes, &fg->nodes_cap, fg->nnodes + 1,
					  sizeof(*fg->nodes)))) {
		*err = -ENOMEM;
		return 0;
	}
	if (!inserted)
		return (uint32_t)*slot;
	p = &fg->nodes[parent];
	c = &fg->nodes[fg->nnodes];
	memset(c, 0, sizeof(*c));
	c->name = (uint32_t)name;
	c->next = p->child;
	p->child = (uint32_t)fg->nnodes;
	if (s[0] == '-' && s[1] == '-' && !s[2])
		c->flags |= F_DASH2;
	if (parent && (p->flags & (F_WAKER | F_DASH2)))
		c->flags |= F_WAKER;
	return (uint32_t)fg->nnodes++;
}

/* Whether @value can be added to the total: it stays under 2^63. */
static int room_for(const struct wc_flamegraph *fg, uint64_t value)
{
	if (fg->nodes[0].value + value < value || fg->nodes[0].value + value > INT64_MAX)
		return -EOVERFLOW;
	return 0;
}

/* Append node @cur to the path of the line being added. */
static int path_put(struct wc_flamegraph *fg, size_t n, uint32_t cur)
{
	if (wc_grow((void **)&fg->path, &fg->path_cap, n + 1, sizeof(*fg->path)))
		return -ENOMEM;
	fg->path[n] = cur;
	return 0;
}

/* Add @value to the root and the @n nodes of fg->path; @off: it is off-CPU time. */
static void path_add(struct wc_flamegraph *fg, size_t n, uint64_t value, bool off)
{
	fg->nodes[0].value += value;
	fg->nodes[0].off += off ? value : 0;
	for (size_t i = 0; i < n; i++) {
		fg->nodes[fg->path[i]].value += value;
		fg->nodes[fg->path[i]].off += off ? value : 0;
	}
}

int wc_flamegraph_add(struct wc_flamegraph *fg, const char *stack, uint64_t value)
{
	const char *last = strrchr(stack, ';');
	bool off;
	size_t n = 0;
	uint32_t cur = 0;
	int err = 0;

	if (!value)
		return 0;
	if (room_for(fg, value))
		return -EOVERFLOW;
	last = last ? last + 1 : stack;
	off = fg->o.off_cpu || fg_off_leaf(last, strlen(last));
	/* first make the path, then add: a failure half-way leaves the values consistent */
	for (const char *s = stack;; s++) {
		const char *e = strchr(s, ';');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		cur = child(fg, cur, intern(fg, s, len), &err);
		if (err || (err = path_put(fg, n++, cur)))
			return err;
		if (!e)
			break;
		s = e;
	}
	path_add(fg, n, value, off);
	return 0;
}

/* The pool offset of frame @f of a profile line: interned once per frame id. */
static int64_t frame_name(struct wc_flamegraph *fg, const struct wc_out_frame *f)
{
	size_t had = fg->byid_cap;
	int64_t name;

	if (f->id >= fg->byid_cap) {
		if (wc_grow((void **)&fg->byid, &fg->byid_cap, (size_t)f->id + 1,
			    sizeof(*fg->byid)))
			return -ENOMEM;
		memset(fg->byid + had, 0, (fg->byid_cap - had) * sizeof(*fg->byid));
	}
	if (fg->byid[f->id])
		return fg->byid[f->id] - 1;
	name = intern(fg, f->name, strlen(f->name));
	if (name >= 0)
		fg->byid[f->id] = (uint32_t)name + 1;
	return name;
}

int wc_flamegraph_add_line(struct wc_flamegraph *fg, const struct wc_out_line *l)
{
	bool off = fg->o.off_cpu || l->leaf == WC_OUT_OFF_STATE || l->leaf == WC_OUT_RUNQUEUE;
	uint32_t cur = 0;
	int err = 0;

	if (!l->value)
		return 0;
	if (room_for(fg, l->value))
		return -EOVERFLOW;
	for (uint32_t i = 0; i < l->nframes; i++) {
		cur = child(fg, cur, frame_name(fg, &l->frames[i]), &err);
		if (err || (err = path_put(fg, i, cur)))
			return err;
	}
	path_add(fg, l->nframes, l->value, off);
	return 0;
}

int wc_flamegraph_add_folded(struct wc_flamegraph *fg, const char *line)
{
	size_t len = strcspn(line, "\r\n"), end = len, sp;
	unsigned long long v = 0;
	char *stack;
	int err;

	while (end && line[end - 1] == ' ')
		end--;
	sp = end;
	while (sp && line[sp - 1] >= '0' && line[sp - 1] <= '9')
		sp--;
	if (sp == end || !sp || line[sp - 1] != ' ' || end - sp > 19)
		return -EINVAL;
	for (size_t i = sp; i < end; i++)
		v = v * 10 + (unsigned)(line[i] - '0');
	while (sp && line[sp - 1] == ' ')
		sp--;
	stack = strndup(line, sp);
	if (!stack)
		return -ENOMEM;
	err = wc_flamegraph_add(fg, stack, v);
	free(stack);
	return err;
}

void wc_flamegraph_stats(const struct wc_flamegraph *fg, struct wc_flamegraph_stats *st)
{
	*st = fg->st;
}

/* ---- the SVG row of the output table (output.h) ---- */

/* The default title: the kind of time (flamegraph.pl says Flame Graph / Icicle Graph). */
static const char *default_title(enum wc_profile_mode mode, bool waker, bool inverted)
{
	if (waker) /* what Brendan Gregg's offwaketime graphs are called */
		return inverted ? "Off-Wake Time Icicle Graph" : "Off-Wake Time Flame Graph";
	switch (mode) {
	case WC_MODE_OFF:
		return inverted ? "Off-CPU Time Icicle Graph" : "Off-CPU Time Flame Graph";
	case WC_MODE_ON:
		return inverted ? "On-CPU Icicle Graph" : "On-CPU Flame Graph";
	default:
		return inverted ? "Wall-clock Icicle Graph" : "Wall-clock Flame Graph";
	}
}

static int svg_begin(const struct wc_out_args *args, void **state)
{
	const struct wc_profile_opts *prof = args->prof;
	struct wc_flamegraph_opts o = { .minwidth = -1 };
	struct wc_flamegraph *fg;

	if (args->svg)
		o = *args->svg;
	else if (prof->waker) /* as flamegraph.pl --colors chain */
		o.palette = WC_FG_CHAIN;
	if (!o.title)
		o.title = default_title(prof->mode, prof->waker, o.inverted);
	o.subtitle = NULL;
	o.legend = true;
	o.countname = wc_unit_name(prof->unit);
	o.off_cpu = prof->mode == WC_MODE_OFF;
	fg = wc_flamegraph_new(&o);
	if (!fg)
		return -errno;
	snprintf(fg->subtitle, sizeof(fg->subtitle), "%s, time in %s", args->file,
		 wc_unit_name(prof->unit));
	fg->o.subtitle = fg->subtitle;
	fg->out = args->out;
	*state = fg;
	return 0;
}

static int svg_line(void *state, const struct wc_out_line *l)
{
	return wc_flamegraph_add_line(state, l);
}

static int svg_end(void *state, bool write, struct wc_out_result *res)
{
	struct wc_flamegraph *fg = state;
	int err = write ? wc_flamegraph_write(fg, fg->out) : 0;

	res->items = fg->st.total;
	wc_flamegraph_free(fg);
	return err;
}

const struct wc_output_ops wc_output_svg = {
	.name = "svg",
	.help = "the wall-clock profile as an SVG flame graph (as wcanalyze\n"
		"                         flamegraph)",
	.annotate = true, /* kernel frames coloured apart; the suffix is not shown */
	.begin = svg_begin,
	.line = svg_line,
	.end = svg_end,
};
