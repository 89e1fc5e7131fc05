/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usyms.c - the USYM records of a trace (see usyms.h). */
#include "analyzer/symbols/usyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "analyzer/symbols/dwinline.h"
#include "common/grow.h"
#include "common/usym-pack.h"

/* The most the packed records' names may decompress to, all together: this many times the
 * records' bytes, and WC_USYM_NAMES_MAX more (a zstd frame of a few bytes may say 16 MiB of
 * one letter; the recorder's, 3 to 4 times their frames). */
#define NAMES_EXPANSION 64u

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
	struct wc_usym_history hist;	    /* names of the packed records so far */
	uint64_t names_bytes, packed_bytes; /* their names_len, and their records' size, summed */
	uint32_t *refs; /* a packed record's build-id number -> index in files + 1 (0: none yet) */
	size_t refs_cap;
	ZSTD_DCtx *zd; /* NULL until the first names frame */
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
	wc_usym_history_fini(&u->hist);
	ZSTD_freeDCtx(u->zd);
	free(u->refs);
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

/* The file of build-id id, added with source when new.  Return: it, or NULL (ENOMEM). */
static struct ufile *file_add(struct wc_usyms *u, const uint8_t *id, size_t id_len, int source)
{
	struct ufile *f = file_of(u, id, id_len);

	if (f)
		return f;
	if (wc_grow((void **)&u->files, &u->cap, u->nfiles + 1, sizeof(*u->files)))
		return NULL;
	f = &u->files[u->nfiles++];
	*f = (struct ufile){ .id_len = id_len, .source = source };
	memcpy(f->id, id, id_len);
	return f;
}

/* Keep [start, end) of f, of depth, named name (copied).  Return: 0 or -ENOMEM. */
static int range_add(struct ufile *f, unsigned depth, uint64_t start, uint64_t end,
		     const char *name)
{
	struct ufns *fs = depth ? &f->inl[depth - 1] : &f->fns;
	struct ufn *fn;

	if (wc_grow((void **)&fs->v, &fs->cap, fs->n + 1, sizeof(*fs->v)))
		return -ENOMEM;
	fn = &fs->v[fs->n];
	fn->name = strdup(name);
	if (!fn->name)
		return -ENOMEM;
	fn->start = start;
	fn->end = end;
	fs->n++;
	fs->sorted = false;
	return 0;
}

/* A packed record's names, decompressed against the names before them (common/wct.h).
 * Return: names_len bytes, to free(); NULL when they cannot be read (or ENOMEM). */
static char *unpack_names(struct wc_usyms *u, const struct wc_rec_usym_pack *p)
{
	const uint8_t *src = p->data + p->groups_len;
	char *names = malloc(p->names_len ? p->names_len : 1);
	const char *prefix;
	size_t plen, n;

	if (!names || !p->names_zlen) {
		if (names && p->names_len)
			memcpy(names, src, p->names_len);
		return names;
	}
	prefix = wc_usym_history_prefix(&u->hist, &plen);
	if ((!u->zd && !(u->zd = ZSTD_createDCtx())) ||
	    ZSTD_isError(ZSTD_DCtx_reset(u->zd, ZSTD_reset_session_only)) ||
	    (prefix && ZSTD_isError(ZSTD_DCtx_refPrefix(u->zd, prefix, plen))))
		goto fail;
	n = ZSTD_decompressDCtx(u->zd, names, p->names_len, src, p->names_zlen);
	if (!ZSTD_isError(n) && n == p->names_len)
		return names;
fail:
	free(names);
	return NULL;
}

/* Where a packed record's groups are read. */
struct cursor {
	const uint8_t *g, *gend; /* the groups */
	const char *nm, *nmend;	 /* the names, each NUL-terminated */
};

/* The file a group's build-id number k stands for, defined (def) as id, id_len and source, or
 * not.  Return: it, or NULL when k is not defined, or defined as another build-id (ENOENT),
 * or when out of memory (ENOMEM). */
static struct ufile *file_ref(struct wc_usyms *u, uint64_t k, bool def, const uint8_t *id,
			      unsigned id_len, unsigned source)
{
	struct ufile *f;
	size_t cap = u->refs_cap;

	errno = ENOENT;
	if (k >= WC_USYM_REFS_MAX)
		return NULL;
	if (k < cap && u->refs[k]) {
		f = &u->files[u->refs[k] - 1];
		return !def || same_id(f->id, f->id_len, id, id_len) ? f : NULL;
	}
	if (!def)
		return NULL;
	if (wc_grow((void **)&u->refs, &u->refs_cap, k + 1, sizeof(*u->refs))) {
		errno = ENOMEM;
		return NULL;
	}
	memset(u->refs + cap, 0, (u->refs_cap - cap) * sizeof(*u->refs));
	f = file_add(u, id, id_len, (int)source);
	if (!f)
		errno = ENOMEM;
	else
		u->refs[k] = (uint32_t)(f - u->files) + 1;
	return f;
}

/* Read one group at c, counting its ranges in *ranges, and when keep, keep them (counting as
 * bad those of no size or named with WC_USYM_NAME_MAX bytes or more); a build-id it defines
 * holds from there on, whatever becomes of its record.  Return: 1, 0 when the group is cut
 * short or wrong, or -ENOMEM. */
static int group_add(struct wc_usyms *u, struct cursor *c, uint32_t *ranges, bool keep)
{
	const uint8_t *q = c->g, *id = NULL;
	uint64_t k, n, start = 0, delta, size;
	unsigned id_len = 0, source = 0, depth;
	struct ufile *f;

	if (wc_uleb_get(&q, c->gend, &k))
		return 0;
	if (k & 1) { /* a definition: the build-id and its source follow */
		id_len = q < c->gend ? *q++ : 0;
		if (!id_len || id_len > WC_BUILD_ID_MAX || c->gend - q < (ptrdiff_t)id_len + 1)
			return 0;
		id = q;
		q += id_len;
		source = *q++;
	}
	if (q >= c->gend)
		return 0;
	depth = *q++;
	if (wc_uleb_get(&q, c->gend, &n) || depth > WC_INLINE_MAX_DEPTH)
		return 0;
	c->g = q;
	f = file_ref(u, k >> 1, k & 1, id, id_len, source);
	if (!f)
		return errno == ENOMEM ? -ENOMEM : 0;
	for (; n; n--) {
		const char *name = c->nm;
		size_t len = strnlen(name, (size_t)(c->nmend - name));

		if (wc_uleb_get(&c->g, c->gend, &delta) || wc_uleb_get(&c->g, c->gend, &size) ||
		    name + len == c->nmend || delta > UINT64_MAX - start)
			return 0;
		c->nm += len + 1;
		start += delta;
		(*ranges)++;
		if (!keep)
			continue;
		if (!size || size > UINT64_MAX - start || len >= WC_USYM_NAME_MAX) {
			u->bad++;
			continue;
		}
		if (range_add(f, depth, start, start + size, name))
			return -ENOMEM;
	}
	return 1;
}

/* Read the groups of p, names at names, and when keep, keep their ranges.  Return: 1, 0 when
 * they do not agree with the names or p's counts, or -ENOMEM. */
static int groups_add(struct wc_usyms *u, const struct wc_rec_usym_pack *p, const char *names,
		      bool keep)
{
	struct cursor c = { p->data, p->data + p->groups_len, names, names + p->names_len };
	uint32_t ranges = 0;
	int ok = 1;

	for (uint32_t i = 0; i < p->groups && (ok = group_add(u, &c, &ranges, keep)) > 0; i++)
		;
	if (ok <= 0)
		return ok;
	return ranges == p->count && c.g == c.gend && c.nm == c.nmend;
}

/* Keep the ranges of a packed record, read whole first: one that cannot be (its names, or its
 * groups cut short or not as many as its counts say) counts as one bad record, and a range of
 * no size or with too long a name as another; the names, once read, are part of the next names
 * frames' prefix whatever the groups say, as the writer's are.  Return: 0 or -ENOMEM. */
static int pack_add(struct wc_usyms *u, const struct wc_rec_usym_pack *p)
{
	size_t body = p->h.size >= sizeof(*p) ? p->h.size - sizeof(*p) : 0;
	char *names = NULL;
	int ok = 0;

	u->names_bytes += p->names_len;
	u->packed_bytes += p->h.size;
	if (p->h.size < sizeof(*p) || p->reserved0 || p->groups_len > body ||
	    p->names_len > WC_USYM_NAMES_MAX ||
	    (uint64_t)p->names_len > (uint64_t)p->count * WC_USYM_NAME_MAX ||
	    u->names_bytes > NAMES_EXPANSION * u->packed_bytes + WC_USYM_NAMES_MAX ||
	    (p->names_zlen ? p->names_zlen : p->names_len) > body - p->groups_len)
		goto out;
	names = unpack_names(u, p);
	if (!names || (p->names_len && names[p->names_len - 1]))
		goto out;
	if (wc_usym_history_add(&u->hist, names, p->names_len)) {
		ok = -ENOMEM;
		goto out;
	}
	ok = groups_add(u, p, names, false);
	if (ok > 0)
		ok = groups_add(u, p, names, true);
out:
	free(names);
	if (ok < 0)
		return ok;
	u->bad += !ok;
	return 0;
}

int wc_usyms_add(struct wc_usyms *u, const struct wc_rec_usym *r)
{
	size_t body = r->h.size - sizeof(*r);
	struct ufile *f;

	if (r->h.flags & WC_USYM_F_PACKED)
		return pack_add(u, (const void *)r);
	if (!r->build_id_size || r->build_id_size > WC_BUILD_ID_MAX || r->name_len > body ||
	    !r->name_len || r->name[r->name_len - 1] || r->depth > WC_INLINE_MAX_DEPTH ||
	    (r->start >= r->end && (r->start || r->end || r->depth))) {
		u->bad++;
		return 0;
	}
	f = file_add(u, r->build_id, r->build_id_size, r->source);
	if (!f)
		return -ENOMEM;
	if (r->start == r->end)
		return 0; /* the build-id's source alone */
	return range_add(f, r->depth, r->start, r->end, r->name);
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
