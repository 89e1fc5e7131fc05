/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usyms.c - the USYM records of a trace (see usyms.h). */
#include "analyzer/symbols/usyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/dwinline.h"
#include "common/grow.h"

struct ufn {
	uint64_t start, end; /* file offsets */
	char *name;	     /* owned */
};

/* Ranges of one kind: the functions, or the inlined calls of one depth. */
struct ufns {
	struct ufn *v;
	size_t n, cap;
	bool sorted; /* v sorted by start, overlaps dropped */
};

struct ufile {
	uint8_t id[WC_BUILD_ID_MAX];
	size_t id_len;
	int source;
	struct ufns fns;		      /* functions (depth 0) */
	struct ufns inl[WC_INLINE_MAX_DEPTH]; /* inlined calls, by depth - 1 */
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

static void fns_fini(struct ufns *f)
{
	for (size_t j = 0; j < f->n; j++)
		free(f->v[j].name);
	free(f->v);
}

void wc_usyms_free(struct wc_usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nfiles; i++) {
		fns_fini(&u->files[i].fns);
		for (int d = 0; d < WC_INLINE_MAX_DEPTH; d++)
			fns_fini(&u->files[i].inl[d]);
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
	struct ufns *fs;
	struct ufn *fn;

	if (!r->build_id_size || r->build_id_size > WC_BUILD_ID_MAX || r->name_len > body ||
	    !r->name_len || r->name[r->name_len - 1] || r->depth > WC_INLINE_MAX_DEPTH ||
	    (r->start >= r->end && (r->start || r->end || r->depth))) {
		u->bad++;
		return 0;
	}
	f = file_of(u, r->build_id, r->build_id_size);
	if (!f) {
		if (wc_grow((void **)&u->files, &u->cap, u->nfiles + 1, sizeof(*u->files)))
			return -ENOMEM;
		f = &u->files[u->nfiles++];
		*f = (struct ufile){ .id_len = r->build_id_size, .source = r->source };
		memcpy(f->id, r->build_id, r->build_id_size);
	}
	if (r->start == r->end)
		return 0; /* the build-id's source alone */
	fs = r->depth ? &f->inl[r->depth - 1] : &f->fns;
	if (wc_grow((void **)&fs->v, &fs->cap, fs->n + 1, sizeof(*fs->v)))
		return -ENOMEM;
	fn = &fs->v[fs->n];
	fn->name = strdup(r->name);
	if (!fn->name)
		return -ENOMEM;
	fn->start = r->start;
	fn->end = r->end;
	fs->n++;
	fs->sorted = false;
	return 0;
}

static int fn_cmp(const void *pa, const void *pb)
{
	const struct ufn *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* The range of fs holding off, sorting fs first (each range that overlaps the one before it
 * dropped, counted in u->bad).  Return: it, or NULL. */
static const struct ufn *find(struct wc_usyms *u, struct ufns *fs, uint64_t off)
{
	size_t lo = 0, hi;

	if (!fs->sorted) {
		size_t n = 0;

		/* qsort is not stable: of overlapping records, the one starting first is kept;
		 * none yet: v is NULL, which qsort may not be given */
		if (fs->n > 1)
			qsort(fs->v, fs->n, sizeof(*fs->v), fn_cmp);
		for (size_t i = 0; i < fs->n; i++) {
			if (n && fs->v[i].start < fs->v[n - 1].end) {
				free(fs->v[i].name);
				u->bad++;
				continue;
			}
			fs->v[n++] = fs->v[i];
		}
		fs->n = n;
		fs->sorted = true;
	}
	hi = fs->n;
	while (lo < hi) { /* the last range starting at or before off */
		size_t mid = lo + (hi - lo) / 2;

		if (fs->v[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && off < fs->v[lo - 1].end ? &fs->v[lo - 1] : NULL;
}

const char *wc_usyms_lookup(struct wc_usyms *u, const uint8_t *id, size_t id_len, uint64_t off)
{
	struct ufile *f = id_len ? file_of(u, id, id_len) : NULL;
	const struct ufn *fn = f ? find(u, &f->fns, off) : NULL;

	return fn ? fn->name : NULL;
}

size_t wc_usyms_inlines(struct wc_usyms *u, const uint8_t *id, size_t id_len, uint64_t off,
			const char **names, size_t max)
{
	struct ufile *f = id_len ? file_of(u, id, id_len) : NULL;
	size_t n = 0;

	for (int d = WC_INLINE_MAX_DEPTH - 1; f && d >= 0 && n < max; d--) {
		const struct ufn *fn = f->inl[d].n ? find(u, &f->inl[d], off) : NULL;

		if (fn)
			names[n++] = fn->name;
	}
	return n;
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
		n += u->files[i].fns.n;
	return n;
}
