/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * files.c - the profile of several traces (wc_cli_profile_files(), cli.h): each analysed
 * alone, their lines merged (merge.h) into one output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/core/tasks.h"
#include "analyzer/output/merge.h"
#include "analyzer/reports/info.h"

/* @path's base name, less a ".wct" ending, in @buf (@len bytes); @whole: the path as it is. */
static const char *label_of(const char *path, bool whole, char *buf, size_t len)
{
	const char *b = whole ? NULL : strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".wct"))
		n -= 4;
	snprintf(buf, len, "%.*s", (int)n, b);
	return buf;
}

const char *wc_cli_file_label(const struct wc_cli *c, int i, char *buf, size_t len)
{
	char other[256];

	label_of(c->files[i], false, buf, len);
	for (int j = 0; j < c->nfiles; j++)
		if (j != i && !strcmp(label_of(c->files[j], false, other, sizeof(other)), buf))
			return label_of(c->files[i], true, buf, len);
	return buf;
}

/* @span widened to cover @s (a file's): from the earliest known start to the latest end. */
static void span_add(struct wc_out_span *span, struct wc_out_span s, bool first)
{
	uint64_t end;

	if (first) {
		*span = s;
		return;
	}
	if (!span->wall_ns || !s.wall_ns) { /* a start unknown: lengths summed */
		*span = (struct wc_out_span){ 0, span->duration_ns + s.duration_ns };
		return;
	}
	end = span->wall_ns + span->duration_ns;
	if (s.wall_ns + s.duration_ns > end)
		end = s.wall_ns + s.duration_ns;
	if (s.wall_ns < span->wall_ns)
		span->wall_ns = s.wall_ns;
	span->duration_ns = end - span->wall_ns;
}

/* @args' kernel build-id: @kbid, the first file's (@first), or "" once two files differ;
 * *@mixed then. */
static void kernel_add(struct wc_out_args *args, const char *kbid, bool first, bool *mixed)
{
	if (first)
		snprintf(args->kernel_build_id, sizeof(args->kernel_build_id), "%s",
			 kbid ? kbid : "");
	else if (strcmp(args->kernel_build_id, kbid ? kbid : ""))
		*mixed = true;
	if (*mixed)
		args->kernel_build_id[0] = '\0';
}

/* The profile of file @i of @c into @m, its kernel's build-id into @args.  Return: its exit
 * status, or -errno when @m failed. */
static int one_file(struct wc_cli *c, int i, bool waker, struct wc_out_merge *m,
		    struct wc_out_span *span, bool first, struct wc_out_args *args, bool *mixed)
{
	struct wc_cli_session s = { 0 };
	struct wc_profile *p = NULL;
	char label[256];
	int ret = wc_cli_profile_run(&s, c, waker, &p), err = 0;

	if (ret < 0) {
		const struct wc_tasks *t = wc_analysis_tasks(s.a);

		err = wc_out_merge_file(m, t->dsos, t->ndsos,
					c->per_file ? wc_cli_file_label(c, i, label, sizeof(label))
						    : NULL);
		if (!err)
			err = wc_profile_lines(p, s.a, s.sym, wc_out_merge_line, m);
		span_add(span, wc_out_span_of(s.a, &c->prof), first);
		kernel_add(args, wc_analysis_kernel_build_id(s.a), first, mixed);
		wc_cli_profile_notes(&s, p, c->file, stderr);
		wc_info_counts_line(s.a, stderr);
		s.counts_shown = true;
	}
	ret = wc_cli_end(&s, ret);
	wc_profile_free(p);
	return err ? err : ret;
}

int wc_cli_profile_files(struct wc_cli *c, bool waker, const struct wc_output_ops *ops,
			 struct wc_out_args *args, struct wc_out_result *res, bool *written)
{
	enum wc_unit unit = c->prof.unit;
	struct wc_out_merge *m = wc_out_merge_new(c->prof.split_threads);
	struct wc_out_span span = { 0 };
	int worst = WC_EXIT_OK, err = m ? 0 : -ENOMEM, done = 0;
	bool mixed = false;
	char what[300];

	c->prof.unit = WC_UNIT_NS; /* summed in ns, rounded once */
	for (int i = 0; i < c->nfiles && !err; i++) {
		int ret;

		c->file = c->files[i];
		ret = one_file(c, i, waker, m, &span, !done, args, &mixed);
		if (ret < 0)
			err = ret;
		else if (ret == WC_EXIT_USAGE)
			err = -EINVAL; /* the same options for every file: stop */
		else
			worst = wc_cli_worse(worst, ret);
		done += ret == WC_EXIT_OK || ret == WC_EXIT_TRUNCATED;
	}
	c->prof.unit = unit;
	c->file = c->files[0];
	if (c->nfiles > 1)
		snprintf(what, sizeof(what), "%s and %d more", c->files[0], c->nfiles - 1);
	args->file = c->nfiles > 1 ? what : c->files[0];
	args->span = span;
	args->prof = &c->prof;
	if (!err)
		err = wc_out_merge_run(m, ops, args, unit, res);
	if (written)
		*written = !err;
	args->file = c->files[0];
	wc_out_merge_free(m);
	if (err == -EINVAL)
		return WC_EXIT_USAGE;
	if (err) {
		fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
		return WC_EXIT_BAD_FILE;
	}
	return worst;
}

int wc_cli_each_file(const struct wc_cli *c, int argc, char **argv, int (*cmd)(int, char **))
{
	int k = argc - c->nfiles, worst = WC_EXIT_OK;
	char **v = malloc(((size_t)k + 3) * sizeof(*v)), dashes[] = "--";

	if (!v) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	memcpy(v, argv, (size_t)k * sizeof(*v));
	if (strcmp(v[k - 1], "--") != 0) /* a FILE such as "-x.wct" is not an option */
		v[k++] = dashes;
	for (int i = 0; i < c->nfiles; i++) {
		int ret;

		v[k] = c->files[i];
		v[k + 1] = NULL;
		printf("%s==> %s <==\n", i ? "\n" : "", c->files[i]);
		fflush(stdout);
		ret = cmd(k + 1, v);
		fflush(stdout);
		if (ret == WC_EXIT_USAGE) {
			worst = ret;
			break;
		}
		worst = wc_cli_worse(worst, ret);
	}
	free(v);
	return worst;
}

int wc_cli_worse(int a, int b)
{
	static const int rank[] = { [WC_EXIT_OK] = 0,
				    [WC_EXIT_TRUNCATED] = 1,
				    [WC_EXIT_BAD_FILE] = 2,
				    [WC_EXIT_USAGE] = 3 };

	if (a < 0 || a > WC_EXIT_TRUNCATED)
		return b;
	if (b < 0 || b > WC_EXIT_TRUNCATED)
		return a;
	return rank[b] > rank[a] ? b : a;
}
