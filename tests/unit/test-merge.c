/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-merge.c - several analyses' profile lines merged (merge.h), against values worked out
 * by hand: lines summed by text in ns and rounded once, threads kept apart with split, the
 * frames' files named by one table across files, --per-file's first frame.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/tasks.h"
#include "analyzer/output/merge.h"

#define MAXL 8

/* What a capturing output row saw. */
struct seen {
	char text[MAXL][64];
	uint64_t value[MAXL], count[MAXL];
	uint32_t tid[MAXL], nframes[MAXL];
	char first[MAXL][16];	     /* the first frame's name */
	const char *leaf_file[MAXL]; /* the last frame's file path, or NULL */
	uint32_t leaf_flags[MAXL], leaf_dso[MAXL];
	size_t n;
	const struct wc_dso *dsos;
	size_t ndsos;
};

static struct seen seen;

static int cap_begin(const struct wc_out_args *args, void **state)
{
	memset(&seen, 0, sizeof(seen));
	seen.dsos = args->dsos;
	seen.ndsos = args->ndsos;
	*state = &seen;
	return 0;
}

static int cap_line(void *state, const struct wc_out_line *l)
{
	struct seen *s = state;
	const struct wc_out_frame *leaf = &l->frames[l->nframes - 1];

	cr_assert_lt(s->n, MAXL);
	snprintf(s->text[s->n], sizeof(s->text[0]), "%s", l->folded);
	snprintf(s->first[s->n], sizeof(s->first[0]), "%s", l->frames[0].name);
	s->value[s->n] = l->value;
	s->count[s->n] = l->count;
	s->tid[s->n] = l->tid;
	s->nframes[s->n] = l->nframes;
	s->leaf_flags[s->n] = leaf->flags;
	s->leaf_dso[s->n] = leaf->dso;
	s->leaf_file[s->n] =
		leaf->dso && leaf->dso <= s->ndsos ? s->dsos[leaf->dso - 1].path : NULL;
	s->n++;
	return 0;
}

static int cap_end(void *state, bool write, struct wc_out_result *res)
{
	(void)state;
	(void)write;
	(void)res;
	return 0;
}

static const struct wc_output_ops capture = {
	.name = "capture", .help = "", .begin = cap_begin, .line = cap_line, .end = cap_end
};

/* A line "comm;fn" of thread @tid, its fn a user frame of file @dso (index + 1). */
static int add(struct wc_out_merge *m, const char *fn, uint32_t tid, uint32_t dso, uint64_t ns,
	       uint64_t count)
{
	struct wc_out_frame fr[2] = { { 0, WC_FRAME_KEY, "app", 0 },
				      { 1, WC_FRAME_USER, fn, dso } };
	char text[64];
	struct wc_out_line l = { .tid = tid,
				 .pid = 100,
				 .comm = "app",
				 .frames = fr,
				 .nframes = 2,
				 .leaf = WC_OUT_ON_CPU,
				 .value = ns,
				 .count = count,
				 .folded = text };

	snprintf(text, sizeof(text), "app;%s", fn);
	return wc_out_merge_line(m, &l);
}

static char pa[] = "/usr/bin/app", pb[] = "/usr/lib/libb.so";

/* Two files whose tables list the same files in another order, one with a new build-id. */
Test(merge, files_by_path_and_build_id)
{
	struct wc_dso one[2] = { { pa, { 1, 2 }, 2 }, { pb, { 3 }, 1 } };
	struct wc_dso two[3] = { { pb, { 3 }, 1 }, { pa, { 1, 2 }, 2 }, { pa, { 9 }, 1 } };
	struct wc_out_merge *m = wc_out_merge_new(false);
	struct wc_profile_opts o = { .unit = WC_UNIT_NS };
	struct wc_out_args args = { .prof = &o };

	cr_assert(m);
	cr_assert_eq(wc_out_merge_file(m, one, 2, NULL), 0);
	cr_assert_eq(add(m, "f", 7, 1, 1000, 1), 0); /* app 12 */
	cr_assert_eq(add(m, "g", 7, 2, 10, 1), 0);   /* libb */
	cr_assert_eq(wc_out_merge_file(m, two, 3, NULL), 0);
	cr_assert_eq(add(m, "f", 8, 2, 500, 2), 0); /* app 12 again: summed into f */
	cr_assert_eq(add(m, "h", 8, 1, 7, 1), 0);   /* libb: index 1 here, 2 in the first */
	cr_assert_eq(add(m, "k", 8, 3, 4, 1), 0);   /* app of another build-id */
	cr_assert_eq(wc_out_merge_run(m, &capture, &args, WC_UNIT_NS, NULL), 0);
	cr_assert_eq(seen.n, 4);
	cr_expect_eq(seen.ndsos, 3); /* app 0102, libb 03, app 09 */
	cr_expect_str_eq(seen.text[0], "app;f");
	cr_expect_eq(seen.value[0], 1500);
	cr_expect_eq(seen.count[0], 3);
	cr_expect_eq(seen.tid[0], 7); /* the first line's */
	cr_expect_str_eq(seen.leaf_file[0], pa);
	cr_expect_str_eq(seen.text[1], "app;g");
	cr_expect_str_eq(seen.leaf_file[1], pb);
	cr_expect_str_eq(seen.text[2], "app;h");
	cr_expect_str_eq(seen.leaf_file[2], pb);
	cr_expect_str_eq(seen.text[3], "app;k");
	cr_expect_str_eq(seen.leaf_file[3], pa);
	cr_expect_eq(seen.leaf_dso[3], 3); /* not f's file, though the same path */
	cr_expect_eq(seen.dsos[2].build_id[0], 9);
	cr_expect_eq(seen.leaf_dso[0], 1);
	wc_out_merge_free(m);
}

/* In us: the sums rounded half up once (1,499 + 1 ns: 2 us, not 1 + 0), under half a unit
 * left out; with split, equal texts of two threads two lines, by tid. */
Test(merge, rounding_and_split)
{
	struct wc_dso one[1] = { { pa, { 1 }, 1 } };
	struct wc_out_merge *m = wc_out_merge_new(true);
	struct wc_profile_opts o = { .unit = WC_UNIT_US };
	struct wc_out_args args = { .prof = &o };

	cr_assert(m);
	cr_assert_eq(wc_out_merge_file(m, one, 1, NULL), 0);
	cr_assert_eq(add(m, "f", 9, 1, 1499, 1), 0);
	cr_assert_eq(add(m, "f", 9, 1, 1, 1), 0);
	cr_assert_eq(add(m, "f", 3, 1, 2600, 1), 0);
	cr_assert_eq(add(m, "g", 3, 1, 499, 1), 0);
	cr_assert_eq(wc_out_merge_run(m, &capture, &args, WC_UNIT_US, NULL), 0);
	cr_assert_eq(seen.n, 2);
	cr_expect_eq(seen.tid[0], 3);
	cr_expect_eq(seen.value[0], 3);
	cr_expect_eq(seen.tid[1], 9);
	cr_expect_eq(seen.value[1], 2);
	wc_out_merge_free(m);
}

/* --per-file: each file's lines under its label, a frame of its own before the key. */
Test(merge, label)
{
	struct wc_dso one[1] = { { pa, { 1 }, 1 } };
	struct wc_out_merge *m = wc_out_merge_new(false);
	struct wc_profile_opts o = { .unit = WC_UNIT_NS };
	struct wc_out_args args = { .prof = &o };

	cr_assert(m);
	cr_assert_eq(wc_out_merge_file(m, one, 1, "host-b"), 0);
	cr_assert_eq(add(m, "f", 1, 1, 5, 1), 0);
	cr_assert_eq(wc_out_merge_file(m, one, 1, "host-a"), 0);
	cr_assert_eq(add(m, "f", 1, 1, 6, 1), 0);
	cr_assert_eq(wc_out_merge_run(m, &capture, &args, WC_UNIT_NS, NULL), 0);
	cr_assert_eq(seen.n, 2);
	cr_expect_str_eq(seen.text[0], "host-a;app;f");
	cr_expect_str_eq(seen.first[0], "host-a");
	cr_expect_eq(seen.nframes[0], 3);
	cr_expect_eq(seen.value[0], 6);
	cr_expect_str_eq(seen.text[1], "host-b;app;f");
	cr_expect_eq(seen.value[1], 5);
	cr_expect_eq(seen.leaf_flags[1], WC_FRAME_USER);
	wc_out_merge_free(m);
}
