/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export-speedscope.c - the wall-clock profile in speedscope's file format (see export.h).
 *
 * The format is that of src/lib/file-format-spec.ts in jlfwong/speedscope, whose JSON schema
 * is published as https://www.speedscope.app/file-format-schema.json:
 *
 *   { "$schema": "https://www.speedscope.app/file-format-schema.json",
 *     "shared": { "frames": [ { "name": "main" }, ... ] },
 *     "profiles": [ { "type": "sampled", "name": "...", "unit": "microseconds",
 *                     "startValue": 0, "endValue": SUM,
 *                     "samples": [ [0, 1, 2], ... ],      stacks, root first
 *                     "weights": [ 400, ... ] } ],        one per sample
 *     "name": "...", "exporter": "wcanalyze@VERSION", "activeProfileIndex": 0 }
 *
 * Speedscope's importer (importSpeedscopeProfile in src/lib/file-format.ts) builds each
 * sampled profile with endValue - startValue as its total weight, and wants as many weights
 * as samples.  The samples here are the lines of the folded profile (profile.h), keyed by
 * "comm-TID": each thread becomes one profile, the frames after the key one sample.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/export.h"
#include "common/grow.h"
#include "analyzer/output/json.h"
#include "common/map64.h"
#include "analyzer/output/output.h"

#define SCHEMA "https://www.speedscope.app/file-format-schema.json"

struct prof {
	char *key; /* "comm-TID", the thread's last comm */
	uint32_t tid, pid;
	uint64_t total; /* sum of the weights */
	size_t nsamples;
};

struct sample {
	uint32_t prof;
	uint32_t nframes;
	size_t first; /* index in ss.stack of its first (root) frame */
	uint64_t weight;
};

struct ss {
	FILE *out;
	enum wc_unit unit;
	const char *name;   /* the document's */
	const char **names; /* shared.frames: the profile's names (borrowed), in order of use */
	size_t nnames, names_cap;
	uint32_t *byid; /* a profile's frame id -> index in names + 1, 0 not yet */
	size_t byid_cap;
	struct prof *profs;
	size_t nprofs, profs_cap;
	struct sample *samples;
	size_t nsamples, samples_cap;
	uint32_t *stack; /* the frames of all samples, back to back */
	size_t nstack, stack_cap;
	struct wc_map64 by_tid; /* tid -> index in profs */
};

/* The index in shared.frames of frame @f, added when new; -ENOMEM. */
static int64_t frame_index(struct ss *ss, const struct wc_out_frame *f)
{
	size_t had = ss->byid_cap;

	if (f->id >= ss->byid_cap) {
		if (wc_grow((void **)&ss->byid, &ss->byid_cap, (size_t)f->id + 1,
			    sizeof(*ss->byid)))
			return -ENOMEM;
		memset(ss->byid + had, 0, (ss->byid_cap - had) * sizeof(*ss->byid));
	}
	if (ss->byid[f->id])
		return ss->byid[f->id] - 1;
	if (ss->nnames >= UINT32_MAX - 1 ||
	    wc_grow((void **)&ss->names, &ss->names_cap, ss->nnames + 1, sizeof(*ss->names)))
		return -ENOMEM;
	ss->names[ss->nnames] = f->name;
	ss->byid[f->id] = (uint32_t)++ss->nnames;
	return (int64_t)ss->nnames - 1;
}

/*
 * The profile of the thread of line @l, whose key frame is @l->frames[@k] (the frames before
 * it: a --per-file label, merge.h), added when new: its index, or -ENOMEM.  A thread is one
 * profile even when its comm changed (a prctl name, an exec), which folded --per-thread
 * splits: it is named after its last comm, and after its label ("LABEL: comm-TID"), which
 * keeps equal tids of several files apart.
 */
static int64_t prof_of(struct ss *ss, const struct wc_out_line *l, uint32_t k)
{
	const char *label = k ? l->frames[0].name : NULL, *key = l->frames[k].name;
	uint64_t map_key = (uint64_t)(k ? l->frames[0].id + 1 : 0) << 32 | l->tid;
	struct prof *p;
	uint64_t *v;
	int inserted, n;

	v = wc_map64_put(&ss->by_tid, map_key, ss->nprofs, &inserted);
	if (!v)
		return -ENOMEM;
	if (!inserted)
		return (int64_t)*v;
	if (wc_grow((void **)&ss->profs, &ss->profs_cap, ss->nprofs + 1, sizeof(*ss->profs)))
		return -ENOMEM;
	p = &ss->profs[ss->nprofs];
	memset(p, 0, sizeof(*p));
	p->tid = l->tid;
	p->pid = l->pid;
	if (l->thread_comm)
		n = asprintf(&p->key, "%s%s%s-%u", label ? label : "", label ? ": " : "",
			     l->thread_comm, l->tid);
	else
		n = asprintf(&p->key, "%s%s%s", label ? label : "", label ? ": " : "", key);
	if (n < 0) {
		p->key = NULL;
		return -ENOMEM;
	}
	return (int64_t)ss->nprofs++;
}

/* One line of a per-thread profile: its key frame names the thread (after a --per-file label,
 * if any), the frames after it a sample. */
static int ss_line(void *state, const struct wc_out_line *l)
{
	struct ss *ss = state;
	struct sample *smp;
	uint32_t k = 0;
	int64_t prof;

	if (!l->nframes)
		return 0;
	while (k + 1 < l->nframes && !(l->frames[k].flags & WC_FRAME_KEY))
		k++;
	if (!(l->frames[k].flags & WC_FRAME_KEY)) /* no key frame: the first is the key */
		k = 0;
	prof = prof_of(ss, l, k);
	if (prof < 0 || wc_grow((void **)&ss->samples, &ss->samples_cap, ss->nsamples + 1,
				sizeof(*ss->samples)))
		return -ENOMEM;
	smp = &ss->samples[ss->nsamples];
	*smp = (struct sample){ .prof = (uint32_t)prof, .first = ss->nstack, .weight = l->value };
	for (uint32_t i = k + 1; i < l->nframes; i++) {
		int64_t f = frame_index(ss, &l->frames[i]);

		if (f < 0 || wc_grow((void **)&ss->stack, &ss->stack_cap, ss->nstack + 1,
				     sizeof(*ss->stack)))
			return -ENOMEM;
		ss->stack[ss->nstack++] = (uint32_t)f;
		smp->nframes++;
	}
	ss->nsamples++;
	ss->profs[prof].total += l->value;
	ss->profs[prof].nsamples++;
	return 0;
}

static const struct prof *sort_profs; /* qsort has no context argument */

static int cmp_prof(const void *x, const void *y)
{
	const struct prof *a = &sort_profs[*(const uint32_t *)x];
	const struct prof *b = &sort_profs[*(const uint32_t *)y];

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return strcmp(a->key, b->key);
}

static const char *unit_name(enum wc_unit u)
{
	return u == WC_UNIT_MS ? "milliseconds" : u == WC_UNIT_NS ? "nanoseconds" : "microseconds";
}

/* One thread's profile @k in @j: its samples are ss->samples[@samples[0...]]. */
static void write_profile(const struct ss *ss, struct wc_json *j, uint32_t k, const size_t *samples,
			  enum wc_unit unit)
{
	const struct prof *p = &ss->profs[k];
	char title[128];

	if (p->pid)
		snprintf(title, sizeof(title), "%s (pid %u)", p->key, p->pid);
	else
		snprintf(title, sizeof(title), "%s", p->key);
	wc_json_newline(j);
	wc_json_object(j);
	wc_json_key(j, "type");
	wc_json_str(j, "sampled");
	wc_json_key(j, "name");
	wc_json_str(j, title);
	wc_json_key(j, "unit");
	wc_json_str(j, unit_name(unit));
	wc_json_key(j, "startValue");
	wc_json_u64(j, 0);
	wc_json_key(j, "endValue");
	wc_json_u64(j, p->total);
	wc_json_key(j, "samples");
	wc_json_array(j);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &ss->samples[samples[i]];

		wc_json_newline(j);
		wc_json_array(j);
		for (uint32_t f = 0; f < s->nframes; f++)
			wc_json_u64(j, ss->stack[s->first + f]);
		wc_json_end(j);
	}
	wc_json_end(j);
	wc_json_newline(j);
	wc_json_key(j, "weights");
	wc_json_array(j);
	for (size_t i = 0; i < p->nsamples; i++)
		wc_json_u64(j, ss->samples[samples[i]].weight);
	wc_json_end(j);
	wc_json_end(j);
}

static int write_doc(struct ss *ss, enum wc_unit unit, const char *name, FILE *out)
{
	uint32_t *order = calloc(ss->nprofs + 1, sizeof(*order));
	size_t *first = calloc(ss->nprofs + 1, sizeof(*first)); /* samples by profile */
	size_t *by_prof = calloc(ss->nsamples + 1, sizeof(*by_prof));
	struct wc_json j;
	int err;

	if (!order || !first || !by_prof) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ss->nprofs; i++) {
		order[i] = (uint32_t)i;
		first[i + 1] = first[i] + ss->profs[i].nsamples;
	}
	/* the samples of each profile together, in the order of the lines */
	for (size_t i = 0; i < ss->nsamples; i++)
		by_prof[first[ss->samples[i].prof]++] = i;
	for (size_t i = 0; i < ss->nprofs; i++) /* each first[] has moved to the next start */
		first[i] -= ss->profs[i].nsamples;
	sort_profs = ss->profs;
	qsort(order, ss->nprofs, sizeof(*order), cmp_prof);

	wc_json_init(&j, out);
	wc_json_object(&j);
	wc_json_key(&j, "$schema");
	wc_json_str(&j, SCHEMA);
	wc_json_key(&j, "name");
	wc_json_str(&j, name);
	wc_json_key(&j, "exporter");
	wc_json_str(&j, "wcanalyze@" PACKAGE_VERSION);
	wc_json_key(&j, "activeProfileIndex");
	wc_json_u64(&j, 0);
	wc_json_newline(&j);
	wc_json_key(&j, "shared");
	wc_json_object(&j);
	wc_json_key(&j, "frames");
	wc_json_array(&j);
	for (size_t i = 0; i < ss->nnames; i++) {
		wc_json_newline(&j);
		wc_json_object(&j);
		wc_json_key(&j, "name");
		wc_json_str(&j, ss->names[i]);
		wc_json_end(&j);
	}
	wc_json_end(&j);
	wc_json_end(&j);
	wc_json_newline(&j);
	wc_json_key(&j, "profiles");
	wc_json_array(&j);
	for (size_t k = 0; k < ss->nprofs; k++)
		write_profile(ss, &j, order[k], by_prof + first[order[k]], unit);
	wc_json_end(&j);
	wc_json_end(&j);
	err = wc_json_finish(&j);
	if (err == -EINVAL) /* a bug of this file's nesting, not of the output */
		err = -EIO;
out:
	free(order);
	free(first);
	free(by_prof);
	return err;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

static int ss_begin(const struct wc_out_args *args, void **state)
{
	struct ss *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return -ENOMEM;
	*ss = (struct ss){ .out = args->out,
			   .unit = args->prof->unit,
			   .name = base_name(args->file) };
	if (wc_map64_init(&ss->by_tid)) {
		free(ss);
		return -ENOMEM;
	}
	*state = ss;
	return 0;
}

static int ss_end(void *state, bool write, struct wc_out_result *res)
{
	struct ss *ss = state;
	int err = write ? write_doc(ss, ss->unit, ss->name, ss->out) : 0;

	res->items = ss->nprofs;
	for (size_t i = 0; i < ss->nprofs; i++)
		free(ss->profs[i].key);
	free(ss->names);
	free(ss->byid);
	free(ss->profs);
	free(ss->samples);
	free(ss->stack);
	wc_map64_fini(&ss->by_tid);
	free(ss);
	return err;
}

const struct wc_output_ops wc_output_speedscope = {
	.name = "speedscope",
	.help = "the wall-clock profile, one profile per thread, for speedscope",
	.per_thread = true,
	.begin = ss_begin,
	.line = ss_line,
	.end = ss_end,
};

int wc_speedscope_write(struct wc_profile *p, struct wc_analysis *a, struct wc_symbolizer *sym,
			enum wc_unit unit, const char *name, FILE *out, size_t *nprofiles)
{
	struct wc_profile_opts o = { .unit = unit, .per_thread = true };
	struct wc_out_args args = { .out = out, .a = a, .file = name, .prof = &o };
	struct wc_out_result res = { 0 };
	int err = wc_output_run(&wc_output_speedscope, &args, p, sym, &res);

	if (nprofiles)
		*nprofiles = res.items;
	return err;
}
