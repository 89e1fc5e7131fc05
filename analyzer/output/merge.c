/* SPDX-License-Identifier: GPL-2.0-or-later */
/* merge.c - see merge.h: several analyses' profile lines merged into one profile. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/tasks.h"
#include "analyzer/output/merge.h"
#include "analyzer/output/names.h"
#include "common/grow.h"
#include "common/map64.h"

#define NONE UINT32_MAX /* a comm not known */

struct mframe {
	uint32_t id, flags, dso; /* the name's id in m->names; dso: index in m->dsos + 1 */
};

struct mline {
	uint32_t text; /* the folded text's id in m->names */
	uint32_t tid, pid;
	uint32_t comm, thread_comm, proc_comm; /* ids in m->names, or NONE */
	uint32_t first, nframes;	       /* in m->frames */
	uint8_t leaf;
	char state;
	uint64_t ns, count;
};

struct wc_out_merge {
	bool split;
	struct wc_names names;	  /* frame names, comms, texts */
	struct wc_names dso_keys; /* "path\nbuild-id hex" by index in dsos */
	struct wc_dso *dsos;
	size_t ndsos, dsos_cap;
	uint32_t *file_dso; /* this file's dso index -> index in dsos + 1 */
	size_t nfile_dso, file_dso_cap;
	int64_t label; /* this file's first frame's name id, or -1 */
	struct mline *lines;
	size_t nlines, lines_cap;
	struct mframe *frames;
	size_t nframes, frames_cap;
	struct wc_map64 line_of; /* text id | tid << 32 -> index in lines */
	struct wc_strbuf text;	 /* a line's text being made */
};

struct wc_out_merge *wc_out_merge_new(bool split)
{
	struct wc_out_merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->split = split;
	m->label = -1;
	if (wc_map64_init(&m->line_of)) {
		free(m);
		return NULL;
	}
	return m;
}

/* The index + 1 in m->dsos of file @d, added when new.  Return: it, or -ENOMEM. */
static int64_t dso_of(struct wc_out_merge *m, const struct wc_dso *d)
{
	char key[4096 + 2 * WC_BUILD_ID_MAX + 2];
	int n = snprintf(key, sizeof(key) - 2 * WC_BUILD_ID_MAX - 1, "%s\n", d->path);
	int64_t id;

	if (n < 0)
		return -ENOMEM;
	if ((size_t)n >= sizeof(key) - 2 * WC_BUILD_ID_MAX - 1)
		n = (int)(sizeof(key) - 2 * WC_BUILD_ID_MAX - 2);
	for (size_t k = 0; k < d->build_id_len && k < WC_BUILD_ID_MAX; k++)
		n += snprintf(key + n, 3, "%02x", d->build_id[k]);
	id = wc_names_intern(&m->dso_keys, key, (size_t)n);
	if (id < 0)
		return -ENOMEM;
	if ((size_t)id == m->ndsos) { /* new */
		if (wc_grow((void **)&m->dsos, &m->dsos_cap, m->ndsos + 1, sizeof(*m->dsos)))
			return -ENOMEM;
		m->dsos[m->ndsos] = *d;
		m->dsos[m->ndsos].path = strdup(d->path);
		if (!m->dsos[m->ndsos].path)
			return -ENOMEM;
		m->ndsos++;
	}
	return id + 1;
}

int wc_out_merge_file(struct wc_out_merge *m, const struct wc_dso *dsos, size_t ndsos,
		      const char *label)
{
	m->label = label ? wc_names_intern(&m->names, label, strlen(label)) : -1;
	if (label && m->label < 0)
		return -ENOMEM;
	if (wc_grow((void **)&m->file_dso, &m->file_dso_cap, ndsos + 1, sizeof(*m->file_dso)))
		return -ENOMEM;
	m->nfile_dso = ndsos;
	for (size_t i = 0; i < ndsos; i++) {
		int64_t d = dso_of(m, &dsos[i]);

		if (d < 0)
			return -ENOMEM;
		m->file_dso[i] = (uint32_t)d;
	}
	return 0;
}

/* The id of @s in m->names, NONE for NULL.  Return: it, or -ENOMEM. */
static int64_t name_id(struct wc_out_merge *m, const char *s)
{
	return s ? wc_names_intern(&m->names, s, strlen(s)) : NONE;
}

/* A new line for @l, its text @text, its frames copied (the label's first). */
static int add_line(struct wc_out_merge *m, const struct wc_out_line *l, uint32_t text)
{
	uint32_t extra = m->label >= 0;
	int64_t c = name_id(m, l->comm), tc = name_id(m, l->thread_comm),
		pc = name_id(m, l->proc_comm);
	struct mline *ml;

	if (c < 0 || tc < 0 || pc < 0 ||
	    wc_grow((void **)&m->lines, &m->lines_cap, m->nlines + 1, sizeof(*m->lines)) ||
	    wc_grow((void **)&m->frames, &m->frames_cap, m->nframes + l->nframes + extra,
		    sizeof(*m->frames)))
		return -ENOMEM;
	ml = &m->lines[m->nlines++];
	*ml = (struct mline){ .text = text,
			      .tid = l->tid,
			      .pid = l->pid,
			      .comm = (uint32_t)c,
			      .thread_comm = (uint32_t)tc,
			      .proc_comm = (uint32_t)pc,
			      .first = (uint32_t)m->nframes,
			      .nframes = l->nframes + extra,
			      .leaf = (uint8_t)l->leaf,
			      .state = l->state };
	if (extra)
		m->frames[m->nframes++] = (struct mframe){ (uint32_t)m->label, WC_FRAME_SYNTH, 0 };
	for (uint32_t f = 0; f < l->nframes; f++) {
		const struct wc_out_frame *fr = &l->frames[f];
		int64_t id = wc_names_intern(&m->names, fr->name, strlen(fr->name));

		if (id < 0)
			return -ENOMEM;
		m->frames[m->nframes++] = (struct mframe){ (uint32_t)id, fr->flags,
							   fr->dso && fr->dso <= m->nfile_dso
								   ? m->file_dso[fr->dso - 1]
								   : 0 };
	}
	return 0;
}

int wc_out_merge_line(void *ctx, const struct wc_out_line *l)
{
	struct wc_out_merge *m = ctx;
	int64_t text;
	uint64_t *v;
	int inserted;

	wc_strbuf_reset(&m->text);
	if (m->label >= 0) {
		wc_strbuf_put(&m->text, wc_names_get(&m->names, (uint32_t)m->label));
		wc_strbuf_put(&m->text, ";");
	}
	wc_strbuf_put(&m->text, l->folded);
	if (m->text.oom)
		return -ENOMEM;
	text = wc_names_intern(&m->names, m->text.s, m->text.len);
	if (text < 0)
		return -ENOMEM;
	v = wc_map64_put(&m->line_of, (uint64_t)text | (uint64_t)(m->split ? l->tid : 0) << 32,
			 m->nlines, &inserted);
	if (!v)
		return -ENOMEM;
	if (inserted) {
		int err = add_line(m, l, (uint32_t)text);

		if (err)
			return err;
	}
	m->lines[*v].ns += l->value;
	m->lines[*v].count += l->count;
	return 0;
}

static const struct wc_out_merge *sort_m;

/* By text, then thread, as one profile's lines (profile-lines.c). */
static int by_text(const void *x, const void *y)
{
	const struct mline *a = &sort_m->lines[*(const uint32_t *)x];
	const struct mline *b = &sort_m->lines[*(const uint32_t *)y];
	int c = strcmp(wc_names_get(&sort_m->names, a->text),
		       wc_names_get(&sort_m->names, b->text));

	return c ? c : a->tid < b->tid ? -1 : a->tid > b->tid;
}

static const char *name_or_null(const struct wc_out_merge *m, uint32_t id)
{
	return id == NONE ? NULL : wc_names_get(&m->names, id);
}

/* Feed the lines of @m in @order (@n) to @ops's @state.  Return: 0 or -errno. */
static int feed(const struct wc_out_merge *m, const uint32_t *order, size_t n, uint64_t unit,
		const struct wc_output_ops *ops, void *state, size_t *fed)
{
	struct wc_out_frame *fr = NULL;
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		const struct mline *ml = &m->lines[order[i]];
		struct wc_out_line l = { .tid = ml->tid,
					 .pid = ml->pid,
					 .comm = ml->comm == NONE
							 ? "[unknown]"
							 : wc_names_get(&m->names, ml->comm),
					 .thread_comm = name_or_null(m, ml->thread_comm),
					 .proc_comm = name_or_null(m, ml->proc_comm),
					 .nframes = ml->nframes,
					 .leaf = ml->leaf,
					 .state = ml->state,
					 .value = (ml->ns + unit / 2) / unit,
					 .count = ml->count,
					 .folded = wc_names_get(&m->names, ml->text) };

		if (!l.value)
			continue;
		if (wc_grow((void **)&fr, &cap, ml->nframes + 1, sizeof(*fr))) {
			err = -ENOMEM;
			break;
		}
		for (uint32_t f = 0; f < ml->nframes; f++) {
			const struct mframe *mf = &m->frames[ml->first + f];

			fr[f] = (struct wc_out_frame){ mf->id, mf->flags,
						       wc_names_get(&m->names, mf->id), mf->dso };
		}
		l.frames = fr;
		(*fed)++;
		err = ops->line(state, &l);
	}
	free(fr);
	return err;
}

int wc_out_merge_run(struct wc_out_merge *m, const struct wc_output_ops *ops,
		     const struct wc_out_args *args, enum wc_unit unit, struct wc_out_result *res)
{
	struct wc_out_args x = *args;
	struct wc_out_result r = { 0 };
	uint32_t *order = malloc((m->nlines + 1) * sizeof(*order));
	void *state;
	int err, eerr;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < m->nlines; i++)
		order[i] = (uint32_t)i;
	sort_m = m;
	qsort(order, m->nlines, sizeof(*order), by_text);
	x.a = NULL;
	x.dsos = m->dsos;
	x.ndsos = m->ndsos;
	err = ops->begin(&x, &state);
	if (!err) {
		err = feed(m, order, m->nlines, wc_unit_ns(unit), ops, state, &r.lines);
		eerr = ops->end(state, !err, &r);
		err = err ? err : eerr;
	}
	free(order);
	if (res)
		*res = r;
	return err;
}

void wc_out_merge_free(struct wc_out_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ndsos; i++)
		free(m->dsos[i].path);
	free(m->dsos);
	wc_names_fini(&m->names);
	wc_names_fini(&m->dso_keys);
	free(m->file_dso);
	free(m->lines);
	free(m->frames);
	wc_map64_fini(&m->line_of);
	wc_strbuf_fini(&m->text);
	free(m);
}
