/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads-stacks.c - the top stacks of each row of threads.c: named, merged by text, ranked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/callchain.h"
#include "analyzer/reports/threads-priv.h"

/* One stack of a row before merging by text. */
struct sent {
	uint32_t row, aspace, stack_id;
	uint8_t leaf; /* 0 on-CPU, else the off-CPU state letter */
	uint64_t value;
	char *text;
};

/* Frames root first, user then kernel, joined by ';' ("[unknown]" when none). */
static int stack_text(struct wc_threads *T, struct wc_symbolizer *sym, struct wc_strbuf *b,
		      uint32_t aspace, uint32_t stack_id)
{
	uint32_t nr = 0;
	const uint64_t *ips = stack_id == PROC_STACK
				      ? NULL
				      : wc_replay_stack(wc_analysis_replay(T->a), stack_id, &nr);
	struct wc_callchain cc;
	const char *n;

	wc_strbuf_reset(b);
	if (stack_id == PROC_STACK) {
		wc_strbuf_put(b, "[state from /proc at the start]");
		return b->oom ? -ENOMEM : 0;
	}
	wc_callchain_split(ips, nr, &cc);
	for (uint32_t i = cc.nuser; i-- > 0;) {
		const char *f[WC_INLINE_MAX_DEPTH + 1];
		size_t nf = wc_symbolizer_user_frames(sym, aspace, cc.user[i], f,
						      WC_INLINE_MAX_DEPTH + 1);

		if (!nf)
			return -ENOMEM;
		while (nf-- > 0) { /* the function, then the calls inlined into it */
			wc_strbuf_put(b, b->len ? ";" : "");
			wc_strbuf_put(b, f[nf]);
		}
	}
	for (uint32_t i = cc.nkernel; i-- > 0;) {
		if (!(n = wc_symbolizer_kernel(sym, cc.kernel[i])))
			return -ENOMEM;
		wc_strbuf_put(b, b->len ? ";" : "");
		wc_strbuf_put(b, n);
	}
	if (!b->len)
		wc_strbuf_put(b, "[unknown]");
	return b->oom ? -ENOMEM : 0;
}

/* By kind (off-CPU first) and text, to merge equal lines. */
static int cmp_text(const void *x, const void *y)
{
	const struct sent *a = x, *b = y;

	if ((a->leaf == 0) != (b->leaf == 0))
		return a->leaf ? -1 : 1;
	if (a->leaf != b->leaf)
		return a->leaf < b->leaf ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* By kind, then value (largest first), then text. */
static int cmp_value(const void *x, const void *y)
{
	const struct sent *a = x, *b = y;

	if ((a->leaf == 0) != (b->leaf == 0))
		return a->leaf ? -1 : 1;
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	if (a->leaf != b->leaf)
		return a->leaf < b->leaf ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* The top stacks of row @r from its @n entries @e (texts are taken or freed). */
static int top_stacks(struct wc_threads *T, struct wc_symbolizer *sym, struct wc_strbuf *b,
		      struct wc_threads_row *r, struct sent *e, size_t n)
{
	size_t m = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		err = stack_text(T, sym, b, e[i].aspace, e[i].stack_id);
		if (err || !(e[i].text = strdup(b->s))) {
			err = -ENOMEM;
			n = i;
			goto out;
		}
	}
	qsort(e, n, sizeof(*e), cmp_text);
	for (size_t i = 0; i < n; i++) { /* merge equal (kind, state, text) into e[m] */
		if (m && e[m - 1].leaf == e[i].leaf && strcmp(e[m - 1].text, e[i].text) == 0) {
			e[m - 1].value += e[i].value;
			free(e[i].text);
			continue;
		}
		e[m++] = e[i];
	}
	n = m;
	qsort(e, n, sizeof(*e), cmp_value);
	for (size_t i = 0; i < n; i++) {
		struct wc_threads_stack *s = NULL;

		if (e[i].leaf && r->noff_top < WC_THREADS_TOP)
			s = &r->off_top[r->noff_top++];
		else if (!e[i].leaf && r->non_top < WC_THREADS_TOP)
			s = &r->on_top[r->non_top++];
		if (!s)
			continue;
		*s = (struct wc_threads_stack){ e[i].text, (char)e[i].leaf, e[i].value };
		e[i].text = NULL;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(e[i].text);
	return err;
}

int threads_top_stacks(struct wc_threads *T, struct wc_symbolizer *sym)
{
	struct sent *e = calloc(T->stacks.count + 1, sizeof(*e)), *sorted = NULL;
	size_t *start = calloc(T->nrows + 2, sizeof(*start)), n = 0;
	struct wc_strbuf b = { 0 };
	int err = 0;

	if (!e || !start) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i <= T->stacks.mask; i++) {
		uint64_t key = T->stacks.keys[i];
		const struct seg *s;
		int32_t row;

		if (key == WC_MAP64_EMPTY)
			continue;
		s = &T->segs[key >> 40];
		row = T->accs[s->idx].row;
		if (row < 0)
			continue;
		e[n++] = (struct sent){ (uint32_t)row,	      s->aspace,	   (uint32_t)key,
					(uint8_t)(key >> 32), T->stacks.values[i], NULL };
		start[row + 1]++;
	}
	/* counting sort by row */
	for (size_t r = 0; r < T->nrows; r++)
		start[r + 1] += start[r];
	sorted = calloc(n + 1, sizeof(*sorted));
	if (!sorted) {
		err = -ENOMEM;
		goto out;
	}
	{
		size_t *next = calloc(T->nrows + 1, sizeof(*next));

		if (!next) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(next, start, T->nrows * sizeof(*next));
		for (size_t i = 0; i < n; i++)
			sorted[next[e[i].row]++] = e[i];
		free(next);
	}
	for (size_t r = 0; r < T->nrows && !err; r++)
		err = top_stacks(T, sym, &b, &T->rows[r], sorted + start[r],
				 start[r + 1] - start[r]);
out:
	wc_strbuf_fini(&b);
	free(sorted);
	free(start);
	free(e);
	return err;
}
