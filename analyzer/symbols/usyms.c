/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usyms.c - the USYM records of a trace (see usyms.h). */
#include "analyzer/symbols/usyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

struct ufn {
	uint64_t start, end; /* file offsets */
	char *name;	     /* owned */
};

struct ufile {
	uint8_t id[WC_BUILD_ID_MAX];
	size_t id_len;
	int source;
	struct ufn *fns;
	size_t nfns, cap;
	bool sorted; /* fns sorted by start, overlaps dropped */
};

struct wc_usyms {
	struct ufile *files;
	size_t nfiles, cap;
	uint64_t bad;
};

struct wc_usyms *wc_usyms_new(void)
{
	return calloc(1, sizeof(struct wc_usyms));
}

void wc_usyms_free(struct wc_usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nfiles; i++) {
		for (size_t j = 0; j < u->files[i].nfns; j++)
			free(u->files[i].fns[j].name);
		free(u->files[i].fns);
	}
	free(u->files);
	free(u);
}

/* Ids that differ only by trailing zero bytes are the same (as elfsym.c matches them). */
static bool same_id(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	while (alen && !a[alen - 1])
		alen--;
	while (blen && !b[blen - 1])
		blen--;
	return alen == blen && !memcmp(a, b, alen);
}

static struct ufile *file_of(const struct wc_usyms *u, const uint8_t *id, size_t id_len)
{
	for (size_t i = 0; i < u->nfiles; i++)
		if (same_id(u->files[i].id, u->files[i].id_len, id, id_len))
			return &u->files[i];
	return NULL;
}

int wc_usyms_add(struct wc_usyms *u, const struct wc_rec_usym *r)
{
	size_t body = r->h.size - sizeof(*r);
	struct ufile *f;
	struct ufn *fn;

	if (!r->build_id_size || r->build_id_size > WC_BUILD_ID_MAX || r->name_len > body ||
	    !r->name_len || r->name[r->name_len - 1] ||
	    (r->start >= r->end && (r->start || r->end))) {
		u->bad++;
		return 0;
	}
	f = file_of(u, r->build_id, r->build_id_size);
	if (!f) {
		if (wc_grow((void **)&u->files, &u->cap, u->nfiles + 1, sizeof(*u->files)))
			return -ENOMEM;
		f = &u->files[u->nfiles++];
		*f = (struct ufile){ .id_len = r->build_id_size,
				     .source = r->source,
				     .sorted = true };
		memcpy(f->id, r->build_id, r->build_id_size);
	}
	if (r->start == r->end)
		return 0; /* the build-id's source alone */
	if (wc_grow((void **)&f->fns, &f->cap, f->nfns + 1, sizeof(*f->fns)))
		return -ENOMEM;
	fn = &f->fns[f->nfns];
	fn->name = strdup(r->name);
	if (!fn->name)
		return -ENOMEM;
	fn->start = r->start;
	fn->end = r->end;
	f->nfns++;
	f->sorted = false;
	return 0;
}

static int fn_cmp(const void *pa, const void *pb)
{
	const struct ufn *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Sort f's functions and drop each that overlaps the one before it, counted in u->bad. */
static void sort_file(struct wc_usyms *u, struct ufile *f)
{
	size_t n = 0;

	/* qsort is not stable: of overlapping records, the one starting first is kept */
	qsort(f->fns, f->nfns, sizeof(*f->fns), fn_cmp);
	for (size_t i = 0; i < f->nfns; i++) {
		if (n && f->fns[i].start < f->fns[n - 1].end) {
			free(f->fns[i].name);
			u->bad++;
			continue;
		}
		f->fns[n++] = f->fns[i];
	}
	f->nfns = n;
	f->sorted = true;
}

const char *wc_usyms_lookup(struct wc_usyms *u, const uint8_t *id, size_t id_len, uint64_t off)
{
	struct ufile *f = id_len ? file_of(u, id, id_len) : NULL;
	size_t lo = 0, hi;

	if (!f)
		return NULL;
	if (!f->sorted)
		sort_file(u, f);
	hi = f->nfns;
	while (lo < hi) { /* the last function starting at or before off */
		size_t mid = lo + (hi - lo) / 2;

		if (f->fns[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || off >= f->fns[lo - 1].end)
		return NULL;
	return f->fns[lo - 1].name;
}

int wc_usyms_source(const struct wc_usyms *u, const uint8_t *id, size_t id_len)
{
	const struct ufile *f = id_len ? file_of(u, id, id_len) : NULL;

	return f ? f->source : -1;
}

const char *wc_usyms_source_text(int source)
{
	switch (source) {
	case WC_USYM_NONE:
		return "no symbols";
	case WC_USYM_SYMTAB:
		return "symtab";
	case WC_USYM_DYNSYM:
		return "dynsym only";
	case WC_USYM_DEBUG:
		return "debug file";
	case WC_USYM_MISMATCH:
		return "build-id mismatch";
	}
	return "no record";
}

uint64_t wc_usyms_bad(const struct wc_usyms *u)
{
	return u->bad;
}

size_t wc_usyms_count(const struct wc_usyms *u)
{
	size_t n = 0;

	for (size_t i = 0; i < u->nfiles; i++)
		n += u->files[i].nfns;
	return n;
}
