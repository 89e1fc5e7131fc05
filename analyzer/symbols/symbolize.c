/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbolize.c - see symbolize.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kallsyms.h"
#include "common/wct.h"
#include "common/map64.h"
#include "common/grow.h"
#include "analyzer/symbols/debuginfod.h"
#include "analyzer/symbols/dwinline.h"
#include "analyzer/symbols/symbolize.h"

#define UNKNOWN "[unknown]"

struct wc_symbolizer {
	const struct wc_tasks *tasks;
	const struct wc_symbol_paths *paths;
	struct wc_kallsyms *kallsyms;	      /* parsed from the text, owned */
	const struct wc_kallsyms *referenced; /* the KSYM records', borrowed */
	struct wc_elfsym **elf;		      /* by dso index, opened on first use */
	bool *used;			      /* by dso index: a frame was resolved against it */
	size_t nelf;
	struct wc_map64 user;	/* dso << 44 | file offset -> name index */
	struct wc_map64 kernel; /* address -> name index */
	char **names;
	size_t nnames, names_cap;
	struct wc_usyms *usyms;		    /* the trace's USYM records, borrowed; or NULL */
	bool footer;			    /* the trace says whether it carries them */
	uint64_t unnamed[WC_SYM_WHY_COUNT]; /* distinct user addresses left unnamed, by why */
	struct wc_debuginfod *dbgd;	    /* --debuginfod's client, made on first use */
	bool dbgd_failed;		    /* ... could not be made: not tried again */
	struct wc_elfsym **fetched;	    /* by dso index: from debuginfod, or NULL */
	bool *fetch_tried;		    /* by dso index: asked already */
	size_t nfetched;
	bool inline_frames;	/* wc_symbolizer_user_frames() gives inlined calls */
	struct wc_map64 inl;	/* as user: first index in inl_names << 8 | count */
	const char **inl_names; /* borrowed from dws or usyms */
	size_t ninl, inl_cap;
	struct wc_map64 dw_of;	  /* (uintptr_t)struct wc_elfsym * -> index in dws */
	struct wc_dwinline **dws; /* owned; NULL: the file has no DWARF */
	size_t ndws, dws_cap;
};

/*
 * The symbols of a kallsyms text in the file at @path (--kallsyms), read to its end: its stat
 * size may be 0, as /proc/kallsyms'.  Return: the symbols, or NULL with errno set.
 */
static struct wc_kallsyms *kallsyms_file(const char *path)
{
	FILE *f = fopen(path, "re");
	struct wc_kallsyms *k = NULL;
	size_t len = 0, cap = 0;
	char *text = NULL;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 65536 > cap) {
			char *t = realloc(text, cap = 2 * cap + 65536);

			if (!t) {
				errno = ENOMEM;
				goto out;
			}
			text = t;
		}
		size_t n = fread(text + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	if (!ferror(f))
		k = wc_kallsyms_new(text, len);
out:
	free(text);
	fclose(f);
	return k;
}

struct wc_symbolizer *wc_symbolizer_new(const struct wc_tasks *tasks, const char *kallsyms,
					size_t len, const struct wc_kallsyms *referenced,
					const struct wc_symbol_paths *paths)
{
	struct wc_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->tasks = tasks;
	s->paths = paths;
	s->referenced = referenced;
	s->inline_frames = paths && paths->inline_frames;
	if (wc_map64_init(&s->user) || wc_map64_init(&s->kernel) || wc_map64_init(&s->inl) ||
	    wc_map64_init(&s->dw_of))
		goto fail;
	if (kallsyms && len && *kallsyms) {
		s->kallsyms = wc_kallsyms_new(kallsyms, len);
		if (!s->kallsyms)
			goto fail;
	} else if ((!referenced || !wc_kallsyms_count(referenced)) && paths && paths->kallsyms &&
		   (s->kallsyms = kallsyms_file(paths->kallsyms)) == NULL && errno == ENOMEM) {
		goto fail;
	}
	return s;
fail:
	wc_symbolizer_free(s);
	errno = ENOMEM;
	return NULL;
}

void wc_symbolizer_free(struct wc_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nelf; i++)
		wc_elfsym_free(s->elf[i]);
	for (size_t i = 0; i < s->nfetched; i++)
		wc_elfsym_free(s->fetched[i]);
	free(s->fetched);
	free(s->fetch_tried);
	wc_debuginfod_free(s->dbgd);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->elf);
	free(s->used);
	wc_kallsyms_free(s->kallsyms);
	wc_map64_fini(&s->user);
	wc_map64_fini(&s->kernel);
	for (size_t i = 0; i < s->ndws; i++)
		wc_dwinline_free(s->dws[i]);
	free(s->dws);
	free(s->inl_names);
	wc_map64_fini(&s->inl);
	wc_map64_fini(&s->dw_of);
	free(s);
}

/* Keep @name (taking ownership) and map @key in @m to it.  Return: the name or NULL. */
static const char *keep(struct wc_symbolizer *s, struct wc_map64 *m, uint64_t key, char *name)
{
	if (!name)
		return NULL;
	if (s->nnames == s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap * 2 : 256;
		char **p = realloc(s->names, cap * sizeof(*p));

		if (!p) {
			free(name);
			return NULL;
		}
		s->names = p;
		s->names_cap = cap;
	}
	if (!wc_map64_put(m, key, s->nnames, NULL)) {
		free(name);
		return NULL;
	}
	s->names[s->nnames++] = name;
	return name;
}

static struct wc_elfsym *elf_of(struct wc_symbolizer *s, uint32_t dso)
{
	if (dso >= s->nelf) {
		size_t n = s->tasks->ndsos > dso ? s->tasks->ndsos : (size_t)dso + 1;
		struct wc_elfsym **e = realloc(s->elf, n * sizeof(*e));
		bool *u;

		if (!e)
			return NULL;
		s->elf = e;
		u = realloc(s->used, n * sizeof(*u));
		if (!u)
			return NULL;
		s->used = u;
		memset(s->elf + s->nelf, 0, (n - s->nelf) * sizeof(*e));
		memset(s->used + s->nelf, 0, (n - s->nelf) * sizeof(*u));
		s->nelf = n;
	}
	if (!s->elf[dso]) {
		const struct wc_dso *d = &s->tasks->dsos[dso];
		const uint8_t *id = d->build_id_len ? d->build_id : NULL;

		/* the vdso has no file: the trace carries the recorder's image of it */
		if (!strcmp(d->path, "[vdso]") && s->tasks->vdso_image)
			s->elf[dso] =
				wc_elfsym_open_image(d->path, s->tasks->vdso_image,
						     s->tasks->vdso_image_len, id, d->build_id_len);
		else
			s->elf[dso] = wc_elfsym_open(d->path, id, d->build_id_len, s->paths);
	}
	s->used[dso] = true;
	return s->elf[dso];
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

void wc_symbolizer_set_usyms(struct wc_symbolizer *s, struct wc_usyms *usyms, bool footer)
{
	s->usyms = usyms;
	s->footer = footer;
}

/* Whether the trace has USYM records of d's build-id with functions read from some table. */
static bool usable(const struct wc_symbolizer *s, const struct wc_dso *d)
{
	int src = s->usyms ? wc_usyms_source(s->usyms, d->build_id, d->build_id_len) : -1;

	return src == WC_USYM_SYMTAB || src == WC_USYM_DYNSYM || src == WC_USYM_DEBUG;
}

/*
 * Whether dso's USYM records name more than its local file e, which the build-id matched: the
 * recorder read a .symtab (the file's or a debug file's) where e is a .dynsym only, as when the
 * debug files of the recording host are not installed here.
 */
static bool records_richer(const struct wc_symbolizer *s, uint32_t dso, const struct wc_elfsym *e)
{
	const struct wc_dso *d = &s->tasks->dsos[dso];
	int src;

	if (!s->usyms || !wc_elfsym_dynsym_only(e))
		return false;
	src = wc_usyms_source(s->usyms, d->build_id, d->build_id_len);
	return src == WC_USYM_SYMTAB || src == WC_USYM_DEBUG;
}

/*
 * The symbols of dso from the servers of --debuginfod, fetched once: the file and its debug
 * file, or, with local (a file of the build with a .dynsym only), local with the debug file.
 * Return: them, or NULL (no server asked, nothing there, out of memory).
 */
static struct wc_elfsym *fetched(struct wc_symbolizer *s, uint32_t dso, const char *local)
{
	const struct wc_dso *d = &s->tasks->dsos[dso];

	if (!s->paths || !s->paths->debuginfod || !d->build_id_len)
		return NULL;
	if (!s->dbgd && !s->dbgd_failed) {
		s->dbgd = wc_debuginfod_new(*s->paths->debuginfod ? s->paths->debuginfod : NULL);
		s->dbgd_failed = !s->dbgd;
	}
	if (!s->dbgd)
		return NULL;
	if (dso >= s->nfetched) {
		size_t n = s->tasks->ndsos > dso ? s->tasks->ndsos : (size_t)dso + 1;
		struct wc_elfsym **f = realloc(s->fetched, n * sizeof(*f));
		bool *t = f ? realloc(s->fetch_tried, n * sizeof(*t)) : NULL;

		if (f)
			s->fetched = f;
		if (!t)
			return NULL;
		s->fetch_tried = t;
		memset(s->fetched + s->nfetched, 0, (n - s->nfetched) * sizeof(*f));
		memset(s->fetch_tried + s->nfetched, 0, (n - s->nfetched) * sizeof(*t));
		s->nfetched = n;
	}
	if (!s->fetch_tried[dso]) {
		s->fetch_tried[dso] = true;
		s->fetched[dso] = wc_debuginfod_open(s->dbgd, d->build_id, d->build_id_len, local);
	}
	return s->fetched[dso] && wc_elfsym_status(s->fetched[dso]) == WC_ELFSYM_OK
		       ? s->fetched[dso]
		       : NULL;
}

/*
 * The name of offset off of dso, whose local file's symbols are e, in the order of
 * symbolize.h, or NULL with the reason counted.
 */
static const char *name_of(struct wc_symbolizer *s, uint32_t dso, struct wc_elfsym *e, uint64_t off)
{
	const struct wc_dso *d = &s->tasks->dsos[dso];
	struct wc_elfsym *f;
	const char *name;

	if (wc_elfsym_status(e) == WC_ELFSYM_OK && !records_richer(s, dso, e)) {
		/* the local file; with --debuginfod, its debug file where it has a .dynsym only */
		if (wc_elfsym_dynsym_only(e) && (f = fetched(s, dso, wc_elfsym_file(e))))
			e = f;
		name = wc_elfsym_lookup(e, off, NULL);
		s->unnamed[WC_SYM_WHY_OUTSIDE] += !name;
		return name;
	}
	if (s->usyms && d->build_id_len &&
	    (name = wc_usyms_lookup(s->usyms, d->build_id, d->build_id_len, off)))
		return name;
	if (usable(s, d)) { /* the recorder could not name it either */
		s->unnamed[WC_SYM_WHY_NO_RECORD]++;
		return NULL;
	}
	if ((f = fetched(s, dso, NULL))) {
		name = wc_elfsym_lookup(f, off, NULL);
		s->unnamed[WC_SYM_WHY_OUTSIDE] += !name;
		return name;
	}
	s->unnamed[(int)wc_elfsym_status(e)]++;
	return NULL;
}

const char *wc_symbolizer_user(struct wc_symbolizer *s, uint32_t aspace, uint64_t ip)
{
	const struct wc_map *m = wc_tasks_lookup_map(s->tasks, aspace, ip);
	uint64_t off, key, *v;
	const char *name;
	char *text;

	if (ip == WC_CONTEXT_TRUNCATED)
		return "[truncated]";
	if (ip == WC_CONTEXT_UNWIND_FAILED)
		return "[unwind failed]";
	if (!m)
		return UNKNOWN;
	off = ip - m->start + m->pgoff;
	key = (uint64_t)m->dso << 44 | (off & ((1ull << 44) - 1));
	v = wc_map64_get(&s->user, key);
	if (v)
		return s->names[*v];
	struct wc_elfsym *e = elf_of(s, m->dso);

	if (!e)
		return NULL;
	name = name_of(s, m->dso, e, off);
	if (name)
		text = strdup(name);
	else if (asprintf(&text, "%s+0x%llx", base_name(s->tasks->dsos[m->dso].path),
			  (unsigned long long)off) < 0)
		text = NULL;
	return keep(s, &s->user, key, text);
}

void wc_symbolizer_set_inline(struct wc_symbolizer *s, bool on)
{
	s->inline_frames = on;
}

/*
 * The symbols name_of() takes dso's names from, whose local file's symbols are e: a file's
 * (the local one, or debuginfod's), or NULL: the USYM records, or none.
 */
static struct wc_elfsym *names_from(struct wc_symbolizer *s, uint32_t dso, struct wc_elfsym *e)
{
	struct wc_elfsym *f;

	if (wc_elfsym_status(e) == WC_ELFSYM_OK && !records_richer(s, dso, e))
		return wc_elfsym_dynsym_only(e) && (f = fetched(s, dso, wc_elfsym_file(e))) ? f : e;
	if (usable(s, &s->tasks->dsos[dso]))
		return NULL;
	return fetched(s, dso, NULL);
}

/* The DWARF of the file e's symbols came from, opened once.  Return: it, or NULL (none). */
static struct wc_dwinline *dwarf_of(struct wc_symbolizer *s, const struct wc_elfsym *e)
{
	uint64_t *v = wc_map64_get(&s->dw_of, (uintptr_t)e);
	const char *file;

	if (v)
		return s->dws[*v];
	if (wc_grow((void **)&s->dws, &s->dws_cap, s->ndws + 1, sizeof(*s->dws)))
		return NULL;
	file = wc_elfsym_file(e);
	s->dws[s->ndws] = file && file[0] != '[' ? wc_dwinline_open(file) : NULL; /* [vdso] */
	if (!wc_map64_put(&s->dw_of, (uintptr_t)e, s->ndws, NULL)) {
		wc_dwinline_free(s->dws[s->ndws]);
		return NULL;
	}
	return s->dws[s->ndws++];
}

/*
 * The inlined calls at file offset off of dso, innermost first, into names (at most
 * WC_INLINE_MAX_DEPTH), from where the function's name comes from (names_from()): the file's
 * DWARF, or the USYM records.  The call site of a return address is the byte before it: off - 1
 * is looked up (the first byte of an inlined call's code would be its caller's at off).
 * Return: how many.
 */
static size_t find_inlines(struct wc_symbolizer *s, uint32_t dso, uint64_t off, const char **names)
{
	const struct wc_dso *d = &s->tasks->dsos[dso];
	struct wc_inline_frame f[WC_INLINE_MAX_DEPTH];
	struct wc_elfsym *e = elf_of(s, dso), *from;
	struct wc_dwinline *dw;
	uint64_t vaddr, start, end;
	size_t n;

	if (!e || !off)
		return 0;
	from = names_from(s, dso, e);
	if (!from) { /* off - 1 in off's function, as the recorder looked it up (usym.c) */
		const char *fn;

		if (!s->usyms || !d->build_id_len ||
		    !(fn = wc_usyms_lookup(s->usyms, d->build_id, d->build_id_len, off)) ||
		    fn != wc_usyms_lookup(s->usyms, d->build_id, d->build_id_len, off - 1))
			return 0;
		return wc_usyms_inlines(s->usyms, d->build_id, d->build_id_len, off - 1, names,
					WC_INLINE_MAX_DEPTH);
	}
	if (!wc_elfsym_lookup_range(from, off, &start, &end) || off == start ||
	    !wc_elfsym_vaddr(from, off - 1, &vaddr) || !(dw = dwarf_of(s, from)))
		return 0;
	n = wc_dwinline_lookup(dw, vaddr, f, WC_INLINE_MAX_DEPTH);
	for (size_t i = 0; i < n; i++)
		names[i] = f[i].name;
	return n;
}

size_t wc_symbolizer_user_frames(struct wc_symbolizer *s, uint32_t aspace, uint64_t ip,
				 const char **out, size_t max)
{
	const char *fn = wc_symbolizer_user(s, aspace, ip);
	const struct wc_map *m;
	uint64_t off, key, *v;
	size_t n = 0;

	if (!fn || !max)
		return 0;
	if (s->inline_frames && ip != WC_CONTEXT_TRUNCATED && ip != WC_CONTEXT_UNWIND_FAILED &&
	    (m = wc_tasks_lookup_map(s->tasks, aspace, ip))) {
		off = ip - m->start + m->pgoff;
		key = (uint64_t)m->dso << 44 | (off & ((1ull << 44) - 1));
		v = wc_map64_get(&s->inl, key);
		if (!v) {
			const char *names[WC_INLINE_MAX_DEPTH];

			n = find_inlines(s, m->dso, off, names);
			if (wc_grow((void **)&s->inl_names, &s->inl_cap, s->ninl + n,
				    sizeof(*s->inl_names)) ||
			    !(v = wc_map64_put(&s->inl, key, (uint64_t)s->ninl << 8 | n, NULL)))
				return 0;
			if (n) /* inl_names may still be NULL: not memcpy's to take */
				memcpy(s->inl_names + s->ninl, names, n * sizeof(*names));
			s->ninl += n;
		}
		n = (size_t)(*v & 0xff) < max - 1 ? (size_t)(*v & 0xff) : max - 1;
		if (n)
			memcpy(out, s->inl_names + (*v >> 8), n * sizeof(*out));
	}
	out[n++] = fn;
	return n;
}

const char *wc_symbolizer_kernel(struct wc_symbolizer *s, uint64_t ip)
{
	uint64_t *v = wc_map64_get(&s->kernel, ip);
	const char *name;

	if (v)
		return s->names[*v];
	if (s->kallsyms)
		name = wc_kallsyms_lookup(s->kallsyms, ip, NULL, NULL);
	else
		name = s->referenced ? wc_kallsyms_lookup(s->referenced, ip, NULL, NULL) : NULL;
	return keep(s, &s->kernel, ip, strdup(name ? name : UNKNOWN));
}

const char *wc_symbolizer_source(struct wc_symbolizer *s, uint32_t dso, char *buf, size_t len)
{
	const struct wc_dso *d = &s->tasks->dsos[dso];
	struct wc_elfsym *e = elf_of(s, dso);
	int src = s->usyms ? wc_usyms_source(s->usyms, d->build_id, d->build_id_len) : -1;

	if (!e)
		return NULL;
	if (wc_elfsym_status(e) == WC_ELFSYM_OK && !records_richer(s, dso, e))
		snprintf(buf, len, "%s %s (%s)", d->path[0] == '[' ? "the trace's" : "local",
			 wc_elfsym_file(e), wc_elfsym_dynsym_only(e) ? "dynsym only" : "symtab");
	else if (usable(s, d))
		snprintf(buf, len, "USYM records (the recorder's %s; here: %s)",
			 wc_usyms_source_text(src), wc_elfsym_status_text(wc_elfsym_status(e)));
	else
		snprintf(buf, len, "none (here: %s; the recorder's: %s)",
			 wc_elfsym_status_text(wc_elfsym_status(e)), wc_usyms_source_text(src));
	return buf;
}

/* The footer line: distinct user addresses left as file+0xOFFSET, and why. */
static void warn_unnamed(const struct wc_symbolizer *s, FILE *out, const char *prog)
{
	static const char *const why[WC_SYM_WHY_COUNT] = {
		[WC_ELFSYM_MISSING] = "no file",
		[WC_ELFSYM_MISMATCH] = "build-id mismatch",
		[WC_ELFSYM_NOSYMS] = "stripped",
		[WC_ELFSYM_BAD] = "bad file",
		[WC_SYM_WHY_NO_RECORD] = "in no function of the USYM records",
		[WC_SYM_WHY_OUTSIDE] = "in no function",
	};
	uint64_t total = 0;
	const char *sep = "";

	for (int i = 0; i < WC_SYM_WHY_COUNT; i++)
		total += s->unnamed[i];
	if (s->usyms && wc_usyms_bad(s->usyms))
		fprintf(out, "%s: %llu bad USYM records skipped (overlapping, or damaged)\n", prog,
			(unsigned long long)wc_usyms_bad(s->usyms));
	/* a stripped file, or an address in no function, alone is common and left quiet */
	if (!s->footer || !(s->unnamed[WC_ELFSYM_MISSING] + s->unnamed[WC_ELFSYM_MISMATCH] +
			    s->unnamed[WC_ELFSYM_BAD]))
		return;
	fprintf(out, "%s: %llu user frame addresses left unsymbolized (", prog,
		(unsigned long long)total);
	for (int i = 0; i < WC_SYM_WHY_COUNT; i++) {
		if (!s->unnamed[i] || !why[i])
			continue;
		fprintf(out, "%s%llu %s", sep, (unsigned long long)s->unnamed[i], why[i]);
		sep = ", ";
	}
	fprintf(out, ")\n");
}

size_t wc_symbolizer_warn(const struct wc_symbolizer *s, FILE *out, const char *prog)
{
	size_t n = 0;

	warn_unnamed(s, out, prog);

	for (size_t i = 0; i < s->nelf; i++) {
		enum wc_elfsym_status st;

		if (!s->used[i] || !s->elf[i])
			continue;
		st = wc_elfsym_status(s->elf[i]);
		if (st != WC_ELFSYM_MISMATCH && st != WC_ELFSYM_BAD)
			continue;
		if (usable(s, &s->tasks->dsos[i]))
			continue; /* named by the trace's records instead */
		fprintf(out, "%s: %s: %s: its frames are shown as %s+0xOFFSET\n", prog,
			s->tasks->dsos[i].path, wc_elfsym_status_text(st),
			base_name(s->tasks->dsos[i].path));
		n++;
	}
	return n;
}
