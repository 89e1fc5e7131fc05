/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c - see output.h: the table of the profile's outputs and the one loop that feeds them. */
#include <errno.h>
#include <string.h>

#include "analyzer/core/replay.h"
#include "analyzer/core/tasks.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"

/* One row per format (output.h says how to add one). */
const struct wc_output_ops *const wc_outputs[] = {
	&wc_output_folded, &wc_output_svg, &wc_output_speedscope, &wc_output_pprof, NULL,
};

const struct wc_output_ops *wc_output_find(const char *name)
{
	for (size_t i = 0; wc_outputs[i]; i++)
		if (strcmp(wc_outputs[i]->name, name) == 0)
			return wc_outputs[i];
	return NULL;
}

/* The row's state and the count of lines, as wc_profile_lines()'s context. */
struct feed {
	const struct wc_output_ops *ops;
	void *state;
	size_t lines;
};

static int feed_line(void *ctx, const struct wc_out_line *l)
{
	struct feed *f = ctx;

	f->lines++;
	return f->ops->line(f->state, l);
}

struct wc_out_span wc_out_span_of(struct wc_analysis *a, const struct wc_profile_opts *o)
{
	const struct wc_replay_meta *meta = wc_replay_meta(wc_analysis_replay(a));
	uint64_t start = wc_analysis_facts(a)->start_ns, end = wc_analysis_end_ns(a);
	struct wc_window w = wc_filter_window(&o->filter, start);
	struct wc_out_span span = { 0 };

	if (w.t0 > start)
		start = w.t0;
	if (w.t1 < end)
		end = w.t1;
	if (!start || !meta->realtime_ns || !wc_replay_wall_ns(meta, start, &span.wall_ns))
		span.wall_ns = 0;
	span.duration_ns = end > start ? end - start : 0;
	return span;
}

int wc_output_begin(const struct wc_output_ops *ops, const struct wc_out_args *args, void **state)
{
	struct wc_out_args x = *args;
	const char *kbid;

	if (!x.dsos && x.a) {
		const struct wc_tasks *t = wc_analysis_tasks(x.a);

		x.dsos = t->dsos;
		x.ndsos = t->ndsos;
	}
	if (!x.span.wall_ns && !x.span.duration_ns && x.a)
		x.span = wc_out_span_of(x.a, x.prof);
	kbid = x.a ? wc_analysis_kernel_build_id(x.a) : NULL;
	if (!x.kernel_build_id[0] && kbid)
		snprintf(x.kernel_build_id, sizeof(x.kernel_build_id), "%s", kbid);
	return ops->begin(&x, state);
}

int wc_output_run(const struct wc_output_ops *ops, const struct wc_out_args *args,
		  struct wc_profile *p, struct wc_symbolizer *sym, struct wc_out_result *res)
{
	struct wc_out_result r = { 0 };
	struct feed f = { .ops = ops };
	int err = wc_output_begin(ops, args, &f.state), eerr;

	if (!err) {
		err = wc_profile_lines(p, args->a, sym, feed_line, &f);
		eerr = ops->end(f.state, !err, &r);
		err = err ? err : eerr;
	}
	r.lines = f.lines;
	if (res)
		*res = r;
	return err;
}
